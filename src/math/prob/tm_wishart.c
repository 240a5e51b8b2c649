/*
** tm_wishart.c -- the Wishart families: wishart, inv_wishart and their
** Cholesky forms (wishart_cholesky, inv_wishart_cholesky), each with its
** _lpdf and its _rng.  One file for the four: each inverse form is computed
** by the same code as its direct form (k_wishart, k_wishart_cholesky,
** k_wishart_rng: the row's data marks the inverse), and all four _rng draw through bartlett().
**
** The densities have analytic partials, one operands node per call.  Terms
** and what each depends on follow Stan Math's include_summand, so propto
** drops exactly what Stan drops.  The partials of a symmetric matrix
** argument are symmetric; those of a Cholesky factor are on its lower
** triangle (the only part read).
**
** The _rng functions follow Stan Math's algorithms and checks: Bartlett's
** decomposition, B upper triangular with standard normals above the
** diagonal and sqrt(chi_square(nu - j)) on it, drawn column by column as
** Stan does; the draw is X X^T with X = L B^T (L the scale's Cholesky
** factor).  The inverse forms draw a Wishart with the inverse scale and
** invert it (inv_wishart_cholesky_rng returns the inverse's Cholesky
** factor, as Stan Math does since its fix of issue 2963).  Arguments are
** data; no node is ever recorded.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_linalg.h"
#include "tm_rng_dist.h"
#include "tm_mv_checks.h"
#include "tm_rng_def.h"

#define AT TM_AT

/* lmgamma(k, x) = k (k - 1) / 4 log(pi) + sum_j lgamma(x + (1 - j) / 2), and
** its derivative in x. */
static double lmgamma(int k, double x, double *dx) {
  double s = 0.25 * k * (k - 1) * TM_LOG_PI, g = 0;
  for (int j = 1; j <= k; j++) {
    s += tm_lgamma(x + 0.5 * (1 - j));
    g += tm_digamma(x + 0.5 * (1 - j));
  }
  *dx = g;
  return s;
}

