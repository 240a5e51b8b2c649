/*
** pl_step.h -- one instruction of the plan, forward and back: the code the
** scalar replay (pl_replay.c) and the lanes of a loop (pl_lanes.c) share,
** so a loop run lane by lane does each node's floating-point operations
** exactly as the unrolled plan does.  Only instructions that touch V, A and
** P alone are here; the rest (calls, maps, profiles, loops) are the
** replay's.
**
** Called with a constant op, the switch folds away: a lane loop is a tight
** loop over one kind of node.
*/
#ifndef PL_STEP_H
#define PL_STEP_H

#include <math.h>
#include <string.h>
#include "pl_int.h"
#include "../front/ln.h"
#include "../math/tm_scalar.h"
#include "../math/tm_special.h"
#include "../math/prob/tm_dens_elem.h"

#define PL_OTHER (-1)   /* not an instruction of this file */

/* The lanes need these inlined with a constant op (a call per node would
** cost more than the node). */
#if defined(__GNUC__)
#define PL_INLINE static inline __attribute__((always_inline))
#else
#define PL_INLINE static inline
#endif

/* Logs a replay keeps: loops call normal_lpdf with one sigma and log_mix
** with one theta again and again, and the log of the same double is the
** same double. */
/* A costly unary function's last argument (its bits) and result: a pure
** function of (d, x), so an entry is right whichever plan left it. */
typedef struct pl_unmemo { const void *d; uint64_t x; double fx, dfx; } pl_unmemo;
#define PL_UNMEMO 4

typedef struct pl_memo {
  pl_unmemo un[PL_UNMEMO];    /* PL_UNARY of a tm_unary_def with memo: by P cell, mod 4 */
  double s, log_s;            /* PL_NORMAL: the last sigma and its log */
  uint64_t th;                /* PL_LOGMIX: the last theta's bits (a NaN at first: a theta
                                 that passed the check never has them), its log and log1m */
  double log_th, log1m_th;
} pl_memo;
/* An empty memo.  Field by field: a replay starts one per gradient, and a
** struct initializer compiles to `rep stos`, slow to start for 168 bytes. */
static inline void pl_memo_init(pl_memo *m) {
  for (int k = 0; k < PL_UNMEMO; k++) {
    m->un[k].d = NULL;
    m->un[k].x = 0;
    m->un[k].fx = m->un[k].dfx = 0;
  }
  m->s = NAN;
  m->log_s = 0;
  m->th = UINT64_C(0x7ff8dead0000beef);
  m->log_th = m->log1m_th = 0;
}

static inline int pl_compare(int op, double x, double y) {
  switch (op) {
  case LN_OP_EQ: return x == y;
  case LN_OP_NE: return x != y;
  case LN_OP_LT: return x < y;
  case LN_OP_LE: return x <= y;
  case LN_OP_GT: return x > y;
  default: return x >= y;
  }
}

/* tm_dens_elem.c's kernel, in two steps the scalar replay and the lanes
** share.  The mass's checks on its arguments a, n elements each. */
static inline int pl_elem_check(const pl_elem *el, const tm_v *a, size_t n) {
  const elem_def *def = el->def;
  tm_dens D;
  memset(&D, 0, sizeof D);
  D.fn = el->fn;
  D.a = a;
  D.nargs = el->nargs;
  D.n = n;
  D.propto = el->propto;
  return def->check(&D) ? AD_EDOMAIN : AD_OK;
}

/* One element's term, e's keep, need and (when kept) x set: the log mass to
** *out, the partials to P[0 .. nargs) (0 where not needed). */
static inline void pl_elem_term(const pl_elem *el, elem *e, double *P, double *out) {
  const elem_def *def = el->def;
  double logp = 0;
  if (e->keep) {
    e->d[0] = e->d[1] = e->d[2] = e->d[3] = 0;
    logp += def->term(e);
  }
  for (int i = 0; i < el->nargs; i++) {
    double d = 0;
    if (e->keep && NEED(e, i)) d += e->d[i];
    P[i] = d;
  }
  *out = logp;
}

/* One element: its check, its term. */
static inline int pl_run_elem(const pl_elem *el, const double *V, double *P, double *out) {
  tm_v a[4];
  for (int i = 0; i < el->nargs; i++) {
    a[i] = el->arg[i];
    if (a[i].base != TM_INT) a[i].val = (double *)V + el->v[i];
  }
  if (pl_elem_check(el, a, 1)) return AD_EDOMAIN;
  elem e;
  e.keep = el->keep;
  e.need = el->need;
  if (e.keep)
    for (int i = 0; i < el->nargs; i++) e.x[i] = tm_get(&a[i], 0);
  pl_elem_term(el, &e, P, out);
  return AD_OK;
}

