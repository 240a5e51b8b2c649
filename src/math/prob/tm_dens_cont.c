/*
** tm_dens_cont.c -- univariate continuous densities (normal_lpdf ... uniform_lpdf).
**
** One generic kernel serves every density: a dens_def (the kernel's `data`)
** names the arguments as Stan's messages do, lists the argument checks in
** Stan's order, and points at a body that sums the log density over the
** broadcast and accumulates the partials on the tm_dens frame.  Each body
** mirrors its Stan Math counterpart term by term: a term is added only when
** tm_dens_keep says an argument it depends on is not constant, so propto
** drops exactly what Stan's include_summand drops.  The partials are always
** the full analytic derivatives: a dropped term depends only on constants
** and contributes nothing to them.
**
** Terms that depend on one argument only (lgamma(alpha), log(sigma)) are
** evaluated once per element of that argument and scaled by how often the
** broadcast repeats it, as Stan does, so a scalar shape costs one lgamma.
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_dens_def.h"
#include "../tm_special_dist.h"
#include "tm_cdf.h"

/* the definitions and their checks live in tm_dens_def.h, shared with the cdfs */
typedef tm_dens_def dens_def;
typedef tm_dens_check dens_check;

static int run_checks(const dens_def *f, const tm_dens *D) {
  return tm_dens_run_checks(D, f->names, f->checks);
}

/* `reals`: int, real, a 1-d array of them, vector or row vector. */
static int check_reals(const char *fn, const tm_v *a, int nargs) {
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    int ok = v->base <= TM_REAL ? v->narr <= 1
           : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0;
    if (!ok) {
      char buf[64];
      return ad_fail(AD_EINVALID, "%s: argument %d has type %s, but must be real, array[] real, vector or row_vector",
                     fn, i + 1, tm_type_name(v, buf, sizeof buf));
    }
  }
  return AD_OK;
}

static int dens_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (!c->fn || !c->fn->data) return ad_fail(AD_EINVALID, "density kernel called without its definition");
  const dens_def *f = c->fn->data;
  const char *name = c->fn->name;
  if (nargs != f->nargs)
    return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", name, f->nargs, nargs);
  int rc = check_reals(name, a, nargs);
  if (rc) return rc;
  tm_dens D;
  rc = f->assigns ? tm_dens_begin_assign(&D, c, a, nargs, f->names)
                  : tm_dens_begin(&D, c, a, nargs, f->names);
  if (rc) return rc;
  if (!f->late_checks && (rc = run_checks(f, &D))) return rc;
  /* Stan: an empty argument, or (under propto) no argument that is not
  ** constant, gives 0 */
  if (D.n == 0 || !tm_dens_keep(&D, (1u << nargs) - 1)) return tm_dens_end(&D, 0.0, out);
  if (f->late_checks && (rc = run_checks(f, &D))) return rc;
  double logp = 0;
  if ((rc = f->body(&D, &logp))) return rc;
  return tm_dens_end(&D, logp, out);
}

/* ---- helpers for the bodies ---- */

/* Elements of argument i that the broadcast visits (1 for a scalar), and how
** often each is repeated. */
static size_t len(const tm_dens *D, int i) { return tm_is_scalar(&D->a[i]) ? 1 : D->n; }
static double rep(const tm_dens *D, int i) { return (double)D->n / (double)len(D, i); }
static double at(const tm_dens *D, int i, size_t j) { return tm_get(&D->a[i], j); }
static int ad(const tm_dens *D, int i) { return D->d[i] != NULL; }

/* Add sum_k g(a_i[k]) * rep to *logp: a term of one argument. */
static void add_unary(tm_dens *D, int i, double (*g)(double), double *logp) {
  size_t m = len(D, i);
  double s = 0;
  for (size_t k = 0; k < m; k++) s += g(at(D, i, k));
  *logp += s * rep(D, i);
}

