/*
** tm_eigen.c -- eigenvalues_sym and eigenvectors_sym.
**
** Cyclic Jacobi rotations on the symmetric matrix built from the lower
** triangle (the triangle Stan's solver reads): slower than a tridiagonal QL
** for large matrices, but simple and accurate to the last digits for the
** small ones of Stan programs, eigenvectors orthonormal to rounding.
** Eigenvalues ascend, as in Stan; each eigenvector's largest component is
** made positive, so the vectors are a smooth function of the matrix
** (needed for their gradient to mean anything).
**
** Reverse mode, A = V diag(lambda) V^T:
**   eigenvalues:  Abar += V diag(lambdabar) V^T
**   eigenvectors: Abar += V G V^T, G[i,j] = (C[i,j] - C[j,i]) / (2 (lambda_j - lambda_i))
**                 off the diagonal, 0 on it, C = V^T Vbar.
** G is the symmetric part of Stan Math's F .* C (F[i,j] = 1 / (lambda_j - lambda_i)):
** A is symmetric, so only that part reaches any symmetric use of A, and forming it
** before the products is what keeps the gradient right for clustered eigenvalues.
** There F[i,j] C[i,j] and F[j,i] C[j,i] are both near C / (lambda gap), huge, and
** almost cancel; summed after V G V^T, their rounding swamps the answer (a GP
** kernel with eigenvalues bunched at its jitter got the wrong sign). Subtracting
** C[j,i] from C[i,j] first loses only what C's own rounding holds. Stan 2.21
** differentiates through Eigen's solver and gets the true gradient there too.
** An exactly repeated eigenvalue (gap 0) contributes 0: any function of the
** decomposition that is defined there cannot depend on the basis chosen in its
** eigenspace, so C is symmetric in that block and the pair's share is 0.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_linalg.h"

#define AT TM_AT

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

/* A (n x n, symmetric, overwritten: its diagonal ends as the eigenvalues)
** and V (the eigenvectors as columns). */
static void jacobi(int n, double *A, double *V) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) AT(V, n, i, j) = i == j;
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0, diag = 0;
    for (int j = 0; j < n; j++) {
      diag += AT(A, n, j, j) * AT(A, n, j, j);
      for (int i = 0; i < j; i++) off += AT(A, n, i, j) * AT(A, n, i, j);
    }
    if (off == 0 || off < 1e-36 * diag) break;
    for (int p = 0; p < n - 1; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = AT(A, n, p, q);
        if (apq == 0) continue;
        /* the rotation that zeroes A[p, q]: t = tan(angle), the smaller root */
        double theta = (AT(A, n, q, q) - AT(A, n, p, p)) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        if (isinf(theta)) t = 0.5 / theta;
        double cs = 1 / sqrt(t * t + 1), sn = t * cs;
        for (int k = 0; k < n; k++) {          /* columns p and q */
          double akp = AT(A, n, k, p), akq = AT(A, n, k, q);
          AT(A, n, k, p) = cs * akp - sn * akq;
          AT(A, n, k, q) = sn * akp + cs * akq;
        }
        for (int k = 0; k < n; k++) {          /* rows p and q */
          double apk = AT(A, n, p, k), aqk = AT(A, n, q, k);
          AT(A, n, p, k) = cs * apk - sn * aqk;
          AT(A, n, q, k) = sn * apk + cs * aqk;
        }
        AT(A, n, p, q) = AT(A, n, q, p) = 0;
        for (int k = 0; k < n; k++) {
          double vkp = AT(V, n, k, p), vkq = AT(V, n, k, q);
          AT(V, n, k, p) = cs * vkp - sn * vkq;
          AT(V, n, k, q) = sn * vkp + cs * vkq;
        }
      }
  }
}

