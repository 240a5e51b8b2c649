/*
** li_value.c -- storage of variables, promotion, and the nodes that move
** values between variables on the tape (copy, gather, store).
*/
#include <limits.h>
#include <math.h>
#include <string.h>
#include "li_int.h"

int li_alloc(tm_v *out, const tm_v *shape, int ad) {
  tm_v v = *shape;
  size_t n = tm_nval(&v), m = n ? n : 1;
  v.val = NULL; v.adj = NULL; v.ival = NULL; v.dep = 0;
  if (v.base == TM_INT) {
    if (!(v.ival = ad_alloc(m * sizeof(int)))) return ad_fail(AD_EMEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) v.ival[i] = INT_MIN;
  } else {
    if (!(v.val = ad_alloc_doubles(m))) return ad_fail(AD_EMEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) v.val[i] = NAN;
    if (ad && !(v.adj = ad_alloc_zeros(m))) return ad_fail(AD_EMEMORY, "out of memory");
  }
  *out = v;
  return AD_OK;
}

int li_promote(li_run *r, const tm_v *v, ln_type t, tm_v *out) {
  if (t.base >= TM_COMPLEX && t.base <= TM_CMATRIX && !tm_is_complex(v)) return li_promote_complex(r, v, out);
  if (v->base != TM_INT || t.base == TM_INT || t.base >= LN_VOID) { *out = *v; return AD_OK; }
  tm_v w = *v;
  size_t n = tm_numel(v);
  w.ival = NULL;
  w.base = TM_REAL;
  /* int scalars and int arrays promote to the real of the same shape; a
  ** vector type cannot be the target of an int (the checker sees to it) */
  if (!(w.val = ad_alloc_doubles(n ? n : 1))) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t i = 0; i < n; i++) w.val[i] = (double)v->ival[i];
  w.adj = NULL;
  w.dep = 0;
  *out = w;
  return AD_OK;
}

/* ---- nodes ---- */

/* contiguous copy: src.adj[i] += out.adj[i] */
typedef struct { ad_node hdr; size_t n; const double *oadj; double *sadj; } copy_node;
static void copy_chain(ad_node *self) {
  copy_node *c = (copy_node *)self;
  for (size_t i = 0; i < c->n; i++) c->sadj[i] += c->oadj[i];
}
static int record_copy(size_t n, const double *oadj, double *sadj) {
  if (n == 0) return AD_OK;
  copy_node *c = ad_node_new(sizeof *c, copy_chain);
  if (!c) return ad_fail(AD_EMEMORY, "out of memory");
  c->n = n; c->oadj = oadj; c->sadj = sadj;
  return AD_OK;
}

/* gather: src.adj[offs[k]] += out.adj[k] */
typedef struct { ad_node hdr; size_t n; const double *oadj; double *sadj; const size_t *offs; } gather_node;
static void gather_chain(ad_node *self) {
  gather_node *g = (gather_node *)self;
  for (size_t k = 0; k < g->n; k++) g->sadj[g->offs[k]] += g->oadj[k];
}

/* store: the slot's adjoint at offs[k] goes to the stored value, then is
** zeroed for the uses of the value it replaced.  Backwards, so that with a
** repeated offset the write that won forward takes the adjoint. */
typedef struct { ad_node hdr; size_t n; double *dadj; const size_t *offs; double *sadj; } store_node;
static void store_chain(ad_node *self) {
  store_node *s = (store_node *)self;
  for (size_t k = s->n; k-- > 0;) {
    size_t o = s->offs ? s->offs[k] : k;
    double a = s->dadj[o];
    s->dadj[o] = 0.0;
    if (s->sadj) s->sadj[k] += a;
  }
}

/* pack: *sadj[k] += out.adj[k] for the elements that came from autodiff values */
typedef struct { ad_node hdr; size_t n; const double *oadj; double **sadj; } pack_node;
static void pack_chain(ad_node *self) {
  pack_node *p = (pack_node *)self;
  for (size_t k = 0; k < p->n; k++) if (p->sadj[k]) *p->sadj[k] += p->oadj[k];
}

