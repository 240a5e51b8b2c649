/*
** tm_matfun.c -- matrix functions: matrix_exp, matrix_exp_multiply,
** scale_matrix_exp_multiply, matrix_power, trace_gen_quad_form, trace_dot,
** singular_values, svd_U, svd_V, generalized_inverse, qr_Q, qr_R,
** qr_thin_Q, qr_thin_R.
**
** trace_dot(A, B) = tr(A B) without forming the product.
**
** matrix_exp: Higham's (2005) scaling and squaring on the Pade approximant
** of degree 3, 5, 7, 9 or 13 chosen by the 1-norm, as Stan Math's
** matrix_exp_pade.  Its reverse step: the adjoint of X in exp(X) given
** the result's adjoint G is the Frechet derivative L(X^T, G), the upper
** right block of exp([X^T G; 0 X^T]) (G scaled to X's norm and back).
**
** matrix_power: n - 1 products, all powers kept; the reverse step
** Mbar = sum_k (M^k)^T G (M^(n-1-k))^T, as Stan's.
**
** SVD: one-sided Jacobi rotations (Hestenes) on the columns of A, or of
** A^T when A has more columns than rows: accurate singular values without
** forming A^T A.  Singular values descend; each column of V has its
** largest component positive (the signs of U follow), so U and V are a
** smooth function of A where the singular values are distinct.  Reverse
** steps are Stan's (Liao et al. 2019, eq. 4).
**
** QR: Householder reflections, then Stan's signs: R's diagonal made
** nonnegative by flipping rows of R and columns of Q.  The reverse step of
** the thin factors (A = Q R, Q m x k, k = min(m, n)) is the known formula
** Abar = (Qbar + Q copyltu(M)) R^-T, M = R Rbar^T - Qbar^T Q, with the
** columns beyond the first m handled as R2 = Q^T Y.  The full Q of a matrix
** with more rows than columns has columns the algorithm chooses (the
** reflectors'): its reverse step goes back through the Householder steps,
** as Stan's autodiff of Eigen's does.
**
** generalized_inverse: V diag(1/s) U^T over the singular values above
** max(m, n) eps s_max (rank-deficient matrices too); the reverse step is
** Golub and Pereyra's derivative of the pseudo-inverse at constant rank.
*/
#include <math.h>
#include <float.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_linalg.h"

#define AT TM_AT

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }
static int is_matrix(const tm_v *v) { return v->narr == 0 && v->base == TM_MATRIX; }

static int multiplicable(const tm_call *c, const char *n1, int cols, const char *n2, int rows) {
  if (cols == rows) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: Columns of %s (%d) and Rows of %s (%d) must match in size",
                 c->fn->name, n1, cols, n2, rows);
}

static double *zeros(size_t n) { return ad_alloc_zeros(n ? n : 1); }

/* A reverse step allocates nothing: its node gets a workspace at the
** forward step, sized by the same count, and the step carves it up. */
typedef struct { double *p, *end; } ws_t;
static double *ws_new(size_t n) { return ad_alloc_doubles(n ? n : 1); }
static double *take(ws_t *w, size_t n, int zero) {
  double *r = w->p;
  n = n ? n : 1;
  w->p += n;
  if (zero) memset(r, 0, n * sizeof(double));
  return r;
}

/* C = A B, n x n, C zeroed first */
static void mm(int n, const double *A, const double *B, double *C) {
  memset(C, 0, (size_t)n * n * sizeof(double));
  tm_la_gemm_nn(n, n, n, 1.0, A, B, C);
}

static double norm1(int n, const double *A) {
  double mx = 0;
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += fabs(AT(A, n, i, j));
    if (s > mx || isnan(s)) mx = s;
  }
  return mx;
}

/* ---------------------------------------------------------------- exp */

static const double pade3[] = {120, 60, 12, 1};
static const double pade5[] = {30240, 15120, 3360, 420, 30, 1};
static const double pade7[] = {17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1};
static const double pade9[] = {17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
                               3960., 90., 1.};
static const double pade13[] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
                                129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
                                40840800., 960960., 16380., 182., 1.};

/* E = exp(A), n x n; work holds 8 n^2 doubles, piv n ints.  Returns 0, or
** -1 when A is not finite (E is then NaN). */
static int expm(int n, const double *A0, double *E, double *work, int *piv) {
  size_t nn = (size_t)n * n;
  double nrm = norm1(n, A0);
  if (!isfinite(nrm)) {
    for (size_t i = 0; i < nn; i++) E[i] = NAN;
    return -1;
  }
  double *A = work, *A2 = work + nn, *A4 = work + 2 * nn, *A6 = work + 3 * nn, *U = work + 4 * nn,
         *V = work + 5 * nn, *T = work + 6 * nn, *P = work + 7 * nn;
  memcpy(A, A0, nn * sizeof(double));
  const double *b;
  int m, s = 0;
  if (nrm <= 1.495585217958292e-2) { b = pade3; m = 3; }
  else if (nrm <= 2.539398330063230e-1) { b = pade5; m = 5; }
  else if (nrm <= 9.504178996162932e-1) { b = pade7; m = 7; }
  else if (nrm <= 2.097847961257068) { b = pade9; m = 9; }
  else {
    b = pade13; m = 13;
    double r = nrm / 5.371920351148152;
    if (r > 1) s = (int)ceil(log2(r));
    if (s > 0) {
      double f = ldexp(1.0, -s);
      for (size_t i = 0; i < nn; i++) A[i] *= f;
    }
  }
  mm(n, A, A, A2);
  memset(U, 0, nn * sizeof(double));
  memset(V, 0, nn * sizeof(double));
  if (m < 13) {
    /* T = sum_k odd b_k A^(k-1), V = sum_k even b_k A^k, with P the running even power */
    memset(T, 0, nn * sizeof(double));
    for (int i = 0; i < n; i++) { AT(T, n, i, i) = b[1]; AT(V, n, i, i) = b[0]; }
    memcpy(P, A2, nn * sizeof(double));
    for (int k = 2; k <= m; k += 2) {
      for (size_t i = 0; i < nn; i++) { V[i] += b[k] * P[i]; T[i] += b[k + 1] * P[i]; }
      if (k + 2 <= m) { mm(n, P, A2, A4); memcpy(P, A4, nn * sizeof(double)); }
    }
    mm(n, A, T, U);
  } else {
    mm(n, A2, A2, A4);
    mm(n, A4, A2, A6);
    for (size_t i = 0; i < nn; i++) P[i] = b[13] * A6[i] + b[11] * A4[i] + b[9] * A2[i];
    mm(n, A6, P, T);
    for (size_t i = 0; i < nn; i++) T[i] += b[7] * A6[i] + b[5] * A4[i] + b[3] * A2[i];
    for (int i = 0; i < n; i++) AT(T, n, i, i) += b[1];
    mm(n, A, T, U);
    for (size_t i = 0; i < nn; i++) P[i] = b[12] * A6[i] + b[10] * A4[i] + b[8] * A2[i];
    mm(n, A6, P, V);
    for (size_t i = 0; i < nn; i++) V[i] += b[6] * A6[i] + b[4] * A4[i] + b[2] * A2[i];
    for (int i = 0; i < n; i++) AT(V, n, i, i) += b[0];
  }
  /* (V - U) E = V + U */
  for (size_t i = 0; i < nn; i++) { P[i] = V[i] - U[i]; E[i] = V[i] + U[i]; }
  tm_la_lu_factor(n, P, piv);
  tm_la_lu_solve(n, P, piv, n, E);
  for (int k = 0; k < s; k++) {
    mm(n, E, E, T);
    memcpy(E, T, nn * sizeof(double));
  }
  return 0;
}

