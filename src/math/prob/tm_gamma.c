/*
** tm_gamma.c -- the gamma distribution: gamma_lpdf, gamma_cdf, _lcdf, _lccdf,
** gamma_rng.
*/
#include "tm_cont_family.h"

/* gamma(y | alpha, beta); y < 0 gives LOG_ZERO as in Stan */
static int gamma_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 0)) return log_zero(logp);
  double lp = 0, *dg;
  if (ad_digamma(D, 1, &dg)) return AD_EMEMORY;
  pair_keep keep = keep_pairs(D);
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), b = at(D, 2, j);
    double log_y = log(y), log_b = log(b);
    if (keep.ab) lp += a * log_b;
    if (keep.ya) lp += (a - 1) * log_y;
    if (keep.yb) lp -= b * y;
    tm_dens_add(D, 0, j, (a - 1) / y - b);
    if (dg) tm_dens_add(D, 1, j, log_b + log_y - dg[idx(D, 1, j)]);
    tm_dens_add(D, 2, j, a / b - y);
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, neg_lgamma, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_gamma = SHAPE_SCALE_DENS_DEF(SHAPE, "Inverse scale parameter", CK_NOT_NAN, gamma_body);

/* gamma(y | alpha, beta): P(alpha, beta y) */
static double gamma_e(const double *x, int upper, double *d) {
  double y = x[0], a = x[1], b = x[2], ga, gt;
  double v = inc_gamma(a, b * y, upper, 1, &ga, &gt);
  d[0] = gt * b;
  d[1] = ga;
  d[2] = gt * y;
  return v;
}

static const cdf_def d_gamma = SHAPE_SCALE_CDF_DEF(SHAPE, "Inverse scale parameter", CK_NONNEG, gamma_e);

static int draw_gamma(tm_rng *r, const double *p, double *x) { *x = tm_rd_gamma(r, p[0]) / p[1]; return 0; }

static const rng_def D_gamma = SHAPE_SCALE_RNG_DEF("gamma_rng", draw_gamma, "Shape parameter", "Inverse scale parameter");

CONT_FAMILY_TABLE(gamma, SIG3, R2)
