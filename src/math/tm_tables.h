/*
** tm_tables.h -- the function tables of the math modules.
** Each module defines one table ending with an entry whose name is NULL;
** tm_table.c merges them.  A new module adds its table here and there.
*/
#ifndef TM_TABLES_H
#define TM_TABLES_H
#include "tm.h"
extern const tm_fn tm_fns_scalar[];      /* tm_scalar.c: elementwise functions and operators */
extern const tm_fn tm_fns_container[];   /* tm_container.c: reductions, builders, slices */
extern const tm_fn tm_fns_matrix[];      /* tm_matrix.c: linear algebra */
extern const tm_fn tm_fns_dens_cont[];   /* tm_dens_cont.c: univariate continuous densities */
extern const tm_fn tm_fns_dens_disc[];   /* tm_dens_disc.c: discrete masses */
extern const tm_fn tm_fns_dens_multi[];  /* tm_dens_multi.c: multivariate densities */
extern const tm_fn tm_fns_rng[];         /* tm_rng_fns.c: _rng functions */
extern const tm_fn tm_fns_cdf[];         /* tm_cdf.c: _cdf, _lcdf, _lccdf */
extern const tm_fn tm_fns_scalar2[];     /* tm_scalar2.c: rounding, steps, more binary functions, constants */
extern const tm_fn tm_fns_build[];       /* tm_build.c: zeros, ones, linspaced, one_hot, reverse, append_array */
extern const tm_fn tm_fns_sort[];        /* tm_sort.c: sort_asc/desc, sort_indices_*, rank */
extern const tm_fn tm_fns_matrix_ops[];  /* tm_matrix_ops.c: crossprod, quad_form, trace, dot products by column... */
extern const tm_fn tm_fns_solve[];       /* tm_solve.c: mdivide_*, inverse(_spd), determinants */
extern const tm_fn tm_fns_eigen[];       /* tm_eigen.c: eigenvalues_sym, eigenvectors_sym */
extern const tm_fn tm_fns_dens_cont2[];  /* tm_dens_cont2.c: gumbel, pareto, frechet, ..., von_mises */
extern const tm_fn tm_fns_dens_disc2[];  /* tm_dens_disc2.c: beta_binomial, neg_binomial, ordered_*, multinomial */
extern const tm_fn tm_fns_dens_multi2[]; /* tm_dens_multi2.c: lkj_corr, multi_student_t */
extern const tm_fn tm_fns_gp[];          /* tm_gp.c: gp_exponential/matern32/matern52/periodic/dot_prod_cov */
extern const tm_fn tm_fns_glm[];         /* tm_glm.c: normal_id_glm, poisson_log_glm */
extern const tm_fn tm_fns_complex[];     /* tm_complex.c: complex scalars, elementwise functions, operators */
extern const tm_fn tm_fns_complex_mat[]; /* tm_complex_mat.c: complex matrix product, fft, sum, prod, transpose */
extern const tm_fn tm_fns_complex_eigen[]; /* tm_complex_eigen.c: eigenvalues, eigenvectors, complex Schur */
extern const tm_fn tm_fns_complex_cont[]; /* tm_complex_cont.c: sizes, builders, slices, appends of complex values */
#endif