/* Xbar += scale * L(X^T, G): the upper right block of exp([X^T G; 0 X^T]).
** Workspace: 40 n^2 doubles from w, piv 2 n ints. */
#define FRECHET_WS(nn) (40 * (nn))
static void expm_frechet_adjoint(int n, const double *X, const double *G, double scale, double *Xbar, ws_t *w,
                                 int *piv) {
  int n2 = 2 * n;
  size_t mm2 = (size_t)n2 * n2;
  double *B = take(w, mm2, 1), *E = take(w, mm2, 0), *work = take(w, 8 * mm2, 0);
  double gx = norm1(n, X), gg = norm1(n, G);
  if (gg == 0) return;
  double f = (gx > 0 ? gx : 1) / gg;     /* L is linear in G: scale it to X's size */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      AT(B, n2, i, j) = AT(B, n2, n + i, n + j) = AT(X, n, j, i);
      AT(B, n2, i, n + j) = f * AT(G, n, i, j);
    }
  expm(n2, B, E, work, piv);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) AT(Xbar, n, i, j) += scale / f * AT(E, n2, i, n + j);
}

typedef struct {
  ad_node hdr;
  int n, p;                  /* A n x n; B n x p (p = 0: no B) */
  double t;
  const double *A, *X, *E, *B;
  double *Aadj, *tadj, *Badj;
  const double *oadj;
  double *ws;                /* 2 n^2 + FRECHET_WS */
  int *piv;                  /* 2 n */
} exp_node;

static void exp_chain(ad_node *self) {
  exp_node *q = (exp_node *)self;
  int n = q->n, p = q->p;
  size_t nn = (size_t)n * n;
  ws_t w = {q->ws, NULL};
  double *Ebar;
  if (p) {
    if (q->Badj) tm_la_gemm_tn(n, p, n, 1.0, q->E, q->oadj, q->Badj);          /* E^T Cbar */
    if (!q->Aadj && !q->tadj) return;
    Ebar = take(&w, nn, 1);
    tm_la_gemm_nt(n, n, p, 1.0, q->oadj, q->B, Ebar);                            /* Cbar B^T */
  } else {
    Ebar = (double *)q->oadj;
  }
  double *Xbar = take(&w, nn, 1);
  expm_frechet_adjoint(n, q->X, Ebar, 1.0, Xbar, &w, q->piv);
  if (q->Aadj) for (size_t i = 0; i < nn; i++) q->Aadj[i] += q->t * Xbar[i];
  if (q->tadj) {
    double s = 0;
    for (size_t i = 0; i < nn; i++) s += Xbar[i] * q->A[i];
    *q->tadj += s;
  }
}

/* matrix_exp(A), matrix_exp_multiply(A, B), scale_matrix_exp_multiply(t, A, B) */
static int k_matrix_exp(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int form = (int)(*(const char *)c->fn->data - '0');     /* 0, 1, 2 as listed */
  int want = form == 0 ? 1 : form == 1 ? 2 : 3, rc;
  if (nargs != want) return tm_no_overload(c, a, nargs);
  const tm_v *tv = form == 2 ? &a[0] : NULL, *A = &a[form == 2], *B = form ? &a[nargs - 1] : NULL;
  if (!is_matrix(A) || (B && !is_matrix(B)) || (tv && !tm_is_scalar(tv))) return tm_no_overload(c, a, nargs);
  if (form == 0) {
    if ((rc = tm_check_square(fn, "input matrix", A))) return rc;
  } else {
    if ((rc = tm_check_square(fn, "input matrix", A)) || (rc = multiplicable(c, "A", A->cols, "B", B->rows)))
      return rc;
  }
  int n = A->rows, p = B ? B->cols : 0;
  double t = tv ? tm_get(tv, 0) : 1.0;
  int ad = A->adj || (B && B->adj) || (tv && tv->adj);
  size_t nn = (size_t)n * n;
  if (form == 0 ? tm_new_matrix(out, n, n, ad) : tm_new_matrix(out, n, p, ad)) return nomem(c);
  if (n == 0) return AD_OK;
  double *X = ad_alloc_doubles(nn), *E = ad_alloc_doubles(nn), *work = ad_alloc_doubles(8 * nn);
  int *piv = ad_alloc((size_t)n * sizeof(int));
  if (!X || !E || !work || !piv) return nomem(c);
  for (size_t i = 0; i < nn; i++) X[i] = t * A->val[i];
  expm(n, X, E, work, piv);
  double *Bc = NULL;
  if (B) {
    if (!(Bc = tm_copy_vals(B))) return nomem(c);
    memset(out->val, 0, (size_t)n * p * sizeof(double));
    tm_la_gemm_nn(n, p, n, 1.0, E, Bc, out->val);
  } else {
    memcpy(out->val, E, nn * sizeof(double));
  }
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, nargs); return AD_OK; }
  exp_node *q = ad_node_new(sizeof *q, exp_chain);
  if (!q) return nomem(c);
  q->n = n; q->p = p; q->t = t;
  q->X = X; q->E = E; q->B = Bc;
  if (!(q->A = tm_copy_vals(A))) return nomem(c);
  q->Aadj = A->adj; q->Badj = B ? B->adj : NULL; q->tadj = tv ? tv->adj : NULL;
  q->oadj = out->adj;
  if (!(q->ws = ws_new(2 * nn + FRECHET_WS(nn))) || !(q->piv = ad_alloc((size_t)2 * n * sizeof(int))))
    return nomem(c);
  return AD_OK;
}

