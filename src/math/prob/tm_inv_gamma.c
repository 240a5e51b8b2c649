/*
** tm_inv_gamma.c -- the inverse gamma distribution: inv_gamma_lpdf,
** inv_gamma_cdf, _lcdf, _lccdf, inv_gamma_rng.
*/
#include "tm_cont_family.h"

/* inv_gamma(y | alpha, beta); y <= 0 gives LOG_ZERO as in Stan */
static int inv_gamma_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) return log_zero(logp);
  double lp = 0, *dg;
  if (ad_digamma(D, 1, &dg)) return AD_EMEMORY;
  pair_keep keep = keep_pairs(D);
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), b = at(D, 2, j);
    double log_y = log(y), inv_y = 1 / y, log_b = log(b);
    if (keep.ab) lp += a * log_b;
    if (keep.ya) lp -= (a + 1) * log_y;
    if (keep.yb) lp -= b * inv_y;
    tm_dens_add(D, 0, j, (b * inv_y - a - 1) * inv_y);
    if (dg) tm_dens_add(D, 1, j, log_b - dg[idx(D, 1, j)] - log_y);
    tm_dens_add(D, 2, j, a / b - inv_y);
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, neg_lgamma, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_inv_gamma = SHAPE_SCALE_DENS_DEF(SHAPE, SCALE, CK_NOT_NAN, inv_gamma_body);

/* inv_gamma(y | alpha, beta): Q(alpha, beta / y) */
static double inv_gamma_e(const double *x, int upper, double *d) {
  double y = x[0], a = x[1], b = x[2], ga, gt;
  if (y == 0) return upper ? 0 : -INFINITY;
  double v = inc_gamma(a, b / y, upper, 0, &ga, &gt);
  d[0] = -gt * b / (y * y);
  d[1] = ga;
  d[2] = gt / y;
  return v;
}

static const cdf_def d_inv_gamma = SHAPE_SCALE_CDF_DEF(SHAPE, SCALE, CK_NONNEG, inv_gamma_e);

static int draw_inv_gamma(tm_rng *r, const double *p, double *x) { *x = p[1] / tm_rd_gamma(r, p[0]); return 0; }

static const rng_def D_inv_gamma = SHAPE_SCALE_RNG_DEF("inv_gamma_rng", draw_inv_gamma, "Shape parameter", SCALE);

CONT_FAMILY_TABLE(inv_gamma, SIG3, R2)
