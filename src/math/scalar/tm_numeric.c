/*
** tm_numeric.c -- the numeric functions: rounding, steps and tests, the
** binary functions Stan vectorizes (fdim, fmod, hypot, atan2, lmultiply,
** log_inv_logit_diff, beta, lmgamma, the factorials...), the normal
** quantile, fma, choose and the constants (pi(), e(), ...).
**
** Elementwise functions are defs run by the generic kernels of tm_scalar_kernel.c
** (tm_scalar.h), so they take every container and record one node per
** vectorized call; the int-valued ones (int_step, is_inf, is_nan, choose)
** and the nullary constants have kernels of their own, with no autodiff.
*/
#include <math.h>
#include <float.h>
#include <limits.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "../tm_scalar.h"

static int arity(const tm_call *c, int nargs, int want) {
  if (nargs == want) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: expected %d argument%s, got %d", tm_fn_name(c), want,
                 want == 1 ? "" : "s", nargs);
}

static int scalar_arg(const tm_call *c, const tm_v *a, int i) {
  if (tm_is_scalar(&a[i])) return AD_OK;
  char t[48];
  return ad_fail(AD_EINVALID, "%s: argument %d must be int or real, not %s", tm_fn_name(c), i + 1,
                 tm_type_name(&a[i], t, sizeof t));
}

/* ---- unary ---- */

static double f_step(double x) { return x < 0 ? 0 : 1; }    /* step(0) = step(NaN) = 1 */
static double f_tgamma(double x) { return tgamma(x); }

static double d_zero(double x, double f) { (void)x; (void)f; return 0; }
static double d_tgamma(double x, double f) { return f * tm_digamma(x); }
/* d inv_Phi / dp = 1 / phi(x) */
static double d_inv_Phi(double p, double x) { (void)p; return TM_SQRT_2PI * exp(0.5 * x * x); }
/* d x / d lp = p / phi(x) */
static double d_log_qf(double lp, double x) { return exp(lp + 0.5 * x * x + TM_LOG_SQRT_2PI); }

/* psi''(x): recurrence up to x >= 10, then the derivative of trigamma's
** asymptotic series; reflection for negative x. */
static double tetragamma(double x) {
  if (isnan(x) || x == -INFINITY) return NAN;
  if (x <= 0 && floor(x) == x) return NAN;
  if (x == INFINITY) return 0;
  if (x < 0) {
    double s = sin(TM_PI * x), c = cos(TM_PI * x);
    return tetragamma(1 - x) - 2 * TM_PI * TM_PI * TM_PI * c / (s * s * s);
  }
  double acc = 0;
  while (x < 10) { acc -= 2 / (x * x * x); x += 1; }
  double z = 1 / (x * x);
  double s = -z - z / x - 0.5 * z * z + z * z * z * (1.0 / 6 - z * (1.0 / 6 - z * (3.0 / 10 - z * (5.0 / 6
             - z * (691.0 / 210 - z * (35.0 / 2))))));
  return acc + s;
}
static double d_trigamma(double x, double f) { (void)f; return tetragamma(x); }
static double f_trigamma(double x) { return tm_trigamma(x); }

static int bad_tgamma(double x) { return x == 0 || (x < 0 && floor(x) == x); }
static int bad_prob(double p) { return !(p >= 0 && p <= 1); }
static int bad_log_prob(double lp) { return !(lp <= 0); }

static const tm_unary_def def_floor = TM_PLAIN_UNARY(floor, d_zero), def_ceil = TM_PLAIN_UNARY(ceil, d_zero),
  def_round = TM_PLAIN_UNARY(round, d_zero), def_trunc = TM_PLAIN_UNARY(trunc, d_zero),
  def_step = TM_PLAIN_UNARY(f_step, d_zero),
  def_trigamma = TM_PLAIN_UNARY(f_trigamma, d_trigamma),
  def_tgamma = {f_tgamma, d_tgamma, bad_tgamma, "not be 0 or a negative integer", NULL, NULL, 0},
  def_inv_Phi = {tm_inv_Phi, d_inv_Phi, bad_prob, "be in the interval [0, 1]", NULL, "Probability variable", 0},
  def_log_qf = {tm_std_normal_log_qf, d_log_qf, bad_log_prob, "be less than or equal to 0", NULL,
                "Log probability variable", 0};

