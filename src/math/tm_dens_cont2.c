/*
** tm_dens_cont2.c -- more univariate continuous densities: gumbel, pareto,
** frechet, rayleigh, chi_square, inv_chi_square, scaled_inv_chi_square,
** skew_normal, exp_mod_normal, von_mises, beta_proportion, and wiener
** (its own kernel: five arguments and a truncated series).
**
** Each is a tm_dens_def (tm_dens_def.h) run by the generic density kernel of
** tm_dens_cont.c: Stan's argument names and checks, and a body that sums
** the log density over the broadcast and writes the partials.  As there,
** a term is added only when tm_dens_keep says an argument it depends on is
** not constant, so propto drops what Stan's include_summand drops; the
** partials are always the full derivatives.
*/
#include <math.h>
#include <stdio.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_special_dist.h"
#include "tm_dens_def.h"
#include "tm_cdf.h"

#define B(i) (1u << (i))
/* element j of argument i, broadcast */
#define X(D, i, j) ((D)->x[i][(j) * (D)->inc[i]])

static int any_at_most(const tm_dens *D, int i, double lo, int strict) {
  size_t m = D->inc[i] ? D->n : 1;
  for (size_t k = 0; k < m; k++) {
    double v = D->x[i][k];
    if (v < lo || (strict && v == lo)) return 1;
  }
  return 0;
}

/* gumbel(y | mu, beta) = exp(-z - exp(-z)) / beta, z = (y - mu) / beta */
static int gumbel_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_all = tm_dens_keep(D, 7u), k_b = tm_dens_keep(D, B(2));
  for (size_t j = 0; j < D->n; j++) {
    double b = X(D, 2, j), z = (X(D, 0, j) - X(D, 1, j)) / b, e = exp(-z);
    if (k_all) lp -= z + e;
    if (k_b) lp -= log(b);
    double gz = (e - 1) / b;
    tm_dens_add(D, 0, j, gz);
    tm_dens_add(D, 1, j, -gz);
    tm_dens_add(D, 2, j, -1 / b - z * gz);
  }
  *logp = lp;
  return AD_OK;
}

/* pareto(y | y_min, alpha) = alpha y_min^alpha / y^(alpha + 1), y >= y_min */
static int pareto_body(tm_dens *D, double *logp) {
  for (size_t j = 0; j < D->n; j++)
    if (X(D, 0, j) < X(D, 1, j)) { *logp = -INFINITY; return AD_OK; }
  double lp = 0;
  int k_a = tm_dens_keep(D, B(2)), k_ma = tm_dens_keep(D, B(1) | B(2)), k_ya = tm_dens_keep(D, B(0) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), m = X(D, 1, j), a = X(D, 2, j), ly = log(y), lm = log(m);
    if (k_a) lp += log(a);
    if (k_ma) lp += a * lm;
    if (k_ya) lp -= (a + 1) * ly;
    tm_dens_add(D, 0, j, -(a + 1) / y);
    tm_dens_add(D, 1, j, a / m);
    tm_dens_add(D, 2, j, 1 / a + lm - ly);
  }
  *logp = lp;
  return AD_OK;
}

/* frechet(y | alpha, sigma) = alpha / sigma (y / sigma)^(-1 - alpha) exp(-(y / sigma)^-alpha) */
static int frechet_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_a = tm_dens_keep(D, B(1)), k_as = tm_dens_keep(D, B(1) | B(2)), k_ya = tm_dens_keep(D, B(0) | B(1));
  int k_all = tm_dens_keep(D, 7u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), a = X(D, 1, j), s = X(D, 2, j), ly = log(y), ls = log(s);
    double p = pow(s / y, a);
    if (k_a) lp += log(a);
    if (k_as) lp += a * ls;
    if (k_ya) lp -= (1 + a) * ly;
    if (k_all) lp -= p;
    tm_dens_add(D, 0, j, (a * p - 1 - a) / y);
    tm_dens_add(D, 1, j, 1 / a + (ls - ly) * (1 - p));
    tm_dens_add(D, 2, j, a * (1 - p) / s);
  }
  *logp = lp;
  return AD_OK;
}

