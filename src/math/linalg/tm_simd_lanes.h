/*
** tm_simd_lanes.h -- the kernels of tm_simd.h on W lanes, a template:
** tm_simd.c includes it once per instruction set, with W, the vector types
** VD (W doubles), VL (W int64), VDU (W doubles at any 8-byte address), VI
** (W ints at any 4-byte address), the name suffix SFX and the target
** attribute TGT defined, and the lane macros of tm_simd.c in scope.
*/

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define NAME(f) CAT(f, SFX)

/* t[r] = x[r, ] beta: each lane a row, the columns four at a time; each
** row's sum in column order, whatever W is */
TGT static void NAME(gemv_n)(const double *x, size_t ld, size_t K, size_t b, const double *beta, double *t) {
  size_t k = 0;
  if (K == 0) memset(t, 0, b * sizeof *t);
  for (; k + 4 <= K; k += 4) {
    const double *x0 = x + k * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;
    double b0 = beta[k], b1 = beta[k + 1], b2 = beta[k + 2], b3 = beta[k + 3];
    size_t r = 0;
    if (k == 0) {   /* the first columns start the sums (x0 b0 + 0 is x0 b0) */
      for (; r + W <= b; r += W) {
        VD s = LOAD(x0 + r) * b0;
        s += LOAD(x1 + r) * b1;
        s += LOAD(x2 + r) * b2;
        s += LOAD(x3 + r) * b3;
        STORE(t + r, s);
      }
      for (; r < b; r++) t[r] = x0[r] * b0 + x1[r] * b1 + x2[r] * b2 + x3[r] * b3;
      continue;
    }
    for (; r + W <= b; r += W) {
      VD s = LOAD(t + r);
      s += LOAD(x0 + r) * b0;
      s += LOAD(x1 + r) * b1;
      s += LOAD(x2 + r) * b2;
      s += LOAD(x3 + r) * b3;
      STORE(t + r, s);
    }
    for (; r < b; r++) t[r] += x0[r] * b0 + x1[r] * b1 + x2[r] * b2 + x3[r] * b3;
  }
  for (; k < K; k++) {
    const double *x0 = x + k * ld;
    double b0 = beta[k];
    size_t r = 0;
    if (k == 0) {
      for (; r + W <= b; r += W) STORE(t + r, LOAD(x0 + r) * b0);
      for (; r < b; r++) t[r] = x0[r] * b0;
      continue;
    }
    for (; r + W <= b; r += W) STORE(t + r, LOAD(t + r) + LOAD(x0 + r) * b0);
    for (; r < b; r++) t[r] += x0[r] * b0;
  }
}

/* the sum of x[0 .. n), two vectors of lanes then the lanes in pairs */
TGT static double NAME(sum)(const double *x, size_t n) {
  VD s0 = SPLAT(0.0), s1 = s0;
  size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    s0 += LOAD(x + i);
    s1 += LOAD(x + i + W);
  }
  for (; i + W <= n; i += W) s0 += LOAD(x + i);
  double s = HSUM(s0 + s1);
  for (; i < n; i++) s += x[i];
  return s;
}

