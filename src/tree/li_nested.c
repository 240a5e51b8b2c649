/*
** li_nested.c -- what the solvers that call a user function many times
** share (li_ode.c, li_solve.c, li_integrate.c): the function's values at a
** point, its Jacobian from one recording on a scoped tape, Stan's
** finiteness check of their inputs, and the node that passes a result's
** adjoints on through stored derivatives.
**
** Why a scoped tape for the Jacobian: the caller's tape holds the
** evaluation so far, and a sweep of it would run into that.  A scoped stack
** is swept alone, one sweep per output, a snapshot restoring the zero
** adjoints in between (as map_rect's Jacobians), and is recovered after.
*/
#include <math.h>
#include <string.h>
#include "li_int.h"

int li_is_tol_form(const char *name) {
  size_t n = strlen(name);
  return n > 4 && !strcmp(name + n - 4, "_tol");
}

long li_max_steps_arg(const tm_v *v, int old) {
  if (!old) return v->ival[0];
  double m = tm_get(v, 0);
  return isfinite(m) && m >= -1e15 && m <= 1e15 ? (long)m : 0;
}

tm_v li_array_view(tm_v v, int narr, int d0, int d1) {
  v.narr = (unsigned char)narr;
  v.dim[0] = d0;
  v.dim[1] = d1;
  return v;
}

int li_check_finite(li_run *r, const char *fn, const char *what, const tm_v *v) {
  size_t n = tm_numel(v);
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(v, i);
    if (!isfinite(x)) return li_fail_at(r, AD_EDOMAIN, "%s: %s[%zu] is %g, but must be finite", fn, what, i + 1, x);
  }
  return AD_OK;
}

int li_check_controls(li_run *r, const char *fn, double rtol, double atol, long steps) {
  if (!(rtol > 0) || !isfinite(rtol))
    return li_fail_at(r, AD_EDOMAIN, "%s: relative_tolerance is %g, but must be positive and finite", fn, rtol);
  if (!(atol > 0) || !isfinite(atol))
    return li_fail_at(r, AD_EDOMAIN, "%s: absolute_tolerance is %g, but must be positive and finite", fn, atol);
  if (steps <= 0) return li_fail_at(r, AD_EDOMAIN, "%s: max_num_steps is %ld, but must be positive", fn, steps);
  return AD_OK;
}

int li_nested_inputs(const li_run *r, tm_v *args, int *ad, int lead, tm_v *x, int nx) {
  for (int k = 0; k < nx; k++) {
    args[lead + k] = x[k];
    ad[lead + k] = r->ad && x[k].adj != NULL;
  }
  return (int)li_collect_adjoints(x, ad + lead, nx, NULL);
}

int li_check_times(li_run *r, const char *fn, const tm_v *t0, const tm_v *ts, double *t0v, double **tsv) {
  size_t T = tm_numel(ts);
  double *v = ad_alloc_doubles(T ? T : 1);
  if (!v) return ad_fail(AD_EMEMORY, "out of memory");
  *t0v = tm_get(t0, 0);
  for (size_t i = 0; i < T; i++) {
    v[i] = tm_get(ts, i);
    if (i > 0 && v[i] < v[i - 1])
      return li_fail_at(r, AD_EDOMAIN, "%s: times is not a valid sorted vector. The element at %zu is %g, but should "
                        "be greater than or equal to the previous element, %g", fn, i + 1, v[i], v[i - 1]);
  }
  if (!(v[0] > *t0v))
    return li_fail_at(r, AD_EDOMAIN, "%s: initial time is %g, but must be less than %g", fn, *t0v, v[0]);
  *tsv = v;
  return AD_OK;
}

size_t li_collect_adjoints(const tm_v *x, const int *ad, int nx, double **in) {
  size_t n = 0;
  for (int k = 0; k < nx; k++) {
    if (!ad[k]) continue;
    size_t c = tm_numel(&x[k]);
    if (in) for (size_t e = 0; e < c; e++) in[n + e] = &x[k].adj[e];
    n += c;
  }
  return n;
}

static int check_size(const li_nested_fn *c, const tm_v *v) {
  if (tm_numel(v) != (size_t)c->n)
    return ad_fail(AD_EINVALID, "%s: %s returned %zu values, but %s has %d", c->name, c->what, tm_numel(v),
                   c->against, c->n);
  return AD_OK;
}

