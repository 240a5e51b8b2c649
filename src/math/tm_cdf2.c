/*
** tm_cdf2.c -- more _cdf, _lcdf and _lccdf on tm_cdf.c's kernel (tm_cdf.h):
** pareto_type_2, skew_double_exponential, loglogistic (_cdf only, as Stan),
** beta_proportion (_lcdf, _lccdf, as Stan), von_mises, beta_binomial,
** neg_binomial, beta_neg_binomial, yule_simon, discrete_range.
**
** Each element function returns log F or log(1 - F) and that log's
** partials.  Where one side has a closed form the other is its complement
** by log1m_exp; the finite sums (beta_binomial) sum the side asked for, so
** both tails keep their digits; beta_neg_binomial sums the masses up to n
** (its upper tail, a power law, is the complement).
*/
#include <math.h>
#include <stdio.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_special_dist.h"
#include "tm_cdf.h"

/* log(1 - A) from v = log A and its partials d[0..n-1], in place */
static double complement(double v, double *d, int n) {
  if (v == -INFINITY) { for (int i = 0; i < n; i++) d[i] = 0; return 0; }
  double w = tm_log1m_exp(v), r = -exp(v - w);
  for (int i = 0; i < n; i++) d[i] = isfinite(r) ? d[i] * r : 0;
  return w;
}

/* log F or log(1 - F) from F and its partials dF */
static double from_prob(double F, int upper, double *d, int n) {
  double v = upper ? log1p(-F) : log(F), s = upper ? -1 / (1 - F) : 1 / F;
  for (int i = 0; i < n; i++) d[i] = isfinite(v) ? d[i] * s : 0;
  return v;
}

static void elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

/* ---- pareto_type_2(y | mu, lambda, alpha): 1 - F = (1 + (y - mu) / lambda)^-alpha ---- */

static int pareto_type_2_check(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++) {
    double y = tm_get(&D->a[0], j), mu = tm_get(&D->a[1], j);
    if (y >= mu) continue;
    char nm[96];
    elem_name(nm, sizeof nm, "Random variable", &D->a[0], j);
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than or equal to %.17g", D->fn, nm, y, mu);
  }
  return AD_OK;
}
static double pareto_type_2_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], l = x[2], a = x[3];
  if (isinf(y)) return upper ? -INFINITY : 0;
  double u = log1p((y - mu) / l);
  if (u == 0) return upper ? 0 : -INFINITY;
  double is = 1 / (l + y - mu);
  d[0] = -a * is;
  d[1] = a * is;
  d[2] = a * is * (y - mu) / l;
  d[3] = -u;
  double v = -a * u;
  return upper ? v : complement(v, d, 4);
}

/* ---- skew_double_exponential(y | mu, sigma, tau): F = tau exp(-2 (1 - tau) (mu - y) / sigma)
** below mu, 1 - F = (1 - tau) exp(-2 tau (y - mu) / sigma) above ---- */

static double skew_double_exponential_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], s = x[2], t = x[3], z = y - mu, v;
  if (isinf(y)) return (y < 0) == !upper ? -INFINITY : 0;
  int lower_side = y <= mu;                 /* the closed form is log F */
  if (lower_side) {
    v = log(t) + 2 * (1 - t) * z / s;
    d[0] = 2 * (1 - t) / s;
    d[1] = -d[0];
    d[2] = -2 * (1 - t) * z / (s * s);
    d[3] = 1 / t - 2 * z / s;
  } else {
    v = log1p(-t) - 2 * t * z / s;
    d[0] = -2 * t / s;
    d[1] = -d[0];
    d[2] = 2 * t * z / (s * s);
    d[3] = -1 / (1 - t) - 2 * z / s;
  }
  return lower_side == !upper ? v : complement(v, d, 4);
}

/* ---- loglogistic(y | alpha, beta): F = inv_logit(beta (log y - log alpha)) ---- */

