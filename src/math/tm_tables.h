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
extern const tm_fn tm_fns_bernoulli[];    /* prob/tm_bernoulli.c: bernoulli(_logit)_lpmf, bernoulli_cdf/_lcdf/_lccdf, bernoulli(_logit)_rng */
extern const tm_fn tm_fns_binomial[];     /* prob/tm_binomial.c: binomial(_logit)_lpmf, binomial_logit_glm_lpmf, binomial_cdf/_lcdf/_lccdf, binomial(_logit)_rng */
extern const tm_fn tm_fns_poisson[];      /* prob/tm_poisson.c: poisson(_log)_lpmf, poisson_cdf/_lcdf/_lccdf, poisson(_log)_rng */
extern const tm_fn tm_fns_neg_binomial[]; /* prob/tm_neg_binomial.c: neg_binomial(_2, _2_log)_lpmf, their cdfs and _rng */
extern const tm_fn tm_fns_beta_binomial[]; /* prob/tm_beta_binomial.c: beta_binomial_lpmf, its cdfs, beta_binomial_rng */
extern const tm_fn tm_fns_beta_neg_binomial[]; /* prob/tm_beta_neg_binomial.c: beta_neg_binomial_lpmf, its cdfs and _rng */
extern const tm_fn tm_fns_discrete_range[]; /* prob/tm_discrete_range.c: discrete_range_lpmf, its cdfs and _rng */
extern const tm_fn tm_fns_yule_simon[];   /* prob/tm_yule_simon.c: yule_simon_lpmf, its cdfs and _rng */
extern const tm_fn tm_fns_categorical[];  /* prob/tm_categorical.c: categorical(_logit)_lpmf and _rng */
extern const tm_fn tm_fns_ordered[];      /* prob/tm_ordered.c: ordered_logistic/probit_lpmf and _rng */
extern const tm_fn tm_fns_multinomial[];  /* prob/tm_multinomial.c: multinomial(_logit)_lpmf and _rng */
extern const tm_fn tm_fns_hypergeometric[]; /* prob/tm_hypergeometric.c: hypergeometric_lpmf and _rng */
extern const tm_fn tm_fns_dirichlet_multinomial[]; /* prob/tm_dirichlet_multinomial.c: dirichlet_multinomial_lpmf and _rng */
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
/* the continuous univariate families, one file each (densities, cdfs, _rng) */
extern const tm_fn tm_fns_normal[];      /* prob/tm_normal.c: normal, std_normal */
extern const tm_fn tm_fns_student_t[];   /* prob/tm_student_t.c: student_t, student_t_qf */
extern const tm_fn tm_fns_cauchy[];      /* prob/tm_cauchy.c */
extern const tm_fn tm_fns_double_exponential[]; /* prob/tm_double_exponential.c */
extern const tm_fn tm_fns_logistic[];    /* prob/tm_logistic.c */
extern const tm_fn tm_fns_lognormal[];   /* prob/tm_lognormal.c */
extern const tm_fn tm_fns_exponential[]; /* prob/tm_exponential.c */
extern const tm_fn tm_fns_gamma[];       /* prob/tm_gamma.c */
extern const tm_fn tm_fns_inv_gamma[];   /* prob/tm_inv_gamma.c */
extern const tm_fn tm_fns_weibull[];     /* prob/tm_weibull.c */
extern const tm_fn tm_fns_beta[];        /* prob/tm_beta.c: beta, beta_proportion */
extern const tm_fn tm_fns_uniform[];     /* prob/tm_uniform.c */
extern const tm_fn tm_fns_gumbel[];      /* prob/tm_gumbel.c */
extern const tm_fn tm_fns_pareto[];      /* prob/tm_pareto.c */
extern const tm_fn tm_fns_pareto_type_2[]; /* prob/tm_pareto_type_2.c */
extern const tm_fn tm_fns_frechet[];     /* prob/tm_frechet.c */
extern const tm_fn tm_fns_rayleigh[];    /* prob/tm_rayleigh.c */
extern const tm_fn tm_fns_chi_square[];  /* prob/tm_chi_square.c */
extern const tm_fn tm_fns_inv_chi_square[]; /* prob/tm_inv_chi_square.c */
extern const tm_fn tm_fns_scaled_inv_chi_square[]; /* prob/tm_scaled_inv_chi_square.c */
extern const tm_fn tm_fns_skew_normal[]; /* prob/tm_skew_normal.c */
extern const tm_fn tm_fns_exp_mod_normal[]; /* prob/tm_exp_mod_normal.c */
extern const tm_fn tm_fns_von_mises[];   /* prob/tm_von_mises.c */
extern const tm_fn tm_fns_skew_double_exponential[]; /* prob/tm_skew_double_exponential.c */
extern const tm_fn tm_fns_loglogistic[]; /* prob/tm_loglogistic.c */
extern const tm_fn tm_fns_wiener[];      /* prob/tm_wiener.c: wiener_lpdf, wiener_lcdf_unnorm, wiener_lccdf_unnorm */
extern const tm_fn tm_fns_complex[];     /* tm_complex.c: complex scalars, elementwise functions, operators */
extern const tm_fn tm_fns_complex_mat[]; /* tm_complex_mat.c: complex matrix product, fft, sum, prod, transpose */
extern const tm_fn tm_fns_complex_eigen[]; /* tm_complex_eigen.c: eigenvalues, eigenvectors, complex Schur */
int tm_k_dims(const tm_call *c, const tm_v *a, int nargs, tm_v *out);   /* tm_container.c: dims() of any value */
extern const tm_fn tm_fns_complex_cont[]; /* tm_complex_cont.c: sizes, builders, slices, appends of complex values */
#endif
