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
  double r = s / y, u = pow(r, al), v, g;
  if (upper) { v = tm_log1m_exp(-u); g = u == 0 ? 0 : isinf(u) ? 0 : 1 / expm1(u); }
  else { v = -u; g = -1; }
  power_ratio_partials(g, -1, al, u, r, y, s, d);
  return v;
}

static const cdf_def d_frechet = SHAPE_SCALE_CDF_DEF(SHAPE, SCALE, CK_POS, frechet_e);

static int draw_frechet(tm_rng *r, const double *p, double *x) {
  *x = p[1] * pow(tm_rd_exponential(r), -1.0 / p[0]);
  return 0;
}

static const rng_def D_frechet = SHAPE_SCALE_RNG_DEF("frechet_rng", draw_frechet, "Shape parameter", SCALE);

CONT_FAMILY_TABLE(frechet, SIG3, R2)
