/*
** tm_discrete_range.c -- the discrete_range family: discrete_range_lpmf
** (elementwise, tm_dens_elem.h), discrete_range_cdf, _lcdf and _lccdf
** (tm_cdf.h; the mass and the cdfs check their arguments alike),
** discrete_range_rng (tm_rng_def.h).
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
#include "tm_rng_dist.h"

/* ---- discrete_range(y | lower, upper) ---- */

static int discrete_range_check(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++) {
    int lo = tm_geti(&D->a[1], j), hi = tm_geti(&D->a[2], j);
    if (hi < lo) {
      char name[64];
      tm_dens_elem_name(name, sizeof name, "Upper bound parameter", &D->a[2], j);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to %d", D->fn, name, hi, lo);
    }
  }
  return AD_OK;
}
static double discrete_range_term(elem *e) {
  double y = e->x[0], lo = e->x[1], hi = e->x[2];
  if (y < lo || y > hi) return -INFINITY;
  return -log(hi - lo + 1);
}
static const elem_def discrete_range_def = {
  3, 7u, {"Random variable", "Lower bound parameter", "Upper bound parameter"}, discrete_range_check,
  discrete_range_term , NULL};

/* ---- discrete_range_cdf, _lcdf, _lccdf ---- */

/* discrete_range(y | lower, upper): (y - lower + 1) / (upper - lower + 1) */
static double discrete_range_e(const double *x, int upper, double *d) {
  (void)d;
  double y = x[0], lo = x[1], hi = x[2];
  if (y < lo) return upper ? 0 : -INFINITY;
  if (y >= hi) return upper ? -INFINITY : 0;
  return upper ? log((hi - y) / (hi - lo + 1)) : log((y - lo + 1) / (hi - lo + 1));
}

static const cdf_def
  d_discrete_range = {3, 7u, {Y, "Lower bound parameter", "Upper bound parameter"}, {{0, CK_END}},
    discrete_range_e, discrete_range_check};
/* ---- discrete_range_rng ---- */

static int draw_discrete_range(tm_rng *r, const double *p, double *x) {
  double width = p[1] - p[0] + 1.0;
  *x = p[0] + fmin(floor(tm_rng_uniform(r) * width), width - 1.0);
  return 0;
}
static const rng_def D_discrete_range = {"discrete_range_rng", 2, 1, draw_discrete_range,
  {"Lower bound parameter", "Upper bound parameter"}, {CK_NONE, CK_GE_PREV}};

DISCRETE_FAMILY_TABLE(discrete_range, "real(ints, ints, ints)", II)
