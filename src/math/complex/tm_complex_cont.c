/*
** tm_complex_cont.c -- container functions on complex values: sizes
** (size, num_elements, rows, cols, dims), builders (rep_*, to_vector,
** to_row_vector, to_matrix, to_array_1d/2d, diag_matrix), slices (head,
** tail, segment, block, row, col, sub_row, sub_col, diagonal, reverse),
** appends (append_row, append_col, append_array), cumulative_sum, add_diag,
** trace, dot_product, diag_pre/post_multiply.
**
** Most results are copies of argument elements: one gather (element k of
** the result is element idx[k] of argument src[k], or 0 when src[k] < 0)
** with one node handing each result adjoint back.
*/
#include <string.h>
#include "tm_complex.h"
#include "../tm_tables.h"

typedef struct gather_node {
  ad_node hdr;
  size_t n;
  const tm_v *const *src;
  const int *which;
  const size_t *idx;
  const double *oadj;
} gather_node;

static void gather_chain(ad_node *self) {
  gather_node *g = (gather_node *)self;
  for (size_t k = 0; k < g->n; k++)
    if (g->which[k] >= 0) cx_add_adj(g->src[g->which[k]], g->idx[k], g->oadj[2 * k], g->oadj[2 * k + 1]);
}

typedef struct gather {
  size_t n;
  int *which;
  size_t *idx;
} gather;

static int gather_new(gather *g, size_t n) {
  g->n = n;
  g->which = ad_alloc((n ? n : 1) * sizeof *g->which);
  g->idx = ad_alloc((n ? n : 1) * sizeof *g->idx);
  if (!g->which || !g->idx) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t k = 0; k < n; k++) { g->which[k] = -1; g->idx[k] = 0; }
  return AD_OK;
}

/* element k of the result is element idx of a[which] */
static inline void gather_set(gather *g, size_t k, int which, size_t idx) {
  g->which[k] = which;
  g->idx[k] = idx;
}

/* out (complex, base and shape given) = the gathered elements of a[0..na) */
static int gather_run(const tm_v *a, int na, const gather *g, int base, const tm_v *shape, tm_v *out) {
  int ad = tm_any_ad(a, na), rc;
  if ((rc = cx_new(out, shape, base, ad))) return rc;
  if (tm_numel(out) != g->n) return ad_fail(AD_EFATAL, "internal error: complex gather of %zu into %zu", g->n, tm_numel(out));
  for (size_t k = 0; k < g->n; k++) {
    cx z = g->which[k] >= 0 ? cx_get(&a[g->which[k]], g->idx[k]) : 0;
    out->val[2 * k] = creal(z);
    out->val[2 * k + 1] = cimag(z);
  }
  out->dep = (unsigned char)tm_any_dep(a, na);
  if (!ad || g->n == 0) return AD_OK;
  gather_node *node = ad_node_new(sizeof *node, gather_chain);
  tm_v *copies = ad_alloc((size_t)na * sizeof *copies);
  const tm_v **src = ad_alloc((size_t)na * sizeof *src);
  if (!node || !copies || !src) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < na; i++) { copies[i] = a[i]; src[i] = &copies[i]; }
  node->n = g->n; node->src = src; node->which = g->which; node->idx = g->idx; node->oadj = out->adj;
  return AD_OK;
}

static tm_v shape_of(int narr, const int *dim, int rows, int cols) {
  tm_v s;
  memset(&s, 0, sizeof s);
  s.narr = (unsigned char)narr;
  for (int i = 0; i < narr; i++) s.dim[i] = dim[i];
  s.rows = rows;
  s.cols = cols;
  return s;
}

/* a gather onto a rows x cols grid, s its shape */
static int grid_gather(gather *g, int rows, int cols, tm_v *s) {
  *s = shape_of(0, NULL, rows, cols);
  return gather_new(g, (size_t)rows * cols);
}

/* number of elements of one entry of an array (its inner value) */
static size_t inner_numel(const tm_v *v) {
  size_t n = (size_t)v->rows * (size_t)v->cols;
  for (int i = 1; i < v->narr; i++) n *= (size_t)v->dim[i];
  return n;
}

/* ---- sizes ---- */

enum { S_SIZE = 1, S_NUMEL, S_ROWS, S_COLS };

static int k_size(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int op = *(const int *)c->fn->data, r;
  switch (op) {
  case S_SIZE: r = a->narr ? a->dim[0] : a->base == TM_COMPLEX ? 1 : a->rows * a->cols; break;
  case S_NUMEL: r = (int)tm_numel(a); break;
  case S_ROWS: r = a->rows; break;
  default: r = a->cols; break;
  }
  return tm_set_int(out, r);
}

/* ---- builders ---- */

static int nonneg(const char *fn, const char *what, int n) {
  if (n < 0) return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be nonnegative!", fn, what, n);
  return AD_OK;
}

/* rep_array(x, n...), rep_vector(z, n), rep_row_vector(z, n), rep_matrix(z, m, n),
   rep_matrix(v, n) */
static int k_rep(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int op = *(const int *)c->fn->data, rc;   /* 0 array, 1 vector, 2 row vector, 3 matrix */
  int k[3] = {1, 1, 1}, nk = nargs - 1;
  if (nk < 1 || nk > 3) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < nk; i++) {
    k[i] = a[1 + i].ival[0];
    if ((rc = nonneg(fn, i == 0 ? "n" : "m", k[i]))) return rc;
  }
  tm_v s;
  int base;
  size_t inner = tm_numel(&a[0]);
  if (op == 0) {
    if (a[0].narr + nk > TM_MAXARR) return tm_no_overload(c, a, nargs);
    int dim[TM_MAXARR];
    for (int i = 0; i < nk; i++) dim[i] = k[i];
    for (int i = 0; i < a[0].narr; i++) dim[nk + i] = a[0].dim[i];
    s = shape_of(nk + a[0].narr, dim, a[0].rows, a[0].cols);
    base = cx_complex_base(a[0].base);
  } else if (op == 1) { s = shape_of(0, NULL, k[0], 1); base = TM_CVECTOR; }
  else if (op == 2) { s = shape_of(0, NULL, 1, k[0]); base = TM_CROW_VECTOR; }
  else if (nk == 2) { s = shape_of(0, NULL, k[0], k[1]); base = TM_CMATRIX; }
  else if (cx_real_base(a[0].base) == TM_VECTOR) { s = shape_of(0, NULL, a[0].rows, k[0]); base = TM_CMATRIX; }
  else { s = shape_of(0, NULL, k[0], a[0].cols); base = TM_CMATRIX; }
  gather g;
  s.base = (unsigned char)base;
  size_t n = tm_numel(&s);
  if ((rc = gather_new(&g, n))) return rc;
  int rowwise = op == 3 && nk == 1 && cx_real_base(a[0].base) == TM_ROW_VECTOR;
  for (size_t j = 0; j < n; j++) {
    g.which[j] = 0;
    /* a row vector repeated as rows: element (i, j) is column j of it */
    g.idx[j] = rowwise ? j / (size_t)s.rows : inner ? j % inner : 0;
  }
  return gather_run(a, 1, &g, base, &s, out);
}

