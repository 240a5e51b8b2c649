/*
** tm_matrix.c -- multiply (every overload) and the linear algebra functions.
**
** Each kernel computes its result on doubles and, when an argument is
** autodiff, records ONE node whose reverse step applies the matrix-calculus
** adjoint of the whole operation (C = A B gives Abar += Cbar B^T and
** Bbar += A^T Cbar), never one node per element.  Adjoint work for data
** operands is skipped.  Values the reverse step needs are copied into the
** arena when recording, because the interpreter may reuse the storage of
** its frames after the call returns.
*/
#include <math.h>
#include <string.h>
#include <limits.h>
#include "../tm_tables.h"
#include "../tm_linalg.h"
#include "tm_la_call.h"
#include "../tm_simd.h"

#define AT TM_AT

/* ---- small helpers ---- */

/* A result computed from parameter-dependent doubles is itself dependent,
** so densities downstream keep the right terms under propto. */
static void mark_dep(tm_v *out, const tm_v *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].dep || a[i].adj) out->dep = 1;
}


static int new_base(tm_v *out, int base, int rows, int cols, int ad) {
  switch (base) {
  case TM_REAL: return tm_new_real(out, ad);
  case TM_VECTOR: return tm_new_vector(out, rows, ad);
  case TM_ROW_VECTOR: return tm_new_row_vector(out, cols, ad);
  default: return tm_new_matrix(out, rows, cols, ad);
  }
}

static int is_vec(const tm_v *v) {
  return v->narr == 0 && (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR);
}
static int is_mat(const tm_v *v) { return v->narr == 0 && v->base == TM_MATRIX; }

int tm_la_no_overload(const tm_call *c, const tm_v *a, int n) {
  char t[3][48];
  for (int i = 0; i < 3; i++) t[i][0] = '\0';
  for (int i = 0; i < n && i < 3; i++) tm_type_name(&a[i], t[i], sizeof t[i]);
  return ad_fail(AD_EINVALID, "%s: no overload for arguments (%s%s%s%s%s)", c->fn->name,
                 t[0], n > 1 ? ", " : "", t[1], n > 2 ? ", " : "", t[2]);
}

/* Stan's check_size_match wording: "fn: name1 (n1) and name2 (n2) must match in size" */
static int size_match(const char *fn, const char *n1, int s1, const char *n2, int s2) {
  if (s1 == s2) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s (%d) and %s (%d) must match in size", fn, n1, s1, n2, s2);
}

/* ---- multiply: scalar * scalar ---- */

static int mul_scalars(const tm_v *x, const tm_v *y, tm_v *out) {
  if (x->base == TM_INT && y->base == TM_INT) {
    long long p = (long long)x->ival[0] * (long long)y->ival[0];
    if (p > INT_MAX || p < INT_MIN)
      return ad_fail(AD_EDOMAIN, "multiply: integer overflow in %d * %d", x->ival[0], y->ival[0]);
    return tm_set_int(out, (int)p);
  }
  double a = tm_get(x, 0), b = tm_get(y, 0);
  ad_var r;
  int rc;
  if (x->adj && y->adj) rc = ad_binary((ad_var){x->val, x->adj}, (ad_var){y->val, y->adj}, a * b, b, a, &r);
  else if (x->adj) rc = ad_unary((ad_var){x->val, x->adj}, a * b, b, &r);
  else if (y->adj) rc = ad_unary((ad_var){y->val, y->adj}, a * b, a, &r);
  else {
    rc = tm_set_real(out, a * b);
    out->dep = (unsigned char)(x->dep || y->dep);
    return rc;
  }
  return rc ? rc : tm_set_var(out, r);
}

/* ---- multiply: scalar * container ---- */

typedef struct {
  ad_node hdr;
  size_t n;
  double s, *sadj;             /* the scalar and its adjoint (NULL for data) */
  double *x, *xadj;            /* container values (copied when s is autodiff) */
  double *cadj;
} scale_node;

