/*
** tm_wiener_cdf.c -- wiener_lcdf_unnorm and wiener_lccdf_unnorm (y | a, t0,
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
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_def.h"

#define X(D, i, j) ((D)->x[i][(j) * (D)->inc[i]])

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

static int k_wiener_cdf(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[5] = {"Random variable", "Boundary separation", "Nondecision time",
                                       "A-priori bias", "Drift rate"};
  const char *fn = c->fn->name;
  int upper = c->fn->data != NULL;
  if (nargs != 5 && nargs != 6) return tm_no_overload(c, a, nargs);
  if (nargs == 6 && !tm_is_scalar(&a[5])) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    if (!(v->base <= TM_REAL ? v->narr <= 1 : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0))
      return tm_no_overload(c, a, nargs);
  }
  tm_dens D;
  int rc = tm_dens_begin(&D, c, a, 5, names);
  if (rc) return rc;
  if ((rc = tm_check_positive_finite(fn, names[0], &a[0])) || (rc = tm_check_positive_finite(fn, names[1], &a[1])) ||
      (rc = tm_check_nonnegative(fn, names[2], &a[2])) || (rc = tm_check_finite(fn, names[2], &a[2])))
    return rc;
  for (size_t j = 0; j < (D.inc[3] ? D.n : 1); j++) {
    double w = D.x[3][j];
    char at[32] = "";
    if (D.inc[3]) snprintf(at, sizeof at, "[%zu]", j + 1);
    if (!(w < 1)) return ad_fail(AD_EDOMAIN, "%s: A-priori bias%s is %.17g, but must be less than 1", fn, at, w);
    if (!(w > 0)) return ad_fail(AD_EDOMAIN, "%s: A-priori bias%s is %.17g, but must be greater than 0", fn, at, w);
  }
  if ((rc = tm_check_finite(fn, names[4], &a[4]))) return rc;
  if (nargs == 6 && (rc = tm_check_positive(fn, "Precision", &a[5]))) return rc;
  if (D.n == 0) return tm_dens_end(&D, 0.0, out);
  for (size_t j = 0; j < D.n; j++)
    if (X(&D, 0, j) <= X(&D, 2, j))
      return ad_fail(AD_EDOMAIN, "%s: Random variable  = %g, but must be greater than nondecision time = %g",
                     fn, X(&D, 0, j), X(&D, 2, j));
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

#define WSIG "real(real, real, real, real, real); real(vector, vector, vector, vector, vector); " \
  "real(real, real, real, real, real, real); real(vector, vector, vector, vector, vector, real)"
const tm_fn tm_fns_wiener_cdf[] = {
  {"wiener_lcdf_unnorm", WSIG, k_wiener_cdf, NULL},
  {"wiener_lccdf_unnorm", WSIG, k_wiener_cdf, "upper"},
  {NULL, NULL, NULL, NULL}
};
