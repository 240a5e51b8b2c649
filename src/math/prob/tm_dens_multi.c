/*
** tm_dens_multi.c -- multivariate densities: multi_normal, multi_normal_cholesky,
** lkj_corr_cholesky, dirichlet.
**
** Vectorized as Stan does: the random variable and the location may each be
** one vector (or row vector) or an array of them; a single one broadcasts
** against the other's array.  Each call records one operands node (ad.h)
** holding the partials of every autodiff argument.  Under propto a term is
** dropped exactly when Stan's include_summand drops it: when every argument
** it depends on is constant.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_dens_multi.h"

#define AT TM_AT

/* "vectors" arguments: tm_mvec (tm_dens_multi.h) */
static tm_v mvec_elem(const tm_mvec *m, int i) {
  return tm_vector_view(m->v->val + tm_mvec_off(m, i), NULL, m->k);
}

/* Stan's check_consistent_sizes_mvt: two arrays must have the same length. */
static int consistent_mvt(const char *fn, const char *n1, const tm_mvec *a, const char *n2, const tm_mvec *b) {
  if (!a->many || !b->many || a->n == b->n) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s has size = %d, but %s has size %d; and they must be the same size.",
                 fn, n1, a->n, n2, b->n);
}

static int size_match(const char *fn, const char *n1, int s1, const char *n2, int s2) {
  if (s1 == s2) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s (%d) and %s (%d) must match in size", fn, n1, s1, n2, s2);
}

static int check_locations(const char *fn, const tm_mvec *y, const tm_mvec *mu) {
  int rc;
  for (int i = 0; i < mu->n; i++) {
    tm_v e = mvec_elem(mu, i);
    if ((rc = tm_check_finite(fn, "Location parameter", &e))) return rc;
  }
  for (int i = 0; i < y->n; i++) {
    tm_v e = mvec_elem(y, i);
    if ((rc = tm_check_not_nan(fn, "Random variable", &e))) return rc;
  }
  return AD_OK;
}

/* ---- multi_normal and multi_normal_cholesky ---- */

/* Shared by both: the quadratic terms -0.5 |L^-1 (y_i - mu_i)|^2 and their
** partials in y and mu; z_i = Sigma^-1 r_i and w_i = L^-1 r_i are handed to
** visit() for the covariance partials.  Returns the sum. */
typedef void (*quad_visit)(void *ctx, const double *z, const double *w, int k);

static double mvn_quad(const tm_mvec *y, const tm_mvec *mu, int N, const double *L, double *dy, double *dmu,
                       double *w, double *z, quad_visit visit, void *ctx) {
  int k = y->k;
  double lp = 0;
  for (int i = 0; i < N; i++) {
    const double *yi = y->v->val + tm_mvec_off(y, i), *mi = mu->v->val + tm_mvec_off(mu, i);
    for (int j = 0; j < k; j++) w[j] = yi[j] - mi[j];
    tm_la_trsm_lower(k, 1, L, w);
    double q = 0;
    for (int j = 0; j < k; j++) q += w[j] * w[j];
    lp -= 0.5 * q;
    if (!dy && !dmu && !visit) continue;
    memcpy(z, w, (size_t)k * sizeof *z);
    tm_la_trsm_lower_t(k, 1, L, z);
    if (dy) for (int j = 0; j < k; j++) dy[tm_mvec_off(y, i) + j] -= z[j];
    if (dmu) for (int j = 0; j < k; j++) dmu[tm_mvec_off(mu, i) + j] += z[j];
    if (visit) visit(ctx, z, w, k);
  }
  return lp;
}

/* Sigma partial accumulates sum_i z_i z_i^T (symmetric, both triangles) */
static void visit_zz(void *ctx, const double *z, const double *w, int k) {
  double *S = ctx;
  (void)w;
  for (int b = 0; b < k; b++)
    for (int a = 0; a < k; a++) AT(S, k, a, b) += 0.5 * z[a] * z[b];
}

/* L partial accumulates sum_i z_i w_i^T on the lower triangle (the only part read) */
static void visit_zw(void *ctx, const double *z, const double *w, int k) {
  double *G = ctx;
  for (int b = 0; b < k; b++)
    for (int a = b; a < k; a++) AT(G, k, a, b) += z[a] * w[b];
}

