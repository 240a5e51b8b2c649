/*
** tm_dens_multi2.c -- lkj_corr_lpdf and multi_student_t_lpdf.
**
** As in tm_dens_multi.c: one operands node per call holding the partials
** of every autodiff argument; under propto a term goes exactly when every
** argument it depends on is constant.
*/
#include <math.h>
#include <string.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_linalg.h"
#include "tm_dens_multi.h"

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


static int k_multi_student_t(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_student_t_lpdf";
  int rc = AD_OK;
  if (nargs != 4 || !tm_is_scalar(&a[1]) || a[3].narr || a[3].base != TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: expects (vectors, real, vectors, matrix)", fn);
  tm_mvec y = {0}, mu = {0};
  if ((rc = tm_mvec_of(fn, &a[0], "Random variable", &y)) || (rc = tm_mvec_of(fn, &a[2], "Location parameter", &mu)))
    return rc;
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

const tm_fn tm_fns_dens_multi2[] = {
  {"lkj_corr_lpdf", "real(matrix, real)", k_lkj_corr, NULL},
  {"multi_student_t_lpdf", "real(vectors, real, vectors, matrix)", k_multi_student_t, NULL},
  {NULL, NULL, NULL, NULL}
};
