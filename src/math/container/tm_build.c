/*
** tm_build.c -- containers made from sizes and from other containers:
** identity_matrix, zeros_*, ones_*, linspaced_*, one_hot_*, uniform_simplex,
** reverse and append_array.
**
** The builders from sizes take data only (Stan declares their reals `data`),
** so they record nothing.  reverse and append_array copy argument elements
** by index (tm_pick.h) or by halves: one node per call.  Messages name the arguments as
** Stan Math's checks do ("size", "k", "low", "high").
*/
#include <math.h>
#include <string.h>
#include <limits.h>
#include "../tm_tables.h"
#include "../tm_pick.h"

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }


/* The int arguments of a builder, all scalars. */
static int ints(const tm_call *c, const tm_v *a, int nargs, int want, int *x) {
  if (nargs != want) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < want; i++) {
    if (!tm_is_scalar(&a[i]) || a[i].base != TM_INT) return tm_no_overload(c, a, nargs);
    x[i] = a[i].ival[0];
  }
  return AD_OK;
}

static int check_size(const tm_call *c, int n, int positive) {
  if (positive ? n > 0 : n >= 0) return AD_OK;
  return ad_fail(AD_EDOMAIN, "%s: size is %d, but must be %s!", c->fn->name, n,
                 positive ? "positive" : "nonnegative");
}

/* A new value of shape kind (TM_VECTOR, TM_ROW_VECTOR, or an array of base
** `abase` when kind < 0) with n elements. */
enum { K_VEC = TM_VECTOR, K_ROW = TM_ROW_VECTOR, K_ARR = -1, K_IARR = -2 };

static int make1(const tm_call *c, tm_v *out, int kind, int n, int ad) {
  memset(out, 0, sizeof *out);
  out->rows = out->cols = 1;
  if (kind == K_VEC) out->rows = n;
  else if (kind == K_ROW) out->cols = n;
  else { out->narr = 1; out->dim[0] = n; }
  out->base = (unsigned char)(kind >= 0 ? kind : kind == K_IARR ? TM_INT : TM_REAL);
  size_t m = n > 0 ? (size_t)n : 1;
  if (out->base == TM_INT) return (out->ival = ad_alloc(m * sizeof(int))) ? AD_OK : nomem(c);
  if (!(out->val = ad_alloc_doubles(m))) return nomem(c);
  if (ad && !(out->adj = ad_alloc_zeros(m))) return nomem(c);
  return AD_OK;
}

static void fill(tm_v *v, int n, double x) {
  for (int i = 0; i < n; i++) {
    if (v->base == TM_INT) v->ival[i] = (int)x;
    else v->val[i] = x;
  }
}

/* identity_matrix(n) */
static int k_identity(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int n, rc;
  if ((rc = ints(c, a, nargs, 1, &n)) || (rc = check_size(c, n, 0))) return rc;
  if ((rc = tm_new_matrix(out, n, n, 0))) return nomem(c);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) out->val[(size_t)j * n + i] = i == j;
  return AD_OK;
}

/* zeros_*, ones_* (data: the kind), uniform_simplex */
typedef struct { int kind; double x; int positive; } const_def;

static int k_const(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const const_def *d = c->fn->data;
  int n, rc;
  if ((rc = ints(c, a, nargs, 1, &n)) || (rc = check_size(c, n, d->positive))) return rc;
  if ((rc = make1(c, out, d->kind, n, 0))) return rc;
  fill(out, n, d->x < 0 ? 1.0 / n : d->x);     /* x < 0: uniform_simplex */
  return AD_OK;
}

/* one_hot_*(n, k) */
static int k_one_hot(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int x[2], rc;
  if ((rc = ints(c, a, nargs, 2, x)) || (rc = check_size(c, x[0], 1))) return rc;
  if (x[1] < 1 || x[1] > x[0])
    return ad_fail(AD_EDOMAIN, "%s: k is %d, but must be in the interval [1, %d]", c->fn->name, x[1], x[0]);
  if ((rc = make1(c, out, *(const int *)c->fn->data, x[0], 0))) return rc;
  fill(out, x[0], 0);
  if (out->base == TM_INT) out->ival[x[1] - 1] = 1;
  else out->val[x[1] - 1] = 1;
  return AD_OK;
}

