/*
** pl_compact.c -- the pass that tidies a recorded plan before it is shared.
**
** 1. Scalar reads are dropped where the source keeps its value until the
**    copy's last use (see find_aliases): their readers read the source.
** 2. Constants move to the front of V, in one array, so a replay fills them
**    with one copy.
** Renumbering keeps cells registered together contiguous and in order, so
** every range an instruction names stays a range.
*/
#include <stdlib.h>
#include <string.h>
#include "pl_int.h"

/* The V cells an instruction names, renumbered: its fields whose role
** (pl_ops.h) is a V cell, and the cells the objects it points at hold. */
static void remap_ins(pl_plan *p, pl_ins *i, const uint32_t *map) {
#define M(c) do { if ((c) != PL_NONE) (c) = map[c]; } while (0)
  for (int f = 0; f < PL_NF; f++) {
    uint32_t *fld = pl_field(i, f);
    switch (pl_role(i->op, f)) {
    case PL_R_CELLS: {
      uint32_t *idx = (uint32_t *)p->ptrs[*fld];
      for (uint32_t k = 0; k < i->n; k++) idx[k] = map[idx[k]];
      break;
    }
    case PL_R_ELEM: {
      pl_elem *el = (pl_elem *)p->ptrs[*fld];
      for (int k = 0; k < el->nargs; k++) M(el->v[k]);
      break;
    }
    case PL_R_PMAP: {
      pl_pmap *pm = (pl_pmap *)p->ptrs[*fld];
      for (int k = 0; k < pm->nops; k++) M(pm->ops[k].v);
      break;
    }
    case PL_R_MRECT: {
      pl_maprect *mr = (pl_maprect *)p->ptrs[*fld];
      M(mr->phiv);
      M(mr->thv);
      break;
    }
    case PL_R_RSUM: {
      pl_reduce *rd = (pl_reduce *)p->ptrs[*fld];
      M(rd->xv);
      for (int k = 0; k < rd->nsh; k++) rd->sh[k].v = map[rd->sh[k].v];
      break;
    }
    case PL_R_CALL: {
      pl_call *c = &p->calls[*fld];
      for (int k = 0; k < c->nargs; k++) M(c->args[k].v);
      for (int k = 0; k < c->nout; k++) M(c->out[k].v);
      break;
    }
    default:
      if (pl_role_space(pl_role(i->op, f)) == PL_SP_V) M(*fld);
      break;
    }
  }
#undef M
}

/* Which scalar reads can go.  A read's copy and its source hold the same
** value until a STORE (or another write) changes the source: every use of
** the copy before that may read the source instead.  Library calls may read
** their operands' values again in the reverse pass, after every write, so a
** copy a call uses may go only when nothing writes its source afterwards at
** all.  alias[o] = the cell to read instead (o itself: keep the read). */
typedef struct alias_walk {
  uint32_t *ver, *rd_src, *rd_ver;
  unsigned char *ok, *late;
} alias_walk;

static void use(alias_walk *w, uint32_t u, int late) {
  if (u == PL_NONE || w->rd_src[u] == PL_NONE) return;
  if (late) w->late[u] = 1;
  else if (w->ver[w->rd_src[u]] != w->rd_ver[u]) w->ok[u] = 0;
}

static void use_range(alias_walk *w, uint32_t u, size_t n, int late) {
  if (u == PL_NONE) return;
  for (size_t k = 0; k < n; k++) use(w, u + (uint32_t)k, late);
}

static void wrote(alias_walk *w, uint32_t o, size_t n, const size_t *offs) {
  if (o == PL_NONE) return;
  for (size_t k = 0; k < n; k++) w->ver[o + (offs ? offs[k] : k)]++;
}

