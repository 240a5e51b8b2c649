/*
** tm_scalar_kernel.c -- the generic elementwise kernels (tm_scalar.h) every
** elementwise function of scalar/ runs on, and the pairing of an int array
** with a real container of its layout that Stan's binary vectorization allows.
**
** tm_unary_kernel applies a tm_unary_def {f, df} to an int, a real or every
** element of a container; tm_binary_kernel applies a tm_binary_def {f, dfdx,
** dfdy} with Stan's broadcasting (a scalar against a container; two
** containers of one shape).  Adding a function is one def and one table line
** in the file of its role (tm_elementary.c, tm_numeric.c, tm_special_elem.c).
**
** On autodiff arguments the partials are computed in the forward pass and a
** container call records one elt_node for the whole container, so the
** reverse step is a multiply-add per element and no function is evaluated
** twice.  A scalar call records Stan's usual single scalar node.
*/
#include <stdio.h>
#include <string.h>
#include "../tm_scalar.h"

/* ---- int arrays against real containers ---- */

int tm_new_int_like(tm_v *out, const tm_v *v) {
  size_t n = tm_numel(v);
  *out = *v;
  out->base = TM_INT;
  out->val = out->adj = NULL;
  out->dep = 0;
  out->ival = ad_alloc((n ? n : 1) * sizeof(int));
  return out->ival ? AD_OK : AD_EMEMORY;
}

/* extra array dimensions a real container's base adds: a vector is one, a matrix two */
static int base_dims(int base) { return base == TM_MATRIX ? 2 : base == TM_VECTOR || base == TM_ROW_VECTOR; }

/* ia (an int array) in the layout of v (a real container), as data */
static int pair(const char *fn, const tm_v *ia, const tm_v *v, tm_v *out) {
  int extra = base_dims(v->base);
  if (ia->base != TM_INT || !extra || ia->narr != v->narr + extra) return 1;
  for (int i = 0; i < v->narr; i++)
    if (ia->dim[i] != v->dim[i]) return 1;
  int r = v->rows, c = v->cols;
  if (extra == 1) {
    int n = v->base == TM_VECTOR ? r : c;
    if (ia->dim[v->narr] != n) return 1;
  } else if (ia->dim[v->narr] != r || ia->dim[v->narr + 1] != c) {
    return 1;
  }
  (void)fn;
  size_t n = tm_numel(v), blk = (size_t)r * (size_t)c;
  int rc = tm_new_like(out, v, 0);
  if (rc) return rc;
  for (size_t k = 0; k < n; k += blk ? blk : 1)
    for (int j = 0; j < c; j++)
      for (int i = 0; i < r; i++)   /* matrix (i, j) column-major; ints [i][j] by rows */
        out->val[k + (size_t)j * r + i] = ia->ival[k + (extra == 2 ? (size_t)i * c + j : (size_t)i + j)];
  out->dep = ia->dep;
  return AD_OK;
}

int tm_pair_int_array(const char *fn, const tm_v *x, const tm_v *y, tm_v *xm, tm_v *ym) {
  *xm = *x;
  *ym = *y;
  int rc = pair(fn, x, y, xm);
  if (rc == 1) rc = pair(fn, y, x, ym);
  if (rc == 1) { *xm = *x; *ym = *y; return AD_OK; }   /* not a pair: the caller's shape check speaks */
  return rc;
}

/* ---- tm_ew_node (tm_scalar.h) ---- */

static void ew_chain(ad_node *self) {
  tm_ew_node *e = (tm_ew_node *)self;
  for (int j = 0; j < e->k; j++) tm_add_partials(e->adj[j], e->scalar[j], e->oadj, e->d[j], e->n);
}

tm_ew_node *tm_ew_node_new(size_t n, const double *oadj) {
  tm_ew_node *e = ad_node_new(sizeof *e, ew_chain);
  if (!e) return NULL;
  e->n = n;
  e->k = 0;
  e->oadj = oadj;
  return e;
}