/* to_vector, to_row_vector, to_array_1d: every element in column-major
** order (arrays: Stan's to_vector of an array keeps its order) */
static int k_flatten(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int op = *(const int *)c->fn->data, rc;   /* 0 vector, 1 row vector, 2 array */
  size_t n = tm_numel(a);
  if (n > 2147483647u) return ad_fail(AD_EINVALID, "%s: too many elements", c->fn->name);
  int dim[1] = {(int)n};
  tm_v s = op == 2 ? shape_of(1, dim, 1, 1) : op == 0 ? shape_of(0, NULL, (int)n, 1) : shape_of(0, NULL, 1, (int)n);
  gather g;
  if ((rc = gather_new(&g, n))) return rc;
  for (size_t j = 0; j < n; j++) { g.which[j] = 0; g.idx[j] = j; }
  return gather_run(a, 1, &g, op == 2 ? TM_COMPLEX : op == 0 ? TM_CVECTOR : TM_CROW_VECTOR, &s, out);
}

/* to_matrix(x), to_matrix(x, m, n), to_matrix(x, m, n, col_major),
** to_matrix(array[] complex_row_vector), to_matrix(array[,] complex) */
static int k_to_matrix(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  gather g;
  tm_v s;
  if (nargs == 1) {
    int m, n;
    if (a->narr == 2) { m = a->dim[0]; n = a->dim[1]; }                   /* array[,] complex: rows */
    else if (a->narr == 1) { m = a->dim[0]; n = m ? a->cols : 0; }        /* array[] complex_row_vector */
    else if (a->base == TM_CROW_VECTOR) { m = 1; n = a->cols; }
    else { m = a->rows; n = a->cols; }
    s = shape_of(0, NULL, m, n);
    if ((rc = gather_new(&g, (size_t)m * n))) return rc;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        size_t k = (size_t)i + (size_t)j * m;
        g.which[k] = 0;
        g.idx[k] = a->narr ? (size_t)i * n + j : k;   /* arrays: leading index first */
      }
    return gather_run(a, 1, &g, TM_CMATRIX, &s, out);
  }
  if (nargs != 3 && nargs != 4) return tm_no_overload(c, a, nargs);
  int m = a[1].ival[0], n = a[2].ival[0], colmajor = nargs == 4 ? a[3].ival[0] : 1;
  size_t size = tm_numel(&a[0]);
  if ((rc = nonneg(fn, "rows", m)) || (rc = nonneg(fn, "cols", n))) return rc;
  if ((rc = tm_check_size_match(fn, "rows * columns", (size_t)m * (size_t)n, "vector size", size))) return rc;
  s = shape_of(0, NULL, m, n);
  if ((rc = gather_new(&g, size))) return rc;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      size_t k = (size_t)i + (size_t)j * m;
      gather_set(&g, k, 0, colmajor ? k : (size_t)i * n + j);
    }
  return gather_run(a, 1, &g, TM_CMATRIX, &s, out);
}

static int k_to_array_2d(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int m = a->rows, n = a->cols, rc, dim[2] = {m, n};
  tm_v s = shape_of(2, dim, 1, 1);
  gather g;
  if ((rc = gather_new(&g, (size_t)m * n))) return rc;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      size_t k = (size_t)i * n + j;
      gather_set(&g, k, 0, (size_t)i + (size_t)j * m);
    }
  return gather_run(a, 1, &g, TM_COMPLEX, &s, out);
}

static int k_diag_matrix(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int n = (int)tm_numel(a), rc;
  tm_v s;
  gather g;
  if ((rc = grid_gather(&g, n, n, &s))) return rc;
  for (int i = 0; i < n; i++) { g.which[(size_t)i * (n + 1)] = 0; g.idx[(size_t)i * (n + 1)] = (size_t)i; }
  return gather_run(a, 1, &g, TM_CMATRIX, &s, out);
}

/* ---- slices ---- */

static int range_check(const char *fn, const char *what, int i, int lo, int hi) {
  if (i < lo || i > hi)
    return ad_fail(AD_EINVALID, "%s: %s is %d, but must be in the interval [%d, %d]", fn, what, i, lo, hi);
  return AD_OK;
}

/* head(v, n), tail(v, n), segment(v, i, n) on vectors or arrays (whole entries) */
static int k_seg(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int op = *(const int *)c->fn->data, rc;   /* 0 head, 1 tail, 2 segment */
  if (nargs != (op == 2 ? 3 : 2)) return tm_no_overload(c, a, nargs);
  int size = a->narr ? a->dim[0] : (int)tm_numel(a);
  int start, n;
  if (op == 2) {
    start = a[1].ival[0];
    n = a[2].ival[0];
    if ((rc = range_check(fn, "n", start, 1, size))) return rc;
    if ((rc = range_check(fn, "n", start + n - 1, start - 1, size))) return rc;
    start--;
  } else {
    n = a[1].ival[0];
    if (n != 0 && (rc = range_check(fn, "n", n, 1, size))) return rc;   /* Stan: n is an index unless 0 */
    start = op == 0 ? 0 : size - n;
  }
  tm_v s = a[0];
  size_t inner = a->narr ? inner_numel(a) : 1;
  if (a->narr) s.dim[0] = n;
  else if (a->base == TM_CVECTOR) s.rows = n;
  else s.cols = n;
  gather g;
  if ((rc = gather_new(&g, (size_t)n * inner))) return rc;
  for (size_t k = 0; k < g.n; k++) { g.which[k] = 0; g.idx[k] = (size_t)start * inner + k; }
  return gather_run(a, 1, &g, a->base, &s, out);
}

static int k_reverse(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int size = a->narr ? a->dim[0] : (int)tm_numel(a), rc;
  size_t inner = a->narr ? inner_numel(a) : 1;
  gather g;
  if ((rc = gather_new(&g, (size_t)size * inner))) return rc;
  for (int i = 0; i < size; i++)
    for (size_t j = 0; j < inner; j++) {
      size_t k = (size_t)i * inner + j;
      gather_set(&g, k, 0, (size_t)(size - 1 - i) * inner + j);
    }
  return gather_run(a, 1, &g, a->base, a, out);
}

