/*
** tm_complex_eigen.c -- the complex Schur decomposition A = U T U^H of a
** square (real or complex) matrix and what comes of it: eigenvalues,
** eigenvectors, complex_schur_decompose_t and _u; and mdivide_right
** (B A^-1, by Gauss-Jordan with partial pivoting) of complex matrices.
**
** Householder reduction to Hessenberg form, then the shifted QR algorithm
** with Givens rotations (Wilkinson shifts, exceptional shifts every 10
** iterations), U accumulated.  Eigenvalues are T's diagonal, in the order
** the iteration leaves them (Stan's come from Eigen's solvers, whose order
** may differ); eigenvectors are U times the eigenvectors of T, scaled to
** unit norm.  singular_values, svd_U, svd_V by one-sided Jacobi;
** eigenvalues_sym, eigenvectors_sym of a Hermitian matrix (its lower
** triangle) from the same Schur form.  Gradients: eigenvalues
** (d lambda_k = (V^-1 dA V)_kk, distinct eigenvalues), eigenvalues_sym
** (v_k^H dA v_k), eigenvectors_sym (with each vector's phase fixed, below)
** singular_values (Re(u^H dA v)), svd_U, svd_V and eigenvectors (the
** phases fixed as eigenvectors_sym's, below); the Schur factors of a matrix
** that depends on parameters are refused as not supported yet (the Schur
** vectors of a cluster are a basis chosen by the iteration).
*/
#include <float.h>
#include <math.h>
#include <string.h>
#include "tm_complex.h"

#define IX(i, j, n) ((size_t)(i) + (size_t)(j) * (size_t)(n))

/* T (n x n, column-major, in: A, out: upper triangular) and U, unitary, with
** A = U T U^H.  AD_EDOMAIN when the iteration does not converge. */
static int schur(const char *fn, cx *T, cx *U, int n) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) U[IX(i, j, n)] = i == j ? 1 : 0;
  for (size_t k = 0; k < (size_t)n * n; k++)
    if (!isfinite(creal(T[k])) || !isfinite(cimag(T[k])))
      return ad_fail(AD_EDOMAIN, "%s: m is not finite", fn);
  cx *v = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  double *cs = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *cs);
  cx *sn = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *sn);
  if (!v || !cs || !sn) return ad_fail(AD_EMEMORY, "out of memory");
  /* Hessenberg: Householder reflections P = I - 2 v v^H / (v^H v) */
  for (int k = 0; k + 2 < n; k++) {
    double norm = 0;
    for (int i = k + 1; i < n; i++) norm += creal(T[IX(i, k, n)] * conj(T[IX(i, k, n)]));
    norm = sqrt(norm);
    if (norm == 0) continue;
    cx x0 = T[IX(k + 1, k, n)];
    cx phase = cabs(x0) > 0 ? x0 / cabs(x0) : 1;
    for (int i = 0; i < n; i++) v[i] = 0;
    for (int i = k + 1; i < n; i++) v[i] = T[IX(i, k, n)];
    v[k + 1] += phase * norm;
    double vv = 0;
    for (int i = k + 1; i < n; i++) vv += creal(v[i] * conj(v[i]));
    if (vv == 0) continue;
    /* T = P T: rows k+1.. */
    for (int j = 0; j < n; j++) {
      cx s = 0;
      for (int i = k + 1; i < n; i++) s += conj(v[i]) * T[IX(i, j, n)];
      s *= 2 / vv;
      for (int i = k + 1; i < n; i++) T[IX(i, j, n)] -= v[i] * s;
    }
    /* T = T P and U = U P: columns k+1.. */
    for (int pass = 0; pass < 2; pass++) {
      cx *M = pass ? U : T;
      for (int i = 0; i < n; i++) {
        cx s = 0;
        for (int j = k + 1; j < n; j++) s += M[IX(i, j, n)] * v[j];
        s *= 2 / vv;
        for (int j = k + 1; j < n; j++) M[IX(i, j, n)] -= s * conj(v[j]);
      }
    }
    for (int i = k + 2; i < n; i++) T[IX(i, k, n)] = 0;
  }
  /* shifted QR */
  int hi = n - 1, iter = 0, total = 0;
  while (hi > 0) {
    int l = hi;
    for (; l > 0; l--) {
      double s = cabs(T[IX(l - 1, l - 1, n)]) + cabs(T[IX(l, l, n)]);
      if (cabs(T[IX(l, l - 1, n)]) <= DBL_EPSILON * (s > 0 ? s : 1)) { T[IX(l, l - 1, n)] = 0; break; }
    }
    if (l == hi) { hi--; iter = 0; continue; }
    if (++total > 100 * n) return ad_fail(AD_EDOMAIN, "%s: the QR iteration did not converge", fn);
    iter++;
    cx a = T[IX(hi - 1, hi - 1, n)], b = T[IX(hi - 1, hi, n)], c = T[IX(hi, hi - 1, n)], d = T[IX(hi, hi, n)];
    cx mu;
    if (iter % 10 == 0) mu = d + fabs(creal(c)) + cabs(T[IX(hi - 1, hi - 2 >= 0 ? hi - 2 : 0, n)]);
    else {
      cx h = (a + d) / 2, disc = csqrt((a - d) * (a - d) / 4 + b * c);
      cx m1 = h + disc, m2 = h - disc;
      mu = cabs(m1 - d) < cabs(m2 - d) ? m1 : m2;
    }
    for (int k = l; k <= hi; k++) T[IX(k, k, n)] -= mu;
    for (int k = l; k < hi; k++) {
      cx x = T[IX(k, k, n)], y = T[IX(k + 1, k, n)];
      double r = hypot(cabs(x), cabs(y));
      if (r == 0) { cs[k] = 1; sn[k] = 0; continue; }
      if (cabs(x) == 0) { cs[k] = 0; sn[k] = 1; }
      else { cs[k] = cabs(x) / r; sn[k] = (x / cabs(x)) * conj(y) / r; }
      for (int j = k; j < n; j++) {
        cx p = T[IX(k, j, n)], q = T[IX(k + 1, j, n)];
        T[IX(k, j, n)] = cs[k] * p + sn[k] * q;
        T[IX(k + 1, j, n)] = -conj(sn[k]) * p + cs[k] * q;
      }
    }
    for (int k = l; k < hi; k++) {
      int top = k + 2 < hi ? k + 2 : hi;
      for (int pass = 0; pass < 2; pass++) {
        cx *M = pass ? U : T;
        int rows = pass ? n - 1 : top;
        for (int i = 0; i <= rows; i++) {
          cx p = M[IX(i, k, n)], q = M[IX(i, k + 1, n)];
          M[IX(i, k, n)] = p * cs[k] + q * conj(sn[k]);
          M[IX(i, k + 1, n)] = -p * sn[k] + q * cs[k];
        }
      }
    }
    for (int k = l; k <= hi; k++) T[IX(k, k, n)] += mu;
  }
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) T[IX(i, j, n)] = 0;
  return AD_OK;
}

