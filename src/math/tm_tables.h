/*
** tm_tables.h -- the function tables of the math modules.
** Each module defines one table ending with an entry whose name is NULL;
** tm_table.c merges them.  A new module adds its table here and there.
*/
#ifndef TM_TABLES_H
#define TM_TABLES_H
#include "tm.h"
extern const tm_fn tm_fns_scalar[];      /* tm_scalar.c: elementwise functions and operators */
extern const tm_fn tm_fns_container[];   /* tm_container.c: reductions, builders, slices */
extern const tm_fn tm_fns_matrix[];      /* tm_matrix.c: linear algebra */
extern const tm_fn tm_fns_dens_cont[];   /* tm_dens_cont.c: univariate continuous densities */
extern const tm_fn tm_fns_dens_disc[];   /* tm_dens_disc.c: discrete masses */
extern const tm_fn tm_fns_dens_multi[];  /* tm_dens_multi.c: multivariate densities */
extern const tm_fn tm_fns_rng[];         /* tm_rng_fns.c: _rng functions */
#endif