/* ---------------------------------------------------------------- power */

typedef struct {
  ad_node hdr;
  int n, k;
  const double *P;           /* M^0 .. M^(k-1), n x n each */
  double *Madj, *T;          /* T: n^2 workspace */
  const double *oadj;
} pow_node;

static void pow_chain(ad_node *self) {
  pow_node *q = (pow_node *)self;
  int n = q->n, k = q->k;
  size_t nn = (size_t)n * n;
  /* Mbar += sum_{j=0}^{k-1} (M^j)^T G (M^(k-1-j))^T */
  double *T = q->T;
  for (int j = 0; j < k; j++) {
    memset(T, 0, nn * sizeof(double));
    tm_la_gemm_tn(n, n, n, 1.0, q->P + (size_t)j * nn, q->oadj, T);
    tm_la_gemm_nt(n, n, n, 1.0, T, q->P + (size_t)(k - 1 - j) * nn, q->Madj);
  }
}

static int k_matrix_power(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 2 || !is_matrix(&a[0]) || !tm_is_scalar(&a[1]) || a[1].base != TM_INT)
    return tm_no_overload(c, a, nargs);
  const tm_v *M = &a[0];
  if ((rc = tm_check_square(fn, "M", M)) || (rc = tm_check_nonnegative(fn, "n", &a[1])) ||
      (rc = tm_check_finite(fn, "M", M)))
    return rc;
  int n = M->rows, k = a[1].ival[0];
  size_t nn = (size_t)n * n;
  if (tm_new_matrix(out, n, n, M->adj != NULL)) return nomem(c);
  if (n == 0) return AD_OK;
  /* powers 0 .. k - 1 kept for the reverse step; k products in all */
  size_t keep = M->adj ? (size_t)(k > 0 ? k : 1) : 2;
  double *P = ad_alloc_doubles(keep * nn), *Mc = tm_copy_vals(M);
  if (!P || !Mc) return nomem(c);
  memset(P, 0, nn * sizeof(double));
  for (int i = 0; i < n; i++) AT(P, n, i, i) = 1;
  double *cur = P;
  for (int j = 1; j <= k; j++) {
    double *next = j == k ? out->val : (M->adj ? P + (size_t)j * nn : P + (size_t)(j & 1) * nn);
    mm(n, cur, Mc, next);
    cur = next;
  }
  if (k == 0) memcpy(out->val, P, nn * sizeof(double));
  if (!M->adj) { out->dep = M->dep; return AD_OK; }
  if (k == 0) return AD_OK;
  pow_node *q = ad_node_new(sizeof *q, pow_chain);
  if (!q) return nomem(c);
  q->n = n; q->k = k; q->P = P; q->Madj = M->adj; q->oadj = out->adj;
  if (!(q->T = ws_new(nn))) return nomem(c);
  return AD_OK;
}

/* ---------------------------------------------------- trace_gen_quad_form */

/* trace(D B^T A B): Dbar = B^T A^T B, Abar = B D^T B^T, Bbar = A B D + A^T B D^T */
typedef struct {
  ad_node hdr;
  int n, k;                  /* A n x n, B n x k, D k x k */
  const double *D, *A, *B;
  double *Dadj, *Aadj, *Badj;
  ad_var out;
  double *ws;                /* 4 n k */
} tgq_node;

static void tgq_chain(ad_node *self) {
  tgq_node *q = (tgq_node *)self;
  double g = *q->out.adj;
  int n = q->n, k = q->k;
  ws_t w = {q->ws, NULL};
  size_t nk = (size_t)n * k;
  double *AB = take(&w, nk, 1), *T = take(&w, nk, 1);
  if (q->Dadj) {             /* B^T A^T B = (A B)^T B */
    tm_la_gemm_nn(n, k, n, 1.0, q->A, q->B, AB);
    tm_la_gemm_tn(k, k, n, g, AB, q->B, q->Dadj);
  }
  if (q->Aadj) {             /* B D^T B^T */
    tm_la_gemm_nt(n, k, k, 1.0, q->B, q->D, T);
    tm_la_gemm_nt(n, n, k, g, T, q->B, q->Aadj);
  }
  if (q->Badj) {             /* A (B D) + A^T (B D^T) */
    double *BD = take(&w, nk, 1), *BDt = take(&w, nk, 1);
    tm_la_gemm_nn(n, k, k, 1.0, q->B, q->D, BD);
    tm_la_gemm_nt(n, k, k, 1.0, q->B, q->D, BDt);
    tm_la_gemm_nn(n, k, n, g, q->A, BD, q->Badj);
    tm_la_gemm_tn(n, k, n, g, q->A, BDt, q->Badj);
  }
}

static int k_trace_gen_quad_form(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 3 || !is_matrix(&a[0]) || !is_matrix(&a[1]) || !is_matrix(&a[2])) return tm_no_overload(c, a, nargs);
  const tm_v *D = &a[0], *A = &a[1], *B = &a[2];
  if ((rc = tm_check_square(fn, "A", A)) || (rc = tm_check_square(fn, "D", D)) ||
      (rc = multiplicable(c, "A", A->cols, "B", B->rows)) || (rc = multiplicable(c, "B", B->cols, "D", D->rows)))
    return rc;
  int n = A->rows, k = B->cols;
  double *Dc = tm_copy_vals(D), *Ac = tm_copy_vals(A), *Bc = tm_copy_vals(B);
  double *AB = zeros((size_t)n * k), *BD = zeros((size_t)n * k);
  if (!Dc || !Ac || !Bc || !AB || !BD) return nomem(c);
  tm_la_gemm_nn(n, k, n, 1.0, Ac, Bc, AB);
  tm_la_gemm_nt(n, k, k, 1.0, Bc, Dc, BD);
  double f = 0;
  for (size_t i = 0; i < (size_t)n * k; i++) f += AB[i] * BD[i];
  if (!tm_any_ad(a, 3)) {
    if (tm_set_real(out, f)) return nomem(c);
    out->dep = (unsigned char)tm_any_dep(a, 3);
    return AD_OK;
  }
  if (tm_new_real(out, 1)) return nomem(c);
  out->val[0] = f;
  tgq_node *q = ad_node_new(sizeof *q, tgq_chain);
  if (!q) return nomem(c);
  q->n = n; q->k = k; q->D = Dc; q->A = Ac; q->B = Bc;
  q->Dadj = D->adj; q->Aadj = A->adj; q->Badj = B->adj;
  q->out.val = out->val; q->out.adj = out->adj;
  if (!(q->ws = ws_new(4 * (size_t)n * k + 4))) return nomem(c);
  return AD_OK;
}