void tm_ew_node_add(tm_ew_node *e, double *adj, const double *d, int scalar) {
  e->adj[e->k] = adj;
  e->d[e->k] = d;
  e->scalar[e->k] = scalar;
  e->k++;
}

/* ---- the elementwise node: one per vectorized call ---- */

typedef struct {
  ad_node hdr;
  size_t n;
  const double *oadj;        /* the result's adjoints */
  double *xadj, *yadj;       /* operand adjoints; NULL for data operands */
  const double *dx, *dy;     /* n partials each */
  int xs, ys;                /* operand is a broadcast scalar: sum into adj[0] */
} elt_node;

static void elt_chain(ad_node *self) {
  elt_node *e = (elt_node *)self;
  tm_add_partials(e->xadj, e->xs, e->oadj, e->dx, e->n);
  tm_add_partials(e->yadj, e->ys, e->oadj, e->dy, e->n);
}

static int elt_record(size_t n, const double *oadj, double *xadj, const double *dx, int xs,
                      double *yadj, const double *dy, int ys) {
  elt_node *e = ad_node_new(sizeof *e, elt_chain);
  if (!e) return AD_EMEMORY;
  e->n = n;
  e->oadj = oadj;
  e->xadj = xadj; e->dx = dx; e->xs = xs;
  e->yadj = yadj; e->dy = dy; e->ys = ys;
  return AD_OK;
}

/* Partials for an autodiff operand (n of them, arena), NULL for data. */
static int partials_for(const tm_v *v, size_t n, double **p) {
  *p = NULL;
  if (!v->adj) return AD_OK;
  *p = ad_alloc_doubles(n ? n : 1);
  return *p ? AD_OK : AD_EMEMORY;
}

/* "[3]" for element 2 of a container, "" for a scalar, as in tm_check.c. */
static const char *elem_suffix(char *buf, size_t size, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) buf[0] = '\0';
  else snprintf(buf, size, "[%zu]", i + 1);
  return buf;
}

/* ---- unary functions ---- */

typedef tm_unary_def unary_def;      /* tm_scalar.h */

int tm_unary_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const unary_def *d = c->fn->data;
  const char *fn = tm_fn_name(c);
  char at[32];
  int rc;
  if (nargs != 1) return ad_fail(AD_EINVALID, "%s: expected 1 argument, got %d", fn, nargs);
  if (d->fi && a->base == TM_INT) {
    int r;
    if (tm_is_scalar(a)) {
      if ((rc = d->fi(fn, a->ival[0], &r))) return rc;
      return tm_set_int(out, r);
    }
    /* an int array in, an int array out (abs, minus) */
    if ((rc = tm_new_int_like(out, a))) return rc;
    for (size_t i = 0, m = tm_numel(a); i < m; i++)
      if ((rc = d->fi(fn, a->ival[i], &out->ival[i]))) return rc;
    return AD_OK;
  }
  size_t n = tm_numel(a);
  if (d->bad)
    for (size_t i = 0; i < n; i++) {
      double x = tm_get(a, i);
      if (d->bad(x))
        return ad_fail(AD_EDOMAIN, "%s: %s%s is %.17g, but must %s", fn, d->xname ? d->xname : "x",
                       elem_suffix(at, sizeof at, a, i), x, d->must);
    }
  if (tm_is_scalar(a)) {
    double x = tm_get(a, 0), fx = d->f(x);
    if (a->adj) {
      ad_var xv = {a->val, a->adj}, r;
      if ((rc = ad_unary(xv, fx, d->df(x, fx), &r))) return rc;
      return tm_set_var(out, r);
    }
    rc = tm_set_real(out, fx);
    out->dep = a->dep;
    return rc;
  }
  double *p;
  if ((rc = tm_new_like(out, a, a->adj != NULL)) || (rc = partials_for(a, n, &p))) return rc;
  out->dep = a->dep;
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(a, i), fx = d->f(x);
    out->val[i] = fx;
    if (p) p[i] = d->df(x, fx);
  }
  if (!a->adj) return AD_OK;
  return elt_record(n, out->adj, a->adj, p, 0, NULL, NULL, 0);
}

