/*
** pl_replay.c -- an evaluation from a plan: one forward loop over the
** instructions, then one reverse loop.
**
** Each instruction does what the tree's node for it does, in the same
** floating-point order (see li_value.c and ad_node.c for the nodes it
** mirrors), so the results are the tree's to the bit.  A CALL runs its
** library function on views of the cells; the nodes the function records
** go on the active tape as usual, and the reverse loop sweeps that call's
** nodes where the call stands, after copying the adjoints its consumers
** left in A into the function's own output.
*/
#include <math.h>
#include <string.h>
#include "pl_int.h"
#include "pl_step.h"
#include "../math/tm_transform.h"
#include "../front/ln.h"
#include "../math/tm_scalar.h"
#include "../math/tm_linalg.h"
#include "../math/tm_special.h"
#include "../math/prob/tm_dens_elem.h"
#include "../par/pp.h"
#include "../par/pp_mpi.h"
#include "../tree/li_mpi.h"
#include "../prof/pf.h"

/* Copies and clears of a few doubles: a parallel_map's element plan moves
** one or two numbers at a time, where a call of memcpy costs more than the
** move. */
static inline void copy_d(double *dst, const double *src, size_t n) {
  if (n > 8) { memcpy(dst, src, n * sizeof *dst); return; }
  for (size_t k = 0; k < n; k++) dst[k] = src[k];
}

static inline void zero_d(double *dst, size_t n) {
  if (n > 8) { memset(dst, 0, n * sizeof *dst); return; }
  for (size_t k = 0; k < n; k++) dst[k] = 0.0;
}

typedef struct call_state {
  double *oadj[2];          /* the function's own output adjoints */
  size_t c0, c1;            /* its nodes on the chain stack */
  /* a call run directly (pl_call.direct), what its node would keep: */
  ad_operand *ops;          /* PL_D_DENS: the operands and their partials */
  int nops;
  double s;                 /* PL_D_SCALE: the scalar's value, the vector's values (when */
  const double *x;          /* the scalar is autodiff) and both adjoints */
  double *xadj, *yadj;      /* (PL_D_ADDSUB: x's and y's) */
  int xs, ys;               /* PL_D_ADDSUB: x, y scalars */
} call_state;

static void view_of(const pl_arg *g, double *V, double *A, tm_v *out) {
  *out = g->shape;
  if (g->v != PL_NONE) {
    out->val = V + g->v;
    out->adj = g->a != PL_NONE ? A + g->a : NULL;
  } else if (g->shape.base == TM_INT) {
    out->ival = (int *)g->c;
  } else {
    out->val = (double *)g->c;
  }
}

static int run_hof(const pl_call *c, tm_v *args, tm_v *y);

/* A call run directly (pl_call.direct): the function's forward step on
** the cells, its node's data kept in st for back_direct, both with the
** math layer's own code (the density's body, tm_scale_values,
** tm_addsub_values; ad_operands_add, tm_scale_back, tm_addsub_back), so
** the bits are the function's. */
static int run_direct(const pl_call *c, const tm_v *args, unsigned frozen, double *V, call_state *st) {
  double *o = V + c->out[0].v;
  size_t n = c->numel[0];
  switch (c->direct) {
  case PL_D_DENS: {
    tm_call tc = { c->fn, c->propto, NULL, frozen, NULL };
    ad_operand *ops = ad_alloc(TM_DENS_MAXARGS * sizeof *ops);
    double lp;
    int nops, rc;
    if (!ops) return AD_EMEMORY;
    if ((rc = tm_dens_def_direct(&tc, args, c->nargs, &lp, ops, &nops))) return rc;
    if (nops < 0) return PL_GUARD;     /* the tree's result was a real */
    o[0] = lp;
    st->ops = ops;
    st->nops = nops;
    return AD_OK;
  }
  case PL_D_SCALE: {
    const tm_v *sc = &args[c->dx], *x = &args[1 - c->dx];
    if (!sc->adj && !x->adj) return PL_GUARD;
    double sv = tm_get(sc, 0);
    tm_scale_values(n, sv, x->val, o);
    st->s = sv;
    st->xadj = x->adj;
    st->yadj = sc->adj;
    st->x = NULL;
    if (sc->adj) {
      /* the values the reverse step multiplies by, as they are now (mul_scale's copy) */
      double *keep = ad_alloc_doubles(n);
      if (!keep) return AD_EMEMORY;
      memcpy(keep, x->val, n * sizeof(double));
      st->x = keep;
    }
    return AD_OK;
  }
  case PL_D_ADDSUB: {
    const tm_v *x = &args[0], *y = &args[1];
    if (!x->adj && !y->adj) return PL_GUARD;
    int xs = tm_is_scalar(x), ys = tm_is_scalar(y);
    tm_addsub_values(c->dx, x->val, xs, y->val, ys, n, o);
    st->xadj = x->adj;
    st->yadj = y->adj;
    st->xs = xs;
    st->ys = ys;
    return AD_OK;
  }
  default:
    return AD_EINVALID;
  }
}

