/*
** tm_tables.h -- the function tables of the math modules.
** Each module defines one table tm_fns_<name>[] ending with an entry whose
** name is NULL; core/tm_table.c merges them.  TM_MODULES lists them once:
** a new module (a new distribution family, say) adds its X(name) row here
** and nowhere else.
*/
#ifndef TM_TABLES_H
#define TM_TABLES_H
#include "tm.h"

/* X(name) for each module's table tm_fns_<name>, in the order they are merged
** (no name of a function is in two tables, so the order changes no lookup). */
#define TM_MODULES(X) \
  X(scalar) /* scalar/tm_elementary.c: elementwise functions and operators */ \
  X(container) /* container/tm_container.c: reductions, builders, slices */ \
  X(matrix) /* linalg/tm_matrix.c: linear algebra */ \
  X(numeric) /* scalar/tm_numeric.c: rounding, steps, more binary functions, constants */ \
  X(build) /* container/tm_build.c: zeros, ones, linspaced, one_hot, reverse, append_array */ \
  X(sort) /* container/tm_sort.c: sort_asc/desc, sort_indices_*, rank */ \
  X(matrix_ops) /* linalg/tm_matrix_ops.c: crossprod, quad_form, trace, dot products by column... */ \
  X(solve) /* linalg/tm_solve.c: mdivide_*, inverse(_spd), determinants */ \
  X(eigen) /* linalg/tm_eigen.c: eigenvalues_sym, eigenvectors_sym */ \
  X(gp) /* linalg/tm_gp.c: gp_exponential/matern32/matern52/periodic/dot_prod_cov */ \
  X(glm) /* prob/tm_glm.c: the GLM densities, bernoulli_logit_glm_rng */ \
  X(transform) /* transform/tm_transform_fns.c: X_constrain, X_jacobian, X_unconstrain */ \
  X(wishart) /* prob/tm_wishart.c: (inv_)wishart(_cholesky)_lpdf and _rng */ \
  X(multi_normal) /* prob/tm_multi_normal.c: multi_normal(_cholesky, _prec)_lpdf, multi_normal(_cholesky)_rng */ \
  X(multi_student_t) /* prob/tm_multi_student_t.c: multi_student_t(_cholesky)_lpdf and _rng */ \
  X(multi_gp) /* prob/tm_multi_gp.c: multi_gp(_cholesky)_lpdf */ \
  X(lkj) /* prob/tm_lkj.c: lkj_corr(_cholesky)_lpdf and _rng, lkj_cov_lpdf */ \
  X(dirichlet) /* prob/tm_dirichlet.c: dirichlet_lpdf, dirichlet_rng */ \
  X(dlm) /* prob/tm_dlm.c: gaussian_dlm_obs_lpdf */ \
  X(hmm) /* prob/tm_hmm.c: hmm_marginal, hmm_hidden_state_prob, hmm_latent_rng */ \
  X(sparse) /* linalg/tm_sparse.c: csr_* functions, to_array_2d */ \
  X(matfun) /* linalg/tm_matfun.c: matrix_exp(_multiply), matrix_power, svd, qr, generalized_inverse */ \
  X(special_elem) /* scalar/tm_special_elem.c: Bessel functions, owens_t, lambert_w*, inv_erfc, ldexp */ \
  X(hyper) /* scalar/tm_hyper.c: hypergeometric_1F0/2F1/3F2/pFq, inv_inc_beta */ \
  X(vecfn) /* container/tm_vecfn.c: fma, divide, softmax of containers; quantile, squared_distance of reals, plus, logical_* */ \
  X(normal) /* prob/tm_normal.c: normal, std_normal */ \
  X(student_t) /* prob/tm_student_t.c: student_t, student_t_qf */ \
  X(cauchy) /* prob/tm_cauchy.c */ \
  X(double_exponential) /* prob/tm_double_exponential.c */ \
  X(logistic) /* prob/tm_logistic.c */ \
  X(lognormal) /* prob/tm_lognormal.c */ \
  X(exponential) /* prob/tm_exponential.c */ \
  X(gamma) /* prob/tm_gamma.c */ \
  X(inv_gamma) /* prob/tm_inv_gamma.c */ \
  X(weibull) /* prob/tm_weibull.c */ \
  X(beta) /* prob/tm_beta.c: beta, beta_proportion */ \
  X(uniform) /* prob/tm_uniform.c */ \
  X(gumbel) /* prob/tm_gumbel.c */ \
  X(pareto) /* prob/tm_pareto.c */ \
  X(pareto_type_2) /* prob/tm_pareto_type_2.c */ \
  X(frechet) /* prob/tm_frechet.c */ \
  X(rayleigh) /* prob/tm_rayleigh.c */ \
  X(chi_square) /* prob/tm_chi_square.c */ \
  X(inv_chi_square) /* prob/tm_inv_chi_square.c */ \
  X(scaled_inv_chi_square) /* prob/tm_scaled_inv_chi_square.c */ \
  X(skew_normal) /* prob/tm_skew_normal.c */ \
  X(exp_mod_normal) /* prob/tm_exp_mod_normal.c */ \
  X(von_mises) /* prob/tm_von_mises.c */ \
  X(skew_double_exponential) /* prob/tm_skew_double_exponential.c */ \
  X(loglogistic) /* prob/tm_loglogistic.c */ \
  X(wiener) /* prob/tm_wiener.c: wiener_lpdf, wiener_lcdf_unnorm, wiener_lccdf_unnorm */ \
  X(bernoulli) /* prob/tm_bernoulli.c: bernoulli(_logit)_lpmf, bernoulli_cdf/_lcdf/_lccdf, bernoulli(_logit)_rng */ \
  X(binomial) /* prob/tm_binomial.c: binomial(_logit)_lpmf, binomial_logit_glm_lpmf, binomial_cdf/_lcdf/_lccdf, binomial(_logit)_rng */ \
  X(poisson) /* prob/tm_poisson.c: poisson(_log)_lpmf, poisson_cdf/_lcdf/_lccdf, poisson(_log)_rng */ \
  X(neg_binomial) /* prob/tm_neg_binomial.c: neg_binomial(_2, _2_log)_lpmf, their cdfs and _rng */ \
  X(beta_binomial) /* prob/tm_beta_binomial.c: beta_binomial_lpmf, its cdfs, beta_binomial_rng */ \
  X(beta_neg_binomial) /* prob/tm_beta_neg_binomial.c: beta_neg_binomial_lpmf, its cdfs and _rng */ \
  X(discrete_range) /* prob/tm_discrete_range.c: discrete_range_lpmf, its cdfs and _rng */ \
  X(yule_simon) /* prob/tm_yule_simon.c: yule_simon_lpmf, its cdfs and _rng */ \
  X(categorical) /* prob/tm_categorical.c: categorical(_logit)_lpmf and _rng */ \
  X(ordered) /* prob/tm_ordered.c: ordered_logistic/probit_lpmf and _rng */ \
  X(multinomial) /* prob/tm_multinomial.c: multinomial(_logit)_lpmf and _rng */ \
  X(hypergeometric) /* prob/tm_hypergeometric.c: hypergeometric_lpmf and _rng */ \
  X(dirichlet_multinomial) /* prob/tm_dirichlet_multinomial.c: dirichlet_multinomial_lpmf and _rng */ \
  X(complex) /* complex/tm_complex.c: complex scalars, elementwise functions, operators */ \
  X(complex_mat) /* complex/tm_complex_mat.c: complex matrix product, fft, sum, prod, transpose */ \
  X(complex_cont) /* complex/tm_complex_cont.c: sizes, builders, slices, appends of complex values */ \
  X(complex_eigen) /* complex/tm_complex_eigen.c: eigenvalues, eigenvectors, complex Schur */

#define TM_MODULE_DECLARE(name) extern const tm_fn tm_fns_##name[];
TM_MODULES(TM_MODULE_DECLARE)
#undef TM_MODULE_DECLARE

/* tm_gp_ard.c: the forms with one length scale per dimension (x array[] vector, l array[] real),
** called by the kernels of gp_exp_quad_cov (tm_matrix.c) and of the gp_*_cov of tm_gp.c */
enum { TM_GP_EXP_QUAD, TM_GP_EXPONENTIAL, TM_GP_MATERN32, TM_GP_MATERN52 };
int tm_gp_ard(const tm_call *c, const tm_v *a, int nargs, tm_v *out, int kind);
int tm_k_dims(const tm_call *c, const tm_v *a, int nargs, tm_v *out);   /* tm_container.c: dims() of any value */
#endif
