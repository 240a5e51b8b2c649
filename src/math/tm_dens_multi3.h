/*
** tm_dens_multi3.h -- argument checks of the multivariate densities in
** tm_dens_multi3.c that tm_wishart.c and tm_rng_multi.c share, with Stan's
** wording.
*/
#ifndef TM_DENS_MULTI3_H
#define TM_DENS_MULTI3_H
#include "tm.h"

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
