/*
** tm_solve.c -- linear systems, inverses and determinants: mdivide_left,
** mdivide_right, their _spd forms, mdivide_left_tri_low and
** mdivide_right_tri_low, inverse, inverse_spd, chol2inv, determinant,
** log_determinant(_spd).
**
** General matrices go through an LU factorization with partial pivoting,
** symmetric positive definite ones through Cholesky (tm_linalg.h).  Each
** call records ONE node; its reverse step reuses the factorization made in
** the forward pass (copied into the arena) to apply the transposed solve:
** for C = A^-1 B, Bbar = A^-T Cbar and Abar = -Bbar C^T; for C = B A^-1,
** Bbar = Cbar A^-T and Abar = -C^T Bbar.  Singular matrices are not an
** error, as in Stan: the result has infinities or NaNs.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_linalg.h"
#include "tm_la_call.h"

#define AT TM_AT

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }
static int is_mat(const tm_v *v) { return v->narr == 0 && v->base == TM_MATRIX; }

static int bad_args(const tm_call *c, const tm_v *a, int nargs) {
  char t[2][48];
  t[0][0] = t[1][0] = '\0';
  for (int i = 0; i < nargs && i < 2; i++) tm_type_name(&a[i], t[i], sizeof t[i]);
  return ad_fail(AD_EINVALID, "%s: no overload for arguments (%s%s%s)", c->fn->name, t[0],
                 nargs > 1 ? ", " : "", t[1]);
}



static double *alloc_n(size_t n) { return ad_alloc_doubles(n ? n : 1); }

/* out = x^T for an r x c matrix x (out is c x r), or += when add */
static void transpose(int r, int c, const double *x, double *out, int add) {
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++) {
      if (add) AT(out, c, j, i) += AT(x, r, i, j);
      else AT(out, c, j, i) = AT(x, r, i, j);
    }
}


/* ---- one factorization, general or Cholesky ---- */

typedef struct fact {
  int n, spd;
  double *F;                   /* LU, or the lower Cholesky factor */
  int *piv;
} fact;

static void f_solve(const fact *f, int m, double *b) {
  if (f->spd) { tm_la_trsm_lower(f->n, m, f->F, b); tm_la_trsm_lower_t(f->n, m, f->F, b); }
  else tm_la_lu_solve(f->n, f->F, f->piv, m, b);
}
static void f_solve_t(const fact *f, int m, double *b) {
  if (f->spd) f_solve(f, m, b);
  else tm_la_lu_solve_t(f->n, f->F, f->piv, m, b);
}

/* Factor square A; spd: check symmetry and positive definiteness first. */
static int factor(const tm_call *c, const char *name, const tm_v *A, int spd, fact *f) {
  const char *fn = c->fn->name;
  int rc = tm_check_square(fn, name, A);
  if (rc) return rc;
  int n = A->rows;
  f->n = n;
  f->spd = spd;
  f->piv = NULL;
  if (!(f->F = tm_copy_vals(A))) return nomem(c);
  if (spd) {
    if ((rc = tm_la_check_symmetric(fn, name, n, A->val))) return rc;
    if (tm_la_cholesky(n, A->val, f->F, NULL) >= 0)
      return ad_fail(AD_EDOMAIN, "%s: %s is not positive definite.", fn, name);
    return AD_OK;
  }
  if (!(f->piv = ad_alloc((size_t)(n ? n : 1) * sizeof(int)))) return nomem(c);
  tm_la_lu_factor(n, f->F, f->piv);
  return AD_OK;
}

/* ---- mdivide_left(A, B) = A^-1 B, mdivide_right(B, A) = B A^-1 ---- */

typedef struct {
  ad_node hdr;
  fact f;
  int m;                       /* B has m columns (left) or m rows (right) */
  double *C, *W, *Aadj, *Badj, *Cadj;
} solve_node;