/* g(a_i[k]) for each element of argument i, computed once (lgamma, digamma
** of a scalar shape); index with idx(). */
static double *per_elem(const tm_dens *D, int i, double (*g)(double)) {
  size_t m = len(D, i);
  double *v = ad_alloc_doubles(m ? m : 1);
  if (!v) return NULL;
  for (size_t k = 0; k < m; k++) v[k] = g(at(D, i, k));
  return v;
}
static size_t idx(const tm_dens *D, int i, size_t j) { return tm_is_scalar(&D->a[i]) ? 0 : j; }

/* Any element of argument i below lo (or at lo when `or_equal`)?  Stan then
** returns LOG_ZERO with zero partials. */
static int any_below(const tm_dens *D, int i, double lo, int or_equal) {
  size_t m = len(D, i);
  for (size_t k = 0; k < m; k++) {
    double x = at(D, i, k);
    if (x < lo || (or_equal && x == lo)) return 1;
  }
  return 0;
}

static double neg_log(double x) { return -log(x); }
static double neg_lgamma(double x) { return -tm_lgamma(x); }
static double log_fn(double x) { return log(x); }
static double digamma_fn(double x) { return tm_digamma(x); }

#define B(i) (1u << (i))

/* ---- the densities ---- */

/* normal(y | mu, sigma).  The hot density of most models, so it reads the
** arguments through strided pointers and keeps the partials of scalar
** arguments in registers instead of going through tm_dens_add. */
static int normal_body(tm_dens *D, double *logp) {
  const double *y = D->x[0], *mu = D->x[1], *sg = D->x[2];
  const size_t iy = D->inc[0], imu = D->inc[1], is = D->inc[2], n = D->n;
  double *dy = D->d[0], *dmu = D->d[1], *ds = D->d[2];
  double zz = 0, gy = 0, gmu = 0, gs = 0, sum_log_s = 0;
  if (is == 0) {
    const double inv_s = 1 / sg[0];
    for (size_t j = 0; j < n; j++) {
      double z = (y[j * iy] - mu[j * imu]) * inv_s, g = z * inv_s;
      zz += z * z;
      if (dy) { if (iy) dy[j] = -g; else gy -= g; }
      if (dmu) { if (imu) dmu[j] = g; else gmu += g; }
    }
    gs = (zz - (double)n) * inv_s;
    sum_log_s = (double)n * log(sg[0]);
  } else {
    for (size_t j = 0; j < n; j++) {
      double inv_s = 1 / sg[j], z = (y[j * iy] - mu[j * imu]) * inv_s, g = z * inv_s;
      zz += z * z;
      if (dy) { if (iy) dy[j] = -g; else gy -= g; }
      if (dmu) { if (imu) dmu[j] = g; else gmu += g; }
      if (ds) ds[j] = (z * z - 1) * inv_s;
      sum_log_s += log(sg[j]);
    }
  }
  if (dy && !iy) dy[0] = gy;
  if (dmu && !imu) dmu[0] = gmu;
  if (ds && !is) ds[0] = gs;
  double lp = -0.5 * zz;
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_SQRT_2PI * (double)n;
  if (tm_dens_keep(D, B(2))) lp -= sum_log_s;
  *logp = lp;
  return AD_OK;
}

/* std_normal(y) */
static int std_normal_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j);
    lp -= 0.5 * y * y;
    tm_dens_add(D, 0, j, -y);
  }
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_SQRT_2PI * (double)D->n;
  *logp = lp;
  return AD_OK;
}

static double student_nu_term(double nu) {
  return tm_lgamma(0.5 * nu + 0.5) - tm_lgamma(0.5 * nu) - 0.5 * log(nu);
}
static double student_nu_deriv(double nu) {
  return 0.5 * (tm_digamma(0.5 * nu + 0.5) - tm_digamma(0.5 * nu));
}

