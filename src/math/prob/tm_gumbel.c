/*
** tm_gumbel.c -- the Gumbel distribution: gumbel_lpdf,
** gumbel_cdf, _lcdf, _lccdf, gumbel_rng.
*/
#include "tm_cont_family.h"

/* gumbel(y | mu, beta) = exp(-z - exp(-z)) / beta, z = (y - mu) / beta */
static int gumbel_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_all = tm_dens_keep(D, 7u), k_b = tm_dens_keep(D, B(2));
  for (size_t j = 0; j < D->n; j++) {
    double b = X(D, 2, j), z = (X(D, 0, j) - X(D, 1, j)) / b, e = exp(-z);
    if (k_all) lp -= z + e;
    if (k_b) lp -= log(b);
    double gz = (e - 1) / b;
    tm_dens_add(D, 0, j, gz);
    tm_dens_add(D, 1, j, -gz);
    tm_dens_add(D, 2, j, -1 / b - z * gz);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_gumbel = {3, {Y, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, 0, gumbel_body, 0};

/* F = exp(-exp(-z)) */
static double gumbel_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2], e = exp(-z), v, g;
  if (!upper) { v = -e; g = e; }
  else {
    v = tm_log1m_exp(-e);
    g = isinf(e) ? 0 : e == 0 ? 0 : -e / expm1(e);
  }
  loc_scale(g, z, x[2], d);
  return v;
}

static const cdf_def d_gumbel = {3, 0, {Y, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, gumbel_e, NULL};

static int draw_gumbel(tm_rng *r, const double *p, double *x) { *x = p[0] - p[1] * log(tm_rd_exponential(r)); return 0; }

static const rng_def D_gumbel = LOC_SCALE_RNG_DEF("gumbel_rng", draw_gumbel);

CONT_FAMILY_TABLE(gumbel, SIG3, R2)
