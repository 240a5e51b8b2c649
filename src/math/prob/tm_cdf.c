/*
** tm_cdf.c -- cumulative distribution functions: X_cdf, X_lcdf and X_lccdf
** of the univariate distributions, for truncation (y ~ normal(mu, s) T[L, U])
** and censoring.
**
** Each distribution is one function that returns, for one element of the
** broadcast, log F or log(1 - F) and the partials of that log in each
** argument; one kernel runs it over the broadcast on the density frame
** (tm_dens: broadcasting, one node per call) and forms what Stan returns
** for containers: the sum of the logs for _lcdf and _lccdf, the product of
** the cdfs for _cdf (whose partials are the product times the log partials).
**
** The tails are what truncation needs, so each function takes the form that
** keeps its digits there: log Phi through erfcx, Cauchy's cdf as an atan2
** angle, log1m_exp for 1 - exp(-u), the incomplete gamma and beta functions
** as logs.  An element outside the support gives log(0) = -inf for the
** call, with zero partials, as Stan's explicit returns do.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_def.h"
#include "tm_cdf.h"
#include <stdio.h>

/* cdf_def, cdf_fn, the modes: tm_cdf.h */

static int check_types(const char *fn, const cdf_def *f, const tm_v *a, int nargs) {
  char buf[64];
  if (nargs != f->nargs)
    return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, f->nargs, nargs);
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    if (f->ints >> i & 1u) {
      if (v->base != TM_INT || v->narr > 1)
        return ad_fail(AD_EINVALID, "%s: %s has type %s, but must be int or array[] int", fn,
                       f->names[i], tm_type_name(v, buf, sizeof buf));
      continue;
    }
    int ok = v->base <= TM_REAL ? v->narr <= 1
           : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0;
    if (!ok)
      return ad_fail(AD_EINVALID, "%s: %s has type %s, but must be real, array[] real, vector or row_vector",
                     fn, f->names[i], tm_type_name(v, buf, sizeof buf));
  }
  return AD_OK;
}

static void zero_partials(tm_dens *D) {
  for (int i = 0; i < D->nargs; i++)
    if (D->d[i]) memset(D->d[i], 0, (tm_is_scalar(&D->a[i]) ? 1 : D->n) * sizeof(double));
}

int tm_cdf_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const cdf_fn *F = c->fn->data;
  const cdf_def *f = F->def;
  int rc = check_types(c->fn->name, f, a, nargs);
  if (rc) return rc;
  tm_dens D;
  if ((rc = tm_dens_begin(&D, c, a, nargs, f->names))) return rc;
  if ((rc = tm_dens_run_checks(&D, f->names, f->checks))) return rc;
  if (f->check && (rc = f->check(&D))) return rc;
  int upper = F->mode == M_LCCDF, dep = 0;
  for (int i = 0; i < nargs; i++) dep |= a[i].dep;
  double s = 0, x[4], d[4];
  for (size_t j = 0; j < D.n && s > -INFINITY; j++) {
    for (int i = 0; i < nargs; i++) { x[i] = D.x[i][j * D.inc[i]]; d[i] = 0; }
    s += f->f(x, upper, d);
    for (int i = 0; i < nargs; i++) tm_dens_add(&D, i, j, d[i]);
  }
  if (s == -INFINITY) zero_partials(&D);
  if (F->mode == M_CDF) {
    s = exp(s);                /* Stan: the product of the cdfs; 1 when empty */
    for (int i = 0; i < nargs; i++)
      if (D.d[i]) {
        size_t m = tm_is_scalar(&a[i]) ? 1 : D.n;
        for (size_t k = 0; k < m; k++) D.d[i][k] *= s;
      }
  }
  rc = tm_dens_end(&D, s, out);
  if (!rc && !out->adj) out->dep = (unsigned char)dep;
  return rc;
}

/* log(1 - A) from v = log A and its partials d[0..n-1], in place */
double tm_cdf_complement(double v, double *d, int n) {
  if (v == -INFINITY) { for (int i = 0; i < n; i++) d[i] = 0; return 0; }
  double w = tm_log1m_exp(v), r = -exp(v - w);
  for (int i = 0; i < n; i++) d[i] = isfinite(r) ? d[i] * r : 0;
  return w;
}