/* rayleigh(y | sigma) = y / sigma^2 exp(-y^2 / (2 sigma^2)) */
static int rayleigh_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_s = tm_dens_keep(D, B(1)), k_y = tm_dens_keep(D, B(0)), k_all = tm_dens_keep(D, 3u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), s = X(D, 1, j), r = y / s;
    if (k_s) lp -= 2 * log(s);
    if (k_y) lp += log(y);
    if (k_all) lp -= 0.5 * r * r;
    tm_dens_add(D, 0, j, 1 / y - r / s);
    tm_dens_add(D, 1, j, (r * r - 2) / s);
  }
  *logp = lp;
  return AD_OK;
}

/* chi_square(y | nu) = y^(nu/2 - 1) exp(-y/2) / (2^(nu/2) Gamma(nu/2)) */
static int chi_square_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_n = tm_dens_keep(D, B(1)), k_yn = tm_dens_keep(D, 3u), k_y = tm_dens_keep(D, B(0));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), h = 0.5 * X(D, 1, j), ly = log(y);
    if (k_n) lp -= tm_lgamma(h) + h * TM_LOG_2;
    if (k_yn) lp += (h - 1) * ly;
    if (k_y) lp -= 0.5 * y;
    tm_dens_add(D, 0, j, (h - 1) / y - 0.5);
    if (D->d[1]) tm_dens_add(D, 1, j, 0.5 * (ly - TM_LOG_2 - tm_digamma(h)));
  }
  *logp = lp;
  return AD_OK;
}

/* inv_chi_square(y | nu) = 2^(-nu/2) / Gamma(nu/2) y^(-nu/2 - 1) exp(-1 / (2y)); y <= 0 gives log(0) */
static int inv_chi_square_body(tm_dens *D, double *logp) {
  if (any_at_most(D, 0, 0, 1)) { *logp = -INFINITY; return AD_OK; }
  double lp = 0;
  int k_n = tm_dens_keep(D, B(1)), k_yn = tm_dens_keep(D, 3u), k_y = tm_dens_keep(D, B(0));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), h = 0.5 * X(D, 1, j), ly = log(y);
    if (k_n) lp -= tm_lgamma(h) + h * TM_LOG_2;
    if (k_yn) lp -= (h + 1) * ly;
    if (k_y) lp -= 0.5 / y;
    tm_dens_add(D, 0, j, -(h + 1) / y + 0.5 / (y * y));
    if (D->d[1]) tm_dens_add(D, 1, j, -0.5 * (TM_LOG_2 + tm_digamma(h) + ly));
  }
  *logp = lp;
  return AD_OK;
}

/* scaled_inv_chi_square(y | nu, s); y <= 0 gives log(0) */
static int scaled_inv_chi_square_body(tm_dens *D, double *logp) {
  if (any_at_most(D, 0, 0, 1)) { *logp = -INFINITY; return AD_OK; }
  double lp = 0;
  int k_n = tm_dens_keep(D, B(1)), k_ns = tm_dens_keep(D, B(1) | B(2)), k_yn = tm_dens_keep(D, B(0) | B(1));
  int k_all = tm_dens_keep(D, 7u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), nu = X(D, 1, j), s = X(D, 2, j), h = 0.5 * nu, ly = log(y), ls = log(s);
    if (k_n) lp += h * log(h) - tm_lgamma(h);
    if (k_ns) lp += nu * ls;
    if (k_yn) lp -= (h + 1) * ly;
    if (k_all) lp -= h * s * s / y;
    tm_dens_add(D, 0, j, -(h + 1) / y + h * s * s / (y * y));
    if (D->d[1]) tm_dens_add(D, 1, j, 0.5 * log(h) + 0.5 - 0.5 * tm_digamma(h) + ls - 0.5 * ly - 0.5 * s * s / y);
    tm_dens_add(D, 2, j, nu / s - nu * s / y);
  }
  *logp = lp;
  return AD_OK;
}

