/*
** tm_von_mises.c -- the von Mises distribution: von_mises_lpdf,
** von_mises_cdf, _lcdf, _lccdf, von_mises_rng.
*/
#include "tm_cont_family.h"

/* log I0(k) and I1(k) / I0(k): the power series while it is cheap, the
** asymptotic series (terms falling below 1e-17 by k = 20 for k >= 50)
** beyond. */
static void tm_bessel_i01(double k, double *log_i0, double *ratio) {
  if (k < 50) {
    double q = 0.25 * k * k, t = 1, s0 = 1, s1 = 0.5 * k, t1 = 0.5 * k;
    for (int m = 1; m < 500; m++) {
      t *= q / ((double)m * m);
      t1 *= q / ((double)m * (m + 1));
      s0 += t;
      s1 += t1;
      if (t <= 1e-17 * s0 && t1 <= 1e-17 * s1) break;
    }
    *log_i0 = log(s0);
    *ratio = s1 / s0;
    return;
  }
  /* I_v(k) ~ e^k / sqrt(2 pi k) sum_m (-1)^m a_m(v) / k^m,
  ** a_m(v) = prod_{i <= m} (4 v^2 - (2i - 1)^2) / (m! 8^m) */
  double s0 = 1, s1 = 1, a0 = 1, a1 = 1;
  for (int m = 1; m <= 30; m++) {
    double o = (2.0 * m - 1) * (2.0 * m - 1);
    a0 *= -(0 - o) / (m * 8.0 * k);
    a1 *= -(4 - o) / (m * 8.0 * k);
    s0 += a0;
    s1 += a1;
    if (fabs(a0) < 1e-17 * s0 && fabs(a1) < 1e-17 * fabs(s1)) break;
  }
  *log_i0 = k - 0.5 * log(2 * TM_PI * k) + log(s0);
  *ratio = s1 / s0;
}