/* student_t(y | nu, mu, sigma) */
static int student_t_body(tm_dens *D, double *logp) {
  double lp = 0, *dg = NULL;
  if (ad(D, 1) && !(dg = per_elem(D, 1, student_nu_deriv))) return AD_EMEMORY;
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), nu = at(D, 1, j), mu = at(D, 2, j), s = at(D, 3, j);
    double r = (y - mu) / s;
    double q = r * r / nu;
    double l = log1p(q);
    lp -= (0.5 * nu + 0.5) * l;
    if (ad(D, 0) || ad(D, 2)) {
      double d = (nu + 1) * (y - mu) / ((1 + q) * s * s * nu);
      tm_dens_add(D, 0, j, -d);
      tm_dens_add(D, 2, j, d);
    }
    if (ad(D, 1) || ad(D, 3)) {
      double rd = (nu + 1) * q / (1 + q) - 1;
      if (ad(D, 1)) tm_dens_add(D, 1, j, dg[idx(D, 1, j)] + 0.5 * (rd / nu - l));
      tm_dens_add(D, 3, j, rd / s);
    }
  }
  if (tm_dens_keep(D, 0)) lp -= 0.5 * TM_LOG_PI * (double)D->n;
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, student_nu_term, &lp);
  if (tm_dens_keep(D, B(3))) add_unary(D, 3, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

/* cauchy(y | mu, sigma) */
static int cauchy_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double s = at(D, 2, j), d = at(D, 0, j) - at(D, 1, j);
    double r = d / s;
    lp -= log1p(r * r);
    double s2 = s * s, d2 = d * d;
    double dmu = 2 * d / (s2 + d2);
    tm_dens_add(D, 0, j, -dmu);
    tm_dens_add(D, 1, j, dmu);
    tm_dens_add(D, 2, j, (d2 - s2) / s / (s2 + d2));
  }
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_PI * (double)D->n;
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

/* double_exponential(y | mu, sigma) */
static int double_exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double inv_s = 1 / at(D, 2, j), d = at(D, 0, j) - at(D, 1, j);
    double sd = fabs(d) * inv_s;
    lp -= sd;
    double sign = (d > 0) - (d < 0);      /* Stan's sign(0) = 0 */
    tm_dens_add(D, 0, j, -sign * inv_s);
    tm_dens_add(D, 1, j, sign * inv_s);
    tm_dens_add(D, 2, j, inv_s * (sd - 1));
  }
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_2 * (double)D->n;
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

/* logistic(y | mu, sigma) */
static int logistic_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double inv_s = 1 / at(D, 2, j), d = at(D, 0, j) - at(D, 1, j);
    double z = d * inv_s;
    lp -= z + 2 * tm_log1p_exp(-z);
    /* Stan's 2 / (1 + exp(z)) - 1, as -tanh(z / 2): no overflow for large z;
    ** the mu partial is its negative (Stan's exp(mu / sigma) form overflows) */
    double dy = -tanh(0.5 * z) * inv_s;
    tm_dens_add(D, 0, j, dy);
    tm_dens_add(D, 1, j, -dy);
    tm_dens_add(D, 2, j, (-dy * d - 1) * inv_s);
  }
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

/* lognormal(y | mu, sigma).  Under propto -log(sqrt(2 pi)) is dropped, as
** Stan 2.21 does (include_summand<propto>), which the reference values of
** the shared models were computed with. */
static int lognormal_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) { *logp = -INFINITY; return AD_OK; }
  double lp = D->propto ? 0.0 : -TM_LOG_SQRT_2PI * (double)D->n;
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), inv_s = 1 / at(D, 2, j);
    double lm = log(y) - at(D, 1, j);
    double t = lm * inv_s * inv_s;
    lp -= 0.5 * lm * t;
    tm_dens_add(D, 0, j, -(1 + t) / y);
    tm_dens_add(D, 1, j, t);
    tm_dens_add(D, 2, j, (t * lm - 1) * inv_s);
  }
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_log, &lp);
  if (tm_dens_keep(D, B(0))) add_unary(D, 0, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

/* exponential(y | beta) */
static int exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  int keep_yb = tm_dens_keep(D, B(0) | B(1));
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), b = at(D, 1, j);
    if (keep_yb) lp -= b * y;
    tm_dens_add(D, 0, j, -b);
    tm_dens_add(D, 1, j, 1 / b - y);
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, log_fn, &lp);
  *logp = lp;
  return AD_OK;
}