void tm_scale_values(size_t n, double s, const double *x, double *o) {
  for (size_t i = 0; i < n; i++) o[i] = s * x[i];
}

void tm_scale_back(size_t n, double s, const double *x, double *xadj, double *sadj, const double *cadj) {
  if (xadj) for (size_t i = 0; i < n; i++) xadj[i] += s * cadj[i];
  if (sadj) {
    double g = 0;
    for (size_t i = 0; i < n; i++) g += cadj[i] * x[i];
    *sadj += g;
  }
}

static void scale_chain(ad_node *self) {
  scale_node *p = (scale_node *)self;
  tm_scale_back(p->n, p->s, p->x, p->xadj, p->sadj, p->cadj);
}

static int mul_scale(const tm_v *x, const tm_v *s, tm_v *out) {
  int ad = x->adj || s->adj;
  int rc = tm_new_like(out, x, ad);
  if (rc) return rc;
  double sv = tm_get(s, 0);
  size_t n = tm_numel(x);
  tm_scale_values(n, sv, x->val, out->val);        /* x: a real vector, row vector or matrix */
  if (!ad) { mark_dep(out, x, 1); mark_dep(out, s, 1); return AD_OK; }
  scale_node *p = ad_node_new(sizeof *p, scale_chain);
  if (!p) return AD_EMEMORY;
  p->n = n;
  p->s = sv;
  p->sadj = s->adj;
  p->xadj = x->adj;
  p->x = NULL;
  p->cadj = out->adj;
  if (s->adj && !(p->x = tm_copy_vals(x))) return AD_EMEMORY;
  return AD_OK;
}

/* ---- multiply: matrix products, C (m x n) = A (m x k) B (k x n) ---- */

/* Large products split over the evaluation's threads (tm_for): C's rows
** forward and Bbar's rows backward, each element summed over the same
** index in the same order as on one thread, so the bits do not depend on
** the threads. */
#define TM_MUL_PAR_MIN 65536.0   /* multiply-adds below which one thread does it */

typedef struct mul_job {
  int m, n, k, nb;
  const double *A, *B;
  double *C;
} mul_job;

/* C[lo..hi, ] += A[lo..hi, ] B: tm_la_gemm_nn on a band of C's rows */
static void mul_nn_band(void *ctx, int b) {
  const mul_job *q = ctx;
  int lo = (int)((long long)q->m * b / q->nb), hi = (int)((long long)q->m * (b + 1) / q->nb);
  tm_la_gemm_nn_rows(q->m, q->n, q->k, 1.0, q->A, q->B, q->C, lo, hi);
}

/* C[lo..hi, ] += A[, lo..hi]^T B: tm_la_gemm_tn on a band of C's rows */
static void mul_tn_band(void *ctx, int b) {
  const mul_job *q = ctx;
  int lo = (int)((long long)q->m * b / q->nb), hi = (int)((long long)q->m * (b + 1) / q->nb);
  tm_la_gemm_tn_rows(q->m, q->n, q->k, 1.0, q->A, q->B, q->C, lo, hi);
}

static int mul_bands(int m, int n, int k, int unit) {
  int t = tm_for_threads();
  if (tm_la_dense_gemm(m, n, k)) return 1;   /* the BLAS's gemm, threaded as it is */
  if (t < 2 || (double)m * n * k < TM_MUL_PAR_MIN || m < 2 * unit) return 1;
  int nb = 4 * t;
  return nb > m / unit ? m / unit : nb;
}

static void gemm_nn(int m, int n, int k, const double *A, const double *B, double *C) {
  int nb = mul_bands(m, n, k, 1);
  if (nb < 2) { tm_la_gemm_nn(m, n, k, 1.0, A, B, C); return; }
  mul_job q = { m, n, k, nb, A, B, C };
  tm_for(nb, (double)m * n * k, mul_nn_band, &q);
}

