/*
** tm_wiener.c -- the wiener family: wiener_lpdf (k_wiener: the
** four-parameter form here, six or seven arguments to wiener5_kernel, the
** five-parameter form) and wiener_lcdf_unnorm / wiener_lccdf_unnorm of the
** four-parameter model, with the argument checks the last two share
** (wiener_begin).
**
** wiener_lcdf_unnorm and wiener_lccdf_unnorm (y | a, t0,
** w, v): the log of the probability that the four-parameter Wiener
** diffusion ends at the upper boundary by time y (the defective cdf, not
** divided by the probability of that boundary), and of its complement to
** that probability.  Stan's wiener4_lcdf / wiener4_lccdf; the sixth argument
** of their precision form bounds Stan's error in the gradient and is checked,
** the sums here being good to rounding.
**
** As in Stan, the formulas are those of the lower boundary with w' = 1 - w,
** v' = -v, t = y - t0 (Blurton, Kesselmeier and Gondan 2012):
**   small time (u = t / a^2 < 1/2):
**     F = exp(-v' a w' - v'^2 t / 2) sum_k [phi(r / sqrt t) (M((r - v't) / sqrt t) + M((r + v't) / sqrt t))]
**         over r = a (2k + w') minus the same over r = a (2k + 2 - w'),
**     M Mills' ratio (by erfcx where its argument is positive);
**   large time:
**     F = P - 2 pi / a^2 exp(-v' a w' - v'^2 t / 2) sum_k k sin(k pi w') exp(-(k pi / a)^2 t / 2) / (v'^2 + (k pi / a)^2),
**     P the probability of the boundary.
** Each series is summed until its terms fall below 1e-17 of the first, in
** forward mode over (t, a, w', v') (a value and four partials per number), so
** the partials are those of the sum itself; the small-time sums are scaled by
** their largest exponential, so the log keeps its digits far in the tail.
** The complement is P - F (directly the large-time sum there).
**
** wiener_lpdf(y | a, t0, w, v, sv) and its form with a
** precision argument: the first passage time of a Wiener diffusion at the
** upper boundary with drift varying between trials (normal, sd sv), Stan's
** five-parameter model (its wiener5_lpdf).  The seven-parameter form (sw,
** st0: integrals over the bias and the non-decision time) is not here.
**
** With w' = 1 - w, v' = -v, t = y - t0, u = t / a^2 and D = 1 + sv^2 t:
**   log p = (sv^2 a^2 w'^2 - 2 a v' w' - v'^2 t) / (2 D) - log(D) / 2 - 2 log a
**           + log f0(u | w'),
** f0 the zero-drift density of unit boundary separation: the small-time
** series (2 pi u^3)^(-1/2) sum_k (w' + 2k) exp(-(w' + 2k)^2 / (2u)) for u < 1,
** else the large-time series pi sum_k k exp(-k^2 pi^2 u / 2) sin(k pi w').
** Both are summed until their terms fall below 1e-18 of the first, so the
** density is good to rounding (Stan's error bound 1e-6 is met with room; the
** precision argument, which bounds Stan's error in the gradient, is checked
** and otherwise not needed).  Partials in closed form from the series'
** derivatives in u and w'; one node per call.  wiener_lpdf's one table
** entry (k_wiener) hands its six- and seven-argument calls here.
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_def.h"

/* a number and its partials in (t, a, w', v') */
typedef struct { double v, d[4]; } dn;

