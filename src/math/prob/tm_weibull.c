/*
** tm_weibull.c -- the Weibull distribution: weibull_lpdf,
** weibull_cdf, _lcdf, _lccdf, weibull_rng.
*/
#include "tm_cont_family.h"

/* weibull(y | alpha, sigma); y < 0 gives LOG_ZERO as in Stan */
static int weibull_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 0)) return log_zero(logp);
  double lp = 0;
  pair_keep keep = keep_pairs(D);
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), s = at(D, 2, j);
    double log_y = log(y), log_s = log(s);
    double p = pow(y / s, a);
    lp -= p;
    if (keep.ya) lp += (a - 1) * log_y;
    if (keep.ab) lp -= a * log_s;
    tm_dens_add(D, 0, j, (a * (1 - p) - 1) / y);
    tm_dens_add(D, 1, j, 1 / a + (1 - p) * (log_y - log_s));
    tm_dens_add(D, 2, j, a / s * (p - 1));
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, log_fn, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_weibull = SHAPE_SCALE_DENS_DEF(SHAPE, SCALE, CK_FINITE, weibull_body);

/* u = (y / sigma)^alpha */
static double weibull_e(const double *x, int upper, double *d) {
  double y = x[0], al = x[1], s = x[2];
  if (y == 0) return upper ? 0 : -INFINITY;
  double r = y / s, u = pow(r, al), g, v = one_minus_exp(u, upper, &g);
  power_ratio_partials(g, 1, al, u, r, y, s, d);
  return v;
}

static const cdf_def d_weibull = SHAPE_SCALE_CDF_DEF(SHAPE, SCALE, CK_NONNEG, weibull_e);

POWER_RATIO_RNG(weibull, 1.0)

CONT_FAMILY_TABLE(weibull, SIG3, R2)
