/*
** tm_rng_fns2.c -- more _rng functions: skew_double_exponential,
** beta_neg_binomial, yule_simon and von_mises on the univariate kernel of
** tm_rng_fns.c (tm_rng_def.h); hypergeometric, ordered_logistic,
** ordered_probit, multinomial, multinomial_logit, dirichlet_multinomial and
** bernoulli_logit_glm with kernels of their own.  Arguments are data to an
** _rng function: autodiff arguments are read by value, nothing is recorded.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_special_dist.h"
#include "tm_rng_dist.h"
#include "tm_rng_def.h"
#include "tm_dens_elem.h"

#define TWO_PI (2 * TM_PI)

static int need_rng(const tm_call *c, const char *fn) {
  if (c->rng) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: no random number generator here", fn);
}

static int nargs_ok(const char *fn, int nargs, int want) {
  if (nargs == want) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, want, nargs);
}

/* ---- univariate ---- */

/* inversion of the cdf: tau below mu, 1 - tau above */
static int d_skew_double_exponential(tm_rng *r, const double *p, double *x) {
  double mu = p[0], s = p[1], t = p[2], u = tm_rng_uniform(r);
  if (u < t) *x = mu + s / (2 * (1 - t)) * log(u / t);
  else *x = mu - s / (2 * t) * log((1 - u) / (1 - t));
  return 0;
}

/* a poisson draw of a gamma(shape, scale) rate, with Stan's check on the rate */
static int gamma_poisson(tm_rng *r, const char *fn, double shape, double scale, double *x) {
  double lambda = tm_rd_gamma(r, shape) * scale;
  if (!(lambda < TM_POISSON_MAX_RATE))
    return ad_fail(AD_EDOMAIN, "%s: Random number that came from gamma distribution is %.17g, but must be less than %g",
                   fn, lambda, TM_POISSON_MAX_RATE);
  *x = tm_rd_poisson(r, lambda);
  return 0;
}

/* p ~ beta(alpha, beta), then neg_binomial(r, p / (1 - p)) as gamma-poisson */
static int d_beta_neg_binomial(tm_rng *r, const double *p, double *x) {
  double q = tm_rd_beta(r, p[1], p[2]), odds = exp(log(q) - log1p(-q));
  if (!(odds > 0 && isfinite(odds)))
    return ad_fail(AD_EDOMAIN, "beta_neg_binomial_rng: Inverse scale parameter is %.17g, but must be positive finite!",
                   odds);
  return gamma_poisson(r, "beta_neg_binomial_rng", p[0], 1 / odds, x);
}

/* w ~ exponential(alpha), then 1 + neg_binomial(1, p / (1 - p)), p = exp(-w) (Stan's) */
static int d_yule_simon(tm_rng *r, const double *p, double *x) {
  double w = tm_rd_exponential(r) / p[0], odds = exp(-w - tm_log1m_exp(-w));
  if (!(odds > 0 && isfinite(odds)))
    return ad_fail(AD_EDOMAIN, "yule_simon_rng: Inverse scale parameter is %.17g, but must be positive finite!", odds);
  int rc = gamma_poisson(r, "yule_simon_rng", 1.0, 1 / odds, x);
  *x += 1;
  return rc;
}

/* Best and Fisher (1979), as Stan: uniform on the circle below kappa = 1.4e-8 */
static int d_von_mises(tm_rng *r, const double *p, double *x) {
  double mu = p[0], k = p[1], shift = fmod(fmod(mu, TWO_PI) + TWO_PI, TWO_PI);
  if (k < 1.4e-8) { *x = (tm_rng_uniform(r) - 0.5) * TWO_PI + shift; return 0; }
  double rr = 1 + sqrt(1 + 4 * k * k), rho = 0.5 * (rr - sqrt(2 * rr)) / k, s = 0.5 * (1 + rho * rho) / rho, W;
  for (;;) {
    double Z = cos(TM_PI * tm_rng_uniform(r));
    W = (1 + s * Z) / (s + Z);
    double Y = k * (s - W), U2 = tm_rng_uniform(r);
    if (Y * (2 - Y) - U2 > 0 || log(Y / U2) + 1 - Y >= 0) break;
  }
  double U3 = tm_rng_uniform(r) - 0.5, sign = (U3 >= 0) - (U3 <= 0);
  *x = sign * acos(W) + shift;
  return 0;
}

#define LOC "Location parameter"
#define SCALE "Scale parameter"
static const rng_def D_skew_double_exponential = {"skew_double_exponential_rng", 3, 0, d_skew_double_exponential,
  {LOC, SCALE, "Skewness parameter"}, {CK_FINITE, CK_POS_FINITE, CK_UNIT}};