static double loglogistic_e(const double *x, int upper, double *d) {
  double y = x[0], a = x[1], b = x[2];
  if (y == 0) return upper ? 0 : -INFINITY;
  double lr = log(y) - log(a), r = b * lr;
  double g = upper ? -tm_inv_logit(r) : tm_inv_logit(-r);
  d[0] = g * b / y;
  d[1] = -g * b / a;
  d[2] = g * lr;
  return upper ? tm_log1m_inv_logit(r) : tm_log_inv_logit(r);
}

/* ---- beta_proportion(y | mu, kappa) = beta(y | mu kappa, (1 - mu) kappa) ---- */

static int beta_proportion_check(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++) {
    double mu = tm_get(&D->a[1], j);
    if (mu < 1) continue;
    char nm[96];
    elem_name(nm, sizeof nm, "Location parameter", &D->a[1], j);
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be less than 1", D->fn, nm, mu);
  }
  return AD_OK;
}
static double beta_proportion_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], k = x[2], li, lj, g[6];
  tm_log_inc_beta_grad(mu * k, (1 - mu) * k, y, 1 - y, &li, &lj, g);
  double v = upper ? lj : li;
  if (isfinite(v)) {
    double ga = upper ? g[2] : g[0], gb = upper ? g[3] : g[1];
    d[0] = upper ? g[5] : g[4];
    d[1] = k * (ga - gb);
    d[2] = mu * ga + (1 - mu) * gb;
  }
  return v;
}

/* ---- von_mises(y | mu, kappa) on [-pi, pi], as Stan (scipy's series for
** kappa < 49, a normal approximation beyond 50, a blend between); the
** partials are those of these approximations, which Stan differentiates
** by autodiff ---- */

/* the centred cdf at x and its partials in x and kappa */
static double vm_series(double x, double k, double *fx, double *fk) {
  int p = (int)(28 + 0.5 * k - 100 / (k + 5) + 1);
  double s = sin(x), c = cos(x), sn = sin(p * x), cn = cos(p * x);
  double sn_x = p * cn, cn_x = -p * sn;
  double R = 0, R_k = 0, V = 0, V_x = 0, V_k = 0;
  for (int n = 1; n < p; n++) {
    double t = sn * c - cn * s, t_x = sn_x * c - sn * s - cn_x * s - cn * c;
    double cn2 = cn * c + sn * s, cn2_x = cn_x * c - cn * s + sn_x * s + sn * c;
    sn = t; sn_x = t_x; cn = cn2; cn_x = cn2_x;
    double q = 2.0 * (p - n) / k + R, q_k = -2.0 * (p - n) / (k * k) + R_k;
    R = 1 / q;
    R_k = -q_k / (q * q);
    double w = sn / (p - n) + V;
    V_k = R_k * w + R * V_k;
    V_x = R * (sn_x / (p - n) + V_x);
    V = R * w;
  }
  *fx = 1 / (2 * TM_PI) + V_x / TM_PI;
  *fk = V_k / TM_PI;
  return 0.5 + x / (2 * TM_PI) + V / TM_PI;
}

static double vm_normal(double x, double k, double *fx, double *fk) {
  double li0, r;
  tm_bessel_i01(k, &li0, &r);
  double b = sqrt(2 / TM_PI) * exp(k - li0), b_k = b * (1 - r);
  double z = b * sin(x / 2), ph = exp(-0.5 * z * z) / TM_SQRT_2PI, F = tm_Phi(z);
  if (F == 0 || F == 1) ph = 0;     /* Stan's normal_cdf: flat beyond its cut-offs */
  *fx = ph * b * cos(x / 2) / 2;
  *fk = ph * sin(x / 2) * b_k;
  return F;
}

