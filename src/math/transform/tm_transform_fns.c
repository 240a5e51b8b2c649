/*
** tm_transform_fns.c -- Stan's transform functions (Stan 2.37):
** X_constrain, X_jacobian and X_unconstrain for lower_bound, upper_bound,
** lower_upper_bound, offset_multiplier, ordered, positive_ordered, simplex,
** sum_to_zero (vector and matrix), unit_vector, cholesky_factor_corr,
** cholesky_factor_cov, corr_matrix, cov_matrix, stochastic_column and
** stochastic_row.
**
** The maps are the parameter transforms of tm_transform*.c (the same values
** a parameter declared with the constraint gets), and three more defined
** here on the same generic driver: stochastic_column (each column a simplex:
** (N - 1) x M free values, column-major), stochastic_row (each row a
** simplex: N x (M - 1)) and sum_to_zero of a matrix (Stan's transform
** P_N X P_M' of the (N - 1) x (M - 1) free matrix, with P_n the (n + 1) x n
** matrix of orthonormal columns p_k = b_k e_k - a_k (e_0 + ... + e_{k-1} +
** e_n), a_k = 1 / sqrt((k + 1)(k + 2)), b_k = (k + 1) a_k: zero sums over
** rows and columns, no Jacobian).
**
** X_unconstrain of autodiff values records one node: the derivative of
** Stan's free map (elementwise bounds, ordered, positive_ordered,
** unit_vector, sum_to_zero, simplex, stochastic matrices, cholesky_factor_cov).
** For cholesky_factor_corr, corr_matrix and cov_matrix it is the derivative of
** the inverse of the constraint on its tangent space: with J the Jacobian of
** the constrain map at x = free(y) (its rows from the transform's reverse
** step), ybar += J (J'J)^-1 xbar, which is exact for every change of y that
** keeps the constraint (a symmetric change of a covariance matrix, ...), the
** only changes free() accepts.  It costs one reverse step per constrained
** value, then an m x m solve (m free values).
*/
#include <math.h>
#include <string.h>
#include "../tm_transform_fns.h"
#include "../tm_scalar.h"
#include "../tm_linalg.h"

/* ---- sum_to_zero of a matrix ---- */

static inline double pa(int k) { return 1.0 / sqrt((k + 1.0) * (k + 2.0)); }

/* z (n + 1 values, stride sz) = P_n u (n values, stride su) */
static void p_apply(int n, const double *u, size_t su, double *z, size_t sz) {
  double s = 0;
  for (int i = n - 1; i >= 0; i--) {
    double a = pa(i), ui = u[(size_t)i * su];
    z[(size_t)i * sz] = (i + 1.0) * a * ui - s;
    s += a * ui;
  }
  z[(size_t)n * sz] = -s;
}

/* u (n values, stride su) += P_n' z (n + 1 values, stride sz) */
static void pt_add(int n, const double *z, size_t sz, double *u, size_t su) {
  double pre = 0, last = z[(size_t)n * sz];
  for (int k = 0; k < n; k++) {
    double a = pa(k), zk = z[(size_t)k * sz];
    u[(size_t)k * su] += (k + 1.0) * a * zk - a * (pre + last);
    pre += zk;
  }
}

static const char *stzm_shape(int rows, int cols) {
  return rows > 0 && cols > 0 ? NULL : "must have a non-zero number of rows and columns";
}
static size_t stzm_nfree(int rows, int cols) {
  return rows > 0 && cols > 0 ? (size_t)(rows - 1) * (size_t)(cols - 1) : 0;
}
static size_t stzm_naux(int rows, int cols) { return (size_t)rows * (size_t)(cols > 0 ? cols - 1 : 0); }

/* Y = P_r X P_c' through T = P_r X (N x c, in aux) */
static int stzm_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)dlp;
  int N = rows, M = cols, r = N - 1, c = M - 1;
  for (int j = 0; j < c; j++) p_apply(r, x + (size_t)j * r, 1, aux + (size_t)j * N, 1);
  for (int i = 0; i < N; i++) p_apply(c, aux + i, (size_t)N, y + i, (size_t)N);
  *lp = 0;
  return AD_OK;
}