int li_record_pack(size_t n, const double *oadj, double **sadj) {
  if (n == 0) return AD_OK;
  pack_node *p = ad_node_new(sizeof *p, pack_chain);
  if (!p) return ad_fail(AD_EMEMORY, "out of memory");
  p->n = n; p->oadj = oadj; p->sadj = sadj;
  return AD_OK;
}

int li_copy(li_run *r, const tm_v *v, tm_v *out) {
  /* out may be v itself (li_assign copies a right side in place): read the
     source through a copy of its descriptor, since li_alloc overwrites out */
  const tm_v src = *v;
  int rc = li_alloc_r(r, out, &src, r->ad && src.adj);
  if (rc) return rc;
  size_t n = tm_nval(&src);
  if (src.base == TM_INT) { memcpy(out->ival, src.ival, n * sizeof(int)); return AD_OK; }
  memcpy(out->val, src.val, n * sizeof(double));
  out->dep = src.dep;
  if (!out->adj) return AD_OK;
  size_t c0 = li_chain_len();
  if ((rc = record_copy(n, out->adj, src.adj))) return rc;
  if (r->tr) li_emit1(r, LI_EV_COPY, &src, out, c0);
  return AD_OK;
}

int li_gather(li_run *r, const tm_v *src, const size_t *offs, size_t n, tm_v *out) {
  int ad = r->ad && src->adj;
  tm_v shape = *out;
  shape.base = src->base == TM_INT ? TM_INT : shape.base;
  int rc = li_alloc_r(r, out, &shape, ad);
  if (rc) return rc;
  if (src->base == TM_INT) {
    for (size_t k = 0; k < n; k++) out->ival[k] = src->ival[offs[k]];
    return AD_OK;
  }
  for (size_t k = 0; k < n; k++) out->val[k] = src->val[offs[k]];
  out->dep = src->dep;
  if (!ad || n == 0) return AD_OK;
  gather_node *g = ad_node_new(sizeof *g, gather_chain);
  if (!g) return ad_fail(AD_EMEMORY, "out of memory");
  g->n = n; g->oadj = out->adj; g->sadj = src->adj; g->offs = offs;
  if (r->tr) {
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_GATHER; ev.args = src; ev.nargs = 1; ev.out = out; ev.offs = offs; ev.n = n;
    ev.chain0 = li_chain_len() - 1;
    li_emit(r, &ev);
  }
  return AD_OK;
}

int li_scalar_read(double *val, double *adj, tm_v *out) {
  double *copy = ad_alloc_doubles(1);
  if (!copy) return ad_fail(AD_EMEMORY, "out of memory");
  *copy = *val;
  *out = tm_real_view(copy, adj);
  return AD_OK;
}

int li_unshare(li_run *r, li_slot *s) {
  if (!r->ad || !s->shared || !s->v.adj) { s->shared = 0; return AD_OK; }
  size_t n = tm_nval(&s->v), m = n ? n : 1;
  double *val = ad_alloc_doubles(m), *adj = ad_alloc_zeros(m);
  if (!val || !adj) return ad_fail(AD_EMEMORY, "out of memory");
  memcpy(val, s->v.val, n * sizeof(double));
  size_t c0 = li_chain_len();
  int rc = record_copy(n, adj, s->v.adj);
  if (rc) return rc;
  if (r->tr) {
    tm_v fresh = s->v;
    fresh.val = val;
    fresh.adj = adj;
    li_emit1(r, LI_EV_COPY, &s->v, &fresh, c0);
  }
  s->v.val = val;
  s->v.adj = adj;
  s->shared = 0;
  return AD_OK;
}

