/*
** tm_lkj.c -- the LKJ family: lkj_corr_lpdf, lkj_corr_cholesky_lpdf,
** lkj_cov_lpdf, and lkj_corr_rng, lkj_corr_cholesky_rng.
**
** The densities record one operands node per call holding the partials of
** every autodiff argument; under propto a term goes exactly when Stan's
** include_summand drops it, i.e. when every argument it depends on is
** constant.  The _rng functions read their arguments by value and record
** nothing.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_rng_dist.h"
#include "tm_mv_checks.h"
#include "tm_rng_def.h"

#define AT TM_AT

/* log of the LKJ normalising constant (Lewandowski, Kurowicka and Joe 2009),
** in the lbeta form that does not cancel for large eta; *deta its derivative. */
static double lkj_constant(double eta, int K, double *deta) {
  int Km1 = K - 1;
  double c = -0.25 * Km1 * K * TM_LOG_PI, g = 0;
  for (int k = 1; k <= Km1; k++) {
    double x = eta + 0.5 * (Km1 - k);
    c += tm_lgamma(0.5 * k) - tm_lbeta(0.5 * k, x);
    g += tm_digamma(x + 0.5 * k) - tm_digamma(x);
  }
  *deta = g;
  return c;
}

/* The argument shapes of lkj_corr and lkj_corr_cholesky. */
static int lkj_args(const char *fn, const tm_v *a, int nargs) {
  if (nargs != 2 || a[0].narr || a[0].base != TM_MATRIX || !tm_is_scalar(&a[1]))
    return ad_fail(AD_EINVALID, "%s: expects (matrix, real)", fn);
  return AD_OK;
}

/* Stan's check_corr_matrix on the K x K matrix R (symmetric, positive
** definite, unit diagonal), named name; *L gets its lower Cholesky factor. */
static int corr_factor(const char *fn, const char *name, int K, const double *R, double **L) {
  int rc;
  if ((rc = tm_la_check_symmetric(fn, name, K, R))) return rc;
  if (!(*L = ad_alloc_doubles((size_t)K * K + 1))) return AD_EMEMORY;
  if (tm_la_cholesky(K, R, *L, NULL) >= 0) return ad_fail(AD_EDOMAIN, "%s: %s is not positive definite.", fn, name);
  for (int i = 0; i < K; i++)
    if (!(fabs(AT(R, K, i, i) - 1) <= 1e-8))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid correlation matrix. %s(%d,%d) is %.17g, but should be near 1",
                     fn, name, name, i + 1, i + 1, AT(R, K, i, i));
  return AD_OK;
}

/* ---- lkj_corr_cholesky(L | eta) ---- */

static int k_lkj_corr_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "lkj_corr_cholesky_lpdf";
  int rc = AD_OK;
  if ((rc = lkj_args(fn, a, nargs))) return rc;
  const tm_v *Lv = &a[0], *eta = &a[1];
  if ((rc = tm_check_positive(fn, "Shape parameter", eta))) return rc;
  if ((rc = tm_check_square(fn, "Random variable", Lv))) return rc;
  int K = Lv->rows;
  const double *L = Lv->val;
  for (int j = 1; j < K; j++)
    for (int i = 0; i < j; i++)
      if (AT(L, K, i, j) != 0)
        return ad_fail(AD_EDOMAIN, "%s: Random variable is not lower triangular; Random variable[%d,%d]=%g",
                       fn, i + 1, j + 1, AT(L, K, i, j));
  double *d[2] = {tm_new_partials(Lv, &rc), tm_new_partials(eta, &rc)};
  if (rc) return rc;
  if (K == 0) return tm_set_partials(out, a, d, 2, 0.0);
  double e = tm_get(eta, 0), lp = 0, de = 0;
  int propto = c->propto;
  if (!propto || !tm_is_const(eta)) lp += lkj_constant(e, K, &de);
  if (!propto || !tm_is_const(Lv) || !tm_is_const(eta)) {
    /* log density of L L^T plus the log Jacobian of L -> L L^T */
    for (int i = 1; i < K; i++) {
      double lii = AT(L, K, i, i), coef = K - i - 1 + 2 * e - 2, ld = log(lii);
      lp += coef * ld;
      de += 2 * ld;
      if (d[0]) AT(d[0], K, i, i) += coef / lii;
    }
  }
  if (d[1]) d[1][0] = de;
  return tm_set_partials(out, a, d, 2, lp);
}

/* ---- lkj_corr(y | eta) = c(eta, K) det(y)^(eta - 1) ---- */