/* Xbar += P_r' Ybar P_c; the forward scratch T is free again and holds Ybar P_c */
static void stzm_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                         const double *ybar, double *xbar) {
  (void)x; (void)y;
  int N = rows, M = cols, r = N - 1, c = M - 1;
  double *t = (double *)(uintptr_t)aux;   /* the node's own scratch, rewritten on every sweep */
  memset(t, 0, (size_t)N * (size_t)c * sizeof *t);
  for (int i = 0; i < N; i++) pt_add(c, ybar + i, (size_t)N, t + i, (size_t)N);
  for (int j = 0; j < c; j++) pt_add(r, t + (size_t)j * N, 1, xbar + (size_t)j * r, 1);
}

/* Stan's check that each of the count lines of y (line k: len values from
** y + k * stride, step apart) sums to zero; by_col names them as columns. */
static int stzm_check_sums(const double *y, int count, int len, size_t stride, size_t step, int by_col) {
  for (int k = 0; k < count; k++) {
    double s = 0;
    for (int l = 0; l < len; l++) s += y[(size_t)k * stride + (size_t)l * step];
    if (!(fabs(s) <= TM_TR_TOL))
      return ad_fail(AD_EDOMAIN, by_col ? "sum_to_zero_free: sum_to_zero variable does not sum to zero. "
                     "sum(sum_to_zero variable[:, %d]) = " TM_TR_FMT ", but should be 0"
                     : "sum_to_zero_free: sum_to_zero variable does not sum to zero. "
                     "sum(sum_to_zero variable[%d, :]) = " TM_TR_FMT ", but should be 0", k + 1, s);
  }
  return AD_OK;
}

static int stzm_free(int rows, int cols, const double *y, double *x) {
  int N = rows, M = cols, r = N - 1, c = M - 1, rc;
  if ((rc = stzm_check_sums(y, M, N, (size_t)N, 1, 1)) || (rc = stzm_check_sums(y, N, M, 1, (size_t)N, 0)))
    return rc;
  double *t = ad_alloc_zeros((size_t)N * (size_t)(c > 0 ? c : 1));
  if (!t) return AD_EMEMORY;
  for (int i = 0; i < N; i++) pt_add(c, y + i, (size_t)N, t + i, (size_t)N);
  memset(x, 0, (size_t)r * (size_t)c * sizeof *x);
  for (int j = 0; j < c; j++) pt_add(r, t + (size_t)j * N, 1, x + (size_t)j * r, 1);
  return AD_OK;
}

const tm_tr_ops tm_tr_sum_to_zero_matrix = {"sum_to_zero_constrain", "sum_to_zero_free", TM_MATRIX, 1, stzm_shape,
                                  stzm_nfree, stzm_naux, stzm_forward, stzm_reverse, stzm_free};

/* ---- stochastic matrices: simplexes by column or by row ---- */

static const char *stoch_shape(int rows, int cols) {
  (void)cols;
  return rows > 0 ? NULL : "must have a non-zero number of rows";
}
static const char *stochr_shape(int rows, int cols) {
  (void)rows;
  return cols > 0 ? NULL : "must have a non-zero number of columns";
}
static size_t stochc_nfree(int rows, int cols) { return rows > 0 ? (size_t)(rows - 1) * (size_t)cols : 0; }
static size_t stochr_nfree(int rows, int cols) { return cols > 0 ? (size_t)rows * (size_t)(cols - 1) : 0; }
static size_t aux_none(int rows, int cols) { (void)rows; (void)cols; return 0; }
/* a row's x, y, ybar, xbar and dlp gathered */
static size_t stochr_naux(int rows, int cols) { (void)rows; return 5 * (size_t)(cols > 0 ? cols : 1); }

static int stochc_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  (void)aux;
  int N = rows, m = N - 1;
  double l = 0;
  for (int j = 0; j < cols; j++) {
    double lj = 0;
    int rc = tm_tr_simplex.forward(N, 1, x + (size_t)j * m, y + (size_t)j * N, NULL, &lj,
                                   dlp ? dlp + (size_t)j * m : NULL);
    if (rc) return rc;
    l += lj;
  }
  *lp = l;
  return AD_OK;
}

static void stochc_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                           const double *ybar, double *xbar) {
  int N = rows, m = N - 1;
  for (int j = 0; j < cols; j++)
    tm_tr_simplex.reverse(N, 1, x + (size_t)j * m, y + (size_t)j * N, aux, ybar + (size_t)j * N,
                          xbar + (size_t)j * m);
}

static int stochc_free(int rows, int cols, const double *y, double *x) {
  int N = rows, m = N - 1;
  for (int j = 0; j < cols; j++) {
    int rc = tm_tr_simplex.free(N, 1, y + (size_t)j * N, x + (size_t)j * m);
    if (rc) return rc;
  }
  return AD_OK;
}