static int args3(const char *fn, const tm_v *a, int nargs) {
  if (nargs != 3 || a[0].narr || a[0].base != TM_MATRIX || !tm_is_scalar(&a[1]) || a[2].narr ||
      a[2].base != TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: expects (matrix, real, matrix)", fn);
  return AD_OK;
}

/* ---- wishart(W | nu, S) and inv_wishart(W | nu, S) ---- */

static int k_wishart(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int inv = c->fn->data != NULL;
  const char *fn = inv ? "inv_wishart_lpdf" : "wishart_lpdf";
  int rc = AD_OK;
  if ((rc = args3(fn, a, nargs))) return rc;
  const tm_v *W = &a[0], *nuv = &a[1], *S = &a[2];
  int k = inv ? S->rows : W->rows;
  if ((rc = tm_mv_size_match(fn, "Rows of random variable", W->rows, "columns of scale parameter", S->rows)))
    return rc;
  if (inv) {
    if ((rc = tm_check_square(fn, "random variable", W)) || (rc = tm_check_square(fn, "scale parameter", S)) ||
        (rc = tm_mv_check_greater(fn, "Degrees of freedom parameter", nuv, k - 1)))
      return rc;
  } else if ((rc = tm_mv_check_greater(fn, "Degrees of freedom parameter", nuv, k - 1)) ||
             (rc = tm_check_square(fn, "random variable", W)) || (rc = tm_check_square(fn, "scale parameter", S)))
    return rc;
  if ((rc = tm_la_check_symmetric(fn, "random variable", k, W->val)) ||
      (rc = tm_la_check_symmetric(fn, "scale parameter", k, S->val)))
    return rc;
  double *LW, *LS;
  if ((rc = tm_mv_spd(fn, "random variable", "LDLT_Factor of random variable", W, &LW)) ||
      (rc = tm_mv_spd(fn, "scale parameter", "LDLT_Factor of scale parameter", S, &LS)))
    return rc;
  double *d[3] = {tm_new_partials(W, &rc), tm_new_partials(nuv, &rc), tm_new_partials(S, &rc)};
  if (rc) return rc;
  size_t kk = (size_t)k * k;
  double nu = tm_get(nuv, 0), dlm, lm = lmgamma(k, 0.5 * nu, &dlm);
  double ldW = tm_mv_chol_logdet(k, LW), ldS = tm_mv_chol_logdet(k, LS);
  int propto = c->propto, cW = tm_is_const(W), cn = tm_is_const(nuv), cS = tm_is_const(S);
  /* tr(S^-1 W) for wishart, tr(W^-1 S) for inv_wishart: P is the inverse, Q the other */
  double *Wi = ad_alloc_doubles(kk + 1), *Si = ad_alloc_doubles(kk + 1), *T = ad_alloc_doubles(kk + 1);
  if (!Wi || !Si || !T) return AD_EMEMORY;
  tm_la_chol_inverse(k, LW, Wi);
  tm_la_chol_inverse(k, LS, Si);
  const double *P = inv ? Wi : Si, *Q = inv ? S->val : W->val;
  double tr = 0;
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) tr += AT(P, k, i, j) * AT(Q, k, j, i);
  double lp = 0, dnu = 0;
  if (!inv) {
    if (!propto || !cn) lp -= nu * k * 0.5 * TM_LOG_2 + lm;
    if (!propto || !cn || !cS) lp -= 0.5 * nu * ldS;
    if (!propto || !cS || !cW) lp -= 0.5 * tr;
    if (!propto || !cW || !cn) lp += 0.5 * (nu - k - 1) * ldW;
    dnu = -0.5 * k * TM_LOG_2 - 0.5 * dlm - 0.5 * ldS + 0.5 * ldW;
  } else {
    if (!propto || !cn) lp -= lm;
    if (!propto || !cn || !cS) lp += 0.5 * nu * ldS;
    if (!propto || !cW || !cn || !cS) lp -= 0.5 * (nu + k + 1) * ldW;
    if (!propto || !cW || !cS) lp -= 0.5 * tr;
    if (!propto || !cn || !cS) lp -= nu * k * 0.5 * TM_LOG_2;
    dnu = -0.5 * dlm + 0.5 * ldS - 0.5 * ldW - 0.5 * k * TM_LOG_2;
  }
  if (d[1]) d[1][0] = dnu;
  /* P Q P: S^-1 W S^-1 (wishart) or W^-1 S W^-1 (inv_wishart) */
  if ((inv && d[0]) || (!inv && d[2])) {
    double *PQ = ad_alloc_doubles(kk + 1);
    if (!PQ) return AD_EMEMORY;
    memset(PQ, 0, (kk + 1) * sizeof *PQ);
    memset(T, 0, (kk + 1) * sizeof *T);
    tm_la_gemm_nn(k, k, k, 1.0, P, Q, PQ);
    tm_la_gemm_nn(k, k, k, 1.0, PQ, P, T);
  }
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) {
      size_t ij = (size_t)j * k + i;
      if (!inv) {
        if (d[0]) d[0][ij] = -0.5 * Si[ij] + 0.5 * (nu - k - 1) * Wi[ij];
        if (d[2]) d[2][ij] = -0.5 * nu * Si[ij] + 0.5 * T[ij];
      } else {
        if (d[0]) d[0][ij] = -0.5 * (nu + k + 1) * Wi[ij] + 0.5 * T[ij];
        if (d[2]) d[2][ij] = 0.5 * nu * Si[ij] - 0.5 * Wi[ij];
      }
    }
  return tm_set_partials(out, a, d, 3, lp);
}

/* ---- wishart_cholesky(L_W | nu, L_S) and inv_wishart_cholesky(L_Y | nu, L_S) ----
** With A the first triangle solved against and B the other (wishart:
** A = L_S, B = L_W; inverse: A = L_Y, B = L_S), the quadratic term is
** -1/2 |A^-1 B|_F^2 = -1/2 |Z|^2, whose partials are A^-T Z Z^T in A and
** -A^-T Z in B (lower triangles). */

