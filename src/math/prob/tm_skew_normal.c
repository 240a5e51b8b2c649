/*
** tm_skew_normal.c -- the skew normal distribution: skew_normal_lpdf,
** skew_normal_cdf, _lcdf, _lccdf, skew_normal_rng.
*/
#include "tm_cont_family.h"

/* skew_normal(y | xi, omega, alpha) = 2 / omega phi(z) Phi(alpha z), z = (y - xi) / omega */
static int skew_normal_body(tm_dens *D, double *logp) {
  double lp = 0;
  int k_c = tm_dens_keep(D, 0), k_o = tm_dens_keep(D, B(2)), k_z = tm_dens_keep(D, 7u), k_all = tm_dens_keep(D, 15u);
  for (size_t j = 0; j < D->n; j++) {
    double o = X(D, 2, j), al = X(D, 3, j), z = (X(D, 0, j) - X(D, 1, j)) / o, u = al * z;
    if (k_c) lp += TM_LOG_2 - TM_LOG_SQRT_2PI;
    if (k_o) lp -= log(o);
    if (k_z) lp -= 0.5 * z * z;
    if (k_all) lp += tm_log_Phi(u);
    double r = tm_dlog_Phi(u), gz = -z + al * r;
    tm_dens_add(D, 0, j, gz / o);
    tm_dens_add(D, 1, j, -gz / o);
    tm_dens_add(D, 2, j, -1 / o - z * gz / o);
    tm_dens_add(D, 3, j, z * r);
  }
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_skew_normal = {4, {Y, LOC, SCALE, SHAPE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}, {3, CK_FINITE}}, 0, skew_normal_body, 0};

/* skew_normal(y | xi, omega, alpha): F = Phi(z) - 2 T(z, alpha), T Owen's,
** z = (y - xi) / omega, as Stan writes it; dF/dz = 2 phi(z) Phi(alpha z) and
** dF/dalpha = -exp(-z^2 (1 + alpha^2) / 2) / (pi (1 + alpha^2)). */
static double skew_normal_e(const double *x, int upper, double *d) {
  double y = x[0], xi = x[1], om = x[2], al = x[3];
  if (isinf(y)) return (y < 0) == !upper ? -INFINITY : 0;
  double z = (y - xi) / om, t2 = 2 * tm_owens_t(z, al), ph = 0.5 * erfc(-z / TM_SQRT2);
  double F = upper ? 1.0 - ph + t2 : ph - t2;
  double dz = 2 * exp(-0.5 * z * z) / TM_SQRT_2PI * 0.5 * erfc(-al * z / TM_SQRT2);
  double da = -exp(-0.5 * z * z * (1 + al * al)) / (TM_PI * (1 + al * al));
  double sg = upper ? -1 / F : 1 / F;
  d[0] = sg * dz / om;
  d[1] = -sg * dz / om;
  d[2] = -sg * dz * z / om;
  d[3] = sg * da;
  return log(F);
}

static const cdf_def d_skew_normal = {4, 0, {Y, LOC, SCALE, SHAPE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}, {3, CK_FINITE}}, skew_normal_e, NULL};

/* |Z0| picks the sign of a correlated Z1 (Azzalini's representation). */
static int draw_skew_normal(tm_rng *r, const double *p, double *x) {
  double delta = p[2] / sqrt(1.0 + p[2] * p[2]);
  double z0 = tm_rng_normal(r), z1 = delta * z0 + sqrt(1.0 - delta * delta) * tm_rng_normal(r);
  *x = p[0] + p[1] * (z0 >= 0 ? z1 : -z1);
  return 0;
}

static const rng_def D_skew_normal = {"skew_normal_rng", 3, 0, draw_skew_normal,
  {LOC, SCALE, "Shape parameter"}, {CK_FINITE, CK_POS_FINITE, CK_FINITE}};

CONT_FAMILY_TABLE(skew_normal, SIG4, R3)
