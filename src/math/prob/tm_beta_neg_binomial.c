/*
** tm_beta_neg_binomial.c -- the beta_neg_binomial family:
** beta_neg_binomial_lpmf (elementwise, tm_dens_elem.h),
** beta_neg_binomial_cdf, _lcdf and _lccdf (tm_cdf.h), beta_neg_binomial_rng
** (tm_rng_def.h).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_dens_elem.h"
#include "tm_mass_terms.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* ---- beta_neg_binomial(n | r, alpha, beta)
**   = Gamma(n + beta) B(n + r, alpha + beta) / (n! Gamma(beta) B(r, alpha)) ---- */

static int beta_neg_binomial_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Failures variable", CK_NONNEG}, {"Number of successes parameter", CK_POS_FINITE},
                     {"Prior success parameter", CK_POS_FINITE}, {"Prior failure parameter", CK_POS_FINITE});
}
static double beta_neg_binomial_term(elem *e) {
  double n = e->x[0], r = e->x[1], a = e->x[2], b = e->x[3], lp = 0;
  if (KEEP(e, 1u)) lp -= tm_lfact(n);
  if (KEEP(e, 14u)) lp += tm_lbeta(n + r, a + b);
  if (KEEP(e, 6u)) lp -= tm_lbeta(r, a);
  if (KEEP(e, 8u)) lp += tm_lgamma(n + b) - tm_lgamma(b);
  if (e->need & 14u) {
    double dall = digamma_diff_at(r + a + b, n);          /* digamma(n + r + a + b) - digamma(r + a + b) */
    double dab = tm_digamma(r + a + b) - tm_digamma(a + b);
    /* d/dr: digamma(n + r) - digamma(n + r + a + b) - digamma(r) + digamma(r + a) */
    if (NEED(e, 1)) e->d[1] = digamma_diff_at(r, n) - dall - (tm_digamma(r + a + b) - tm_digamma(r + a));
    /* d/dalpha: digamma(a + b) - digamma(n + r + a + b) - digamma(a) + digamma(r + a) */
    if (NEED(e, 2)) e->d[2] = -dall - dab - tm_digamma(a) + tm_digamma(r + a);
    /* d/dbeta: digamma(a + b) - digamma(n + r + a + b) + digamma(n + b) - digamma(b) */
    if (NEED(e, 3)) e->d[3] = -dall - dab + digamma_diff_at(b, n);
  }
  return lp;
}
static const elem_def beta_neg_binomial_def = {
  4, 1u, {"Failures variable", "Number of successes parameter", "Prior success parameter", "Prior failure parameter"},
  beta_neg_binomial_check, beta_neg_binomial_term , NULL};

/* ---- beta_neg_binomial_cdf, _lcdf, _lccdf ---- */

/* beta_neg_binomial(n | r, alpha, beta): the sum of the masses to n,
** log p(k) = lbeta(k + r, alpha + beta) - lbeta(r, alpha) + lgamma(k + beta) - lgamma(k + 1) - lgamma(beta).
** Between exact evaluations every BNB_EXACT terms, log p(k + 1) - log p(k) =
** log((k + r)(k + beta) / ((k + 1)(k + r + alpha + beta))) and the digammas
** of the partials step by 1 / (x + k), so a long sum costs no special
** function per term. */
#define BNB_EXACT 32
static double beta_neg_binomial_e(const double *x, int upper, double *d) {
  double n = x[0], r = x[1], a = x[2], b = x[3];
  if (n < 0) return upper ? 0 : -INFINITY;
  double c0 = -tm_lbeta(r, a) - tm_lgamma(b), s_all = r + a + b;
  double dr0 = -tm_digamma(r) + tm_digamma(r + a), da0 = -tm_digamma(a) + tm_digamma(r + a) + tm_digamma(a + b);
  double db0 = tm_digamma(a + b) - tm_digamma(b);
  double m = -INFINITY, s = 0, gr = 0, ga = 0, gb = 0;
  double lp = 0, psr = 0, psall = 0, psb = 0;   /* log p(k); digamma(k + r), (k + r + a + b), (k + b) */
  for (double k = 0; k <= n; k++) {
    if (fmod(k, BNB_EXACT) == 0) {
      lp = tm_lbeta(k + r, a + b) + tm_lgamma(k + b) - tm_lfact(k) + c0;
      psr = tm_digamma(k + r); psall = tm_digamma(k + s_all); psb = tm_digamma(k + b);
    }
    double pr = psr - psall + dr0, pa = -psall + da0, pb = psb - psall + db0;
    if (lp > m) { double q = exp(m - lp); s *= q; gr *= q; ga *= q; gb *= q; m = lp; }
    double w = exp(lp - m);
    s += w; gr += w * pr; ga += w * pa; gb += w * pb;
    lp += log((k + r) * (k + b) / ((k + 1) * (k + s_all)));
    psr += 1 / (k + r); psall += 1 / (k + s_all); psb += 1 / (k + b);
  }
  double v = m + log(s);
  if (v > 0) v = 0;
  d[1] = gr / s;
  d[2] = ga / s;
  d[3] = gb / s;
  return upper ? tm_cdf_complement(v, d, 4) : v;
}

static const cdf_def
  d_beta_neg_binomial = {4, 1u, {"Failures variable", "Number of successes parameter", "Prior success parameter",
    "Prior failure parameter"}, {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}},
    beta_neg_binomial_e, NULL};
/* ---- beta_neg_binomial_rng ---- */

/* p ~ beta(alpha, beta), then neg_binomial(r, p / (1 - p)) as gamma-poisson */
static int draw_beta_neg_binomial(tm_rng *r, const double *p, double *x) {
  double q = tm_rd_beta(r, p[1], p[2]), odds = exp(log(q) - log1p(-q));
  if (!(odds > 0 && isfinite(odds)))
    return ad_fail(AD_EDOMAIN, "beta_neg_binomial_rng: Inverse scale parameter is %.17g, but must be positive finite!",
                   odds);
  return tm_rng_gamma_poisson(r, "beta_neg_binomial_rng", p[0], 1 / odds, x);
}
static const rng_def D_beta_neg_binomial = {"beta_neg_binomial_rng", 3, 1, draw_beta_neg_binomial,
  {"Number of successes parameter", "Prior success parameter", "Prior failure parameter"},
  {CK_POS_FINITE, CK_POS_FINITE, CK_POS_FINITE}};

DISCRETE_FAMILY_TABLE(beta_neg_binomial, "real(ints, reals, reals, reals)", I3)
