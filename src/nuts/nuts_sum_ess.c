/*
** nuts_sum_ess.c -- split R-hat and effective sample size of split chains.
**
** nsum_rhat is posterior's .rhat() and nsum_ess its .ess(), step for step:
** Geyer's initial positive and monotone sequences with posterior's
** boundaries, the sum of the sequence over 1:max_t as R indexes it (1:0
** is c(1, 0), so max_t = 0 counts the first term), the cap at
** 1 / log10(S).
**
** Column statistics come two ways.  For the draws themselves (ess_mean,
** rhat_basic, the MCSEs) R's own sums are repeated (nsum_colstats:
** matrixStats's double sums, R's long double mean() and var()), since a
** posterior far from zero makes the between-chain variance a difference
** of large numbers, and only the same sums give the same difference.  The
** rank-normalised draws and the 0/1 indicators of the tail ESS are
** bounded (|z| < 6), where any sum in double is the same to about 1e-16 of
** the result, so they take the fast road: two passes in double with
** several accumulators (nsum_colstats_fast), and for the indicators
** counts of bits.
**
** The autocovariances: posterior normalises each chain's FFT
** autocorrelation by its lag 0 and scales it to var(x) (N - 1) / N.  Here
** the lags Geyer's sequence reaches are summed directly, a few at a time,
** which for a well mixing chain is a handful of lags; past DIRECT_MAX lags
** the rest come from one FFT (nuts_sum_fft.c), two chains per transform.
** For 0/1 indicators the lag sums are counts: sum (x_i - p)(x_i+k - p) =
** n11(k) - p (ones in the first r - k + ones in the last r - k) + (r - k) p^2,
** with n11(k) the ones common to the chain and its shift by k, a popcount.
** Either way the lag-k value is (D_k / D_0) var(x) (N - 1) / N, posterior's
** up to rounding.
*/
#include <math.h>
#include <string.h>
#include "nuts_sum_int.h"

#define DIRECT_BLOCK 4        /* lags summed directly at a time */
#define DIRECT_MAX 64         /* beyond this lag the FFT is cheaper */

/* Per column: matrixStats's colMeans2 (cm: a double sum), R's mean()
** (mean01 for a logical matrix: one long double pass) and var() (R's
** MEAN_, whose two long double passes are real_mean's, then the squares). */
void nsum_colstats(const double *x, int r, int c, int logical, double na,
                   double *cm, double *mean, double *var) {
  for (int j = 0; j < c; j++) {
    const double *col = x + (size_t)j * (size_t)r;
    cm[j] = nsum_colmean2(col, (size_t)r, 1);
    long double s = 0.0L;
    for (int i = 0; i < r; i++) s += col[i];
    long double tmp = s / (long double)r;
    double m01 = (double)tmp;
    if (isfinite((double)tmp)) {
      long double t = 0.0L;
      for (int i = 0; i < r; i++) t += (col[i] - tmp);
      tmp = tmp + t / (long double)r;
    }
    double xm = (double)tmp;
    mean[j] = logical ? m01 : xm;
    if (r <= 1) { var[j] = na; continue; }
    long double q = 0.0L;
    for (int i = 0; i < r; i++) q += (long double)(col[i] - xm) * (col[i] - xm);
    var[j] = (double)(q / (long double)(r - 1));
  }
}

/* Bounded values: column means and variances around them, in double,
** four accumulators a sum.  A constant column gets its value and 0
** exactly, as R's sums give them (a sum in another order could leave a
** variance of 1e-33 where R has 0). */
void nsum_colstats_fast(const double *x, int r, int c, double *cm, double *var) {
  for (int j = 0; j < c; j++) {
    const double *col = x + (size_t)j * (size_t)r;
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, v0 = col[0];
    int i = 0, differ = 0;
    for (; i + 3 < r; i += 4) {
      a0 += col[i]; a1 += col[i + 1]; a2 += col[i + 2]; a3 += col[i + 3];
      differ |= (col[i] != v0) | (col[i + 1] != v0) | (col[i + 2] != v0) | (col[i + 3] != v0);
    }
    for (; i < r; i++) { a0 += col[i]; differ |= col[i] != v0; }
    if (!differ) { cm[j] = v0; var[j] = 0; continue; }
    double m = ((a0 + a1) + (a2 + a3)) / (double)r;
    cm[j] = m;
    a0 = a1 = a2 = a3 = 0;
    for (i = 0; i + 3 < r; i += 4) {
      double d0 = col[i] - m, d1 = col[i + 1] - m, d2 = col[i + 2] - m, d3 = col[i + 3] - m;
      a0 += d0 * d0; a1 += d1 * d1; a2 += d2 * d2; a3 += d3 * d3;
    }
    for (; i < r; i++) { double d = col[i] - m; a0 += d * d; }
    var[j] = r > 1 ? ((a0 + a1) + (a2 + a3)) / (double)(r - 1) : 0;
  }
}

