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
#include "tm_tables.h"
#include "tm_special.h"

#include "tm_dens_def.h"

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
  {NULL, NULL, NULL, NULL}
};

/* the kernel for definitions made in other modules */
int tm_dens_def_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return dens_kernel(c, a, nargs, out);
}
