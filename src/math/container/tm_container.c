/*
** tm_container.c -- functions over Stan's containers: reductions (sum, prod,
** mean, variance, sd, min, max), dot products, cumulative_sum, softmax and
** log_softmax, builders (append_row/col, rep_*, to_*), slices (head, tail,
** segment, block, col, row), diag_matrix, transpose and the size queries.
**
** Every function whose result is a copy of some argument elements (slices,
** builders, transpose) is one "gather": a list of strided runs from sources
** to the result.  The same list copies the values forward and, restricted to
** the autodiff sources, is the reverse step of the single node the call
** records.  So a new slice or builder only has to describe its runs.
**
** Indices are 1-based as in Stan.  Results are copies, never views: the
** interpreter may write into a result it owns, and a view would alias the
** argument's values and adjoints.
*/
#include <math.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>
#include "../tm_tables.h"
#include "../tm_special.h"

/* ---------------------------------------------------------------- helpers */

static int nomem(const tm_call *c) {
  return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name);
}

static int is_int(const tm_v *v) { return v->narr == 0 && v->base == TM_INT; }
static int is_scal(const tm_v *v) { return tm_is_scalar(v); }
static int is_vec(const tm_v *v) { return v->narr == 0 && v->base == TM_VECTOR; }
static int is_rvec(const tm_v *v) { return v->narr == 0 && v->base == TM_ROW_VECTOR; }
static int is_mat(const tm_v *v) { return v->narr == 0 && v->base == TM_MATRIX; }
static int is_anyvec(const tm_v *v) { return is_vec(v) || is_rvec(v); }
static int is_arr1(const tm_v *v) { return v->narr == 1 && v->base <= TM_REAL; }
/* the argument types of the reductions: vector, row_vector, matrix,
** array[] real and array[] int */
static int is_flat(const tm_v *v) { return (v->narr == 0 && v->base >= TM_VECTOR) || is_arr1(v); }

/* Real element i of a value whose elements may be ints. */
static double rget(const tm_v *v, size_t i) {
  return v->base == TM_INT ? (double)v->ival[i] : v->val[i];
}

/* In a double evaluation, a result computed from a parameter-dependent value
** depends on parameters too (propto needs to know). */

/* A new value of the given shape in the arena; ints when base is TM_INT. */
static int make(const tm_call *c, tm_v *out, int base, int rows, int cols,
                int narr, const int *dim, int ad) {
  memset(out, 0, sizeof *out);
  out->base = (unsigned char)base;
  out->rows = rows;
  out->cols = cols;
  out->narr = (unsigned char)narr;
  for (int i = 0; i < narr; i++) out->dim[i] = dim[i];
  size_t n = tm_numel(out), m = n ? n : 1;
  if (base == TM_INT) return (out->ival = ad_alloc(m * sizeof(int))) ? AD_OK : nomem(c);
  if (!(out->val = ad_alloc_doubles(m))) return nomem(c);
  if (ad && !(out->adj = ad_alloc_zeros(m))) return nomem(c);
  return AD_OK;
}

static int make_vec(const tm_call *c, tm_v *out, int base, int n, int ad) {
  return make(c, out, base, base == TM_ROW_VECTOR ? 1 : n, base == TM_ROW_VECTOR ? n : 1, 0, NULL, ad);
}

/* A real result: a double, or one operands node over x with partials d. */
static int real_result(const tm_call *c, const tm_v *a, int nargs, double f, tm_v *out) {
  int rc = tm_set_real(out, f);
  if (rc) return nomem(c);
  out->dep = (unsigned char)tm_any_dep(a, nargs);
  return AD_OK;
}

static int var_result(const tm_call *c, int nops, const ad_operand *ops, double f, tm_v *out) {
  ad_var r;
  if (ad_operands_node(nops, ops, f, &r)) return nomem(c);
  return tm_set_var(out, r);
}

static int int_result(const tm_call *c, long long x, tm_v *out) {
  if (x > INT_MAX || x < INT_MIN)
    return ad_fail(AD_EDOMAIN, "%s: integer overflow: the result %lld is outside the range of int",
                   c->fn->name, x);
  return tm_set_int(out, (int)x) ? nomem(c) : AD_OK;
}

/* An int argument: indices and sizes. */
static int int_arg(const tm_call *c, const tm_v *a, int i, int nargs, int *x) {
  *x = 0;
  if (i >= nargs || !is_int(&a[i])) return tm_no_overload(c, a, nargs);
  *x = a[i].ival[0];
  return AD_OK;
}

/* "head: n is 7, but must be in the interval [0, 5]" */
static int check_range(const tm_call *c, const char *name, long long x, long long lo, long long hi) {
  if (x >= lo && x <= hi) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s is %lld, but must be in the interval [%lld, %lld]",
                 c->fn->name, name, x, lo, hi);
}

static int check_size(const tm_call *c, const char *name, int x) {
  if (x >= 0) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s is %d, but must be nonnegative!", c->fn->name, name, x);
}

/* --------------------------------------------------------------- gathers */

/* A run copies n elements: out[off + k*ostride] = src[k*sstride], k < n.
** Sources are positioned at their first element. */
typedef struct run {
  const double *val;
  double *adj;
  const int *ival;
  ptrdiff_t sstride, ostride;
  size_t off, n;
} run;

typedef struct gather_node {
  ad_node hdr;
  const double *oadj;
  int nruns;
  run r[];
} gather_node;

static void gather_chain(ad_node *self) {
  gather_node *g = (gather_node *)self;
  for (int j = 0; j < g->nruns; j++) {
    const run *r = &g->r[j];
    const double *o = g->oadj + r->off;
    for (size_t k = 0; k < r->n; k++)
      r->adj[(ptrdiff_t)k * r->sstride] += o[(ptrdiff_t)k * r->ostride];
  }
}

typedef struct gather {
  const tm_call *c;
  tm_v *out;
  run *r;
  int n, cap;
} gather;

static int g_begin(gather *G, const tm_call *c, tm_v *out, size_t cap) {
  G->c = c;
  G->out = out;
  G->n = 0;
  if (cap > (size_t)INT_MAX) return nomem(c);
  G->cap = (int)cap;
  G->r = ad_alloc((cap ? cap : 1) * sizeof(run));
  return G->r ? AD_OK : nomem(c);
}

