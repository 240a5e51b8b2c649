/*
** li_stmt.c -- execution of statements and declarations.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "li_int.h"
#include "../math/tm_transform.h"
#include "../math/tm_scalar.h"

static const double zero = 0.0, one = 1.0;

/* A declaration whose size cannot be held is an error naming it, before any
** memory is asked for: the values alone (adjoints come on top) against the
** memory budget, with the product of the sizes checked for overflow. */
static int decl_fits(li_run *r, const ln_decl *d, const tm_v *shape) {
  size_t elem = shape->base == TM_INT ? sizeof(int) : tm_is_complex(shape) ? 2 * sizeof(double) : sizeof(double);
  size_t n = (size_t)shape->rows, limit = ad_mem_limit();
  int over = shape->cols != 0 && n > SIZE_MAX / (size_t)shape->cols;
  if (!over) n *= (size_t)shape->cols;
  for (int i = 0; i < shape->narr && !over; i++) {
    if (shape->dim[i] != 0 && n > SIZE_MAX / (size_t)shape->dim[i]) over = 1;
    else n *= (size_t)shape->dim[i];
  }
  /* an empty dimension anywhere makes the product 0, overflow or not */
  int empty = shape->rows == 0 || shape->cols == 0;
  for (int i = 0; i < shape->narr; i++) empty |= shape->dim[i] == 0;
  if (empty || (!over && n <= limit / elem)) return AD_OK;
  char sizes[160] = "", need[32] = "more than can be addressed", lim[32];
  size_t k = 0;
  for (int i = 0; i < shape->narr && k < sizeof sizes - 16; i++)
    k += (size_t)snprintf(sizes + k, sizeof sizes - k, "%s%d", i ? ", " : "array[", shape->dim[i]);
  if (shape->narr) k += (size_t)snprintf(sizes + k, sizeof sizes - k, "] ");
  const char *base = ln_base_name(shape->base);
  if (!base) base = "?";
  if (shape->base == TM_MATRIX || shape->base == TM_CMATRIX)
    snprintf(sizes + k, sizeof sizes - k, "%s[%d, %d]", base, shape->rows, shape->cols);
  else if (shape->base == TM_VECTOR || shape->base == TM_ROW_VECTOR || shape->base == TM_CVECTOR ||
           shape->base == TM_CROW_VECTOR)
    snprintf(sizes + k, sizeof sizes - k, "%s[%d]", base,
             shape->base == TM_VECTOR || shape->base == TM_CVECTOR ? shape->rows : shape->cols);
  else
    snprintf(sizes + k, sizeof sizes - k, "%s", base);
  if (!over) ad_mem_format((double)n * (double)elem, need, sizeof need);
  ad_mem_format((double)limit, lim, sizeof lim);
  return li_fail_at(r, AD_EMEMORY, "'%s' declared as %s would need %s, over the memory limit of %s; "
                    "tapestry_memory_limit() sets the limit", d->name, sizes, need, lim);
}

int li_decl_shape(li_run *r, const ln_decl *d, tm_v *shape) {
  int rc, k;
  memset(shape, 0, sizeof *shape);
  shape->base = d->type.base;
  shape->narr = d->type.narr;
  shape->rows = shape->cols = 1;
  for (int i = 0; i < d->type.narr; i++) {
    if (!d->dims[i]) return li_fail_at(r, AD_EINVALID, "'%s' has no size", d->name);
    if ((rc = li_eval_int(r, d->dims[i], &k))) return rc;
    if (k < 0) return li_fail_at(r, AD_EINVALID, "'%s': array size %d is negative", d->name, k);
    shape->dim[i] = k;
  }
  int s1 = 1, s2 = -1;
  if (d->size1 && (rc = li_eval_int(r, d->size1, &s1))) return rc;
  if (d->size2 && (rc = li_eval_int(r, d->size2, &s2))) return rc;
  if (s1 < 0 || (d->size2 && s2 < 0))
    return li_fail_at(r, AD_EINVALID, "'%s': size %d is negative", d->name, s1 < 0 ? s1 : s2);
  switch (d->type.base) {
  case TM_VECTOR: shape->rows = s1; break;
  case TM_ROW_VECTOR: shape->cols = s1; break;
  case TM_MATRIX: shape->rows = s1; shape->cols = d->size2 ? s2 : s1; break;
  case TM_CVECTOR: shape->rows = s1; break;
  case TM_CROW_VECTOR: shape->cols = s1; break;
  case TM_CMATRIX: shape->rows = s1; shape->cols = s2; break;
  default: break;
  }
  return decl_fits(r, d, shape);
}

