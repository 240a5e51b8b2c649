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
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_linalg.h"
#include "tm_dens_multi.h"

#define AT TM_AT

/* "vectors" arguments: tm_mvec (tm_dens_multi.h), shared with tm_dens_multi2.c */
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

const tm_fn tm_fns_dens_multi[] = {
  {"multi_normal_lpdf", "real(vectors, vectors, matrix)", k_multi_normal, NULL},
  {"multi_normal_cholesky_lpdf", "real(vectors, vectors, matrix)", k_multi_normal_cholesky, NULL},
  {"lkj_corr_cholesky_lpdf", "real(matrix, real)", k_lkj_corr_cholesky, NULL},
  {"dirichlet_lpdf", "real(vectors, vectors)", k_dirichlet, NULL},
  {NULL, NULL, NULL, NULL}
};

/* LKJ's constant for lkj_corr_lpdf (tm_dens_multi2.c, tm_dens_multi.h) */
double tm_lkj_constant(double eta, int K, double *deta) { return lkj_constant(eta, K, deta); }
