/*
** tm_tables.h -- the function tables of the math modules.
** Each module defines one table ending with an entry whose name is NULL;
** tm_table.c merges them.  A new module adds its table here and there.
*/
#ifndef TM_TABLES_H
#define TM_TABLES_H
#include "tm.h"
extern const tm_fn tm_fns_scalar[];      /* tm_elementary.c: elementwise functions and operators */
extern const tm_fn tm_fns_container[];   /* tm_container.c: reductions, builders, slices */
extern const tm_fn tm_fns_matrix[];      /* tm_matrix.c: linear algebra */
extern const tm_fn tm_fns_dens_cont[];   /* tm_dens_cont.c: univariate continuous densities */
extern const tm_fn tm_fns_dens_disc[];   /* tm_dens_disc.c: discrete masses */
extern const tm_fn tm_fns_rng[];         /* tm_rng_fns.c: _rng functions */
extern const tm_fn tm_fns_cdf[];         /* tm_cdf.c: _cdf, _lcdf, _lccdf */
extern const tm_fn tm_fns_numeric[];     /* tm_numeric.c: rounding, steps, more binary functions, constants */
extern const tm_fn tm_fns_build[];       /* tm_build.c: zeros, ones, linspaced, one_hot, reverse, append_array */
extern const tm_fn tm_fns_sort[];        /* tm_sort.c: sort_asc/desc, sort_indices_*, rank */
extern const tm_fn tm_fns_matrix_ops[];  /* tm_matrix_ops.c: crossprod, quad_form, trace, dot products by column... */
extern const tm_fn tm_fns_solve[];       /* tm_solve.c: mdivide_*, inverse(_spd), determinants */
extern const tm_fn tm_fns_eigen[];       /* tm_eigen.c: eigenvalues_sym, eigenvectors_sym */
extern const tm_fn tm_fns_gp[];          /* tm_gp.c: gp_exponential/matern32/matern52/periodic/dot_prod_cov */
extern const tm_fn tm_fns_glm[];         /* tm_glm.c: normal_id_glm, poisson_log_glm */
extern const tm_fn tm_fns_transform[];   /* tm_transform_fns.c: X_constrain, X_jacobian, X_unconstrain */
extern const tm_fn tm_fns_wishart[];     /* prob/tm_wishart.c: (inv_)wishart(_cholesky)_lpdf and _rng */
extern const tm_fn tm_fns_multi_normal[];    /* prob/tm_multi_normal.c: multi_normal(_cholesky, _prec)_lpdf, multi_normal(_cholesky)_rng */
extern const tm_fn tm_fns_multi_student_t[]; /* prob/tm_multi_student_t.c: multi_student_t(_cholesky)_lpdf and _rng */
extern const tm_fn tm_fns_multi_gp[];        /* prob/tm_multi_gp.c: multi_gp(_cholesky)_lpdf */
extern const tm_fn tm_fns_lkj[];             /* prob/tm_lkj.c: lkj_corr(_cholesky)_lpdf and _rng, lkj_cov_lpdf */
extern const tm_fn tm_fns_dirichlet[];       /* prob/tm_dirichlet.c: dirichlet_lpdf, dirichlet_rng */
extern const tm_fn tm_fns_dlm[];         /* tm_dlm.c: gaussian_dlm_obs_lpdf */
extern const tm_fn tm_fns_hmm[];         /* tm_hmm.c: hmm_marginal, hmm_hidden_state_prob, hmm_latent_rng */
extern const tm_fn tm_fns_sparse[];      /* tm_sparse.c: csr_* functions, to_array_2d */
extern const tm_fn tm_fns_matfun[];      /* tm_matfun.c: matrix_exp(_multiply), matrix_power, svd, qr, generalized_inverse */
/* tm_gp_ard.c: the forms with one length scale per dimension (x array[] vector, l array[] real),
** called by the kernels of gp_exp_quad_cov (tm_matrix.c) and of the gp_*_cov of tm_gp.c */
enum { TM_GP_EXP_QUAD, TM_GP_EXPONENTIAL, TM_GP_MATERN32, TM_GP_MATERN52 };
int tm_gp_ard(const tm_call *c, const tm_v *a, int nargs, tm_v *out, int kind);
extern const tm_fn tm_fns_special_elem[]; /* tm_special_elem.c: Bessel functions, owens_t, lambert_w*, inv_erfc, ldexp */
extern const tm_fn tm_fns_hyper[];       /* tm_hyper.c: hypergeometric_1F0/2F1/3F2/pFq, inv_inc_beta */
extern const tm_fn tm_fns_vecfn[];       /* tm_vecfn.c: fma, divide, softmax of containers; quantile, squared_distance of reals, plus, logical_* */
extern const tm_fn tm_fns_qf[];          /* tm_qf.c: student_t_qf */
extern const tm_fn tm_fns_wiener[];      /* prob/tm_wiener.c: wiener_lpdf, wiener_lcdf_unnorm, wiener_lccdf_unnorm */
extern const tm_fn tm_fns_complex[];     /* tm_complex.c: complex scalars, elementwise functions, operators */
extern const tm_fn tm_fns_complex_mat[]; /* tm_complex_mat.c: complex matrix product, fft, sum, prod, transpose */
extern const tm_fn tm_fns_complex_eigen[]; /* tm_complex_eigen.c: eigenvalues, eigenvectors, complex Schur */
int tm_k_dims(const tm_call *c, const tm_v *a, int nargs, tm_v *out);   /* tm_container.c: dims() of any value */
extern const tm_fn tm_fns_complex_cont[]; /* tm_complex_cont.c: sizes, builders, slices, appends of complex values */
#endif
