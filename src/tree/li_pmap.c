/*
** li_pmap.c -- parallel_map(f, grainsize, a1, ...) on tm_parallel_map_spec
** (src/par/pp_map.h).
**
** The checker decided how each argument reaches f from f's declared
** parameter (lc_hof.c): passed whole when its type fits, else indexed.  The
** same rule is applied here to the same types, so nothing needs storing in
** the tree.  Indexed arguments give element i (vectors, row vectors, arrays
** along their first index) or element (i, j) of matrices, i + j * rows in
** their column-major storage; the result is then a rows x cols matrix.
** Whole arguments are marked shared, so their autodiff copies are made once
** per participant.  Each participant calls f with its own run state.
*/
#include <stdlib.h>
#include <string.h>
#include "li_int.h"
#include "../par/pp_map.h"

typedef struct pmx {
  li_run *caller;
  const ln_func *f;
  int na;
  const tm_v *a;                /* element 0 of indexed arguments, the others whole */
  const unsigned char *idx;     /* 1: argument k is indexed */
  const size_t *stride;         /* indexed: reals (or ints) from one element to the next */
  struct pmx_run *run;          /* per slot */
} pmx;

/* A participant's run state, written at every statement: padded so that
** two participants never write one cache line. */
typedef struct pmx_run {
  li_run run;
  char pad[64];
} pmx_run;

/* lc_assign_cost's rule: the same array dimensions, the same base or an
** int where a real is expected. */
static int whole_fits(ln_type p, ln_type a) {
  return p.narr == a.narr && (p.base == a.base || (p.base == TM_REAL && a.base == TM_INT));
}

/* Element 0 of an indexed argument: along the first index of an array, a
** real of a vector, row vector or matrix. */
static tm_v element0(const tm_v *v) {
  if (v->narr >= 1) return tm_elem(v, 0);
  tm_v x = tm_real_view(v->val, v->adj);
  x.dep = v->dep;
  return x;
}

/* Element i of an indexed argument is element 0 moved by i strides: only
** its pointers change. */
static int pmx_index(void *ctx, int i, tm_pm_ops *o) {
  const pmx *x = ctx;
  o->n = x->na;
  for (int k = 0; k < x->na; k++) {
    tm_v *v = &o->v[k];
    *v = x->a[k];
    o->shared[k] = !x->idx[k];
    if (!x->idx[k]) continue;
    size_t off = (size_t)i * x->stride[k];
    if (v->ival) v->ival += off;
    if (v->val) v->val += off;
    if (v->adj) v->adj += off;
  }
  return AD_OK;
}

static int pmx_begin(void *ctx, int slot) {
  const pmx *x = ctx;
  li_run_fork(x->caller, &x->run[slot].run);
  return AD_OK;
}

static int pmx_apply(void *ctx, int slot, int i, const tm_v *args, int nargs, tm_v *out) {
  const pmx *x = ctx;
  li_run *r = &x->run[slot].run;
  (void)i;
  int rc = li_call_user(r, x->f, args, nargs, 0, out);
  return rc ? li_locate(r, rc) : AD_OK;
}

/* LI_EV_MAP's run: one element again, on the caller's thread and tape,
** with the recorder's tracer (src/plan records it as a plan of its own). */
static int pmx_trace(const void *ud, int piece, const tm_v *args, const li_tracer *tr, tm_v *out) {
  const pmx *x = ud;
  (void)piece;
  li_run sub;
  li_run_fork(x->caller, &sub);
  sub.tr = tr;
  sub.prof = NULL;   /* the piece ran (and was profiled) already */
  int rc = li_call_user(&sub, x->f, args, x->na, 0, out);
  return rc ? li_locate(&sub, rc) : AD_OK;
}

/* The grainsize: an int, or in the two-index form a pair (rows, cols). */
static int grainsize(li_run *r, const ln_expr *g, int *grain, int *gr, int *gc) {
  int rc;
  *gr = *gc = 0;
  if (g->type.narr == 0) {
    if ((rc = li_eval_int(r, g, grain))) return rc;
    if (*grain < 1) return li_fail_at(r, AD_EDOMAIN, "parallel_map: grainsize must be at least 1, but is %d", *grain);
    return AD_OK;
  }
  tm_v v;
  if ((rc = li_eval(r, g, &v))) return rc;
  if (v.dim[0] != 2)
    return li_fail_at(r, AD_EINVALID, "parallel_map: the grainsize must be an int or a pair (rows, cols); found %d ints",
                      v.dim[0]);
  *gr = v.ival[0];
  *gc = v.ival[1];
  if (*gr < 1 || *gc < 1)
    return li_fail_at(r, AD_EDOMAIN, "parallel_map: grainsize must be at least 1, but is (%d, %d)", *gr, *gc);
  *grain = 1;
  return AD_OK;
}