static double vm_centred(double x, double k, double *fx, double *fk) {
  if (k < 49) {
    double f = vm_series(x, k, fx, fk);
    if (f < 0 || f > 1) { *fx = *fk = 0; return f < 0 ? 0 : 1; }
    return f;
  }
  if (k < 50) {
    double sx, sk, nx, nk, S = vm_series(x, 49, &sx, &sk), N = vm_normal(x, 50, &nx, &nk);
    *fx = (50 - k) * sx + (k - 49) * nx;
    *fk = N - S;
    return (50 - k) * S + (k - 49) * N;
  }
  return vm_normal(x, k, fx, fk);
}

static double von_mises_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], k = x[2];
  if (y == -TM_PI) return upper ? 0 : -INFINITY;
  if (y == TM_PI) return upper ? -INFINITY : 0;
  const double two_pi = 2 * TM_PI;
  double x2 = y - mu + TM_PI;
  x2 = x2 - floor(x2 / two_pi) * two_pi - TM_PI;
  double mu2 = mu + TM_PI;
  mu2 = mu2 - floor(mu2 / two_pi) * two_pi - TM_PI;
  double cut, bound;
  if (mu2 < 0) { cut = mu2 + TM_PI; bound = -TM_PI - mu2; }
  else { cut = mu2 - TM_PI; bound = TM_PI - mu2; }
  double bx, bk, cx, ck;
  double Fb = vm_centred(bound, k, &bx, &bk), Fc = vm_centred(x2, k, &cx, &ck);
  double F = y <= cut ? Fc - Fb : Fc + 1 - Fb;
  if (F < 0) F = 0;
  if (F == 0) { cx = bx = ck = bk = 0; }
  d[0] = cx;
  d[1] = -cx + bx;      /* bound = +-pi - mu2 */
  d[2] = ck - bk;
  return from_prob(F, upper, d, 3);
}

static int von_mises_check(const tm_dens *D) {
  return tm_check_bounded(D->fn, "Random variable", &D->a[0], -TM_PI, TM_PI);
}

/* ---- discrete ---- */

/* beta_binomial(n | N, alpha, beta): the masses of the side asked for,
** log p(k) = lchoose(N, k) + lbeta(k + alpha, N - k + beta) - lbeta(alpha, beta) */
static double beta_binomial_e(const double *x, int upper, double *d) {
  double n = x[0], N = x[1], a = x[2], b = x[3];
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n >= N) return upper ? -INFINITY : 0;
  double lo = upper ? n + 1 : 0, hi = upper ? N : n;
  double lab = tm_lbeta(a, b), dab = tm_digamma(N + a + b) - tm_digamma(a + b);
  double da0 = tm_digamma(a), db0 = tm_digamma(b);
  /* weighted by exp(lp - m): m the running maximum */
  double m = -INFINITY, s = 0, ga = 0, gb = 0;
  for (double k = lo; k <= hi; k++) {
    double lp = tm_lchoose(N, k) + tm_lbeta(k + a, N - k + b) - lab;
    double pa = tm_digamma(k + a) - da0 - dab, pb = tm_digamma(N - k + b) - db0 - dab;
    if (lp > m) { double r = exp(m - lp); s *= r; ga *= r; gb *= r; m = lp; }
    double w = exp(lp - m);
    s += w; ga += w * pa; gb += w * pb;
  }
  d[2] = ga / s;
  d[3] = gb / s;
  return m + log(s);
}
static int beta_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Population size parameter", &D->a[1]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "First prior sample size parameter", &D->a[2]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Second prior sample size parameter", &D->a[3]);
}

/* neg_binomial(n | alpha, beta) = neg_binomial_2(n | alpha / beta, alpha) */
static double neg_binomial_e(const double *x, int upper, double *d) {
  double a = x[1], b = x[2], y[3] = {x[0], a / b, a}, g[3] = {0, 0, 0};
  double v = tm_cdf_neg_binomial_2_e(y, upper, g);
  d[1] = g[1] / b + g[2];
  d[2] = -g[1] * a / (b * b);
  return v;
}