static int ad_typed(const li_run *r, const ln_decl *d) {
  if (d->type.base == TM_INT || !r->ad) return 0;
  if (d->block == LN_BLK_FUNCTIONS) return r->fn_ad;
  return d->dep || r->blk == LN_BLK_TPARAMS || r->blk == LN_BLK_MODEL;
}

static int dep_typed(const li_run *r, const ln_decl *d) {
  if (d->type.base == TM_INT) return 0;
  if (d->block == LN_BLK_FUNCTIONS) return r->fn_dep;
  return d->dep || d->block == LN_BLK_PARAMS || d->block == LN_BLK_TPARAMS || d->block == LN_BLK_MODEL;
}

static li_slot *decl_slot(li_run *r, const ln_decl *d) {
  return d->scope == LN_SCOPE_GLOBAL ? &r->globals[d->slot] : &r->locals[d->slot];
}

/* An LE_VAR naming declaration d, to assign through li_assign. */
static void var_of(const ln_decl *d, ln_expr *x) {
  memset(x, 0, sizeof *x);
  x->kind = LE_VAR;
  x->name = d->name;
  x->scope = d->scope;
  x->slot = d->slot;
  x->type = d->type;
  x->decl = (ln_decl *)d;
}

/* An expression whose autodiff scalar value is always a new node's, never
** a view of a variable's element or of an argument (a scalar read keeps the
** element's adjoint; a conditional or a user function may hand one of its
** operands back). */
/* A real scalar read from a parameter: alpha, or beta[k] with single indices. */
static int reads_parameter(const ln_expr *e) {
  if (e->type.base != TM_REAL || e->type.narr) return 0;
  const ln_expr *v = e;
  if (e->kind == LE_INDEX) {
    for (int i = 0; i < e->nidx; i++)
      if (e->idx[i].kind != LI_SINGLE) return 0;
    v = e->args[0];
  }
  return v->kind == LE_VAR && v->decl && v->decl->block == LN_BLK_PARAMS && v->scope == LN_SCOPE_GLOBAL;
}

static int makes_fresh_scalar(const ln_expr *e) {
  if (e->kind == LE_BINOP) return 1;
  if (e->kind == LE_UNOP) return e->op == LN_OP_NEG;
  if (e->kind == LE_CALL && !e->ufn && e->fn) {
    const tm_fn *fn = e->fn;
    return fn->kernel == tm_unary_kernel || fn->kernel == tm_binary_kernel;
  }
  return 0;
}

/* A real scalar local on the tape (a local, or a top-level variable of the
** model block) can be rebound to a new node as Stan rebinds a local var:
** `real x = a * b;`, `x = f(y);`, `x += e;` make x that value itself, marked
** shared so that a later write of another kind moves x to storage of its
** own (li_assign).  No storage to fill or store, and no node to hand the
** adjoint over: the adjoint x's later readers leave is the node's own, from
** 0, the same sum a store would have handed it.  Not for `x = y[1];`: that
** value's adjoint is the element's, and a later write to y[1] would hand
** x's share to y's new value -- unless y is a parameter, which nothing
** writes: `real mu = alpha;` and `real b = beta[k];` make x the parameter's
** value itself, as a copied var shares its vari in Stan (reads_parameter). */
static int rebindable(const li_run *r, const ln_decl *d) {
  return ad_typed(r, d) && (d->scope == LN_SCOPE_LOCAL || d->block == LN_BLK_MODEL) &&
         d->type.narr == 0 && d->type.base == TM_REAL;
}