int li_store(li_run *r, li_slot *s, const size_t *offs, const tm_v *src, size_t n) {
  tm_v *d = &s->v;
  int rc;
  if (d->base == TM_INT) {
    for (size_t k = 0; k < n; k++) d->ival[offs ? offs[k] : k] = src->ival[k];
    return AD_OK;
  }
  if ((rc = li_unshare(r, s))) return rc;
  if (src->base == TM_INT) {
    for (size_t k = 0; k < n; k++) d->val[offs ? offs[k] : k] = (double)src->ival[k];
  } else {
    for (size_t k = 0; k < n; k++) d->val[offs ? offs[k] : k] = src->val[k];
  }
  if (!r->ad || !d->adj || n == 0) return AD_OK;
  size_t c0 = li_chain_len();
  store_node *st = ad_node_new(sizeof *st, store_chain);
  if (!st) return ad_fail(AD_EMEMORY, "out of memory");
  st->n = n;
  st->dadj = d->adj;
  st->offs = offs;
  st->sadj = src->base == TM_INT ? NULL : src->adj;
  if (r->tr) {
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_STORE; ev.args = src; ev.nargs = 1; ev.out = d; ev.offs = offs; ev.n = n;
    ev.chain0 = c0;
    li_emit(r, &ev);
  }
  return AD_OK;
}

/* ---- target ---- */

int li_add_term(li_run *r, const tm_v *t) {
  if (r->nterms == r->capterms) {
    size_t cap = r->capterms ? 2 * r->capterms : 64;
    tm_v *nt = ad_alloc(cap * sizeof *nt);
    if (!nt) return ad_fail(AD_EMEMORY, "out of memory");
    if (r->nterms) memcpy(nt, r->terms, r->nterms * sizeof *nt);
    r->terms = nt;
    r->capterms = cap;
  }
  r->terms[r->nterms++] = *t;
  return AD_OK;
}

/* The same additions in the same order on doubles and on the tape, so the
** two evaluations agree to the bit. */
int li_sum_terms(li_run *r, tm_v *out) {
  double total = 0.0;
  size_t nad = 0;
  for (size_t i = 0; i < r->nterms; i++) {
    total += tm_get(&r->terms[i], 0);
    if (r->terms[i].adj) nad++;
  }
  if (nad == 0 || !r->ad) {
    int rc = tm_set_real(out, total);
    if (!rc) for (size_t i = 0; i < r->nterms; i++) if (li_nonconst(&r->terms[i])) out->dep = 1;
    return rc;
  }
  ad_var *x = ad_alloc(nad * sizeof *x);
  double *d = ad_alloc_doubles(nad);
  if (!x || !d) return ad_fail(AD_EMEMORY, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < r->nterms; i++)
    if (r->terms[i].adj) {
      x[k].val = r->terms[i].val;
      x[k].adj = r->terms[i].adj;
      d[k++] = 1.0;
    }
  ad_var y;
  size_t c0 = li_chain_len();
  int rc = ad_nary((int)nad, x, total, d, &y);
  if (rc) return rc;
  if ((rc = tm_set_var(out, y))) return rc;
  if (r->tr) {
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_SUM; ev.args = r->terms; ev.nargs = (int)r->nterms; ev.out = out; ev.chain0 = c0;
    li_emit(r, &ev);
  }
  return AD_OK;
}

/* ---- tracing ---- */

void li_emit1(const li_run *r, int kind, const tm_v *in, const tm_v *out, size_t chain0) {
  li_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = kind;
  ev.args = in;
  ev.nargs = in ? 1 : 0;
  ev.out = out;
  ev.chain0 = chain0;
  li_emit(r, &ev);
}

void li_emit_unsupported(const li_run *r, const char *why) {
  if (!r->tr) return;
  li_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = LI_EV_UNSUPPORTED;
  ev.why = why;
  ev.chain0 = li_chain_len();
  li_emit(r, &ev);
}

int li_alloc_r(li_run *r, tm_v *out, const tm_v *shape, int ad) {
  size_t c0 = li_chain_len();
  int rc = li_alloc(out, shape, ad);
  if (!rc && r->tr && out->adj) li_emit1(r, LI_EV_ALLOC, NULL, out, c0);
  return rc;
}