/* block(m, i, j, nr, nc), row(m, i), col(m, j), sub_row(m, i, j, n),
** sub_col(m, i, j, n), diagonal(m): the elements (i0 + r, j0 + c) */
static int k_block(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int op = *(const int *)c->fn->data, rc;   /* 0 block, 1 row, 2 col, 3 sub_row, 4 sub_col, 5 diagonal */
  static const int want[] = {5, 2, 2, 4, 4, 1};
  if (nargs != want[op]) return tm_no_overload(c, a, nargs);
  int R = a->rows, C = a->cols, i0 = 0, j0 = 0, nr = R, nc = C, base = TM_CMATRIX, diag = 0;
  switch (op) {
  case 0:
    i0 = a[1].ival[0]; j0 = a[2].ival[0]; nr = a[3].ival[0]; nc = a[4].ival[0];
    if ((rc = range_check(fn, "i", i0, 1, R)) || (rc = range_check(fn, "j", j0, 1, C)) ||
        (rc = range_check(fn, "n_rows", nr, 0, R - i0 + 1)) || (rc = range_check(fn, "n_cols", nc, 0, C - j0 + 1)))
      return rc;
    break;
  case 1:
    i0 = a[1].ival[0]; j0 = 1; nr = 1;
    if ((rc = range_check(fn, "i", i0, 1, R))) return rc;
    base = TM_CROW_VECTOR;
    break;
  case 2:
    j0 = a[1].ival[0]; i0 = 1; nc = 1;
    if ((rc = range_check(fn, "j", j0, 1, C))) return rc;
    base = TM_CVECTOR;
    break;
  case 3: case 4: {
    i0 = a[1].ival[0]; j0 = a[2].ival[0];
    int n = a[3].ival[0];
    if ((rc = range_check(fn, "i", i0, 1, R)) || (rc = range_check(fn, "j", j0, 1, C))) return rc;
    if (op == 3) { nr = 1; nc = n; base = TM_CROW_VECTOR; if ((rc = range_check(fn, "n", n, 0, C - j0 + 1))) return rc; }
    else { nc = 1; nr = n; base = TM_CVECTOR; if ((rc = range_check(fn, "n", n, 0, R - i0 + 1))) return rc; }
    break;
  }
  default:
    i0 = j0 = 1; diag = 1; nr = R < C ? R : C; nc = 1; base = TM_CVECTOR;
    break;
  }
  i0--; j0--;
  tm_v s;
  gather g;
  if ((rc = grid_gather(&g, nr, nc, &s))) return rc;
  for (int jj = 0; jj < nc; jj++)
    for (int ii = 0; ii < nr; ii++) {
      size_t k = (size_t)ii + (size_t)jj * nr;
      int r = i0 + ii, col = diag ? j0 + ii : j0 + jj;
      gather_set(&g, k, 0, (size_t)r + (size_t)col * R);
    }
  return gather_run(a, 1, &g, base, &s, out);
}

/* ---- appends ---- */

/* append_row (op 0) stacks vertically, append_col (op 1) side by side; a
** scalar counts as 1 x 1 */
static int k_append(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  int op = *(const int *)c->fn->data, rc;
  int r0 = a[0].rows, c0 = a[0].cols, r1 = a[1].rows, c1 = a[1].cols;
  int R, C, base;
  if (op == 0) {
    if ((rc = tm_check_size_match(fn, "columns of A", (size_t)c0, "columns of B", (size_t)c1))) return rc;
    R = r0 + r1; C = c0;
    base = cx_real_base(a[0].base) == TM_ROW_VECTOR || cx_real_base(a[0].base) == TM_MATRIX ||
           cx_real_base(a[1].base) == TM_MATRIX || cx_real_base(a[1].base) == TM_ROW_VECTOR ? TM_CMATRIX : TM_CVECTOR;
  } else {
    if ((rc = tm_check_size_match(fn, "rows of A", (size_t)r0, "rows of B", (size_t)r1))) return rc;
    R = r0; C = c0 + c1;
    base = cx_real_base(a[0].base) == TM_VECTOR || cx_real_base(a[0].base) == TM_MATRIX ||
           cx_real_base(a[1].base) == TM_MATRIX || cx_real_base(a[1].base) == TM_VECTOR ? TM_CMATRIX : TM_CROW_VECTOR;
  }
  tm_v s;
  gather g;
  if ((rc = grid_gather(&g, R, C, &s))) return rc;
  for (int j = 0; j < C; j++)
    for (int i = 0; i < R; i++) {
      size_t k = (size_t)i + (size_t)j * R;
      int second = op == 0 ? i >= r0 : j >= c0;
      int ii = op == 0 && second ? i - r0 : i, jj = op == 1 && second ? j - c0 : j;
      int rows = second ? r1 : r0;
      gather_set(&g, k, second, (size_t)ii + (size_t)jj * rows);
    }
  return gather_run(a, 2, &g, base, &s, out);
}

static int k_append_array(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  int rc;
  for (int i = 1; i < a[0].narr; i++)
    if ((rc = tm_check_size_match(fn, "size of x", (size_t)a[0].dim[i], "size of y", (size_t)a[1].dim[i]))) return rc;
  if (a[0].narr == 1 || a[0].base != TM_COMPLEX) {
    if ((rc = tm_check_size_match(fn, "rows of x", (size_t)a[0].rows, "rows of y", (size_t)a[1].rows)) ||
        (rc = tm_check_size_match(fn, "columns of x", (size_t)a[0].cols, "columns of y", (size_t)a[1].cols)))
      return rc;
  }
  tm_v s = a[0];
  s.dim[0] = a[0].dim[0] + a[1].dim[0];
  size_t n0 = tm_numel(&a[0]), n1 = tm_numel(&a[1]);
  gather g;
  if ((rc = gather_new(&g, n0 + n1))) return rc;
  for (size_t k = 0; k < n0 + n1; k++) { g.which[k] = k >= n0; g.idx[k] = k >= n0 ? k - n0 : k; }
  return gather_run(a, 2, &g, cx_complex_base(a[0].base), &s, out);
}

/* ---- linear maps with their own nodes ---- */

/* cumulative_sum: out_k = sum_{j <= k} x_j; reverse: adj x_j += sum_{k >= j} adj out_k */
typedef struct cs_node { ad_node hdr; const tm_v *a; const double *oadj; size_t n; } cs_node;
static void cs_chain(ad_node *self) {
  cs_node *p = (cs_node *)self;
  double sr = 0, si = 0;
  for (size_t k = p->n; k-- > 0;) {
    sr += p->oadj[2 * k];
    si += p->oadj[2 * k + 1];
    cx_add_adj(p->a, k, sr, si);
  }
}

