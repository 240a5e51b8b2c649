/*
** tm_dens_multi.h -- pieces of tm_dens_multi.c other modules use.
*/
#ifndef TM_DENS_MULTI_H
#define TM_DENS_MULTI_H
#include "tm.h"

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

/* log of the LKJ normalising constant for K x K correlation matrices and
** shape eta; *deta its derivative in eta. */
double tm_lkj_constant(double eta, int K, double *deta);

#endif
