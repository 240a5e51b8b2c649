/*
** ad_node.c -- leaves and the generic nodes most functions record.
**
** A function with a scalar result records one node holding its value, its
** adjoint, its operands and the partials computed in the forward pass; the
** reverse step is then a multiply-add per operand.  Vectorized functions
** record one ad_operands_node for all their operands.
*/
#include <string.h>
#include "ad.h"

double *ad_alloc_doubles(size_t n) {
  double *p = ad_alloc(n * sizeof(double));
  if (!p) return NULL;
  return p;
}

double *ad_alloc_zeros(size_t n) {
  double *p = ad_alloc(n * sizeof(double));
  if (p) memset(p, 0, n * sizeof(double));
  return p;
}

void *ad_node_new(size_t size, ad_chain_fn chain) {
  ad_node *n = ad_alloc(size);
  if (!n) return NULL;
  n->chain = chain;
  if (ad_stack_push_chain(ad_active, n) != AD_OK) return NULL;
  return n;
}

typedef struct { ad_node hdr; double val, adj; } scalar_leaf;

int ad_leaf(double v, ad_var *out) {
  scalar_leaf *n = ad_alloc(sizeof *n);
  if (!n) return AD_EMEMORY;
  n->hdr.chain = NULL;
  n->val = v;
  n->adj = 0.0;
  if (ad_stack_push_nochain(ad_active, &n->hdr)) return AD_EMEMORY;
  out->val = &n->val;
  out->adj = &n->adj;
  return AD_OK;
}

typedef struct { ad_node hdr; size_t n; double *val, *adj; } vector_leaf;

int ad_leaves(size_t n, const double *v, double **val, double **adj) {
  vector_leaf *l = ad_alloc(sizeof *l);
  double *vv = ad_alloc_doubles(n ? n : 1), *aa = ad_alloc_zeros(n ? n : 1);
  if (!l || !vv || !aa) return AD_EMEMORY;
  l->hdr.chain = NULL;
  l->n = n;
  if (v) memcpy(vv, v, n * sizeof *vv);
  l->val = vv;
  l->adj = aa;
  if (ad_stack_push_nochain(ad_active, &l->hdr)) return AD_EMEMORY;
  *val = vv;
  *adj = aa;
  return AD_OK;
}

typedef struct { ad_node hdr; double val, adj; double *xadj; double dx; } unary_node;

static void unary_chain(ad_node *self) {
  unary_node *n = (unary_node *)self;
  *n->xadj += n->adj * n->dx;
}

int ad_unary(ad_var x, double f, double dx, ad_var *out) {
  unary_node *n = ad_node_new(sizeof *n, unary_chain);
  if (!n) return AD_EMEMORY;
  n->val = f;
  n->adj = 0.0;
  n->xadj = x.adj;
  n->dx = dx;
  out->val = &n->val;
  out->adj = &n->adj;
  return AD_OK;
}

typedef struct { ad_node hdr; double val, adj; double *xadj, *yadj; double dx, dy; } binary_node;

static void binary_chain(ad_node *self) {
  binary_node *n = (binary_node *)self;
  *n->xadj += n->adj * n->dx;
  *n->yadj += n->adj * n->dy;
}

int ad_binary(ad_var x, ad_var y, double f, double dx, double dy, ad_var *out) {
  binary_node *n = ad_node_new(sizeof *n, binary_chain);
  if (!n) return AD_EMEMORY;
  n->val = f;
  n->adj = 0.0;
  n->xadj = x.adj;
  n->yadj = y.adj;
  n->dx = dx;
  n->dy = dy;
  out->val = &n->val;
  out->adj = &n->adj;
  return AD_OK;
}

typedef struct { ad_node hdr; double val, adj; int n; double **xadj; double *d; } nary_node;

static void nary_chain(ad_node *self) {
  nary_node *n = (nary_node *)self;
  for (int i = 0; i < n->n; i++) *n->xadj[i] += n->adj * n->d[i];
}

int ad_nary(int k, const ad_var *x, double f, const double *d, ad_var *out) {
  nary_node *n = ad_node_new(sizeof *n, nary_chain);
  double **xa = ad_alloc((size_t)k * sizeof *xa + 1);
  double *dd = ad_alloc_doubles((size_t)k + 1);
  if (!n || !xa || !dd) return AD_EMEMORY;
  for (int i = 0; i < k; i++) { xa[i] = x[i].adj; dd[i] = d[i]; }
  n->val = f;
  n->adj = 0.0;
  n->n = k;
  n->xadj = xa;
  n->d = dd;
  out->val = &n->val;
  out->adj = &n->adj;
  return AD_OK;
}

typedef struct { ad_node hdr; double val, adj; int nops; ad_operand ops[]; } operands_node;

void ad_operands_add(int nops, const ad_operand *ops, double a) {
  for (int k = 0; k < nops; k++) {
    double *adj = ops[k].adj;
    const double *p = ops[k].partial;
    size_t m = ops[k].n;
    for (size_t i = 0; i < m; i++) adj[i] += a * p[i];
  }
}

static void operands_chain(ad_node *self) {
  operands_node *n = (operands_node *)self;
  ad_operands_add(n->nops, n->ops, n->adj);
}

int ad_operands_node(int nops, const ad_operand *ops, double f, ad_var *out) {
  operands_node *n = ad_node_new(sizeof *n + (size_t)nops * sizeof(ad_operand), operands_chain);
  if (!n) return AD_EMEMORY;
  n->val = f;
  n->adj = 0.0;
  int k = 0;
  for (int i = 0; i < nops; i++)
    if (ops[i].adj && ops[i].n) n->ops[k++] = ops[i];
  n->nops = k;
  out->val = &n->val;
  out->adj = &n->adj;
  return AD_OK;
}
