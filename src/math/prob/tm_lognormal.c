/*
** tm_lognormal.c -- the lognormal distribution: lognormal_lpdf,
** lognormal_cdf, _lcdf, _lccdf, lognormal_rng.
*/
#include "tm_cont_family.h"

/* lognormal(y | mu, sigma).  Under propto -log(sqrt(2 pi)) is dropped, as
** Stan 2.21 does (include_summand<propto>), which the reference values of
** the shared models were computed with. */
static int lognormal_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) { *logp = -INFINITY; return AD_OK; }
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
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_log, &lp);
  if (tm_dens_keep(D, B(0))) add_unary(D, 0, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_lognormal = {3, {Y, LOC, SCALE},
  {{0, CK_NONNEG}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, 0, lognormal_body, 0};

static double lognormal_e(const double *x, int upper, double *d) {
  double y = x[0];
  if (y == 0) return upper ? 0 : -INFINITY;
  double z = (log(y) - x[1]) / x[2], g, v = normal_z(z, upper, &g);
  loc_scale(g, z, x[2], d);
  if (g != 0) d[0] /= y;
  return v;
}

static const cdf_def d_lognormal = {3, 0, {Y, LOC, SCALE},
  {{0, CK_NONNEG}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, lognormal_e, NULL};

static int draw_lognormal(tm_rng *r, const double *p, double *x) { *x = exp(p[0] + p[1] * tm_rng_normal(r)); return 0; }

static const rng_def D_lognormal = {"lognormal_rng", 2, 0, draw_lognormal, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};

CONT_FAMILY_TABLE(lognormal, SIG3, R2)