/* ---- location-scale families: g = d(log value) / dz, z = (y - mu) / sigma ---- */

static void loc_scale(double g, double z, double sigma, double *d) {
  if (g == 0) return;          /* z may be infinite there */
  d[0] = g / sigma;
  d[1] = -g / sigma;
  d[2] = -g * z / sigma;
}

static double normal_z(double z, int upper, double *g) {
  if (upper) { *g = -tm_dlog_Phi(-z); return tm_log_Phi(-z); }
  *g = tm_dlog_Phi(z);
  return tm_log_Phi(z);
}

static double normal_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2], g, v = normal_z(z, upper, &g);
  loc_scale(g, z, x[2], d);
  return v;
}

static double std_normal_e(const double *x, int upper, double *d) {
  double g, v = normal_z(x[0], upper, &g);
  d[0] = g;
  return v;
}

static double lognormal_e(const double *x, int upper, double *d) {
  double y = x[0];
  if (y == 0) return upper ? 0 : -INFINITY;
  double z = (log(y) - x[1]) / x[2], g, v = normal_z(z, upper, &g);
  loc_scale(g, z, x[2], d);
  if (g != 0) d[0] /= y;
  return v;
}

/* F = atan2(1, -z) / pi: 1/2 + atan(z) / pi without its cancellation for z << 0 */
static double cauchy_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2];
  double p = atan2(1, upper ? z : -z) / TM_PI;
  double g = 1 / (TM_PI * (1 + z * z) * p);
  loc_scale(upper ? -g : g, z, x[2], d);
  return log(p);
}

static double logistic_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2];
  if (upper) {
    loc_scale(-tm_inv_logit(z), z, x[2], d);
    return tm_log1m_inv_logit(z);
  }
  loc_scale(tm_inv_logit(-z), z, x[2], d);
  return tm_log_inv_logit(z);
}

/* F = exp(z) / 2 below mu, 1 - exp(-z) / 2 above */
static double double_exponential_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2], v, g;
  if ((z < 0) != upper) {      /* the tail: log(1/2) + -|z| */
    v = -TM_LOG_2 - fabs(z);
    g = upper ? -1 : 1;
  } else {                     /* log(1 - exp(-|z|) / 2) */
    double e = exp(-fabs(z));
    v = log1p(-0.5 * e);
    g = e / (2 - e) * (upper ? -1 : 1);
  }
  loc_scale(g, z, x[2], d);
  return v;
}

/* F = exp(-exp(-z)) */
static double gumbel_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2], e = exp(-z), v, g;
  if (!upper) { v = -e; g = e; }
  else {
    v = tm_log1m_exp(-e);
    g = isinf(e) ? 0 : e == 0 ? 0 : -e / expm1(e);
  }
  loc_scale(g, z, x[2], d);
  return v;
}

/* ---- 1 - exp(-u) families: lcdf = log1m_exp(-u), lccdf = -u ---- */

/* value and d(value)/du */
static double one_minus_exp(double u, int upper, double *g) {
  if (upper) { *g = -1; return -u; }
  *g = isinf(u) ? 0 : 1 / expm1(u);
  return tm_log1m_exp(-u);
}

static double exponential_e(const double *x, int upper, double *d) {
  double y = x[0], b = x[1], g, v = one_minus_exp(b * y, upper, &g);
  if (g != 0) { d[0] = g * b; d[1] = g * y; }
  return v;
}

/* u = (y / sigma)^alpha */
static double weibull_e(const double *x, int upper, double *d) {
  double y = x[0], al = x[1], s = x[2];
  if (y == 0) return upper ? 0 : -INFINITY;
  double u = pow(y / s, al), g, v = one_minus_exp(u, upper, &g);
  if (g != 0 && isfinite(u)) {
    d[0] = g * al * u / y;
    d[1] = g * u * log(y / s);
    d[2] = -g * al * u / s;
  }
  return v;
}