/* s becomes v's node; 0 when v is not an autodiff real scalar. */
static int rebind(li_slot *s, const tm_v *v, unsigned char dep) {
  if (!v->adj || v->base != TM_REAL || v->narr != 0) return 0;
  s->v = tm_real_view(v->val, v->adj);
  s->v.dep = dep;
  s->set = 1;
  s->shared = 1;
  return 1;
}

int li_declare(li_run *r, const ln_decl *d, const tm_v *shape) {
  li_slot *s = decl_slot(r, d);
  int ad = ad_typed(r, d), rc;
  unsigned char dep = (unsigned char)dep_typed(r, d);
  tm_v v;
  /* `real x = a * b;` (an expression that makes a new node) */
  int early = d->init && rebindable(r, d) && (makes_fresh_scalar(d->init) || reads_parameter(d->init));
  if (early) {
    if ((rc = li_eval(r, d->init, &v))) return rc;
    if (rebind(s, &v, dep)) return AD_OK;
  }
  if ((rc = li_alloc_r(r, &s->v, shape, ad))) return rc;
  s->v.dep = dep;
  s->set = 1;
  s->shared = 0;
  if (!d->init) return AD_OK;
  if (!early && (rc = li_eval(r, d->init, &v))) return rc;
  ln_expr x;
  var_of(d, &x);
  return li_assign(r, &x, &v);
}

int li_transform_params(li_run *r, const ln_decl *d, tm_v *params, int *np) {
  int rc;
  *np = 0;
  if (!d->transform) return AD_OK;
  if (!strcmp(d->transform, "lower") || !strcmp(d->transform, "lower_upper")) {
    if ((rc = li_eval(r, d->lower, &params[(*np)++]))) return rc;
  }
  if (!strcmp(d->transform, "upper") || !strcmp(d->transform, "lower_upper")) {
    if ((rc = li_eval(r, d->upper, &params[(*np)++]))) return rc;
  }
  if (!strcmp(d->transform, "offset_multiplier")) {
    if (d->offset) { if ((rc = li_eval(r, d->offset, &params[0]))) return rc; }
    else params[0] = tm_real_view((double *)&zero, NULL);
    if (d->multiplier) { if ((rc = li_eval(r, d->multiplier, &params[1]))) return rc; }
    else params[1] = tm_real_view((double *)&one, NULL);
    *np = 2;
  }
  return AD_OK;
}

static int check_values(li_run *r, const ln_decl *d, const tm_v *v, const tm_v *params);

int li_check_constraint(li_run *r, const ln_decl *d, const tm_v *v) {
  if (!d->transform || !strcmp(d->transform, "offset_multiplier")) return AD_OK;
  tm_v params[2];
  int np, rc;
  if ((rc = li_transform_params(r, d, params, &np))) return rc;
  size_t c0 = r->tr ? li_chain_len() : 0;
  if ((rc = check_values(r, d, v, params))) return rc;
  if (r->tr) {
    int any = v->adj != NULL;
    for (int i = 0; i < np; i++) if (params[i].adj) any = 1;
    if (any) {
      tm_v a[3];
      a[0] = *v;
      for (int i = 0; i < np; i++) a[1 + i] = params[i];
      li_event ev;
      memset(&ev, 0, sizeof ev);
      ev.kind = LI_EV_CHECK; ev.fn = d; ev.args = a; ev.nargs = 1 + np; ev.chain0 = c0;
      li_emit(r, &ev);
    }
  }
  return AD_OK;
}

int li_check_values(const void *decl, const tm_v *v, const tm_v *bounds, int nbounds) {
  (void)nbounds;
  return check_values(NULL, decl, v, bounds);
}