/* C = A^-1 B: W = A^-T Cbar is Bbar;  Abar -= W C^T */
static void solve_chain(ad_node *self) {
  solve_node *p = (solve_node *)self;
  int n = p->f.n, m = p->m;
  size_t nm = (size_t)n * m;
  memcpy(p->W, p->Cadj, nm * sizeof(double));
  f_solve_t(&p->f, m, p->W);
  if (p->Badj) for (size_t i = 0; i < nm; i++) p->Badj[i] += p->W[i];
  if (p->Aadj) tm_la_gemm_nt(n, n, m, -1.0, p->W, p->C, p->Aadj);
}

/* C = B A^-1 (C, B: m x n): Bbar = Cbar A^-T, computed as its transpose
** W = A^-1 Cbar^T (n x m);  Abar -= C^T Bbar, (i, j) = sum_k C[k, i] W[j, k] */
static void solve_right_chain(ad_node *self) {
  solve_node *p = (solve_node *)self;
  int n = p->f.n, m = p->m;
  transpose(m, n, p->Cadj, p->W, 0);
  f_solve(&p->f, m, p->W);
  if (p->Badj) transpose(n, m, p->W, p->Badj, 1);
  if (p->Aadj)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < m; k++) s += AT(p->C, m, k, i) * AT(p->W, n, j, k);
        AT(p->Aadj, n, i, j) -= s;
      }
}

static int new_like_base(tm_v *out, int base, int rows, int cols, int ad) {
  if (base == TM_VECTOR) return tm_new_vector(out, rows, ad);
  if (base == TM_ROW_VECTOR) return tm_new_row_vector(out, cols, ad);
  return tm_new_matrix(out, rows, cols, ad);
}

/* data: bit 0 right, bit 1 spd */
static int k_mdivide(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int flags = *(const int *)c->fn->data, right = flags & 1, spd = flags >> 1 & 1, rc;
  const char *fn = c->fn->name;
  if (nargs != 2) return bad_args(c, a, nargs);
  const tm_v *A = right ? &a[1] : &a[0], *B = right ? &a[0] : &a[1];
  int want = right ? TM_ROW_VECTOR : TM_VECTOR;
  if (!is_mat(A) || B->narr || (B->base != TM_MATRIX && B->base != want)) return bad_args(c, a, nargs);
  fact f;
  if ((rc = factor(c, "A", A, spd, &f))) return rc;
  int n = A->rows, m;
  if (!right) {
    if (A->cols != B->rows)
      return ad_fail(AD_EINVALID, "%s: Columns of A (%d) and Rows of b (%d) must match in size", fn, A->cols, B->rows);
    m = B->cols;
  } else {
    if (B->cols != A->rows)
      return ad_fail(AD_EINVALID, "%s: Columns of b (%d) and Rows of A (%d) must match in size", fn, B->cols, A->rows);
    m = B->rows;
  }
  int ad = A->adj || B->adj;
  size_t nm = (size_t)n * m;
  if (new_like_base(out, B->base, B->rows, B->cols, ad)) return nomem(c);
  if (!right) {
    if (nm) memcpy(out->val, B->val, nm * sizeof(double));
    f_solve(&f, m, out->val);
  } else {
    double *t = alloc_n(nm);      /* C^T = A^-T B^T */
    if (!t) return nomem(c);
    transpose(m, n, B->val, t, 0);
    f_solve_t(&f, m, t);
    transpose(n, m, t, out->val, 0);
  }
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, 2); return AD_OK; }
  solve_node *p = ad_node_new(sizeof *p, right ? solve_right_chain : solve_chain);
  if (!p) return nomem(c);
  p->f = f; p->m = m;
  p->Aadj = A->adj; p->Badj = B->adj; p->Cadj = out->adj;
  p->C = NULL;
  if (!(p->W = alloc_n(nm)) || (A->adj && !(p->C = tm_copy_vals(out)))) return nomem(c);
  return AD_OK;
}