static dn dn_c(double c) { dn r = {c, {0, 0, 0, 0}}; return r; }
static dn dn_var(double x, int i) { dn r = dn_c(x); r.d[i] = 1; return r; }
static dn dn_add(dn a, dn b) { for (int i = 0; i < 4; i++) a.d[i] += b.d[i]; a.v += b.v; return a; }
static dn dn_sub(dn a, dn b) { for (int i = 0; i < 4; i++) a.d[i] -= b.d[i]; a.v -= b.v; return a; }
static dn dn_scale(dn a, double s) { for (int i = 0; i < 4; i++) a.d[i] *= s; a.v *= s; return a; }
static dn dn_mul(dn a, dn b) {
  dn r;
  r.v = a.v * b.v;
  for (int i = 0; i < 4; i++) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
static dn dn_div(dn a, dn b) {
  dn r;
  r.v = a.v / b.v;
  for (int i = 0; i < 4; i++) r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
  return r;
}
/* f(a) with f'(a) = g */
static dn dn_chain(dn a, double f, double g) {
  dn r;
  r.v = f;
  for (int i = 0; i < 4; i++) r.d[i] = g * a.d[i];
  return r;
}
static dn dn_exp(dn a) { double e = exp(a.v); return dn_chain(a, e, e); }
static dn dn_log(dn a) { return dn_chain(a, log(a.v), 1 / a.v); }
static dn dn_expm1(dn a) { return dn_chain(a, expm1(a.v), exp(a.v)); }
static dn dn_sqrt(dn a) { double s = sqrt(a.v); return dn_chain(a, s, 0.5 / s); }

/* P, the probability of the (lower) boundary, from expm1 on the side of
** the sign of v' so nothing overflows; 1 - w' at v' = 0 */
static dn prob_boundary(dn a, dn w, dn v) {
  if (v.v == 0) {
    /* P = (1 - w')(1 - v' a w') + O(v'^2): its partial in v' at 0 */
    dn r = dn_sub(dn_c(1), w);
    r.d[3] = -(1 - w.v) * a.v * w.v;
    return r;
  }
  dn va2 = dn_scale(dn_mul(v, a), 2), one_m_w = dn_sub(dn_c(1), w);
  if (v.v < 0) return dn_div(dn_expm1(dn_mul(va2, one_m_w)), dn_expm1(va2));
  /* e^{-2v'aw'} (1 - e^{-2v'a(1-w')}) / (1 - e^{-2v'a}) */
  dn num = dn_scale(dn_expm1(dn_scale(dn_mul(va2, one_m_w), -1)), -1);
  dn den = dn_scale(dn_expm1(dn_scale(va2, -1)), -1);
  return dn_mul(dn_exp(dn_scale(dn_mul(va2, w), -1)), dn_div(num, den));
}

/* log of phi(r / sqrt t) M(x) / exp(E0), x = (r -+ v't) / sqrt t, for the
** small-time sum: the value relative to the scale exp(E0) */
static dn mill_term(dn r, dn t, dn x, dn E0) {
  dn E = dn_scale(dn_div(dn_mul(r, r), t), -0.5);          /* log of phi(r / sqrt t) sqrt(2 pi) */
  double Mx;                                               /* Mills' ratio */
  if (x.v >= 0) Mx = sqrt(TM_PI / 2) * tm_erfcx(x.v / TM_SQRT2);
  else Mx = 0.5 * erfc(x.v / TM_SQRT2) * exp(0.5 * x.v * x.v) * TM_SQRT_2PI;
  dn rel = dn_exp(dn_sub(E, E0));                          /* phi(r / sqrt t) / exp(E0), times sqrt(2 pi) */
  /* d [phi M] = phi M dE + phi (x M - 1) dx */
  dn r2;
  r2.v = rel.v * Mx;
  for (int i = 0; i < 4; i++) r2.d[i] = rel.d[i] * Mx + rel.v * (x.v * Mx - 1) * x.d[i];
  return dn_scale(r2, 1 / TM_SQRT_2PI);
}

/* log F (upper = 0) or log(P - F) (upper = 1) */
static dn wiener4_lcdf(double t_, double a_, double w_, double v_, int upper) {
  dn t = dn_var(t_, 0), a = dn_var(a_, 1), w = dn_var(w_, 2), v = dn_var(v_, 3);
  dn lin = dn_sub(dn_scale(dn_mul(dn_mul(v, a), w), -1), dn_scale(dn_mul(dn_mul(v, v), t), 0.5));
  double u = t_ / (a_ * a_);
  if (u < 0.5) {
    dn st = dn_sqrt(t), aw = dn_mul(a, w);
    dn E0 = dn_scale(dn_div(dn_mul(aw, aw), t), -0.5);     /* the largest exponent: r = a w' */
    dn vt = dn_mul(v, t), S = dn_c(0);
    int K = (int)ceil(sqrt(84 * u) / 2) + 2;
    for (int k = K; k >= 0; k--) {
      dn r1 = dn_mul(a, dn_add(dn_c(2.0 * k), w)), r2 = dn_mul(a, dn_sub(dn_c(2.0 * k + 2), w));
      S = dn_add(S, mill_term(r1, t, dn_div(dn_sub(r1, vt), st), E0));
      S = dn_add(S, mill_term(r1, t, dn_div(dn_add(r1, vt), st), E0));
      S = dn_sub(S, mill_term(r2, t, dn_div(dn_sub(r2, vt), st), E0));
      S = dn_sub(S, mill_term(r2, t, dn_div(dn_add(r2, vt), st), E0));
    }
    dn lF = dn_add(dn_add(E0, lin), dn_log(S));
    if (!upper) return lF;
    /* log(P - F) = log P + log1m(F / P) */
    dn P = prob_boundary(a, w, v), lP = dn_log(P);
    dn q = dn_exp(dn_sub(lF, lP));
    return dn_add(lP, dn_log(dn_sub(dn_c(1), q)));
  }
  /* large time: G = 2 pi / a^2 exp(lin) sum_k ..., F = P - G */
  dn S = dn_c(0), pa = dn_div(dn_c(TM_PI), a), pa2 = dn_mul(pa, pa), v2 = dn_mul(v, v);
  int K = (int)ceil(sqrt(84 / (TM_PI * TM_PI * u))) + 2;
  for (int k = K; k >= 1; k--) {
    dn kpa2 = dn_scale(pa2, (double)k * k);
    dn sn = dn_chain(w, sin(k * TM_PI * w.v), k * TM_PI * cos(k * TM_PI * w.v));
    dn e = dn_exp(dn_scale(dn_mul(kpa2, t), -0.5));
    S = dn_add(S, dn_div(dn_mul(dn_scale(sn, (double)k), e), dn_add(v2, kpa2)));
  }
  dn lG = dn_add(dn_add(dn_log(dn_scale(dn_div(dn_c(1), dn_mul(a, a)), 2 * TM_PI)), lin), dn_log(S));
  if (upper) return lG;
  dn P = prob_boundary(a, w, v), lP = dn_log(P);
  dn q = dn_exp(dn_sub(lG, lP));
  return dn_add(lP, dn_log(dn_sub(dn_c(1), q)));
}

/* Stan's check that each response time exceeds its nondecision time, with
** its message (the two spaces and %g are Stan's). */
static int wiener_check_after_t0(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++)
    if (X(D, 0, j) <= X(D, 2, j))
      return ad_fail(AD_EDOMAIN, "%s: Random variable  = %g, but must be greater than nondecision time = %g",
                     D->fn, X(D, 0, j), X(D, 2, j));
  return AD_OK;
}