/* ---- binary ---- */

static double f_fdim(double x, double y) { return fdim(x, y); }
static double d_fdim_x(double x, double y, double f) { (void)f; return isnan(x) || isnan(y) ? NAN : x > y; }
static double d_fdim_y(double x, double y, double f) { return -d_fdim_x(x, y, f); }

static double d_fmod_x(double x, double y, double f) { (void)x; (void)y; (void)f; return 1; }
static double d_fmod_y(double x, double y, double f) { (void)f; return -trunc(x / y); }

static double d_hypot_x(double x, double y, double f) { (void)y; return x / f; }
static double d_hypot_y(double x, double y, double f) { (void)x; return y / f; }

/* atan2(y, x): the first argument is the ordinate */
static double d_atan2_y(double y, double x, double f) { (void)f; return x / (x * x + y * y); }
static double d_atan2_x(double y, double x, double f) { (void)f; return -y / (x * x + y * y); }

/* lmultiply(x, y) = x log(y), 0 log 0 = 0 */
static double f_lmultiply(double x, double y) { return x == 0 && y == 0 ? 0 : x * log(y); }
static double d_lmul_x(double x, double y, double f) { (void)x; (void)f; return log(y); }
static double d_lmul_y(double x, double y, double f) { (void)f; return x / y; }

/* log(inv_logit(x) - inv_logit(y)) = x - log1p_exp(x) + log1m_exp(y - x) - log1p_exp(y) */
static double f_liltd(double x, double y) {
  return x - tm_log1p_exp(x) + tm_log1m_exp(y - x) - tm_log1p_exp(y);
}
static double d_liltd_x(double x, double y, double f) { (void)f; return -1 / expm1(y - x) - tm_inv_logit(x); }
static double d_liltd_y(double x, double y, double f) { (void)f; return -1 / expm1(x - y) - tm_inv_logit(y); }

static double f_beta(double a, double b) { return exp(tm_lbeta(a, b)); }
static double d_beta_a(double a, double b, double f) { return f * (tm_digamma(a) - tm_digamma(a + b)); }
static double d_beta_b(double a, double b, double f) { return f * (tm_digamma(b) - tm_digamma(a + b)); }

/* lmgamma(k, x) = k (k - 1) / 4 log(pi) + sum_j lgamma(x + (1 - j) / 2) */
static double f_lmgamma(double k, double x) {
  double s = 0.25 * k * (k - 1) * TM_LOG_PI;
  for (int j = 1; j <= (int)k; j++) s += tm_lgamma(x + 0.5 * (1 - j));
  return s;
}
static double d_lmgamma_x(double k, double x, double f) {
  (void)f;
  double s = 0;
  for (int j = 1; j <= (int)k; j++) s += tm_digamma(x + 0.5 * (1 - j));
  return s;
}
static double d_int_arg(double x, double y, double f) { (void)x; (void)y; (void)f; return 0; }

/* log_falling_factorial(x, n) = lgamma(x + 1) - lgamma(x - n + 1), and
** log_rising_factorial(x, n) = lgamma(x + n) - lgamma(x): differences of
** lgamma and digamma that keep their digits when n is small (tm_special.c) */
static double f_lff(double x, double n) { return -tm_lgamma_diff(x + 1, -n); }    /* x + 1 is often exact, x - n + 1 rarely */
static double d_lff_x(double x, double n, double f) { (void)f; return -tm_digamma_diff(x + 1, -n); }
static double d_lff_n(double x, double n, double f) { (void)f; return tm_digamma(x - n + 1); }
static double f_lrf(double x, double n) { return tm_lgamma_diff(x, n); }
static double d_lrf_x(double x, double n, double f) { (void)f; return tm_digamma_diff(x, n); }
static double d_lrf_n(double x, double n, double f) { (void)f; return tm_digamma(x + n); }
/* falling_factorial(x, n) = Gamma(x + 1) / Gamma(x - n + 1), n an int */
static double f_ff(double x, double n) { return exp(f_lff(x, n)); }
static double d_ff_x(double x, double n, double f) { return f * d_lff_x(x, n, f); }
static double f_rf(double x, double n) { return exp(f_lrf(x, n)); }
static double d_rf_x(double x, double n, double f) { return f * d_lrf_x(x, n, f); }