/* Run from element soff of src (stride ss) to element off of the result
** (stride os).  Empty runs are dropped. */
static void g_add(gather *G, const tm_v *src, size_t soff, ptrdiff_t ss,
                  size_t off, ptrdiff_t os, size_t n) {
  if (n == 0 || G->n >= G->cap) return;
  run *r = &G->r[G->n++];
  r->val = src->val ? src->val + soff : NULL;
  r->adj = src->adj ? src->adj + soff : NULL;
  r->ival = src->ival && src->base == TM_INT ? src->ival + soff : NULL;
  r->sstride = ss;
  r->ostride = os;
  r->off = off;
  r->n = n;
}

/* Copy the values; when the result is autodiff record the one node whose
** reverse step runs the autodiff runs backwards. */
static int g_end(gather *G) {
  tm_v *out = G->out;
  int nad = 0;
  for (int j = 0; j < G->n; j++) {
    const run *r = &G->r[j];
    if (out->base == TM_INT) {
      for (size_t k = 0; k < r->n; k++)
        out->ival[r->off + (ptrdiff_t)k * r->ostride] = r->ival[(ptrdiff_t)k * r->sstride];
      continue;
    }
    double *o = out->val + r->off;
    if (r->ival)
      for (size_t k = 0; k < r->n; k++) o[(ptrdiff_t)k * r->ostride] = r->ival[(ptrdiff_t)k * r->sstride];
    else
      for (size_t k = 0; k < r->n; k++) o[(ptrdiff_t)k * r->ostride] = r->val[(ptrdiff_t)k * r->sstride];
    if (r->adj) nad++;
  }
  if (!out->adj) return AD_OK;
  gather_node *g = ad_node_new(sizeof *g + (size_t)nad * sizeof(run), gather_chain);
  if (!g) return nomem(G->c);
  g->oadj = out->adj;
  g->nruns = 0;
  for (int j = 0; j < G->n; j++)
    if (G->r[j].adj) g->r[g->nruns++] = G->r[j];
  return AD_OK;
}

/* Result base for real-valued builders: ints are promoted. */
static int gather_new(const tm_call *c, gather *G, tm_v *out, const tm_v *a, int nargs,
                      int base, int rows, int cols, size_t cap) {
  int rc = make(c, out, base, rows, cols, 0, NULL, tm_any_ad(a, nargs));
  if (rc) return rc;
  out->dep = (unsigned char)tm_any_dep(a, nargs);
  return g_begin(G, c, out, cap);
}

/* ------------------------------------------------------------ reductions */

enum { OP_SUM, OP_PROD, OP_MEAN, OP_VARIANCE, OP_SD, OP_MIN, OP_MAX };
static const int op_codes[] = { OP_SUM, OP_PROD, OP_MEAN, OP_VARIANCE, OP_SD, OP_MIN, OP_MAX };

/* sum, prod, min and max of an array of ints stay ints */
static int int_reduce(const tm_call *c, int op, const tm_v *x, tm_v *out) {
  size_t n = tm_numel(x);
  const int *v = x->ival;
  if (op == OP_MIN || op == OP_MAX) {
    if (n == 0) return ad_fail(AD_EINVALID, "%s: int vector has size 0, but must have a non-zero size", c->fn->name);
    int m = v[0];
    for (size_t i = 1; i < n; i++) if (op == OP_MIN ? v[i] < m : v[i] > m) m = v[i];
    return int_result(c, m, out);
  }
  /* s stays in int's range, so s * v[i] cannot overflow a long long */
  long long s = op == OP_SUM ? 0 : 1;
  for (size_t i = 0; i < n; i++) {
    s = op == OP_SUM ? s + v[i] : s * v[i];
    if (s > INT_MAX || s < INT_MIN) return int_result(c, s, out);
  }
  return int_result(c, s, out);
}

/* Value of prod and, when d != NULL, its partials: products of the others,
** by prefix and suffix products so that zeros need no special case. */
static double prod_partials(const tm_v *x, size_t n, double *d) {
  double p = 1;
  for (size_t i = 0; i < n; i++) {
    if (d) d[i] = p;
    p *= rget(x, i);
  }
  if (d) {
    double s = 1;
    for (size_t i = n; i-- > 0;) {
      d[i] *= s;
      s *= rget(x, i);
    }
  }
  return p;
}

/* min or max of reals: +/-inf when empty, NaN if any element is NaN (the
** first NaN is then the argument the derivative flows to). */
static int minmax_real(const tm_call *c, int op, const tm_v *x, tm_v *out) {
  size_t n = tm_numel(x), k = 0;
  double m = op == OP_MIN ? INFINITY : -INFINITY;
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    double v = rget(x, i);
    if (isnan(v)) { m = v; k = i; found = 1; break; }
    if (!found || (op == OP_MIN ? v < m : v > m)) { m = v; k = i; found = 1; }
  }
  if (!x->adj) return real_result(c, x, 1, m, out);
  if (!found) return var_result(c, 0, NULL, m, out);
  ad_var e = { &x->val[k], &x->adj[k] }, r;
  if (ad_unary(e, m, 1.0, &r)) return nomem(c);
  return tm_set_var(out, r);
}

/* min(a, b) and max(a, b) of two scalars */
static int minmax2(const tm_call *c, int op, const tm_v *a, tm_v *out) {
  if (!is_scal(&a[0]) || !is_scal(&a[1])) return tm_no_overload(c, a, 2);
  if (a[0].base == TM_INT && a[1].base == TM_INT) {
    int x = a[0].ival[0], y = a[1].ival[0];
    return int_result(c, op == OP_MIN ? (x < y ? x : y) : (x > y ? x : y), out);
  }
  double x = rget(&a[0], 0), y = rget(&a[1], 0);
  int pick_y = isnan(x) ? 0 : isnan(y) ? 1 : op == OP_MIN ? y < x : y > x;
  double f = pick_y ? y : x;
  if (!tm_any_ad(a, 2)) return real_result(c, a, 2, f, out);
  /* One node on the argument picked (partial 1) or, when that one is data,
  ** on the other with partial 0. */
  const tm_v *p = pick_y ? &a[1] : &a[0], *q = pick_y ? &a[0] : &a[1];
  const tm_v *v = p->adj ? p : q;
  ad_var e = { v->val, v->adj }, r;
  if (ad_unary(e, f, p->adj ? 1.0 : 0.0, &r)) return nomem(c);
  return tm_set_var(out, r);
}