/* What wiener_lpdf's five-parameter form and the four-parameter cdfs check
** alike, in Stan's order: nd arguments, or nd + 1 with a scalar precision
** last, each real(s) or a vector (else no overload); the frame over the
** first nd; then y, a, t0, the bias w in (0, 1) and the drift v.  The
** caller checks what follows v (sv, the precision). */
static int wiener_begin(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, int nd, const char *const *names) {
  const char *fn = c->fn->name;
  if (nargs != nd && nargs != nd + 1) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    if (!(v->base <= TM_REAL ? v->narr <= 1 : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0))
      return tm_no_overload(c, a, nargs);
  }
  if (nargs == nd + 1 && !tm_is_scalar(&a[nd])) return tm_no_overload(c, a, nargs);
  int rc = tm_dens_begin(D, c, a, nd, names);
  if (rc) return rc;
  if ((rc = tm_check_positive_finite(fn, names[0], &a[0])) || (rc = tm_check_positive_finite(fn, names[1], &a[1])) ||
      (rc = tm_check_nonnegative(fn, names[2], &a[2])) || (rc = tm_check_finite(fn, names[2], &a[2])))
    return rc;
  for (size_t j = 0; j < (D->inc[3] ? D->n : 1); j++) {
    double w = D->x[3][j];
    char at[32] = "";
    if (D->inc[3]) snprintf(at, sizeof at, "[%zu]", j + 1);
    if (!(w < 1)) return ad_fail(AD_EDOMAIN, "%s: A-priori bias%s is %.17g, but must be less than 1", fn, at, w);
    if (!(w > 0)) return ad_fail(AD_EDOMAIN, "%s: A-priori bias%s is %.17g, but must be greater than 0", fn, at, w);
  }
  return tm_check_finite(fn, names[4], &a[4]);
}