/* ---- mdivide_left_tri_low(L, b) = L^-1 b and mdivide_right_tri_low(B, L)
** = B L^-1, L's lower triangle ----
**
** Both are one triangular solve on n x m columns: X = L^-1 b for the left
** form, X = L^-T B^T = C^T for the right one.  One node serves both: the
** adjoint of the right-hand side is the solve with the other triangle
** (bbar = L^-T xbar; Bbar^T = L^-1 Cbar^T), and Lbar -= U V^T on the lower
** triangle with U, V = bbar, X (left) or X, Bbar^T (right: L^T X = B^T). */

typedef struct {
  ad_node hdr;
  int n, m, right;
  double *L;
  double *X;         /* the solution's n x m columns (C^T for the right form); NULL when L is data */
  double *W;         /* n x m: the right-hand side's adjoint, as columns */
  double *Ladj, *Badj, *Cadj;
} tri_node;

static void tri_chain(ad_node *self) {
  tri_node *p = (tri_node *)self;
  int n = p->n, m = p->m;
  if (p->right) {
    transpose(m, n, p->Cadj, p->W, 0);
    tm_la_trsm_lower(n, m, p->L, p->W);
    if (p->Badj) transpose(n, m, p->W, p->Badj, 1);
  } else {
    size_t nm = (size_t)n * (size_t)m;
    memcpy(p->W, p->Cadj, nm * sizeof(double));
    tm_la_trsm_lower_t(n, m, p->L, p->W);
    if (p->Badj) for (size_t i = 0; i < nm; i++) p->Badj[i] += p->W[i];
  }
  if (!p->Ladj) return;
  const double *U = p->right ? p->X : p->W, *V = p->right ? p->W : p->X;
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      double s = 0;
      for (int k = 0; k < m; k++) s += AT(U, n, i, k) * AT(V, n, j, k);
      AT(p->Ladj, n, i, j) -= s;
    }
}

/* the node of a solve whose result out has the columns X (n x m) */
static int tri_record(const tm_call *c, const tm_v *L, const tm_v *B, tm_v *out, int right, int n, int m,
                      double *X) {
  tri_node *p = ad_node_new(sizeof *p, tri_chain);
  if (!p) return nomem(c);
  p->n = n; p->m = m; p->right = right;
  p->Ladj = L->adj; p->Badj = B->adj; p->Cadj = out->adj;
  p->X = L->adj ? X : NULL;
  if (!(p->L = tm_copy_vals(L)) || !(p->W = alloc_n((size_t)n * m))) return nomem(c);
  return AD_OK;
}

static int k_mdivide_left_tri_low(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 2 || !is_mat(&a[0]) || a[1].narr || (a[1].base != TM_VECTOR && a[1].base != TM_MATRIX))
    return tm_la_no_overload(c, a, nargs);
  const tm_v *L = &a[0], *b = &a[1];
  int rc;
  if ((rc = tm_check_square(fn, "A", L))) return rc;
  if (L->cols != b->rows)
    return ad_fail(AD_EINVALID, "%s: Columns of A (%d) and Rows of b (%d) must match in size",
                   fn, L->cols, b->rows);
  int n = L->rows, m = b->cols, ad = L->adj || b->adj;
  if ((rc = new_like_base(out, b->base, n, m, ad))) return rc;
  size_t nm = (size_t)n * (size_t)m;
  if (nm) memcpy(out->val, b->val, nm * sizeof(double));
  tm_la_trsm_lower(n, m, L->val, out->val);
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, 2); return AD_OK; }
  double *X = NULL;
  if (L->adj && !(X = tm_copy_vals(out))) return nomem(c);
  return tri_record(c, L, b, out, 0, n, m, X);
}

