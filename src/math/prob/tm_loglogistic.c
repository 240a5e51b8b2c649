/*
** tm_loglogistic.c -- the log-logistic distribution: loglogistic_lpdf,
** loglogistic_cdf, loglogistic_rng.
*/
#include "tm_cont_family.h"

/* loglogistic(y | alpha, beta) = (beta / alpha) (y / alpha)^(beta - 1) / (1 + (y / alpha)^beta)^2 */
static int loglogistic_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_ab = tm_dens_keep(D, B(1) | B(2));
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), a = X(D, 1, j), b = X(D, 2, j);
    double ly = log(y), la = log(a), lr = ly - la, p = pow(y / a, b), q = p / (1 + p);
    lp += (b - 1) * ly - 2 * log1p(p);
    if (k_ab) lp += log(b) - la - (b - 1) * la;
    tm_dens_add(D, 0, j, (b - 1) / y - 2 * b * q / y);
    tm_dens_add(D, 1, j, -b / a + 2 * b * q / a);
    tm_dens_add(D, 2, j, 1 / b + lr - 2 * q * lr);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_loglogistic = SHAPE_SCALE_DENS_DEF(SCALE, SHAPE, CK_POS_FINITE, loglogistic_body);

/* ---- loglogistic(y | alpha, beta): F = inv_logit(beta (log y - log alpha)) ---- */

static double loglogistic_e(const double *x, int upper, double *d) {
  double y = x[0], a = x[1], b = x[2];
  if (y == 0) return upper ? 0 : -INFINITY;
  double lr = log(y) - log(a), r = b * lr;
  double g = upper ? -tm_inv_logit(r) : tm_inv_logit(-r);
  d[0] = g * b / y;
  d[1] = -g * b / a;
  d[2] = g * lr;
  return upper ? tm_log1m_inv_logit(r) : tm_log_inv_logit(r);
}

static const cdf_def d_loglogistic = SHAPE_SCALE_CDF_DEF(SCALE, SHAPE, CK_NONNEG, loglogistic_e);
static const cdf_fn f_loglogistic_cdf = {&d_loglogistic, M_CDF};

static int draw_loglogistic(tm_rng *r, const double *p, double *x) {
  double u = tm_rng_uniform(r);
  *x = p[0] * exp((log(u) - log1p(-u)) / p[1]);
  return 0;
}

static const rng_def D_loglogistic = SHAPE_SCALE_RNG_DEF("loglogistic_rng", draw_loglogistic, SCALE, "Shape parameter");

const tm_fn tm_fns_loglogistic[] = {
  {"loglogistic_lpdf", "real(reals, reals, reals)", tm_dens_def_kernel, &dens_loglogistic},
  {"loglogistic_cdf", SIG3, tm_cdf_kernel, &f_loglogistic_cdf},
  {"loglogistic_rng", R2, tm_rng_kernel, &D_loglogistic},
  {NULL, NULL, NULL, NULL}
};