/* r NULL: the message without its line (a plan's check; the tree redoes the
** evaluation for the message). */
static int check_values(li_run *r, const ln_decl *d, const tm_v *v, const tm_v *params) {
  int rc;
  int bounds = !strcmp(d->transform, "lower") || !strcmp(d->transform, "upper") ||
               !strcmp(d->transform, "lower_upper");
  if (bounds) {
    char err[512];
    const tm_v *lo = NULL, *hi = NULL;
    if (!strcmp(d->transform, "lower")) lo = &params[0];
    else if (!strcmp(d->transform, "upper")) hi = &params[0];
    else { lo = &params[0]; hi = &params[1]; }
    if (ld_check_bounds(d->name, v, lo, hi, err, sizeof err))
      return r ? li_fail_at(r, AD_EDOMAIN, "%s", err) : ad_fail(AD_EDOMAIN, "%s", err);
    return AD_OK;
  }
  const tm_transform *t = tm_transform_find(d->transform);
  if (!t) return r ? li_fail_at(r, AD_EINVALID, "unknown constraint '%s'", d->transform) : AD_EINVALID;
  tm_v plain = *v, x;
  plain.adj = NULL;
  if ((rc = tm_transform_free(t, &plain, params, &x))) {
    if (!r) return AD_EDOMAIN;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ad_errmsg());
    return li_fail_at(r, AD_EDOMAIN, "variable '%s' is not a valid %s: %s", d->name, d->transform, msg);
  }
  return AD_OK;
}

/* ---- print ---- */

static void print_value(li_run *r, const tm_v *v) {
  if (v->narr > 0) {
    li_printf(r, "[");
    for (int i = 0; i < v->dim[0]; i++) {
      tm_v e = tm_elem(v, i);
      if (i) li_printf(r, ",");
      print_value(r, &e);
    }
    li_printf(r, "]");
    return;
  }
  if (tm_is_complex(v)) {
    /* as Stan prints std::complex: (re,im) */
    size_t n = tm_numel(v);
    if (v->base != TM_COMPLEX) li_printf(r, "[");
    for (size_t i = 0; i < n; i++) li_printf(r, "%s(%g,%g)", i ? "," : "", v->val[2 * i], v->val[2 * i + 1]);
    if (v->base != TM_COMPLEX) li_printf(r, "]");
    return;
  }
  if (tm_is_scalar(v)) {
    if (v->base == TM_INT) li_printf(r, "%d", v->ival[0]);
    else li_printf(r, "%g", v->val[0]);
    return;
  }
  if (v->base == TM_MATRIX) {
    li_printf(r, "[");
    for (int i = 0; i < v->rows; i++) {
      li_printf(r, "%s[", i ? "," : "");
      for (int j = 0; j < v->cols; j++) li_printf(r, "%s%g", j ? "," : "", v->val[i + (size_t)j * v->rows]);
      li_printf(r, "]");
    }
    li_printf(r, "]");
    return;
  }
  size_t n = tm_numel(v);
  li_printf(r, "[");
  for (size_t i = 0; i < n; i++) li_printf(r, "%s%g", i ? "," : "", v->val[i]);
  li_printf(r, "]");
}

static int print_args(li_run *r, const ln_stmt *s) {
  for (int i = 0; i < s->nargs; i++) {
    const ln_expr *e = s->args[i];
    if (e->kind == LE_STRING) { li_printf(r, "%s", e->name); continue; }
    tm_v v;
    int rc = li_eval(r, e, &v);
    if (rc) return rc;
    print_value(r, &v);
  }
  return AD_OK;
}

/* reject() and fatal_error(): the message is the arguments printed. */
static int raise_msg(li_run *r, const ln_stmt *s, int code) {
  char buf[1024];
  li_print p = {buf, sizeof buf, 0}, *saved = r->print;
  buf[0] = '\0';
  r->print = &p;
  int rc = print_args(r, s);
  r->print = saved;
  if (rc) return rc;
  return li_fail_at(r, code, "%s", buf);
}

/* ---- ~ ---- */