static int k_mdivide_right_tri_low(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 2 || !is_mat(&a[1]) || a[0].narr || (a[0].base != TM_MATRIX && a[0].base != TM_ROW_VECTOR))
    return bad_args(c, a, nargs);
  const tm_v *B = &a[0], *L = &a[1];
  if ((rc = tm_check_square(fn, "A", L))) return rc;
  if (B->cols != L->rows)
    return ad_fail(AD_EINVALID, "%s: Columns of b (%d) and Rows of A (%d) must match in size", fn, B->cols, L->rows);
  int n = L->rows, m = B->rows, ad = L->adj || B->adj;
  size_t nm = (size_t)n * m;
  double *t = alloc_n(nm);
  if (!t || new_like_base(out, B->base, B->rows, B->cols, ad)) return nomem(c);
  transpose(m, n, B->val, t, 0);
  tm_la_trsm_lower_t(n, m, L->val, t);
  transpose(n, m, t, out->val, 0);
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, 2); return AD_OK; }
  return tri_record(c, L, B, out, 1, n, m, t);   /* t = C^T, in the arena */
}

/* ---- inverse, inverse_spd, chol2inv ---- */

enum { INV, INV_SPD, CHOL2INV };

typedef struct {
  ad_node hdr;
  int n, kind;
  double *C, *L, *W, *Aadj, *Cadj;
} inv_node;

static void inv_chain(ad_node *self) {
  inv_node *p = (inv_node *)self;
  int n = p->n;
  size_t nn = (size_t)n * n;
  double *G = p->W, *T = p->W + nn;
  /* inverse: Abar -= C^T Cbar C^T; chol2inv: Lbar -= C (Cbar + Cbar^T) C L,
  ** lower triangle (C symmetric) */
  if (p->kind == CHOL2INV)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) AT(G, n, i, j) = AT(p->Cadj, n, i, j) + AT(p->Cadj, n, j, i);
  else memcpy(G, p->Cadj, nn * sizeof(double));
  memset(T, 0, nn * sizeof(double));
  tm_la_gemm_tn(n, n, n, 1.0, p->C, G, T);           /* C^T G */
  if (p->kind != CHOL2INV) { tm_la_gemm_nt(n, n, n, -1.0, T, p->C, p->Aadj); return; }
  memset(G, 0, nn * sizeof(double));
  tm_la_gemm_nn(n, n, n, 1.0, T, p->C, G);            /* C G C */
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      double s = 0;
      for (int k = j; k < n; k++) s += AT(G, n, i, k) * AT(p->L, n, k, j);
      AT(p->Aadj, n, i, j) -= s;
    }
}

static int check_lower(const char *fn, const char *name, const tm_v *L) {
  int n = L->rows;
  for (int j = 1; j < n; j++)
    for (int i = 0; i < j; i++)
      if (AT(L->val, n, i, j) != 0)
        return ad_fail(AD_EDOMAIN, "%s: %s is not lower triangular; %s[%d,%d]=%.17g", fn, name, name, i + 1, j + 1,
                       AT(L->val, n, i, j));
  return AD_OK;
}

static int k_inverse(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int kind = *(const int *)c->fn->data, rc;
  const char *fn = c->fn->name;
  if (nargs != 1 || !is_mat(&a[0])) return bad_args(c, a, nargs);
  const tm_v *A = &a[0];
  int n = A->rows;
  size_t nn = (size_t)n * n;
  double *L = NULL;
  if (kind == CHOL2INV) {
    if ((rc = tm_check_square(fn, "L", A)) || (rc = check_lower(fn, "L", A))) return rc;
    if (tm_new_matrix(out, n, n, A->adj != NULL)) return nomem(c);
    tm_la_chol_inverse(n, A->val, out->val);
    L = A->val;
  } else {
    fact f;
    if ((rc = factor(c, "m", A, kind == INV_SPD, &f))) return rc;
    if (tm_new_matrix(out, n, n, A->adj != NULL)) return nomem(c);
    if (kind == INV_SPD) tm_la_chol_inverse(n, f.F, out->val);
    else {
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) AT(out->val, n, i, j) = i == j;
      tm_la_lu_solve(n, f.F, f.piv, n, out->val);
    }
  }
  if (!A->adj) { out->dep = (unsigned char)tm_any_dep(a, 1); return AD_OK; }
  inv_node *p = ad_node_new(sizeof *p, inv_chain);
  if (!p) return nomem(c);
  p->n = n; p->kind = kind;
  p->Aadj = A->adj; p->Cadj = out->adj;
  p->L = NULL;
  if (!(p->C = tm_copy_vals(out)) || !(p->W = alloc_n(2 * nn))) return nomem(c);
  if (L && !(p->L = tm_copy_vals(A))) return nomem(c);
  return AD_OK;
}