static int k_reduce(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int op = *(const int *)c->fn->data;
  if ((op == OP_MIN || op == OP_MAX) && nargs == 2) return minmax2(c, op, a, out);
  if (nargs != 1 || !is_flat(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0];
  size_t n = tm_numel(x);
  if (x->base == TM_INT && op != OP_MEAN && op != OP_VARIANCE && op != OP_SD)
    return int_reduce(c, op, x, out);
  if (op == OP_MIN || op == OP_MAX) return minmax_real(c, op, x, out);
  if ((op == OP_MEAN || op == OP_VARIANCE || op == OP_SD) && n == 0)
    return ad_fail(AD_EINVALID, "%s: x has size 0, but must have a non-zero size", c->fn->name);
  double *d = NULL;
  if (x->adj && !(d = ad_alloc_doubles(n ? n : 1))) return nomem(c);
  double f = 0;
  switch (op) {
  case OP_SUM:
    for (size_t i = 0; i < n; i++) f += rget(x, i);
    if (d) for (size_t i = 0; i < n; i++) d[i] = 1;
    break;
  case OP_PROD:
    f = prod_partials(x, n, d);
    break;
  case OP_MEAN:
    for (size_t i = 0; i < n; i++) f += rget(x, i);
    f /= (double)n;
    if (d) for (size_t i = 0; i < n; i++) d[i] = 1.0 / (double)n;
    break;
  default: {   /* variance, sd: two passes, for accuracy */
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++) m += rget(x, i);
    m /= (double)n;
    for (size_t i = 0; i < n; i++) { double e = rget(x, i) - m; ss += e * e; }
    if (n == 1) {              /* Stan: the variance of one value is 0 */
      if (d) d[0] = 0;
      break;
    }
    double nm1 = (double)(n - 1);
    f = ss / nm1;
    if (op == OP_VARIANCE) {
      if (d) for (size_t i = 0; i < n; i++) d[i] = 2 * (rget(x, i) - m) / nm1;
    } else {
      f = sqrt(f);
      /* At equal values sd is not differentiable; Stan uses the limit
      ** along the diagonal, 1/sqrt(n), instead of NaN. */
      if (d) for (size_t i = 0; i < n; i++)
        d[i] = ss > 0 ? (rget(x, i) - m) / (nm1 * f) : 1.0 / sqrt((double)n);
    }
  }
  }
  if (!d) return real_result(c, a, 1, f, out);
  ad_operand o = { x->adj, d, n };
  return var_result(c, 1, &o, f, out);
}

/* ---------------------------------------------------------- dot products */

static int is_1d(const tm_v *v) { return is_anyvec(v) || is_arr1(v); }

static int k_dot_product(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2 || !is_1d(&a[0]) || !is_1d(&a[1]) ||
      (is_arr1(&a[0]) != is_arr1(&a[1])))
    return tm_no_overload(c, a, nargs);
  size_t n = tm_numel(&a[0]);
  int rc = tm_check_size_match(c->fn->name, "v1", n, "v2", tm_numel(&a[1]));
  if (rc) return rc;
  double f = 0;
  for (size_t i = 0; i < n; i++) f += rget(&a[0], i) * rget(&a[1], i);
  if (!tm_any_ad(a, 2)) return real_result(c, a, 2, f, out);
  /* Partials are copies: a data argument may be overwritten by the program
  ** before the reverse pass. */
  ad_operand o[2];
  for (int k = 0; k < 2; k++) {
    double *d = NULL;
    if (a[k].adj) {
      if (!(d = ad_alloc_doubles(n ? n : 1))) return nomem(c);
      for (size_t i = 0; i < n; i++) d[i] = rget(&a[1 - k], i);
    }
    o[k].adj = a[k].adj;
    o[k].partial = d;
    o[k].n = n;
  }
  return var_result(c, 2, o, f, out);
}

static int k_dot_self(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_anyvec(&a[0])) return tm_no_overload(c, a, nargs);
  size_t n = tm_numel(&a[0]);
  double f = 0;
  for (size_t i = 0; i < n; i++) f += a[0].val[i] * a[0].val[i];
  if (!a[0].adj) return real_result(c, a, 1, f, out);
  double *d = ad_alloc_doubles(n ? n : 1);
  if (!d) return nomem(c);
  for (size_t i = 0; i < n; i++) d[i] = 2 * a[0].val[i];
  ad_operand o = { a[0].adj, d, n };
  return var_result(c, 1, &o, f, out);
}

/* ------------------------------------------------ cumulative_sum, softmax */

/* Vector-valued nodes of one argument: x's adjoint and the result. */
typedef struct vec_node {
  ad_node hdr;
  double *xadj;
  const double *y, *yadj;
  size_t n;
} vec_node;

static int vec_node_new(const tm_call *c, const tm_v *x, const tm_v *y, ad_chain_fn chain) {
  vec_node *v = ad_node_new(sizeof *v, chain);
  if (!v) return nomem(c);
  v->xadj = x->adj;
  v->y = y->val;
  v->yadj = y->adj;
  v->n = tm_numel(y);
  return AD_OK;
}

/* x[i] reaches every y[j], j >= i: its adjoint is a suffix sum */
static void cumsum_chain(ad_node *self) {
  vec_node *v = (vec_node *)self;
  double s = 0;
  for (size_t i = v->n; i-- > 0;) {
    s += v->yadj[i];
    v->xadj[i] += s;
  }
}