/* skew_normal(y | xi, omega, alpha) = 2 / omega phi(z) Phi(alpha z), z = (y - xi) / omega */
static int skew_normal_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_o = tm_dens_keep(D, B(2)), k_z = tm_dens_keep(D, 7u), k_all = tm_dens_keep(D, 15u);
  for (size_t j = 0; j < D->n; j++) {
    double o = X(D, 2, j), al = X(D, 3, j), z = (X(D, 0, j) - X(D, 1, j)) / o, u = al * z;
    if (k_c) lp += TM_LOG_2 - TM_LOG_SQRT_2PI;
    if (k_o) lp -= log(o);
    if (k_z) lp -= 0.5 * z * z;
    if (k_all) lp += tm_log_Phi(u);
    double r = tm_dlog_Phi(u), gz = -z + al * r;
    tm_dens_add(D, 0, j, gz / o);
    tm_dens_add(D, 1, j, -gz / o);
    tm_dens_add(D, 2, j, -1 / o - z * gz / o);
    tm_dens_add(D, 3, j, z * r);
  }
  *logp = lp;
  return AD_OK;
}

/* exp_mod_normal(y | mu, sigma, lambda)
**   = lambda exp(lambda (mu - y) + lambda^2 sigma^2 / 2) Phi((y - mu) / sigma - lambda sigma) */
static int exp_mod_normal_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_l = tm_dens_keep(D, B(3)), k_all = tm_dens_keep(D, 15u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), s = X(D, 2, j), l = X(D, 3, j);
    double v = (y - mu) / s - l * s;
    if (k_l) lp += log(l);
    if (k_all) lp += l * (mu - y) + 0.5 * l * l * s * s + tm_log_Phi(v);
    double r = tm_dlog_Phi(v);
    tm_dens_add(D, 0, j, -l + r / s);
    tm_dens_add(D, 1, j, l - r / s);
    tm_dens_add(D, 2, j, l * l * s - r * ((y - mu) / (s * s) + l));
    tm_dens_add(D, 3, j, 1 / l + mu - y + l * s * s - r * s);
  }
  *logp = lp;
  return AD_OK;
}

/* log I0(k) and I1(k) / I0(k): the power series while it is cheap, the
** asymptotic series (terms falling below 1e-17 by k = 20 for k >= 50)
** beyond. */
void tm_bessel_i01(double k, double *log_i0, double *ratio) {
  if (k < 50) {
    double q = 0.25 * k * k, t = 1, s0 = 1, s1 = 0.5 * k, t1 = 0.5 * k;
    for (int m = 1; m < 500; m++) {
      t *= q / ((double)m * m);
      t1 *= q / ((double)m * (m + 1));
      s0 += t;
      s1 += t1;
      if (t <= 1e-17 * s0 && t1 <= 1e-17 * s1) break;
    }
    *log_i0 = log(s0);
    *ratio = s1 / s0;
    return;
  }
  /* I_v(k) ~ e^k / sqrt(2 pi k) sum_m (-1)^m a_m(v) / k^m,
  ** a_m(v) = prod_{i <= m} (4 v^2 - (2i - 1)^2) / (m! 8^m) */
  double s0 = 1, s1 = 1, a0 = 1, a1 = 1;
  for (int m = 1; m <= 30; m++) {
    double o = (2.0 * m - 1) * (2.0 * m - 1);
    a0 *= -(0 - o) / (m * 8.0 * k);
    a1 *= -(4 - o) / (m * 8.0 * k);
    s0 += a0;
    s1 += a1;
    if (fabs(a0) < 1e-17 * s0 && fabs(a1) < 1e-17 * fabs(s1)) break;
  }
  *log_i0 = k - 0.5 * log(2 * TM_PI * k) + log(s0);
  *ratio = s1 / s0;
}

