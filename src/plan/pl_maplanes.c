/*
** pl_maplanes.c -- a parallel_map's elements run as lanes.
**
** The element plan of a PL_PMAP is the same instructions for every element
** (its decisions are guarded), so the elements are a loop whose iterations
** share nothing: each instruction can run over a chunk of elements before
** the next, as pl_lanes.c runs a loop kept as a loop, instead of the whole
** plan once per element.  Each element keeps its own cells: in a chunk of
** PL_MAPLANES elements, value cell c (not a constant) of element e is at
** nk + (c - nk) PL_MAPLANES + e, adjoint cell c at c PL_MAPLANES + e, and
** partial cell c at e np + c (an instruction's partials stay together);
** constants are shared.  Every element does the operations it did alone,
** forward and back, so its value and partials are the bits of
** pl_replay.c's element by element run.  Plans with instructions lanes do
** not run (calls, loops, packs, profiles...) keep that run.
*/
#include "pl_step.h"
#include "../ad/ad.h"

/* elements per chunk: the cells of a chunk stay in cache, and chunks are
** the pieces a chain's threads share */
#define PL_MAPLANES 128

typedef struct pl_maplanes {
  pl_loop loop;               /* lane steps per instruction */
  pl_ins *body;               /* the element plan's instructions at element 0's cells */
  size_t nv, na, np;          /* a chunk's cells */
} pl_maplanes;

/* which cells each field of an instruction names (PL_SP_*, by its role in
** pl_ops.h); 0 when map lanes do not run it */
static int roles(const pl_ins *i, unsigned char r[PL_NF]) {
  for (int f = 0; f < PL_NF; f++) r[f] = (unsigned char)pl_role_space(pl_role(i->op, f));
  return pl_op_maps(i);
}

/* a value cell's place at element 0 of a chunk, and its step */
static uint32_t vcell(const pl_plan *s, uint32_t c, int64_t *step) {
  if (c < s->nk) { *step = 0; return c; }
  *step = 1;
  return s->nk + (c - s->nk) * PL_MAPLANES;
}

const pl_maplanes *pl_maplanes_build(pl_plan *owner, const pl_plan *s) {
  if (s->nprof || s->ncalls || !s->nins) return NULL;
  unsigned char r[PL_NF];
  for (size_t j = 0; j < s->nins; j++)
    if (!roles(&s->ins[j], r)) return NULL;
  /* a chunk's cells must be numbered in 32 bits */
  if ((uint64_t)s->nv * PL_MAPLANES >= PL_NONE || (uint64_t)s->na * PL_MAPLANES >= PL_NONE ||
      (uint64_t)s->np * PL_MAPLANES >= PL_NONE)
    return NULL;
  pl_maplanes *ml = pl_mem(&owner->mem, sizeof *ml);
  pl_ins *body = pl_mem(&owner->mem, s->nins * sizeof *body);
  pl_lane *lane = pl_mem(&owner->mem, s->nins * sizeof *lane);
  if (!ml || !body || !lane) return NULL;
  memset(lane, 0, s->nins * sizeof *lane);
  for (size_t j = 0; j < s->nins; j++) {
    body[j] = s->ins[j];
    roles(&s->ins[j], r);
    for (int f = 0; f < PL_NF; f++) {
      uint32_t *c = pl_field(&body[j], f);
      if (r[f] == PL_SP_NONE || *c == PL_NONE) continue;
      if (r[f] == PL_SP_V) *c = vcell(s, *c, &lane[j].step[f]);
      else if (r[f] == PL_SP_A) { *c *= PL_MAPLANES; lane[j].step[f] = 1; }
      else lane[j].step[f] = s->np;      /* P: c stays, e np added */
    }
  }
  ml->loop.n = PL_MAPLANES;
  ml->loop.len = (uint32_t)s->nins;
  ml->loop.lane = lane;
  ml->body = body;
  ml->nv = s->nk + (size_t)(s->nv - s->nk) * PL_MAPLANES;
  ml->na = (size_t)s->na * PL_MAPLANES;
  ml->np = (size_t)s->np * PL_MAPLANES;
  return ml;
}

uint32_t pl_maplanes_chunks(uint32_t n) { return (n + PL_MAPLANES - 1) / PL_MAPLANES; }

int pl_maplanes_chunk(const pl_pmap *pm, const pl_ins *in, uint32_t chunk, double *V, double *P) {
  const pl_maplanes *ml = pm->lanes;
  const pl_plan *s = pm->sub;
  uint32_t from = chunk * PL_MAPLANES, cnt = in->n - from < PL_MAPLANES ? in->n - from : PL_MAPLANES;
  ad_mark mark = ad_stack_mark(ad_active);
  double *Vl = ad_alloc_doubles(ml->nv ? ml->nv : 1), *Al = ad_alloc_doubles(ml->na ? ml->na : 1),
         *Pl = ad_alloc_doubles(ml->np ? ml->np : 1);
  if (!Vl || !Al || !Pl) {
    ad_stack_rewind(ad_active, &mark);
    return ad_fail(AD_EMEMORY, "out of memory");
  }
  memcpy(Vl, s->kvals, s->nk * sizeof *Vl);
  /* the elements' inputs: operand k's reals j of element from + e */
  for (int k = 0; k < pm->nops; k++) {
    const pl_mapop *o = &pm->ops[k];
    const double *src = (o->v != PL_NONE ? V + o->v : o->c) + (size_t)from * o->stride;
    for (uint32_t j = 0; j < o->m; j++) {
      int64_t st;
      double *dst = Vl + vcell(s, s->pv + o->in + j, &st);
      for (uint32_t e = 0; e < cnt; e++) dst[e] = src[(size_t)e * o->stride + j];
    }
  }
  int rc = pl_lanes_body_fwd(s, &ml->loop, ml->body, cnt, Vl, Pl);
  if (rc) {
    ad_stack_rewind(ad_active, &mark);
    return rc;
  }
  int64_t rst;
  const double *res = Vl + vcell(s, s->rv, &rst);
  for (uint32_t e = 0; e < cnt; e++) V[in->o + from + e] = res[rst * e];
  if (s->ra != PL_NONE) {
    memset(Al, 0, ml->na * sizeof *Al);
    for (uint32_t e = 0; e < cnt; e++) Al[(size_t)s->ra * PL_MAPLANES + e] = 1.0;
    pl_lanes_body_rev(s, &ml->loop, ml->body, cnt, Al, Pl);
  }
  /* each element's partials, as pl_replay.c's element by element run keeps them */
  for (uint32_t e = 0; e < cnt; e++) {
    double *row = P + in->x + (size_t)(from + e) * pm->ptot;
    for (int k = 0; k < pm->nops; k++) {
      const pl_mapop *o = &pm->ops[k];
      if (o->a == PL_NONE) continue;
      for (uint32_t j = 0; j < o->m; j++)
        row[j] = s->ra == PL_NONE ? 0.0 : Al[(size_t)(s->pa + o->in + j) * PL_MAPLANES + e];
      row += o->m;
    }
  }
  ad_stack_rewind(ad_active, &mark);
  return AD_OK;
}
