/*
** tm_cont_family.h -- what a continuous univariate family's file
** (tm_<family>.c) builds on: the three engines (a tm_dens_def for its _lpdf,
** a cdf_def for its cdfs, an rng_def for its _rng), the helpers of their
** bodies, the three defs of the location-scale and the shape-scale families
** (Stan's checks) and their _rng by a standard draw, and the table of a
** family with Stan's usual five functions.
*/
#ifndef TM_CONT_FAMILY_H
#define TM_CONT_FAMILY_H
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_body.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* The defs of a location-scale family (y, mu, sigma) with Stan's checks in
** its order: y by the kind y_check, mu finite, sigma positive and finite.
** late: the def's late_checks. */
#define LOC_SCALE_DENS_DEF(y_check, late, body) \
  {3, {Y, LOC, SCALE}, {{0, y_check}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, late, body, 0}
#define LOC_SCALE_CDF_DEF(y_check, f) \
  {3, 0, {Y, LOC, SCALE}, {{0, y_check}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, f, NULL}
#define LOC_SCALE_RNG_DEF(rng_name, draw) \
  {rng_name, 2, 0, draw, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}}

/* The _rng of a location-scale family: mu + sigma times a draw of the
** family's standard form (mu 0, sigma 1) by std_draw(r); defines draw_<name>
** and the rng_def D_<name> that CONT_FAMILY_TABLE names. */
#define LOC_SCALE_RNG(name, std_draw) \
  static int draw_##name(tm_rng *r, const double *p, double *x) { \
    *x = p[0] + p[1] * std_draw(r); \
    return 0; \
  } \
  static const rng_def D_##name = LOC_SCALE_RNG_DEF(#name "_rng", draw_##name);

/* The defs of a family of y with a shape and a scale (or inverse scale)
** parameter, each positive and finite: name1 and name2 are Stan's names of
** the two in the family's order (pareto's is scale, shape). */
#define SHAPE_SCALE_DENS_DEF(name1, name2, y_check, body) \
  {3, {Y, name1, name2}, {{0, y_check}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, body, 0}
#define SHAPE_SCALE_CDF_DEF(name1, name2, y_check, f) \
  {3, 0, {Y, name1, name2}, {{0, y_check}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, f, NULL}
#define SHAPE_SCALE_RNG_DEF(rng_name, draw, name1, name2) \
  {rng_name, 2, 0, draw, {name1, name2}, {CK_POS_FINITE, CK_POS_FINITE}}

/* The _rng of a power-ratio family (weibull: sign 1, frechet: -1; their
** cdfs' power_ratio_partials): u = (y / sigma)^(sign alpha) is a standard
** exponential E, so y = sigma E^(sign / alpha), by inversion.  Defines
** draw_<name> and the rng_def D_<name> (a shape alpha, a scale sigma). */
#define POWER_RATIO_RNG(name, sign) \
  static int draw_##name(tm_rng *r, const double *p, double *x) { \
    *x = p[1] * pow(tm_rd_exponential(r), (sign) / p[0]); \
    return 0; \
  } \
  static const rng_def D_##name = SHAPE_SCALE_RNG_DEF(#name "_rng", draw_##name, SHAPE, SCALE);

/* The table of a family with the usual five functions (FAMILY_TABLE,
** tm_cdf.h), its _lpdf the tm_dens_def dens_<name>. */
#define CONT_FAMILY_TABLE(name, sig, rsig) \
  FAMILY_TABLE(name, "_lpdf", tm_dens_def_kernel, dens_##name, sig, rsig)
#endif