static int k_cumsum(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int rc, ad = a->adj != NULL;
  if ((rc = cx_new(out, a, a->base, ad))) return rc;
  size_t n = tm_numel(a);
  cx s = 0;
  for (size_t k = 0; k < n; k++) {
    s += cx_get(a, k);
    out->val[2 * k] = creal(s);
    out->val[2 * k + 1] = cimag(s);
  }
  out->dep = (unsigned char)(a->dep || ad);
  if (!ad || n == 0) return AD_OK;
  cs_node *p = ad_node_new(sizeof *p, cs_chain);
  tm_v *ac = ad_alloc(sizeof *ac);
  if (!p || !ac) return ad_fail(AD_EMEMORY, "out of memory");
  *ac = *a;
  p->a = ac; p->oadj = out->adj; p->n = n;
  return AD_OK;
}

/* add_diag(m, d): m with d (a scalar or one per diagonal element) added */
typedef struct ad_node_s { ad_node hdr; const tm_v *m, *d; const double *oadj; int rows, cols; } addiag_node;
static void addiag_chain(ad_node *self) {
  addiag_node *p = (addiag_node *)self;
  size_t n = (size_t)p->rows * p->cols;
  int nd = p->rows < p->cols ? p->rows : p->cols;
  for (size_t k = 0; k < n; k++) cx_add_adj(p->m, k, p->oadj[2 * k], p->oadj[2 * k + 1]);
  for (int i = 0; i < nd; i++) {
    size_t k = (size_t)i * (p->rows + 1);
    cx_add_adj(p->d, (size_t)i, p->oadj[2 * k], p->oadj[2 * k + 1]);
  }
}

static int k_add_diag(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  int R = a[0].rows, C = a[0].cols, nd = R < C ? R : C, rc;
  if (!cx_is_scalar(&a[1]) &&
      (rc = tm_check_size_match(c->fn->name, "number of elements of to_add", tm_numel(&a[1]),
                                "diagonal", (size_t)nd)))
    return rc;
  int ad = tm_any_ad(a, 2);
  if ((rc = cx_new(out, &a[0], TM_CMATRIX, ad))) return rc;
  size_t n = (size_t)R * C;
  for (size_t k = 0; k < n; k++) {
    cx z = cx_get(&a[0], k);
    out->val[2 * k] = creal(z);
    out->val[2 * k + 1] = cimag(z);
  }
  for (int i = 0; i < nd; i++) {
    cx z = cx_get(&a[1], (size_t)i);
    size_t k = (size_t)i * (R + 1);
    out->val[2 * k] += creal(z);
    out->val[2 * k + 1] += cimag(z);
  }
  out->dep = (unsigned char)tm_any_dep(a, 2);
  if (!ad || n == 0) return AD_OK;
  addiag_node *p = ad_node_new(sizeof *p, addiag_chain);
  tm_v *cp = cx_keep(&a[0], &a[1]);
  if (!p || !cp) return ad_fail(AD_EMEMORY, "out of memory");
  p->m = &cp[0]; p->d = &cp[1]; p->oadj = out->adj; p->rows = R; p->cols = C;
  return AD_OK;
}

/* trace(m) and dot_product(u, v): sums of products with one complex result */
typedef struct dot_node {
  ad_node hdr;
  const tm_v *u, *v;        /* v NULL: trace of u */
  const cx *uv, *vv;
  size_t n;
  int conj_u, rows;
  const double *oadj;
} dot_node;

static void dot_chain(ad_node *self) {
  dot_node *p = (dot_node *)self;
  cx g = cx_mk(p->oadj[0], p->oadj[1]);
  for (size_t i = 0; i < p->n; i++) {
    if (!p->v) {
      cx_add_adj(p->u, i * (size_t)(p->rows + 1), creal(g), cimag(g));
      continue;
    }
    /* s = sum f(u_i) v_i, f = conj or identity */
    if (p->v->adj) {
      cx d = (p->conj_u ? p->uv[i] : conj(p->uv[i])) * g;
      cx_add_adj(p->v, i, creal(d), cimag(d));
    }
    if (p->u->adj) {
      if (p->conj_u) {
        /* s depends on conj(u): d s = v du_bar; adj u += conj(conj(v)) ... as the real Jacobian gives */
        cx d = p->vv[i] * conj(g);
        cx_add_adj(p->u, i, creal(d), cimag(d));
      } else {
        cx d = conj(p->vv[i]) * g;
        cx_add_adj(p->u, i, creal(d), cimag(d));
      }
    }
  }
}

static int k_dot(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int trace = c->fn->data != NULL, rc;
  if (nargs != (trace ? 1 : 2)) return tm_no_overload(c, a, nargs);
  size_t n;
  if (trace) n = (size_t)(a[0].rows < a[0].cols ? a[0].rows : a[0].cols);
  else {
    n = tm_numel(&a[0]);
    if ((rc = tm_check_size_match(c->fn->name, "size of v1", n, "size of v2", tm_numel(&a[1])))) return rc;
  }
  /* Stan Math: Eigen's v1.dot(v2) conjugates v1; the array overload does not */
  int conj_u = !trace && a[0].narr == 0;
  int ad = tm_any_ad(a, trace ? 1 : 2);
  tm_v one = shape_of(0, NULL, 1, 1);
  if ((rc = cx_new(out, &one, TM_COMPLEX, ad))) return rc;
  cx *uv = ad_alloc((n ? n : 1) * sizeof *uv), *vv = trace ? NULL : ad_alloc((n ? n : 1) * sizeof *vv);
  if (!uv || (!trace && !vv)) return ad_fail(AD_EMEMORY, "out of memory");
  cx s = 0;
  for (size_t i = 0; i < n; i++) {
    if (trace) { s += cx_get(&a[0], i * (size_t)(a[0].rows + 1)); continue; }
    uv[i] = cx_get(&a[0], i);
    vv[i] = cx_get(&a[1], i);
    s += (conj_u ? conj(uv[i]) : uv[i]) * vv[i];
  }
  out->val[0] = creal(s);
  out->val[1] = cimag(s);
  out->dep = (unsigned char)tm_any_dep(a, trace ? 1 : 2);
  if (!ad || n == 0) return AD_OK;
  dot_node *p = ad_node_new(sizeof *p, dot_chain);
  tm_v *cp = cx_keep(&a[0], trace ? NULL : &a[1]);
  if (!p || !cp) return ad_fail(AD_EMEMORY, "out of memory");
  p->u = &cp[0]; p->v = trace ? NULL : &cp[1]; p->uv = uv; p->vv = vv; p->n = n; p->conj_u = conj_u;
  p->rows = a[0].rows; p->oadj = out->adj;
  return AD_OK;
}