/* The reverse step of a call run directly: its node's, on the cells. */
static void back_direct(const pl_call *c, const double *A, const call_state *st) {
  const double *oa = A + c->out[0].a;
  size_t n = c->numel[0];
  switch (c->direct) {
  case PL_D_DENS:
    ad_operands_add(st->nops, st->ops, oa[0]);
    break;
  case PL_D_SCALE:
    tm_scale_back(n, st->s, st->x, st->xadj, st->yadj, oa);
    break;
  case PL_D_ADDSUB:
    tm_addsub_back(st->xadj, st->xs, 0, oa, n);
    tm_addsub_back(st->yadj, st->ys, c->dx, oa, n);
    break;
  }
}

static int run_call(const pl_call *c, double *V, double *A, call_state *st) {
  tm_v small[8], *args = small, y[2];
  int rc;
  if (c->nargs > 8 && !(args = ad_alloc((size_t)c->nargs * sizeof *args))) return AD_EMEMORY;
  /* a constant's values are the plan's and stay as they are: a node may
     point at them rather than copy them (a data matrix in a product) */
  unsigned frozen = 0;
  for (int i = 0; i < c->nargs; i++) {
    view_of(&c->args[i], V, A, &args[i]);
    if (c->args[i].v == PL_NONE && i < 32) frozen |= 1u << i;
  }
  st->c0 = st->c1 = ad_active->nchain;
  st->oadj[0] = st->oadj[1] = NULL;
  if (c->direct) return run_direct(c, args, frozen, V, st);
  switch (c->kind) {
  case PL_K_INVOKE:
    rc = tm_invoke_frozen(c->fn, c->propto, args, c->nargs, frozen, c->has_konst ? &c->konst : NULL, &y[0]);
    break;
  case PL_K_HOF:
    rc = run_hof(c, args, &y[0]);
    break;
  case PL_K_TRANSFORM:
    y[0] = c->out[0].shape;
    y[1] = c->out[1].shape;
    rc = tm_transform_constrain(c->fn, &args[0], args + 1, &y[0], c->nout > 1 ? &y[1] : NULL);
    break;
  default:
    return li_check_values(c->fn, &args[0], args + 1, c->nargs - 1) ? PL_GUARD : AD_OK;
  }
  if (rc) return rc;
  st->c1 = ad_active->nchain;
  for (int k = 0; k < c->nout; k++) {
    const pl_arg *o = &c->out[k];
    size_t n = c->numel[k];
    st->oadj[k] = NULL;
    if (tm_numel(&y[k]) != n) return PL_GUARD;
    if (n == 0 || o->shape.base == LN_VOID) continue;
    if (o->v == PL_NONE) {
      /* a plain result of autodiff operands: it must not have changed */
      if (y[k].adj) return PL_GUARD;
      size_t bytes = n * (o->shape.base == TM_INT ? sizeof(int) : sizeof(double));
      const void *now = o->shape.base == TM_INT ? (const void *)y[k].ival : (const void *)y[k].val;
      if (memcmp(now, o->c, bytes)) return PL_GUARD;
      continue;
    }
    if (c->view[k]) {
      if (y[k].val != V + o->v) return PL_GUARD;
      continue;
    }
    if (!y[k].adj) return PL_GUARD;
    memcpy(V + o->v, y[k].val, n * sizeof(double));
    st->oadj[k] = y[k].adj;
  }
  return AD_OK;
}

static void back_call(const pl_call *c, double *A, const call_state *st) {
  if (c->direct) {
    back_direct(c, A, st);
    return;
  }
  for (int k = 0; k < c->nout; k++)
    if (st->oadj[k]) memcpy(st->oadj[k], A + c->out[k].a, c->numel[k] * sizeof(double));
  ad_node **chain = ad_active->chain;
  for (size_t i = st->c1; i-- > st->c0;) chain[i]->chain(chain[i]);
}

/* A plan's buffers, taken from the active arena, and the profile registry
** its blocks record into (the chain's, also on the pool's threads). */
typedef struct bufs {
  double *V, *A, *P;
  call_state *cs;
  pf_handle *H;             /* per profile block entered */
  pf_handle *Hd;            /* the same, kept when it is left (to take its counts back) */
  size_t *PC;               /* its entry's and exit's nodes on the chain stack: 4 per block */
  pf_registry *prof;
  pl_memo *memo;            /* kept from one replay to the next on these buffers (the
                               elements of a parallel_map on one slot) */
} bufs;

static int take_bufs_of(const pl_dims *d, pf_registry *prof, bufs *b) {
  b->V = ad_alloc_doubles(d->nv ? d->nv : 1);
  b->A = ad_alloc_doubles(d->na ? d->na : 1);
  b->P = ad_alloc_doubles(d->np ? d->np : 1);
  b->cs = ad_alloc((d->ncalls ? d->ncalls : 1) * sizeof *b->cs);
  b->H = ad_alloc((d->nprof ? d->nprof : 1) * sizeof *b->H);
  b->Hd = ad_alloc((d->nprof ? d->nprof : 1) * sizeof *b->Hd);
  b->PC = ad_alloc((d->nprof ? 4 * (size_t)d->nprof : 1) * sizeof *b->PC);
  b->prof = prof;
  b->memo = ad_alloc(sizeof *b->memo);
  if (b->memo) pl_memo_init(b->memo);
  return b->V && b->A && b->P && b->cs && b->H && b->Hd && b->PC && b->memo ? AD_OK : AD_EMEMORY;
}

