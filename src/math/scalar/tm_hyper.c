/*
** tm_hyper.c -- the hypergeometric functions (1F0, 2F1, 3F2, pFq) and
** inv_inc_beta, with their gradients.
**
** pFq is its power series sum_k prod (a_i)_k / prod (b_j)_k z^k / k!, summed
** with the derivatives of every term in the same pass (as Stan Math's
** grad_pFq: d t_k / d a_i = t_k sum_{m<k} 1 / (a_i + m), d t_k / d b_j =
** -t_k sum_{m<k} 1 / (b_j + m), d F / d z = sum k t_k / z) until a term and
** its derivatives fall below 1e-16 of the sums; a series that has not
** converged after 1e6 terms is an error, never a truncated value.  2F1
** below -1/2 goes through Euler's transformation (as Stan's does beyond -1), or Gauss's
** formula at z = 1.  inv_inc_beta inverts tm_log_inc_beta by safeguarded
** Newton steps; its partials are the implicit function's.
*/
#include <math.h>
#include <float.h>
#include <stdio.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "../tm_scalar.h"

#define PFQ_MAX 16
#define PFQ_STEPS 1000000

/* Terms of alternating sign far larger than their sum leave rounding
** errors near tmax * eps in it: refuse a sum with fewer than 8 good digits
** rather than return it (1F1(a; b; z) for z far below 0, for instance). */
static int cancellation(const char *fn, double s, double tmax, double z) {
  if (!(tmax * DBL_EPSILON > 1e-8 * fabs(s))) return AD_OK;
  return ad_fail(AD_EDOMAIN, "%s: the series at z = %.17g loses its digits to cancellation (terms up to %.3g, "
                 "sum %.3g)", fn, z, tmax, s);
}

/* F = pFq(a; b; z) with da[i], db[j], dz when the pointers are non-NULL */
static int pfq_series(const char *fn, int p, const double *a, int q, const double *b, double z,
                      double *F, double *da, double *db, double *dz) {
  double sa[PFQ_MAX] = {0}, sb[PFQ_MAX] = {0};
  for (int j = 0; j < q; j++)
    if (b[j] <= 0 && floor(b[j]) == b[j])
      return ad_fail(AD_EDOMAIN, "%s: b[%d] is %.17g, but must not be zero or a negative integer", fn, j + 1, b[j]);
  if (da)
    for (int i = 0; i < p; i++)
      if (a[i] <= 0 && floor(a[i]) == a[i])   /* the terms past -a[i] vanish, their derivatives do not */
        return ad_fail(AD_EDOMAIN, "%s: the gradient with respect to a[%d] = %.17g (zero or a negative integer) "
                       "is not supported", fn, i + 1, a[i]);
  double t = 1, s = 1, sz = 0, tmax = 1;
  if (da) for (int i = 0; i < p; i++) da[i] = 0;
  if (db) for (int j = 0; j < q; j++) db[j] = 0;
  for (long k = 0; k < PFQ_STEPS; k++) {
    /* the next term t_{k+1} = t_k prod(a_i + k) / prod(b_j + k) z / (k + 1); v = t_{k+1} / z */
    double r = 1;
    for (int i = 0; i < p; i++) r *= a[i] + k;
    for (int j = 0; j < q; j++) r /= b[j] + k;
    double v = t * r / (k + 1), tn = v * z;
    for (int i = 0; i < p; i++) sa[i] += 1 / (a[i] + k);
    for (int j = 0; j < q; j++) sb[j] += 1 / (b[j] + k);
    s += tn;
    if (fabs(tn) > tmax) tmax = fabs(tn);
    double big = fabs(tn);
    if (dz) { double g = (k + 1) * v; sz += g; big = fmax(big, fabs(g)); }
    if (da) for (int i = 0; i < p; i++) { double g = tn * sa[i]; da[i] += g; big = fmax(big, fabs(g)); }
    if (db) for (int j = 0; j < q; j++) { double g = -tn * sb[j]; db[j] += g; big = fmax(big, fabs(g)); }
    t = tn;
    if (!isfinite(s)) break;
    if (t == 0) {     /* a polynomial: a[i] + k was 0 */
      *F = s;
      if (dz) *dz = sz;
      return cancellation(fn, s, tmax, z);
    }
    if (big <= 1e-16 * (fabs(s) + (dz ? fabs(sz) : 0)) || (big == 0 && k > 0)) {
      /* converged once the ratio of the terms is below 1 from here on */
      double rr = 1;
      for (int i = 0; i < p; i++) rr *= fabs(a[i] + k + 1);
      for (int j = 0; j < q; j++) rr /= fabs(b[j] + k + 1);
      if (rr * fabs(z) / (k + 2) < 1 || t == 0) {
        *F = s;
        if (dz) *dz = sz;
        return cancellation(fn, s, tmax, z);
      }
    }
  }
  if (!isfinite(s)) {
    *F = s;
    if (dz) *dz = sz;
    return AD_OK;
  }
  return ad_fail(AD_EDOMAIN, "%s: the series did not converge in %d terms (z = %.17g)", fn, PFQ_STEPS, z);
}

