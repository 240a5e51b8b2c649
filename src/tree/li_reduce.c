/*
** li_reduce.c -- reduce_sum(f, x, grainsize, s1, ...) and reduce_sum_static.
**
** The sum over slices of x of f(x[start:end], start, end, s1, ...), with
** eager local gradients: each participant of the region (src/par) copies
** the shared autodiff operands onto its own tape once, then for each chunk
** copies its slice, records f, sweeps at once, writes the slice's adjoints
** straight into the partials of x (chunks own disjoint parts) and lets the
** shared copies' adjoints accumulate.  The caller's tape gets one node with
** the sum and every partial, so both passes run in parallel and the
** caller's reverse sweep does one multiply-add per operand.
**
** reduce_sum hands out chunks of max(grainsize, n / (4 * threads)) elements
** (one chunk on one thread): grainsize is a lower bound, 1 lets the size
** follow the threads.  The sum of its chunks depends on who ran which, so
** its last bits may vary from run to run.  reduce_sum_static cuts chunks of
** exactly grainsize elements and keeps each chunk's value and shared
** partials apart, then adds them in a fixed pairwise tree, so its value and
** gradient are the same for any number of threads.
*/
#include <string.h>
#include "li_int.h"
#include "../par/pp.h"

/* Per participant. */
typedef struct rs_slot {
  li_run run;
  tm_v *copies;             /* the shared arguments on this slot's tape */
  ad_mark mark;             /* after the copies: where each chunk starts */
  double sum;               /* reduce_sum: the values of this slot's chunks */
  char pad[64];             /* run and sum are written by one thread each: keep the
                               next slot's off their cache line */
} rs_slot;

typedef struct rs {
  li_run *caller;
  const ln_func *f;
  const char *name;
  int is_static;
  int propto;               /* reduce_sum(f_lupdf, ...): f's _lupdf calls drop constants */
  int n, csize;             /* elements of x, per chunk */
  tm_v x;
  size_t es;                /* reals per element of x */
  int ns;
  const tm_v *shared;
  double *xpart;            /* partials of x, when x has adjoints */
  rs_slot *slot;
  /* reduce_sum_static: per chunk, apart until the tree adds them */
  double *cval;
  double *cpart;            /* nchunks rows of nsh */
  size_t nsh;               /* reals of the shared arguments with adjoints */
  size_t *shoff;            /* where argument k starts in a row */
} rs;

static int rs_begin(pp_region *g, int slot) {
  rs *w = g->ctx;
  rs_slot *sl = &w->slot[slot];
  li_run_fork(w->caller, &sl->run);
  sl->sum = 0.0;
  sl->copies = ad_alloc((size_t)(w->ns ? w->ns : 1) * sizeof(tm_v));
  if (!sl->copies) return ad_fail(AD_EMEMORY, "out of memory");
  for (int k = 0; k < w->ns; k++) {
    int rc = li_leaf_copy(&w->shared[k], &sl->copies[k]);
    if (rc) return rc;
  }
  sl->mark = ad_stack_mark(ad_active);
  return AD_OK;
}

static int rs_chunk(pp_region *g, int slot, int c) {
  rs *w = g->ctx;
  rs_slot *sl = &w->slot[slot];
  int from = c * w->csize, to = from + w->csize < w->n ? from + w->csize : w->n, rc;
  tm_v *a = ad_alloc((size_t)(w->ns + 3) * sizeof(tm_v)), v;
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  tm_v xs = li_slice(&w->x, from, to);
  if ((rc = li_leaf_copy(&xs, &a[0])) || (rc = tm_new_int(&a[1])) || (rc = tm_new_int(&a[2]))) return rc;
  a[1].ival[0] = from + 1;
  a[2].ival[0] = to;
  memcpy(a + 3, sl->copies, (size_t)w->ns * sizeof(tm_v));
  if ((rc = li_call_user(&sl->run, w->f, a, w->ns + 3, w->propto, &v))) return li_locate(&sl->run, rc);
  double val = v.val[0];
  if (v.adj) {
    *v.adj = 1.0;
    ad_sweep(ad_active);
    if (w->xpart) memcpy(w->xpart + (size_t)from * w->es, a[0].adj, (size_t)(to - from) * w->es * sizeof(double));
  }
  if (w->is_static) {
    w->cval[c] = val;
    double *row = w->cpart + (size_t)c * w->nsh;
    for (int k = 0; k < w->ns; k++) {
      tm_v *cp = &sl->copies[k];
      if (!cp->adj) continue;
      size_t m = tm_numel(cp);
      /* this chunk's share alone: the copies start from zero for the next */
      memcpy(row + w->shoff[k], cp->adj, m * sizeof(double));
      memset(cp->adj, 0, m * sizeof(double));
    }
  } else {
    sl->sum += val;
  }
  ad_stack_rewind(ad_active, &sl->mark);
  return AD_OK;
}

