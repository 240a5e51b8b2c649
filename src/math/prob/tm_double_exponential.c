/*
** tm_double_exponential.c -- the double exponential (Laplace) distribution:
** double_exponential_lpdf, double_exponential_cdf, _lcdf, _lccdf,
** double_exponential_rng.
*/
#include "tm_cont_family.h"

/* double_exponential(y | mu, sigma) */
static int double_exponential_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double inv_s = 1 / at(D, 2, j), d = at(D, 0, j) - at(D, 1, j);
    double sd = fabs(d) * inv_s;
    lp -= sd;
    double sign = (d > 0) - (d < 0);      /* Stan's sign(0) = 0 */
    tm_dens_add(D, 0, j, -sign * inv_s);
    tm_dens_add(D, 1, j, sign * inv_s);
    tm_dens_add(D, 2, j, inv_s * (sd - 1));
  }
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_2 * (double)D->n;
  add_neg_log_scale(D, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_double_exponential = LOC_SCALE_DENS_DEF(CK_FINITE, 1, double_exponential_body);

/* F = exp(z) / 2 below mu, 1 - exp(-z) / 2 above */
static double double_exponential_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2], v, g;
  if ((z < 0) != upper) {      /* the tail: log(1/2) + -|z| */
    v = -TM_LOG_2 - fabs(z);
    g = upper ? -1 : 1;
  } else {                     /* log(1 - exp(-|z|) / 2) */
    double e = exp(-fabs(z));
    v = log1p(-0.5 * e);
    g = e / (2 - e) * (upper ? -1 : 1);
  }
  loc_scale(g, z, x[2], d);
  return v;
}

static const cdf_def d_double_exponential = LOC_SCALE_CDF_DEF(CK_NOT_NAN, double_exponential_e);

/* the standard double exponential: an exponential with a random sign */
static double std_double_exponential(tm_rng *r) {
  double e = tm_rd_exponential(r);
  return tm_rng_next(r) >> 63 ? e : -e;
}

LOC_SCALE_RNG(double_exponential, std_double_exponential)

CONT_FAMILY_TABLE(double_exponential, SIG3, R2)