int li_parallel_map(li_run *r, const ln_expr *e, tm_v *out) {
  pmx x;
  memset(&x, 0, sizeof x);
  x.caller = r;
  x.f = e->ufn;
  x.na = e->nargs - 2;
  int rc, grain, gr, gc, first = -1, n = 0, rows = 0, cols = 0;
  tm_v *a = ad_alloc((size_t)x.na * sizeof *a);
  unsigned char *idx = ad_alloc((size_t)x.na);
  if (!a || !idx) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = grainsize(r, e->args[1], &grain, &gr, &gc))) return rc;
  if ((rc = li_eval_args(r, e->args + 2, x.na, a))) return rc;
  for (int k = 0; k < x.na; k++) {
    idx[k] = !whole_fits(x.f->params[k]->type, e->args[k + 2]->type);
    if (!idx[k]) continue;
    const tm_v *v = &a[k];
    int two = v->narr == 0 && v->base == TM_MATRIX;
    int m = v->narr >= 1 ? v->dim[0] : two ? v->rows : (int)tm_numel(v), c = two ? v->cols : 1;
    if (first < 0) { first = k; rows = m; cols = c; n = two ? m * c : m; continue; }
    if (two && (m != rows || c != cols))
      return li_fail_at(r, AD_EINVALID, "parallel_map: argument %d is a %d x %d matrix, but argument %d is %d x %d; "
                        "the matrices mapped over must have the same shape", k + 3, m, c, first + 3, rows, cols);
    if (m != rows)
      return li_fail_at(r, AD_EINVALID, "parallel_map: argument %d has %d elements, but argument %d has %d; "
                        "the arguments mapped over must have the same size", k + 3, m, first + 3, rows);
  }
  /* the checker saw to it that one argument is indexed */
  if (first < 0) return li_fail_at(r, AD_EINVALID, "parallel_map: no argument is mapped over");
  int two = e->type.base == TM_MATRIX;
  if (n == 0) {
    rc = two ? tm_new_matrix(out, rows, cols, 0) : tm_new_vector(out, 0, 0);
    return rc ? ad_fail(AD_EMEMORY, "out of memory") : AD_OK;
  }
  size_t *stride = ad_alloc((size_t)x.na * sizeof *stride);
  if (!stride) return ad_fail(AD_EMEMORY, "out of memory");
  for (int k = 0; k < x.na; k++) {
    if (!idx[k]) continue;
    a[k] = element0(&a[k]);
    stride[k] = tm_numel(&a[k]);
  }
  x.a = a;
  x.idx = idx;
  x.stride = stride;

  tm_pm_spec s = {
    .n = n,
    .grainsize = grain,
    .rows = two ? rows : 0,         /* a two-dimensional map's grid */
    .grain_rows = two ? gr : 0,
    .grain_cols = two ? gc : 0,
    .index = pmx_index,
    .apply = pmx_apply,
    .begin = pmx_begin,
    .ctx = &x,
    .append_above = -1,
  };
  if (!(x.run = ad_alloc((size_t)tm_parallel_map_slots(&s) * sizeof *x.run)))
    return ad_fail(AD_EMEMORY, "out of memory");
  size_t chain0 = li_chain_len();
  if ((rc = tm_parallel_map_spec(&s, out))) {
    r->located = 1;               /* the participant's message names its line */
    return rc;
  }
  /* a recording: eager elements become a plan of their own; the values
     of a map that reads nothing autodiff are data, constants of the plan */
  if (r->tr && s.used == TM_PM_EAGER) {
    li_map m = { pmx_trace, &x };
    li_event ev = {
      .kind = LI_EV_MAP,
      .args = a,
      .nargs = x.na,
      .mask = idx,
      .offs = stride,
      .n = (size_t)n,
      .out = out,
      .map = &m,
      .chain0 = chain0,
    };
    li_emit(r, &ev);
  } else if (s.used == TM_PM_APPEND) {
    li_emit_unsupported(r, "parallel_map over a large shared autodiff argument (its plan is to come)");
  }
  return AD_OK;
}
