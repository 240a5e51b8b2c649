/*
** tm_transform_mat.c -- the matrix transforms: cholesky_factor_corr,
** cholesky_factor_cov, corr_matrix, cov_matrix.  Matrices are column-major.
**
** Correlations come from canonical partial correlations z = tanh(u) (LKJ's
** C-vine, Ben Goodrich's Cholesky form): row i of the Cholesky factor is
**     L(i,j) = z_ij c_ij,  c_i0 = 1,  c_i,j+1 = c_ij sqrt(1 - z_ij^2),  L(i,i) = c_ii.
** We carry c as a product of sech(u) (= sqrt(1 - tanh^2 u)) rather than
** Stan's sqrt(1 - sum of squares): the same number, but no cancellation
** near |z| = 1 and no division in the reverse step.
** Stan orders the free values differently for the two:
**   cholesky_factor_corr  row by row:       (1,0), (2,0), (2,1), (3,0), ...
**   corr_matrix           column by column: (1,0), (2,0), ..., (K-1,0), (2,1), ...
** and their Jacobians differ (a Cholesky factor versus L L').
** cov_matrix is L L' with L row by row, diagonal exp; cholesky_factor_cov
** reads its lower triangle row by row with the diagonal through exp.
*/
#include <math.h>
#include <string.h>
#include "../tm_transform.h"
#include "../tm_special.h"

#define AT(A, i, j, n) (A)[(size_t)(i) + (size_t)(j) * (size_t)(n)]

static const char *square(int rows, int cols) { return rows == cols ? NULL : "must be square"; }
static const char *tall(int rows, int cols) {
  return rows >= cols ? NULL : "must have at least as many rows as columns";
}
static size_t free_tri(int rows, int cols) { (void)cols; return (size_t)rows * (size_t)(rows > 0 ? rows - 1 : 0) / 2; }
static size_t free_tri_diag(int rows, int cols) { (void)cols; return (size_t)rows * (size_t)(rows + 1) / 2; }
static size_t free_chol(int M, int N) {
  return (size_t)N * (size_t)(N + 1) / 2 + (size_t)(M - N) * (size_t)N;
}
static size_t aux_none(int rows, int cols) { (void)rows; (void)cols; return 0; }
static size_t aux_corr(int rows, int cols) { return 3 * free_tri(rows, cols); }
static size_t aux_corr_matrix(int rows, int cols) { return 3 * free_tri(rows, cols) + (size_t)rows * (size_t)rows; }
static size_t aux_square(int rows, int cols) { (void)cols; return (size_t)rows * (size_t)rows; }

/* log sech(u) = log(1 - tanh(u)^2) / 2, without overflow for large |u|. */
static double log_sech(double u) {
  double a = fabs(u);
  return TM_LOG_2 - a - log1p(exp(-2.0 * a));
}

/* ---- rows of a correlation Cholesky factor from partial correlations ---- */

/* Position of the free value of (i, j), j < i, in Stan's order. */
static size_t pos_rows(int K, int i, int j) { (void)K; return (size_t)i * (size_t)(i - 1) / 2 + (size_t)j; }
static size_t pos_cols(int K, int i, int j) {
  return (size_t)j * (size_t)(K - 1) - (size_t)j * (size_t)(j > 0 ? j - 1 : 0) / 2 + (size_t)(i - j - 1);
}
typedef size_t (*pos_fn)(int K, int i, int j);

/* L (K x K) from u.  aux keeps z, sech and c per free value (3 m doubles);
** coef(K, i, j) is the weight of log(1 - z_ij^2) in log |J|. */
static void corr_L(int K, pos_fn pos, double (*coef)(int K, int i, int j), const double *u, double *L,
                   double *aux, double *lp, double *dlp) {
  size_t m = free_tri(K, K);
  double *Z = aux, *H = aux + m, *C = aux + 2 * m, l = 0;
  memset(L, 0, (size_t)K * (size_t)K * sizeof *L);
  if (K > 0) AT(L, 0, 0, K) = 1;
  for (int i = 1; i < K; i++) {
    double c = 1;
    for (int j = 0; j < i; j++) {
      size_t p = pos(K, i, j);
      double z = tanh(u[p]), h = 1.0 / cosh(u[p]), a = coef(K, i, j);
      Z[p] = z;
      H[p] = h;
      C[p] = c;
      AT(L, i, j, K) = z * c;
      c *= h;
      l += a * 2.0 * log_sech(u[p]);
      if (dlp) dlp[p] = -2.0 * a * z;
    }
    AT(L, i, i, K) = c;
  }
  *lp = l;
}

