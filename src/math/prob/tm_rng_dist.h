/*
** tm_rng_dist.h -- sampling algorithms on doubles, behind the _rng functions.
** Each takes the caller's generator; none checks its arguments (the kernels
** in tm_rng_def.c do, with Stan's messages).
*/
#ifndef TM_RNG_DIST_H
#define TM_RNG_DIST_H
#include "../tm.h"

double tm_rd_exponential(tm_rng *r);                  /* rate 1 */
double tm_rd_gamma(tm_rng *r, double alpha);          /* shape alpha, scale 1 */
double tm_rd_log_gamma(tm_rng *r, double alpha);      /* log of a gamma(alpha, 1) draw */
double tm_rd_beta(tm_rng *r, double a, double b);
double tm_rd_student_t(tm_rng *r, double nu);         /* standard t */
double tm_rd_poisson(tm_rng *r, double lambda);       /* lambda < 2^30 */
double tm_rd_binomial(tm_rng *r, int n, double p);
/* Lower Cholesky factor L (n x n, column-major) of symmetric A; -1 if A is
** not positive definite. */
int tm_rd_cholesky(int n, const double *A, double *L);
#endif