static int k_wishart_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int inv = c->fn->data != NULL;
  const char *fn = inv ? "inv_wishart_cholesky_lpdf" : "wishart_cholesky_lpdf";
  int rc = AD_OK;
  if ((rc = args3(fn, a, nargs))) return rc;
  const tm_v *Yv = &a[0], *nuv = &a[1], *S = &a[2];
  int k = Yv->rows;
  if (!inv) {
    if ((rc = tm_mv_size_match(fn, "Rows of random variable", Yv->rows, "columns of scale parameter", S->rows)) ||
        (rc = tm_mv_check_greater(fn, "Degrees of freedom parameter", nuv, k - 1)) ||
        (rc = tm_mv_check_cholesky(fn, "random variable", Yv)) ||
        (rc = tm_mv_check_cholesky(fn, "scale parameter", S)) || (rc = tm_check_square(fn, "random variable", Yv)) ||
        (rc = tm_check_square(fn, "scale parameter", S)))
      return rc;
  } else if ((rc = tm_mv_check_greater(fn, "Degrees of freedom parameter", nuv, k - 1)) ||
             (rc = tm_check_square(fn, "Cholesky random variable", Yv)) ||
             (rc = tm_check_square(fn, "Cholesky Scale parameter", S)) ||
             (rc = tm_mv_size_match(fn, "side length of random variable", Yv->rows, "side length of scale parameter",
                                    S->rows)) ||
             (rc = tm_mv_check_cholesky(fn, "Cholesky random variable", Yv)) ||
             (rc = tm_mv_check_cholesky(fn, "Cholesky Scale matrix", S)))
    return rc;
  double *d[3] = {tm_new_partials(Yv, &rc), tm_new_partials(nuv, &rc), tm_new_partials(S, &rc)};
  if (rc) return rc;
  size_t kk = (size_t)k * k;
  double nu = tm_get(nuv, 0), dlm, lm = lmgamma(k, 0.5 * nu, &dlm);
  int propto = c->propto;
  double lp = 0;
  if (!propto || !tm_is_const(nuv)) lp += k * TM_LOG_2 * (1 - 0.5 * nu) - lm;
  double sY = 0, sS = 0;
  for (int i = 0; i < k; i++) { sY += log(AT(Yv->val, k, i, i)); sS += log(AT(S->val, k, i, i)); }
  if (d[1]) d[1][0] = -0.5 * k * TM_LOG_2 - 0.5 * dlm + (inv ? sS - sY : sY - sS);
  if (propto && tm_is_const(Yv) && tm_is_const(nuv) && tm_is_const(S)) return tm_set_partials(out, a, d, 3, lp);
  const tm_v *Av = inv ? Yv : S, *Bv = inv ? S : Yv;
  double *dA = inv ? d[0] : d[2], *dB = inv ? d[2] : d[0];
  const double *A = Av->val;
  double *Z = ad_alloc_doubles(kk + 1);
  if (!Z) return AD_EMEMORY;
  memcpy(Z, Bv->val, kk * sizeof *Z);
  tm_la_trsm_lower(k, k, A, Z);                    /* Z = A^-1 B, lower triangular */
  double q = 0;
  for (int j = 0; j < k; j++)
    for (int i = j; i < k; i++) q += AT(Z, k, i, j) * AT(Z, k, i, j);
  lp -= 0.5 * q;
  for (int i = 0; i < k; i++) {
    double ly = log(AT(Yv->val, k, i, i)), ls = log(AT(S->val, k, i, i));
    if (!inv) lp += -nu * ls + (nu - i - 1) * ly;
    else lp += -(nu + 1 + i) * ly + nu * ls;
  }
  if (dA || dB) {
    for (int j = 0; j < k; j++)                    /* only the lower triangle of Z is read */
      for (int i = 0; i < j; i++) AT(Z, k, i, j) = 0;
    double *G = ad_alloc_doubles(kk + 1);         /* A^-T Z */
    if (!G) return AD_EMEMORY;
    memcpy(G, Z, kk * sizeof *G);
    tm_la_trsm_lower_t(k, k, A, G);
    if (dB)
      for (int j = 0; j < k; j++)
        for (int i = j; i < k; i++) AT(dB, k, i, j) -= AT(G, k, i, j);
    if (dA) {
      double *H = ad_alloc_doubles(kk + 1);       /* A^-T Z Z^T */
      if (!H) return AD_EMEMORY;
      memset(H, 0, (kk + 1) * sizeof *H);
      tm_la_gemm_nt(k, k, k, 1.0, G, Z, H);
      for (int j = 0; j < k; j++)
        for (int i = j; i < k; i++) AT(dA, k, i, j) += AT(H, k, i, j);
    }
  }
  for (int i = 0; i < k; i++) {
    double y = AT(Yv->val, k, i, i), s = AT(S->val, k, i, i);
    if (d[0]) AT(d[0], k, i, i) += inv ? -(nu + 1 + i) / y : (nu - i - 1) / y;
    if (d[2]) AT(d[2], k, i, i) += inv ? nu / s : -nu / s;
  }
  return tm_set_partials(out, a, d, 3, lp);
}

