/*
** tm_elementary.c -- the elementary functions (exp, log, the trigonometric
** and hyperbolic functions, logit and its kin, lgamma, erf, Phi ...), the
** arithmetic operators, log_sum_exp and log_mix.
**
** Each function is a def {f, df} or {f, dfdx, dfdy} run by the generic
** kernels of tm_scalar_kernel.c (tm_scalar.h): adding one is a def and a
** table line here.
*/
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_scalar.h"

#define TWO_OVER_SQRT_PI 1.128379167095512573896158903122

typedef tm_unary_def unary_def;      /* tm_scalar.h */
typedef tm_binary_def binary_def;    /* tm_scalar.h */

/* values */
static double f_square(double x) { return x * x; }
static double f_inv(double x) { return 1 / x; }
static double f_neg(double x) { return -x; }
static double f_inv_sqrt(double x) { return 1 / sqrt(x); }
static double f_inv_square(double x) { return 1 / (x * x); }
static double f_inv_cloglog(double x) { return -expm1(-exp(x)); }
static double f_Phi_approx(double x) { return tm_inv_logit(x * (0.07056 * x * x + 1.5976)); }

/* derivatives, given x and f(x) */
static double d_exp(double x, double f) { (void)x; return f; }
static double d_log(double x, double f) { (void)f; return 1 / x; }
static double d_log1p(double x, double f) { (void)f; return 1 / (1 + x); }
static double d_expm1(double x, double f) { (void)x; return f + 1; }
static double d_sqrt(double x, double f) { (void)x; return 0.5 / f; }
static double d_square(double x, double f) { (void)f; return 2 * x; }
static double d_inv(double x, double f) { (void)x; return -f * f; }
static double d_fabs(double x, double f) {
  (void)f;
  if (isnan(x)) return NAN;
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}
static double d_logit(double x, double f) { (void)f; return 1 / (x - x * x); }
/* inv_logit(x) * inv_logit(-x) keeps its digits where 1 - inv_logit(x) would not */
static double d_inv_logit(double x, double f) { return f * tm_inv_logit(-x); }
static double d_log_inv_logit(double x, double f) { (void)f; return tm_inv_logit(-x); }
static double d_log1m_inv_logit(double x, double f) { (void)f; return -tm_inv_logit(x); }
static double d_log1m(double x, double f) { (void)f; return -1 / (1 - x); }
static double d_log1p_exp(double x, double f) { (void)f; return tm_inv_logit(x); }
static double d_lgamma(double x, double f) { (void)f; return tm_digamma(x); }
static double d_digamma(double x, double f) { (void)f; return tm_trigamma(x); }
static double d_erf(double x, double f) { (void)f; return TWO_OVER_SQRT_PI * exp(-x * x); }
static double d_erfc(double x, double f) { (void)f; return -TWO_OVER_SQRT_PI * exp(-x * x); }
static double d_Phi(double x, double f) { (void)f; return TM_INV_SQRT_2PI * exp(-0.5 * x * x); }
static double d_sin(double x, double f) { (void)f; return cos(x); }
static double d_cos(double x, double f) { (void)f; return -sin(x); }
static double d_tan(double x, double f) { (void)x; return 1 + f * f; }
static double d_asin(double x, double f) { (void)f; return 1 / sqrt(1 - x * x); }
static double d_acos(double x, double f) { (void)f; return -1 / sqrt(1 - x * x); }
static double d_atan(double x, double f) { (void)f; return 1 / (1 + x * x); }
static double d_sinh(double x, double f) { (void)f; return cosh(x); }
static double d_cosh(double x, double f) { (void)f; return sinh(x); }
static double d_tanh(double x, double f) { (void)x; return 1 - f * f; }
static double d_asinh(double x, double f) { (void)f; return 1 / sqrt(x * x + 1); }
static double d_acosh(double x, double f) { (void)f; return 1 / sqrt(x * x - 1); }
static double d_atanh(double x, double f) { (void)f; return 1 / (1 - x * x); }
static double d_log2(double x, double f) { (void)f; return 1 / (x * TM_LOG_2); }
static double d_log10(double x, double f) { (void)f; return 1 / (x * 2.302585092994045684017991454684); }
static double d_exp2(double x, double f) { (void)x; return f * TM_LOG_2; }
static double d_cbrt(double x, double f) { (void)x; return 1 / (3 * f * f); }
static double d_neg(double x, double f) { (void)x; (void)f; return -1; }
static double d_inv_sqrt(double x, double f) { return -0.5 * f / x; }
static double d_inv_square(double x, double f) { return -2 * f / x; }
static double d_inv_cloglog(double x, double f) { (void)f; return exp(x - exp(x)); }
static double d_log1m_exp(double x, double f) { (void)f; return -1 / expm1(-x); }
static double d_Phi_approx(double x, double f) {
  (void)f;
  double u = x * (0.07056 * x * x + 1.5976);
  return tm_inv_logit(u) * tm_inv_logit(-u) * (3 * 0.07056 * x * x + 1.5976);
}