/* gamma(y | alpha, beta); y < 0 gives LOG_ZERO as in Stan */
static int gamma_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 0)) { *logp = -INFINITY; return AD_OK; }
  double lp = 0, *dg = NULL;
  if (ad(D, 1) && !(dg = per_elem(D, 1, digamma_fn))) return AD_EMEMORY;
  int keep_ab = tm_dens_keep(D, B(1) | B(2)), keep_ya = tm_dens_keep(D, B(0) | B(1));
  int keep_yb = tm_dens_keep(D, B(0) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), b = at(D, 2, j);
    double log_y = log(y), log_b = log(b);
    if (keep_ab) lp += a * log_b;
    if (keep_ya) lp += (a - 1) * log_y;
    if (keep_yb) lp -= b * y;
    tm_dens_add(D, 0, j, (a - 1) / y - b);
    if (dg) tm_dens_add(D, 1, j, log_b + log_y - dg[idx(D, 1, j)]);
    tm_dens_add(D, 2, j, a / b - y);
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, neg_lgamma, &lp);
  *logp = lp;
  return AD_OK;
}

/* inv_gamma(y | alpha, beta); y <= 0 gives LOG_ZERO as in Stan */
static int inv_gamma_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 1)) { *logp = -INFINITY; return AD_OK; }
  double lp = 0, *dg = NULL;
  if (ad(D, 1) && !(dg = per_elem(D, 1, digamma_fn))) return AD_EMEMORY;
  int keep_ab = tm_dens_keep(D, B(1) | B(2)), keep_ya = tm_dens_keep(D, B(0) | B(1));
  int keep_yb = tm_dens_keep(D, B(0) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), b = at(D, 2, j);
    double log_y = log(y), inv_y = 1 / y, log_b = log(b);
    if (keep_ab) lp += a * log_b;
    if (keep_ya) lp -= (a + 1) * log_y;
    if (keep_yb) lp -= b * inv_y;
    tm_dens_add(D, 0, j, (b * inv_y - a - 1) * inv_y);
    if (dg) tm_dens_add(D, 1, j, log_b - dg[idx(D, 1, j)] - log_y);
    tm_dens_add(D, 2, j, a / b - inv_y);
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, neg_lgamma, &lp);
  *logp = lp;
  return AD_OK;
}

/* weibull(y | alpha, sigma); y < 0 gives LOG_ZERO as in Stan */
static int weibull_body(tm_dens *D, double *logp) {
  if (any_below(D, 0, 0, 0)) { *logp = -INFINITY; return AD_OK; }
  double lp = 0;
  int keep_ya = tm_dens_keep(D, B(0) | B(1)), keep_as = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), s = at(D, 2, j);
    double log_y = log(y), log_s = log(s);
    double p = pow(y / s, a);
    lp -= p;
    if (keep_ya) lp += (a - 1) * log_y;
    if (keep_as) lp -= a * log_s;
    tm_dens_add(D, 0, j, (a * (1 - p) - 1) / y);
    tm_dens_add(D, 1, j, 1 / a + (1 - p) * (log_y - log_s));
    tm_dens_add(D, 2, j, a / s * (p - 1));
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, log_fn, &lp);
  *logp = lp;
  return AD_OK;
}