/* posterior's should_return_NA(): any NaN or infinite value, or a
** constant matrix (max - min below DBL_EPSILON). */
int nsum_bad(const double *x, size_t n) {
  if (n == 0) return 1;
  double lo = x[0], hi = x[0];
  for (size_t k = 0; k < n; k++) {
    double v = x[k];
    if (!isfinite(v)) return 1;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return fabs(hi - lo) < 2.220446049250313080847e-16;
}

/* matrixStats::colVars(x, center = cm): base colMeans (long double) of
** the squared deviations, times r / (r - 1). */
void nsum_colvars(const double *x, int r, int c, const double *cm, double *cv) {
  double f = (double)r / (double)(r - 1);
  for (int j = 0; j < c; j++) {
    const double *col = x + (size_t)j * (size_t)r;
    long double s = 0.0L;
    for (int i = 0; i < r; i++) { double d = col[i] - cm[j]; s += d * d; }
    cv[j] = (double)(s / (long double)r) * f;
  }
}

/* .rhat() from the column means and variances (r > 1). */
double nsum_rhat(int r, int c, double na, const double *cm, const double *cv) {
  double var_between = (double)r * nsum_var(cm, (size_t)c, na);
  double var_within = nsum_mean(cv, (size_t)c);
  return sqrt((var_between / var_within + (double)r - 1) / (double)r);
}

/* ---- autocovariances, computed as far as Geyer's sequence asks ---- */

typedef struct acov {
  int r, c;
  nsum_ess_scratch *s;
  const double *varx;    /* per column; 0: posterior's autocovariance is all 0 */
  const uint64_t *bits;  /* indicators: each column's bits (words per column), or NULL */
  const int *count;      /* indicators: ones per column */
  int words;
  int have;              /* lags 0 .. have - 1 are in s->means */
} acov;

/* Lag k of a column from its lag sum d and lag-0 sum d0, posterior's scaling. */
static double scale(double d, double d0, double varx, int r) {
  return d / d0 * varx * (double)(r - 1) / (double)r;
}

/* matrixStats::rowMeans2 of the columns' autocovariances */
static void finish_lags(acov *a, int from, int to) {
  int r = a->r, c = a->c;
  for (int k = from; k < to; k++) a->s->means[k] = nsum_colmean2(a->s->ac + k, (size_t)c, (size_t)r);
}

static void direct(acov *a, int to) {
  int r = a->r, c = a->c;
  for (int j = 0; j < c; j++) {
    const double *y = a->s->yc + (size_t)j * (size_t)r;
    double *ac = a->s->ac + (size_t)j * (size_t)r;
    double *d0 = a->s->colv + j;
    int k = a->have;
    if (a->varx[j] == 0) { for (; k < to; k++) ac[k] = 0; continue; }
    /* four lags at once: four independent sums, each in index order */
    for (; k + 3 < to; k += 4) {
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int m = r - k - 3, i = 0;
      for (; i < m; i++) {
        double v = y[i];
        s0 += v * y[i + k]; s1 += v * y[i + k + 1]; s2 += v * y[i + k + 2]; s3 += v * y[i + k + 3];
      }
      for (; i < r - k; i++) {
        double v = y[i];
        s0 += v * y[i + k];
        if (i + k + 1 < r) s1 += v * y[i + k + 1];
        if (i + k + 2 < r) s2 += v * y[i + k + 2];
      }
      if (k == 0) *d0 = s0;
      ac[k] = scale(s0, *d0, a->varx[j], r);
      ac[k + 1] = scale(s1, *d0, a->varx[j], r);
      ac[k + 2] = scale(s2, *d0, a->varx[j], r);
      ac[k + 3] = scale(s3, *d0, a->varx[j], r);
    }
    for (; k < to; k++) {
      double s0 = 0;
      for (int i = 0; i < r - k; i++) s0 += y[i] * y[i + k];
      if (k == 0) *d0 = s0;
      ac[k] = scale(s0, *d0, a->varx[j], r);
    }
  }
  finish_lags(a, a->have, to);
  a->have = to;
}

/* bits set in a word (the builtin is a call without -mpopcnt) */
static int ones64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ULL);
  v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return (int)((v * 0x0101010101010101ULL) >> 56);
}