/* linspaced_vector(n, low, high) and friends: Eigen's LinSpaced, which Stan
** uses -- both ends exact (the second half counts back from high), one
** element is `high`; ints spaced by an integer step, or repeated when the
** range is shorter than n. */
static int k_linspaced(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int kind = *(const int *)c->fn->data, rc;
  if (nargs != 3 || !tm_is_scalar(&a[0]) || a[0].base != TM_INT || !tm_is_scalar(&a[1]) ||
      !tm_is_scalar(&a[2]) || (kind == K_IARR && (a[1].base != TM_INT || a[2].base != TM_INT)))
    return tm_no_overload(c, a, nargs);
  int n = a[0].ival[0];
  double lo = tm_get(&a[1], 0), hi = tm_get(&a[2], 0);
  if ((rc = check_size(c, n, 0))) return rc;
  if (kind != K_IARR) {
    if (!isfinite(lo)) return ad_fail(AD_EDOMAIN, "%s: low is %.17g, but must be finite!", fn, lo);
    if (!isfinite(hi)) return ad_fail(AD_EDOMAIN, "%s: high is %.17g, but must be finite!", fn, hi);
  }
  if (!(hi >= lo))
    return ad_fail(AD_EDOMAIN, "%s: high is %.17g, but must be greater than or equal to %.17g", fn, hi, lo);
  if ((rc = make1(c, out, kind, n, 0))) return rc;
  if (kind == K_IARR) {
    long long l = a[1].ival[0], h = a[2].ival[0], range = h - l;
    for (int i = 0; i < n; i++) {
      long long v;
      if (n == 1) v = h;
      else if (range + 1 < n) v = l + i / ((n + range) / (range + 1));
      else v = l + (long long)i * (range / (n - 1));
      out->ival[i] = (int)v;
    }
    return AD_OK;
  }
  double step = n > 1 ? (hi - lo) / (n - 1) : 0;
  for (int i = 0; i < n; i++)
    out->val[i] = n == 1 ? hi : i < n / 2 ? lo + i * step : hi - (n - 1 - i) * step;
  return AD_OK;
}

/* ---- reverse, append_array ---- */

/* Elements in one element of the leading dimension of x (1 for a vector,
** whose elements are reversed one by one). */
static size_t block_of(const tm_v *x) {
  if (!x->narr) return 1;
  tm_v e = tm_elem(x, 0);
  return tm_numel(&e);
}

static int copy_shape(const tm_call *c, tm_v *out, const tm_v *x, int base, int lead, int ad) {
  *out = *x;
  out->val = out->adj = NULL;
  out->ival = NULL;
  out->dep = 0;
  out->base = (unsigned char)base;
  if (x->narr) out->dim[0] = lead;
  else if (x->base == TM_VECTOR) out->rows = lead;
  else out->cols = lead;
  size_t m = tm_numel(out);
  if (!m) m = 1;
  if (base == TM_INT) return (out->ival = ad_alloc(m * sizeof(int))) ? AD_OK : nomem(c);
  if (!(out->val = ad_alloc_doubles(m))) return nomem(c);
  if (ad && !(out->adj = ad_alloc_zeros(m))) return nomem(c);
  return AD_OK;
}

static int k_reverse(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const tm_v *x = &a[0];
  if (nargs != 1 || !(x->narr || x->base == TM_VECTOR || x->base == TM_ROW_VECTOR)) return tm_no_overload(c, a, nargs);
  size_t e = block_of(x), n = tm_numel(x);
  int lead = x->narr ? x->dim[0] : (int)n, rc;
  if ((rc = copy_shape(c, out, x, x->base, lead, x->adj != NULL))) return rc;
  size_t *idx = tm_pick_index(n);
  if (!idx) return nomem(c);
  for (int i = 0; i < lead; i++)
    for (size_t k = 0; k < e; k++) idx[(size_t)i * e + k] = (size_t)(lead - 1 - i) * e + k;
  return tm_pick(out, x, idx, n);
}

/* append_array(x, y): the elements of x, then those of y; ints with reals
** promote.  One node: the result's adjoints split back into the two. */
typedef struct {
  ad_node hdr;
  size_t nx, ny;
  double *xadj, *yadj;
  const double *oadj;
} concat_node;

static void concat_chain(ad_node *self) {
  concat_node *p = (concat_node *)self;
  if (p->xadj) for (size_t i = 0; i < p->nx; i++) p->xadj[i] += p->oadj[i];
  if (p->yadj) for (size_t i = 0; i < p->ny; i++) p->yadj[i] += p->oadj[p->nx + i];
}

static void copy_elems(tm_v *o, size_t at, const tm_v *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (o->base == TM_INT) o->ival[at + i] = x->ival[i];
    else o->val[at + i] = x->base == TM_INT ? (double)x->ival[i] : x->val[i];
  }
}

