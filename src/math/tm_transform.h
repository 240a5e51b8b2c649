/*
** tm_transform.h -- Stan's constraint transforms (Reference Manual, chapter
** "Constraint transforms"), with their inverses and log Jacobians.
**
** A parameter declared with a constraint is stored unconstrained; each
** evaluation of the log density maps the unconstrained values back
** ("constrain") and adds the log absolute Jacobian determinant.  The maps
** and the order of the unconstrained values are exactly Stan's, so an
** unconstrained vector written by Stan (or read by it) means the same here.
**
** The transforms are one table, looked up by Stan's declaration keyword:
**   identity            no constraint
**   lower, upper        params: bound (Stan's <lower=L>, <upper=U>)
**   lower_upper         params: lower, upper
**   offset_multiplier   params: offset, multiplier (pass 0 / 1 when absent)
**   simplex, ordered, positive_ordered, unit_vector, sum_to_zero_vector
**   cholesky_factor_corr, cholesky_factor_cov, corr_matrix, cov_matrix
**   sum_to_zero_matrix, column_stochastic_matrix, row_stochastic_matrix
** A declared shape is a tm_v whose shape fields (base, rows, cols, narr,
** dim) describe the constrained value, e.g. simplex[K] is a vector of K,
** cov_matrix[K] a K x K matrix, array[J] simplex[K] an array of J vectors.
** Bound parameters are scalars (broadcast) or containers with as many
** elements as the declared value; they may be autodiff.
*/
#ifndef TM_TRANSFORM_H
#define TM_TRANSFORM_H

#include "tm.h"

typedef struct tm_transform tm_transform;
struct tm_transform {
  const char *name;        /* Stan's keyword, as listed above */
  int nparams;             /* bound parameters the transform takes */
  /* Number of unconstrained values for the declared shape; AD_EINVALID when
  ** the shape does not fit the transform (a simplex that is a matrix...). */
  int (*size)(const tm_transform *t, const tm_v *shape, size_t *n);
  /* x: the unconstrained values as a vector (double or autodiff).  On entry
  ** *y holds the declared shape; on return the constrained value (autodiff
  ** when x or a parameter is: one node for the whole transform).  When lp is
  ** not NULL it receives log |J| as a real, autodiff (one more node) when it
  ** depends on an autodiff value. */
  int (*constrain)(const tm_transform *t, const tm_v *x, const tm_v *params, tm_v *y, tm_v *lp);
  /* Constrained doubles y -> the unconstrained vector *x (doubles); fails with
  ** AD_EDOMAIN and Stan's message when y violates the constraint. */
  int (*free)(const tm_transform *t, const tm_v *y, const tm_v *params, tm_v *x);
  const void *data;        /* for the generic implementations */
};

/* The entry for a keyword, or NULL. */
const tm_transform *tm_transform_find(const char *name);
int                 tm_transform_count(void);
const tm_transform *tm_transform_entry(int i);
/* The identity (an unconstrained parameter): y is a view of x, log |J| is 0. */
int                 tm_transform_is_identity(const tm_transform *t);
/* `lower`: y = exp(x) + lb, log |J| = x (the identity when lb is -inf);
** `upper`: y = ub - exp(x), log |J| = x (the identity when ub is +inf). */
int                 tm_transform_is_lower(const tm_transform *t);
int                 tm_transform_is_upper(const tm_transform *t);

/* Checked calls: the number of parameters, the size of x against the
** declared shape, then the entry's own function. */
int tm_transform_size(const tm_transform *t, const tm_v *shape, size_t *n);
int tm_transform_constrain(const tm_transform *t, const tm_v *x, const tm_v *params, tm_v *y, tm_v *lp);
int tm_transform_free(const tm_transform *t, const tm_v *y, const tm_v *params, tm_v *x);

/* ---- internal: shared by tm_transform*.c ---- */

/* Tolerance of the free() checks (sums of simplexes, unit norms, symmetry),
** as Stan's CONSTRAINT_TOLERANCE. */
#define TM_TR_TOL 1e-8

/* A transform of one vector or matrix, applied to each element of an array
** of them; no parameters.  The generic code records one node for all
** elements and calls these per element.  k = rows * cols constrained values,
** m = nfree(rows, cols) unconstrained ones. */
typedef struct tm_tr_ops {
  const char *cfn, *ffn;   /* names in messages: "simplex_constrain", "simplex_free" */
  int base;                /* TM_VECTOR or TM_MATRIX */
  int linear;              /* log |J| is a constant: no node for it */
  /* NULL when the shape fits, else what is wrong (for the message) */
  const char *(*bad_shape)(int rows, int cols);
  size_t (*nfree)(int rows, int cols);
  size_t (*naux)(int rows, int cols);      /* forward values the reverse step keeps */
  /* y from x; *lp = log |J| and, when dlp is not NULL, its gradient in x */
  int (*forward)(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp);
  /* xbar += (dy/dx)' ybar */
  void (*reverse)(int rows, int cols, const double *x, const double *y, const double *aux,
                  const double *ybar, double *xbar);
  int (*free)(int rows, int cols, const double *y, double *x);
} tm_tr_ops;

int tm_tr_struct_size(const tm_transform *t, const tm_v *shape, size_t *n);
int tm_tr_struct_constrain(const tm_transform *t, const tm_v *x, const tm_v *params, tm_v *y, tm_v *lp);
int tm_tr_struct_free(const tm_transform *t, const tm_v *y, const tm_v *params, tm_v *x);

/* The per-element operations, defined in transform/tm_transform_vec.c,
** _mat.c and (the N x M matrices Stan's transform functions brought)
** tm_transform_fns.c. */
extern const tm_tr_ops tm_tr_ordered, tm_tr_positive_ordered, tm_tr_unit_vector,
  tm_tr_sum_to_zero, tm_tr_simplex;
extern const tm_tr_ops tm_tr_cholesky_corr, tm_tr_cholesky_cov, tm_tr_corr_matrix,
  tm_tr_cov_matrix;
extern const tm_tr_ops tm_tr_sum_to_zero_matrix, tm_tr_stochastic_column, tm_tr_stochastic_row;

/* Numbers in messages: short for round values, exact enough otherwise. */
#define TM_TR_FMT "%.15g"

#endif