static int stochr_forward(int rows, int cols, const double *x, double *y, double *aux, double *lp, double *dlp) {
  int N = rows, M = cols, m = M - 1;
  double *xr = aux, *yr = aux + M, *dr = aux + 4 * (size_t)M, l = 0;
  for (int i = 0; i < N; i++) {
    double li = 0;
    for (int j = 0; j < m; j++) { xr[j] = x[i + (size_t)j * N]; dr[j] = 0; }
    int rc = tm_tr_simplex.forward(M, 1, xr, yr, NULL, &li, dlp ? dr : NULL);
    if (rc) return rc;
    for (int j = 0; j < M; j++) y[i + (size_t)j * N] = yr[j];
    if (dlp) for (int j = 0; j < m; j++) dlp[i + (size_t)j * N] += dr[j];
    l += li;
  }
  *lp = l;
  return AD_OK;
}

static void stochr_reverse(int rows, int cols, const double *x, const double *y, const double *aux,
                           const double *ybar, double *xbar) {
  int N = rows, M = cols, m = M - 1;
  double *s = (double *)(uintptr_t)aux;   /* the node's own scratch, rewritten on every sweep */
  double *xr = s, *yr = s + M, *ybr = s + 2 * (size_t)M, *xbr = s + 3 * (size_t)M;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < M; j++) { yr[j] = y[i + (size_t)j * N]; ybr[j] = ybar[i + (size_t)j * N]; }
    for (int j = 0; j < m; j++) { xr[j] = x[i + (size_t)j * N]; xbr[j] = 0; }
    tm_tr_simplex.reverse(M, 1, xr, yr, NULL, ybr, xbr);
    for (int j = 0; j < m; j++) xbar[i + (size_t)j * N] += xbr[j];
  }
}

static int stochr_free(int rows, int cols, const double *y, double *x) {
  int N = rows, M = cols, m = M - 1;
  double *yr = ad_alloc_doubles(2 * (size_t)M);
  if (!yr) return AD_EMEMORY;
  double *xr = yr + M;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < M; j++) yr[j] = y[i + (size_t)j * N];
    int rc = tm_tr_simplex.free(M, 1, yr, xr);
    if (rc) return rc;
    for (int j = 0; j < m; j++) x[i + (size_t)j * N] = xr[j];
  }
  return AD_OK;
}

const tm_tr_ops tm_tr_stochastic_column = {"stochastic_column_constrain", "stochastic_column_free", TM_MATRIX, 0,
                                    stoch_shape, stochc_nfree, aux_none, stochc_forward, stochc_reverse,
                                    stochc_free};
const tm_tr_ops tm_tr_stochastic_row = {"stochastic_row_constrain", "stochastic_row_free", TM_MATRIX, 0,
                                    stochr_shape, stochr_nfree, stochr_naux, stochr_forward, stochr_reverse,
                                    stochr_free};

/* ---- the functions ---- */

enum { TF_EW, TF_VEC, TF_SQ, TF_CHOLCOV, TF_MAT };
enum { TF_CON, TF_JAC, TF_FREE };

typedef struct {
  const char *stan;            /* X in X_constrain, for messages */
  const char *tname;           /* tm_transform_find's keyword */
  int kind;
  int drows, dcols;            /* constrained size minus free size (TF_VEC, TF_MAT) */
  int mode;
} tf_def;

static const tf_def stzm_c, stzm_j, stzm_f;

/* sum_to_zero is one entry for both forms: a matrix argument takes the matrix form */
static const tf_def *resolve(const tf_def *d, const tm_v *y) {
  if (d->tname && !strcmp(d->tname, "sum_to_zero_vector") && y->base == TM_MATRIX)
    return d->mode == TF_CON ? &stzm_c : d->mode == TF_JAC ? &stzm_j : &stzm_f;
  return d;
}

static const tm_transform *transform_of(const tf_def *d) {
  return tm_transform_find(d->tname);
}

static size_t array_count(const tm_v *v) {
  size_t n = 1;
  for (int i = 0; i < v->narr; i++) n *= (size_t)(v->dim[i] > 0 ? v->dim[i] : 0);
  return n;
}

static void shape_of(const tm_v *v, int base, int rows, int cols, tm_v *s) {
  memset(s, 0, sizeof *s);
  s->base = (unsigned char)base;
  s->rows = rows;
  s->cols = cols;
  s->narr = v->narr;
  memcpy(s->dim, v->dim, sizeof s->dim);
}