static int k_append_array(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 2 || !a[0].narr || !a[1].narr) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0], *y = &a[1];
  int same = x->narr == y->narr && (x->base == y->base || (x->base <= TM_REAL && y->base <= TM_REAL));
  if (!same) return tm_no_overload(c, a, nargs);
  /* element shapes: checked only when both have elements, as Stan does */
  if (x->dim[0] > 0 && y->dim[0] > 0) {
    if (x->rows != y->rows || x->cols != y->cols)
      return ad_fail(AD_EINVALID, "%s: size of x[1] (%d x %d) and size of y[1] (%d x %d) must match in size",
                     fn, x->rows, x->cols, y->rows, y->cols);
    for (int d = 1; d < x->narr; d++)
      if (x->dim[d] != y->dim[d])
        return ad_fail(AD_EINVALID, "%s: dimension %d of x (%d) and of y (%d) must match in size",
                       fn, d + 1, x->dim[d], y->dim[d]);
  }
  if ((long long)x->dim[0] + y->dim[0] > INT_MAX) return nomem(c);
  const tm_v *shape = x->dim[0] > 0 ? x : y;
  int base = x->base == y->base ? x->base : TM_REAL, ad = x->adj || y->adj, rc;
  if ((rc = copy_shape(c, out, shape, base, x->dim[0] + y->dim[0], ad))) return rc;
  size_t nx = tm_numel(x), ny = tm_numel(y);
  copy_elems(out, 0, x, nx);
  copy_elems(out, nx, y, ny);
  out->dep = (unsigned char)(x->dep || y->dep || ad);
  if (!ad) return AD_OK;
  concat_node *p = ad_node_new(sizeof *p, concat_chain);
  if (!p) return nomem(c);
  p->nx = nx; p->ny = ny;
  p->xadj = x->adj; p->yadj = y->adj; p->oadj = out->adj;
  return AD_OK;
}

/* ---- the table ---- */

static const const_def zv = {K_VEC, 0, 0}, zr = {K_ROW, 0, 0}, za = {K_ARR, 0, 0}, zi = {K_IARR, 0, 0},
  ov = {K_VEC, 1, 0}, orw = {K_ROW, 1, 0}, oa = {K_ARR, 1, 0}, oi = {K_IARR, 1, 0},
  us = {K_VEC, -1, 1};
static const int kv = K_VEC, kr = K_ROW, ka = K_ARR, ki = K_IARR;

#define ARR3(b, F) F("array[] " b) "; " F("array[,] " b) "; " F("array[,,] " b) "; " F("array[,,,] " b) "; " \
  F("array[,,,,] " b) "; " F("array[,,,,,] " b) "; " F("array[,,,,,,] " b) "; " F("array[,,,,,,,] " b)
#define REV(t) t "(" t ")"
#define APP(t) t "(" t ", " t ")"
#define EACH(F) ARR3("int", F) "; " ARR3("real", F) "; " ARR3("vector", F) "; " ARR3("row_vector", F) \
  "; " ARR3("matrix", F)

const tm_fn tm_fns_build[] = {
  {"identity_matrix", "matrix(int)", k_identity, NULL},
  {"zeros_vector", "vector(int)", k_const, &zv},
  {"zeros_row_vector", "row_vector(int)", k_const, &zr},
  {"zeros_array", "array[] real(int)", k_const, &za},
  {"zeros_int_array", "array[] int(int)", k_const, &zi},
  {"ones_vector", "vector(int)", k_const, &ov},
  {"ones_row_vector", "row_vector(int)", k_const, &orw},
  {"ones_array", "array[] real(int)", k_const, &oa},
  {"ones_int_array", "array[] int(int)", k_const, &oi},
  {"uniform_simplex", "vector(int)", k_const, &us},
  {"one_hot_vector", "vector(int, int)", k_one_hot, &kv},
  {"one_hot_row_vector", "row_vector(int, int)", k_one_hot, &kr},
  {"one_hot_array", "array[] real(int, int)", k_one_hot, &ka},
  {"one_hot_int_array", "array[] int(int, int)", k_one_hot, &ki},
  {"linspaced_vector", "vector(int, real, real)", k_linspaced, &kv},
  {"linspaced_row_vector", "row_vector(int, real, real)", k_linspaced, &kr},
  {"linspaced_array", "array[] real(int, real, real)", k_linspaced, &ka},
  {"linspaced_int_array", "array[] int(int, int, int)", k_linspaced, &ki},
  {"reverse", "vector(vector); row_vector(row_vector); " EACH(REV), k_reverse, NULL},
  {"append_array", EACH(APP), k_append_array, NULL},
  {NULL, NULL, NULL, NULL}
};
