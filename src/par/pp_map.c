/*
** pp_map.c -- parallel map on a parallel region (contract in pp_map.h).
**
** Why eager local gradients by default: an element of a map is a small
** piece of work whose output is one real, so its partials are as many
** reals as it reads; computing them where the element runs puts the
** reverse pass in parallel too, and the caller's tape gets one node
** instead of every element's tape.  Why the append strategy as well: a
** broadcast operand of m reals costs m partials per element, read or not,
** so with a large shared vector (of which each element typically reads a
** few entries) storing rows of partials costs more time and memory than
** keeping the elements' tapes; then the forward pass alone runs in
** parallel and the caller's sweep does the rest.
**
** Everything the opener reads afterwards (values, partials, the adjoints
** they go to, the results' adjoints) is allocated on the caller's tape
** before the region runs, and each element writes only its own places.
*/
#include <stdatomic.h>
#include <string.h>
#include "pp_map.h"

/* The threshold of TM_PM_AUTO when a spec leaves it (< 0), settable from
** R for the threshold benchmark and the tests (-1: TM_PM_APPEND_ABOVE). */
static atomic_long threshold = -1;

long tm_parallel_map_threshold(long above) {
  return atomic_exchange(&threshold, above < 0 ? -1 : above);
}

/* Per participant.  copy[k]: broadcast autodiff operand k of element 0 on
** this slot's tape, made once; its adjoints collect one element's share
** and are zeroed after each element. */
typedef struct pm_slot {
  tm_pm_ops ops;
  tm_v arg[TM_PM_MAXOPS];
  tm_v copy[TM_PM_MAXOPS];
  ad_mark mark;                 /* after the copies: where each element starts */
  int dep;
  char pad[64];                 /* the next slot's hot fields on another cache line */
} pm_slot;

typedef struct pm {
  tm_pm_spec *s;
  int strategy;
  int csize;                    /* linear chunks: elements per chunk */
  int tiles, ntr;               /* tiled chunks: tiles per column of tiles */
  const tm_pm_ops *probe;       /* element 0's layout */
  int K;                        /* autodiff operands per element */
  int adk[TM_PM_MAXOPS];        /* where they are among the operands */
  size_t *m;                    /* their sizes (K) */
  size_t P;                     /* the sum of their sizes: partials per element */
  double *val;                  /* the results' values */
  double *part;                 /* eager: n rows of P partials */
  double **to;                  /* eager: n rows of K adjoint arrays they go to */
  double **src;                 /* append: each result's adjoint, or NULL */
  pm_slot *slot;
} pm;

/* ---- the caller's nodes ---- */

typedef struct pm_node {
  ad_node base;
  int n, K;
  size_t P;
  const size_t *m;
  const double *oadj, *part;
  double *const *to;
} pm_node;

static void pm_chain(ad_node *self) {
  const pm_node *p = (const pm_node *)self;
  for (int i = 0; i < p->n; i++) {
    double g = p->oadj[i];
    if (g == 0.0) continue;
    const double *row = p->part + (size_t)i * p->P;
    double *const *to = p->to + (size_t)i * (size_t)p->K;
    for (int k = 0; k < p->K; k++) {
      double *t = to[k];
      for (size_t j = 0; j < p->m[k]; j++) t[j] += g * row[j];
      row += p->m[k];
    }
  }
}

typedef struct pm_pack {
  ad_node base;
  int n;
  const double *oadj;
  double *const *src;
} pm_pack;

static void pm_pack_chain(ad_node *self) {
  const pm_pack *p = (const pm_pack *)self;
  for (int i = 0; i < p->n; i++)
    if (p->src[i]) *p->src[i] += p->oadj[i];
}

/* ---- participants ---- */

static int oom(void) { return ad_fail(AD_EMEMORY, "out of memory"); }

static int copy_leaves(const tm_v *v, tm_v *out) {
  *out = *v;
  if (ad_leaves(tm_numel(v), v->val, &out->val, &out->adj)) return oom();
  return AD_OK;
}

static int pm_begin(pp_region *g, int slot) {
  pm *w = g->ctx;
  pm_slot *sl = &w->slot[slot];
  int rc;
  sl->dep = 0;
  if (w->s->begin && (rc = w->s->begin(w->s->ctx, slot))) return rc;
  memset(sl->copy, 0, sizeof sl->copy);
  if (w->strategy == TM_PM_EAGER)
    for (int k = 0; k < w->probe->n; k++)
      if (w->probe->shared[k] && w->probe->v[k].adj && (rc = copy_leaves(&w->probe->v[k], &sl->copy[k])))
        return rc;
  sl->mark = ad_stack_mark(ad_active);
  return AD_OK;
}

