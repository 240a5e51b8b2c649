/*
** tm_transform.c -- the table of constraint transforms, the checked entry
** points, the scalar (elementwise) transforms with bounds, and the generic
** driver of the vector and matrix transforms (tm_transform_vec.c, _mat.c).
**
** Elementwise transforms: lower (x = exp(u) + L), upper (x = U - exp(u)),
** lower_upper (x = L + (U - L) inv_logit(u)), offset_multiplier
** (x = mu + sigma u).  Infinite bounds fall back as in Stan: L = -inf makes
** lower the identity, U = +inf makes upper the identity, and lower_upper with
** one infinite bound is lower or upper, with both the identity.
**
** One call records at most two nodes: one for the constrained values (its
** reverse step uses partials kept from the forward pass) and one operands
** node for log |J|.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tm_transform.h"
#include "../tm_scalar.h"
#include "../tm_special.h"

/* ---- shapes ---- */

static size_t array_count(const tm_v *s) {
  size_t n = 1;
  for (int i = 0; i < s->narr; i++) n *= (size_t)(s->dim[i] > 0 ? s->dim[i] : 0);
  return n;
}

static int shape_sane(const char *name, const tm_v *s) {
  if (s->base > TM_MATRIX || s->base == TM_INT || s->rows < 0 || s->cols < 0 || s->narr > TM_MAXARR)
    return ad_fail(AD_EINVALID, "%s: the declared shape is not a real, vector, row_vector or matrix type", name);
  for (int i = 0; i < s->narr; i++)
    if (s->dim[i] < 0) return ad_fail(AD_EINVALID, "%s: array dimension %d is negative", name, i + 1);
  return AD_OK;
}

/* The result: a new value of the declared shape. */
static int new_result(const tm_v *shape, int ad, tm_v *y) {
  tm_v s = *shape;
  if (s.base == TM_INT) s.base = TM_REAL;
  return tm_new_like(y, &s, ad);
}

/* ---- log |J| as a real or one operands node ---- */

static int lp_result(double lp, int nops, const ad_operand *ops, int dep, tm_v *out) {
  int any = 0;
  for (int i = 0; i < nops; i++) if (ops[i].adj && ops[i].n) any = 1;
  int rc;
  if (!any) {
    rc = tm_set_real(out, lp);
  } else {
    ad_var v;
    if ((rc = ad_operands_node(nops, ops, lp, &v))) return rc;
    rc = tm_set_var(out, v);
  }
  if (rc == AD_OK) out->dep = (unsigned char)dep;
  return rc;
}

/* ---- elementwise transforms ---- */

enum { EW_IDENTITY, EW_LOWER, EW_UPPER, EW_LUB, EW_OFFMULT };

typedef struct {
  int kind;
  const char *cfn, *ffn;            /* Stan's function names, for messages */
  const char *pname[2];             /* parameter names in messages */
} ew_def;

/* One element: value and partials of y and of log |J| in (u, a, b).  Partials
** are written only where the pointer is not NULL. */
typedef struct { double y, dy[3], lp, dlp[3]; } ew_point;

static void ew_identity(double u, ew_point *p) {
  memset(p, 0, sizeof *p);
  p->y = u;
  p->dy[0] = 1;
}

static void ew_lower(double u, double a, ew_point *p) {
  if (a == -INFINITY) { ew_identity(u, p); return; }
  double e = exp(u);
  memset(p, 0, sizeof *p);
  p->y = e + a;
  p->dy[0] = e;
  p->dy[1] = 1;
  p->lp = u;
  p->dlp[0] = 1;
}

/* The bound is params[0] for upper, params[1] for lower_upper: partials go to slot. */
static void ew_upper(double u, double b, int slot, ew_point *p) {
  if (b == INFINITY) { ew_identity(u, p); return; }
  double e = exp(u);
  memset(p, 0, sizeof *p);
  p->y = b - e;
  p->dy[0] = -e;
  p->dy[slot] = 1;
  p->lp = u;
  p->dlp[0] = 1;
}

