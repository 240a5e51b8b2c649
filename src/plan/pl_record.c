/*
** pl_record.c -- the recorder: a tracer (li.h) that turns one gradient
** evaluation on the tree into a plan.
**
** Every double of the evaluation that carries a derivative gets a cell: its
** value address a V cell, its adjoint address an A cell (a scalar read
** copies the value but keeps the element's adjoint, so the two are numbered
** apart).  Operands are found by address; one that is not there was made by
** something the tracer did not see, and the trace is incomplete.  Values
** without a derivative are constants of the plan: the guards make sure the
** decisions that produced them come out the same.  The chain stack's length
** before each event must be its length after the previous one: a node
** recorded between two events is work the plan would not redo.
**
** Recording runs once per context (a few times at most), so it may use
** malloc.  The plan it leaves is as recorded, the loops it saw noted
** (pl_plan.seen); pl_prepare (pl_plan.c) compacts and re-rolls it, and the
** plans of its pieces, before a replay reads it.  Which opcode to emit for
** what is decided here; what each operand field of it holds is pl_ops.h's.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "pl_int.h"
#include "../front/ln.h"
#include "../math/tm_scalar.h"
#include "../math/tm_transform.h"
#include "../math/prob/tm_dens_elem.h"

/* ---- address -> cell ---- */

typedef struct addr_map { uintptr_t *keys; uint32_t *vals; size_t cap, n; } addr_map;

static int map_grow(addr_map *m) {
  size_t cap = m->cap ? 2 * m->cap : 256;
  uintptr_t *k = calloc(cap, sizeof *k);
  uint32_t *v = malloc(cap * sizeof *v);
  if (!k || !v) { free(k); free(v); return 1; }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t h = (m->keys[i] >> 3) * 0x9E3779B97F4A7C15ull & (cap - 1);
    while (k[h]) h = (h + 1) & (cap - 1);
    k[h] = m->keys[i];
    v[h] = m->vals[i];
  }
  free(m->keys); free(m->vals);
  m->keys = k; m->vals = v; m->cap = cap;
  return 0;
}

static int map_put(addr_map *m, const void *p, uint32_t val) {
  if (2 * (m->n + 1) > m->cap && map_grow(m)) return 1;
  uintptr_t key = (uintptr_t)p;
  size_t h = (key >> 3) * 0x9E3779B97F4A7C15ull & (m->cap - 1);
  while (m->keys[h] && m->keys[h] != key) h = (h + 1) & (m->cap - 1);
  if (!m->keys[h]) m->n++;
  m->keys[h] = key;
  m->vals[h] = val;
  return 0;
}

static uint32_t map_get(const addr_map *m, const void *p) {
  if (!m->cap || !p) return PL_NONE;
  uintptr_t key = (uintptr_t)p;
  size_t h = (key >> 3) * 0x9E3779B97F4A7C15ull & (m->cap - 1);
  while (m->keys[h]) {
    if (m->keys[h] == key) return m->vals[h];
    h = (h + 1) & (m->cap - 1);
  }
  return PL_NONE;
}

/* ---- the recorder ---- */

struct pl_rec {
  li_tracer tracer;
  const li_ctx *ctx;
  pl_plan *plan;
  size_t capins, capcalls, capconsts, capptrs;
  addr_map vmap, amap;
  size_t chain;             /* chain stack length after the last event */
  size_t capsubs;
  int started, done, failed;
  int element;              /* recording one element of a map */
  struct { uint32_t slot; size_t nchain, nnochain, pfnodes, nested; pl_prof *pr; } open[32];
  int nopen;                /* profile blocks entered and not left */
  /* loops seen: loop[k] began at instruction begin; mark[] the starts of
     iterations, with their loop's number */
  struct { size_t end; int depth; uint32_t n; int line, col; const char *var; } *loop;
  size_t nloop, caploop;
  struct { size_t loop, at; } *mark;
  size_t nmark, capmark;
  size_t openloop[64];
  int nopenloop, lostloop;  /* loops open; nested deeper than openloop holds */
  char why[200];
};

static void fail(pl_rec *r, const char *why) {
  if (r->failed) return;
  r->failed = 1;
  snprintf(r->why, sizeof r->why, "%s", why);
}

/* Room for one more element in a growing array of the plan (*arr holds n
** of cap); 0, or 1 with the recorder failed. */
static int grow(pl_rec *r, void *arr, size_t n, size_t *cap, size_t elem, size_t first) {
  if (pl_grow(arr, n, cap, elem, first) == AD_OK) return 0;
  fail(r, "out of memory");
  return 1;
}

static pl_ins *emit(pl_rec *r, int op) {
  pl_plan *p = r->plan;
  if (grow(r, &p->ins, p->nins, &r->capins, sizeof *p->ins, 1024)) return NULL;
  pl_ins *i = &p->ins[p->nins++];
  memset(i, 0, sizeof *i);
  i->op = (uint16_t)op;
  i->o = i->oa = i->a = i->aa = i->b = i->ba = i->c = i->ca = PL_NONE;
  return i;
}

static void *mem(pl_rec *r, size_t n) {
  void *q = pl_mem(&r->plan->mem, n ? n : 1);
  if (!q) fail(r, "out of memory");
  return q;
}

/* n fresh V cells for the values at val (and A cells for adj when given). */
static uint32_t new_cells(pl_rec *r, const double *val, const double *adj, size_t n, uint32_t *acells) {
  pl_plan *p = r->plan;
  if ((size_t)p->nv + n >= PL_NONE || (size_t)p->na + n >= PL_NONE) { fail(r, "too many values"); return PL_NONE; }
  uint32_t v = p->nv;
  for (size_t i = 0; i < n; i++)
    if (map_put(&r->vmap, val + i, v + (uint32_t)i)) { fail(r, "out of memory"); return PL_NONE; }
  p->nv += (uint32_t)n;
  if (acells) *acells = PL_NONE;
  if (adj && acells) {
    *acells = p->na;
    for (size_t i = 0; i < n; i++)
      if (map_put(&r->amap, adj + i, p->na + (uint32_t)i)) { fail(r, "out of memory"); return PL_NONE; }
    p->na += (uint32_t)n;
  }
  return v;
}

/* n fresh V and A cells for a value the tree never holds (a step inside a
** call the plan writes as instructions). */
static uint32_t temp_cells(pl_rec *r, size_t n, uint32_t *acells) {
  pl_plan *p = r->plan;
  *acells = PL_NONE;
  if ((size_t)p->nv + n >= PL_NONE || (size_t)p->na + n >= PL_NONE) { fail(r, "too many values"); return PL_NONE; }
  uint32_t v = p->nv;
  p->nv += (uint32_t)n;
  *acells = p->na;
  p->na += (uint32_t)n;
  return v;
}

/* n constants as V cells (ints converted as the tree converts them). */
static uint32_t const_cells(pl_rec *r, const tm_v *x, size_t n) {
  pl_plan *p = r->plan;
  double *c = mem(r, n * sizeof(double));
  if (!c) return PL_NONE;
  for (size_t i = 0; i < n; i++) c[i] = x->base == TM_INT ? (double)x->ival[i] : x->val[i];
  if ((size_t)p->nv + n >= PL_NONE) { fail(r, "too many values"); return PL_NONE; }
  if (grow(r, &p->consts, p->nconsts, &r->capconsts, sizeof *p->consts, 256)) return PL_NONE;
  uint32_t v = p->nv;
  p->consts[p->nconsts++] = (pl_const){v, (uint32_t)n, c};
  p->nv += (uint32_t)n;
  return v;
}

