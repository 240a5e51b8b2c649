/*
** tm_special_elem.c -- the special functions of Stan's library that are
** elementwise: the Bessel functions (J, Y, I, K of an int order, log I of a
** real order), Owen's T, ldexp, inv_erfc, the two real branches of Lambert's
** W.
**
** Each function is a def for the generic kernels of tm_scalar_kernel.c, so it takes
** every container Stan's vectorization takes and records one node per call.
** The derivatives are Stan's: the Bessel functions by their recurrences,
** W'(x) = W / (x (1 + W)).
*/
#define _DEFAULT_SOURCE 1   /* jn, yn */
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "../tm_scalar.h"

/* ---- Bessel functions of an int order ---- */

/* log I_v(z) for v >= -1, z >= 0, with d/dv and d/dz (either pointer NULL):
** the power series sum_k (z/2)^(2k+v) / (k! Gamma(k+v+1)) summed relative to
** its first term (all terms positive, so no cancellation), rescaled as it
** grows; for z large against v^2 the asymptotic expansion Stan uses. */
static double log_bessel_i(double v, double z, double *dv, double *dz) {
  if (dv) *dv = 0;
  if (dz) *dz = 0;
  if (isnan(v) || isnan(z)) return NAN;
  if (z == 0) {
    if (dz) *dz = v == 0 ? 0 : v == 1 ? INFINITY : INFINITY;
    return v == 0 ? 0 : v > 0 ? -INFINITY : INFINITY;
  }
  if (isinf(z)) return z;
  if (z > 100) {
    double lim = pow((v * v + 2.5) / (2 * z), 3) / 24;
    if (lim < DBL_EPSILON * 10) {
      /* s = 1 - a1 / z + a2 / z^2 - a3 / z^3 */
      double mu = 4 * v * v, e = 8;
      double a1 = (mu - 1) / e, a2 = (mu - 1) * (mu - 9) / (2 * e * e),
             a3 = (mu - 1) * (mu - 9) * (mu - 25) / (6 * e * e * e);
      double s = 1 - a1 / z + a2 / (z * z) - a3 / (z * z * z);
      if (dz) *dz = 1 - 0.5 / z + (a1 / (z * z) - 2 * a2 / (z * z * z) + 3 * a3 / (z * z * z * z)) / s;
      if (dv) {
        double dmu = 8 * v;
        double b1 = dmu / e, b2 = dmu * ((mu - 9) + (mu - 1)) / (2 * e * e),
               b3 = dmu * ((mu - 9) * (mu - 25) + (mu - 1) * (mu - 25) + (mu - 1) * (mu - 9)) / (6 * e * e * e);
        *dv = (-b1 / z + b2 / (z * z) - b3 / (z * z * z)) / s;
      }
      return z - 0.5 * log(2 * TM_PI * z) + log(s);
    }
  }
  double lh = log(0.5 * z), q = 0.25 * z * z;
  int k = v == -1 ? 1 : 0;    /* 1 / Gamma(0) = 0: I_{-1} starts at k = 1 */
  double l0 = (2 * k + v) * lh - tm_lgamma(k + 1.0) - tm_lgamma(k + v + 1);
  /* s = 1 + s1: log1p(s1) keeps the digits of log I_0(z) near z = 0 */
  double cur = 1, s = 1, s1 = 0, sv = 0, sz = 0, lscale = 0;
  /* d log t_k / dv = log(z/2) - digamma(k+v+1); d log t_k / dz = (2k+v) / z */
  double psi = dv ? tm_digamma(k + v + 1) : 0;
  if (dv) sv = lh - psi;
  if (dz) sz = (2 * k + v) / z;
  for (int it = 0; it < 10000000; it++, k++) {
    double r = q / ((k + 1.0) * (k + v + 1));
    cur *= r;
    if (dv) psi += 1 / (k + v + 1);
    s += cur;
    s1 += cur;
    if (dv) sv += cur * (lh - psi);
    if (dz) sz += cur * (2 * (k + 1) + v) / z;
    if (s > 1e280) {
      s *= 1e-280; cur *= 1e-280; sv *= 1e-280; sz *= 1e-280;
      lscale += 280 * 2.302585092994045684017991454684;
    }
    if (r < 1 && cur <= s * 1e-17) break;
  }
  if (dv) *dv = sv / s;
  if (dz) *dz = sz / s;
  return l0 + (lscale == 0 ? log1p(s1) : lscale + log(s));
}

/* J_n(x), Y_n(x): libm's; derivatives J' = (J_{n-1} - J_{n+1}) / 2 and
** Y' = n / x Y_n - Y_{n+1} */
static int order(double v) { return v > INT_MAX ? INT_MAX : v < -INT_MAX ? -INT_MAX : (int)v; }
static double f_bj(double v, double x) { return jn(order(v), x); }
static double d_bj(double v, double x, double f) {
  (void)f;
  int n = order(v);
  return 0.5 * (jn(n - 1, x) - jn(n + 1, x));
}
static double f_by(double v, double x) { return yn(order(v), x); }
static double d_by(double v, double x, double f) { return v / x * f - yn(order(v) + 1, x); }