/* Eigenvalues ascending into w, vectors permuted alike into W, signs fixed. */
static void decompose(int n, const double *M, double *w, double *W, double *work) {
  double *A = work, *V = work + (size_t)n * n;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) AT(A, n, i, j) = i >= j ? AT(M, n, i, j) : AT(M, n, j, i);
  jacobi(n, A, V);
  int *used = (int *)(work + 2 * (size_t)n * n);
  for (int k = 0; k < n; k++) used[k] = 0;
  for (int k = 0; k < n; k++) {      /* selection: n is small */
    int b = -1;
    for (int j = 0; j < n; j++)
      if (!used[j] && (b < 0 || AT(A, n, j, j) < AT(A, n, b, b))) b = j;
    used[b] = 1;
    w[k] = AT(A, n, b, b);
    int big = 0;
    for (int i = 1; i < n; i++) if (fabs(AT(V, n, i, b)) > fabs(AT(V, n, big, b))) big = i;
    double s = AT(V, n, big, b) < 0 ? -1 : 1;
    for (int i = 0; i < n; i++) AT(W, n, i, k) = s * AT(V, n, i, b);
  }
}

typedef struct {
  ad_node hdr;
  int n, vectors;
  double *w, *V, *W, *Aadj, *oadj;
} eig_node;

static void eig_chain(ad_node *self) {
  eig_node *p = (eig_node *)self;
  int n = p->n;
  size_t nn = (size_t)n * n;
  double *G = p->W, *T = p->W + nn;
  if (p->vectors) {
    memset(G, 0, nn * sizeof(double));
    tm_la_gemm_tn(n, n, n, 1.0, p->V, p->oadj, G);        /* V^T Vbar */
    for (int j = 0; j < n; j++) {
      AT(G, n, j, j) = 0;
      for (int i = 0; i < j; i++) {
        double gap = p->w[j] - p->w[i];
        double g = gap == 0 ? 0 : 0.5 * (AT(G, n, i, j) - AT(G, n, j, i)) / gap;
        AT(G, n, i, j) = AT(G, n, j, i) = g;
      }
    }
  } else {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) AT(G, n, i, j) = i == j ? p->oadj[i] : 0;
  }
  memset(T, 0, nn * sizeof(double));
  tm_la_gemm_nn(n, n, n, 1.0, p->V, G, T);
  tm_la_gemm_nt(n, n, n, 1.0, T, p->V, p->Aadj);
}

static int k_eigen(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int vectors = c->fn->data != NULL, rc;
  const char *fn = c->fn->name;
  if (nargs != 1 || a[0].narr || a[0].base != TM_MATRIX) {
    char t[48];
    return ad_fail(AD_EINVALID, "%s: no overload for argument %s", fn, nargs ? tm_type_name(&a[0], t, sizeof t) : "()");
  }
  const tm_v *A = &a[0];
  if ((rc = tm_check_nonzero_size(fn, "m", A)) || (rc = tm_check_square(fn, "m", A)) ||
      (rc = tm_la_check_symmetric(fn, "m", A->rows, A->val)))
    return rc;
  int n = A->rows;
  size_t nn = (size_t)n * n;
  double *w = ad_alloc_doubles((size_t)n), *V = ad_alloc_doubles(nn);
  double *work = ad_alloc_doubles(2 * nn + (size_t)n);
  if (!w || !V || !work) return nomem(c);
  decompose(n, A->val, w, V, work);
  rc = vectors ? tm_new_matrix(out, n, n, A->adj != NULL) : tm_new_vector(out, n, A->adj != NULL);
  if (rc) return nomem(c);
  memcpy(out->val, vectors ? V : w, (vectors ? nn : (size_t)n) * sizeof(double));
  if (!A->adj) { out->dep = A->dep; return AD_OK; }
  eig_node *p = ad_node_new(sizeof *p, eig_chain);
  if (!p) return nomem(c);
  p->n = n; p->vectors = vectors;
  p->w = w; p->V = V; p->Aadj = A->adj; p->oadj = out->adj;
  if (!(p->W = ad_alloc_doubles(2 * nn))) return nomem(c);
  return AD_OK;
}

const tm_fn tm_fns_eigen[] = {
  {"eigenvalues_sym", "vector(matrix)", k_eigen, NULL},
  {"eigenvectors_sym", "matrix(matrix)", k_eigen, "vectors"},
  {NULL, NULL, NULL, NULL}
};