/* The V cells of n contiguous values: the cells they are, or constants. */
static uint32_t values_of(pl_rec *r, const tm_v *x, size_t n) {
  if (n == 0) return 0;
  if (x->base != TM_INT) {
    uint32_t v = map_get(&r->vmap, x->val);
    if (v != PL_NONE) {
      if (n > 1 && map_get(&r->vmap, x->val + n - 1) != v + n - 1) { fail(r, "values not contiguous in the plan"); return PL_NONE; }
      return v;
    }
    if (x->adj) { fail(r, "a value the plan did not make"); return PL_NONE; }
  }
  return const_cells(r, x, n);
}

/* The A cells of n contiguous adjoints (PL_NONE for none). */
static uint32_t adjoints_of(pl_rec *r, const double *adj, size_t n) {
  if (!adj || n == 0) return PL_NONE;
  uint32_t a = map_get(&r->amap, adj);
  if (a == PL_NONE || (n > 1 && map_get(&r->amap, adj + n - 1) != a + n - 1)) {
    fail(r, "an adjoint the plan did not make");
    return PL_NONE;
  }
  return a;
}

/* A call's operand: cells when on the plan, else constant values (read in
** place when they belong to the context, copied otherwise). */
static void arg_of(pl_rec *r, const tm_v *x, pl_arg *out) {
  size_t n = tm_numel(x);
  out->shape = *x;
  out->shape.val = out->shape.adj = NULL;
  out->shape.ival = NULL;
  out->v = out->a = PL_NONE;
  out->c = NULL;
  if (x->base == LN_VOID) return;
  if (x->base != TM_INT && n) {
    uint32_t v = map_get(&r->vmap, x->val);
    if (v != PL_NONE) {
      if (n > 1 && map_get(&r->vmap, x->val + n - 1) != v + n - 1) { fail(r, "values not contiguous in the plan"); return; }
      out->v = v;
      out->a = adjoints_of(r, x->adj, n);
      return;
    }
    if (x->adj) { fail(r, "an operand the plan did not make"); return; }
  }
  const void *src = x->base == TM_INT ? (const void *)x->ival : (const void *)x->val;
  size_t bytes = n * (x->base == TM_INT ? sizeof(int) : sizeof(double));
  if (!n || li_ctx_owns(r->ctx, src)) { out->c = src; return; }
  void *c = mem(r, bytes);
  if (c) memcpy(c, src, bytes);
  out->c = c;
}

/* A copy of bytes in the plan, named by its index in the plan's table of
** pointers (offsets of gathers and stores, operand lists). */
/* A pointer in the plan's table (a function's definition, or memory of the
** plan), named by its index. */
static uint32_t keep_ptr(pl_rec *r, const void *q) {
  pl_plan *p = r->plan;
  if (grow(r, &p->ptrs, p->nptrs, &r->capptrs, sizeof *p->ptrs, 256)) return PL_NONE;
  p->ptrs[p->nptrs] = q;
  return (uint32_t)p->nptrs++;
}

/* A copy of bytes in the plan, in the table (offsets of gathers and
** stores, operand lists). */
static uint32_t keep(pl_rec *r, const void *src, size_t bytes) {
  void *c = mem(r, bytes);
  if (!c) return PL_NONE;
  memcpy(c, src, bytes);
  return keep_ptr(r, c);
}

static uint32_t scalar_v(pl_rec *r, const tm_v *x) { return values_of(r, x, 1); }

static pl_call *new_call(pl_rec *r, int kind, const void *fn, const tm_v *args, int nargs) {
  pl_plan *p = r->plan;
  if (grow(r, &p->calls, p->ncalls, &r->capcalls, sizeof *p->calls, 64)) return NULL;
  pl_call *c = &p->calls[p->ncalls];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->fn = fn;
  c->nargs = nargs;
  c->args = mem(r, (size_t)(nargs ? nargs : 1) * sizeof(pl_arg));
  if (!c->args) return NULL;
  for (int i = 0; i < nargs; i++) arg_of(r, &args[i], &c->args[i]);
  pl_ins *in = emit(r, PL_CALL);
  if (!in) return NULL;
  in->x = (uint32_t)p->ncalls++;
  return c;
}

/* Calls the replay runs itself (pl_call.direct): their nodes only add
** products of the result's adjoints into their operands' adjoints, which
** run_call and back_call do on the cells, without the node, the
** function's own result and the copies in and out of it (eight schools:
** four densities, tau * theta_tilde and mu + it, two thirds of its calls'
** time).  The output must be fresh cells with adjoints. */
static void direct_call(pl_call *c, const li_event *ev) {
  const tm_fn *fn = ev->fn;
  const tm_v *a = ev->args, *out = ev->out;
  c->direct = PL_D_NONE;
  if (c->has_konst || !out->adj || out->base == TM_INT || c->out[0].v == PL_NONE ||
      c->out[0].a == PL_NONE || c->view[0] || c->numel[0] == 0)
    return;
  if (tm_is_dens_def(fn)) {
    if (out->base == TM_REAL && out->narr == 0) c->direct = PL_D_DENS;
    return;
  }
  /* real values only: no complex operand or result (two doubles an element) */
  if (ev->nargs != 2 || out->narr || out->base > TM_MATRIX || a[0].base > TM_MATRIX ||
      a[1].base > TM_MATRIX)
    return;
  int xs = tm_is_scalar(&a[0]), ys = tm_is_scalar(&a[1]);
  if (xs && ys) return;
  if (!strcmp(fn->name, "multiply") && xs != ys) {
    const tm_v *v = xs ? &a[1] : &a[0];
    if (v->base == TM_INT || v->narr || tm_numel(v) != c->numel[0]) return;
    c->direct = PL_D_SCALE;
    c->dx = xs ? 0 : 1;
    return;
  }
  if (fn->kernel == tm_binary_kernel && fn->data && a[0].base != TM_INT && a[1].base != TM_INT) {
    const tm_binary_def *d = fn->data;
    if (d->f != tm_scalar_add && d->f != tm_scalar_sub) return;
    if (!xs && tm_numel(&a[0]) != c->numel[0]) return;
    if (!ys && tm_numel(&a[1]) != c->numel[0]) return;
    c->direct = PL_D_ADDSUB;
    c->dx = d->f == tm_scalar_sub;
  }
}

/* A call's output: fresh cells, a view of cells, or (no adjoint from
** autodiff operands) values a guard compares. */
static void call_out(pl_rec *r, pl_call *c, int k, const tm_v *y) {
  size_t n = tm_numel(y);
  pl_arg *o = &c->out[k];
  o->shape = *y;
  o->shape.val = o->shape.adj = NULL;
  o->shape.ival = NULL;
  o->v = o->a = PL_NONE;
  c->numel[k] = n;
  if (y->base == LN_VOID || n == 0) return;
  if (y->base != TM_INT && y->adj) {
    uint32_t v = map_get(&r->vmap, y->val);
    if (v != PL_NONE) {          /* a view of its operand */
      c->view[k] = 1;
      o->v = v;
      o->a = adjoints_of(r, y->adj, n);
      if (n > 1 && map_get(&r->vmap, y->val + n - 1) != v + n - 1) fail(r, "a view not contiguous in the plan");
      return;
    }
    o->v = new_cells(r, y->val, y->adj, n, &o->a);
    return;
  }
  /* a plain result from autodiff operands: a guard */
  size_t bytes = n * (y->base == TM_INT ? sizeof(int) : sizeof(double));
  void *e = mem(r, bytes);
  if (e) memcpy(e, y->base == TM_INT ? (const void *)y->ival : (const void *)y->val, bytes);
  o->c = e;
}