static void ew_lub(double u, double a, double b, ew_point *p) {
  if (a == -INFINITY && b == INFINITY) { ew_identity(u, p); return; }
  if (b == INFINITY) { ew_lower(u, a, p); return; }
  if (a == -INFINITY) { ew_upper(u, b, 2, p); return; }
  double diff = b - a;
  /* s and 1 - s each from its own inv_logit: 1 - s by subtraction would
  ** lose the tail that the Jacobian needs. */
  double s = tm_inv_logit(u), t = tm_inv_logit(-u), au = fabs(u);
  memset(p, 0, sizeof *p);
  p->y = diff * s + a;
  p->dy[0] = diff * s * t;
  p->dy[1] = t;
  p->dy[2] = s;
  p->lp = log(diff) - au - 2.0 * log1p(exp(-au));
  p->dlp[0] = t - s;
  p->dlp[1] = -1.0 / diff;
  p->dlp[2] = 1.0 / diff;
}

static void ew_offmult(double u, double mu, double sigma, ew_point *p) {
  memset(p, 0, sizeof *p);
  p->y = mu + sigma * u;
  p->dy[0] = sigma;
  p->dy[1] = 1;
  p->dy[2] = u;
  p->lp = log(sigma);
  p->dlp[2] = 1.0 / sigma;
}

static void elem_name(char *buf, size_t size, const char *name, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", name);
  else snprintf(buf, size, "%s[%zu]", name, i + 1);
}

/* Bounds that make no transform: lower < upper, a finite offset, a
** positive finite multiplier. */
static int ew_check_params(const ew_def *d, const char *fn, const tm_v *p, size_t n) {
  char nm[64];
  for (size_t i = 0; i < n; i++) {
    if (d->kind == EW_LUB) {
      double a = tm_get(&p[0], i), b = tm_get(&p[1], i);
      if ((a == -INFINITY || b == INFINITY) && !isnan(a) && !isnan(b)) continue;
      if (!(a < b)) {
        elem_name(nm, sizeof nm, "lb", !tm_is_scalar(&p[0]) ? &p[0] : &p[1], i);
        return ad_fail(AD_EDOMAIN, "%s: %s is " TM_TR_FMT ", but must be less than " TM_TR_FMT,
                       fn, nm, a, b);
      }
    } else if (d->kind == EW_OFFMULT) {
      double mu = tm_get(&p[0], i), sigma = tm_get(&p[1], i);
      if (!isfinite(mu)) {
        elem_name(nm, sizeof nm, "offset", &p[0], i);
        return ad_fail(AD_EDOMAIN, "%s: %s is " TM_TR_FMT ", but must be finite!", fn, nm, mu);
      }
      if (!(sigma > 0 && isfinite(sigma))) {
        elem_name(nm, sizeof nm, "multiplier", &p[1], i);
        return ad_fail(AD_EDOMAIN, "%s: %s is " TM_TR_FMT ", but must be positive finite!", fn, nm, sigma);
      }
    }
  }
  return AD_OK;
}

static int ew_params_fit(const ew_def *d, const tm_transform *t, const char *fn, const tm_v *p, size_t n) {
  for (int k = 0; k < t->nparams; k++) {
    if (p[k].base == TM_INT ? p[k].ival == NULL : p[k].val == NULL)
      return ad_fail(AD_EINVALID, "%s: %s has no value", fn, d->pname[k]);
    if (!tm_is_scalar(&p[k])) {
      int rc = tm_check_size_match(fn, "x", n, d->pname[k], tm_numel(&p[k]));
      if (rc) return rc;
    }
  }
  return AD_OK;
}

static void ew_eval(const ew_def *d, double u, const tm_v *p, size_t i, ew_point *pt) {
  switch (d->kind) {
  case EW_LOWER: ew_lower(u, tm_get(&p[0], i), pt); break;
  case EW_UPPER: ew_upper(u, tm_get(&p[0], i), 1, pt); break;
  case EW_LUB: ew_lub(u, tm_get(&p[0], i), tm_get(&p[1], i), pt); break;
  case EW_OFFMULT: ew_offmult(u, tm_get(&p[0], i), tm_get(&p[1], i), pt); break;
  default: ew_identity(u, pt); break;
  }
}