static int k_lkj_corr(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "lkj_corr_lpdf", name[] = "Correlation matrix";
  int rc = AD_OK;
  if ((rc = lkj_args(fn, a, nargs))) return rc;
  const tm_v *Yv = &a[0], *eta = &a[1];
  if ((rc = tm_check_positive(fn, "Shape parameter", eta))) return rc;
  double *L;
  if ((rc = tm_check_square(fn, name, Yv)) || (rc = corr_factor(fn, name, Yv->rows, Yv->val, &L))) return rc;
  int K = Yv->rows;
  double *d[2] = {tm_new_partials(Yv, &rc), tm_new_partials(eta, &rc)};
  if (rc) return rc;
  double e = tm_get(eta, 0), lp = 0, de = 0;
  int propto = c->propto;
  if (K > 0 && (!propto || !tm_is_const(eta))) lp += lkj_constant(e, K, &de);
  if (K > 0 && (!propto || !tm_is_const(Yv) || !tm_is_const(eta))) {
    double ld = 0;
    for (int i = 0; i < K; i++) ld += 2 * log(AT(L, K, i, i));
    lp += (e - 1) * ld;
    de += ld;
    if (d[0]) {                /* (eta - 1) y^-1 */
      tm_la_chol_inverse(K, L, d[0]);
      for (size_t i = 0; i < (size_t)K * K; i++) d[0][i] *= e - 1;
    }
  }
  if (d[1]) d[1][0] = de;
  return tm_set_partials(out, a, d, 2, lp);
}

/* ---- lkj_cov(y | mu, sigma, eta) ----
** Stan's deprecated prior on a covariance matrix: lognormal(mu[k], sigma[k])
** on each standard deviation sqrt(y[k, k]) plus lkj_corr(eta) on the
** correlation matrix D y D, D = diag(1 / sqrt(y[k, k])).  Stan skips the
** rescaling when eta is the constant 1 (the lkj term is then a constant);
** we always rescale, which gives the same value without requiring y's
** diagonal to be 1. */

static int k_lkj_cov(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "lkj_cov_lpdf";
  int rc = AD_OK;
  if (nargs != 4 || a[0].narr || a[0].base != TM_MATRIX || a[1].narr || a[1].base != TM_VECTOR || a[2].narr ||
      a[2].base != TM_VECTOR || !tm_is_scalar(&a[3]))
    return ad_fail(AD_EINVALID, "%s: expects (matrix, vector, vector, real)", fn);
  const tm_v *Yv = &a[0], *M = &a[1], *Sg = &a[2], *E = &a[3];
  if ((rc = tm_mv_size_match(fn, "Rows of location parameter", M->rows, "columns of scale parameter", Sg->rows)) ||
      (rc = tm_check_square(fn, "random variable", Yv)) ||
      (rc = tm_mv_size_match(fn, "Rows of random variable", Yv->rows, "rows of location parameter", M->rows)) ||
      (rc = tm_check_positive(fn, "Shape parameter", E)) || (rc = tm_check_finite(fn, "Location parameter", M)) ||
      (rc = tm_check_finite(fn, "Scale parameter", Sg)) || (rc = tm_check_finite(fn, "Covariance matrix", Yv)))
    return rc;
  int K = Yv->rows;
  size_t KK = (size_t)K * K;
  double *sd = ad_alloc_doubles((size_t)K + 1), *R = ad_alloc_doubles(KK + 1);
  if (!sd || !R) return AD_EMEMORY;
  for (int k = 0; k < K; k++) {
    sd[k] = sqrt(AT(Yv->val, K, k, k));
    tm_v s = tm_real_view(&sd[k], NULL), mk = tm_real_view(&M->val[k], NULL), sk = tm_real_view(&Sg->val[k], NULL);
    if ((rc = tm_check_nonnegative("lognormal_lpdf", "Random variable", &s)) ||
        (rc = tm_check_finite("lognormal_lpdf", "Location parameter", &mk)) ||
        (rc = tm_check_positive_finite("lognormal_lpdf", "Scale parameter", &sk)))
      return rc;
  }
  double *d[4] = {tm_new_partials(Yv, &rc), tm_new_partials(M, &rc), tm_new_partials(Sg, &rc), tm_new_partials(E, &rc)};
  if (rc) return rc;
  int propto = c->propto, cy = tm_is_const(Yv), cm = tm_is_const(M), cs = tm_is_const(Sg), ce = tm_is_const(E);
  double lp = 0;
  for (int k = 0; k < K; k++) {      /* lognormal_lpdf(sd[k] | mu[k], sigma[k]) */
    double s = sd[k], m = M->val[k], sg = Sg->val[k];
    if (s == 0) return tm_set_partials(out, a, d, 4, -INFINITY);
    double ls = log(s), t = (ls - m) / sg;
    if (!propto) lp -= TM_LOG_SQRT_2PI;
    if (!propto || !cs) lp -= log(sg);
    if (!propto || !cy) lp -= ls;
    if (!propto || !cy || !cm || !cs) lp -= 0.5 * t * t;
    if (d[0]) AT(d[0], K, k, k) += (-1 / s - t / (sg * s)) / (2 * s);
    if (d[1]) d[1][k] += t / sg;
    if (d[2]) d[2][k] += -1 / sg + t * t / sg;
  }
  static const char lfn[] = "lkj_corr_lpdf", cname[] = "Correlation matrix";
  for (int j = 0; j < K; j++)
    for (int i = 0; i < K; i++) AT(R, K, i, j) = AT(Yv->val, K, i, j) / (sd[i] * sd[j]);
  double *L;
  if ((rc = tm_check_positive(lfn, "Shape parameter", E)) || (rc = corr_factor(lfn, cname, K, R, &L))) return rc;
  double e = tm_get(E, 0), de = 0;
  if (K > 0 && (!propto || !ce)) lp += lkj_constant(e, K, &de);
  if (K > 0) {
    double ld = tm_mv_chol_logdet(K, L);
    if (!propto || !cy || !ce) lp += (e - 1) * ld;
    de += ld;
    if (d[0]) {                    /* (eta - 1) (y^-1 - diag(1 / y[k, k])), y^-1 = D R^-1 D */
      double *Ri = ad_alloc_doubles(KK);
      if (!Ri) return AD_EMEMORY;
      tm_la_chol_inverse(K, L, Ri);
      for (int j = 0; j < K; j++)
        for (int i = 0; i < K; i++)
          AT(d[0], K, i, j) += (e - 1) * (AT(Ri, K, i, j) / (sd[i] * sd[j]) - (i == j ? 1 / (sd[i] * sd[i]) : 0));
    }
  }
  if (d[3]) d[3][0] = de;
  return tm_set_partials(out, a, d, 4, lp);
}