/* LI_EV_REDUCE's run: chunk c again, on the caller's thread and tape, with
** the slice and shared operands the recorder gives (its own copies). */
static int rs_trace(const void *ud, int c, const tm_v *args, const li_tracer *tr, tm_v *out) {
  const rs *w = ud;
  int from = c * w->csize, to = from + w->csize < w->n ? from + w->csize : w->n, rc;
  tm_v *a = ad_alloc((size_t)(w->ns + 3) * sizeof(tm_v));
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  a[0] = args[0];
  if ((rc = tm_new_int(&a[1])) || (rc = tm_new_int(&a[2]))) return rc;
  a[1].ival[0] = from + 1;
  a[2].ival[0] = to;
  memcpy(a + 3, args + 1, (size_t)w->ns * sizeof(tm_v));
  li_run sub;
  li_run_fork(w->caller, &sub);
  sub.tr = tr;
  sub.prof = NULL;   /* the piece ran (and was profiled) already */
  if ((rc = li_call_user(&sub, w->f, a, w->ns + 3, w->propto, out))) return li_locate(&sub, rc);
  return AD_OK;
}

/* rows[0] = the sum of nrows rows of width m, in a fixed pairwise tree
** (li.h: plans' replay sums reduce_sum_static's chunks with it too). */
void li_tree_sum(double *rows, int nrows, size_t m) {
  for (int stride = 1; stride < nrows; stride *= 2)
    for (int i = 0; i + stride < nrows; i += 2 * stride) {
      double *a = rows + (size_t)i * m, *b = rows + (size_t)(i + stride) * m;
      for (size_t j = 0; j < m; j++) a[j] += b[j];
    }
}

int li_reduce_chunk_size(int n, int grain, int is_static) {
  if (is_static) return grain;
  int p = pp_threads(), workers = pp_pool_size();
  if (p > workers + 1) p = workers + 1;
  if (p <= 1) return n;
  /* four chunks per thread balance uneven chunks without paying much for
     the calls of f, the copies of the slices and the sweeps */
  long want = ((long)n + 4L * p - 1) / (4L * p);
  return want > grain ? (int)want : grain;
}