typedef struct {
  ad_node hdr;
  size_t n;
  const double *yadj;
  double *adj[3];            /* x, params[0], params[1]; NULL when data */
  int scalar[3];             /* a scalar parameter broadcast over all elements */
  const double *d[3];        /* dy/d(operand) per element */
} ew_node;

static void ew_chain(ad_node *self) {
  ew_node *nd = (ew_node *)self;
  for (int k = 0; k < 3; k++) tm_add_partials(nd->adj[k], nd->scalar[k], nd->yadj, nd->d[k], nd->n);
}

static int ew_size(const tm_transform *t, const tm_v *shape, size_t *n) {
  int rc = shape_sane(t->name, shape);
  if (rc) return rc;
  *n = tm_numel(shape);
  return AD_OK;
}

static int any_dep(const tm_v *x, const tm_v *p, int np) {
  int dep = x->dep || x->adj;
  for (int k = 0; k < np; k++) dep |= p[k].dep || p[k].adj != NULL;
  return dep;
}

static int ew_constrain(const tm_transform *t, const tm_v *x, const tm_v *p, tm_v *y, tm_v *lp) {
  const ew_def *d = t->data;
  size_t n = tm_numel(y);
  int rc;
  if ((rc = ew_params_fit(d, t, d->cfn, p, n)) || (rc = ew_check_params(d, d->cfn, p, n))) return rc;
  int dep = any_dep(x, p, t->nparams);
  if (d->kind == EW_IDENTITY) {
    /* a view of x in the declared shape: no node */
    tm_v v = *y;
    v.val = x->val;
    v.adj = x->adj;
    v.ival = NULL;
    v.dep = (unsigned char)dep;
    *y = v;
    return lp ? lp_result(0.0, 0, NULL, dep, lp) : AD_OK;
  }
  const tm_v *ops[3] = {x, &p[0], t->nparams > 1 ? &p[1] : NULL};
  int ad = 0;
  for (int k = 0; k < 3; k++) if (ops[k] && ops[k]->adj) ad = 1;
  if ((rc = new_result(y, ad, y))) return rc;
  y->dep = (unsigned char)dep;
  double *dy[3] = {NULL, NULL, NULL}, *dl[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++) {
    if (!ops[k] || !ops[k]->adj) continue;
    size_t m = k > 0 && tm_is_scalar(ops[k]) ? 1 : n;
    if (!(dy[k] = ad_alloc_doubles(n ? n : 1))) return AD_EMEMORY;
    if (lp && !(dl[k] = ad_alloc_zeros(m ? m : 1))) return AD_EMEMORY;
  }
  double lsum = 0;
  for (size_t i = 0; i < n; i++) {
    ew_point pt;
    ew_eval(d, x->val[i], p, i, &pt);
    y->val[i] = pt.y;
    lsum += pt.lp;
    for (int k = 0; k < 3; k++) {
      if (dy[k]) dy[k][i] = pt.dy[k];
      if (dl[k]) dl[k][k > 0 && tm_is_scalar(ops[k]) ? 0 : i] += pt.dlp[k];
    }
  }
  if (ad) {
    ew_node *nd = ad_node_new(sizeof *nd, ew_chain);
    if (!nd) return AD_EMEMORY;
    nd->n = n;
    nd->yadj = y->adj;
    for (int k = 0; k < 3; k++) {
      nd->adj[k] = dy[k] ? ops[k]->adj : NULL;
      nd->scalar[k] = k > 0 && ops[k] && tm_is_scalar(ops[k]);
      nd->d[k] = dy[k];
    }
  }
  if (!lp) return AD_OK;
  /* Only operands log |J| depends on: x for the exp and logit maps, the
  ** bounds of lower_upper, the multiplier. */
  int uses[3] = {d->kind != EW_OFFMULT, d->kind == EW_LUB, d->kind == EW_LUB || d->kind == EW_OFFMULT};
  ad_operand o[3];
  int no = 0;
  for (int k = 0; k < 3; k++) {
    if (!dl[k] || !uses[k]) continue;
    o[no].adj = ops[k]->adj;
    o[no].partial = dl[k];
    o[no].n = k > 0 && tm_is_scalar(ops[k]) ? 1 : n;
    no++;
  }
  return lp_result(lsum, no, o, dep, lp);
}