static int call_density(li_run *r, const ln_stmt *s, const tm_fn *fn, const tm_v *args, int nargs, int propto, tm_v *out) {
  if (s->ufn && fn == s->fn) return li_call_user(r, s->ufn, args, nargs, propto, out);
  return li_invoke(r, fn, propto, args, nargs, out);
}

/* T[lo, hi]: outside the bounds the density is zero; inside, subtract
** the log of the probability of [lo, hi] (for a discrete y, of lo..hi). */
/* Element i of a container argument of a density, as a scalar view (a
** vector's or a 1-d array's element), for the truncation's per-element
** normalizer. */
static tm_v elem_scalar(const tm_v *v, size_t i) {
  if (v->base == TM_INT) return tm_int_view(v->ival + i);
  return tm_real_view(v->val + i, v->adj ? v->adj + i : NULL);
}

/* -log(F(hi) - F(lo)) (or of F(hi), or of 1 - F(lo)) for the arguments a,
** a[0] replaced by the bounds. */
static int trunc_norm(li_run *r, const ln_stmt *s, tm_v *a, int nargs, int haslo, int hashi, const tm_v *lo,
                      const tm_v *hi, tm_v *t) {
  tm_v cl, ch;
  int rc;
  if (haslo && hashi) {
    a[0] = *hi;
    if ((rc = li_invoke(r, s->cdf, 0, a, nargs, &ch))) return rc;
    a[0] = *lo;
    if ((rc = li_invoke(r, s->cdf, 0, a, nargs, &cl))) return rc;
    tm_v two[2] = {ch, cl};
    return li_invoke(r, r->ctx->fn_log_diff_exp, 0, two, 2, t);
  }
  a[0] = haslo ? *lo : *hi;
  return li_invoke(r, haslo ? s->ccdf : s->cdf, 0, a, nargs, t);
}

/* T[lo, hi] after y ~ dist(args) as stanc3 lowers it: -inf when any element
** of y is outside the bounds; else the log normalizer subtracted once per
** element of y: the cdfs' own vectorization sums it over container
** arguments, times size(y) when every argument is a scalar, and with both
** bounds (log_diff_exp does not vectorize) one term per element of the
** first container argument. */
static int add_truncation(li_run *r, const ln_stmt *s, tm_v *args, int nargs) {
  tm_v lo, hi, t;
  int rc, haslo = s->lo != NULL, hashi = s->hi != NULL;
  if (haslo && (rc = li_eval(r, s->lo, &lo))) return rc;
  if (hashi && (rc = li_eval(r, s->hi, &hi))) return rc;
  if (args[0].adj || (haslo && lo.adj) || (hashi && hi.adj)) li_emit_unsupported(r, "truncation T[,] of a parameter or at parameter bounds");
  size_t ny = tm_numel(&args[0]);
  for (size_t i = 0; i < ny; i++) {
    double y = tm_get(&args[0], i);
    if ((haslo && y < tm_get(&lo, 0)) || (hashi && y > tm_get(&hi, 0))) {
      tm_v ninf;
      if ((rc = tm_set_real(&ninf, -INFINITY))) return rc;
      return li_add_term(r, &ninf);
    }
  }
  tm_v *a = ad_alloc((size_t)nargs * sizeof(tm_v));
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  memcpy(a, args, (size_t)nargs * sizeof(tm_v));
  if (haslo && s->discrete) {
    /* P(y >= lo) = 1 - P(y <= lo - 1) */
    if ((rc = tm_new_int(&t))) return rc;
    t.ival[0] = (int)tm_get(&lo, 0) - 1;
    lo = t;
  }
  int first = 0;                 /* the first container argument after y, 0: none */
  for (int k = 1; k < nargs && !first; k++)
    if (!tm_is_scalar(&args[k])) first = k;
  tm_v neg;
  if (haslo && hashi && first) {
    size_t n = tm_numel(&args[first]);
    for (int k = first + 1; k < nargs; k++)
      if (!tm_is_scalar(&args[k]) && tm_numel(&args[k]) != n)
        return li_fail_at(r, AD_EINVALID, "%s: the truncation's arguments %d and %d have %zu and %zu elements, but "
                          "must match in size", s->cdf->name, first + 1, k + 1, n, tm_numel(&args[k]));
    for (size_t i = 0; i < n; i++) {
      for (int k = 1; k < nargs; k++) a[k] = tm_is_scalar(&args[k]) ? args[k] : elem_scalar(&args[k], i);
      if ((rc = trunc_norm(r, s, a, nargs, 1, 1, &lo, &hi, &t)) ||
          (rc = li_invoke(r, r->ctx->fn_minus, 0, &t, 1, &neg)) || (rc = li_add_term(r, &neg)))
        return rc;
    }
    return AD_OK;
  }
  if ((rc = trunc_norm(r, s, a, nargs, haslo, hashi, &lo, &hi, &t))) return rc;
  if (!first && !tm_is_scalar(&args[0])) {     /* scalar arguments: one normalizer per element of y */
    tm_v two[2], m;
    two[0] = t;
    if ((rc = tm_new_int(&two[1]))) return rc;
    two[1].ival[0] = (int)ny;
    if ((rc = li_invoke(r, r->ctx->fn_multiply, 0, two, 2, &m))) return rc;
    t = m;
  }
  if ((rc = li_invoke(r, r->ctx->fn_minus, 0, &t, 1, &neg))) return rc;
  return li_add_term(r, &neg);
}

