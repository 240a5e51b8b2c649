/*
** pl_lanes.c -- a loop kept as a loop (pl_reroll.c), run lane by lane:
** each body instruction over every iteration, then the next; backwards,
** the last instruction over every iteration from the last, then the one
** before.  The instruction is pl_step.h's, with its operand fields for
** iteration t; called with a constant op, its switch folds away and each
** lane is a tight loop.
*/
#include "pl_step.h"

PL_INLINE uint32_t at(uint32_t base, const pl_lane *l, int f, uint32_t t) {
  return l->tab[f] ? l->tab[f][t] : (uint32_t)((int64_t)base + (int64_t)t * l->step[f]);
}

/* instruction b's fields in iteration t */
PL_INLINE void lane_ins(pl_ins *u, const pl_ins *b, const pl_lane *l, uint32_t t) {
  *u = *b;
  u->o = at(b->o, l, PL_F_O, t);
  u->oa = at(b->oa, l, PL_F_OA, t);
  u->a = at(b->a, l, PL_F_A, t);
  u->aa = at(b->aa, l, PL_F_AA, t);
  u->b = at(b->b, l, PL_F_B, t);
  u->ba = at(b->ba, l, PL_F_BA, t);
  u->c = at(b->c, l, PL_F_C, t);
  u->ca = at(b->ca, l, PL_F_CA, t);
  u->x = at(b->x, l, PL_F_X, t);
  u->n = at(b->n, l, PL_F_N, t);
}

/* Each lane's loop: with steps alone, the fields advance by adding (the
** fields an instruction does not read cost nothing once inlined); with
** tables, each field is looked up. */
#define STEPS                                                      \
  uint32_t s0 = (uint32_t)l->step[0], s1 = (uint32_t)l->step[1],   \
           s2 = (uint32_t)l->step[2], s3 = (uint32_t)l->step[3],   \
           s4 = (uint32_t)l->step[4], s5 = (uint32_t)l->step[5],   \
           s6 = (uint32_t)l->step[6], s7 = (uint32_t)l->step[7],   \
           s8 = (uint32_t)l->step[8], s9 = (uint32_t)l->step[9]
#define ADVANCE(u)                                                 \
  do {                                                             \
    (u).o += s0; (u).oa += s1; (u).a += s2; (u).aa += s3;          \
    (u).b += s4; (u).ba += s5; (u).c += s6; (u).ca += s7;          \
    (u).x += s8; (u).n += s9;                                      \
  } while (0)

/* the fields with tables, looked up in iteration t (their steps are 0) */
#define TABLES                                                     \
  const uint32_t *T0 = l->tab[0], *T1 = l->tab[1], *T2 = l->tab[2], \
                 *T3 = l->tab[3], *T4 = l->tab[4], *T5 = l->tab[5], \
                 *T6 = l->tab[6], *T7 = l->tab[7], *T8 = l->tab[8], \
                 *T9 = l->tab[9]
#define LOOKUP(u, t)                                               \
  do {                                                             \
    if (T0) (u).o = T0[t];                                         \
    if (T1) (u).oa = T1[t];                                        \
    if (T2) (u).a = T2[t];                                         \
    if (T3) (u).aa = T3[t];                                        \
    if (T4) (u).b = T4[t];                                         \
    if (T5) (u).ba = T5[t];                                        \
    if (T6) (u).c = T6[t];                                         \
    if (T7) (u).ca = T7[t];                                        \
    if (T8) (u).x = T8[t];                                         \
    if (T9) (u).n = T9[t];                                         \
  } while (0)

#define FWD(OP)                                                   \
  case OP:                                                        \
    if (!l->tables) {                                             \
      STEPS;                                                      \
      u = *b;                                                     \
      for (uint32_t t = 0; t < n; t++) {                          \
        if ((rc = pl_fwd1(p, &u, OP, V, P, &memo))) return rc;    \
        ADVANCE(u);                                               \
      }                                                           \
    } else {                                                      \
      STEPS;                                                      \
      TABLES;                                                     \
      u = *b;                                                     \
      for (uint32_t t = 0; t < n; t++) {                          \
        LOOKUP(u, t);                                             \
        if ((rc = pl_fwd1(p, &u, OP, V, P, &memo))) return rc;    \
        ADVANCE(u);                                               \
      }                                                           \
    }                                                             \
    break;