static int take_bufs(const pl_plan *p, pf_registry *prof, bufs *b) {
  pl_dims d = pl_dims_of(p);
  return take_bufs_of(&d, prof, b);
}

/* The replay loops start on a cache line.  Their code is the same from build
** to build, but where the linker happens to place them moved their time by
** up to 10% (hmm_forward's gradient, the same instructions 32 bytes apart);
** a fixed alignment keeps that out of every comparison. */
#if defined(__GNUC__)
#define PL_HOT __attribute__((aligned(64)))
#else
#define PL_HOT
#endif

static int run(const pl_plan *p, const bufs *b, const double *upars, const double *init, double *lp, double *grad);
PL_HOT static int fwd(const pl_plan *p, const bufs *b, const double *upars);
PL_HOT static void rev(const pl_plan *p, const bufs *b);

/* ---- a solver's user function through its plan (pl_hof.sub) ---- */

typedef struct hof_eng {
  li_fn_engine g;
  const pl_hof *h;
  bufs b;
  double *u;
} hof_eng;

/* li_fn_engine.eval: f's inputs into u, the plan forward, its results; for
** the Jacobians one reverse loop per result from zero adjoints (as
** mrect_piece); a failed guard leaves this evaluation to the tree. */
static int hof_eval(const li_fn_engine *g, const tm_v *args, int nargs, int yi, const int *ad, int n, double *out,
                    double *Jy, double *Jp) {
  const hof_eng *w = (const hof_eng *)g;
  const pl_hof *h = w->h;
  const pl_plan *s = h->sub;
  if (nargs != h->nf || (uint32_t)n != s->nres) return LI_ENGINE_MISS;
  size_t at = 0;
  for (int k = 0; k < nargs; k++) {
    if (!h->input[k]) continue;
    size_t m = tm_numel(&args[k]);
    if (at + m > h->nin) return LI_ENGINE_MISS;
    memcpy(w->u + at, args[k].val, m * sizeof(double));
    at += m;
  }
  if (at != h->nin) return LI_ENGINE_MISS;
  ad_mark mark = ad_stack_mark(ad_active);
  int rc = fwd(s, &w->b, w->u);
  if (rc) {
    ad_stack_rewind(ad_active, &mark);
    if (rc == PL_GUARD) { ad_clear_error(); return LI_ENGINE_MISS; }
    return rc;
  }
  memcpy(out, w->b.V + s->rv, (size_t)n * sizeof(double));
  if (Jy || Jp) {
    size_t ny = yi >= 0 ? tm_numel(&args[yi]) : 0, np = 0;
    for (int k = 0; k < nargs; k++) if (ad && ad[k]) np += tm_numel(&args[k]);
    if (Jy) memset(Jy, 0, (size_t)n * ny * sizeof(double));
    if (Jp) memset(Jp, 0, (size_t)n * np * sizeof(double));
    if (s->ra != PL_NONE) {
      ad_snapshot *snap = NULL;
      if (n > 1 && (rc = ad_stack_snapshot(ad_active, &mark, &snap))) { ad_stack_rewind(ad_active, &mark); return rc; }
      for (int o = 0; o < n; o++) {
        if (o > 0) ad_stack_restore(snap);
        memset(w->b.A, 0, (s->na ? s->na : 1) * sizeof(double));
        w->b.A[s->ra + o] = 1.0;
        rev(s, &w->b);
        /* the inputs' adjoints, argument by argument, to J_y's and J_p's columns */
        const double *ua = w->b.A + s->pa;
        size_t in_at = 0, col = 0;
        for (int k = 0; k < nargs; k++) {
          size_t m = tm_numel(&args[k]);
          if (h->input[k]) {
            if (k == yi && Jy)
              for (size_t i = 0; i < m; i++) Jy[i * (size_t)n + (size_t)o] = ua[in_at + i];
            if (ad && ad[k] && k != yi && Jp)
              for (size_t i = 0; i < m; i++) Jp[(col + i) * (size_t)n + (size_t)o] = ua[in_at + i];
            in_at += m;
          }
          if (ad && ad[k] && k != yi) col += m;
        }
      }
    }
  }
  ad_stack_rewind(ad_active, &mark);
  return AD_OK;
}

static int run_hof(const pl_call *c, tm_v *args, tm_v *y) {
  const pl_hof *h = c->fn;
  if (!h->sub) return li_hof_apply(h->ctx, h->site, args, c->nargs, NULL, y);
  hof_eng w;
  memset(&w, 0, sizeof w);
  w.g.eval = hof_eval;
  w.h = h;
  pl_dims d = pl_dims_of(h->sub);
  if (take_bufs_of(&d, pf_current(), &w.b) || !(w.u = ad_alloc_doubles(h->nin ? h->nin : 1))) return AD_EMEMORY;
  return li_hof_apply(h->ctx, h->site, args, c->nargs, &w.g, y);
}


/* ---- pieces: the elements, chunks or jobs of a map or reduction ----
** Pieces are independent: with threads they run on a parallel region
** (pp.h), each participant (slot) with buffers of its own on its own stack,
** sized for the largest piece's plan; alone, on slot 0 in order.  The nodes
** a piece's library calls record go when the piece is done. */
typedef struct piece_slot {
  bufs b;
  double *u, *g;            /* a piece's inputs, their adjoints after */
  double *init, *acc;       /* reduce_sum: adjoints before; shared adjoints so far */
  double sum;               /* reduce_sum: this slot's chunks' values */
  ad_mark mark;
  char pad[64];
} piece_slot;