static int k_cumulative_sum(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_1d(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0];
  size_t n = tm_numel(x);
  int dim = (int)n, rc;
  if (x->base == TM_INT) {
    if ((rc = make(c, out, TM_INT, 1, 1, 1, &dim, 0))) return rc;
    long long s = 0;
    for (size_t i = 0; i < n; i++) {
      s += x->ival[i];
      if (s > INT_MAX || s < INT_MIN) return int_result(c, s, out);
      out->ival[i] = (int)s;
    }
    return AD_OK;
  }
  if (x->narr) rc = make(c, out, TM_REAL, 1, 1, 1, &dim, x->adj != NULL);
  else rc = make_vec(c, out, x->base, dim, x->adj != NULL);
  if (rc) return rc;
  out->dep = (unsigned char)tm_any_dep(a, 1);
  double s = 0;
  for (size_t i = 0; i < n; i++) out->val[i] = s += x->val[i];
  return x->adj ? vec_node_new(c, x, out, cumsum_chain) : AD_OK;
}

/* y = softmax(x): dx = y .* (dy - dy'y) */
static void softmax_chain(ad_node *self) {
  vec_node *v = (vec_node *)self;
  double s = 0;
  for (size_t i = 0; i < v->n; i++) s += v->yadj[i] * v->y[i];
  for (size_t i = 0; i < v->n; i++) v->xadj[i] += v->y[i] * (v->yadj[i] - s);
}

/* y = x - log_sum_exp(x): dx = dy - softmax(x) * sum(dy) */
static void log_softmax_chain(ad_node *self) {
  vec_node *v = (vec_node *)self;
  double s = 0;
  for (size_t i = 0; i < v->n; i++) s += v->yadj[i];
  for (size_t i = 0; i < v->n; i++) v->xadj[i] += v->yadj[i] - exp(v->y[i]) * s;
}

static int k_softmax(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int log_form = c->fn->data != NULL;
  if (nargs != 1 || !is_vec(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0];
  int n = x->rows, rc;
  if (n == 0) return ad_fail(AD_EINVALID, "%s: v has size 0, but must have a non-zero size", c->fn->name);
  if ((rc = make_vec(c, out, TM_VECTOR, n, x->adj != NULL))) return rc;
  out->dep = (unsigned char)tm_any_dep(a, 1);
  tm_softmax(x->val, (size_t)n, log_form, out->val);
  return x->adj ? vec_node_new(c, x, out, log_form ? log_softmax_chain : softmax_chain) : AD_OK;
}

/* ---------------------------------------------------------------- append */

/* a[0]'s nx values then a[1]'s ny as one vector or row vector (base): the
** vector forms of append_row and append_col, a scalar counting as one */
static int append_flat(const tm_call *c, const tm_v *a, int base, int nx, int ny, tm_v *out) {
  gather G;
  int rc, col = base == TM_VECTOR;
  if ((rc = gather_new(c, &G, out, a, 2, base, col ? nx + ny : 1, col ? 1 : nx + ny, 2))) return rc;
  g_add(&G, &a[0], 0, 1, 0, 1, (size_t)nx);
  g_add(&G, &a[1], 0, 1, (size_t)nx, 1, (size_t)ny);
  return g_end(&G);
}

/* append_row (c->fn->data NULL) stacks vertically, append_col side by side:
** the same checks with rows and columns swapped.  A vector (append_row) or a
** row vector (append_col) with a scalar or another of its kind is the flat
** form; otherwise two matrices, or a matrix and the other kind of vector,
** must match in the dimension they share. */
static int k_append(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  gather G;
  int rc, by_col = c->fn->data != NULL;
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0], *y = &a[1];
  int (*is_flat)(const tm_v *) = by_col ? is_rvec : is_vec, (*is_side)(const tm_v *) = by_col ? is_vec : is_rvec;
  if ((is_flat(x) || is_scal(x)) && (is_flat(y) || is_scal(y)) && !(is_scal(x) && is_scal(y)))
    return by_col ? append_flat(c, a, TM_ROW_VECTOR, x->cols, y->cols, out)
                  : append_flat(c, a, TM_VECTOR, x->rows, y->rows, out);
  if (!(is_mat(x) || is_side(x)) || !(is_mat(y) || is_side(y))) return tm_no_overload(c, a, nargs);
  const char *shared = by_col ? "rows" : "columns";
  int sx = by_col ? x->rows : x->cols, sy = by_col ? y->rows : y->cols;
  if (sx != sy)
    return ad_fail(AD_EINVALID, "%s: %s of A (%d) and %s of B (%d) must match in size",
                   c->fn->name, shared, sx, shared, sy);
  if (by_col) {
    size_t nx = tm_numel(x);
    if ((rc = gather_new(c, &G, out, a, 2, TM_MATRIX, x->rows, x->cols + y->cols, 2))) return rc;
    g_add(&G, x, 0, 1, 0, 1, nx);     /* column-major: y's columns follow x's */
    g_add(&G, y, 0, 1, nx, 1, tm_numel(y));
    return g_end(&G);
  }
  int r = x->rows + y->rows, n = x->cols;
  if ((rc = gather_new(c, &G, out, a, 2, TM_MATRIX, r, n, 2 * (size_t)n))) return rc;
  for (int j = 0; j < n; j++) {   /* column j of the result: x's, then y's */
    g_add(&G, x, (size_t)j * x->rows, 1, (size_t)j * r, 1, (size_t)x->rows);
    g_add(&G, y, (size_t)j * y->rows, 1, (size_t)j * r + x->rows, 1, (size_t)y->rows);
  }
  return g_end(&G);
}

/* ------------------------------------------------------------ replication */

/* Elements of a result of sizes dims, or 0 with *big set if it cannot be
** addressed. */
static size_t count_elems(const int *dims, int n, size_t inner, int *big) {
  size_t t = inner;
  *big = 0;
  for (int i = 0; i < n; i++) {
    if (dims[i] && t > SIZE_MAX / 16 / (size_t)dims[i]) { *big = 1; return 0; }
    t *= (size_t)dims[i];
  }
  return t;
}