/* Operands a, b, c of an instruction from three scalars; flags 1, 2, 4 for
** those with adjoints. */
static void three_scalars(pl_rec *r, pl_ins *in, const tm_v *a) {
  in->a = scalar_v(r, &a[0]);
  in->b = scalar_v(r, &a[1]);
  in->c = scalar_v(r, &a[2]);
  in->aa = adjoints_of(r, a[0].adj, 1);
  in->ba = adjoints_of(r, a[1].adj, 1);
  in->ca = adjoints_of(r, a[2].adj, 1);
  in->flags = (uint16_t)((a[0].adj ? 1 : 0) | (a[1].adj ? 2 : 0) | (a[2].adj ? 4 : 0));
}

static int real_scalar(const tm_v *x) { return x->base <= TM_REAL && x->narr == 0; }

/* The lower or upper bound of one value by a constant (real<lower=0> sigma):
** ew_lower's y = exp(x) + lb, or ew_upper's y = ub - exp(x), and log |J| =
** 0 + x (the sum over one element) as three instructions, exp, + or -, and
** +, instead of the call (a fifth of a small model's gradient).  Their
** reverse steps add to x's adjoint in the order the tree's two nodes do:
** log |J|'s first, then y's through exp's partial (-a * e is a * -e to the
** bit).  1 when written; 0 leaves the call (an infinite bound is the
** identity there). */
static int bound_scalar(pl_rec *r, const li_event *ev) {
  const tm_v *x = &ev->args[0], *lb = &ev->args[1], *y = ev->out, *lj = ev->out2;
  int upper = tm_transform_is_upper(ev->fn);
  if ((!upper && !tm_transform_is_lower(ev->fn)) || ev->nargs != 2) return 0;
  if (x->base == TM_INT || !x->adj || tm_numel(x) != 1) return 0;
  if (y->base != TM_REAL || y->narr || !y->adj || (lj && !lj->adj)) return 0;
  if (!real_scalar(lb) || lb->adj) return 0;
  if (lb->base != TM_INT && map_get(&r->vmap, lb->val) != PL_NONE) return 0;
  if (tm_get(lb, 0) == (upper ? INFINITY : -INFINITY)) return 0;
  const tm_fn *exp_fn = NULL;
  int count = 0;
  for (const tm_fn *f = tm_lookup("exp", &count); f && count-- > 0; f++)
    if (f->kernel == tm_unary_kernel && f->data) { exp_fn = f; break; }
  if (!exp_fn) return 0;
  pl_plan *p = r->plan;
  pl_ins *in;
  uint32_t xv = scalar_v(r, x), xa = adjoints_of(r, x->adj, 1), ta = PL_NONE;
  if (!(in = emit(r, PL_UNARY))) return 1;
  in->a = xv;
  in->aa = xa;
  in->b = keep_ptr(r, exp_fn->data);
  in->x = p->np++;
  in->o = temp_cells(r, 1, &ta);
  in->oa = ta;
  uint32_t tv = in->o;
  if (!(in = emit(r, upper ? PL_SUB : PL_ADD))) return 1;
  if (upper) {          /* ub - e */
    in->a = scalar_v(r, lb);
    in->b = tv;
    in->ba = ta;
    in->flags = 2;
  } else {              /* e + lb */
    in->a = tv;
    in->aa = ta;
    in->b = scalar_v(r, lb);
    in->flags = 1;
  }
  in->o = new_cells(r, y->val, y->adj, 1, &in->oa);
  if (!lj) return 1;
  double zero = 0.0;
  tm_v z = tm_real_view(&zero, NULL);
  if (!(in = emit(r, PL_ADD))) return 1;
  in->a = scalar_v(r, &z);
  in->b = xv;
  in->ba = xa;
  in->flags = 2;
  in->o = new_cells(r, lj->val, lj->adj, 1, &in->oa);
  return 1;
}

/* A library call on real scalars that has an instruction of its own: 1 when
** it was written as that instruction. */
static int fast_call(pl_rec *r, const li_event *ev) {
  const tm_fn *fn = ev->fn;
  const tm_v *a = ev->args, *out = ev->out;
  pl_plan *p = r->plan;
  pl_ins *in;
  if (!out->adj || out->base != TM_REAL || out->narr) return 0;
  if (ev->nargs == 1 && !strcmp(fn->name, "log_sum_exp") && a[0].adj && a[0].base != TM_INT &&
      a[0].base != TM_MATRIX && a[0].narr <= 1 && tm_numel(&a[0]) > 0) {
    size_t n = tm_numel(&a[0]);
    if (!(in = emit(r, PL_LSE))) return 1;
    in->n = (uint32_t)n;
    in->a = values_of(r, &a[0], n);
    in->aa = adjoints_of(r, a[0].adj, n);
    in->x = p->np;
    p->np += (uint32_t)n;
    in->o = new_cells(r, out->val, out->adj, 1, &in->oa);
    return 1;
  }
  for (int i = 0; i < ev->nargs; i++) if (!real_scalar(&a[i])) return 0;
  if (fn->kernel == tm_unary_kernel && ev->nargs == 1 && a[0].base == TM_REAL && a[0].adj) {
    if (!(in = emit(r, PL_UNARY))) return 1;
    in->a = scalar_v(r, &a[0]);
    in->aa = adjoints_of(r, a[0].adj, 1);
    in->b = keep_ptr(r, fn->data);
    in->x = p->np++;
    in->o = new_cells(r, out->val, out->adj, 1, &in->oa);
    return 1;
  }
  /* log_sum_exp(x, y) is its binary def (the table's data), as binary_apply runs it */
  int lse2 = ev->nargs == 2 && fn->data && !strcmp(fn->name, "log_sum_exp");
  if ((fn->kernel == tm_binary_kernel || lse2) && ev->nargs == 2 && (a[0].adj || a[1].adj)) {
    if (a[0].base == TM_INT && a[1].base == TM_INT) return 0;
    if (!(in = emit(r, PL_BINARY))) return 1;
    in->a = scalar_v(r, &a[0]);
    in->b = scalar_v(r, &a[1]);
    in->aa = adjoints_of(r, a[0].adj, 1);
    in->ba = adjoints_of(r, a[1].adj, 1);
    in->flags = (uint16_t)((a[0].adj ? 1 : 0) | (a[1].adj ? 2 : 0));
    in->n = keep_ptr(r, fn->data);
    in->x = p->np;
    p->np += 2;
    in->o = new_cells(r, out->val, out->adj, 1, &in->oa);
    return 1;
  }
  if (fn->kernel == tm_dens_elem_kernel && ev->nargs <= 4) {
    pl_elem *el = mem(r, sizeof *el);
    if (!el) return 1;
    memset(el, 0, sizeof *el);
    el->def = fn->data;
    el->fn = fn->name;
    el->nargs = ev->nargs;
    el->propto = ev->propto;
    for (int i = 0; i < ev->nargs; i++) {
      el->arg[i] = a[i];
      el->arg[i].val = el->arg[i].adj = NULL;
      el->arg[i].ival = NULL;
      el->v[i] = el->a[i] = PL_NONE;
      if (!ev->propto || !tm_is_const(&a[i])) el->keep |= 1u << i;
      if (a[i].adj) el->need |= 1u << i;
      if (a[i].base == TM_INT) {
        int *k = mem(r, sizeof *k);
        if (!k) return 1;
        *k = a[i].ival[0];
        el->arg[i].ival = k;
      } else {
        el->v[i] = scalar_v(r, &a[i]);
        el->a[i] = adjoints_of(r, a[i].adj, 1);
      }
    }
    if (!(in = emit(r, PL_ELEM))) return 1;
    in->n = keep_ptr(r, el);
    in->x = p->np;
    p->np += 4;
    in->o = new_cells(r, out->val, out->adj, 1, &in->oa);
    return 1;
  }
  if (ev->nargs == 3 && !strcmp(fn->name, "log_mix")) {
    if (!(in = emit(r, PL_LOGMIX))) return 1;
    three_scalars(r, in, a);
    in->x = p->np;
    p->np += 3;
    in->o = new_cells(r, out->val, out->adj, 1, &in->oa);
    return 1;
  }
  if (ev->nargs == 3 && (!strcmp(fn->name, "normal_lpdf") || !strcmp(fn->name, "normal_lupdf"))) {
    if (!(in = emit(r, PL_NORMAL))) return 1;
    three_scalars(r, in, a);
    /* tm_dens_keep: without propto every term; with it, a term that
       depends on an argument that is not constant */
    int keep_all = !ev->propto, sig = keep_all || !tm_is_const(&a[2]);
    in->flags |= (uint16_t)((keep_all ? 8 : 0) | (sig ? 16 : 0));
    in->x = p->np;
    p->np += 3;
    in->o = new_cells(r, out->val, out->adj, 1, &in->oa);
    return 1;
  }
  return 0;
}

