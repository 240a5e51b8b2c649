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

/* log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)), and inv_logit(z) and
** inv_logit(-z) from the same exp: 1 / (1 + e) and e / (1 + e), e = exp(-|z|),
** so neither loses digits to a difference from 1. */
static void log1p_exp_lane(double z, double *l, double *p, double *q) {
  double e = exp(-fabs(z)), w = 1 / (1 + e);
  *l = (z > 0 ? z : 0) + log1p(e);
  *p = z > 0 ? w : e * w;
  *q = z > 0 ? e * w : w;
}

/* Bernoulli-logit rows: with s = 2 y - 1 and u = s eta, the row's term is
** log inv_logit(u) = -log1p_exp(-u) and its derivative in eta s inv_logit(-u). */
static double bernoulli_lane(double y, double eta, double *t) {
  double s = 2 * y - 1, l, p, q;
  log1p_exp_lane(-s * eta, &l, &p, &q);
  *t = s * p;
  return -l;
}

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

/* ---- exp and log1p on four lanes ----
** exp: x = n ln 2 + r, |r| <= ln 2 / 2 (ln 2 in two parts so r is exact),
** exp(r) by its Taylor polynomial to degree 13 (error below 2^-53 on that
** interval), times 2^n built in the exponent bits.  The polynomial by
** Estrin's scheme: the lanes' work is one long chain of dependent
** operations, and a short chain lets the CPU overlap more rows.  Lanes in [-700, 700].
** log1p: fdlibm's (as musl has it): 1 + x = 2^k (1 + f) with 1 + f in
** [sqrt(1/2), sqrt(2)), the rounding of 1 + x corrected by c / (1 + x), and
** log(1 + f) from s = f / (2 + f) by a polynomial in s^2; within 1 ulp.
** Lanes in (-0.2928, 1.8), where k is 0 or 1.  Callers test the lanes and
** send a vector with any lane outside to libm, lane by lane. */
typedef long long v4l __attribute__((vector_size(32)));
typedef unsigned long long v4ul __attribute__((vector_size(32)));
#define SPLAT(c) ((v4d){(c), (c), (c), (c)})
/* a where the mask is set, else b (masks are all-ones or zero lanes) */
#define SEL(m, a, b) ((v4d)(((m) & (v4l)(a)) | (~(m) & (v4l)(b))))
#define EXP_OK(v) (((v)[0] > -700.0 && (v)[0] < 700.0) & ((v)[1] > -700.0 && (v)[1] < 700.0) & \
                   ((v)[2] > -700.0 && (v)[2] < 700.0) & ((v)[3] > -700.0 && (v)[3] < 700.0))

#define V_EXP(v, out)                                                                \
  do {                                                                               \
    v4d t_ = (v) * 1.4426950408889634074 + 6755399441055744.0;                       \
    v4d m_ = t_ - 6755399441055744.0;          /* n, rounded to nearest */            \
    v4d r_ = ((v) - m_ * 6.93147180369123816490e-01) - m_ * 1.90821492927058770002e-10; \
    /* Estrin's scheme: four levels of multiply-adds instead of Horner's */        \
    v4d r2_ = r_ * r_, r4_ = r2_ * r2_, r8_ = r4_ * r4_;                             \
    v4d q0_ = 1.0 + r_, q1_ = 0.5 + r_ * (1.0 / 6.0);                                 \
    v4d q2_ = 1.0 / 24.0 + r_ * (1.0 / 120.0), q3_ = 1.0 / 720.0 + r_ * (1.0 / 5040.0); \
    v4d q4_ = 1.0 / 40320.0 + r_ * (1.0 / 362880.0);                                 \
    v4d q5_ = 1.0 / 3628800.0 + r_ * (1.0 / 39916800.0);                             \
    v4d q6_ = 1.0 / 479001600.0 + r_ * (1.0 / 6227020800.0);                         \
    v4d s0_ = q0_ + q1_ * r2_, s1_ = q2_ + q3_ * r2_, s2_ = q4_ + q5_ * r2_;          \
    v4d p_ = (s0_ + s1_ * r4_) + (s2_ + q6_ * r4_) * r8_;                            \
    /* n sits in the low bits of t_ (AVX2 has no double-to-int64 conversion) */       \
    v4l e_ = ((v4l)t_ - (v4l)SPLAT(6755399441055744.0) + 1023) << 52;                \
    (out) = p_ * (v4d)e_;                                                            \
  } while (0)

