/*
** tm_dens_cont3.c -- univariate continuous densities: pareto_type_2,
** skew_double_exponential, loglogistic.
**
** Each is a tm_dens_def (tm_dens_def.h) run by the generic density kernel
** of tm_dens_cont.c, as in tm_dens_cont2.c: Stan's argument names and
** checks, a body summing the log density over the broadcast with the full
** partials; a term is added only when tm_dens_keep says an argument it
** depends on is not constant, as Stan's include_summand.
*/
#include <math.h>
#include <stdio.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_dens_def.h"

#define B(i) (1u << (i))
#define X(D, i, j) ((D)->x[i][(j) * (D)->inc[i]])

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

/* skew_double_exponential(y | mu, sigma, tau)
**   = 2 tau (1 - tau) / sigma exp(-2 / sigma [(1 - tau)(mu - y) if y < mu, tau (y - mu) else]) */
static int skew_double_exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_s = tm_dens_keep(D, B(2)), k_t = tm_dens_keep(D, B(3));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), s = X(D, 2, j), t = X(D, 3, j), d = y - mu;
    double w = d < 0 ? 1 - t : t, sg = d < 0 ? -1 : d > 0 ? 1 : 0;   /* weight of |y - mu| */
    double expo = w * fabs(d) / s;
    lp -= 2 * expo;
    if (k_c) lp += TM_LOG_2;
    if (k_s) lp -= log(s);
    if (k_t) lp += log(t) + log1p(-t);
    double g = d < 0 ? -2 * (1 - t) / s : d > 0 ? 2 * t / s : 0;   /* d / dmu, Stan's sign(0) = 0 */
    tm_dens_add(D, 0, j, -g);
    tm_dens_add(D, 1, j, g);
    tm_dens_add(D, 2, j, (2 * expo - 1) / s);
    tm_dens_add(D, 3, j, 1 / t - 1 / (1 - t) - sg * 2 * fabs(d) / s);
  }
  *logp = lp;
  return AD_OK;
}

/* loglogistic(y | alpha, beta) = (beta / alpha) (y / alpha)^(beta - 1) / (1 + (y / alpha)^beta)^2 */
static int loglogistic_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_ab = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), a = X(D, 1, j), b = X(D, 2, j);
    double ly = log(y), la = log(a), lr = ly - la, p = pow(y / a, b), q = p / (1 + p);
    lp += (b - 1) * ly - 2 * log1p(p);
    if (k_ab) lp += log(b) - la - (b - 1) * la;
    tm_dens_add(D, 0, j, (b - 1) / y - 2 * b * q / y);
    tm_dens_add(D, 1, j, -b / a + 2 * b * q / a);
    tm_dens_add(D, 2, j, 1 / b + lr - 2 * q * lr);
  }
  *logp = lp;
  return AD_OK;
}

#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"

static const tm_dens_def
  d_pareto_type_2 = {4, {Y, LOC, SCALE, SHAPE}, {{2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, 0, pareto_type_2_body, 0},
  d_skew_double_exponential = {4, {Y, LOC, SCALE, "Skewness parameter"},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_UNIT}}, 1, skew_double_exponential_body, 0},
  d_loglogistic = {3, {Y, SCALE, SHAPE}, {{0, CK_POS_FINITE}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0,
    loglogistic_body, 0};

const tm_fn tm_fns_dens_cont3[] = {
  {"pareto_type_2_lpdf", "real(reals, reals, reals, reals)", tm_dens_def_kernel, &d_pareto_type_2},
  {"skew_double_exponential_lpdf", "real(reals, reals, reals, reals)", tm_dens_def_kernel,
   &d_skew_double_exponential},
  {"loglogistic_lpdf", "real(reals, reals, reals)", tm_dens_def_kernel, &d_loglogistic},
  {NULL, NULL, NULL, NULL}
};
