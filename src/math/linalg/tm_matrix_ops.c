/*
** tm_matrix_ops.c -- matrix products and reductions beyond multiply:
** crossprod, tcrossprod, quad_form(_sym), trace_quad_form, trace, diagonal,
** add_diag, columns/rows_dot_product, columns/rows_dot_self,
** (squared_)distance, norm1, norm2, sub_col, sub_row and
** symmetrize_from_lower_tri.
**
** As in tm_matrix.c: values on doubles, and when an argument is autodiff
** ONE node whose reverse step applies the matrix-calculus adjoint of the
** whole operation; values the reverse step needs are copied into the arena
** (the interpreter may reuse its frames' storage after the call).
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_linalg.h"
#include "tm_la_call.h"
#include "../tm_pick.h"

#define AT TM_AT

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

static int is_vec(const tm_v *v) { return v->narr == 0 && (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR); }
static int is_mat(const tm_v *v) { return v->narr == 0 && v->base == TM_MATRIX; }
static int is_vm(const tm_v *v) { return v->narr == 0 && v->base >= TM_VECTOR; }



static double *zeros(size_t n) { return ad_alloc_zeros(n ? n : 1); }

/* A real result: the value, or one operands node. */
static int real_out(const tm_call *c, const tm_v *a, int nargs, int nops, const ad_operand *ops,
                    double f, tm_v *out) {
  if (!nops) {
    if (tm_set_real(out, f)) return nomem(c);
    out->dep = (unsigned char)tm_any_dep(a, nargs);
    return AD_OK;
  }
  ad_var r;
  if (ad_operands_node(nops, ops, f, &r)) return nomem(c);
  return tm_set_var(out, r);
}

static int check_square(const tm_call *c, const char *name, const tm_v *A) {
  return tm_check_square(c->fn->name, name, A);
}

/* Stan's check_multiplicable wording */
static int multiplicable(const tm_call *c, const char *n1, int cols, const char *n2, int rows) {
  if (cols == rows) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: Columns of %s (%d) and Rows of %s (%d) must match in size",
                 c->fn->name, n1, cols, n2, rows);
}

/* ---- crossprod, tcrossprod ---- */

typedef struct {
  ad_node hdr;
  int m, n, t;                 /* A is m x n; t: tcrossprod */
  double *A, *Aadj, *Cadj, *S;
} cross_node;

/* C = A'A: Abar += A (Cbar + Cbar'); C = AA': Abar += (Cbar + Cbar') A */
static void cross_chain(ad_node *self) {
  cross_node *p = (cross_node *)self;
  int k = p->t ? p->m : p->n;
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) AT(p->S, k, i, j) = AT(p->Cadj, k, i, j) + AT(p->Cadj, k, j, i);
  if (p->t) tm_la_gemm_nn(p->m, p->n, p->m, 1.0, p->S, p->A, p->Aadj);
  else tm_la_gemm_nn(p->m, p->n, p->n, 1.0, p->A, p->S, p->Aadj);
}

static int k_crossprod(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int t = c->fn->data != NULL;
  if (nargs != 1 || !is_mat(&a[0])) return tm_la_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int m = A->rows, n = A->cols, k = t ? m : n;
  if (tm_new_matrix(out, k, k, A->adj != NULL)) return nomem(c);
  memset(out->val, 0, (size_t)k * k * sizeof(double));
  if (t) tm_la_gemm_nt(m, m, n, 1.0, A->val, A->val, out->val);
  else tm_la_gemm_tn(n, n, m, 1.0, A->val, A->val, out->val);
  for (int j = 0; j < k; j++)      /* exactly symmetric */
    for (int i = j + 1; i < k; i++) AT(out->val, k, i, j) = AT(out->val, k, j, i);
  if (!A->adj) { out->dep = (unsigned char)tm_any_dep(a, 1); return AD_OK; }
  cross_node *p = ad_node_new(sizeof *p, cross_chain);
  if (!p) return nomem(c);
  p->m = m; p->n = n; p->t = t;
  p->Aadj = A->adj; p->Cadj = out->adj;
  if (!(p->A = tm_copy_vals(A)) || !(p->S = ad_alloc_doubles((size_t)k * k + 1))) return nomem(c);
  return AD_OK;
}

/* ---- quad_form, quad_form_sym, trace_quad_form ---- */