/* beta_neg_binomial(n | r, alpha, beta): the sum of the masses to n,
** log p(k) = lbeta(k + r, alpha + beta) - lbeta(r, alpha) + lgamma(k + beta) - lgamma(k + 1) - lgamma(beta).
** Between exact evaluations every BNB_EXACT terms, log p(k + 1) - log p(k) =
** log((k + r)(k + beta) / ((k + 1)(k + r + alpha + beta))) and the digammas
** of the partials step by 1 / (x + k), so a long sum costs no special
** function per term. */
#define BNB_EXACT 32
static double beta_neg_binomial_e(const double *x, int upper, double *d) {
  double n = x[0], r = x[1], a = x[2], b = x[3];
  if (n < 0) return upper ? 0 : -INFINITY;
  double c0 = -tm_lbeta(r, a) - tm_lgamma(b), s_all = r + a + b;
  double dr0 = -tm_digamma(r) + tm_digamma(r + a), da0 = -tm_digamma(a) + tm_digamma(r + a) + tm_digamma(a + b);
  double db0 = tm_digamma(a + b) - tm_digamma(b);
  double m = -INFINITY, s = 0, gr = 0, ga = 0, gb = 0;
  double lp = 0, psr = 0, psall = 0, psb = 0;   /* log p(k); digamma(k + r), (k + r + a + b), (k + b) */
  for (double k = 0; k <= n; k++) {
    if (fmod(k, BNB_EXACT) == 0) {
      lp = tm_lbeta(k + r, a + b) + tm_lgamma(k + b) - tm_lfact(k) + c0;
      psr = tm_digamma(k + r); psall = tm_digamma(k + s_all); psb = tm_digamma(k + b);
    }
    double pr = psr - psall + dr0, pa = -psall + da0, pb = psb - psall + db0;
    if (lp > m) { double q = exp(m - lp); s *= q; gr *= q; ga *= q; gb *= q; m = lp; }
    double w = exp(lp - m);
    s += w; gr += w * pr; ga += w * pa; gb += w * pb;
    lp += log((k + r) * (k + b) / ((k + 1) * (k + s_all)));
    psr += 1 / (k + r); psall += 1 / (k + s_all); psb += 1 / (k + b);
  }
  double v = m + log(s);
  if (v > 0) v = 0;
  d[1] = gr / s;
  d[2] = ga / s;
  d[3] = gb / s;
  return upper ? complement(v, d, 4) : v;
}

/* yule_simon(n | alpha): 1 - F(n) = n B(n, alpha + 1) for n >= 1 */
static double yule_simon_e(const double *x, int upper, double *d) {
  double n = x[0], a = x[1];
  if (n < 1) return upper ? 0 : -INFINITY;
  double v = log(n) + tm_lbeta(n, a + 1);
  d[1] = tm_digamma(a + 1) - tm_digamma(n + a + 1);
  return upper ? v : complement(v, d, 2);
}

/* discrete_range(y | lower, upper): (y - lower + 1) / (upper - lower + 1) */
static double discrete_range_e(const double *x, int upper, double *d) {
  (void)d;
  double y = x[0], lo = x[1], hi = x[2];
  if (y < lo) return upper ? 0 : -INFINITY;
  if (y >= hi) return upper ? -INFINITY : 0;
  return upper ? log((hi - y) / (hi - lo + 1)) : log((y - lo + 1) / (hi - lo + 1));
}
static int discrete_range_check(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++) {
    int lo = tm_geti(&D->a[1], j), hi = tm_geti(&D->a[2], j);
    if (hi >= lo) continue;
    char nm[64];
    elem_name(nm, sizeof nm, "Upper bound parameter", &D->a[2], j);
    return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to %d", D->fn, nm, hi, lo);
  }
  return AD_OK;
}

/* ---- definitions ---- */
#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"

