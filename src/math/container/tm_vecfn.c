/*
** tm_vecfn.c -- container forms of Stan functions the other modules have
** only in part: fma with containers, divide(real, container), softmax and
** log_softmax of row vectors and arrays, quantile (Stan's, R's type 7),
** squared_distance(real, real), plus and the
** logical operators by their function names.
**
** Each entry is an extra table entry of an existing name where the name
** exists elsewhere: the checker picks the entry whose signature matches.
*/
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_scalar.h"
#include "../tm_pick.h"

/* fma(x, y, z) = x * y + z with any of them a vector, row vector or matrix
** of one shape, the others scalars */
static int k_fma_c(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  static const char *const names[3] = {"x", "y", "z"};
  int rc;
  if (nargs != 3) return ad_fail(AD_EINVALID, "%s: expected 3 arguments, got %d", fn, nargs);
  const tm_v *shape = NULL;
  int si = -1;
  for (int i = 0; i < 3; i++) {
    if (tm_is_scalar(&a[i])) continue;
    if (a[i].narr || a[i].base < TM_VECTOR) return tm_no_overload(c, a, nargs);
    if (!shape) { shape = &a[i]; si = i; continue; }
    if (a[i].base != shape->base || a[i].rows != shape->rows || a[i].cols != shape->cols)
      return ad_fail(AD_EINVALID, "%s: %s (%d x %d) and %s (%d x %d) must have the same dimensions", fn,
                     names[si], shape->rows, shape->cols, names[i], a[i].rows, a[i].cols);
  }
  if (!shape) return tm_no_overload(c, a, nargs);
  size_t n = tm_numel(shape);
  int ad = tm_any_ad(a, 3);
  if ((rc = tm_new_like(out, shape, ad))) return rc;
  out->dep = (unsigned char)tm_any_dep(a, 3);
  tm_ew_node *e = NULL;
  if (ad && !(e = tm_ew_node_new(n, out->adj))) return AD_EMEMORY;
  double *d[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++)
    if (a[i].adj) {
      if (!(d[i] = ad_alloc_doubles(n ? n : 1))) return AD_EMEMORY;
      tm_ew_node_add(e, a[i].adj, d[i], tm_is_scalar(&a[i]));
    }
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(&a[0], i), y = tm_get(&a[1], i), z = tm_get(&a[2], i);
    out->val[i] = fma(x, y, z);
    if (d[0]) d[0][i] = y;
    if (d[1]) d[1][i] = x;
    if (d[2]) d[2][i] = 1;
  }
  return AD_OK;
}

/* ---- divide(real, container), squared_distance(real, real), plus ---- */

static double f_div(double x, double y) { return x / y; }
static double d_div_x(double x, double y, double f) { (void)x; (void)f; return 1 / y; }
static double d_div_y(double x, double y, double f) { (void)x; return -f / y; }
static double f_sqdist(double x, double y) { return (x - y) * (x - y); }
static double d_sqdist_x(double x, double y, double f) { (void)f; return 2 * (x - y); }
static double d_sqdist_y(double x, double y, double f) { (void)f; return -2 * (x - y); }
static int check_sqdist(const char *fn, const char *at, double x, double y) {
  (void)at;
  if (!isfinite(x)) return ad_fail(AD_EDOMAIN, "%s: x1 is %.17g, but must be finite!", fn, x);
  if (!isfinite(y)) return ad_fail(AD_EDOMAIN, "%s: x2 is %.17g, but must be finite!", fn, y);
  return AD_OK;
}
static const tm_binary_def def_divide_sc = {f_div, d_div_x, d_div_y, NULL, NULL, 0},
  def_sqdist = {f_sqdist, d_sqdist_x, d_sqdist_y, check_sqdist, NULL, 0};

static double f_id(double x) { return x; }
static double d_id(double x, double f) { (void)x; (void)f; return 1; }
static int i_id(const char *fn, int x, int *r) { (void)fn; *r = x; return AD_OK; }
static const tm_unary_def def_plus = {f_id, d_id, NULL, NULL, i_id, NULL, 0};

/* ---- the logical operators as functions: int results, no autodiff ---- */

enum { L_EQ, L_NEQ, L_LT, L_LTE, L_GT, L_GTE, L_AND, L_OR, L_NOT };
static const int l_codes[] = {L_EQ, L_NEQ, L_LT, L_LTE, L_GT, L_GTE, L_AND, L_OR, L_NOT};

