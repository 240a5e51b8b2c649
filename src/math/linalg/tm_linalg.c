/*
** tm_linalg.c -- the loops behind tm_linalg.h.
**
** Loop orders keep the innermost index running down a column, so memory is
** read contiguously in column-major storage.
*/
#include <math.h>
#include <stdatomic.h>
#include "../../ad/ad.h"
#include "../tm_linalg.h"
#include "../tm_simd.h"

static _Atomic(const tm_dense_ops *) dense_ops;

void tm_set_dense(const tm_dense_ops *ops) {
  atomic_store_explicit(&dense_ops, ops, memory_order_release);
}

const tm_dense_ops *tm_la_dense(void) {
  return atomic_load_explicit(&dense_ops, memory_order_acquire);
}

int tm_la_dense_gemm(int m, int n, int k) {
  const tm_dense_ops *d = tm_la_dense();
  return d && m > 0 && n > 0 && k > 0 && (double)m * n * k >= d->min_gemm;
}

/* L^-1 b (trans 'N') or L^-T b ('T') on the installed dense operations
** when the size is theirs: 1 when done there, 0 for the caller's loop */
static int dense_trsm(char trans, int n, int nrhs, const double *L, double *b) {
  const tm_dense_ops *d = tm_la_dense();
  if (!(d && n > 0 && nrhs > 0 && (double)n * n * nrhs >= d->min_trsm)) return 0;
  d->trsm('L', trans, n, nrhs, 1.0, L, n, b, n);
  return 1;
}

void tm_la_gemm_nn_rows(int m, int n, int k, double alpha, const double *A, const double *B, double *C,
                        int lo, int hi) {
  for (int j = 0; j < n; j++)
    for (int l = 0; l < k; l++) {
      double b = alpha * TM_AT(B, k, l, j);
      if (b == 0) continue;
      tm_block_axpy_add(&TM_AT(A, m, lo, l), b, &TM_AT(C, m, lo, j), (size_t)(hi - lo));
    }
}

void tm_la_gemm_nn(int m, int n, int k, double alpha, const double *A, const double *B, double *C) {
  if (tm_la_dense_gemm(m, n, k)) {
    tm_la_dense()->gemm('N', 'N', m, n, k, alpha, A, m, B, k, 1.0, C, m);
    return;
  }
  tm_la_gemm_nn_rows(m, n, k, alpha, A, B, C, 0, m);
}

/* Rows lo..hi of C += alpha A^T B.  Each element is one sum over l in
** order; four of them run side by side, so the additions of one do not
** wait for the last (the same operations, four times the throughput). */
void tm_la_gemm_tn_rows(int m, int n, int k, double alpha, const double *A, const double *B, double *C,
                        int lo, int hi) {
  for (int j = 0; j < n; j++) {
    const double *b = &TM_AT(B, k, 0, j);
    int i = lo;
    for (; i + 4 <= hi; i += 4) {
      const double *a0 = &TM_AT(A, k, 0, i), *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (int l = 0; l < k; l++) {
        s0 += a0[l] * b[l];
        s1 += a1[l] * b[l];
        s2 += a2[l] * b[l];
        s3 += a3[l] * b[l];
      }
      TM_AT(C, m, i, j) += alpha * s0;
      TM_AT(C, m, i + 1, j) += alpha * s1;
      TM_AT(C, m, i + 2, j) += alpha * s2;
      TM_AT(C, m, i + 3, j) += alpha * s3;
    }
    for (; i < hi; i++) {
      const double *a = &TM_AT(A, k, 0, i);
      double s = 0;
      for (int l = 0; l < k; l++) s += a[l] * b[l];
      TM_AT(C, m, i, j) += alpha * s;
    }
  }
}

void tm_la_gemm_tn(int m, int n, int k, double alpha, const double *A, const double *B, double *C) {
  if (tm_la_dense_gemm(m, n, k)) {
    tm_la_dense()->gemm('T', 'N', m, n, k, alpha, A, k, B, k, 1.0, C, m);
    return;
  }
  tm_la_gemm_tn_rows(m, n, k, alpha, A, B, C, 0, m);
}

