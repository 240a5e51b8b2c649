/*
** tm_scalar.h -- the generic elementwise kernels of tm_scalar.c, for modules
** that add elementwise functions (tm_scalar2.c): a function is a def (the
** table entry's data) plus a table line naming one of these kernels.
**
** Both kernels serve ints, reals and every container; an autodiff container
** call records one node, a scalar call Stan's usual single scalar node.
*/
#ifndef TM_SCALAR_H
#define TM_SCALAR_H
#include "tm.h"

typedef struct tm_unary_def {
  double (*f)(double x);
  double (*df)(double x, double fx);
  /* Stan's domain check, when it has one: fail when bad(x), the message
  ** ending in "must <must>". */
  int (*bad)(double x);
  const char *must;
  /* int -> int version (minus, abs), or NULL: ints then promote to real */
  int (*fi)(const char *fn, int x, int *r);
  const char *xname;         /* the argument's name in messages; NULL: "x" */
  /* costly (lgamma, digamma): a plan's replay keeps the last argument and
  ** result, and takes them again for the same argument (pl_step.h) */
  unsigned char memo;
} tm_unary_def;

typedef struct tm_binary_def {
  double (*f)(double x, double y);
  double (*dx)(double x, double y, double f);
  double (*dy)(double x, double y, double f);
  /* Stan's domain checks, or NULL; at is "[i]" or "" for messages */
  int (*check)(const char *fn, const char *at, double x, double y);
  /* int op int -> int (the arithmetic operators), or NULL: ints promote */
  int (*fi)(const char *fn, int x, int y, int *r);
  int y_scalar;              /* divide: the second argument must be a scalar */
} tm_binary_def;

/* c->fn->data is a tm_unary_def / tm_binary_def */
int tm_unary_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);
int tm_binary_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

#endif