static int k_logical(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int op = *(const int *)c->fn->data, want = op == L_NOT ? 1 : 2;
  if (nargs != want) return ad_fail(AD_EINVALID, "%s: expected %d argument%s, got %d", tm_fn_name(c), want,
                                    want == 1 ? "" : "s", nargs);
  for (int i = 0; i < nargs; i++) if (!tm_is_scalar(&a[i])) return tm_no_overload(c, a, nargs);
  double x = tm_get(&a[0], 0), y = nargs > 1 ? tm_get(&a[1], 0) : 0;
  int r;
  switch (op) {
  case L_EQ: r = x == y; break;
  case L_NEQ: r = x != y; break;
  case L_LT: r = x < y; break;
  case L_LTE: r = x <= y; break;
  case L_GT: r = x > y; break;
  case L_GTE: r = x >= y; break;
  case L_AND: r = x != 0 && y != 0; break;
  case L_OR: r = x != 0 || y != 0; break;
  default: r = x == 0; break;
  }
  return tm_set_int(out, r);
}

/* ---- softmax, log_softmax of a row vector or each vector of an array ---- */

typedef struct {
  ad_node hdr;
  size_t n, len;
  int log_form;
  const double *y, *yadj;
  double *xadj;
} sm_node;

static void sm_chain(ad_node *self) {
  sm_node *v = (sm_node *)self;
  for (size_t b = 0; b < v->n; b += v->len) {
    const double *y = v->y + b, *ya = v->yadj + b;
    double *xa = v->xadj + b, s = 0;
    if (v->log_form) {
      for (size_t i = 0; i < v->len; i++) s += ya[i];
      for (size_t i = 0; i < v->len; i++) xa[i] += ya[i] - exp(y[i]) * s;
    } else {
      for (size_t i = 0; i < v->len; i++) s += ya[i] * y[i];
      for (size_t i = 0; i < v->len; i++) xa[i] += y[i] * (ya[i] - s);
    }
  }
}

static int k_softmax_c(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int log_form = c->fn->data != NULL, rc;
  const tm_v *x = &a[0];
  if (nargs != 1 || x->narr > 1 || (x->base != TM_VECTOR && x->base != TM_ROW_VECTOR))
    return tm_no_overload(c, a, nargs);
  size_t n = tm_numel(x), len = x->base == TM_VECTOR ? (size_t)x->rows : (size_t)x->cols;
  if (len == 0) return ad_fail(AD_EINVALID, "%s: v has size 0, but must have a non-zero size", tm_fn_name(c));
  if ((rc = tm_new_like(out, x, x->adj != NULL))) return rc;
  out->dep = x->dep;
  for (size_t b = 0; b < n; b += len) tm_softmax(x->val + b, len, log_form, out->val + b);
  if (!x->adj) return AD_OK;
  sm_node *v = ad_node_new(sizeof *v, sm_chain);
  if (!v) return AD_EMEMORY;
  v->n = n; v->len = len; v->log_form = log_form;
  v->y = out->val; v->yadj = out->adj; v->xadj = x->adj;
  return AD_OK;
}

/* ---- to_array_2d(matrix): element [i][j] = m(i, j) ---- */

/* ---- quantile(x, p): Stan's (R's type 7) ---- */

typedef struct { double v; size_t i; } vi;
static int cmp_vi(const void *p, const void *q) {
  const vi *x = p, *y = q;
  return (x->v > y->v) - (x->v < y->v);
}

/* each quantile interpolates two samples: x's adjoints from those, p's from the slope */
typedef struct {
  ad_node hdr;
  size_t np;
  const double *oadj, *h, *slope;
  double *xadj, *padj;
  const size_t *lo, *hi;
} qt_node;

static void qt_chain(ad_node *self) {
  qt_node *e = (qt_node *)self;
  for (size_t k = 0; k < e->np; k++) {
    double g = e->oadj[k];
    if (e->xadj) { e->xadj[e->lo[k]] += g * (1 - e->h[k]); e->xadj[e->hi[k]] += g * e->h[k]; }
    if (e->padj) e->padj[k] += g * e->slope[k];
  }
}