/* ---- binary functions ---- */

typedef tm_binary_def binary_def;    /* tm_scalar.h */

static int same_kind(const tm_v *x, const tm_v *y) {
  if (x->base != y->base && !(x->base <= TM_REAL && y->base <= TM_REAL)) return 0;
  if (x->narr != y->narr || x->rows != y->rows || x->cols != y->cols) return 0;
  for (int i = 0; i < x->narr; i++) if (x->dim[i] != y->dim[i]) return 0;
  return 1;
}

static int check_shapes(const char *fn, const tm_v *x, const tm_v *y) {
  size_t nx = tm_numel(x), ny = tm_numel(y);
  if (nx != ny) return tm_check_size_match(fn, "x", nx, "y", ny);
  if (same_kind(x, y)) return AD_OK;
  char tx[48], ty[48];
  return ad_fail(AD_EINVALID, "%s: x (%s, %d x %d) and y (%s, %d x %d) must have the same type and dimensions",
                 fn, tm_type_name(x, tx, sizeof tx), x->rows, x->cols,
                 tm_type_name(y, ty, sizeof ty), y->rows, y->cols);
}

/* x + y and x - y, exported for the defs of add and subtract (tm_elementary.c):
** binary_apply knows them by address and runs addsub on containers. */
double tm_scalar_add(double x, double y) { return x + y; }
double tm_scalar_sub(double x, double y) { return x - y; }

/* x + y and x - y of real values with a container among them: binary_apply
** without a call through a pointer per element, and a node that adds the
** output's adjoints (or subtracts them, for y of a difference) with no
** partials of 1 and -1 to multiply by: a * 1 and a * -1 are exact, so the
** sums are those of the generic node, bit for bit. */
typedef struct addsub_node {
  ad_node hdr;
  size_t n;
  const double *oadj;
  double *xadj, *yadj;
  int xs, ys, sub;
} addsub_node;

void tm_addsub_values(int sub, const double *xv, int xs, const double *yv, int ys, size_t n, double *o) {
  size_t xi = !xs, yi = !ys;       /* a scalar is read at 0 throughout */
  if (sub) for (size_t i = 0; i < n; i++) o[i] = xv[i * xi] - yv[i * yi];
  else for (size_t i = 0; i < n; i++) o[i] = xv[i * xi] + yv[i * yi];
}

void tm_addsub_back(double *adj, int scalar, int neg, const double *oadj, size_t n) {
  if (!adj) return;
  if (scalar) {
    double s = 0;
    if (neg) for (size_t i = 0; i < n; i++) s -= oadj[i];
    else for (size_t i = 0; i < n; i++) s += oadj[i];
    adj[0] += s;
  } else if (neg) {
    for (size_t i = 0; i < n; i++) adj[i] -= oadj[i];
  } else {
    for (size_t i = 0; i < n; i++) adj[i] += oadj[i];
  }
}

static void addsub_chain(ad_node *self) {
  addsub_node *p = (addsub_node *)self;
  tm_addsub_back(p->xadj, p->xs, 0, p->oadj, p->n);
  tm_addsub_back(p->yadj, p->ys, p->sub, p->oadj, p->n);
}

static int addsub(int sub, const tm_v *x, int xs, const tm_v *y, int ys, const tm_v *shape, size_t n,
                  int ad, tm_v *out) {
  int rc = tm_new_like(out, shape, ad);
  if (rc) return rc;
  out->dep = x->dep || y->dep;
  tm_addsub_values(sub, x->val, xs, y->val, ys, n, out->val);
  if (!ad) return AD_OK;
  addsub_node *p = ad_node_new(sizeof *p, addsub_chain);
  if (!p) return AD_EMEMORY;
  p->n = n;
  p->oadj = out->adj;
  p->xadj = x->adj;
  p->yadj = y->adj;
  p->xs = xs;
  p->ys = ys;
  p->sub = sub;
  return AD_OK;
}

