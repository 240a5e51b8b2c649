/*
** tm_exp_mod_normal.c -- the exponentially modified normal distribution:
** exp_mod_normal_lpdf, exp_mod_normal_cdf, _lcdf, _lccdf, exp_mod_normal_rng.
*/
#include "tm_cont_family.h"

/* exp_mod_normal(y | mu, sigma, lambda)
**   = lambda exp(lambda (mu - y) + lambda^2 sigma^2 / 2) Phi((y - mu) / sigma - lambda sigma) */
static int exp_mod_normal_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_l = tm_dens_keep(D, B(3)), k_all = tm_dens_keep(D, 15u);
  for (size_t j = 0; j < D->n; j++) {
    double y = X(D, 0, j), mu = X(D, 1, j), s = X(D, 2, j), l = X(D, 3, j);
    double v = (y - mu) / s - l * s;
    if (k_l) lp += log(l);
    if (k_all) lp += l * (mu - y) + 0.5 * l * l * s * s + tm_log_Phi(v);
    double r = tm_dlog_Phi(v);
    tm_dens_add(D, 0, j, -l + r / s);
    tm_dens_add(D, 1, j, l - r / s);
    tm_dens_add(D, 2, j, l * l * s - r * ((y - mu) / (s * s) + l));
    tm_dens_add(D, 3, j, 1 / l + mu - y + l * s * s - r * s);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_exp_mod_normal = {4, {Y, LOC, SCALE, "Inv_scale parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, 0, exp_mod_normal_body, 0};

/* exp_mod_normal(y | mu, sigma, lambda): F = Phi(z) - E Phi(z - v) with
** z = (y - mu) / sigma, v = lambda sigma, E = exp(v^2 / 2 - lambda (y - mu)),
** evaluated as Stan does (through erf); the partials of F use the identity
** E phi(z - v) = phi(z). */
static double exp_mod_normal_e(const double *x, int upper, double *d) {
  double y = x[0], mu = x[1], s = x[2], l = x[3];
  if (isinf(y)) return (y < 0) == !upper ? -INFINITY : 0;
  double u = l * (y - mu), v = l * s, z = (y - mu) / s;
  double e1 = 0.5 * (1 + erf(u / (v * TM_SQRT2))), e2 = 0.5 * (1 + erf(u / (v * TM_SQRT2) - v / TM_SQRT2));
  double E = exp(-u + v * v * 0.5), EP = E * e2;
  double F = upper ? 1.0 - e1 + EP : e1 - EP;
  double phi = exp(-0.5 * z * z) / TM_SQRT_2PI;
  double dy = l * EP, dmu = -l * EP, ds = l * phi - l * l * s * EP, dl = EP * ((y - mu) - l * s * s) + s * phi;
  double sg = upper ? -1 / F : 1 / F;
  d[0] = sg * dy;
  d[1] = sg * dmu;
  d[2] = sg * ds;
  d[3] = sg * dl;
  return log(F);
}

static const cdf_def d_exp_mod_normal = {4, 0, {Y, LOC, SCALE, "Inv_scale parameter"},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS_FINITE}, {3, CK_POS_FINITE}}, exp_mod_normal_e, NULL};

static int draw_exp_mod_normal(tm_rng *r, const double *p, double *x) {
  *x = p[0] + p[1] * tm_rng_normal(r) + tm_rd_exponential(r) / p[2];
  return 0;
}

static const rng_def D_exp_mod_normal = {"exp_mod_normal_rng", 3, 0, draw_exp_mod_normal,
  {LOC, SCALE, "Inv_scale parameter"}, {CK_FINITE, CK_POS_FINITE, CK_POS_FINITE}};

CONT_FAMILY_TABLE(exp_mod_normal, SIG4, R3)
