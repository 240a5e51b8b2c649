/*
** nuts_sum_stats.c -- R's means, variances, sums and quantiles, bit for bit.
**
** posterior's summaries call R's mean(), var(), sum(), colMeans(),
** matrixStats's colMeans2(), median() and quantile().  Their results
** depend on how R adds: in long double (LDOUBLE), in index order, with a
** second pass that corrects the mean.  A plain double sum differs in the
** last bits, and a mean near zero of large draws differs far more in
** relative terms, so these functions repeat R's steps (R 4.2's
** summary.c, cov.c and array.c; stats' quantile.R and median.R).
*/
#include <float.h>
#include <math.h>
#include "nuts_sum_int.h"

/* R's real_mean(): the sum, then the mean of the residuals added back.  A
** sum that overflowed is redone from the scaled terms. */
double nsum_mean(const double *x, size_t n) {
  long double s = 0.0L;
  for (size_t k = 0; k < n; k++) s += x[k];
  int finite_s = isfinite((double)s);
  if (finite_s) {
    s /= (long double)n;
  } else {
    s = 0.0L;
    for (size_t k = 0; k < n; k++) s += x[k] / (double)n;
  }
  if (finite_s && isfinite((double)s)) {
    long double t = 0.0L;
    for (size_t k = 0; k < n; k++) t += (x[k] - s);
    s += t / (long double)n;
  } else if (isfinite((double)s)) {
    long double t = 0.0L;
    for (size_t k = 0; k < n; k++) t += (x[k] - s) / (long double)n;
    s += t;
  }
  return (double)s;
}

/* R's logical_mean(): one pass, no correction (the 0/1 indicators of
** posterior's ess_quantile are logical vectors). */
double nsum_mean01(const double *x, size_t n) {
  long double s = 0.0L;
  for (size_t k = 0; k < n; k++) s += x[k];
  return (double)(s / (long double)n);
}

/* stats::var() of a vector: cov.c's cov_na_1 with MEAN_ (use =
** "everything"): NA for fewer than two values or any NaN. */
double nsum_var(const double *x, size_t n, double na) {
  if (n <= 1 || nsum_any_nan(x, n)) return na;
  long double sum = 0.0L, tmp;
  for (size_t k = 0; k < n; k++) sum += x[k];
  tmp = sum / (long double)n;
  if (isfinite((double)tmp)) {
    sum = 0.0L;
    for (size_t k = 0; k < n; k++) sum += (x[k] - tmp);
    tmp = tmp + sum / (long double)n;
  }
  double xm = (double)tmp;
  sum = 0.0L;
  for (size_t k = 0; k < n; k++) sum += (long double)(x[k] - xm) * (x[k] - xm);
  return (double)(sum / (long double)(n - 1));
}

/* matrixStats::colMeans2 and rowMeans2: the same in double, since
** matrixStats is built without R's HAVE_LONG_DOUBLE (its LDOUBLE is
** double). */
double nsum_colmean2(const double *x, size_t n, size_t stride) {
  double s = 0.0;
  for (size_t k = 0; k < n; k++) s += x[k * stride];
  return s / (double)n;
}

/* base::sum() of doubles (rsum). */
double nsum_sum(const double *x, size_t n) {
  long double s = 0.0L;
  for (size_t k = 0; k < n; k++) s += x[k];
  if (s > DBL_MAX) return INFINITY;
  if (s < -DBL_MAX) return -INFINITY;
  return (double)s;
}

/* quantile.default(type = 7): index 1 + (n - 1) p, interpolated between
** the order statistics around it only when they differ (so an infinite
** quantile stays infinite rather than becoming Inf * 0). */
double nsum_quantile7(const double *sorted, size_t n, double p) {
  if (p < 0) p = 0;
  if (p > 1) p = 1;
  double index = 1 + (double)(n > 0 ? n - 1 : 0) * p;
  double lo = floor(index), hi = ceil(index);
  double qs = sorted[(size_t)lo - 1];
  double xhi = sorted[(size_t)hi - 1];
  if (index > lo && xhi != qs) {
    double h = index - lo;
    qs = (1 - h) * qs + h * xhi;
  }
  return qs;
}

/* median.default: the middle value, or mean() of the middle two. */
double nsum_median_sorted(const double *sorted, size_t n) {
  size_t half = (n + 1) / 2;
  if (n % 2 == 1) return sorted[half - 1];
  return nsum_mean(sorted + half - 1, 2);
}

int nsum_any_nan(const double *x, size_t n) {
  for (size_t k = 0; k < n; k++) if (isnan(x[k])) return 1;
  return 0;
}

/* R_pow(x, 4) (arithmetic.c): pow() for finite x, R's rules otherwise. */
double nsum_pow4(double x) {
  if (x == 1.0) return 1.0;
  if (x == 0.0) return 0.0;
  if (isfinite(x)) return pow(x, 4.0);
  if (isnan(x)) return x + 4.0;
  return INFINITY;          /* (+-Inf)^4 */
}
