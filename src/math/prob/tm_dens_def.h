/*
** tm_dens_def.h -- the table-driven univariate densities: argument checks in
** Stan's order and the definition the generic density kernel runs.
**
** Shared by tm_dens_cont.c (whose kernel serves every definition), the cdfs
** (tm_cdf.c, the same checks) and the wiener family (tm_wiener.c).
*/
#ifndef TM_DENS_DEF_H
#define TM_DENS_DEF_H
#include "../tm.h"

/* One check of one argument; a list ends with CK_END. */
enum { CK_END = 0, CK_NOT_NAN, CK_FINITE, CK_POS, CK_POS_FINITE, CK_NONNEG, CK_UNIT, CK_GREATER };
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

/* The generic kernel (tm_dens_cont.c): c->fn->data is a tm_dens_def. */
int tm_dens_def_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

#endif