/* binary_log_loss(y, y_hat) = -log(y_hat) or -log(1 - y_hat) */
static double f_bll(double y, double p) { return y != 0 ? -log(p) : -log1p(-p); }
static double d_bll_p(double y, double p, double f) { (void)f; return y != 0 ? -1 / p : 1 / (1 - p); }

static int check_positive_first(const char *fn, const char *at, double x, double y) {
  (void)y;
  if (isnan(x) || x > 0) return AD_OK;
  return ad_fail(AD_EDOMAIN, "%s: first argument%s is %.17g, but must be positive!", fn, at, x);
}
static int check_factorial(const char *fn, const char *at, double x, double n) {
  if (n < 0) return ad_fail(AD_EDOMAIN, "%s: second argument%s is %.17g, but must be nonnegative!", fn, at, n);
  (void)x;
  return AD_OK;
}
static int check_rising(const char *fn, const char *at, double x, double n) {
  int rc = check_factorial(fn, at, x, n);
  return rc ? rc : check_positive_first(fn, at, x, n);
}
static int check_lmgamma(const char *fn, const char *at, double k, double x) {
  (void)x;
  if (k < 0) return ad_fail(AD_EDOMAIN, "%s: first argument%s is %.17g, but must be nonnegative!", fn, at, k);
  return AD_OK;
}
static int check_beta(const char *fn, const char *at, double a, double b) {
  if (isnan(a) || isnan(b)) return AD_OK;
  if (a < 0) return ad_fail(AD_EDOMAIN, "%s: first argument%s is %.17g, but must be nonnegative!", fn, at, a);
  if (b < 0) return ad_fail(AD_EDOMAIN, "%s: second argument%s is %.17g, but must be nonnegative!", fn, at, b);
  return AD_OK;
}
static int check_bll(const char *fn, const char *at, double y, double p) {
  if (y != 0 && y != 1)
    return ad_fail(AD_EDOMAIN, "%s: n%s is %.17g, but must be in the interval [0, 1]", fn, at, y);
  if (!(p >= 0 && p <= 1))
    return ad_fail(AD_EDOMAIN, "%s: probability%s is %.17g, but must be in the interval [0, 1]", fn, at, p);
  return AD_OK;
}

/* gamma_p(a, x), gamma_q(a, x): the regularized incomplete gamma functions,
** with partials in both arguments (tm_special_dist.c) */
static double f_gamma_p(double a, double x) { double lp; tm_log_gamma_pq(a, x, &lp, NULL); return exp(lp); }
static double f_gamma_q(double a, double x) { double lq; tm_log_gamma_pq(a, x, NULL, &lq); return exp(lq); }
static double gamma_pq_partial(double a, double x, double f, int k) {
  double lp, lq, g[4];
  tm_log_gamma_pq_grad(a, x, &lp, &lq, g);
  return f == 0 ? 0 : f * g[k];
}
static double d_gp_a(double a, double x, double f) { return gamma_pq_partial(a, x, f, 0); }
static double d_gp_x(double a, double x, double f) { return gamma_pq_partial(a, x, f, 2); }
static double d_gq_a(double a, double x, double f) { return gamma_pq_partial(a, x, f, 1); }
static double d_gq_x(double a, double x, double f) { return gamma_pq_partial(a, x, f, 3); }
static int check_gamma_pq(const char *fn, const char *at, double a, double x) {
  if (!(a > 0)) return ad_fail(AD_EDOMAIN, "%s: first argument%s is %.17g, but must be positive!", fn, at, a);
  if (!(x >= 0)) return ad_fail(AD_EDOMAIN, "%s: second argument%s is %.17g, but must be nonnegative!", fn, at, x);
  return AD_OK;
}

