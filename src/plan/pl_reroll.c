/*
** pl_reroll.c -- loops kept as loops.
**
** The recorder traces every iteration of a loop, so a plan is as long as
** the work.  A loop whose iterations did the same instructions, on cells
** that move from one iteration to the next by a fixed step (or by a table:
** `a[county[n]]`), is written back as one body of instructions and a count:
** a PL_LOOP.  The replay runs its body lane by lane (pl_lanes.c): each
** instruction over every iteration, then the next instruction.
**
** That order must give the bits of the unrolled order.  Two accesses to one
** cell by iterations s < t, by body instructions j and k, keep their order
** when j <= k.  When j > k and one of them writes (in the reverse pass an
** adjoint sum is a write, since the order of a floating-point sum is its
** value), the loop has a recurrence or a shared sum in the wrong order.  A
** recurrence stays unrolled; a shared adjoint sum is taken apart, each
** addition into a cell of its own, merged in the unrolled order (loops in
** parts, below).  So garch's and an HMM's recurrences replay as traced,
** and `y[n] ~ normal(a[county[n]] + b * x[n], sigma)` becomes one pass per
** instruction over all n.
*/
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "pl_int.h"
#include "../math/prob/tm_dens_elem.h"
#ifdef PL_DEBUG_LOOPS
#include <stdio.h>
#endif

#define PL_LANES_MIN 4      /* fewer iterations stay unrolled */

/* Whether loops run opcode op lane by lane (pl_ops.h's lanes). */
static int lane_op(int op) { return pl_op_lanes(op) != PL_LANES_NO; }

/* A one-element gather or store names its element by an offset array of
** its own, a new one in each iteration: the element goes into the cell
** numbers instead, which then step from iteration to iteration. */
static void canonical(pl_plan *p) {
  for (size_t k = 0; k < p->nins; k++) {
    pl_ins *i = &p->ins[k];
    if (i->n != 1 || i->x == PL_NONE) continue;
    if (i->op == PL_GATHER && i->a != PL_NONE && i->aa != PL_NONE) {
      const size_t *offs = p->ptrs[i->x];
      i->a += (uint32_t)offs[0];
      i->aa += (uint32_t)offs[0];
      i->op = PL_COPY;
      i->x = PL_NONE;
    } else if (i->op == PL_STORE && i->o != PL_NONE && i->oa != PL_NONE) {
      const size_t *offs = p->ptrs[i->x];
      i->o += (uint32_t)offs[0];
      i->oa += (uint32_t)offs[0];
      i->x = PL_NONE;
    }
  }
}

/* ---- the order check ---- */

typedef struct cellst { int64_t it; int32_t curw, cura, prevw, preva; } cellst;

/* an adjoint cell's sums over a loop to be cut in parts (partition) */
typedef struct sumst { int64_t it; int32_t grp; uint8_t multi, dup, bad; uint32_t n, idx; } sumst;

typedef struct chk {
  cellst *st[3];            /* V, A, P */
  uint8_t *skipA;           /* adjoint sums a loop in parts merges apart (PL_AMERGE) */
  sumst *sum;               /* per A cell, made when first needed; touched cells listed */
  uint32_t *sumt;
  size_t nsumt, capsumt;
  uint32_t size[3];
  struct { uint8_t space; uint32_t cell; } *touched;
  size_t ntouched, captouched;
  int bad;
} chk;

enum { SP_V, SP_A, SP_P };

static void acc(chk *c, int sp, uint32_t cell, int write, int64_t it, int32_t j) {
  if (c->bad) return;
  if (cell == PL_NONE || cell >= c->size[sp]) { c->bad = 1; return; }
  if (sp == SP_A && c->skipA[cell]) return;
  cellst *s = &c->st[sp][cell];
  if (s->it < 0) {
    if (pl_grow(&c->touched, c->ntouched, &c->captouched, sizeof *c->touched, 1024)) { c->bad = 1; return; }
    c->touched[c->ntouched].space = (uint8_t)sp;
    c->touched[c->ntouched++].cell = cell;
    s->prevw = s->preva = s->curw = s->cura = -1;
    s->it = it;
  } else if (s->it != it) {
    if (s->curw > s->prevw) s->prevw = s->curw;
    if (s->cura > s->preva) s->preva = s->cura;
    s->curw = s->cura = -1;
    s->it = it;
  }
  /* an earlier iteration's access by a later instruction comes after this
     one lane by lane */
  if (write ? s->preva > j : s->prevw > j) { c->bad = 1; return; }
  if (write && j > s->curw) s->curw = j;
  if (j > s->cura) s->cura = j;
}

static void acc_n(chk *c, int sp, uint32_t cell, uint32_t n, int write, int64_t it, int32_t j) {
  for (uint32_t k = 0; k < n; k++) acc(c, sp, cell + k, write, it, j);
}