enum { QF, QF_SYM, QF_TRACE };

typedef struct {
  ad_node hdr;
  int kind, k, n;              /* A is k x k, B is k x n */
  double *A, *B, *T;           /* T = A B */
  double *Aadj, *Badj, *Cadj;  /* Cadj: n x n, or the node's own adj for a real */
  double *W;                   /* work, k x n and n x n */
  double val, adj;             /* a real result */
} qf_node;

static void qf_chain(ad_node *self) {
  qf_node *p = (qf_node *)self;
  int k = p->k, n = p->n;
  double *G = p->W + (size_t)k * n;          /* the effective Cbar, n x n */
  if (p->kind == QF_TRACE) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) AT(G, n, i, j) = i == j ? p->adj : 0;
  } else if (p->Cadj == &p->adj) {
    G[0] = p->adj;
  } else {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        AT(G, n, i, j) = p->kind == QF_SYM ? 0.5 * (AT(p->Cadj, n, i, j) + AT(p->Cadj, n, j, i))
                                           : AT(p->Cadj, n, i, j);
  }
  /* Abar += B G B' */
  if (p->Aadj) {
    memset(p->W, 0, (size_t)k * n * sizeof(double));
    tm_la_gemm_nn(k, n, n, 1.0, p->B, G, p->W);
    tm_la_gemm_nt(k, k, n, 1.0, p->W, p->B, p->Aadj);
  }
  /* Bbar += T G' + A' B G */
  if (p->Badj) {
    tm_la_gemm_nt(k, n, n, 1.0, p->T, G, p->Badj);
    memset(p->W, 0, (size_t)k * n * sizeof(double));
    tm_la_gemm_nn(k, n, n, 1.0, p->B, G, p->W);
    tm_la_gemm_tn(k, n, k, 1.0, p->A, p->W, p->Badj);
  }
}

static int k_quad_form(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int kind = *(const int *)c->fn->data, rc;
  const char *fn = c->fn->name;
  if (nargs != 2 || !is_mat(&a[0]) || !(is_mat(&a[1]) || (a[1].narr == 0 && a[1].base == TM_VECTOR)))
    return tm_la_no_overload(c, a, nargs);
  const tm_v *A = &a[0], *B = &a[1];
  if ((rc = check_square(c, "A", A)) || (rc = multiplicable(c, "A", A->cols, "B", B->rows))) return rc;
  if (kind == QF_SYM && (rc = tm_la_check_symmetric(fn, "A", A->rows, A->val))) return rc;
  int k = A->rows, n = B->cols, ad = A->adj || B->adj, real = kind == QF_TRACE || B->base == TM_VECTOR;
  size_t kn = (size_t)k * n;
  double *T = zeros(kn);
  if (!T) return nomem(c);
  tm_la_gemm_nn(k, n, k, 1.0, A->val, B->val, T);
  double *C = zeros((size_t)n * n);
  if (!C) return nomem(c);
  tm_la_gemm_tn(n, n, k, 1.0, B->val, T, C);
  double f = 0;
  if (kind == QF_TRACE) for (int i = 0; i < n; i++) f += AT(C, n, i, i);
  else if (real) f = C[0];
  else if (kind == QF_SYM)
    for (int j = 0; j < n; j++)
      for (int i = j + 1; i < n; i++) AT(C, n, i, j) = AT(C, n, j, i) = 0.5 * (AT(C, n, i, j) + AT(C, n, j, i));
  qf_node *p = NULL;
  if (ad) {
    if (!(p = ad_node_new(sizeof *p, qf_chain))) return nomem(c);
    p->kind = kind; p->k = k; p->n = n;
    p->Aadj = A->adj; p->Badj = B->adj;
    p->T = T;
    p->val = f; p->adj = 0;
    if (!(p->A = tm_copy_vals(A)) || !(p->B = tm_copy_vals(B)) || !(p->W = ad_alloc_doubles(kn + (size_t)n * n + 1)))
      return nomem(c);
  }
  if (real) {
    if (!p) return real_out(c, a, 2, 0, NULL, f, out);
    p->Cadj = &p->adj;
    return tm_set_var(out, (ad_var){&p->val, &p->adj});
  }
  if (tm_new_matrix(out, n, n, ad)) return nomem(c);
  memcpy(out->val, C, (size_t)n * n * sizeof(double));
  if (p) p->Cadj = out->adj;
  else out->dep = (unsigned char)tm_any_dep(a, 2);
  return AD_OK;
}