/* domains where Stan throws rather than returning NaN */
static int above_1(double x) { return x > 1; }
static int below_m1(double x) { return x < -1; }
static int below_1(double x) { return x < 1; }
static int is_nan(double x) { return isnan(x); }
static int outside_pm1(double x) { return x < -1 || x > 1; }

/* int versions */
static int i_minus(const char *fn, int x, int *r) {
  if (x == INT_MIN) return ad_fail(AD_EDOMAIN, "%s: integer overflow negating %d", fn, x);
  *r = -x;
  return AD_OK;
}
static int i_abs(const char *fn, int x, int *r) {
  if (x == INT_MIN) return ad_fail(AD_EDOMAIN, "%s: integer overflow taking the absolute value of %d", fn, x);
  *r = x < 0 ? -x : x;
  return AD_OK;
}

static const unary_def def_exp = TM_PLAIN_UNARY(exp, d_exp), def_log = TM_PLAIN_UNARY(log, d_log),
  def_log1p = {log1p, d_log1p, below_m1, "be greater than or equal to -1", NULL, NULL, 0},
  def_expm1 = TM_PLAIN_UNARY(expm1, d_expm1), def_sqrt = TM_PLAIN_UNARY(sqrt, d_sqrt),
  def_square = TM_PLAIN_UNARY(f_square, d_square), def_inv = TM_PLAIN_UNARY(f_inv, d_inv),
  def_fabs = TM_PLAIN_UNARY(fabs, d_fabs), def_abs = {fabs, d_fabs, NULL, NULL, i_abs, NULL, 0},
  def_logit = TM_PLAIN_UNARY(tm_logit, d_logit), def_inv_logit = TM_PLAIN_UNARY(tm_inv_logit, d_inv_logit),
  def_log_inv_logit = TM_PLAIN_UNARY(tm_log_inv_logit, d_log_inv_logit),
  def_log1m_inv_logit = TM_PLAIN_UNARY(tm_log1m_inv_logit, d_log1m_inv_logit),
  def_log1m = {tm_log1m, d_log1m, above_1, "be less than or equal to 1", NULL, NULL, 0},
  def_log1p_exp = TM_PLAIN_UNARY(tm_log1p_exp, d_log1p_exp),
  def_lgamma = {tm_lgamma, d_lgamma, NULL, NULL, NULL, NULL, 1},
  def_digamma = {tm_digamma, d_digamma, NULL, NULL, NULL, NULL, 1},
  def_erf = TM_PLAIN_UNARY(erf, d_erf), def_erfc = TM_PLAIN_UNARY(erfc, d_erfc),
  def_Phi = {tm_Phi, d_Phi, is_nan, "not be nan!", NULL, NULL, 0},
  def_sin = TM_PLAIN_UNARY(sin, d_sin), def_cos = TM_PLAIN_UNARY(cos, d_cos),
  def_tan = TM_PLAIN_UNARY(tan, d_tan), def_asin = TM_PLAIN_UNARY(asin, d_asin),
  def_acos = TM_PLAIN_UNARY(acos, d_acos), def_atan = TM_PLAIN_UNARY(atan, d_atan),
  def_sinh = TM_PLAIN_UNARY(sinh, d_sinh), def_cosh = TM_PLAIN_UNARY(cosh, d_cosh),
  def_tanh = TM_PLAIN_UNARY(tanh, d_tanh), def_asinh = TM_PLAIN_UNARY(asinh, d_asinh),
  def_acosh = {acosh, d_acosh, below_1, "be greater than or equal to 1", NULL, NULL, 0},
  def_atanh = {atanh, d_atanh, outside_pm1, "be in the interval [-1, 1]", NULL, NULL, 0},
  def_log2 = TM_PLAIN_UNARY(log2, d_log2), def_log10 = TM_PLAIN_UNARY(log10, d_log10),
  def_exp2 = TM_PLAIN_UNARY(exp2, d_exp2), def_cbrt = TM_PLAIN_UNARY(cbrt, d_cbrt),
  def_inv_sqrt = TM_PLAIN_UNARY(f_inv_sqrt, d_inv_sqrt), def_inv_square = TM_PLAIN_UNARY(f_inv_square, d_inv_square),
  def_inv_cloglog = TM_PLAIN_UNARY(f_inv_cloglog, d_inv_cloglog),
  def_log1m_exp = TM_PLAIN_UNARY(tm_log1m_exp, d_log1m_exp),
  def_Phi_approx = TM_PLAIN_UNARY(f_Phi_approx, d_Phi_approx),
  def_minus = {f_neg, d_neg, NULL, NULL, i_minus, NULL, 0};