/* ubar += (dL/du)' Lbar, row by row backwards through c. */
static void corr_L_reverse(int K, pos_fn pos, const double *aux, const double *Lbar, double *ubar) {
  size_t m = free_tri(K, K);
  const double *Z = aux, *H = aux + m, *C = aux + 2 * m;
  for (int i = 1; i < K; i++) {
    double cbar = AT(Lbar, i, i, K);
    for (int j = i - 1; j >= 0; j--) {
      size_t p = pos(K, i, j);
      double z = Z[p], h = H[p], c = C[p], lb = AT(Lbar, i, j, K);
      ubar[p] += lb * c * h * h - cbar * c * h * z;
      cbar = lb * z + cbar * h;
    }
  }
}

/* Partial correlations back from a Cholesky factor with unit rows. */
static void corr_L_free(int K, pos_fn pos, const double *L, double *u) {
  for (int i = 1; i < K; i++) {
    double ss = 0;
    for (int j = 0; j < i; j++) {
      double v = AT(L, i, j, K);
      u[pos(K, i, j)] = atanh(v / sqrt(1.0 - ss));
      ss += v * v;
    }
  }
}

/* Weights of log(1 - z^2): Stan's corr_constrain term (1) plus, for the
** Cholesky factor, 1/2 for each later element of the row; for the
** correlation matrix (read_corr_L), (K - j - 2) / 2 by column j. */
static double coef_chol(int K, int i, int j) { (void)K; return 1.0 + 0.5 * (i - 1 - j); }
static double coef_matrix(int K, int i, int j) { (void)i; return 1.0 + 0.5 * (K - j - 2); }

/* ---- small dense helpers ---- */

/* Y = L L' for lower-triangular L (K x K). */
static void lower_self_outer(int K, const double *L, double *Y) {
  for (int i = 0; i < K; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k <= j; k++) s += AT(L, i, k, K) * AT(L, j, k, K);
      AT(Y, i, j, K) = AT(Y, j, i, K) = s;
    }
}

/* (Ybar + Ybar') L, lower triangle only: the adjoint of L in Y = L L'. */
static double outer_adj(int K, const double *L, const double *Ybar, int a, int b) {
  double s = 0;
  for (int j = b; j < K; j++) s += (AT(Ybar, a, j, K) + AT(Ybar, j, a, K)) * AT(L, j, b, K);
  return s;
}

/* Lower Cholesky factor of the lower triangle of A; nonzero if not positive definite. */
static int cholesky(int K, const double *A, double *L) {
  memset(L, 0, (size_t)K * (size_t)K * sizeof *L);
  for (int j = 0; j < K; j++) {
    double d = AT(A, j, j, K);
    for (int k = 0; k < j; k++) d -= AT(L, j, k, K) * AT(L, j, k, K);
    if (!(d > 0) || !isfinite(d)) return 1;
    double r = sqrt(d);
    AT(L, j, j, K) = r;
    for (int i = j + 1; i < K; i++) {
      double s = AT(A, i, j, K);
      for (int k = 0; k < j; k++) s -= AT(L, i, k, K) * AT(L, j, k, K);
      AT(L, i, j, K) = s / r;
    }
  }
  return 0;
}

static int check_symmetric(const char *fn, int K, const double *y) {
  for (int j = 0; j < K; j++)
    for (int i = j + 1; i < K; i++)
      if (!(fabs(AT(y, i, j, K) - AT(y, j, i, K)) <= TM_TR_TOL))
        return ad_fail(AD_EDOMAIN, "%s: y is not symmetric. y[%d,%d] = " TM_TR_FMT ", but y[%d,%d] = " TM_TR_FMT,
                       fn, j + 1, i + 1, AT(y, j, i, K), i + 1, j + 1, AT(y, i, j, K));
  return AD_OK;
}

