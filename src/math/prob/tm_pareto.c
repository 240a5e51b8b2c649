/*
** tm_pareto.c -- the Pareto distribution: pareto_lpdf,
** pareto_cdf, _lcdf, _lccdf, pareto_rng.
*/
#include "tm_cont_family.h"

/* pareto(y | y_min, alpha) = alpha y_min^alpha / y^(alpha + 1), y >= y_min */
static int pareto_body(tm_dens *D, double *logp) {
  for (size_t j = 0; j < D->n; j++)
    if (X(D, 0, j) < X(D, 1, j)) return log_zero(logp);
  double lp = 0;
  int k_a = tm_dens_keep(D, B(2)), k_ma = tm_dens_keep(D, B(1) | B(2)), k_ya = tm_dens_keep(D, B(0) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), m = X(D, 1, j), a = X(D, 2, j), ly = log(y), lm = log(m);
    if (k_a) lp += log(a);
    if (k_ma) lp += a * lm;
    if (k_ya) lp -= (a + 1) * ly;
    tm_dens_add(D, 0, j, -(a + 1) / y);
    tm_dens_add(D, 1, j, a / m);
    tm_dens_add(D, 2, j, 1 / a + lm - ly);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_pareto = SHAPE_SCALE_DENS_DEF(SCALE, SHAPE, CK_NOT_NAN, pareto_body);

/* 1 - F = (y_min / y)^alpha above y_min */
static double pareto_e(const double *x, int upper, double *d) {
  double y = x[0], ym = x[1], al = x[2];
  if (y < ym) return upper ? 0 : -INFINITY;
  if (isinf(y)) return upper ? -INFINITY : 0;
  double lr = log(ym / y), L = al * lr, g;
  double v = upper ? L : tm_log1m_exp(L);
  g = upper ? 1 : -1 / expm1(-L);
  if (isfinite(g)) {
    d[0] = -g * al / y;
    d[1] = g * al / ym;
    d[2] = g * lr;
  }
  return v;
}

static const cdf_def d_pareto = SHAPE_SCALE_CDF_DEF(SCALE, SHAPE, CK_NONNEG, pareto_e);

static int draw_pareto(tm_rng *r, const double *p, double *x) { *x = p[0] * exp(tm_rd_exponential(r) / p[1]); return 0; }

static const rng_def D_pareto = SHAPE_SCALE_RNG_DEF("pareto_rng", draw_pareto, SCALE, "Shape parameter");

CONT_FAMILY_TABLE(pareto, SIG3, R2)