/* arithmetic */
static double f_mul(double x, double y) { return x * y; }
static double f_div(double x, double y) { return x / y; }
static double d_one(double x, double y, double f) { (void)x; (void)y; (void)f; return 1; }
static double d_mone(double x, double y, double f) { (void)x; (void)y; (void)f; return -1; }
static double d_mul_x(double x, double y, double f) { (void)x; (void)f; return y; }
static double d_mul_y(double x, double y, double f) { (void)y; (void)f; return x; }
static double d_div_x(double x, double y, double f) { (void)x; (void)f; return 1 / y; }
static double d_div_y(double x, double y, double f) { (void)x; return -f / y; }

/* Stan leaves int overflow undefined; C does too, so we refuse it. */
static int int_result(const char *fn, long long r, int x, int y, int *out) {
  if (r < INT_MIN || r > INT_MAX)
    return ad_fail(AD_EDOMAIN, "%s: integer overflow computing with %d and %d", fn, x, y);
  *out = (int)r;
  return AD_OK;
}
static int i_add(const char *fn, int x, int y, int *r) { return int_result(fn, (long long)x + y, x, y, r); }
static int i_sub(const char *fn, int x, int y, int *r) { return int_result(fn, (long long)x - y, x, y, r); }
static int i_mul(const char *fn, int x, int y, int *r) { return int_result(fn, (long long)x * y, x, y, r); }
static int i_div(const char *fn, int x, int y, int *r) {
  if (y == 0) return ad_fail(AD_EDOMAIN, "%s: denominator is 0", fn);
  return int_result(fn, (long long)x / y, x, y, r);   /* truncates toward zero, as C++ */
}
static int i_mod(const char *fn, int x, int y, int *r) {
  if (y == 0) return ad_fail(AD_EDOMAIN, "%s: divisor is 0", fn);
  if (y == -1) { *r = 0; return AD_OK; }            /* INT_MIN % -1 traps on x86 */
  *r = x % y;
  return AD_OK;
}

/* pow: Stan's partials, zero at x == 0 for the exponent (0 * log 0) */
static double d_pow_x(double x, double y, double f) {
  if (x == 0) return y == 0 ? 0 : y * pow(x, y - 1);
  return y * f / x;
}
static double d_pow_y(double x, double y, double f) {
  (void)y;
  return x == 0 ? 0 : f * log(x);
}

/* fmin/fmax: NaN loses to a number, ties go to y, as in Stan */
static double d_fmin_x(double x, double y, double f) {
  (void)f;
  if (isnan(x)) return isnan(y) ? NAN : 0;
  return isnan(y) || x < y ? 1 : 0;
}
static double d_fmin_y(double x, double y, double f) {
  if (isnan(x) && isnan(y)) return NAN;
  return 1 - d_fmin_x(x, y, f);
}
static double d_fmax_x(double x, double y, double f) {
  (void)f;
  if (isnan(x)) return isnan(y) ? NAN : 0;
  return isnan(y) || x > y ? 1 : 0;
}
static double d_fmax_y(double x, double y, double f) {
  if (isnan(x) && isnan(y)) return NAN;
  return 1 - d_fmax_x(x, y, f);
}

static double d_lde_x(double x, double y, double f) { (void)f; return -1 / expm1(y - x); }
static double d_lde_y(double x, double y, double f) { (void)f; return -1 / expm1(x - y); }

static double d_lse_x(double x, double y, double f) { (void)y; return exp(x - f); }
static double d_lse_y(double x, double y, double f) { (void)x; return exp(y - f); }