/* A lane of PL_ELEM: the real arguments gathered into the lane's P cells,
** the mass's checks once on the whole lane (as arrays: they pass exactly
** when every iteration's would; a failure sends the evaluation to the
** tree, which says where), then the terms; the values and partials are
** pl_elem_term's, as in the scalar replay. */
static int elem_fwd(const pl_ins *b, const pl_lane *l, uint32_t n, double *V, double *P) {
  const pl_elemlane *E = l->elem;
  const pl_elem *el = E->el;
  int nargs = el->nargs;
  tm_v a[4];
  const double *x[4] = { NULL, NULL, NULL, NULL };
  double *s = P + E->scratch;
  for (int k = 0; k < nargs; k++) {
    a[k] = el->arg[k];              /* a scalar's shape, as an array of n */
    a[k].narr = 1;
    a[k].dim[0] = (int)n;
    if (E->ival[k]) {
      a[k].ival = (int *)E->ival[k];
      continue;
    }
    const uint32_t *v = E->v[k];
    for (uint32_t t = 0; t < n; t++) s[t] = V[v[t]];
    a[k].val = s;
    x[k] = s;
    s += n;
  }
  if (pl_elem_check(el, a, n)) return AD_EDOMAIN;
  const elem_def *def = el->def;
  if (def->terms && el->keep) {   /* an int outcome and one real argument, on vector lanes */
    double *lp = s, *d = s + n;
    int need = el->need >> 1 & 1u;
    def->terms(E->ival[0], x[1], lp, d, n);
    for (uint32_t t = 0; t < n; t++) {
      double *pt = P + at(b->x, l, PL_F_X, t);
      pt[0] = 0;
      pt[1] = need ? 0 + d[t] : 0;   /* pl_elem_term's sum: -0 becomes 0 */
      V[at(b->o, l, PL_F_O, t)] = lp[t];
    }
    return AD_OK;
  }
  elem e;
  e.keep = el->keep;
  e.need = el->need;
  for (uint32_t t = 0; t < n; t++) {
    if (e.keep)
      for (int k = 0; k < nargs; k++) e.x[k] = x[k] ? x[k][t] : (double)E->ival[k][t];
    pl_elem_term(el, &e, P + at(b->x, l, PL_F_X, t), &V[at(b->o, l, PL_F_O, t)]);
  }
  return AD_OK;
}

/* A lane of PL_UNARY without tables: of one argument in every iteration,
** evaluated once; of a function with neither a domain check nor a memo,
** pl_fwd1's value and partial in a plain loop.  0 when the lane is neither
** (*rc: a failed check). */
static int unary_fwd(const pl_plan *p, const pl_ins *b, const pl_lane *l, uint32_t n, double *V, double *P,
                     int *rc) {
  const tm_unary_def *d = p->ptrs[b->b];
  int64_t so = l->step[PL_F_O], sa = l->step[PL_F_A], sx = l->step[PL_F_X];
  int64_t o = b->o, a = b->a, x = b->x;
  *rc = AD_OK;
  if (!l->tables && sa == 0 && n > 0) {
    /* the same argument in every iteration (square(alpha) in a loop): one
       evaluation, its value and partial copied to every lane */
    pl_memo memo;
    pl_memo_init(&memo);
    if ((*rc = pl_fwd1(p, b, PL_UNARY, V, P, &memo))) return 1;
    double f = V[o], df = P[x];
    for (uint32_t t = 1; t < n; t++) {
      V[o + (int64_t)t * so] = f;
      P[x + (int64_t)t * sx] = df;
    }
    return 1;
  }
  if (l->tables || d->bad || d->memo) return 0;
  for (uint32_t t = 0; t < n; t++, o += so, a += sa, x += sx) {
    double v = V[a], f = d->f(v);
    V[o] = f;
    P[x] = d->df(v, f);
  }
  return 1;
}