/* u = y^2 / (2 sigma^2) */
static double rayleigh_e(const double *x, int upper, double *d) {
  double y = x[0], s = x[1];
  if (y == 0) return upper ? 0 : -INFINITY;
  double r = y / s, u = 0.5 * r * r, g, v = one_minus_exp(u, upper, &g);
  if (g != 0 && isfinite(u)) {
    d[0] = g * r / s;
    d[1] = -g * r * r / s;
  }
  return v;
}

/* 1 - F = (y_min / y)^alpha above y_min */
static double pareto_e(const double *x, int upper, double *d) {
  double y = x[0], ym = x[1], al = x[2];
  if (y < ym) return upper ? 0 : -INFINITY;
  if (isinf(y)) return upper ? -INFINITY : 0;
  double lr = log(ym / y), L = al * lr, g;
  double v = upper ? L : tm_log1m_exp(L);
  g = upper ? 1 : -1 / expm1(-L);
  if (isfinite(g)) {
    d[0] = -g * al / y;
    d[1] = g * al / ym;
    d[2] = g * lr;
  }
  return v;
}

static double uniform_e(const double *x, int upper, double *d) {
  double y = x[0], lo = x[1], hi = x[2], w = hi - lo;
  if (y < lo) return upper ? 0 : -INFINITY;
  if (y >= hi) return upper ? -INFINITY : 0;
  if (upper) {
    d[0] = -1 / (hi - y);
    d[1] = 1 / w;
    d[2] = 1 / (hi - y) - 1 / w;
    return log((hi - y) / w);
  }
  d[0] = 1 / (y - lo);
  d[1] = -1 / (y - lo) + 1 / w;
  d[2] = -1 / w;
  return log((y - lo) / w);
}

/* frechet: F = exp(-u), u = (sigma / y)^alpha */
static double frechet_e(const double *x, int upper, double *d) {
  double y = x[0], al = x[1], s = x[2];
  if (y == 0) return upper ? 0 : -INFINITY;
  double u = pow(s / y, al), v, g;
  if (upper) { v = tm_log1m_exp(-u); g = u == 0 ? 0 : isinf(u) ? 0 : 1 / expm1(u); }
  else { v = -u; g = -1; }
  if (g != 0 && isfinite(u)) {
    d[0] = -g * al * u / y;
    d[1] = g * u * log(s / y);
    d[2] = g * al * u / s;
  }
  return v;
}

/* ---- the incomplete gamma families: F = P(a, t) or Q(a, t) ---- */

/* log P(a, t) (lower = 1) or log Q(a, t) of the cdf, given which of them
** is the cdf; *ga and *gt the partials of the returned log in a and t */
static double inc_gamma(double a, double t, int upper, int cdf_is_p, double *ga, double *gt) {
  double lp, lq, g[4];
  tm_log_gamma_pq_grad(a, t, &lp, &lq, g);
  int want_p = cdf_is_p != upper;
  double v = want_p ? lp : lq;
  *ga = *gt = 0;
  if (isfinite(v)) {
    *ga = want_p ? g[0] : g[1];
    *gt = want_p ? g[2] : g[3];
  }
  return v;
}

/* gamma(y | alpha, beta): P(alpha, beta y) */
static double gamma_e(const double *x, int upper, double *d) {
  double y = x[0], a = x[1], b = x[2], ga, gt;
  double v = inc_gamma(a, b * y, upper, 1, &ga, &gt);
  d[0] = gt * b;
  d[1] = ga;
  d[2] = gt * y;
  return v;
}

/* inv_gamma(y | alpha, beta): Q(alpha, beta / y) */
static double inv_gamma_e(const double *x, int upper, double *d) {
  double y = x[0], a = x[1], b = x[2], ga, gt;
  if (y == 0) return upper ? 0 : -INFINITY;
  double v = inc_gamma(a, b / y, upper, 0, &ga, &gt);
  d[0] = -gt * b / (y * y);
  d[1] = ga;
  d[2] = gt / y;
  return v;
}

/* chi_square(y | nu): P(nu / 2, y / 2) */
static double chi_square_e(const double *x, int upper, double *d) {
  double ga, gt, v = inc_gamma(0.5 * x[1], 0.5 * x[0], upper, 1, &ga, &gt);
  d[0] = 0.5 * gt;
  d[1] = 0.5 * ga;
  return v;
}