static int k_wiener_cdf(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[5] = {"Random variable", "Boundary separation", "Nondecision time",
                                       "A-priori bias", "Drift rate"};
  const char *fn = c->fn->name;
  int upper = c->fn->data != NULL;
  tm_dens D;
  int rc = wiener_begin(&D, c, a, nargs, 5, names);
  if (rc) return rc;
  if (nargs == 6 && (rc = tm_check_positive(fn, "Precision", &a[5]))) return rc;
  if (D.n == 0) return tm_dens_end(&D, 0.0, out);
  if ((rc = wiener_check_after_t0(&D))) return rc;
  double lp = 0;
  for (size_t j = 0; j < D.n; j++) {
    double y = X(&D, 0, j), al = X(&D, 1, j), t0 = X(&D, 2, j), wn = X(&D, 3, j), vn = X(&D, 4, j);
    dn r = wiener4_lcdf(y - t0, al, 1 - wn, -vn, upper);
    lp += r.v;
    tm_dens_add(&D, 0, j, r.d[0]);
    tm_dens_add(&D, 1, j, r.d[1]);
    tm_dens_add(&D, 2, j, -r.d[0]);
    tm_dens_add(&D, 3, j, -r.d[2]);
    tm_dens_add(&D, 4, j, -r.d[3]);
  }
  rc = tm_dens_end(&D, lp, out);
  if (!rc && !out->adj) out->dep = (unsigned char)tm_any_dep(a, 5);
  return rc;
}

/* log f0(u | w) and its partials in u and w */
static double log_f0(double u, double w, double *du, double *dw) {
  if (u < 1) {
    /* terms relative to exp(-w^2 / (2u)), the largest (|w + 2k| >= w) */
    int K = (int)ceil((sqrt(84 * u) + 1) / 2) + 1;
    double s = 0, su = 0, sw = 0;
    for (int k = -K; k <= K; k++) {
      double sk = w + 2.0 * k, e = exp(-(sk * sk - w * w) / (2 * u));
      s += sk * e;
      su += sk * e * sk * sk / (2 * u * u);
      sw += e * (1 - sk * sk / u);
    }
    /* su holds d/du of the relative terms plus w^2 / (2u^2) each (the
    ** factor's part), which is the factor's own derivative: it cancels */
    *du = su / s - 1.5 / u;
    *dw = sw / s;
    return -w * w / (2 * u) + log(s) - 0.5 * TM_LOG_2PI - 1.5 * log(u);
  }
  /* terms relative to exp(-pi^2 u / 2) */
  const double pi2 = TM_PI * TM_PI;
  int K = (int)ceil(sqrt(84 / (pi2 * u))) + 2;
  double s = 0, su = 0, sw = 0;
  for (int k = 1; k <= K; k++) {
    double e = exp(-(double)(k * k - 1) * pi2 * u / 2), sn = sin(k * TM_PI * w), cs = cos(k * TM_PI * w);
    s += k * e * sn;
    su += k * e * sn * (-(double)k * k * pi2 / 2);
    sw += k * e * cs * k * TM_PI;
  }
  *du = su / s;
  *dw = sw / s;
  return -pi2 * u / 2 + log(s) + TM_LOG_PI;
}

