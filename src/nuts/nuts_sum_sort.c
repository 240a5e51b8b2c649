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
  uint64_t *key = s->key, *key2 = s->key2;
  uint32_t *ix = s->ix, *ix2 = s->ix2;
  static const int shift[NDIGITS] = { 0, 11, 22, 33, 44, 55 };
  uint32_t count[NDIGITS][NBUCKETS];
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < n; i++) {
    uint64_t k = key_of(x[i]);
    key[i] = k;
    ix[i] = (uint32_t)i;
    for (int d = 0; d < NDIGITS; d++) count[d][(k >> shift[d]) & (NBUCKETS - 1)]++;
  }
  for (int d = 0; d < NDIGITS; d++) {
    uint32_t *c = count[d];
    /* a digit every key shares moves nothing */
    if (c[(key[0] >> shift[d]) & (NBUCKETS - 1)] == n) continue;
    uint32_t sum = 0;
    for (uint32_t b = 0; b < NBUCKETS; b++) { uint32_t t = c[b]; c[b] = sum; sum += t; }
    for (size_t i = 0; i < n; i++) {
      uint32_t b = (uint32_t)((key[i] >> shift[d]) & (NBUCKETS - 1));
      uint32_t at = c[b]++;
      key2[at] = key[i];
      ix2[at] = ix[i];
    }
    uint64_t *tk = key; key = key2; key2 = tk;
    uint32_t *ti = ix; ix = ix2; ix2 = ti;
  }
  for (size_t i = 0; i < n; i++) {
    idx[i] = ix[i];
    val[i] = x[ix[i]];
  }
}
