/*
** tm_transform_vec.c -- the vector transforms: ordered, positive_ordered,
** unit_vector, sum_to_zero_vector, simplex.  Each works on one vector; the
** generic driver in tm_transform.c applies it over arrays and records the
** node.
**
** sum_to_zero_vector is Stan's isometric transform (the inverse isometric
** log ratio in pivot coordinates): with w_i = u_i / sqrt(i (i + 1)) for the
** 1-based free index i = 1..N (N = K - 1),
**     z_j = sum_{i > j} w_i - j w_j    (j = 0..N, w_0 = 0),
** a linear map onto the zero-sum plane with orthonormal columns, so no
** Jacobian.  simplex is the transform of current Stan (2.36 and later; older
** Stan used stick-breaking): x = softmax(sum_to_zero_constrain(u)), with
** log |J| = sum_k log x_k + log(K) / 2, the Jacobian taken with respect to the
** first K - 1 coordinates of x.
*/
#include <math.h>
#include <string.h>
#include "../tm_transform.h"

/* ---- shapes ---- */

static const char *any_size(int rows, int cols) { (void)rows; (void)cols; return NULL; }
static const char *nonempty(int rows, int cols) {
  (void)cols;
  return rows > 0 ? NULL : "must have a non-zero size";
}
static size_t free_k(int rows, int cols) { (void)cols; return (size_t)rows; }
static size_t free_km1(int rows, int cols) { (void)cols; return rows > 0 ? (size_t)rows - 1 : 0; }
static size_t aux_none(int rows, int cols) { (void)rows; (void)cols; return 0; }
static size_t aux_k(int rows, int cols) { (void)cols; return (size_t)rows; }
static size_t aux_one(int rows, int cols) { (void)rows; (void)cols; return 1; }

/* ---- ordered and positive_ordered: partial sums of exp ---- */

static int ordered_fwd(int K, int pos, const double *x, double *y, double *aux, double *lp, double *dlp) {
  double l = 0;
  for (int k = 0; k < K; k++) {
    if (k == 0 && !pos) {
      y[0] = x[0];
      aux[0] = 1;
      continue;
    }
    aux[k] = exp(x[k]);
    y[k] = (k ? y[k - 1] : 0) + aux[k];
    l += x[k];
    if (dlp) dlp[k] = 1;
  }
  *lp = l;
  return AD_OK;
}

static int ordered_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols;
  return ordered_fwd(rows, 0, x, y, aux, lp, dlp);
}
static int pordered_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols;
  return ordered_fwd(rows, 1, x, y, aux, lp, dlp);
}

/* y_k depends on x_j (j <= k) through exp(x_j) (aux_j = 1 for an identity
** first element), so x_j collects the suffix sum of the adjoints. */
static void ordered_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                            const double *ybar, double *xbar) {
  (void)cols; (void)x; (void)y;
  double g = 0;
  for (int k = rows - 1; k >= 0; k--) {
    g += ybar[k];
    xbar[k] += g * aux[k];
  }
}

static int ordered_check(const char *fn, const char *what, int K, const double *y) {
  for (int k = 1; k < K; k++)
    if (!(y[k] > y[k - 1]))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid ordered vector. The element at %d is " TM_TR_FMT
                     ", but should be greater than the previous element, " TM_TR_FMT,
                     fn, what, k + 1, y[k], y[k - 1]);
  return AD_OK;
}

static int ordered_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  int rc = ordered_check("ordered_free", "Ordered variable", rows, y);
  if (rc) return rc;
  if (rows > 0) x[0] = y[0];
  for (int k = 1; k < rows; k++) x[k] = log(y[k] - y[k - 1]);
  return AD_OK;
}

