/*
** tm_inv_chi_square.c -- the inverse chi-square distribution:
** inv_chi_square_lpdf, inv_chi_square_cdf, _lcdf, _lccdf, inv_chi_square_rng.
*/
#include "tm_cont_family.h"

/* inv_chi_square(y | nu) = 2^(-nu/2) / Gamma(nu/2) y^(-nu/2 - 1) exp(-1 / (2y)); y <= 0 gives log(0) */
static int inv_chi_square_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) return log_zero(logp);
  double lp = 0;
  int k_n = tm_dens_keep(D, B(1)), k_yn = tm_dens_keep(D, 3u), k_y = tm_dens_keep(D, B(0));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), h = 0.5 * X(D, 1, j), ly = log(y);
    if (k_n) lp -= tm_lgamma(h) + h * TM_LOG_2;
    if (k_yn) lp -= (h + 1) * ly;
    if (k_y) lp -= 0.5 / y;
    tm_dens_add(D, 0, j, -(h + 1) / y + 0.5 / (y * y));
    if (D->d[1]) tm_dens_add(D, 1, j, -0.5 * (TM_LOG_2 + tm_digamma(h) + ly));
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_inv_chi_square = {2, {Y, DOF},
  {{1, CK_POS_FINITE}, {0, CK_NOT_NAN}}, 0, inv_chi_square_body, 0};

/* inv_chi_square(y | nu): Q(nu / 2, 1 / (2 y)) */
static double inv_chi_square_e(const double *x, int upper, double *d) {
  double y = x[0], ga, gt;
  if (y == 0) return upper ? 0 : -INFINITY;
  double v = inc_gamma(0.5 * x[1], 0.5 / y, upper, 0, &ga, &gt);
  d[0] = -0.5 * gt / (y * y);
  d[1] = 0.5 * ga;
  return v;
}

static const cdf_def d_inv_chi_square = {2, 0, {Y, DOF},
  {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, inv_chi_square_e, NULL};

static int draw_inv_chi_square(tm_rng *r, const double *p, double *x) { *x = 0.5 / tm_rd_gamma(r, 0.5 * p[0]); return 0; }

static const rng_def D_inv_chi_square = {"inv_chi_square_rng", 1, 0, draw_inv_chi_square,
  {"Degrees of freedom parameter"}, {CK_POS_FINITE}};

CONT_FAMILY_TABLE(inv_chi_square, SIG2, R1)