/* What instruction i reads and writes: V forward, P forward, A backward,
** as its fields' roles (pl_ops.h) say. */
static void visit(chk *c, const pl_plan *p, const pl_ins *i, int64_t it, int32_t j) {
  if (!lane_op(i->op)) { c->bad = 1; return; }
  const size_t *offs = pl_role(i->op, PL_F_X) == PL_R_OFFS && i->x != PL_NONE ? p->ptrs[i->x] : NULL;
  uint32_t n = i->n;
  for (int f = 0; f < PL_NF; f++) {
    uint32_t u = pl_fieldc(i, f);
    switch (pl_role(i->op, f)) {
    case PL_R_V: acc(c, SP_V, u, 0, it, j); break;
    case PL_R_VN: acc_n(c, SP_V, u, n, 0, it, j); break;
    case PL_R_VG: for (uint32_t k = 0; k < n; k++) acc(c, SP_V, u + (uint32_t)offs[k], 0, it, j); break;
    case PL_R_VO: acc(c, SP_V, u, 1, it, j); break;
    case PL_R_VON: acc_n(c, SP_V, u, n, 1, it, j); break;
    case PL_R_VOS:
      for (uint32_t k = 0; k < n; k++) acc(c, SP_V, u + (uint32_t)(offs ? offs[k] : k), 1, it, j);
      break;
    case PL_R_AO: acc(c, SP_A, u, 0, it, j); break;
    case PL_R_AON: acc_n(c, SP_A, u, n, 0, it, j); break;
    case PL_R_AOS:     /* handed on and zeroed: a write */
      for (uint32_t k = 0; k < n; k++) acc(c, SP_A, u + (uint32_t)(offs ? offs[k] : k), 1, it, j);
      break;
    case PL_R_AF: if (i->flags & pl_flag_bit(f)) acc(c, SP_A, u, 1, it, j); break;
    case PL_R_A1: acc(c, SP_A, u, 1, it, j); break;
    case PL_R_AN: acc_n(c, SP_A, u, n, 1, it, j); break;
    case PL_R_AG: for (uint32_t k = 0; k < n; k++) acc(c, SP_A, u + (uint32_t)offs[k], 1, it, j); break;
    case PL_R_AS: if (u != PL_NONE) acc_n(c, SP_A, u, n, 1, it, j); break;
    case PL_R_P1: acc(c, SP_P, u, 1, it, j); break;
    case PL_R_P2: acc_n(c, SP_P, u, 2, 1, it, j); break;
    case PL_R_P3: acc_n(c, SP_P, u, 3, 1, it, j); break;
    case PL_R_PN: acc_n(c, SP_P, u, n, 1, it, j); break;
    case PL_R_PF:
      if (i->flags & 1) acc(c, SP_P, u, 1, it, j);
      if (i->flags & 2) acc(c, SP_P, u + 1, 1, it, j);
      break;
    case PL_R_PE: acc_n(c, SP_P, u, (uint32_t)((const pl_elem *)p->ptrs[n])->nargs, 1, it, j); break;
    case PL_R_ELEM: {
      const pl_elem *el = p->ptrs[u];
      for (int k = 0; k < el->nargs; k++) if (el->v[k] != PL_NONE) acc(c, SP_V, el->v[k], 0, it, j);
      for (int k = 0; k < el->nargs; k++) if (el->need >> k & 1u) acc(c, SP_A, el->a[k], 1, it, j);
      break;
    }
    default:
      break;
    }
  }
}

static void chk_reset(chk *c) {
  for (size_t k = 0; k < c->ntouched; k++) c->st[c->touched[k].space][c->touched[k].cell].it = -1;
  c->ntouched = 0;
  c->bad = 0;
}

static int chk_init(chk *c, const pl_plan *p) {
  memset(c, 0, sizeof *c);
  c->size[SP_V] = p->nv; c->size[SP_A] = p->na; c->size[SP_P] = p->np;
  for (int s = 0; s < 3; s++) {
    c->st[s] = malloc((c->size[s] ? c->size[s] : 1) * sizeof(cellst));
    if (!c->st[s]) return AD_EMEMORY;
    for (uint32_t k = 0; k < c->size[s]; k++) c->st[s][k].it = -1;
  }
  if (!(c->skipA = calloc(c->size[SP_A] ? c->size[SP_A] : 1, 1))) return AD_EMEMORY;
  return AD_OK;
}

static void chk_free(chk *c) {
  for (int s = 0; s < 3; s++) free(c->st[s]);
  free(c->skipA);
  free(c->sum);
  free(c->sumt);
  free(c->touched);
}

/* ---- one loop ---- */

/* The same mass with the same settings and argument types. */
static int same_elem(const pl_elem *x, const pl_elem *y) {
  if (x->def != y->def || x->nargs != y->nargs || x->propto != y->propto || x->keep != y->keep ||
      x->need != y->need)
    return 0;
  for (int k = 0; k < x->nargs; k++)
    if (x->arg[k].base != y->arg[k].base) return 0;
  return 1;
}

/* The same instruction in every iteration, but for its operands: the same
** opcode, flags, counts and immediates, functions and masses. */
static int same_kind(const pl_plan *p, const pl_ins *a, const pl_ins *b) {
  if (a->op != b->op || a->flags != b->flags) return 0;
  for (int f = 0; f < PL_NF; f++) {
    uint32_t x = pl_fieldc(a, f), y = pl_fieldc(b, f);
    switch (pl_role(a->op, f)) {
    case PL_R_CNT: case PL_R_IMM:
      if (x != y) return 0;
      break;
    case PL_R_FN:
      if (p->ptrs[x] != p->ptrs[y]) return 0;
      break;
    case PL_R_ELEM:
      if (!same_elem(p->ptrs[x], p->ptrs[y])) return 0;
      break;
    default:
      break;
    }
  }
  return 1;
}

/* Same offsets (a gather or store of several elements). */
static int same_offs(const pl_plan *p, const pl_ins *a, const pl_ins *b) {
  if (a->x == b->x) return 1;
  if (a->x == PL_NONE || b->x == PL_NONE) return 0;
  return !memcmp(p->ptrs[a->x], p->ptrs[b->x], a->n * sizeof(size_t));
}

