/*
** tm_rng.c -- the generator behind every _rng function.
**
** xoshiro256++ (Blackman and Vigna): small state, fast, passes BigCrush.
** The state is always explicit (a chain owns its own), never global, so
** chains stay independent and a run is reproducible from (seed, stream).
*/
#include <math.h>
#include "../tm.h"

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Seed and stream go through splitmix64 separately and are mixed, so nearby
** seeds and nearby streams give unrelated states. */
void tm_rng_seed(tm_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t a = seed, b = stream ^ 0x6a09e667f3bcc909ULL;
  uint64_t ha = splitmix64(&a), hb = splitmix64(&b);
  uint64_t x = ha ^ (hb * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tm_rng_next(tm_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[0] + s[3], 23) + s[0];
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

/* 53 random bits, offset by half a unit so 0 and 1 never occur. */
double tm_rng_uniform(tm_rng *r) {
  return ((double)(tm_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Marsaglia's polar method; the spare value is not cached so that the
** generator's state alone determines the stream. */
double tm_rng_normal(tm_rng *r) {
  double u, v, s;
  do {
    u = 2.0 * tm_rng_uniform(r) - 1.0;
    v = 2.0 * tm_rng_uniform(r) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return u * sqrt(-2.0 * log(s) / s);
}
