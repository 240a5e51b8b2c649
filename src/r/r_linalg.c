/*
** r_linalg.c -- R's BLAS and LAPACK as src/math's dense operations.
**
** src/math includes no R header, so the Fortran calls live here and reach
** the kernels as function pointers (tm_set_dense).  The BLAS is the one R
** was linked with (BLAS_LIBS, LAPACK_LIBS): reference BLAS, OpenBLAS, MKL
** or whatever the installation chose.  The calls are plain Fortran, not R's
** API, so the chains' threads may make them; OpenBLAS and MKL are safe to
** call from several threads at once.
*/
#define USE_FC_LEN_T
#include <Rconfig.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#include "../math/tm_linalg.h"
#include "r_entries.h"

#ifndef FCONE
#define FCONE
#endif

static void r_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
                   int ldb, double beta, double *C, int ldc) {
  F77_CALL(dgemm)(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc FCONE FCONE);
}

static int r_potrf(int n, double *A, int lda) {
  char uplo = 'L';
  int info = 0;
  F77_CALL(dpotrf)(&uplo, &n, A, &lda, &info FCONE);
  return info;
}

static void r_trsm(char side, char ta, int m, int n, double alpha, const double *L, int ldl, double *B, int ldb) {
  char uplo = 'L', diag = 'N';
  F77_CALL(dtrsm)(&side, &uplo, &ta, &diag, &m, &n, &alpha, L, &ldl, B, &ldb FCONE FCONE FCONE FCONE);
}

/* The sizes come from R (R/linalg.R), where they are documented. */
static tm_dense_ops r_ops = { r_gemm, r_potrf, r_trsm, 0, 0, 0 };

/* tp_dense_set(on, min_gemm, min_chol, min_trsm): install R's BLAS and
** LAPACK for products, Cholesky factors and triangular solves at or above
** those sizes (on = TRUE), or go back to our own loops (on = FALSE).
** Returns whether they are installed. */
SEXP tp_dense_set(SEXP on, SEXP min_gemm, SEXP min_chol, SEXP min_trsm) {
  int o = asLogical(on);
  if (o == NA_LOGICAL) error("tp_dense_set: 'on' must be TRUE or FALSE");
  if (o) {
    /* R's main thread runs no evaluation while it is here (chains run only
    ** inside tp_sample), so no kernel reads the sizes while they change */
    tm_set_dense(NULL);
    r_ops.min_gemm = asReal(min_gemm);
    r_ops.min_chol = asInteger(min_chol);
    r_ops.min_trsm = asReal(min_trsm);
    tm_set_dense(&r_ops);
  } else {
    tm_set_dense(NULL);
  }
  return ScalarLogical(tm_la_dense() != NULL);
}