/* inv_chi_square(y | nu): Q(nu / 2, 1 / (2 y)) */
static double inv_chi_square_e(const double *x, int upper, double *d) {
  double y = x[0], ga, gt;
  if (y == 0) return upper ? 0 : -INFINITY;
  double v = inc_gamma(0.5 * x[1], 0.5 / y, upper, 0, &ga, &gt);
  d[0] = -0.5 * gt / (y * y);
  d[1] = 0.5 * ga;
  return v;
}

/* scaled_inv_chi_square(y | nu, s): Q(nu / 2, nu s^2 / (2 y)) */
static double scaled_inv_chi_square_e(const double *x, int upper, double *d) {
  double y = x[0], nu = x[1], s = x[2], ga, gt;
  if (y == 0) return upper ? 0 : -INFINITY;
  double t = 0.5 * nu * s * s / y, v = inc_gamma(0.5 * nu, t, upper, 0, &ga, &gt);
  d[0] = -gt * t / y;
  d[1] = 0.5 * ga + gt * 0.5 * s * s / y;
  d[2] = gt * nu * s / y;
  return v;
}

/* ---- the incomplete beta families ---- */

/* beta(y | alpha, beta): I_y(alpha, beta) */
static double beta_e(const double *x, int upper, double *d) {
  double li, lj, g[6];
  tm_log_inc_beta_grad(x[1], x[2], x[0], 1 - x[0], &li, &lj, g);
  double v = upper ? lj : li;
  if (isfinite(v)) {
    d[0] = upper ? g[5] : g[4];
    d[1] = upper ? g[2] : g[0];
    d[2] = upper ? g[3] : g[1];
  }
  return v;
}

/* student_t(y | nu, mu, sigma): the tail J = P(T < -|z|) = I_x(nu / 2, 1 / 2) / 2,
** x = nu / (nu + z^2), whose complement 1 - x = z^2 / (nu + z^2) is formed
** directly so the centre keeps its digits; the partial in z is the density
** over the returned probability. */
static double student_t_e(const double *x, int upper, double *d) {
  double nu = x[1], s = x[3], z = (x[0] - x[2]) / s;
  if (isinf(z)) return (z < 0) == !upper ? -INFINITY : 0;
  double z2 = z * z, den = nu + z2, li, lj, g[6];
  tm_log_inc_beta_grad(0.5 * nu, 0.5, nu / den, z2 / den, &li, &lj, g);
  double L = li - TM_LOG_2, Lc = tm_log1m_exp(L);
  double dL = 0.5 * g[0] + (z2 == 0 ? 0 : g[4] * z2 / (den * den));    /* d L / d nu */
  int use_j = upper ? z >= 0 : z < 0;
  double v = use_j ? L : Lc;
  d[1] = use_j ? dL : -exp(L - Lc) * dL;
  double lf = tm_lgamma(0.5 * (nu + 1)) - tm_lgamma(0.5 * nu) - 0.5 * log(nu * TM_PI)
              - 0.5 * (nu + 1) * log1p(z2 / nu);
  double gz = (upper ? -1 : 1) * exp(lf - v);
  d[0] = gz / s;
  d[2] = -gz / s;
  d[3] = -gz * z / s;
  return v;
}

/* exp_mod_normal(y | mu, sigma, lambda): F = Phi(z) - E Phi(z - v) with
** z = (y - mu) / sigma, v = lambda sigma, E = exp(v^2 / 2 - lambda (y - mu)),
** evaluated as Stan does (through erf); the partials of F use the identity
** E phi(z - v) = phi(z). */
static double exp_mod_normal_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], s = x[2], l = x[3];
  if (isinf(y)) return (y < 0) == !upper ? -INFINITY : 0;
  double u = l * (y - mu), v = l * s, z = (y - mu) / s;
  double e1 = 0.5 * (1 + erf(u / (v * TM_SQRT2))), e2 = 0.5 * (1 + erf(u / (v * TM_SQRT2) - v / TM_SQRT2));
  double E = exp(-u + v * v * 0.5), EP = E * e2;
  double F = upper ? 1.0 - e1 + EP : e1 - EP;
  double phi = exp(-0.5 * z * z) / TM_SQRT_2PI;
  double dy = l * EP, dmu = -l * EP, ds = l * phi - l * l * s * EP, dl = EP * ((y - mu) - l * s * s) + s * phi;
  double sg = upper ? -1 / F : 1 / F;
  d[0] = sg * dy;
  d[1] = sg * dmu;
  d[2] = sg * ds;
  d[3] = sg * dl;
  return log(F);
}