static void gemm_tn(int m, int n, int k, const double *A, const double *B, double *C) {
  int nb = mul_bands(m, n, k, 4);   /* bands of four rows or more (tm_la_gemm_tn_rows) */
  if (nb < 2) { tm_la_gemm_tn(m, n, k, 1.0, A, B, C); return; }
  mul_job q = { m, n, k, nb, A, B, C };
  tm_for(nb, (double)m * n * k, mul_tn_band, &q);
}

typedef struct {
  ad_node hdr;
  int m, k, n;
  double *A, *B;               /* copies: A needed for Bbar, B for Abar */
  double *Aadj, *Badj, *Cadj;
} matmul_node;

static void matmul_chain(ad_node *self) {
  matmul_node *p = (matmul_node *)self;
  if (p->Aadj) tm_la_gemm_nt(p->m, p->k, p->n, 1.0, p->Cadj, p->B, p->Aadj);
  if (p->Badj) gemm_tn(p->k, p->n, p->m, p->A, p->Cadj, p->Badj);
}

/* Result type of a product, or -1 when Stan has no such overload. */
static int product_base(const tm_v *x, const tm_v *y) {
  if (x->narr || y->narr) return -1;
  if (x->base == TM_ROW_VECTOR && y->base == TM_VECTOR) return TM_REAL;
  if (x->base == TM_MATRIX && y->base == TM_VECTOR) return TM_VECTOR;
  if (x->base == TM_ROW_VECTOR && y->base == TM_MATRIX) return TM_ROW_VECTOR;
  if (x->base == TM_VECTOR && y->base == TM_ROW_VECTOR) return TM_MATRIX;
  if (x->base == TM_MATRIX && y->base == TM_MATRIX) return TM_MATRIX;
  return -1;
}

static int mul_matrix(const tm_call *c, const tm_v *a, tm_v *out) {
  const tm_v *x = &a[0], *y = &a[1];
  int base = product_base(x, y);
  if (base < 0) return tm_la_no_overload(c, a, 2);
  if (x->cols != y->rows)
    return ad_fail(AD_EINVALID, "multiply: Columns of m1 (%d) and Rows of m2 (%d) must match in size",
                   x->cols, y->rows);
  int m = x->rows, k = x->cols, n = y->cols;
  int ad = x->adj || y->adj;
  int rc = new_base(out, base, m, n, ad);
  if (rc) return rc;
  memset(out->val, 0, (size_t)m * (size_t)n * sizeof(double));
  gemm_nn(m, n, k, x->val, y->val, out->val);
  if (!ad) { mark_dep(out, a, 2); return AD_OK; }
  matmul_node *p = ad_node_new(sizeof *p, matmul_chain);
  if (!p) return AD_EMEMORY;
  p->m = m; p->k = k; p->n = n;
  p->Aadj = x->adj; p->Badj = y->adj; p->Cadj = out->adj;
  p->A = p->B = NULL;
  /* the operands' values as the reverse pass will need them: a plan's
     constant stays as it is (c->frozen), anything else may be written
     before then */
  if (y->adj && !(p->A = (c->frozen & 1u) ? x->val : tm_copy_vals(x))) return AD_EMEMORY;
  if (x->adj && !(p->B = (c->frozen & 2u) ? y->val : tm_copy_vals(y))) return AD_EMEMORY;
  return AD_OK;
}

static int k_multiply(const tm_call *c, const tm_v *a, int n, tm_v *out) {
  if (n != 2) return tm_la_no_overload(c, a, n);
  const tm_v *x = &a[0], *y = &a[1];
  if (tm_is_scalar(x) && tm_is_scalar(y)) return mul_scalars(x, y, out);
  if (x->narr || y->narr) return tm_la_no_overload(c, a, n);
  if (tm_is_scalar(x)) return mul_scale(y, x, out);
  if (tm_is_scalar(y)) return mul_scale(x, y, out);
  return mul_matrix(c, a, out);
}

/* ---- diagonal scalings: diag_pre_multiply, diag_post_multiply, quad_form_diag ---- */

enum { DIAG_PRE, DIAG_POST, DIAG_QUAD };

