/*
** tm_linalg.h -- small dense linear algebra on doubles, for the matrix
** module, the multivariate densities and the tree's solvers.
**
** Column-major storage with the leading dimension equal to the row count,
** as tm_v stores matrices.  Our own loops and tm_simd.h's kernels by
** default: their bits do not depend on the BLAS the R installation was
** linked with, and at the sizes of Stan programs they beat the reference
** BLAS that Debian's R uses.  When src/r installs dense operations
** (tm_set_dense: R's BLAS and LAPACK, on an optimized BLAS or when the
** user asks), products, Cholesky factors and triangular solves at or above
** the sizes it gives go to them instead.  The choice depends on the sizes
** alone, so the results are reproducible for a given R installation.
*/
#ifndef TM_LINALG_H
#define TM_LINALG_H

#include <stddef.h>

#define TM_AT(A, ld, i, j) ((A)[(size_t)(j) * (size_t)(ld) + (size_t)(i)])

/* Dense operations of a BLAS and LAPACK, in their argument conventions
** (column-major, leading dimensions, 'N'/'T').  The triangle is always the
** lower one and the diagonal not unit.  gemm: C = alpha op(A) op(B) + beta C;
** potrf: the lower Cholesky factor in place, LAPACK's info; trsm: B =
** alpha op(L)^-1 B (side 'L') or alpha B op(L)^-1 (side 'R'). */
typedef struct tm_dense_ops {
  void (*gemm)(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
               int ldb, double beta, double *C, int ldc);
  int (*potrf)(int n, double *A, int lda);
  void (*trsm)(char side, char ta, int m, int n, double alpha, const double *L, int ldl, double *B, int ldb);
  double min_gemm;   /* multiply-adds m n k from which products go to gemm */
  int min_chol;      /* order n from which Cholesky factors (and their reverse passes) go to potrf/gemm */
  double min_trsm;   /* multiply-adds n n nrhs from which triangular solves go to trsm */
} tm_dense_ops;

/* Install (ops) or remove (NULL) the dense operations.  Called on R's main
** thread between evaluations; ops must outlive its use. */
void tm_set_dense(const tm_dense_ops *ops);
/* The installed operations, or NULL. */
const tm_dense_ops *tm_la_dense(void);
/* Does a product of m x k by k x n go to the installed gemm? */
int tm_la_dense_gemm(int m, int n, int k);

/* C (m x n) += alpha * A (m x k) * B (k x n) */
void tm_la_gemm_nn(int m, int n, int k, double alpha, const double *A, const double *B, double *C);
/* C (m x n) += alpha * A^T * B, A is k x m, B is k x n */
/* Rows lo .. hi of tm_la_gemm_nn's C, the same bits. */
void tm_la_gemm_nn_rows(int m, int n, int k, double alpha, const double *A, const double *B, double *C,
                        int lo, int hi);
/* Rows lo .. hi of tm_la_gemm_tn's C, the same bits. */
void tm_la_gemm_tn_rows(int m, int n, int k, double alpha, const double *A, const double *B, double *C,
                        int lo, int hi);
void tm_la_gemm_tn(int m, int n, int k, double alpha, const double *A, const double *B, double *C);
/* C (m x n) += alpha * A * B^T, A is m x k, B is n x k */
void tm_la_gemm_nt(int m, int n, int k, double alpha, const double *A, const double *B, double *C);

/* LU with partial pivoting: P A = L U in place (n x n), piv[k] the row
** swapped with row k at step k; a zero pivot is left on U's diagonal. */
void tm_la_lu_factor(int n, double *A, int *piv);
/* A x = b, and A^T x = b, for m columns of b in place, from the factors. */
void tm_la_lu_solve(int n, const double *LU, const int *piv, int m, double *b);
void tm_la_lu_solve_t(int n, const double *LU, const int *piv, int m, double *b);

/* Lower Cholesky factor of the lower triangle of A (n x n) into L (upper
** triangle zeroed; L may equal A).  Returns -1 on success, else the index of
** the pivot that was not positive (or NaN); *pivot gets its value. */
int tm_la_cholesky(int n, const double *A, double *L, double *pivot);

/* Solve L x = b in place for nrhs columns (b is n x nrhs), reading only the
** lower triangle of L; and L^T x = b. */
void tm_la_trsm_lower(int n, int nrhs, const double *L, double *b);
void tm_la_trsm_lower_t(int n, int nrhs, const double *L, double *b);

/* Stan's check_symmetric (absolute tolerance 1e-8) on an n x n matrix:
** AD_OK or an AD_EDOMAIN failure naming fn and the argument. */
int tm_la_check_symmetric(const char *fn, const char *name, int n, const double *A);

/* inverse of L L^T from its Cholesky factor L, full symmetric n x n */
void tm_la_chol_inverse(int n, const double *L, double *out);

/* s * x for a scalar s and the n values of a real container x, into o; and
** its node's reverse step: xadj[i] += s * cadj[i] (x autodiff), then
** *sadj += the sum of cadj[i] * x[i] (s autodiff; x as it was then).  Also
** run by a plan's call that made no node (src/plan). */
void tm_scale_values(size_t n, double s, const double *x, double *o);
void tm_scale_back(size_t n, double s, const double *x, double *xadj, double *sadj, const double *cadj);

#endif