static int pordered_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  if (rows > 0 && !(y[0] > 0))
    return ad_fail(AD_EDOMAIN, "positive_ordered_free: Positive ordered variable is not a valid positive_ordered "
                   "vector. The element at 1 is " TM_TR_FMT ", but should be positive.", y[0]);
  int rc = ordered_check("positive_ordered_free", "Positive ordered variable", rows, y);
  if (rc) return rc;
  for (int k = 0; k < rows; k++) x[k] = log(k ? y[k] - y[k - 1] : y[0]);
  return AD_OK;
}

/* ---- unit_vector: x / |x|, with Stan's -|x|^2 / 2 making the radius proper ---- */

static int unit_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols;
  double ss = 0;
  for (int k = 0; k < rows; k++) ss += x[k] * x[k];
  if (!(ss > 0 && isfinite(ss)))
    return ad_fail(AD_EDOMAIN, "unit_vector_constrain: norm is " TM_TR_FMT ", but must be positive finite!", ss);
  double r = sqrt(ss);
  for (int k = 0; k < rows; k++) y[k] = x[k] / r;
  aux[0] = r;
  *lp = -0.5 * ss;
  if (dlp) for (int k = 0; k < rows; k++) dlp[k] = -x[k];
  return AD_OK;
}

static void unit_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                         const double *ybar, double *xbar) {
  (void)cols; (void)x;
  double dot = 0, r = aux[0];
  for (int k = 0; k < rows; k++) dot += y[k] * ybar[k];
  for (int k = 0; k < rows; k++) xbar[k] += (ybar[k] - y[k] * dot) / r;
}

static int unit_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  double ss = 0;
  for (int k = 0; k < rows; k++) ss += y[k] * y[k];
  if (!(fabs(ss - 1.0) <= TM_TR_TOL))
    return ad_fail(AD_EDOMAIN, "unit_vector_free: Unit vector variable is not a valid unit vector. The sum of the "
                   "squares of the elements should be 1, but is " TM_TR_FMT, ss);
  memcpy(x, y, (size_t)rows * sizeof *x);
  return AD_OK;
}

/* ---- sum_to_zero_vector ---- */

/* z (K = N + 1 values) from u (N values). */
static void stz_map(int N, const double *u, double *z) {
  double sw = 0;
  for (int j = 0; j <= N; j++) z[j] = 0;
  for (int i = N; i > 0; i--) {
    double w = u[i - 1] / sqrt((double)i * (i + 1));
    sw += w;
    z[i - 1] += sw;
    z[i] -= w * i;
  }
}

/* ubar += T' zbar with zbar_k = a y_k (b_k - c) (b = NULL: zbar_k = a y_k):
** w_i collects the adjoints of z_0..z_{i-1} and -i zbar_i.  Computing zbar
** on the fly keeps the softmax adjoint without scratch memory. */
static inline double zb(const double *y, const double *b, double a, double c, int k) {
  return a * y[k] * (b ? b[k] - c : 1.0);
}
static void stz_transpose(int N, const double *y, const double *b, double a, double c, double *ubar) {
  double pre = 0;
  for (int i = 1; i <= N; i++) {
    pre += zb(y, b, a, c, i - 1);
    ubar[i - 1] += (pre - i * zb(y, b, a, c, i)) / sqrt((double)i * (i + 1));
  }
}

/* The inverse on the zero-sum plane: back-substitute from the last z.  With
** lg, z_k = log(y_k) - shift (the centred log of a simplex). */
static inline double zv(const double *y, int lg, double shift, int k) {
  return lg ? log(y[k]) - shift : y[k];
}
static void stz_inverse(int N, const double *y, int lg, double shift, double *u) {
  if (N == 0) return;
  double w = -zv(y, lg, shift, N) / N, s = w;
  u[N - 1] = w * sqrt((double)N * (N + 1));
  for (int j = N - 1; j >= 1; j--) {
    w = (s - zv(y, lg, shift, j)) / j;
    s += w;
    u[j - 1] = w * sqrt((double)j * (j + 1));
  }
}

static int stz_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols; (void)aux; (void)dlp;
  stz_map(rows - 1, x, y);
  *lp = 0;
  return AD_OK;
}