static int wiener5_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[6] = {"Random variable", "Boundary separation", "Nondecision time",
                                       "A-priori bias", "Drift rate", "Inter-trial variability in drift rate"};
  const char *fn = c->fn->name;
  tm_dens D;
  int rc = wiener_begin(&D, c, a, nargs, 6, names);
  if (rc) return rc;
  if ((rc = tm_check_nonnegative(fn, names[5], &a[5])) || (rc = tm_check_finite(fn, names[5], &a[5])))
    return rc;
  if (nargs == 7 && (rc = tm_check_positive(fn, "Precision", &a[6]))) return rc;
  if (D.n == 0) return tm_dens_end(&D, 0.0, out);
  if ((rc = wiener_check_after_t0(&D))) return rc;
  if (!tm_dens_keep(&D, 63u)) return tm_dens_end(&D, 0.0, out);
  double lp = 0;
  for (size_t j = 0; j < D.n; j++) {
    double y = X(&D, 0, j), al = X(&D, 1, j), t0 = X(&D, 2, j), wn = X(&D, 3, j), vn = X(&D, 4, j), sv = X(&D, 5, j);
    double w = 1 - wn, v = -vn, t = y - t0, u = t / (al * al), sv2 = sv * sv, Dn = 1 + sv2 * t;
    double N = sv2 * al * al * w * w - 2 * al * v * w - v * v * t;
    double fu, fw, lf = log_f0(u, w, &fu, &fw);
    lp += N / (2 * Dn) - 0.5 * log(Dn) - 2 * log(al) + lf;
    double dt = -v * v / (2 * Dn) - sv2 * N / (2 * Dn * Dn) - sv2 / (2 * Dn) + fu / (al * al);
    double da = (sv2 * al * w * w - v * w) / Dn - 2 / al - 2 * u / al * fu;
    double dw = (sv2 * al * al * w - al * v) / Dn + fw;          /* in w' */
    double dv = -(al * w + v * t) / Dn;                          /* in v' */
    double dsv = sv * al * al * w * w / Dn - N * sv * t / (Dn * Dn) - sv * t / Dn;
    tm_dens_add(&D, 0, j, dt);
    tm_dens_add(&D, 1, j, da);
    tm_dens_add(&D, 2, j, -dt);
    tm_dens_add(&D, 3, j, -dw);
    tm_dens_add(&D, 4, j, -dv);
    tm_dens_add(&D, 5, j, dsv);
  }
  return tm_dens_end(&D, lp, out);
}