PL_INLINE int pl_fwd1(const pl_plan *p, const pl_ins *i, int op, double *V, double *P, pl_memo *memo) {
  switch (op) {
  case PL_FILL:
    for (uint32_t k = 0; k < i->n; k++) V[i->o + k] = NAN;
    return AD_OK;
  case PL_READ:
    V[i->o] = V[i->a];
    return AD_OK;
  case PL_ADD:
    V[i->o] = V[i->a] + V[i->b];
    return AD_OK;
  case PL_SUB:
    V[i->o] = V[i->a] - V[i->b];
    return AD_OK;
  case PL_MUL: {
    double x = V[i->a], y = V[i->b];
    V[i->o] = x * y;
    P[i->x] = y;
    P[i->x + 1] = x;
    return AD_OK;
  }
  case PL_DIV: {
    double x = V[i->a], y = V[i->b], f = x / y;
    V[i->o] = f;
    P[i->x] = 1 / y;
    P[i->x + 1] = -f / y;
    return AD_OK;
  }
  case PL_COPY:
    if (i->n == 1) V[i->o] = V[i->a];
    else memcpy(V + i->o, V + i->a, i->n * sizeof(double));
    return AD_OK;
  case PL_GATHER: {
    const size_t *offs = p->ptrs[i->x];
    for (uint32_t k = 0; k < i->n; k++) V[i->o + k] = V[i->a + offs[k]];
    return AD_OK;
  }
  case PL_STORE:
    if (i->x == PL_NONE) {
      if (i->n == 1) V[i->o] = V[i->a];
      else memcpy(V + i->o, V + i->a, i->n * sizeof(double));
    }
    else {
      const size_t *offs = p->ptrs[i->x];
      for (uint32_t k = 0; k < i->n; k++) V[i->o + offs[k]] = V[i->a + k];
    }
    return AD_OK;
  case PL_PACK: {
    const uint32_t *idx = p->ptrs[i->x];
    for (uint32_t k = 0; k < i->n; k++) V[i->o + k] = V[idx[k]];
    return AD_OK;
  }
  case PL_SUM: {
    const uint32_t *idx = p->ptrs[i->x];
    double t = 0.0;
    for (uint32_t k = 0; k < i->n; k++) t += V[idx[k]];
    V[i->o] = t;
    return AD_OK;
  }
  case PL_GCMP:
    return pl_compare(i->flags, V[i->a], V[i->b]) != (int)i->n ? PL_GUARD : AD_OK;
  case PL_GTRUTH:
    return (V[i->a] != 0.0) != (int)i->n ? PL_GUARD : AD_OK;
  case PL_UNARY: {
    const tm_unary_def *d = p->ptrs[i->b];
    double x = V[i->a];
    /* a costly function of the same argument as last time (lgamma(beta) in
       every element of a parallel_map): the same value and partial */
    pl_unmemo *m = d->memo ? &memo->un[i->x % PL_UNMEMO] : NULL;
    uint64_t xb;
    memcpy(&xb, &x, sizeof xb);
    if (m && m->d == d && m->x == xb) {
      V[i->o] = m->fx;
      P[i->x] = m->dfx;
      return AD_OK;
    }
    if (d->bad && d->bad(x)) return AD_EDOMAIN;
    double fx = d->f(x), dfx = d->df(x, fx);
    V[i->o] = fx;
    P[i->x] = dfx;
    if (m) *m = (pl_unmemo){ d, xb, fx, dfx };
    return AD_OK;
  }
  case PL_BINARY: {
    const tm_binary_def *d = p->ptrs[i->n];
    double u = V[i->a], v = V[i->b];
    if (d->check && d->check("", "", u, v)) return AD_EDOMAIN;
    double f = d->f(u, v);
    V[i->o] = f;
    if (i->flags & 1) P[i->x] = d->dx(u, v, f);
    if (i->flags & 2) P[i->x + 1] = d->dy(u, v, f);
    return AD_OK;
  }
  case PL_NORMAL: {
    /* prob/tm_normal.c's normal_body for one element, operation for operation */
    double y = V[i->a], mu = V[i->b], s = V[i->c];
    if (isnan(y) || !isfinite(mu) || !(s > 0)) return AD_EDOMAIN;
    double inv_s = 1 / s, z = (y - mu) * inv_s, g = z * inv_s, zz = 0;
    zz += z * z;
    double gy = 0, gmu = 0;
    gy -= g;
    gmu += g;
    P[i->x] = gy;
    P[i->x + 1] = gmu;
    P[i->x + 2] = (zz - 1.0) * inv_s;
    double lp = -0.5 * zz;
    if (i->flags & 8) lp -= TM_LOG_SQRT_2PI * 1.0;
    if (i->flags & 16) {
      if (s != memo->s) { memo->s = s; memo->log_s = log(s); }
      lp -= 1.0 * memo->log_s;
    }
    V[i->o] = lp;
    return AD_OK;
  }
  case PL_LOGMIX: {
    /* scalar/tm_elementary.c's log_mix3 */
    double th = V[i->a], l1 = V[i->b], l2 = V[i->c];
    if (isnan(l1) || isnan(l2) || !(th >= 0 && th <= 1)) return AD_EDOMAIN;
    /* loops mix with one theta again and again: its logs are kept (the
       same bits give the same logs) */
    uint64_t tb;
    memcpy(&tb, &th, sizeof tb);
    if (tb != memo->th) { memo->th = tb; memo->log_th = log(th); memo->log1m_th = tm_log1m(th); }
    V[i->o] = tm_log_mix3(th, memo->log_th, memo->log1m_th, l1, l2, P + i->x);
    return AD_OK;
  }
  case PL_LSE:
    /* scalar/tm_elementary.c's lse_kernel */
    V[i->o] = tm_lse_partials(V + i->a, i->n, P + i->x);
    return AD_OK;
  case PL_ELEM:
    return pl_run_elem(p->ptrs[i->n], V, P + i->x, &V[i->o]);
  default:
    return PL_OTHER;
  }
}

