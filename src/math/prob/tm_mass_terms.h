/*
** tm_mass_terms.h -- pieces of the log masses that several discrete
** families share (binomial, neg_binomial, poisson, beta_binomial,
** beta_neg_binomial, yule_simon, dirichlet_multinomial); inline, as they
** were in the one file that held them all.
*/
#ifndef TM_MASS_TERMS_H
#define TM_MASS_TERMS_H
#include <math.h>
#include "../tm_special.h"

/* Stan's multiply_log: 0 log 0 is 0, the limit, so n = 0 with rate 0 works. */
static inline double multiply_log(double a, double b) {
  if (a == 0 && b == 0) return 0;
  return a * log(b);
}

/* Stan's binomial_coefficient_log(n, k) for n >= -1, 0 <= k <= n + 1: the
** smaller of k and n - k, lgamma while n is small and the lbeta form (whose
** Stirling differences keep digits) once n + 1 >= 10. */
static inline double lbinom(double n, double k) {
  if (isnan(n) || isnan(k)) return NAN;
  if (n > -1 && k > n / 2 + 1e-8) return lbinom(n, n - k);
  if (k == 0) return 0;
  double n1 = n + 1;
  if (n1 < 10) return tm_lgamma(n1) - tm_lgamma(k + 1) - tm_lgamma(n1 - k);
  return -tm_lbeta(n1 - k, k + 1) - log1p(n);
}

/* digamma(x + n) - digamma(x) for a real x and a count n that may be any
** real: a finite sum for a modest integral count, exact where the
** difference of two digammas cancels (x large): with x = 1e8 both are 18.4
** and the difference is n * 1e-8. */
static inline double digamma_diff_at(double x, double n) {
  if (n >= 0 && n <= 64 && n == floor(n)) {
    double s = 0;
    for (int k = 0; k < (int)n; k++) s += 1 / (x + k);
    return s;
  }
  return tm_digamma(x + n) - tm_digamma(x);
}

#endif
