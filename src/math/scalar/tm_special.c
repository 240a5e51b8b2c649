/*
** tm_special.c -- special functions, written for accuracy at the edges.
**
** The branches follow Stan Math's choices (the cut-offs of Phi and
** inv_logit, the rearrangements of log1p_exp and log_diff_exp) so values
** agree with Stan's where it matters: in the tails.
*/
#define _DEFAULT_SOURCE 1   /* lgamma_r */
#include <math.h>
#include <float.h>
#include "../tm_special.h"

/* MinGW-w64 has no lgamma_r: its lgamma calls the reentrant __lgamma_r
** with the global signgam, so that is the one to call from threads
** (tools/cross-windows.sh's link shows it resolves). */
#ifdef _WIN32
double __lgamma_r(double x, int *sign);
#define lgamma_r __lgamma_r
#else
double lgamma_r(double x, int *sign);
#endif

double tm_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

/* lgamma(n + 1) of small counts, computed once at load by lgamma_r itself
** (so the table gives the same bits): count densities evaluate it per
** observation, and a lookup is twenty times cheaper. */
double tm_lfact_table[TM_LFACT_N];

void tm_special_init(void) {
  for (int i = 0; i < TM_LFACT_N; i++) tm_lfact_table[i] = tm_lgamma((double)i + 1);
}

/* Recurrence up to x >= 10 (two steps at a time), then the asymptotic series in 1/x^2 (its next
** term is below 1e-17 there); negative x through the reflection formula. */
double tm_digamma(double x) {
  if (isnan(x) || x == -INFINITY) return NAN;
  if (x <= 0 && floor(x) == x) return NAN;
  if (x == INFINITY) return INFINITY;
  double acc = 0;
  if (x < 0) {
    acc = -TM_PI / tan(TM_PI * x);
    x = 1 - x;
  }
  /* two steps per division: 1/x + 1/(x+1) = (2x + 1) / (x (x + 1)), all
     terms positive, so nothing cancels (a division costs as much as the
     rest of the step) */
  while (x < 9) { acc -= (2 * x + 1) / (x * (x + 1)); x += 2; }
  if (x < 10) { acc -= 1 / x; x += 1; }
  double z = 1 / (x * x);
  double s = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132
             - z * (691.0 / 32760 - z * (1.0 / 12)))))));
  return acc + log(x) - 0.5 / x - s;
}

double tm_trigamma(double x) {
  if (isnan(x) || x == -INFINITY) return NAN;
  if (x <= 0 && floor(x) == x) return NAN;
  if (x == INFINITY) return 0;
  if (x < 0) {
    double s = sin(TM_PI * x);
    return -tm_trigamma(1 - x) + TM_PI * TM_PI / (s * s);
  }
  double acc = 0;
  while (x < 10) { acc += 1 / (x * x); x += 1; }
  double z = 1 / (x * x);
  /* 1/x + 1/(2x^2) + sum B_2k / x^(2k+1) */
  double s = 1 / x + 0.5 * z + (z / x) * (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30
             - z * (5.0 / 66 - z * (691.0 / 2730 - z * (7.0 / 6)))))));
  return acc + s;
}

/* log Gamma(x) - Stirling's approximation, for x >= 10 (Stan's
** lgamma_stirling_diff), so lbeta of large arguments loses no digits to
** cancellation. */
static double stirling_diff(double x) {
  double z = 1 / (x * x);
  return (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 - z * (1.0 / 1188
          - z * (691.0 / 360360 - z * (1.0 / 156))))))) / x;
}

double tm_lbeta(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  double x = a < b ? a : b, y = a < b ? b : a;   /* x <= y */
  if (x == 0) return INFINITY;
  if (isinf(y)) return -INFINITY;
  if (y < 10) return tm_lgamma(x) + tm_lgamma(y) - tm_lgamma(x + y);
  double r = x / (x + y);
  if (x < 10) {
    /* lgamma(x) + stirling(y) - stirling(x + y) */
    double sd = stirling_diff(y) - stirling_diff(x + y);
    return tm_lgamma(x) + sd + x - x * log(x + y) + (y - 0.5) * log1p(-r);
  }
  double sd = stirling_diff(x) + stirling_diff(y) - stirling_diff(x + y);
  return -0.5 * log(y) + TM_LOG_SQRT_2PI + sd + (x - 0.5) * log(r) + y * log1p(-r);
}