static double d_lbeta_x(double x, double y, double f) { (void)f; return tm_digamma(x) - tm_digamma(x + y); }
static double d_lbeta_y(double x, double y, double f) { (void)f; return tm_digamma(y) - tm_digamma(x + y); }
static int check_lbeta(const char *fn, const char *at, double x, double y) {
  if (isnan(x) || isnan(y)) return AD_OK;   /* NaN in, NaN out */
  if (x < 0) return ad_fail(AD_EDOMAIN, "%s: first argument%s is %.17g, but must be nonnegative!", fn, at, x);
  if (y < 0) return ad_fail(AD_EDOMAIN, "%s: second argument%s is %.17g, but must be nonnegative!", fn, at, y);
  return AD_OK;
}

static double d_lchoose_x(double x, double y, double f) {
  (void)f;
  return tm_digamma(x + 1) - tm_digamma(x - y + 1);
}
static double d_lchoose_y(double x, double y, double f) {
  (void)f;
  return tm_digamma(x - y + 1) - tm_digamma(y + 1);
}
/* Stan's binomial_coefficient_log checks */
static int check_lchoose(const char *fn, const char *at, double x, double y) {
  if (isnan(x) || isnan(y)) return AD_OK;
  if (x < -1)
    return ad_fail(AD_EDOMAIN, "%s: first argument%s is %.17g, but must be greater than or equal to -1", fn, at, x);
  if (y < -1)
    return ad_fail(AD_EDOMAIN, "%s: second argument%s is %.17g, but must be greater than or equal to -1", fn, at, y);
  if (x + 1 - y < 0)
    return ad_fail(AD_EDOMAIN, "%s: (first argument - second argument + 1)%s is %.17g, but must be "
                   "greater than or equal to 0", fn, at, x + 1 - y);
  return AD_OK;
}

static const binary_def
  def_add = {tm_scalar_add, d_one, d_one, NULL, i_add, 0},
  def_subtract = {tm_scalar_sub, d_one, d_mone, NULL, i_sub, 0},
  def_elt_multiply = {f_mul, d_mul_x, d_mul_y, NULL, i_mul, 0},
  def_elt_divide = {f_div, d_div_x, d_div_y, NULL, i_div, 0},
  def_divide = {f_div, d_div_x, d_div_y, NULL, i_div, 1},
  def_modulus = {NULL, NULL, NULL, NULL, i_mod, 1},
  def_pow = TM_PLAIN_BINARY(pow, d_pow_x, d_pow_y),
  def_fmin = TM_PLAIN_BINARY(fmin, d_fmin_x, d_fmin_y),
  def_fmax = TM_PLAIN_BINARY(fmax, d_fmax_x, d_fmax_y),
  def_log_diff_exp = TM_PLAIN_BINARY(tm_log_diff_exp, d_lde_x, d_lde_y),
  def_lbeta = {tm_lbeta, d_lbeta_x, d_lbeta_y, check_lbeta, NULL, 0},
  def_lchoose = {tm_lchoose, d_lchoose_x, d_lchoose_y, check_lchoose, NULL, 0},
  def_lse2 = TM_PLAIN_BINARY(tm_log_sum_exp2, d_lse_x, d_lse_y);

/* Stan's % is on ints only; the generic kernel would call a NULL f on reals. */
static int modulus_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  if (nargs != 2 || !tm_is_scalar(&a[0]) || !tm_is_scalar(&a[1]) || a[0].base != TM_INT || a[1].base != TM_INT)
    return ad_fail(AD_EINVALID, "%s: both arguments must be int", fn);
  return tm_binary_apply(fn, &def_modulus, a, nargs, out);
}

/* ---- log_sum_exp ---- */

/* log(sum(exp(x))) shifted by the maximum so no term overflows.  NaN
** anywhere gives NaN; no elements give -inf. */
static double lse_n(const tm_v *v, size_t off, size_t stride, size_t n, const double *shift) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(v, off + i * stride) + (shift ? shift[i] : 0);
    if (isnan(x)) return NAN;
    if (x > m) m = x;
  }
  if (isinf(m)) return m;
  double s = 0;
  for (size_t i = 0; i < n; i++) s += exp(tm_get(v, off + i * stride) + (shift ? shift[i] : 0) - m);
  return m + log(s);
}