/* ones among x_i x_i+k, i < r - k, of a column of bits */
static int common_ones(const uint64_t *b, int words, int k) {
  int s = k / 64, t = k % 64, n = 0;
  for (int q = 0; q + s < words; q++) {
    uint64_t sh = b[q + s] >> t;
    if (t && q + s + 1 < words) sh |= b[q + s + 1] << (64 - t);
    n += ones64(b[q] & sh);
  }
  return n;
}

/* Indicator columns: the lag sums from counts of bits. */
static void direct_bits(acov *a, int to) {
  int r = a->r, c = a->c;
  for (int j = 0; j < c; j++) {
    double *ac = a->s->ac + (size_t)j * (size_t)r;
    const uint64_t *b = a->bits + (size_t)j * (size_t)a->words;
    const int *pre = (const int *)(a->s->yc) + (size_t)j * (size_t)(r + 1);   /* prefix counts */
    int n1 = a->count[j];
    double p = (double)n1 / (double)r;
    double d0 = (double)n1 - p * (2.0 * n1) + (double)r * p * p;
    for (int k = a->have; k < to; k++) {
      if (a->varx[j] == 0) { ac[k] = 0; continue; }
      double first = pre[r - k], last = (double)(n1 - pre[k]);
      double d = (double)common_ones(b, a->words, k) - p * (first + last) + (double)(r - k) * p * p;
      ac[k] = scale(d, d0, a->varx[j], r);
    }
  }
  finish_lags(a, a->have, to);
  a->have = to;
}

/* Every remaining lag by FFT: two real columns per complex transform. */
static void by_fft(acov *a) {
  int r = a->r, c = a->c;
  nsum_ess_scratch *s = a->s;
  size_t P = 1;
  while (P < 2 * (size_t)r) P <<= 1;
  if (s->fft_n != P) { nsum_fft_twiddles(s->tw, P); s->fft_n = P; }
  double *z = s->fft;
  for (int j = 0; j < c; j += 2) {
    int two = j + 1 < c;
    const double *ya = s->yc + (size_t)j * (size_t)r;
    const double *yb = two ? s->yc + (size_t)(j + 1) * (size_t)r : NULL;
    for (size_t i = 0; i < P; i++) {
      z[2 * i] = i < (size_t)r ? ya[i] : 0.0;
      z[2 * i + 1] = (two && i < (size_t)r) ? yb[i] : 0.0;
    }
    nsum_fft(z, P, s->tw, 0);
    /* the power spectra of both columns, as one complex sequence */
    for (size_t k = 0; k <= P / 2; k++) {
      size_t q = (P - k) & (P - 1);
      double ar = z[2 * k], ai = z[2 * k + 1], br = z[2 * q], bi = z[2 * q + 1];
      double pa = ((ar + br) * (ar + br) + (ai - bi) * (ai - bi)) / 4;
      double pb = ((ai + bi) * (ai + bi) + (ar - br) * (ar - br)) / 4;
      z[2 * k] = pa; z[2 * k + 1] = pb;
      z[2 * q] = pa; z[2 * q + 1] = pb;
    }
    nsum_fft(z, P, s->tw, 1);
    for (int h = 0; h < 1 + two; h++) {
      int col = j + h;
      double *ac = s->ac + (size_t)col * (size_t)r;
      double w0 = z[h];
      for (int k = a->have; k < r; k++)
        ac[k] = a->varx[col] == 0 ? 0 : scale(z[2 * (size_t)k + (size_t)h], w0, a->varx[col], r);
    }
  }
  finish_lags(a, a->have, r);
  a->have = r;
}