static void on_event(void *ud, const li_event *ev);
static const pl_plan *record_piece(pl_rec *r, const li_event *ev, int piece, int element, const tm_v *args,
                                   double *uval, double *uadj, size_t nin, const char *what);
static void record_maprect(pl_rec *r, const li_event *ev);

/* The first and last cells of count contiguous values (and adjoints). */
static int range_cells(pl_rec *r, const double *val, const double *adj, size_t count, uint32_t *v, uint32_t *a) {
  *v = map_get(&r->vmap, val);
  *a = map_get(&r->amap, adj);
  if (*v == PL_NONE || *a == PL_NONE || map_get(&r->vmap, val + count - 1) != *v + count - 1 ||
      map_get(&r->amap, adj + count - 1) != *a + count - 1) {
    fail(r, "a mapped operand the plan did not make");
    return 1;
  }
  return 0;
}

/* parallel_map with eager local gradients: one element is run again with
** its autodiff and indexed operands as the inputs of a plan of its own (so
** that every operation on what changes from element to element is traced,
** and every decision on it guarded), and the map becomes one PL_PMAP whose
** replay runs that plan per element and keeps the partials as pp_map.c
** does.  The element's work is dropped from the tape afterwards. */
static void record_map(pl_rec *r, const li_event *ev) {
  pl_plan *p = r->plan;
  size_t n = ev->n, nin = 0;
  int nops = 0;
  for (int k = 0; k < ev->nargs; k++) {
    const tm_v *v = &ev->args[k];
    if (ev->mask[k] && v->base == TM_INT) { fail(r, "parallel_map over ints (its plan is to come)"); return; }
    if (v->adj || ev->mask[k]) { nin += tm_numel(v); nops++; }
  }
  if (n == 0 || nin == 0 || (size_t)p->np + n * nin >= PL_NONE) { fail(r, "parallel_map too large for a plan"); return; }
  pl_pmap *pm = mem(r, sizeof *pm);
  pl_mapop *ops = mem(r, (size_t)nops * sizeof *ops);
  tm_v *args = malloc((size_t)ev->nargs * sizeof *args);
  if (!pm || !ops || !args) { free(args); fail(r, "out of memory"); return; }
  ad_mark mark = ad_stack_mark(ad_active);
  double *uval, *uadj;
  if (ad_leaves(nin, NULL, &uval, &uadj)) { free(args); ad_stack_rewind(ad_active, &mark); fail(r, "out of memory"); return; }
  size_t at = 0;
  uint32_t ptot = 0;
  int j = 0;
  for (int k = 0; k < ev->nargs; k++) {
    const tm_v *v = &ev->args[k];
    args[k] = *v;
    if (!v->adj && !ev->mask[k]) continue;
    size_t m = tm_numel(v), stride = ev->mask[k] ? ev->offs[k] : 0, count = (n - 1) * stride + m;
    pl_mapop *o = &ops[j++];
    memset(o, 0, sizeof *o);
    o->v = o->a = PL_NONE;
    o->stride = stride;
    o->m = (uint32_t)m;
    o->in = (uint32_t)at;
    if (v->adj) {
      if (m && range_cells(r, v->val, v->adj, count, &o->v, &o->a)) break;
      ptot += (uint32_t)m;
    } else if (li_ctx_owns(r->ctx, v->val)) {
      o->c = v->val;
    } else {
      double *c = mem(r, count * sizeof *c);
      if (!c) break;
      memcpy(c, v->val, count * sizeof *c);
      o->c = c;
    }
    memcpy(uval + at, v->val, m * sizeof *uval);
    args[k].val = uval + at;
    args[k].adj = uadj + at;
    at += m;
  }
  const pl_plan *sub = NULL;
  if (!r->failed) {
    if (!(sub = record_piece(r, ev, 0, 1, args, uval, uadj, nin, "parallel_map"))) goto done;
    pm->sub = sub;
    pm->nops = nops;
    pm->ops = ops;
    pm->ptot = ptot;
    pm->lanes = NULL;          /* pl_prepare's, once sub is ready */
    pl_ins *ins = emit(r, PL_PMAP);
    if (!ins) goto done;
    ins->n = (uint32_t)n;
    ins->b = keep_ptr(r, pm);
    ins->x = p->np;
    p->np += (uint32_t)(n * ptot);
    ins->o = new_cells(r, ev->out->val, ev->out->adj, n, &ins->oa);
  }
done:
  free(args);
  ad_stack_rewind(ad_active, &mark);
}

/* One piece of a map or reduction recorded as a plan of its own: inputs
** (nin leaves at uval/uadj, already holding their values) as its
** parameters, then ev->map->run(piece, args), its result the plan's.  The
** plan, kept with p's, or NULL with r failed. */
/* An event of kind with out, as the tree would send it now. */
static void feed(pl_rec *r, int kind, const tm_v *out) {
  li_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = kind;
  ev.out = out;
  ev.chain0 = ad_active->nchain;
  on_event(r, &ev);
}