typedef struct {
  ad_node hdr;
  int kind, r, c;
  double *v, *M;               /* copies: v needed for Mbar (and vbar of quad), M for vbar */
  double *vadj, *Madj, *Cadj;
} diag_node;

static void diag_chain(ad_node *self) {
  diag_node *p = (diag_node *)self;
  int r = p->r, c = p->c;
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++) {
      double g = AT(p->Cadj, r, i, j);
      if (g == 0) continue;
      switch (p->kind) {
      case DIAG_PRE:
        if (p->Madj) AT(p->Madj, r, i, j) += g * p->v[i];
        if (p->vadj) p->vadj[i] += g * AT(p->M, r, i, j);
        break;
      case DIAG_POST:
        if (p->Madj) AT(p->Madj, r, i, j) += g * p->v[j];
        if (p->vadj) p->vadj[j] += g * AT(p->M, r, i, j);
        break;
      default:
        if (p->Madj) AT(p->Madj, r, i, j) += g * p->v[i] * p->v[j];
        if (p->vadj) {
          double gm = g * AT(p->M, r, i, j);
          p->vadj[i] += gm * p->v[j];
          p->vadj[j] += gm * p->v[i];
        }
      }
    }
}

/* data: the kind; argument order differs (pre takes (v, M), the others (M, v)) */
static int k_diag(const tm_call *c, const tm_v *a, int n, tm_v *out) {
  int kind = *(const int *)c->fn->data;
  const char *fn = c->fn->name;
  if (n != 2) return tm_la_no_overload(c, a, n);
  const tm_v *v = kind == DIAG_PRE ? &a[0] : &a[1];
  const tm_v *M = kind == DIAG_PRE ? &a[1] : &a[0];
  if (!is_vec(v) || !is_mat(M)) return tm_la_no_overload(c, a, n);
  int r = M->rows, cc = M->cols, nv = v->rows * v->cols, rc;
  if (kind == DIAG_PRE) rc = size_match(fn, "m1.size()", nv, "m2.rows()", r);
  else if (kind == DIAG_POST) rc = size_match(fn, "m2.size()", nv, "m1.cols()", cc);
  else {
    if ((rc = tm_check_square(fn, "mat", M))) return rc;
    rc = size_match(fn, "rows of mat", r, "size of vec", nv);
  }
  if (rc) return rc;
  int ad = v->adj || M->adj;
  if ((rc = tm_new_matrix(out, r, cc, ad))) return rc;
  for (int j = 0; j < cc; j++)
    for (int i = 0; i < r; i++) {
      double m = AT(M->val, r, i, j);
      /* quad: v_i v_j first, so a symmetric M gives an exactly symmetric result */
      AT(out->val, r, i, j) = kind == DIAG_PRE ? v->val[i] * m
                              : kind == DIAG_POST ? m * v->val[j] : m * (v->val[i] * v->val[j]);
    }
  if (!ad) { mark_dep(out, a, 2); return AD_OK; }
  diag_node *p = ad_node_new(sizeof *p, diag_chain);
  if (!p) return AD_EMEMORY;
  p->kind = kind; p->r = r; p->c = cc;
  p->vadj = v->adj; p->Madj = M->adj; p->Cadj = out->adj;
  p->v = p->M = NULL;
  if ((M->adj || kind == DIAG_QUAD) && !(p->v = tm_copy_vals(v))) return AD_EMEMORY;
  if (v->adj && !(p->M = tm_copy_vals(M))) return AD_EMEMORY;
  return AD_OK;
}

/* ---- multiply_lower_tri_self_transpose: C = L L^T, L the lower triangle of m ---- */

typedef struct {
  ad_node hdr;
  int r, c;
  double *L, *Ladj, *Cadj;
} lowtri_node;

