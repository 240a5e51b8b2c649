/*
** tm_simd.c -- the block products of tm_simd.h.
**
** One body, written with vector extensions, compiled twice: for the baseline
** of the target (SSE2 on x86-64) and, on x86-64 with GCC or clang, for AVX2
** with FMA; the first call picks the variant the CPU runs.  Compilers
** without vector extensions get plain loops.
*/
#include <math.h>
#include <string.h>
#include "tm_simd.h"

#if defined(__GNUC__) && !defined(TM_NO_SIMD)

typedef double v4d __attribute__((vector_size(32)));
/* the same vector read from any double address (no alignment promised) */
typedef double v4du __attribute__((vector_size(32), aligned(8)));

#define LOAD(p) (*(const v4du *)(p))
#define STORE(p, v) (*(v4du *)(p) = (v))

/* a macro, not a function: a 32-byte vector argument draws a note on the ABI */
#define hsum(v) (((v)[0] + (v)[1]) + ((v)[2] + (v)[3]))

#define BODY_N                                                                      \
  {                                                                                 \
    size_t k = 0;                                                                   \
    for (; k + 4 <= K; k += 4) {                                                    \
      const double *x0 = x + k * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;   \
      double b0 = beta[k], b1 = beta[k + 1], b2 = beta[k + 2], b3 = beta[k + 3];    \
      v4d B0 = {b0, b0, b0, b0}, B1 = {b1, b1, b1, b1}, B2 = {b2, b2, b2, b2},      \
          B3 = {b3, b3, b3, b3};                                                    \
      size_t r = 0;                                                                 \
      for (; r + 4 <= b; r += 4) {                                                  \
        v4d s = LOAD(t + r);                                                        \
        s += LOAD(x0 + r) * B0;                                                     \
        s += LOAD(x1 + r) * B1;                                                     \
        s += LOAD(x2 + r) * B2;                                                     \
        s += LOAD(x3 + r) * B3;                                                     \
        STORE(t + r, s);                                                            \
      }                                                                             \
      for (; r < b; r++) t[r] += x0[r] * b0 + x1[r] * b1 + x2[r] * b2 + x3[r] * b3; \
    }                                                                               \
    for (; k < K; k++) {                                                            \
      const double *x0 = x + k * ld;                                                \
      double b0 = beta[k];                                                          \
      v4d B0 = {b0, b0, b0, b0};                                                    \
      size_t r = 0;                                                                 \
      for (; r + 4 <= b; r += 4) STORE(t + r, LOAD(t + r) + LOAD(x0 + r) * B0);     \
      for (; r < b; r++) t[r] += x0[r] * b0;                                        \
    }                                                                               \
  }

#define BODY_T                                                                      \
  {                                                                                 \
    size_t k = 0;                                                                   \
    for (; k + 4 <= K; k += 4) {                                                    \
      const double *x0 = x + k * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;   \
      /* two accumulators per column: eight independent chains of adds */           \
      v4d s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0, u0 = s0, u1 = s0, u2 = s0, u3 = s0; \
      size_t r = 0;                                                                 \
      for (; r + 8 <= b; r += 8) {                                                  \
        v4d G = LOAD(g + r), H = LOAD(g + r + 4);                                   \
        s0 += LOAD(x0 + r) * G; u0 += LOAD(x0 + r + 4) * H;                         \
        s1 += LOAD(x1 + r) * G; u1 += LOAD(x1 + r + 4) * H;                         \
        s2 += LOAD(x2 + r) * G; u2 += LOAD(x2 + r + 4) * H;                         \
        s3 += LOAD(x3 + r) * G; u3 += LOAD(x3 + r + 4) * H;                         \
      }                                                                             \
      for (; r + 4 <= b; r += 4) {                                                  \
        v4d G = LOAD(g + r);                                                        \
        s0 += LOAD(x0 + r) * G;                                                     \
        s1 += LOAD(x1 + r) * G;                                                     \
        s2 += LOAD(x2 + r) * G;                                                     \
        s3 += LOAD(x3 + r) * G;                                                     \
      }                                                                             \
      s0 += u0; s1 += u1; s2 += u2; s3 += u3;                                       \
      double a0 = hsum(s0), a1 = hsum(s1), a2 = hsum(s2), a3 = hsum(s3);            \
      for (; r < b; r++) {                                                          \
        a0 += x0[r] * g[r]; a1 += x1[r] * g[r]; a2 += x2[r] * g[r]; a3 += x3[r] * g[r]; \
      }                                                                             \
      acc[k] += a0; acc[k + 1] += a1; acc[k + 2] += a2; acc[k + 3] += a3;           \
    }                                                                               \
    for (; k < K; k++) {                                                            \
      const double *x0 = x + k * ld;                                                \
      v4d s0 = {0, 0, 0, 0};                                                        \
      size_t r = 0;                                                                 \
      for (; r + 4 <= b; r += 4) s0 += LOAD(x0 + r) * LOAD(g + r);                  \
      double a0 = hsum(s0);                                                         \
      for (; r < b; r++) a0 += x0[r] * g[r];                                        \
      acc[k] += a0;                                                                 \
    }                                                                               \
  }