/* rep_vector(x, n), rep_row_vector(x, n) */
static int k_rep_vector(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int base = c->fn->data ? TM_ROW_VECTOR : TM_VECTOR, n, rc;
  if (nargs != 2 || !is_scal(&a[0])) return tm_no_overload(c, a, nargs);
  if ((rc = int_arg(c, a, 1, nargs, &n)) || (rc = check_size(c, "n", n))) return rc;
  gather G;
  if ((rc = gather_new(c, &G, out, a, 1, base, base == TM_VECTOR ? n : 1, base == TM_VECTOR ? 1 : n, 1)))
    return rc;
  g_add(&G, &a[0], 0, 0, 0, 1, (size_t)n);
  return g_end(&G);
}

/* rep_matrix(x, m, n), rep_matrix(vector v, n), rep_matrix(row_vector rv, m) */
static int k_rep_matrix(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  gather G;
  int m, n, rc;
  const tm_v *x = &a[0];
  if (nargs == 3 && is_scal(x)) {
    if ((rc = int_arg(c, a, 1, nargs, &m)) || (rc = int_arg(c, a, 2, nargs, &n))) return rc;
    if ((rc = check_size(c, "m", m)) || (rc = check_size(c, "n", n))) return rc;
    if ((rc = gather_new(c, &G, out, a, 1, TM_MATRIX, m, n, 1))) return rc;
    g_add(&G, x, 0, 0, 0, 1, (size_t)m * (size_t)n);
    return g_end(&G);
  }
  if (nargs != 2 || !is_anyvec(x)) return tm_no_overload(c, a, nargs);
  int k;
  if ((rc = int_arg(c, a, 1, nargs, &k))) return rc;
  if ((rc = check_size(c, is_vec(x) ? "n" : "m", k))) return rc;
  if (is_vec(x)) {             /* k copies of v as columns */
    m = x->rows;
    n = k;
    if ((rc = gather_new(c, &G, out, a, 1, TM_MATRIX, m, n, (size_t)n))) return rc;
    for (int j = 0; j < n; j++) g_add(&G, x, 0, 1, (size_t)j * m, 1, (size_t)m);
  } else {                     /* k copies of rv as rows: column j repeats rv[j] */
    m = k;
    n = x->cols;
    if ((rc = gather_new(c, &G, out, a, 1, TM_MATRIX, m, n, (size_t)n))) return rc;
    for (int j = 0; j < n; j++) g_add(&G, x, (size_t)j, 0, (size_t)j * m, 1, (size_t)m);
  }
  return g_end(&G);
}

/* rep_array(x, n), rep_array(x, m, n), rep_array(x, k, m, n): x of any type */
static int k_rep_array(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[3][3] = { {"n"}, {"m", "n"}, {"k", "m", "n"} };
  if (nargs < 2 || nargs > 4) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0];
  int nd = nargs - 1, dims[TM_MAXARR], rc, big;
  if (x->narr + nd > TM_MAXARR)
    return ad_fail(AD_EINVALID, "%s: the result would have %d array dimensions, at most %d are supported",
                   c->fn->name, x->narr + nd, TM_MAXARR);
  for (int i = 0; i < nd; i++) {
    if ((rc = int_arg(c, a, 1 + i, nargs, &dims[i]))) return rc;
    if ((rc = check_size(c, names[nd - 1][i], dims[i]))) return rc;
  }
  for (int i = 0; i < x->narr; i++) dims[nd + i] = x->dim[i];
  size_t e = tm_numel(x), reps = count_elems(dims, nd, 1, &big);
  if (!big) count_elems(dims, nd, e, &big);
  if (big) return nomem(c);
  rc = make(c, out, x->base, x->rows, x->cols, x->narr + nd, dims, x->adj != NULL);
  if (rc) return rc;
  out->dep = (unsigned char)tm_any_dep(a, 1);
  gather G;
  if ((rc = g_begin(&G, c, out, e <= 1 ? 1 : reps))) return rc;
  if (e == 1) g_add(&G, x, 0, 0, 0, 1, reps);
  else for (size_t i = 0; i < reps; i++) g_add(&G, x, 0, 1, i * e, 1, e);
  return g_end(&G);
}

/* ----------------------------------------------------------- conversions */

/* to_vector, to_row_vector: column-major for a matrix, as stored */
static int k_to_vector(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int base = c->fn->data ? TM_ROW_VECTOR : TM_VECTOR, rc;
  if (nargs != 1 || !is_flat(&a[0])) return tm_no_overload(c, a, nargs);
  size_t n = tm_numel(&a[0]);
  if (n > INT_MAX) return nomem(c);
  gather G;
  if ((rc = gather_new(c, &G, out, a, 1, base, base == TM_VECTOR ? (int)n : 1,
                       base == TM_VECTOR ? 1 : (int)n, 1)))
    return rc;
  g_add(&G, &a[0], 0, 1, 0, 1, n);
  return g_end(&G);
}

/* A row-major fill of an m x n matrix from x's flat storage: column j of the
** result takes every n-th element from j. */
static int fill_row_major(const tm_call *c, const tm_v *a, int nargs, const tm_v *x, int m, int n, tm_v *out) {
  gather G;
  int rc = gather_new(c, &G, out, a, nargs, TM_MATRIX, m, n, (size_t)n);
  if (rc) return rc;
  for (int j = 0; j < n; j++) g_add(&G, x, (size_t)j, n, (size_t)j * m, 1, (size_t)m);
  return g_end(&G);
}