static int k_quantile(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  int rc;
  if (nargs != 2) return ad_fail(AD_EINVALID, "%s: expected 2 arguments, got %d", fn, nargs);
  const tm_v *x = &a[0], *p = &a[1];
  size_t n = tm_numel(x), np = tm_is_scalar(p) ? 1 : tm_numel(p);
  if ((rc = tm_check_nonzero_size(fn, "samples_i", x)) || (rc = tm_check_not_nan(fn, "samples_i", x)) ||
      (rc = tm_check_bounded(fn, "p", p, 0, 1)))
    return rc;
  vi *s = ad_alloc(n * sizeof *s);
  if (!s) return AD_EMEMORY;
  for (size_t i = 0; i < n; i++) { s[i].v = tm_get(x, i); s[i].i = i; }
  qsort(s, n, sizeof *s, cmp_vi);
  int ad = x->adj || p->adj;
  /* partials: each quantile in two sorted samples and in p */
  size_t *lo = ad_alloc(np * sizeof *lo), *hi = ad_alloc(np * sizeof *hi);
  double *h = ad_alloc_doubles(np), *q = ad_alloc_doubles(np);
  if (!lo || !hi || !h || !q) return AD_EMEMORY;
  for (size_t k = 0; k < np; k++) {
    double pk = tm_get(p, k), idx = (double)(n - 1) * pk, fl = floor(idx);
    lo[k] = (size_t)fl;
    hi[k] = (size_t)ceil(idx);
    h[k] = idx - fl;
    q[k] = (1 - h[k]) * s[lo[k]].v + h[k] * s[hi[k]].v;
  }
  if (tm_is_scalar(p)) {
    double *d[2] = {NULL, NULL};
    if ((d[0] = tm_new_partials(x, &rc))) {
      d[0][s[lo[0]].i] += 1 - h[0];
      d[0][s[hi[0]].i] += h[0];
    }
    if ((d[1] = tm_new_partials(p, &rc))) d[1][0] = (double)(n - 1) * (s[hi[0]].v - s[lo[0]].v);
    if (rc) return rc;
    return tm_set_partials(out, a, d, 2, q[0]);
  }
  if ((rc = tm_new_like(out, p, ad))) return rc;
  out->dep = (unsigned char)tm_any_dep(a, 2);
  memcpy(out->val, q, np * sizeof *q);
  if (!ad) return AD_OK;
  qt_node *e = ad_node_new(sizeof *e, qt_chain);
  double *slope = ad_alloc_doubles(np);
  size_t *ilo = ad_alloc(np * sizeof *ilo), *ihi = ad_alloc(np * sizeof *ihi);
  if (!e || !slope || !ilo || !ihi) return AD_EMEMORY;
  for (size_t k = 0; k < np; k++) {
    ilo[k] = s[lo[k]].i;
    ihi[k] = s[hi[k]].i;
    slope[k] = (double)(n - 1) * (s[hi[k]].v - s[lo[k]].v);
  }
  e->np = np; e->oadj = out->adj; e->xadj = x->adj; e->padj = p->adj;
  e->lo = ilo; e->hi = ihi; e->h = h; e->slope = slope;
  return AD_OK;
}

/* ---- trace_dot(A, B) = trace(A B) ---- */

/* ---- the table ---- */

#define FMA_C "vector(real, real, vector); row_vector(real, real, row_vector); matrix(real, real, matrix); " \
  FMA_T("vector") FMA_T("row_vector") FMA_T("matrix")
#define FMA_T(t) t "(real, " t ", real); " t "(real, " t ", " t "); " t "(" t ", real, real); " \
  t "(" t ", real, " t "); " t "(" t ", " t ", real); " t "(" t ", " t ", " t "); "
#define LOGICAL2 "int(int, int); int(int, real); int(real, int); int(real, real)"
#define SOFTMAX_C "row_vector(row_vector); array[] vector(array[] vector); array[] row_vector(array[] row_vector)"

const tm_fn tm_fns_vecfn[] = {
  {"fma", FMA_C, k_fma_c, NULL},
  {"divide", "vector(real, vector); row_vector(real, row_vector); matrix(real, matrix)", tm_binary_kernel,
   &def_divide_sc},
  {"squared_distance", "real(real, real)", tm_binary_kernel, &def_sqdist},
  {"plus", "int(int); real(real); vector(vector); row_vector(row_vector); matrix(matrix)", tm_unary_kernel,
   &def_plus},
  {"logical_eq", LOGICAL2, k_logical, &l_codes[L_EQ]},
  {"logical_neq", LOGICAL2, k_logical, &l_codes[L_NEQ]},
  {"logical_lt", LOGICAL2, k_logical, &l_codes[L_LT]},
  {"logical_lte", LOGICAL2, k_logical, &l_codes[L_LTE]},
  {"logical_gt", LOGICAL2, k_logical, &l_codes[L_GT]},
  {"logical_gte", LOGICAL2, k_logical, &l_codes[L_GTE]},
  {"logical_and", "int(int, int)", k_logical, &l_codes[L_AND]},
  {"logical_or", "int(int, int)", k_logical, &l_codes[L_OR]},
  {"logical_negation", "int(int)", k_logical, &l_codes[L_NOT]},
  {"softmax", SOFTMAX_C, k_softmax_c, NULL},
  {"log_softmax", SOFTMAX_C, k_softmax_c, "log"},
  {"quantile", "real(vector, real); real(row_vector, real); real(array[] real, real); "
   "array[] real(vector, array[] real); array[] real(row_vector, array[] real); "
   "array[] real(array[] real, array[] real)", k_quantile, NULL},
  {NULL, NULL, NULL, NULL}
};
