/*
** tm_normal.c -- the normal distribution and the standard normal
** (normal_id_glm is in tm_glm.c):
** normal_lpdf, std_normal_lpdf, normal_cdf, _lcdf, _lccdf,
** std_normal_cdf, _lcdf, _lccdf, normal_rng, std_normal_rng.
*/
#include "tm_cont_family.h"

/* normal(y | mu, sigma).  The hot density of most models, so it reads the
** arguments through strided pointers and keeps the partials of scalar
** arguments in registers instead of going through tm_dens_add. */
static int normal_body(tm_dens *D, double *logp) {
  const double *y = D->x[0], *mu = D->x[1], *sg = D->x[2];
  const size_t iy = D->inc[0], imu = D->inc[1], is = D->inc[2], n = D->n;
  double *dy = D->d[0], *dmu = D->d[1], *ds = D->d[2];
  double zz = 0, gy = 0, gmu = 0, gs = 0, sum_log_s = 0;
  /* -log(sigma) only when propto keeps it: with a data sigma (y ~ normal(mu,
  ** sigma) of most regressions) its logs were 3% of a sampler's time */
  const int keep_s = tm_dens_keep(D, B(2));
  if (is == 0) {
    const double inv_s = 1 / sg[0];
    for (size_t j = 0; j < n; j++) {
      double z = (y[j * iy] - mu[j * imu]) * inv_s, g = z * inv_s;
      zz += z * z;
      if (dy) { if (iy) dy[j] = -g; else gy -= g; }
      if (dmu) { if (imu) dmu[j] = g; else gmu += g; }
    }
    gs = (zz - (double)n) * inv_s;
    if (keep_s) sum_log_s = (double)n * log(sg[0]);
  } else {
    for (size_t j = 0; j < n; j++) {
      double inv_s = 1 / sg[j], z = (y[j * iy] - mu[j * imu]) * inv_s, g = z * inv_s;
      zz += z * z;
      if (dy) { if (iy) dy[j] = -g; else gy -= g; }
      if (dmu) { if (imu) dmu[j] = g; else gmu += g; }
      if (ds) ds[j] = (z * z - 1) * inv_s;
      if (keep_s) sum_log_s += log(sg[j]);
    }
  }
  if (dy && !iy) dy[0] = gy;
  if (dmu && !imu) dmu[0] = gmu;
  if (ds && !is) ds[0] = gs;
  double lp = -0.5 * zz;
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_SQRT_2PI * (double)n;
  if (keep_s) lp -= sum_log_s;
  *logp = lp;
  return AD_OK;
}

/* std_normal(y) */
static int std_normal_body(tm_dens *D, double *logp) {
  double lp = 0;
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j);
    lp -= 0.5 * y * y;
    tm_dens_add(D, 0, j, -y);
  }
  if (tm_dens_keep(D, 0)) lp -= TM_LOG_SQRT_2PI * (double)D->n;
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_normal = {3, {Y, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, 0, normal_body, 1};
static const tm_dens_def dens_std_normal = {1, {Y}, {{0, CK_NOT_NAN}}, 0, std_normal_body, 0};

static double normal_e(const double *x, int upper, double *d) {
  double z = (x[0] - x[1]) / x[2], g, v = normal_z(z, upper, &g);
  loc_scale(g, z, x[2], d);
  return v;
}

static double std_normal_e(const double *x, int upper, double *d) {
  double g, v = normal_z(x[0], upper, &g);
  d[0] = g;
  return v;
}

static const cdf_def d_normal = {3, 0, {Y, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_FINITE}, {2, CK_POS}}, normal_e, NULL};
static const cdf_def d_std_normal = {1, 0, {Y}, {{0, CK_NOT_NAN}}, std_normal_e, NULL};
MODES(normal)
MODES(std_normal)

LOC_SCALE_RNG(normal, tm_rng_normal)

static int draw_std_normal(tm_rng *r, const double *p, double *x) { (void)p; *x = tm_rng_normal(r); return 0; }
static const rng_def D_std_normal = {"std_normal_rng", 0, 0, draw_std_normal, {NULL}, {CK_NONE}};

const tm_fn tm_fns_normal[] = {
  {"normal_lpdf",             SIG3, tm_dens_def_kernel, &dens_normal},
  {"std_normal_lpdf",         SIG1, tm_dens_def_kernel, &dens_std_normal},
  ENTRIES(normal, SIG3),
  ENTRIES(std_normal, SIG1),
  {"normal_rng", R2, tm_rng_kernel, &D_normal},
  {"std_normal_rng", "real()", tm_rng_kernel, &D_std_normal},
  {NULL, NULL, NULL, NULL}
};