/* skew_normal(y | xi, omega, alpha): F = Phi(z) - 2 T(z, alpha), T Owen's,
** z = (y - xi) / omega, as Stan writes it; dF/dz = 2 phi(z) Phi(alpha z) and
** dF/dalpha = -exp(-z^2 (1 + alpha^2) / 2) / (pi (1 + alpha^2)). */
static double skew_normal_e(const double *x, int upper, double *d) {
  double y = x[0], xi = x[1], om = x[2], al = x[3];
  if (isinf(y)) return (y < 0) == !upper ? -INFINITY : 0;
  double z = (y - xi) / om, t2 = 2 * tm_owens_t(z, al), ph = 0.5 * erfc(-z / TM_SQRT2);
  double F = upper ? 1.0 - ph + t2 : ph - t2;
  double dz = 2 * exp(-0.5 * z * z) / TM_SQRT_2PI * 0.5 * erfc(-al * z / TM_SQRT2);
  double da = -exp(-0.5 * z * z * (1 + al * al)) / (TM_PI * (1 + al * al));
  double sg = upper ? -1 / F : 1 / F;
  d[0] = sg * dz / om;
  d[1] = -sg * dz / om;
  d[2] = -sg * dz * z / om;
  d[3] = sg * da;
  return log(F);
}

/* ---- definitions: Stan's argument names and checks ---- */


static const cdf_def
  d_normal = {3, 0, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, normal_e, NULL},
  d_std_normal = {1, 0, {Y}, {{0, CK_NOT_NAN}}, std_normal_e, NULL},
  d_lognormal = {3, 0, {Y, LOC, SCALE}, {{0, CK_NONNEG}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, lognormal_e, NULL},
  d_cauchy = {3, 0, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, cauchy_e, NULL},
  d_logistic = {3, 0, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, logistic_e, NULL},
  d_double_exponential = {3, 0, {Y, LOC, SCALE},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, double_exponential_e, NULL},
  d_gumbel = {3, 0, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, gumbel_e, NULL},
  d_exponential = {2, 0, {Y, "Inverse scale parameter"}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, exponential_e, NULL},
  d_weibull = {3, 0, {Y, SHAPE, SCALE}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, weibull_e, NULL},
  d_rayleigh = {2, 0, {Y, SCALE}, {{0, CK_NONNEG}, {1, CK_POS}}, rayleigh_e, NULL},
  d_pareto = {3, 0, {Y, SCALE, SHAPE}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, pareto_e, NULL},
  d_uniform = {3, 0, {Y, "Lower bound parameter", "Upper bound parameter"},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_FINITE}, {2, CK_GREATER}}, uniform_e, NULL},
  d_frechet = {3, 0, {Y, SHAPE, SCALE}, {{0, CK_POS}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, frechet_e, NULL},
  d_gamma = {3, 0, {Y, SHAPE, "Inverse scale parameter"}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}},
    gamma_e, NULL},
  d_inv_gamma = {3, 0, {Y, SHAPE, SCALE}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, inv_gamma_e, NULL},
  d_chi_square = {2, 0, {Y, DOF}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, chi_square_e, NULL},
  d_inv_chi_square = {2, 0, {Y, DOF}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, inv_chi_square_e, NULL},
  d_scaled_inv_chi_square = {3, 0, {Y, DOF, SCALE}, {{0, CK_NONNEG}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}},
    scaled_inv_chi_square_e, NULL},
  d_beta = {3, 0, {Y, "First shape parameter", "Second shape parameter"},
    {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}, {0, CK_UNIT}}, beta_e, NULL},
  d_exp_mod_normal = {4, 0, {Y, LOC, SCALE, "Inv_scale parameter"},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, exp_mod_normal_e, NULL},
  d_skew_normal = {4, 0, {Y, LOC, SCALE, SHAPE},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}, {3, CK_FINITE}}, skew_normal_e, NULL},
  d_student_t = {4, 0, {Y, DOF, LOC, SCALE},
    {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_FINITE}, {3, CK_POS_FINITE}}, student_t_e, NULL};