/* Eigenvectors V = U X (unit columns) from the Schur form. */
static int eigvecs(const cx *T, const cx *U, int n, cx *V) {
  double tnorm = 0;
  for (size_t k = 0; k < (size_t)n * n; k++) tnorm = fmax(tnorm, cabs(T[k]));
  double small = DBL_EPSILON * (tnorm > 0 ? tnorm : 1);
  cx *x = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  if (!x) return ad_fail(AD_EMEMORY, "out of memory");
  for (int k = 0; k < n; k++) {
    cx lam = T[IX(k, k, n)];
    for (int i = 0; i < n; i++) x[i] = 0;
    x[k] = 1;
    for (int j = k - 1; j >= 0; j--) {
      cx s = 0;
      for (int m = j + 1; m <= k; m++) s += T[IX(j, m, n)] * x[m];
      cx den = T[IX(j, j, n)] - lam;
      if (cabs(den) < small) den = small;
      x[j] = -s / den;
    }
    double norm = 0;
    for (int i = 0; i < n; i++) {
      cx s = 0;
      for (int m = 0; m <= k; m++) s += U[IX(i, m, n)] * x[m];
      V[IX(i, k, n)] = s;
      norm += creal(s * conj(s));
    }
    norm = sqrt(norm);
    for (int i = 0; i < n && norm > 0; i++) V[IX(i, k, n)] /= norm;
  }
  return AD_OK;
}

/* Inverse by Gauss-Jordan with partial pivoting; AD_EDOMAIN when singular,
** unless `any` (then the zero pivot gives infinities and NaNs, as Eigen's LU). */
static int inverse_any(const char *fn, const cx *A, int n, cx *X, int any) {
  cx *M = ad_alloc((size_t)(n > 0 ? n * n : 1) * sizeof *M);
  if (!M) return ad_fail(AD_EMEMORY, "out of memory");
  memcpy(M, A, (size_t)n * n * sizeof *M);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) X[IX(i, j, n)] = i == j ? 1 : 0;
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++) if (cabs(M[IX(i, k, n)]) > cabs(M[IX(p, k, n)])) p = i;
    if (cabs(M[IX(p, k, n)]) == 0 && !any)
      return ad_fail(AD_EDOMAIN, "%s: the eigenvectors are not independent (a defective matrix has no "
                     "derivatives of its eigenvalues)", fn);
    if (p != k)
      for (int j = 0; j < n; j++) {
        cx t = M[IX(k, j, n)]; M[IX(k, j, n)] = M[IX(p, j, n)]; M[IX(p, j, n)] = t;
        t = X[IX(k, j, n)]; X[IX(k, j, n)] = X[IX(p, j, n)]; X[IX(p, j, n)] = t;
      }
    cx piv = M[IX(k, k, n)];
    for (int j = 0; j < n; j++) { M[IX(k, j, n)] /= piv; X[IX(k, j, n)] /= piv; }
    for (int i = 0; i < n; i++) {
      if (i == k) continue;
      cx f = M[IX(i, k, n)];
      if (f == 0) continue;
      for (int j = 0; j < n; j++) { M[IX(i, j, n)] -= f * M[IX(k, j, n)]; X[IX(i, j, n)] -= f * X[IX(k, j, n)]; }
    }
  }
  return AD_OK;
}

static int inverse(const char *fn, const cx *A, int n, cx *X) { return inverse_any(fn, A, n, X, 0); }

/* ---- mdivide_right(B, A) = B A^-1 ---- */

typedef struct mdr_node {
  ad_node hdr;
  const tm_v *b, *a;
  const cx *X, *Ainv;      /* m x n result, n x n inverse */
  cx *G;                   /* m x n work space */
  const double *oadj;
  int m, n;
} mdr_node;

/* adj B += adj X Ainv^H; adj A -= X^H adj X Ainv^H */
static void mdr_chain(ad_node *self) {
  mdr_node *p = (mdr_node *)self;
  int m = p->m, n = p->n;
  cx *G = p->G;   /* adj X Ainv^H */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      cx s = 0;
      for (int k = 0; k < n; k++)
        s += cx_mk(p->oadj[2 * IX(i, k, m)], p->oadj[2 * IX(i, k, m) + 1]) * conj(p->Ainv[IX(j, k, n)]);
      G[IX(i, j, m)] = s;
      if (p->b->adj) cx_add_adj(p->b, IX(i, j, m), creal(s), cimag(s));
    }
  if (!p->a->adj) return;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      cx s = 0;
      for (int k = 0; k < m; k++) s += conj(p->X[IX(k, i, m)]) * G[IX(k, j, m)];
      cx_add_adj(p->a, IX(i, j, n), -creal(s), -cimag(s));
    }
}