/* args[0] as a vector of reals (ints copied) */
static int flat_x(const tm_v *a, tm_v *x) {
  size_t n = tm_numel(a);
  if (n > (size_t)0x7fffffff) return ad_fail(AD_EINVALID, "transform: too many values");
  if (a->base == TM_INT) {
    int rc = tm_new_vector(x, (int)n, 0);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) x->val[i] = (double)a->ival[i];
    return AD_OK;
  }
  *x = tm_vector_view(a->val, a->adj, (int)n);
  x->dep = a->dep;
  return AD_OK;
}

static int get_int(const tm_v *a, int *k) {
  if (a->base != TM_INT || !tm_is_scalar(a)) return ad_fail(AD_EINVALID, "transform: expected an int size");
  *k = a->ival[0];
  return AD_OK;
}

int tm_transform_fn_setup(const tm_fn *fn, const tm_v *a, int nargs, tm_tf_call *tc) {
  const tf_def *d = nargs > 0 ? resolve(fn->data, &a[0]) : fn->data;
  const char *cfn = "cholesky_factor_constrain";
  memset(tc, 0, sizeof *tc);
  tc->t = transform_of(d);
  if (!tc->t) return ad_fail(AD_EINVALID, "%s: no such transform", fn->name);
  const tm_transform *t = tc->t;
  int want = 1 + (d->kind == TF_EW ? t->nparams : d->kind == TF_SQ ? 1 : d->kind == TF_CHOLCOV ? 2 : 0);
  if (nargs != want) {
    tm_call c = {fn, 0, NULL, 0, NULL};
    return tm_no_overload(&c, a, nargs);
  }
  int rc = flat_x(&a[0], &tc->x);
  if (rc) return rc;
  const tm_v *y = &a[0];
  int K = 0, M = 0, N = 0;
  size_t m = y->rows * (size_t)y->cols;
  switch (d->kind) {
  case TF_EW:
    shape_of(y, y->base == TM_INT ? TM_REAL : y->base, y->rows, y->cols, &tc->shape);
    for (int k = 0; k < t->nparams; k++) tc->params[k] = a[1 + k];
    return AD_OK;
  case TF_VEC:
    if (y->base != TM_VECTOR) break;
    shape_of(y, TM_VECTOR, y->rows + d->drows, 1, &tc->shape);
    return AD_OK;
  case TF_MAT:
    if (y->base != TM_MATRIX) break;
    shape_of(y, TM_MATRIX, y->rows + d->drows, y->cols + d->dcols, &tc->shape);
    return AD_OK;
  case TF_SQ: {
    if (y->base != TM_VECTOR) break;
    if ((rc = get_int(&a[1], &K))) return rc;
    const char *f = !strcmp(d->stan, "cholesky_factor_corr") ? "cholesky_corr_constrain"
                    : !strcmp(d->stan, "corr_matrix") ? "corr_matrix_constrain" : "cov_matrix_constrain";
    if (K < 0) return ad_fail(AD_EINVALID, "%s: K is %d, but must be non-negative", f, K);
    size_t kc2 = (size_t)K * (size_t)(K > 0 ? K - 1 : 0) / 2;
    if (!strcmp(d->stan, "cov_matrix"))
      rc = tm_check_size_match(f, "x.size()", m, "K + (K choose 2)", kc2 + (size_t)K);
    else
      rc = tm_check_size_match(f, !strcmp(d->stan, "corr_matrix") ? "x.size()" : "y.size()", m, "k_choose_2", kc2);
    if (rc) return rc;
    shape_of(y, TM_MATRIX, K, K, &tc->shape);
    return AD_OK;
  }
  case TF_CHOLCOV:
    if (y->base != TM_VECTOR) break;
    if ((rc = get_int(&a[1], &M)) || (rc = get_int(&a[2], &N))) return rc;
    if (N < 0) return ad_fail(AD_EINVALID, "%s: N is %d, but must be non-negative", cfn, N);
    if (M < N)
      return ad_fail(AD_EINVALID, "%s: num rows (must be greater or equal to num cols) is %d, but must be "
                     "greater than or equal to %d", cfn, M, N);
    if ((rc = tm_check_size_match(cfn, "x.size()", m, "((N * (N + 1)) / 2 + (M - N) * N)",
                                  (size_t)N * (size_t)(N + 1) / 2 + (size_t)(M - N) * (size_t)N)))
      return rc;
    shape_of(y, TM_MATRIX, M, N, &tc->shape);
    return AD_OK;
  default:
    break;
  }
  tm_call c = {fn, 0, NULL, 0, NULL};
  return tm_no_overload(&c, a, nargs);
}


