/*
** tm_complex.h -- helpers shared by the complex modules (tm_complex.c,
** tm_complex_mat.c, tm_complex_cont.c, tm_complex_eigen.c): element access of any numeric value as a complex,
** adjoints, complex results.
*/
#ifndef TM_COMPLEX_H
#define TM_COMPLEX_H
#include <complex.h>
#include "../tm.h"

typedef double _Complex cx;

cx   cx_mk(double re, double im);
/* int, real or complex, not an array: broadcast against containers */
int  cx_is_scalar(const tm_v *v);
/* element i of v (int, real, complex, or containers of them) as a complex;
** scalars broadcast */
cx   cx_get(const tm_v *v, size_t i);
/* v's adjoint at element i += re (+ im for a complex v); nothing for data */
void cx_add_adj(const tm_v *v, size_t i, double re, double im);
/* The reverse step of one product term x_i y_j whose result's adjoint is
** g = (g[0], g[1]): x's adjoint at i += conj(y_j) g, y's at j += conj(x_i) g. */
static inline void cx_add_prod_adj(const tm_v *x, size_t i, const tm_v *y, size_t j, const double *g) {
  cx gz = cx_mk(g[0], g[1]);
  cx dx = conj(cx_get(y, j)) * gz, dy = conj(cx_get(x, i)) * gz;
  cx_add_adj(x, i, creal(dx), cimag(dx));
  cx_add_adj(y, j, creal(dy), cimag(dy));
}
/* x and y (NULL: x alone) copied into the arena for a node's reverse step,
** as the caller's argument array does not outlive the call; NULL when out
** of memory */
tm_v *cx_keep(const tm_v *x, const tm_v *y);
int  cx_complex_base(int b);   /* int, real -> complex; vector -> complex_vector ... */
int  cx_real_base(int b);      /* complex -> real; complex_vector -> vector ... */
/* a new value of shape's array dims, rows and cols with base `base` */
int  cx_new(tm_v *out, const tm_v *shape, int base, int ad);
/* the matrix product of two complex (or real) matrices/vectors (tm_complex_mat.c) */
int  cx_matmul(const tm_call *c, const tm_v *a, const tm_v *b, tm_v *out);

#endif
