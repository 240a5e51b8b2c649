/*
** tm_dens_elem.h -- the elementwise masses: a mass is a description
** (argument names, which arguments are ints, a check, and a function of one
** element returning its log mass and partials) run by one kernel
** (tm_dens_elem.c) over the broadcast.  Used by the discrete families'
** files (tm_bernoulli.c, tm_poisson.c, ...) and src/plan.
*/
#ifndef TM_DENS_ELEM_H
#define TM_DENS_ELEM_H
#include "../tm.h"

/* One element: argument values in, log mass and wanted partials out. */
typedef struct elem {
  double x[4];      /* the arguments' values at this element */
  unsigned keep;    /* bit i: keep terms that depend on argument i */
  unsigned need;    /* bit i: write d[i], the partial in argument i */
  double d[4];
} elem;
#define KEEP(e, mask) ((e)->keep & (mask))
#define NEED(e, i) ((e)->need >> (i) & 1u)

typedef struct elem_def {
  int nargs;
  unsigned ints;                    /* bit i: argument i is an int outcome or size */
  const char *names[4];             /* Stan's names, for size messages */
  int (*check)(const tm_dens *D);
  double (*term)(elem *e);
  /* optional, for a mass of an int outcome and one real argument whose
  ** term is kept: lp[i] and d[i] (the partial in the real argument) of n
  ** elements at once, bit for bit what term gives each (a loop of the
  ** scalar mass run as lanes calls it, src/plan/pl_lanes.c) */
  void (*terms)(const int *y, const double *x, double *lp, double *d, size_t n);
} elem_def;

/* The kernel (tm_dens_elem.c): c->fn->data is an elem_def. */
int tm_dens_elem_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

/* The two masses the kernel runs on the vector rows of tm_simd.h when it
** can (tm_bernoulli.c, tm_poisson.c) */
extern const elem_def tm_dens_elem_bernoulli_logit, tm_dens_elem_poisson_log;

/* Stan's check_simplex (tm_dens_elem.c): non-empty, sums to 1 within 1e-8,
** no negative element; messages as Stan's. */
int tm_dens_check_simplex(const char *fn, const char *arg, const tm_v *v);
/* the same, the sum and a negative element printed to these digits (%.*g),
** as the Stan function asking prints them (categorical_rng: 10 and 17) */
int tm_dens_check_simplex_digits(const char *fn, const char *arg, const tm_v *v, int sum_digits,
                                 int elem_digits);

/* Checks the masses share (tm_dens_elem.c).  The name of element i of
** argument v in a message: "n" or "n[3]". */
void tm_dens_elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i);
/* Every element of int argument v in [lo, hi], where hi may vary by element
** (hiv, broadcast over n like the density's arguments; NULL: hi). */
int tm_dens_check_int_bounds(const char *fn, const char *arg, const tm_v *v, size_t n,
                             int lo, const tm_v *hiv, int hi);
/* fails: arg "must be an int or an array of ints" */
int tm_dens_not_int(const char *fn, const char *arg);

/* A mass's argument checks as data: element i names argument i and gives
** its check (a CK_* kind of tm_dens_def.h, CK_NONE for none); they run in
** argument order, as Stan's do, with tm_dens_run_checks' messages.  The
** list ends with a NULL name; ELEM_CHECKS(D, {name, kind}, ...) ends it. */
typedef struct elem_check { const char *name; int kind; } elem_check;
int tm_dens_elem_checks(const tm_dens *D, const elem_check *checks);
#define ELEM_CHECKS(D, ...) tm_dens_elem_checks(D, (const elem_check[]){__VA_ARGS__, {NULL, 0}})

/* The table of a discrete family with the usual five functions
** (FAMILY_TABLE, tm_cdf.h), its _lpmf the elem_def <name>_def. */
#define DISCRETE_FAMILY_TABLE(name, sig, rsig) \
  FAMILY_TABLE(name, "_lpmf", tm_dens_elem_kernel, name##_def, sig, rsig)

/* The same for a family that also has its mass and _rng on a link scale
** (bernoulli_logit, poisson_log): <name>_<link>_lpmf is the elem_def
** tm_dens_elem_<name>_<link>, <name>_<link>_rng the rng_def D_<name>_<link>. */
#define DISCRETE_LINK_FAMILY_TABLE(name, link, sig, rsig) \
  MODES(name) \
  const tm_fn tm_fns_##name[] = { \
    {#name "_lpmf", sig, tm_dens_elem_kernel, &name##_def}, \
    {#name "_" #link "_lpmf", sig, tm_dens_elem_kernel, &tm_dens_elem_##name##_##link}, \
    ENTRIES(name, sig), \
    {#name "_" #link "_rng", rsig, tm_rng_kernel, &D_##name##_##link}, \
    {#name "_rng", rsig, tm_rng_kernel, &D_##name}, \
    {NULL, NULL, NULL, NULL} \
  };

#endif