static int k_constrain(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  tm_tf_call tc;
  int rc = tm_transform_fn_setup(c->fn, a, nargs, &tc);
  if (rc) return rc;
  tm_v y = tc.shape;
  if ((rc = tm_transform_constrain(tc.t, &tc.x, tc.params, &y, NULL))) return rc;
  *out = y;
  return AD_OK;
}

/* ---- unconstrain: values from the transform's free(), derivatives here ---- */

typedef struct {
  ad_node hdr;
  const tm_tr_ops *ops;        /* structured; NULL for elementwise */
  int rows, cols;
  size_t count, k, m, n;
  const double *y, *x, *xadj;
  double *yadj;
  double *scratch;
  const double *h;             /* tangent maps: per element (J'J)^-1 J' (m x k), else NULL */
  /* elementwise: partials of x[i] by y, params[0], params[1] */
  double *padj[3];
  int scalar[3];
  const double *d[3];
} free_node;

/* The transpose of the inverse of sum_to_zero_vector on the plane (the
** back substitution of tm_transform_vec.c's stz_inverse): zbar[1..N] +=
** from ubar[0..N-1]; zbar[0] gets nothing. */
static void stzinv_transpose(int N, const double *ub, double *zb, size_t sz) {
  if (N == 0) return;
  double sb = 0;
  for (int j = 1; j < N; j++) {
    double wb = sb + ub[j - 1] * sqrt((double)j * (j + 1));
    sb += wb / j;
    zb[(size_t)j * sz] -= wb / j;
  }
  double wb = sb + ub[N - 1] * sqrt((double)N * (N + 1));
  zb[(size_t)N * sz] -= wb / N;
}

/* simplex free's reverse on a strided simplex y of K; scratch K values */
static void simplex_free_rev(int K, const double *y, size_t s, const double *xb, double *yb, double *z) {
  memset(z, 0, (size_t)K * sizeof *z);
  stzinv_transpose(K - 1, xb, z, 1);
  double sum = 0;
  for (int k = 0; k < K; k++) sum += z[k];
  for (int k = 0; k < K; k++) yb[(size_t)k * s] += (z[k] - sum / K) / y[(size_t)k * s];
}

static void free_reverse(const free_node *nd, size_t e) {
  const tm_tr_ops *o = nd->ops;
  int R = nd->rows, C = nd->cols;
  const double *xb = nd->xadj + e * nd->m;
  double *yb = nd->yadj + e * nd->k;
  if (nd->h) {
    const double *z = nd->h + e * nd->k * nd->m;
    for (size_t i = 0; i < nd->k; i++) {
      double g = 0;
      for (size_t j = 0; j < nd->m; j++) g += z[j + i * nd->m] * xb[j];
      yb[i] += g;
    }
    return;
  }
  const double *y = nd->y + e * nd->k;
  if (o == &tm_tr_ordered || o == &tm_tr_positive_ordered) {
    if (R == 0) return;
    yb[0] += o == &tm_tr_ordered ? xb[0] : xb[0] / y[0];
    for (int k = 1; k < R; k++) {
      double g = xb[k] / (y[k] - y[k - 1]);
      yb[k] += g;
      yb[k - 1] -= g;
    }
  } else if (o == &tm_tr_unit_vector) {
    for (int k = 0; k < R; k++) yb[k] += xb[k];
  } else if (o == &tm_tr_sum_to_zero) {
    stzinv_transpose(R - 1, xb, yb, 1);
  } else if (o == &tm_tr_simplex) {
    simplex_free_rev(R, y, 1, xb, yb, nd->scratch);
  } else if (o == &tm_tr_stochastic_column) {
    for (int j = 0; j < C; j++)
      simplex_free_rev(R, y + (size_t)j * R, 1, xb + (size_t)j * (R - 1), yb + (size_t)j * R, nd->scratch);
  } else if (o == &tm_tr_stochastic_row) {
    double *xr = nd->scratch + C;
    for (int i = 0; i < R; i++) {
      for (int j = 0; j < C - 1; j++) xr[j] = xb[i + (size_t)j * R];
      simplex_free_rev(C, y + i, (size_t)R, xr, yb + i, nd->scratch);
    }
  } else if (o == &tm_tr_sum_to_zero_matrix) {
    /* Ybar += P_r Xbar P_c' */
    int r = R - 1, c = C - 1;
    double *t = nd->scratch, *row = nd->scratch + (size_t)R * c;
    for (int j = 0; j < c; j++) p_apply(r, xb + (size_t)j * r, 1, t + (size_t)j * R, 1);
    for (int i = 0; i < R; i++) {
      p_apply(c, t + i, (size_t)R, row, 1);
      for (int j = 0; j < C; j++) yb[i + (size_t)j * R] += row[j];
    }
  } else if (o == &tm_tr_cholesky_cov) {
    size_t p = 0;
    for (int mm = 0; mm < R; mm++) {
      int last = mm < C ? mm : C;
      for (int n = 0; n < last; n++) yb[mm + (size_t)n * R] += xb[p++];
      if (mm < C) { yb[mm + (size_t)mm * R] += xb[p] / y[mm + (size_t)mm * R]; p++; }
    }
  }
}

