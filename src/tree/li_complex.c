/*
** li_complex.c -- complex values in the interpreter: int, real and real
** containers promoted to their complex types (imaginary parts 0).  Complex
** values keep (re, im) pairs side by side (tm.h), so everything else
** (storage, copies, stores, indexing) moves pairs of doubles.
*/
#include <string.h>
#include "li_int.h"

/* promotion: v.adj[i] += out.adj[2 i] */
typedef struct { ad_node hdr; size_t n; const double *oadj; double *sadj; } promote_node;
static void promote_chain(ad_node *self) {
  promote_node *p = (promote_node *)self;
  for (size_t i = 0; i < p->n; i++) p->sadj[i] += p->oadj[2 * i];
}

int li_promote_complex(li_run *r, const tm_v *v, tm_v *out) {
  if (v->base > TM_MATRIX) { *out = *v; return AD_OK; }
  tm_v w = *v;
  size_t n = tm_numel(v);
  w.ival = NULL;
  w.base = v->base == TM_INT || v->base == TM_REAL ? TM_COMPLEX : v->base == TM_VECTOR ? TM_CVECTOR
         : v->base == TM_ROW_VECTOR ? TM_CROW_VECTOR : TM_CMATRIX;
  int ad = r->ad && v->adj;
  if (!(w.val = ad_alloc_doubles(n ? 2 * n : 1))) return ad_fail(AD_EMEMORY, "out of memory");
  w.adj = ad ? ad_alloc_zeros(n ? 2 * n : 1) : NULL;
  if (ad && !w.adj) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t i = 0; i < n; i++) {
    w.val[2 * i] = v->base == TM_INT ? (double)v->ival[i] : v->val[i];
    w.val[2 * i + 1] = 0.0;
  }
  w.dep = v->base == TM_INT ? 0 : v->dep;
  if (ad && n) {
    promote_node *p = ad_node_new(sizeof *p, promote_chain);
    if (!p) return ad_fail(AD_EMEMORY, "out of memory");
    p->n = n; p->oadj = w.adj; p->sadj = v->adj;
  }
  *out = w;
  return AD_OK;
}

/* The elements el[0..n) (complex, m elements each) of a literal side by
** side in out (allocated): an array's entries one after the other, a
** matrix's rows (matrix) interleaved column-major.  One pack node. */
int li_pack_complex(li_run *r, const tm_v *el, int n, size_t m, int matrix, int ad, tm_v *out) {
  (void)r;
  size_t total = 2 * (size_t)n * m;
  double **sadj = NULL;
  if (ad && !(sadj = ad_alloc((total ? total : 1) * sizeof *sadj))) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++) {
      size_t o = matrix ? (size_t)i + j * (size_t)n : (size_t)i * m + j;
      for (int p = 0; p < 2; p++) {
        out->val[2 * o + p] = el[i].val[2 * j + p];
        if (sadj) sadj[2 * o + p] = el[i].adj ? el[i].adj + 2 * j + p : NULL;
      }
    }
  if (!ad) return AD_OK;
  return li_record_pack(total, out->adj, sadj);
}
