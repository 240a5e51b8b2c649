/*
** tm_beta_binomial.c -- the beta_binomial family: beta_binomial_lpmf
** (elementwise, tm_dens_elem.h), beta_binomial_cdf, _lcdf and _lccdf
** (tm_cdf.h; the mass and the cdfs check their arguments alike),
** beta_binomial_rng (tm_rng_def.h).
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

/* ---- beta_binomial(n | N, alpha, beta) ---- */

static int beta_binomial_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Successes variable", CK_NONE}, {"Population size parameter", CK_NONNEG},
                     {"First prior sample size parameter", CK_POS_FINITE},
                     {"Second prior sample size parameter", CK_POS_FINITE});
}
static double beta_binomial_term(elem *e) {
  double n = e->x[0], N = e->x[1], a = e->x[2], b = e->x[3], lp = 0;
  e->d[2] = e->d[3] = 0;
  if (n < 0 || n > N) return -INFINITY;       /* Stan: LOG_ZERO */
  if (KEEP(e, 3u)) lp += tm_lchoose(N, n);
  if (KEEP(e, 12u)) lp += tm_lbeta(n + a, N - n + b) - tm_lbeta(a, b);
  if (e->need & 12u) {
    double dab = digamma_diff_at(a + b, N);      /* digamma(N + a + b) - digamma(a + b) */
    e->d[2] = digamma_diff_at(a, n) - dab;
    e->d[3] = digamma_diff_at(b, N - n) - dab;
  }
  return lp;
}
static const elem_def beta_binomial_def = {
  4, 3u, {"Successes variable", "Population size parameter", "First prior sample size parameter",
          "Second prior sample size parameter"}, beta_binomial_check, beta_binomial_term , NULL};

/* ---- beta_binomial_cdf, _lcdf, _lccdf ---- */

/* beta_binomial(n | N, alpha, beta): the masses of the side asked for,
** log p(k) = lchoose(N, k) + lbeta(k + alpha, N - k + beta) - lbeta(alpha, beta) */
static double beta_binomial_e(const double *x, int upper, double *d) {
  double n = x[0], N = x[1], a = x[2], b = x[3];
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n >= N) return upper ? -INFINITY : 0;
  double lo = upper ? n + 1 : 0, hi = upper ? N : n;
  double lab = tm_lbeta(a, b), dab = tm_digamma(N + a + b) - tm_digamma(a + b);
  double da0 = tm_digamma(a), db0 = tm_digamma(b);
  /* weighted by exp(lp - m): m the running maximum */
  double m = -INFINITY, s = 0, ga = 0, gb = 0;
  for (double k = lo; k <= hi; k++) {
    double lp = tm_lchoose(N, k) + tm_lbeta(k + a, N - k + b) - lab;
    double pa = tm_digamma(k + a) - da0 - dab, pb = tm_digamma(N - k + b) - db0 - dab;
    if (lp > m) { double r = exp(m - lp); s *= r; ga *= r; gb *= r; m = lp; }
    double w = exp(lp - m);
    s += w; ga += w * pa; gb += w * pb;
  }
  d[2] = ga / s;
  d[3] = gb / s;
  return m + log(s);
}

static const cdf_def
  d_beta_binomial = {4, 3u, {"Successes variable", "Population size parameter", "First prior sample size parameter",
    "Second prior sample size parameter"}, {{0, CK_END}}, beta_binomial_e, beta_binomial_check};
/* ---- beta_binomial_rng ---- */

static int draw_beta_binomial(tm_rng *r, const double *p, double *x) {
  *x = tm_rd_binomial(r, (int)p[0], tm_rd_beta(r, p[1], p[2]));
  return 0;
}
static const rng_def D_beta_binomial = {"beta_binomial_rng", 3, 1, draw_beta_binomial,
  {"Population size parameter", "First prior sample size parameter", "Second prior sample size parameter"},
  {CK_NONNEG, CK_POS_FINITE, CK_POS_FINITE}};

DISCRETE_FAMILY_TABLE(beta_binomial, "real(ints, ints, reals, reals)", IN2)