/* Element i reads what element 0 reads, in kind and size. */
static int same_layout(const pm *w, int i, const tm_pm_ops *o) {
  const tm_pm_ops *p = w->probe;
  int ok = o->n == p->n;
  for (int k = 0; ok && k < o->n; k++)
    ok = !o->v[k].adj == !p->v[k].adj && (!o->v[k].adj || tm_numel(&o->v[k]) == tm_numel(&p->v[k]));
  if (ok) return AD_OK;
  return ad_fail(AD_EINVALID, "parallel map: element %d reads operands that differ in number, size "
                 "or kind from those of element 1", i + 1);
}

static int pm_one(pm *w, int slot, int i) {
  pm_slot *sl = &w->slot[slot];
  tm_pm_ops *o = &sl->ops;
  tm_pm_spec *s = w->s;
  tm_v y;
  int rc;
  o->n = 0;
  memset(o->shared, 0, sizeof o->shared);
  if ((rc = s->index(s->ctx, i, o))) return rc;
  if ((rc = same_layout(w, i, o))) return rc;

  if (w->strategy == TM_PM_APPEND) {
    /* the element's tape stays: it is appended to the caller's */
    if ((rc = s->apply(s->ctx, slot, i, o->v, o->n, &y))) return rc;
    w->val[i] = tm_get(&y, 0);
    w->src[i] = y.adj;
    return AD_OK;
  }
  if (w->strategy == TM_PM_VALUES) {
    if ((rc = s->apply(s->ctx, slot, i, o->v, o->n, &y))) return rc;
    w->val[i] = tm_get(&y, 0);
    sl->dep |= y.dep || y.adj;
    ad_stack_rewind(ad_active, &sl->mark);
    return AD_OK;
  }

  /* eager: copies of what this element reads, a sweep of its piece of tape */
  for (int k = 0; k < o->n; k++) {
    const tm_v *v = &o->v[k];
    if (!v->adj) sl->arg[k] = *v;
    else if (o->shared[k] && sl->copy[k].adj && v->val == w->probe->v[k].val) sl->arg[k] = sl->copy[k];
    else if ((rc = copy_leaves(v, &sl->arg[k]))) return rc;
  }
  if ((rc = s->apply(s->ctx, slot, i, sl->arg, o->n, &y))) return rc;
  w->val[i] = tm_get(&y, 0);
  double *row = w->part + (size_t)i * w->P;
  double **to = w->to + (size_t)i * (size_t)w->K;
  ad_stack *st = ad_active;
  if (y.adj) {
    *y.adj = 1.0;
    for (size_t j = st->nchain; j-- > sl->mark.nchain; ) st->chain[j]->chain(st->chain[j]);
  }
  for (int kk = 0; kk < w->K; kk++) {
    int k = w->adk[kk];
    size_t m = w->m[kk];
    to[kk] = o->v[k].adj;
    if (y.adj) memcpy(row, sl->arg[k].adj, m * sizeof *row);
    else memset(row, 0, m * sizeof *row);
    /* the slot's copy collects the next element's share from zero */
    if (y.adj && sl->arg[k].adj == sl->copy[k].adj) memset(sl->copy[k].adj, 0, m * sizeof *row);
    row += m;
  }
  ad_stack_rewind(st, &sl->mark);
  return AD_OK;
}

static int pm_chunk(pp_region *g, int slot, int c) {
  pm *w = g->ctx;
  tm_pm_spec *s = w->s;
  int rc;
  if (w->tiles) {
    int R = s->rows, C = s->n / s->rows;
    int r0 = (c % w->ntr) * s->grain_rows, c0 = (c / w->ntr) * s->grain_cols;
    int r1 = r0 + s->grain_rows < R ? r0 + s->grain_rows : R;
    int c1 = c0 + s->grain_cols < C ? c0 + s->grain_cols : C;
    for (int j = c0; j < c1; j++)
      for (int i = r0; i < r1; i++)
        if ((rc = pm_one(w, slot, i + j * R))) return rc;
    return AD_OK;
  }
  int from = c * w->csize, to = from + w->csize < s->n ? from + w->csize : s->n;
  for (int i = from; i < to; i++)
    if ((rc = pm_one(w, slot, i))) return rc;
  return AD_OK;
}

/* ---- the opener ---- */

int tm_parallel_map_slots(const tm_pm_spec *s) {
  int p = s->nthreads > 0 ? s->nthreads : pp_threads();
  return p < PP_MAX_SLOTS ? (p < 1 ? 1 : p) : PP_MAX_SLOTS;
}

/* Elements per linear chunk: grainsize is a lower bound; four chunks per
** thread balance uneven elements without paying much per chunk. */
static int chunk_size(int n, int grain, int slots) {
  int p = slots, workers = pp_pool_size();
  if (p > workers + 1) p = workers + 1;
  if (p <= 1) return n > grain ? n : grain;
  long want = ((long)n + 4L * p - 1) / (4L * p);
  return want > grain ? (int)want : grain;
}

static int new_out(const tm_pm_spec *s, int ad, tm_v *out) {
  int rc = s->rows > 0 ? tm_new_matrix(out, s->rows, s->n / s->rows, ad) : tm_new_vector(out, s->n, ad);
  return rc ? oom() : AD_OK;
}

