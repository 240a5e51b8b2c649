/*
** tm_simd.c -- the kernels of tm_simd.h.
**
** One body, tm_simd_lanes.h, written with GCC and clang vector extensions,
** compiled for W lanes and an instruction set: four lanes for the baseline
** of the target (SSE2 on x86-64), and on x86-64 four lanes with AVX2 and
** FMA and eight with AVX-512; the first call picks the widest the CPU runs
** (TAPESTRY_SIMD = "avx2" or "base" in the environment, or tm_simd_cap,
** caps it, to compare the variants).  Compilers without vector extensions get plain loops.
*/
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "../tm_simd.h"

/* ---- one lane at a time ---- */

/* log(1 + exp(z)) = max(z, 0) + log1p(exp(-|z|)), and inv_logit(z) and
** inv_logit(-z) from the same exp: 1 / (1 + e) and e / (1 + e), e = exp(-|z|),
** so neither loses digits to a difference from 1.  With vector extensions
** the exp and log1p are the lanes' (below), so that an element gives the
** same bits alone, in a vector, and on every instruction set; libm's where
** |z| >= 700 (or z is NaN), as the vector kernels do. */
static void log1p_exp_lane(double z, double *l, double *p, double *q);

static void log1p_exp_libm(double z, double *l, double *p, double *q) {
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

double tm_bernoulli_logit1(int y, double eta, double *d) { return bernoulli_lane(y, eta, d); }

/* Poisson-log rows: the row's term y eta - exp(eta), its derivative y - exp(eta). */
static double poisson_lane(double y, double eta, double *t) {
  double e = exp(eta);
  *t = y - e;
  return y * eta - e;
}

#if defined(__GNUC__) && !defined(TM_NO_SIMD)

/* no fused multiply-add in this function: GCC contracts a * b - c into one
** across statements where the target has FMA; clang within an expression
** (its default since clang 14), so for clang the whole file goes without */
#if defined(__clang__)
#define NOFUSE
#pragma STDC FP_CONTRACT OFF
#else
#define NOFUSE __attribute__((optimize("fp-contract=off")))
#endif

/* a vector read from and written to any double address (no alignment promised) */
#define LOAD(p) (*(const VDU *)(p))
#define STORE(p, v) (*(VDU *)(p) = (v))
/* the lanes' sum, in pairs */
#define HSUM(v) __extension__({ double hs_ = 0; for (int hk_ = 0; hk_ < W; hk_ += 2) hs_ += (v)[hk_] + (v)[hk_ + 1]; hs_; })

/* ---- exp and log1p on the lanes of a vector ----
** exp: x = n ln 2 + r, |r| <= ln 2 / 2 (ln 2 in two parts so r is exact),
** exp(r) by its Taylor polynomial to degree 13 (error below 2^-53 on that
** interval), times 2^n built in the exponent bits.  The polynomial by
** Estrin's scheme: the lanes' work is one long chain of dependent
** operations, and a short chain lets the CPU overlap more rows.  Lanes in
** [-700, 700].
** log1p: fdlibm's (as musl has it): 1 + x = 2^k (1 + f) with 1 + f in
** [sqrt(1/2), sqrt(2)), the rounding of 1 + x corrected by c / (1 + x), and
** log(1 + f) from s = f / (2 + f) by a polynomial in s^2; within 1 ulp.
** Lanes in (-0.2928, 1.8), where k is 0 or 1 (log1p_exp's are in (0, 1]).
** Callers test the lanes and send a vector with any lane outside to
** log1p_exp_lane, lane by lane. */
#define SPLAT(c) ((VD){0} + (c))
/* a where the mask is set, else b (masks are all-ones or zero lanes) */
#define SEL(m, a, b) ((VD)(((m) & (VL)(a)) | (~(m) & (VL)(b))))
/* every lane of a comparison's mask set */
#define ALL(m) __extension__({ VL all_m_ = (m); int all_ok_ = 1; for (int all_k_ = 0; all_k_ < W; all_k_++) all_ok_ &= all_m_[all_k_] != 0; all_ok_; })
#define EXP_OK(v) ALL(((v) > -700.0) & ((v) < 700.0))

#define V_EXP(v, out)                                                                \
  do {                                                                               \
    VD t_ = (v) * 1.4426950408889634074 + 6755399441055744.0;                       \
    VD m_ = t_ - 6755399441055744.0;          /* n, rounded to nearest */            \
    VD r_ = ((v) - m_ * 6.93147180369123816490e-01) - m_ * 1.90821492927058770002e-10; \
    /* Estrin's scheme: four levels of multiply-adds instead of Horner's */        \
    VD r2_ = r_ * r_, r4_ = r2_ * r2_, r8_ = r4_ * r4_;                             \
    VD q0_ = 1.0 + r_, q1_ = 0.5 + r_ * (1.0 / 6.0);                                 \
    VD q2_ = 1.0 / 24.0 + r_ * (1.0 / 120.0), q3_ = 1.0 / 720.0 + r_ * (1.0 / 5040.0); \
    VD q4_ = 1.0 / 40320.0 + r_ * (1.0 / 362880.0);                                 \
    VD q5_ = 1.0 / 3628800.0 + r_ * (1.0 / 39916800.0);                             \
    VD q6_ = 1.0 / 479001600.0 + r_ * (1.0 / 6227020800.0);                         \
    VD s0_ = q0_ + q1_ * r2_, s1_ = q2_ + q3_ * r2_, s2_ = q4_ + q5_ * r2_;          \
    VD p_ = (s0_ + s1_ * r4_) + (s2_ + q6_ * r4_) * r8_;                            \
    /* n sits in the low bits of t_ (AVX2 has no double-to-int64 conversion) */       \
    VL e_ = ((VL)t_ - (VL)SPLAT(6755399441055744.0) + 1023) << 52;                \
    (out) = p_ * (VD)e_;                                                            \
  } while (0)

/* with u = 1 + x and w = 1 / u given */
#define V_LOG1P_U(x, u, w, out)                                                              \
  do {                                                                               \
    /* 1 + f = u / 2^k, read off the bits with sqrt(2)'s mantissa as the split */     \
    VL b_ = (VL)(u) + 0x00095f6200000000LL;                                         \
    VL k_ = (VL)((VUL)b_ >> 52) - 0x3ff;     /* u > 0: a logical shift will do */  \
    VD m_ = (VD)((b_ & 0x000fffffffffffffLL) + 0x3fe6a09e00000000LL);              \
    VD c_ = ((x) - ((u) - 1.0)) * (w);          /* what rounding 1 + x lost, over u */ \
    VL small_ = (x) < 0.41421356237309503;    /* 1 + x below sqrt(2): f = x exactly */ \
    VD f_ = SEL(small_, (x), m_ - 1.0);                                             \
    c_ = SEL(small_, SPLAT(0.0), c_);                                                \
    /* k as a double through 1.5 2^52's bits (no int64-to-double in AVX2) */         \
    VD dk_ = (VD)((VL)SPLAT(6755399441055744.0) + k_) - 6755399441055744.0;       \
    dk_ = SEL(small_, SPLAT(0.0), dk_);                                              \
    VD hfsq_ = 0.5 * f_ * f_, s_ = f_ / (2.0 + f_), z_ = s_ * s_, zz_ = z_ * z_;    \
    VD t1_ = zz_ * (3.999999999940941908e-01 + zz_ * (2.222219843214978396e-01 + zz_ * 1.531383769920937332e-01)); \
    VD t2_ = z_ * (6.666666666666735130e-01 +                                       \
                    zz_ * (2.857142874366239149e-01 + zz_ * (1.818357216161805012e-01 + zz_ * 1.479819860511658591e-01)));     \
    VD R_ = t2_ + t1_;                                                              \
    (out) = s_ * (hfsq_ + R_) + (dk_ * 1.90821492927058770002e-10 + c_) - hfsq_ + f_ + dk_ * 6.93147180369123816490e-01; \
  } while (0)

#define V_LOG1P_EXP(z, l, p, q)                                                      \
  do {                                                                               \
    VL pos_ = (z) > 0.0;                                                            \
    VD a_ = SEL(pos_, -(z), (z)), ex_, lg_;    /* -|z| */                             \
    V_EXP(a_, ex_);                                                                   \
    VD u_ = 1.0 + ex_, w_ = 1.0 / u_, ew_ = ex_ * w_;                               \
    V_LOG1P_U(ex_, u_, w_, lg_);                                                     \
    (l) = SEL(pos_, (z), SPLAT(0.0)) + lg_;                                          \
    (p) = SEL(pos_, w_, ew_);                                                        \
    (q) = SEL(pos_, ew_, w_);                                                        \
  } while (0)


/* ---- one lane: the vector arithmetic on a vector of one ----
** The kernels whose elements must have the bits of one element alone
** (log1p_exp, bernoulli_terms: a loop's lanes against the scalar mass) are
** NOFUSE, as is this: a product and a sum are two roundings everywhere, so
** an element's bits do not depend on the lanes around it or on the
** instruction set.  The GLM rows (bernoulli, poisson), whose sums are taken
** on lanes anyway, may fuse: 5% of the logistic GLM's time. */
typedef double v1d __attribute__((vector_size(8)));
typedef long long v1l __attribute__((vector_size(8)));
typedef unsigned long long v1ul __attribute__((vector_size(8)));
#define W 1
#define VD v1d
#define VL v1l
#define VUL v1ul
NOFUSE static void log1p_exp_one(double z, double *l, double *p, double *q) {
  VD zv = { z }, lv, pv, qv;
  V_LOG1P_EXP(zv, lv, pv, qv);
  *l = lv[0];
  *p = pv[0];
  *q = qv[0];
}
#undef W
#undef VD
#undef VL
#undef VUL

static void log1p_exp_lane(double z, double *l, double *p, double *q) {
  if (z > -700.0 && z < 700.0) log1p_exp_one(z, l, p, q);
  else log1p_exp_libm(z, l, p, q);
}

/* ---- the variants: lanes and instruction sets ---- */

/* The vector types of w lanes (vb bytes of doubles, ib of ints), named
** v<w>d, v<w>du, v<w>l, v<w>ul, v<w>i; the template tm_simd_lanes.h reaches
** them as VD, VDU, VL, VUL, VI, by the W it is included with. */
#define LANE_TYPES(w, vb, ib) \
  typedef double v##w##d __attribute__((vector_size(vb))); \
  typedef double v##w##du __attribute__((vector_size(vb), aligned(8))); \
  typedef long long v##w##l __attribute__((vector_size(vb))); \
  typedef unsigned long long v##w##ul __attribute__((vector_size(vb))); \
  typedef int v##w##i __attribute__((vector_size(ib), aligned(4)));
#define LANE_TYPE_(w, t) v##w##t
#define LANE_TYPE(w, t) LANE_TYPE_(w, t)
#define VD LANE_TYPE(W, d)
#define VDU LANE_TYPE(W, du)
#define VL LANE_TYPE(W, l)
#define VUL LANE_TYPE(W, ul)
#define VI LANE_TYPE(W, i)

LANE_TYPES(4, 32, 16)
#define W 4
#define SFX base
#define TGT
#include "tm_simd_lanes.h"
#undef SFX
#undef TGT

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 6)
#define TM_HAVE_X86 1
#define SFX avx2
#define TGT __attribute__((target("avx2,fma")))
#include "tm_simd_lanes.h"
#undef SFX
#undef TGT
#undef W