/* acc[k] += x[, k]' g, acc[k] a row of TM_SIMD_LANES lane sums (the first W
** used): four columns at a time, two accumulators per column (eight
** independent chains of adds), and no sum across lanes until
** tm_block_lane_sums */
TGT static void NAME(gemv_t)(const double *x, size_t ld, size_t K, size_t b, const double *g, double *acc) {
  size_t k = 0;
  for (; k + 4 <= K; k += 4) {
    const double *x0 = x + k * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;
    double *a0 = acc + k * TM_SIMD_LANES, *a1 = a0 + TM_SIMD_LANES, *a2 = a1 + TM_SIMD_LANES,
           *a3 = a2 + TM_SIMD_LANES;
    VD s0 = LOAD(a0), s1 = LOAD(a1), s2 = LOAD(a2), s3 = LOAD(a3);
    VD u0 = SPLAT(0.0), u1 = u0, u2 = u0, u3 = u0;
    size_t r = 0;
    for (; r + 2 * W <= b; r += 2 * W) {
      VD G = LOAD(g + r), H = LOAD(g + r + W);
      s0 += LOAD(x0 + r) * G; u0 += LOAD(x0 + r + W) * H;
      s1 += LOAD(x1 + r) * G; u1 += LOAD(x1 + r + W) * H;
      s2 += LOAD(x2 + r) * G; u2 += LOAD(x2 + r + W) * H;
      s3 += LOAD(x3 + r) * G; u3 += LOAD(x3 + r + W) * H;
    }
    for (; r + W <= b; r += W) {
      VD G = LOAD(g + r);
      s0 += LOAD(x0 + r) * G;
      s1 += LOAD(x1 + r) * G;
      s2 += LOAD(x2 + r) * G;
      s3 += LOAD(x3 + r) * G;
    }
    STORE(a0, s0 + u0); STORE(a1, s1 + u1); STORE(a2, s2 + u2); STORE(a3, s3 + u3);
    for (; r < b; r++) {
      a0[0] += x0[r] * g[r]; a1[0] += x1[r] * g[r]; a2[0] += x2[r] * g[r]; a3[0] += x3[r] * g[r];
    }
  }
  for (; k < K; k++) {
    const double *x0 = x + k * ld;
    double *a0 = acc + k * TM_SIMD_LANES;
    VD s0 = LOAD(a0);
    size_t r = 0;
    for (; r + W <= b; r += W) s0 += LOAD(x0 + r) * LOAD(g + r);
    STORE(a0, s0);
    for (; r < b; r++) a0[0] += x0[r] * g[r];
  }
}

TGT NOFUSE static void NAME(log1p_exp)(const double *z, double *l, double *p, double *q, size_t n) {
  size_t i = 0;
  for (; i + W <= n; i += W) {
    VD v = LOAD(z + i), lv, pv, qv;
    if (!EXP_OK(v)) {
      for (int k = 0; k < W; k++) log1p_exp_lane(z[i + k], l + i + k, p + i + k, q + i + k);
      continue;
    }
    V_LOG1P_EXP(v, lv, pv, qv);
    STORE(l + i, lv);
    STORE(p + i, pv);
    STORE(q + i, qv);
  }
  for (; i < n; i++) log1p_exp_lane(z[i], l + i, p + i, q + i);
}

/* the outcomes of W rows as doubles (y[0] for all when ys is 0), and their
** intercepts (al[0] for all when as is 0) */
#define LOADY(i) (ys ? __builtin_convertvector(*(const VI *)(y + (i)), VD) : SPLAT((double)y[0]))
#define LOADA(i) (as ? LOAD(al + (i)) : SPLAT(al[0]))

TGT static double NAME(bernoulli)(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
  VD acc = SPLAT(0.0);
  double lp = 0;
  size_t i = 0;
  for (; i + W <= n; i += W) {
    VD eta = LOAD(t + i) + LOADA(i), s = 2.0 * LOADY(i) - 1.0, z = -(s * eta);
    if (!EXP_OK(z)) {
      for (int k = 0; k < W; k++) lp += bernoulli_lane(y[ys ? i + k : 0], eta[k], t + i + k);
      continue;
    }
    VD l, p, q;
    V_LOG1P_EXP(z, l, p, q);
    (void)q;
    acc -= l;
    STORE(t + i, s * p);
  }
  for (; i < n; i++) lp += bernoulli_lane(y[ys ? i : 0], t[i] + al[as ? i : 0], t + i);
  return lp + HSUM(acc);
}

/* Bernoulli-logit terms one by one: lp[i] and d[i] as tm_bernoulli_logit1
** gives them (outcomes y[i], linear predictors eta[i]) */
TGT NOFUSE static void NAME(bernoulli_terms)(const int *y, const double *eta, double *lp, double *d, size_t n) {
  size_t i = 0;
  for (; i + W <= n; i += W) {
    VD e = LOAD(eta + i), s = 2.0 * __builtin_convertvector(*(const VI *)(y + i), VD) - 1.0, z = -(s * e);
    if (!EXP_OK(z)) {
      for (int k = 0; k < W; k++) lp[i + k] = bernoulli_lane(y[i + k], eta[i + k], d + i + k);
      continue;
    }
    VD l, p, q;
    V_LOG1P_EXP(z, l, p, q);
    (void)q;
    STORE(lp + i, -l);
    STORE(d + i, s * p);
  }
  for (; i < n; i++) lp[i] = bernoulli_lane(y[i], eta[i], d + i);
}

