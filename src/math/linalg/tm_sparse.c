/*
** tm_sparse.c -- Stan's compressed sparse row (CSR) functions and
** to_array_2d.
**
** CSR, as Stan: w the non-zero values row by row, v their 1-based columns,
** u (length rows + 1) the 1-based position in w where each row starts, its
** last entry one past the end.  csr_extract_* read a dense matrix's
** non-zero entries (exact zeros dropped, as Eigen's sparseView);
** csr_to_dense_matrix and csr_matrix_times_vector check m, n, w, v, u with
** Stan's checks before any work.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_pick.h"
#include "../tm_linalg.h"

#define AT TM_AT

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

static int is_matrix(const tm_v *v) { return v->narr == 0 && v->base == TM_MATRIX; }

/* ---- csr_extract_w, csr_extract_v, csr_extract_u of a dense matrix ---- */
enum { EX_W, EX_V, EX_U };

static int k_csr_extract(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int what = (int)(*(const char *)c->fn->data - '0');
  if (nargs != 1 || !is_matrix(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int m = A->rows, n = A->cols, nnz = 0;
  for (size_t i = 0; i < (size_t)m * n; i++) nnz += A->val[i] != 0;
  if (what == EX_W) {
    size_t *idx = tm_pick_index((size_t)nnz);
    if (!idx || tm_new_vector(out, nnz, A->adj != NULL)) return nomem(c);
    size_t k = 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        if (AT(A->val, m, i, j) != 0) idx[k++] = (size_t)j * m + i;
    return tm_pick(out, A, idx, (size_t)nnz);
  }
  if (tm_new_int_array(out, what == EX_V ? nnz : m + 1)) return nomem(c);
  int k = 0;
  for (int i = 0; i < m; i++) {
    if (what == EX_U) out->ival[i] = k + 1;
    for (int j = 0; j < n; j++)
      if (AT(A->val, m, i, j) != 0) {
        if (what == EX_V) out->ival[k] = j + 1;
        k++;
      }
  }
  if (what == EX_U) out->ival[m] = k + 1;
  return AD_OK;
}

/* ---- the checks of csr_to_dense_matrix and csr_matrix_times_vector ---- */
/* Stan's check_range and its out_of_range message */
static int range(const char *fn, int max, int index) {
  if (index >= 1 && index <= max) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: accessing element out of range. index %d out of range; expecting index to be "
                 "between 1 and %d", fn, index, max);
}

/* m, n ints; w vector; v, u array[] int */
static int csr_check(const tm_call *c, const tm_v *a, int *m, int *n) {
  const char *fn = c->fn->name;
  int rc;
  if ((rc = tm_check_positive(fn, "m", &a[0])) || (rc = tm_check_positive(fn, "n", &a[1]))) return rc;
  *m = a[0].ival[0];
  *n = a[1].ival[0];
  return AD_OK;
}

static int csr_check_rest(const tm_call *c, const tm_v *a, int m, int n) {
  const char *fn = c->fn->name;
  const tm_v *w = &a[2], *v = &a[3], *u = &a[4];
  size_t nw = tm_numel(w), nv = tm_numel(v), nu = tm_numel(u);
  int rc;
  if (c->fn->data) {      /* csr_to_dense_matrix's order */
    if ((rc = tm_check_size_match(fn, "m", (size_t)m, "u", nu - 1)) ||
        (rc = tm_check_size_match(fn, "w", nw, "v", nv)))
      return rc;
  } else {
    if ((rc = tm_check_size_match(fn, "w", nw, "v", nv)) ||
        (rc = tm_check_size_match(fn, "m", (size_t)m, "u", nu - 1)))
      return rc;
  }
  /* u[m] - 1 entries in w: Stan's u/z check */
  long last = (long)u->ival[m] - 1;
  if (last < 0 || (size_t)last != nv)
    return ad_fail(AD_EINVALID, "%s: Size of u/z (%ld) and size of v (%zu) must match in size", fn, last, nv);
  for (size_t i = 0; i < nv; i++)
    if ((rc = range(fn, n, v->ival[i]))) return rc;
  for (int r = 0; r < m; r++)
    if (u->ival[r] < 1 || u->ival[r + 1] < u->ival[r])
      return ad_fail(AD_EINVALID, "%s: u is not a valid row start index: u[%d] = %d and u[%d] = %d must be "
                     "nondecreasing from 1", fn, r + 1, u->ival[r], r + 2, u->ival[r + 1]);
  return AD_OK;
}

/* csr_to_dense_matrix: each result element is a w entry or 0; one node
** adding the result's adjoints back. */
typedef struct {
  ad_node hdr;
  size_t nw;
  const int *pos;        /* result position of w[k], or -1 */
  double *wadj;
  const double *oadj;
} dense_node;

static void dense_chain(ad_node *self) {
  dense_node *p = (dense_node *)self;
  for (size_t k = 0; k < p->nw; k++)
    if (p->pos[k] >= 0) p->wadj[k] += p->oadj[p->pos[k]];
}

static int csr_args_ok(const tm_v *a, int nargs, int want) {
  if (nargs != want) return 0;
  for (int i = 0; i < 2; i++) if (!tm_is_scalar(&a[i]) || a[i].base != TM_INT) return 0;
  if (a[2].narr || a[2].base != TM_VECTOR) return 0;
  for (int i = 3; i < 5; i++) if (a[i].narr != 1 || a[i].base != TM_INT) return 0;
  if (want == 6 && (a[5].narr || a[5].base != TM_VECTOR)) return 0;
  return 1;
}

static int k_csr_to_dense(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (!csr_args_ok(a, nargs, 5)) return tm_no_overload(c, a, nargs);
  int m, n, rc;
  if ((rc = csr_check(c, a, &m, &n)) || (rc = csr_check_rest(c, a, m, n))) return rc;
  const tm_v *w = &a[2];
  const int *v = a[3].ival, *u = a[4].ival;
  size_t nw = tm_numel(w);
  size_t mn = (size_t)m * n;
  int *pos = ad_alloc((nw ? nw : 1) * sizeof(int)), *owner = ad_alloc(mn * sizeof(int));
  if (!pos || !owner || tm_new_matrix(out, m, n, w->adj != NULL)) return nomem(c);
  memset(out->val, 0, mn * sizeof(double));
  for (size_t k = 0; k < nw; k++) pos[k] = -1;
  for (int r = 0; r < m; r++)
    for (int k = u[r] - 1; k < u[r + 1] - 1; k++) {
      size_t e = (size_t)(v[k] - 1) * m + r;
      out->val[e] = w->val[k];
      owner[e] = k;                  /* a repeated (row, column): the last entry wins */
      pos[k] = (int)e;
    }
  for (size_t k = 0; k < nw; k++)
    if (pos[k] >= 0 && owner[pos[k]] != (int)k) pos[k] = -1;
  if (!w->adj) { out->dep = w->dep; return AD_OK; }
  dense_node *p = ad_node_new(sizeof *p, dense_chain);
  if (!p) return nomem(c);
  p->nw = nw; p->pos = pos; p->wadj = w->adj; p->oadj = out->adj;
  return AD_OK;
}

/* csr_matrix_times_vector: y_r = sum_k w_k b_{v_k} over row r's entries */
typedef struct {
  ad_node hdr;
  int m;
  const int *v, *u;
  const double *w, *b;
  double *wadj, *badj;
  const double *oadj;
} csrmv_node;

static void csrmv_chain(ad_node *self) {
  csrmv_node *p = (csrmv_node *)self;
  for (int r = 0; r < p->m; r++) {
    double g = p->oadj[r];
    for (int k = p->u[r] - 1; k < p->u[r + 1] - 1; k++) {
      int j = p->v[k] - 1;
      if (p->wadj) p->wadj[k] += g * p->b[j];
      if (p->badj) p->badj[j] += g * p->w[k];
    }
  }
}

static int k_csr_times_vector(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (!csr_args_ok(a, nargs, 6)) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  int m, n, rc;
  if ((rc = csr_check(c, a, &m, &n))) return rc;
  if ((rc = tm_check_size_match(fn, "n", (size_t)n, "b", tm_numel(&a[5])))) return rc;
  if ((rc = csr_check_rest(c, a, m, n))) return rc;
  const tm_v *w = &a[2], *b = &a[5];
  const int *v = a[3].ival, *u = a[4].ival;
  int ad = w->adj || b->adj;
  if (tm_new_vector(out, m, ad)) return nomem(c);
  for (int r = 0; r < m; r++) {
    double s = 0;
    for (int k = u[r] - 1; k < u[r + 1] - 1; k++) s += w->val[k] * b->val[v[k] - 1];
    out->val[r] = s;
  }
  if (!ad) { out->dep = (unsigned char)(w->dep || b->dep); return AD_OK; }
  csrmv_node *p = ad_node_new(sizeof *p, csrmv_chain);
  if (!p) return nomem(c);
  size_t nv = tm_numel(&a[3]), nu = tm_numel(&a[4]);
  int *vc = ad_alloc((nv ? nv : 1) * sizeof(int)), *uc = ad_alloc(nu * sizeof(int));
  if (!vc || !uc) return nomem(c);
  memcpy(vc, v, nv * sizeof(int));
  memcpy(uc, u, nu * sizeof(int));
  p->m = m; p->v = vc; p->u = uc;
  p->wadj = w->adj; p->badj = b->adj; p->oadj = out->adj;
  if (!(p->w = tm_copy_vals(w)) || !(p->b = tm_copy_vals(b))) return nomem(c);
  return AD_OK;
}

/* ---- to_array_2d(matrix): array[m, n] real, stored row by row ---- */
static int k_to_array_2d(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_matrix(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int m = A->rows, n = A->cols;
  size_t mn = (size_t)m * n;
  size_t *idx = tm_pick_index(mn);
  if (!idx) return nomem(c);
  memset(out, 0, sizeof *out);
  out->base = TM_REAL;
  out->narr = 2;
  out->dim[0] = m;
  out->dim[1] = n;
  out->rows = out->cols = 1;
  if (!(out->val = ad_alloc_doubles(mn ? mn : 1))) return nomem(c);
  if (A->adj && !(out->adj = ad_alloc_zeros(mn ? mn : 1))) return nomem(c);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) idx[(size_t)i * n + j] = (size_t)j * m + i;
  return tm_pick(out, A, idx, mn);
}

const tm_fn tm_fns_sparse[] = {
  {"csr_extract_u", "array[] int(matrix)", k_csr_extract, "2"},
  {"csr_extract_v", "array[] int(matrix)", k_csr_extract, "1"},
  {"csr_extract_w", "vector(matrix)", k_csr_extract, "0"},
  {"csr_matrix_times_vector", "vector(int, int, vector, array[] int, array[] int, vector)", k_csr_times_vector, NULL},
  {"csr_to_dense_matrix", "matrix(int, int, vector, array[] int, array[] int)", k_csr_to_dense, "dense"},
  {"to_array_2d", "array[,] real(matrix)", k_to_array_2d, NULL},
  {NULL, NULL, NULL, NULL}
};