/* ---- trace_dot(A, B) = tr(A B) = sum_ij A_ij B_ji: Abar = g B^T, Bbar = g A^T ---- */
static int k_trace_dot(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 2 || !is_matrix(&a[0]) || !is_matrix(&a[1])) return tm_no_overload(c, a, nargs);
  const tm_v *A = &a[0], *B = &a[1];
  if ((rc = tm_check_size_match(fn, "A.cols()", (size_t)A->cols, "B.rows()", (size_t)B->rows)) ||
      (rc = tm_check_size_match(fn, "A.rows()", (size_t)A->rows, "B.cols()", (size_t)B->cols)))
    return rc;
  int m = A->rows, n = A->cols;
  double f = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) f += AT(A->val, m, i, j) * AT(B->val, n, j, i);
  if (!tm_any_ad(a, 2)) {
    if (tm_set_real(out, f)) return nomem(c);
    out->dep = (unsigned char)tm_any_dep(a, 2);
    return AD_OK;
  }
  double *d[2];
  rc = 0;
  d[0] = tm_new_partials(A, &rc);
  d[1] = tm_new_partials(B, &rc);
  if (rc) return nomem(c);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      if (d[0]) AT(d[0], m, i, j) = AT(B->val, n, j, i);
      if (d[1]) AT(d[1], n, j, i) = AT(A->val, m, i, j);
    }
  return tm_set_partials(out, a, d, 2, f) ? nomem(c) : AD_OK;
}

/* ---------------------------------------------------------------- SVD */

/* Thin SVD of A (m x n), k = min(m, n): U (m x k), s (k, descending),
** V (n x k). */
static int svd(int m, int n, const double *A, double *U, double *s, double *V) {
  int tr = m < n, r = tr ? n : m, c = tr ? m : n;     /* work on W (r x c), r >= c */
  double *W = ad_alloc_doubles((size_t)r * c), *Q = ad_alloc_doubles((size_t)c * c);
  double *nrm = ad_alloc_doubles((size_t)c);
  int *ord = ad_alloc((size_t)c * sizeof(int));
  if (!W || !Q || !nrm || !ord) return AD_EMEMORY;
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++) AT(W, r, i, j) = tr ? AT(A, m, j, i) : AT(A, m, i, j);
  for (int j = 0; j < c; j++)
    for (int i = 0; i < c; i++) AT(Q, c, i, j) = i == j;
  for (int sweep = 0; sweep < 80; sweep++) {
    int rotated = 0;
    for (int p = 0; p < c - 1; p++)
      for (int q = p + 1; q < c; q++) {
        double al = 0, be = 0, ga = 0;
        for (int i = 0; i < r; i++) {
          double x = AT(W, r, i, p), y = AT(W, r, i, q);
          al += x * x; be += y * y; ga += x * y;
        }
        if (ga == 0 || fabs(ga) <= DBL_EPSILON * sqrt(al * be)) continue;
        rotated = 1;
        double zeta = (be - al) / (2 * ga);
        double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double cs = 1 / sqrt(1 + t * t), sn = cs * t;
        for (int i = 0; i < r; i++) {
          double x = AT(W, r, i, p), y = AT(W, r, i, q);
          AT(W, r, i, p) = cs * x - sn * y;
          AT(W, r, i, q) = sn * x + cs * y;
        }
        for (int i = 0; i < c; i++) {
          double x = AT(Q, c, i, p), y = AT(Q, c, i, q);
          AT(Q, c, i, p) = cs * x - sn * y;
          AT(Q, c, i, q) = sn * x + cs * y;
        }
      }
    if (!rotated) break;
  }
  for (int j = 0; j < c; j++) {
    double t = 0;
    for (int i = 0; i < r; i++) t += AT(W, r, i, j) * AT(W, r, i, j);
    nrm[j] = sqrt(t);
    ord[j] = j;
  }
  for (int i = 1; i < c; i++) {          /* insertion sort, descending, stable */
    int o = ord[i], j = i;
    while (j > 0 && nrm[ord[j - 1]] < nrm[o]) { ord[j] = ord[j - 1]; j--; }
    ord[j] = o;
  }
  /* left vectors L (r x c) = W / s, right vectors R (c x c) = Q, in order */
  double *L = tr ? V : U, *R = tr ? U : V;
  double smax = c ? nrm[ord[0]] : 0;
  for (int k = 0; k < c; k++) {
    int j = ord[k];
    s[k] = nrm[j];
    int big = 0;
    for (int i = 1; i < c; i++) if (fabs(AT(Q, c, i, j)) > fabs(AT(Q, c, big, j))) big = i;
    double sg = AT(Q, c, big, j) < 0 ? -1 : 1;
    if (tr) {                /* make the largest component of A's V (the left vectors here) positive below */
      sg = 1;
    }
    for (int i = 0; i < c; i++) AT(R, c, i, k) = sg * AT(Q, c, i, j);
    if (s[k] > smax * DBL_EPSILON * r && s[k] > 0)
      for (int i = 0; i < r; i++) AT(L, r, i, k) = sg * AT(W, r, i, j) / s[k];
    else
      for (int i = 0; i < r; i++) AT(L, r, i, k) = NAN;      /* completed below */
  }
  /* complete the left vectors of zero singular values: Gram-Schmidt on unit vectors */
  for (int k = 0; k < c; k++) {
    if (!isnan(AT(L, r, 0, k))) continue;
    for (int e = 0; e < r; e++) {
      double *x = L + (size_t)k * r;
      for (int i = 0; i < r; i++) x[i] = i == e;
      for (int pass = 0; pass < 2; pass++)
        for (int k2 = 0; k2 < c; k2++) {
          if (k2 == k || isnan(AT(L, r, 0, k2))) continue;
          double d = 0;
          for (int i = 0; i < r; i++) d += AT(L, r, i, k2) * x[i];
          for (int i = 0; i < r; i++) x[i] -= d * AT(L, r, i, k2);
        }
      double t = 0;
      for (int i = 0; i < r; i++) t += x[i] * x[i];
      if (t > 0.25) {
        t = sqrt(t);
        for (int i = 0; i < r; i++) x[i] /= t;
        break;
      }
    }
  }
  if (tr)                    /* A's V is L here: largest component positive, U's column follows */
    for (int k = 0; k < c; k++) {
      int big = 0;
      for (int i = 1; i < r; i++) if (fabs(AT(L, r, i, k)) > fabs(AT(L, r, big, k))) big = i;
      if (AT(L, r, big, k) < 0) {
        for (int i = 0; i < r; i++) AT(L, r, i, k) = -AT(L, r, i, k);
        for (int i = 0; i < c; i++) AT(R, c, i, k) = -AT(R, c, i, k);
      }
    }
  return AD_OK;
}