/* The piece's plan on its own, as recorded (record_piece, a solver's user
** function: record_hof_fn, and a map_rect worker's jobs: pl_record_job);
** *dep, when asked, whether its result depends on the inputs
** (li_nonconst), as the tree's would. */
static pl_plan *record_sub(const li_ctx *ctx, const li_map *map, int piece, int element, const tm_v *args,
                           double *uval, double *uadj, size_t nin, int *dep, char *why, size_t size) {
  pl_rec *sr = pl_rec_new(ctx);
  if (!sr) {
    snprintf(why, size, "out of memory");
    return NULL;
  }
  sr->element = element;
  tm_v in = tm_real_view(uval, uadj);
  in.base = TM_VECTOR;
  in.rows = (int)nin;
  in.cols = 1;
  feed(sr, LI_EV_PARAMS, &in);
  tm_v y;
  int rc = map->run(map->ud, piece, args, &sr->tracer, &y);
  if (rc) {
    ad_clear_error();
    fail(sr, "it failed when recorded again");
  } else {
    if (dep) *dep = y.adj != NULL || y.dep;   /* li_nonconst */
    feed(sr, LI_EV_RESULT, &y);
  }
  pl_plan *sub = pl_rec_take(sr, why, size);
  pl_rec_free(sr);
  return sub;
}

/* A map_rect job's inputs: leaves on the active stack holding phi's values
** (when autodiff, np of them) then theta[j]'s (nt), and args[0..1] phi and
** theta[j] as the job sees them.  AD_OK or AD_EMEMORY. */
static int job_inputs(const tm_v *phi, const tm_v *th, int j, size_t np, size_t nt, double **uval,
                      double **uadj, tm_v *args) {
  if (ad_leaves(np + nt ? np + nt : 1, NULL, uval, uadj)) return AD_EMEMORY;
  args[0] = *phi;
  args[1] = tm_elem(th, j);
  if (np) {
    memcpy(*uval, phi->val, np * sizeof **uval);
    args[0].val = *uval;
    args[0].adj = *uadj;
  }
  if (nt) {
    memcpy(*uval + np, args[1].val, nt * sizeof **uval);
    args[1].val = *uval + np;
    args[1].adj = *uadj + np;
  }
  return AD_OK;
}

pl_plan *pl_record_job(const li_ctx *ctx, const li_map *map, const tm_v *phi, const tm_v *th, int j,
                       size_t np, size_t nt, int *dep) {
  ad_mark mark = ad_stack_mark(ad_active);
  double *uval, *uadj;
  tm_v args[2];
  char why[200];
  pl_plan *sub = NULL;
  if (job_inputs(phi, th, j, np, nt, &uval, &uadj, args) == AD_OK)
    sub = record_sub(ctx, map, j, 0, args, uval, uadj, np + nt, dep, why, sizeof why);
  ad_stack_rewind(ad_active, &mark);
  return sub;
}

static const pl_plan *record_piece(pl_rec *r, const li_event *ev, int piece, int element, const tm_v *args,
                                   double *uval, double *uadj, size_t nin, const char *what) {
  pl_plan *p = r->plan;
  char why[200];
  pl_plan *sub = record_sub(r->ctx, ev->map, piece, element, args, uval, uadj, nin, NULL, why, sizeof why);
  if (!sub) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s's function: %.160s", what, why);
    fail(r, msg);
    return NULL;
  }
  if (grow(r, &p->subs, p->nsubs, &r->capsubs, sizeof *p->subs, 4)) { pl_plan_free(sub); return NULL; }
  p->subs[p->nsubs++] = sub;
  return sub;
}

/* An ODE's, algebraic solver's or integral's user function as a plan of its
** own: run again at the point the solver noted, with the arguments that
** change from call to call or carry derivatives as its inputs.  Whatever
** keeps it from a plan only leaves the function to the tree (h->sub NULL);
** the call itself is in the plan either way. */
static void record_hof_fn(pl_rec *r, const li_event *ev, pl_hof *h) {
  pl_plan *p = r->plan;
  int nf = ev->nfargs;
  size_t nin = 0;
  for (int k = 0; k < nf; k++) if (ev->mask[k]) nin += tm_numel(&ev->fargs[k]);
  tm_v *args = mem(r, (size_t)(nf ? nf : 1) * sizeof *args);
  unsigned char *input = mem(r, (size_t)(nf ? nf : 1));
  if (!args || !input || nin == 0) return;
  memcpy(input, ev->mask, (size_t)nf);
  ad_mark mark = ad_stack_mark(ad_active);
  double *uval, *uadj;
  if (ad_leaves(nin, NULL, &uval, &uadj)) { ad_clear_error(); ad_stack_rewind(ad_active, &mark); return; }
  size_t at = 0;
  for (int k = 0; k < nf; k++) {
    args[k] = ev->fargs[k];
    if (!input[k]) continue;
    size_t m = tm_numel(&args[k]);
    memcpy(uval + at, args[k].val, m * sizeof *uval);
    args[k].val = uval + at;
    args[k].adj = uadj + at;
    at += m;
  }
  /* element: a density dropping constants would see inputs where the tree sees data */
  char why[200];
  pl_plan *sub = record_sub(r->ctx, ev->map, 0, 1, args, uval, uadj, nin, NULL, why, sizeof why);
  ad_stack_rewind(ad_active, &mark);
  if (!sub) { ad_clear_error(); return; }
  if (grow(r, &p->subs, p->nsubs, &r->capsubs, sizeof *p->subs, 4)) { pl_plan_free(sub); return; }
  p->subs[p->nsubs++] = sub;
  h->sub = sub;
  h->input = input;
  h->nf = nf;
  h->nin = (uint32_t)nin;
}