static int k_mdivide_right(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  const tm_v *B = &a[0], *A = &a[1];
  int rc, n = A->rows, m = B->rows;
  if ((rc = tm_check_square(fn, "A", A))) return rc;
  if (B->cols != n)
    return ad_fail(AD_EINVALID, "%s: Columns of b (%d) and Rows of A (%d) must match in size", fn, B->cols, n);
  size_t nn = (size_t)n * n, mn = (size_t)m * n;
  cx *Am = ad_alloc((nn ? nn : 1) * sizeof *Am), *Ainv = ad_alloc((nn ? nn : 1) * sizeof *Ainv);
  cx *X = ad_alloc((mn ? mn : 1) * sizeof *X);
  if (!Am || !Ainv || !X) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t k = 0; k < nn; k++) Am[k] = cx_get(A, k);
  if ((rc = inverse_any(fn, Am, n, Ainv, 1))) return rc;
  int ad = A->adj || B->adj;
  if ((rc = cx_new(out, B, cx_complex_base(B->base), ad))) return rc;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      cx s = 0;
      for (int k = 0; k < n; k++) s += cx_get(B, IX(i, k, m)) * Ainv[IX(k, j, n)];
      X[IX(i, j, m)] = s;
      out->val[2 * IX(i, j, m)] = creal(s);
      out->val[2 * IX(i, j, m) + 1] = cimag(s);
    }
  out->dep = (unsigned char)tm_any_dep(a, 2);
  if (!ad || mn == 0) return AD_OK;
  mdr_node *p = ad_node_new(sizeof *p, mdr_chain);
  tm_v *cp = cx_keep(B, A);
  if (!p || !cp) return ad_fail(AD_EMEMORY, "out of memory");
  p->b = &cp[0]; p->a = &cp[1]; p->X = X; p->Ainv = Ainv; p->oadj = out->adj; p->m = m; p->n = n;
  if (!(p->G = ad_alloc(mn * sizeof *p->G))) return ad_fail(AD_EMEMORY, "out of memory");
  return AD_OK;
}

/* ---- singular values and vectors: one-sided Jacobi (Hestenes) ---- */

/* A (m x n, m >= n) = U diag(d) V^H, U m x n, V n x n, d descending. */
static int jacobi_svd(const char *fn, const cx *A, int m, int n, double *d, cx *U, cx *V) {
  size_t mn = (size_t)m * n;
  cx *W = ad_alloc((mn ? mn : 1) * sizeof *W), *Vt = ad_alloc((size_t)(n * n > 0 ? n * n : 1) * sizeof *Vt);
  double *sig = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *sig);
  int *ord = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *ord);
  if (!W || !Vt || !sig || !ord) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t k = 0; k < mn; k++) {
    W[k] = A[k];
    if (!isfinite(creal(A[k])) || !isfinite(cimag(A[k]))) return ad_fail(AD_EDOMAIN, "%s: m is not finite", fn);
  }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) Vt[IX(i, j, n)] = i == j ? 1 : 0;
  int rotated = 1;
  for (int sweep = 0; rotated && sweep < 80; sweep++) {
    rotated = 0;
    for (int p = 0; p + 1 < n; p++)
      for (int q = p + 1; q < n; q++) {
        double al = 0, be = 0;
        cx ga = 0;
        for (int i = 0; i < m; i++) {
          cx wp = W[IX(i, p, m)], wq = W[IX(i, q, m)];
          al += creal(wp * conj(wp));
          be += creal(wq * conj(wq));
          ga += conj(wp) * wq;
        }
        double g = cabs(ga);
        if (g == 0 || g <= DBL_EPSILON * sqrt(al * be)) continue;
        rotated = 1;
        cx ph = ga / g;   /* e^{i phi} */
        double zeta = (be - al) / (2 * g);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double c = 1 / sqrt(1 + t * t), sn = c * t;
        for (int pass = 0; pass < 2; pass++) {
          cx *M = pass ? Vt : W;
          int rows = pass ? n : m;
          for (int i = 0; i < rows; i++) {
            cx xp = M[IX(i, p, rows)], xq = conj(ph) * M[IX(i, q, rows)];
            M[IX(i, p, rows)] = c * xp - sn * xq;
            M[IX(i, q, rows)] = ph * (sn * xp + c * xq);
          }
        }
      }
  }
  if (rotated) return ad_fail(AD_EDOMAIN, "%s: the Jacobi iteration did not converge", fn);
  for (int j = 0; j < n; j++) {
    double s2 = 0;
    for (int i = 0; i < m; i++) s2 += creal(W[IX(i, j, m)] * conj(W[IX(i, j, m)]));
    sig[j] = sqrt(s2);
    ord[j] = j;
  }
  for (int i = 1; i < n; i++)      /* descending, stable */
    for (int j = i; j > 0 && sig[ord[j]] > sig[ord[j - 1]]; j--) { int t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t; }
  for (int k = 0; k < n; k++) {
    int j = ord[k];
    d[k] = sig[j];
    for (int i = 0; i < m; i++) U[IX(i, k, m)] = sig[j] > 0 ? W[IX(i, j, m)] / sig[j] : (i == k ? 1 : 0);
    for (int i = 0; i < n; i++) V[IX(i, k, n)] = Vt[IX(i, j, n)];
  }
  return AD_OK;
}

enum { SV_VALUES = 0, SV_U, SV_V };