/* The adjoint targets of an instruction (bit k: aa, ba, ca) that its
** reverse step adds to, one cell each, when its lane may sum them in a
** register (pl_ops.h's ACC). */
static unsigned targets(const pl_ins *i) {
  static const int tf[3] = { PL_F_AA, PL_F_BA, PL_F_CA };
  unsigned t = 0;
  if (pl_op_lanes(i->op) != PL_LANES_ACC) return 0;
  for (int k = 0; k < 3; k++) {
    int r = pl_role(i->op, tf[k]);
    if (r == PL_R_A1 || (r == PL_R_AF && (i->flags & pl_flag_bit(tf[k])))) t |= 1u << k;
  }
  return t;
}

/* Whether cell c is base + t * step for some t < n. */
static int in_lane(int64_t c, int64_t base, int64_t step, uint32_t n) {
  if (step == 0) return c == base;
  int64_t d = c - base;
  if (d % step) return 0;
  d /= step;
  return d >= 0 && d < (int64_t)n;
}

/* Which of instruction i's targets can sum in a register over the lane: the
** same cell in every iteration, and no other cell of the lane's adjoints is
** it, so only that sum touches it, in the unrolled order. */
static unsigned register_sums(const pl_ins *i, const pl_lane *ln, uint32_t n) {
  static const int tf[3] = { PL_F_AA, PL_F_BA, PL_F_CA };
  unsigned t = targets(i), acc = 0;
  if (ln->tables || !t) return 0;
  for (int k = 0; k < 3; k++) {
    if (!(t >> k & 1u) || ln->step[tf[k]] != 0) continue;
    int64_t c = pl_fieldc(i, tf[k]);
    int ok = !in_lane(c, pl_fieldc(i, PL_F_OA), ln->step[PL_F_OA], n);
    for (int m = 0; m < 3 && ok; m++)
      if (m != k && (t >> m & 1u)) ok = !in_lane(c, pl_fieldc(i, tf[m]), ln->step[tf[m]], n);
    if (ok) acc |= 1u << k;
  }
  return acc;
}

/* What a loop chosen becomes: its loops (a part each, or the one) and,
** for parts, the merges of the adjoints they share (lp NULL: A[cell] gets
** the n cells of tab). */
typedef struct seg { pl_loop *lp; size_t src; const uint32_t *tab; uint32_t cell, n; } seg;
typedef struct built { size_t from, to; seg *segs; size_t nsegs; } built;

/* What instruction i is, for the report, when it has no lane: its name
** in pl_ops.h, a call's by its function. */
static const char *op_name(const pl_plan *p, const pl_ins *i) {
  const char *name = pl_op_name(i->op);
  if (name || pl_role(i->op, PL_F_X) != PL_R_CALL) return name ? name : "an operation without a lane";
  const pl_call *c = &p->calls[i->x];
  if (c->kind == PL_K_INVOKE) return ((const tm_fn *)c->fn)->name;
  if (c->kind == PL_K_TRANSFORM) return "a constraint transform";
  if (c->kind == PL_K_HOF) return ((const ln_expr *)((const pl_hof *)c->fn)->site)->name;
  return "a checked constraint";
}

/* ---- loops in parts ----
** A loop whose iterations take one of a few branches on data (censored and
** observed rows, zeros and counts) records a few kinds of iteration.  Each
** kind becomes a loop of its own over its iterations, the kinds one after
** the other (in the order of their first iteration).  The order check is
** the same with each access keyed by (kind, instruction): two accesses to
** one cell from iterations s < t keep their order when s's key is not
** above t's.  An adjoint that iterations of several kinds add to (sigma's,
** a shared intercept's) would be summed in another order, so each of those
** iterations adds into a cell of its own instead, and a PL_AMERGE before
** the parts adds those cells to the adjoint in the unrolled order in the
** reverse pass: the bits of the unrolled sum.  That needs one addition
** into the adjoint per iteration, by an instruction whose target can be
** moved (arithmetic, functions, normal, log_mix, masses). */

#define PL_PARTS_MAX 8

typedef struct redir { size_t ins; int field, elemk; } redir;   /* elemk >= 0: a mass's argument */
typedef struct shared { uint32_t cell; size_t from, count; } shared;

typedef struct parts {
  uint32_t ng;
  uint32_t *grp;              /* each iteration's kind */
  uint32_t *size;             /* iterations of each kind */
  size_t *first;              /* each kind's first iteration */
  redir *rd;                  /* the additions moved, per shared adjoint, iterations in order */
  shared *sh;
  size_t nsh, nrd;
} parts;

static void parts_free(parts *q) {
  free(q->grp); free(q->size); free(q->first); free(q->rd); free(q->sh);
  memset(q, 0, sizeof *q);
}

static size_t iter_len(const pl_loopseen *l, uint32_t t) {
  return (t + 1 < l->n ? l->iter[t + 1] : l->end) - l->iter[t];
}

/* The adjoint sums instruction i adds into: cells, and how each is named
** (field, or a mass's argument); *fixed set when it adds into others that
** cannot be moved (copies, gathers, stores, log_sum_exp). */
static int sums_of(const pl_plan *p, const pl_ins *i, uint32_t cell[4], int field[4], int elemk[4], int *fixed) {
  static const int tf[3] = { PL_F_AA, PL_F_BA, PL_F_CA };
  int m = 0;
  *fixed = 0;
  int ra = pl_role(i->op, PL_F_AA);
  if (pl_role(i->op, PL_F_N) == PL_R_ELEM) {
    const pl_elem *el = p->ptrs[i->n];
    for (int k = 0; k < el->nargs; k++)
      if (el->need >> k & 1u) { cell[m] = el->a[k]; field[m] = -1; elemk[m++] = k; }
    return m;
  }
  if (ra == PL_R_AN || ra == PL_R_AG || ra == PL_R_AS) { *fixed = 1; return 0; }
  unsigned t = targets(i);
  for (int k = 0; k < 3; k++)
    if (t >> k & 1u) { cell[m] = pl_fieldc(i, tf[k]); field[m] = tf[k]; elemk[m++] = -1; }
  return m;
}