/* von_mises(y | mu, kappa) = exp(kappa cos(y - mu)) / (2 pi I0(kappa)) */
static int von_mises_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_k = tm_dens_keep(D, B(2)), k_all = tm_dens_keep(D, 7u);
  for (size_t j = 0; j < D->n; j++) {
    double d = X(D, 0, j) - X(D, 1, j), k = X(D, 2, j), li0, r;
    tm_bessel_i01(k, &li0, &r);
    if (k_c) lp -= TM_LOG_2PI;
    if (k_k) lp -= li0;
    if (k_all) lp += k * cos(d);
    double g = -k * sin(d);
    tm_dens_add(D, 0, j, g);
    tm_dens_add(D, 1, j, -g);
    tm_dens_add(D, 2, j, cos(d) - r);
  }
  *logp = lp;
  return AD_OK;
}

/* beta_proportion(y | mu, kappa) = beta(y | mu kappa, (1 - mu) kappa) */
static int beta_proportion_body(tm_dens *D, double *logp) {
  size_t m = D->inc[1] ? D->n : 1;
  for (size_t k = 0; k < m; k++) {
    double mu = D->x[1][k];
    if (!(mu < 1)) {
      char at[32] = "";
      if (D->inc[1]) snprintf(at, sizeof at, "[%zu]", k + 1);
      return ad_fail(AD_EDOMAIN, "%s: Location parameter%s is %.17g, but must be less than 1", D->fn, at, mu);
    }
  }
  double lp = 0;
  int k_k = tm_dens_keep(D, B(2)), k_mk = tm_dens_keep(D, B(1) | B(2)), k_all = tm_dens_keep(D, 7u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), kap = X(D, 2, j), a = mu * kap, b = (1 - mu) * kap;
    double ly = log(y), l1y = log1p(-y);
    if (k_k) lp += tm_lgamma(kap);
    if (k_mk) lp -= tm_lgamma(a) + tm_lgamma(b);
    if (k_all) lp += (a - 1) * ly + (b - 1) * l1y;
    tm_dens_add(D, 0, j, (a - 1) / y - (b - 1) / (1 - y));
    if (D->d[1] || D->d[2]) {
      double da = tm_digamma(a), db = tm_digamma(b);
      tm_dens_add(D, 1, j, kap * (db - da + ly - l1y));
      tm_dens_add(D, 2, j, tm_digamma(kap) - mu * da - (1 - mu) * db + mu * ly + (1 - mu) * l1y);
    }
  }
  *logp = lp;
  return AD_OK;
}

/* ---- definitions: Stan's names and checks ---- */
#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"
#define DOF "Degrees of freedom parameter"