static const rng_def D_beta_neg_binomial = {"beta_neg_binomial_rng", 3, 1, d_beta_neg_binomial,
  {"Number of successes parameter", "Prior success parameter", "Prior failure parameter"},
  {CK_POS_FINITE, CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_yule_simon = {"yule_simon_rng", 1, 1, d_yule_simon, {"Shape parameter"}, {CK_POS_FINITE}};
static const rng_def D_von_mises = {"von_mises_rng", 2, 0, d_von_mises, {LOC, SCALE}, {CK_FINITE, CK_NONNEG_FINITE}};

/* ---- hypergeometric_rng(N, a, b): white balls among N drawn without
** replacement from a white and b black (the distribution of
** hypergeometric_lpmf), one draw at a time ---- */
static int k_hypergeometric(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "hypergeometric_rng";
  int rc;
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 3))) return rc;
  int N = tm_geti(&a[0], 0), A = tm_geti(&a[1], 0), B = tm_geti(&a[2], 0);
  if ((rc = tm_check_bounded(fn, "Draws parameter", &a[0], 0, (double)A + B)) ||
      (rc = tm_check_positive(fn, "Draws parameter", &a[0])) ||
      (rc = tm_check_positive(fn, "Successes in population parameter", &a[1])) ||
      (rc = tm_check_positive(fn, "Failures in population parameter", &a[2])))
    return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  double wa = A, wb = B;
  int n = 0;
  for (int i = 0; i < N; i++) {
    if (tm_rng_uniform(c->rng) * (wa + wb) < wa) { n++; wa--; } else wb--;
  }
  out->ival[0] = n;
  return AD_OK;
}

/* ---- ordered_logistic_rng, ordered_probit_rng: inversion on the cumulative
** probabilities F(k) = P(y <= k), logistic or normal at c_k - eta ---- */

static int check_ordered(const char *fn, const char *name, const double *c, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(c[i]))
      return ad_fail(AD_EDOMAIN, "%s: %s[%d] is %.17g, but must be finite!", fn, name, i + 1, c[i]);
    if (i > 0 && !(c[i] > c[i - 1]))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid ordered vector. The element at %d is %.17g, but should "
                     "be greater than the previous element, %.17g", fn, name, i + 1, c[i], c[i - 1]);
  }
  return AD_OK;
}

static int k_ordered_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int probit = c->fn->data != NULL, rc;
  const char *fn = probit ? "ordered_probit_rng" : "ordered_logistic_rng";
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 2))) return rc;
  if (!tm_is_scalar(&a[0]) || a[1].base != TM_VECTOR || a[1].narr)
    return ad_fail(AD_EINVALID, "%s: expects (real, vector)", fn);
  double eta = tm_get(&a[0], 0);
  int Km1 = a[1].rows;
  if ((rc = tm_check_finite(fn, "Location parameter", &a[0])) || (rc = check_ordered(fn, "Cut-points", a[1].val, Km1)))
    return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  double u = tm_rng_uniform(c->rng);
  int k = 1;
  for (; k <= Km1; k++) {
    double z = a[1].val[k - 1] - eta, F = probit ? tm_Phi(z) : tm_inv_logit(z);
    if (u <= F) break;
  }
  out->ival[0] = k;
  return AD_OK;
}

/* ---- multinomial_rng, multinomial_logit_rng, dirichlet_multinomial_rng:
** N trials by a binomial draw per category on what is left ---- */

static int multinomial_draw(tm_rng *r, const double *theta, int K, int N, tm_v *out) {
  int rc = tm_rng_new_array(out, TM_INT, 1, (size_t)K);
  if (rc) return rc;
  double left = 1;
  for (int k = 0; k < K; k++) {
    if (k == K - 1 || N == 0) { out->ival[k] = N; N = 0; continue; }
    double p = left > 0 ? theta[k] / left : 0;
    if (p > 1) p = 1;
    if (p < 0) p = 0;
    int n = (int)tm_rd_binomial(r, N, p);
    out->ival[k] = n;
    N -= n;
    left -= theta[k];
  }
  return AD_OK;
}