/* Checks common to both; *N = number of terms (0: the density is 0). */
static int mvn_checks(const char *fn, const tm_v *a, int nargs, tm_mvec *y, tm_mvec *mu, int *N) {
  int rc;
  if (nargs != 3 || a[2].narr || a[2].base != TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: expects (vectors, vectors, matrix)", fn);
  if ((rc = tm_mvec_of(fn, &a[0], "Random variable", y)) || (rc = tm_mvec_of(fn, &a[1], "Location parameter", mu)))
    return rc;
  if ((rc = consistent_mvt(fn, "y", y, "mu", mu))) return rc;
  *N = y->n > mu->n ? y->n : mu->n;
  if (y->n == 0 || mu->n == 0) { *N = 0; return AD_OK; }
  if ((rc = size_match(fn, "Size of random variable", y->k, "size of location parameter", mu->k))) return rc;
  if ((rc = size_match(fn, "Size of random variable", y->k, "rows of covariance parameter", a[2].rows))) return rc;
  if ((rc = size_match(fn, "Size of random variable", y->k, "columns of covariance parameter", a[2].cols))) return rc;
  return check_locations(fn, y, mu);
}

static int k_multi_normal(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_normal_lpdf";
  int rc = AD_OK, N;
  tm_mvec y = {0}, mu = {0};
  if (nargs == 3 && a[2].base == TM_MATRIX && a[2].narr == 0 && a[2].rows == 0)
    return ad_fail(AD_EINVALID, "%s: Covariance matrix rows is 0, but must be positive!", fn);
  if ((rc = mvn_checks(fn, a, nargs, &y, &mu, &N))) return rc;
  double *d[3] = {tm_new_partials(&a[0], &rc), tm_new_partials(&a[1], &rc), tm_new_partials(&a[2], &rc)};
  if (rc) return rc;
  if (N == 0) return tm_set_partials(out, a, d, 3, 0.0);
  const tm_v *S = &a[2];
  int k = y.k;
  size_t kk = (size_t)k * (size_t)k;
  if ((rc = tm_la_check_symmetric(fn, "Covariance matrix", k, S->val))) return rc;
  double *L = ad_alloc_doubles(kk), *w = ad_alloc_doubles((size_t)k), *z = ad_alloc_doubles((size_t)k);
  if (!L || !w || !z) return AD_EMEMORY;
  double piv;
  if (tm_la_cholesky(k, S->val, L, &piv) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: LDLT_Factor of covariance parameter is not positive definite.  "
                   "last conditional variance is %g.", fn, piv);
  int propto = c->propto;
  double lp = 0;
  if (!propto) lp -= 0.5 * k * N * TM_LOG_2PI;
  if (!propto || !tm_is_const(S)) {
    double logdet = 0;
    for (int j = 0; j < k; j++) logdet += 2 * log(AT(L, k, j, j));
    lp -= 0.5 * logdet * N;
  }
  if (!propto || !tm_is_const(&a[0]) || !tm_is_const(&a[1]) || !tm_is_const(S)) {
    lp += mvn_quad(&y, &mu, N, L, d[0], d[1], w, z, d[2] ? visit_zz : NULL, d[2]);
    /* d/dSigma of -N/2 log|Sigma| is -N/2 Sigma^-1 (symmetric, as is the rest) */
    if (d[2]) {
      double *inv = ad_alloc_doubles(kk);
      if (!inv) return AD_EMEMORY;
      tm_la_chol_inverse(k, L, inv);
      for (size_t i = 0; i < kk; i++) d[2][i] -= 0.5 * N * inv[i];
    }
  }
  return tm_set_partials(out, a, d, 3, lp);
}

static int k_multi_normal_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_normal_cholesky_lpdf";
  int rc = AD_OK, N;
  tm_mvec y = {0}, mu = {0};
  if ((rc = mvn_checks(fn, a, nargs, &y, &mu, &N))) return rc;
  double *d[3] = {tm_new_partials(&a[0], &rc), tm_new_partials(&a[1], &rc), tm_new_partials(&a[2], &rc)};
  if (rc) return rc;
  int k = y.k;
  if (N == 0 || k == 0) return tm_set_partials(out, a, d, 3, 0.0);
  const tm_v *Lv = &a[2];
  const double *L = Lv->val;
  double *w = ad_alloc_doubles((size_t)k), *z = ad_alloc_doubles((size_t)k);
  if (!w || !z) return AD_EMEMORY;
  int propto = c->propto;
  double lp = 0;
  if (!propto) lp -= 0.5 * k * N * TM_LOG_2PI;
  if (!propto || !tm_is_const(Lv)) {
    double sl = 0;
    for (int j = 0; j < k; j++) sl += log(AT(L, k, j, j));
    lp -= N * sl;
    if (d[2]) for (int j = 0; j < k; j++) AT(d[2], k, j, j) -= N / AT(L, k, j, j);
  }
  if (!propto || !tm_is_const(&a[0]) || !tm_is_const(&a[1]) || !tm_is_const(Lv))
    lp += mvn_quad(&y, &mu, N, L, d[0], d[1], w, z, d[2] ? visit_zw : NULL, d[2]);
  return tm_set_partials(out, a, d, 3, lp);
}

/* ---- lkj_corr_cholesky ---- */

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

static int k_lkj_corr_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "lkj_corr_cholesky_lpdf";
  int rc = AD_OK;
  if (nargs != 2 || a[0].narr || a[0].base != TM_MATRIX || !tm_is_scalar(&a[1]))
    return ad_fail(AD_EINVALID, "%s: expects (matrix, real)", fn);
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

/* ---- dirichlet ---- */

static int check_simplex(const char *fn, const char *name, const tm_v *t) {
  int rc;
  if ((rc = tm_check_nonzero_size(fn, name, t))) return rc;
  size_t n = tm_numel(t);
  double s = 0;
  for (size_t i = 0; i < n; i++) s += t->val[i];
  if (!(fabs(1.0 - s) <= 1e-8))
    return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. sum(%s) = %g, but should be 1", fn, name, name, s);
  for (size_t i = 0; i < n; i++)
    if (!(t->val[i] >= 0))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. %s[%zu] = %g, but should be greater than or equal to 0",
                     fn, name, name, i + 1, t->val[i]);
  return AD_OK;
}

