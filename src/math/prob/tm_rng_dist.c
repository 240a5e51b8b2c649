/*
** tm_rng_dist.c -- sampling algorithms on doubles, behind the _rng functions.
**
** Exact algorithms only (rejection or inversion, no approximations), so that
** goodness-of-fit tests hold at any sample size:
**   gamma      Marsaglia and Tsang (2000), with the u^(1/alpha) boost for alpha < 1
**   beta       ratio of gammas, in log space when a shape is <= 1 (as Stan does)
**   poisson    inversion for small rates, PTRS (Hormann 1993) for large ones
**   binomial   inversion for small n*p, BTPE (Kachitvichyanukul and Schmeiser
**              1988) for large
*/
#include <math.h>
#include <limits.h>
#include "tm_rng_dist.h"
#include "../tm_special.h"

double tm_rd_exponential(tm_rng *r) { return -log(tm_rng_uniform(r)); }

/* Marsaglia-Tsang for alpha >= 1. */
static double gamma_mt(tm_rng *r, double alpha) {
  double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x = tm_rng_normal(r), v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    double u = tm_rng_uniform(r), x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) return d * v;
  }
}

/* For alpha < 1, G(alpha) = G(alpha + 1) * U^(1/alpha). */
double tm_rd_gamma(tm_rng *r, double alpha) {
  if (alpha >= 1) return gamma_mt(r, alpha);
  double u = tm_rng_uniform(r);
  return gamma_mt(r, alpha + 1.0) * pow(u, 1.0 / alpha);
}

/* The same in log space: for tiny alpha the draw itself underflows to 0 but
** its log does not, which beta and dirichlet need to normalise. */
double tm_rd_log_gamma(tm_rng *r, double alpha) {
  if (alpha >= 1) return log(gamma_mt(r, alpha));
  double u = tm_rng_uniform(r);
  return log(gamma_mt(r, alpha + 1.0)) + log(u) / alpha;
}

double tm_rd_beta(tm_rng *r, double a, double b) {
  if (a > 1 && b > 1) {
    double x = gamma_mt(r, a), y = gamma_mt(r, b);
    return x / (x + y);
  }
  double la = tm_rd_log_gamma(r, a), lb = tm_rd_log_gamma(r, b);
  return exp(la - tm_log_sum_exp2(la, lb));
}

double tm_rd_student_t(tm_rng *r, double nu) {
  double z = tm_rng_normal(r);
  return z / sqrt(2.0 * tm_rd_gamma(r, 0.5 * nu) / nu);
}

/* ---- poisson ---- */

/* Inversion: walk the cdf from 0.  The bound guards against a u that the
** rounded cdf never reaches; such a draw is rare enough to simply redraw. */
static double poisson_inv(tm_rng *r, double lambda) {
  double p0 = exp(-lambda);
  double bound = lambda + 20.0 * sqrt(lambda) + 30.0;
  for (;;) {
    double u = tm_rng_uniform(r), p = p0, x = 0;
    while (u > p) {
      u -= p;
      x += 1;
      p *= lambda / x;
      if (x > bound) break;
    }
    if (x <= bound) return x;
  }
}

/* PTRS: transformed rejection with squeeze, Hormann (1993). */
static double poisson_ptrs(tm_rng *r, double lambda) {
  double slam = sqrt(lambda), loglam = log(lambda);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    double u = tm_rng_uniform(r) - 0.5, v = tm_rng_uniform(r);
    double us = 0.5 - fabs(u);
    double k = floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lambda + k * loglam - tm_lgamma(k + 1))
      return k;
  }
}

double tm_rd_poisson(tm_rng *r, double lambda) {
  if (lambda <= 0) return 0;
  return lambda < 10 ? poisson_inv(r, lambda) : poisson_ptrs(r, lambda);
}

/* ---- binomial; both parts draw with p <= 1/2 and reflect ---- */

static double binomial_inv(tm_rng *r, int n, double p) {
  double q = 1.0 - p, np = n * p;
  double qn = exp(n * log1p(-p));
  double bound = fmin((double)n, np + 10.0 * sqrt(np * q + 1));
  double x = 0, px = qn, u = tm_rng_uniform(r);
  while (u > px) {
    x += 1;
    if (x > bound) {
      x = 0;
      px = qn;
      u = tm_rng_uniform(r);
    } else {
      u -= px;
      px = ((n - x + 1) * p * px) / (x * q);
    }
  }
  return x;
}