/* reduce_sum and reduce_sum_static: each chunk is run again with x's slice
** (when autodiff) and the shared autodiff operands as the inputs of a plan
** of its own; data (the slice of a data x, start, end) are its constants.
** One PL_RSUM runs the chunks' plans and sums as li_reduce.c does. */
static void record_reduce(pl_rec *r, const li_event *ev) {
  pl_plan *p = r->plan;
  const tm_v *x = &ev->args[0];
  int ns = ev->nargs - 1;
  pl_reduce *rd = mem(r, sizeof *rd);
  tm_v *args = malloc((size_t)ev->nargs * sizeof *args);
  if (!rd || !args) { free(args); fail(r, "out of memory"); return; }
  memset(rd, 0, sizeof *rd);
  size_t es = 1;
  for (int i = 1; i < x->narr; i++) es *= (size_t)x->dim[i];
  es *= (size_t)x->rows * (size_t)x->cols;
  rd->is_static = ev->op;
  rd->n = (uint32_t)ev->n;
  rd->csize = (uint32_t)ev->result;
  rd->grain = ev->grain;
  rd->es = (uint32_t)es;
  rd->nchunks = (int)((ev->n + (size_t)ev->result - 1) / (size_t)ev->result);
  rd->xv = rd->xa = PL_NONE;
  size_t nx = ev->n * es;
  if (x->adj && nx && range_cells(r, x->val, x->adj, nx, &rd->xv, &rd->xa)) { free(args); return; }
  for (int k = 1; k <= ns; k++) if (ev->args[k].adj && tm_numel(&ev->args[k])) rd->nsh++;
  rd->sh = mem(r, (size_t)(rd->nsh ? rd->nsh : 1) * sizeof *rd->sh);
  rd->subs = mem(r, (size_t)rd->nchunks * sizeof *rd->subs);
  if (!rd->sh || !rd->subs) { free(args); return; }
  int j = 0;
  for (int k = 1; k <= ns; k++) {
    const tm_v *v = &ev->args[k];
    size_t m = tm_numel(v);
    if (!v->adj || !m) continue;
    pl_mapop *o = &rd->sh[j++];
    memset(o, 0, sizeof *o);
    o->m = (uint32_t)m;
    if (range_cells(r, v->val, v->adj, m, &o->v, &o->a)) { free(args); return; }
    rd->nshr += (uint32_t)m;
  }
  if ((size_t)p->np + nx + rd->nshr >= PL_NONE) { free(args); fail(r, "reduce_sum too large for a plan"); return; }
  for (int c = 0; c < rd->nchunks && !r->failed; c++) {
    size_t from = (size_t)c * rd->csize, to = from + rd->csize < ev->n ? from + rd->csize : ev->n;
    size_t slice = x->adj ? (to - from) * es : 0, nin = slice + rd->nshr;
    ad_mark mark = ad_stack_mark(ad_active);
    double *uval, *uadj;
    if (ad_leaves(nin ? nin : 1, NULL, &uval, &uadj)) { ad_stack_rewind(ad_active, &mark); fail(r, "out of memory"); break; }
    /* x's slice, as li_slice cuts it */
    args[0] = *x;
    args[0].dim[0] = (int)(to - from);
    if (x->base == TM_INT) args[0].ival = x->ival + from * es;
    else if (x->adj) {
      memcpy(uval, x->val + from * es, slice * sizeof *uval);
      args[0].val = uval;
      args[0].adj = uadj;
    } else args[0].val = x->val + from * es;
    size_t at = slice;
    j = 0;
    for (int k = 1; k <= ns; k++) {
      const tm_v *v = &ev->args[k];
      args[k] = *v;
      size_t m = tm_numel(v);
      if (!v->adj || !m) continue;
      rd->sh[j++].in = (uint32_t)(at - slice);
      memcpy(uval + at, v->val, m * sizeof *uval);
      args[k].val = uval + at;
      args[k].adj = uadj + at;
      at += m;
    }
    const pl_plan *sub = record_piece(r, ev, c, 0, args, uval, uadj, nin,
                                      rd->is_static ? "reduce_sum_static" : "reduce_sum");
    ad_stack_rewind(ad_active, &mark);
    if (!sub) break;
    rd->subs[c] = sub;
  }
  free(args);
  if (r->failed) return;
  pl_ins *ins = emit(r, PL_RSUM);
  if (!ins) return;
  ins->b = keep_ptr(r, rd);
  ins->x = p->np;
  p->np += (uint32_t)(nx * (x->adj ? 1 : 0) + rd->nshr);
  ins->o = new_cells(r, ev->out->val, ev->out->adj, 1, &ins->oa);
}

/* A copy of data value v in the plan's memory (values only). */
static int copy_data(pl_rec *r, const tm_v *v, tm_v *out) {
  *out = *v;
  out->adj = NULL;
  size_t n = tm_numel(v);
  if (v->base == TM_INT) {
    int *q = mem(r, (n ? n : 1) * sizeof(int));
    if (!q) return -1;
    if (n) memcpy(q, v->ival, n * sizeof(int));
    out->ival = q;
  } else {
    double *q = mem(r, (n ? n : 1) * sizeof(double));
    if (!q) return -1;
    if (n) memcpy(q, v->val, n * sizeof(double));
    out->val = q;
  }
  return 0;
}

/* map_rect: each job is run again with phi and theta[j], when autodiff, as
** the inputs of a plan of its own (x_r[j] and x_i[j] are its constants),
** its outputs the plan's results.  One PL_MRECT runs the jobs' plans and
** their Jacobians as li_maprect.c does. */
static void record_maprect(pl_rec *r, const li_event *ev) {
  pl_plan *p = r->plan;
  const tm_v *phi = &ev->args[0], *th = &ev->args[1];
  int J = (int)ev->n;
  pl_maprect *mr = mem(r, sizeof *mr);
  if (!mr || J < 1) { if (mr) fail(r, "map_rect without jobs"); return; }
  memset(mr, 0, sizeof *mr);
  mr->J = J;
  mr->np = phi->adj ? (uint32_t)tm_numel(phi) : 0;
  mr->nt = th->adj ? (uint32_t)(tm_numel(th) / (size_t)J) : 0;
  mr->phiv = mr->phia = mr->thv = mr->tha = PL_NONE;
  if (mr->np && range_cells(r, phi->val, phi->adj, mr->np, &mr->phiv, &mr->phia)) return;
  if (mr->nt && range_cells(r, th->val, th->adj, (size_t)J * mr->nt, &mr->thv, &mr->tha)) return;
  mr->site = ev->site;
  mr->f = ev->fn;
  mr->ctx = r->ctx;
  mr->phi = *phi;
  mr->theta = *th;
  if ((!mr->np && copy_data(r, phi, &mr->phi)) || (!mr->nt && copy_data(r, th, &mr->theta)) ||
      copy_data(r, &ev->args[2], &mr->xr) || copy_data(r, &ev->args[3], &mr->xi))
    return;
  mr->data_hash = li_mpi_data_hash(&mr->xr, &mr->xi, J);
  mr->phi.adj = mr->theta.adj = NULL;     /* the cells' values are read at each run */
  mr->subs = mem(r, (size_t)J * sizeof *mr->subs);
  mr->off = mem(r, (size_t)(J + 1) * sizeof *mr->off);
  if (!mr->subs || !mr->off) return;
  mr->off[0] = 0;
  size_t nin = (size_t)mr->np + mr->nt;
  for (int j = 0; j < J && !r->failed; j++) {
    ad_mark mark = ad_stack_mark(ad_active);
    double *uval, *uadj;
    tm_v args[2];
    if (job_inputs(phi, th, j, mr->np, mr->nt, &uval, &uadj, args)) { ad_stack_rewind(ad_active, &mark); fail(r, "out of memory"); break; }
    const pl_plan *sub = record_piece(r, ev, j, 0, args, uval, uadj, nin, "map_rect");
    ad_stack_rewind(ad_active, &mark);
    if (!sub) break;
    mr->subs[j] = sub;
    mr->off[j + 1] = mr->off[j] + sub->nres;
  }
  if (r->failed) return;
  size_t M = tm_numel(ev->out), wd = nin;
  if (mr->off[J] != M) { fail(r, "map_rect: the jobs' plans give another number of outputs"); return; }
  if ((size_t)p->np + M * wd >= PL_NONE) { fail(r, "map_rect too large for a plan"); return; }
  pl_ins *ins = emit(r, PL_MRECT);
  if (!ins) return;
  ins->n = (uint32_t)M;
  ins->b = keep_ptr(r, mr);
  ins->x = p->np;
  p->np += (uint32_t)(M * wd);
  ins->o = new_cells(r, ev->out->val, ev->out->adj, M, &ins->oa);
}