static int exec_tilde(li_run *r, const ln_stmt *s) {
  int n = s->nargs + 1, rc;
  tm_v *a = ad_alloc((size_t)n * sizeof(tm_v)), lp;
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = li_eval(r, s->e, &a[0]))) return rc;
  for (int i = 0; i < s->nargs; i++)
    if ((rc = li_eval(r, s->args[i], &a[i + 1]))) return rc;
  /* `~` drops constants unless the whole evaluation keeps them
     (li_log_prob_full: Stan's log_prob<propto = false>) */
  if ((rc = call_density(r, s, s->fn, a, n, r->fn_propto, &lp))) return rc;
  if ((rc = li_add_term(r, &lp))) return rc;
  if (s->trunc && (s->lo || s->hi)) return add_truncation(r, s, a, n);
  return AD_OK;
}

static int add_target(li_run *r, const ln_expr *e) {
  tm_v v;
  int rc = li_eval(r, e, &v);
  if (rc) return rc;
  if (!tm_is_scalar(&v)) {
    tm_v sum;
    if ((rc = li_invoke(r, r->ctx->fn_sum, 0, &v, 1, &sum))) return rc;
    v = sum;
  }
  return li_add_term(r, &v);
}

/* ---- loops ---- */

/* Tells the tracer where a loop and each of its iterations begin, so a plan
** can keep the loop as a loop; s, the loop, with LI_LOOP_BEGIN (its place
** and variable go in the plan's report of loops). */
static void loop_mark(const li_run *r, int op, const ln_stmt *s) {
  if (!r->tr) return;
  li_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = LI_EV_LOOP;
  ev.op = op;
  if (s) {
    ev.result = s->line;
    ev.n = (size_t)(s->col > 0 ? s->col : 0);
    ev.why = s->name;
  }
  ev.chain0 = li_chain_len();
  li_emit(r, &ev);
}

/* Runs the body; 1 when the loop must stop (break or return).  Every loop
** passes here once per iteration: the back-edge where an interrupt
** (ad.h) stops even `while (1) { }`. */
static int loop_body(li_run *r, const ln_stmt *body, int *stop) {
  if (ad_interrupted()) return li_fail_at(r, AD_EINTERRUPT, "interrupted");
  int rc = li_exec(r, body);
  *stop = 0;
  if (rc) return rc;
  if (r->flow == LI_FLOW_BREAK) { r->flow = LI_FLOW_NONE; *stop = 1; }
  else if (r->flow == LI_FLOW_CONTINUE) r->flow = LI_FLOW_NONE;
  else if (r->flow == LI_FLOW_RETURN) *stop = 1;
  return AD_OK;
}

