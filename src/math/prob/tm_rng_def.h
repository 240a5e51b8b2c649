/*
** tm_rng_def.h -- the univariate _rng kernel of tm_rng_fns.c, declared for
** a module of its own: a def names the function, its arguments' Stan names and
** checks, and a sampler of one draw; the kernel checks, broadcasts and
** draws once per element.
*/
#ifndef TM_RNG_DEF_H
#define TM_RNG_DEF_H
#include "../tm.h"
/* the argument checks (CK_*, the densities' kinds and the _rng kernel's
** own) and the argument names (LOC, SCALE ...) */
#include "tm_dens_def.h"

/* A sampler: params p[] (one per argument, broadcast), draw in *x.  It may
** fail, as Stan's neg_binomial_2_rng does when its gamma draw is too big. */
typedef int (*rng_draw)(tm_rng *r, const double *p, double *x);

typedef struct rng_def {
  const char *name;
  int nargs;
  int is_int;                      /* result int (TM_INT) rather than real */
  rng_draw draw;
  const char *argname[3];
  unsigned char check[3];
} rng_def;

/* The kernel: c->fn->data is an rng_def. */
int tm_rng_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);
/* A one-dimensional array of n elements of base (TM_INT or TM_REAL; rows
** inner elements each) in the arena. */
int tm_rng_new_array(tm_v *out, int base, int inner_rows, size_t n);

#define TM_POISSON_MAX_RATE 1073741824.0              /* 2^30, as Stan */

/* the signatures of the table rows: a real, or an array over the broadcast */
#define R1 "real(real); array[] real(reals)"
#define R2 "real(real, real); array[] real(reals, reals)"
#define R3 "real(real, real, real); array[] real(reals, reals, reals)"
#endif