static int k_to_matrix(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const tm_v *x = &a[0];
  gather G;
  int rc, m, n, col_major = 1;
  if (nargs == 1) {
    if (x->narr == 0 && x->base >= TM_VECTOR) {   /* same elements, matrix shape */
      if ((rc = gather_new(c, &G, out, a, 1, TM_MATRIX, x->rows, x->cols, 1))) return rc;
      g_add(&G, x, 0, 1, 0, 1, tm_numel(x));
      return g_end(&G);
    }
    if (x->narr == 2 && x->base <= TM_REAL)        /* array[,] real: a[i] is row i */
      return fill_row_major(c, a, 1, x, x->dim[0], x->dim[1], out);
    if (x->narr == 1 && x->base == TM_ROW_VECTOR)  /* array[] row_vector: rows */
      return fill_row_major(c, a, 1, x, x->dim[0], x->cols, out);
    return tm_no_overload(c, a, nargs);
  }
  if ((nargs != 3 && nargs != 4) || !is_flat(x)) return tm_no_overload(c, a, nargs);
  if ((rc = int_arg(c, a, 1, nargs, &m)) || (rc = int_arg(c, a, 2, nargs, &n))) return rc;
  if (nargs == 4 && (rc = int_arg(c, a, 3, nargs, &col_major))) return rc;
  if ((rc = check_size(c, "m", m)) || (rc = check_size(c, "n", n))) return rc;
  size_t size = tm_numel(x), mn = (size_t)m * (size_t)n;
  if (mn != size)
    return ad_fail(AD_EINVALID, "%s: rows * columns (%zu) and size of x (%zu) must match in size",
                   c->fn->name, mn, size);
  if (!col_major) return fill_row_major(c, a, nargs, x, m, n, out);
  if ((rc = gather_new(c, &G, out, a, nargs, TM_MATRIX, m, n, 1))) return rc;
  g_add(&G, x, 0, 1, 0, 1, size);
  return g_end(&G);
}

/* to_array_1d: arrays flatten in Stan's row-major order, which is how they
** are stored; vectors and matrices column-major */
static int k_to_array_1d(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const tm_v *x = &a[0];
  if (nargs != 1 || !((x->narr == 0 && x->base >= TM_VECTOR) || (x->narr >= 1 && x->base <= TM_REAL)))
    return tm_no_overload(c, a, nargs);
  size_t n = tm_numel(x);
  if (n > INT_MAX) return nomem(c);
  int dim = (int)n, rc;
  rc = make(c, out, x->base == TM_INT ? TM_INT : TM_REAL, 1, 1, 1, &dim, x->adj != NULL);
  if (rc) return rc;
  out->dep = (unsigned char)tm_any_dep(a, 1);
  gather G;
  if ((rc = g_begin(&G, c, out, 1))) return rc;
  g_add(&G, x, 0, 1, 0, 1, n);
  return g_end(&G);
}

/* ---------------------------------------------------------------- slices */

/* head, tail, segment of a vector, row vector or array of any type: a run of
** whole elements of the leading dimension. */
static int slice(const tm_call *c, const tm_v *a, int nargs, int first, int count, tm_v *out) {
  const tm_v *x = &a[0];
  size_t e = 1;
  int rc;
  if (x->narr) {
    int dims[TM_MAXARR];
    memcpy(dims, x->dim, sizeof dims);
    dims[0] = count;
    tm_v el = tm_elem(x, 0);
    e = tm_numel(&el);
    rc = make(c, out, x->base, x->rows, x->cols, x->narr, dims, x->adj != NULL);
  } else {
    rc = make_vec(c, out, x->base, count, x->adj != NULL);
  }
  if (rc) return rc;
  out->dep = (unsigned char)tm_any_dep(a, nargs);
  gather G;
  if ((rc = g_begin(&G, c, out, 1))) return rc;
  g_add(&G, x, (size_t)first * e, 1, 0, 1, (size_t)count * e);
  return g_end(&G);
}

static int slice_len(const tm_v *x) {
  return x->narr ? x->dim[0] : (x->base == TM_VECTOR ? x->rows : x->cols);
}

static int sliceable(const tm_v *x) { return x->narr > 0 || is_anyvec(x); }

/* head(x, n), tail(x, n) */
static int k_head_tail(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int n, rc, tail = c->fn->data != NULL;
  if (nargs != 2 || !sliceable(&a[0])) return tm_no_overload(c, a, nargs);
  if ((rc = int_arg(c, a, 1, nargs, &n))) return rc;
  int len = slice_len(&a[0]);
  if ((rc = check_range(c, "n", n, 0, len))) return rc;
  return slice(c, a, nargs, tail ? len - n : 0, n, out);
}

/* segment(x, i, n): n elements from the i-th */
static int k_segment(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int i, n, rc;
  if (nargs != 3 || !sliceable(&a[0])) return tm_no_overload(c, a, nargs);
  if ((rc = int_arg(c, a, 1, nargs, &i)) || (rc = int_arg(c, a, 2, nargs, &n))) return rc;
  int len = slice_len(&a[0]);
  if ((rc = check_range(c, "i", i, 1, len))) return rc;
  if ((rc = check_range(c, "n", n, 0, (long long)len - i + 1))) return rc;
  return slice(c, a, nargs, i - 1, n, out);
}

/* block(x, i, j, n_rows, n_cols) */
static int k_block(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int i, j, nr, nc, rc;
  const tm_v *x = &a[0];
  if (nargs != 5 || !is_mat(x)) return tm_no_overload(c, a, nargs);
  if ((rc = int_arg(c, a, 1, nargs, &i)) || (rc = int_arg(c, a, 2, nargs, &j)) ||
      (rc = int_arg(c, a, 3, nargs, &nr)) || (rc = int_arg(c, a, 4, nargs, &nc)))
    return rc;
  if ((rc = check_range(c, "i", i, 1, x->rows)) || (rc = check_range(c, "j", j, 1, x->cols)) ||
      (rc = check_range(c, "n_rows", nr, 0, (long long)x->rows - i + 1)) ||
      (rc = check_range(c, "n_cols", nc, 0, (long long)x->cols - j + 1)))
    return rc;
  gather G;
  if ((rc = gather_new(c, &G, out, a, 1, TM_MATRIX, nr, nc, (size_t)nc))) return rc;
  for (int k = 0; k < nc; k++)
    g_add(&G, x, (size_t)(j - 1 + k) * x->rows + (i - 1), 1, (size_t)k * nr, 1, (size_t)nr);
  return g_end(&G);
}

