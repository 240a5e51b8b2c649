/*
** pl_plan.c -- a context's plans: which one runs, when to record, counters;
** and the pipeline that makes a recorded plan one to replay (pl_prepare):
** record (pl_record.c) -> compact (pl_compact.c) -> re-roll (pl_reroll.c)
** -> lanes of maps (pl_maplanes.c).  The recorder only records, the passes
** only rewrite: this file alone calls them in turn.
**
** The cache hangs on the context (li_ctx_attach).  Per Jacobian setting it
** keeps up to PL_MAX_RECORDS variants, one per set of decisions seen (a
** branch on a parameter that goes one way at some points and the other way
** at others needs two), in the order recorded; a variant is never replaced,
** so chains and threads read them through atomic pointers without locks.
** An evaluation tries the variant that replayed last, then the others; when
** every guard set fails it runs on the tree and, while there is room,
** records one more.  With the room spent, a context whose evaluations keep
** missing every variant stops trying them: the tree for good.
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <pthread.h>
#include "pl_int.h"

/* Misses (every variant's guards failed, no room to record) after which a
** context stops replaying, when they are more than 1 in 8 evaluations. */
#define PL_MISSES_MAX 8

/* Replays are counted on every gradient by every chain: one shared counter
** bounced its cache line between the workers (a locked add that waited on
** the other core, 5% of a small model's sampling).  Each thread adds to the
** shard its id picks, 64 bytes apart so no two share a line (padding
** rather than _Alignas: calloc does not promise 64-byte alignment); the
** stats sum them.  They come after `why`, away from the fields every
** evaluation reads. */
#define PL_SHARDS 16
typedef struct pl_shard {
  atomic_long n;
  char pad[64 - sizeof(atomic_long)];
} pl_shard;

typedef struct pl_cache {
  _Atomic(pl_plan *) plan[2][PL_MAX_RECORDS];
  atomic_int nplans[2];
  atomic_int last[2];         /* the variant that replayed last: tried first */
  atomic_int given_up[2];     /* recording failed, or too many misses: the tree for good */
  atomic_int recording[2];    /* one thread records at a time; the others use the tree */
  atomic_long misses[2], hits[2];
  atomic_long records, fallbacks, tree, attempts;   /* attempts: evaluations that recorded */
  pthread_mutex_t lock;       /* why */
  char why[200];
  pl_shard replays[PL_SHARDS];
} pl_cache;

static atomic_int enabled = 1;

void pl_set_enabled(int on) { atomic_store(&enabled, on ? 1 : 0); }
int  pl_enabled(void) { return atomic_load(&enabled); }

static atomic_int lanes = 1;
void pl_set_lanes(int on) { atomic_store(&lanes, on ? 1 : 0); }
int  pl_lanes_enabled(void) { return atomic_load(&lanes); }