int li_nested_values(const li_nested_fn *c, double *out) {
  if (c->eng) {
    int rc = c->eng->eval(c->eng, c->args, c->nargs, c->yi, c->ad, c->n, out, NULL, NULL);
    if (rc != LI_ENGINE_MISS) return rc;
  }
  ad_mark mark = ad_stack_mark(ad_active);
  tm_v a[LI_NESTED_MAXARGS], v;
  for (int k = 0; k < c->nargs; k++) {
    a[k] = c->args[k];
    a[k].adj = NULL;
  }
  li_run sub;
  li_run_fork(c->r, &sub);
  sub.ad = 0;
  sub.tr = NULL;
  int rc = li_call_user(&sub, c->f, a, c->nargs, 0, &v);
  if (!rc) rc = check_size(c, &v);
  if (!rc) for (int i = 0; i < c->n; i++) out[i] = tm_get(&v, (size_t)i);
  ad_stack_rewind(ad_active, &mark);
  return rc;
}

typedef struct jac_job {
  const li_nested_fn *c;
  double *out, *Jy, *Jp;
} jac_job;

static int jac_run(void *data) {
  jac_job *j = data;
  const li_nested_fn *c = j->c;
  int n = c->n, rc;
  ad_mark m0 = ad_stack_mark(ad_active);
  tm_v a[LI_NESTED_MAXARGS], v;
  size_t ny = 0;
  for (int k = 0; k < c->nargs; k++) {
    a[k] = c->args[k];
    a[k].adj = NULL;
    if (k == c->yi) {
      double *val;
      ny = tm_numel(&a[k]);
      if ((rc = ad_leaves(ny ? ny : 1, c->args[k].val, &val, &a[k].adj))) return rc;
      a[k].val = val;
    } else if (c->ad && c->ad[k] && (rc = li_leaf_copy(&c->args[k], &a[k]))) {
      return rc;
    }
  }
  li_run sub;
  li_run_fork(c->r, &sub);
  sub.ad = 1;
  sub.tr = NULL;
  if ((rc = li_call_user(&sub, c->f, a, c->nargs, 0, &v)) || (rc = check_size(c, &v))) return rc;
  for (int i = 0; i < n; i++) j->out[i] = tm_get(&v, (size_t)i);
  size_t P = c->ad ? li_collect_adjoints(a, c->ad, c->nargs, NULL) : 0;
  if (j->Jy) memset(j->Jy, 0, (size_t)n * ny * sizeof(double));
  if (j->Jp) memset(j->Jp, 0, (size_t)n * P * sizeof(double));
  if (!v.adj) return AD_OK;     /* f depends on none of them */
  ad_snapshot *snap = NULL;
  if (n > 1 && (rc = ad_stack_snapshot(ad_active, &m0, &snap))) return rc;
  for (int i = 0; i < n; i++) {
    if (i > 0) ad_stack_restore(snap);
    v.adj[i] = 1.0;
    ad_sweep(ad_active);
    if (j->Jy)
      for (size_t k = 0; k < ny; k++) j->Jy[k * n + i] = a[c->yi].adj[k];
    if (!j->Jp) continue;
    size_t col = 0;
    for (int k = 0; k < c->nargs; k++) {
      if (!c->ad || !c->ad[k]) continue;
      size_t m = tm_numel(&a[k]);
      for (size_t e = 0; e < m; e++) j->Jp[(col + e) * n + i] = a[k].adj[e];
      col += m;
    }
  }
  return AD_OK;
}

int li_nested_jacobian(const li_nested_fn *c, ad_stack *st, double *out, double *Jy, double *Jp) {
  if (c->eng) {
    int rc = c->eng->eval(c->eng, c->args, c->nargs, c->yi, c->ad, c->n, out, Jy, Jp);
    if (rc != LI_ENGINE_MISS) return rc;
  }
  jac_job j = { c, out, Jy, Jp };
  int rc = ad_scoped_execute(st, jac_run, &j);
  ad_stack_recover(st);
  return rc;
}

typedef struct rows_node {
  ad_node hdr;
  size_t n;
  int M;
  const double *adj, *G;
  double **in;
} rows_node;

static void rows_chain(ad_node *self) {
  rows_node *p = (rows_node *)self;
  for (size_t o = 0; o < p->n; o++) {
    double a = p->adj[o];
    if (a == 0) continue;
    const double *g = p->G + o * (size_t)p->M;
    for (int m = 0; m < p->M; m++) *p->in[m] += a * g[m];
  }
}

int li_rows_node(size_t n, int M, const double *adj, const double *G, double **in) {
  rows_node *p = ad_node_new(sizeof *p, rows_chain);
  if (!p) return ad_fail(AD_EMEMORY, "out of memory");
  p->n = n;
  p->M = M;
  p->adj = adj;
  p->G = G;
  p->in = in;
  return AD_OK;
}