/* the sizes and values of a container argument */
static int vec_arg(const char *fn, const char *name, const tm_v *v, double *x, int *n) {
  size_t m = tm_numel(v);
  if (m > PFQ_MAX)
    return ad_fail(AD_EINVALID, "%s: %s has %zu elements; at most %d are supported", fn, name, m, PFQ_MAX);
  int rc = tm_check_finite(fn, name, v);
  if (rc) return rc;
  for (size_t i = 0; i < m; i++) x[i] = tm_get(v, i);
  *n = (int)m;
  return AD_OK;
}

static int converges(const char *fn, int p, int q, double z) {
  if ((p > q + 1 && z != 0) || (p == q + 1 && fabs(z) > 1))
    return ad_fail(AD_EDOMAIN, "%s: hypergeometric function pFq does not meet convergence conditions with "
                   "given arguments (%d a, %d b, z = %.17g)", fn, p, q, z);
  return AD_OK;
}

/* hypergeometric_pFq(a, b, z) and hypergeometric_3F2(a, b, z) */
static int k_pfq(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  double av[PFQ_MAX], bv[PFQ_MAX], F, dz, da[PFQ_MAX], db[PFQ_MAX];
  int p, q, rc;
  if (nargs != 3) return ad_fail(AD_EINVALID, "%s: expected 3 arguments, got %d", fn, nargs);
  if ((rc = vec_arg(fn, "a", &a[0], av, &p)) || (rc = vec_arg(fn, "b", &a[1], bv, &q)) ||
      (rc = tm_check_finite(fn, "z", &a[2])))
    return rc;
  int three = c->fn->data != NULL;
  if (three && p != 3) return ad_fail(AD_EINVALID, "%s: size of a (%d) must be 3", fn, p);
  if (three && q != 2) return ad_fail(AD_EINVALID, "%s: size of b (%d) must be 2", fn, q);
  double z = tm_get(&a[2], 0);
  if ((rc = converges(fn, p, q, z))) return rc;
  if ((rc = pfq_series(fn, p, av, q, bv, z, &F, a[0].adj ? da : NULL, a[1].adj ? db : NULL,
                       a[2].adj ? &dz : NULL)))
    return rc;
  double *d[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) d[i] = tm_new_partials(&a[i], &rc);
  if (rc) return rc;
  if (d[0]) memcpy(d[0], da, (size_t)p * sizeof *da);
  if (d[1]) memcpy(d[1], db, (size_t)q * sizeof *db);
  if (d[2]) d[2][0] = dz;
  return tm_set_partials(out, a, d, 3, F);
}