/* exp on four lanes: x = n ln 2 + r, |r| <= ln 2 / 2 (ln 2 in two parts so
** r is exact), exp(r) by its Taylor polynomial to degree 13 (error below
** 2^-53 on that interval), times 2^n built in the exponent bits. */
typedef long long v4l __attribute__((vector_size(32)));
#define BODY_EXP                                                                    \
  {                                                                                 \
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10; \
    const double log2e = 1.4426950408889634074, shift = 6755399441055744.0;       \
    size_t i = 0;                                                                   \
    for (; i + 4 <= n; i += 4) {                                                    \
      v4d v = LOAD(x + i);                                                          \
      int ok = 1;                                                                   \
      for (int k = 0; k < 4; k++) ok &= v[k] > -700.0 && v[k] < 700.0;            \
      if (!ok) {                                                                    \
        for (int k = 0; k < 4; k++) y[i + k] = exp(x[i + k]);                       \
        continue;                                                                   \
      }                                                                             \
      v4d t = v * log2e + shift;                                                    \
      v4d m = t - shift;                  /* n, rounded to nearest */               \
      v4d r = (v - m * ln2_hi) - m * ln2_lo;                                        \
      v4d p = 1.0 / 6227020800.0 + r * 0.0;                                         \
      p = p * r + 1.0 / 479001600.0;                                                \
      p = p * r + 1.0 / 39916800.0;                                                 \
      p = p * r + 1.0 / 3628800.0;                                                  \
      p = p * r + 1.0 / 362880.0;                                                   \
      p = p * r + 1.0 / 40320.0;                                                    \
      p = p * r + 1.0 / 5040.0;                                                     \
      p = p * r + 1.0 / 720.0;                                                      \
      p = p * r + 1.0 / 120.0;                                                      \
      p = p * r + 1.0 / 24.0;                                                       \
      p = p * r + 1.0 / 6.0;                                                        \
      p = p * r + 0.5;                                                              \
      p = p * r + 1.0;                                                              \
      p = p * r + 1.0;                                                              \
      v4l e = __builtin_convertvector(m, v4l);                                      \
      e = (e + 1023) << 52;                                                         \
      v4d s2;                                                                       \
      memcpy(&s2, &e, sizeof s2);                                                   \
      STORE(y + i, p * s2);                                                         \
    }                                                                               \
    for (; i < n; i++) y[i] = exp(x[i]);                                            \
  }

static void exp_base(const double *x, double *y, size_t n) BODY_EXP

static void gemv_n_base(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) BODY_N
static void gemv_t_base(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc) BODY_T

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 6)
#define TM_HAVE_AVX2 1
__attribute__((target("avx2,fma")))
static void gemv_n_avx2(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) BODY_N
__attribute__((target("avx2,fma")))
static void gemv_t_avx2(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc) BODY_T

__attribute__((target("avx2,fma")))
static void exp_avx2(const double *x, double *y, size_t n) BODY_EXP

/* 1 when the CPU runs AVX2 and FMA; asked once (a benign race: every
** thread computes the same answer). */
static int use_avx2(void) {
  static volatile int known = -1;
  if (known < 0) {
    __builtin_cpu_init();
    known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }
  return known;
}
#endif

void tm_block_gemv_n(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) { gemv_n_avx2(x, ld, K, b, beta, t); return; }
#endif
  gemv_n_base(x, ld, K, b, beta, t);
}

void tm_block_gemv_t(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) { gemv_t_avx2(x, ld, K, b, g, acc); return; }
#endif
  gemv_t_base(x, ld, K, b, g, acc);
}

void tm_block_exp(const double *x, double *y, size_t n) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) { exp_avx2(x, y, n); return; }
#endif
  exp_base(x, y, n);
}

#else   /* no vector extensions */

void tm_block_exp(const double *x, double *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = exp(x[i]);
}

void tm_block_gemv_n(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) {
  for (size_t k = 0; k < K; k++) {
    const double *xk = x + k * ld;
    double bk = beta[k];
    for (size_t r = 0; r < b; r++) t[r] += xk[r] * bk;
  }
}

void tm_block_gemv_t(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc) {
  for (size_t k = 0; k < K; k++) {
    const double *xk = x + k * ld;
    double s = 0;
    for (size_t r = 0; r < b; r++) s += xk[r] * g[r];
    acc[k] += s;
  }
}

#endif
