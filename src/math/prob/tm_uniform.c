/*
** tm_uniform.c -- the uniform distribution: uniform_lpdf,
** uniform_cdf, _lcdf, _lccdf, uniform_rng.
*/
#include "tm_cont_family.h"

/* uniform(y | alpha, beta); y outside [alpha, beta] gives LOG_ZERO */
static int uniform_body(tm_dens *D, double *logp) {
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j);
    if (y < at(D, 1, j) || at(D, 2, j) < y) return log_zero(logp);
  }
  double lp = 0;
  int keep_ab = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double w = at(D, 2, j) - at(D, 1, j);
    if (keep_ab) lp -= log(w);
    tm_dens_add(D, 1, j, 1 / w);
    tm_dens_add(D, 2, j, -1 / w);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_uniform = {3, {Y, "Lower bound parameter", "Upper bound parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_FINITE}, {2, CK_GREATER}}, 0, uniform_body, 0};

static double uniform_e(const double *x, int upper, double *d) {
  double y = x[0], lo = x[1], hi = x[2], w = hi - lo;
  if (y < lo) return upper ? 0 : -INFINITY;
  if (y >= hi) return upper ? -INFINITY : 0;
  if (upper) {
    d[0] = -1 / (hi - y);
    d[1] = 1 / w;
    d[2] = 1 / (hi - y) - 1 / w;
    return log((hi - y) / w);
  }
  d[0] = 1 / (y - lo);
  d[1] = -1 / (y - lo) + 1 / w;
  d[2] = -1 / w;
  return log((y - lo) / w);
}

static const cdf_def d_uniform = {3, 0, {Y, "Lower bound parameter", "Upper bound parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_FINITE}, {2, CK_GREATER}}, uniform_e, NULL};

static int draw_uniform(tm_rng *r, const double *p, double *x) { *x = p[0] + (p[1] - p[0]) * tm_rng_uniform(r); return 0; }

static const rng_def D_uniform = {"uniform_rng", 2, 0, draw_uniform,
  {"Lower bound parameter", "Upper bound parameter"}, {CK_FINITE, CK_ABOVE_PREV}};

CONT_FAMILY_TABLE(uniform, SIG3, R2)