/* singular values: d sigma_l = Re(u_l^H dA v_l) (distinct, non-zero values) */
typedef struct sv_node { ad_node hdr; const tm_v *a; const cx *U, *V; const double *oadj; int m, n, k; } sv_node;
static void sv_chain(ad_node *self) {
  sv_node *p = (sv_node *)self;
  int m = p->m, n = p->n;
  for (int l = 0; l < p->k; l++) {
    double g = p->oadj[l];
    if (g == 0) continue;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        cx w = conj(p->U[IX(i, l, m)]) * p->V[IX(j, l, n)];
        cx_add_adj(p->a, IX(i, j, m), creal(w) * g, -cimag(w) * g);
      }
  }
}

/* svd_U, svd_V of a complex matrix of parameters, A = U diag(s) V^H (m x n,
** k = min(m, n) distinct positive singular values).  Each column of V has
** its largest element real and positive and U's column the same phase, so
** that A = U S V^H holds; V is then the eigenvector basis of B = A^H A with
** that choice, U = A V S^-1 and s_k^2 = lambda_k, which gives the reverse
** pass through eigenvectors_sym's (symvec_chain):
**   Abar += Ubar S^-1 V^H,  Vbar' = Vbar + A^H Ubar S^-1,
**   lambdabar_k = -Re(ubar_k^H u_k) / (2 s_k^2),
**   Bbar = V (H + diag(lambdabar)) V^H + (P W + (P W)^H) / 2,   Abar += 2 A Bbar,
** H from Vbar' as in symvec_chain over the k columns of V; the other
** eigenvectors of B (its null space when m < n, eigenvalue 0) enter only
** through P = I - V V^H: column k of W is (vbar'_k - i s'_k e_m) / lambda_k. */
typedef struct svdvec_node {
  ad_node hdr; const tm_v *a; const cx *A, *U, *V; const double *s; const int *mk;
  const double *oadj; cx *work; int m, n, k, which;
} svdvec_node;
static void svdvec_chain(ad_node *self) {
  svdvec_node *p = (svdvec_node *)self;
  int m = p->m, n = p->n, k = p->k;
  const cx *A = p->A, *U = p->U, *V = p->V;
  cx *Vb = p->work, *C = Vb + (size_t)n * k, *H = C + (size_t)k * k, *B = H + (size_t)k * k;
  double *lb = (double *)(B + (size_t)n * n);
  for (int c = 0; c < k; c++) lb[c] = 0;
  for (size_t i = 0; i < (size_t)n * k; i++) Vb[i] = 0;
  if (p->which == SV_V)
    for (size_t i = 0; i < (size_t)n * k; i++) Vb[i] = cx_mk(p->oadj[2 * i], p->oadj[2 * i + 1]);
  else
    for (int c = 0; c < k; c++) {
      double ss = p->s[c];
      cx uu = 0;
      for (int i = 0; i < m; i++) {
        cx ub = cx_mk(p->oadj[2 * IX(i, c, m)], p->oadj[2 * IX(i, c, m) + 1]);
        uu += conj(ub) * U[IX(i, c, m)];
        for (int j = 0; j < n; j++)               /* Abar += Ubar S^-1 V^H */
          cx_add_adj(p->a, IX(i, j, m), creal(ub * conj(V[IX(j, c, n)]) / ss), cimag(ub * conj(V[IX(j, c, n)]) / ss));
      }
      lb[c] = -creal(uu) / (2 * ss * ss);
      for (int j = 0; j < n; j++) {               /* Vbar' = A^H Ubar S^-1 */
        cx t = 0;
        for (int i = 0; i < m; i++) t += conj(A[IX(i, j, m)]) * cx_mk(p->oadj[2 * IX(i, c, m)], p->oadj[2 * IX(i, c, m) + 1]);
        Vb[IX(j, c, n)] = t / ss;
      }
    }
  /* a = conj(V^H Vbar') + i s_c v_j[m_c], then H (k x k) as in symvec_chain */
  double *sk = lb + k;
  for (int c = 0; c < k; c++)
    for (int j = 0; j < k; j++) {
      cx t = 0;
      for (int i = 0; i < n; i++) t += conj(V[IX(i, j, n)]) * Vb[IX(i, c, n)];
      C[IX(j, c, k)] = t;
    }
  for (int c = 0; c < k; c++) {
    sk[c] = cimag(C[IX(c, c, k)]) / creal(V[IX(p->mk[c], c, n)]);
    for (int j = 0; j < k; j++) C[IX(j, c, k)] = conj(C[IX(j, c, k)]) + I * sk[c] * V[IX(p->mk[c], j, n)];
  }
  for (int c = 0; c < k; c++)
    for (int j = 0; j < k; j++) {
      double gap = p->s[c] * p->s[c] - p->s[j] * p->s[j];
      H[IX(j, c, k)] = j == c ? lb[c] : gap == 0 ? 0 : (conj(C[IX(j, c, k)]) - C[IX(c, j, k)]) / (2 * gap);
    }
  /* B = V H V^H (n x n) */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      cx t = 0;
      for (int c = 0; c < k; c++) {
        cx r = 0;
        for (int d = 0; d < k; d++) r += V[IX(i, d, n)] * H[IX(d, c, k)];
        t += r * conj(V[IX(j, c, n)]);
      }
      B[IX(i, j, n)] = t;
    }
  if (k < n) {   /* the null space of B, through P = I - V V^H */
    for (int c = 0; c < k; c++) {
      double lam = p->s[c] * p->s[c];
      /* w = P (vbar'_c - i s_c e_m) / (2 lambda), then B += w v_c^H + v_c w^H */
      for (int i = 0; i < n; i++) {
        cx z = Vb[IX(i, c, n)] - (i == p->mk[c] ? I * sk[c] : 0);
        cx proj = 0;
        for (int d = 0; d < k; d++) {
          cx vz = 0;
          for (int l = 0; l < n; l++) vz += conj(V[IX(l, d, n)]) * (Vb[IX(l, c, n)] - (l == p->mk[c] ? I * sk[c] : 0));
          proj += V[IX(i, d, n)] * vz;
        }
        cx wi = (z - proj) / (2 * lam);
        for (int j = 0; j < n; j++) {
          B[IX(i, j, n)] += wi * conj(V[IX(j, c, n)]);
          B[IX(j, i, n)] += V[IX(j, c, n)] * conj(wi);
        }
      }
    }
  }
  /* Abar += 2 A B */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      cx t = 0;
      for (int l = 0; l < n; l++) t += A[IX(i, l, m)] * B[IX(l, j, n)];
      cx_add_adj(p->a, IX(i, j, m), 2 * creal(t), 2 * cimag(t));
    }
}