int li_reduce_sum(li_run *r, const ln_expr *e, tm_v *out) {
  rs w;
  memset(&w, 0, sizeof w);
  w.is_static = e->builtin == LN_BI_REDUCE_SUM_STATIC;
  w.name = w.is_static ? "reduce_sum_static" : "reduce_sum";
  w.f = e->args[0]->ufn;
  w.propto = e->propto && r->fn_propto;
  w.caller = r;
  w.ns = e->nargs - 3;
  int rc, grain, dep = 0;
  tm_v *sh = ad_alloc((size_t)(w.ns ? w.ns : 1) * sizeof(tm_v));
  if (!sh) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = li_eval(r, e->args[1], &w.x))) return rc;
  if ((rc = li_eval_int(r, e->args[2], &grain))) return rc;
  if (grain < 1) return li_fail_at(r, AD_EDOMAIN, "%s: grainsize must be at least 1, but is %d", w.name, grain);
  if ((rc = li_eval_args(r, e->args + 3, w.ns, sh))) return rc;
  w.shared = sh;
  w.n = w.x.narr ? w.x.dim[0] : 0;
  if (w.n == 0) return tm_set_real(out, 0.0);
  w.es = li_elem_numel(&w.x);
  dep = li_nonconst(&w.x);
  for (int k = 0; k < w.ns; k++) dep |= li_nonconst(&sh[k]);
  w.csize = li_reduce_chunk_size(w.n, grain, w.is_static);
  int nchunks = (int)(((long)w.n + w.csize - 1) / w.csize);

  /* what the participants write: allocated here, on the caller's tape */
  int threads = pp_threads() < PP_MAX_SLOTS ? pp_threads() : PP_MAX_SLOTS;
  if (!(w.slot = ad_alloc((size_t)threads * sizeof *w.slot))) return ad_fail(AD_EMEMORY, "out of memory");
  if (w.x.adj && !(w.xpart = ad_alloc_zeros(tm_numel(&w.x)))) return ad_fail(AD_EMEMORY, "out of memory");
  if (w.is_static) {
    if (!(w.shoff = ad_alloc((size_t)(w.ns ? w.ns : 1) * sizeof *w.shoff))) return ad_fail(AD_EMEMORY, "out of memory");
    for (int k = 0; k < w.ns; k++) {
      w.shoff[k] = w.nsh;
      if (sh[k].adj) w.nsh += tm_numel(&sh[k]);
    }
    w.cval = ad_alloc_zeros((size_t)nchunks);
    w.cpart = ad_alloc_zeros((size_t)nchunks * (w.nsh ? w.nsh : 1));
    if (!w.cval || !w.cpart) return ad_fail(AD_EMEMORY, "out of memory");
  }

  pp_region g = { .nchunks = nchunks, .nthreads = threads, .begin = rs_begin, .chunk = rs_chunk, .ctx = &w };
  if ((rc = pp_region_run(&g))) {
    r->located = 1;               /* the participant's message names its line */
    return rc;
  }

  /* the sum and the partials, from the participants' results */
  int nops = 0;
  ad_operand *ops = ad_alloc((size_t)(w.ns + 1) * sizeof *ops);
  if (!ops) { pp_region_release(&g); return ad_fail(AD_EMEMORY, "out of memory"); }
  double total = 0.0;
  if (w.is_static) {
    li_tree_sum(w.cval, nchunks, 1);
    li_tree_sum(w.cpart, nchunks, w.nsh);
    total = w.cval[0];
  } else {
    for (int s = 0; s < g.nslots; s++) total += w.slot[s].sum;
  }
  if (w.xpart) ops[nops++] = (ad_operand){ w.x.adj, w.xpart, tm_numel(&w.x) };
  for (int k = 0; k < w.ns; k++) {
    if (!sh[k].adj) continue;
    size_t m = tm_numel(&sh[k]);
    double *part;
    if (w.is_static) part = w.cpart + w.shoff[k];
    else {
      if (!(part = ad_alloc_zeros(m ? m : 1))) { pp_region_release(&g); return ad_fail(AD_EMEMORY, "out of memory"); }
      for (int s = 0; s < g.nslots; s++) {
        const double *acc = w.slot[s].copies[k].adj;
        for (size_t j = 0; j < m; j++) part[j] += acc[j];
      }
    }
    ops[nops++] = (ad_operand){ sh[k].adj, part, m };
  }
  pp_region_release(&g);
  if (nops == 0 || !r->ad) {
    if ((rc = tm_set_real(out, total))) return rc;
    out->dep = (unsigned char)dep;
    return AD_OK;
  }
  size_t chain0 = li_chain_len();
  ad_var y;
  if ((rc = ad_operands_node(nops, ops, total, &y))) return ad_fail(AD_EMEMORY, "out of memory");
  *out = tm_real_view(y.val, y.adj);
  out->dep = 1;
  if (r->tr) {
    /* a recording: each chunk becomes a plan of its own */
    tm_v *args = ad_alloc((size_t)(w.ns + 1) * sizeof *args);
    if (!args) return ad_fail(AD_EMEMORY, "out of memory");
    args[0] = w.x;
    memcpy(args + 1, sh, (size_t)w.ns * sizeof *args);
    li_map m = { rs_trace, &w };
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_REDUCE;
    ev.op = w.is_static;
    ev.result = w.csize;
    ev.grain = grain;
    ev.args = args;
    ev.nargs = w.ns + 1;
    ev.n = (size_t)w.n;
    ev.out = out;
    ev.map = &m;
    ev.chain0 = chain0;
    li_emit(r, &ev);
  }
  return AD_OK;
}