/* ---- trace, diagonal, add_diag, symmetrize_from_lower_tri, sub_col, sub_row ---- */

static int k_trace(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_mat(&a[0])) return tm_la_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int r = A->rows, k = r < A->cols ? r : A->cols;
  double f = 0;
  for (int i = 0; i < k; i++) f += AT(A->val, r, i, i);
  if (!A->adj) return real_out(c, a, 1, 0, NULL, f, out);
  double *d = zeros(tm_numel(A));
  if (!d) return nomem(c);
  for (int i = 0; i < k; i++) AT(d, r, i, i) = 1;
  ad_operand o = {A->adj, d, tm_numel(A)};
  return real_out(c, a, 1, 1, &o, f, out);
}

static int k_diagonal(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_mat(&a[0])) return tm_la_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int r = A->rows, k = r < A->cols ? r : A->cols;
  size_t *idx = tm_pick_index((size_t)k);
  if (!idx || tm_new_vector(out, k, A->adj != NULL)) return nomem(c);
  for (int i = 0; i < k; i++) idx[i] = (size_t)i * r + i;
  return tm_pick(out, A, idx, (size_t)k);
}

static int k_symmetrize(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_mat(&a[0])) return tm_la_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int rc, n = A->rows;
  if ((rc = check_square(c, "m", A))) return rc;
  size_t *idx = tm_pick_index((size_t)n * n);
  if (!idx || tm_new_matrix(out, n, n, A->adj != NULL)) return nomem(c);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) AT(idx, n, i, j) = i >= j ? (size_t)j * n + i : (size_t)i * n + j;
  return tm_pick(out, A, idx, (size_t)n * n);
}

/* sub_col(A, i, j, n_rows), sub_row(A, i, j, n_cols) */
static int k_sub(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int row = c->fn->data != NULL, x[3];
  const char *fn = c->fn->name;
  if (nargs != 4 || !is_mat(&a[0])) return tm_la_no_overload(c, a, nargs);
  for (int k = 0; k < 3; k++) {
    if (!tm_is_scalar(&a[k + 1]) || a[k + 1].base != TM_INT) return tm_la_no_overload(c, a, nargs);
    x[k] = a[k + 1].ival[0];
  }
  const tm_v *A = &a[0];
  int i = x[0], j = x[1], n = x[2], R = A->rows, C = A->cols;
  if (i < 1 || i > R) return ad_fail(AD_EINVALID, "%s: i is %d, but must be in the interval [1, %d]", fn, i, R);
  if (j < 1 || j > C) return ad_fail(AD_EINVALID, "%s: j is %d, but must be in the interval [1, %d]", fn, j, C);
  long long room = row ? (long long)C - j + 1 : (long long)R - i + 1;
  if (n < 0 || n > room)
    return ad_fail(AD_EINVALID, "%s: %s is %d, but must be in the interval [0, %lld]", fn,
                   row ? "n_cols" : "n_rows", n, room);
  size_t *idx = tm_pick_index((size_t)n);
  if (!idx) return nomem(c);
  int rc = row ? tm_new_row_vector(out, n, A->adj != NULL) : tm_new_vector(out, n, A->adj != NULL);
  if (rc) return nomem(c);
  for (int k = 0; k < n; k++)
    idx[k] = row ? (size_t)(j - 1 + k) * R + (i - 1) : (size_t)(j - 1) * R + (i - 1 + k);
  return tm_pick(out, A, idx, (size_t)n);
}

typedef struct {
  ad_node hdr;
  int n, scalar;
  double *Aadj, *dadj, *Cadj;
  size_t size;
} add_diag_node;

static void add_diag_chain(ad_node *self) {
  add_diag_node *p = (add_diag_node *)self;
  int r = p->n;
  if (p->Aadj) for (size_t i = 0; i < p->size; i++) p->Aadj[i] += p->Cadj[i];
  if (p->dadj) {
    int k = (int)(p->size / (size_t)r) < r ? (int)(p->size / (size_t)r) : r;
    for (int i = 0; i < k; i++) p->dadj[p->scalar ? 0 : i] += AT(p->Cadj, r, i, i);
  }
}