/* pl_ops.h's lanes column: which opcodes each switch below has a case for */
#define FWD_NO(OP)
#define FWD_FWD(OP) FWD(OP)
#define FWD_BOTH(OP) FWD(OP)
#define FWD_ACC(OP) FWD(OP)

int pl_lanes_fwd(const pl_plan *p, const pl_ins *hdr, double *V, double *P) {
  const pl_loop *lp = p->ptrs[hdr->x];
  return pl_lanes_body_fwd(p, lp, hdr + 1, lp->n, V, P);
}

int pl_lanes_body_fwd(const pl_plan *p, const pl_loop *lp, const pl_ins *body, uint32_t n, double *V, double *P) {
  pl_memo memo;
  pl_memo_init(&memo);
  pl_ins u;
  int rc;
  for (uint32_t j = 0; j < lp->len; j++) {
    const pl_ins *b = body + j;
    const pl_lane *l = &lp->lane[j];
    if (l->elem) {
      if ((rc = elem_fwd(b, l, n, V, P))) return rc;
      continue;
    }
    if (b->op == PL_UNARY && unary_fwd(p, b, l, n, V, P, &rc)) {
      if (rc) return rc;
      continue;
    }
    switch (b->op) {
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) FWD_##lanes(op)
#include "pl_ops.h"
#undef PL_OP
    default:
      return AD_EINVALID;
    }
  }
  return AD_OK;
}

/* backwards: from the last iteration's fields, stepping down */
#define RETREAT(u)                                                 \
  do {                                                             \
    (u).o -= s0; (u).oa -= s1; (u).a -= s2; (u).aa -= s3;          \
    (u).b -= s4; (u).ba -= s5; (u).c -= s6; (u).ca -= s7;          \
    (u).x -= s8; (u).n -= s9;                                      \
  } while (0)

#define REV(OP)                                                   \
  case OP:                                                        \
    if (!l->tables) {                                             \
      STEPS;                                                      \
      lane_ins(&u, b, l, n - 1);                                  \
      for (uint32_t t = n; t-- > 0;) {                            \
        pl_rev1(p, &u, OP, A, P);                                 \
        RETREAT(u);                                               \
      }                                                           \
    } else {                                                      \
      STEPS;                                                      \
      TABLES;                                                     \
      lane_ins(&u, b, l, n - 1);                                  \
      for (uint32_t t = n; t-- > 0;) {                            \
        LOOKUP(u, t);                                             \
        pl_rev1(p, &u, OP, A, P);                                 \
        RETREAT(u);                                               \
      }                                                           \
    }                                                             \
    break;

/* A reverse lane whose targets (acc) are one cell each over the lane: the
** sums run in registers, in the unrolled order, stored once at the end.
** The contribution of each target is pl_rev1's expression for it. */
#define ACC(OP, K, CONTRIB)                                         \
  do {                                                              \
    double c_ = (CONTRIB);                                          \
    if (acc >> (K) & 1u) r[K] += c_;                                \
    else A[K == 0 ? u.aa : K == 1 ? u.ba : u.ca] += c_;             \
  } while (0)

#define REVACC(OP)                                                          \
  case OP: {                                                                \
    STEPS;                                                                  \
    unsigned acc = l->acc, t3 = OP == PL_UNARY ? 1u : b->flags;             \
    double r[3];                                                            \
    r[0] = acc & 1u ? A[b->aa] : 0;                                         \
    r[1] = acc & 2u ? A[b->ba] : 0;                                         \
    r[2] = acc & 4u ? A[b->ca] : 0;                                         \
    lane_ins(&u, b, l, n - 1);                                              \
    for (uint32_t t = n; t-- > 0;) {                                        \
      double a = A[u.oa];                                                   \
      if (OP == PL_ADD) {                                                   \
        if (t3 & 1u) ACC(OP, 0, a);                                         \
        if (t3 & 2u) ACC(OP, 1, a);                                         \
      } else if (OP == PL_SUB) {                                            \
        if (t3 & 1u) ACC(OP, 0, a);                                         \
        if (t3 & 2u) ACC(OP, 1, a * -1.0);                                  \
      } else {                                                              \
        if (t3 & 1u) ACC(OP, 0, a * P[u.x]);                                \
        if (t3 & 2u) ACC(OP, 1, a * P[u.x + 1]);                            \
        if ((OP == PL_NORMAL || OP == PL_LOGMIX) && (t3 & 4u))              \
          ACC(OP, 2, a * P[u.x + 2]);                                       \
      }                                                                     \
      RETREAT(u);                                                           \
    }                                                                       \
    if (acc & 1u) A[b->aa] = r[0];                                          \
    if (acc & 2u) A[b->ba] = r[1];                                          \
    if (acc & 4u) A[b->ca] = r[2];                                          \
    break;                                                                  \
  }