#define LOG1P_OK(v) (((v)[0] > -0.2928 && (v)[0] < 1.8) & ((v)[1] > -0.2928 && (v)[1] < 1.8) & \
                     ((v)[2] > -0.2928 && (v)[2] < 1.8) & ((v)[3] > -0.2928 && (v)[3] < 1.8))

/* with u = 1 + x and w = 1 / u given */
#define V_LOG1P_U(x, u, w, out)                                                              \
  do {                                                                               \
    /* 1 + f = u / 2^k, read off the bits with sqrt(2)'s mantissa as the split */     \
    v4l b_ = (v4l)(u) + 0x00095f6200000000LL;                                         \
    v4l k_ = (v4l)((v4ul)b_ >> 52) - 0x3ff;     /* u > 0: a logical shift will do */  \
    v4d m_ = (v4d)((b_ & 0x000fffffffffffffLL) + 0x3fe6a09e00000000LL);              \
    v4d c_ = ((x) - ((u) - 1.0)) * (w);          /* what rounding 1 + x lost, over u */ \
    v4l small_ = (x) < 0.41421356237309503;    /* 1 + x below sqrt(2): f = x exactly */ \
    v4d f_ = SEL(small_, (x), m_ - 1.0);                                             \
    c_ = SEL(small_, SPLAT(0.0), c_);                                                \
    /* k as a double through 1.5 2^52's bits (no int64-to-double in AVX2) */         \
    v4d dk_ = (v4d)((v4l)SPLAT(6755399441055744.0) + k_) - 6755399441055744.0;       \
    dk_ = SEL(small_, SPLAT(0.0), dk_);                                              \
    v4d hfsq_ = 0.5 * f_ * f_, s_ = f_ / (2.0 + f_), z_ = s_ * s_, zz_ = z_ * z_;    \
    v4d t1_ = zz_ * (3.999999999940941908e-01 + zz_ * (2.222219843214978396e-01 + zz_ * 1.531383769920937332e-01)); \
    v4d t2_ = z_ * (6.666666666666735130e-01 +                                       \
                    zz_ * (2.857142874366239149e-01 + zz_ * (1.818357216161805012e-01 + zz_ * 1.479819860511658591e-01)));     \
    v4d R_ = t2_ + t1_;                                                              \
    (out) = s_ * (hfsq_ + R_) + (dk_ * 1.90821492927058770002e-10 + c_) - hfsq_ + f_ + dk_ * 6.93147180369123816490e-01; \
  } while (0)

#define V_LOG1P(x, out)                                                              \
  do {                                                                               \
    v4d uu_ = 1.0 + (x), ww_ = 1.0 / uu_;                                            \
    V_LOG1P_U(x, uu_, ww_, out);                                                     \
  } while (0)

#define BODY_EXP                                                                    \
  {                                                                                 \
    size_t i = 0;                                                                   \
    for (; i + 4 <= n; i += 4) {                                                    \
      v4d v = LOAD(x + i), e;                                                       \
      if (!EXP_OK(v)) {                                                             \
        for (int k = 0; k < 4; k++) y[i + k] = exp(x[i + k]);                       \
        continue;                                                                   \
      }                                                                             \
      V_EXP(v, e);                                                                  \
      STORE(y + i, e);                                                              \
    }                                                                               \
    for (; i < n; i++) y[i] = exp(x[i]);                                            \
  }