/* col(x, j), row(x, i) */
static int k_col_row(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int is_row = c->fn->data != NULL, k, rc;
  const tm_v *x = &a[0];
  if (nargs != 2 || !is_mat(x)) return tm_no_overload(c, a, nargs);
  if ((rc = int_arg(c, a, 1, nargs, &k))) return rc;
  if ((rc = check_range(c, is_row ? "i" : "j", k, 1, is_row ? x->rows : x->cols))) return rc;
  gather G;
  if (is_row) {
    if ((rc = gather_new(c, &G, out, a, 1, TM_ROW_VECTOR, 1, x->cols, 1))) return rc;
    g_add(&G, x, (size_t)(k - 1), x->rows, 0, 1, (size_t)x->cols);
  } else {
    if ((rc = gather_new(c, &G, out, a, 1, TM_VECTOR, x->rows, 1, 1))) return rc;
    g_add(&G, x, (size_t)(k - 1) * x->rows, 1, 0, 1, (size_t)x->rows);
  }
  return g_end(&G);
}

static int k_diag_matrix(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_vec(&a[0])) return tm_no_overload(c, a, nargs);
  int n = a[0].rows, rc;
  gather G;
  if ((rc = gather_new(c, &G, out, a, 1, TM_MATRIX, n, n, 1))) return rc;
  memset(out->val, 0, (size_t)n * (size_t)n * sizeof(double));
  g_add(&G, &a[0], 0, 1, 0, (ptrdiff_t)n + 1, (size_t)n);
  return g_end(&G);
}

static int k_transpose(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const tm_v *x = &a[0];
  if (nargs != 1 || !(is_mat(x) || is_anyvec(x))) return tm_no_overload(c, a, nargs);
  int base = is_vec(x) ? TM_ROW_VECTOR : is_rvec(x) ? TM_VECTOR : TM_MATRIX, m = x->rows, rc;
  gather G;
  if ((rc = gather_new(c, &G, out, a, 1, base, x->cols, x->rows, (size_t)(m < x->cols ? m : x->cols)))) return rc;
  /* Whichever is fewer: row i of x (stride m) is column i of the result,
  ** or column j of x is row j of the result (stride cols). */
  if (m <= x->cols)
    for (int i = 0; i < m; i++) g_add(&G, x, (size_t)i, m, (size_t)i * x->cols, 1, (size_t)x->cols);
  else
    for (int j = 0; j < x->cols; j++) g_add(&G, x, (size_t)j * m, 1, (size_t)j, x->cols, (size_t)m);
  return g_end(&G);
}

/* ---------------------------------------------------------- size queries */

enum { Q_ROWS, Q_COLS, Q_SIZE, Q_NUMEL };
static const int q_codes[] = { Q_ROWS, Q_COLS, Q_SIZE, Q_NUMEL };

static int k_query(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int q = *(const int *)c->fn->data;
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0];
  size_t r;
  switch (q) {
  case Q_ROWS: case Q_COLS:
    if (x->narr || x->base < TM_VECTOR) return tm_no_overload(c, a, nargs);
    r = (size_t)(q == Q_ROWS ? x->rows : x->cols);
    break;
  case Q_SIZE:
    r = x->narr ? (size_t)x->dim[0] : tm_numel(x);
    break;
  default:
    r = tm_numel(x);
  }
  return int_result(c, (long long)r, out);
}

/* dims(x): the array dimensions, then the rows and columns of a vector,
** row vector or matrix (real or complex), as array[] int (empty for a
** scalar).  A vector has both, as in Stan Math: dims(vector[3]) is
** {3, 1} and dims(row_vector[3]) is {1, 3}.  Shared with complex values. */
int tm_k_dims(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  const tm_v *x = &a[0];
  int d[TM_MAXARR + 2], n = 0;
  for (int i = 0; i < x->narr; i++) d[n++] = x->dim[i];
  if (x->base >= TM_VECTOR && x->base <= TM_MATRIX) { d[n++] = x->rows; d[n++] = x->cols; }
  else if (x->base >= TM_CVECTOR && x->base <= TM_CMATRIX) { d[n++] = x->rows; d[n++] = x->cols; }
  if (tm_new_int_array(out, n)) return nomem(c);
  memcpy(out->ival, d, (size_t)n * sizeof(int));
  return AD_OK;
}

/* ------------------------------------------------------------ signatures */

#define ONE_D "vector; row_vector; matrix; array[] real"
#define RED_REAL "real(vector); real(row_vector); real(matrix); real(array[] real)"
#define SIG_MINMAX "int(array[] int); " RED_REAL "; int(int, int); real(real, real)"

/* head and tail of arrays of every element type, 1 to 3 dimensions */
#define HT3(b) "; array[] " b "(array[] " b ", int); array[,] " b "(array[,] " b ", int)" \
               "; array[,,] " b "(array[,,] " b ", int)"
#define SEG3(b) "; array[] " b "(array[] " b ", int, int); array[,] " b "(array[,] " b ", int, int)" \
                "; array[,,] " b "(array[,,] " b ", int, int)"
#define EACH_BASE(F) F("int") F("real") F("vector") F("row_vector") F("matrix")
#define SIG_HT "vector(vector, int); row_vector(row_vector, int)" EACH_BASE(HT3)
#define SIG_SEG "vector(vector, int, int); row_vector(row_vector, int, int)" EACH_BASE(SEG3)

/* rep_array(T x, dims): T of every base type with 0 to 5 array dimensions
** (results of at most 8).  Without the deeper forms, an int or real array
** of 3 dimensions promoted to complex and matched complex's rep_array. */
#define REP_T(sep, t, a1, a2, a3) \
  sep a1 "(" t ", int); " a2 "(" t ", int, int); " a3 "(" t ", int, int, int)"
#define REP3(sep, b) \
  REP_T(sep, b, "array[] " b, "array[,] " b, "array[,,] " b) \
  REP_T("; ", "array[] " b, "array[,] " b, "array[,,] " b, "array[,,,] " b) \
  REP_T("; ", "array[,] " b, "array[,,] " b, "array[,,,] " b, "array[,,,,] " b) \
  REP_T("; ", "array[,,] " b, "array[,,,] " b, "array[,,,,] " b, "array[,,,,,] " b) \
  REP_T("; ", "array[,,,] " b, "array[,,,,] " b, "array[,,,,,] " b, "array[,,,,,,] " b) \
  REP_T("; ", "array[,,,,] " b, "array[,,,,,] " b, "array[,,,,,,] " b, "array[,,,,,,,] " b)