typedef struct pieces {
  int n;
  pl_dims dims;
  int accumulate;           /* reduce_sum: each slot gets init and acc (nacc reals) */
  size_t nacc;
  pf_registry *prof;
  int (*piece)(void *ctx, piece_slot *sl, int i);
  void *ctx;
  /* set by pieces_run */
  piece_slot *slot;
  int nslots, held;
  pp_region g;
} pieces;

static int slot_begin(const pieces *pc, piece_slot *sl) {
  size_t nin = pc->dims.npars ? pc->dims.npars : 1;
  sl->u = ad_alloc_doubles(nin);
  sl->g = ad_alloc_doubles(nin);
  sl->init = sl->acc = NULL;
  if (pc->accumulate && (!(sl->init = ad_alloc_zeros(nin)) || !(sl->acc = ad_alloc_zeros(pc->nacc ? pc->nacc : 1))))
    return ad_fail(AD_EMEMORY, "out of memory");
  if (!sl->u || !sl->g || take_bufs_of(&pc->dims, pc->prof, &sl->b)) return ad_fail(AD_EMEMORY, "out of memory");
  sl->sum = 0.0;
  sl->mark = ad_stack_mark(ad_active);
  return AD_OK;
}

static int pieces_begin(pp_region *g, int slot) {
  pieces *pc = g->ctx;
  return slot_begin(pc, &pc->slot[slot]);
}

static int pieces_chunk(pp_region *g, int slot, int i) {
  pieces *pc = g->ctx;
  return pc->piece(pc->ctx, &pc->slot[slot], i);
}

/* Runs pieces 0 .. n-1.  With a region, its stacks stay held until
** pieces_release: the caller reads what the slots kept there first. */
/* Threads for a parallel node (reduce_sum, parallel_map, map_rect): as
** many as the evaluation may use when they pay for this node (pp_gate.c),
** else 1; the node names its site. */
static int gate_begin(pp_gate *g, const void *node, double work, int threads) {
  g->slot = NULL;
  return threads > 1 ? pp_gate_begin(g, (uintptr_t)node, work, threads) : threads;
}

static int pieces_run(pieces *pc, int threads) {
  int rc;
  if (threads > PP_MAX_SLOTS) threads = PP_MAX_SLOTS;
  if (threads < 1) threads = 1;
  pc->nslots = 1;
  pc->held = 0;
  if (!(pc->slot = ad_alloc((size_t)threads * sizeof *pc->slot))) return AD_EMEMORY;
  if (threads == 1 || pc->n < 2 || pp_pool_size() < 1) {
    if ((rc = slot_begin(pc, &pc->slot[0]))) return rc;
    for (int i = 0; i < pc->n; i++)
      if ((rc = pc->piece(pc->ctx, &pc->slot[0], i))) return rc;
    return AD_OK;
  }
  memset(&pc->g, 0, sizeof pc->g);
  pc->g.nchunks = pc->n;
  pc->g.nthreads = threads;
  pc->g.begin = pieces_begin;
  pc->g.chunk = pieces_chunk;
  pc->g.ctx = pc;
  if ((rc = pp_region_run(&pc->g))) return rc;   /* (the region has released itself) */
  pc->nslots = pc->g.nslots;
  pc->held = 1;
  return AD_OK;
}

static void pieces_release(pieces *pc) {
  if (pc->held) pp_region_release(&pc->g);
  pc->held = 0;
}

/* ---- parallel_map ----
** PL_PMAP forward: each element through its plan, as pp_map.c's pm_one
** (eager): its value, and its partials in the autodiff operands' order.
** A piece is a run of csize elements (four per thread, as pp_map.c's
** chunk_size); the results do not depend on the number of threads. */
typedef struct pmap_run {
  const pl_pmap *pm;
  const pl_ins *in;
  double *V, *P;
  uint32_t csize;
} pmap_run;

static int pmap_piece(void *ctx, piece_slot *sl, int c) {
  const pmap_run *w = ctx;
  const pl_pmap *pm = w->pm;
  uint32_t from = (uint32_t)c * w->csize, to = from + w->csize < w->in->n ? from + w->csize : w->in->n;
  for (uint32_t e = from; e < to; e++) {
    for (int k = 0; k < pm->nops; k++) {
      const pl_mapop *o = &pm->ops[k];
      const double *src = o->v != PL_NONE ? w->V + o->v : o->c;
      copy_d(sl->u + o->in, src + e * o->stride, o->m);
    }
    double y;
    int rc = run(pm->sub, &sl->b, sl->u, NULL, &y, sl->g);
    ad_stack_rewind(ad_active, &sl->mark);
    if (rc) return rc;
    w->V[w->in->o + e] = y;
    double *row = w->P + w->in->x + (size_t)e * pm->ptot;
    for (int k = 0; k < pm->nops; k++) {
      const pl_mapop *o = &pm->ops[k];
      if (o->a == PL_NONE) continue;
      copy_d(row, sl->g + o->in, o->m);
      row += o->m;
    }
  }
  return AD_OK;
}

