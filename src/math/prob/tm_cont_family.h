/*
** tm_cont_family.h -- what a continuous univariate family's file
** (tm_<family>.c) builds on: the three engines (a tm_dens_def for its _lpdf,
** a cdf_def for its cdfs, an rng_def for its _rng), the helpers of their
** bodies, and the table of a family with Stan's usual five functions.
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

/* The table tm_fns_<name> of a family with the usual five functions:
** <name>_lpdf (the tm_dens_def dens_<name>), _lcdf, _lccdf and _cdf (the
** cdf_def d_<name>), all with signature sig, and <name>_rng (the rng_def
** D_<name>) with signature rsig. */
#define CONT_FAMILY_TABLE(name, sig, rsig) \
  MODES(name) \
  const tm_fn tm_fns_##name[] = { \
    {#name "_lpdf", sig, tm_dens_def_kernel, &dens_##name}, \
    ENTRIES(name, sig), \
    {#name "_rng", rsig, tm_rng_kernel, &D_##name}, \
    {NULL, NULL, NULL, NULL} \
  };
#endif