enum { SV_VALUES, SV_U, SV_V, SV_PINV };

typedef struct {
  ad_node hdr;
  int what, m, n, k;
  const double *U, *s, *V, *Pinv;
  double *Aadj;
  const double *oadj;
  double *ws;                /* svd_ws(m, n) */
} svd_node;

static size_t svd_ws(int m, int n) {
  size_t M = (size_t)m, N = (size_t)n, k = M < N ? M : N, mx = M > N ? M : N;
  return 3 * M * M + 2 * N * N + 2 * M * N + 2 * k * k + 2 * M * k + mx * k + 16;
}

static void svd_chain(ad_node *self) {
  svd_node *q = (svd_node *)self;
  int m = q->m, n = q->n, k = q->k;
  const double *U = q->U, *V = q->V, *s = q->s, *G = q->oadj;
  ws_t w = {q->ws, NULL};
  if (q->what == SV_VALUES) {          /* Abar += U diag(sbar) V^T */
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        double t = 0;
        for (int l = 0; l < k; l++) t += AT(U, m, i, l) * G[l] * AT(V, n, j, l);
        AT(q->Aadj, m, i, j) += t;
      }
    return;
  }
  if (q->what == SV_PINV) {
    /* Abar += -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A), P = pinv (n x m), G n x m */
    const double *P = q->Pinv;
    size_t mm_ = (size_t)m * m, mn = (size_t)m * n, nn = (size_t)n * n;
    double *T1 = take(&w, mm_, 1), *T2 = take(&w, mm_, 1), *X = take(&w, mn, 1), *Y = take(&w, nn, 1);
    double *Wm = take(&w, mm_, 1), *Wn = take(&w, nn, 1);
    /* -P^T G P^T: (m x n)(n x m)(m x n) */
    tm_la_gemm_tn(m, m, n, 1.0, P, G, T1);               /* P^T G (m x m) */
    tm_la_gemm_nt(m, n, m, -1.0, T1, P, q->Aadj);
    /* A P = U U^T (m x m) over the kept singular values; P A = V V^T */
    tm_la_gemm_tn(m, m, n, 1.0, q->Pinv, q->Pinv, Wm);   /* P^T P, m x m */
    tm_la_gemm_nt(n, n, m, 1.0, P, P, Wn);               /* P P^T, n x n */
    /* (I - A P) G^T P P^T */
    tm_la_gemm_tn(m, n, n, 1.0, G, Wn, X);               /* G^T P P^T, m x n */
    double *AP = T2;
    for (int l = 0; l < k; l++) {
      if (s[l] == 0) continue;
      for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) AT(AP, m, i, j) += AT(U, m, i, l) * AT(U, m, j, l);
    }
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) AT(q->Aadj, m, i, j) += AT(X, m, i, j);
    tm_la_gemm_nn(m, n, m, -1.0, AP, X, q->Aadj);
    /* P^T P G^T (I - P A) */
    double *Xb = take(&w, mn, 1);
    tm_la_gemm_nt(m, n, m, 1.0, Wm, G, Xb);              /* P^T P G^T, m x n */
    for (int l = 0; l < k; l++) {
      if (s[l] == 0) continue;
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) AT(Y, n, i, j) += AT(V, n, i, l) * AT(V, n, j, l);
    }
    for (size_t i = 0; i < (size_t)m * n; i++) q->Aadj[i] += Xb[i];
    tm_la_gemm_nn(m, n, n, -1.0, Xb, Y, q->Aadj);
    return;
  }
  /* U or V: Stan's formulas with F = 1/(s_j - s_i) +- 1/(s_i + s_j) */
  size_t kk = (size_t)k * k;
  double *S = take(&w, kk, 1), *T = take(&w, (size_t)m * k, 1), *R = take(&w, kk, 1);
  int isU = q->what == SV_U;
  const double *O = isU ? U : V;       /* the output's values */
  int ro = isU ? m : n;
  tm_la_gemm_tn(k, k, ro, 1.0, O, G, S);                 /* O^T Obar */
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++)
      AT(R, k, i, j) = i == j ? 0 : 0.5 * (AT(S, k, i, j) - AT(S, k, j, i)) *
                                      (1.0 / (s[j] - s[i]) + (isU ? 1.0 : -1.0) / (s[i] + s[j]));
  /* 0.5 U (F .* (S - S^T)) V^T */
  tm_la_gemm_nn(m, k, k, 1.0, U, R, T);
  tm_la_gemm_nt(m, n, k, 1.0, T, V, q->Aadj);
  if (isU) {                 /* (I - U U^T) Ubar diag(1/s) V^T */
    double *Z = take(&w, (size_t)m * k, 0);
    memcpy(Z, G, (size_t)m * k * sizeof(double));
    tm_la_gemm_nn(m, k, k, -1.0, U, S, Z);               /* Ubar - U (U^T Ubar) */
    for (int l = 0; l < k; l++)
      for (int i = 0; i < m; i++) AT(Z, m, i, l) /= s[l];
    tm_la_gemm_nt(m, n, k, 1.0, Z, V, q->Aadj);
  } else {                   /* U diag(1/s) Vbar^T (I - V V^T) */
    double *Z = take(&w, (size_t)n * k, 0);
    memcpy(Z, G, (size_t)n * k * sizeof(double));
    tm_la_gemm_nn(n, k, k, -1.0, V, S, Z);               /* Vbar - V (V^T Vbar) */
    double *Us = take(&w, (size_t)m * k, 0);
    for (int l = 0; l < k; l++)
      for (int i = 0; i < m; i++) AT(Us, m, i, l) = AT(U, m, i, l) / s[l];
    tm_la_gemm_nt(m, n, k, 1.0, Us, Z, q->Aadj);
  }
}