/* Columns 0..k-1 of V (n rows) each turned by a phase so that its largest
** element is real and positive, the same phase applied to column c of U (m
** rows) when U is not NULL; the rows of those elements (arena), NULL when
** out of memory. */
static int *phase_columns(cx *V, int n, int k, cx *U, int m) {
  int *mk = ad_alloc((size_t)(k > 0 ? k : 1) * sizeof *mk);
  if (!mk) return NULL;
  for (int c = 0; c < k; c++) {
    int big = 0;
    for (int i = 1; i < n; i++) if (cabs(V[IX(i, c, n)]) > cabs(V[IX(big, c, n)])) big = i;
    mk[c] = big;
    double r = cabs(V[IX(big, c, n)]);
    cx ph = r > 0 ? conj(V[IX(big, c, n)]) / r : 1;
    for (int i = 0; i < n; i++) V[IX(i, c, n)] *= ph;
    V[IX(big, c, n)] = r;
    if (U) for (int i = 0; i < m; i++) U[IX(i, c, m)] *= ph;
  }
  return mk;
}

static int k_svd(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  int op = *(const int *)c->fn->data, rc, m = a->rows, n = a->cols;
  if (op != SV_VALUES && (rc = tm_check_nonzero_size(fn, "m", a))) return rc;
  int tr = m < n, r = tr ? n : m, k = tr ? m : n;   /* work on A^H when wide */
  size_t rk = (size_t)r * k;
  cx *A = ad_alloc((rk ? rk : 1) * sizeof *A), *U = ad_alloc((rk ? rk : 1) * sizeof *U);
  cx *V = ad_alloc((size_t)(k * k > 0 ? k * k : 1) * sizeof *V);
  double *d = ad_alloc((size_t)(k > 0 ? k : 1) * sizeof *d);
  if (!A || !U || !V || !d) return ad_fail(AD_EMEMORY, "out of memory");
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      cx z = cx_get(a, IX(i, j, m));
      if (tr) A[IX(j, i, r)] = conj(z); else A[IX(i, j, r)] = z;
    }
  if ((rc = jacobi_svd(fn, A, r, k, d, U, V))) return rc;
  tm_v shape;
  memset(&shape, 0, sizeof shape);
  if (op == SV_VALUES) {
    shape.rows = k; shape.cols = 1;
    memset(out, 0, sizeof *out);
    out->base = TM_VECTOR; out->rows = k; out->cols = 1;
    if (!(out->val = ad_alloc_doubles((size_t)(k > 0 ? k : 1)))) return ad_fail(AD_EMEMORY, "out of memory");
    for (int i = 0; i < k; i++) out->val[i] = d[i];
    out->dep = a->dep || a->adj;
    if (!a->adj || k == 0) return AD_OK;
    if (!(out->adj = ad_alloc_zeros((size_t)k))) return ad_fail(AD_EMEMORY, "out of memory");
    sv_node *p = ad_node_new(sizeof *p, sv_chain);
    tm_v *ac = ad_alloc(sizeof *ac);
    if (!p || !ac) return ad_fail(AD_EMEMORY, "out of memory");
    *ac = *a;
    /* A = Uo d Vo^H: for A^H = U d V^H, Uo = V and Vo = U */
    p->a = ac; p->U = tr ? V : U; p->V = tr ? U : V; p->oadj = out->adj; p->m = m; p->n = n; p->k = k;
    return AD_OK;
  }
  /* A = U d V^H; for A^H = U' d V'^H: U = V', V = U'.  Each column of V
     gets its largest element real and positive, U's column the same phase. */
  cx *Uo = tr ? V : U, *Vo = tr ? U : V;
  int *mk = phase_columns(Vo, n, k, Uo, m);
  if (!mk) return ad_fail(AD_EMEMORY, "out of memory");
  const cx *M = op == SV_U ? Uo : Vo;
  int rows = op == SV_U ? m : n, ad = a->adj != NULL;
  shape.rows = rows; shape.cols = k;
  if ((rc = cx_new(out, &shape, TM_CMATRIX, ad))) return rc;
  for (int j = 0; j < k; j++)
    for (int i = 0; i < rows; i++) {
      cx z = M[IX(i, j, rows)];
      out->val[2 * IX(i, j, rows)] = creal(z);
      out->val[2 * IX(i, j, rows) + 1] = cimag(z);
    }
  out->dep = a->dep || ad;
  if (!ad) return AD_OK;
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      if (d[i] == d[j] || d[j] == 0)
        return ad_fail(AD_EDOMAIN, "%s: the gradient is undefined at repeated or zero singular values", fn);
  svdvec_node *q = ad_node_new(sizeof *q, svdvec_chain);
  tm_v *ac = ad_alloc(sizeof *ac);
  cx *Ac = ad_alloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *Ac);
  size_t wn = (size_t)n * k + 2 * (size_t)k * k + (size_t)n * n + k;   /* Vb, C, H, B; then 2k doubles */
  cx *work = ad_alloc((wn + k + 1) * sizeof *work);
  if (!q || !ac || !Ac || !work) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t i = 0; i < (size_t)m * n; i++) Ac[i] = cx_get(a, i);
  *ac = *a;
  q->a = ac; q->A = Ac; q->U = Uo; q->V = Vo; q->s = d; q->mk = mk; q->oadj = out->adj;
  q->work = work; q->m = m; q->n = n; q->k = k; q->which = op;
  return AD_OK;
}