/* The mean over columns of the autocovariance at lag k. */
static double lag(acov *a, int k) {
  if (k >= a->have) {
    int to = a->have + DIRECT_BLOCK;
    if (to <= k) to = k + 1;
    if (to > a->r) to = a->r;
    if (a->bits) direct_bits(a, to);
    else if (k < DIRECT_MAX) direct(a, to);
    else by_fft(a);
  }
  return a->s->means[k];
}

/* Geyer's sequences and the ESS (.ess() after its autocovariances). */
static double geyer(acov *a, double var_cm, long *capped) {
  int r = a->r, c = a->c;
  double mean_var = lag(a, 0) * (double)r / (double)(r - 1);
  double var_plus = mean_var * (double)(r - 1) / (double)r;
  if (c > 1) var_plus = var_plus + var_cm;
  double *rho = a->s->rho;
  memset(rho, 0, (size_t)r * sizeof *rho);
  int t = 0;
  double even = 1, odd = 1 - (mean_var - lag(a, 1)) / var_plus;
  rho[0] = even;
  rho[1] = odd;
  while (t < r - 5 && !isnan(even + odd) && (even + odd > 0)) {
    t += 2;
    even = 1 - (mean_var - lag(a, t)) / var_plus;
    odd = 1 - (mean_var - lag(a, t + 1)) / var_plus;
    if ((even + odd) >= 0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
  int max_t = t;
  if (even > 0) rho[max_t] = even;
  t = 0;
  while (t <= max_t - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }
  double ess = (double)c * (double)r;
  double tau = -1 + 2 * nsum_sum(rho, max_t > 0 ? (size_t)max_t : 1) + rho[max_t];
  double bound = 1 / log10(ess);
  if (tau < bound) {
    (*capped)++;
    tau = bound;
  }
  return ess / tau;
}

double nsum_ess(const double *x, int r, int c, double na, const double *cm,
                const double *mean, const double *varx, nsum_ess_scratch *s, long *capped) {
  if (r < 3) return na;
  for (int j = 0; j < c; j++) {
    const double *col = x + (size_t)j * (size_t)r;
    double *y = s->yc + (size_t)j * (size_t)r;
    for (int i = 0; i < r; i++) y[i] = col[i] - mean[j];
  }
  acov a = { r, c, s, varx, NULL, NULL, 0, 0 };
  return geyer(&a, c > 1 ? nsum_var(cm, (size_t)c, na) : 0, capped);
}

double nsum_ess_bits(const double *x, int r, int c, double na, nsum_ess_scratch *s, long *capped) {
  if (r < 3) return na;
  int words = (r + 63) / 64;
  uint64_t *bits = s->bits;
  int *count = (int *)s->colv, *pre = (int *)s->yc;
  double *cm = s->cm, *varx = s->cm + c;
  memset(bits, 0, (size_t)words * (size_t)c * sizeof *bits);
  size_t ones = 0;
  for (int j = 0; j < c; j++) {
    const double *col = x + (size_t)j * (size_t)r;
    uint64_t *b = bits + (size_t)j * (size_t)words;
    int *p = pre + (size_t)j * (size_t)(r + 1);
    int n = 0;
    p[0] = 0;
    for (int i = 0; i < r; i++) {
      if (col[i] != 0) { b[i / 64] |= (uint64_t)1 << (i % 64); n++; }
      p[i + 1] = n;
    }
    count[j] = n;
    ones += (size_t)n;
    double m = (double)n / (double)r;
    cm[j] = m;
    varx[j] = (double)n * (1 - m) / (double)(r - 1);
  }
  if (ones == 0 || ones == (size_t)r * (size_t)c) return na;     /* constant */
  acov a = { r, c, s, varx, bits, count, words, 0 };
  return geyer(&a, c > 1 ? nsum_var(cm, (size_t)c, na) : 0, capped);
}