/* the int forms of choose and the factorials (the generic binary kernel runs
** them on ints and int arrays, Stan's int results) */
static int i_choose(const char *fn, int n, int k, int *r) {
  if (n < 0) return ad_fail(AD_EDOMAIN, "%s: first argument is %d, but must be nonnegative!", fn, n);
  if (k < 0) return ad_fail(AD_EDOMAIN, "%s: second argument is %d, but must be nonnegative!", fn, k);
  if (k > n) { *r = 0; return AD_OK; }
  int k0 = k;
  if (k > n - k) k = n - k;
  long long p = 1;      /* exact: the running product C(n - k + i, i) never exceeds the result */
  for (int i = 1; i <= k; i++) {
    p = p * (n - k + i) / i;
    if (p > INT_MAX)
      return ad_fail(AD_EDOMAIN, "%s: n choose k is larger than the largest int (%d); n = %d, k = %d",
                     fn, INT_MAX, n, k0);
  }
  *r = (int)p;
  return AD_OK;
}
/* x (x + s) (x + 2 s) ... n factors, s = -1 (falling) or 1 (rising) */
static int int_product(const char *fn, int x, int n, int s, int *r) {
  long long p = 1;
  for (int i = 0; i < n && p != 0; i++) {
    p *= (long long)x + (long long)s * i;
    if (p > INT_MAX || p < INT_MIN)
      return ad_fail(AD_EDOMAIN, "%s: the result for %d and %d is outside the range of int", fn, x, n);
  }
  *r = (int)p;
  return AD_OK;
}
static int i_falling(const char *fn, int x, int n, int *r) {
  if (n < 0) return ad_fail(AD_EDOMAIN, "%s: second argument is %d, but must be nonnegative!", fn, n);
  return int_product(fn, x, n, -1, r);
}
static int i_rising(const char *fn, int x, int n, int *r) {
  if (n < 0) return ad_fail(AD_EDOMAIN, "%s: second argument is %d, but must be nonnegative!", fn, n);
  return int_product(fn, x, n, 1, r);     /* Stan checks only n for ints: x (x + 1) ... exactly */
}

static const tm_binary_def
  def_fdim = TM_PLAIN_BINARY(f_fdim, d_fdim_x, d_fdim_y),
  def_fmod = TM_PLAIN_BINARY(fmod, d_fmod_x, d_fmod_y),
  def_hypot = TM_PLAIN_BINARY(hypot, d_hypot_x, d_hypot_y),
  def_atan2 = TM_PLAIN_BINARY(atan2, d_atan2_y, d_atan2_x),
  def_lmultiply = TM_PLAIN_BINARY(f_lmultiply, d_lmul_x, d_lmul_y),
  def_log_inv_logit_diff = TM_PLAIN_BINARY(f_liltd, d_liltd_x, d_liltd_y),
  def_beta = {f_beta, d_beta_a, d_beta_b, check_beta, NULL, 0},
  def_lmgamma = {f_lmgamma, d_int_arg, d_lmgamma_x, check_lmgamma, NULL, 0},
  def_log_falling_factorial = {f_lff, d_lff_x, d_lff_n, check_positive_first, NULL, 0},
  def_log_rising_factorial = {f_lrf, d_lrf_x, d_lrf_n, check_positive_first, NULL, 0},
  def_falling_factorial = {f_ff, d_ff_x, d_int_arg, check_factorial, i_falling, 0},
  def_rising_factorial = {f_rf, d_rf_x, d_int_arg, check_rising, i_rising, 0},
  def_choose = {NULL, NULL, NULL, NULL, i_choose, 0},
  def_binary_log_loss = {f_bll, d_int_arg, d_bll_p, check_bll, NULL, 0},
  def_gamma_p = {f_gamma_p, d_gp_a, d_gp_x, check_gamma_pq, NULL, 0},
  def_gamma_q = {f_gamma_q, d_gq_a, d_gq_x, check_gamma_pq, NULL, 0};