/* ---- eigenvalues_sym, eigenvectors_sym of a Hermitian complex matrix ---- */

/* eigenvalues_sym of the Hermitian matrix A built from the lower triangle L:
** d lambda_k = v_k^H dA v_k = 2 Re(u dL_ij) for i > j (u = conj(v_ik) v_jk),
** |v_ik|^2 dRe(L_ii) on the diagonal; the upper triangle has no derivative. */
typedef struct symeig_node { ad_node hdr; const tm_v *a; const cx *V; const double *oadj; int n; } symeig_node;
static void symeig_chain(ad_node *self) {
  symeig_node *p = (symeig_node *)self;
  int n = p->n;
  for (int k = 0; k < n; k++) {
    double g = p->oadj[2 * k];   /* the imaginary part is 0 whatever A */
    if (g == 0) continue;
    for (int j = 0; j < n; j++)
      for (int i = j; i < n; i++) {
        cx u = conj(p->V[IX(i, k, n)]) * p->V[IX(j, k, n)];
        if (i == j) cx_add_adj(p->a, IX(i, i, n), creal(u) * g, 0);
        else cx_add_adj(p->a, IX(i, j, n), 2 * creal(u) * g, -2 * cimag(u) * g);
      }
  }
}

/* eigenvectors_sym of a Hermitian matrix.  An eigenvector is defined up to
** a phase; the one returned has its largest element (the first of equal
** ones) real and positive, a smooth choice wherever that element stays the
** largest, and the derivative is that choice's.  With c_jk the coefficient
** of v_j in dv_k (j != k): c_jk = v_j^H dA v_k / (lambda_k - lambda_j),
** and the phase term i theta_k v_k keeping v_k[m_k] real.  Reverse:
** a_jk = conj(V^H Vbar)_jk + i s_k v_j[m_k], s_k = Im((V^H Vbar)_kk) / v_k[m_k];
** Abar = V H V^H with H the Hermitian part of conj(a) / (lambda_k - lambda_j),
** formed before the products as (conj(a_jk) - a_kj) / (2 (lambda_k - lambda_j))
** so that clustered eigenvalues keep their digits (tm_eigen.c says why). */
typedef struct symvec_node {
  ad_node hdr; const tm_v *a; const cx *V; const double *w; const int *m; const double *oadj; cx *C; int n;
} symvec_node;
static void symvec_chain(ad_node *self) {
  symvec_node *p = (symvec_node *)self;
  int n = p->n;
  cx *C = p->C, *H = p->C + (size_t)n * n;
  for (int k = 0; k < n; k++)           /* C = V^H Vbar */
    for (int j = 0; j < n; j++) {
      cx s = 0;
      for (int i = 0; i < n; i++)
        s += conj(p->V[IX(i, j, n)]) * cx_mk(p->oadj[2 * IX(i, k, n)], p->oadj[2 * IX(i, k, n) + 1]);
      C[IX(j, k, n)] = s;
    }
  for (int k = 0; k < n; k++) {         /* C becomes a */
    double sk = cimag(C[IX(k, k, n)]) / creal(p->V[IX(p->m[k], k, n)]);
    for (int j = 0; j < n; j++) C[IX(j, k, n)] = conj(C[IX(j, k, n)]) + I * sk * p->V[IX(p->m[k], j, n)];
  }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++) {
      double gap = p->w[k] - p->w[j];
      H[IX(j, k, n)] = j == k || gap == 0 ? 0 : (conj(C[IX(j, k, n)]) - C[IX(k, j, n)]) / (2 * gap);
    }
  /* Abar = V H V^H, read back onto the lower triangle the matrix came from */
  for (int jj = 0; jj < n; jj++)
    for (int ii = jj; ii < n; ii++) {
      cx s = 0;
      for (int k = 0; k < n; k++) {
        cx t = 0;
        for (int j = 0; j < n; j++) t += p->V[IX(ii, j, n)] * H[IX(j, k, n)];
        s += t * conj(p->V[IX(jj, k, n)]);
      }
      if (ii == jj) cx_add_adj(p->a, IX(ii, ii, n), creal(s), 0);
      else cx_add_adj(p->a, IX(ii, jj, n), 2 * creal(s), 2 * cimag(s));
    }
}