static int check_lower(const char *fn, int M, int N, const double *y) {
  for (int j = 1; j < N; j++)
    for (int i = 0; i < j && i < M; i++)
      if (AT(y, i, j, M) != 0)
        return ad_fail(AD_EDOMAIN, "%s: y is not lower triangular; y[%d,%d]=" TM_TR_FMT, fn, i + 1, j + 1,
                       AT(y, i, j, M));
  for (int k = 0; k < N; k++)
    if (!(AT(y, k, k, M) > 0))
      return ad_fail(AD_EDOMAIN, "%s: y[%d,%d] is " TM_TR_FMT ", but the diagonal must be positive!", fn, k + 1,
                     k + 1, AT(y, k, k, M));
  return AD_OK;
}

/* ---- cholesky_factor_corr ---- */

static int cf_corr_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols;
  corr_L(rows, pos_rows, coef_chol, x, y, aux, lp, dlp);
  return AD_OK;
}

static void cf_corr_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                            const double *ybar, double *xbar) {
  (void)cols; (void)x; (void)y;
  corr_L_reverse(rows, pos_rows, aux, ybar, xbar);
}

static int cf_corr_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  int K = rows, rc = check_lower("cholesky_corr_free", K, K, y);
  if (rc) return rc;
  for (int i = 0; i < K; i++) {
    double ss = 0;
    for (int j = 0; j <= i; j++) ss += AT(y, i, j, K) * AT(y, i, j, K);
    if (!(fabs(ss - 1.0) <= TM_TR_TOL))
      return ad_fail(AD_EDOMAIN, "cholesky_corr_free: y is not a valid Cholesky factor of a correlation matrix. "
                     "Row %d has squared norm " TM_TR_FMT ", but should have 1", i + 1, ss);
  }
  corr_L_free(K, pos_rows, y, x);
  return AD_OK;
}

/* ---- corr_matrix ---- */

static int corr_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols;
  int K = rows;
  double *L = aux + 3 * free_tri(K, K);
  corr_L(K, pos_cols, coef_matrix, x, L, aux, lp, dlp);
  lower_self_outer(K, L, y);
  return AD_OK;
}

static void corr_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                         const double *ybar, double *xbar) {
  (void)cols; (void)x; (void)y;
  int K = rows;
  size_t m = free_tri(K, K);
  const double *L = aux + 3 * m;
  /* as corr_L_reverse, with Lbar(i, j) of Y = L L' computed when needed
  ** (O(K) each, O(K^3) in all, no scratch memory) */
  const double *Z = aux, *H = aux + m, *C = aux + 2 * m;
  for (int i = 1; i < K; i++) {
    double cbar = outer_adj(K, L, ybar, i, i);
    for (int j = i - 1; j >= 0; j--) {
      size_t p = pos_cols(K, i, j);
      double z = Z[p], h = H[p], c = C[p], lb = outer_adj(K, L, ybar, i, j);
      xbar[p] += lb * c * h * h - cbar * c * h * z;
      cbar = lb * z + cbar * h;
    }
  }
}

static int corr_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  int K = rows, rc = check_symmetric("corr_matrix_free", K, y);
  if (rc) return rc;
  for (int k = 0; k < K; k++)
    if (!(fabs(AT(y, k, k, K) - 1.0) <= TM_TR_TOL))
      return ad_fail(AD_EDOMAIN, "corr_matrix_free: y is not a valid correlation matrix. y[%d,%d] is " TM_TR_FMT
                     ", but should be near 1", k + 1, k + 1, AT(y, k, k, K));
  size_t kk = (size_t)K * (size_t)K;
  double *R = ad_alloc_doubles(2 * kk + 1);
  if (!R) return AD_EMEMORY;
  double *L = R + kk;
  /* rescale to a unit diagonal, as Stan's factor_cov_matrix does */
  for (int j = 0; j < K; j++)
    for (int i = 0; i < K; i++)
      AT(R, i, j, K) = i == j ? 1.0 : AT(y, i, j, K) / sqrt(AT(y, i, i, K) * AT(y, j, j, K));
  if (cholesky(K, R, L)) return ad_fail(AD_EDOMAIN, "corr_matrix_free: y is not positive definite.");
  corr_L_free(K, pos_cols, L, x);
  return AD_OK;
}

/* ---- cov_matrix ---- */

static int cov_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols;
  int K = rows;
  double *L = aux, l = K * TM_LOG_2;
  memset(L, 0, (size_t)K * (size_t)K * sizeof *L);
  size_t p = 0;
  for (int m = 0; m < K; m++) {
    for (int n = 0; n < m; n++) {
      AT(L, m, n, K) = x[p];
      if (dlp) dlp[p] = 0;
      p++;
    }
    AT(L, m, m, K) = exp(x[p]);
    /* L_mm^(K - m) from L L', one more from exp */
    l += (K - m + 1) * x[p];
    if (dlp) dlp[p] = K - m + 1;
    p++;
  }
  lower_self_outer(K, L, y);
  *lp = l;
  return AD_OK;
}