/* The reverse of pl_fwd1's instructions; 0 when op is not one of them. */
PL_INLINE int pl_rev1(const pl_plan *p, const pl_ins *i, int op, double *A, const double *P) {
  switch (op) {
  case PL_FILL: case PL_READ: case PL_GCMP: case PL_GTRUTH:
    return 1;
  case PL_ADD:
    if (i->flags & 1) A[i->aa] += A[i->oa];
    if (i->flags & 2) A[i->ba] += A[i->oa];
    return 1;
  case PL_SUB:
    if (i->flags & 1) A[i->aa] += A[i->oa];
    if (i->flags & 2) A[i->ba] += A[i->oa] * -1.0;
    return 1;
  case PL_MUL:
  case PL_DIV:
  case PL_BINARY:
    if (i->flags & 1) A[i->aa] += A[i->oa] * P[i->x];
    if (i->flags & 2) A[i->ba] += A[i->oa] * P[i->x + 1];
    return 1;
  case PL_COPY:
    for (uint32_t k = 0; k < i->n; k++) A[i->aa + k] += A[i->oa + k];
    return 1;
  case PL_GATHER: {
    const size_t *offs = p->ptrs[i->x];
    for (uint32_t k = 0; k < i->n; k++) A[i->aa + offs[k]] += A[i->oa + k];
    return 1;
  }
  case PL_STORE: {
    const size_t *offs = i->x == PL_NONE ? NULL : p->ptrs[i->x];
    for (uint32_t k = i->n; k-- > 0;) {
      size_t o = i->oa + (offs ? offs[k] : k);
      double a = A[o];
      A[o] = 0.0;
      if (i->aa != PL_NONE) A[i->aa + k] += a;
    }
    return 1;
  }
  case PL_PACK: {
    const uint32_t *idx = p->ptrs[i->x];
    for (uint32_t k = 0; k < i->n; k++) if (idx[i->n + k] != PL_NONE) A[idx[i->n + k]] += A[i->oa + k];
    return 1;
  }
  case PL_SUM: {
    const uint32_t *idx = p->ptrs[i->x];
    for (uint32_t k = 0; k < i->b; k++) A[idx[i->n + k]] += A[i->oa] * 1.0;
    return 1;
  }
  case PL_UNARY:
    A[i->aa] += A[i->oa] * P[i->x];
    return 1;
  case PL_LSE: {
    double a = A[i->oa];
    for (uint32_t k = 0; k < i->n; k++) A[i->aa + k] += a * P[i->x + k];
    return 1;
  }
  case PL_LOGMIX:
  case PL_NORMAL: {
    double a = A[i->oa];
    if (i->flags & 1) A[i->aa] += a * P[i->x];
    if (i->flags & 2) A[i->ba] += a * P[i->x + 1];
    if (i->flags & 4) A[i->ca] += a * P[i->x + 2];
    return 1;
  }
  case PL_ELEM: {
    const pl_elem *el = p->ptrs[i->n];
    double a = A[i->oa];
    for (int k = 0; k < el->nargs; k++)
      if (el->need >> k & 1u) A[el->a[k]] += a * P[i->x + k];
    return 1;
  }
  default:
    return 0;
  }
}

#endif