/* ---- determinant, log_determinant, log_determinant_spd ---- */

enum { DET, LOG_DET, LOG_DET_SPD };

static int k_determinant(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int kind = *(const int *)c->fn->data, rc;
  if (nargs != 1 || !is_mat(&a[0])) return bad_args(c, a, nargs);
  const tm_v *A = &a[0];
  fact f;
  if ((rc = factor(c, "m", A, kind == LOG_DET_SPD, &f))) return rc;
  int n = f.n;
  double v = kind == DET ? 1 : 0;
  for (int k = 0; k < n; k++) {
    double u = AT(f.F, n, k, k);
    if (kind == DET) v *= f.piv[k] != k ? -u : u;
    else if (kind == LOG_DET) v += log(fabs(u));
    else v += 2 * log(u);
  }
  if (!A->adj) {
    if (tm_set_real(out, v)) return nomem(c);
    out->dep = (unsigned char)tm_any_dep(a, 1);
    return AD_OK;
  }
  /* d det = det A^-T, d log|det| = A^-T (A^-1 for the symmetric form) */
  size_t nn = (size_t)n * n;
  double *d = alloc_n(nn);
  if (!d) return nomem(c);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) AT(d, n, i, j) = i == j;
  f_solve_t(&f, n, d);
  if (kind == DET) for (size_t i = 0; i < nn; i++) d[i] *= v;
  ad_operand o = {A->adj, d, nn};
  ad_var r;
  if (ad_operands_node(1, &o, v, &r)) return nomem(c);
  return tm_set_var(out, r);
}

static const int fl_left = 0, fl_right = 1, fl_left_spd = 2, fl_right_spd = 3;
static const int k_inv = INV, k_inv_spd = INV_SPD, k_chol2inv = CHOL2INV;
static const int k_det = DET, k_log_det = LOG_DET, k_log_det_spd = LOG_DET_SPD;

const tm_fn tm_fns_solve[] = {
  {"mdivide_left", "vector(matrix, vector); matrix(matrix, matrix)", k_mdivide, &fl_left},
  {"mdivide_right", "row_vector(row_vector, matrix); matrix(matrix, matrix)", k_mdivide, &fl_right},
  {"mdivide_left_spd", "vector(matrix, vector); matrix(matrix, matrix)", k_mdivide, &fl_left_spd},
  {"mdivide_right_spd", "row_vector(row_vector, matrix); matrix(matrix, matrix)", k_mdivide, &fl_right_spd},
  {"mdivide_left_tri_low", "vector(matrix, vector); matrix(matrix, matrix)", k_mdivide_left_tri_low, NULL},
  {"mdivide_right_tri_low", "row_vector(row_vector, matrix); matrix(matrix, matrix)", k_mdivide_right_tri_low, NULL},
  {"inverse", "matrix(matrix)", k_inverse, &k_inv},
  {"inverse_spd", "matrix(matrix)", k_inverse, &k_inv_spd},
  {"chol2inv", "matrix(matrix)", k_inverse, &k_chol2inv},
  {"determinant", "real(matrix)", k_determinant, &k_det},
  {"log_determinant", "real(matrix)", k_determinant, &k_log_det},
  {"log_determinant_spd", "real(matrix)", k_determinant, &k_log_det_spd},
  {NULL, NULL, NULL, NULL}
};