void tm_la_gemm_nt(int m, int n, int k, double alpha, const double *A, const double *B, double *C) {
  if (tm_la_dense_gemm(m, n, k)) {
    tm_la_dense()->gemm('N', 'T', m, n, k, alpha, A, m, B, n, 1.0, C, m);
    return;
  }
  for (int l = 0; l < k; l++)
    for (int j = 0; j < n; j++) {
      double b = alpha * TM_AT(B, n, j, l);
      if (b == 0) continue;
      const double *a = &TM_AT(A, m, 0, l);
      double *c = &TM_AT(C, m, 0, j);
      for (int i = 0; i < m; i++) c[i] += a[i] * b;
    }
}

/* Left-looking Cholesky by blocks of TM_LA_NB columns: a block's columns
** take the finished columns to their left by products (tm_block_gemm_sub,
** TM_LA_KC of them at a time), then each other within the block one
** column at a time (tm_block_axpy_sub_cols), which also divides out the
** pivots below.  Column j needs the finished columns 0..j-1 only, which
** also makes L == A safe.  The sums' order depends on n alone, and the
** kernels do not fuse, so the bits are the same on every instruction set. */
#define TM_LA_NB 48
#define TM_LA_KC 64
/* ---- LU with partial pivoting: P A = L U in place, piv[k] the row swapped
** with row k at step k ---- */

void tm_la_lu_factor(int n, double *A, int *piv) {
  for (int k = 0; k < n; k++) {
    int p = k;
    double mx = fabs(TM_AT(A, n, k, k));
    for (int i = k + 1; i < n; i++)
      if (fabs(TM_AT(A, n, i, k)) > mx) { mx = fabs(TM_AT(A, n, i, k)); p = i; }
    piv[k] = p;
    if (p != k)
      for (int j = 0; j < n; j++) { double t = TM_AT(A, n, k, j); TM_AT(A, n, k, j) = TM_AT(A, n, p, j); TM_AT(A, n, p, j) = t; }
    double d = TM_AT(A, n, k, k);
    if (d != 0) for (int i = k + 1; i < n; i++) TM_AT(A, n, i, k) /= d;
    for (int j = k + 1; j < n; j++) {
      double a = TM_AT(A, n, k, j);
      if (a == 0) continue;
      for (int i = k + 1; i < n; i++) TM_AT(A, n, i, j) -= TM_AT(A, n, i, k) * a;
    }
  }
}

/* A x = b for m columns of b, in place */
void tm_la_lu_solve(int n, const double *LU, const int *piv, int m, double *b) {
  for (int c = 0; c < m; c++) {
    double *x = b + (size_t)c * n;
    for (int k = 0; k < n; k++) if (piv[k] != k) { double t = x[k]; x[k] = x[piv[k]]; x[piv[k]] = t; }
    for (int j = 0; j < n; j++) {
      double xj = x[j];
      if (xj != 0) for (int i = j + 1; i < n; i++) x[i] -= TM_AT(LU, n, i, j) * xj;
    }
    for (int j = n - 1; j >= 0; j--) {
      x[j] /= TM_AT(LU, n, j, j);
      double xj = x[j];
      if (xj != 0) for (int i = 0; i < j; i++) x[i] -= TM_AT(LU, n, i, j) * xj;
    }
  }
}

/* A^T x = b: U^T w = b, L^T v = w, x = P^T v */
void tm_la_lu_solve_t(int n, const double *LU, const int *piv, int m, double *b) {
  for (int c = 0; c < m; c++) {
    double *x = b + (size_t)c * n;
    for (int j = 0; j < n; j++) {
      double s = x[j];
      for (int i = 0; i < j; i++) s -= TM_AT(LU, n, i, j) * x[i];
      x[j] = s / TM_AT(LU, n, j, j);
    }
    for (int j = n - 1; j >= 0; j--) {
      double s = x[j];
      for (int i = j + 1; i < n; i++) s -= TM_AT(LU, n, i, j) * x[i];
      x[j] = s;
    }
    for (int k = n - 1; k >= 0; k--) if (piv[k] != k) { double t = x[k]; x[k] = x[piv[k]]; x[piv[k]] = t; }
  }
}

/* LAPACK's potrf on the lower triangle.  It stops at a pivot that is not
** positive or is NaN, as the loops below do; an infinite pivot it lets
** through, so the diagonal is checked after. */
static int cholesky_dense(const tm_dense_ops *d, int n, double *L, double *pivot) {
  int info = d->potrf(n, L, n);
  int bad = info > 0 ? info - 1 : -1;
  for (int j = 0; bad < 0 && j < n; j++)
    if (!isfinite(TM_AT(L, n, j, j))) bad = j;
  if (bad >= 0) {
    if (pivot) *pivot = TM_AT(L, n, bad, bad);
    return bad;
  }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++) TM_AT(L, n, i, j) = 0;
  return -1;
}

