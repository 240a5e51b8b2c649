/*
** tm_poisson.c -- the poisson family: poisson_lpmf and poisson_log_lpmf
** (elementwise masses, tm_dens_elem.h), poisson_cdf, _lcdf and _lccdf
** (tm_cdf.h), poisson_rng and poisson_log_rng (tm_rng_def.h).
** poisson_log_glm is with the GLMs (tm_glm.c).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"
#include "tm_mass_terms.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* Full masses of large counts.  Stan's n log(lambda) - lambda - lgamma(n + 1)
** adds terms of size n log n that cancel to a result of size log n, losing
** about log10(n) digits (1e-10 absolute at n = 1e6).  When propto keeps
** every term, poisson and binomial use Loader's saddle-point form instead
** (as R's dpois and dbinom do): the Stirling remainder and the deviance
** bd0 carry the cancellation analytically.  Poisson counts below
** TM_LFACT_N keep Stan's form (at most 2.5 digits lost there, as Stan
** does), with lgamma(n + 1) from a table: the saddle point costs several
** logarithms and a series per observation. */

/* tm_stirlerr and tm_bd0 (tm_special_dist.c) are the pieces. */

/* log Poisson(n | lambda), n >= 1, 0 < lambda < inf */
static double poisson_saddle(double n, double lam) {
  return -tm_stirlerr(n) - tm_bd0(n, lam) - 0.5 * (TM_LOG_2PI + log(n));
}

/* Stan's form n log(lambda) - lambda - lgamma(n + 1) of poisson and
** poisson_log (each computes n log(lambda) its way), the terms propto keeps */
static double poisson_terms(const elem *e, double n, double n_log_rate, double rate) {
  double lp = 0;
  if (KEEP(e, 3u)) lp += n_log_rate;
  if (KEEP(e, 2u)) lp -= rate;
  if (KEEP(e, 1u)) lp -= tm_lfact(n);
  return lp;
}

/* poisson_lpmf(n | lambda) */
static int poisson_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Random variable", CK_NONNEG}, {"Rate parameter", CK_NONNEG});
}
static double poisson_term(elem *e) {
  double n = e->x[0], lam = e->x[1];
  e->d[1] = 0;
  /* Stan: an infinite rate, or a zero rate with a count, is log(0) */
  if (isinf(lam) || (lam == 0 && n != 0)) return -INFINITY;
  /* Stan's n / lambda - 1 is 0/0 at lambda = 0; the limit is -1 */
  e->d[1] = n == 0 ? -1 : n / lam - 1;
  if (KEEP(e, 3u) == 3u && n >= TM_LFACT_N) return poisson_saddle(n, lam);
  return poisson_terms(e, n, multiply_log(n, lam), lam);
}
static const elem_def poisson_def = {
  2, 1u, {"Random variable", "Rate parameter"}, poisson_check, poisson_term , NULL};

/* poisson_log_lpmf(n | alpha) */
static int poisson_log_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Random variable", CK_NONNEG}, {"Log rate parameter", CK_NOT_NAN});
}
static double poisson_log_term(elem *e) {
  double n = e->x[0], al = e->x[1];
  e->d[1] = 0;
  if (al == INFINITY) return -INFINITY;
  /* rate 0: Stan's n * alpha would be 0 * -inf = NaN for n = 0, whose mass is 1 */
  if (al == -INFINITY) return n != 0 ? -INFINITY : 0;
  double ea = exp(al);
  e->d[1] = n - ea;
  if (KEEP(e, 3u) == 3u && n >= TM_LFACT_N && ea > 0 && isfinite(ea)) return poisson_saddle(n, ea);
  return poisson_terms(e, n, n * al, ea);
}
/* the kernel runs it on vector rows when it can (tm_dens_elem.c) */
const elem_def tm_dens_elem_poisson_log = {
  2, 1u, {"Random variable", "Log rate parameter"}, poisson_log_check, poisson_log_term , NULL};

/* ---- poisson_cdf, _lcdf, _lccdf ---- */

/* F(n) = Q(n + 1, lambda); dF / dlambda = -Poisson(n | lambda) */
static double poisson_e(const double *x, int upper, double *d) {
  double n = x[0], lam = x[1], lp, lq;
  if (n < 0) return upper ? 0 : -INFINITY;
  tm_log_gamma_pq(n + 1, lam, &lp, &lq);
  double v = upper ? lp : lq;
  if (isfinite(v)) {
    double g = exp(tm_log_dpois(n, lam) - v);
    d[1] = upper ? g : -g;
  }
  return v;
}

static const cdf_def
  d_poisson = {2, 1u, {Y, "Rate parameter"}, {{1, CK_NONNEG}}, poisson_e, NULL};
/* ---- poisson_rng, poisson_log_rng ---- */

static int draw_poisson(tm_rng *r, const double *p, double *x) { *x = tm_rd_poisson(r, p[0]); return 0; }
static int draw_poisson_log(tm_rng *r, const double *p, double *x) { *x = tm_rd_poisson(r, exp(p[0])); return 0; }
static const rng_def D_poisson = {"poisson_rng", 1, 1, draw_poisson, {"Rate parameter"}, {CK_RATE}};
static const rng_def D_poisson_log = {"poisson_log_rng", 1, 1, draw_poisson_log, {"Log rate parameter"}, {CK_LOG_RATE}};

DISCRETE_LINK_FAMILY_TABLE(poisson, log, "real(ints, reals)", I1)