static int k_multinomial_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int which = c->fn->data ? *(const int *)c->fn->data : 0, rc;   /* 0 plain, 1 logit, 2 dirichlet */
  const char *fn = which == 0 ? "multinomial_rng" : which == 1 ? "multinomial_logit_rng" : "dirichlet_multinomial_rng";
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 2))) return rc;
  if (a[0].base != TM_VECTOR || a[0].narr || !tm_is_scalar(&a[1]) || a[1].base != TM_INT)
    return ad_fail(AD_EINVALID, "%s: expects (vector, int)", fn);
  int K = a[0].rows, N = tm_geti(&a[1], 0);
  const double *theta = a[0].val;
  if (which == 0) rc = tm_dens_check_simplex(fn, "Probabilities parameter", &a[0]);
  else if (which == 1) rc = tm_check_finite(fn, "Log-probabilities parameter", &a[0]);
  else rc = tm_check_positive_finite(fn, "prior size parameter", &a[0]);
  if (rc || (rc = tm_check_nonnegative(fn, "number of trials variables", &a[1]))) return rc;
  if (which != 0 && K > 0) {
    double *t = ad_alloc_doubles((size_t)K);
    if (!t) return ad_fail(AD_EMEMORY, "out of memory");
    if (which == 1) {                 /* softmax */
      double m = -INFINITY, s = 0;
      for (int k = 0; k < K; k++) m = fmax(m, theta[k]);
      for (int k = 0; k < K; k++) s += t[k] = exp(theta[k] - m);
      for (int k = 0; k < K; k++) t[k] /= s;
    } else if (N > 0) {               /* a dirichlet draw, in logs when a shape is below 1 */
      double amin = theta[0], lse = -INFINITY, s = 0;
      for (int k = 1; k < K; k++) amin = fmin(amin, theta[k]);
      if (amin < 1) {
        for (int k = 0; k < K; k++) lse = tm_log_sum_exp2(lse, t[k] = tm_rd_log_gamma(c->rng, theta[k]));
        for (int k = 0; k < K; k++) t[k] = exp(t[k] - lse);
      } else {
        for (int k = 0; k < K; k++) s += t[k] = tm_rd_gamma(c->rng, theta[k]);
        for (int k = 0; k < K; k++) t[k] /= s;
      }
    } else {
      for (int k = 0; k < K; k++) t[k] = 0;
    }
    theta = t;
  }
  return multinomial_draw(c->rng, theta, K, N, out);
}

/* ---- bernoulli_logit_glm_rng(x, alpha, beta): bernoulli_logit_rng(alpha + x beta) ---- */
static int k_bernoulli_logit_glm_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "bernoulli_logit_glm_rng";
  int rc;
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 3))) return rc;
  const tm_v *x = &a[0], *al = &a[1], *be = &a[2];
  if ((x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr || be->base != TM_VECTOR || be->narr ||
      !(tm_is_scalar(al) || (al->base == TM_VECTOR && !al->narr)))
    return ad_fail(AD_EINVALID, "%s: expects (matrix or row_vector, real or vector, vector)", fn);
  size_t M = (size_t)x->rows, K = (size_t)x->cols;
  if ((rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), K))) return rc;
  if (!tm_is_scalar(al) && (rc = tm_check_consistent_size(fn, "Vector of intercepts", tm_numel(al), M))) return rc;
  if ((rc = tm_check_finite(fn, "Matrix of independent variables", x)) ||
      (rc = tm_check_finite(fn, "Weight vector", be)) || (rc = tm_check_finite(fn, "Intercept", al)))
    return rc;
  if ((rc = tm_rng_new_array(out, TM_INT, 1, M))) return rc;
  for (size_t m = 0; m < M; m++) {
    double th = tm_get(al, tm_is_scalar(al) ? 0 : m);
    for (size_t k = 0; k < K; k++) th += x->val[m + k * M] * be->val[k];
    out->ival[m] = tm_rng_uniform(c->rng) < tm_inv_logit(th);
  }
  return AD_OK;
}

static const int W_LOGIT = 1, W_DIRICHLET = 2;

#define R2 "real(real, real); array[] real(reals, reals)"
#define R3 "real(real, real, real); array[] real(reals, reals, reals)"
#define I1 "int(real); array[] int(reals)"
#define I3 "int(real, real, real); array[] int(reals, reals, reals)"

const tm_fn tm_fns_rng2[] = {
  {"skew_double_exponential_rng", R3, tm_rng_kernel, &D_skew_double_exponential},
  {"beta_neg_binomial_rng", I3, tm_rng_kernel, &D_beta_neg_binomial},
  {"yule_simon_rng", I1, tm_rng_kernel, &D_yule_simon},
  {"von_mises_rng", R2, tm_rng_kernel, &D_von_mises},
  {"hypergeometric_rng", "int(int, int, int)", k_hypergeometric, NULL},
  {"ordered_logistic_rng", "int(real, vector)", k_ordered_rng, NULL},
  {"ordered_probit_rng", "int(real, vector)", k_ordered_rng, "probit"},
  {"multinomial_rng", "array[] int(vector, int)", k_multinomial_rng, NULL},
  {"multinomial_logit_rng", "array[] int(vector, int)", k_multinomial_rng, &W_LOGIT},
  {"dirichlet_multinomial_rng", "array[] int(vector, int)", k_multinomial_rng, &W_DIRICHLET},
  {"bernoulli_logit_glm_rng", "array[] int(matrix, vector, vector); array[] int(row_vector, vector, vector)",
   k_bernoulli_logit_glm_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