LANE_TYPES(8, 64, 32)
#define W 8
#define SFX avx512
#define TGT __attribute__((target("avx512f,avx2,fma")))
#include "tm_simd_lanes.h"
#endif

/* 0 baseline, 1 AVX2 with FMA, 2 AVX-512: what the CPU runs, asked once
** (threads that ask at the same time all compute the same answer; relaxed
** atomics, as the kernels of chains on the pool ask too), and the cap set by
** TAPESTRY_SIMD or tm_simd_cap (for comparing the variants). */
static atomic_int simd_cpu = -1, simd_cap = -1;

static int simd_level(void) {
  int cpu = atomic_load_explicit(&simd_cpu, memory_order_relaxed);
  if (cpu < 0) {
    int level = 0;
#ifdef TM_HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) level = 1;
    if (level == 1 && __builtin_cpu_supports("avx512f")) level = 2;
#endif
    const char *env = getenv("TAPESTRY_SIMD");
    if (env && atomic_load_explicit(&simd_cap, memory_order_relaxed) < 0) {
      int want = strcmp(env, "base") == 0 ? 0 : strcmp(env, "avx2") == 0 ? 1 : -1;
      int none = -1;
      atomic_compare_exchange_strong_explicit(&simd_cap, &none, want, memory_order_relaxed, memory_order_relaxed);
    }
    atomic_store_explicit(&simd_cpu, level, memory_order_relaxed);
    cpu = level;
  }
  int cap = atomic_load_explicit(&simd_cap, memory_order_relaxed);
  return cap >= 0 && cap < cpu ? cap : cpu;
}

