/*
** tm_dlm.c -- gaussian_dlm_obs_lpdf: the log likelihood of a Gaussian
** dynamic linear model by the Kalman filter, as Stan Math computes it
**   y_t ~ N(F' theta_t, V),  theta_t ~ N(G theta_{t-1}, W),  theta_0 ~ N(m0, C0)
** with V an r x r matrix (one multivariate update per time) or a vector of
** r variances (the r observations of a time processed one at a time).
**
** One operands node per call.  Its partials come from the filter's adjoint
** recursion, run backwards once after the forward pass: the states (m, C)
** before each time are kept, and each time's intermediates are recomputed
** from them on the way back.  The partials of the symmetric arguments (V,
** W, C0) are symmetric.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_mv_checks.h"

#define AT TM_AT

/* C (m x n) += alpha op(A) op(B), op(A) m x k; A stored m x k (ta = 0) or
** k x m (ta = 1), likewise B k x n or n x k. */
static void gm(int m, int n, int k, double alpha, const double *A, int ta, const double *B, int tb, double *C) {
  for (int j = 0; j < n; j++)
    for (int l = 0; l < k; l++) {
      double b = tb ? B[j + (size_t)l * n] : B[l + (size_t)j * k];
      if (b == 0) continue;
      b *= alpha;
      if (!ta) {
        const double *a = A + (size_t)l * m;
        for (int i = 0; i < m; i++) C[i + (size_t)j * m] += a[i] * b;
      } else {
        for (int i = 0; i < m; i++) C[i + (size_t)j * m] += A[l + (size_t)i * k] * b;
      }
    }
}

static void zero(double *x, size_t n) { memset(x, 0, n * sizeof *x); }

/* X = (X + X') / 2 */
static void sym(int n, double *X) {
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      double s = 0.5 * (AT(X, n, i, j) + AT(X, n, j, i));
      AT(X, n, i, j) = AT(X, n, j, i) = s;
    }
}

/* Stan's check_pos_semidefinite: symmetric, then a Cholesky factorization
** with diagonal pivoting that stops at a remaining block that is zero to
** rounding (nonzero negative or NaN pivots fail). */
static int check_psd(const char *fn, const char *name, const tm_v *X) {
  int n = X->rows, rc;
  if ((rc = tm_check_square(fn, name, X)) || (rc = tm_la_check_symmetric(fn, name, n, X->val))) return rc;
  size_t nn = (size_t)n * n;
  double *A = ad_alloc_doubles(nn + 1), scale = 0;
  if (!A) return AD_EMEMORY;
  memcpy(A, X->val, nn * sizeof *A);
  for (int i = 0; i < n; i++) scale = fmax(scale, fabs(AT(A, n, i, i)));
  double tol = 64 * 2.220446049250313e-16 * n * scale;
  int *perm = ad_alloc((size_t)(n + 1) * sizeof(int));
  if (!perm) return AD_EMEMORY;
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int j = 0; j < n; j++) {
    int p = j;
    for (int i = j + 1; i < n; i++)
      if (AT(A, n, perm[i], perm[i]) > AT(A, n, perm[p], perm[p])) p = i;
    int t = perm[j]; perm[j] = perm[p]; perm[p] = t;
    double d = AT(A, n, perm[j], perm[j]);
    if (isnan(d)) return ad_fail(AD_EDOMAIN, "%s: %s is not positive semi-definite.", fn, name);
    if (d <= tol) {              /* the rest must be zero to rounding */
      for (int b = j; b < n; b++)
        for (int a = j; a < n; a++)
          if (!(fabs(AT(A, n, perm[a], perm[b])) <= tol))
            return ad_fail(AD_EDOMAIN, "%s: %s is not positive semi-definite.", fn, name);
      return AD_OK;
    }
    double l = sqrt(d);
    for (int i = j + 1; i < n; i++) AT(A, n, perm[i], perm[j]) /= l;
    for (int b = j + 1; b < n; b++)
      for (int a = j + 1; a < n; a++)
        AT(A, n, perm[a], perm[b]) -= AT(A, n, perm[a], perm[j]) * AT(A, n, perm[b], perm[j]);
  }
  return AD_OK;
}