int tm_parallel_map_spec(tm_pm_spec *s, tm_v *out) {
  pm w;
  int rc;
  memset(&w, 0, sizeof w);
  w.s = s;
  s->used = 0;
  if (s->n < 0 || !s->index || !s->apply)
    return ad_fail(AD_EINVALID, "parallel map: %s", s->n < 0 ? "negative size" : "no index or apply function");
  if (s->rows < 0 || (s->rows > 0 && s->n % s->rows))
    return ad_fail(AD_EINVALID, "parallel map: %d elements do not make %d rows", s->n, s->rows);
  w.tiles = s->rows > 0 && s->grain_rows > 0 && s->grain_cols > 0;
  if (!w.tiles && s->grainsize < 1)
    return ad_fail(AD_EINVALID, "parallel map: grainsize must be at least 1, but is %d", s->grainsize);
  if (s->n == 0) {
    s->used = TM_PM_VALUES;
    return new_out(s, 0, out);
  }

  /* element 0's layout decides the strategy and sizes the partials */
  tm_pm_ops *probe = ad_alloc(sizeof *probe);
  if (!probe) return oom();
  memset(probe, 0, sizeof *probe);
  if ((rc = s->index(s->ctx, 0, probe))) return rc;
  if (probe->n < 0 || probe->n > TM_PM_MAXOPS)
    return ad_fail(AD_EINVALID, "parallel map: %d operands per element (at most %d)", probe->n, TM_PM_MAXOPS);
  w.probe = probe;
  size_t shared_reals = 0;
  if (!(w.m = ad_alloc((size_t)(probe->n ? probe->n : 1) * sizeof *w.m))) return oom();
  for (int k = 0; k < probe->n; k++) {
    if (!probe->v[k].adj) continue;
    size_t m = tm_numel(&probe->v[k]);
    w.adk[w.K] = k;
    w.m[w.K++] = m;
    w.P += m;
    if (probe->shared[k]) shared_reals += m;
  }
  long set = atomic_load_explicit(&threshold, memory_order_relaxed);
  long above = s->append_above >= 0 ? s->append_above : set >= 0 ? set : TM_PM_APPEND_ABOVE;
  if (w.K == 0) w.strategy = TM_PM_VALUES;
  else if (s->strategy == TM_PM_EAGER || s->strategy == TM_PM_APPEND) w.strategy = s->strategy;
  else w.strategy = shared_reals > (size_t)above ? TM_PM_APPEND : TM_PM_EAGER;

  int slots = tm_parallel_map_slots(s), nchunks;
  if (w.tiles) {
    int C = s->n / s->rows;
    w.ntr = (s->rows + s->grain_rows - 1) / s->grain_rows;
    nchunks = w.ntr * ((C + s->grain_cols - 1) / s->grain_cols);
  } else {
    w.csize = chunk_size(s->n, s->grainsize, slots);
    nchunks = (int)(((long)s->n + w.csize - 1) / w.csize);
  }

  /* what the participants write, on the caller's tape */
  if ((rc = new_out(s, w.strategy != TM_PM_VALUES, out))) return rc;
  w.val = out->val;
  if (!(w.slot = ad_alloc((size_t)slots * sizeof *w.slot))) return oom();
  if (w.strategy == TM_PM_EAGER) {
    w.part = ad_alloc_doubles((size_t)s->n * w.P + 1);
    w.to = ad_alloc((size_t)s->n * (size_t)w.K * sizeof *w.to);
    if (!w.part || !w.to) return oom();
  } else if (w.strategy == TM_PM_APPEND) {
    if (!(w.src = ad_alloc((size_t)s->n * sizeof *w.src))) return oom();
  }

  pp_region g = { .nchunks = nchunks, .nthreads = slots, .begin = pm_begin, .chunk = pm_chunk, .ctx = &w };
  if ((rc = pp_region_run(&g))) return rc;
  s->used = w.strategy;
  if (w.strategy == TM_PM_VALUES) {
    for (int k = 0; k < g.nslots; k++) out->dep |= (unsigned char)w.slot[k].dep;
    pp_region_release(&g);
    return AD_OK;
  }
  out->dep = 1;
  if (w.strategy == TM_PM_APPEND) {
    /* slot order, so the caller's tape is the same for a given schedule */
    for (int k = 0; k < g.nslots; k++)
      if ((rc = ad_scoped_append_to_parent(g.stack[k]))) { pp_region_release(&g); return rc; }
    pp_region_release(&g);
    pm_pack *p = ad_node_new(sizeof *p, pm_pack_chain);
    if (!p) return oom();
    p->n = s->n; p->oadj = out->adj; p->src = w.src;
    return AD_OK;
  }
  pp_region_release(&g);
  pm_node *p = ad_node_new(sizeof *p, pm_chain);
  if (!p) return oom();
  p->n = s->n; p->K = w.K; p->P = w.P; p->m = w.m;
  p->oadj = out->adj; p->part = w.part; p->to = w.to;
  return AD_OK;
}
