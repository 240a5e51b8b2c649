/*
** tm_pareto_type_2.c -- the Pareto type II (Lomax) distribution:
** pareto_type_2_lpdf, pareto_type_2_cdf, _lcdf, _lccdf, pareto_type_2_rng.
*/
#include <stdio.h>
#include "tm_cont_family.h"

/* Stan's check_greater_or_equal(y, low), low broadcast */
static int check_ge(const tm_dens *D, int iy, int ilo, const char *name) {
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, iy, j), lo = X(D, ilo, j);
    if (y >= lo) continue;
    char nm[96];
    if (D->inc[iy]) snprintf(nm, sizeof nm, "%s[%zu]", name, j + 1);
    else snprintf(nm, sizeof nm, "%s", name);
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than or equal to %.17g", D->fn, nm, y, lo);
  }
  return AD_OK;
}

/* pareto_type_2(y | mu, lambda, alpha) = alpha / lambda (1 + (y - mu) / lambda)^-(alpha + 1), y >= mu */
static int pareto_type_2_body(tm_dens *D, double *logp) {
  int rc = check_ge(D, 0, 1, "Random variable");
  if (rc) return rc;
  double lp = 0;
  int k_a = tm_dens_keep(D, B(3)), k_l = tm_dens_keep(D, B(2)), k_all = tm_dens_keep(D, 15u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), l = X(D, 2, j), a = X(D, 3, j);
    double l1 = log1p((y - mu) / l), inv_sum = 1 / (l + y - mu);
    if (k_a) lp += log(a);
    if (k_l) lp -= log(l);
    if (k_all) lp -= (a + 1) * l1;
    double g = inv_sum + a * inv_sum;          /* d / dmu; -d / dy */
    tm_dens_add(D, 0, j, -g);
    tm_dens_add(D, 1, j, g);
    tm_dens_add(D, 2, j, a * inv_sum * (y - mu) / l - inv_sum);
    tm_dens_add(D, 3, j, 1 / a - l1);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_pareto_type_2 = {4, {Y, LOC, SCALE, SHAPE},
  {{2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, 0, pareto_type_2_body, 0};

/* ---- pareto_type_2(y | mu, lambda, alpha): 1 - F = (1 + (y - mu) / lambda)^-alpha ---- */

/* the same check as the density's, for the cdf_def */
static int pareto_type_2_check(const tm_dens *D) { return check_ge(D, 0, 1, "Random variable"); }

static double pareto_type_2_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], l = x[2], a = x[3];
  if (isinf(y)) return upper ? -INFINITY : 0;
  double u = log1p((y - mu) / l);
  if (u == 0) return upper ? 0 : -INFINITY;
  double is = 1 / (l + y - mu);
  d[0] = -a * is;
  d[1] = a * is;
  d[2] = a * is * (y - mu) / l;
  d[3] = -u;
  double v = -a * u;
  return upper ? v : tm_cdf_complement(v, d, 4);
}

static const cdf_def d_pareto_type_2 = {4, 0, {Y, LOC, SCALE, SHAPE},
  {{0, CK_NOT_NAN}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}},
  pareto_type_2_e, pareto_type_2_check};

static int draw_pareto_type_2(tm_rng *r, const double *p, double *x) {
  *x = p[0] + p[1] * expm1(tm_rd_exponential(r) / p[2]);
  return 0;
}

static const rng_def D_pareto_type_2 = {"pareto_type_2_rng", 3, 0, draw_pareto_type_2,
  {LOC, SCALE, "Shape parameter"}, {CK_FINITE, CK_POS_FINITE, CK_POS_FINITE}};

CONT_FAMILY_TABLE(pareto_type_2, SIG4, R3)
