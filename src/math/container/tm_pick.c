/*
** tm_pick.c -- copies of elements by index, with one reverse node.
*/
#include "../tm_pick.h"

typedef struct pick_node {
  ad_node hdr;
  size_t n;
  const size_t *idx;
  double *xadj;
  const double *yadj;
} pick_node;

static void pick_chain(ad_node *self) {
  pick_node *p = (pick_node *)self;
  for (size_t i = 0; i < p->n; i++) p->xadj[p->idx[i]] += p->yadj[i];
}

size_t *tm_pick_index(size_t n) { return ad_alloc((n ? n : 1) * sizeof(size_t)); }

int tm_pick(tm_v *out, const tm_v *src, const size_t *idx, size_t n) {
  if (out->base == TM_INT) {
    for (size_t i = 0; i < n; i++) out->ival[i] = src->ival[idx[i]];
    return AD_OK;
  }
  if (src->base == TM_INT) for (size_t i = 0; i < n; i++) out->val[i] = (double)src->ival[idx[i]];
  else for (size_t i = 0; i < n; i++) out->val[i] = src->val[idx[i]];
  if (src->dep || src->adj) out->dep = 1;
  if (!src->adj || !out->adj || n == 0) return AD_OK;
  pick_node *p = ad_node_new(sizeof *p, pick_chain);
  if (!p) return AD_EMEMORY;
  p->n = n;
  p->idx = idx;
  p->xadj = src->adj;
  p->yadj = out->adj;
  return AD_OK;
}
