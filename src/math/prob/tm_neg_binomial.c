/*
** tm_neg_binomial.c -- the negative binomial family: neg_binomial_2_lpmf,
** neg_binomial_2_log_lpmf and neg_binomial_lpmf (elementwise masses,
** tm_dens_elem.h), the _cdf, _lcdf and _lccdf of neg_binomial_2 and of
** neg_binomial (by neg_binomial_2's) (tm_cdf.h), neg_binomial_rng,
** neg_binomial_2_rng and neg_binomial_2_log_rng (a gamma-poisson mixture,
** tm_rng_def.h).  neg_binomial_2_log_glm is with the GLMs (tm_glm.c).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"
#include "tm_mass_terms.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* neg_binomial_2_lpmf(n | mu, phi), Stan's form: binomial_coefficient_log
** and -phi log1p(mu / phi) stay accurate as phi grows, where the textbook
** lgamma(n + phi) - lgamma(phi) + phi log(phi / (mu + phi)) cancels. */
static int neg_binomial_2_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Failures variable", CK_NONNEG}, {"Location parameter", CK_POS_FINITE},
                     {"Precision parameter", CK_POS_FINITE});
}
static double neg_binomial_2_term(elem *e) {
  double n = e->x[0], mu = e->x[1], phi = e->x[2], lp = 0;
  double mpp = mu + phi, lmpp = log(mpp), npp = n + phi;
  if (KEEP(e, 5u)) lp += lbinom(npp - 1, n);
  if (KEEP(e, 3u)) lp += multiply_log(n, mu);
  if (KEEP(e, 7u)) lp += -phi * log1p(mu / phi) - n * lmpp;
  if (NEED(e, 1)) e->d[1] = n / mu - npp / mpp;
  if (NEED(e, 2))
    e->d[2] = (mu - n) / mpp + (mu < phi ? log1p(-mu / mpp) : log(phi) - lmpp)
              + digamma_diff_at(phi, n);
  return lp;
}
static const elem_def neg_binomial_2_def = {
  3, 1u, {"Failures variable", "Location parameter", "Precision parameter"},
  neg_binomial_2_check, neg_binomial_2_term , NULL};

/* neg_binomial_2_log_lpmf(n | eta, phi), as Stan computes it: everything
** through log1p_exp(eta - log(phi)), so exp(eta) never overflows the value. */
static int neg_binomial_2_log_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Failures variable", CK_NONNEG}, {"Log location parameter", CK_FINITE},
                     {"Precision parameter", CK_POS_FINITE});
}
static double neg_binomial_2_log_term(elem *e) {
  double n = e->x[0], eta = e->x[1], phi = e->x[2], lp = 0;
  double lphi = log(phi), L = tm_log1p_exp(eta - lphi), npp = n + phi;
  if (KEEP(e, 5u)) lp += lbinom(npp - 1, n);
  if (KEEP(e, 3u)) lp += n * eta;
  if (KEEP(e, 7u)) lp += -phi * L - n * (lphi + L);
  if (e->need) {
    double ee = exp(eta), q = 1 / (phi / ee + 1);   /* mu / (mu + phi) */
    if (NEED(e, 1)) e->d[1] = n - npp * q;
    if (NEED(e, 2)) e->d[2] = q - n / (ee + phi) - L + digamma_diff_at(phi, n);
  }
  return lp;
}
static const elem_def neg_binomial_2_log_def = {
  3, 1u, {"Failures variable", "Log location parameter", "Precision parameter"},
  neg_binomial_2_log_check, neg_binomial_2_log_term , NULL};

/* ---- neg_binomial(n | alpha, beta) ---- */