int tm_simd_cap(int cap) {
  simd_level();
  atomic_store_explicit(&simd_cap, cap, memory_order_relaxed);
  return simd_level();
}

/* r = the variant's f args (for a function of no value, r is a dummy) */
#ifdef TM_HAVE_X86
#define DISPATCH(r, f, args)                     \
  switch (simd_level()) {                        \
  case 2: r f##_avx512 args; break;              \
  case 1: r f##_avx2 args; break;                \
  default: r f##_base args; break;               \
  }
#else
#define DISPATCH(r, f, args) r f##_base args;
#endif

void tm_block_gemv_n(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) {
  DISPATCH(, gemv_n, (x, ld, K, b, beta, t))
}

void tm_block_gemv_t(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc) {
  DISPATCH(, gemv_t, (x, ld, K, b, g, acc))
}

double tm_block_sum(const double *x, size_t n) {
  double s;
  DISPATCH(s =, sum, (x, n))
  return s;
}

void tm_block_bernoulli_logit(const int *y, const double *eta, double *lp, double *d, size_t n) {
  DISPATCH(, bernoulli_terms, (y, eta, lp, d, n))
}

void tm_block_log1p_exp(const double *z, double *l, double *p, double *q, size_t n) {
  DISPATCH(, log1p_exp, (z, l, p, q, n))
}