/* beta(y | alpha, beta) */
static int beta_body(tm_dens *D, double *logp) {
  double lp = 0, *dga = NULL, *dgb = NULL;
  if (ad(D, 1) && !(dga = per_elem(D, 1, digamma_fn))) return AD_EMEMORY;
  if (ad(D, 2) && !(dgb = per_elem(D, 2, digamma_fn))) return AD_EMEMORY;
  int keep_ya = tm_dens_keep(D, B(0) | B(1)), keep_yb = tm_dens_keep(D, B(0) | B(2));
  int keep_ab = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), a = at(D, 1, j), b = at(D, 2, j);
    double log_y = log(y), log1m_y = tm_log1m(y);
    if (keep_ya) lp += (a - 1) * log_y;
    if (keep_yb) lp += (b - 1) * log1m_y;
    if (keep_ab) lp += tm_lgamma(a + b);
    tm_dens_add(D, 0, j, (a - 1) / y + (b - 1) / (y - 1));
    if (dga || dgb) {
      double dab = tm_digamma(a + b);
      if (dga) tm_dens_add(D, 1, j, log_y + dab - dga[idx(D, 1, j)]);
      if (dgb) tm_dens_add(D, 2, j, log1m_y + dab - dgb[idx(D, 2, j)]);
    }
  }
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, neg_lgamma, &lp);
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_lgamma, &lp);
  *logp = lp;
  return AD_OK;
}

/* uniform(y | alpha, beta); y outside [alpha, beta] gives LOG_ZERO */
static int uniform_body(tm_dens *D, double *logp) {
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j);
    if (y < at(D, 1, j) || at(D, 2, j) < y) { *logp = -INFINITY; return AD_OK; }
  }
  double lp = 0;
  int keep_ab = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double w = at(D, 2, j) - at(D, 1, j);
    if (keep_ab) lp -= log(w);
    tm_dens_add(D, 1, j, 1 / w);
    tm_dens_add(D, 2, j, -1 / w);
  }
  *logp = lp;
  return AD_OK;
}

/* ---- definitions: argument names and checks as in Stan Math ---- */
#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"