static int neg_binomial_check(const tm_dens *D) {
  return ELEM_CHECKS(D, {"Failures variable", CK_NONNEG}, {"Shape parameter", CK_POS_FINITE},
                     {"Inverse scale parameter", CK_POS_FINITE});
}
static double neg_binomial_term(elem *e) {
  double n = e->x[0], a = e->x[1], b = e->x[2], lp = 0;
  double l1b = log1p(1 / b);                  /* -log(beta / (1 + beta)) */
  if (KEEP(e, 2u)) lp += tm_lchoose(n + a - 1, n);
  if (KEEP(e, 6u)) lp -= a * l1b;
  if (KEEP(e, 4u)) lp -= n * log1p(b);
  if (NEED(e, 1)) e->d[1] = digamma_diff_at(a, n) - l1b;
  if (NEED(e, 2)) e->d[2] = a / b - (a + n) / (1 + b);
  return lp;
}
static const elem_def neg_binomial_def = {
  3, 1u, {"Failures variable", "Shape parameter", "Inverse scale parameter"}, neg_binomial_check,
  neg_binomial_term , NULL};

/* ---- the cdfs ---- */

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

static double neg_binomial_2_e(const double *x, int upper, double *d) {
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

/* neg_binomial(n | alpha, beta) = neg_binomial_2(n | alpha / beta, alpha) */
static double neg_binomial_e(const double *x, int upper, double *d) {
  double a = x[1], b = x[2], y[3] = {x[0], a / b, a}, g[3] = {0, 0, 0};
  double v = neg_binomial_2_e(y, upper, g);
  d[1] = g[1] / b + g[2];
  d[2] = -g[1] * a / (b * b);
  return v;
}

static const cdf_def
  d_neg_binomial_2 = {3, 1u, {Y, LOC, "Precision parameter"},
    {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, neg_binomial_2_e, NULL},
  d_neg_binomial = {3, 1u, {"Failures variable", SHAPE, "Inverse scale parameter"},
    {{1, CK_POS_FINITE}, {2, CK_POS_FINITE}}, neg_binomial_e, NULL};
MODES(neg_binomial_2) MODES(neg_binomial)

/* ---- the _rng functions: a gamma-poisson mixture ---- */

/* tm_rng_gamma_poisson after Stan's check of the scale (the neg_binomials) */
static int gamma_poisson(tm_rng *r, const char *fn, const char *scale_name, double shape, double scale, double *x) {
  if (!(scale > 0 && isfinite(scale)))
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be positive finite!", fn, scale_name, scale);
  return tm_rng_gamma_poisson(r, fn, shape, scale, x);
}
static int draw_neg_binomial(tm_rng *r, const double *p, double *x) {
  return gamma_poisson(r, "neg_binomial_rng", "Inverse of the inverse scale parameter", p[0], 1.0 / p[1], x);
}
static int draw_neg_binomial_2(tm_rng *r, const double *p, double *x) {
  return gamma_poisson(r, "neg_binomial_2_rng", "Location parameter divided by the precision parameter",
                       p[1], p[0] / p[1], x);
}
static int draw_neg_binomial_2_log(tm_rng *r, const double *p, double *x) {
  return gamma_poisson(r, "neg_binomial_2_log_rng",
                       "Exponential of the log-location parameter divided by the precision parameter",
                       p[1], exp(p[0]) / p[1], x);
}
static const rng_def D_neg_binomial = {"neg_binomial_rng", 2, 1, draw_neg_binomial,
  {"Shape parameter", "Inverse scale parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_neg_binomial_2 = {"neg_binomial_2_rng", 2, 1, draw_neg_binomial_2,
  {LOC, "Precision parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_neg_binomial_2_log = {"neg_binomial_2_log_rng", 2, 1, draw_neg_binomial_2_log,
  {"Log-location parameter", "Inverse dispersion parameter"}, {CK_FINITE, CK_POS_FINITE}};

const tm_fn tm_fns_neg_binomial[] = {
  {"neg_binomial_2_lpmf",      "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_2_def},
  {"neg_binomial_2_log_lpmf",  "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_2_log_def},
  {"neg_binomial_lpmf", "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_def},
  ENTRIES(neg_binomial_2, "real(ints, reals, reals)"),
  ENTRIES(neg_binomial, "real(ints, reals, reals)"),
  {"neg_binomial_2_log_rng", I2, tm_rng_kernel, &D_neg_binomial_2_log},
  {"neg_binomial_2_rng", I2, tm_rng_kernel, &D_neg_binomial_2},
  {"neg_binomial_rng", I2, tm_rng_kernel, &D_neg_binomial},
  {NULL, NULL, NULL, NULL}
};