/* Lists cell k among those partition set (once); 0 when memory ran out. */
static int touch_sum(chk *c, uint32_t k) {
  if (c->sum[k].it >= 0 || c->sum[k].bad) return 1;
  if (pl_grow(&c->sumt, c->nsumt, &c->capsumt, sizeof *c->sumt, 256)) return 0;
  c->sumt[c->nsumt++] = k;
  return 1;
}

/* Loop l as parts (PL_WHY_PARTS), or why not. */
static int partition(const pl_plan *p, const pl_loopseen *l, chk *c, parts *q, const char **detail) {
  uint32_t n = l->n;
  memset(q, 0, sizeof *q);
  q->grp = malloc(n * sizeof *q->grp);
  q->size = calloc(PL_PARTS_MAX, sizeof *q->size);
  q->first = malloc(PL_PARTS_MAX * sizeof *q->first);
  if (!q->grp || !q->size || !q->first) { parts_free(q); return PL_WHY_SHAPE; }
  size_t maxlen = 0;
  for (uint32_t t = 0; t < n; t++) {
    size_t len = iter_len(l, t);
    uint32_t g = 0;
    for (; g < q->ng; g++) {
      uint32_t r = (uint32_t)q->first[g];
      if (iter_len(l, r) != len) continue;
      size_t j = 0;
      while (j < len && same_kind(p, &p->ins[l->iter[r] + j], &p->ins[l->iter[t] + j])) j++;
      if (j == len) break;
    }
    if (g == q->ng) {
      if (q->ng == PL_PARTS_MAX || len == 0) { parts_free(q); return PL_WHY_SHAPE; }
      for (size_t j = 0; j < len; j++)
        if (!lane_op(p->ins[l->iter[t] + j].op)) {
          *detail = op_name(p, &p->ins[l->iter[t] + j]);
          parts_free(q);
          return PL_WHY_OP;
        }
      q->first[q->ng++] = t;
      if (len > maxlen) maxlen = len;
    }
    q->grp[t] = g;
    q->size[g]++;
  }
  if (maxlen >= ((size_t)1 << 27)) { parts_free(q); return PL_WHY_COST; }
  /* the adjoint sums of several kinds: one addition per iteration, none
     that cannot move, and nothing else in the loop reads them */
  if (!c->sum) {
    if (!(c->sum = malloc((p->na ? p->na : 1) * sizeof *c->sum))) { parts_free(q); return PL_WHY_SHAPE; }
    for (uint32_t k = 0; k < p->na; k++) { memset(&c->sum[k], 0, sizeof *c->sum); c->sum[k].it = -1; }
  }
  sumst *st = c->sum;
  c->nsumt = 0;
  int why = PL_WHY_PARTS;
  uint32_t cell[4];
  int field[4], elemk[4], fixed;
  for (uint32_t t = 0; t < n; t++)
    for (size_t j = 0, len = iter_len(l, t); j < len; j++) {
      const pl_ins *i = &p->ins[l->iter[t] + j];
      int m = sums_of(p, i, cell, field, elemk, &fixed);
      for (int k = 0; k < m; k++) {
        if (cell[k] == PL_NONE || cell[k] >= p->na) { why = PL_WHY_ORDER; continue; }
        sumst *x = &st[cell[k]];
        if (x->it < 0) {
          if (!touch_sum(c, cell[k])) { why = PL_WHY_SHAPE; continue; }
          x->it = t; x->grp = (int32_t)q->grp[t]; x->n = 1;
          continue;
        }
        if (x->grp != (int32_t)q->grp[t]) x->multi = 1;
        if (x->it == (int64_t)t) x->dup = 1;
        x->it = t;
        x->n++;
      }
      /* other accesses to adjoints (an output's read, sums that cannot
         move): such a cell cannot be merged apart */
      if (pl_role(i->op, PL_F_X) == PL_R_OFFS && i->x != PL_NONE) {
        why = PL_WHY_SHAPE;             /* cells by offsets: not followed here */
        continue;
      }
      int roa = pl_role(i->op, PL_F_OA);
      uint32_t no = roa == PL_R_AON || roa == PL_R_AOS ? i->n : 1;
      for (uint32_t k = 0; k < no && i->oa != PL_NONE; k++)
        if (i->oa + k < p->na && touch_sum(c, i->oa + k)) st[i->oa + k].bad = 1;
      for (uint32_t k = 0; fixed && k < i->n && i->aa != PL_NONE; k++)
        if (i->aa + k < p->na && touch_sum(c, i->aa + k)) st[i->aa + k].bad = 1;
    }
  if (why == PL_WHY_PARTS) {
    size_t nsh = 0, nrd = 0;
    for (size_t u = 0; u < c->nsumt; u++) {
      uint32_t k = c->sumt[u];
      if (st[k].it >= 0 && (st[k].multi || st[k].dup)) {
        if (st[k].bad) { why = PL_WHY_ORDER; break; }
        nsh++;
        nrd += st[k].n;
      }
    }
    if (why == PL_WHY_PARTS && nsh) {
      q->sh = malloc(nsh * sizeof *q->sh);
      q->rd = malloc(nrd * sizeof *q->rd);
      if (!q->sh || !q->rd) why = PL_WHY_SHAPE;
    }
    if (why == PL_WHY_PARTS && nsh) {
      size_t at = 0;
      for (size_t u = 0; u < c->nsumt; u++) {
        uint32_t k = c->sumt[u];
        if (!(st[k].it >= 0 && (st[k].multi || st[k].dup))) continue;
        {
          st[k].idx = (uint32_t)q->nsh;
          q->sh[q->nsh].cell = k;
          q->sh[q->nsh].from = at;
          q->sh[q->nsh++].count = 0;
          at += st[k].n;
          c->skipA[k] = 1;
        }
      }
      q->nrd = nrd;
      for (uint32_t t = 0; t < n; t++)
        for (size_t j = 0, len = iter_len(l, t); j < len; j++) {
          const pl_ins *i = &p->ins[l->iter[t] + j];
          int m = sums_of(p, i, cell, field, elemk, &fixed);
          /* an instruction's own sums run in argument order: listed last
             first, so that the merge, walking the list backwards, adds
             them in the order the unrolled reverse pass did */
          for (int k = m; k-- > 0;) {
            if (st[cell[k]].it < 0 || !(st[cell[k]].multi || st[cell[k]].dup)) continue;
            shared *h = &q->sh[st[cell[k]].idx];
            redir *r = &q->rd[h->from + h->count++];
            r->ins = l->iter[t] + j;
            r->field = field[k];
            r->elemk = elemk[k];
          }
        }
    }
  }
  for (size_t u = 0; u < c->nsumt; u++) {
    memset(&st[c->sumt[u]], 0, sizeof *st);
    st[c->sumt[u]].it = -1;
  }
  c->nsumt = 0;
  if (why == PL_WHY_PARTS && q->ng == 1 && !q->nsh) why = PL_WHY_ORDER;   /* nothing gained */
  if (why == PL_WHY_PARTS) {
    /* the order check with each access keyed by (kind, instruction) */
    for (uint32_t t = 0; t < n && !c->bad; t++)
      for (size_t j = 0, len = iter_len(l, t); j < len && !c->bad; j++)
        visit(c, p, &p->ins[l->iter[t] + j], t, (int32_t)(q->grp[t] * maxlen + j));
    if (c->bad) why = PL_WHY_ORDER;
    chk_reset(c);
  }
  for (size_t k = 0; k < q->nsh; k++) c->skipA[q->sh[k].cell] = 0;
  if (why != PL_WHY_PARTS) parts_free(q);
  else if (q->ng == 1) why = PL_WHY_LANES;     /* one kind: a loop whose shared sums merge apart */
  return why;
}