/* lgamma(x + n) - lgamma(x) and digamma(x + n) - digamma(x), x > 0 and
** x + n > 0, without the cancellation of the plain differences when n is
** small against x (log_rising_factorial(200, 1e-8) lost six digits).  Both
** arguments are shifted up to 10 or more by the recurrences, whose terms
** pair into log1p(n / (x + j)) and n / ((x + j) (x + n + j)); above 10 the
** difference of Stirling's series is taken term by term. */
double tm_lgamma_diff(double x, double n) {
  if (isnan(x) || isnan(n)) return NAN;
  if (!(x > 0 && x + n > 0) || isinf(x) || isinf(n)) return tm_lgamma(x + n) - tm_lgamma(x);
  double acc = 0;
  while (x < 10 || x + n < 10) { acc -= log1p(n / x); x += 1; }
  /* (x + n - 1/2) log(x + n) - (x - 1/2) log(x) - n, regrouped, and the
     difference of the two Stirling corrections, each of whose terms
     b_k (y^-(2k+1) - x^-(2k+1)) is formed from y^-1 - x^-1 = -n / (x y)
     (their plain difference would lose what a small n changes) */
  double y = x + n, ix = 1 / x, iy = 1 / y, d1 = -n / (x * y), z2x = ix * ix, z2y = iy * iy;
  static const double b[] = {1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156};
  /* pw = y^-m - x^-m for odd m, by pw(m + 2) = y^-2 pw(m) + x^-m (y^-2 - x^-2) */
  double dz2 = d1 * (iy + ix), pw = d1, xm = ix, sd = 0;
  for (int k = 0; k < 7; k++) {
    sd += b[k] * pw;
    pw = z2y * pw + xm * dz2;
    xm *= z2x;
  }
  return acc + (x - 0.5) * log1p(n / x) + n * log(y) - n + sd;
}

double tm_digamma_diff(double x, double n) {
  if (isnan(x) || isnan(n)) return NAN;
  if (!(x > 0 && x + n > 0) || isinf(x) || isinf(n)) return tm_digamma(x + n) - tm_digamma(x);
  double acc = 0;
  while (x < 10 || x + n < 10) { acc += n / (x * (x + n)); x += 1; }
  /* log z - 1/(2z) - sum_k c_k z^-2k at z = x + n minus at z = x, each
     power's difference built from y^-2 - x^-2 = -n (x + y) / (x y)^2 */
  double y = x + n, zx = 1 / (x * x), zy = 1 / (y * y), dz = -n * (x + y) * zx * zy;
  static const double c[] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12};
  double pw = dz, xm = zx, ser = 0;      /* pw = y^-2k - x^-2k */
  for (int k = 0; k < 7; k++) {
    ser += c[k] * pw;
    pw = zy * pw + xm * dz;
    xm *= zx;
  }
  return acc + log1p(n / x) + 0.5 * n / (x * y) - ser;
}

double tm_lchoose(double n, double k) {
  if (isnan(n) || isnan(k)) return NAN;
  if (k == 0) return 0;
  if (n > -1 && k > n / 2 + 1e-8) return tm_lchoose(n, n - k);
  return -tm_lbeta(n - k + 1, k + 1) - log1p(n);
}

double tm_log1p_exp(double a) {
  if (a > 0) return a + log1p(exp(-a));
  return log1p(exp(a));
}

double tm_log1m_exp(double a) {
  if (a > 0) return NAN;
  if (a > -0.693147) return log(-expm1(a));
  return log1p(-exp(a));
}