static const dens_def d_normal = {3, {Y, LOC, SCALE}, {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, 0, normal_body, 1};
static const dens_def d_std_normal = {1, {Y}, {{0, CK_NOT_NAN}}, 0, std_normal_body, 0};
static const dens_def d_student_t = {4, {Y, "Degrees of freedom parameter", LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_FINITE}, {3, CK_POS_FINITE}}, 0, student_t_body, 0};
static const dens_def d_cauchy = {3, {Y, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, 1, cauchy_body, 0};
static const dens_def d_double_exponential = {3, {Y, LOC, SCALE},
  {{0, CK_FINITE}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, 1, double_exponential_body, 0};
static const dens_def d_logistic = {3, {Y, LOC, SCALE},
  {{0, CK_FINITE}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, 0, logistic_body, 0};
static const dens_def d_lognormal = {3, {Y, LOC, SCALE},
  {{0, CK_NONNEG}, {1, CK_FINITE}, {2, CK_POS_FINITE}}, 0, lognormal_body, 0};
static const dens_def d_exponential = {2, {Y, "Inverse scale parameter"},
  {{0, CK_NONNEG}, {1, CK_POS_FINITE}}, 0, exponential_body, 0};
static const dens_def d_gamma = {3, {Y, SHAPE, "Inverse scale parameter"},
  {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, gamma_body, 0};
static const dens_def d_inv_gamma = {3, {Y, SHAPE, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, inv_gamma_body, 0};
static const dens_def d_weibull = {3, {Y, SHAPE, SCALE},
  {{0, CK_FINITE}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0, weibull_body, 0};
static const dens_def d_beta = {3, {Y, "First shape parameter", "Second shape parameter"},
  {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}, {0, CK_UNIT}}, 0, beta_body, 0};
static const dens_def d_uniform = {3, {Y, "Lower bound parameter", "Upper bound parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_FINITE}, {2, CK_GREATER}}, 0, uniform_body, 0};

#define SIG1 "real(reals)"
#define SIG2 "real(reals, reals)"
#define SIG3 "real(reals, reals, reals)"
#define SIG4 "real(reals, reals, reals, reals)"

/*
** More univariate continuous densities: gumbel, pareto,
** frechet, rayleigh, chi_square, inv_chi_square, scaled_inv_chi_square,
** skew_normal, exp_mod_normal, von_mises, beta_proportion (wiener is in
** tm_wiener.c).
**
** Each is a tm_dens_def (tm_dens_def.h) run by the generic density kernel
** above: Stan's argument names and checks, and a body that sums
** the log density over the broadcast and writes the partials.  As there,
** a term is added only when tm_dens_keep says an argument it depends on is
** not constant, so propto drops what Stan's include_summand drops; the
** partials are always the full derivatives.
*/

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

#define SIG2 "real(reals, reals)"
#define SIG3 "real(reals, reals, reals)"
#define SIG4 "real(reals, reals, reals, reals)"

/*
** Univariate continuous densities: pareto_type_2,
** skew_double_exponential, loglogistic.
**
** Each is a tm_dens_def (tm_dens_def.h) run by the generic density kernel
** above, as the ones before: Stan's argument names and
** checks, a body summing the log density over the broadcast with the full
** partials; a term is added only when tm_dens_keep says an argument it
** depends on is not constant, as Stan's include_summand.
*/

#define B(i) (1u << (i))
#define X(D, i, j) ((D)->x[i][(j) * (D)->inc[i]])

/* Stan's check_greater_or_equal(y, low), low broadcast */
static int check_ge(const tm_dens *D, int iy, int ilo, const char *name) {
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, iy, j), lo = X(D, ilo, j);
    if (y >= lo) continue;
    char nm[96];
    if (D->inc[iy]) snprintf(nm, sizeof nm, "%s[%zu]", name, j + 1);
    else snprintf(nm, sizeof nm, "%s", name);
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than or equal to %.17g", D->fn, nm, y, lo);
  }
  return AD_OK;
}

/* pareto_type_2(y | mu, lambda, alpha) = alpha / lambda (1 + (y - mu) / lambda)^-(alpha + 1), y >= mu */
static int pareto_type_2_body(tm_dens *D, double *logp) {
  int rc = check_ge(D, 0, 1, "Random variable");
  if (rc) return rc;
  double lp = 0;
  int k_a = tm_dens_keep(D, B(3)), k_l = tm_dens_keep(D, B(2)), k_all = tm_dens_keep(D, 15u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), l = X(D, 2, j), a = X(D, 3, j);
    double l1 = log1p((y - mu) / l), inv_sum = 1 / (l + y - mu);
    if (k_a) lp += log(a);
    if (k_l) lp -= log(l);
    if (k_all) lp -= (a + 1) * l1;
    double g = inv_sum + a * inv_sum;          /* d / dmu; -d / dy */
    tm_dens_add(D, 0, j, -g);
    tm_dens_add(D, 1, j, g);
    tm_dens_add(D, 2, j, a * inv_sum * (y - mu) / l - inv_sum);
    tm_dens_add(D, 3, j, 1 / a - l1);
  }
  *logp = lp;
  return AD_OK;
}

/* skew_double_exponential(y | mu, sigma, tau)
**   = 2 tau (1 - tau) / sigma exp(-2 / sigma [(1 - tau)(mu - y) if y < mu, tau (y - mu) else]) */
static int skew_double_exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_s = tm_dens_keep(D, B(2)), k_t = tm_dens_keep(D, B(3));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), s = X(D, 2, j), t = X(D, 3, j), d = y - mu;
    double w = d < 0 ? 1 - t : t, sg = d < 0 ? -1 : d > 0 ? 1 : 0;   /* weight of |y - mu| */
    double expo = w * fabs(d) / s;
    lp -= 2 * expo;
    if (k_c) lp += TM_LOG_2;
    if (k_s) lp -= log(s);
    if (k_t) lp += log(t) + log1p(-t);
    double g = d < 0 ? -2 * (1 - t) / s : d > 0 ? 2 * t / s : 0;   /* d / dmu, Stan's sign(0) = 0 */
    tm_dens_add(D, 0, j, -g);
    tm_dens_add(D, 1, j, g);
    tm_dens_add(D, 2, j, (2 * expo - 1) / s);
    tm_dens_add(D, 3, j, 1 / t - 1 / (1 - t) - sg * 2 * fabs(d) / s);
  }
  *logp = lp;
  return AD_OK;
}

/* loglogistic(y | alpha, beta) = (beta / alpha) (y / alpha)^(beta - 1) / (1 + (y / alpha)^beta)^2 */
static int loglogistic_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_ab = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), a = X(D, 1, j), b = X(D, 2, j);
    double ly = log(y), la = log(a), lr = ly - la, p = pow(y / a, b), q = p / (1 + p);
    lp += (b - 1) * ly - 2 * log1p(p);
    if (k_ab) lp += log(b) - la - (b - 1) * la;
    tm_dens_add(D, 0, j, (b - 1) / y - 2 * b * q / y);
    tm_dens_add(D, 1, j, -b / a + 2 * b * q / a);
    tm_dens_add(D, 2, j, 1 / b + lr - 2 * q * lr);
  }
  *logp = lp;
  return AD_OK;
}