static void cov_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                        const double *ybar, double *xbar) {
  (void)cols; (void)x; (void)y;
  int K = rows;
  const double *L = aux;
  size_t p = 0;
  for (int m = 0; m < K; m++) {
    for (int n = 0; n < m; n++) xbar[p++] += outer_adj(K, L, ybar, m, n);
    xbar[p++] += outer_adj(K, L, ybar, m, m) * AT(L, m, m, K);
  }
}

static int cov_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  int K = rows, rc;
  for (int k = 0; k < K; k++)
    if (!(AT(y, k, k, K) > 0))
      return ad_fail(AD_EDOMAIN, "cov_matrix_free: y[%d,%d] is " TM_TR_FMT ", but the diagonal must be positive!",
                     k + 1, k + 1, AT(y, k, k, K));
  if ((rc = check_symmetric("cov_matrix_free", K, y))) return rc;
  double *L = ad_alloc_doubles((size_t)K * (size_t)K + 1);
  if (!L) return AD_EMEMORY;
  if (cholesky(K, y, L)) return ad_fail(AD_EDOMAIN, "cov_matrix_free: y is not positive definite.");
  size_t p = 0;
  for (int m = 0; m < K; m++) {
    for (int n = 0; n < m; n++) x[p++] = AT(L, m, n, K);
    x[p++] = log(AT(L, m, m, K));
  }
  return AD_OK;
}

/* ---- cholesky_factor_cov[M, N] ---- */

static int cf_cov_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)aux;
  int M = rows, N = cols;
  double l = 0;
  memset(y, 0, (size_t)M * (size_t)N * sizeof *y);
  size_t p = 0;
  for (int m = 0; m < M; m++) {
    int last = m < N ? m : N;
    for (int n = 0; n < last; n++) {
      AT(y, m, n, M) = x[p];
      if (dlp) dlp[p] = 0;
      p++;
    }
    if (m < N) {
      AT(y, m, m, M) = exp(x[p]);
      l += x[p];
      if (dlp) dlp[p] = 1;
      p++;
    }
  }
  *lp = l;
  return AD_OK;
}

static void cf_cov_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                           const double *ybar, double *xbar) {
  (void)x; (void)aux;
  int M = rows, N = cols;
  size_t p = 0;
  for (int m = 0; m < M; m++) {
    int last = m < N ? m : N;
    for (int n = 0; n < last; n++) xbar[p++] += AT(ybar, m, n, M);
    if (m < N) { xbar[p] += AT(ybar, m, m, M) * AT(y, m, m, M); p++; }
  }
}

static int cf_cov_free(int rows, int cols, const double *y, double *x) {
  int M = rows, N = cols, rc = check_lower("cholesky_factor_free", M, N, y);
  if (rc) return rc;
  size_t p = 0;
  for (int m = 0; m < M; m++) {
    int last = m < N ? m : N;
    for (int n = 0; n < last; n++) x[p++] = AT(y, m, n, M);
    if (m < N) x[p++] = log(AT(y, m, m, M));
  }
  return AD_OK;
}

const tm_tr_ops tm_tr_cholesky_corr = {"cholesky_corr_constrain", "cholesky_corr_free", TM_MATRIX, 0, square, free_tri,
                                       aux_corr, cf_corr_forward, cf_corr_reverse, cf_corr_free};
const tm_tr_ops tm_tr_cholesky_cov = {"cholesky_factor_constrain", "cholesky_factor_free", TM_MATRIX, 0, tall,
                                      free_chol, aux_none, cf_cov_forward, cf_cov_reverse, cf_cov_free};
const tm_tr_ops tm_tr_corr_matrix = {"corr_matrix_constrain", "corr_matrix_free", TM_MATRIX, 0, square, free_tri,
                                     aux_corr_matrix, corr_forward, corr_reverse, corr_free};
const tm_tr_ops tm_tr_cov_matrix = {"cov_matrix_constrain", "cov_matrix_free", TM_MATRIX, 0, square, free_tri_diag,
                                    aux_square, cov_forward, cov_reverse, cov_free};
