/*
** nuts_sum_fft.c -- a radix-2 FFT for long autocovariances.
**
** posterior computes every autocovariance with an FFT.  Most ESS
** estimates stop after a few lags, which nuts_sum_ess.c sums directly;
** a slowly mixing chain needs the autocovariances at many lags, and then
** one transform of the zero-padded chain (length a power of two at least
** twice the chain's, so the circular correlation is the linear one) is
** cheaper than the direct sums.  Any padding of at least 2n - 1 gives the
** same autocovariances up to rounding, which is all posterior's own
** length (2 * nextn(n)) promises too.
*/
#include <math.h>
#include <stddef.h>
#include "nuts_sum_int.h"

/* tw[2k], tw[2k+1] = cos, sin of 2 pi k / n, k < n / 2 */
void nsum_fft_twiddles(double *tw, size_t n) {
  const double pi = 3.14159265358979323846;
  for (size_t k = 0; k < n / 2; k++) {
    double a = 2.0 * pi * (double)k / (double)n;
    tw[2 * k] = cos(a);
    tw[2 * k + 1] = sin(a);
  }
}

void nsum_fft(double *z, size_t n, const double *tw, int inverse) {
  /* bit-reversed order */
  for (size_t i = 1, j = 0; i < n; i++) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      double t = z[2 * i]; z[2 * i] = z[2 * j]; z[2 * j] = t;
      t = z[2 * i + 1]; z[2 * i + 1] = z[2 * j + 1]; z[2 * j + 1] = t;
    }
  }
  double sgn = inverse ? 1.0 : -1.0;
  for (size_t len = 2; len <= n; len <<= 1) {
    size_t half = len >> 1, step = n / len;
    for (size_t i = 0; i < n; i += len) {
      for (size_t k = 0; k < half; k++) {
        double wr = tw[2 * k * step], wi = sgn * tw[2 * k * step + 1];
        double *a = z + 2 * (i + k), *b = z + 2 * (i + k + half);
        double xr = b[0] * wr - b[1] * wi, xi = b[0] * wi + b[1] * wr;
        b[0] = a[0] - xr;
        b[1] = a[1] - xi;
        a[0] += xr;
        a[1] += xi;
      }
    }
  }
}
