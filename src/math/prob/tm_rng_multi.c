/*
** tm_rng_multi.c -- multi_student_t(_cholesky)_rng and the Wishart family's
** _rng functions (wishart, wishart_cholesky, inv_wishart,
** inv_wishart_cholesky), with Stan Math's algorithms and checks.
**
** multi_student_t: mu + sqrt(w) L z with z standard normal and w inverse
** gamma(nu / 2, nu / 2); as in Stan, one w is drawn per call and shared by
** all the locations of an array.  Wishart: Bartlett's decomposition, B
** upper triangular with standard normals above the diagonal and
** sqrt(chi_square(nu - j)) on it, drawn column by column as Stan does;
** the draw is X X^T with X = L B^T (L the scale's Cholesky factor).  The
** inverse forms draw a Wishart with the inverse scale and invert it
** (inv_wishart_cholesky_rng returns the inverse's Cholesky factor, as
** Stan Math does since its fix of issue 2963).
** Arguments are data; no node is ever recorded.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_rng_dist.h"
#include "tm_dens_multi.h"

#define AT TM_AT

static int need_rng(const tm_call *c, const char *fn, int nargs, int want) {
  if (!c->rng) return ad_fail(AD_EINVALID, "%s: no random number generator here", fn);
  if (nargs != want) return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, want, nargs);
  return AD_OK;
}

static int is_matrix(const char *fn, const char *name, const tm_v *v) {
  if (v->narr || v->base != TM_MATRIX) return ad_fail(AD_EINVALID, "%s: %s must be a matrix", fn, name);
  return AD_OK;
}

/* ---- multi_student_t_rng and multi_student_t_cholesky_rng ---- */