static int exec_for(li_run *r, const ln_stmt *s) {
  int lo, hi, rc, stop;
  if ((rc = li_eval_int(r, s->lo, &lo)) || (rc = li_eval_int(r, s->hi, &hi))) return rc;
  li_slot *slot = decl_slot(r, s->decl);
  if ((rc = tm_new_int(&slot->v))) return rc;
  slot->set = 1;
  loop_mark(r, LI_LOOP_BEGIN, s);
  for (long long i = lo; i <= hi; i++) {
    slot->v.ival[0] = (int)i;
    loop_mark(r, LI_LOOP_ITER, NULL);
    if ((rc = loop_body(r, s->body[0], &stop))) return rc;
    if (stop) break;
  }
  loop_mark(r, LI_LOOP_END, NULL);
  return AD_OK;
}

static int exec_foreach(li_run *r, const ln_stmt *s) {
  tm_v c;
  int rc, stop;
  if ((rc = li_eval(r, s->e, &c))) return rc;
  li_slot *slot = decl_slot(r, s->decl);
  slot->set = 1;
  slot->shared = 0;
  loop_mark(r, LI_LOOP_BEGIN, s);
  if (c.narr > 0) {
    for (int i = 0; i < c.dim[0]; i++) {
      slot->v = tm_elem(&c, i);
      loop_mark(r, LI_LOOP_ITER, NULL);
      if ((rc = loop_body(r, s->body[0], &stop))) return rc;
      if (stop) break;
    }
  } else {
    size_t n = tm_numel(&c);
    int w = tm_is_complex(&c) ? 2 : 1;   /* a complex element is a pair */
    for (size_t i = 0; i < n; i++) {
      slot->v = tm_real_view(c.val + w * i, c.adj ? c.adj + w * i : NULL);
      if (w == 2) slot->v.base = TM_COMPLEX;
      slot->v.dep = c.dep;
      loop_mark(r, LI_LOOP_ITER, NULL);
      if ((rc = loop_body(r, s->body[0], &stop))) return rc;
      if (stop) break;
    }
  }
  loop_mark(r, LI_LOOP_END, NULL);
  return AD_OK;
}

int li_exec_block_body(li_run *r, const ln_stmt *blk) {
  for (int i = 0; i < blk->nbody; i++) {
    int rc = li_exec(r, blk->body[i]);
    if (rc) return rc;
    if (r->flow) return AD_OK;
  }
  return AD_OK;
}

/* profile("name") { body }.  The block is left whatever the body did (a
** failure, a return), so the entry is closed and the next evaluation can
** enter it again.  It records on the tape when its values do: in a
** function, when the call has autodiff arguments. */
static int exec_profile(li_run *r, const ln_stmt *s) {
  if (!r->prof && !r->tr) return li_exec_block_body(r, s);
  int ad = r->ad && (r->depth == 0 || r->fn_ad);
  pf_handle h;
  h.t = NULL;
  size_t chain0 = li_chain_len();
  int rc = r->prof ? pf_enter(r->prof, s->name, ad, s->line, r->prof_active, &h) : AD_OK;
  if (rc) return li_locate(r, rc);
  /* a recording: the plan enters and leaves the block too (li.h) */
  li_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = LI_EV_PROFILE;
  ev.op = 1;
  ev.why = s->name;
  ev.fn = r->prof_active;
  ev.result = s->line;
  ev.n = (size_t)ad;
  ev.chain0 = chain0;
  if (r->tr) li_emit(r, &ev);
  const char *outer = r->prof_active;
  r->prof_active = s->name;
  rc = li_exec_block_body(r, s);
  r->prof_active = outer;
  ev.op = 0;
  ev.chain0 = li_chain_len();
  int rc2 = r->prof ? pf_exit(&h, ad) : AD_OK;
  if (r->tr && !rc && !rc2) li_emit(r, &ev);
  return rc ? rc : rc2;
}