/* I_n(z) of any real z: I_{-n} = I_n, I_n(-z) = (-1)^n I_n(z) */
static double f_bi(double v, double z) {
  int n = abs(order(v));
  double l = log_bessel_i(n, fabs(z), NULL, NULL), r = exp(l);
  return z < 0 && (n & 1) ? -r : r;
}
static double d_bi(double v, double z, double f) {
  (void)f;
  int n = order(v);
  return 0.5 * (f_bi(n - 1, z) + f_bi(n + 1, z));
}

/* K_n(z), z > 0: K_v(z) = int_0^inf exp(-z cosh t) cosh(v t) dt by the
** trapezoidal rule (error near exp(-pi^2 / h) for this integrand, analytic in
** the strip |Im t| < pi / 2), summed relative to its largest term. */
static double log_bessel_k(double v, double z) {
  if (isnan(v) || isnan(z)) return NAN;
  if (z == 0) return INFINITY;
  if (isinf(z)) return -INFINITY;
  v = fabs(v);
  /* the integrand's peak at t = 0 narrows as 1 / sqrt(z) */
  const double h = z > 1 ? 0.125 / sqrt(z) : 0.125;
  double lmax = -INFINITY;
  int nt = 0;
  /* the log integrand: -z cosh t + v t + log((1 + exp(-2 v t)) / 2) */
  for (int i = 0; i < 2000000; i++) {
    double t = i * h, g = -z * cosh(t) + v * t + log1p(exp(-2 * v * t)) - TM_LOG_2;
    if (g > lmax) lmax = g;
    nt = i + 1;
    if (g < lmax - 45 && t > 1) break;
  }
  double s = 0;
  for (int i = 0; i < nt; i++) {
    double t = i * h, g = -z * cosh(t) + v * t + log1p(exp(-2 * v * t)) - TM_LOG_2;
    s += (i == 0 ? 0.5 : 1) * exp(g - lmax);
  }
  return lmax + log(s * h);
}
static double f_bk(double v, double z) { return exp(log_bessel_k(order(v), z)); }
static double d_bk(double v, double z, double f) {
  (void)f;
  int n = order(v);
  return -0.5 * (f_bk(n - 1, z) + f_bk(n + 1, z));
}
static double d_order(double v, double x, double f) { (void)v; (void)x; (void)f; return 0; }

static int check_positive_x(const char *fn, const char *at, double v, double x) {
  (void)v;
  if (isnan(x) || x > 0) return AD_OK;
  return ad_fail(AD_EDOMAIN, "%s: second argument%s is %.17g, but must be positive!", fn, at, x);
}

/* log_modified_bessel_first_kind(v, z), Stan's checks */
static double f_lbi(double v, double z) { return log_bessel_i(v, z, NULL, NULL); }
static double d_lbi_v(double v, double z, double f) {
  (void)f;
  double dv;
  log_bessel_i(v, z, &dv, NULL);
  return dv;
}
static double d_lbi_z(double v, double z, double f) {
  (void)f;
  double dz;
  log_bessel_i(v, z, NULL, &dz);
  return dz;
}
static int check_lbi(const char *fn, const char *at, double v, double z) {
  if (isnan(v)) return ad_fail(AD_EDOMAIN, "%s: first argument (order)%s is nan, but must not be nan!", fn, at);
  if (isnan(z)) return ad_fail(AD_EDOMAIN, "%s: second argument (variable)%s is nan, but must not be nan!", fn, at);
  if (z < 0)
    return ad_fail(AD_EDOMAIN, "%s: second argument (variable)%s is %.17g, but must be nonnegative!", fn, at, z);
  if (v < -1)
    return ad_fail(AD_EDOMAIN, "%s: first argument (order)%s is %.17g, but must be greater than or equal to -1",
                   fn, at, v);
  return AD_OK;
}

/* ---- Owen's T, ldexp ---- */

static double d_owens_h(double h, double a, double f) {
  (void)f;
  return -exp(-0.5 * h * h) * erf(a * h * TM_INV_SQRT_2) * 0.5 * TM_INV_SQRT_2PI;
}
static double d_owens_a(double h, double a, double f) {
  (void)f;
  double q = 1 + a * a;
  return exp(-0.5 * h * h * q) / (2 * TM_PI * q);
}
static double f_ldexp(double x, double n) { return ldexp(x, order(n)); }
static double d_ldexp(double x, double n, double f) { (void)x; (void)f; return ldexp(1.0, order(n)); }

/* ---- unary: inv_erfc, lambert_w0, lambert_wm1 ---- */