/* A lane of PL_ELEM backwards: pl_rev1's sums in its order (iterations
** from the last, arguments in order), the sums into one cell over the lane
** in registers. */
static void elem_rev(const pl_ins *b, const pl_lane *l, uint32_t n, double *A, const double *P) {
  const pl_elemlane *E = l->elem;
  const pl_elem *el = E->el;
  int nargs = el->nargs;
  unsigned acc = E->acc;
  unsigned need = el->need;
  if (need && !(need & (need - 1)) && !l->tab[PL_F_OA] && !l->tab[PL_F_X]) {
    /* one argument wants partials (the common case: a mass of data given
       one expression): one stream of products, the same sums in the same
       order without the per-argument tests */
    int k = 0;
    while (!(need >> k & 1u)) k++;
    const uint32_t *ak = E->a[k];
    int64_t so = l->step[PL_F_OA], sx = l->step[PL_F_X];
    int64_t oa = at(b->oa, l, PL_F_OA, n - 1), px = (int64_t)at(b->x, l, PL_F_X, n - 1) + k;
    if (acc >> k & 1u) {
      double r = A[ak[0]];
      for (uint32_t t = n; t-- > 0; oa -= so, px -= sx) r += A[oa] * P[px];
      A[ak[0]] = r;
    } else {
      for (uint32_t t = n; t-- > 0; oa -= so, px -= sx) A[ak[t]] += A[oa] * P[px];
    }
    return;
  }
  double r[4] = { 0, 0, 0, 0 };
  for (int k = 0; k < nargs; k++)
    if (acc >> k & 1u) r[k] = A[E->a[k][0]];
  for (uint32_t t = n; t-- > 0;) {
    uint32_t oa = at(b->oa, l, PL_F_OA, t), px = at(b->x, l, PL_F_X, t);
    double g = A[oa];
    for (int k = 0; k < nargs; k++) {
      if (!(el->need >> k & 1u)) continue;
      if (acc >> k & 1u) r[k] += g * P[px + k];
      else A[E->a[k][t]] += g * P[px + k];
    }
  }
  for (int k = 0; k < nargs; k++)
    if (acc >> k & 1u) A[E->a[k][0]] = r[k];
}

#define REV_NO(OP)
#define REV_FWD(OP)
#define REV_BOTH(OP) REV(OP)
#define REV_ACC(OP) REV(OP)
#define REVACC_NO(OP)
#define REVACC_FWD(OP)
#define REVACC_BOTH(OP)
#define REVACC_ACC(OP) REVACC(OP)

void pl_lanes_rev(const pl_plan *p, const pl_ins *hdr, double *A, const double *P) {
  const pl_loop *lp = p->ptrs[hdr->x];
  pl_lanes_body_rev(p, lp, hdr + 1, lp->n, A, P);
}

void pl_lanes_body_rev(const pl_plan *p, const pl_loop *lp, const pl_ins *body, uint32_t n, double *A, const double *P) {
  pl_ins u;
  for (uint32_t j = lp->len; j-- > 0;) {
    const pl_ins *b = body + j;
    const pl_lane *l = &lp->lane[j];
    if (l->elem) {
      elem_rev(b, l, n, A, P);
      continue;
    }
    if (l->acc) {
      switch (b->op) {
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) REVACC_##lanes(op)
#include "pl_ops.h"
#undef PL_OP
      default:
        break;
      }
      continue;
    }
    switch (b->op) {
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) REV_##lanes(op)
#include "pl_ops.h"
#undef PL_OP
    default:
      break;              /* FILL, READ and guards have no reverse */
    }
  }
}