static void free_chain(ad_node *self) {
  free_node *nd = (free_node *)self;
  if (nd->ops) {
    for (size_t e = 0; e < nd->count; e++) free_reverse(nd, e);
    return;
  }
  for (int k = 0; k < 3; k++) tm_add_partials(nd->padj[k], nd->scalar[k], nd->xadj, nd->d[k], nd->n);
}

/* (J'J)^-1 J' of the constrain map at each element's free values x (m per
** element), J (k x m) from k reverse steps: out holds count * m * k values. */
static int tangent_maps(const tm_tr_ops *o, int R, int C, size_t count, const double *x, double *out) {
  size_t k = (size_t)R * (size_t)C, m = o->nfree(R, C), na = o->naux(R, C);
  double *y = ad_alloc_doubles(k + 1), *aux = ad_alloc_doubles(na + 1), *yb = ad_alloc_zeros(k + 1);
  double *g = ad_alloc_doubles(m * m + 1);
  int *piv = ad_alloc((m + 1) * sizeof *piv);
  if (!y || !aux || !yb || !g || !piv) return AD_EMEMORY;
  for (size_t e = 0; e < count; e++) {
    const double *xe = x + e * m;
    double *jt = out + e * m * k, lp;
    int rc = o->forward(R, C, xe, y, aux, &lp, NULL);
    if (rc) return rc;
    memset(jt, 0, m * k * sizeof *jt);
    for (size_t i = 0; i < k; i++) {
      yb[i] = 1;
      o->reverse(R, C, xe, y, aux, yb, jt + i * m);   /* column i of J' = row i of J */
      yb[i] = 0;
    }
    for (size_t a = 0; a < m; a++)
      for (size_t b = 0; b <= a; b++) {
        double sum = 0;
        for (size_t i = 0; i < k; i++) sum += jt[a + i * m] * jt[b + i * m];
        g[a + b * m] = g[b + a * m] = sum;
      }
    if (m == 0) continue;
    tm_la_lu_factor((int)m, g, piv);
    for (size_t a = 0; a < m; a++)
      if (!(fabs(g[a + a * m]) > 0) || !isfinite(g[a + a * m]))
        return ad_fail(AD_EDOMAIN, "%s: the constraint's Jacobian is singular at this point", o->ffn);
    tm_la_lu_solve((int)m, g, piv, (int)k, jt);
  }
  return AD_OK;
}

/* Partials of the elementwise free maps (x = log(y - a), log(b - y),
** log(y - a) - log(b - y), (y - mu) / sigma) by y and the bounds; an
** infinite bound drops its term as free() does. */
static void ew_partials(const char *tname, double v, double a, double b, double *d) {
  d[0] = 1; d[1] = d[2] = 0;
  if (!strcmp(tname, "offset_multiplier")) {
    d[0] = 1 / b; d[1] = -1 / b; d[2] = -(v - a) / (b * b);
    return;
  }
  int is_upper = !strcmp(tname, "upper"), slot_u = is_upper ? 1 : 2;
  if (is_upper) b = a;
  int L = !is_upper && a != -INFINITY, U = strcmp(tname, "lower") && b != INFINITY;
  if (L && U) {
    d[0] = 1 / (v - a) + 1 / (b - v); d[1] = -1 / (v - a); d[2] = -1 / (b - v);
  } else if (L) {
    d[0] = 1 / (v - a); d[1] = -1 / (v - a);
  } else if (U) {
    d[0] = -1 / (b - v); d[slot_u] = 1 / (b - v);
  }
}