static const tm_dens_def
  d_gumbel = {3, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, 0, gumbel_body, 0},
  d_pareto = {3, {Y, SCALE, SHAPE}, {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, pareto_body, 0},
  d_frechet = {3, {Y, SHAPE, SCALE}, {{0, CK_POS}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, frechet_body, 0},
  d_rayleigh = {2, {Y, SCALE}, {{1, CK_POS}, {0, CK_POS}}, 0, rayleigh_body, 0},
  d_chi_square = {2, {Y, DOF}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, 0, chi_square_body, 0},
  d_inv_chi_square = {2, {Y, DOF}, {{1, CK_POS_FINITE}, {0, CK_NOT_NAN}}, 0, inv_chi_square_body, 0},
  d_scaled_inv_chi_square = {3, {Y, DOF, SCALE},
    {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, scaled_inv_chi_square_body, 0},
  d_skew_normal = {4, {Y, LOC, SCALE, SHAPE},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}, {3, CK_FINITE}}, 0, skew_normal_body, 0},
  d_exp_mod_normal = {4, {Y, LOC, SCALE, "Inv_scale parameter"},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, 0, exp_mod_normal_body, 0},
  d_von_mises = {3, {Y, LOC, SCALE}, {{0, CK_FINITE}, {1, CK_FINITE}, {2, CK_NONNEG}, {2, CK_FINITE}},
    0, von_mises_body, 0},
  d_beta_proportion = {3, {Y, LOC, "Precision parameter"},
    {{1, CK_POS}, {2, CK_POS_FINITE}, {0, CK_UNIT}}, 0, beta_proportion_body, 0};

/* wiener(y | alpha, tau, beta, delta): the first passage time of a Wiener
** diffusion at the upper boundary, by Navarro and Fuss's series truncated for
** an error of 1e-6, exactly as Stan (2.21 to today's four-argument form)
** computes it: the small-time or the large-time series, whichever needs
** fewer terms.  Stan differentiates the truncated series by autodiff; here
** its partials are written out, so they are the same numbers. */
static int k_wiener(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[5] = {"Random variable", "Boundary separation", "Nondecision time",
                                       "A-priori bias", "Drift rate"};
  const char *fn = c->fn->name;
  if (nargs == 6 || nargs == 7) return tm_wiener5_kernel(c, a, nargs, out);
  if (nargs != 5) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < 5; i++) {
    const tm_v *v = &a[i];
    if (!(v->base <= TM_REAL ? v->narr <= 1 : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0))
      return tm_no_overload(c, a, nargs);
  }
  tm_dens D;
  int rc = tm_dens_begin(&D, c, a, 5, names);
  if (rc) return rc;
  /* Stan's order: not NaN, finite, positive, bounded */
  if ((rc = tm_check_not_nan(fn, names[0], &a[0])) || (rc = tm_check_not_nan(fn, names[1], &a[1])) ||
      (rc = tm_check_not_nan(fn, names[3], &a[3])) || (rc = tm_check_not_nan(fn, names[2], &a[2])) ||
      (rc = tm_check_not_nan(fn, names[4], &a[4])) || (rc = tm_check_finite(fn, names[1], &a[1])) ||
      (rc = tm_check_finite(fn, names[3], &a[3])) || (rc = tm_check_finite(fn, names[2], &a[2])) ||
      (rc = tm_check_finite(fn, names[4], &a[4])) || (rc = tm_check_positive(fn, names[0], &a[0])) ||
      (rc = tm_check_positive(fn, names[1], &a[1])) || (rc = tm_check_positive(fn, names[2], &a[2])) ||
      (rc = tm_check_bounded(fn, names[3], &a[3], 0, 1)))
    return rc;
  if (D.n == 0) return tm_dens_end(&D, 0.0, out);
  for (size_t j = 0; j < D.n; j++)
    if (X(&D, 0, j) <= X(&D, 2, j))
      return ad_fail(AD_EDOMAIN, "%s: Random variable  = %g, but must be greater than nondecision time = %g",
                     fn, X(&D, 0, j), X(&D, 2, j));
  if (!tm_dens_keep(&D, 31u)) return tm_dens_end(&D, 0.0, out);
  const double pi = 3.14159265358979323846, err = 0.000001;
  const double log_pi = log(pi), log_sqrt_pi = 0.5 * log_pi, sqrt_pi = sqrt(pi);
  const double pi_err = pi * err, log_pi_log_err = log_pi + log(err);
  const double two_sqrt2_sqrtpi_err = 2.0 * (sqrt(2.0) * sqrt_pi) * err;
  const double log2_half_log_sqrt_pi = log(2.0) / 2 + log_sqrt_pi;
  const double half_pi2 = pi * pi * 0.5, two_log_sqrt_pi = 2.0 * log_sqrt_pi;
  double lp = 0;
  for (size_t j = 0; j < D.n; j++) {
    double y = X(&D, 0, j), al = X(&D, 1, j), tau = X(&D, 2, j), be = X(&D, 3, j), de = X(&D, 4, j);
    double w = 1.0 - be, al2 = al * al, x = (y - tau) / al2;
    double sqrt_x = sqrt(x), log_x = log(x), kmin_l = 1.0 / pi * sqrt_x, kl, ks, tmp = 0;
    double dt_dx, dt_dw;   /* partials of tmp */
    if (pi_err * x < 1) {
      kl = sqrt(-2.0 * sqrt_pi * (log_pi_log_err + log_x)) / sqrt_x;
      if (!(kl > kmin_l)) kl = kmin_l;
    } else {
      kl = kmin_l;
    }
    double e0 = two_sqrt2_sqrtpi_err * sqrt_x;
    if (e0 < 1) {
      ks = 2.0 + sqrt_x * sqrt(-2 * log(e0));
      if (!(ks > sqrt_x + 1.0)) ks = sqrt_x + 1.0;
    } else {
      ks = 2.0;
    }
    if (ks < kl) {   /* small time */
      double K = ceil(ks), h = (K - 1.0) / 2.0, hi = ceil(h), sx = 0, sw = 0;
      for (double k = -floor(h); k <= hi; k++) {
        double u = w + 2.0 * k, e = exp(-(u * u) * 0.5 / x);
        tmp += u * e;
        sx += u * e * (u * u) * 0.5 / (x * x);
        sw += e * (1.0 - u * u / x);
      }
      dt_dx = sx / tmp - 1.5 / x;
      dt_dw = sw / tmp;
      tmp = log(tmp) - log2_half_log_sqrt_pi - 1.5 * log_x;
    } else {         /* large time */
      double K = ceil(kl), sx = 0, sw = 0;
      for (double k = 1; k <= K; ++k) {
        double e = exp(-(k * k) * (half_pi2 * x)), sn = sin(k * pi * w), cs = cos(k * pi * w);
        tmp += k * e * sn;
        sx += k * e * sn * (-(k * k) * half_pi2);
        sw += k * e * cs * (k * pi);
      }
      dt_dx = sx / tmp;
      dt_dw = sw / tmp;
      tmp = log(tmp) + two_log_sqrt_pi;
    }
    lp += de * al * w - de * de * x * al2 / 2.0 - log(al2) + tmp;
    tm_dens_add(&D, 0, j, -de * de / 2.0 + dt_dx / al2);
    tm_dens_add(&D, 1, j, de * w - 2.0 / al - dt_dx * 2.0 * x / al);
    tm_dens_add(&D, 2, j, de * de / 2.0 - dt_dx / al2);
    tm_dens_add(&D, 3, j, -(de * al + dt_dw));
    tm_dens_add(&D, 4, j, al * w - de * x * al2);
  }
  return tm_dens_end(&D, lp, out);
}