#define BODY_LOG1P                                                                  \
  {                                                                                 \
    size_t i = 0;                                                                   \
    for (; i + 4 <= n; i += 4) {                                                    \
      v4d v = LOAD(x + i), l;                                                       \
      if (!LOG1P_OK(v)) {                                                           \
        for (int k = 0; k < 4; k++) y[i + k] = log1p(x[i + k]);                     \
        continue;                                                                   \
      }                                                                             \
      V_LOG1P(v, l);                                                                \
      STORE(y + i, l);                                                              \
    }                                                                               \
    for (; i < n; i++) y[i] = log1p(x[i]);                                          \
  }

#define V_LOG1P_EXP(z, l, p, q)                                                      \
  do {                                                                               \
    v4l pos_ = (z) > 0.0;                                                            \
    v4d a_ = SEL(pos_, -(z), (z)), ex_, lg_;    /* -|z| */                             \
    V_EXP(a_, ex_);                                                                   \
    v4d u_ = 1.0 + ex_, w_ = 1.0 / u_, ew_ = ex_ * w_;                               \
    V_LOG1P_U(ex_, u_, w_, lg_);                                                     \
    (l) = SEL(pos_, (z), SPLAT(0.0)) + lg_;                                          \
    (p) = SEL(pos_, w_, ew_);                                                        \
    (q) = SEL(pos_, ew_, w_);                                                        \
  } while (0)

/* two vectors per step: each lane's work is one long chain of dependent
** operations, and two chains side by side keep the CPU's units busy */
#define BODY_LOG1P_EXP                                                              \
  {                                                                                 \
    size_t i = 0;                                                                   \
    for (; i + 8 <= n; i += 8) {                                                    \
      v4d v = LOAD(z + i), v2 = LOAD(z + i + 4), lv, pv, qv, lv2, pv2, qv2;         \
      if (!(EXP_OK(v) & EXP_OK(v2))) {                                              \
        for (int k = 0; k < 8; k++) log1p_exp_lane(z[i + k], l + i + k, p + i + k, q + i + k); \
        continue;                                                                   \
      }                                                                             \
      V_LOG1P_EXP(v, lv, pv, qv);                                                   \
      V_LOG1P_EXP(v2, lv2, pv2, qv2);                                               \
      STORE(l + i, lv);                                                             \
      STORE(p + i, pv);                                                             \
      STORE(q + i, qv);                                                             \
      STORE(l + i + 4, lv2);                                                        \
      STORE(p + i + 4, pv2);                                                        \
      STORE(q + i + 4, qv2);                                                        \
    }                                                                               \
    for (; i < n; i++) log1p_exp_lane(z[i], l + i, p + i, q + i);                   \
  }

/* the outcomes of four rows as doubles: y[0] for all when ys is 0 */
typedef int v4i __attribute__((vector_size(16), aligned(4)));
#define LOADY(i) (ys ? __builtin_convertvector(*(const v4i *)(y + (i)), v4d) : SPLAT((double)y[0]))
#define LOADA(i) (as ? LOAD(al + (i)) : SPLAT(al[0]))

#define BODY_BERNOULLI                                                              \
  {                                                                                 \
    v4d acc = SPLAT(0.0);                                                           \
    double lp = 0;                                                                  \
    size_t i = 0;                                                                   \
    for (; i + 4 <= n; i += 4) {                                                    \
      v4d eta = LOAD(t + i) + LOADA(i), s = 2.0 * LOADY(i) - 1.0, z = -(s * eta);   \
      if (!EXP_OK(z)) {                                                             \
        for (int k = 0; k < 4; k++)                                                 \
          lp += bernoulli_lane(y[ys ? i + k : 0], eta[k], t + i + k);               \
        continue;                                                                   \
      }                                                                             \
      v4d l, p, q;                                                                  \
      V_LOG1P_EXP(z, l, p, q);                                                      \
      (void)q;                                                                      \
      acc -= l;                                                                     \
      STORE(t + i, s * p);                                                          \
    }                                                                               \
    for (; i < n; i++) lp += bernoulli_lane(y[ys ? i : 0], t[i] + al[as ? i : 0], t + i); \
    return lp + hsum(acc);                                                          \
  }