int tm_binary_apply(const char *fn, const binary_def *d, const tm_v *a, int nargs, tm_v *out) {
  const tm_v *x = &a[0], *y = &a[1];
  char at[32];
  int rc;
  if (nargs != 2) return ad_fail(AD_EINVALID, "%s: expected 2 arguments, got %d", fn, nargs);
  int xs = tm_is_scalar(x), ys = tm_is_scalar(y);
  if (d->y_scalar && !ys) {
    char ty[48];
    return ad_fail(AD_EINVALID, "%s: the second argument must be int or real, not %s", fn,
                   tm_type_name(y, ty, sizeof ty));
  }
  if (!d->f && (x->base != TM_INT || y->base != TM_INT))   /* int-only (choose) */
    return ad_fail(AD_EINVALID, "%s: both arguments must be int", fn);
  if (xs && ys && x->base == TM_INT && y->base == TM_INT && d->fi) {
    int r;
    if ((rc = d->fi(fn, x->ival[0], y->ival[0], &r))) return rc;
    return tm_set_int(out, r);
  }
  if (x->base == TM_INT && y->base == TM_INT && d->fi) {
    /* int arrays (or an int and an int array): an int array (choose, the factorials) */
    if (!xs && !ys && (rc = check_shapes(fn, x, y))) return rc;
    if ((rc = tm_new_int_like(out, xs ? y : x))) return rc;
    for (size_t i = 0, m = tm_numel(out); i < m; i++)
      if ((rc = d->fi(fn, tm_geti(x, i), tm_geti(y, i), &out->ival[i]))) return rc;
    return AD_OK;
  }
  tm_v xm, ym;
  if (!xs && !ys && !same_kind(x, y)) {
    /* an int array against a real container of its layout: Stan's (array[] int, vector) */
    if ((rc = tm_pair_int_array(fn, x, y, &xm, &ym))) return rc;
    x = &xm; y = &ym;
  }
  if (!xs && !ys && (rc = check_shapes(fn, x, y))) return rc;
  const tm_v *shape = xs ? y : x;
  size_t n = tm_numel(shape);
  if (d->check)
    for (size_t i = 0; i < n; i++)
      if ((rc = d->check(fn, elem_suffix(at, sizeof at, shape, i), tm_get(x, i), tm_get(y, i))))
        return rc;
  int ad = x->adj || y->adj;
  if (xs && ys) {
    double u = tm_get(x, 0), v = tm_get(y, 0), f = d->f(u, v);
    if (!ad) {
      rc = tm_set_real(out, f);
      out->dep = x->dep || y->dep;
      return rc;
    }
    ad_var r, xv = {x->val, x->adj}, yv = {y->val, y->adj};
    if (x->adj && y->adj) rc = ad_binary(xv, yv, f, d->dx(u, v, f), d->dy(u, v, f), &r);
    else if (x->adj) rc = ad_unary(xv, f, d->dx(u, v, f), &r);
    else rc = ad_unary(yv, f, d->dy(u, v, f), &r);
    return rc ? rc : tm_set_var(out, r);
  }
  if ((d->f == tm_scalar_add || d->f == tm_scalar_sub) && x->base != TM_INT && y->base != TM_INT)
    return addsub(d->f == tm_scalar_sub, x, xs, y, ys, shape, n, ad, out);
  double *px, *py;
  if ((rc = tm_new_like(out, shape, ad)) || (rc = partials_for(x, n, &px)) ||
      (rc = partials_for(y, n, &py)))
    return rc;
  out->dep = x->dep || y->dep;
  for (size_t i = 0; i < n; i++) {
    double u = tm_get(x, i), v = tm_get(y, i), f = d->f(u, v);
    out->val[i] = f;
    if (px) px[i] = d->dx(u, v, f);
    if (py) py[i] = d->dy(u, v, f);
  }
  if (!ad) return AD_OK;
  return elt_record(n, out->adj, x->adj, px, xs, y->adj, py, ys);
}

int tm_binary_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return tm_binary_apply(tm_fn_name(c), c->fn->data, a, nargs, out);
}