/* Whether loop l can run lane by lane (PL_WHY_LANES): every iteration the
** same instructions, and the order check passes; else why not (*detail:
** the operation, for PL_WHY_OP). */
static int why_not(const pl_plan *p, const pl_loopseen *l, chk *c, const char **detail, parts *q) {
  uint32_t n = l->n;
  *detail = NULL;
  if (!n) return PL_WHY_NONE;
  if (l->end == l->iter[0]) return PL_WHY_DATA;
  if (n < PL_LANES_MIN) return PL_WHY_FEW;
  size_t len = l->iter[1] - l->iter[0];
  int same = 1;
  for (uint32_t t = 0; t < n && same; t++) same = iter_len(l, t) == len;
  const pl_ins *b0 = &p->ins[l->iter[0]];
  for (size_t j = 0; j < len && same; j++)
    for (uint32_t t = 1; t < n && same; t++) same = same_kind(p, &b0[j], &p->ins[l->iter[t] + j]);
  if (!same) return partition(p, l, c, q, detail);
  for (size_t j = 0; j < len; j++)
    if (!lane_op(b0[j].op)) { *detail = op_name(p, &b0[j]); return PL_WHY_OP; }
  if (len > UINT32_MAX) return PL_WHY_COST;
  /* the order check, on the unrolled instructions */
  for (uint32_t t = 0; t < n && !c->bad; t++)
    for (size_t j = 0; j < len && !c->bad; j++) visit(c, p, &p->ins[l->iter[t] + j], t, (int32_t)j);
  int bad = c->bad;
  chk_reset(c);
  /* an adjoint that two instructions of the body add to: their sums
     merged apart, as for a loop in parts */
  if (bad) return partition(p, l, c, q, detail);
  return bad ? PL_WHY_ORDER : PL_WHY_LANES;
}

