/*
** tm_simd.h -- the two products every GLM spends its time in, on a block of
** rows of a column-major matrix: eta += X[rows] beta, and acc += X[rows]' g.
**
** A GLM walks its N rows in blocks small enough that the block's slice of X
** stays in cache between the two products, so X streams from memory once per
** evaluation.  The products use four columns at a time and SIMD lanes (GCC
** and clang vector extensions; AVX2 with FMA when the CPU has it, chosen at
** run time), as Eigen does for Stan: sums are taken in a different order
** from a plain loop, so the last bits may differ from one, and between a
** machine with AVX2 and one without, but not from run to run.
*/
#ifndef TM_SIMD_H
#define TM_SIMD_H
#include <stddef.h>

/* Rows per block: 256 rows of 24 columns are 48 kB. */
#define TM_SIMD_BLOCK 128

/* t[r] += sum_k x[k * ld + r] * beta[k], r < b (x points at the block's first row) */
void tm_block_gemv_n(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t);
/* acc[k] += sum_r x[k * ld + r] * g[r], k < K */
void tm_block_gemv_t(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc);

/* y[i] = exp(x[i]), i < n, within 2 ulp of libm's exp; lanes outside
** [-700, 700] (or NaN) go to libm's exp itself. y may be x. */
void tm_block_exp(const double *x, double *y, size_t n);

#endif
