/*
** tm_beta.c -- the beta distribution and its mean-precision form:
** beta_lpdf, beta_proportion_lpdf, beta_cdf, _lcdf, _lccdf,
** beta_proportion_lcdf, beta_proportion_lccdf, beta_rng, beta_proportion_rng.
*/
#include <stdio.h>
#include "tm_cont_family.h"

/* beta(y | alpha, beta) */
static int beta_body(tm_dens *D, double *logp) {
  double lp = 0, *dga, *dgb;
  if (ad_digamma(D, 1, &dga) || ad_digamma(D, 2, &dgb)) return AD_EMEMORY;
  pair_keep keep = keep_pairs(D);
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), b = at(D, 2, j);
    double log_y = log(y), log1m_y = tm_log1m(y);
    if (keep.ya) lp += (a - 1) * log_y;
    if (keep.yb) lp += (b - 1) * log1m_y;
    if (keep.ab) lp += tm_lgamma(a + b);
    tm_dens_add(D, 0, j, (a - 1) / y + (b - 1) / (y - 1));
    if (dga || dgb) {
      double dab = tm_digamma(a + b);
      if (dga) tm_dens_add(D, 1, j, log_y + dab - dga[idx(D, 1, j)]);
      if (dgb) tm_dens_add(D, 2, j, log1m_y + dab - dgb[idx(D, 2, j)]);
    }
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, neg_lgamma, &lp);
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_lgamma, &lp);
  *logp = lp;
  return AD_OK;
}

/* Stan's check that the mean mu is below 1 (the checks of the def bound it
** below); the density's and the cdfs' */
static int beta_proportion_check(const tm_dens *D) {
  size_t m = D->inc[1] ? D->n : 1;
  for (size_t k = 0; k < m; k++) {
    double mu = D->x[1][k];
    if (!(mu < 1)) {
      char where[32] = "";
      if (D->inc[1]) snprintf(where, sizeof where, "[%zu]", k + 1);
      return ad_fail(AD_EDOMAIN, "%s: Location parameter%s is %.17g, but must be less than 1", D->fn, where, mu);
    }
  }
  return AD_OK;
}

/* beta_proportion(y | mu, kappa) = beta(y | mu kappa, (1 - mu) kappa) */
static int beta_proportion_body(tm_dens *D, double *logp) {
  int rc = beta_proportion_check(D);
  if (rc) return rc;
  double lp = 0;
  int k_k = tm_dens_keep(D, B(2)), k_mk = tm_dens_keep(D, B(1) | B(2)), k_all = tm_dens_keep(D, 7u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), kap = X(D, 2, j), a = mu * kap, b = (1 - mu) * kap;
    double ly = log(y), l1y = log1p(-y);
    if (k_k) lp += tm_lgamma(kap);
    if (k_mk) lp -= tm_lgamma(a) + tm_lgamma(b);
    if (k_all) lp += (a - 1) * ly + (b - 1) * l1y;
    tm_dens_add(D, 0, j, (a - 1) / y - (b - 1) / (1 - y));
    if (D->d[1] || D->d[2]) {
      double da = tm_digamma(a), db = tm_digamma(b);
      tm_dens_add(D, 1, j, kap * (db - da + ly - l1y));
      tm_dens_add(D, 2, j, tm_digamma(kap) - mu * da - (1 - mu) * db + mu * ly + (1 - mu) * l1y);
    }
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_beta = {3, {Y, "First shape parameter", "Second shape parameter"},
  {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}, {0, CK_UNIT}}, 0, beta_body, 0};
static const tm_dens_def dens_beta_proportion = {3, {Y, LOC, "Precision parameter"},
  {{1, CK_POS}, {2, CK_POS_FINITE}, {0, CK_UNIT}}, 0, beta_proportion_body, 0};

/* beta(y | alpha, beta): I_y(alpha, beta) */
static double beta_e(const double *x, int upper, double *d) {
  double li, lj, g[6];
  tm_log_inc_beta_grad(x[1], x[2], x[0], 1 - x[0], &li, &lj, g);
  double v = upper ? lj : li;
  if (isfinite(v)) {
    d[0] = upper ? g[5] : g[4];
    d[1] = upper ? g[2] : g[0];
    d[2] = upper ? g[3] : g[1];
  }
  return v;
}

/* ---- beta_proportion(y | mu, kappa) = beta(y | mu kappa, (1 - mu) kappa) ---- */

static double beta_proportion_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], k = x[2], li, lj, g[6];
  tm_log_inc_beta_grad(mu * k, (1 - mu) * k, y, 1 - y, &li, &lj, g);
  double v = upper ? lj : li;
  if (isfinite(v)) {
    double ga = upper ? g[2] : g[0], gb = upper ? g[3] : g[1];
    d[0] = upper ? g[5] : g[4];
    d[1] = k * (ga - gb);
    d[2] = mu * ga + (1 - mu) * gb;
  }
  return v;
}

static const cdf_def d_beta = {3, 0, {Y, "First shape parameter", "Second shape parameter"},
  {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}, {0, CK_UNIT}}, beta_e, NULL};
static const cdf_def d_beta_proportion = {3, 0, {Y, LOC, "Precision parameter"},
  {{1, CK_POS}, {2, CK_POS_FINITE}, {0, CK_UNIT}},
  beta_proportion_e, beta_proportion_check};
MODES(beta)
static const cdf_fn f_beta_proportion_lcdf = {&d_beta_proportion, M_LCDF},
  f_beta_proportion_lccdf = {&d_beta_proportion, M_LCCDF};

static int draw_beta(tm_rng *r, const double *p, double *x) { *x = tm_rd_beta(r, p[0], p[1]); return 0; }

static int draw_beta_proportion(tm_rng *r, const double *p, double *x) {
  *x = tm_rd_beta(r, p[0] * p[1], (1.0 - p[0]) * p[1]);
  return 0;
}

static const rng_def D_beta = {"beta_rng", 2, 0, draw_beta,
  {"First shape parameter", "Second shape parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_beta_proportion = {"beta_proportion_rng", 2, 0, draw_beta_proportion,
  {LOC, "Precision parameter"}, {CK_UNIT_OPEN, CK_POS_FINITE}};

const tm_fn tm_fns_beta[] = {
  {"beta_lpdf",               SIG3, tm_dens_def_kernel, &dens_beta},
  {"beta_proportion_lpdf", SIG3, tm_dens_def_kernel, &dens_beta_proportion},
  ENTRIES(beta, SIG3),
  {"beta_proportion_lcdf", SIG3, tm_cdf_kernel, &f_beta_proportion_lcdf},
  {"beta_proportion_lccdf", SIG3, tm_cdf_kernel, &f_beta_proportion_lccdf},
  {"beta_rng", R2, tm_rng_kernel, &D_beta},
  {"beta_proportion_rng", R2, tm_rng_kernel, &D_beta_proportion},
  {NULL, NULL, NULL, NULL}
};