int li_exec(li_run *r, const ln_stmt *s) {
  int rc, t, stop;
  tm_v v;
  r->line = s->line;
  r->col = s->col;
  switch (s->kind) {
  case LS_DECL: {
    tm_v shape;
    const ln_decl *d = s->decl;
    if (d->scope == LN_SCOPE_GLOBAL && r->globals[d->slot].set == 2) {
      shape = r->globals[d->slot].v;   /* sizes evaluated at binding */
    } else if ((rc = li_decl_shape(r, d, &shape))) {
      return rc;
    }
    return li_declare(r, d, &shape);
  }
  case LS_ASSIGN: {
    if ((rc = li_eval(r, s->e, &v))) return rc;
    int fresh = makes_fresh_scalar(s->e);
    if (s->op != LN_OP_NONE) {
      tm_v two[2], res;
      if ((rc = li_eval(r, s->lhs, &two[0]))) return rc;
      two[1] = v;
      if ((rc = li_arith(r, s->fn, &two[0], &two[1], &res)) < 0 &&
          (rc = li_invoke(r, s->fn, 0, two, 2, &res)))
        return rc;
      if (rc) return rc;
      /* a new node unless the operator handed an operand back */
      fresh = res.adj && res.adj != two[0].adj && res.adj != two[1].adj;
      v = res;
    }
    if (fresh && s->lhs->kind == LE_VAR && s->lhs->decl && rebindable(r, s->lhs->decl)) {
      li_slot *x = li_slot_of(r, s->lhs);
      if (rebind(x, &v, x->v.dep)) return AD_OK;
    }
    return li_assign(r, s->lhs, &v);
  }
  case LS_TILDE:
    return exec_tilde(r, s);
  case LS_TARGET:
    return add_target(r, s->e);
  case LS_JACOBIAN:
    if (!r->jacobian) return AD_OK;
    return add_target(r, s->e);
  case LS_FOR:
    return exec_for(r, s);
  case LS_FOREACH:
    return exec_foreach(r, s);
  case LS_WHILE:
    for (;;) {
      if ((rc = li_truth(r, s->e, &t))) return rc;
      if (!t) break;
      if ((rc = loop_body(r, s->body[0], &stop))) return rc;
      if (stop) break;
    }
    return AD_OK;
  case LS_IF:
    if ((rc = li_truth(r, s->e, &t))) return rc;
    if (t) return li_exec(r, s->body[0]);
    return s->els ? li_exec(r, s->els) : AD_OK;
  case LS_BREAK:
    r->flow = LI_FLOW_BREAK;
    return AD_OK;
  case LS_CONTINUE:
    r->flow = LI_FLOW_CONTINUE;
    return AD_OK;
  case LS_RETURN:
    if (s->e && (rc = li_eval(r, s->e, &r->ret))) return rc;
    r->flow = LI_FLOW_RETURN;
    return AD_OK;
  case LS_BLOCK:
    return li_exec_block_body(r, s);
  case LS_PROFILE:
    return exec_profile(r, s);
  case LS_PRINT:
    li_emit_unsupported(r, "print()");
    if (r->parallel) {
      /* participants of a parallel region share the caller's buffer: a
         line is formatted apart and added under the lock */
      char buf[1024];
      li_print p = {buf, sizeof buf, 0}, *saved = r->print;
      buf[0] = '\0';
      r->print = &p;
      rc = print_args(r, s);
      r->print = saved;
      if (rc) return rc;
      li_print_lock();
      li_printf(r, "%s\n", buf);
      li_print_unlock();
      return AD_OK;
    }
    if ((rc = print_args(r, s))) return rc;
    li_printf(r, "\n");
    return AD_OK;
  case LS_REJECT:
    li_emit_unsupported(r, "reject()");
    return raise_msg(r, s, AD_EDOMAIN);
  case LS_FATAL:
    li_emit_unsupported(r, "fatal_error()");
    return raise_msg(r, s, AD_EFATAL);
  case LS_CALL:
    return li_eval(r, s->e, &v);
  case LS_EMPTY:
  default:
    return AD_OK;
  }
}