/* wiener(y | alpha, tau, beta, delta): the first passage time of a Wiener
** diffusion at the upper boundary, by Navarro and Fuss's series truncated for
** an error of 1e-6, exactly as Stan (2.21 to today's four-argument form)
** computes it: the small-time or the large-time series, whichever needs
** fewer terms.  Stan differentiates the truncated series by autodiff; here
** its partials are written out, so they are the same numbers. */
static int k_wiener(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[5] = {"Random variable", "Boundary separation", "Nondecision time",
                                       "A-priori bias", "Drift rate"};
  const char *fn = c->fn->name;
  if (nargs == 6 || nargs == 7) return wiener5_kernel(c, a, nargs, out);
  if (nargs != 5) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < 5; i++) {
    const tm_v *v = &a[i];
    if (!(v->base <= TM_REAL ? v->narr <= 1 : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0))
      return tm_no_overload(c, a, nargs);
  }
  tm_dens D;
  int rc = tm_dens_begin(&D, c, a, 5, names);
  if (rc) return rc;
  /* Stan's order: not NaN, finite, positive, bounded */
  if ((rc = tm_check_not_nan(fn, names[0], &a[0])) || (rc = tm_check_not_nan(fn, names[1], &a[1])) ||
      (rc = tm_check_not_nan(fn, names[3], &a[3])) || (rc = tm_check_not_nan(fn, names[2], &a[2])) ||
      (rc = tm_check_not_nan(fn, names[4], &a[4])) || (rc = tm_check_finite(fn, names[1], &a[1])) ||
      (rc = tm_check_finite(fn, names[3], &a[3])) || (rc = tm_check_finite(fn, names[2], &a[2])) ||
      (rc = tm_check_finite(fn, names[4], &a[4])) || (rc = tm_check_positive(fn, names[0], &a[0])) ||
      (rc = tm_check_positive(fn, names[1], &a[1])) || (rc = tm_check_positive(fn, names[2], &a[2])) ||
      (rc = tm_check_bounded(fn, names[3], &a[3], 0, 1)))
    return rc;
  if (D.n == 0) return tm_dens_end(&D, 0.0, out);
  if ((rc = wiener_check_after_t0(&D))) return rc;
  if (!tm_dens_keep(&D, 31u)) return tm_dens_end(&D, 0.0, out);
  const double pi = 3.14159265358979323846, err = 0.000001;
  const double log_pi = log(pi), log_sqrt_pi = 0.5 * log_pi, sqrt_pi = sqrt(pi);
  const double pi_err = pi * err, log_pi_log_err = log_pi + log(err);
  const double two_sqrt2_sqrtpi_err = 2.0 * (sqrt(2.0) * sqrt_pi) * err;
  const double log2_half_log_sqrt_pi = log(2.0) / 2 + log_sqrt_pi;
  const double half_pi2 = pi * pi * 0.5, two_log_sqrt_pi = 2.0 * log_sqrt_pi;
  double lp = 0;
  for (size_t j = 0; j < D.n; j++) {
    double y = X(&D, 0, j), al = X(&D, 1, j), tau = X(&D, 2, j), be = X(&D, 3, j), de = X(&D, 4, j);
    double w = 1.0 - be, al2 = al * al, x = (y - tau) / al2;
    double sqrt_x = sqrt(x), log_x = log(x), kmin_l = 1.0 / pi * sqrt_x, kl, ks, tmp = 0;
    double dt_dx, dt_dw;   /* partials of tmp */
    if (pi_err * x < 1) {
      kl = sqrt(-2.0 * sqrt_pi * (log_pi_log_err + log_x)) / sqrt_x;
      if (!(kl > kmin_l)) kl = kmin_l;
    } else {
      kl = kmin_l;
    }
    double e0 = two_sqrt2_sqrtpi_err * sqrt_x;
    if (e0 < 1) {
      ks = 2.0 + sqrt_x * sqrt(-2 * log(e0));
      if (!(ks > sqrt_x + 1.0)) ks = sqrt_x + 1.0;
    } else {
      ks = 2.0;
    }
    if (ks < kl) {   /* small time */
      double K = ceil(ks), h = (K - 1.0) / 2.0, hi = ceil(h), sx = 0, sw = 0;
      for (double k = -floor(h); k <= hi; k++) {
        double u = w + 2.0 * k, e = exp(-(u * u) * 0.5 / x);
        tmp += u * e;
        sx += u * e * (u * u) * 0.5 / (x * x);
        sw += e * (1.0 - u * u / x);
      }
      dt_dx = sx / tmp - 1.5 / x;
      dt_dw = sw / tmp;
      tmp = log(tmp) - log2_half_log_sqrt_pi - 1.5 * log_x;
    } else {         /* large time */
      double K = ceil(kl), sx = 0, sw = 0;
      for (double k = 1; k <= K; ++k) {
        double e = exp(-(k * k) * (half_pi2 * x)), sn = sin(k * pi * w), cs = cos(k * pi * w);
        tmp += k * e * sn;
        sx += k * e * sn * (-(k * k) * half_pi2);
        sw += k * e * cs * (k * pi);
      }
      dt_dx = sx / tmp;
      dt_dw = sw / tmp;
      tmp = log(tmp) + two_log_sqrt_pi;
    }
    lp += de * al * w - de * de * x * al2 / 2.0 - log(al2) + tmp;
    tm_dens_add(&D, 0, j, -de * de / 2.0 + dt_dx / al2);
    tm_dens_add(&D, 1, j, de * w - 2.0 / al - dt_dx * 2.0 * x / al);
    tm_dens_add(&D, 2, j, de * de / 2.0 - dt_dx / al2);
    tm_dens_add(&D, 3, j, -(de * al + dt_dw));
    tm_dens_add(&D, 4, j, al * w - de * x * al2);
  }
  return tm_dens_end(&D, lp, out);
}

#define WSIG "real(real, real, real, real, real); real(vector, vector, vector, vector, vector); " \
  "real(real, real, real, real, real, real); real(vector, vector, vector, vector, vector, real)"
const tm_fn tm_fns_wiener[] = {
  {"wiener_lcdf_unnorm", WSIG, k_wiener_cdf, NULL},
  {"wiener_lccdf_unnorm", WSIG, k_wiener_cdf, "upper"},
  {"wiener_lpdf", "real(reals, reals, reals, reals, reals); real(real, real, real, real, real, real); "
   "real(real, real, real, real, real, real, real); real(vector, vector, vector, vector, vector, vector); "
   "real(vector, vector, vector, vector, vector, vector, real)", k_wiener, NULL},
  {NULL, NULL, NULL, NULL}
};
