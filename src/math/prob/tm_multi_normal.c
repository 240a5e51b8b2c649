/*
** tm_multi_normal.c -- the multi_normal family: multi_normal_lpdf,
** multi_normal_cholesky_lpdf, multi_normal_prec_lpdf, and
** multi_normal_rng, multi_normal_cholesky_rng.
**
** The densities are vectorized as Stan does: the random variable and the
** location may each be one vector (or row vector) or an array of them; a
** single one broadcasts against the other's array.  Each call records one
** operands node (ad.h) holding the partials of every autodiff argument.
** Under propto a term is dropped exactly when Stan's include_summand drops
** it: when every argument it depends on is constant.  The _rng functions
** read their arguments by value and record nothing.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_rng_dist.h"
#include "tm_rng_def.h"
#include "tm_mv_checks.h"

#define AT TM_AT
#define CONSTRAINT_TOLERANCE 1e-8

/* The random variable's size k against the location's and the matrix's. */
static int mvn_sizes(const char *fn, int k, int mu_k, const tm_v *S) {
  int rc;
  if ((rc = tm_mv_size_match(fn, "Size of random variable", k, "size of location parameter", mu_k)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", k, "rows of covariance parameter", S->rows)) ||
      (rc = tm_mv_size_match(fn, "Size of random variable", k, "columns of covariance parameter", S->cols)))
    return rc;
  return AD_OK;
}

/* Every location finite, then every random variable not NaN. */
static int check_locations(const char *fn, const tm_mvec *y, const tm_mvec *mu) {
  int rc;
  for (int i = 0; i < mu->n; i++) {
    tm_v e = tm_mvec_elem(mu, i);
    if ((rc = tm_check_finite(fn, "Location parameter", &e))) return rc;
  }
  for (int i = 0; i < y->n; i++) {
    tm_v e = tm_mvec_elem(y, i);
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

/* Checks common to multi_normal and multi_normal_cholesky; *N = number of
** terms (0: the density is 0). */
static int mvn_checks(const char *fn, const tm_v *a, int nargs, tm_mvec *y, tm_mvec *mu, int *N) {
  int rc;
  if ((rc = tm_mv_args(fn, a, nargs, 0, y, mu))) return rc;
  if ((rc = tm_mv_consistent(fn, "y", y, "mu", mu))) return rc;
  *N = y->n > mu->n ? y->n : mu->n;
  if (y->n == 0 || mu->n == 0) { *N = 0; return AD_OK; }
  if ((rc = mvn_sizes(fn, y->k, mu->k, &a[2]))) return rc;
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

/* ---- multi_normal_prec(y | mu, Omega) ---- */

static int k_multi_normal_prec(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_normal_prec_lpdf";
  int rc = AD_OK;
  tm_mvec y = {0}, mu = {0};
  if ((rc = tm_mv_args(fn, a, nargs, 0, &y, &mu))) return rc;
  const tm_v *O = &a[2];
  if (O->rows <= 0) return ad_fail(AD_EDOMAIN, "%s: Precision matrix rows is %d, but must be positive!", fn, O->rows);
  if ((rc = tm_check_square(fn, "Precision matrix", O))) return rc;
  double *L;
  if ((rc = tm_mv_spd(fn, "Precision matrix", "LDLT_Factor of precision parameter", O, &L))) return rc;
  double *d[3] = {tm_new_partials(&a[0], &rc), tm_new_partials(&a[1], &rc), tm_new_partials(O, &rc)};
  if (rc) return rc;
  if (y.n == 0 || mu.n == 0) return tm_set_partials(out, a, d, 3, 0.0);
  if ((rc = tm_mv_consistent(fn, "y", &y, "mu", &mu))) return rc;
  int N = y.n > mu.n ? y.n : mu.n, k = y.k;
  if ((rc = mvn_sizes(fn, k, mu.k, O)) || (rc = tm_mv_check_locations_paired(fn, &y, &mu, N)))
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

/* ---- multi_normal_rng and multi_normal_cholesky_rng ---- */

/* The location argument of multi_normal(_cholesky)_rng: one vector or row
** vector, or an array of them; all must have the same size. */
typedef struct { int narr, count, k; } locs;

static int loc_shape(const char *fn, const tm_v *mu, locs *s) {
  if (mu->narr > 1 || (mu->base != TM_VECTOR && mu->base != TM_ROW_VECTOR))
    return ad_fail(AD_EINVALID, "%s: Location parameter must be a vector, row_vector or an array of them", fn);
  s->narr = mu->narr;
  s->count = mu->narr ? mu->dim[0] : 1;
  s->k = mu->base == TM_VECTOR ? mu->rows : mu->cols;
  return AD_OK;
}

static int check_symmetric(const char *fn, const char *arg, const tm_v *S) {
  int n = S->rows;
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      double a = S->val[i + (size_t)j * n], b = S->val[j + (size_t)i * n];
      if (!(fabs(a - b) <= CONSTRAINT_TOLERANCE))
        return ad_fail(AD_EDOMAIN, "%s: %s is not symmetric. %s[%d,%d] = %.17g, but %s[%d,%d] = %.17g",
                       fn, arg, arg, j + 1, i + 1, b, arg, i + 1, j + 1, a);
    }
  return AD_OK;
}

/* out[k] = mu[k] + sum_j L[k, j] z[j] for each location; L is used whole
** (not only its lower triangle), as Stan's multi_normal_cholesky_rng does. */
static int mvn_draws(tm_rng *r, const tm_v *mu, const locs *s, const double *L, tm_v *out) {
  int rc, k = s->k;
  if (s->narr) rc = tm_rng_new_array(out, TM_VECTOR, k, (size_t)s->count);
  else rc = tm_new_vector(out, k, 0);
  if (rc) return ad_fail(AD_EMEMORY, "out of memory");
  double *z = ad_alloc_doubles(k ? (size_t)k : 1);
  if (!z) return ad_fail(AD_EMEMORY, "out of memory");
  for (int m = 0; m < s->count; m++) {
    double *o = out->val + (size_t)m * k;
    for (int j = 0; j < k; j++) z[j] = tm_rng_normal(r);
    for (int i = 0; i < k; i++) {
      double acc = mu->val[(size_t)m * k + i];
      for (int j = 0; j < k; j++) acc += L[i + (size_t)j * k] * z[j];
      o[i] = acc;
    }
  }
  return AD_OK;
}

/* The row's data marks the Cholesky form. */
static int k_multi_normal_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int chol = c->fn->data != NULL;
  const char *fn = chol ? "multi_normal_cholesky_rng" : "multi_normal_rng";
  const char *sname = chol ? "Cholesky factor of covariance matrix" : "Covariance matrix";
  int rc;
  locs s = {0, 0, 0};
  if ((rc = tm_rng_begin(c, fn, nargs, 2)) || (rc = loc_shape(fn, &a[0], &s))) return rc;
  const tm_v *S = &a[1];
  if ((rc = tm_mv_check_matrix(fn, sname, S))) return rc;
  if (s.narr && s.count == 0) s.k = S->rows;   /* no locations: an empty array */
  if (!chol && S->rows <= 0)
    return ad_fail(AD_EINVALID, "%s: Covariance matrix rows is %d, but must be positive!", fn, S->rows);
  if ((rc = tm_check_size_match(fn, "Rows of location parameter", (size_t)s.k, chol ? "Rows of Cholesky factor" : "Rows of Sigma", (size_t)S->rows)))
    return rc;
  if ((rc = tm_check_square(fn, sname, S)) || (rc = tm_check_finite(fn, "Location parameter", &a[0])))
    return rc;
  const double *L = S->val;
  if (!chol) {
    if ((rc = tm_check_not_nan(fn, sname, S)) || (rc = check_symmetric(fn, sname, S))) return rc;
    double *F = ad_alloc_doubles((size_t)s.k * (size_t)s.k);
    if (!F) return ad_fail(AD_EMEMORY, "out of memory");
    if (tm_rd_cholesky(s.k, S->val, F))
      return ad_fail(AD_EDOMAIN, "%s: Covariance matrix is not positive definite", fn);
    L = F;
  }
  return mvn_draws(c->rng, &a[0], &s, L, out);
}

#define MVN "vector(vector, matrix); vector(row_vector, matrix); " \
  "array[] vector(array[] vector, matrix); array[] vector(array[] row_vector, matrix)"

const tm_fn tm_fns_multi_normal[] = {
  {"multi_normal_lpdf", "real(vectors, vectors, matrix)", k_multi_normal, NULL},
  {"multi_normal_cholesky_lpdf", "real(vectors, vectors, matrix)", k_multi_normal_cholesky, NULL},
  {"multi_normal_prec_lpdf", "real(vectors, vectors, matrix)", k_multi_normal_prec, NULL},
  {"multi_normal_cholesky_rng", MVN, k_multi_normal_rng, "cholesky"},
  {"multi_normal_rng", MVN, k_multi_normal_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