static int k_eigen_sym(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  int vectors = c->fn->data != NULL, rc, n = a->rows;
  if ((rc = tm_check_nonzero_size(fn, "m", a)) || (rc = tm_check_square(fn, "m", a))) return rc;
  size_t nn = (size_t)n * n;
  cx *T = ad_alloc((nn ? nn : 1) * sizeof *T), *U = ad_alloc((nn ? nn : 1) * sizeof *U);
  int *ord = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *ord);
  if (!T || !U || !ord) return ad_fail(AD_EMEMORY, "out of memory");
  /* the lower triangle, as Eigen's self-adjoint solver reads it */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      T[IX(i, j, n)] = i >= j ? cx_get(a, IX(i, j, n)) : conj(cx_get(a, IX(j, i, n)));
  for (int i = 0; i < n; i++) T[IX(i, i, n)] = creal(T[IX(i, i, n)]);
  if ((rc = schur(fn, T, U, n))) return rc;
  for (int i = 0; i < n; i++) ord[i] = i;
  for (int i = 1; i < n; i++)      /* ascending, as Eigen's */
    for (int j = i; j > 0 && creal(T[IX(ord[j], ord[j], n)]) < creal(T[IX(ord[j - 1], ord[j - 1], n)]); j--) {
      int t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t;
    }
  tm_v shape;
  memset(&shape, 0, sizeof shape);
  shape.rows = n; shape.cols = vectors ? n : 1;
  int ad = a->adj != NULL;
  if ((rc = cx_new(out, &shape, vectors ? TM_CMATRIX : TM_CVECTOR, ad))) return rc;
  /* the eigenvectors in the result's order (a Hermitian matrix's Schur
     vectors), each with its largest element made real and positive */
  cx *V = ad_alloc((nn ? nn : 1) * sizeof *V);
  double *w = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *w);
  int *mk = ad_alloc((size_t)(n > 0 ? n : 1) * sizeof *mk);
  if (!V || !w || !mk) return ad_fail(AD_EMEMORY, "out of memory");
  for (int k = 0; k < n; k++) {
    int j = ord[k], big = 0;
    w[k] = creal(T[IX(j, j, n)]);
    for (int i = 0; i < n; i++) {
      V[IX(i, k, n)] = U[IX(i, j, n)];
      if (cabs(V[IX(i, k, n)]) > cabs(V[IX(big, k, n)])) big = i;
    }
    mk[k] = big;
    double r = cabs(V[IX(big, k, n)]);
    cx ph = r > 0 ? conj(V[IX(big, k, n)]) / r : 1;
    for (int i = 0; i < n; i++) V[IX(i, k, n)] *= ph;
    V[IX(big, k, n)] = r;
    if (!vectors) { out->val[2 * k] = w[k]; out->val[2 * k + 1] = 0; continue; }
    for (int i = 0; i < n; i++) {
      out->val[2 * IX(i, k, n)] = creal(V[IX(i, k, n)]);
      out->val[2 * IX(i, k, n) + 1] = cimag(V[IX(i, k, n)]);
    }
  }
  out->dep = a->dep || ad;
  if (!ad) return AD_OK;
  if (vectors) {
    symvec_node *q = ad_node_new(sizeof *q, symvec_chain);
    tm_v *acp = ad_alloc(sizeof *acp);
    if (!q || !acp || !(q->C = ad_alloc(2 * (nn ? nn : 1) * sizeof *q->C))) return ad_fail(AD_EMEMORY, "out of memory");
    *acp = *a;
    q->a = acp; q->V = V; q->w = w; q->m = mk; q->oadj = out->adj; q->n = n;
    return AD_OK;
  }
  symeig_node *p = ad_node_new(sizeof *p, symeig_chain);
  tm_v *ac = ad_alloc(sizeof *ac);
  if (!p || !ac) return ad_fail(AD_EMEMORY, "out of memory");
  *ac = *a;
  p->a = ac; p->V = V; p->oadj = out->adj; p->n = n;
  return AD_OK;
}

typedef struct eig_node {
  ad_node hdr;
  const tm_v *a;
  const cx *V, *Vinv;
  const double *oadj;
  int n;
} eig_node;

/* adj A_ij += sum_k conj(Vinv_ki V_jk) g_k */
static void eig_chain(ad_node *self) {
  eig_node *p = (eig_node *)self;
  int n = p->n;
  for (int k = 0; k < n; k++) {
    cx g = cx_mk(p->oadj[2 * k], p->oadj[2 * k + 1]);
    if (g == 0) continue;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        cx d = conj(p->Vinv[IX(k, i, n)] * p->V[IX(j, k, n)]) * g;
        cx_add_adj(p->a, IX(i, j, n), creal(d), cimag(d));
      }
  }
}

enum { E_VALUES = 0, E_VECTORS, E_SCHUR_T, E_SCHUR_U };

/* eigenvectors of a general matrix: unit columns, each with its largest
** element real and positive, which fixes the phase and scale every
** eigenvector leaves free; the derivative is that choice's (distinct
** eigenvalues).  dv_k = sum_{j != k} v_j c_jk + alpha_k v_k with
** c_jk = (W dA V)_jk / (lambda_k - lambda_j), W = V^-1, and alpha_k keeping
** |v_k| = 1 and v_k[m_k] real.  With g_k = vbar_k^H v_k, the reverse pass:
** a_jk = vbar_k^H v_j - Re(g_k) v_k^H v_j - i Im(g_k) v_j[m_k] / v_k[m_k],
** Abar = W^H conj(F .* a) V^H, F_jk = 1 / (lambda_k - lambda_j) off the
** diagonal; a real A takes the real part. */
typedef struct evec_node {
  ad_node hdr; const tm_v *a; const cx *V, *W, *lam; const int *m; const double *oadj; cx *G; int n;
} evec_node;
static void evec_chain(ad_node *self) {
  evec_node *p = (evec_node *)self;
  int n = p->n;
  const cx *V = p->V, *W = p->W;
  cx *N = p->G, *T = p->G + (size_t)n * n;
  for (int k = 0; k < n; k++) {
    cx g = 0;          /* vbar_k^H v_k */
    for (int i = 0; i < n; i++) g += conj(cx_mk(p->oadj[2 * IX(i, k, n)], p->oadj[2 * IX(i, k, n) + 1])) * V[IX(i, k, n)];
    double vm = creal(V[IX(p->m[k], k, n)]);
    for (int j = 0; j < n; j++) {
      if (j == k) { N[IX(j, k, n)] = 0; continue; }
      cx vbj = 0, vkj = 0;
      for (int i = 0; i < n; i++) {
        vbj += conj(cx_mk(p->oadj[2 * IX(i, k, n)], p->oadj[2 * IX(i, k, n) + 1])) * V[IX(i, j, n)];
        vkj += conj(V[IX(i, k, n)]) * V[IX(i, j, n)];
      }
      cx ajk = vbj - creal(g) * vkj - I * (cimag(g) / vm) * V[IX(p->m[k], j, n)];
      cx gap = p->lam[k] - p->lam[j];
      N[IX(j, k, n)] = gap == 0 ? 0 : conj(ajk / gap);
    }
  }
  /* T = N V^H, then Abar = W^H T */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      cx s = 0;
      for (int k = 0; k < n; k++) s += N[IX(i, k, n)] * conj(V[IX(j, k, n)]);
      T[IX(i, j, n)] = s;
    }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      cx s = 0;
      for (int k = 0; k < n; k++) s += conj(W[IX(k, i, n)]) * T[IX(k, j, n)];
      cx_add_adj(p->a, IX(i, j, n), creal(s), cimag(s));
    }
}

