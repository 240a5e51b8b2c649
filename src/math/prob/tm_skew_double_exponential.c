/*
** tm_skew_double_exponential.c -- the skew double exponential distribution:
** skew_double_exponential_lpdf, skew_double_exponential_cdf, _lcdf, _lccdf,
** skew_double_exponential_rng.
*/
#include "tm_cont_family.h"

/* skew_double_exponential(y | mu, sigma, tau)
**   = 2 tau (1 - tau) / sigma exp(-2 / sigma [(1 - tau)(mu - y) if y < mu, tau (y - mu) else]) */
static int skew_double_exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_s = tm_dens_keep(D, B(2)), k_t = tm_dens_keep(D, B(3));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), s = X(D, 2, j), t = X(D, 3, j), d = y - mu;
    double w = d < 0 ? 1 - t : t, sg = d < 0 ? -1 : d > 0 ? 1 : 0;   /* weight of |y - mu| */
    double expo = w * fabs(d) / s;
    lp -= 2 * expo;
    if (k_c) lp += TM_LOG_2;
    if (k_s) lp -= log(s);
    if (k_t) lp += log(t) + log1p(-t);
    double g = d < 0 ? -2 * (1 - t) / s : d > 0 ? 2 * t / s : 0;   /* d / dmu, Stan's sign(0) = 0 */
    tm_dens_add(D, 0, j, -g);
    tm_dens_add(D, 1, j, g);
    tm_dens_add(D, 2, j, (2 * expo - 1) / s);
    tm_dens_add(D, 3, j, 1 / t - 1 / (1 - t) - sg * 2 * fabs(d) / s);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_skew_double_exponential = {4, {Y, LOC, SCALE, "Skewness parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_UNIT}}, 1, skew_double_exponential_body, 0};

/* ---- skew_double_exponential(y | mu, sigma, tau): F = tau exp(-2 (1 - tau) (mu - y) / sigma)
** below mu, 1 - F = (1 - tau) exp(-2 tau (y - mu) / sigma) above ---- */

static double skew_double_exponential_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], s = x[2], t = x[3], z = y - mu, v;
  if (isinf(y)) return (y < 0) == !upper ? -INFINITY : 0;
  int lower_side = y <= mu;                 /* the closed form is log F */
  if (lower_side) {
    v = log(t) + 2 * (1 - t) * z / s;
    d[0] = 2 * (1 - t) / s;
    d[1] = -d[0];
    d[2] = -2 * (1 - t) * z / (s * s);
    d[3] = 1 / t - 2 * z / s;
  } else {
    v = log1p(-t) - 2 * t * z / s;
    d[0] = -2 * t / s;
    d[1] = -d[0];
    d[2] = 2 * t * z / (s * s);
    d[3] = -1 / (1 - t) - 2 * z / s;
  }
  return lower_side == !upper ? v : tm_cdf_complement(v, d, 4);
}

static const cdf_def d_skew_double_exponential = {4, 0, {Y, LOC, SCALE, "Skewness parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_UNIT}}, skew_double_exponential_e, NULL};

/* inversion of the cdf: tau below mu, 1 - tau above */
static int draw_skew_double_exponential(tm_rng *r, const double *p, double *x) {
  double mu = p[0], s = p[1], t = p[2], u = tm_rng_uniform(r);
  if (u < t) *x = mu + s / (2 * (1 - t)) * log(u / t);
  else *x = mu - s / (2 * t) * log((1 - u) / (1 - t));
  return 0;
}

static const rng_def D_skew_double_exponential = {"skew_double_exponential_rng", 3, 0, draw_skew_double_exponential,
  {LOC, SCALE, "Skewness parameter"}, {CK_FINITE, CK_POS_FINITE, CK_UNIT}};

CONT_FAMILY_TABLE(skew_double_exponential, SIG4, R3)