static int k_svd(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int what = (int)(*(const char *)c->fn->data - '0'), rc;
  if (nargs != 1 || !is_matrix(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  int m = A->rows, n = A->cols, k = m < n ? m : n;
  if (what == SV_PINV && m * n == 0) return tm_new_matrix(out, n, m, 0) ? nomem(c) : AD_OK;
  if (what == SV_VALUES && m * n == 0) return tm_new_vector(out, 0, 0) ? nomem(c) : AD_OK;   /* as Stan */
  if ((rc = tm_check_nonzero_size(fn, "m", A))) return rc;
  if ((rc = tm_check_finite(fn, "m", A))) return rc;
  double *U = ad_alloc_doubles((size_t)m * k), *s = ad_alloc_doubles((size_t)k), *V = ad_alloc_doubles((size_t)n * k);
  if (!U || !s || !V) return nomem(c);
  if (svd(m, n, A->val, U, s, V)) return nomem(c);
  int ad = A->adj != NULL;
  double *P = NULL;
  switch (what) {
  case SV_VALUES:
    if (tm_new_vector(out, k, ad)) return nomem(c);
    memcpy(out->val, s, (size_t)k * sizeof(double));
    break;
  case SV_U:
    if (tm_new_matrix(out, m, k, ad)) return nomem(c);
    memcpy(out->val, U, (size_t)m * k * sizeof(double));
    break;
  case SV_V:
    if (tm_new_matrix(out, n, k, ad)) return nomem(c);
    memcpy(out->val, V, (size_t)n * k * sizeof(double));
    break;
  default: {
    if (tm_new_matrix(out, n, m, ad)) return nomem(c);
    double tol = (m > n ? m : n) * DBL_EPSILON * s[0];
    memset(out->val, 0, (size_t)n * m * sizeof(double));
    for (int l = 0; l < k; l++) {
      if (!(s[l] > tol)) { s[l] = 0; continue; }
      for (int j = 0; j < m; j++)
        for (int i = 0; i < n; i++) AT(out->val, n, i, j) += AT(V, n, i, l) * AT(U, m, j, l) / s[l];
    }
    if (ad && !(P = tm_copy_vals(out))) return nomem(c);
  }
  }
  if (!ad) { out->dep = A->dep; return AD_OK; }
  if (what == SV_U || what == SV_V)
    for (int i = 0; i < k; i++)
      for (int j = i + 1; j < k; j++)
        if (s[i] == s[j] || s[j] == 0)
          return ad_fail(AD_EDOMAIN, "%s: the gradient is undefined at repeated or zero singular values", fn);
  svd_node *q = ad_node_new(sizeof *q, svd_chain);
  if (!q) return nomem(c);
  q->what = what; q->m = m; q->n = n; q->k = k;
  q->U = U; q->s = s; q->V = V; q->Pinv = P;
  if (!(q->ws = ws_new(svd_ws(m, n)))) return nomem(c);
  q->Aadj = A->adj; q->oadj = out->adj;
  return AD_OK;
}

/* ---------------------------------------------------------------- QR */

/* Householder QR of A (m x n): Q (m x m, full) and R (m x n), Stan's signs
** (R's diagonal nonnegative).  The reflector of step j maps column j below
** the diagonal to -sign(x_j) |x| e_j, as Eigen's and LINPACK's; a column with
** nothing below the diagonal is left alone (Eigen's choice).  When hh is
** given, it keeps what the reverse step of the full Q needs. */
typedef struct {
  double *v, *beta;          /* reflectors: v_j (m, zero above j), beta_j = 2 / v_j'v_j or 0 */
  double *steps;             /* R before step j, m x n each */
  double *sg;                /* the sign flips: 1 or -1 for each of the first k rows of R */
} hh_keep;

static int qr(int m, int n, const double *A, double *Q, double *R, hh_keep *hh) {
  int k = m < n ? m : n;
  double *v = ad_alloc_doubles((size_t)m * (k ? k : 1)), *beta = ad_alloc_doubles((size_t)(k ? k : 1));
  double *sg = ad_alloc_doubles((size_t)(k ? k : 1)), *steps = NULL;
  if (!v || !beta || !sg) return AD_EMEMORY;
  if (hh && !(steps = ad_alloc_doubles((size_t)m * n * (k ? k : 1)))) return AD_EMEMORY;
  memcpy(R, A, (size_t)m * n * sizeof(double));
  for (int j = 0; j < k; j++) {
    if (steps) memcpy(steps + (size_t)j * m * n, R, (size_t)m * n * sizeof(double));
    double *x = v + (size_t)j * m, tail = 0;
    for (int i = 0; i < m; i++) x[i] = i < j ? 0 : AT(R, m, i, j);
    for (int i = j + 1; i < m; i++) tail += x[i] * x[i];
    if (tail == 0) { beta[j] = 0; continue; }
    double nx = sqrt(x[j] * x[j] + tail), alpha = x[j] >= 0 ? -nx : nx;
    x[j] -= alpha;
    double vv = x[j] * x[j] + tail;
    beta[j] = 2 / vv;
    for (int col = j; col < n; col++) {
      double d = 0;
      for (int i = j; i < m; i++) d += x[i] * AT(R, m, i, col);
      d *= beta[j];
      for (int i = j; i < m; i++) AT(R, m, i, col) -= d * x[i];
    }
    for (int i = j + 1; i < m; i++) AT(R, m, i, j) = 0;
  }
  for (int col = 0; col < m; col++)
    for (int i = 0; i < m; i++) AT(Q, m, i, col) = i == col;
  for (int j = k - 1; j >= 0; j--) {      /* Q = H_0 ... H_(k-1) I */
    const double *x = v + (size_t)j * m;
    if (beta[j] == 0) continue;
    for (int col = 0; col < m; col++) {
      double d = 0;
      for (int i = j; i < m; i++) d += x[i] * AT(Q, m, i, col);
      d *= beta[j];
      for (int i = j; i < m; i++) AT(Q, m, i, col) -= d * x[i];
    }
  }
  for (int i = 0; i < k; i++) {
    sg[i] = AT(R, m, i, i) < 0 ? -1 : 1;
    if (sg[i] < 0) {
      for (int col = 0; col < n; col++) AT(R, m, i, col) = -AT(R, m, i, col);
      for (int r = 0; r < m; r++) AT(Q, m, r, i) = -AT(Q, m, r, i);
    }
  }
  if (hh) { hh->v = v; hh->beta = beta; hh->steps = steps; hh->sg = sg; }
  return AD_OK;
}

/* Y = H M (H = I - beta v v', v zero above row j) on cols columns of M
** (ld m): the reverse step given Ybar: Mbar = H Ybar (in place of Ybar),
** vbar += -beta (Ybar w + M Ybar' v) with w = M' v, betabar += -v' Ybar w. */
static void hh_apply_back(int m, int j, int cols, const double *v, double beta, const double *M, double *Ybar,
                          double *vbar, double *betabar, double *w, double *u) {
  for (int col = 0; col < cols; col++) {
    double a = 0, b = 0;
    for (int i = j; i < m; i++) { a += M[(size_t)col * m + i] * v[i]; b += Ybar[(size_t)col * m + i] * v[i]; }
    w[col] = a;        /* (M' v)_col */
    u[col] = b;        /* (Ybar' v)_col */
  }
  for (int i = j; i < m; i++) {
    double t = 0;
    for (int col = 0; col < cols; col++) t += Ybar[(size_t)col * m + i] * w[col] + M[(size_t)col * m + i] * u[col];
    vbar[i] -= beta * t;
  }
  double vyw = 0;
  for (int col = 0; col < cols; col++) vyw += u[col] * w[col];
  *betabar -= vyw;
  for (int col = 0; col < cols; col++)            /* Mbar = H Ybar = Ybar - beta v (v' Ybar) */
    for (int i = j; i < m; i++) Ybar[(size_t)col * m + i] -= beta * v[i] * u[col];
}

/* Abar += the adjoint of A through the Householder steps, given the
** adjoints of the full Q (m x m) and of R (m x n), either may be NULL. */
static void hh_back(int m, int n, const double *Q, const hh_keep *hh, const double *Qbar0, const double *Rbar0,
                    double *Aadj, ws_t *ws) {
  int k = m < n ? m : n, mx = m > n ? m : n;
  size_t mm = (size_t)m * m, mn = (size_t)m * n;
  double *vbar = take(ws, (size_t)m * k, 1), *betabar = take(ws, (size_t)k, 1);
  double *Qbar = take(ws, mm, 1), *Qj = take(ws, mm, 0), *Rbar = take(ws, mn, 1);
  double *w = take(ws, (size_t)mx, 0), *u = take(ws, (size_t)mx, 0);
  /* undo the sign flips: Q_out = Q D, R_out = D R */
  if (Qbar0)
    for (int col = 0; col < m; col++)
      for (int i = 0; i < m; i++) AT(Qbar, m, i, col) = AT(Qbar0, m, i, col) * (col < k ? hh->sg[col] : 1);
  if (Rbar0)
    for (int col = 0; col < n; col++)
      for (int i = 0; i < m; i++) AT(Rbar, m, i, col) = AT(Rbar0, m, i, col) * (i < k ? hh->sg[i] : 1);
  /* Q before the flips, Q_0 = H_0 Q_1, ..., Q_(k-1) = H_(k-1) I: walk j up, Q_(j+1) = H_j Q_j */
  if (Qbar0) {
    for (int col = 0; col < m; col++)
      for (int i = 0; i < m; i++) AT(Qj, m, i, col) = AT(Q, m, i, col) * (col < k ? hh->sg[col] : 1);
    for (int j = 0; j < k; j++) {
      const double *v = hh->v + (size_t)j * m;
      double beta = hh->beta[j];
      if (beta == 0) continue;
      /* Q_(j+1) = H_j Q_j (H_j is its own inverse) */
      for (int col = 0; col < m; col++) {
        double d = 0;
        for (int i = j; i < m; i++) d += v[i] * AT(Qj, m, i, col);
        d *= beta;
        for (int i = j; i < m; i++) AT(Qj, m, i, col) -= d * v[i];
      }
      hh_apply_back(m, j, m, v, beta, Qj, Qbar, vbar + (size_t)j * m, &betabar[j], w, u);
    }
  }
  /* R: R_j = H_j R_(j-1) on columns j.., then column j zeroed below the diagonal */
  for (int j = k - 1; j >= 0; j--) {
    const double *v = hh->v + (size_t)j * m, *M = hh->steps + (size_t)j * mn;
    double beta = hh->beta[j], *vb = vbar + (size_t)j * m;
    if (beta == 0) continue;
    for (int i = j + 1; i < m; i++) AT(Rbar, m, i, j) = 0;
    hh_apply_back(m, j, n - j, v, beta, M + (size_t)j * m, Rbar + (size_t)j * m, vb, &betabar[j], w, u);
    /* beta = 2 / v'v; v = x - alpha e_j, alpha = -sign(x_j) |x| */
    for (int i = j; i < m; i++) vb[i] -= betabar[j] * beta * beta * v[i];
    double nx = 0, xj = AT(M, m, j, j);
    for (int i = j; i < m; i++) nx += AT(M, m, i, j) * AT(M, m, i, j);
    nx = sqrt(nx);
    double sgn = xj >= 0 ? 1 : -1;
    for (int i = j; i < m; i++) AT(Rbar, m, i, j) += vb[i] + sgn * vb[j] * AT(M, m, i, j) / nx;
  }
  for (size_t i = 0; i < mn; i++) Aadj[i] += Rbar[i];
}

typedef struct {
  ad_node hdr;
  int m, n, k, isQ, thin;
  const double *A, *Q, *R;  /* A m x n, Q m x m, R m x n (full) */
  hh_keep hh;               /* for the full Q of a tall A */
  double *Aadj;
  const double *oadj;
  double *ws;                /* qr_ws(m, n) */
} qr_node;

static size_t qr_ws(int m, int n) {
  size_t M = (size_t)m, N = (size_t)n, k = M < N ? M : N, mx = M > N ? M : N;
  return 2 * M * k + k * N + k * k + M * k + k + 2 * M * M + M * N + 2 * mx + 16;
}

/* Xbar (m x k) = (Qbar + Q copyltu(M)) R1^-T, M = R1 R1bar^T - Qbar^T Q, for
** X = Q R1 with Q m x k, R1 k x k upper triangular. */
static void qr_back_square(int m, int k, const double *Q, int ldr, const double *R1, const double *Qbar,
                           const double *R1bar, double *Xbar, ws_t *w) {
  double *M = take(w, (size_t)k * k, 1);
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) {
      double t = 0;
      for (int l = 0; l < k; l++) t += AT(R1, ldr, i, l) * AT(R1bar, k, j, l);
      for (int l = 0; l < m; l++) t -= AT(Qbar, m, l, i) * AT(Q, m, l, j);
      AT(M, k, i, j) = t;
    }
  for (int j = 0; j < k; j++)                /* copyltu */
    for (int i = 0; i < j; i++) AT(M, k, i, j) = AT(M, k, j, i);
  memcpy(Xbar, Qbar, (size_t)m * k * sizeof(double));
  tm_la_gemm_nn(m, k, k, 1.0, Q, M, Xbar);
  for (int r = 0; r < m; r++)                /* row r of Xbar: y R1^T = b, i.e. R1 y^T = b^T */
    for (int i = k - 1; i >= 0; i--) {
      double t = AT(Xbar, m, r, i);
      for (int j = i + 1; j < k; j++) t -= AT(R1, ldr, i, j) * AT(Xbar, m, r, j);
      AT(Xbar, m, r, i) = t / AT(R1, ldr, i, i);
    }
}

static void qr_chain(ad_node *self) {
  qr_node *q = (qr_node *)self;
  int m = q->m, n = q->n, k = q->k;
  ws_t w = {q->ws, NULL};
  if (q->hh.v) {             /* the full Q of a tall A: through the Householder steps */
    hh_back(m, n, q->Q, &q->hh, q->oadj, NULL, q->Aadj, &w);
    return;
  }
  /* Qbar (m x k) and Rbar (k x n) of the thin factors */
  double *Qbar = take(&w, (size_t)m * k, 1), *Rbar = take(&w, (size_t)k * n, 1);
  int orows = q->thin ? k : m;               /* rows of the R output */
  if (q->isQ) memcpy(Qbar, q->oadj, (size_t)m * k * sizeof(double));   /* first k columns */
  else
    for (int j = 0; j < n; j++)
      for (int i = 0; i < k; i++) AT(Rbar, k, i, j) = q->oadj[(size_t)j * orows + i];
  /* columns beyond k (wide A): R2 = Q^T Y, Ybar = Q R2bar, Qbar += Y R2bar^T */
  if (n > k) {
    const double *Y = q->A + (size_t)k * m, *R2bar = Rbar + (size_t)k * k;
    tm_la_gemm_nn(m, n - k, k, 1.0, q->Q, R2bar, q->Aadj + (size_t)k * m);
    tm_la_gemm_nt(m, k, n - k, 1.0, Y, R2bar, Qbar);
  }
  double *Xbar = take(&w, (size_t)m * k, 0);
  qr_back_square(m, k, q->Q, m, q->R, Qbar, Rbar, Xbar, &w);
  for (size_t i = 0; i < (size_t)m * k; i++) q->Aadj[i] += Xbar[i];
}

/* data: "Q", "R", "q" (thin Q), "r" (thin R) */
static int k_qr(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name, *d = c->fn->data;
  int isQ = d[0] == 'Q' || d[0] == 'q', thin = d[0] == 'q' || d[0] == 'r', rc;
  if (nargs != 1 || !is_matrix(&a[0])) return tm_no_overload(c, a, nargs);
  const tm_v *A = &a[0];
  if ((rc = tm_check_nonzero_size(fn, "m", A))) return rc;
  int m = A->rows, n = A->cols, k = m < n ? m : n, ad = A->adj != NULL;
  double *Q = ad_alloc_doubles((size_t)m * m), *R = ad_alloc_doubles((size_t)m * n), *Ac = tm_copy_vals(A);
  if (!Q || !R || !Ac) return nomem(c);
  int steps = ad && isQ && !thin && m > n;
  hh_keep hh = {NULL, NULL, NULL, NULL};
  if (qr(m, n, Ac, Q, R, steps ? &hh : NULL)) return nomem(c);
  if (ad) {                  /* a diagonal of R at rounding level: rank deficient, no gradient */
    double big = 0;
    for (int i = 0; i < k; i++) big = fmax(big, AT(R, m, i, i));
    for (int i = 0; i < k; i++)
      if (!(AT(R, m, i, i) > big * DBL_EPSILON * (m > n ? m : n)))
        return ad_fail(AD_EDOMAIN, "%s: the gradient is undefined: m has rank less than %d", fn, k);
  }
  if (isQ) {
    int cols = thin ? k : m;
    if (tm_new_matrix(out, m, cols, ad)) return nomem(c);
    memcpy(out->val, Q, (size_t)m * cols * sizeof(double));
  } else {
    int rows = thin ? k : m;
    if (tm_new_matrix(out, rows, n, ad)) return nomem(c);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < rows; i++) AT(out->val, rows, i, j) = AT(R, m, i, j);
  }
  if (!ad) { out->dep = A->dep; return AD_OK; }
  qr_node *q = ad_node_new(sizeof *q, qr_chain);
  if (!q) return nomem(c);
  q->m = m; q->n = n; q->k = k; q->isQ = isQ; q->thin = thin;
  q->A = Ac; q->Q = Q; q->R = R; q->hh = hh; q->Aadj = A->adj; q->oadj = out->adj;
  if (!(q->ws = ws_new(qr_ws(m, n)))) return nomem(c);
  return AD_OK;
}