static void stz_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                        const double *ybar, double *xbar) {
  (void)cols; (void)x; (void)y; (void)aux;
  stz_transpose(rows - 1, ybar, NULL, 1.0, 0.0, xbar);
}

static int stz_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  double s = 0;
  for (int k = 0; k < rows; k++) s += y[k];
  if (!(fabs(s) <= TM_TR_TOL))
    return ad_fail(AD_EDOMAIN, "sum_to_zero_free: sum_to_zero variable does not sum to zero. "
                   "sum(sum_to_zero variable) = " TM_TR_FMT ", but should be 0", s);
  stz_inverse(rows - 1, y, 0, 0.0, x);
  return AD_OK;
}

/* ---- simplex = softmax(sum_to_zero_constrain(u)) ---- */

static int simplex_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)cols; (void)aux;
  int K = rows;
  stz_map(K - 1, x, y);
  double mx = -INFINITY, d = 0;
  for (int k = 0; k < K; k++) if (y[k] > mx) mx = y[k];
  for (int k = 0; k < K; k++) d += exp(y[k] - mx);
  for (int k = 0; k < K; k++) y[k] = exp(y[k] - mx) / d;
  /* sum z = 0, so sum log x = -K (max + log d) */
  *lp = -K * (mx + log(d)) + 0.5 * log((double)K);
  if (dlp) {
    /* d lp / dz = -K x; the constant 1 of d(sum z)/dz is orthogonal to the plane */
    stz_transpose(K - 1, y, NULL, -(double)K, 0.0, dlp);
  }
  return AD_OK;
}

static void simplex_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                            const double *ybar, double *xbar) {
  (void)cols; (void)x; (void)aux;
  int K = rows;
  double dot = 0;
  for (int k = 0; k < K; k++) dot += y[k] * ybar[k];
  stz_transpose(K - 1, y, ybar, 1.0, dot, xbar);
}

static int simplex_free(int rows, int cols, const double *y, double *x) {
  (void)cols;
  int K = rows;
  double s = 0;
  for (int k = 0; k < K; k++) {
    if (!(y[k] >= 0))
      return ad_fail(AD_EDOMAIN, "simplex_free: Simplex variable is not a valid simplex. Simplex variable[%d] = "
                     TM_TR_FMT ", but should be greater than or equal to 0", k + 1, y[k]);
    s += y[k];
  }
  if (!(fabs(s - 1.0) <= TM_TR_TOL))
    return ad_fail(AD_EDOMAIN, "simplex_free: Simplex variable is not a valid simplex. sum(Simplex variable) = "
                   TM_TR_FMT ", but should be 1", s);
  double mean = 0;
  for (int k = 0; k < K; k++) mean += log(y[k]);
  stz_inverse(K - 1, y, 1, mean / K, x);
  return AD_OK;
}

const tm_tr_ops tm_tr_ordered = {"ordered_constrain", "ordered_free", TM_VECTOR, 0, any_size, free_k, aux_k,
                                 ordered_forward, ordered_reverse, ordered_free};
const tm_tr_ops tm_tr_positive_ordered = {"positive_ordered_constrain", "positive_ordered_free", TM_VECTOR, 0,
                                          any_size, free_k, aux_k, pordered_forward, ordered_reverse,
                                          pordered_free};
const tm_tr_ops tm_tr_unit_vector = {"unit_vector_constrain", "unit_vector_free", TM_VECTOR, 0, nonempty, free_k,
                                     aux_one, unit_forward, unit_reverse, unit_free};
const tm_tr_ops tm_tr_sum_to_zero = {"sum_to_zero_constrain", "sum_to_zero_free", TM_VECTOR, 1, nonempty, free_km1,
                                     aux_none, stz_forward, stz_reverse, stz_free};
const tm_tr_ops tm_tr_simplex = {"simplex_constrain", "simplex_free", TM_VECTOR, 0, nonempty, free_km1, aux_none,
                                 simplex_forward, simplex_reverse, simplex_free};