/* Poisson-log rows: the row's term y eta - exp(eta), its derivative y - exp(eta). */
#define BODY_POISSON                                                                \
  {                                                                                 \
    v4d acc = SPLAT(0.0);                                                           \
    double lp = 0;                                                                  \
    size_t i = 0;                                                                   \
    for (; i + 4 <= n; i += 4) {                                                    \
      v4d eta = LOAD(t + i) + LOADA(i), yv = LOADY(i), e;                           \
      if (!EXP_OK(eta)) {                                                           \
        for (int k = 0; k < 4; k++) {                                               \
          double ek = exp(eta[k]);                                                  \
          lp += yv[k] * eta[k] - ek;                                                \
          t[i + k] = yv[k] - ek;                                                    \
        }                                                                           \
        continue;                                                                   \
      }                                                                             \
      V_EXP(eta, e);                                                                \
      acc += yv * eta - e;                                                          \
      STORE(t + i, yv - e);                                                         \
    }                                                                               \
    for (; i < n; i++) {                                                            \
      double eta = t[i] + al[as ? i : 0], yv = y[ys ? i : 0], e = exp(eta);         \
      lp += yv * eta - e;                                                           \
      t[i] = yv - e;                                                                \
    }                                                                               \
    return lp + hsum(acc);                                                          \
  }

static void exp_base(const double *x, double *y, size_t n) BODY_EXP
static void log1p_base(const double *x, double *y, size_t n) BODY_LOG1P
static void log1p_exp_base(const double *z, double *l, double *p, double *q, size_t n) BODY_LOG1P_EXP
static double bernoulli_base(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) BODY_BERNOULLI
static double poisson_base(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) BODY_POISSON

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
__attribute__((target("avx2,fma")))
static void log1p_avx2(const double *x, double *y, size_t n) BODY_LOG1P
__attribute__((target("avx2,fma")))
static void log1p_exp_avx2(const double *z, double *l, double *p, double *q, size_t n) BODY_LOG1P_EXP
__attribute__((target("avx2,fma")))
static double bernoulli_avx2(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) BODY_BERNOULLI
__attribute__((target("avx2,fma")))
static double poisson_avx2(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) BODY_POISSON

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

void tm_block_log1p(const double *x, double *y, size_t n) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) { log1p_avx2(x, y, n); return; }
#endif
  log1p_base(x, y, n);
}

void tm_block_log1p_exp(const double *z, double *l, double *p, double *q, size_t n) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) { log1p_exp_avx2(z, l, p, q, n); return; }
#endif
  log1p_exp_base(z, l, p, q, n);
}

double tm_rows_bernoulli_logit(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) return bernoulli_avx2(y, ys, al, as, t, n);
#endif
  return bernoulli_base(y, ys, al, as, t, n);
}

double tm_rows_poisson_log(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
#ifdef TM_HAVE_AVX2
  if (use_avx2()) return poisson_avx2(y, ys, al, as, t, n);
#endif
  return poisson_base(y, ys, al, as, t, n);
}

#else   /* no vector extensions */

void tm_block_exp(const double *x, double *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = exp(x[i]);
}

void tm_block_log1p(const double *x, double *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = log1p(x[i]);
}

void tm_block_log1p_exp(const double *z, double *l, double *p, double *q, size_t n) {
  for (size_t i = 0; i < n; i++) log1p_exp_lane(z[i], l + i, p + i, q + i);
}

double tm_rows_bernoulli_logit(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
  double lp = 0;
  for (size_t i = 0; i < n; i++) lp += bernoulli_lane(y[ys ? i : 0], t[i] + al[as ? i : 0], t + i);
  return lp;
}

double tm_rows_poisson_log(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
  double lp = 0;
  for (size_t i = 0; i < n; i++) {
    double eta = t[i] + al[as ? i : 0], yv = y[ys ? i : 0], e = exp(eta);
    lp += yv * eta - e;
    t[i] = yv - e;
  }
  return lp;
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