static int k_eigen(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  const char *fn = c->fn->name;
  int op = *(const int *)c->fn->data, rc, n = a->rows;
  if ((rc = tm_check_nonzero_size(fn, "m", a)) || (rc = tm_check_square(fn, "m", a))) return rc;
  if (a->adj && (op == E_SCHUR_T || op == E_SCHUR_U))
    return ad_fail(AD_EINVALID, "%s of a matrix that depends on parameters is not supported by tapestry yet "
                   "(its derivatives are to come); it works on data and in generated quantities", fn);
  size_t nn = (size_t)n * n;
  cx *T = ad_alloc((nn ? nn : 1) * sizeof *T), *U = ad_alloc((nn ? nn : 1) * sizeof *U);
  if (!T || !U) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t k = 0; k < nn; k++) T[k] = cx_get(a, k);
  if ((rc = schur(fn, T, U, n))) return rc;
  tm_v shape;
  memset(&shape, 0, sizeof shape);
  shape.rows = n;
  shape.cols = op == E_VALUES ? 1 : n;
  if ((rc = cx_new(out, &shape, op == E_VALUES ? TM_CVECTOR : TM_CMATRIX, a->adj != NULL))) return rc;
  out->dep = a->dep || a->adj;
  if (op == E_SCHUR_T || op == E_SCHUR_U) {
    const cx *M = op == E_SCHUR_T ? T : U;
    for (size_t k = 0; k < nn; k++) { out->val[2 * k] = creal(M[k]); out->val[2 * k + 1] = cimag(M[k]); }
    return AD_OK;
  }
  cx *V = ad_alloc((nn ? nn : 1) * sizeof *V);
  if (!V) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = eigvecs(T, U, n, V))) return rc;
  if (op == E_VECTORS) {
    /* unit columns, each with its largest element real and positive */
    int *mk = phase_columns(V, n, n, NULL, 0);
    if (!mk) return ad_fail(AD_EMEMORY, "out of memory");
    for (size_t k = 0; k < nn; k++) { out->val[2 * k] = creal(V[k]); out->val[2 * k + 1] = cimag(V[k]); }
    if (!a->adj || n == 0) return AD_OK;
    cx *W = ad_alloc(nn * sizeof *W), *lam = ad_alloc((size_t)n * sizeof *lam);
    if (!W || !lam) return ad_fail(AD_EMEMORY, "out of memory");
    if ((rc = inverse(fn, V, n, W))) return rc;
    for (int k = 0; k < n; k++) lam[k] = T[IX(k, k, n)];
    evec_node *q = ad_node_new(sizeof *q, evec_chain);
    tm_v *ac = ad_alloc(sizeof *ac);
    if (!q || !ac || !(q->G = ad_alloc(2 * nn * sizeof *q->G))) return ad_fail(AD_EMEMORY, "out of memory");
    *ac = *a;
    q->a = ac; q->V = V; q->W = W; q->lam = lam; q->m = mk; q->oadj = out->adj; q->n = n;
    return AD_OK;
  }
  for (int k = 0; k < n; k++) {
    out->val[2 * k] = creal(T[IX(k, k, n)]);
    out->val[2 * k + 1] = cimag(T[IX(k, k, n)]);
  }
  if (!a->adj || n == 0) return AD_OK;
  cx *Vinv = ad_alloc(nn * sizeof *Vinv);
  if (!Vinv) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = inverse(fn, V, n, Vinv))) return rc;
  eig_node *p = ad_node_new(sizeof *p, eig_chain);
  tm_v *ac = ad_alloc(sizeof *ac);
  if (!p || !ac) return ad_fail(AD_EMEMORY, "out of memory");
  *ac = *a;
  p->a = ac; p->V = V; p->Vinv = Vinv; p->oadj = out->adj; p->n = n;
  return AD_OK;
}

static const int sv_values = SV_VALUES, sv_u = SV_U, sv_v = SV_V, sym_vectors = 1;
static const int e_values = E_VALUES, e_vectors = E_VECTORS, e_schur_t = E_SCHUR_T, e_schur_u = E_SCHUR_U;

const tm_fn tm_fns_complex_eigen[] = {
  {"eigenvalues", "complex_vector(matrix); complex_vector(complex_matrix)", k_eigen, &e_values},
  {"eigenvectors", "complex_matrix(matrix); complex_matrix(complex_matrix)", k_eigen, &e_vectors},
  {"complex_schur_decompose_t", "complex_matrix(matrix); complex_matrix(complex_matrix)", k_eigen, &e_schur_t},
  {"complex_schur_decompose_u", "complex_matrix(matrix); complex_matrix(complex_matrix)", k_eigen, &e_schur_u},
  {"singular_values", "vector(complex_matrix)", k_svd, &sv_values},
  {"svd_U", "complex_matrix(complex_matrix)", k_svd, &sv_u},
  {"svd_V", "complex_matrix(complex_matrix)", k_svd, &sv_v},
  {"eigenvalues_sym", "complex_vector(complex_matrix)", k_eigen_sym, NULL},
  {"eigenvectors_sym", "complex_matrix(complex_matrix)", k_eigen_sym, &sym_vectors},
  {"mdivide_right", "complex_row_vector(complex_row_vector, complex_matrix); "
   "complex_matrix(complex_matrix, complex_matrix)", k_mdivide_right, NULL},
  {NULL, NULL, NULL, NULL}
};