static int mst_common(const tm_call *c, const tm_v *a, int nargs, tm_v *out, int chol) {
  const char *fn = chol ? "multi_student_t_cholesky_rng" : "multi_student_t_rng";
  int rc;
  if ((rc = need_rng(c, fn, nargs, 3))) return rc;
  const tm_v *nuv = &a[0], *mu = &a[1], *S = &a[2];
  if (!tm_is_scalar(nuv)) return ad_fail(AD_EINVALID, "%s: Degrees of freedom parameter must be a real", fn);
  if (mu->narr > 1 || (mu->base != TM_VECTOR && mu->base != TM_ROW_VECTOR))
    return ad_fail(AD_EINVALID, "%s: Location parameter must be a vector, row_vector or an array of them", fn);
  if ((rc = is_matrix(fn, chol ? "L matrix" : "Covariance matrix", S))) return rc;
  if ((rc = tm_check_not_nan(fn, "Degrees of freedom parameter", nuv)) ||
      (rc = tm_check_positive(fn, "Degrees of freedom parameter", nuv)))
    return rc;
  /* an infinite nu: Stan's inv_gamma_rng refuses it (the Cholesky form);
  ** boost's gamma has no answer for it (the other) */
  double half_nu = 0.5 * tm_get(nuv, 0);
  tm_v hv = tm_real_view(&half_nu, NULL);
  if (chol ? (rc = tm_check_positive_finite("inv_gamma_rng", "Shape parameter", &hv))
           : (rc = tm_check_finite(fn, "Degrees of freedom parameter", nuv)))
    return rc;
  int many = mu->narr == 1, N = many ? mu->dim[0] : 1, k = mu->rows * mu->cols, K = S->rows;
  if (many && N == 0) k = K;
  double *L = S->val;
  if (!chol) {
    if (K <= 0) return ad_fail(AD_EDOMAIN, "%s: Covariance matrix rows is %d, but must be positive!", fn, K);
    if ((rc = tm_check_square(fn, "Covariance matrix", S)) ||
        (rc = tm_la_check_symmetric(fn, "Covariance matrix", K, S->val)))
      return rc;
    if (!(L = ad_alloc_doubles((size_t)K * K))) return ad_fail(AD_EMEMORY, "out of memory");
    if (tm_la_cholesky(K, S->val, L, NULL) >= 0)
      return ad_fail(AD_EDOMAIN, "%s: covariance matrix argument is not positive definite.", fn);
    if ((rc = tm_mv_size_match(fn, "Size of random variable", k, "rows of scale parameter", K))) return rc;
  } else {
    if (K <= 0) return ad_fail(AD_EDOMAIN, "%s: Scale matrix rows is %d, but must be positive!", fn, K);
    if ((rc = tm_mv_size_match(fn, "Size of random variable", k, "rows of scale parameter", K))) return rc;
  }
  if ((rc = tm_check_finite(fn, "Location parameter", mu))) return rc;
  if (chol && ((rc = tm_mv_check_cholesky(fn, "L matrix", S)) || (rc = tm_check_square(fn, "L matrix", S)))) return rc;
  if (many) {
    memset(out, 0, sizeof *out);
    out->base = TM_VECTOR;
    out->rows = k;
    out->cols = 1;
    out->narr = 1;
    out->dim[0] = N;
    if (!(out->val = ad_alloc_doubles((size_t)N * k + 1))) return ad_fail(AD_EMEMORY, "out of memory");
  } else if ((rc = tm_new_vector(out, k, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  double nu = tm_get(nuv, 0);
  double w = 0.5 * nu / tm_rd_gamma(c->rng, 0.5 * nu), sw = sqrt(w);
  double *z = ad_alloc_doubles((size_t)k + 1);
  if (!z) return ad_fail(AD_EMEMORY, "out of memory");
  for (int n = 0; n < N; n++) {
    for (int j = 0; j < k; j++) z[j] = sw * tm_rng_normal(c->rng);
    const double *m = mu->val + (many ? (size_t)n * k : 0);
    double *o = out->val + (size_t)n * k;
    for (int i = 0; i < k; i++) {
      double acc = m[i];
      for (int j = 0; j <= i; j++) acc += AT(L, k, i, j) * z[j];
      o[i] = acc;
    }
  }
  return AD_OK;
}

static int k_multi_student_t(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return mst_common(c, a, nargs, out, 0);
}
static int k_multi_student_t_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return mst_common(c, a, nargs, out, 1);
}

/* ---- the Wishart family ---- */

/* X = L B^T (lower triangular) for a Bartlett draw B and lower L, k x k. */
static int bartlett(tm_rng *r, int k, double nu, const double *L, double *X) {
  double *B = ad_alloc_doubles((size_t)k * k + 1);
  if (!B) return ad_fail(AD_EMEMORY, "out of memory");
  memset(B, 0, ((size_t)k * k + 1) * sizeof *B);
  for (int j = 0; j < k; j++) {
    for (int i = 0; i < j; i++) AT(B, k, i, j) = tm_rng_normal(r);
    AT(B, k, j, j) = sqrt(2.0 * tm_rd_gamma(r, 0.5 * (nu - j)));
  }
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) {
      double s = 0;
      if (j <= i)
        for (int m = j; m <= i; m++) s += AT(L, k, i, m) * AT(B, k, j, m);
      AT(X, k, i, j) = s;
    }
  return AD_OK;
}

/* nu > k - 1, and finite as Stan's chi_square_rng requires of nu - j */
static int check_nu(const char *fn, const tm_v *nuv, int k) {
  int rc;
  if (!tm_is_scalar(nuv)) return ad_fail(AD_EINVALID, "%s: degrees of freedom must be a real", fn);
  if ((rc = tm_mv_check_greater(fn, "degrees of freedom > dims - 1", nuv, k - 1))) return rc;
  return tm_check_positive_finite("chi_square_rng", "Degrees of freedom parameter", nuv);
}

/* A symmetric positive definite scale's Cholesky factor (Stan reads the
** lower triangle without checking; a scale that is not symmetric positive
** definite is refused here rather than silently used). */
static int scale_factor(const char *fn, const tm_v *S, double **L) {
  int k = S->rows, rc;
  if ((rc = tm_la_check_symmetric(fn, "scale parameter", k, S->val))) return rc;
  if (!(*L = ad_alloc_doubles((size_t)k * k + 1))) return ad_fail(AD_EMEMORY, "out of memory");
  if (tm_la_cholesky(k, S->val, *L, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: scale parameter is not positive definite.", fn);
  return AD_OK;
}

/* W = X X^T */
static void outer_lower(int k, const double *X, double *W) {
  for (int j = 0; j < k; j++)
    for (int i = j; i < k; i++) {
      double s = 0;
      for (int m = 0; m <= j; m++) s += AT(X, k, i, m) * AT(X, k, j, m);
      AT(W, k, i, j) = AT(W, k, j, i) = s;
    }
}

static int k_wishart(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "wishart_rng";
  int rc;
  if ((rc = need_rng(c, fn, nargs, 2)) || (rc = is_matrix(fn, "scale parameter", &a[1]))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  double *L, *X;
  if ((rc = tm_check_square(fn, "scale parameter", S)) || (rc = check_nu(fn, &a[0], k)) ||
      (rc = scale_factor(fn, S, &L)))
    return rc;
  if (!(X = ad_alloc_doubles((size_t)k * k + 1))) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = bartlett(c->rng, k, tm_get(&a[0], 0), L, X))) return rc;
  if ((rc = tm_new_matrix(out, k, k, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  outer_lower(k, X, out->val);
  return AD_OK;
}

static int k_inv_wishart(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "inv_wishart_rng";
  int rc;
  if ((rc = need_rng(c, fn, nargs, 2)) || (rc = is_matrix(fn, "scale parameter", &a[1]))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  size_t kk = (size_t)k * k + 1;
  double *L, *Si = ad_alloc_doubles(kk), *Li = ad_alloc_doubles(kk), *X = ad_alloc_doubles(kk);
  if (!Si || !Li || !X) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = check_nu(fn, &a[0], k)) || (rc = tm_check_square(fn, "scale parameter", S)) ||
      (rc = scale_factor(fn, S, &L)))
    return rc;
  tm_la_chol_inverse(k, L, Si);
  if (tm_la_cholesky(k, Si, Li, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: scale parameter is not positive definite.", fn);
  if ((rc = bartlett(c->rng, k, tm_get(&a[0], 0), Li, X))) return rc;
  if ((rc = tm_new_matrix(out, k, k, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  tm_la_chol_inverse(k, X, out->val);          /* (X X^T)^-1, symmetric */
  return AD_OK;
}

static int k_wishart_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "wishart_cholesky_rng";
  int rc;
  if ((rc = need_rng(c, fn, nargs, 2)) || (rc = is_matrix(fn, "scale parameter", &a[1]))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  if ((rc = check_nu(fn, &a[0], k)) || (rc = tm_mv_check_cholesky(fn, "scale parameter", S)) ||
      (rc = tm_check_square(fn, "scale parameter", S)))
    return rc;
  if ((rc = tm_new_matrix(out, k, k, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  return bartlett(c->rng, k, tm_get(&a[0], 0), S->val, out->val);
}

static int k_inv_wishart_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "inv_wishart_cholesky_rng";
  int rc;
  if ((rc = need_rng(c, fn, nargs, 2)) || (rc = is_matrix(fn, "Cholesky Scale matrix", &a[1]))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  if ((rc = tm_check_square(fn, "Cholesky Scale matrix", S)) || (rc = check_nu(fn, &a[0], k))) return rc;
  for (int i = 0; i < k; i++) {
    double x = AT(S->val, k, i, i);
    if (!(x > 0))
      return ad_fail(AD_EDOMAIN, "%s: Cholesky Scale matrix[%d] is %.17g, but must be positive!", fn, i + 1, x);
  }
  if (k <= 0) return ad_fail(AD_EDOMAIN, "%s: columns of Cholesky Scale matrix is %d, but must be positive!", fn, k);
  size_t kk = (size_t)k * k;
  double *Si = ad_alloc_doubles(kk), *C = ad_alloc_doubles(kk), *X = ad_alloc_doubles(kk), *Wi = ad_alloc_doubles(kk);
  if (!Si || !C || !X || !Wi) return ad_fail(AD_EMEMORY, "out of memory");
  /* Stan Math since its fix of issue 2963: the lower Cholesky factor of the
  ** inverse of a wishart(nu, S^-1) draw, S = L_S L_S^T (lower triangle read) */
  tm_la_chol_inverse(k, S->val, Si);
  if (tm_la_cholesky(k, Si, C, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: Cholesky Scale matrix is not positive definite.", fn);
  if ((rc = bartlett(c->rng, k, tm_get(&a[0], 0), C, X))) return rc;
  tm_la_chol_inverse(k, X, Wi);                 /* (X X^T)^-1 */
  if ((rc = tm_new_matrix(out, k, k, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  if (tm_la_cholesky(k, Wi, out->val, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: the draw is not positive definite to working precision", fn);
  return AD_OK;
}

#define MST "vector(real, vector, matrix); vector(real, row_vector, matrix); " \
  "array[] vector(real, array[] vector, matrix); array[] vector(real, array[] row_vector, matrix)"

const tm_fn tm_fns_rng_multi[] = {
  {"multi_student_t_rng", MST, k_multi_student_t, NULL},
  {"multi_student_t_cholesky_rng", MST, k_multi_student_t_cholesky, NULL},
  {"wishart_rng", "matrix(real, matrix)", k_wishart, NULL},
  {"wishart_cholesky_rng", "matrix(real, matrix)", k_wishart_cholesky, NULL},
  {"inv_wishart_rng", "matrix(real, matrix)", k_inv_wishart, NULL},
  {"inv_wishart_cholesky_rng", "matrix(real, matrix)", k_inv_wishart_cholesky, NULL},
  {NULL, NULL, NULL, NULL}
};