/* Loops are only noted here: pl_reroll decides, on the finished plan,
** which can stay loops. */
static void on_loop(pl_rec *r, const li_event *ev) {
  int deep = r->nopenloop == (int)(sizeof r->openloop / sizeof r->openloop[0]);
  switch (ev->op) {
  case LI_LOOP_BEGIN:
    if (deep) { r->lostloop++; break; }
    if (grow(r, &r->loop, r->nloop, &r->caploop, sizeof *r->loop, 16)) break;
    r->loop[r->nloop].end = SIZE_MAX;
    r->loop[r->nloop].depth = r->nopenloop;
    r->loop[r->nloop].n = 0;
    r->loop[r->nloop].line = ev->result;
    r->loop[r->nloop].col = (int)ev->n;
    r->loop[r->nloop].var = ev->why;
    r->openloop[r->nopenloop++] = r->nloop++;
    break;
  case LI_LOOP_ITER:
    if (r->lostloop || !r->nopenloop) break;
    if (grow(r, &r->mark, r->nmark, &r->capmark, sizeof *r->mark, 256)) break;
    r->mark[r->nmark].loop = r->openloop[r->nopenloop - 1];
    r->mark[r->nmark++].at = r->plan->nins;
    r->loop[r->openloop[r->nopenloop - 1]].n++;
    break;
  default:
    if (r->lostloop) { r->lostloop--; break; }
    if (!r->nopenloop) break;
    r->loop[r->openloop[--r->nopenloop]].end = r->plan->nins;
    break;
  }
}

static void on_event(void *ud, const li_event *ev) {
  pl_rec *r = ud;
  if (r->failed || r->done) return;
  if (ev->chain0 != r->chain && r->started) { fail(r, "a node recorded outside the plan"); return; }
  pl_plan *p = r->plan;
  pl_ins *in;
  switch (ev->kind) {
  case LI_EV_PARAMS: {
    size_t n = tm_numel(ev->out);
    p->npars = (uint32_t)n;
    p->pv = new_cells(r, ev->out->val, ev->out->adj, n, &p->pa);
    r->started = 1;
    break;
  }
  case LI_EV_ALLOC: {
    size_t n = tm_numel(ev->out);
    uint32_t a;
    uint32_t v = new_cells(r, ev->out->val, ev->out->adj, n, &a);
    if (n && (in = emit(r, PL_FILL))) { in->o = v; in->n = (uint32_t)n; }
    break;
  }
  case LI_EV_READ: {
    uint32_t src = scalar_v(r, &ev->args[0]);
    uint32_t v = new_cells(r, ev->out->val, NULL, 1, NULL);
    if ((in = emit(r, PL_READ))) { in->o = v; in->a = src; }
    break;
  }
  case LI_EV_ARITH: {
    const tm_v *a = &ev->args[0], *b = &ev->args[1];
    if (!(in = emit(r, ev->op == LN_OP_ADD ? PL_ADD : ev->op == LN_OP_SUB ? PL_SUB
                       : ev->op == LN_OP_MUL ? PL_MUL : PL_DIV))) break;
    in->a = scalar_v(r, a);
    in->b = scalar_v(r, b);
    in->aa = adjoints_of(r, a->adj, 1);
    in->ba = adjoints_of(r, b->adj, 1);
    in->flags = (uint16_t)((a->adj ? 1 : 0) | (b->adj ? 2 : 0));
    in->o = new_cells(r, ev->out->val, ev->out->adj, 1, &in->oa);
    in->x = p->np;
    p->np += 2;
    break;
  }
  case LI_EV_INVOKE: {
    /* a mapped element's data operands are inputs of its plan, so they
       carry derivatives there: a density that drops the terms of constant
       operands would keep terms the tree drops */
    if (r->element && ev->propto) { fail(r, "a density without its constants in a mapped function"); break; }
    if (fast_call(r, ev)) break;
    pl_call *c = new_call(r, PL_K_INVOKE, ev->fn, ev->args, ev->nargs);
    if (!c) break;
    c->propto = ev->propto;
    c->nout = 1;
    /* a density's term of data alone (poisson_log's lgamma(y + 1) sum of
       its int counts, which are always the plan's constants): computed
       once, here (a call is never a lane of a loop, so its constants are
       its own) */
    c->has_konst = tm_dens_konst(ev->fn, ev->propto, ev->args, ev->nargs, &c->konst);
    call_out(r, c, 0, ev->out);
    direct_call(c, ev);
    break;
  }
  case LI_EV_TRANSFORM: {
    /* The identity (an unconstrained parameter) needs no call: its value is
       x's cells, which whatever reads it reads, and its log |J| is a 0 that
       nothing makes autodiff, a constant of the plan.  Two of eight
       schools' three transforms. */
    if (tm_transform_is_identity(ev->fn) && ev->out->val == ev->args[0].val &&
        ev->out->adj == ev->args[0].adj && (!ev->out2 || !ev->out2->adj))
      break;
    if (bound_scalar(r, ev)) break;
    pl_call *c = new_call(r, PL_K_TRANSFORM, ev->fn, ev->args, ev->nargs);
    if (!c) break;
    c->nout = ev->out2 ? 2 : 1;
    call_out(r, c, 0, ev->out);
    if (ev->out2) call_out(r, c, 1, ev->out2);
    break;
  }
  case LI_EV_CHECK:
    new_call(r, PL_K_CHECK, ev->fn, ev->args, ev->nargs);
    break;
  case LI_EV_HOF: {
    pl_hof *h = mem(r, sizeof *h);
    if (!h) break;
    memset(h, 0, sizeof *h);
    h->ctx = r->ctx;
    h->site = ev->site;
    if (ev->map && ev->fargs) record_hof_fn(r, ev, h);
    pl_call *c = new_call(r, PL_K_HOF, h, ev->args, ev->nargs);
    if (!c) break;
    c->nout = 1;
    call_out(r, c, 0, ev->out);
    break;
  }
  case LI_EV_COPY: {
    size_t n = tm_numel(ev->out);
    if (!n) break;
    uint32_t v = map_get(&r->vmap, ev->out->val), a;
    if (v == PL_NONE) v = new_cells(r, ev->out->val, ev->out->adj, n, &a);
    else a = adjoints_of(r, ev->out->adj, n);
    if (!(in = emit(r, PL_COPY))) break;
    in->o = v; in->oa = a; in->n = (uint32_t)n;
    in->a = values_of(r, &ev->args[0], n);
    in->aa = adjoints_of(r, ev->args[0].adj, n);
    break;
  }
  case LI_EV_GATHER: {
    size_t n = ev->n, m = tm_numel(&ev->args[0]);
    if (!(in = emit(r, PL_GATHER))) break;
    in->n = (uint32_t)n;
    in->o = values_of(r, ev->out, n);
    in->oa = adjoints_of(r, ev->out->adj, n);
    in->a = values_of(r, &ev->args[0], m);
    in->aa = adjoints_of(r, ev->args[0].adj, m);
    in->x = keep(r, ev->offs, n * sizeof(size_t));
    break;
  }
  case LI_EV_STORE: {
    size_t n = ev->n, m = tm_numel(ev->out);
    if (!(in = emit(r, PL_STORE))) break;
    in->n = (uint32_t)n;
    in->o = values_of(r, ev->out, m);
    in->oa = adjoints_of(r, ev->out->adj, m);
    in->a = values_of(r, &ev->args[0], n);
    in->aa = ev->args[0].base == TM_INT ? PL_NONE : adjoints_of(r, ev->args[0].adj, n);
    in->x = ev->offs ? keep(r, ev->offs, n * sizeof(size_t)) : PL_NONE;
    break;
  }
  case LI_EV_PACK: {
    size_t n = ev->n;
    uint32_t *idx = calloc(2 * n + 1, sizeof *idx);
    if (!idx) { fail(r, "out of memory"); break; }
    for (size_t k = 0; k < n; k++) {
      tm_v sv = tm_real_view(ev->sval[k], NULL);
      idx[k] = scalar_v(r, &sv);
      idx[n + k] = ev->sadj[k] ? adjoints_of(r, ev->sadj[k], 1) : PL_NONE;
    }
    uint32_t at = keep(r, idx, 2 * n * sizeof *idx);
    free(idx);
    if (!(in = emit(r, PL_PACK))) break;
    in->x = at;
    in->n = (uint32_t)n;
    in->o = values_of(r, ev->out, n);
    in->oa = adjoints_of(r, ev->out->adj, n);
    break;
  }
  case LI_EV_SUM: {
    size_t n = (size_t)ev->nargs, nad = 0;
    uint32_t *idx = malloc((2 * n + 1) * sizeof *idx);
    if (!idx) { fail(r, "out of memory"); break; }
    for (size_t k = 0; k < n; k++) {
      idx[k] = scalar_v(r, &ev->args[k]);
      if (ev->args[k].adj) idx[n + nad++] = adjoints_of(r, ev->args[k].adj, 1);
    }
    uint32_t at = keep(r, idx, (n + nad) * sizeof *idx);
    free(idx);
    if (!(in = emit(r, PL_SUM))) break;
    in->x = at;
    in->n = (uint32_t)n;
    in->b = (uint32_t)nad;
    in->o = new_cells(r, ev->out->val, ev->out->adj, 1, &in->oa);
    break;
  }
  case LI_EV_CMP:
    if (!(in = emit(r, PL_GCMP))) break;
    in->a = scalar_v(r, &ev->args[0]);
    in->b = scalar_v(r, &ev->args[1]);
    in->flags = (uint16_t)ev->op;
    in->n = (uint32_t)ev->result;
    break;
  case LI_EV_TRUTH:
    if (!(in = emit(r, PL_GTRUTH))) break;
    in->a = scalar_v(r, &ev->args[0]);
    in->n = (uint32_t)ev->result;
    break;
  case LI_EV_RESULT: {
    size_t n = tm_numel(ev->out);
    p->nres = (uint32_t)n;
    if (ev->out->adj) {
      p->rv = values_of(r, ev->out, n);
      p->ra = adjoints_of(r, ev->out->adj, n);
    } else {
      p->rv = const_cells(r, ev->out, n);
      p->ra = PL_NONE;
    }
    r->done = 1;
    break;
  }
  case LI_EV_MAP:
    record_map(r, ev);
    break;
  case LI_EV_REDUCE:
    record_reduce(r, ev);
    break;
  case LI_EV_MAPRECT:
    record_maprect(r, ev);
    break;
  case LI_EV_PROFILE:
    if (ev->op) {
      pl_prof *pr = mem(r, sizeof *pr);
      if (!pr) break;
      if (r->nopen == (int)(sizeof r->open / sizeof r->open[0])) { fail(r, "profile blocks nested too deep"); break; }
      memset(pr, 0, sizeof *pr);
      pr->name = ev->why;
      pr->outer = ev->fn;
      pr->line = ev->result;
      pr->ad = (int)ev->n;
      if (!(in = emit(r, PL_PROF_ENTER))) break;
      in->b = keep_ptr(r, pr);
      in->x = p->nprof++;
      /* the entry's node, when the recording itself was profiled */
      size_t pushed = ad_active->nchain - ev->chain0;
      if (r->nopen) r->open[r->nopen - 1].pfnodes += pushed;
      r->open[r->nopen].slot = in->x;
      r->open[r->nopen].nchain = ad_active->nchain;
      r->open[r->nopen].nnochain = ad_active->nnochain;
      r->open[r->nopen].pfnodes = 0;
      r->open[r->nopen].nested = 0;
      r->open[r->nopen++].pr = pr;
    } else {
      if (!r->nopen) { fail(r, "a profile block left that was not entered"); break; }
      r->nopen--;
      pl_prof *pr = r->open[r->nopen].pr;
      /* the tree's count without the nested profiles' own nodes, which a
         replay adds when it is profiled */
      pr->chain = ev->chain0 - r->open[r->nopen].nchain - r->open[r->nopen].pfnodes;
      pr->nochain = ad_active->nnochain - r->open[r->nopen].nnochain;
      pr->nested = r->open[r->nopen].nested;
      if (r->nopen) {
        r->open[r->nopen - 1].pfnodes += r->open[r->nopen].pfnodes + (ad_active->nchain - ev->chain0);
        r->open[r->nopen - 1].nested += r->open[r->nopen].nested + (pr->ad ? 1 : 0);
      }
      if (!(in = emit(r, PL_PROF_EXIT))) break;
      in->b = keep_ptr(r, pr);
      in->x = r->open[r->nopen].slot;
    }
    break;
  case LI_EV_LOOP:
    on_loop(r, ev);
    break;
  case LI_EV_UNSUPPORTED:
  default:
    fail(r, ev->why ? ev->why : "an operation plans do not follow yet");
    break;
  }
  r->chain = ad_active->nchain;
}

