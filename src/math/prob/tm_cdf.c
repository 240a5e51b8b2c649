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
**
** Here: the kernel and the discrete distributions' elements; each
** continuous family's are in its file tm_<family>.c, the pieces they share
** in tm_cdf.h.
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

/* ---- discrete ---- */

static double bernoulli_e(const double *x, int upper, double *d) {
  double n = x[0], th = x[1];
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n >= 1) return upper ? -INFINITY : 0;
  if (upper) { d[1] = 1 / th; return log(th); }
  d[1] = -1 / (1 - th);
  return log1p(-th);
}

/* F(n) = Q(n + 1, lambda); dF / dlambda = -Poisson(n | lambda) */
static double poisson_e(const double *x, int upper, double *d) {
  double n = x[0], lam = x[1], lp, lq;
  if (n < 0) return upper ? 0 : -INFINITY;
  tm_log_gamma_pq(n + 1, lam, &lp, &lq);
  double v = upper ? lp : lq;
  if (isfinite(v)) {
    double g = exp(tm_log_dpois(n, lam) - v);
    d[1] = upper ? g : -g;
  }
  return v;
}

/* x log y with 0 log 0 = 0 */
static double xlogy(double x, double y) { return x == 0 ? 0 : x * log(y); }

/* F(n) = I_{1 - theta}(N - n, n + 1);
** dF / dtheta = -theta^n (1 - theta)^(N - n - 1) / B(N - n, n + 1) */
static double binomial_e(const double *x, int upper, double *d) {
  double n = x[0], N = x[1], th = x[2], li, lj;
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n >= N) return upper ? -INFINITY : 0;
  tm_log_inc_beta(N - n, n + 1, 1 - th, th, &li, &lj);
  double v = upper ? lj : li;
  if (isfinite(v)) {
    double ld = xlogy(n, th) + xlogy(N - n - 1, 1 - th) - tm_lbeta(N - n, n + 1);
    double g = exp(ld - v);
    d[2] = upper ? g : -g;
  }
  return v;
}

/* neg_binomial_2(n | mu, phi): the sum of the masses, each with its partials,
** so the gradient in phi needs no derivative of the incomplete beta function
** in its parameter.  Terms by the ratio of successive masses
** p(k + 1) / p(k) = (k + phi) / (k + 1) * mu / (mu + phi), in logs with a
** running maximum; the partials of log p(k) by the running sum of
** 1 / (phi + j) (digamma(k + phi) - digamma(phi)).  The upper tail is summed
** directly (to where its terms no longer count) when the lower sum exceeds
** one half, so log(1 - F) keeps its digits too. */
typedef struct nb_sum { double m, s, gmu, gphi; } nb_sum;

static void nb_add(nb_sum *S, double lp, double dmu, double dphi) {
  if (lp > S->m) {
    double r = exp(S->m - lp);
    S->s *= r; S->gmu *= r; S->gphi *= r;
    S->m = lp;
  }
  double w = exp(lp - S->m);
  S->s += w;
  S->gmu += w * dmu;
  S->gphi += w * dphi;
}

/* Beyond this many terms, F = I_{phi / (mu + phi)}(phi, n + 1) with the
** incomplete beta function's partials: O(sqrt(n)) work instead of O(n). */
#define NB_SUM_MAX 20000

static double neg_binomial_2_beta(double n, double mu, double phi, int upper, double *d) {
  double s = mu + phi, li, lj, g[6];
  tm_log_inc_beta_grad(phi, n + 1, phi / s, mu / s, &li, &lj, g);
  double v = upper ? lj : li, ga = upper ? g[2] : g[0], gx = upper ? g[5] : g[4];
  if (isfinite(v)) {
    d[1] = -gx * phi / (s * s);
    d[2] = ga + gx * mu / (s * s);
  }
  return v;
}

