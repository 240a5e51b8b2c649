/*
** tm_rng_def.h -- the univariate _rng kernel of tm_rng_def.c, declared for
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

/* The first checks of every _rng function (the kernel's and those with
** kernels of their own): the call has a generator, and want arguments. */
int tm_rng_begin(const tm_call *c, const char *fn, int nargs, int want);
/* A gamma-poisson mixture draw, with Stan's check on the intermediate gamma
** draw (tm_rng_def.c; the neg_binomials, beta_neg_binomial, yule_simon) */
int tm_rng_gamma_poisson(tm_rng *r, const char *fn, double shape, double scale, double *x);
/* multinomial_rng's kernel (tm_multinomial.c); c->fn->data NULL or an int:
** 1 multinomial_logit_rng, 2 dirichlet_multinomial_rng */
int tm_multinomial_rng_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

/* the signatures of the table rows: a real, or an array over the broadcast */
#define R1 "real(real); array[] real(reals)"
#define R2 "real(real, real); array[] real(reals, reals)"
#define R3 "real(real, real, real); array[] real(reals, reals, reals)"
#define I1 "int(real); array[] int(reals)"
#define I2 "int(real, real); array[] int(reals, reals)"
#define IN "int(int, real); array[] int(ints, reals)"
#define IN2 "int(int, real, real); array[] int(ints, reals, reals)"
#define II "int(int, int); array[] int(ints, ints)"
#define MVN "vector(vector, matrix); vector(row_vector, matrix); " \
  "array[] vector(array[] vector, matrix); array[] vector(array[] row_vector, matrix)"
#define I3 "int(real, real, real); array[] int(reals, reals, reals)"
#endif