static int ew_free(const tm_transform *t, const tm_v *y, const tm_v *p, tm_v *x) {
  const ew_def *d = t->data;
  size_t n = tm_numel(y);
  int rc;
  if ((rc = ew_params_fit(d, t, d->ffn, p, n))) return rc;
  if (d->kind == EW_OFFMULT && (rc = ew_check_params(d, d->ffn, p, n))) return rc;
  if ((rc = tm_new_vector(x, (int)n, 0))) return rc;
  char nm[64];
  for (size_t i = 0; i < n; i++) {
    double v = tm_get(y, i), a = t->nparams > 0 ? tm_get(&p[0], i) : 0;
    double b = t->nparams > 1 ? tm_get(&p[1], i) : 0;
    int kind = d->kind;
    if (kind == EW_LUB) {
      if (a == -INFINITY && b == INFINITY) kind = EW_IDENTITY;
      else if (b == INFINITY) kind = EW_LOWER;
      else if (a == -INFINITY) { kind = EW_UPPER; a = b; }
    }
    switch (kind) {
    case EW_LOWER:
    case EW_UPPER: {   /* one bound a: log of the distance to it, none when infinite */
      int up = kind == EW_UPPER;
      if (a == (up ? INFINITY : -INFINITY)) { x->val[i] = v; break; }
      if (!(up ? v <= a : v >= a)) {
        elem_name(nm, sizeof nm, up ? "Upper bounded variable" : "Lower bounded variable", y, i);
        return ad_fail(AD_EDOMAIN, up ? "%s: %s is " TM_TR_FMT ", but must be less than or equal to " TM_TR_FMT
                       : "%s: %s is " TM_TR_FMT ", but must be greater than or equal to " TM_TR_FMT, d->ffn, nm, v, a);
      }
      x->val[i] = log(up ? a - v : v - a);
      break;
    }
    case EW_LUB:
      if (!(v >= a && v <= b)) {
        elem_name(nm, sizeof nm, "Bounded variable", y, i);
        return ad_fail(AD_EDOMAIN, "%s: %s is " TM_TR_FMT ", but must be in the interval [" TM_TR_FMT ", " TM_TR_FMT "]",
                       d->ffn, nm, v, a, b);
      }
      x->val[i] = tm_logit((v - a) / (b - a));
      break;
    case EW_OFFMULT:
      x->val[i] = (v - a) / b;
      break;
    default:
      x->val[i] = v;
      break;
    }
  }
  return AD_OK;
}

static const ew_def def_identity = {EW_IDENTITY, "identity_constrain", "identity_free", {NULL, NULL}};
static const ew_def def_lower = {EW_LOWER, "lb_constrain", "lb_free", {"lb", NULL}};
static const ew_def def_upper = {EW_UPPER, "ub_constrain", "ub_free", {"ub", NULL}};
static const ew_def def_lub = {EW_LUB, "lub_constrain", "lub_free", {"lb", "ub"}};
static const ew_def def_offmult = {EW_OFFMULT, "offset_multiplier_constrain", "offset_multiplier_free",
                                   {"offset", "multiplier"}};

/* ---- vector and matrix transforms: one node over an array of them ---- */