/* Lbar = (Cbar + Cbar^T) L, kept on the lower triangle (the only part read) */
static void lowtri_chain(ad_node *self) {
  lowtri_node *p = (lowtri_node *)self;
  int r = p->r, c = p->c;
  for (int k = 0; k < c && k < r; k++)
    for (int i = k; i < r; i++) {
      double s = 0;
      for (int j = k; j < r; j++)
        s += (AT(p->Cadj, r, i, j) + AT(p->Cadj, r, j, i)) * AT(p->L, r, j, k);
      AT(p->Ladj, r, i, k) += s;
    }
}

static int k_lowtri(const tm_call *c, const tm_v *a, int n, tm_v *out) {
  if (n != 1 || !is_mat(&a[0])) return tm_la_no_overload(c, a, n);
  const tm_v *m = &a[0];
  int r = m->rows, cc = m->cols, rc;
  if ((rc = tm_new_matrix(out, r, r, m->adj != NULL))) return rc;
  for (int j = 0; j < r; j++)
    for (int i = j; i < r; i++) {
      double s = 0;
      for (int k = 0; k <= j && k < cc; k++) s += AT(m->val, r, i, k) * AT(m->val, r, j, k);
      AT(out->val, r, i, j) = AT(out->val, r, j, i) = s;
    }
  if (!m->adj) { mark_dep(out, a, 1); return AD_OK; }
  lowtri_node *p = ad_node_new(sizeof *p, lowtri_chain);
  if (!p) return AD_EMEMORY;
  p->r = r; p->c = cc;
  p->Ladj = m->adj; p->Cadj = out->adj;
  if (!(p->L = tm_copy_vals(m))) return AD_EMEMORY;
  return AD_OK;
}

/* ---- cholesky_decompose ---- */

typedef struct {
  ad_node hdr;
  int n;
  double *L, *work, *Aadj, *Ladj;
} chol_node;

/* The blocks of the reverse pass: big enough that the products run at the
** speed of tm_block_gemm_sub, small enough that a block's unblocked pass is
** a small part of the work. */
#define CHOL_NB 48

/* Murray (2016)'s unblocked reverse pass on an nb x nb diagonal block: D
** (L's) and Db (Lbar's, turned into Abar's; lower triangles, leading
** dimension ld), column by column from the last. */
static void chol_rev_unblocked(int nb, const double *D, double *Db, int ld) {
  for (int jj = nb - 1; jj >= 0; jj--) {
    double d = AT(D, ld, jj, jj), db = AT(Db, ld, jj, jj), dot = 0;
    const double *c = &AT(D, ld, jj + 1, jj);
    double *cb = &AT(Db, ld, jj + 1, jj);
    int m = nb - 1 - jj;
    for (int i = 0; i < m; i++) dot += cb[i] * c[i];
    db -= dot / d;
    db /= d;
    for (int i = 0; i < m; i++) cb[i] /= d;
    for (int l = 0; l < jj; l++) {
      const double *bl = &AT(D, ld, jj + 1, l);
      double s = 0;
      for (int i = 0; i < m; i++) s += bl[i] * cb[i];
      AT(Db, ld, jj, l) -= db * AT(D, ld, jj, l);
      AT(Db, ld, jj, l) -= s;
      tm_block_axpy_sub(cb, AT(D, ld, jj, l), &AT(Db, ld, jj + 1, l), (size_t)m);
    }
    AT(Db, ld, jj, jj) = db / 2;
  }
}

/* C -= A B (m x k by k x n, leading dimensions given): the installed gemm
** when the whole reverse pass runs on the dense operations, else ours. */
static void chol_gemm_sub(const tm_dense_ops *d, int m, int n, int k, const double *A, int lda, const double *B,
                          int ldb, double *C, int ldc) {
  if (d) d->gemm('N', 'N', m, n, k, -1.0, A, lda, B, ldb, 1.0, C, ldc);
  else tm_block_gemm_sub((size_t)m, (size_t)n, (size_t)k, A, (size_t)lda, B, (size_t)ldb, C, (size_t)ldc);
}