/* erfc(y) = x  <=>  Phi(-y sqrt 2) = x / 2; the half nearer 0 keeps its digits */
static double f_inv_erfc(double x) {
  if (x > 1) return -f_inv_erfc(2 - x);
  return -tm_inv_Phi(0.5 * x) * TM_INV_SQRT_2;
}
static double d_inv_erfc(double x, double f) { (void)x; return -0.5 * sqrt(TM_PI) * exp(f * f); }
static int bad_inv_erfc(double x) { return !(x >= 0 && x <= 2); }

#define INV_E 0.36787944117144232159552377016146
/* Halley's iteration on w e^w = x from a start on the branch */
static double lambert_halley(double x, double w) {
  for (int i = 0; i < 50; i++) {
    double ew = exp(w), fw = w * ew - x;
    if (fw == 0 || w == -1) break;
    double wp1 = w + 1, dw = fw / (ew * wp1 - (w + 2) * fw / (2 * wp1));
    w -= dw;
    if (fabs(dw) <= 4 * DBL_EPSILON * fabs(w)) break;
  }
  return w;
}
static double f_lambert_w0(double x) {
  if (isnan(x)) return NAN;
  if (x == INFINITY) return INFINITY;
  if (x == 0) return 0;
  if (x <= -INV_E) return -1;
  double w;
  if (x < -0.32) {     /* near the branch point: W = -1 + p - p^2/3 + 11/72 p^3, p = sqrt(2 (e x + 1)) */
    double p = sqrt(2 * (2.718281828459045235360287471353 * x + 1));
    w = -1 + p * (1 + p * (-1.0 / 3 + p * 11.0 / 72));
  } else if (x < 3) {
    w = 0.5 * log1p(x) + 0.2 * x / (1 + fabs(x));
    if (x < 0.5) w = x * (1 - x);
  } else {
    double l = log(x);
    w = l - log(l);
  }
  return lambert_halley(x, w);
}
static double f_lambert_wm1(double x) {
  if (isnan(x)) return NAN;
  if (x == 0) return -INFINITY;
  if (x <= -INV_E) return -1;
  double w;
  if (x < -0.25) {
    double p = sqrt(2 * (2.718281828459045235360287471353 * x + 1));
    w = -1 - p * (1 + p * (1.0 / 3 + p * 11.0 / 72));
  } else {
    double l = log(-x);
    w = l - log(-l);
  }
  return lambert_halley(x, w);
}
static double d_lambert(double x, double w) {
  if (x == 0) return isinf(w) ? INFINITY : 1;
  return w / (x * (1 + w));
}
static int bad_w0(double x) { return x < -INV_E; }
static int bad_wm1(double x) { return x < -INV_E || x > 0; }

static const tm_unary_def
  def_inv_erfc = {f_inv_erfc, d_inv_erfc, bad_inv_erfc, "be in the interval [0, 2]", NULL, NULL, 0},
  def_lambert_w0 = {f_lambert_w0, d_lambert, bad_w0, "be greater than or equal to -1/e (-0.36787944117144233)",
                    NULL, NULL, 0},
  def_lambert_wm1 = {f_lambert_wm1, d_lambert, bad_wm1,
                     "be in the interval [-1/e, 0] ([-0.36787944117144233, 0])", NULL, NULL, 0};

static const tm_binary_def
  def_bessel_first_kind = TM_PLAIN_BINARY(f_bj, d_order, d_bj),
  def_bessel_second_kind = {f_by, d_order, d_by, check_positive_x, NULL, 0},
  def_modified_bessel_first_kind = TM_PLAIN_BINARY(f_bi, d_order, d_bi),
  def_modified_bessel_second_kind = {f_bk, d_order, d_bk, check_positive_x, NULL, 0},
  def_log_modified_bessel_first_kind = {f_lbi, d_lbi_v, d_lbi_z, check_lbi, NULL, 0},
  def_owens_t = TM_PLAIN_BINARY(tm_owens_t, d_owens_h, d_owens_a),
  def_ldexp = TM_PLAIN_BINARY(f_ldexp, d_ldexp, d_order);

/* ---- the table ---- */

const tm_fn tm_fns_special_elem[] = {
  TM_UNARY_FN(inv_erfc), TM_UNARY_FN(lambert_w0), TM_UNARY_FN(lambert_wm1),
  TM_INT_REAL_FN(bessel_first_kind), TM_INT_REAL_FN(bessel_second_kind),
  TM_INT_REAL_FN(modified_bessel_first_kind), TM_INT_REAL_FN(modified_bessel_second_kind),
  TM_BINARY_FN(log_modified_bessel_first_kind), TM_BINARY_FN(owens_t),
  {"ldexp", TM_SIG_REAL_INT, tm_binary_kernel, &def_ldexp},
  {NULL, NULL, NULL, NULL}
};
