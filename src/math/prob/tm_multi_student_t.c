/*
** tm_multi_student_t.c -- the multi_student_t family:
** multi_student_t_lpdf, multi_student_t_cholesky_lpdf, and
** multi_student_t_rng, multi_student_t_cholesky_rng.
**
** The densities take y and mu as "vectors" (tm_mv_checks.h) and record one
** operands node per call holding the partials of every autodiff argument;
** under propto a term goes exactly when every argument it depends on is
** constant.  The partials of a Cholesky factor argument are on its lower
** triangle (the only part read); those of a symmetric matrix are symmetric.
**
** The _rng functions, with Stan Math's algorithm and checks: mu + sqrt(w) L z
** with z standard normal and w inverse gamma(nu / 2, nu / 2); as in Stan,
** one w is drawn per call and shared by all the locations of an array.
** Arguments are data; no node is ever recorded.
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

/* w = L^-1 (y - mu) for the lower K x K factor L; returns |w|^2, the
** squared Mahalanobis distance of y from mu. */
static double whiten(int K, const double *L, const double *y, const double *mu, double *w) {
  for (int i = 0; i < K; i++) w[i] = y[i] - mu[i];
  tm_la_trsm_lower(K, 1, L, w);
  double q = 0;
  for (int i = 0; i < K; i++) q += w[i] * w[i];
  return q;
}

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

/* ---- multi_student_t(y | nu, mu, Sigma) ---- */

static int k_multi_student_t(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_student_t_lpdf";
  int rc = AD_OK;
  tm_mvec y = {0}, mu = {0};
  if ((rc = tm_mv_args(fn, a, nargs, 1, &y, &mu))) return rc;
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
    double q = whiten(K, L, yn, mn, z);      /* z = L^-1 r */
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

/* ---- multi_student_t_cholesky(y | nu, mu, L) ---- */

static int k_multi_student_t_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "multi_student_t_cholesky";
  int rc = AD_OK;
  tm_mvec y = {0}, mu = {0};
  if ((rc = tm_mv_args(fn, a, nargs, 1, &y, &mu))) return rc;
  const tm_v *nuv = &a[1], *Lv = &a[3];
  double *d[4] = {tm_new_partials(&a[0], &rc), tm_new_partials(nuv, &rc), tm_new_partials(&a[2], &rc),
                  tm_new_partials(Lv, &rc)};
  if (rc) return rc;
  if ((rc = tm_mv_consistent(fn, "y", &y, "mu", &mu))) return rc;
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
      (rc = tm_mv_check_locations_paired(fn, &y, &mu, N)))
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
    double q = whiten(K, L, yn, mn, w);      /* w = L^-1 r */
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

/* ---- multi_student_t_rng and multi_student_t_cholesky_rng ---- */

/* The row's data marks the Cholesky form. */
static int k_multi_student_t_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int chol = c->fn->data != NULL;
  const char *fn = chol ? "multi_student_t_cholesky_rng" : "multi_student_t_rng";
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 3))) return rc;
  const tm_v *nuv = &a[0], *mu = &a[1], *S = &a[2];
  if (!tm_is_scalar(nuv)) return ad_fail(AD_EINVALID, "%s: Degrees of freedom parameter must be a real", fn);
  if (mu->narr > 1 || (mu->base != TM_VECTOR && mu->base != TM_ROW_VECTOR))
    return ad_fail(AD_EINVALID, "%s: Location parameter must be a vector, row_vector or an array of them", fn);
  if ((rc = tm_mv_check_matrix(fn, chol ? "L matrix" : "Covariance matrix", S))) return rc;
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
    if ((rc = tm_rng_new_array(out, TM_VECTOR, k, (size_t)N))) return rc;
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

#define MST "vector(real, vector, matrix); vector(real, row_vector, matrix); " \
  "array[] vector(real, array[] vector, matrix); array[] vector(real, array[] row_vector, matrix)"

const tm_fn tm_fns_multi_student_t[] = {
  {"multi_student_t_lpdf", "real(vectors, real, vectors, matrix)", k_multi_student_t, NULL},
  {"multi_student_t_cholesky_lpdf", "real(vectors, real, vectors, matrix)", k_multi_student_t_cholesky, NULL},
  {"multi_student_t_rng", MST, k_multi_student_t_rng, NULL},
  {"multi_student_t_cholesky_rng", MST, k_multi_student_t_rng, "cholesky"},
  {NULL, NULL, NULL, NULL}
};