/* The blocked reverse pass of Murray (2016), as Stan Math runs it: from the
** last block of columns [j, k) to the first, with R = L[j:k, :j], D =
** L[j:k, j:k], B = L[k:, :j], C = L[k:, j:k] and their adjoints,
**   Cbar <- Cbar D^-1, Bbar -= Cbar R, Dbar -= Cbar' C,
**   Dbar <- the unblocked pass on D, Rbar -= Cbar' B + (Dbar + Dbar') R,
** the products by tm_block_gemm_sub, or all by the installed gemm and trsm
** when n reaches their size (the forward pass then ran on potrf).  Abar's lower triangle is the
** gradient (the forward pass reads only A's lower triangle). */
static void chol_chain(ad_node *self) {
  chol_node *p = (chol_node *)self;
  int n = p->n;
  const double *L = p->L;
  const tm_dense_ops *d = tm_la_dense();
  if (d && n < d->min_chol) d = NULL;
  double *Ab = p->work, *T = Ab + (size_t)n * n, *S = T + (size_t)CHOL_NB * n;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) AT(Ab, n, i, j) = i >= j ? AT(p->Ladj, n, i, j) : 0.0;
  for (int k = n; k > 0; k -= CHOL_NB) {
    int j = k - CHOL_NB > 0 ? k - CHOL_NB : 0, nb = k - j, mc = n - k;
    if (mc > 0) {
      if (d) d->trsm('R', 'N', mc, nb, 1.0, &AT(L, n, j, j), n, &AT(Ab, n, k, j), n);
      else
        /* Cbar D^-1: column m of Cbar less its later columns times D[l, m], over D[m, m] */
        for (int m = nb - 1; m >= 0; m--) {
          double *cm = &AT(Ab, n, k, j + m);
          for (int l = m + 1; l < nb; l++) tm_block_axpy_sub(&AT(Ab, n, k, j + l), AT(L, n, j + l, j + m), cm, (size_t)mc);
          double dm = AT(L, n, j + m, j + m);
          for (int i = 0; i < mc; i++) cm[i] /= dm;
        }
      if (j > 0) chol_gemm_sub(d, mc, j, nb, &AT(Ab, n, k, j), n, &AT(L, n, j, 0), n, &AT(Ab, n, k, 0), n);
      /* T = Cbar' (nb x mc) */
      for (int r = 0; r < mc; r++)
        for (int c = 0; c < nb; c++) T[c + (size_t)r * nb] = AT(Ab, n, k + r, j + c);
      chol_gemm_sub(d, nb, nb, mc, T, nb, &AT(L, n, k, j), n, &AT(Ab, n, j, j), n);
    }
    chol_rev_unblocked(nb, &AT(L, n, j, j), &AT(Ab, n, j, j), n);
    if (j > 0) {
      if (mc > 0) chol_gemm_sub(d, nb, j, mc, T, nb, &AT(L, n, k, 0), n, &AT(Ab, n, j, 0), n);
      /* S = Dbar + Dbar' from Dbar's lower triangle (its diagonal halved) */
      for (int c = 0; c < nb; c++)
        for (int r = 0; r < nb; r++)
          S[r + c * nb] = r > c ? AT(Ab, n, j + r, j + c) : r < c ? AT(Ab, n, j + c, j + r) : 2 * AT(Ab, n, j + r, j + r);
      chol_gemm_sub(d, nb, j, nb, S, nb, &AT(L, n, j, 0), n, &AT(Ab, n, j, 0), n);
    }
  }
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) AT(p->Aadj, n, i, j) += AT(Ab, n, i, j);
}