pl_rec *pl_rec_new(const li_ctx *c) {
  pl_rec *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->plan = calloc(1, sizeof *r->plan);
  if (!r->plan) { free(r); return NULL; }
  r->ctx = c;
  r->tracer.event = on_event;
  r->tracer.ud = r;
  return r;
}

const li_tracer *pl_rec_tracer(pl_rec *r) { return &r->tracer; }

pl_plan *pl_rec_take(pl_rec *r, char *why, size_t size) {
  if (!r->failed && !r->done) fail(r, "the evaluation did not finish");
  if (r->failed) {
    if (why && size) snprintf(why, size, "%s", r->why);
    return NULL;
  }
  /* the loops seen, each with the instructions its iterations begin at (its
     marks, in the order seen), in one block */
  size_t nl = r->nloop;
  pl_loopseen *seen = NULL;
  if (nl) {
    seen = malloc(nl * sizeof *seen + (r->nmark ? r->nmark : 1) * sizeof(size_t));
    size_t *base = malloc(nl * sizeof *base);
    if (!seen || !base) {
      free(seen); free(base);
      if (why && size) snprintf(why, size, "out of memory");
      return NULL;
    }
    size_t *pos = (size_t *)(seen + nl), at = 0;
    for (size_t k = 0; k < nl; k++) {
      int open = r->loop[k].end == SIZE_MAX;
      seen[k].iter = pos + at;
      seen[k].n = open ? 0 : r->loop[k].n;
      seen[k].end = open ? r->plan->nins : r->loop[k].end;
      seen[k].depth = r->loop[k].depth;
      seen[k].line = r->loop[k].line;
      seen[k].col = r->loop[k].col;
      seen[k].var = r->loop[k].var;
      base[k] = at;
      at += r->loop[k].n;
    }
    for (size_t k = 0; k < r->nmark; k++) pos[base[r->mark[k].loop]++] = r->mark[k].at;
    free(base);
  }
  pl_plan *p = r->plan;
  p->seen = seen;
  p->nseen = nl;
  r->plan = NULL;
  return p;
}

void pl_rec_free(pl_rec *r) {
  if (!r) return;
  pl_plan_free(r->plan);
  free(r->vmap.keys); free(r->vmap.vals);
  free(r->amap.keys); free(r->amap.vals);
  free(r->loop); free(r->mark);
  free(r);
}
