/*
** tm_rng_def.h -- the univariate _rng kernel of tm_rng_fns.c, declared for
** a module of its own: a def names the function, its arguments' Stan names and
** checks, and a sampler of one draw; the kernel checks, broadcasts and
** draws once per element.
*/
#ifndef TM_RNG_DEF_H
#define TM_RNG_DEF_H
#include "../tm.h"

/* ---- argument checks (these CK_ names are not tm_dens_def.h's: a file
** includes one of the two headers, never both) ---- */
enum {
  CK_NONE, CK_FINITE, CK_POS_FINITE, CK_POSITIVE, CK_NONNEG, CK_NOT_NAN,
  CK_PROB,        /* finite and in [0, 1] */
  CK_RATE,        /* nonnegative and below 2^30 (poisson_rng) */
  CK_LOG_RATE,    /* not NaN and below 30 log 2 (poisson_log_rng) */
  CK_ABOVE_PREV,  /* finite and greater than the previous argument (uniform_rng) */
  CK_GE_PREV,     /* at least the previous argument (discrete_range_rng) */
  CK_UNIT_OPEN,   /* in (0, 1) (beta_proportion_rng) */
  CK_UNIT,        /* in [0, 1] (skew_double_exponential_rng) */
  CK_NONNEG_FINITE  /* nonnegative, then finite (von_mises_rng) */
};

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
#endif