double tm_rows_bernoulli_logit(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
  double s;
  DISPATCH(s =, bernoulli, (y, ys, al, as, t, n))
  return s;
}

double tm_rows_poisson_log(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
  double s;
  DISPATCH(s =, poisson, (y, ys, al, as, t, n))
  return s;
}

void tm_rows_normal_z(const double *y, const double *al, size_t as, double inv_s, double *t, size_t n) {
  DISPATCH(, normal_z, (y, al, as, inv_s, t, n))
}

double tm_block_sumsq(const double *x, size_t n) {
  double s;
  DISPATCH(s =, sumsq, (x, n))
  return s;
}

void tm_block_scale(double *x, double c, size_t n) { DISPATCH(, scale, (x, c, n)) }

void tm_block_axpy_sub(const double *x, double a, double *y, size_t n) { DISPATCH(, axpy_sub, (x, a, y, n)) }

void tm_block_axpy_add(const double *x, double a, double *y, size_t n) { DISPATCH(, axpy_add, (x, a, y, n)) }

void tm_block_axpy_sub_cols(const double *x, ptrdiff_t ld, const double *c, ptrdiff_t cs, size_t K, double *y, size_t n) {
  DISPATCH(, axpy_sub_cols, (x, ld, c, cs, K, y, n))
}

void tm_block_gemm_sub(size_t m, size_t n, size_t k, const double *A, size_t lda, const double *B, size_t ldb,
                       double *C, size_t ldc) {
  DISPATCH(, gemm_sub, (m, n, k, A, lda, B, ldb, C, ldc))
}

#else   /* no vector extensions */

static void log1p_exp_lane(double z, double *l, double *p, double *q) { log1p_exp_libm(z, l, p, q); }

int tm_simd_cap(int cap) {
  (void)cap;
  return 0;
}

void tm_block_gemv_n(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) {
  memset(t, 0, b * sizeof *t);
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
    acc[k * TM_SIMD_LANES] += s;
  }
}

double tm_block_sum(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i];
  return s;
}

void tm_block_bernoulli_logit(const int *y, const double *eta, double *lp, double *d, size_t n) {
  for (size_t i = 0; i < n; i++) lp[i] = bernoulli_lane(y[i], eta[i], d + i);
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
  for (size_t i = 0; i < n; i++) lp += poisson_lane(y[ys ? i : 0], t[i] + al[as ? i : 0], t + i);
  return lp;
}

void tm_rows_normal_z(const double *y, const double *al, size_t as, double inv_s, double *t, size_t n) {
  for (size_t i = 0; i < n; i++) t[i] = ((y[i] - t[i]) - al[as ? i : 0]) * inv_s;
}

double tm_block_sumsq(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

void tm_block_scale(double *x, double c, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] *= c;
}

void tm_block_axpy_sub(const double *x, double a, double *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] -= x[i] * a;
}

void tm_block_axpy_add(const double *x, double a, double *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] += x[i] * a;
}

void tm_block_axpy_sub_cols(const double *x, ptrdiff_t ld, const double *c, ptrdiff_t cs, size_t K, double *y, size_t n) {
  for (size_t k = 0; k < K; k++) {
    double ck = c[(ptrdiff_t)k * cs];
    if (ck != 0) tm_block_axpy_sub(x + (ptrdiff_t)k * ld, ck, y, n);
  }
}


void tm_block_gemm_sub(size_t m, size_t n, size_t k, const double *A, size_t lda, const double *B, size_t ldb,
                       double *C, size_t ldc) {
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++) {
      double t = 0;
      for (size_t l = 0; l < k; l++) t += A[i + l * lda] * B[l + j * ldb];
      C[i + j * ldc] -= t;
    }
}

#endif

/* out[k] = the sum of acc[k]'s lanes, in pairs: the same order on every call */
void tm_block_lane_sums(const double *acc, size_t K, double *out) {
  for (size_t k = 0; k < K; k++) {
    const double *a = acc + k * TM_SIMD_LANES;
    double s = 0;
    for (int l = 0; l < TM_SIMD_LANES; l += 2) s += a[l] + a[l + 1];
    out[k] = s;
  }
}