/* diag_pre_multiply(v, m): v_i m_ij; diag_post_multiply(m, v): m_ij v_j */
/* The node of a result whose element (i, j) of a rows x cols grid adds the
** product x_ij y_at(i, j) to the result's element at(i, j): at is the grid
** element itself (AT_ELEM), its row or its column.  diag_pre_multiply and
** diag_post_multiply read y (the diagonal) by row or column, columns_ and
** rows_dot_product write their sums by column or row. */
enum { AT_ELEM, AT_ROW, AT_COL };
typedef struct prod_node { ad_node hdr; const tm_v *x, *y; const double *oadj; int rows, cols, y_at, o_at; } prod_node;
static inline size_t grid_at(int at, size_t k, int i, int j) {
  return at == AT_ELEM ? k : (size_t)(at == AT_ROW ? i : j);
}
static void prod_chain(ad_node *self) {
  prod_node *p = (prod_node *)self;
  for (int j = 0; j < p->cols; j++)
    for (int i = 0; i < p->rows; i++) {
      size_t k = (size_t)i + (size_t)j * p->rows;
      cx_add_prod_adj(p->x, k, p->y, grid_at(p->y_at, k, i, j), p->oadj + 2 * grid_at(p->o_at, k, i, j));
    }
}

static int prod_record(const tm_v *x, const tm_v *y, const tm_v *out, int rows, int cols, int y_at, int o_at) {
  prod_node *p = ad_node_new(sizeof *p, prod_chain);
  tm_v *cp = cx_keep(x, y);
  if (!p || !cp) return ad_fail(AD_EMEMORY, "out of memory");
  p->x = &cp[0]; p->y = &cp[1]; p->oadj = out->adj; p->rows = rows; p->cols = cols;
  p->y_at = y_at; p->o_at = o_at;
  return AD_OK;
}

/* diag_pre_multiply(v, m): v_i m_ij; diag_post_multiply(m, v): m_ij v_j */
static int k_diag_multiply(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  int post = c->fn->data != NULL, rc;
  const tm_v *m = post ? &a[0] : &a[1], *v = post ? &a[1] : &a[0];
  int R = m->rows, C = m->cols;
  if ((rc = tm_check_size_match(c->fn->name, post ? "m1.cols()" : "m1.size()", post ? (size_t)C : tm_numel(v),
                                post ? "m2.size()" : "m2.rows()", post ? tm_numel(v) : (size_t)R)))
    return rc;
  int ad = m->adj || v->adj;
  if ((rc = cx_new(out, m, TM_CMATRIX, ad))) return rc;
  for (int j = 0; j < C; j++)
    for (int i = 0; i < R; i++) {
      size_t k = (size_t)i + (size_t)j * R;
      cx z = cx_get(m, k) * cx_get(v, (size_t)(post ? j : i));
      out->val[2 * k] = creal(z);
      out->val[2 * k + 1] = cimag(z);
    }
  out->dep = (unsigned char)tm_any_dep(a, 2);
  if (!ad || (size_t)R * C == 0) return AD_OK;
  return prod_record(m, v, out, R, C, post ? AT_COL : AT_ROW, AT_ELEM);
}

static int k_symmetrize(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int rc, n = a->rows;
  if ((rc = tm_check_square(c->fn->name, "m", a))) return rc;
  gather g;
  if ((rc = gather_new(&g, (size_t)n * n))) return rc;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      size_t k = (size_t)i + (size_t)j * n;
      int r = i > j ? i : j, col = i > j ? j : i;
      gather_set(&g, k, 0, (size_t)r + (size_t)col * n);
    }
  return gather_run(a, 1, &g, TM_CMATRIX, a, out);
}

/* columns_dot_product(x, y) (op 0) and rows_dot_product(x, y) (op 1): the
** sums of x_ij y_ij by column or by row, without conjugation (Stan Math's
** cwiseProduct and colwise/rowwise sums) */
static int k_cols_dot(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  int byrow = c->fn->data != NULL, rc, R = a[0].rows, C = a[0].cols;
  if ((rc = tm_check_size_match(c->fn->name, "rows of v1", (size_t)R, "rows of v2", (size_t)a[1].rows)) ||
      (rc = tm_check_size_match(c->fn->name, "columns of v1", (size_t)C, "columns of v2", (size_t)a[1].cols)))
    return rc;
  int ad = tm_any_ad(a, 2);
  tm_v s = byrow ? shape_of(0, NULL, R, 1) : shape_of(0, NULL, 1, C);
  if ((rc = cx_new(out, &s, byrow ? TM_CVECTOR : TM_CROW_VECTOR, ad))) return rc;
  int n = byrow ? R : C;
  for (int o = 0; o < n; o++) out->val[2 * o] = out->val[2 * o + 1] = 0.0;
  for (int j = 0; j < C; j++)
    for (int i = 0; i < R; i++) {
      size_t k = (size_t)i + (size_t)j * R, o = (size_t)(byrow ? i : j);
      cx z = cx_get(&a[0], k) * cx_get(&a[1], k);
      out->val[2 * o] += creal(z);
      out->val[2 * o + 1] += cimag(z);
    }
  out->dep = (unsigned char)tm_any_dep(a, 2);
  if (!ad || (size_t)R * C == 0) return AD_OK;
  return prod_record(&a[0], &a[1], out, R, C, AT_ELEM, byrow ? AT_ROW : AT_COL);
}

/* dot_self (op 0), columns_dot_self (1), rows_dot_self (2): squared norms
** sum |x|^2 (Eigen's squaredNorm, as dot_product(x, x) conjugates x), a
** complex result with imaginary part 0 */
typedef struct dself_node { ad_node hdr; const tm_v *x; const double *oadj; int rows, cols, op; } dself_node;
static void dself_chain(ad_node *self) {
  dself_node *p = (dself_node *)self;
  for (int j = 0; j < p->cols; j++)
    for (int i = 0; i < p->rows; i++) {
      size_t k = (size_t)i + (size_t)j * p->rows, o = (size_t)(p->op == 0 ? 0 : p->op == 1 ? j : i);
      cx z = cx_get(p->x, k);
      double g = p->oadj[2 * o];
      cx_add_adj(p->x, k, 2 * creal(z) * g, 2 * cimag(z) * g);
    }
}

static int k_dot_self(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int op = *(const int *)c->fn->data, rc, R = a->rows, C = a->cols, ad = a->adj != NULL;
  tm_v s = op == 0 ? shape_of(0, NULL, 1, 1) : op == 1 ? shape_of(0, NULL, 1, C) : shape_of(0, NULL, R, 1);
  if ((rc = cx_new(out, &s, op == 0 ? TM_COMPLEX : op == 1 ? TM_CROW_VECTOR : TM_CVECTOR, ad))) return rc;
  size_t n = tm_numel(out);
  for (size_t o = 0; o < n; o++) out->val[2 * o] = out->val[2 * o + 1] = 0.0;
  for (int j = 0; j < C; j++)
    for (int i = 0; i < R; i++) {
      size_t k = (size_t)i + (size_t)j * R, o = (size_t)(op == 0 ? 0 : op == 1 ? j : i);
      cx z = cx_get(a, k);
      out->val[2 * o] += creal(z) * creal(z) + cimag(z) * cimag(z);
    }
  out->dep = (unsigned char)(a->dep || ad);
  if (!ad || (size_t)R * C == 0) return AD_OK;
  dself_node *p = ad_node_new(sizeof *p, dself_chain);
  tm_v *cp = cx_keep(a, NULL);
  if (!p || !cp) return ad_fail(AD_EMEMORY, "out of memory");
  p->x = cp; p->oadj = out->adj; p->rows = R; p->cols = C; p->op = op;
  return AD_OK;
}