static int k_dirichlet(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "dirichlet_lpdf";
  int rc = AD_OK;
  tm_mvec th = {0}, al = {0};
  if (nargs != 2) return ad_fail(AD_EINVALID, "%s: expects (vectors, vectors)", fn);
  if ((rc = tm_mvec_of(fn, &a[0], "probabilities", &th)) || (rc = tm_mvec_of(fn, &a[1], "prior sample sizes", &al)))
    return rc;
  if ((rc = consistent_mvt(fn, "probabilities", &th, "prior sample sizes", &al))) return rc;
  int N = th.n > al.n ? th.n : al.n;
  if (th.n == 0 || al.n == 0) N = 0;
  if (N > 0 && (rc = tm_check_size_match(fn, "probabilities", (size_t)th.k, "prior sample sizes", (size_t)al.k)))
    return rc;
  for (int i = 0; i < N; i++) {
    tm_v ai = mvec_elem(&al, i), ti = mvec_elem(&th, i);
    if ((rc = tm_check_positive(fn, "prior sample sizes", &ai))) return rc;
    if ((rc = check_simplex(fn, "probabilities", &ti))) return rc;
  }
  double *d[2] = {tm_new_partials(&a[0], &rc), tm_new_partials(&a[1], &rc)};
  if (rc) return rc;
  int k = th.k, propto = c->propto;
  int norm = !propto || !tm_is_const(&a[1]);
  int kern = !propto || !tm_is_const(&a[0]) || !tm_is_const(&a[1]);
  double lp = 0;
  for (int i = 0; i < N; i++) {
    const double *t = th.v->val + tm_mvec_off(&th, i), *al_i = al.v->val + tm_mvec_off(&al, i);
    double *dt = d[0] ? d[0] + tm_mvec_off(&th, i) : NULL, *da = d[1] ? d[1] + tm_mvec_off(&al, i) : NULL;
    if (norm) {
      double sa = 0;
      for (int j = 0; j < k; j++) { sa += al_i[j]; lp -= tm_lgamma(al_i[j]); }
      lp += tm_lgamma(sa);
      if (da) {
        double dsa = tm_digamma(sa);
        for (int j = 0; j < k; j++) da[j] += dsa - tm_digamma(al_i[j]);
      }
    }
    if (kern)
      for (int j = 0; j < k; j++) {
        double am1 = al_i[j] - 1, lt = log(t[j]);
        if (am1 != 0) lp += am1 * lt;   /* 0 * log(0) is 0, as multiply_log */
        if (dt && am1 != 0) dt[j] += am1 / t[j];
        if (da) da[j] += lt;
      }
  }
  return tm_set_partials(out, a, d, 2, lp);
}

/*
** lkj_corr_lpdf and multi_student_t_lpdf.
**
** As above: one operands node per call holding the partials
** of every autodiff argument; under propto a term goes exactly when every
** argument it depends on is constant.
*/

#define AT TM_AT

