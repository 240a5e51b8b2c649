/*
** cli_blas.c -- the system's BLAS and LAPACK as the core's dense
** operations, when the driver is built with them (make BLAS="-llapack
** -lblas", or -lopenblas): src/r/r_linalg.c does the same with R's, and
** these sizes are R's defaults (R/linalg.R: where OpenBLAS overtook the
** core's kernels on one core).  Built without BLAS (the default) the
** driver runs the core's own kernels, as R does with a reference BLAS.
*/
#include "cli.h"

#ifdef CLI_BLAS
#include "math/tm_linalg.h"

/* Fortran's calling convention, with the hidden lengths of the character
** arguments (gfortran: size_t after the others). */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *A, const int *lda, const double *B, const int *ldb, const double *beta, double *C,
            const int *ldc, size_t, size_t);
void dpotrf_(const char *uplo, const int *n, double *A, const int *lda, int *info, size_t);
void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m, const int *n,
            const double *alpha, const double *L, const int *ldl, double *B, const int *ldb, size_t, size_t,
            size_t, size_t);

static void c_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
                   int ldb, double beta, double *C, int ldc) {
  dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
}

static int c_potrf(int n, double *A, int lda) {
  char uplo = 'L';
  int info = 0;
  dpotrf_(&uplo, &n, A, &lda, &info, 1);
  return info;
}

static void c_trsm(char side, char ta, int m, int n, double alpha, const double *L, int ldl, double *B, int ldb) {
  char uplo = 'L', diag = 'N';
  dtrsm_(&side, &uplo, &ta, &diag, &m, &n, &alpha, L, &ldl, B, &ldb, 1, 1, 1, 1);
}

static const tm_dense_ops ops = { c_gemm, c_potrf, c_trsm, 16.0 * 16 * 16, 96, 16.0 * 16 * 16 };

int cli_blas_install(void) {
  tm_set_dense(&ops);
  return 1;
}
#else
int cli_blas_install(void) { return 0; }
#endif