static int k_unconstrain(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const tf_def *d = nargs > 0 ? resolve(c->fn->data, &a[0]) : c->fn->data;
  const tm_transform *t = transform_of(d);
  if (!t) return ad_fail(AD_EINVALID, "%s: no such transform", c->fn->name);
  int want = 1 + (d->kind == TF_EW ? t->nparams : 0);
  if (nargs != want) return tm_no_overload(c, a, nargs);
  const tm_v *y = &a[0];
  int base = d->kind == TF_EW ? y->base : d->kind == TF_VEC ? TM_VECTOR : TM_MATRIX;
  if (d->kind != TF_EW && y->base != base) return tm_no_overload(c, a, nargs);
  const tm_tr_ops *o = d->kind == TF_EW ? NULL : t->data;
  int ad = tm_any_ad(a, nargs), dep = tm_any_dep(a, nargs), rc;
  tm_v xv;
  if ((rc = tm_transform_free(t, y, d->kind == TF_EW ? a + 1 : NULL, &xv))) return rc;
  tm_v shape;
  int R = y->rows, C = y->cols;
  size_t count = array_count(y);
  if (d->kind == TF_EW) shape_of(y, y->base == TM_INT ? TM_REAL : y->base, R, C, &shape);
  else if (d->kind == TF_MAT) shape_of(y, TM_MATRIX, R - d->drows, C - d->dcols, &shape);
  else shape_of(y, TM_VECTOR, (int)o->nfree(R, C), 1, &shape);
  if ((rc = tm_new_like(out, &shape, ad))) return rc;
  size_t n = tm_numel(out);
  if (n != tm_numel(&xv)) return ad_fail(AD_EINVALID, "%s: unexpected number of free values", c->fn->name);
  memcpy(out->val, xv.val, n * sizeof *out->val);
  out->dep = (unsigned char)dep;
  if (!ad) return AD_OK;
  /* everything the node needs first, then the node (a failure leaves none) */
  free_node f, *nd = &f;
  memset(&f, 0, sizeof f);
  nd->ops = o;
  nd->rows = R;
  nd->cols = C;
  nd->count = count;
  nd->k = (size_t)R * (size_t)C;
  nd->m = o ? o->nfree(R, C) : 0;
  nd->n = n;
  nd->xadj = out->adj;
  nd->x = out->val;
  if (o) {
    nd->yadj = y->adj;
    if (o == &tm_tr_cholesky_corr || o == &tm_tr_corr_matrix || o == &tm_tr_cov_matrix) {
      double *h = ad_alloc_doubles(count * nd->k * nd->m + 1);
      if (!h) return AD_EMEMORY;
      if ((rc = tangent_maps(o, R, C, count, out->val, h))) return rc;
      nd->h = h;
    } else {
      if (!(nd->y = tm_copy_vals(y))) return AD_EMEMORY;
      size_t ns = o == &tm_tr_sum_to_zero_matrix ? (size_t)R * (size_t)C + (size_t)C : 2 * (size_t)(R > C ? R : C) + 2;
      if (!(nd->scratch = ad_alloc_doubles(ns))) return AD_EMEMORY;
    }
  } else {
    for (int k = 0; k < 3; k++) {
      const tm_v *op = k <= t->nparams ? &a[k] : NULL;
      nd->padj[k] = op && op->adj ? op->adj : NULL;
      nd->scalar[k] = k > 0 && op && tm_is_scalar(op);
      double *p = nd->padj[k] ? ad_alloc_doubles(n ? n : 1) : NULL;
      if (nd->padj[k] && !p) return AD_EMEMORY;
      nd->d[k] = p;
    }
    for (size_t i = 0; i < n; i++) {
      double dd[3], pa0 = t->nparams > 0 ? tm_get(&a[1], i) : 0, pb = t->nparams > 1 ? tm_get(&a[2], i) : 0;
      ew_partials(d->tname, tm_get(y, i), pa0, pb, dd);
      for (int k = 0; k < 3; k++)
        if (nd->d[k]) ((double *)nd->d[k])[i] = dd[k];
    }
  }
  if (!(nd = ad_node_new(sizeof *nd, free_chain))) return AD_EMEMORY;
  ad_node hdr = nd->hdr;
  *nd = f;
  nd->hdr = hdr;
  return AD_OK;
}

/* ---- the table ---- */

#define TF3(id, stan, tname, kind, dr, dc) \
  static const tf_def id##_c = {stan, tname, kind, dr, dc, TF_CON}; \
  static const tf_def id##_j = {stan, tname, kind, dr, dc, TF_JAC}; \
  static const tf_def id##_f = {stan, tname, kind, dr, dc, TF_FREE};