/* a chunk of elements as lanes (pl_maplanes.c) */
static int pmap_lanes_piece(void *ctx, piece_slot *sl, int c) {
  const pmap_run *w = ctx;
  (void)sl;
  return pl_maplanes_chunk(w->pm, w->in, (uint32_t)c, w->V, w->P);
}

/* The map's pieces: chunks of elements as lanes when its element plan
** allows (pl_maplanes.c), else runs of elements one by one, four per
** thread. */
static int run_pmap(const pl_pmap *pm, const pl_ins *in, double *V, double *P, pf_registry *prof) {
  pp_gate gate;
  int threads = gate_begin(&gate, pm, in->n, pp_threads());
  uint32_t t = threads > 1 ? (uint32_t)threads : 1;
  pmap_run w = { pm, in, V, P, t > 1 ? (in->n + 4u * t - 1) / (4u * t) : in->n };
  if (!w.csize) w.csize = 1;
  pieces pc;
  memset(&pc, 0, sizeof pc);
  pc.n = pm->lanes ? (int)pl_maplanes_chunks(in->n) : (int)((in->n + w.csize - 1) / w.csize);
  pc.dims = pl_dims_of(pm->sub);
  pc.prof = prof;
  pc.piece = pm->lanes ? pmap_lanes_piece : pmap_piece;
  pc.ctx = &w;
  int rc = pieces_run(&pc, pc.n > 1 ? threads : 1);
  pieces_release(&pc);
  pp_gate_end(&gate);
  return rc;
}

/* PL_PMAP reverse: pm_chain's sums, element by element. */
static void back_pmap(const pl_pmap *pm, const pl_ins *in, double *A, const double *P) {
  for (uint32_t e = 0; e < in->n; e++) {
    double g = A[in->oa + e];
    if (g == 0.0) continue;
    const double *row = P + in->x + (size_t)e * pm->ptot;
    for (int k = 0; k < pm->nops; k++) {
      const pl_mapop *o = &pm->ops[k];
      if (o->a == PL_NONE) continue;
      double *t = A + o->a + e * o->stride;
      for (uint32_t j = 0; j < o->m; j++) t[j] += g * row[j];
      row += o->m;
    }
  }
}

/* ---- reduce_sum ---- */

typedef struct rsum_run {
  const pl_reduce *rd;
  const double *V;
  double *xpart, *cval, *cpart;
} rsum_run;

/* li_reduce.c's rs_chunk: the shared adjoints of reduce_sum accumulate on
** the participant across its chunks; reduce_sum_static keeps each chunk's
** apart. */
static int rsum_piece(void *ctx, piece_slot *sl, int c) {
  const rsum_run *w = ctx;
  const pl_reduce *rd = w->rd;
  size_t from = (size_t)c * rd->csize, to = from + rd->csize < rd->n ? from + rd->csize : rd->n;
  size_t slice = rd->xv != PL_NONE ? (to - from) * rd->es : 0;
  if (slice) memcpy(sl->u, w->V + rd->xv + from * rd->es, slice * sizeof *sl->u);
  for (int k = 0; k < rd->nsh; k++) {
    const pl_mapop *o = &rd->sh[k];
    memcpy(sl->u + slice + o->in, w->V + o->v, o->m * sizeof *sl->u);
  }
  if (!rd->is_static) memcpy(sl->init + slice, sl->acc, rd->nshr * sizeof *sl->init);
  if (slice) memset(sl->init, 0, slice * sizeof *sl->init);
  double val;
  int rc = run(rd->subs[c], &sl->b, sl->u, sl->init, &val, sl->g);
  ad_stack_rewind(ad_active, &sl->mark);
  if (rc) return rc;
  if (slice) memcpy(w->xpart + from * rd->es, sl->g, slice * sizeof *sl->g);
  if (rd->is_static) {
    w->cval[c] = val;
    memcpy(w->cpart + (size_t)c * rd->nshr, sl->g + slice, rd->nshr * sizeof *sl->g);
  } else {
    memcpy(sl->acc, sl->g + slice, rd->nshr * sizeof *sl->g);
    sl->sum += val;
  }
  return AD_OK;
}