const tm_fn tm_fns_matfun[] = {
  {"generalized_inverse", "matrix(matrix)", k_svd, "3"},
  {"matrix_exp", "matrix(matrix)", k_matrix_exp, "0"},
  {"matrix_exp_multiply", "matrix(matrix, matrix)", k_matrix_exp, "1"},
  {"matrix_power", "matrix(matrix, int)", k_matrix_power, NULL},
  {"qr_Q", "matrix(matrix)", k_qr, "Q"},
  {"qr_R", "matrix(matrix)", k_qr, "R"},
  {"qr_thin_Q", "matrix(matrix)", k_qr, "q"},
  {"qr_thin_R", "matrix(matrix)", k_qr, "r"},
  {"scale_matrix_exp_multiply", "matrix(real, matrix, matrix)", k_matrix_exp, "2"},
  {"singular_values", "vector(matrix)", k_svd, "0"},
  {"svd_U", "matrix(matrix)", k_svd, "1"},
  {"svd_V", "matrix(matrix)", k_svd, "2"},
  {"trace_dot", "real(matrix, matrix)", k_trace_dot, NULL},
  {"trace_gen_quad_form", "real(matrix, matrix, matrix)", k_trace_gen_quad_form, NULL},
  {NULL, NULL, NULL, NULL}
};
