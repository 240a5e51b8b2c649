/*
** tm_scaled_inv_chi_square.c -- the scaled inverse chi-square distribution:
** scaled_inv_chi_square_lpdf, scaled_inv_chi_square_cdf, _lcdf, _lccdf,
** scaled_inv_chi_square_rng.
*/
#include "tm_cont_family.h"

/* scaled_inv_chi_square(y | nu, s); y <= 0 gives log(0) */
static int scaled_inv_chi_square_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) return log_zero(logp);
  double lp = 0;
  int k_n = tm_dens_keep(D, B(1)), k_all = tm_dens_keep(D, 7u);
  pair_keep keep = keep_pairs(D);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), nu = X(D, 1, j), s = X(D, 2, j), h = 0.5 * nu, ly = log(y), ls = log(s);
    if (k_n) lp += h * log(h) - tm_lgamma(h);
    if (keep.ab) lp += nu * ls;
    if (keep.ya) lp -= (h + 1) * ly;
    if (k_all) lp -= h * s * s / y;
    tm_dens_add(D, 0, j, -(h + 1) / y + h * s * s / (y * y));
    if (D->d[1]) tm_dens_add(D, 1, j, 0.5 * log(h) + 0.5 - 0.5 * tm_digamma(h) + ls - 0.5 * ly - 0.5 * s * s / y);
    tm_dens_add(D, 2, j, nu / s - nu * s / y);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_scaled_inv_chi_square =
  SHAPE_SCALE_DENS_DEF(DOF, SCALE, CK_NOT_NAN, scaled_inv_chi_square_body);

/* scaled_inv_chi_square(y | nu, s): Q(nu / 2, nu s^2 / (2 y)) */
static double scaled_inv_chi_square_e(const double *x, int upper, double *d) {
  double y = x[0], nu = x[1], s = x[2], ga, gt;
  if (y == 0) return upper ? 0 : -INFINITY;
  double t = 0.5 * nu * s * s / y, v = inc_gamma(0.5 * nu, t, upper, 0, &ga, &gt);
  d[0] = -gt * t / y;
  d[1] = 0.5 * ga + gt * 0.5 * s * s / y;
  d[2] = gt * nu * s / y;
  return v;
}

static const cdf_def d_scaled_inv_chi_square =
  SHAPE_SCALE_CDF_DEF(DOF, SCALE, CK_NONNEG, scaled_inv_chi_square_e);

static int draw_scaled_inv_chi_square(tm_rng *r, const double *p, double *x) {
  *x = p[0] * p[1] * p[1] / (2.0 * tm_rd_gamma(r, 0.5 * p[0]));
  return 0;
}

static const rng_def D_scaled_inv_chi_square =
  SHAPE_SCALE_RNG_DEF("scaled_inv_chi_square_rng", draw_scaled_inv_chi_square, DOF, SCALE);

CONT_FAMILY_TABLE(scaled_inv_chi_square, SIG3, R2)