/* Body instruction j of loop l, a PL_ELEM, as a pl_elemlane: each
** argument's cells or values per iteration, and P cells to gather the real
** arguments in (the lane's checks see them as arrays); NULL when memory ran
** out or the plan would outgrow its cell numbers. */
static const pl_elemlane *elem_lane(pl_plan *p, const pl_loopseen *l, size_t j) {
  uint32_t n = l->n;
  pl_elemlane *E = pl_mem(&p->mem, sizeof *E);
  if (!E) return NULL;
  memset(E, 0, sizeof *E);
  E->el = p->ptrs[p->ins[l->iter[0] + j].n];
  int nreal = 0;
  for (int k = 0; k < E->el->nargs; k++) {
    int isint = E->el->arg[k].base == TM_INT, need = E->el->need >> k & 1u;
    uint32_t *v = NULL, *a = NULL;
    int *iv = NULL;
    if (isint && !(iv = pl_mem(&p->mem, (size_t)n * sizeof *iv))) return NULL;
    if (!isint && !(v = pl_mem(&p->mem, (size_t)n * sizeof *v))) return NULL;
    if (need && !(a = pl_mem(&p->mem, (size_t)n * sizeof *a))) return NULL;
    for (uint32_t t = 0; t < n; t++) {
      const pl_elem *et = p->ptrs[p->ins[l->iter[t] + j].n];
      if (iv) iv[t] = et->arg[k].ival[0];
      if (v) v[t] = et->v[k];
      if (a) a[t] = et->a[k];
    }
    E->ival[k] = iv;
    E->v[k] = v;
    E->a[k] = a;
    nreal += !isint;
  }
  /* a mass with a lanes form (elem_def.terms) takes its values and
     partials in two more rows of scratch */
  const elem_def *def = E->el->def;
  int rows = nreal + (def->terms ? 2 : 0);
  if ((uint64_t)p->np + (uint64_t)rows * n >= PL_NONE) return NULL;
  E->scratch = p->np;
  p->np += (uint32_t)rows * n;
  /* register sums: one adjoint cell over the lane, met by no other argument
     and not the lane's own output adjoints */
  for (int k = 0; k < E->el->nargs; k++) {
    if (!E->a[k]) continue;
    uint32_t c = E->a[k][0];
    int ok = c != PL_NONE;
    for (uint32_t t = 1; t < n && ok; t++) ok = E->a[k][t] == c;
    for (int m = 0; m < E->el->nargs && ok; m++)
      if (m != k && E->a[m])
        for (uint32_t t = 0; t < n && ok; t++) ok = E->a[m][t] != c;
    for (uint32_t t = 0; t < n && ok; t++) ok = p->ins[l->iter[t] + j].oa != c;
    if (ok) E->acc |= 1u << k;
  }
  return E;
}

/* The body of loop l (why_not gave PL_WHY_LANES; or a part: the iterations
** l->iter of one kind) as a pl_loop of len instructions; NULL when memory
** ran out. */
static pl_loop *build_loop(pl_plan *p, const pl_loopseen *l, size_t len) {
  uint32_t n = l->n;
  const pl_ins *b0 = &p->ins[l->iter[0]];
  /* steps, or tables */
  pl_loop *lp = pl_mem(&p->mem, sizeof *lp);
  pl_lane *lane = pl_mem(&p->mem, len * sizeof *lane);
  if (!lp || !lane) return NULL;
  lp->n = n;
  lp->len = (uint32_t)len;
  lp->lane = lane;
  for (size_t j = 0; j < len; j++) {
    pl_lane *ln = &lane[j];
    memset(ln, 0, sizeof *ln);
    const pl_ins *i0 = &b0[j];
    int offs_shared = 1;
    if (pl_role(i0->op, PL_F_X) == PL_R_OFFS)
      for (uint32_t t = 1; t < n && offs_shared; t++) offs_shared = same_offs(p, i0, &p->ins[l->iter[t] + j]);
    for (int f = 0; f < PL_NF; f++) {
      int role = pl_role(i0->op, f);
      if (role == PL_R_OFFS && offs_shared) continue;
      /* functions, counts and immediates: the same in every iteration */
      if (role == PL_R_FN || role == PL_R_CNT || role == PL_R_IMM) continue;
      int64_t f0 = pl_fieldc(i0, f);
      int64_t step = n > 1 ? (int64_t)pl_fieldc(&p->ins[l->iter[1] + j], f) - f0 : 0;
      int affine = 1;
      for (uint32_t t = 2; t < n && affine; t++)
        affine = (int64_t)pl_fieldc(&p->ins[l->iter[t] + j], f) == f0 + (int64_t)t * step;
      if (affine) { ln->step[f] = step; continue; }
      uint32_t *tab = pl_mem(&p->mem, (size_t)n * sizeof *tab);
      if (!tab) return NULL;
      for (uint32_t t = 0; t < n; t++) tab[t] = pl_fieldc(&p->ins[l->iter[t] + j], f);
      ln->tab[f] = tab;
      ln->tables = 1;
    }
    ln->acc = register_sums(i0, ln, n);
    if (pl_role(i0->op, PL_F_N) == PL_R_ELEM && !(ln->elem = elem_lane(p, l, j))) return NULL;
  }
  return lp;
}

/* What a region of the plan costs a replay, roughly, in instructions run
** one by one: a lane costs a few to set up and half of one per iteration
** (irt_2pl's 20 items by 100 persons is better as 20 loops over persons
** than as one loop over items with 600 lanes of 20). */
static double lane_cost(const pl_loopseen *l, const parts *q) {
  if (!q->ng) return (double)(l->iter[1] - l->iter[0]) * (4.0 + 0.5 * l->n) + 2.0;
  double c = 0.25 * (double)q->nrd + (double)q->nsh;    /* a merge's add: a load and an add */
  for (uint32_t g = 0; g < q->ng; g++)
    c += (double)iter_len(l, (uint32_t)q->first[g]) * (4.0 + 0.5 * q->size[g]) + 2.0;
  return c;
}

