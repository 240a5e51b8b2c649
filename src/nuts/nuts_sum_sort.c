/*
** nuts_sum_sort.c -- the sort behind medians, quantiles and ranks.
**
** Every summary of a variable starts from its draws in order (quantiles,
** ranks for the rank-normalisation, the folded draws by merging), so this
** sort is most of a summary's time.  A least-significant-digit radix sort
** of the doubles' bits (flipped so that unsigned order is numeric order)
** in 11-bit digits: a few passes over contiguous arrays, and a pass is
** skipped when every key has the same digit there (the sign and exponent
** bits of draws from one posterior mostly agree).  Short inputs use
** insertion sort.
*/
#include <string.h>
#include "nuts_sum_int.h"

#define DIGIT_BITS 11
#define NDIGITS 6                      /* 6 * 11 >= 64 */
#define NBUCKETS (1u << DIGIT_BITS)
#define SMALL 48

/* Unsigned order of the result = numeric order of x; -0 maps to +0 so the
** two sort together (R compares them equal). */
static uint64_t key_of(double x) {
  uint64_t u;
  if (x == 0) x = 0.0;
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : (u | ((uint64_t)1 << 63));
}

void nsum_argsort(const double *x, size_t n, double *val, uint32_t *idx, nsum_sort_scratch *s) {
  if (n == 0) return;
  if (n <= SMALL) {
    for (size_t i = 0; i < n; i++) {
      double v = x[i];
      uint32_t k = (uint32_t)i;
      size_t j = i;
      while (j > 0 && val[j - 1] > v) { val[j] = val[j - 1]; idx[j] = idx[j - 1]; j--; }
      val[j] = v;
      idx[j] = k;
    }
    return;
  }
  /* Each key carries its draw's position in its lowest `low` bits (in place
     of the lowest bits of the number), so one 64-bit word moves per draw,
     and only the bits above them are sorted on.  Numbers that agree but
     for those bits (within about n * 2^-52 of each other) come out in the
     order of their positions; a last pass puts them in numeric order. */
  int low = 1;
  while (low < 32 && ((size_t)1 << low) < n) low++;
  uint64_t mask = ((uint64_t)1 << low) - 1;
  uint64_t *key = s->key, *key2 = s->key2;
  int first = low / DIGIT_BITS, ndig = NDIGITS;
  uint32_t count[NDIGITS][NBUCKETS];
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < n; i++) {
    uint64_t k = (key_of(x[i]) & ~mask) | (uint64_t)i;
    key[i] = k;
    /* every digit's histogram in the one pass, with constant shifts */
    count[0][k & (NBUCKETS - 1)]++;
    count[1][(k >> 11) & (NBUCKETS - 1)]++;
    count[2][(k >> 22) & (NBUCKETS - 1)]++;
    count[3][(k >> 33) & (NBUCKETS - 1)]++;
    count[4][(k >> 44) & (NBUCKETS - 1)]++;
    count[5][(k >> 55) & (NBUCKETS - 1)]++;
  }
  for (int d = first; d < ndig; d++) {
    uint32_t *c = count[d];
    int sh = DIGIT_BITS * d;
    /* a digit every key shares moves nothing */
    if (c[(key[0] >> sh) & (NBUCKETS - 1)] == n) continue;
    /* the digit's bits that are positions (below `low`) sort nothing
       needed, but moving them costs nothing either */
    uint32_t sum = 0;
    for (uint32_t b = 0; b < NBUCKETS; b++) { uint32_t t = c[b]; c[b] = sum; sum += t; }
    for (size_t i = 0; i < n; i++) key2[c[(key[i] >> sh) & (NBUCKETS - 1)]++] = key[i];
    uint64_t *tk = key; key = key2; key2 = tk;
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t k = (uint32_t)(key[i] & mask);
    idx[i] = k;
    val[i] = x[k];
  }
  /* runs of keys equal above `low`: numeric order within them */
  for (size_t i = 1; i < n; i++) {
    if ((key[i] & ~mask) != (key[i - 1] & ~mask) || !(val[i] < val[i - 1])) continue;
    double v = val[i];
    uint32_t k = idx[i];
    size_t j = i;
    while (j > 0 && (key[j - 1] & ~mask) == (key[i] & ~mask) && val[j - 1] > v) {
      val[j] = val[j - 1]; idx[j] = idx[j - 1]; j--;
    }
    val[j] = v;
    idx[j] = k;
  }
}