/* add_diag(A, d): d a real or a vector of the diagonal's length */
static int k_add_diag(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2 || !is_mat(&a[0]) || !(tm_is_scalar(&a[1]) || is_vec(&a[1]))) return tm_la_no_overload(c, a, nargs);
  const tm_v *A = &a[0], *d = &a[1];
  int r = A->rows, k = r < A->cols ? r : A->cols, scalar = tm_is_scalar(d), rc;
  if (!scalar && (rc = tm_check_size_match(c->fn->name, "number of elements of to_add", tm_numel(d),
                                           "diagonal", (size_t)k)))
    return rc;
  int ad = A->adj || d->adj;
  if (tm_new_matrix(out, r, A->cols, ad)) return nomem(c);
  size_t size = tm_numel(A);
  if (size) memcpy(out->val, A->val, size * sizeof(double));
  for (int i = 0; i < k; i++) AT(out->val, r, i, i) += tm_get(d, scalar ? 0 : (size_t)i);
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, 2); return AD_OK; }
  add_diag_node *p = ad_node_new(sizeof *p, add_diag_chain);
  if (!p) return nomem(c);
  p->n = r; p->scalar = scalar; p->size = size;
  p->Aadj = A->adj; p->dadj = d->adj; p->Cadj = out->adj;
  return AD_OK;
}

/* ---- columns/rows_dot_product, columns/rows_dot_self ---- */

typedef struct {
  ad_node hdr;
  int r, cols, by_row;
  double *x, *y, *xadj, *yadj, *oadj;     /* y == x for the _self forms */
} dots_node;

static void dots_chain(ad_node *self) {
  dots_node *p = (dots_node *)self;
  int self_form = p->x == p->y;
  for (int j = 0; j < p->cols; j++)
    for (int i = 0; i < p->r; i++) {
      double g = p->oadj[p->by_row ? i : j];
      size_t e = (size_t)j * p->r + i;
      if (self_form) { if (p->xadj) p->xadj[e] += 2 * g * p->x[e]; continue; }
      if (p->xadj) p->xadj[e] += g * p->y[e];
      if (p->yadj) p->yadj[e] += g * p->x[e];
    }
}

/* data: "rows" for the rows_ forms; nargs 1 for the _self forms */
static int k_dots(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int by_row = c->fn->data != NULL;
  if (nargs < 1 || nargs > 2 || !is_vm(&a[0]) || (nargs == 2 && !is_vm(&a[1]))) return tm_la_no_overload(c, a, nargs);
  const tm_v *x = &a[0], *y = nargs == 2 ? &a[1] : &a[0];
  if (x->rows != y->rows || x->cols != y->cols) {
    if (x->rows != y->rows)
      return ad_fail(AD_EINVALID, "%s: Rows of v1 (%d) and rows of v2 (%d) must match in size",
                     c->fn->name, x->rows, y->rows);
    return ad_fail(AD_EINVALID, "%s: Columns of v1 (%d) and columns of v2 (%d) must match in size",
                   c->fn->name, x->cols, y->cols);
  }
  int r = x->rows, cols = x->cols, ad = x->adj || y->adj, rc;
  rc = by_row ? tm_new_vector(out, r, ad) : tm_new_row_vector(out, cols, ad);
  if (rc) return nomem(c);
  memset(out->val, 0, (size_t)(by_row ? r : cols) * sizeof(double));
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < r; i++) {
      size_t e = (size_t)j * r + i;
      out->val[by_row ? i : j] += x->val[e] * y->val[e];
    }
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, nargs); return AD_OK; }
  dots_node *p = ad_node_new(sizeof *p, dots_chain);
  if (!p) return nomem(c);
  p->r = r; p->cols = cols; p->by_row = by_row;
  p->xadj = x->adj; p->yadj = nargs == 2 ? y->adj : NULL; p->oadj = out->adj;
  if (!(p->x = tm_copy_vals(x))) return nomem(c);
  p->y = p->x;
  if (nargs == 2 && !(p->y = tm_copy_vals(y))) return nomem(c);
  return AD_OK;
}

/* ---- squared_distance, distance, norm1, norm2 ---- */