/* 2F1(a1, a2; b; z) with g = d/d(a1, a2, b, z) */
static int hyp2f1(const char *fn, double a1, double a2, double b, double z, int need_a, double *F, double *g) {
  double A[2] = {a1, a2}, B[1] = {b}, da[2] = {0, 0}, db[1], dz;
  int rc, poly = (a1 <= 0 && floor(a1) == a1) || (a2 <= 0 && floor(a2) == a2);
  if ((z >= -0.5 && z < 1) || poly) {
    if ((rc = pfq_series(fn, 2, A, 1, B, z, F, need_a ? da : NULL, db, &dz))) return rc;
    g[0] = da[0]; g[1] = da[1]; g[2] = db[0]; g[3] = dz;
    return AD_OK;
  }
  if (z == 1 && b > a1 + a2) {   /* Gauss */
    double s = b - a1 - a2;
    *F = exp(tm_lgamma(b) + tm_lgamma(s) - tm_lgamma(b - a1) - tm_lgamma(b - a2));
    g[0] = *F * (tm_digamma(b - a1) - tm_digamma(s));
    g[1] = *F * (tm_digamma(b - a2) - tm_digamma(s));
    g[2] = *F * (tm_digamma(b) + tm_digamma(s) - tm_digamma(b - a1) - tm_digamma(b - a2));
    /* F'(1) = a1 a2 / b 2F1(a1 + 1, a2 + 1; b + 1; 1), finite when s > 1 */
    g[3] = s > 1 ? a1 * a2 / b * exp(tm_lgamma(b + 1) + tm_lgamma(s - 1) - tm_lgamma(b - a1) - tm_lgamma(b - a2))
                 : INFINITY;
    return AD_OK;
  }
  if (z < -0.5) {
    /* Euler: F = (1 - z)^(-a2) 2F1(b - a1, a2; b; w), w = z / (z - 1) in (1/3, 1) */
    double w = z / (z - 1), G, h[4];
    A[0] = b - a1;
    if ((rc = pfq_series(fn, 2, A, 1, B, w, &G, da, db, &dz))) return rc;
    h[0] = da[0]; h[1] = da[1]; h[2] = db[0]; h[3] = dz;
    double l1z = log1p(-z), m = exp(-a2 * l1z);
    *F = m * G;
    g[0] = -m * h[0];
    g[1] = m * (h[1] - l1z * G);
    g[2] = m * (h[0] + h[2]);
    g[3] = m * (a2 / (1 - z) * G - h[3] / ((z - 1) * (z - 1)));
    return AD_OK;
  }
  return ad_fail(AD_EDOMAIN, "%s: hypergeometric function 2F1 does not meet convergence conditions with given "
                 "arguments. a1: %.17g, a2: %.17g, b: %.17g, z: %.17g", fn, a1, a2, b, z);
}

static int scalars(const char *fn, const tm_v *a, int nargs, int want) {
  if (nargs != want) return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, want, nargs);
  for (int i = 0; i < nargs; i++)
    if (!tm_is_scalar(&a[i])) return ad_fail(AD_EINVALID, "%s: argument %d must be int or real", fn, i + 1);
  return AD_OK;
}

/* one node over the scalar arguments with partials g */
static int scalar_result(const tm_v *a, int nargs, double f, const double *g, tm_v *out) {
  double *d[4] = {NULL, NULL, NULL, NULL};
  int rc = AD_OK;
  for (int i = 0; i < nargs; i++)
    if ((d[i] = tm_new_partials(&a[i], &rc))) d[i][0] = g[i];
  if (rc) return rc;
  return tm_set_partials(out, a, d, nargs, f);
}

static int k_2f1(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  static const char *const names[4] = {"a1", "a2", "b", "z"};
  int rc;
  if ((rc = scalars(fn, a, nargs, 4))) return rc;
  for (int i = 0; i < 4; i++) if ((rc = tm_check_finite(fn, names[i], &a[i]))) return rc;
  double F = 0, g[4];   /* set by hyp2f1 when it succeeds */
  if ((rc = hyp2f1(fn, tm_get(&a[0], 0), tm_get(&a[1], 0), tm_get(&a[2], 0), tm_get(&a[3], 0),
                   a[0].adj || a[1].adj, &F, g)))
    return rc;
  return scalar_result(a, 4, F, g, out);
}