TGT static double NAME(poisson)(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n) {
  VD acc = SPLAT(0.0);
  double lp = 0;
  size_t i = 0;
  for (; i + W <= n; i += W) {
    VD eta = LOAD(t + i) + LOADA(i), yv = LOADY(i), e;
    if (!EXP_OK(eta)) {
      for (int k = 0; k < W; k++) lp += poisson_lane(yv[k], eta[k], t + i + k);
      continue;
    }
    V_EXP(eta, e);
    acc += yv * eta - e;
    STORE(t + i, yv - e);
  }
  for (; i < n; i++) lp += poisson_lane(y[ys ? i : 0], t[i] + al[as ? i : 0], t + i);
  return lp + HSUM(acc);
}

TGT static void NAME(normal_z)(const double *y, const double *al, size_t as, double inv_s, double *t, size_t n) {
  size_t i = 0;
  for (; i + W <= n; i += W) STORE(t + i, ((LOAD(y + i) - LOAD(t + i)) - LOADA(i)) * inv_s);
  for (; i < n; i++) t[i] = ((y[i] - t[i]) - al[as ? i : 0]) * inv_s;
}

TGT static double NAME(sumsq)(const double *x, size_t n) {
  VD acc = SPLAT(0.0);
  double s = 0;
  size_t i = 0;
  for (; i + W <= n; i += W) {
    VD v = LOAD(x + i);
    acc += v * v;
  }
  for (; i < n; i++) s += x[i] * x[i];
  return s + HSUM(acc);
}

/* y[i] -= a x[i]: a product, then a difference, never fused (NOFUSE), so
** every variant gives the bits of the plain loop. */
TGT NOFUSE static void NAME(axpy_sub)(const double *x, double a, double *y, size_t n) {
  size_t i = 0;
  for (; i + W <= n; i += W) STORE(y + i, LOAD(y + i) - LOAD(x + i) * a);
  for (; i < n; i++) y[i] -= x[i] * a;
}

/* y[r] -= x[k ld + r] * c[k cs] for k = 0, 1, ..., K - 1 in turn (a c[k] of 0
** skipped), r < n: K axpy_subs with each element's steps in the same order
** and never fused, so the same bits, but y kept in registers across the K
** steps, four vectors at a time (one load and store of y instead of K). */
TGT NOFUSE static void NAME(axpy_sub_cols)(const double *x, ptrdiff_t ld, const double *c, ptrdiff_t cs,
                                          size_t K, double *y, size_t n) {
  size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    VD y0 = LOAD(y + i), y1 = LOAD(y + i + W), y2 = LOAD(y + i + 2 * W), y3 = LOAD(y + i + 3 * W);
    const double *xk = x + i;
    for (size_t k = 0; k < K; k++, xk += ld) {
      double ck = c[(ptrdiff_t)k * cs];
      if (ck == 0) continue;
      y0 -= LOAD(xk) * ck;
      y1 -= LOAD(xk + W) * ck;
      y2 -= LOAD(xk + 2 * W) * ck;
      y3 -= LOAD(xk + 3 * W) * ck;
    }
    STORE(y + i, y0); STORE(y + i + W, y1); STORE(y + i + 2 * W, y2); STORE(y + i + 3 * W, y3);
  }
  for (; i + W <= n; i += W) {
    VD y0 = LOAD(y + i);
    const double *xk = x + i;
    for (size_t k = 0; k < K; k++, xk += ld) {
      double ck = c[(ptrdiff_t)k * cs];
      if (ck != 0) y0 -= LOAD(xk) * ck;
    }
    STORE(y + i, y0);
  }
  for (; i < n; i++) {
    double yi = y[i];
    const double *xk = x + i;
    for (size_t k = 0; k < K; k++, xk += ld) {
      double ck = c[(ptrdiff_t)k * cs];
      if (ck != 0) yi -= *xk * ck;
    }
    y[i] = yi;
  }
}