static int run_rsum(const pl_reduce *rd, const pl_ins *in, double *V, double *P, pf_registry *prof) {
  /* recorded on other threads: chunks cut for 2 threads cost a plan run
     each on 1 (logistic_reduce 1.2x its serial twin), and one chunk never
     runs on 2; a plan for these threads is recorded instead */
  if (li_reduce_chunk_size((int)rd->n, rd->grain, rd->is_static) != (int)rd->csize) return PL_GUARD;
  size_t nx = rd->xv != PL_NONE ? (size_t)rd->n * rd->es : 0;
  double *part = P + in->x + nx;
  rsum_run w = { rd, V, P + in->x, NULL, NULL };
  if (rd->is_static) {
    w.cval = ad_alloc_zeros((size_t)rd->nchunks);
    w.cpart = ad_alloc_zeros((size_t)rd->nchunks * (rd->nshr ? rd->nshr : 1));
    if (!w.cval || !w.cpart) return AD_EMEMORY;
  }
  pieces pc;
  memset(&pc, 0, sizeof pc);
  pc.n = rd->nchunks;
  pc.dims = rd->dims;
  pc.accumulate = 1;
  pc.nacc = rd->nshr;
  pc.prof = prof;
  pc.piece = rsum_piece;
  pc.ctx = &w;
  pp_gate gate;
  int rc = pieces_run(&pc, gate_begin(&gate, rd, rd->n, pp_threads()));
  if (rc) return rc;
  pp_gate_end(&gate);
  /* the participants' sums live on their stacks: read before the region
     gives the stacks back */
  double total = 0.0;
  if (rd->is_static) {
    /* li_reduce.c's sum of the chunks, in its fixed tree */
    li_tree_sum(w.cval, rd->nchunks, 1);
    li_tree_sum(w.cpart, rd->nchunks, rd->nshr);
    total = w.cval[0];
    memcpy(part, w.cpart, rd->nshr * sizeof *part);
  } else {
    for (int s = 0; s < pc.nslots; s++) total += pc.slot[s].sum;
    memset(part, 0, rd->nshr * sizeof *part);
    for (int s = 0; s < pc.nslots; s++)
      for (uint32_t j = 0; j < rd->nshr; j++) part[j] += pc.slot[s].acc[j];
  }
  pieces_release(&pc);
  V[in->o] = total;
  return AD_OK;
}

/* ad_operands_node's sweep: x, then the shared operands. */
static void back_rsum(const pl_reduce *rd, const pl_ins *in, double *A, const double *P) {
  double a = A[in->oa];
  const double *p = P + in->x;
  if (rd->xv != PL_NONE) {
    size_t nx = (size_t)rd->n * rd->es;
    for (size_t i = 0; i < nx; i++) A[rd->xa + i] += a * p[i];
    p += nx;
  }
  for (int k = 0; k < rd->nsh; k++) {
    const pl_mapop *o = &rd->sh[k];
    for (uint32_t i = 0; i < o->m; i++) A[o->a + i] += a * p[o->in + i];
  }
}

/* ---- map_rect ---- */

typedef struct mrect_run {
  const pl_maprect *mr;
  const pl_ins *in;
  double *V, *P;
} mrect_run;

/* li_maprect.c's mr_chunk and jacobian: the job's outputs, then one reverse
** loop per output, each from zero adjoints (the nodes of library calls
** restored from a snapshot taken after the forward loop). */
/* One map_rect job on buffers b (the stack rewound to mark after): job
** plan s forward at inputs u, its nres values to val, then backward once
** per output, each Jacobian row (wd derivatives) to jac; zeros when the
** job does not depend on its inputs. */
static int job_pass(const pl_plan *s, const bufs *b, const ad_mark *mark, const double *u, size_t wd,
                    double *val, double *jac) {
  size_t m = s->nres;
  int rc = fwd(s, b, u);
  if (rc) { ad_stack_rewind(ad_active, mark); return rc; }
  memcpy(val, b->V + s->rv, m * sizeof(double));
  if (s->ra == PL_NONE) {
    memset(jac, 0, m * wd * sizeof *jac);
  } else {
    ad_snapshot *snap = NULL;
    if (m > 1 && (rc = ad_stack_snapshot(ad_active, mark, &snap))) { ad_stack_rewind(ad_active, mark); return rc; }
    for (size_t o = 0; o < m; o++) {
      if (o > 0) ad_stack_restore(snap);
      memset(b->A, 0, (s->na ? s->na : 1) * sizeof(double));
      b->A[s->ra + o] = 1.0;
      rev(s, b);
      memcpy(jac + o * wd, b->A + s->pa, wd * sizeof *jac);
    }
  }
  ad_stack_rewind(ad_active, mark);
  return AD_OK;
}

static int mrect_piece(void *ctx, piece_slot *sl, int j) {
  const mrect_run *w = ctx;
  const pl_maprect *mr = w->mr;
  size_t wd = (size_t)mr->np + mr->nt;
  if (mr->np) memcpy(sl->u, w->V + mr->phiv, mr->np * sizeof *sl->u);
  if (mr->nt) memcpy(sl->u + mr->np, w->V + mr->thv + (size_t)j * mr->nt, mr->nt * sizeof *sl->u);
  return job_pass(mr->subs[j], &sl->b, &sl->mark, sl->u, wd, w->V + w->in->o + mr->off[j],
                  w->P + w->in->x + (size_t)mr->off[j] * wd);
}

/* A map_rect worker's job (pl_mpi.c): what mrect_piece does for one job,
** on buffers of its own from the active stack, given back before it
** returns. */
int pl_job_run(const pl_plan *s, const double *u, size_t wd, double *out) {
  ad_mark mark = ad_stack_mark(ad_active);
  bufs b;
  if (take_bufs(s, NULL, &b)) {
    ad_stack_rewind(ad_active, &mark);
    return ad_fail(AD_EMEMORY, "out of memory");
  }
  ad_mark run = ad_stack_mark(ad_active);
  int rc = job_pass(s, &b, &run, u, wd, out, out + s->nres);
  ad_stack_rewind(ad_active, &mark);
  return rc;
}

