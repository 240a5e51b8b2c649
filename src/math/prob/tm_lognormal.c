/*
** tm_lognormal.c -- the lognormal distribution: lognormal_lpdf,
** lognormal_cdf, _lcdf, _lccdf, lognormal_rng.
*/
#include "tm_cont_family.h"

/* lognormal(y | mu, sigma).  Under propto -log(sqrt(2 pi)) is dropped, as
** Stan 2.21 does (include_summand<propto>), which the reference values of
** the shared models were computed with. */
static int lognormal_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) return log_zero(logp);
  double lp = D->propto ? 0.0 : -TM_LOG_SQRT_2PI * (double)D->n;
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), inv_s = 1 / at(D, 2, j);
    double lm = log(y) - at(D, 1, j);
    double t = lm * inv_s * inv_s;
    lp -= 0.5 * lm * t;
    tm_dens_add(D, 0, j, -(1 + t) / y);
    tm_dens_add(D, 1, j, t);
    tm_dens_add(D, 2, j, (t * lm - 1) * inv_s);
  }
  add_neg_log_scale(D, &lp);
  if (tm_dens_keep(D, B(0))) add_unary(D, 0, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_lognormal = LOC_SCALE_DENS_DEF(CK_NONNEG, 0, lognormal_body);

static double lognormal_e(const double *x, int upper, double *d) {
  double y = x[0];
  if (y == 0) return upper ? 0 : -INFINITY;
  double z = (log(y) - x[1]) / x[2], g, v = normal_z(z, upper, &g);
  loc_scale(g, z, x[2], d);
  if (g != 0) d[0] /= y;
  return v;
}

static const cdf_def d_lognormal = LOC_SCALE_CDF_DEF(CK_NONNEG, lognormal_e);

static int draw_lognormal(tm_rng *r, const double *p, double *x) { *x = exp(p[0] + p[1] * tm_rng_normal(r)); return 0; }

static const rng_def D_lognormal = LOC_SCALE_RNG_DEF("lognormal_rng", draw_lognormal);

CONT_FAMILY_TABLE(lognormal, SIG3, R2)
