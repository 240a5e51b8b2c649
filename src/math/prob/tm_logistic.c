/*
** tm_logistic.c -- the logistic distribution: logistic_lpdf,
** logistic_cdf, _lcdf, _lccdf, logistic_rng.
*/
#include "tm_cont_family.h"

/* logistic(y | mu, sigma) */
static int logistic_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double inv_s = 1 / at(D, 2, j), d = at(D, 0, j) - at(D, 1, j);
    double z = d * inv_s;
    lp -= z + 2 * tm_log1p_exp(-z);
    /* Stan's 2 / (1 + exp(z)) - 1, as -tanh(z / 2): no overflow for large z;
    ** the mu partial is its negative (Stan's exp(mu / sigma) form overflows) */
    double dy = -tanh(0.5 * z) * inv_s;
    tm_dens_add(D, 0, j, dy);
    tm_dens_add(D, 1, j, -dy);
    tm_dens_add(D, 2, j, (-dy * d - 1) * inv_s);
  }
  add_neg_log_scale(D, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_logistic = LOC_SCALE_DENS_DEF(CK_FINITE, 0, logistic_body);

static double logistic_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2];
  if (upper) {
    loc_scale(-tm_inv_logit(z), z, x[2], d);
    return tm_log1m_inv_logit(z);
  }
  loc_scale(tm_inv_logit(-z), z, x[2], d);
  return tm_log_inv_logit(z);
}

static const cdf_def d_logistic = LOC_SCALE_CDF_DEF(CK_NOT_NAN, logistic_e);

/* the standard logistic: the logit of a uniform */
static double std_logistic(tm_rng *r) {
  double u = tm_rng_uniform(r);
  return log(u) - log1p(-u);
}

LOC_SCALE_RNG(logistic, std_logistic)

CONT_FAMILY_TABLE(logistic, SIG3, R2)