static int lse_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  if (nargs == 2) return tm_binary_apply(fn, &def_lse2, a, nargs, out);
  if (nargs != 1) return ad_fail(AD_EINVALID, "%s: expected 1 or 2 arguments, got %d", fn, nargs);
  size_t n = tm_numel(a);
  double *d[1] = {NULL};
  if (a->adj && !(d[0] = ad_alloc_doubles(n ? n : 1))) return AD_EMEMORY;
  /* int containers: lse_n converts; real ones share plans' arithmetic */
  double f = a->base == TM_INT ? lse_n(a, 0, 1, n, NULL) : tm_lse_partials(a->val, n, d[0]);
  return tm_set_partials(out, a, d, 1, f);
}

/* ---- log_mix ---- */

/* log_mix(theta, lambda1, lambda2) on scalars */
static int log_mix3(const char *fn, const tm_v *a, tm_v *out) {
  int rc;
  for (int i = 0; i < 3; i++)
    if (!tm_is_scalar(&a[i])) {
      char t[48];
      return ad_fail(AD_EINVALID, "%s: with three arguments all must be int or real, argument %d is %s",
                     fn, i + 1, tm_type_name(&a[i], t, sizeof t));
    }
  if ((rc = tm_check_not_nan(fn, "lambda1", &a[1])) || (rc = tm_check_not_nan(fn, "lambda2", &a[2])) ||
      (rc = tm_check_bounded(fn, "theta", &a[0], 0, 1)))
    return rc;
  double th = tm_get(&a[0], 0), l1 = tm_get(&a[1], 0), l2 = tm_get(&a[2], 0);
  double *d[3] = {NULL, NULL, NULL}, *p = NULL;
  if (tm_any_ad(a, 3)) {
    if (!(p = ad_alloc_doubles(3))) return AD_EMEMORY;
    for (int i = 0; i < 3; i++) d[i] = p + i;
  }
  double f = tm_log_mix3(th, log(th), tm_log1m(th), l1, l2, p);
  return tm_set_partials(out, a, d, 3, f);
}

/* lambda is one container of K log densities, or an array of N of them. */
static int log_mix2(const char *fn, const tm_v *a, tm_v *out) {
  const tm_v *theta = &a[0], *lam = &a[1];
  char t[48];
  int rc;
  if (tm_is_scalar(theta) || theta->narr > 1 || (theta->narr == 1 && theta->base > TM_REAL) ||
      theta->base == TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: theta must be a vector, row_vector or array[] real, not %s",
                   fn, tm_type_name(theta, t, sizeof t));
  size_t K = tm_numel(theta), N;
  int flat = lam->narr == 0 || (lam->narr == 1 && lam->base <= TM_REAL);
  if (tm_is_scalar(lam) || lam->base == TM_MATRIX || lam->narr > 2 || (lam->narr == 2 && lam->base > TM_REAL))
    return ad_fail(AD_EINVALID, "%s: lambda must be a vector, row_vector or array[] real, or an array of them, not %s",
                   fn, tm_type_name(lam, t, sizeof t));
  if (flat) {
    N = 1;
    if ((rc = tm_check_size_match(fn, "theta", K, "lambda", tm_numel(lam)))) return rc;
  } else {
    N = (size_t)lam->dim[0];
    if (N > 0) {
      tm_v e = tm_elem(lam, 0);
      if ((rc = tm_check_size_match(fn, "theta", K, "lambda", tm_numel(&e)))) return rc;
    }
  }
  if ((rc = tm_check_bounded(fn, "theta", theta, 0, 1)) || (rc = tm_check_finite(fn, "lambda", lam)))
    return rc;
  double *lt = ad_alloc_doubles(K ? K : 1);
  double *d[2] = {NULL, NULL};
  if (!lt || (theta->adj && !(d[0] = ad_alloc_zeros(K ? K : 1))) ||
      (lam->adj && !(d[1] = ad_alloc_doubles(N * K > 0 ? N * K : 1))))
    return AD_EMEMORY;
  for (size_t k = 0; k < K; k++) lt[k] = log(tm_get(theta, k));
  double f = 0;
  for (size_t j = 0; j < N; j++) {
    double fj = lse_n(lam, j * K, 1, K, lt);
    f += fj;
    for (size_t k = 0; k < K && (d[0] || d[1]); k++) {
      double e = exp(tm_get(lam, j * K + k) - fj);
      if (d[0]) d[0][k] += e;
      if (d[1]) d[1][j * K + k] = tm_get(theta, k) * e;
    }
  }
  return tm_set_partials(out, a, d, 2, f);
}