/* ---- wishart_rng, inv_wishart_rng, wishart_cholesky_rng, inv_wishart_cholesky_rng ---- */

/* X = L B^T (lower triangular) for a Bartlett draw B and lower L, k x k. */
static int bartlett(tm_rng *r, int k, double nu, const double *L, double *X) {
  double *B = ad_alloc_doubles((size_t)k * k + 1);
  if (!B) return ad_fail(AD_EMEMORY, "out of memory");
  memset(B, 0, ((size_t)k * k + 1) * sizeof *B);
  for (int j = 0; j < k; j++) {
    for (int i = 0; i < j; i++) AT(B, k, i, j) = tm_rng_normal(r);
    AT(B, k, j, j) = sqrt(2.0 * tm_rd_gamma(r, 0.5 * (nu - j)));
  }
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) {
      double s = 0;
      if (j <= i)
        for (int m = j; m <= i; m++) s += AT(L, k, i, m) * AT(B, k, j, m);
      AT(X, k, i, j) = s;
    }
  return AD_OK;
}

/* nu > k - 1, and finite as Stan's chi_square_rng requires of nu - j */
static int check_nu(const char *fn, const tm_v *nuv, int k) {
  int rc;
  if (!tm_is_scalar(nuv)) return ad_fail(AD_EINVALID, "%s: degrees of freedom must be a real", fn);
  if ((rc = tm_mv_check_greater(fn, "degrees of freedom > dims - 1", nuv, k - 1))) return rc;
  return tm_check_positive_finite("chi_square_rng", "Degrees of freedom parameter", nuv);
}

/* A symmetric positive definite scale's Cholesky factor (Stan reads the
** lower triangle without checking; a scale that is not symmetric positive
** definite is refused here rather than silently used). */
static int scale_factor(const char *fn, const tm_v *S, double **L) {
  int k = S->rows, rc;
  if ((rc = tm_la_check_symmetric(fn, "scale parameter", k, S->val))) return rc;
  if (!(*L = ad_alloc_doubles((size_t)k * k + 1))) return ad_fail(AD_EMEMORY, "out of memory");
  if (tm_la_cholesky(k, S->val, *L, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: scale parameter is not positive definite.", fn);
  return AD_OK;
}

/* W = X X^T */
static void outer_lower(int k, const double *X, double *W) {
  for (int j = 0; j < k; j++)
    for (int i = j; i < k; i++) {
      double s = 0;
      for (int m = 0; m <= j; m++) s += AT(X, k, i, m) * AT(X, k, j, m);
      AT(W, k, i, j) = AT(W, k, j, i) = s;
    }
}

/* What the four _rng check first: a generator, two arguments, a matrix. */
static int rng_args(const tm_call *c, const char *fn, const tm_v *a, int nargs, const char *sname) {
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 2)) || (rc = tm_mv_check_matrix(fn, sname, &a[1]))) return rc;
  return AD_OK;
}

/* A k x k result; its only failure is memory. */
static int new_square(tm_v *out, int k) {
  if (tm_new_matrix(out, k, k, 0)) return ad_fail(AD_EMEMORY, "out of memory");
  return AD_OK;
}

/* wishart_rng(nu, S): X X^T for a Bartlett draw on S's factor;
** inv_wishart_rng(nu, S): (X X^T)^-1 for a draw on the factor of S^-1.
** Each checks in Stan's order for it; the row's data marks the inverse. */
static int k_wishart_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int inv = c->fn->data != NULL;
  const char *fn = inv ? "inv_wishart_rng" : "wishart_rng";
  int rc;
  if ((rc = rng_args(c, fn, a, nargs, "scale parameter"))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  double *L, *X;
  if (inv) {
    if ((rc = check_nu(fn, &a[0], k)) || (rc = tm_check_square(fn, "scale parameter", S))) return rc;
  } else if ((rc = tm_check_square(fn, "scale parameter", S)) || (rc = check_nu(fn, &a[0], k)))
    return rc;
  if ((rc = scale_factor(fn, S, &L))) return rc;
  size_t kk = (size_t)k * k + 1;
  if (!(X = ad_alloc_doubles(kk))) return ad_fail(AD_EMEMORY, "out of memory");
  if (inv) {                                     /* L becomes the factor of S^-1 */
    double *Si = ad_alloc_doubles(kk), *Li = ad_alloc_doubles(kk);
    if (!Si || !Li) return ad_fail(AD_EMEMORY, "out of memory");
    tm_la_chol_inverse(k, L, Si);
    if (tm_la_cholesky(k, Si, Li, NULL) >= 0)
      return ad_fail(AD_EDOMAIN, "%s: scale parameter is not positive definite.", fn);
    L = Li;
  }
  if ((rc = bartlett(c->rng, k, tm_get(&a[0], 0), L, X)) || (rc = new_square(out, k))) return rc;
  if (inv) tm_la_chol_inverse(k, X, out->val);  /* (X X^T)^-1, symmetric */
  else outer_lower(k, X, out->val);
  return AD_OK;
}

