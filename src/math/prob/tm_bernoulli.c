/*
** tm_bernoulli.c -- the bernoulli family: bernoulli_lpmf and
** bernoulli_logit_lpmf (elementwise masses, tm_dens_elem.h), bernoulli_cdf,
** _lcdf and _lccdf (tm_cdf.h), bernoulli_rng and bernoulli_logit_rng
** (tm_rng_def.h).  bernoulli_logit_glm is with the GLMs (tm_glm.c).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_dens_elem.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "../tm_simd.h"

/* bernoulli_lpmf(n | theta) */
static int bernoulli_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"n", CK_UNIT}, {"Probability parameter", CK_UNIT});
}
static double bernoulli_term(elem *e) {
  double th = e->x[1];
  if (e->x[0] == 1) { e->d[1] = 1 / th; return log(th); }
  e->d[1] = 1 / (th - 1);
  return log1p(-th);
}
static const elem_def bernoulli_def = {
  2, 1u, {"Random variable", "Probability parameter"}, bernoulli_check, bernoulli_term , NULL};

/* bernoulli_logit_lpmf(n | alpha).  Stan switches to -exp(-x) and x beyond
** |x| > 20; log_inv_logit is exact everywhere and costs the same. */
static int bernoulli_logit_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"n", CK_UNIT}, {"Logit transformed probability parameter", CK_NOT_NAN});
}
/* log inv_logit(s x), s = 2 n - 1, and its derivative s inv_logit(-s x)
** from one exp, with the exp and log1p of the vector kernels: a loop of
** these run as lanes (src/plan) or the vector form keeps the bits */
static double bernoulli_logit_term(elem *e) { return tm_bernoulli_logit1((int)e->x[0], e->x[1], &e->d[1]); }
/* the kernel runs it on vector rows when it can (tm_dens_elem.c) */
const elem_def tm_dens_elem_bernoulli_logit = {
  2, 1u, {"Random variable", "Probability parameter"}, bernoulli_logit_check, bernoulli_logit_term,
  tm_block_bernoulli_logit };

/* ---- bernoulli_cdf, _lcdf, _lccdf ---- */

static double bernoulli_e(const double *x, int upper, double *d) {
  double n = x[0], th = x[1];
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n >= 1) return upper ? -INFINITY : 0;
  if (upper) { d[1] = 1 / th; return log(th); }
  d[1] = -1 / (1 - th);
  return log1p(-th);
}

static const cdf_def
  d_bernoulli = {2, 1u, {Y, "Probability parameter"}, {{1, CK_UNIT}}, bernoulli_e, NULL};
/* ---- bernoulli_rng, bernoulli_logit_rng ---- */

static int draw_bernoulli(tm_rng *r, const double *p, double *x) { *x = tm_rng_uniform(r) < p[0]; return 0; }
static int draw_bernoulli_logit(tm_rng *r, const double *p, double *x) {
  *x = tm_rng_uniform(r) < tm_inv_logit(p[0]);
  return 0;
}
static const rng_def D_bernoulli = {"bernoulli_rng", 1, 1, draw_bernoulli, {"Probability parameter"}, {CK_PROB}};
static const rng_def D_bernoulli_logit = {"bernoulli_logit_rng", 1, 1, draw_bernoulli_logit,
  {"Logit transformed probability parameter"}, {CK_FINITE}};

DISCRETE_LINK_FAMILY_TABLE(bernoulli, logit, "real(ints, reals)", I1)
