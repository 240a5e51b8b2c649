/*
** tm_wiener5.c -- wiener_lpdf(y | a, t0, w, v, sv) and its form with a
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
** entry (tm_dens_cont.c) hands its six- and seven-argument calls here.
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_dens_def.h"

#define X(D, i, j) ((D)->x[i][(j) * (D)->inc[i]])

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

int tm_wiener5_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char *const names[6] = {"Random variable", "Boundary separation", "Nondecision time",
                                       "A-priori bias", "Drift rate", "Inter-trial variability in drift rate"};
  const char *fn = c->fn->name;
  if (nargs != 6 && nargs != 7) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    if (!(v->base <= TM_REAL ? v->narr <= 1 : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0))
      return tm_no_overload(c, a, nargs);
  }
  if (nargs == 7 && !tm_is_scalar(&a[6])) return tm_no_overload(c, a, nargs);
  tm_dens D;
  int rc = tm_dens_begin(&D, c, a, 6, names);
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
  if ((rc = tm_check_finite(fn, names[4], &a[4])) || (rc = tm_check_nonnegative(fn, names[5], &a[5])) ||
      (rc = tm_check_finite(fn, names[5], &a[5])))
    return rc;
  if (nargs == 7 && (rc = tm_check_positive(fn, "Precision", &a[6]))) return rc;
  if (D.n == 0) return tm_dens_end(&D, 0.0, out);
  for (size_t j = 0; j < D.n; j++)
    if (X(&D, 0, j) <= X(&D, 2, j))
      return ad_fail(AD_EDOMAIN, "%s: Random variable  = %g, but must be greater than nondecision time = %g",
                     fn, X(&D, 0, j), X(&D, 2, j));
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