/* inc_beta(a, b, x): the regularized incomplete beta function */
static int k_inc_beta(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  int rc;
  if ((rc = arity(c, nargs, 3))) return rc;
  for (int i = 0; i < 3; i++) if ((rc = scalar_arg(c, a, i))) return rc;
  double al = tm_get(&a[0], 0), be = tm_get(&a[1], 0), x = tm_get(&a[2], 0);
  if (!(al > 0)) return ad_fail(AD_EDOMAIN, "%s: first argument is %.17g, but must be positive!", fn, al);
  if (!(be > 0)) return ad_fail(AD_EDOMAIN, "%s: second argument is %.17g, but must be positive!", fn, be);
  if (!(x >= 0 && x <= 1))
    return ad_fail(AD_EDOMAIN, "%s: third argument is %.17g, but must be in the interval [0, 1]", fn, x);
  double li, lj, g[6];
  tm_log_inc_beta_grad(al, be, x, 1 - x, &li, &lj, g);
  double f = exp(li);
  if (!tm_any_ad(a, 3)) {
    rc = tm_set_real(out, f);
    out->dep = (unsigned char)(a[0].dep || a[1].dep || a[2].dep);
    return rc;
  }
  double d[3] = {f * g[0], f * g[1], f * g[4]}, dd[3];
  if (f == 0 || x == 1) d[0] = d[1] = 0;       /* the ends: I is flat in a and b there */
  ad_var v[3], r;
  int k = 0;
  for (int i = 0; i < 3; i++)
    if (a[i].adj) { v[k] = (ad_var){a[i].val, a[i].adj}; dd[k] = d[i]; k++; }
  if ((rc = ad_nary(k, v, f, dd, &r))) return rc;
  return tm_set_var(out, r);
}

/* ---- fma(x, y, z) = x * y + z ---- */

static int k_fma(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int rc;
  if ((rc = arity(c, nargs, 3))) return rc;
  for (int i = 0; i < 3; i++) if ((rc = scalar_arg(c, a, i))) return rc;
  double x = tm_get(&a[0], 0), y = tm_get(&a[1], 0), z = tm_get(&a[2], 0), f = fma(x, y, z);
  double d[3] = {y, x, 1}, dd[3];
  ad_var v[3];
  int k = 0;
  for (int i = 0; i < 3; i++)
    if (a[i].adj) { v[k] = (ad_var){a[i].val, a[i].adj}; dd[k] = d[i]; k++; }
  if (!k) {
    rc = tm_set_real(out, f);
    out->dep = (unsigned char)(a[0].dep || a[1].dep || a[2].dep);
    return rc;
  }
  ad_var r;
  if ((rc = ad_nary(k, v, f, dd, &r))) return rc;
  return tm_set_var(out, r);
}

/* ---- int-valued: int_step, is_inf, is_nan, choose ---- */

enum { I_STEP, I_INF, I_NAN };
static const int i_codes[] = {I_STEP, I_INF, I_NAN};

static int k_int_test(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int rc, op = *(const int *)c->fn->data;
  if ((rc = arity(c, nargs, 1)) || (rc = scalar_arg(c, a, 0))) return rc;
  double x = tm_get(&a[0], 0);
  int r = op == I_STEP ? x > 0 : op == I_INF ? isinf(x) != 0 : isnan(x) != 0;
  return tm_set_int(out, r);
}

/* to_int(x): truncation toward zero, for data; x must lie in int's range */
static int k_to_int(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = tm_fn_name(c);
  int rc;
  if ((rc = arity(c, nargs, 1))) return rc;
  const tm_v *x = &a[0];
  if (x->base > TM_REAL) {
    char t[48];
    return ad_fail(AD_EINVALID, "%s: the argument must be a real or an array of reals, not %s", fn,
                   tm_type_name(x, t, sizeof t));
  }
  size_t n = tm_is_scalar(x) ? 1 : tm_numel(x);
  for (size_t i = 0; i < n; i++) {
    double v = tm_get(x, i);
    if (!(v >= INT_MIN && v < (double)INT_MAX + 1))
      return ad_fail(AD_EDOMAIN, "%s: x%s is %.17g, but must be in the interval [%d, %d]", fn,
                     tm_is_scalar(x) ? "" : "[]", v, INT_MIN, INT_MAX);
  }
  if (tm_is_scalar(x)) return tm_set_int(out, (int)tm_get(x, 0));
  *out = *x;
  out->base = TM_INT;
  out->val = out->adj = NULL;
  out->dep = 0;
  if (!(out->ival = ad_alloc((n ? n : 1) * sizeof(int)))) return AD_EMEMORY;
  for (size_t i = 0; i < n; i++) out->ival[i] = (int)tm_get(x, i);
  return AD_OK;
}