/* Stirling-series correction used by BTPE's final acceptance test. */
static double btpe_corr(double x) {
  double x2 = x * x;
  return (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x / 166320.;
}

static double binomial_btpe(tm_rng *r, int n, double p) {
  double q = 1.0 - p, nrq = n * p * q;
  double fm = n * p + p;
  double m = floor(fm);
  double p1 = floor(2.195 * sqrt(nrq) - 4.6 * q) + 0.5;
  double xm = m + 0.5, xl = xm - p1, xr = xm + p1;
  double c = 0.134 + 20.5 / (15.3 + m);
  double a = (fm - xl) / (fm - xl * p);
  double laml = a * (1.0 + a / 2.0);
  a = (xr - fm) / (xr * q);
  double lamr = a * (1.0 + a / 2.0);
  double p2 = p1 * (1.0 + 2.0 * c), p3 = p2 + c / laml, p4 = p3 + c / lamr;
  for (;;) {
    double u = tm_rng_uniform(r) * p4, v = tm_rng_uniform(r), y;
    if (u <= p1) return floor(xm - p1 * v + u);           /* triangle: accept */
    if (u <= p2) {                                        /* parallelograms */
      double x = xl + (u - p1) / c;
      v = v * c + 1.0 - fabs(m - x + 0.5) / p1;
      if (v > 1.0) continue;
      y = floor(x);
    } else if (u <= p3) {                                 /* left tail */
      y = floor(xl + log(v) / laml);
      if (y < 0) continue;
      v = v * (u - p2) * laml;
    } else {                                              /* right tail */
      y = floor(xr - log(v) / lamr);
      if (y > n) continue;
      v = v * (u - p3) * lamr;
    }
    double k = fabs(y - m);
    if (k <= 20 || k >= nrq / 2.0 - 1) {
      /* explicit ratio f(y) / f(m) by recursion */
      double s = p / q, aa = s * (n + 1), F = 1.0;
      if (m < y) for (double i = m + 1; i <= y; i++) F *= aa / i - s;
      else if (m > y) for (double i = y + 1; i <= m; i++) F /= aa / i - s;
      if (v > F) continue;
      return y;
    }
    /* squeeze on log f(y) / f(m), then the exact bound via Stirling */
    double rho = (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
    double t = -k * k / (2 * nrq), A = log(v);
    if (A < t - rho) return y;
    if (A > t + rho) continue;
    double x1 = y + 1, f1 = m + 1, z = n + 1 - m, w = n - y + 1;
    double bound = xm * log(f1 / x1) + (n - m + 0.5) * log(z / w) + (y - m) * log(w * p / (x1 * q))
                   + btpe_corr(f1) + btpe_corr(z) + btpe_corr(x1) + btpe_corr(w);
    if (A > bound) continue;
    return y;
  }
}

double tm_rd_binomial(tm_rng *r, int n, double p) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  double pp = p <= 0.5 ? p : 1.0 - p;
  double y = pp * n <= 30.0 ? binomial_inv(r, n, pp) : binomial_btpe(r, n, pp);
  return p <= 0.5 ? y : n - y;
}

/* ---- Cholesky factor, for multi_normal_rng ---- */

int tm_rd_cholesky(int n, const double *A, double *L) {
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < j; i++) L[i + (size_t)j * n] = 0;
    double d = A[j + (size_t)j * n];
    for (int k = 0; k < j; k++) d -= L[j + (size_t)k * n] * L[j + (size_t)k * n];
    if (!(d > 0)) return -1;                   /* also catches NaN */
    double ljj = sqrt(d);
    L[j + (size_t)j * n] = ljj;
    for (int i = j + 1; i < n; i++) {
      double s = A[i + (size_t)j * n];
      for (int k = 0; k < j; k++) s -= L[i + (size_t)k * n] * L[j + (size_t)k * n];
      L[i + (size_t)j * n] = s / ljj;
    }
  }
  return 0;
}
