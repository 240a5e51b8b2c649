/*
** tm_multi_gp.c -- the multi_gp family: multi_gp_lpdf and
** multi_gp_cholesky_lpdf.
**
** One operands node per call holding the analytic partials of every
** autodiff argument (Stan Math's formulas); under propto a term goes exactly
** when Stan's include_summand drops it, i.e. when every argument it depends
** on is constant.  The partials of a Cholesky factor argument are on its
** lower triangle (the only part read); those of a symmetric matrix are
** symmetric.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_mv_checks.h"

#define AT TM_AT

/* ---- multi_gp(y | Sigma, w) and multi_gp_cholesky(y | L, w) ----
** Row i of the d x N matrix y is multi_normal(0, Sigma / w[i]). */

/* The row's data marks the Cholesky form. */
static int k_multi_gp(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int chol = c->fn->data != NULL;
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


const tm_fn tm_fns_multi_gp[] = {
  {"multi_gp_lpdf", "real(matrix, matrix, vector)", k_multi_gp, NULL},
  {"multi_gp_cholesky_lpdf", "real(matrix, matrix, vector)", k_multi_gp, "cholesky"},
  {NULL, NULL, NULL, NULL}
};
