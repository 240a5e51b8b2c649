/*
** tm_simd.h -- what the GLMs spend their time in, on a block of rows: the two
** products of a column-major matrix, eta += X[rows] beta and
** acc += X[rows]' g, and log1p_exp and the Bernoulli-logit and Poisson-log
** terms of the rows.
**
** A GLM walks its N rows in blocks small enough that the block's slice of X
** stays in cache between the two products, so X streams from memory once per
** evaluation.  The products use four columns at a time and SIMD lanes (GCC
** and clang vector extensions; AVX2 with FMA, or AVX-512, when the CPU has
** it, chosen at run time), as Eigen does for Stan: sums are taken in a
** different order from a plain loop, so the last bits may differ from one,
** and between machines with different instruction sets, but not from run to
** run.
*/
#ifndef TM_SIMD_H
#define TM_SIMD_H
#include <stddef.h>

/* Rows per block: 128 rows of 24 columns are 24 kB, within a core's L1. */
#define TM_SIMD_BLOCK 128

/* t[r] = sum_k x[k * ld + r] * beta[k], r < b (x points at the block's first row) */
void tm_block_gemv_n(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t);
/* The widest vector's lanes: X' g is kept as K rows of this many lane sums
** (zeroed by the caller) until the last block, since a sum across lanes on
** every block cost as much as the products. */
#define TM_SIMD_LANES 8
/* acc[k * TM_SIMD_LANES + l] += the lane-l part of sum_r x[k * ld + r] * g[r], k < K */
void tm_block_gemv_t(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc);
/* out[k] = sum_l acc[k * TM_SIMD_LANES + l], k < K */
void tm_block_lane_sums(const double *acc, size_t K, double *out);
/* x[0] + ... + x[n - 1], on lanes */
double tm_block_sum(const double *x, size_t n);

/* l[i] = log(1 + exp(z[i])), p[i] = inv_logit(z[i]), q[i] = inv_logit(-z[i]),
** each from one exp(-|z|), so none loses digits to a difference from 1.
** The exp is within 2 ulp of libm's and the log1p within 1 (libm's own where
** |z| >= 700); an element has the same bits whatever the lanes around it
** and the instruction set (no fused multiply-adds). */
void tm_block_log1p_exp(const double *z, double *l, double *p, double *q, size_t n);

/* Bernoulli-logit, one outcome y and linear predictor eta: returns the log
** mass log inv_logit(s eta), s = 2 y - 1, and sets *d to its derivative in
** eta, s inv_logit(-s eta), with tm_block_log1p_exp's exp and log1p: the
** scalar density calls this, so a loop of them run as lanes
** (tm_block_bernoulli_logit) keeps its bits. */
double tm_bernoulli_logit1(int y, double eta, double *d);
/* lp[i] = tm_bernoulli_logit1(y[i], eta[i], d + i), i < n, on vector lanes */
void tm_block_bernoulli_logit(const int *y, const double *eta, double *lp, double *d, size_t n);

/* Fused rows of the GLMs, eta_i = t[i] + al[i * as] (as 0: one intercept)
** and outcome y[i * ys] (ys 0: one outcome); each returns the sum of the
** rows' terms and leaves in t[i] the term's derivative in eta_i.
** Bernoulli-logit: log inv_logit(s eta) with s = 2 y - 1; s inv_logit(-s eta).
** Poisson-log: y eta - exp(eta); y - exp(eta). */
double tm_rows_bernoulli_logit(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n);
double tm_rows_poisson_log(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n);
/* Normal rows with one scale, y[i] one per row: t[i] = z = (y - eta) / sigma
** in Stan's order, ((y - x beta) - alpha) * inv_s. */
void tm_rows_normal_z(const double *y, const double *al, size_t as, double inv_s, double *t, size_t n);
/* x[0]^2 + ... + x[n - 1]^2, on lanes: every path to a sum of squares goes
** through here, so a value and its twin on the tape add in the same order */
double tm_block_sumsq(const double *x, size_t n);
/* x[i] *= c */
/* y[i] -= x[i] * a, i < n: the plain loop's bits on every variant (no fused
** multiply-add). */
void tm_block_axpy_sub(const double *x, double a, double *y, size_t n);
/* y[i] += x[i] * a, the same way. */
void tm_block_axpy_add(const double *x, double a, double *y, size_t n);
/* tm_block_axpy_sub(x + k ld, c[k cs], y, n) for k = 0 .. K - 1 in turn,
** skipping a c of 0: the same bits, with y held in registers across the K
** steps */
void tm_block_axpy_sub_cols(const double *x, ptrdiff_t ld, const double *c, ptrdiff_t cs, size_t K, double *y,
                            size_t n);
/* C -= A B: C m x n, A m x k, B k x n, column-major with leading dimensions
** ldc, lda, ldb; each element's k products summed in order, then taken from
** it, never fused: the same bits on every instruction set */
void tm_block_gemm_sub(size_t m, size_t n, size_t k, const double *A, size_t lda, const double *B, size_t ldb,
                       double *C, size_t ldc);
void tm_block_scale(double *x, double c, size_t n);

/* Caps the instruction set the kernels use (0 the baseline, 1 AVX2, 2 or -1
** whatever the CPU has) and returns the one now in use.  For tests and
** benchmarks; not while kernels run on other threads. */
int tm_simd_cap(int cap);

#endif
