/*
** tm_dens_def.h -- the table-driven univariate densities: argument checks in
** Stan's order and the definition the generic density kernel runs.
**
** Shared by tm_dens_def.c (whose kernel serves every definition), the cdfs
** (tm_cdf.h, the same checks), the _rng defs (tm_rng_def.h, the same check
** kinds) and the family files tm_<family>.c; with the argument names and
** signatures their definitions and table rows share.
*/
#ifndef TM_DENS_DEF_H
#define TM_DENS_DEF_H
#include "../tm.h"

/* One check of one argument; a list ends with CK_END.  One set of kinds for
** the densities and cdfs (tm_dens_run_checks) and the _rng defs
** (tm_rng_kernel), so a family's file defines all three; each kernel runs
** the kinds it knows. */
enum {
  CK_END = 0, CK_NONE = CK_END,   /* an rng_def's argument without a check */
  CK_NOT_NAN, CK_FINITE, CK_POS, CK_POSITIVE = CK_POS, CK_POS_FINITE, CK_NONNEG,
  CK_UNIT,        /* in [0, 1] */
  CK_GREATER,     /* (densities, cdfs) greater than the previous argument elementwise */
  /* the _rng kernel's own */
  CK_PROB,        /* finite and in [0, 1] */
  CK_RATE,        /* nonnegative and below 2^30 (poisson_rng) */
  CK_LOG_RATE,    /* not NaN and below 30 log 2 (poisson_log_rng) */
  CK_ABOVE_PREV,  /* finite and greater than the previous argument (uniform_rng) */
  CK_GE_PREV,     /* at least the previous argument (discrete_range_rng) */
  CK_UNIT_OPEN,   /* in (0, 1) (beta_proportion_rng) */
  CK_NONNEG_FINITE  /* nonnegative, then finite (von_mises_rng) */
};
typedef struct tm_dens_check { unsigned char arg, kind; } tm_dens_check;

/* Run the checks on the frame's arguments; names[i] names argument i.
** CK_GREATER: argument arg must exceed argument arg - 1 elementwise. */
int tm_dens_run_checks(const tm_dens *D, const char *const *names, const tm_dens_check *checks);

typedef struct tm_dens_def {
  int nargs;
  const char *names[4];        /* Stan's argument names, for messages */
  tm_dens_check checks[6];     /* ends with CK_END */
  /* cauchy and double_exponential return 0 for an all-constant propto
  ** call before checking their arguments */
  int late_checks;
  int (*body)(tm_dens *D, double *logp);
  /* the body assigns every element of container partials (no += ) */
  int assigns;
} tm_dens_def;

/* The generic kernel (tm_dens_def.c): c->fn->data is a tm_dens_def. */
int tm_dens_def_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

/* Stan's names of the common arguments, for the definitions' messages */
#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"
#define DOF "Degrees of freedom parameter"

/* the signatures of the table rows */
#define SIG1 "real(reals)"
#define SIG2 "real(reals, reals)"
#define SIG3 "real(reals, reals, reals)"
#define SIG4 "real(reals, reals, reals, reals)"

/* the bit of argument i in a tm_dens_keep mask */
#define B(i) (1u << (i))
/* element j of argument i, broadcast */
#define X(D, i, j) ((D)->x[i][(j) * (D)->inc[i]])

#endif