#define Y "Random variable"
#define LOC "Location parameter"
#define SCALE "Scale parameter"
#define SHAPE "Shape parameter"

static const tm_dens_def
  d_pareto_type_2 = {4, {Y, LOC, SCALE, SHAPE}, {{2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, 0, pareto_type_2_body, 0},
  d_skew_double_exponential = {4, {Y, LOC, SCALE, "Skewness parameter"},
    {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_UNIT}}, 1, skew_double_exponential_body, 0},
  d_loglogistic = {3, {Y, SCALE, SHAPE}, {{0, CK_POS_FINITE}, {1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, 0,
    loglogistic_body, 0};

const tm_fn tm_fns_dens_cont[] = {
  {"normal_lpdf",             SIG3, dens_kernel, &d_normal},
  {"std_normal_lpdf",         SIG1, dens_kernel, &d_std_normal},
  {"student_t_lpdf",          SIG4, dens_kernel, &d_student_t},
  {"cauchy_lpdf",             SIG3, dens_kernel, &d_cauchy},
  {"double_exponential_lpdf", SIG3, dens_kernel, &d_double_exponential},
  {"logistic_lpdf",           SIG3, dens_kernel, &d_logistic},
  {"lognormal_lpdf",          SIG3, dens_kernel, &d_lognormal},
  {"exponential_lpdf",        SIG2, dens_kernel, &d_exponential},
  {"gamma_lpdf",              SIG3, dens_kernel, &d_gamma},
  {"inv_gamma_lpdf",          SIG3, dens_kernel, &d_inv_gamma},
  {"weibull_lpdf",            SIG3, dens_kernel, &d_weibull},
  {"beta_lpdf",               SIG3, dens_kernel, &d_beta},
  {"uniform_lpdf",            SIG3, dens_kernel, &d_uniform},
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
  {"pareto_type_2_lpdf", "real(reals, reals, reals, reals)", tm_dens_def_kernel, &d_pareto_type_2},
  {"skew_double_exponential_lpdf", "real(reals, reals, reals, reals)", tm_dens_def_kernel,
   &d_skew_double_exponential},
  {"loglogistic_lpdf", "real(reals, reals, reals)", tm_dens_def_kernel, &d_loglogistic},
  {NULL, NULL, NULL, NULL}
};

/* the kernel for definitions made in other modules */
int tm_dens_def_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return dens_kernel(c, a, nargs, out);
}