static int struct_shape(const tm_transform *t, const tm_v *shape, int *rows, int *cols) {
  const tm_tr_ops *o = t->data;
  int rc = shape_sane(t->name, shape);
  if (rc) return rc;
  if (shape->base != o->base)
    return ad_fail(AD_EINVALID, "%s: a %s must be declared as a %s", o->cfn, t->name,
                   o->base == TM_VECTOR ? "vector" : "matrix");
  const char *bad = o->bad_shape(shape->rows, shape->cols);
  if (bad) return ad_fail(AD_EINVALID, "%s: %s is %d x %d, but %s", o->cfn, t->name, shape->rows, shape->cols, bad);
  *rows = shape->rows;
  *cols = shape->cols;
  return AD_OK;
}

int tm_tr_struct_size(const tm_transform *t, const tm_v *shape, size_t *n) {
  const tm_tr_ops *o = t->data;
  int rows, cols, rc = struct_shape(t, shape, &rows, &cols);
  if (rc) return rc;
  *n = array_count(shape) * o->nfree(rows, cols);
  return AD_OK;
}

typedef struct {
  ad_node hdr;
  const tm_tr_ops *ops;
  int rows, cols;
  size_t count, m, k, naux;
  const double *x, *y, *yadj, *aux;
  double *xadj;
} struct_node;

static void struct_chain(ad_node *self) {
  struct_node *nd = (struct_node *)self;
  for (size_t e = 0; e < nd->count; e++)
    nd->ops->reverse(nd->rows, nd->cols, nd->x + e * nd->m, nd->y + e * nd->k, nd->aux + e * nd->naux,
                     nd->yadj + e * nd->k, nd->xadj + e * nd->m);
}

int tm_tr_struct_constrain(const tm_transform *t, const tm_v *x, const tm_v *params, tm_v *y, tm_v *lp) {
  (void)params;
  const tm_tr_ops *o = t->data;
  int rows, cols, rc = struct_shape(t, y, &rows, &cols);
  if (rc) return rc;
  size_t count = array_count(y), m = o->nfree(rows, cols), k = (size_t)rows * (size_t)cols;
  size_t naux = o->naux(rows, cols);
  int ad = x->adj != NULL, dep = x->dep || ad;
  if ((rc = new_result(y, ad, y))) return rc;
  y->dep = (unsigned char)dep;
  double *aux = ad_alloc_doubles(count * naux + 1);
  int want_dlp = lp && ad && !o->linear;
  double *dlp = want_dlp ? ad_alloc_zeros(count * m + 1) : NULL;
  if (!aux || (want_dlp && !dlp)) return AD_EMEMORY;
  double lsum = 0;
  for (size_t e = 0; e < count; e++) {
    double l = 0;
    rc = o->forward(rows, cols, x->val + e * m, y->val + e * k, aux + e * naux, &l, dlp ? dlp + e * m : NULL);
    if (rc) return rc;
    lsum += l;
  }
  if (ad) {
    struct_node *nd = ad_node_new(sizeof *nd, struct_chain);
    if (!nd) return AD_EMEMORY;
    nd->ops = o;
    nd->rows = rows;
    nd->cols = cols;
    nd->count = count;
    nd->m = m;
    nd->k = k;
    nd->naux = naux;
    nd->x = x->val;
    nd->xadj = x->adj;
    nd->y = y->val;
    nd->yadj = y->adj;
    nd->aux = aux;
  }
  if (!lp) return AD_OK;
  ad_operand op = {x->adj, dlp, count * m};
  return lp_result(lsum, dlp ? 1 : 0, &op, dep, lp);
}

int tm_tr_struct_free(const tm_transform *t, const tm_v *y, const tm_v *params, tm_v *x) {
  (void)params;
  const tm_tr_ops *o = t->data;
  int rows, cols, rc = struct_shape(t, y, &rows, &cols);
  if (rc) return rc;
  if (y->base == TM_INT || !y->val) return ad_fail(AD_EINVALID, "%s: expected real values", o->ffn);
  size_t count = array_count(y), m = o->nfree(rows, cols), k = (size_t)rows * (size_t)cols;
  if ((rc = tm_new_vector(x, (int)(count * m), 0))) return rc;
  for (size_t e = 0; e < count; e++)
    if ((rc = o->free(rows, cols, y->val + e * k, x->val + e * m))) return rc;
  return AD_OK;
}