/* ---- the table ---- */

static const int s_size = S_SIZE, s_numel = S_NUMEL, s_rows = S_ROWS, s_cols = S_COLS;
static const int r_array = 0, r_vector = 1, r_row = 2, r_matrix = 3;
static const int f_vec = 0, f_row = 1, f_arr = 2;
static const int g_head = 0, g_tail = 1, g_segment = 2;
static const int b_block = 0, b_row = 1, b_col = 2, b_sub_row = 3, b_sub_col = 4, b_diagonal = 5;
static const int a_row = 0, a_col = 1;
static const int is_trace = 1, is_post = 1;
static const int ds_dot = 0, ds_cols = 1, ds_rows = 2;


const tm_fn tm_fns_complex_cont[] = {
  {"size", "int(Zx)", k_size, &s_size},
  {"num_elements", "int(Zx)", k_size, &s_numel},
  {"rows", "int(complex_vector); int(complex_row_vector); int(complex_matrix)", k_size, &s_rows},
  {"cols", "int(complex_vector); int(complex_row_vector); int(complex_matrix)", k_size, &s_cols},
  {"dims", "array[] int(Zx)", tm_k_dims, NULL},
  {"rep_array",
   "array[] complex(complex, int); array[,] complex(complex, int, int); array[,,] complex(complex, int, "
   "int, int); array[,] complex(array[] complex, int); array[,,] complex(array[] complex, int, int); arr"
   "ay[,,,] complex(array[] complex, int, int, int); array[,,] complex(array[,] complex, int); array[,,,"
   "] complex(array[,] complex, int, int); array[,,,,] complex(array[,] complex, int, int, int); array[,"
   ",,] complex(array[,,] complex, int); array[,,,,] complex(array[,,] complex, int, int); array[,,,,,] "
   "complex(array[,,] complex, int, int, int); array[,,,,] complex(array[,,,] complex, int); array[,,,,,"
   "] complex(array[,,,] complex, int, int); array[,,,,,,] complex(array[,,,] complex, int, int, int); a"
   "rray[,,,,,] complex(array[,,,,] complex, int); array[,,,,,,] complex(array[,,,,] complex, int, int);"
   " array[,,,,,,,] complex(array[,,,,] complex, int, int, int)",
   k_rep, &r_array},
  {"rep_array",
   "array[] complex_vector(complex_vector, int); array[,] complex_vector(complex_vector, int, int); arra"
   "y[,,] complex_vector(complex_vector, int, int, int); array[,] complex_vector(array[] complex_vector,"
   " int); array[,,] complex_vector(array[] complex_vector, int, int); array[,,,] complex_vector(array[]"
   " complex_vector, int, int, int); array[,,] complex_vector(array[,] complex_vector, int); array[,,,] "
   "complex_vector(array[,] complex_vector, int, int); array[,,,,] complex_vector(array[,] complex_vecto"
   "r, int, int, int); array[,,,] complex_vector(array[,,] complex_vector, int); array[,,,,] complex_vec"
   "tor(array[,,] complex_vector, int, int); array[,,,,,] complex_vector(array[,,] complex_vector, int, "
   "int, int); array[,,,,] complex_vector(array[,,,] complex_vector, int); array[,,,,,] complex_vector(a"
   "rray[,,,] complex_vector, int, int); array[,,,,,,] complex_vector(array[,,,] complex_vector, int, in"
   "t, int); array[,,,,,] complex_vector(array[,,,,] complex_vector, int); array[,,,,,,] complex_vector("
   "array[,,,,] complex_vector, int, int); array[,,,,,,,] complex_vector(array[,,,,] complex_vector, int"
   ", int, int)",
   k_rep, &r_array},
  {"rep_array",
   "array[] complex_row_vector(complex_row_vector, int); array[,] complex_row_vector(complex_row_vector,"
   " int, int); array[,,] complex_row_vector(complex_row_vector, int, int, int); array[,] complex_row_ve"
   "ctor(array[] complex_row_vector, int); array[,,] complex_row_vector(array[] complex_row_vector, int,"
   " int); array[,,,] complex_row_vector(array[] complex_row_vector, int, int, int); array[,,] complex_r"
   "ow_vector(array[,] complex_row_vector, int); array[,,,] complex_row_vector(array[,] complex_row_vect"
   "or, int, int); array[,,,,] complex_row_vector(array[,] complex_row_vector, int, int, int); array[,,,"
   "] complex_row_vector(array[,,] complex_row_vector, int); array[,,,,] complex_row_vector(array[,,] co"
   "mplex_row_vector, int, int); array[,,,,,] complex_row_vector(array[,,] complex_row_vector, int, int,"
   " int); array[,,,,] complex_row_vector(array[,,,] complex_row_vector, int); array[,,,,,] complex_row_"
   "vector(array[,,,] complex_row_vector, int, int); array[,,,,,,] complex_row_vector(array[,,,] complex"
   "_row_vector, int, int, int); array[,,,,,] complex_row_vector(array[,,,,] complex_row_vector, int); a"
   "rray[,,,,,,] complex_row_vector(array[,,,,] complex_row_vector, int, int); array[,,,,,,,] complex_ro"
   "w_vector(array[,,,,] complex_row_vector, int, int, int)",
   k_rep, &r_array},
  {"rep_array",
   "array[] complex_matrix(complex_matrix, int); array[,] complex_matrix(complex_matrix, int, int); arra"
   "y[,,] complex_matrix(complex_matrix, int, int, int); array[,] complex_matrix(array[] complex_matrix,"
   " int); array[,,] complex_matrix(array[] complex_matrix, int, int); array[,,,] complex_matrix(array[]"
   " complex_matrix, int, int, int); array[,,] complex_matrix(array[,] complex_matrix, int); array[,,,] "
   "complex_matrix(array[,] complex_matrix, int, int); array[,,,,] complex_matrix(array[,] complex_matri"
   "x, int, int, int); array[,,,] complex_matrix(array[,,] complex_matrix, int); array[,,,,] complex_mat"
   "rix(array[,,] complex_matrix, int, int); array[,,,,,] complex_matrix(array[,,] complex_matrix, int, "
   "int, int); array[,,,,] complex_matrix(array[,,,] complex_matrix, int); array[,,,,,] complex_matrix(a"
   "rray[,,,] complex_matrix, int, int); array[,,,,,,] complex_matrix(array[,,,] complex_matrix, int, in"
   "t, int); array[,,,,,] complex_matrix(array[,,,,] complex_matrix, int); array[,,,,,,] complex_matrix("
   "array[,,,,] complex_matrix, int, int); array[,,,,,,,] complex_matrix(array[,,,,] complex_matrix, int"
   ", int, int)",
   k_rep, &r_array},
  {"rep_vector", "complex_vector(complex, int)", k_rep, &r_vector},
  {"rep_row_vector", "complex_row_vector(complex, int)", k_rep, &r_row},
  {"rep_matrix", "complex_matrix(complex, int, int); complex_matrix(complex_vector, int); "
   "complex_matrix(complex_row_vector, int)", k_rep, &r_matrix},
  {"to_vector", "complex_vector(complex_vector); complex_vector(complex_row_vector); complex_vector(complex_matrix); "
   "complex_vector(array[] complex)", k_flatten, &f_vec},
  {"to_row_vector", "complex_row_vector(complex_vector); complex_row_vector(complex_row_vector); "
   "complex_row_vector(complex_matrix); complex_row_vector(array[] complex)", k_flatten, &f_row},
  {"to_array_1d", "array[] complex(complex_vector); array[] complex(complex_row_vector); "
   "array[] complex(complex_matrix)", k_flatten, &f_arr},
  {"to_array_2d", "array[,] complex(complex_matrix)", k_to_array_2d, NULL},
  {"to_matrix", "complex_matrix(complex_vector); complex_matrix(complex_row_vector); complex_matrix(complex_matrix); "
   "complex_matrix(array[] complex_row_vector); complex_matrix(array[,] complex); "
   "complex_matrix(complex_vector, int, int); complex_matrix(complex_row_vector, int, int); "
   "complex_matrix(complex_matrix, int, int); complex_matrix(array[] complex, int, int); "
   "complex_matrix(complex_vector, int, int, int); complex_matrix(complex_row_vector, int, int, int); "
   "complex_matrix(complex_matrix, int, int, int); complex_matrix(array[] complex, int, int, int)",
   k_to_matrix, NULL},
  {"diag_matrix", "complex_matrix(complex_vector)", k_diag_matrix, NULL},
  {"head", "complex_vector(complex_vector, int); complex_row_vector(complex_row_vector, int); "
   "array[] complex(array[] complex, int); array[] complex_vector(array[] complex_vector, int); "
   "array[] complex_row_vector(array[] complex_row_vector, int); array[] complex_matrix(array[] complex_matrix, int); "
   "array[,] complex(array[,] complex, int); array[,] complex_vector(array[,] complex_vector, int); "
   "array[,] complex_row_vector(array[,] complex_row_vector, int); array[,] complex_matrix(array[,] complex_matrix, int); "
   "array[,,] complex(array[,,] complex, int); array[,,] complex_vector(array[,,] complex_vector, int); "
   "array[,,] complex_row_vector(array[,,] complex_row_vector, int); array[,,] complex_matrix(array[,,] complex_matrix, int)",
   k_seg, &g_head},
  {"tail", "complex_vector(complex_vector, int); complex_row_vector(complex_row_vector, int); "
   "array[] complex(array[] complex, int); array[] complex_vector(array[] complex_vector, int); "
   "array[] complex_row_vector(array[] complex_row_vector, int); array[] complex_matrix(array[] complex_matrix, int); "
   "array[,] complex(array[,] complex, int); array[,] complex_vector(array[,] complex_vector, int); "
   "array[,] complex_row_vector(array[,] complex_row_vector, int); array[,] complex_matrix(array[,] complex_matrix, int); "
   "array[,,] complex(array[,,] complex, int); array[,,] complex_vector(array[,,] complex_vector, int); "
   "array[,,] complex_row_vector(array[,,] complex_row_vector, int); array[,,] complex_matrix(array[,,] complex_matrix, int)",
   k_seg, &g_tail},
  {"segment", "complex_vector(complex_vector, int, int); complex_row_vector(complex_row_vector, int, int); "
   "array[] complex(array[] complex, int, int); array[] complex_vector(array[] complex_vector, int, int); "
   "array[] complex_row_vector(array[] complex_row_vector, int, int); "
   "array[] complex_matrix(array[] complex_matrix, int, int); "
   "array[,] complex(array[,] complex, int, int); array[,] complex_vector(array[,] complex_vector, int, int); "
   "array[,] complex_row_vector(array[,] complex_row_vector, int, int); "
   "array[,] complex_matrix(array[,] complex_matrix, int, int); "
   "array[,,] complex(array[,,] complex, int, int); array[,,] complex_vector(array[,,] complex_vector, int, int); "
   "array[,,] complex_row_vector(array[,,] complex_row_vector, int, int); "
   "array[,,] complex_matrix(array[,,] complex_matrix, int, int)",
   k_seg, &g_segment},
  {"reverse",
   "complex_vector(complex_vector); complex_row_vector(complex_row_vector); array[] complex(array[] comp"
   "lex); array[] complex_vector(array[] complex_vector); array[] complex_row_vector(array[] complex_row"
   "_vector); array[] complex_matrix(array[] complex_matrix); array[,] complex(array[,] complex); array["
   ",] complex_vector(array[,] complex_vector); array[,] complex_row_vector(array[,] complex_row_vector)"
   "; array[,] complex_matrix(array[,] complex_matrix); array[,,] complex(array[,,] complex); array[,,] "
   "complex_vector(array[,,] complex_vector); array[,,] complex_row_vector(array[,,] complex_row_vector)"
   "; array[,,] complex_matrix(array[,,] complex_matrix); array[,,,] complex(array[,,,] complex); array["
   ",,,] complex_vector(array[,,,] complex_vector); array[,,,] complex_row_vector(array[,,,] complex_row"
   "_vector); array[,,,] complex_matrix(array[,,,] complex_matrix); array[,,,,] complex(array[,,,,] comp"
   "lex); array[,,,,] complex_vector(array[,,,,] complex_vector); array[,,,,] complex_row_vector(array[,"
   ",,,] complex_row_vector); array[,,,,] complex_matrix(array[,,,,] complex_matrix); array[,,,,,] compl"
   "ex(array[,,,,,] complex); array[,,,,,] complex_vector(array[,,,,,] complex_vector); array[,,,,,] com"
   "plex_row_vector(array[,,,,,] complex_row_vector); array[,,,,,] complex_matrix(array[,,,,,] complex_m"
   "atrix); array[,,,,,,] complex(array[,,,,,,] complex); array[,,,,,,] complex_vector(array[,,,,,,] com"
   "plex_vector); array[,,,,,,] complex_row_vector(array[,,,,,,] complex_row_vector); array[,,,,,,] comp"
   "lex_matrix(array[,,,,,,] complex_matrix)",
   k_reverse, NULL},
  {"block", "complex_matrix(complex_matrix, int, int, int, int)", k_block, &b_block},
  {"row", "complex_row_vector(complex_matrix, int)", k_block, &b_row},
  {"col", "complex_vector(complex_matrix, int)", k_block, &b_col},
  {"sub_row", "complex_row_vector(complex_matrix, int, int, int)", k_block, &b_sub_row},
  {"sub_col", "complex_vector(complex_matrix, int, int, int)", k_block, &b_sub_col},
  {"diagonal", "complex_vector(complex_matrix)", k_block, &b_diagonal},
  {"append_row", "complex_vector(complex, complex_vector); complex_vector(complex_vector, complex); "
   "complex_vector(complex_vector, complex_vector); complex_matrix(complex_row_vector, complex_row_vector); "
   "complex_matrix(complex_row_vector, complex_matrix); complex_matrix(complex_matrix, complex_row_vector); "
   "complex_matrix(complex_matrix, complex_matrix)", k_append, &a_row},
  {"append_col", "complex_row_vector(complex, complex_row_vector); complex_row_vector(complex_row_vector, complex); "
   "complex_row_vector(complex_row_vector, complex_row_vector); complex_matrix(complex_vector, complex_vector); "
   "complex_matrix(complex_vector, complex_matrix); complex_matrix(complex_matrix, complex_vector); "
   "complex_matrix(complex_matrix, complex_matrix)", k_append, &a_col},
  {"append_array",
   "array[] complex(array[] complex, array[] complex); array[] complex_vector(array[] complex_vector, ar"
   "ray[] complex_vector); array[] complex_row_vector(array[] complex_row_vector, array[] complex_row_ve"
   "ctor); array[] complex_matrix(array[] complex_matrix, array[] complex_matrix); array[,] complex(arra"
   "y[,] complex, array[,] complex); array[,] complex_vector(array[,] complex_vector, array[,] complex_v"
   "ector); array[,] complex_row_vector(array[,] complex_row_vector, array[,] complex_row_vector); array"
   "[,] complex_matrix(array[,] complex_matrix, array[,] complex_matrix); array[,,] complex(array[,,] co"
   "mplex, array[,,] complex); array[,,] complex_vector(array[,,] complex_vector, array[,,] complex_vect"
   "or); array[,,] complex_row_vector(array[,,] complex_row_vector, array[,,] complex_row_vector); array"
   "[,,] complex_matrix(array[,,] complex_matrix, array[,,] complex_matrix); array[,,,] complex(array[,,"
   ",] complex, array[,,,] complex); array[,,,] complex_vector(array[,,,] complex_vector, array[,,,] com"
   "plex_vector); array[,,,] complex_row_vector(array[,,,] complex_row_vector, array[,,,] complex_row_ve"
   "ctor); array[,,,] complex_matrix(array[,,,] complex_matrix, array[,,,] complex_matrix); array[,,,,] "
   "complex(array[,,,,] complex, array[,,,,] complex); array[,,,,] complex_vector(array[,,,,] complex_ve"
   "ctor, array[,,,,] complex_vector); array[,,,,] complex_row_vector(array[,,,,] complex_row_vector, ar"
   "ray[,,,,] complex_row_vector); array[,,,,] complex_matrix(array[,,,,] complex_matrix, array[,,,,] co"
   "mplex_matrix); array[,,,,,] complex(array[,,,,,] complex, array[,,,,,] complex); array[,,,,,] comple"
   "x_vector(array[,,,,,] complex_vector, array[,,,,,] complex_vector); array[,,,,,] complex_row_vector("
   "array[,,,,,] complex_row_vector, array[,,,,,] complex_row_vector); array[,,,,,] complex_matrix(array"
   "[,,,,,] complex_matrix, array[,,,,,] complex_matrix); array[,,,,,,] complex(array[,,,,,,] complex, a"
   "rray[,,,,,,] complex); array[,,,,,,] complex_vector(array[,,,,,,] complex_vector, array[,,,,,,] comp"
   "lex_vector); array[,,,,,,] complex_row_vector(array[,,,,,,] complex_row_vector, array[,,,,,,] comple"
   "x_row_vector); array[,,,,,,] complex_matrix(array[,,,,,,] complex_matrix, array[,,,,,,] complex_matr"
   "ix)",
   k_append_array, NULL},
  {"cumulative_sum", "complex_vector(complex_vector); complex_row_vector(complex_row_vector); "
   "array[] complex(array[] complex)", k_cumsum, NULL},
  {"add_diag", "complex_matrix(complex_matrix, complex); complex_matrix(complex_matrix, complex_vector); "
   "complex_matrix(complex_matrix, complex_row_vector)", k_add_diag, NULL},
  {"trace", "complex(complex_matrix)", k_dot, &is_trace},
  {"dot_product", "complex(complex_vector, complex_vector); complex(complex_vector, complex_row_vector); "
   "complex(complex_row_vector, complex_vector); complex(complex_row_vector, complex_row_vector); "
   "complex(array[] complex, array[] complex)", k_dot, NULL},
  {"diag_pre_multiply", "complex_matrix(complex_vector, complex_matrix); "
   "complex_matrix(complex_row_vector, complex_matrix)", k_diag_multiply, NULL},
  {"diag_post_multiply", "complex_matrix(complex_matrix, complex_vector); "
   "complex_matrix(complex_matrix, complex_row_vector)", k_diag_multiply, &is_post},
  {"columns_dot_product", "complex_row_vector(complex_vector, complex_vector); "
   "complex_row_vector(complex_row_vector, complex_row_vector); complex_row_vector(complex_matrix, complex_matrix)",
   k_cols_dot, NULL},
  {"rows_dot_product", "complex_vector(complex_vector, complex_vector); "
   "complex_vector(complex_row_vector, complex_row_vector); complex_vector(complex_matrix, complex_matrix)",
   k_cols_dot, &is_post},
  {"dot_self", "complex(complex_vector); complex(complex_row_vector)", k_dot_self, &ds_dot},
  {"columns_dot_self", "complex_row_vector(complex_vector); complex_row_vector(complex_row_vector); "
   "complex_row_vector(complex_matrix)", k_dot_self, &ds_cols},
  {"rows_dot_self", "complex_vector(complex_vector); complex_vector(complex_row_vector); "
   "complex_vector(complex_matrix)", k_dot_self, &ds_rows},
  {"symmetrize_from_lower_tri", "complex_matrix(complex_matrix)", k_symmetrize, NULL},
  {NULL, NULL, NULL, NULL}
};
