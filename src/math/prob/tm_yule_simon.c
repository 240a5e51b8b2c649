/*
** tm_yule_simon.c -- the yule_simon family: yule_simon_lpmf (elementwise,
** tm_dens_elem.h), yule_simon_cdf, _lcdf and _lccdf (tm_cdf.h),
** yule_simon_rng (tm_rng_def.h).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_dens_elem.h"
#include "tm_mass_terms.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* ---- yule_simon(n | alpha) = alpha B(n, alpha + 1), n >= 1 ---- */

static int yule_simon_check(const tm_dens *D) {
  const tm_v *n = &D->a[0];
  size_t m = tm_is_scalar(n) ? 1 : tm_numel(n);
  for (size_t i = 0; i < m; i++)
    if (n->ival[i] < 1) {
      char nm[64];
      if (tm_is_scalar(n)) snprintf(nm, sizeof nm, "Outcome variable");
      else snprintf(nm, sizeof nm, "Outcome variable[%zu]", i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to 1", D->fn, nm, n->ival[i]);
    }
  return tm_check_positive_finite(D->fn, "Shape parameter", &D->a[1]);
}
static double yule_simon_term(elem *e) {
  double n = e->x[0], a = e->x[1], lp = 0;
  if (KEEP(e, 1u)) lp += tm_lgamma(n);
  if (KEEP(e, 2u)) lp += log(a) + tm_lgamma(a + 1) - tm_lgamma(n + a + 1);
  if (NEED(e, 1)) e->d[1] = 1 / a - digamma_diff_at(a + 1, n);
  return lp;
}
static const elem_def yule_simon_def = {
  2, 1u, {"Failures variable", "Shape parameter"}, yule_simon_check, yule_simon_term , NULL};

/* ---- yule_simon_cdf, _lcdf, _lccdf ---- */

/* yule_simon(n | alpha): 1 - F(n) = n B(n, alpha + 1) for n >= 1 */
static double yule_simon_e(const double *x, int upper, double *d) {
  double n = x[0], a = x[1];
  if (n < 1) return upper ? 0 : -INFINITY;
  double v = log(n) + tm_lbeta(n, a + 1);
  d[1] = tm_digamma(a + 1) - tm_digamma(n + a + 1);
  return upper ? v : tm_cdf_complement(v, d, 2);
}

static const cdf_def
  d_yule_simon = {2, 1u, {"Outcome variable", SHAPE}, {{1, CK_POS_FINITE}}, yule_simon_e, NULL};
/* ---- yule_simon_rng ---- */

/* w ~ exponential(alpha), then 1 + neg_binomial(1, p / (1 - p)), p = exp(-w) (Stan's) */
static int draw_yule_simon(tm_rng *r, const double *p, double *x) {
  double w = tm_rd_exponential(r) / p[0], odds = exp(-w - tm_log1m_exp(-w));
  if (!(odds > 0 && isfinite(odds)))
    return ad_fail(AD_EDOMAIN, "yule_simon_rng: Inverse scale parameter is %.17g, but must be positive finite!", odds);
  int rc = tm_rng_gamma_poisson(r, "yule_simon_rng", 1.0, 1 / odds, x);
  *x += 1;
  return rc;
}
static const rng_def D_yule_simon = {"yule_simon_rng", 1, 1, draw_yule_simon, {"Shape parameter"}, {CK_POS_FINITE}};

DISCRETE_FAMILY_TABLE(yule_simon, "real(ints, reals)", I1)