static int k_distance(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int squared = c->fn->data != NULL, rc;
  if (nargs != 2 || !is_vec(&a[0]) || !is_vec(&a[1])) return tm_la_no_overload(c, a, nargs);
  size_t n = tm_numel(&a[0]);
  if ((rc = tm_check_size_match(c->fn->name, "x", n, "y", tm_numel(&a[1])))) return rc;
  double s = 0;
  for (size_t i = 0; i < n; i++) { double t = a[0].val[i] - a[1].val[i]; s += t * t; }
  double f = squared ? s : sqrt(s);
  if (!tm_any_ad(a, 2)) return real_out(c, a, 2, 0, NULL, f, out);
  double *d = ad_alloc_doubles(2 * n + 2);
  if (!d) return nomem(c);
  ad_operand o[2];
  int k = 0;
  for (int m = 0; m < 2; m++) {
    if (!a[m].adj) continue;
    double *p = d + (size_t)m * (n + 1);
    for (size_t i = 0; i < n; i++) {
      double t = a[0].val[i] - a[1].val[i];
      p[i] = (m ? -1 : 1) * (squared ? 2 * t : t / f);
    }
    o[k++] = (ad_operand){a[m].adj, p, n};
  }
  return real_out(c, a, 2, k, o, f, out);
}

static int k_norm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int two = c->fn->data != NULL;
  const tm_v *x = &a[0];
  if (nargs != 1 || !(is_vec(x) || (x->narr == 1 && x->base == TM_REAL))) return tm_la_no_overload(c, a, nargs);
  size_t n = tm_numel(x);
  double s = 0;
  for (size_t i = 0; i < n; i++) s += two ? x->val[i] * x->val[i] : fabs(x->val[i]);
  double f = two ? sqrt(s) : s;
  if (!x->adj) return real_out(c, a, 1, 0, NULL, f, out);
  double *d = ad_alloc_doubles(n + 1);
  if (!d) return nomem(c);
  for (size_t i = 0; i < n; i++) {
    double v = x->val[i];
    d[i] = two ? v / f : (v > 0) - (v < 0);
  }
  ad_operand o = {x->adj, d, n};
  return real_out(c, a, 1, 1, &o, f, out);
}

/* ---- the table ---- */

static const int qf = QF, qf_sym = QF_SYM, qf_trace = QF_TRACE;

#define VV(r) r "(vector, vector); " r "(row_vector, row_vector); " r "(vector, row_vector); " r "(row_vector, vector)"

const tm_fn tm_fns_matrix_ops[] = {
  {"crossprod", "matrix(matrix)", k_crossprod, NULL},
  {"tcrossprod", "matrix(matrix)", k_crossprod, "t"},
  {"quad_form", "matrix(matrix, matrix); real(matrix, vector)", k_quad_form, &qf},
  {"quad_form_sym", "matrix(matrix, matrix); real(matrix, vector)", k_quad_form, &qf_sym},
  {"trace_quad_form", "real(matrix, matrix); real(matrix, vector)", k_quad_form, &qf_trace},
  {"trace", "real(matrix)", k_trace, NULL},
  {"diagonal", "vector(matrix)", k_diagonal, NULL},
  {"add_diag", "matrix(matrix, real); matrix(matrix, vector); matrix(matrix, row_vector)", k_add_diag, NULL},
  {"symmetrize_from_lower_tri", "matrix(matrix)", k_symmetrize, NULL},
  {"sub_col", "vector(matrix, int, int, int)", k_sub, NULL},
  {"sub_row", "row_vector(matrix, int, int, int)", k_sub, "row"},
  {"columns_dot_product", "row_vector(vector, vector); row_vector(row_vector, row_vector); "
   "row_vector(matrix, matrix)", k_dots, NULL},
  {"rows_dot_product", "vector(vector, vector); vector(row_vector, row_vector); vector(matrix, matrix)",
   k_dots, "rows"},
  {"columns_dot_self", "row_vector(vector); row_vector(row_vector); row_vector(matrix)", k_dots, NULL},
  {"rows_dot_self", "vector(vector); vector(row_vector); vector(matrix)", k_dots, "rows"},
  {"squared_distance", VV("real"), k_distance, "squared"},
  {"distance", VV("real"), k_distance, NULL},
  {"norm1", "real(vector); real(row_vector); real(array[] real)", k_norm, NULL},
  {"norm2", "real(vector); real(row_vector); real(array[] real)", k_norm, "two"},
  {NULL, NULL, NULL, NULL}
};