/* C -= A B, C m x n (ldc), A m x k (lda), B k x n (ldb), column-major: C's
** rows in strips of 2 W, its columns four at a time, the k products of each
** element summed in registers (in l order) and taken from C at the end */
TGT NOFUSE static void NAME(gemm_sub)(size_t m, size_t n, size_t k, const double *A, size_t lda, const double *B,
                               size_t ldb, double *C, size_t ldc) {
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const double *b0 = B + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
    double *c0 = C + j * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
    size_t i = 0;
    for (; i + 2 * W <= m; i += 2 * W) {
      VD s00 = SPLAT(0.0), s01 = s00, s02 = s00, s03 = s00, s10 = s00, s11 = s00, s12 = s00, s13 = s00;
      const double *a = A + i;
      for (size_t l = 0; l < k; l++, a += lda) {
        VD x0 = LOAD(a), x1 = LOAD(a + W);
        double e0 = b0[l], e1 = b1[l], e2 = b2[l], e3 = b3[l];
        s00 += x0 * e0; s01 += x0 * e1; s02 += x0 * e2; s03 += x0 * e3;
        s10 += x1 * e0; s11 += x1 * e1; s12 += x1 * e2; s13 += x1 * e3;
      }
      STORE(c0 + i, LOAD(c0 + i) - s00); STORE(c0 + i + W, LOAD(c0 + i + W) - s10);
      STORE(c1 + i, LOAD(c1 + i) - s01); STORE(c1 + i + W, LOAD(c1 + i + W) - s11);
      STORE(c2 + i, LOAD(c2 + i) - s02); STORE(c2 + i + W, LOAD(c2 + i + W) - s12);
      STORE(c3 + i, LOAD(c3 + i) - s03); STORE(c3 + i + W, LOAD(c3 + i + W) - s13);
    }
    for (; i < m; i++) {
      double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
      const double *a = A + i;
      for (size_t l = 0; l < k; l++, a += lda) {
        t0 += *a * b0[l]; t1 += *a * b1[l]; t2 += *a * b2[l]; t3 += *a * b3[l];
      }
      c0[i] -= t0; c1[i] -= t1; c2[i] -= t2; c3[i] -= t3;
    }
  }
  for (; j < n; j++) {
    const double *b0 = B + j * ldb;
    double *c0 = C + j * ldc;
    size_t i = 0;
    for (; i + 2 * W <= m; i += 2 * W) {
      VD s0 = SPLAT(0.0), s1 = s0;
      const double *a = A + i;
      for (size_t l = 0; l < k; l++, a += lda) {
        s0 += LOAD(a) * b0[l];
        s1 += LOAD(a + W) * b0[l];
      }
      STORE(c0 + i, LOAD(c0 + i) - s0); STORE(c0 + i + W, LOAD(c0 + i + W) - s1);
    }
    for (; i < m; i++) {
      double t0 = 0;
      const double *a = A + i;
      for (size_t l = 0; l < k; l++, a += lda) t0 += *a * b0[l];
      c0[i] -= t0;
    }
  }
}

/* y[i] += x[i] a, the same way. */
TGT NOFUSE static void NAME(axpy_add)(const double *x, double a, double *y, size_t n) {
  size_t i = 0;
  for (; i + W <= n; i += W) STORE(y + i, LOAD(y + i) + LOAD(x + i) * a);
  for (; i < n; i++) y[i] += x[i] * a;
}

TGT static void NAME(scale)(double *x, double c, size_t n) {
  size_t i = 0;
  for (; i + W <= n; i += W) STORE(x + i, LOAD(x + i) * c);
  for (; i < n; i++) x[i] *= c;
}

#undef LOADY
#undef LOADA
#undef NAME
#undef CAT
#undef CAT_