static const cdf_def
  d_pareto_type_2 = {4, 0, {Y, LOC, SCALE, SHAPE}, {{0, CK_NOT_NAN}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}},
    pareto_type_2_e, pareto_type_2_check},
  d_skew_double_exponential = {4, 0, {Y, LOC, SCALE, "Skewness parameter"},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_UNIT}}, skew_double_exponential_e, NULL},
  d_loglogistic = {3, 0, {Y, SCALE, SHAPE}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}},
    loglogistic_e, NULL},
  d_beta_proportion = {3, 0, {Y, LOC, "Precision parameter"}, {{1, CK_POS}, {2, CK_POS_FINITE}, {0, CK_UNIT}},
    beta_proportion_e, beta_proportion_check},
  d_von_mises = {3, 0, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, von_mises_e,
    von_mises_check},
  d_beta_binomial = {4, 3u, {"Successes variable", "Population size parameter", "First prior sample size parameter",
    "Second prior sample size parameter"}, {{0, CK_END}}, beta_binomial_e, beta_binomial_check},
  d_neg_binomial = {3, 1u, {"Failures variable", SHAPE, "Inverse scale parameter"},
    {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, neg_binomial_e, NULL},
  d_beta_neg_binomial = {4, 1u, {"Failures variable", "Number of successes parameter", "Prior success parameter",
    "Prior failure parameter"}, {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}},
    beta_neg_binomial_e, NULL},
  d_yule_simon = {2, 1u, {"Outcome variable", SHAPE}, {{1, CK_POS_FINITE}}, yule_simon_e, NULL},
  d_discrete_range = {3, 7u, {Y, "Lower bound parameter", "Upper bound parameter"}, {{0, CK_END}},
    discrete_range_e, discrete_range_check};

#define MODES(name) \
  static const cdf_fn f_##name##_lcdf = {&d_##name, M_LCDF}, f_##name##_lccdf = {&d_##name, M_LCCDF}, \
    f_##name##_cdf = {&d_##name, M_CDF};
MODES(pareto_type_2) MODES(skew_double_exponential) MODES(von_mises) MODES(beta_binomial) MODES(neg_binomial) MODES(beta_neg_binomial) MODES(yule_simon)
MODES(discrete_range)
static const cdf_fn f_loglogistic_cdf = {&d_loglogistic, M_CDF},
  f_beta_proportion_lcdf = {&d_beta_proportion, M_LCDF}, f_beta_proportion_lccdf = {&d_beta_proportion, M_LCCDF};

#define ENTRIES(name, sig) \
  {#name "_lcdf", sig, tm_cdf_kernel, &f_##name##_lcdf}, \
  {#name "_lccdf", sig, tm_cdf_kernel, &f_##name##_lccdf}, \
  {#name "_cdf", sig, tm_cdf_kernel, &f_##name##_cdf}

#define SIG3 "real(reals, reals, reals)"
#define SIG4 "real(reals, reals, reals, reals)"

const tm_fn tm_fns_cdf2[] = {
  ENTRIES(pareto_type_2, SIG4), ENTRIES(skew_double_exponential, SIG4),
  {"loglogistic_cdf", SIG3, tm_cdf_kernel, &f_loglogistic_cdf},
  {"beta_proportion_lcdf", SIG3, tm_cdf_kernel, &f_beta_proportion_lcdf},
  {"beta_proportion_lccdf", SIG3, tm_cdf_kernel, &f_beta_proportion_lccdf},
  ENTRIES(von_mises, SIG3),
  ENTRIES(beta_binomial, "real(ints, ints, reals, reals)"),
  ENTRIES(neg_binomial, "real(ints, reals, reals)"),
  ENTRIES(beta_neg_binomial, "real(ints, reals, reals, reals)"),
  ENTRIES(yule_simon, "real(ints, reals)"),
  ENTRIES(discrete_range, "real(ints, ints, ints)"),
  {NULL, NULL, NULL, NULL}
};