static int log_mix_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  if (nargs == 3) return log_mix3(fn, a, out);
  if (nargs == 2) return log_mix2(fn, a, out);
  return ad_fail(AD_EINVALID, "%s: expected 2 or 3 arguments, got %d", fn, nargs);
}

/* ---- the table ---- */

#define ARITH "int(int, int); real(real, real); vector(vector, vector); row_vector(row_vector, row_vector); " \
  "matrix(matrix, matrix); vector(vector, real); vector(real, vector); row_vector(row_vector, real); " \
  "row_vector(real, row_vector); matrix(matrix, real); matrix(real, matrix)"
#define ELT "real(real, real); vector(vector, vector); row_vector(row_vector, row_vector); matrix(matrix, matrix); " \
  "vector(vector, real); vector(real, vector); row_vector(row_vector, real); row_vector(real, row_vector); " \
  "matrix(matrix, real); matrix(real, matrix)"
#define LAMBDA(th) "real(" th ", vector); real(" th ", row_vector); real(" th ", array[] real); " \
  "real(" th ", array[] vector); real(" th ", array[] row_vector); real(" th ", array[,] real)"

const tm_fn tm_fns_scalar[] = {
  TM_UNARY_FN(exp), TM_UNARY_FN(log), TM_UNARY_FN(log1p), TM_UNARY_FN(expm1), TM_UNARY_FN(sqrt),
  TM_UNARY_FN(square), TM_UNARY_FN(inv), TM_UNARY_FN(fabs),
  {"abs", TM_SIG_INT_ARRAYS "R(T)", tm_unary_kernel, &def_abs},
  TM_UNARY_FN(logit), TM_UNARY_FN(inv_logit), TM_UNARY_FN(log_inv_logit), TM_UNARY_FN(log1m_inv_logit),
  TM_UNARY_FN(log1m), TM_UNARY_FN(log1p_exp),
  TM_UNARY_FN(lgamma), TM_UNARY_FN(digamma), TM_UNARY_FN(erf), TM_UNARY_FN(erfc), TM_UNARY_FN(Phi),
  TM_UNARY_FN(Phi_approx),
  TM_UNARY_FN(sin), TM_UNARY_FN(cos), TM_UNARY_FN(tan), TM_UNARY_FN(asin), TM_UNARY_FN(acos),
  TM_UNARY_FN(atan),
  TM_UNARY_FN(sinh), TM_UNARY_FN(cosh), TM_UNARY_FN(tanh), TM_UNARY_FN(asinh), TM_UNARY_FN(acosh),
  TM_UNARY_FN(atanh),
  TM_UNARY_FN(log2), TM_UNARY_FN(log10), TM_UNARY_FN(exp2), TM_UNARY_FN(cbrt), TM_UNARY_FN(inv_sqrt),
  TM_UNARY_FN(inv_square), TM_UNARY_FN(inv_cloglog),
  TM_UNARY_FN(log1m_exp),
  {"minus", TM_SIG_INT_ARRAYS "R(T)", tm_unary_kernel, &def_minus},
  {"add", ARITH, tm_binary_kernel, &def_add},
  {"subtract", ARITH, tm_binary_kernel, &def_subtract},
  {"elt_multiply", "int(int, int); " ELT, tm_binary_kernel, &def_elt_multiply},
  {"elt_divide", "int(int, int); " ELT, tm_binary_kernel, &def_elt_divide},
  {"divide", "int(int, int); real(real, real); vector(vector, real); row_vector(row_vector, real); "
   "matrix(matrix, real)", tm_binary_kernel, &def_divide},
  {"modulus", "int(int, int)", modulus_kernel, NULL},
  TM_BINARY_FN(pow), TM_BINARY_FN(fmin), TM_BINARY_FN(fmax), TM_BINARY_FN(log_diff_exp), TM_BINARY_FN(lbeta),
  TM_BINARY_FN(lchoose),
  {"log_sum_exp", "real(real, real); real(vector); real(row_vector); real(matrix); real(array[] real); "
   "R(T, real); R(real, T); R(T, T)",
   lse_kernel, &def_lse2},         /* data: its two-argument form, for plans */
  {"log_mix", "real(real, real, real); " LAMBDA("vector") "; " LAMBDA("row_vector") "; " LAMBDA("array[] real"),
   log_mix_kernel, NULL},
  {NULL, NULL, NULL, NULL}
};

/* the generic kernels for defs made in other modules (tm_scalar.h) */