MODES(normal) MODES(std_normal) MODES(lognormal) MODES(cauchy) MODES(logistic)
MODES(double_exponential) MODES(gumbel) MODES(exponential) MODES(weibull) MODES(rayleigh)
MODES(pareto) MODES(uniform) MODES(frechet) MODES(gamma) MODES(inv_gamma) MODES(chi_square)
MODES(inv_chi_square) MODES(scaled_inv_chi_square) MODES(beta) MODES(student_t) MODES(exp_mod_normal) MODES(skew_normal)


#define SIG1 "real(reals)"
#define SIG2 "real(reals, reals)"
#define SIG3 "real(reals, reals, reals)"

/*
** More _cdf, _lcdf and _lccdf on the same kernel:
** pareto_type_2, skew_double_exponential, loglogistic (_cdf only, as Stan),
** beta_proportion (_lcdf, _lccdf, as Stan), von_mises.  (The discrete
** families' cdfs are in their files: tm_bernoulli.c, tm_poisson.c, ...)
**
** Each element function returns log F or log(1 - F) and that log's
** partials.  Where one side has a closed form the other is its complement
** by log1m_exp (tm_cdf_complement).
*/

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
  return upper ? v : tm_cdf_complement(v, d, 4);
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
  return lower_side == !upper ? v : tm_cdf_complement(v, d, 4);
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

/* ---- definitions ---- */

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
    von_mises_check};

MODES(pareto_type_2) MODES(skew_double_exponential) MODES(von_mises)
static const cdf_fn f_loglogistic_cdf = {&d_loglogistic, M_CDF},
  f_beta_proportion_lcdf = {&d_beta_proportion, M_LCDF}, f_beta_proportion_lccdf = {&d_beta_proportion, M_LCCDF};

#define SIG3 "real(reals, reals, reals)"
#define SIG4 "real(reals, reals, reals, reals)"

const tm_fn tm_fns_cdf[] = {
  ENTRIES(normal, SIG3), ENTRIES(std_normal, SIG1), ENTRIES(lognormal, SIG3),
  ENTRIES(cauchy, SIG3), ENTRIES(logistic, SIG3), ENTRIES(double_exponential, SIG3),
  ENTRIES(gumbel, SIG3), ENTRIES(exponential, SIG2), ENTRIES(weibull, SIG3),
  ENTRIES(rayleigh, SIG2), ENTRIES(pareto, SIG3), ENTRIES(uniform, SIG3), ENTRIES(frechet, SIG3),
  ENTRIES(gamma, SIG3), ENTRIES(inv_gamma, SIG3), ENTRIES(chi_square, SIG2), ENTRIES(inv_chi_square, SIG2),
  ENTRIES(scaled_inv_chi_square, SIG3), ENTRIES(beta, SIG3),
  ENTRIES(student_t, "real(reals, reals, reals, reals)"),
  ENTRIES(exp_mod_normal, "real(reals, reals, reals, reals)"),
  ENTRIES(skew_normal, "real(reals, reals, reals, reals)"),
  ENTRIES(pareto_type_2, SIG4), ENTRIES(skew_double_exponential, SIG4),
  {"loglogistic_cdf", SIG3, tm_cdf_kernel, &f_loglogistic_cdf},
  {"beta_proportion_lcdf", SIG3, tm_cdf_kernel, &f_beta_proportion_lcdf},
  {"beta_proportion_lccdf", SIG3, tm_cdf_kernel, &f_beta_proportion_lccdf},
  ENTRIES(von_mises, SIG3),
  {NULL, NULL, NULL, NULL}
};
