/*
** tm_frechet.c -- the Frechet distribution: frechet_lpdf,
** frechet_cdf, _lcdf, _lccdf, frechet_rng.
*/
#include "tm_cont_family.h"

/* frechet(y | alpha, sigma) = alpha / sigma (y / sigma)^(-1 - alpha) exp(-(y / sigma)^-alpha) */
static int frechet_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_a = tm_dens_keep(D, B(1)), k_all = tm_dens_keep(D, 7u);
  pair_keep keep = keep_pairs(D);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), a = X(D, 1, j), s = X(D, 2, j), ly = log(y), ls = log(s);
    double p = pow(s / y, a);
    if (k_a) lp += log(a);
    if (keep.ab) lp += a * ls;
    if (keep.ya) lp -= (1 + a) * ly;
    if (k_all) lp -= p;
    tm_dens_add(D, 0, j, (a * p - 1 - a) / y);
    tm_dens_add(D, 1, j, 1 / a + (ls - ly) * (1 - p));
    tm_dens_add(D, 2, j, a * (1 - p) / s);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_frechet = SHAPE_SCALE_DENS_DEF(SHAPE, SCALE, CK_POS, frechet_body);

/* frechet: F = exp(-u), u = (sigma / y)^alpha */
static double frechet_e(const double *x, int upper, double *d) {
  double y = x[0], al = x[1], s = x[2];
  if (y == 0) return upper ? 0 : -INFINITY;
  /* F = exp(-u) is 1 - F of the 1 - exp(-u) families */
  double r = s / y, u = pow(r, al), g, v = one_minus_exp(u, !upper, &g);
  if (upper && u == 0) g = 0;  /* log(1 - F) = -inf: no partials */
  power_ratio_partials(g, -1, al, u, r, y, s, d);
  return v;
}

static const cdf_def d_frechet = SHAPE_SCALE_CDF_DEF(SHAPE, SCALE, CK_POS, frechet_e);

POWER_RATIO_RNG(frechet, -1.0)

CONT_FAMILY_TABLE(frechet, SIG3, R2)