static void cache_free(void *ptr) {
  pl_cache *c = ptr;
  for (int j = 0; j < 2; j++)
    for (int k = 0; k < PL_MAX_RECORDS; k++) pl_plan_free(atomic_load(&c->plan[j][k]));
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static pl_cache *cache_of(const li_ctx *ctx) {
  pl_cache *c = li_ctx_attachment(ctx);
  if (c) return c;
  c = calloc(1, sizeof *c);
  if (!c) return NULL;
  for (int j = 0; j < 2; j++) {
    for (int k = 0; k < PL_MAX_RECORDS; k++) atomic_init(&c->plan[j][k], NULL);
    atomic_init(&c->nplans[j], 0);
    atomic_init(&c->last[j], 0);
    atomic_init(&c->given_up[j], 0);
    atomic_init(&c->recording[j], 0);
    atomic_init(&c->misses[j], 0);
    atomic_init(&c->hits[j], 0);
  }
  for (int k = 0; k < PL_SHARDS; k++) atomic_init(&c->replays[k].n, 0);
  atomic_init(&c->records, 0);
  atomic_init(&c->fallbacks, 0);
  atomic_init(&c->tree, 0);
  atomic_init(&c->attempts, 0);
  pthread_mutex_init(&c->lock, NULL);
  pl_cache *held = li_ctx_attach(ctx, c, cache_free);
  if (held != c) cache_free(c);
  return held;
}

static void set_why(pl_cache *c, const char *why) {
  pthread_mutex_lock(&c->lock);
  snprintf(c->why, sizeof c->why, "%s", why);
  pthread_mutex_unlock(&c->lock);
}

/* Only the recording thread adds a variant: the slot, then the count. */
static void publish(pl_cache *c, int j, pl_plan *p) {
  int k = atomic_load(&c->nplans[j]);
  if (k >= PL_MAX_RECORDS) { pl_plan_free(p); return; }
  atomic_store(&c->plan[j][k], p);
  atomic_store(&c->last[j], k);
  atomic_store(&c->nplans[j], k + 1);
}

/* ---- the pipeline ---- */

/* What the replay of a map or reduction needs from its pieces' plans once
** they are ready: a map's element plan as lanes (when its instructions
** allow), the buffers of the largest piece (one set per participant serves
** every piece). */
static void pieces_ready(pl_plan *p, const pl_ins *i) {
  for (int f = 0; f < PL_NF; f++) {
    uint32_t at = pl_fieldc(i, f);
    switch (pl_role(i->op, f)) {
    case PL_R_PMAP: {
      pl_pmap *pm = (pl_pmap *)p->ptrs[at];
      pm->lanes = pl_maplanes_build(p, pm->sub);
      break;
    }
    case PL_R_RSUM: {
      pl_reduce *rd = (pl_reduce *)p->ptrs[at];
      for (int c = 0; c < rd->nchunks; c++) pl_dims_cover(&rd->dims, rd->subs[c]);
      break;
    }
    case PL_R_MRECT: {
      pl_maprect *mr = (pl_maprect *)p->ptrs[at];
      for (int j = 0; j < mr->J; j++) pl_dims_cover(&mr->dims, mr->subs[j]);
      break;
    }
    default:
      break;
    }
  }
}

int pl_prepare(pl_plan *p) {
  for (size_t k = 0; k < p->nsubs; k++)
    if (pl_prepare(p->subs[k])) return AD_EMEMORY;
  int rc = pl_compact(p, p->seen, p->nseen);
  if (!rc) rc = pl_reroll(p, p->seen, p->nseen, pl_lanes_enabled());
  free(p->seen);
  p->seen = NULL;
  p->nseen = 0;
  if (rc) return rc;
  for (size_t k = 0; k < p->nins; k++) pieces_ready(p, &p->ins[k]);
  return AD_OK;
}

/* The plan recorder r holds, ready to replay; else NULL with why set. */
static pl_plan *finish(pl_rec *r, char *why, size_t size) {
  pl_plan *p = pl_rec_take(r, why, size);
  if (p && pl_prepare(p)) {
    pl_plan_free(p);
    snprintf(why, size, "out of memory");
    return NULL;
  }
  return p;
}

/* ---- a context's plans ---- */

/* The tree, recording a plan on the way. */
static int record(const li_ctx *ctx, pl_cache *c, int j, const double *upars, double *lp, double *grad,
                  li_print *print, char *err, size_t errsize) {
  atomic_fetch_add(&c->attempts, 1);
  pl_rec *r = pl_rec_new(ctx);
  if (!r) return li_log_prob(ctx, upars, j, lp, grad, print, err, errsize);
  int rc = li_log_prob_traced(ctx, upars, j, lp, grad, print, err, errsize, pl_rec_tracer(r));
  if (rc == AD_OK) {
    char why[200];
    pl_plan *p = finish(r, why, sizeof why);
    if (p) {
      atomic_fetch_add(&c->records, 1);
      publish(c, j, p);
    } else {
      atomic_store(&c->given_up[j], 1);
      set_why(c, why);
    }
  }
  pl_rec_free(r);
  return rc;
}

int pl_log_prob(const li_ctx *ctx, const double *upars, int jacobian, double *lp, double *grad,
                li_print *print, char *err, size_t errsize) {
  pl_cache *c;
  if (!grad || !pl_enabled() || !(c = cache_of(ctx)))
    return li_log_prob(ctx, upars, jacobian, lp, grad, print, err, errsize);
  int j = jacobian ? 1 : 0, n = atomic_load(&c->nplans[j]);
  int full = n >= PL_MAX_RECORDS;
  if (n && !(full && atomic_load(&c->given_up[j]))) {
    int first = atomic_load_explicit(&c->last[j], memory_order_relaxed);
    if (first >= n) first = 0;
    for (int t = 0; t < n; t++) {
      int k = (first + t) % n;
      int rc = pl_replay(atomic_load(&c->plan[j][k]), upars, lp, grad);
      ad_stack_recover(ad_active);
      if (rc == AD_OK) {
        atomic_fetch_add_explicit(&c->replays[ad_thread_id() % PL_SHARDS].n, 1, memory_order_relaxed);
        if (k != first) atomic_store_explicit(&c->last[j], k, memory_order_relaxed);
        if (full) atomic_fetch_add(&c->hits[j], 1);
        return AD_OK;
      }
      /* an interrupt: the tree would stop at its first loop too */
      if (rc == AD_EINTERRUPT) {
        if (err && errsize) snprintf(err, errsize, "%s", ad_errmsg());
        return rc;
      }
      ad_clear_error();
      /* a function's failure: the tree says why (and with which line) */
      if (rc != PL_GUARD) {
        atomic_fetch_add(&c->fallbacks, 1);
        atomic_fetch_add(&c->tree, 1);
        return li_log_prob(ctx, upars, jacobian, lp, grad, print, err, errsize);
      }
    }
    /* every variant's decisions differ here */
    atomic_fetch_add(&c->fallbacks, 1);
    if (full) {
      long m = atomic_fetch_add(&c->misses[j], 1) + 1;
      if (m >= PL_MISSES_MAX && 8 * m > atomic_load(&c->hits[j])) {
        atomic_store(&c->given_up[j], 1);
        set_why(c, "guards failed on every plan recorded");
      }
    }
  }
  if (!atomic_load(&c->given_up[j]) && !full && !atomic_exchange(&c->recording[j], 1)) {
    int rc = record(ctx, c, j, upars, lp, grad, print, err, errsize);
    atomic_store(&c->recording[j], 0);
    return rc;
  }
  /* (or another thread is recording: this evaluation takes the tree) */
  atomic_fetch_add(&c->tree, 1);
  return li_log_prob(ctx, upars, jacobian, lp, grad, print, err, errsize);
}

void pl_get_stats(const li_ctx *ctx, pl_stats *out) {
  memset(out, 0, sizeof *out);
  pl_cache *c = li_ctx_attachment(ctx);
  if (!c) return;
  for (int k = 0; k < PL_SHARDS; k++) out->replays += atomic_load(&c->replays[k].n);
  out->records = atomic_load(&c->records);
  out->fallbacks = atomic_load(&c->fallbacks);
  out->tree = atomic_load(&c->tree);
  /* every evaluation ends in exactly one of these */
  out->evaluations = out->replays + out->tree + atomic_load(&c->attempts);
  pl_plan *p = atomic_load(&c->nplans[1]) ? atomic_load(&c->plan[1][0]) : NULL;
  out->instructions = p ? (int)p->nins : 0;
  out->loops = p ? (int)p->nloops : 0;
  for (size_t k = 0; p && k < p->nins; k++)
    if (pl_role(p->ins[k].op, PL_F_B) == PL_R_PMAP && ((const pl_pmap *)p->ptrs[p->ins[k].b])->lanes)
      out->map_lanes++;
  for (size_t k = 0; p && k < p->ncalls; k++) out->direct += p->calls[k].direct != PL_D_NONE;
  pthread_mutex_lock(&c->lock);
  snprintf(out->why, sizeof out->why, "%s", c->why);
  pthread_mutex_unlock(&c->lock);
}

/* ---- the report of loops ---- */

const char *pl_why_text(int why) {
  switch (why) {
  case PL_WHY_LANES: return "vectorized: runs lane by lane";
  case PL_WHY_PARTS: return "vectorized: runs lane by lane, its iterations grouped by the branch they take";
  case PL_WHY_INSIDE: return "vectorized as part of the loop around it";
  case PL_WHY_INNER: return "the loops inside it are vectorized instead (cheaper)";
  case PL_WHY_COST: return "unrolled: cheaper than lanes (few iterations or a short body)";
  case PL_WHY_FEW: return "unrolled: fewer than 4 iterations";
  case PL_WHY_DATA: return "no work on parameters: nothing to replay";
  case PL_WHY_SHAPE: return "unrolled: its iterations record different operations (a branch, inner loops of other lengths, or values carried from one iteration to the next)";
  case PL_WHY_OP: return "unrolled: its body has an operation without a lane kernel";
  case PL_WHY_ORDER: return "unrolled: an iteration uses a result of an earlier one (a recurrence or a running sum)";
  case PL_WHY_OFF: return "unrolled: loops were turned off (plan_lanes(FALSE)) when it was recorded";
  default: return "no iteration ran when the plan was recorded";
  }
}

typedef struct report { pl_loopinfo *out; size_t max, n; } report;

/* Adds plan p's notes (and its maps' plans') to r; with r->out NULL only
** counts them (a bound on the loops they merge into). */
static void report_plan(report *r, const pl_plan *p, const char *where) {
  if (!p) return;
  for (uint32_t k = 0; k < p->nnotes; k++) {
    const pl_loopnote *q = &p->notes[k];
    if (!r->out) { r->n++; continue; }
    size_t m = 0;
    while (m < r->n && !(r->out[m].line == q->line && r->out[m].col == q->col && !strcmp(r->out[m].where, where))) m++;
    if (m == r->n) {
      if (r->n == r->max) continue;
      pl_loopinfo *o = &r->out[r->n++];
      memset(o, 0, sizeof *o);
      o->line = q->line;
      o->col = q->col;
      o->var = q->var ? q->var : "";
      o->where = where;
      o->why = q->why;
      o->detail = q->detail;
    }
    pl_loopinfo *o = &r->out[m];
    if (o->why == PL_WHY_LANES && q->why != PL_WHY_LANES) { o->why = q->why; o->detail = q->detail; }
    o->runs += q->runs;
    o->lanes += q->lanes;
    o->iters += (double)q->iters;
  }
  for (size_t k = 0; k < p->nins; k++) {
    const pl_ins *i = &p->ins[k];
    /* the plans of its pieces, named as $plan() names the instruction */
    for (int f = 0; f < PL_NF; f++) {
      switch (pl_role(i->op, f)) {
      case PL_R_RSUM: {
        const pl_reduce *rd = p->ptrs[pl_fieldc(i, f)];
        for (int c = 0; c < rd->nchunks; c++) report_plan(r, rd->subs[c], pl_op_name(i->op));
        break;
      }
      case PL_R_PMAP: {
        const pl_pmap *pm = p->ptrs[pl_fieldc(i, f)];
        report_plan(r, pm->sub, pl_op_name(i->op));
        break;
      }
      case PL_R_MRECT: {
        const pl_maprect *mr = p->ptrs[pl_fieldc(i, f)];
        for (int j = 0; j < mr->J; j++) report_plan(r, mr->subs[j], pl_op_name(i->op));
        break;
      }
      default:
        break;
      }
    }
  }
}

size_t pl_loop_report(const li_ctx *ctx, pl_loopinfo *out, size_t max) {
  pl_cache *c = li_ctx_attachment(ctx);
  if (!c) return 0;
  pl_plan *p = atomic_load(&c->nplans[1]) ? atomic_load(&c->plan[1][0]) : NULL;
  if (!p && atomic_load(&c->nplans[0])) p = atomic_load(&c->plan[0][0]);
  report r = { out, out ? max : 0, 0 };
  report_plan(&r, p, "model");
  return r.n;
}