static int find_aliases(const pl_plan *p, uint32_t *alias) {
  uint32_t nv = p->nv ? p->nv : 1;
  alias_walk w;
  w.ver = calloc(nv, sizeof *w.ver);
  w.rd_src = malloc(nv * sizeof *w.rd_src);
  w.rd_ver = calloc(nv, sizeof *w.rd_ver);
  w.ok = calloc(nv, 1);
  w.late = calloc(nv, 1);
  if (!w.ver || !w.rd_src || !w.rd_ver || !w.ok || !w.late) {
    free(w.ver); free(w.rd_src); free(w.rd_ver); free(w.ok); free(w.late);
    return AD_EMEMORY;
  }
  for (uint32_t v = 0; v < nv; v++) w.rd_src[v] = PL_NONE;
  for (size_t k = 0; k < p->nins; k++) {
    const pl_ins *i = &p->ins[k];
    if (i->op == PL_READ) {
      use(&w, i->a, 0);
      w.rd_src[i->o] = w.rd_src[i->a] != PL_NONE ? w.rd_src[i->a] : i->a;
      w.rd_ver[i->o] = w.rd_src[i->a] != PL_NONE ? w.rd_ver[i->a] : w.ver[i->a];
      w.ok[i->o] = w.rd_src[i->a] != PL_NONE ? w.ok[i->a] : 1;
      continue;
    }
    /* what it reads, then what it writes (a cell written fresh, as most
       outputs are, has no read of it before: counting it changes nothing) */
    for (int f = 0; f < PL_NF; f++) {
      uint32_t u = pl_fieldc(i, f);
      switch (pl_role(i->op, f)) {
      case PL_R_V: use(&w, u, 0); break;
      case PL_R_VN: use_range(&w, u, i->n, 0); break;
      case PL_R_VG: {
        const size_t *offs = p->ptrs[i->x];
        for (uint32_t j = 0; j < i->n; j++) use(&w, u + (uint32_t)offs[j], 0);
        break;
      }
      case PL_R_CELLS: {
        const uint32_t *idx = p->ptrs[u];
        for (uint32_t j = 0; j < i->n; j++) use(&w, idx[j], 0);
        break;
      }
      case PL_R_ELEM: {
        const pl_elem *el = p->ptrs[u];
        for (int j = 0; j < el->nargs; j++) use(&w, el->v[j], 0);
        break;
      }
      case PL_R_MRECT: {
        const pl_maprect *mr = p->ptrs[u];
        if (mr->phiv != PL_NONE) use_range(&w, mr->phiv, mr->np, 0);
        if (mr->thv != PL_NONE) use_range(&w, mr->thv, (size_t)mr->J * mr->nt, 0);
        break;
      }
      case PL_R_RSUM: {
        const pl_reduce *rd = p->ptrs[u];
        if (rd->xv != PL_NONE) use_range(&w, rd->xv, (size_t)rd->n * rd->es, 0);
        for (int j = 0; j < rd->nsh; j++) use_range(&w, rd->sh[j].v, rd->sh[j].m, 0);
        break;
      }
      case PL_R_PMAP: {
        const pl_pmap *pm = p->ptrs[u];
        for (int j = 0; j < pm->nops; j++)
          if (pm->ops[j].v != PL_NONE)
            use_range(&w, pm->ops[j].v, (i->n - 1) * pm->ops[j].stride + pm->ops[j].m, 0);
        break;
      }
      case PL_R_CALL: {
        /* a call may read its operands again in the reverse pass */
        const pl_call *c = &p->calls[u];
        for (int j = 0; j < c->nargs; j++) use_range(&w, c->args[j].v, tm_numel(&c->args[j].shape), 1);
        break;
      }
      default: break;
      }
    }
    for (int f = 0; f < PL_NF; f++) {
      uint32_t o = pl_fieldc(i, f);
      switch (pl_role(i->op, f)) {
      case PL_R_VO: wrote(&w, o, 1, NULL); break;
      case PL_R_VON: wrote(&w, o, i->n, NULL); break;
      case PL_R_VOS: wrote(&w, o, i->n, i->x == PL_NONE ? NULL : p->ptrs[i->x]); break;
      default: break;
      }
    }
  }
  for (uint32_t v = 0; v < p->nv; v++) {
    alias[v] = v;
    if (w.rd_src[v] == PL_NONE) continue;
    if (w.late[v] && w.ver[w.rd_src[v]] != w.rd_ver[v]) w.ok[v] = 0;
    if (w.ok[v]) alias[v] = w.rd_src[v];
  }
  free(w.ver); free(w.rd_src); free(w.rd_ver); free(w.ok); free(w.late);
  return AD_OK;
}

int pl_compact(pl_plan *p, pl_loopseen *loops, size_t nloops) {
  uint32_t nv = p->nv;
  uint32_t *alias = malloc((size_t)(nv ? nv : 1) * sizeof *alias);
  unsigned char *isconst = calloc(nv ? nv : 1, 1);
  uint32_t *map = malloc((size_t)(nv ? nv : 1) * sizeof *map);
  if (!alias || !isconst || !map) { free(alias); free(isconst); free(map); return AD_EMEMORY; }
  for (uint32_t v = 0; v < nv; v++) alias[v] = v;
  for (size_t k = 0; k < p->nconsts; k++)
    memset(isconst + p->consts[k].at, 1, p->consts[k].n);
  if (find_aliases(p, alias)) { free(alias); free(isconst); free(map); return AD_EMEMORY; }
  size_t out = 0, *before = nloops ? malloc((p->nins + 1) * sizeof *before) : NULL;
  if (nloops && !before) { free(alias); free(isconst); free(map); return AD_EMEMORY; }
  for (size_t k = 0; k < p->nins; k++) {
    pl_ins *i = &p->ins[k];
    if (before) before[k] = out;
    if (i->op == PL_READ && alias[i->o] != i->o) continue;
    p->ins[out++] = *i;
  }
  if (before) {
    before[p->nins] = out;
    for (size_t k = 0; k < nloops; k++) {
      for (uint32_t t = 0; t < loops[k].n; t++) loops[k].iter[t] = before[loops[k].iter[t]];
      loops[k].end = before[loops[k].end];
    }
    free(before);
  }
  p->nins = out;
  /* new numbers: constants first, in order, then the other cells still named */
  uint32_t next = 0, nk = 0;
  for (size_t k = 0; k < p->nconsts; k++)
    for (uint32_t j = 0; j < p->consts[k].n; j++) map[p->consts[k].at + j] = next++;
  nk = next;
  for (uint32_t v = 0; v < nv; v++)
    if (!isconst[v] && alias[v] == v) map[v] = next++;
  for (uint32_t v = 0; v < nv; v++)
    if (alias[v] != v) map[v] = map[alias[v]];
  /* the constants' values, in their new order */
  double *kv = pl_mem(&p->mem, (size_t)(nk ? nk : 1) * sizeof(double));
  if (!kv) { free(alias); free(isconst); free(map); return AD_EMEMORY; }
  for (size_t k = 0; k < p->nconsts; k++)
    memcpy(kv + map[p->consts[k].at], p->consts[k].src, p->consts[k].n * sizeof(double));
  for (size_t k = 0; k < p->nins; k++) remap_ins(p, &p->ins[k], map);
  p->pv = p->npars ? map[p->pv] : 0;
  p->rv = map[p->rv];
  p->nk = nk;
  p->kvals = kv;
  p->nv = next;
  free(alias); free(isconst); free(map);
  return AD_OK;
}