/* von_mises(y | mu, kappa) = exp(kappa cos(y - mu)) / (2 pi I0(kappa)) */
static int von_mises_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_k = tm_dens_keep(D, B(2)), k_all = tm_dens_keep(D, 7u);
  for (size_t j = 0; j < D->n; j++) {
    double d = X(D, 0, j) - X(D, 1, j), k = X(D, 2, j), li0, r;
    tm_bessel_i01(k, &li0, &r);
    if (k_c) lp -= TM_LOG_2PI;
    if (k_k) lp -= li0;
    if (k_all) lp += k * cos(d);
    double g = -k * sin(d);
    tm_dens_add(D, 0, j, g);
    tm_dens_add(D, 1, j, -g);
    tm_dens_add(D, 2, j, cos(d) - r);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_von_mises = {3, {Y, LOC, SCALE},
  {{0, CK_FINITE}, {1, CK_FINITE}, {2, CK_NONNEG}, {2, CK_FINITE}},
  0, von_mises_body, 0};

/* ---- von_mises(y | mu, kappa) on [-pi, pi], as Stan (scipy's series for
** kappa < 49, a normal approximation beyond 50, a blend between); the
** partials are those of these approximations, which Stan differentiates
** by autodiff ---- */

/* log F or log(1 - F) from F and its partials dF */
static double from_prob(double F, int upper, double *d, int n) {
  double v = upper ? log1p(-F) : log(F), s = upper ? -1 / (1 - F) : 1 / F;
  for (int i = 0; i < n; i++) d[i] = isfinite(v) ? d[i] * s : 0;
  return v;
}

/* the centred cdf at x and its partials in x and kappa */
static double vm_series(double x, double k, double *fx, double *fk) {
  int p = (int)(28 + 0.5 * k - 100 / (k + 5) + 1);
  double s = sin(x), c = cos(x), sn = sin(p * x), cn = cos(p * x);
  double sn_x = p * cn, cn_x = -p * sn;
  double R = 0, R_k = 0, V = 0, V_x = 0, V_k = 0;
  for (int n = 1; n < p; n++) {
    double t = sn * c - cn * s, t_x = sn_x * c - sn * s - cn_x * s - cn * c;
    double cn2 = cn * c + sn * s, cn2_x = cn_x * c - cn * s + sn_x * s + sn * c;
    sn = t; sn_x = t_x; cn = cn2; cn_x = cn2_x;
    double q = 2.0 * (p - n) / k + R, q_k = -2.0 * (p - n) / (k * k) + R_k;
    R = 1 / q;
    R_k = -q_k / (q * q);
    double w = sn / (p - n) + V;
    V_k = R_k * w + R * V_k;
    V_x = R * (sn_x / (p - n) + V_x);
    V = R * w;
  }
  *fx = 1 / (2 * TM_PI) + V_x / TM_PI;
  *fk = V_k / TM_PI;
  return 0.5 + x / (2 * TM_PI) + V / TM_PI;
}

static double vm_normal(double x, double k, double *fx, double *fk) {
  double li0, r;
  tm_bessel_i01(k, &li0, &r);
  double b = sqrt(2 / TM_PI) * exp(k - li0), b_k = b * (1 - r);
  double z = b * sin(x / 2), ph = exp(-0.5 * z * z) / TM_SQRT_2PI, F = tm_Phi(z);
  if (F == 0 || F == 1) ph = 0;     /* Stan's normal_cdf: flat beyond its cut-offs */
  *fx = ph * b * cos(x / 2) / 2;
  *fk = ph * sin(x / 2) * b_k;
  return F;
}

static double vm_centred(double x, double k, double *fx, double *fk) {
  if (k < 49) {
    double f = vm_series(x, k, fx, fk);
    if (f < 0 || f > 1) { *fx = *fk = 0; return f < 0 ? 0 : 1; }
    return f;
  }
  if (k < 50) {
    double sx, sk, nx, nk, S = vm_series(x, 49, &sx, &sk), N = vm_normal(x, 50, &nx, &nk);
    *fx = (50 - k) * sx + (k - 49) * nx;
    *fk = N - S;
    return (50 - k) * S + (k - 49) * N;
  }
  return vm_normal(x, k, fx, fk);
}

static double von_mises_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], k = x[2];
  if (y == -TM_PI) return upper ? 0 : -INFINITY;
  if (y == TM_PI) return upper ? -INFINITY : 0;
  const double two_pi = 2 * TM_PI;
  double x2 = y - mu + TM_PI;
  x2 = x2 - floor(x2 / two_pi) * two_pi - TM_PI;
  double mu2 = mu + TM_PI;
  mu2 = mu2 - floor(mu2 / two_pi) * two_pi - TM_PI;
  double cut, bound;
  if (mu2 < 0) { cut = mu2 + TM_PI; bound = -TM_PI - mu2; }
  else { cut = mu2 - TM_PI; bound = TM_PI - mu2; }
  double bx, bk, cx, ck;
  double Fb = vm_centred(bound, k, &bx, &bk), Fc = vm_centred(x2, k, &cx, &ck);
  double F = y <= cut ? Fc - Fb : Fc + 1 - Fb;
  if (F < 0) F = 0;
  if (F == 0) { cx = bx = ck = bk = 0; }
  d[0] = cx;
  d[1] = -cx + bx;      /* bound = +-pi - mu2 */
  d[2] = ck - bk;
  return from_prob(F, upper, d, 3);
}

static int von_mises_check(const tm_dens *D) {
  return tm_check_bounded(D->fn, "Random variable", &D->a[0], -TM_PI, TM_PI);
}

static const cdf_def d_von_mises = {3, 0, {Y, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, von_mises_e,
  von_mises_check};

#define TWO_PI (2 * TM_PI)

/* Best and Fisher (1979), as Stan: uniform on the circle below kappa = 1.4e-8 */
static int draw_von_mises(tm_rng *r, const double *p, double *x) {
  double mu = p[0], k = p[1], shift = fmod(fmod(mu, TWO_PI) + TWO_PI, TWO_PI);
  if (k < 1.4e-8) { *x = (tm_rng_uniform(r) - 0.5) * TWO_PI + shift; return 0; }
  double rr = 1 + sqrt(1 + 4 * k * k), rho = 0.5 * (rr - sqrt(2 * rr)) / k, s = 0.5 * (1 + rho * rho) / rho, W;
  for (;;) {
    double Z = cos(TM_PI * tm_rng_uniform(r));
    W = (1 + s * Z) / (s + Z);
    double y = k * (s - W), U2 = tm_rng_uniform(r);
    if (y * (2 - y) - U2 > 0 || log(y / U2) + 1 - y >= 0) break;
  }
  double U3 = tm_rng_uniform(r) - 0.5, sign = (U3 >= 0) - (U3 <= 0);
  *x = sign * acos(W) + shift;
  return 0;
}

static const rng_def D_von_mises = {"von_mises_rng", 2, 0, draw_von_mises, {LOC, SCALE}, {CK_FINITE, CK_NONNEG_FINITE}};

CONT_FAMILY_TABLE(von_mises, SIG3, R2)