double tm_cdf_neg_binomial_2_e(const double *x, int upper, double *d) {
  double n = x[0], mu = x[1], phi = x[2];
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n > NB_SUM_MAX) return neg_binomial_2_beta(n, mu, phi, upper, d);
  /* log(mu / (mu + phi)) and log(phi / (mu + phi)), each from the smaller ratio */
  double lq = mu < phi ? log(mu / (mu + phi)) : log1p(-phi / (mu + phi));
  double lphi = phi < mu ? log(phi / (mu + phi)) : log1p(-mu / (mu + phi));
  double lp = phi * lphi;      /* log p(0) */
  double dg = 0;               /* digamma(k + phi) - digamma(phi) */
  nb_sum lo = {-INFINITY, 0, 0, 0};
  double k;
  for (k = 0; k <= n; k++) {
    double dmu = k / mu - (k + phi) / (mu + phi);
    double dphi = dg + lphi + (mu - k) / (mu + phi);
    nb_add(&lo, lp, dmu, dphi);
    dg += 1 / (phi + k);
    lp += log((k + phi) / (k + 1)) + lq;
  }
  double lF = lo.m + log(lo.s);
  if (lF < -TM_LOG_2) {        /* F < 1/2: 1 - F by log1m_exp is accurate */
    double gmu = lo.gmu / lo.s, gphi = lo.gphi / lo.s;
    if (!upper) { d[1] = gmu; d[2] = gphi; return lF; }
    double r = exp(lF) / -expm1(lF);     /* F / (1 - F) */
    d[1] = -gmu * r;
    d[2] = -gphi * r;
    return tm_log1m_exp(lF);
  }
  /* the upper tail: k > n, continuing the recurrence until the terms stop
  ** counting (they fall geometrically once k exceeds the mode) */
  nb_sum hi = {-INFINITY, 0, 0, 0};
  for (int it = 0; it < 10000000; it++, k++) {
    double dmu = k / mu - (k + phi) / (mu + phi);
    double dphi = dg + lphi + (mu - k) / (mu + phi);
    nb_add(&hi, lp, dmu, dphi);
    double lr = log((k + phi) / (k + 1)) + lq;      /* log p(k + 1) / p(k) */
    /* past the mode the rest is below p(k) / (1 - r), r the larger of this
    ** ratio and its limit mu / (mu + phi) */
    if (k > (phi - 1) * mu / phi && lp - tm_log1m_exp(lr > lq ? lr : lq) < hi.m + log(hi.s) - 40) break;
    dg += 1 / (phi + k);
    lp += lr;
  }
  double lG = hi.s > 0 ? hi.m + log(hi.s) : -INFINITY;
  if (upper) {
    if (hi.s > 0) { d[1] = hi.gmu / hi.s; d[2] = hi.gphi / hi.s; }
    return lG;
  }
  /* log F = log1m_exp(log G); d log F = -G / F d log G */
  if (hi.s > 0) {
    double r = exp(lG - lF);
    d[1] = -r * hi.gmu / hi.s;
    d[2] = -r * hi.gphi / hi.s;
  }
  return tm_log1m_exp(lG);
}

/* ---- definitions: Stan's argument names and checks ---- */

static const cdf_def
  d_bernoulli = {2, 1u, {Y, "Probability parameter"}, {{1, CK_UNIT}}, bernoulli_e, NULL},
  d_poisson = {2, 1u, {Y, "Rate parameter"}, {{1, CK_NONNEG}}, poisson_e, NULL},
  d_binomial = {3, 3u, {"Successes variable", "Population size parameter", "Probability parameter"},
    {{1, CK_NONNEG}, {2, CK_UNIT}}, binomial_e, NULL},
  d_neg_binomial_2 = {3, 1u, {Y, LOC, "Precision parameter"},
    {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, tm_cdf_neg_binomial_2_e, NULL};

MODES(bernoulli) MODES(poisson) MODES(binomial) MODES(neg_binomial_2)

/*
** More _cdf, _lcdf and _lccdf on the same kernel: beta_binomial,
** neg_binomial, beta_neg_binomial, yule_simon, discrete_range.
**
** Each element function returns log F or log(1 - F) and that log's
** partials.  Where one side has a closed form the other is its complement
** by log1m_exp; the finite sums (beta_binomial) sum the side asked for, so
** both tails keep their digits; beta_neg_binomial sums the masses up to n
** (its upper tail, a power law, is the complement).
*/

static void elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
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

static const cdf_def
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

MODES(beta_binomial) MODES(neg_binomial) MODES(beta_neg_binomial) MODES(yule_simon)
MODES(discrete_range)

const tm_fn tm_fns_cdf[] = {
  ENTRIES(bernoulli, "real(ints, reals)"), ENTRIES(poisson, "real(ints, reals)"),
  ENTRIES(binomial, "real(ints, ints, reals)"), ENTRIES(neg_binomial_2, "real(ints, reals, reals)"),
  ENTRIES(beta_binomial, "real(ints, ints, reals, reals)"),
  ENTRIES(neg_binomial, "real(ints, reals, reals)"),
  ENTRIES(beta_neg_binomial, "real(ints, reals, reals, reals)"),
  ENTRIES(yule_simon, "real(ints, reals)"),
  ENTRIES(discrete_range, "real(ints, ints, ints)"),
  {NULL, NULL, NULL, NULL}
};
