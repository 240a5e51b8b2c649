/*
** tm_cauchy.c -- the Cauchy distribution: cauchy_lpdf,
** cauchy_cdf, _lcdf, _lccdf, cauchy_rng.
*/
#include "tm_cont_family.h"

/* cauchy(y | mu, sigma) */
static int cauchy_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double s = at(D, 2, j), d = at(D, 0, j) - at(D, 1, j);
    double r = d / s;
    lp -= log1p(r * r);
    double s2 = s * s, d2 = d * d;
    double dmu = 2 * d / (s2 + d2);
    tm_dens_add(D, 0, j, -dmu);
    tm_dens_add(D, 1, j, dmu);
    tm_dens_add(D, 2, j, (d2 - s2) / s / (s2 + d2));
  }
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_PI * (double)D->n;
  add_neg_log_scale(D, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_cauchy = LOC_SCALE_DENS_DEF(CK_NOT_NAN, 1, cauchy_body);

/* F = atan2(1, -z) / pi: 1/2 + atan(z) / pi without its cancellation for z << 0 */
static double cauchy_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2];
  double p = atan2(1, upper ? z : -z) / TM_PI;
  double g = 1 / (TM_PI * (1 + z * z) * p);
  loc_scale(upper ? -g : g, z, x[2], d);
  return log(p);
}

static const cdf_def d_cauchy = LOC_SCALE_CDF_DEF(CK_NOT_NAN, cauchy_e);

/* the standard Cauchy by inversion */
static double std_cauchy(tm_rng *r) { return tan(TM_PI * (tm_rng_uniform(r) - 0.5)); }

LOC_SCALE_RNG(cauchy, std_cauchy)

CONT_FAMILY_TABLE(cauchy, SIG3, R2)