#define SIG_REP_ARRAY REP3("", "int") REP3("; ", "real") REP3("; ", "vector") \
  REP3("; ", "row_vector") REP3("; ", "matrix")

#define TO_VEC(t) t "(vector); " t "(row_vector); " t "(matrix); " t "(array[] real); " t "(array[] int)"
#define TO_MAT(x) "; matrix(" x ", int, int); matrix(" x ", int, int, int)"
#define SIG_TO_MATRIX "matrix(matrix); matrix(vector); matrix(row_vector); matrix(array[,] real)" \
  "; matrix(array[,] int); matrix(array[] row_vector)" TO_MAT("matrix") TO_MAT("vector") \
  TO_MAT("row_vector") TO_MAT("array[] real") TO_MAT("array[] int")
#define TO_A1(b) "; array[] " b "(array[] " b "); array[] " b "(array[,] " b "); array[] " b "(array[,,] " b ")" \
  "; array[] " b "(array[,,,] " b "); array[] " b "(array[,,,,] " b "); array[] " b "(array[,,,,,] " b ")" \
  "; array[] " b "(array[,,,,,,] " b "); array[] " b "(array[,,,,,,,] " b ")"
#define SIG_TO_ARRAY_1D "array[] real(vector); array[] real(row_vector); array[] real(matrix)" \
  TO_A1("real") TO_A1("int")

#define SIZE_OF(t) "; int(" t ")"
#define DIMS_OF(b) "; array[] int(array[] " b "); array[] int(array[,] " b "); array[] int(array[,,] " b ")" \
                   "; array[] int(array[,,,] " b "); array[] int(array[,,,,] " b ")" \
                   "; array[] int(array[,,,,,] " b "); array[] int(array[,,,,,,] " b ")" \
                   "; array[] int(array[,,,,,,,] " b ")"
#define ARRS(b) SIZE_OF("array[] " b) SIZE_OF("array[,] " b) SIZE_OF("array[,,] " b) SIZE_OF("array[,,,] " b) \
  SIZE_OF("array[,,,,] " b) SIZE_OF("array[,,,,,] " b) SIZE_OF("array[,,,,,,] " b) SIZE_OF("array[,,,,,,,] " b)

const tm_fn tm_fns_container[] = {
  {"sum", "int(array[] int); " RED_REAL, k_reduce, &op_codes[OP_SUM]},
  {"prod", "int(array[] int); " RED_REAL, k_reduce, &op_codes[OP_PROD]},
  {"mean", RED_REAL, k_reduce, &op_codes[OP_MEAN]},
  {"variance", RED_REAL, k_reduce, &op_codes[OP_VARIANCE]},
  {"sd", RED_REAL, k_reduce, &op_codes[OP_SD]},
  {"min", SIG_MINMAX, k_reduce, &op_codes[OP_MIN]},
  {"max", SIG_MINMAX, k_reduce, &op_codes[OP_MAX]},
  {"dot_product", "real(vector, vector); real(vector, row_vector); real(row_vector, vector)"
                  "; real(row_vector, row_vector); real(array[] real, array[] real)", k_dot_product, NULL},
  {"dot_self", "real(vector); real(row_vector)", k_dot_self, NULL},
  {"cumulative_sum", "array[] int(array[] int); array[] real(array[] real); vector(vector)"
                     "; row_vector(row_vector)", k_cumulative_sum, NULL},
  {"softmax", "vector(vector)", k_softmax, NULL},
  {"log_softmax", "vector(vector)", k_softmax, "log"},
  {"append_row", "matrix(matrix, matrix); matrix(matrix, row_vector); matrix(row_vector, matrix)"
                 "; matrix(row_vector, row_vector); vector(vector, vector); vector(real, vector)"
                 "; vector(vector, real)", k_append, NULL},
  {"append_col", "matrix(matrix, matrix); matrix(vector, matrix); matrix(matrix, vector)"
                 "; matrix(vector, vector); row_vector(row_vector, row_vector)"
                 "; row_vector(real, row_vector); row_vector(row_vector, real)", k_append, "col"},
  {"rep_vector", "vector(real, int)", k_rep_vector, NULL},
  {"rep_row_vector", "row_vector(real, int)", k_rep_vector, "row"},
  {"rep_matrix", "matrix(real, int, int); matrix(vector, int); matrix(row_vector, int)", k_rep_matrix, NULL},
  {"rep_array", SIG_REP_ARRAY, k_rep_array, NULL},
  {"to_vector", TO_VEC("vector"), k_to_vector, NULL},
  {"to_row_vector", TO_VEC("row_vector"), k_to_vector, "row"},
  {"to_matrix", SIG_TO_MATRIX, k_to_matrix, NULL},
  {"to_array_1d", SIG_TO_ARRAY_1D, k_to_array_1d, NULL},
  {"head", SIG_HT, k_head_tail, NULL},
  {"tail", SIG_HT, k_head_tail, "tail"},
  {"segment", SIG_SEG, k_segment, NULL},
  {"block", "matrix(matrix, int, int, int, int)", k_block, NULL},
  {"col", "vector(matrix, int)", k_col_row, NULL},
  {"row", "row_vector(matrix, int)", k_col_row, "row"},
  {"diag_matrix", "matrix(vector)", k_diag_matrix, NULL},
  {"transpose", "matrix(matrix); row_vector(vector); vector(row_vector)", k_transpose, NULL},
  {"rows", "int(vector); int(row_vector); int(matrix)", k_query, &q_codes[Q_ROWS]},
  {"cols", "int(vector); int(row_vector); int(matrix)", k_query, &q_codes[Q_COLS]},
  {"size", "int(int); int(real); int(vector); int(row_vector); int(matrix)" EACH_BASE(ARRS), k_query, &q_codes[Q_SIZE]},
  {"dims", "array[] int(int); array[] int(real); array[] int(vector); array[] int(row_vector); array[] int(matrix)"
           EACH_BASE(DIMS_OF), tm_k_dims, NULL},
  {"num_elements", "int(vector); int(row_vector); int(matrix)" EACH_BASE(ARRS), k_query, &q_codes[Q_NUMEL]},
  {NULL, NULL, NULL, NULL}
};