int tm_la_cholesky(int n, const double *A, double *L, double *pivot) {
  if (L != A)
    for (int j = 0; j < n; j++)
      for (int i = j; i < n; i++) TM_AT(L, n, i, j) = TM_AT(A, n, i, j);
  const tm_dense_ops *d = tm_la_dense();
  if (d && n >= d->min_chol) return cholesky_dense(d, n, L, pivot);
  double T[TM_LA_KC * TM_LA_NB];
  for (int j0 = 0; j0 < n; j0 += TM_LA_NB) {
    int k0 = j0 + TM_LA_NB < n ? j0 + TM_LA_NB : n, nb = k0 - j0;
    for (int l0 = 0; l0 < j0; l0 += TM_LA_KC) {
      int kc = j0 - l0 < TM_LA_KC ? j0 - l0 : TM_LA_KC;
      for (int c = 0; c < nb; c++)
        for (int l = 0; l < kc; l++) T[l + c * kc] = TM_AT(L, n, j0 + c, l0 + l);
      tm_block_gemm_sub((size_t)(n - j0), (size_t)nb, (size_t)kc, &TM_AT(L, n, j0, l0), (size_t)n, T, (size_t)kc,
                        &TM_AT(L, n, j0, j0), (size_t)n);
    }
    for (int j = j0; j < k0; j++) {
      tm_block_axpy_sub_cols(&TM_AT(L, n, j, j0), n, &TM_AT(L, n, j, j0), n, (size_t)(j - j0), &TM_AT(L, n, j, j),
                             (size_t)(n - j));
      double d = TM_AT(L, n, j, j);
      if (!(d > 0) || !isfinite(d)) {
        if (pivot) *pivot = d;
        return j;
      }
      d = sqrt(d);
      TM_AT(L, n, j, j) = d;
      for (int i = j + 1; i < n; i++) TM_AT(L, n, i, j) /= d;
    }
  }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++) TM_AT(L, n, i, j) = 0;
  return -1;
}

void tm_la_trsm_lower(int n, int nrhs, const double *L, double *b) {
  if (dense_trsm('N', n, nrhs, L, b)) return;
  for (int c = 0; c < nrhs; c++) {
    double *x = b + (size_t)c * (size_t)n;
    for (int j = 0; j < n; j++) {
      x[j] /= TM_AT(L, n, j, j);
      double xj = x[j];
      if (xj == 0) continue;
      for (int i = j + 1; i < n; i++) x[i] -= TM_AT(L, n, i, j) * xj;
    }
  }
}

void tm_la_trsm_lower_t(int n, int nrhs, const double *L, double *b) {
  if (dense_trsm('T', n, nrhs, L, b)) return;
  for (int c = 0; c < nrhs; c++) {
    double *x = b + (size_t)c * (size_t)n;
    for (int j = n - 1; j >= 0; j--) {
      const double *col = &TM_AT(L, n, 0, j);
      double s = x[j];
      for (int i = j + 1; i < n; i++) s -= col[i] * x[i];
      x[j] = s / col[j];
    }
  }
}

void tm_la_chol_inverse(int n, const double *L, double *out) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) TM_AT(out, n, i, j) = i == j ? 1.0 : 0.0;
  tm_la_trsm_lower(n, n, L, out);
  tm_la_trsm_lower_t(n, n, L, out);
  /* symmetrise: the two halves differ by rounding only */
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      double s = 0.5 * (TM_AT(out, n, i, j) + TM_AT(out, n, j, i));
      TM_AT(out, n, i, j) = TM_AT(out, n, j, i) = s;
    }
}

int tm_la_check_symmetric(const char *fn, const char *name, int n, const double *A) {
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      double a = TM_AT(A, n, i, j), b = TM_AT(A, n, j, i);
      if (!(fabs(a - b) <= 1e-8))
        return ad_fail(AD_EDOMAIN, "%s: %s is not symmetric. %s[%d,%d] = %g, but %s[%d,%d] = %g",
                       fn, name, name, j + 1, i + 1, b, name, i + 1, j + 1, a);
    }
  return AD_OK;
}