typedef struct dlm {
  int r, T, n, vec;
  const double *y, *F, *G, *V, *W;
  /* states before each time: m[t] (n), C[t] (n x n), t = 0 .. T */
  double *m, *C;
} dlm;

/* ---- V a matrix: one update per time ---- */

typedef struct step {
  double *a, *R, *S, *Q, *Qi, *e, *K, *P, *LQ;
} step;

static int step_alloc(step *s, int n, int r) {
  size_t nn = (size_t)n * n, nr = (size_t)n * r, rr = (size_t)r * r;
  double *b = ad_alloc_doubles(n + 2 * nn + 2 * nr + 3 * rr + r + 1);
  if (!b) return AD_EMEMORY;
  s->a = b; b += n;
  s->R = b; b += nn;
  s->P = b; b += nn;
  s->S = b; b += nr;
  s->K = b; b += nr;
  s->Q = b; b += rr;
  s->Qi = b; b += rr;
  s->LQ = b; b += rr;
  s->e = b;
  return AD_OK;
}

/* Time t from (m, C) = states t; writes states t + 1 and returns the term
** -1/2 (log |Q| + e' Q^-1 e) in *lt. */
static int step_forward(const dlm *D, int t, step *s, double *lt) {
  int n = D->n, r = D->r;
  size_t nn = (size_t)n * n;
  const double *m = D->m + (size_t)t * n, *C = D->C + (size_t)t * nn;
  double *m1 = D->m + (size_t)(t + 1) * n, *C1 = D->C + (size_t)(t + 1) * nn;
  zero(s->a, n); gm(n, 1, n, 1, D->G, 0, m, 0, s->a);                 /* a = G m */
  zero(s->P, nn); gm(n, n, n, 1, D->G, 0, C, 0, s->P);                /* P = G C */
  zero(s->R, nn); gm(n, n, n, 1, s->P, 0, D->G, 1, s->R);             /* R = sym(P G') + W */
  sym(n, s->R);
  for (size_t i = 0; i < nn; i++) s->R[i] += D->W[i];
  zero(s->S, (size_t)n * r); gm(n, r, n, 1, s->R, 0, D->F, 0, s->S);  /* S = R F */
  memcpy(s->Q, D->V, (size_t)r * r * sizeof *s->Q);                   /* Q = sym(F' S) + V */
  double *FS = s->Qi;
  zero(FS, (size_t)r * r); gm(r, r, n, 1, D->F, 1, s->S, 0, FS);
  sym(r, FS);
  for (size_t i = 0; i < (size_t)r * r; i++) s->Q[i] += FS[i];
  if (tm_la_cholesky(r, s->Q, s->LQ, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "gaussian_dlm_obs_lpdf: the covariance of the predicted observation at time %d is not "
                   "positive definite", t + 1);
  tm_la_chol_inverse(r, s->LQ, s->Qi);
  for (int i = 0; i < r; i++) s->e[i] = D->y[(size_t)t * r + i];    /* e = y_t - F' a */
  gm(r, 1, n, -1, D->F, 1, s->a, 0, s->e);
  zero(s->K, (size_t)n * r); gm(n, r, r, 1, s->S, 0, s->Qi, 0, s->K); /* K = S Q^-1 */
  memcpy(m1, s->a, (size_t)n * sizeof *m1); gm(n, 1, r, 1, s->K, 0, s->e, 0, m1);
  memcpy(C1, s->R, nn * sizeof *C1); gm(n, n, r, -1, s->K, 0, s->S, 1, C1);
  sym(n, C1);
  double q = 0;
  for (int j = 0; j < r; j++)
    for (int i = 0; i < r; i++) q += s->e[i] * AT(s->Qi, r, i, j) * s->e[j];
  *lt = -0.5 * (tm_mv_chol_logdet(r, s->LQ) + q);
  return AD_OK;
}

typedef struct grads { double *y, *F, *G, *V, *W; } grads;

/* Adjoints of time t: mb, Cb hold those of states t + 1 on entry and of
** states t on return. */
static int step_reverse(const dlm *D, int t, step *s, double *mb, double *Cb, const grads *g, double *work) {
  int n = D->n, r = D->r;
  size_t nn = (size_t)n * n, nr = (size_t)n * r, rr = (size_t)r * r;
  const double *m = D->m + (size_t)t * n, *C = D->C + (size_t)t * nn;
  double *ab = work, *Rb = ab + n, *Pb = Rb + nn, *Sb = Pb + nn, *Kb = Sb + nr, *Qb = Kb + nr, *Qib = Qb + rr,
         *eb = Qib + rr, *fb = eb + r, *T1 = fb + r;
  zero(work, (size_t)2 * n + 3 * nn + 2 * nr + 3 * rr + 2 * r);
  sym(n, Cb);                                    /* C' = sym(R - K S') */
  memcpy(ab, mb, (size_t)n * sizeof *ab);        /* m' = a + K e */
  gm(n, r, 1, 1, mb, 0, s->e, 1, Kb);            /* Kb += mb e' */
  gm(r, 1, n, 1, s->K, 1, mb, 0, eb);            /* eb += K' mb */
  memcpy(Rb, Cb, nn * sizeof *Rb);               /* Rb += Cb */
  gm(n, r, n, -1, Cb, 0, s->S, 0, Kb);           /* Kb -= Cb S */
  gm(n, r, n, -1, Cb, 1, s->K, 0, Sb);           /* Sb -= Cb' K */
  gm(r, 1, r, -1, s->Qi, 0, s->e, 0, eb);        /* l = -1/2 (log|Q| + e' Qi e) */
  gm(r, r, 1, -0.5, s->e, 0, s->e, 1, Qib);
  for (size_t i = 0; i < rr; i++) Qb[i] -= 0.5 * s->Qi[i];
  gm(n, r, r, 1, Kb, 0, s->Qi, 1, Sb);           /* K = S Qi */
  gm(r, r, n, 1, s->S, 1, Kb, 0, Qib);
  zero(T1, rr);                                  /* Qi = Q^-1: Qb -= Qi Qib Qi */
  gm(r, r, r, 1, s->Qi, 0, Qib, 0, T1);
  gm(r, r, r, -1, T1, 0, s->Qi, 0, Qb);
  for (int i = 0; i < r; i++) {                  /* e = y - F' a */
    if (g->y) g->y[(size_t)t * r + i] += eb[i];
    fb[i] = -eb[i];
  }
  if (g->V) for (size_t i = 0; i < rr; i++) g->V[i] += Qb[i];   /* Q = sym(F' S) + V */
  sym(r, Qb);
  if (g->F) gm(n, r, r, 1, s->S, 0, Qb, 1, g->F);
  gm(n, r, r, 1, D->F, 0, Qb, 0, Sb);
  gm(n, n, r, 1, Sb, 0, D->F, 1, Rb);            /* S = R F */
  if (g->F) gm(n, r, n, 1, s->R, 1, Sb, 0, g->F);
  if (g->F) gm(n, r, 1, 1, s->a, 0, fb, 1, g->F); /* f = F' a */
  gm(n, 1, r, 1, D->F, 0, fb, 0, ab);
  if (g->W) for (size_t i = 0; i < nn; i++) g->W[i] += Rb[i];   /* R = sym(P G') + W */
  sym(n, Rb);
  gm(n, n, n, 1, Rb, 0, D->G, 0, Pb);
  if (g->G) gm(n, n, n, 1, Rb, 1, s->P, 0, g->G);
  if (g->G) gm(n, n, n, 1, Pb, 0, C, 1, g->G);   /* P = G C */
  zero(Cb, nn);
  gm(n, n, n, 1, D->G, 1, Pb, 0, Cb);
  if (g->G) gm(n, n, 1, 1, ab, 0, m, 1, g->G);   /* a = G m */
  zero(mb, n);
  gm(n, 1, n, 1, D->G, 1, ab, 0, mb);
  return AD_OK;
}

/* ---- V a vector: the r observations of a time one at a time ---- */

/* Predict: (m, C) of states t -> a = G m, R = sym(G C G') + W into m1, C1. */
static void predict(const dlm *D, const double *m, const double *C, double *P, double *m1, double *C1) {
  int n = D->n;
  size_t nn = (size_t)n * n;
  zero(m1, n); gm(n, 1, n, 1, D->G, 0, m, 0, m1);
  zero(P, nn); gm(n, n, n, 1, D->G, 0, C, 0, P);
  zero(C1, nn); gm(n, n, n, 1, P, 0, D->G, 1, C1);
  sym(n, C1);
  for (size_t i = 0; i < nn; i++) C1[i] += D->W[i];
}

/* Observation j of time t on (m, C) in place; s = C F_j, Q and e out. */
static double seq_update(const dlm *D, int t, int j, double *m, double *C, double *s, double *Q, double *e) {
  int n = D->n;
  const double *Fj = D->F + (size_t)j * n;
  zero(s, n); gm(n, 1, n, 1, C, 0, Fj, 0, s);
  double q = D->V[j], f = 0;
  for (int i = 0; i < n; i++) { q += Fj[i] * s[i]; f += Fj[i] * m[i]; }
  double ee = D->y[(size_t)t * D->r + j] - f;
  for (int i = 0; i < n; i++) m[i] += s[i] * ee / q;
  for (int b = 0; b < n; b++)
    for (int a = 0; a < n; a++) AT(C, n, a, b) -= s[a] * s[b] / q;
  sym(n, C);
  *Q = q;
  *e = ee;
  return -0.5 * (log(q) + ee * ee / q);
}

static int seq_forward(const dlm *D, int t, double *P, double *s, double *lt) {
  int n = D->n;
  size_t nn = (size_t)n * n;
  double *m1 = D->m + (size_t)(t + 1) * n, *C1 = D->C + (size_t)(t + 1) * nn, Q, e;
  predict(D, D->m + (size_t)t * n, D->C + (size_t)t * nn, P, m1, C1);
  *lt = 0;
  for (int j = 0; j < D->r; j++) *lt += seq_update(D, t, j, m1, C1, s, &Q, &e);
  return AD_OK;
}

/* Reverse of time t; ms/Cs: scratch of (r + 1) states, sj: r vectors s, Qe: 2r. */
static void seq_reverse(const dlm *D, int t, double *mb, double *Cb, const grads *g, double *ms, double *Cs,
                        double *sj, double *Qe, double *P, double *work) {
  int n = D->n, r = D->r;
  size_t nn = (size_t)n * n;
  const double *m = D->m + (size_t)t * n, *C = D->C + (size_t)t * nn;
  predict(D, m, C, P, ms, Cs);
  for (int j = 0; j < r; j++) {
    memcpy(ms + (size_t)(j + 1) * n, ms + (size_t)j * n, (size_t)n * sizeof *ms);
    memcpy(Cs + (size_t)(j + 1) * nn, Cs + (size_t)j * nn, nn * sizeof *Cs);
    seq_update(D, t, j, ms + (size_t)(j + 1) * n, Cs + (size_t)(j + 1) * nn, sj + (size_t)j * n, &Qe[2 * j],
               &Qe[2 * j + 1]);
  }
  double *sb = work, *Ds = sb + n, *Pb = Ds + n, *ab = Pb + nn;
  for (int j = r - 1; j >= 0; j--) {
    const double *Fj = D->F + (size_t)j * n, *s = sj + (size_t)j * n, *mj = ms + (size_t)j * n;
    const double *Cj = Cs + (size_t)j * nn;
    double q = Qe[2 * j], e = Qe[2 * j + 1], Qb = 0, eb = 0, sm = 0, sDs = 0;
    sym(n, Cb);                                  /* C' = sym(C - s s' / Q) */
    zero(Ds, n); gm(n, 1, n, 1, Cb, 0, s, 0, Ds);
    for (int i = 0; i < n; i++) { sm += s[i] * mb[i]; sDs += s[i] * Ds[i]; }
    for (int i = 0; i < n; i++) sb[i] = mb[i] * e / q - 2 * Ds[i] / q;   /* m' = m + s e / Q */
    eb += sm / q;
    Qb += -sm * e / (q * q) + sDs / (q * q);
    Qb += -0.5 / q + 0.5 * e * e / (q * q);      /* l = -1/2 (log Q + e^2 / Q) */
    eb += -e / q;
    if (g->y) g->y[(size_t)t * r + j] += eb;     /* e = y - F_j' m */
    for (int i = 0; i < n; i++) mb[i] -= Fj[i] * eb;
    if (g->F) for (int i = 0; i < n; i++) g->F[(size_t)j * n + i] -= mj[i] * eb;
    if (g->V) g->V[j] += Qb;                     /* Q = F_j' s + V_j */
    if (g->F) for (int i = 0; i < n; i++) g->F[(size_t)j * n + i] += s[i] * Qb;
    for (int i = 0; i < n; i++) sb[i] += Fj[i] * Qb;
    gm(n, n, 1, 1, sb, 0, Fj, 1, Cb);            /* s = C F_j */
    if (g->F) gm(n, 1, n, 1, Cj, 1, sb, 0, g->F + (size_t)j * n);
  }
  /* predict's reverse: a = G m, R = sym(P G') + W */
  memcpy(ab, mb, (size_t)n * sizeof *ab);
  if (g->W) for (size_t i = 0; i < nn; i++) g->W[i] += Cb[i];
  sym(n, Cb);
  zero(Pb, nn); gm(n, n, n, 1, Cb, 0, D->G, 0, Pb);
  if (g->G) gm(n, n, n, 1, Cb, 1, P, 0, g->G);
  if (g->G) gm(n, n, n, 1, Pb, 0, C, 1, g->G);
  zero(Cb, nn); gm(n, n, n, 1, D->G, 1, Pb, 0, Cb);
  if (g->G) gm(n, n, 1, 1, ab, 0, m, 1, g->G);
  zero(mb, n); gm(n, 1, n, 1, D->G, 1, ab, 0, mb);
}

static int k_gaussian_dlm_obs(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "gaussian_dlm_obs_lpdf";
  int rc = AD_OK;
  if (nargs != 7) return ad_fail(AD_EINVALID, "%s: expects 7 arguments", fn);
  for (int i = 0; i < 7; i++) {
    int want = i == 5 ? TM_VECTOR : (i == 3 && a[3].base == TM_VECTOR) ? TM_VECTOR : TM_MATRIX;
    if (a[i].narr || a[i].base != want)
      return ad_fail(AD_EINVALID, "%s: expects (matrix, matrix, matrix, matrix or vector, matrix, vector, matrix)", fn);
  }
  const tm_v *Y = &a[0], *F = &a[1], *G = &a[2], *V = &a[3], *W = &a[4], *M0 = &a[5], *C0 = &a[6];
  int vec = V->base == TM_VECTOR;
  if ((rc = tm_mv_size_match(fn, "columns of F", F->cols, "rows of y", Y->rows)) ||
      (rc = tm_mv_size_match(fn, "rows of F", F->rows, "rows of G", G->rows)))
    return rc;
  if (vec) {
    if ((rc = tm_mv_size_match(fn, "rows of G", G->rows, "columns of G", G->cols)) ||
        (rc = tm_mv_size_match(fn, "size of V", V->rows, "rows of y", Y->rows)))
      return rc;
  } else if ((rc = tm_mv_size_match(fn, "rows of V", V->rows, "rows of y", Y->rows)))
    return rc;
  if ((rc = tm_mv_size_match(fn, "rows of W", W->rows, "rows of G", G->rows)) ||
      (rc = tm_mv_size_match(fn, "size of m0", M0->rows, "rows of G", G->rows)) ||
      (rc = tm_mv_size_match(fn, "rows of C0", C0->rows, "rows of G", G->rows)) ||
      (!vec && (rc = tm_check_square(fn, "G", G))))
    return rc;
  if ((rc = tm_check_finite(fn, "y", Y)) || (rc = tm_check_finite(fn, "F", F)) || (rc = tm_check_finite(fn, "G", G)))
    return rc;
  if (vec) {
    if ((rc = tm_check_nonnegative(fn, "V", V)) || (rc = tm_check_finite(fn, "V", V)) || (rc = check_psd(fn, "W", W)) ||
        (rc = tm_check_finite(fn, "W", W)))
      return rc;
  } else if ((rc = tm_check_finite(fn, "V", V)) || (rc = check_psd(fn, "V", V)) || (rc = tm_check_finite(fn, "W", W)) ||
             (rc = check_psd(fn, "W", W)))
    return rc;
  if ((rc = tm_check_finite(fn, "m0", M0)) || (rc = tm_check_square(fn, "C0", C0)) ||
      (rc = tm_la_check_symmetric(fn, "C0", C0->rows, C0->val)))
    return rc;
  int n = G->rows, r = Y->rows, T = Y->cols;
  size_t nn = (size_t)n * n;
  {
    double *L0 = ad_alloc_doubles(nn + 1);
    if (!L0) return AD_EMEMORY;
    if (n == 0 || tm_la_cholesky(n, C0->val, L0, NULL) >= 0)
      return ad_fail(AD_EDOMAIN, "%s: C0 is not positive definite.", fn);
  }
  if ((rc = tm_check_finite(fn, "C0", C0))) return rc;
  double *d[7];
  for (int i = 0; i < 7; i++) d[i] = tm_new_partials(&a[i], &rc);
  if (rc) return rc;
  if (r == 0 || T == 0) return tm_set_partials(out, a, d, 7, 0.0);
  int propto = c->propto, any = 0;
  for (int i = 0; i < 7; i++) any |= !tm_is_const(&a[i]);
  double lp = propto ? 0 : -TM_LOG_SQRT_2PI * r * T;
  if (propto && !any) return tm_set_partials(out, a, d, 7, lp);
  dlm D = {r, T, n, vec, Y->val, F->val, G->val, V->val, W->val, NULL, NULL};
  D.m = ad_alloc_doubles((size_t)(T + 1) * n + 1);
  D.C = ad_alloc_doubles((size_t)(T + 1) * nn + 1);
  double *P = ad_alloc_doubles(nn + 1), *s = ad_alloc_doubles((size_t)n + 1);
  if (!D.m || !D.C || !P || !s) return AD_EMEMORY;
  memcpy(D.m, M0->val, (size_t)n * sizeof *D.m);
  memcpy(D.C, C0->val, nn * sizeof *D.C);
  step st;
  if (!vec && (rc = step_alloc(&st, n, r))) return rc;
  for (int t = 0; t < T; t++) {
    double lt;
    if ((rc = vec ? seq_forward(&D, t, P, s, &lt) : step_forward(&D, t, &st, &lt))) return rc;
    lp += lt;
  }
  if (!tm_any_ad(a, 7)) return tm_set_partials(out, a, d, 7, lp);
  /* the adjoint recursion */
  grads g = {d[0], d[1], d[2], d[3], d[4]};
  double *mb = ad_alloc_doubles((size_t)n + 1), *Cb = ad_alloc_doubles(nn + 1);
  if (!mb || !Cb) return AD_EMEMORY;
  zero(mb, n);
  zero(Cb, nn);
  if (vec) {
    double *ms = ad_alloc_doubles((size_t)(r + 1) * n + 1), *Cs = ad_alloc_doubles((size_t)(r + 1) * nn + 1);
    double *sj = ad_alloc_doubles((size_t)r * n + 1), *Qe = ad_alloc_doubles(2 * (size_t)r + 1);
    double *work = ad_alloc_doubles(3 * (size_t)n + nn + 1);
    if (!ms || !Cs || !sj || !Qe || !work) return AD_EMEMORY;
    for (int t = T - 1; t >= 0; t--) seq_reverse(&D, t, mb, Cb, &g, ms, Cs, sj, Qe, P, work);
  } else {
    size_t nr = (size_t)n * r, rr = (size_t)r * r;
    double *work = ad_alloc_doubles(2 * (size_t)n + 3 * nn + 2 * nr + 3 * rr + 2 * (size_t)r + 1);
    if (!work) return AD_EMEMORY;
    for (int t = T - 1; t >= 0; t--) {
      double lt;
      step_forward(&D, t, &st, &lt);            /* this time's intermediates again */
      step_reverse(&D, t, &st, mb, Cb, &g, work);
    }
  }
  if (d[5]) memcpy(d[5], mb, (size_t)n * sizeof *mb);
  if (d[6]) { memcpy(d[6], Cb, nn * sizeof *Cb); sym(n, d[6]); }
  if (d[4]) sym(n, d[4]);
  if (d[3] && !vec) sym(r, d[3]);
  return tm_set_partials(out, a, d, 7, lp);
}

const tm_fn tm_fns_dlm[] = {
  {"gaussian_dlm_obs_lpdf", "real(matrix, matrix, matrix, matrix, matrix, vector, matrix); "
                            "real(matrix, matrix, matrix, vector, matrix, vector, matrix)", k_gaussian_dlm_obs, NULL},
  {NULL, NULL, NULL, NULL}
};