/* ---- constants ---- */

static const double c_pi = TM_PI, c_e = 2.718281828459045235360287471353, c_sqrt2 = 1.414213562373095048801688724210,
  c_log2 = TM_LOG_2, c_log10 = 2.302585092994045684017991454684, c_nan = NAN, c_inf = INFINITY,
  c_ninf = -INFINITY, c_eps = DBL_EPSILON;

static int k_constant(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  (void)a;
  int rc = arity(c, nargs, 0);
  return rc ? rc : tm_set_real(out, *(const double *)c->fn->data);
}

/* ---- the table ---- */

#define REAL_INT(name) {#name, TM_SIG_INT_INT TM_SIG_REAL_INT, tm_binary_kernel, &def_##name}
#define TO_INT(A) A "int(" A "real); " A "int(" A "int); "
#define CONST(name, v) {#name, "real()", k_constant, &v}

const tm_fn tm_fns_numeric[] = {
  TM_UNARY_FN(floor), TM_UNARY_FN(ceil), TM_UNARY_FN(round), TM_UNARY_FN(trunc), TM_UNARY_FN(trigamma),
  TM_UNARY_FN(tgamma), TM_UNARY_FN(inv_Phi),
  {"step", "real(real)", tm_unary_kernel, &def_step},
  {"std_normal_qf", "R(T)", tm_unary_kernel, &def_inv_Phi},
  {"std_normal_log_qf", "R(T)", tm_unary_kernel, &def_log_qf},
  TM_BINARY_FN(fdim), TM_BINARY_FN(fmod), TM_BINARY_FN(hypot), TM_BINARY_FN(atan2), TM_BINARY_FN(lmultiply),
  TM_BINARY_FN(log_inv_logit_diff), TM_BINARY_FN(beta),
  TM_BINARY_FN(log_falling_factorial), TM_BINARY_FN(log_rising_factorial),
  {"multiply_log", TM_SIG_REAL_REAL, tm_binary_kernel, &def_lmultiply},
  TM_INT_REAL_FN(lmgamma), REAL_INT(falling_factorial), REAL_INT(rising_factorial),
  TM_INT_REAL_FN(binary_log_loss),
  TM_BINARY_FN(gamma_p), TM_BINARY_FN(gamma_q),
  {"inc_beta", "real(real, real, real)", k_inc_beta, NULL},
  {"fma", "real(real, real, real)", k_fma, NULL},
  {"int_step", "int(int); int(real)", k_int_test, &i_codes[I_STEP]},
  {"is_inf", "int(real)", k_int_test, &i_codes[I_INF]},
  {"is_nan", "int(real)", k_int_test, &i_codes[I_NAN]},
  {"choose", TM_SIG_INT_INT, tm_binary_kernel, &def_choose},
  {"to_int", "int(real); int(int); " TO_INT(TM_A1) TO_INT(TM_A2) TO_INT(TM_A3) TO_INT(TM_A4) TO_INT(TM_A5)
   TO_INT(TM_A6) TO_INT(TM_A7) TO_INT(TM_A8), k_to_int, NULL},
  CONST(pi, c_pi), CONST(e, c_e), CONST(sqrt2, c_sqrt2), CONST(log2, c_log2), CONST(log10, c_log10),
  CONST(not_a_number, c_nan), CONST(positive_infinity, c_inf), CONST(negative_infinity, c_ninf),
  CONST(machine_precision, c_eps),
  {NULL, NULL, NULL, NULL}
};
