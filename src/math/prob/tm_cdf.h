/*
** tm_cdf.h -- the cdf kernel of tm_cdf.c: a
** distribution is one function giving log F or log(1 - F) of one element
** and that log's partials; the kernel broadcasts it and forms _lcdf, _lccdf
** or _cdf.
*/
#ifndef TM_CDF_H
#define TM_CDF_H
#include "../tm.h"
#include "tm_dens_def.h"

enum { M_LCDF, M_LCCDF, M_CDF };

/* log F (upper = 0) or log(1 - F) (upper = 1) at x[0..nargs-1], with
** d[i] = d(that log) / dx[i]; d of int arguments is ignored. */
typedef double (*cdf_elem)(const double *x, int upper, double *d);

typedef struct cdf_def {
  int nargs;
  unsigned ints;               /* bit i: argument i is an int (a count or size) */
  const char *names[4];
  tm_dens_check checks[5];
  cdf_elem f;
  /* optional: checks beyond checks[] (run after them), e.g. y >= mu */
  int (*check)(const tm_dens *D);
} cdf_def;

typedef struct cdf_fn { const cdf_def *def; int mode; } cdf_fn;

/* The kernel: c->fn->data is a cdf_fn. */
int tm_cdf_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

/* log(1 - A) from v = log A and its partials d[0..n-1], in place
** (tm_cdf.c): the side of a cdf without a closed form */
double tm_cdf_complement(double v, double *d, int n);

/* ---- what a distribution's file writes: Stan's argument names, and its
** three functions as cdf_fn (MODES, after its cdf_def d_<name>) and as
** table rows (ENTRIES) ---- */
#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"
#define DOF "Degrees of freedom parameter"

#define MODES(name) \
  static const cdf_fn f_##name##_lcdf = {&d_##name, M_LCDF}, f_##name##_lccdf = {&d_##name, M_LCCDF}, \
    f_##name##_cdf = {&d_##name, M_CDF};

#define ENTRIES(name, sig) \
  {#name "_lcdf", sig, tm_cdf_kernel, &f_##name##_lcdf}, \
  {#name "_lccdf", sig, tm_cdf_kernel, &f_##name##_lccdf}, \
  {#name "_cdf", sig, tm_cdf_kernel, &f_##name##_cdf}

/* log I0(k) and I1(k) / I0(k) (tm_dens_cont.c, von_mises_lpdf's) */
void tm_bessel_i01(double k, double *log_i0, double *ratio);

#endif