static int k_wishart_cholesky_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "wishart_cholesky_rng";
  int rc;
  if ((rc = rng_args(c, fn, a, nargs, "scale parameter"))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  if ((rc = check_nu(fn, &a[0], k)) || (rc = tm_mv_check_cholesky(fn, "scale parameter", S)) ||
      (rc = tm_check_square(fn, "scale parameter", S)) || (rc = new_square(out, k)))
    return rc;
  return bartlett(c->rng, k, tm_get(&a[0], 0), S->val, out->val);
}

static int k_inv_wishart_cholesky_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "inv_wishart_cholesky_rng";
  int rc;
  if ((rc = rng_args(c, fn, a, nargs, "Cholesky Scale matrix"))) return rc;
  const tm_v *S = &a[1];
  int k = S->rows;
  if ((rc = tm_check_square(fn, "Cholesky Scale matrix", S)) || (rc = check_nu(fn, &a[0], k))) return rc;
  for (int i = 0; i < k; i++) {
    double x = AT(S->val, k, i, i);
    if (!(x > 0))
      return ad_fail(AD_EDOMAIN, "%s: Cholesky Scale matrix[%d] is %.17g, but must be positive!", fn, i + 1, x);
  }
  if (k <= 0) return ad_fail(AD_EDOMAIN, "%s: columns of Cholesky Scale matrix is %d, but must be positive!", fn, k);
  size_t kk = (size_t)k * k;
  double *Si = ad_alloc_doubles(kk), *C = ad_alloc_doubles(kk), *X = ad_alloc_doubles(kk), *Wi = ad_alloc_doubles(kk);
  if (!Si || !C || !X || !Wi) return ad_fail(AD_EMEMORY, "out of memory");
  /* Stan Math since its fix of issue 2963: the lower Cholesky factor of the
  ** inverse of a wishart(nu, S^-1) draw, S = L_S L_S^T (lower triangle read) */
  tm_la_chol_inverse(k, S->val, Si);
  if (tm_la_cholesky(k, Si, C, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: Cholesky Scale matrix is not positive definite.", fn);
  if ((rc = bartlett(c->rng, k, tm_get(&a[0], 0), C, X))) return rc;
  tm_la_chol_inverse(k, X, Wi);                 /* (X X^T)^-1 */
  if ((rc = new_square(out, k))) return rc;
  if (tm_la_cholesky(k, Wi, out->val, NULL) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: the draw is not positive definite to working precision", fn);
  return AD_OK;
}

const tm_fn tm_fns_wishart[] = {
  {"wishart_lpdf", "real(matrix, real, matrix)", k_wishart, NULL},
  {"inv_wishart_lpdf", "real(matrix, real, matrix)", k_wishart, "inverse"},
  {"wishart_cholesky_lpdf", "real(matrix, real, matrix)", k_wishart_cholesky, NULL},
  {"inv_wishart_cholesky_lpdf", "real(matrix, real, matrix)", k_wishart_cholesky, "inverse"},
  {"wishart_rng", "matrix(real, matrix)", k_wishart_rng, NULL},
  {"wishart_cholesky_rng", "matrix(real, matrix)", k_wishart_cholesky_rng, NULL},
  {"inv_wishart_rng", "matrix(real, matrix)", k_wishart_rng, "inverse"},
  {"inv_wishart_cholesky_rng", "matrix(real, matrix)", k_inv_wishart_cholesky_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