static int k_cholesky(const tm_call *c, const tm_v *a, int n, tm_v *out) {
  static const char fn[] = "cholesky_decompose";
  if (n != 1 || !is_mat(&a[0])) return tm_la_no_overload(c, a, n);
  const tm_v *A = &a[0];
  int rc;
  if ((rc = tm_check_square(fn, "m", A))) return rc;
  if ((rc = tm_la_check_symmetric(fn, "m", A->rows, A->val))) return rc;
  int k = A->rows;
  if ((rc = tm_new_matrix(out, k, k, A->adj != NULL))) return rc;
  if (tm_la_cholesky(k, A->val, out->val, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: Matrix m is not positive definite", fn);
  if (!A->adj) { mark_dep(out, a, 1); return AD_OK; }
  chol_node *p = ad_node_new(sizeof *p, chol_chain);
  if (!p) return AD_EMEMORY;
  p->n = k;
  p->Aadj = A->adj; p->Ladj = out->adj;
  size_t kk = (size_t)k * (size_t)k, wk = kk + (size_t)CHOL_NB * k + (size_t)CHOL_NB * CHOL_NB;
  if (!(p->work = ad_alloc_doubles(wk)) || !(p->L = ad_alloc_doubles(kk ? kk : 1))) return AD_EMEMORY;
  memcpy(p->L, out->val, kk * sizeof *p->L);
  return AD_OK;
}

/* ---- gp_exp_quad_cov: K_ij = sigma^2 exp(-|x1_i - x2_j|^2 / (2 l^2)) ---- */

typedef struct {
  ad_node hdr;
  int n1, n2, d;
  double *x1, *x2, *x1adj, *x2adj;   /* x2 == x1 (and x2adj == x1adj) for K(x, x) */
  double *K, *Kadj;
  double s, l, *sadj, *ladj;
} gp_node;

static double sqdist(const double *a, const double *b, int d) {
  double s = 0;
  for (int c = 0; c < d; c++) { double t = a[c] - b[c]; s += t * t; }
  return s;
}

static void gp_chain(ad_node *self) {
  gp_node *p = (gp_node *)self;
  int d = p->d;
  double gs = 0, gl = 0, il2 = 1 / (p->l * p->l);
  for (int j = 0; j < p->n2; j++)
    for (int i = 0; i < p->n1; i++) {
      double g = AT(p->Kadj, p->n1, i, j) * AT(p->K, p->n1, i, j);
      if (g == 0) continue;
      const double *xi = p->x1 + (size_t)i * d, *xj = p->x2 + (size_t)j * d;
      gs += g;
      if (p->ladj) gl += g * sqdist(xi, xj, d);
      if (p->x1adj || p->x2adj)
        for (int c = 0; c < d; c++) {
          double t = g * (xi[c] - xj[c]) * il2;
          if (p->x1adj) p->x1adj[(size_t)i * d + c] -= t;
          if (p->x2adj) p->x2adj[(size_t)j * d + c] += t;
        }
    }
  if (p->sadj) *p->sadj += 2 * gs / p->s;
  if (p->ladj) *p->ladj += gl * il2 / p->l;
}

/* Points of an array[] real or array[] vector argument: count, dimension. */
static int gp_points(const tm_call *c, const tm_v *x, const char *name, int *np, int *d) {
  if (x->narr != 1 || x->base == TM_MATRIX) return ad_fail(AD_EINVALID, "%s: %s must be an array of reals or vectors", c->fn->name, name);
  *np = x->dim[0];
  *d = x->rows * x->cols;
  return tm_check_not_nan(c->fn->name, name, x);
}

static int k_gp_exp_quad(const tm_call *c, const tm_v *a, int n, tm_v *out) {
  const char *fn = c->fn->name;
  if (n != 3 && n != 4) return tm_la_no_overload(c, a, n);
  if (a[n - 1].narr == 1 && c->fn->data) return tm_gp_ard(c, a, n, out, TM_GP_EXP_QUAD);   /* one length scale per dimension */
  const tm_v *x1 = &a[0], *x2 = n == 4 ? &a[1] : &a[0], *s = &a[n - 2], *l = &a[n - 1];
  if (!tm_is_scalar(s) || !tm_is_scalar(l)) return tm_la_no_overload(c, a, n);
  int rc, n1, n2, d1, d2;
  if ((rc = tm_check_positive(fn, "magnitude", s))) return rc;
  if ((rc = tm_check_positive(fn, "length scale", l))) return rc;
  if ((rc = gp_points(c, x1, n == 4 ? "x1" : "x", &n1, &d1))) return rc;
  if ((rc = gp_points(c, x2, "x2", &n2, &d2))) return rc;
  if ((x1->base <= TM_REAL) != (x2->base <= TM_REAL)) return tm_la_no_overload(c, a, n);
  if ((rc = size_match(fn, "dimension of x1", d1, "dimension of x2", d2))) return rc;
  int ad = x1->adj || x2->adj || s->adj || l->adj;
  if ((rc = tm_new_matrix(out, n1, n2, ad))) return rc;
  double *p1 = tm_copy_vals(x1), *p2 = n == 4 ? tm_copy_vals(x2) : p1;
  if (!p1 || !p2) return AD_EMEMORY;
  double sv = tm_get(s, 0), lv = tm_get(l, 0), s2 = sv * sv, c2 = -0.5 / (lv * lv);
  for (int j = 0; j < n2; j++)
    for (int i = 0; i < n1; i++)
      AT(out->val, n1, i, j) = s2 * exp(c2 * sqdist(p1 + (size_t)i * d1, p2 + (size_t)j * d1, d1));
  if (!ad) { mark_dep(out, a, n); return AD_OK; }
  gp_node *p = ad_node_new(sizeof *p, gp_chain);
  if (!p) return AD_EMEMORY;
  p->n1 = n1; p->n2 = n2; p->d = d1;
  p->x1 = p1; p->x2 = p2; p->x1adj = x1->adj; p->x2adj = n == 4 ? x2->adj : x1->adj;
  p->Kadj = out->adj;
  p->s = sv; p->l = lv; p->sadj = s->adj; p->ladj = l->adj;
  size_t nn = (size_t)n1 * (size_t)n2;
  if (!(p->K = ad_alloc_doubles(nn ? nn : 1))) return AD_EMEMORY;
  if (nn) memcpy(p->K, out->val, nn * sizeof(double));
  return AD_OK;
}

static const int kind_pre = DIAG_PRE, kind_post = DIAG_POST, kind_quad = DIAG_QUAD;

#define GP_SIG "matrix(array[] real, real, real); matrix(array[] vector, real, real); " \
  "matrix(array[] real, array[] real, real, real); matrix(array[] vector, array[] vector, real, real)"

#define GP_ARD_SIG "matrix(array[] vector, real, array[] real); matrix(array[] vector, array[] vector, real, array[] real)"

const tm_fn tm_fns_matrix[] = {
  {"multiply", "int(int, int); real(real, real); vector(real, vector); row_vector(real, row_vector); "
   "matrix(real, matrix); vector(vector, real); row_vector(row_vector, real); matrix(matrix, real); "
   "vector(matrix, vector); row_vector(row_vector, matrix); real(row_vector, vector); "
   "matrix(vector, row_vector); matrix(matrix, matrix)", k_multiply, NULL},
  {"diag_pre_multiply", "matrix(vector, matrix); matrix(row_vector, matrix)", k_diag, &kind_pre},
  {"diag_post_multiply", "matrix(matrix, vector); matrix(matrix, row_vector)", k_diag, &kind_post},
  {"quad_form_diag", "matrix(matrix, vector); matrix(matrix, row_vector)", k_diag, &kind_quad},
  {"multiply_lower_tri_self_transpose", "matrix(matrix)", k_lowtri, NULL},
  {"cholesky_decompose", "matrix(matrix)", k_cholesky, NULL},
  {"gp_exp_quad_cov", GP_SIG "; " GP_ARD_SIG, k_gp_exp_quad, "ard"},
  /* the deprecated name keeps Stan 2.21's arrays of row vectors too */
  {"cov_exp_quad", GP_SIG "; matrix(array[] row_vector, real, real); "
   "matrix(array[] row_vector, array[] row_vector, real, real)", k_gp_exp_quad, NULL},
  {NULL, NULL, NULL, NULL}
};