/* Which loops to keep as loops: each loop's choice is the cheaper of
** itself rerolled and its region unrolled with its inner loops' choices.
** want[k] set for the loops chosen (an inner loop of a chosen loop is
** part of its body), why[k] the reason for the report. */
static int choose(const pl_plan *p, const pl_loopseen *loops, size_t nloops, chk *c, unsigned char *want,
                  int *why, const char **detail, parts *pt) {
  double *best = malloc(nloops * sizeof *best), *inner = calloc(nloops, sizeof *inner);
  size_t *parent = malloc(nloops * sizeof *parent), *stack = malloc(nloops * sizeof *stack);
  if (!best || !inner || !parent || !stack) { free(best); free(inner); free(parent); free(stack); return AD_EMEMORY; }
  size_t ns = 0;
  for (size_t k = 0; k < nloops; k++) {
    size_t from = loops[k].n ? loops[k].iter[0] : loops[k].end;
    while (ns && !(from >= (loops[stack[ns - 1]].n ? loops[stack[ns - 1]].iter[0] : loops[stack[ns - 1]].end) &&
                   loops[k].end <= loops[stack[ns - 1]].end && loops[k].depth > loops[stack[ns - 1]].depth))
      ns--;
    parent[k] = ns ? stack[ns - 1] : SIZE_MAX;
    stack[ns++] = k;
  }
  /* inner loops come after their loop: from the last, each loop's cost
     is known before its parent's */
  for (size_t k = nloops; k-- > 0;) {
    const pl_loopseen *l = &loops[k];
    size_t size = l->n ? l->end - l->iter[0] : 0;
    double unrolled = (double)size + inner[k];
    want[k] = 0;
    best[k] = unrolled;
    why[k] = why_not(p, l, c, &detail[k], &pt[k]);
    if (why[k] == PL_WHY_LANES || why[k] == PL_WHY_PARTS) {
      double lanes = lane_cost(l, &pt[k]);
      if (lanes < unrolled) { want[k] = 1; best[k] = lanes; }
      else {
        why[k] = inner[k] < 0 ? PL_WHY_INNER : PL_WHY_COST;
        parts_free(&pt[k]);
      }
    }
    if (parent[k] != SIZE_MAX) inner[parent[k]] += best[k] - (double)size;
  }
  free(best); free(inner); free(parent); free(stack);
  return AD_OK;
}

/* Each loop's verdict in p->notes, one note per for statement (its runs
** summed). */
static int take_notes(pl_plan *p, const pl_loopseen *loops, size_t nloops, const int *why,
                      const char **detail) {
  pl_loopnote *notes = pl_mem(&p->mem, nloops * sizeof *notes);
  if (!notes) return AD_EMEMORY;
  uint32_t nn = 0;
  for (size_t k = 0; k < nloops; k++) {
    const pl_loopseen *l = &loops[k];
    pl_loopnote *q = NULL;
    for (uint32_t m = nn; m-- > 0 && !q;)
      if (notes[m].line == l->line && notes[m].col == l->col) q = &notes[m];
    if (!q) {
      q = &notes[nn++];
      memset(q, 0, sizeof *q);
      q->line = l->line;
      q->col = l->col;
      q->why = PL_WHY_LANES;
      if (l->var && !(q->var = pl_strdup(&p->mem, l->var))) return AD_EMEMORY;
    }
    q->runs++;
    q->iters += l->n;
    if (why[k] == PL_WHY_LANES || why[k] == PL_WHY_INSIDE || why[k] == PL_WHY_PARTS) {
      q->lanes++;
      if (why[k] == PL_WHY_PARTS && q->why == PL_WHY_LANES) q->why = PL_WHY_PARTS;
    } else if (q->why == PL_WHY_LANES || (q->why == PL_WHY_NONE && why[k] != PL_WHY_NONE)) {
      q->why = why[k];
      q->detail = NULL;
      if (detail[k] && !(q->detail = pl_strdup(&p->mem, detail[k]))) return AD_EMEMORY;
    }
  }
  p->notes = notes;
  p->nnotes = nn;
  return AD_OK;
}

/* Loop l in parts q: the adjoint sums of several kinds moved to cells of
** their own (one per iteration, new A cells) with a merge each, then a
** pl_loop per kind over its iterations. */
static int build_parts(pl_plan *p, const pl_loopseen *l, const parts *q, built *d) {
  d->segs = malloc((q->nsh + q->ng) * sizeof *d->segs);
  if (!d->segs) return AD_EMEMORY;
  d->nsegs = 0;
  for (size_t k = 0; k < q->nsh; k++) {
    const shared *h = &q->sh[k];
    if ((uint64_t)p->na + h->count >= PL_NONE) return AD_EMEMORY;
    uint32_t *tab = pl_mem(&p->mem, (h->count ? h->count : 1) * sizeof *tab);
    if (!tab) return AD_EMEMORY;
    for (size_t m = 0; m < h->count; m++) {
      const redir *r = &q->rd[h->from + m];
      uint32_t cell = p->na++;
      tab[m] = cell;
      if (r->elemk >= 0) ((pl_elem *)p->ptrs[p->ins[r->ins].n])->a[r->elemk] = cell;
      else *pl_field(&p->ins[r->ins], r->field) = cell;
    }
    d->segs[d->nsegs++] = (seg){ NULL, 0, tab, h->cell, (uint32_t)h->count };
  }
  for (uint32_t g = 0; g < q->ng; g++) {
    size_t *it = malloc(q->size[g] * sizeof *it);
    if (!it) return AD_EMEMORY;
    uint32_t m = 0;
    for (uint32_t t = 0; t < l->n; t++) if (q->grp[t] == g) it[m++] = l->iter[t];
    pl_loopseen part = *l;
    part.iter = it;
    part.n = m;
    pl_loop *lp = build_loop(p, &part, iter_len(l, (uint32_t)q->first[g]));
    free(it);
    if (!lp) return AD_EMEMORY;
    d->segs[d->nsegs++] = (seg){ lp, l->iter[q->first[g]], NULL, 0, 0 };
  }
  return AD_OK;
}