/* ---- the call, traced, and again at replay ---- */

void li_hof_note(li_run *r, const li_nested_fn *fn, int nmoving) {
  li_hof_rep *rep = r->hof_rep;
  if (!rep) return;
  tm_v *args = ad_alloc((size_t)(fn->nargs ? fn->nargs : 1) * sizeof *args);
  unsigned char *input = ad_alloc((size_t)(fn->nargs ? fn->nargs : 1));
  if (!args || !input) { ad_clear_error(); return; }    /* no plan of f: the tree evaluates it */
  for (int k = 0; k < fn->nargs; k++) {
    args[k] = fn->args[k];
    input[k] = (unsigned char)(args[k].base != TM_INT && (k < nmoving || (fn->ad && fn->ad[k])));
    if (!input[k]) continue;
    size_t m = tm_numel(&args[k]);
    double *v = ad_alloc_doubles(m ? m : 1);
    if (!v) { ad_clear_error(); return; }
    for (size_t i = 0; i < m; i++) v[i] = args[k].val[i];
    args[k].val = v;
    args[k].adj = NULL;
  }
  rep->f = fn->f;
  rep->args = args;
  rep->nargs = fn->nargs;
  rep->input = input;
}

typedef struct hof_call { const li_run *r; const ln_func *f; int nargs; } hof_call;

/* LI_EV_HOF's map->run: the user function on args, traced by tr. */
static int hof_record_run(const void *ud, int piece, const tm_v *args, const li_tracer *tr, tm_v *out) {
  (void)piece;
  const hof_call *h = ud;
  li_run sub;
  li_run_fork(h->r, &sub);
  sub.ad = 1;
  sub.tr = tr;
  sub.hof_eng = NULL;
  sub.hof_rep = NULL;
  return li_call_user(&sub, h->f, (tm_v *)args, h->nargs, 0, out);
}

int li_hof_run(li_run *r, const ln_expr *e, tm_v *out, li_hof_core core) {
  int n = e->nargs - 1, rc;
  tm_v *a = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *a);
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = li_eval_args(r, e->args + 1, n, a))) return rc;
  size_t c0 = r->tr ? li_chain_len() : 0;
  /* the tree evaluates the user function; when traced, the core notes its
     arguments for a plan of it */
  const li_fn_engine *eng = r->hof_eng;
  li_hof_rep *prev = r->hof_rep, rep;
  memset(&rep, 0, sizeof rep);
  r->hof_eng = NULL;
  r->hof_rep = r->tr ? &rep : NULL;
  rc = core(r, e, a, out);
  r->hof_eng = eng;
  r->hof_rep = prev;
  if (rc) return rc;
  if (r->tr) {
    int any = out->adj != NULL;
    for (int i = 0; i < n && !any; i++) any = a[i].adj != NULL;
    if (any) {
      li_event ev = {
        .kind = LI_EV_HOF,
        .site = e,
        .args = a,
        .nargs = n,
        .out = out,
        .chain0 = c0,
      };
      hof_call hc = { r, rep.f, rep.nargs };
      li_map map = { hof_record_run, &hc };
      if (rep.args) {
        ev.fargs = rep.args;
        ev.nfargs = rep.nargs;
        ev.mask = rep.input;
        ev.map = &map;
      }
      li_emit(r, &ev);
    }
  }
  return AD_OK;
}

int li_hof_apply(const li_ctx *c, const void *site, tm_v *args, int nargs, const li_fn_engine *eng, tm_v *out) {
  const ln_expr *e = site;
  if (nargs != e->nargs - 1) return ad_fail(AD_EINVALID, "%s: the plan's call has another number of arguments", e->name);
  li_run r;
  int rc = li_run_init(&r, c, 1, NULL, NULL);
  if (rc) return rc;
  r.line = e->line;
  r.col = e->col;
  r.hof_eng = eng;
  switch (e->builtin) {
  case LN_BI_ODE:
  case LN_BI_ODE_OLD:
    return li_ode_core(&r, e, args, out);
  case LN_BI_DAE:
    return li_dae_core(&r, e, args, out);
  case LN_BI_SOLVE:
  case LN_BI_SOLVE_OLD:
    return li_solve_core(&r, e, args, out);
  case LN_BI_INTEGRATE:
  case LN_BI_INTEGRATE_V:
    return li_integrate_core(&r, e, args, out);
  default:
    return ad_fail(AD_EINVALID, "%s: not a solver call", e->name);
  }
}
