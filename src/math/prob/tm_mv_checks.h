/*
** tm_mv_checks.h -- what the multivariate families share (tm_multi_normal.c,
** tm_multi_student_t.c, tm_multi_gp.c, tm_lkj.c, tm_dirichlet.c,
** tm_wishart.c, tm_dlm.c): the "vectors" argument and the argument checks,
** with Stan's wording, defined in tm_mv_checks.c.
*/
#ifndef TM_MV_CHECKS_H
#define TM_MV_CHECKS_H
#include "../tm.h"

/* A "vectors" argument: n vectors of size k; many == 0 for a single one,
** which broadcasts against the other argument's array. */
typedef struct tm_mvec {
  const tm_v *v;
  int n, k, many;
} tm_mvec;

static inline int tm_mvec_of(const char *fn, const tm_v *v, const char *name, tm_mvec *o) {
  if ((v->base != TM_VECTOR && v->base != TM_ROW_VECTOR) || v->narr > 1)
    return ad_fail(AD_EINVALID, "%s: %s must be a vector, a row_vector or an array of them", fn, name);
  o->v = v;
  o->many = v->narr == 1;
  o->n = o->many ? v->dim[0] : 1;
  o->k = v->rows * v->cols;
  return AD_OK;
}

/* Offset of vector i in the values (0 for a single one). */
static inline size_t tm_mvec_off(const tm_mvec *m, int i) {
  return m->many ? (size_t)i * (size_t)m->k : 0;
}

/* Vector i of a "vectors" argument, as a vector view. */
static inline tm_v tm_mvec_elem(const tm_mvec *m, int i) {
  return tm_vector_view(m->v->val + tm_mvec_off(m, i), NULL, m->k);
}

/* The argument shapes of multi_normal's and (dof: with a real degrees of
** freedom second) multi_student_t's forms, (vectors, [real,] vectors,
** matrix), and their y and mu as "vectors". */
int tm_mv_args(const char *fn, const tm_v *a, int nargs, int dof, tm_mvec *y, tm_mvec *mu);
/* Stan's check_consistent_sizes_mvt: two arrays must have the same length. */
int tm_mv_consistent(const char *fn, const char *n1, const tm_mvec *a, const char *n2, const tm_mvec *b);
/* For i < N: location i finite, then random variable i not NaN (Stan's
** order when both are checked vector by vector). */
int tm_mv_check_locations_paired(const char *fn, const tm_mvec *y, const tm_mvec *mu, int N);
/* An argument that must be a matrix (not an array of them). */
int tm_mv_check_matrix(const char *fn, const char *name, const tm_v *v);

/* Stan's check_size_match: "fn: n1 (s1) and n2 (s2) must match in size" */
int tm_mv_size_match(const char *fn, const char *n1, long s1, const char *n2, long s2);
/* Stan's check_cholesky_factor on a matrix argument */
int tm_mv_check_cholesky(const char *fn, const char *name, const tm_v *L);
/* Stan's check_symmetric then check_ldlt_factor (named ldlt_name) on a
** square matrix S; *L gets its lower Cholesky factor (arena). */
int tm_mv_spd(const char *fn, const char *sym_name, const char *ldlt_name, const tm_v *S, double **L);
/* log determinant of L L^T from the lower Cholesky factor L (k x k) */
double tm_mv_chol_logdet(int k, const double *L);
/* Stan's check_greater on a scalar: x > lo */
int tm_mv_check_greater(const char *fn, const char *name, const tm_v *v, double lo);

#endif