/* 1F0(a; ; z) = (1 - z)^(-a), |z| < 1 */
static int k_1f0(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  int rc;
  if ((rc = scalars(fn, a, nargs, 2))) return rc;
  double al = tm_get(&a[0], 0), z = tm_get(&a[1], 0);
  if (!(fabs(z) < 1)) return ad_fail(AD_EDOMAIN, "%s: abs(z) is %.17g, but must be less than 1", fn, fabs(z));
  double l = log1p(-z), f = exp(-al * l), g[2] = {-l * f, al * f / (1 - z)};
  return scalar_result(a, 2, f, g, out);
}

/* inv_inc_beta(a, b, p): x with I_x(a, b) = p */
static int k_inv_inc_beta(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  int rc;
  if ((rc = scalars(fn, a, nargs, 3))) return rc;
  if ((rc = tm_check_not_nan(fn, "a", &a[0])) || (rc = tm_check_not_nan(fn, "b", &a[1])) ||
      (rc = tm_check_not_nan(fn, "p", &a[2])) || (rc = tm_check_positive(fn, "a", &a[0])) ||
      (rc = tm_check_positive(fn, "b", &a[1])) || (rc = tm_check_bounded(fn, "p", &a[2], 0, 1)))
    return rc;
  double al = tm_get(&a[0], 0), be = tm_get(&a[1], 0), p = tm_get(&a[2], 0), x;
  double lb = tm_lbeta(al, be);
  if (p == 0) x = 0;
  else if (p == 1) x = 1;
  else {
    /* Newton on I_x - p in log form, kept inside a bracket [lo, hi] */
    double lo = 0, hi = 1, lp = log(p);
    x = exp((lp + log(al) + lb) / al);          /* I_x ~ x^a / (a B) near 0 */
    if (!(x > 0 && x < 1)) x = 0.5;
    double m = al / (al + be);
    if (p > 0.5 && x > m) x = m;
    for (int it = 0; it < 300; it++) {
      double li, dens, xn;
      tm_log_inc_beta(al, be, x, 1 - x, &li, NULL);
      double fx = exp(li) - p;
      if (fx > 0) hi = x; else lo = x;
      dens = exp((al - 1) * log(x) + (be - 1) * log1p(-x) - lb);
      xn = x - fx / dens;
      if (!(xn > lo && xn < hi)) xn = 0.5 * (lo + hi);
      if (fabs(xn - x) <= 4 * DBL_EPSILON * x || hi - lo <= 4 * DBL_EPSILON * x) { x = xn; break; }
      x = xn;
    }
  }
  double g[3] = {0, 0, 0};
  if (tm_any_ad(a, 3) && x > 0 && x < 1) {
    /* dx/dp = 1 / I'_x; dx/da = -(dI/da) / I'_x, likewise b */
    double li, l1mi, gg[6];
    tm_log_inc_beta_grad(al, be, x, 1 - x, &li, &l1mi, gg);
    double I = exp(li), dens = exp((al - 1) * log(x) + (be - 1) * log1p(-x) - lb);
    g[0] = -I * gg[0] / dens;
    g[1] = -I * gg[1] / dens;
    g[2] = 1 / dens;
  }
  return scalar_result(a, 3, x, g, out);
}

#define VV(r) "real(" r ", vector, real); real(" r ", row_vector, real); real(" r ", array[] real, real)"
#define VVV VV("vector") "; " VV("row_vector") "; " VV("array[] real")

static const int three = 3;

const tm_fn tm_fns_hyper[] = {
  {"hypergeometric_1F0", "real(real, real)", k_1f0, NULL},
  {"hypergeometric_2F1", "real(real, real, real, real)", k_2f1, NULL},
  {"hypergeometric_3F2", VVV, k_pfq, &three},
  {"hypergeometric_pFq", VVV, k_pfq, NULL},
  {"inv_inc_beta", "real(real, real, real)", k_inv_inc_beta, NULL},
  {NULL, NULL, NULL, NULL}
};