/* Cholesky factor of a symmetric positive definite matrix argument, with
** Stan's checks and messages. */
static int spd_factor(const char *fn, const char *name, const tm_v *S, double **L) {
  int rc;
  if ((rc = tm_check_square(fn, name, S)) || (rc = tm_la_check_symmetric(fn, name, S->rows, S->val))) return rc;
  size_t kk = (size_t)S->rows * S->rows;
  if (!(*L = ad_alloc_doubles(kk ? kk : 1))) return AD_EMEMORY;
  if (tm_la_cholesky(S->rows, S->val, *L, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: %s is not positive definite.", fn, name);
  return AD_OK;
}

/* ---- lkj_corr(y | eta) = c(eta, K) det(y)^(eta - 1) ---- */

static int k_lkj_corr(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "lkj_corr_lpdf", name[] = "Correlation matrix";
  int rc = AD_OK;
  if (nargs != 2 || a[0].narr || a[0].base != TM_MATRIX || !tm_is_scalar(&a[1]))
    return ad_fail(AD_EINVALID, "%s: expects (matrix, real)", fn);
  const tm_v *Y = &a[0], *eta = &a[1];
  if ((rc = tm_check_positive(fn, "Shape parameter", eta))) return rc;
  double *L;
  if ((rc = spd_factor(fn, name, Y, &L))) return rc;
  int K = Y->rows;
  for (int i = 0; i < K; i++)
    if (!(fabs(AT(Y->val, K, i, i) - 1) <= 1e-8))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid correlation matrix. %s(%d,%d) is %.17g, but should be near 1",
                     fn, name, name, i + 1, i + 1, AT(Y->val, K, i, i));
  double *d[2] = {tm_new_partials(Y, &rc), tm_new_partials(eta, &rc)};
  if (rc) return rc;
  double e = tm_get(eta, 0), lp = 0, de = 0;
  int propto = c->propto;
  if (K > 0 && (!propto || !tm_is_const(eta))) lp += tm_lkj_constant(e, K, &de);
  if (K > 0 && (!propto || !tm_is_const(Y) || !tm_is_const(eta))) {
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

/* ---- multi_student_t(y | nu, mu, Sigma) ---- */

/* The argument shapes both multi_student_t forms take, (vectors, real,
** vectors, matrix), and their y and mu as "vectors". */
static int mvt_args(const char *fn, const tm_v *a, int nargs, tm_mvec *y, tm_mvec *mu) {
  int rc;
  if (nargs != 4 || !tm_is_scalar(&a[1]) || a[3].narr || a[3].base != TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: expects (vectors, real, vectors, matrix)", fn);
  if ((rc = tm_mvec_of(fn, &a[0], "Random variable", y)) || (rc = tm_mvec_of(fn, &a[2], "Location parameter", mu)))
    return rc;
  return AD_OK;
}

static int k_multi_student_t(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_student_t_lpdf";
  int rc = AD_OK;
  tm_mvec y = {0}, mu = {0};
  if ((rc = mvt_args(fn, a, nargs, &y, &mu))) return rc;
  const tm_v *nuv = &a[1], *S = &a[3];
  if (y.many && mu.many && y.n != mu.n)
    return ad_fail(AD_EINVALID, "%s: Size of random variable (%d) and size of location parameter (%d) must match in size",
                   fn, y.n, mu.n);
  int N = y.n > mu.n ? y.n : mu.n;
  if (y.n == 0 || mu.n == 0) N = 0;
  int K = S->rows;
  if ((rc = tm_check_not_nan(fn, "Degrees of freedom parameter", nuv)) ||
      (rc = tm_check_positive_finite(fn, "Degrees of freedom parameter", nuv)))
    return rc;
  if (N > 0) {
    if (y.k != mu.k)
      return ad_fail(AD_EINVALID, "%s: Size of random variable (%d) and size of location parameter (%d) must match in size",
                     fn, y.k, mu.k);
    if (y.k != K)
      return ad_fail(AD_EINVALID, "%s: Size of random variable (%d) and rows of scale parameter (%d) must match in size",
                     fn, y.k, K);
  }
  if ((rc = tm_check_finite(fn, "Location parameter", mu.v)) || (rc = tm_check_not_nan(fn, "Random variable", y.v)))
    return rc;
  double *L;
  if ((rc = spd_factor(fn, "Scale parameter", S, &L))) return rc;
  double *d[4] = {tm_new_partials(&a[0], &rc), tm_new_partials(nuv, &rc), tm_new_partials(&a[2], &rc), tm_new_partials(S, &rc)};
  double *z = ad_alloc_doubles((size_t)K + 1);
  if (rc || !z) return AD_EMEMORY;
  int propto = c->propto;
  double nu = tm_get(nuv, 0), lp = 0, h = 0.5 * (nu + K), dnu = 0;
  if (N == 0) return tm_set_partials(out, a, d, 4, 0.0);
  if (!propto || !tm_is_const(nuv)) lp += N * (tm_lgamma(h) - tm_lgamma(0.5 * nu) - 0.5 * K * log(nu));
  if (!propto) lp -= N * 0.5 * K * TM_LOG_PI;
  double ldet = 0;
  for (int i = 0; i < K; i++) ldet += 2 * log(AT(L, K, i, i));
  if (!propto || !tm_is_const(S)) lp -= 0.5 * N * ldet;
  int kern = !propto || !tm_is_const(&a[0]) || !tm_is_const(nuv) || !tm_is_const(&a[2]) || !tm_is_const(S);
  if (d[1]) dnu = N * (0.5 * tm_digamma(h) - 0.5 * tm_digamma(0.5 * nu) - 0.5 * K / nu);
  for (int n = 0; n < N; n++) {
    const double *yn = y.v->val + tm_mvec_off(&y, n), *mn = mu.v->val + tm_mvec_off(&mu, n);
    for (int i = 0; i < K; i++) z[i] = yn[i] - mn[i];
    tm_la_trsm_lower(K, 1, L, z);            /* z = L^-1 r */
    double q = 0;
    for (int i = 0; i < K; i++) q += z[i] * z[i];
    double l1 = log1p(q / nu);
    if (kern) lp -= h * l1;
    if (d[1]) dnu += -0.5 * l1 + h * q / (nu * (nu + q));
    if (d[0] || d[2] || d[3]) {
      tm_la_trsm_lower_t(K, 1, L, z);        /* w = Sigma^-1 r */
      double s = 2 * h / (nu + q);
      for (int i = 0; i < K; i++) {
        if (d[0]) d[0][tm_mvec_off(&y, n) + i] -= s * z[i];
        if (d[2]) d[2][tm_mvec_off(&mu, n) + i] += s * z[i];
      }
      if (d[3])
        for (int j = 0; j < K; j++)
          for (int i = 0; i < K; i++) AT(d[3], K, i, j) += 0.5 * s * z[i] * z[j];
    }
  }
  if (d[1]) d[1][0] = dnu;
  if (d[3]) {
    double *Si = ad_alloc_doubles((size_t)K * K + 1);
    if (!Si) return AD_EMEMORY;
    tm_la_chol_inverse(K, L, Si);
    for (size_t i = 0; i < (size_t)K * K; i++) d[3][i] -= 0.5 * N * Si[i];
  }
  return tm_set_partials(out, a, d, 4, lp);
}

/*
** multi_normal_prec, multi_student_t_cholesky, multi_gp,
** multi_gp_cholesky and lkj_cov.
**
** As above: one operands node per call holding the analytic
** partials of every autodiff argument (Stan Math's formulas); under propto
** a term goes exactly when Stan's include_summand drops it, i.e. when every
** argument it depends on is constant.  The partials of a Cholesky factor
** argument are on its lower triangle (the only part read); those of a
** symmetric matrix are symmetric.
*/

#define AT TM_AT

/* ---- checks shared with tm_wishart.c and tm_rng_multi.c (tm_dens_multi.h) ---- */

int tm_mv_size_match(const char *fn, const char *n1, long s1, const char *n2, long s2) {
  if (s1 == s2) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s (%ld) and %s (%ld) must match in size", fn, n1, s1, n2, s2);
}

/* Stan's check_cholesky_factor: at least as many rows as columns, at least
** one column, lower triangular, positive diagonal. */
int tm_mv_check_cholesky(const char *fn, const char *name, const tm_v *L) {
  if (L->narr || L->base != TM_MATRIX) return ad_fail(AD_EINVALID, "%s: %s must be a matrix", fn, name);
  int m = L->rows, n = L->cols;
  if (!(n <= m))
    return ad_fail(AD_EDOMAIN, "%s: columns and rows of Cholesky factor is %d, but must be less than or equal to %d",
                   fn, n, m);
  if (n <= 0) return ad_fail(AD_EDOMAIN, "%s: columns of Cholesky factor is %d, but must be positive!", fn, n);
  for (int j = 1; j < n; j++)
    for (int i = 0; i < j; i++)
      if (AT(L->val, m, i, j) != 0)
        return ad_fail(AD_EDOMAIN, "%s: %s is not lower triangular; %s[%d,%d]=%.17g", fn, name, name, i + 1, j + 1,
                       AT(L->val, m, i, j));
  for (int i = 0; i < n; i++) {
    double x = AT(L->val, m, i, i);
    if (!(x > 0)) {
      if (isnan(x)) return ad_fail(AD_EDOMAIN, "%s: %s[%d] is nan, but must be positive!", fn, name, i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s[%d] is %.17g, but must be positive!", fn, name, i + 1, x);
    }
  }
  return AD_OK;
}

/* Symmetric (Stan's check_symmetric) and positive definite (Stan's
** check_ldlt_factor, named ldlt_name): *L gets the lower Cholesky factor. */
int tm_mv_spd(const char *fn, const char *sym_name, const char *ldlt_name, const tm_v *S, double **L) {
  int rc, k = S->rows;
  if ((rc = tm_la_check_symmetric(fn, sym_name, k, S->val))) return rc;
  size_t kk = (size_t)k * (size_t)k;
  if (!(*L = ad_alloc_doubles(kk ? kk : 1))) return AD_EMEMORY;
  double piv = 0;
  if (tm_la_cholesky(k, S->val, *L, &piv) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: %s is not positive definite.  last conditional variance is %g.", fn, ldlt_name, piv);
  return AD_OK;
}

double tm_mv_chol_logdet(int k, const double *L) {
  double s = 0;
  for (int j = 0; j < k; j++) s += log(AT(L, k, j, j));
  return 2 * s;
}

int tm_mv_check_greater(const char *fn, const char *name, const tm_v *v, double lo) {
  double x = tm_get(v, 0);
  if (x > lo) return AD_OK;
  if (isnan(x)) return ad_fail(AD_EDOMAIN, "%s: %s is nan, but must be greater than %.17g", fn, name, lo);
  return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than %.17g", fn, name, x, lo);
}

/* ---- "vectors" arguments ---- */

static int check_locations_paired(const char *fn, const tm_mvec *y, const tm_mvec *mu, int N) {
  int rc;
  for (int i = 0; i < N; i++) {
    tm_v m = tm_vector_view(mu->v->val + tm_mvec_off(mu, i), NULL, mu->k);
    tm_v e = tm_vector_view(y->v->val + tm_mvec_off(y, i), NULL, y->k);
    if ((rc = tm_check_finite(fn, "Location parameter", &m)) || (rc = tm_check_not_nan(fn, "Random variable", &e)))
      return rc;
  }
  return AD_OK;
}

/* ---- multi_normal_prec(y | mu, Omega) ---- */

static int k_multi_normal_prec(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_normal_prec_lpdf";
  int rc = AD_OK;
  if (nargs != 3 || a[2].narr || a[2].base != TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: expects (vectors, vectors, matrix)", fn);
  const tm_v *O = &a[2];
  tm_mvec y = {0}, mu = {0};
  if ((rc = tm_mvec_of(fn, &a[0], "Random variable", &y)) || (rc = tm_mvec_of(fn, &a[1], "Location parameter", &mu)))
    return rc;
  if (O->rows <= 0) return ad_fail(AD_EDOMAIN, "%s: Precision matrix rows is %d, but must be positive!", fn, O->rows);
  if ((rc = tm_check_square(fn, "Precision matrix", O))) return rc;
  double *L;
  if ((rc = tm_mv_spd(fn, "Precision matrix", "LDLT_Factor of precision parameter", O, &L))) return rc;
  double *d[3] = {tm_new_partials(&a[0], &rc), tm_new_partials(&a[1], &rc), tm_new_partials(O, &rc)};
  if (rc) return rc;
  if (y.n == 0 || mu.n == 0) return tm_set_partials(out, a, d, 3, 0.0);
  if ((rc = consistent_mvt(fn, "y", &y, "mu", &mu))) return rc;
  int N = y.n > mu.n ? y.n : mu.n, k = y.k;
  if ((rc = tm_mv_size_match(fn, "Size of random variable", k, "size of location parameter", mu.k)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", k, "rows of covariance parameter", O->rows)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", k, "columns of covariance parameter", O->cols)) ||
      (rc = check_locations_paired(fn, &y, &mu, N)))
    return rc;
  int propto = c->propto;
  double lp = 0;
  if (!propto || !tm_is_const(O)) lp += 0.5 * tm_mv_chol_logdet(k, L) * N;
  if (!propto) lp -= TM_LOG_SQRT_2PI * k * N;
  if (!propto || !tm_is_const(&a[0]) || !tm_is_const(&a[1]) || !tm_is_const(O)) {
    double *r = ad_alloc_doubles((size_t)k), *g = ad_alloc_doubles((size_t)k);
    if (!r || !g) return AD_EMEMORY;
    double q = 0;
    for (int n = 0; n < N; n++) {
      const double *yn = y.v->val + tm_mvec_off(&y, n), *mn = mu.v->val + tm_mvec_off(&mu, n);
      for (int i = 0; i < k; i++) { r[i] = yn[i] - mn[i]; g[i] = 0; }
      for (int j = 0; j < k; j++)          /* g = Omega r */
        for (int i = 0; i < k; i++) g[i] += AT(O->val, k, i, j) * r[j];
      for (int i = 0; i < k; i++) q += r[i] * g[i];
      for (int i = 0; i < k; i++) {
        if (d[0]) d[0][tm_mvec_off(&y, n) + i] -= g[i];
        if (d[1]) d[1][tm_mvec_off(&mu, n) + i] += g[i];
      }
      if (d[2])
        for (int j = 0; j < k; j++)
          for (int i = 0; i < k; i++) AT(d[2], k, i, j) -= 0.5 * r[i] * r[j];
    }
    lp -= 0.5 * q;
  }
  if (d[2]) {                              /* d/dOmega of N/2 log|Omega| */
    double *inv = ad_alloc_doubles((size_t)k * k);
    if (!inv) return AD_EMEMORY;
    tm_la_chol_inverse(k, L, inv);
    for (size_t i = 0; i < (size_t)k * k; i++) d[2][i] += 0.5 * N * inv[i];
  }
  return tm_set_partials(out, a, d, 3, lp);
}

/* ---- multi_student_t_cholesky(y | nu, mu, L) ---- */

static int k_multi_student_t_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_student_t_cholesky";
  int rc = AD_OK;
  tm_mvec y = {0}, mu = {0};
  if ((rc = mvt_args(fn, a, nargs, &y, &mu))) return rc;
  const tm_v *nuv = &a[1], *Lv = &a[3];
  double *d[4] = {tm_new_partials(&a[0], &rc), tm_new_partials(nuv, &rc), tm_new_partials(&a[2], &rc),
                  tm_new_partials(Lv, &rc)};
  if (rc) return rc;
  if ((rc = consistent_mvt(fn, "y", &y, "mu", &mu))) return rc;
  if (y.n == 0 || mu.n == 0) return tm_set_partials(out, a, d, 4, 0.0);
  int N = y.n > mu.n ? y.n : mu.n;
  if ((rc = tm_check_not_nan(fn, "Degrees of freedom parameter", nuv)) ||
      (rc = tm_check_positive(fn, "Degrees of freedom parameter", nuv)) ||
      (rc = tm_check_finite(fn, "Degrees of freedom parameter", nuv)) ||
      (rc = tm_mv_check_cholesky(fn, "scale parameter", Lv)))
    return rc;
  int K = Lv->rows;
  if ((rc = tm_mv_size_match(fn, "Size of random variable", mu.k, "rows of scale parameter", K)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", y.k, "size of location parameter", mu.k)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", y.k, "rows of scale parameter", K)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", y.k, "columns of scale parameter", Lv->cols)) ||
      (rc = check_locations_paired(fn, &y, &mu, N)))
    return rc;
  const double *L = Lv->val;
  int propto = c->propto;
  double lp = 0, nu = tm_get(nuv, 0);
  if (!propto) lp -= 0.5 * K * TM_LOG_PI * N;
  if (propto && tm_is_const(&a[0]) && tm_is_const(nuv) && tm_is_const(&a[2]) && tm_is_const(Lv))
    return tm_set_partials(out, a, d, 4, lp);
  double h = 0.5 * (nu + K);
  if (!propto || !tm_is_const(nuv)) lp += N * (tm_lgamma(h) - tm_lgamma(0.5 * nu) - 0.5 * K * log(nu));
  if (!propto || !tm_is_const(Lv)) {
    double sl = 0;
    for (int i = 0; i < K; i++) sl += log(AT(L, K, i, i));
    lp -= N * sl;
  }
  double *w = ad_alloc_doubles((size_t)K), *z = ad_alloc_doubles((size_t)K);
  if (!w || !z) return AD_EMEMORY;
  double dig = d[1] ? tm_digamma(h) - tm_digamma(0.5 * nu) : 0, sum_l1 = 0;
  for (int n = 0; n < N; n++) {
    const double *yn = y.v->val + tm_mvec_off(&y, n), *mn = mu.v->val + tm_mvec_off(&mu, n);
    for (int i = 0; i < K; i++) w[i] = yn[i] - mn[i];
    tm_la_trsm_lower(K, 1, L, w);            /* half = L^-1 r */
    double q = 0;
    for (int i = 0; i < K; i++) q += w[i] * w[i];
    sum_l1 += log1p(q / nu);
    if (d[1]) d[1][0] += 0.5 * (dig - log1p(q / nu) + (q - K) / (q + nu));
    if (d[0] || d[2] || d[3]) {
      memcpy(z, w, (size_t)K * sizeof *z);
      tm_la_trsm_lower_t(K, 1, L, z);        /* Sigma^-1 r */
      double s = (nu + K) / (q + nu);
      for (int i = 0; i < K; i++) {
        if (d[0]) d[0][tm_mvec_off(&y, n) + i] -= s * z[i];
        if (d[2]) d[2][tm_mvec_off(&mu, n) + i] += s * z[i];
      }
      if (d[3])
        for (int j = 0; j < K; j++)
          for (int i = j; i < K; i++) AT(d[3], K, i, j) += s * z[i] * w[j];
    }
  }
  if (d[3]) for (int i = 0; i < K; i++) AT(d[3], K, i, i) -= N / AT(L, K, i, i);
  lp -= h * sum_l1;
  return tm_set_partials(out, a, d, 4, lp);
}

/* ---- multi_gp(y | Sigma, w) and multi_gp_cholesky(y | L, w) ----
** Row i of the d x N matrix y is multi_normal(0, Sigma / w[i]). */

static int gp_common(const tm_call *c, const tm_v *a, int nargs, tm_v *out, int chol) {
  const char *fn = chol ? "multi_gp_cholesky_lpdf" : "multi_gp_lpdf";
  int rc = AD_OK;
  if (nargs != 3 || a[0].narr || a[0].base != TM_MATRIX || a[1].narr || a[1].base != TM_MATRIX || a[2].narr ||
      a[2].base != TM_VECTOR)
    return ad_fail(AD_EINVALID, "%s: expects (matrix, matrix, vector)", fn);
  const tm_v *Y = &a[0], *S = &a[1], *W = &a[2];
  int D = Y->rows, N = Y->cols;
  double *L = NULL;
  if (!chol) {
    if (S->rows <= 0) return ad_fail(AD_EDOMAIN, "%s: Kernel rows is %d, but must be positive!", fn, S->rows);
    if ((rc = tm_check_finite(fn, "Kernel", S)) || (rc = tm_check_square(fn, "Kernel", S)) ||
        (rc = tm_mv_spd(fn, "Kernel", "LDLT_Factor of Sigma", S, &L)))
      return rc;
  }
  if ((rc = tm_mv_size_match(fn, "Size of random variable (rows y)", D, "Size of kernel scales (w)", W->rows)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", N, "rows of covariance parameter", S->rows)))
    return rc;
  if (chol) {
    if ((rc = tm_check_finite(fn, "Random variable", Y)) ||
        (rc = tm_mv_check_cholesky(fn, "Cholesky decomposition of kernel matrix", S)) ||
        (rc = tm_check_square(fn, "Cholesky decomposition of kernel matrix", S)) ||
        (rc = tm_check_positive_finite(fn, "Kernel scales", W)))
      return rc;
    L = S->val;
  } else if ((rc = tm_check_positive_finite(fn, "Kernel scales", W)) || (rc = tm_check_finite(fn, "Random variable", Y)))
    return rc;
  double *d[3] = {tm_new_partials(Y, &rc), tm_new_partials(S, &rc), tm_new_partials(W, &rc)};
  if (rc) return rc;
  if (D == 0) return tm_set_partials(out, a, d, 3, 0.0);
  int propto = c->propto;
  double lp = 0;
  if (!propto) lp -= TM_LOG_SQRT_2PI * D * N;
  if (!propto || !tm_is_const(S)) lp -= 0.5 * tm_mv_chol_logdet(N, L) * D;
  if (!propto || !tm_is_const(W)) {
    double sl = 0;
    for (int i = 0; i < D; i++) sl += log(W->val[i]);
    lp += 0.5 * N * sl;
  }
  if (d[2]) for (int i = 0; i < D; i++) d[2][i] += 0.5 * N / W->val[i];
  if (!propto || !tm_is_const(Y) || !tm_is_const(S) || !tm_is_const(W)) {
    double *v = ad_alloc_doubles((size_t)N), *z = ad_alloc_doubles((size_t)N), q = 0;
    if (!v || !z) return AD_EMEMORY;
    for (int i = 0; i < D; i++) {
      double wi = W->val[i];
      for (int j = 0; j < N; j++) v[j] = AT(Y->val, D, i, j);
      tm_la_trsm_lower(N, 1, L, v);          /* L^-1 y_i */
      double qi = 0;
      for (int j = 0; j < N; j++) qi += v[j] * v[j];
      q += wi * qi;
      if (d[2]) d[2][i] -= 0.5 * qi;
      if (!d[0] && !d[1]) continue;
      memcpy(z, v, (size_t)N * sizeof *z);
      tm_la_trsm_lower_t(N, 1, L, z);        /* Sigma^-1 y_i */
      if (d[0]) for (int j = 0; j < N; j++) AT(d[0], D, i, j) -= wi * z[j];
      if (d[1]) {
        if (chol) {
          for (int b = 0; b < N; b++)
            for (int r = b; r < N; r++) AT(d[1], N, r, b) += wi * z[r] * v[b];
        } else {
          for (int b = 0; b < N; b++)
            for (int r = 0; r < N; r++) AT(d[1], N, r, b) += 0.5 * wi * z[r] * z[b];
        }
      }
    }
    lp -= 0.5 * q;
  }
  if (d[1]) {
    if (chol) {
      for (int j = 0; j < N; j++) AT(d[1], N, j, j) -= D / AT(L, N, j, j);
    } else {
      double *inv = ad_alloc_doubles((size_t)N * N);
      if (!inv) return AD_EMEMORY;
      tm_la_chol_inverse(N, L, inv);
      for (size_t i = 0; i < (size_t)N * N; i++) d[1][i] -= 0.5 * D * inv[i];
    }
  }
  return tm_set_partials(out, a, d, 3, lp);
}

static int k_multi_gp(const tm_call *c, const tm_v *a, int nargs, tm_v *out) { return gp_common(c, a, nargs, out, 0); }
static int k_multi_gp_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return gp_common(c, a, nargs, out, 1);
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
  const tm_v *Y = &a[0], *M = &a[1], *Sg = &a[2], *E = &a[3];
  if ((rc = tm_mv_size_match(fn, "Rows of location parameter", M->rows, "columns of scale parameter", Sg->rows)) ||
      (rc = tm_check_square(fn, "random variable", Y)) ||
      (rc = tm_mv_size_match(fn, "Rows of random variable", Y->rows, "rows of location parameter", M->rows)) ||
      (rc = tm_check_positive(fn, "Shape parameter", E)) || (rc = tm_check_finite(fn, "Location parameter", M)) ||
      (rc = tm_check_finite(fn, "Scale parameter", Sg)) || (rc = tm_check_finite(fn, "Covariance matrix", Y)))
    return rc;
  int K = Y->rows;
  size_t KK = (size_t)K * K;
  double *sd = ad_alloc_doubles((size_t)K + 1), *R = ad_alloc_doubles(KK + 1);
  if (!sd || !R) return AD_EMEMORY;
  for (int k = 0; k < K; k++) {
    sd[k] = sqrt(AT(Y->val, K, k, k));
    tm_v s = tm_real_view(&sd[k], NULL), mk = tm_real_view(&M->val[k], NULL), sk = tm_real_view(&Sg->val[k], NULL);
    if ((rc = tm_check_nonnegative("lognormal_lpdf", "Random variable", &s)) ||
        (rc = tm_check_finite("lognormal_lpdf", "Location parameter", &mk)) ||
        (rc = tm_check_positive_finite("lognormal_lpdf", "Scale parameter", &sk)))
      return rc;
  }
  double *d[4] = {tm_new_partials(Y, &rc), tm_new_partials(M, &rc), tm_new_partials(Sg, &rc), tm_new_partials(E, &rc)};
  if (rc) return rc;
  int propto = c->propto, cy = tm_is_const(Y), cm = tm_is_const(M), cs = tm_is_const(Sg), ce = tm_is_const(E);
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
    for (int i = 0; i < K; i++) AT(R, K, i, j) = AT(Y->val, K, i, j) / (sd[i] * sd[j]);
  double *L;
  if ((rc = tm_check_positive(lfn, "Shape parameter", E)) || (rc = tm_la_check_symmetric(lfn, cname, K, R)))
    return rc;
  if (!(L = ad_alloc_doubles(KK + 1))) return AD_EMEMORY;
  if (tm_la_cholesky(K, R, L, NULL) >= 0) return ad_fail(AD_EDOMAIN, "%s: %s is not positive definite.", lfn, cname);
  for (int i = 0; i < K; i++)
    if (!(fabs(AT(R, K, i, i) - 1) <= 1e-8))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid correlation matrix. %s(%d,%d) is %.17g, but should be near 1",
                     lfn, cname, cname, i + 1, i + 1, AT(R, K, i, i));
  double e = tm_get(E, 0), de = 0;
  if (K > 0 && (!propto || !ce)) lp += tm_lkj_constant(e, K, &de);
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

const tm_fn tm_fns_dens_multi[] = {
  {"multi_normal_lpdf", "real(vectors, vectors, matrix)", k_multi_normal, NULL},
  {"multi_normal_cholesky_lpdf", "real(vectors, vectors, matrix)", k_multi_normal_cholesky, NULL},
  {"lkj_corr_cholesky_lpdf", "real(matrix, real)", k_lkj_corr_cholesky, NULL},
  {"dirichlet_lpdf", "real(vectors, vectors)", k_dirichlet, NULL},
  {"lkj_corr_lpdf", "real(matrix, real)", k_lkj_corr, NULL},
  {"multi_student_t_lpdf", "real(vectors, real, vectors, matrix)", k_multi_student_t, NULL},
  {"multi_normal_prec_lpdf", "real(vectors, vectors, matrix)", k_multi_normal_prec, NULL},
  {"multi_student_t_cholesky_lpdf", "real(vectors, real, vectors, matrix)", k_multi_student_t_cholesky, NULL},
  {"multi_gp_lpdf", "real(matrix, matrix, vector)", k_multi_gp, NULL},
  {"multi_gp_cholesky_lpdf", "real(matrix, matrix, vector)", k_multi_gp_cholesky, NULL},
  {"lkj_cov_lpdf", "real(matrix, vector, vector, real)", k_lkj_cov, NULL},
  {NULL, NULL, NULL, NULL}
};

/* LKJ's constant for lkj_corr_lpdf (above) and lkj_cov (tm_dens_multi.h) */
double tm_lkj_constant(double eta, int K, double *deta) { return lkj_constant(eta, K, deta); }