/* ---- checked entry points ---- */

int tm_transform_size(const tm_transform *t, const tm_v *shape, size_t *n) {
  return t->size(t, shape, n);
}

static int check_nparams(const tm_transform *t, const tm_v *params, const char *what) {
  if (t->nparams > 0 && !params)
    return ad_fail(AD_EINVALID, "%s %s: expected %d bound parameter%s", t->name, what, t->nparams,
                   t->nparams > 1 ? "s" : "");
  return AD_OK;
}

int tm_transform_constrain(const tm_transform *t, const tm_v *x, const tm_v *params, tm_v *y, tm_v *lp) {
  size_t n;
  int rc;
  if ((rc = check_nparams(t, params, "constrain")) || (rc = t->size(t, y, &n))) return rc;
  if (x->base == TM_INT || (!x->val && tm_numel(x) > 0))
    return ad_fail(AD_EINVALID, "%s: the unconstrained values must be reals", t->name);
  if (tm_numel(x) != n)
    return ad_fail(AD_EINVALID, "%s: the declared shape needs %zu unconstrained values, got %zu",
                   t->name, n, tm_numel(x));
  return t->constrain(t, x, params, y, lp);
}

int tm_transform_free(const tm_transform *t, const tm_v *y, const tm_v *params, tm_v *x) {
  size_t n;
  int rc;
  if ((rc = check_nparams(t, params, "free")) || (rc = t->size(t, y, &n))) return rc;
  return t->free(t, y, params, x);
}

/* ---- the table: every transform, one registry ---- */

#define EW(name, np, def) {name, np, ew_size, ew_constrain, ew_free, &def}
#define STRUCT(name, ops) {name, 0, tm_tr_struct_size, tm_tr_struct_constrain, tm_tr_struct_free, &ops}
static const tm_transform transforms[] = {
  EW("identity", 0, def_identity),
  EW("lower", 1, def_lower),
  EW("upper", 1, def_upper),
  EW("lower_upper", 2, def_lub),
  EW("offset_multiplier", 2, def_offmult),
  STRUCT("simplex", tm_tr_simplex),
  STRUCT("ordered", tm_tr_ordered),
  STRUCT("positive_ordered", tm_tr_positive_ordered),
  STRUCT("unit_vector", tm_tr_unit_vector),
  STRUCT("sum_to_zero_vector", tm_tr_sum_to_zero),
  STRUCT("cholesky_factor_corr", tm_tr_cholesky_corr),
  STRUCT("cholesky_factor_cov", tm_tr_cholesky_cov),
  STRUCT("corr_matrix", tm_tr_corr_matrix),
  STRUCT("cov_matrix", tm_tr_cov_matrix),
  STRUCT("sum_to_zero_matrix", tm_tr_sum_to_zero_matrix),
  STRUCT("column_stochastic_matrix", tm_tr_stochastic_column),
  STRUCT("row_stochastic_matrix", tm_tr_stochastic_row),
  {NULL, 0, NULL, NULL, NULL, NULL}
};
#undef EW
#undef STRUCT

const tm_transform *tm_transform_find(const char *name) {
  for (const tm_transform *t = transforms; t->name; t++)
    if (strcmp(t->name, name) == 0) return t;
  return NULL;
}

int tm_transform_is_identity(const tm_transform *t) { return t == &transforms[0]; }
int tm_transform_is_lower(const tm_transform *t) { return t == &transforms[1]; }
int tm_transform_is_upper(const tm_transform *t) { return t == &transforms[2]; }

int tm_transform_count(void) { return (int)(sizeof transforms / sizeof transforms[0]) - 1; }
const tm_transform *tm_transform_entry(int i) {
  return i >= 0 && i < tm_transform_count() ? &transforms[i] : NULL;
}