/* Over MPI (li_mpi.h), as li_maprect.c: the other ranks' jobs are sent,
** this rank runs jobs 0..J0-1, then the others' outputs and Jacobian rows
** go to their cells.  A job whose number of outputs is not the recorded
** one fails the replay (the tree then evaluates). */
static int mrect_send(const pl_maprect *mr, const double *V, li_mpi_call *call) {
  tm_v phi = mr->phi, th = mr->theta;
  if (mr->np) phi.val = (double *)V + mr->phiv;
  if (mr->nt) th.val = (double *)V + mr->thv;
  phi.adj = mr->np ? phi.val : NULL;      /* only "is autodiff" is read */
  th.adj = mr->nt ? th.val : NULL;
  return li_mpi_mr_begin(mr->ctx, mr->site, mr->f, &phi, &th, &mr->xr, &mr->xi, &mr->data_hash, mr->np, mr->nt,
                         call);
}

static int mrect_recv(const pl_maprect *mr, const pl_ins *in, double *V, double *P, li_mpi_call *call) {
  li_mr_job *jobs = ad_alloc((size_t)mr->J * sizeof *jobs);
  if (!jobs) return ad_fail(AD_EMEMORY, "out of memory");
  int rc = li_mpi_mr_end(call, jobs);
  if (rc) return rc;
  size_t wd = (size_t)mr->np + mr->nt;
  for (int j = call->J0; j < mr->J; j++) {
    size_t m = mr->off[j + 1] - mr->off[j];
    if ((size_t)jobs[j].m != m) return ad_fail(AD_EINVALID, "map_rect: a job gave another number of outputs");
    memcpy(V + in->o + mr->off[j], jobs[j].val, m * sizeof(double));
    memcpy(P + in->x + (size_t)mr->off[j] * wd, jobs[j].val + m, m * wd * sizeof(double));
  }
  return AD_OK;
}

static int run_mrect(const pl_maprect *mr, const pl_ins *in, double *V, double *P, pf_registry *prof) {
  mrect_run w = { mr, in, V, P };
  pieces pc;
  memset(&pc, 0, sizeof pc);
  pc.n = mr->J;
  int mpi = mr->f ? pp_mpi_trylock() : 0, rc = AD_OK;
  if (mpi < 0) return AD_EFATAL;
  li_mpi_call call;
  if (mpi) {
    ad_mark mark = ad_stack_mark(ad_active);
    if ((rc = mrect_send(mr, V, &call))) {
      pp_mpi_unlock();
      return rc;
    }
    pc.n = call.J0;
    pc.dims = mr->dims;
    pc.prof = prof;
    pc.piece = mrect_piece;
    pc.ctx = &w;
    rc = pc.n ? pieces_run(&pc, pp_threads()) : AD_OK;
    pieces_release(&pc);
    int rc2 = mrect_recv(mr, in, V, P, &call);
    pp_mpi_unlock();
    ad_stack_rewind(ad_active, &mark);
    return rc ? rc : rc2;
  }
  pc.dims = mr->dims;
  pc.prof = prof;
  pc.piece = mrect_piece;
  pc.ctx = &w;
  pp_gate gate;
  rc = pieces_run(&pc, gate_begin(&gate, mr, mr->J, pp_threads()));
  pieces_release(&pc);
  pp_gate_end(&gate);
  return rc;
}

/* mr_chain */
static void back_mrect(const pl_maprect *mr, const pl_ins *in, double *A, const double *P) {
  size_t wd = (size_t)mr->np + mr->nt;
  for (int j = 0; j < mr->J; j++) {
    double *ta = mr->nt ? A + mr->tha + (size_t)j * mr->nt : NULL;
    for (size_t o = mr->off[j]; o < mr->off[j + 1]; o++) {
      double a = A[in->oa + o];
      const double *row = P + in->x + o * wd;
      for (size_t k = 0; k < mr->np; k++) A[mr->phia + k] += a * row[k];
      if (ta)
        for (size_t k = 0; k < mr->nt; k++) ta[k] += a * row[mr->np + k];
    }
  }
}

int pl_replay(const pl_plan *p, const double *upars, double *lp, double *grad) {
  bufs b;
  if (take_bufs(p, pf_current(), &b)) return AD_EMEMORY;
  return run(p, &b, upars, NULL, lp, grad);
}

PL_HOT static int fwd_loop(const pl_plan *p, const bufs *b, const double *upars);

/* The forward loop of plan p in buffers b, from the inputs upars.  After
** a failure the tree evaluates again: the profile blocks this replay
** entered are not counted (a block left open is closed). */
static int fwd(const pl_plan *p, const bufs *b, const double *upars) {
  for (uint32_t k = 0; k < p->nprof; k++) b->H[k].t = b->Hd[k].t = NULL;
  int rc = fwd_loop(p, b, upars);
  if (rc && p->nprof)
    for (size_t k = p->nins; k-- > 0;) {     /* inner blocks first */
      const pl_ins *i = &p->ins[k];
      if (i->op == PL_PROF_ENTER) pf_cancel(&b->H[i->x]);
      if (i->op == PL_PROF_EXIT && b->Hd[i->x].t) {
        const pl_prof *pr = p->ptrs[i->b];
        pf_uncount(&b->Hd[i->x], pr->chain + (b->prof ? 2 * pr->nested : 0), pr->nochain);
      }
    }
  return rc;
}

