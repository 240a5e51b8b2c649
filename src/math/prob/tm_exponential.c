/*
** tm_exponential.c -- the exponential distribution: exponential_lpdf,
** exponential_cdf, _lcdf, _lccdf, exponential_rng.
*/
#include "tm_cont_family.h"

/* exponential(y | beta) */
static int exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  int keep_yb = tm_dens_keep(D, B(0) | B(1));
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), b = at(D, 1, j);
    if (keep_yb) lp -= b * y;
    tm_dens_add(D, 0, j, -b);
    tm_dens_add(D, 1, j, 1 / b - y);
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, log_fn, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_exponential = {2, {Y, "Inverse scale parameter"},
  {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, 0, exponential_body, 0};

static double exponential_e(const double *x, int upper, double *d) {
  double y = x[0], b = x[1], g, v = one_minus_exp(b * y, upper, &g);
  if (g != 0) { d[0] = g * b; d[1] = g * y; }
  return v;
}

static const cdf_def d_exponential = {2, 0, {Y, "Inverse scale parameter"},
  {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, exponential_e, NULL};

static int draw_exponential(tm_rng *r, const double *p, double *x) { *x = tm_rd_exponential(r) / p[0]; return 0; }

static const rng_def D_exponential = {"exponential_rng", 1, 0, draw_exponential,
  {"Inverse scale parameter"}, {CK_POS_FINITE}};

CONT_FAMILY_TABLE(exponential, SIG2, R1)
