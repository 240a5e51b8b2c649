/*
** tm_rayleigh.c -- the Rayleigh distribution: rayleigh_lpdf,
** rayleigh_cdf, _lcdf, _lccdf, rayleigh_rng.
*/
#include "tm_cont_family.h"

/* rayleigh(y | sigma) = y / sigma^2 exp(-y^2 / (2 sigma^2)) */
static int rayleigh_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_s = tm_dens_keep(D, B(1)), k_y = tm_dens_keep(D, B(0)), k_all = tm_dens_keep(D, 3u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), s = X(D, 1, j), r = y / s;
    if (k_s) lp -= 2 * log(s);
    if (k_y) lp += log(y);
    if (k_all) lp -= 0.5 * r * r;
    tm_dens_add(D, 0, j, 1 / y - r / s);
    tm_dens_add(D, 1, j, (r * r - 2) / s);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_rayleigh = {2, {Y, SCALE}, {{1, CK_POS}, {0, CK_POS}}, 0, rayleigh_body, 0};

/* u = y^2 / (2 sigma^2) */
static double rayleigh_e(const double *x, int upper, double *d) {
  double y = x[0], s = x[1];
  if (y == 0) return upper ? 0 : -INFINITY;
  double r = y / s, u = 0.5 * r * r, g, v = one_minus_exp(u, upper, &g);
  if (g != 0 && isfinite(u)) {
    d[0] = g * r / s;
    d[1] = -g * r * r / s;
  }
  return v;
}

static const cdf_def d_rayleigh = {2, 0, {Y, SCALE}, {{0, CK_NONNEG}, {1, CK_POS}}, rayleigh_e, NULL};

static int draw_rayleigh(tm_rng *r, const double *p, double *x) { *x = p[0] * sqrt(2.0 * tm_rd_exponential(r)); return 0; }

static const rng_def D_rayleigh = {"rayleigh_rng", 1, 0, draw_rayleigh, {SCALE}, {CK_POS_FINITE}};

CONT_FAMILY_TABLE(rayleigh, SIG2, R1)