static int fwd_loop(const pl_plan *p, const bufs *b, const double *upars) {
  double *V = b->V, *A = b->A, *P = b->P;
  pl_memo *memo = b->memo;
  call_state *cs = b->cs;
  copy_d(V, p->kvals, p->nk);
  copy_d(V + p->pv, upars, p->npars);
  int rc;
  const pl_ins *ins = p->ins, *end = ins + p->nins;
  for (const pl_ins *i = ins; i < end; i++) {
    rc = pl_fwd1(p, i, i->op, V, P, memo);
    if (rc == AD_OK) continue;
    if (rc != PL_OTHER) return rc;
    /* Loops, calls and parallel maps are where a replay spends long: an
    ** interrupt (ad.h) is looked for there, off the fast path above. */
    if (i->op != PL_AMERGE && i->op != PL_PROF_ENTER && i->op != PL_PROF_EXIT && ad_interrupted())
      return ad_fail(AD_EINTERRUPT, "interrupted");
    switch (i->op) {
    case PL_AMERGE:
      break;
    case PL_LOOP:
      if ((rc = pl_lanes_fwd(p, i, V, P))) return rc;
      i += i->b + 1;          /* past the body and its end */
      break;
    case PL_CALL:
      if ((rc = run_call(&p->calls[i->x], V, A, &cs[i->x]))) return rc;
      break;
    case PL_PMAP:
      if ((rc = run_pmap(p->ptrs[i->b], i, V, P, b->prof))) return rc;
      break;
    case PL_RSUM:
      if ((rc = run_rsum(p->ptrs[i->b], i, V, P, b->prof))) return rc;
      break;
    case PL_MRECT:
      if ((rc = run_mrect(p->ptrs[i->b], i, V, P, b->prof))) return rc;
      break;
    case PL_PROF_ENTER: {
      const pl_prof *pr = p->ptrs[i->b];
      size_t *pc = b->PC + 4 * (size_t)i->x;
      pc[0] = ad_active->nchain;
      if ((rc = pf_enter(b->prof, pr->name, pr->ad, pr->line, pr->outer, &b->H[i->x]))) return rc;
      pc[1] = ad_active->nchain;
      break;
    }
    case PL_PROF_EXIT: {
      const pl_prof *pr = p->ptrs[i->b];
      size_t *pc = b->PC + 4 * (size_t)i->x;
      pc[2] = ad_active->nchain;
      b->Hd[i->x] = b->H[i->x];
      rc = pf_exit_counted(&b->H[i->x], pr->chain + (b->prof ? 2 * pr->nested : 0), pr->nochain);
      pc[3] = ad_active->nchain;
      if (rc) return rc;
      break;
    }
    default:
      return AD_EINVALID;
    }
  }
  return AD_OK;
}

/* The reverse loop of plan p in buffers b (the seeds already in A). */
static void rev(const pl_plan *p, const bufs *b) {
  double *A = b->A;
  const double *P = b->P;
  const call_state *cs = b->cs;
  const pl_ins *ins = p->ins, *end = ins + p->nins;
  for (const pl_ins *i = end; i-- > ins;) {
    if (pl_rev1(p, i, i->op, A, P)) continue;
    switch (i->op) {
    case PL_LOOP_END:
      i -= i->b + 1;          /* the loop's header */
      pl_lanes_rev(p, i, A, P);
      break;
    case PL_AMERGE: {         /* the parts' sums, in the unrolled order */
      const uint32_t *tab = p->ptrs[i->x];
      double s = A[i->aa];
      for (uint32_t k = i->n; k-- > 0;) s += A[tab[k]];
      A[i->aa] = s;
      break;
    }
    case PL_CALL:
      back_call(&p->calls[i->x], A, &cs[i->x]);
      break;
    case PL_PMAP:
      back_pmap(p->ptrs[i->b], i, A, P);
      break;
    case PL_RSUM:
      back_rsum(p->ptrs[i->b], i, A, P);
      break;
    case PL_MRECT:
      back_mrect(p->ptrs[i->b], i, A, P);
      break;
    case PL_PROF_EXIT:
    case PL_PROF_ENTER: {
      /* the profile's own nodes: they stop and start its reverse timer */
      const size_t *pc = b->PC + 4 * (size_t)i->x + (i->op == PL_PROF_EXIT ? 2 : 0);
      ad_node **chain = ad_active->chain;
      for (size_t k = pc[1]; k-- > pc[0];) chain[k]->chain(chain[k]);
      break;
    }
    default:
      break;
    }
  }
}

/* One evaluation of plan p in buffers b; the inputs' adjoints start from
** init (NULL: zero). */
static int run(const pl_plan *p, const bufs *b, const double *upars, const double *init, double *lp, double *grad) {
  double *A = b->A;
  zero_d(A, p->na ? p->na : 1);
  if (init) copy_d(A + p->pa, init, p->npars);
  int rc = fwd(p, b, upars);
  if (rc) return rc;
  *lp = b->V[p->rv];
  if (p->ra == PL_NONE) {
    if (init) memcpy(grad, init, p->npars * sizeof(double));
    else memset(grad, 0, p->npars * sizeof(double));
    return AD_OK;
  }
  A[p->ra] = 1.0;
  rev(p, b);
  copy_d(grad, A + p->pa, p->npars);
  return AD_OK;
}