#define SIG2 "real(reals, reals)"
#define SIG3 "real(reals, reals, reals)"
#define SIG4 "real(reals, reals, reals, reals)"

const tm_fn tm_fns_dens_cont2[] = {
  {"gumbel_lpdf", SIG3, tm_dens_def_kernel, &d_gumbel},
  {"pareto_lpdf", SIG3, tm_dens_def_kernel, &d_pareto},
  {"frechet_lpdf", SIG3, tm_dens_def_kernel, &d_frechet},
  {"rayleigh_lpdf", SIG2, tm_dens_def_kernel, &d_rayleigh},
  {"chi_square_lpdf", SIG2, tm_dens_def_kernel, &d_chi_square},
  {"inv_chi_square_lpdf", SIG2, tm_dens_def_kernel, &d_inv_chi_square},
  {"scaled_inv_chi_square_lpdf", SIG3, tm_dens_def_kernel, &d_scaled_inv_chi_square},
  {"skew_normal_lpdf", SIG4, tm_dens_def_kernel, &d_skew_normal},
  {"exp_mod_normal_lpdf", SIG4, tm_dens_def_kernel, &d_exp_mod_normal},
  {"von_mises_lpdf", SIG3, tm_dens_def_kernel, &d_von_mises},
  {"beta_proportion_lpdf", SIG3, tm_dens_def_kernel, &d_beta_proportion},
  {"wiener_lpdf", "real(reals, reals, reals, reals, reals); real(real, real, real, real, real, real); "
   "real(real, real, real, real, real, real, real); real(vector, vector, vector, vector, vector, vector); "
   "real(vector, vector, vector, vector, vector, vector, real)", k_wiener, NULL},
  {NULL, NULL, NULL, NULL}
};