double tm_log_sum_exp2(double a, double b) {
  if (a == -INFINITY) return b;
  if (a == INFINITY && b == INFINITY) return INFINITY;
  if (a > b) return a + tm_log1p_exp(b - a);
  return b + tm_log1p_exp(a - b);
}

void tm_softmax(const double *x, size_t n, int log_form, double *out) {
  double m = -INFINITY, s = 0;
  for (size_t i = 0; i < n; i++) if (x[i] > m) m = x[i];
  if (!isfinite(m)) m = 0;
  for (size_t i = 0; i < n; i++) s += exp(x[i] - m);
  if (log_form) {
    double lse = m + log(s);
    for (size_t i = 0; i < n; i++) out[i] = x[i] - lse;
  } else {
    for (size_t i = 0; i < n; i++) out[i] = exp(x[i] - m) / s;
  }
}

double tm_lse_partials(const double *x, size_t n, double *d) {
  double m = -INFINITY, f;
  int nan = 0;
  for (size_t k = 0; k < n; k++) {
    double t = x[k] + (double)0;
    if (isnan(t)) { nan = 1; break; }
    if (t > m) m = t;
  }
  if (nan || isinf(m)) {
    f = nan ? NAN : m;
    if (d) for (size_t k = 0; k < n; k++) d[k] = exp(x[k] - f);
    return f;
  }
  /* the terms, kept in d: the partials are the softmax, term / sum */
  double s = 0;
  for (size_t k = 0; k < n; k++) {
    double t = x[k] + (double)0 - m, e = t == 0 ? 1.0 : exp(t);
    if (d) d[k] = e;
    s += e;
  }
  f = m + log(s);
  if (d) for (size_t k = 0; k < n; k++) d[k] /= s;
  return f;
}

double tm_log_mix3(double th, double log_th, double log1m_th, double l1, double l2, double *p) {
  double la = log_th + l1, lb = log1m_th + l2;
  if (th > 0 && th < 1 && isfinite(la) && isfinite(lb)) {
    /* tm_log_sum_exp2's sum, its exp kept: the weights of the two terms
       are 1 / (1 + d) and d / (1 + d), so the partials need no exp more */
    double hi = la > lb ? la : lb, lo = la > lb ? lb : la;
    double d = exp(lo - hi), f = hi + log1p(d);
    if (p) {
      double w = 1 / (1 + d), wd = d * w;
      double wa = la > lb ? w : wd, wb = la > lb ? wd : w;
      p[0] = wa / th - wb / (1 - th);
      p[1] = wa;
      p[2] = wb;
    }
    return f;
  }
  double f = tm_log_sum_exp2(la, lb);
  if (p) {
    double e1 = exp(l1 - f), e2 = exp(l2 - f);
    p[0] = e1 - e2;
    p[1] = th * e1;
    p[2] = (1 - th) * e2;
  }
  return f;
}

double tm_log_diff_exp(double a, double b) {
  if (a <= b) return (a < INFINITY && a == b) ? -INFINITY : NAN;
  return a + tm_log1m_exp(b - a);
}

double tm_inv_logit(double u) {
  if (u < 0) {
    double e = exp(u);
    if (u < log(DBL_EPSILON)) return e;
    return e / (1 + e);
  }
  return 1 / (1 + exp(-u));
}

double tm_log_inv_logit(double u) {
  if (u < 0) return u - log1p(exp(u));
  return -log1p(exp(-u));
}

double tm_log1m_inv_logit(double u) {
  if (u > 0) return -u - log1p(exp(-u));
  return -log1p(exp(u));
}

double tm_logit(double u) { return log(u / (1 - u)); }

double tm_Phi(double x) {
  if (x < -37.5) return 0;
  if (x < -5) return 0.5 * erfc(-TM_INV_SQRT_2 * x);
  if (x > 8.25) return 1;
  return 0.5 * (1 + erf(TM_INV_SQRT_2 * x));
}

double tm_log1m(double x) { return log1p(-x); }