TF3(lb, "lower_bound", "lower", TF_EW, 0, 0)
TF3(ub, "upper_bound", "upper", TF_EW, 0, 0)
TF3(lub, "lower_upper_bound", "lower_upper", TF_EW, 0, 0)
TF3(om, "offset_multiplier", "offset_multiplier", TF_EW, 0, 0)
TF3(ord, "ordered", "ordered", TF_VEC, 0, 0)
TF3(pord, "positive_ordered", "positive_ordered", TF_VEC, 0, 0)
TF3(spx, "simplex", "simplex", TF_VEC, 1, 0)
TF3(uv, "unit_vector", "unit_vector", TF_VEC, 0, 0)
TF3(stzv, "sum_to_zero", "sum_to_zero_vector", TF_VEC, 1, 0)
TF3(stzm, "sum_to_zero", "sum_to_zero_matrix", TF_MAT, 1, 1)
TF3(ccorr, "cholesky_factor_corr", "cholesky_factor_corr", TF_SQ, 0, 0)
TF3(ccov, "cholesky_factor_cov", "cholesky_factor_cov", TF_CHOLCOV, 0, 0)
TF3(corr, "corr_matrix", "corr_matrix", TF_SQ, 0, 0)
TF3(cov, "cov_matrix", "cov_matrix", TF_SQ, 0, 0)
TF3(scol, "stochastic_column", "column_stochastic_matrix", TF_MAT, 1, 0)
TF3(srow, "stochastic_row", "row_stochastic_matrix", TF_MAT, 0, 1)

/* Signatures: arrays of up to 7 dimensions of the element types */
#define P7(G) G("") "; " G("array[] ") "; " G("array[,] ") "; " G("array[,,] ") "; " G("array[,,,] ") "; " \
  G("array[,,,,] ") "; " G("array[,,,,,] ") "; " G("array[,,,,,,] ")
#define VV(p) p "vector(" p "vector)"
#define MM(p) p "matrix(" p "matrix)"
#define MVK(p) p "matrix(" p "vector, int)"
#define MVKK(p) p "matrix(" p "vector, int, int)"
#define VM(p) p "vector(" p "matrix)"
#define SIG_B1 "R(T, real); R(T, T)"
#define SIG_B2 "R(T, real, real); R(T, real, T); R(T, T, real); R(T, T, T)"

/* A kernel per mode; the X_jacobian kernel is X_constrain's (the value when
** the Jacobian is not accumulated; src/tree adds it when it is). */
static int k_jacobian(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return k_constrain(c, a, nargs, out);
}

int tm_transform_fn_is_jacobian(const tm_fn *fn) { return fn && fn->kernel == k_jacobian; }

/* An X_constrain/X_jacobian/X_unconstrain triple */
#define ENT3(stan, id, csig, fsig) \
  {stan "_constrain", csig, k_constrain, &id##_c}, \
  {stan "_jacobian", csig, k_jacobian, &id##_j}, \
  {stan "_unconstrain", fsig, k_unconstrain, &id##_f}

const tm_fn tm_fns_transform[] = {
  ENT3("lower_bound", lb, SIG_B1, SIG_B1),
  ENT3("upper_bound", ub, SIG_B1, SIG_B1),
  ENT3("lower_upper_bound", lub, SIG_B2, SIG_B2),
  ENT3("offset_multiplier", om, SIG_B2, SIG_B2),
  ENT3("ordered", ord, P7(VV), P7(VV)),
  ENT3("positive_ordered", pord, P7(VV), P7(VV)),
  ENT3("simplex", spx, P7(VV), P7(VV)),
  ENT3("unit_vector", uv, P7(VV), P7(VV)),
  ENT3("sum_to_zero", stzv, P7(VV) "; " P7(MM), P7(VV) "; " P7(MM)),
  ENT3("cholesky_factor_corr", ccorr, P7(MVK), P7(VM)),
  ENT3("cholesky_factor_cov", ccov, P7(MVKK), P7(VM)),
  ENT3("corr_matrix", corr, P7(MVK), P7(VM)),
  ENT3("cov_matrix", cov, P7(MVK), P7(VM)),
  ENT3("stochastic_column", scol, P7(MM), P7(MM)),
  ENT3("stochastic_row", srow, P7(MM), P7(MM)),
  {NULL, NULL, NULL, NULL}
};
