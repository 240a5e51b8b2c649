/*
** tm_dens_elem.h -- the elementwise masses of tm_dens_disc.c: a mass is a
** description (argument names, which arguments are ints, a check, and a
** function of one element returning its log mass and partials) run by one
** kernel over the broadcast.  Used by tm_dens_disc.c and src/plan.
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

/* The kernel (tm_dens_disc.c): c->fn->data is an elem_def. */
int tm_dens_elem_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

/* Stan's check_simplex (tm_dens_disc.c): non-empty, sums to 1 within 1e-8,
** no negative element; messages as Stan's. */
int tm_dens_check_simplex(const char *fn, const char *arg, const tm_v *v);

#endif