/* ---- lkj_corr_rng and lkj_corr_cholesky_rng ---- */

/* Canonical partial correlations from beta draws, turned into the Cholesky
** factor of a correlation matrix (Stan's lkj_corr_cholesky_rng and
** read_corr_L: the C-vine / onion construction of Lewandowski, Kurowicka
** and Joe 2009). */
static int lkj_chol(const tm_call *c, const tm_v *a, int nargs, tm_v *out, const char *fn) {
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 2))) return rc;
  if ((rc = tm_check_nonnegative(fn, "Dimension", &a[0])) || (rc = tm_check_positive_finite(fn, "Shape parameter", &a[1])))
    return rc;
  int K = tm_geti(&a[0], 0);
  double eta = tm_get(&a[1], 0);
  if ((rc = tm_new_matrix(out, K, K, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  double *L = out->val;
  for (size_t i = 0; i < (size_t)K * K; i++) L[i] = 0;
  if (K == 0) return AD_OK;
  L[0] = 1;
  if (K == 1) return AD_OK;
  double *acc = ad_alloc_doubles((size_t)K);   /* 1 - squared norm so far, per row */
  if (!acc) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < K; i++) acc[i] = 1;
  double alpha = eta + 0.5 * (K - 1);
  for (int j = 0; j < K - 1; j++) {            /* column j */
    alpha -= 0.5;
    if (j > 0) L[j + (size_t)j * K] = sqrt(acc[j]);
    for (int i = j + 1; i < K; i++) {
      double cpc = 2.0 * tm_rd_beta(c->rng, alpha, alpha) - 1.0;
      L[i + (size_t)j * K] = cpc * sqrt(acc[i]);
      acc[i] *= 1.0 - cpc * cpc;
    }
  }
  L[(K - 1) + (size_t)(K - 1) * K] = sqrt(acc[K - 1]);
  return AD_OK;
}

static int k_lkj_corr_cholesky_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return lkj_chol(c, a, nargs, out, "lkj_corr_cholesky_rng");
}

/* L L' of the Cholesky draw. */
static int k_lkj_corr_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  tm_v Lv;
  int rc = lkj_chol(c, a, nargs, &Lv, "lkj_corr_rng");
  if (rc) return rc;
  int K = Lv.rows;
  if ((rc = tm_new_matrix(out, K, K, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < K; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k <= j; k++) s += Lv.val[i + (size_t)k * K] * Lv.val[j + (size_t)k * K];
      out->val[i + (size_t)j * K] = out->val[j + (size_t)i * K] = i == j ? 1.0 : s;
    }
  return AD_OK;
}

const tm_fn tm_fns_lkj[] = {
  {"lkj_corr_cholesky_lpdf", "real(matrix, real)", k_lkj_corr_cholesky, NULL},
  {"lkj_corr_lpdf", "real(matrix, real)", k_lkj_corr, NULL},
  {"lkj_cov_lpdf", "real(matrix, vector, vector, real)", k_lkj_cov, NULL},
  {"lkj_corr_cholesky_rng", "matrix(int, real)", k_lkj_corr_cholesky_rng, NULL},
  {"lkj_corr_rng", "matrix(int, real)", k_lkj_corr_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