int pl_reroll(pl_plan *p, const pl_loopseen *loops, size_t nloops, int lanes) {
  canonical(p);
  if (!nloops) return AD_OK;
  int *why = malloc(nloops * sizeof *why);
  const char **detail = calloc(nloops, sizeof *detail);
  if (!why || !detail) { free(why); free(detail); return AD_EMEMORY; }
  if (!lanes) {
    for (size_t k = 0; k < nloops; k++) why[k] = loops[k].n ? PL_WHY_OFF : PL_WHY_NONE;
    int rc = take_notes(p, loops, nloops, why, detail);
    free(why); free(detail);
    return rc;
  }
  chk c;
  built *done = calloc(nloops, sizeof *done);
  unsigned char *want = malloc(nloops);
  parts *pt = calloc(nloops, sizeof *pt);
  int rc = chk_init(&c, p);
  if (!done || !want || !pt) rc = AD_EMEMORY;
  if (!rc) rc = choose(p, loops, nloops, &c, want, why, detail, pt);
  size_t ndone = 0, covered = 0;
  for (size_t k = 0; k < nloops && !rc; k++) {
    const pl_loopseen *l = &loops[k];
    size_t from = l->n ? l->iter[0] : l->end;
    if (from < covered) { why[k] = PL_WHY_INSIDE; continue; }
    if (!want[k]) continue;
    built *d = &done[ndone++];
    d->from = l->iter[0];
    d->to = l->end;
    if (pt[k].ng) {
      if ((rc = build_parts(p, l, &pt[k], d))) break;
    } else {
      pl_loop *lp = build_loop(p, l, l->iter[1] - l->iter[0]);
      if (!lp || !(d->segs = malloc(sizeof *d->segs))) { rc = AD_EMEMORY; break; }
      d->segs[0] = (seg){ lp, l->iter[0], NULL, 0, 0 };
      d->nsegs = 1;
    }
    covered = l->end;
#ifdef PL_DEBUG_LOOPS
    for (size_t m = 0; m < d->nsegs; m++) {
      const pl_loop *lp = d->segs[m].lp;
      if (!lp) { fprintf(stderr, "merge cell=%u n=%u\n", d->segs[m].cell, d->segs[m].n); continue; }
      for (size_t j = 0; j < lp->len; j++) {
        const pl_ins *q = &p->ins[d->segs[m].src + j];
        fprintf(stderr, "loop n=%u j=%zu op=%d flags=%d n=%u tables=%d steps o%lld a%lld b%lld c%lld x%lld\n", lp->n, j, q->op, q->flags, q->n, lp->lane[j].tables,
                (long long)lp->lane[j].step[0], (long long)lp->lane[j].step[2], (long long)lp->lane[j].step[4], (long long)lp->lane[j].step[6], (long long)lp->lane[j].step[8]);
      }
    }
#endif
  }
  chk_free(&c);
  free(want);
  if (pt) for (size_t k = 0; k < nloops; k++) parts_free(&pt[k]);
  free(pt);
  if (!rc) rc = take_notes(p, loops, nloops, why, detail);
  free(why);
  free(detail);
  if (rc || !ndone) {
    for (size_t k = 0; done && k < ndone; k++) free(done[k].segs);
    free(done);
    return rc;
  }
  /* the new instructions: each loop kept is, for each of its segments, a
     merge, or a header, the first iteration's instructions as the body's
     bases, and an end */
  size_t nins = p->nins, out = 0, nseg = 0, nlp = 0;
  for (size_t k = 0; k < ndone; k++) {
    nins -= done[k].to - done[k].from;
    for (size_t m = 0; m < done[k].nsegs; m++) nins += done[k].segs[m].lp ? done[k].segs[m].lp->len + 2 : 1;
    nseg += done[k].nsegs;
  }
  pl_ins *ins = malloc((nins ? nins : 1) * sizeof *ins);
  const void **ptrs = realloc((void *)p->ptrs, (p->nptrs + nseg) * sizeof *ptrs);
  if (ptrs) p->ptrs = ptrs;
  if (!ins || !ptrs) {
    free(ins);
    for (size_t k = 0; k < ndone; k++) free(done[k].segs);
    free(done);
    return AD_EMEMORY;
  }
  size_t at = 0;
  for (size_t k = 0; k < ndone; k++) {
    memcpy(ins + out, p->ins + at, (done[k].from - at) * sizeof *ins);
    out += done[k].from - at;
    for (size_t m = 0; m < done[k].nsegs; m++) {
      const seg *sg = &done[k].segs[m];
      uint32_t x = (uint32_t)p->nptrs;
      pl_ins *h = &ins[out++];
      memset(h, 0, sizeof *h);
      h->o = h->oa = h->a = h->aa = h->b = h->ba = h->c = h->ca = PL_NONE;
      h->x = x;
      if (!sg->lp) {
        p->ptrs[p->nptrs++] = sg->tab;
        h->op = PL_AMERGE;
        h->aa = sg->cell;
        h->n = sg->n;
        continue;
      }
      p->ptrs[p->nptrs++] = sg->lp;
      h->op = PL_LOOP;
      h->n = sg->lp->n;
      h->b = sg->lp->len;
      memcpy(ins + out, p->ins + sg->src, sg->lp->len * sizeof *ins);
      out += sg->lp->len;
      pl_ins *e = &ins[out++];
      *e = *h;
      e->op = PL_LOOP_END;
      nlp++;
    }
    at = done[k].to;
    free(done[k].segs);
  }
  memcpy(ins + out, p->ins + at, (p->nins - at) * sizeof *ins);
  out += p->nins - at;
  free(p->ins);
  p->ins = ins;
  p->nins = out;
  p->nloops = (uint32_t)nlp;
  free(done);
  return AD_OK;
}
