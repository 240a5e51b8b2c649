/*
** tm_transform_fns.h -- Stan's transform functions (Stan 2.37):
** X_constrain(y, args...), X_jacobian(y, args...), X_unconstrain(x, args...)
** for the constraint transforms of tm_transform.h and three more
** (stochastic_column, stochastic_row, sum_to_zero of a matrix).
**
** X_constrain and X_unconstrain are plain kernels.  X_jacobian is a kernel
** too, giving the value of X_constrain: that is the call when the log
** Jacobian is not being accumulated (jacobian = FALSE).  When it is, the
** caller (src/tree) asks tm_transform_fn_setup for the transform, the
** unconstrained values as one vector, the bounds and the constrained shape,
** runs tm_transform_constrain with a log Jacobian and adds it to the target,
** as `jacobian +=` does.
*/
#ifndef TM_TRANSFORM_FNS_H
#define TM_TRANSFORM_FNS_H

#include "tm_transform.h"

typedef struct tm_tf_call {
  const tm_transform *t;
  tm_v x;                  /* the unconstrained values as a vector (a view, or a real copy of ints) */
  tm_v params[2];          /* the bounds (t->nparams of them) */
  tm_v shape;              /* the constrained value's shape (no values) */
} tm_tf_call;

/* Is fn an X_jacobian entry? */
int tm_transform_fn_is_jacobian(const tm_fn *fn);
/* The transform call of an X_constrain or X_jacobian entry on args, with
** Stan's checks of the sizes (AD_EINVALID). */
int tm_transform_fn_setup(const tm_fn *fn, const tm_v *args, int nargs, tm_tf_call *tc);

#endif
