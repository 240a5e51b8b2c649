/*
** tm_cdf.h -- the cdf kernel of tm_cdf.c: a
** distribution is one function giving log F or log(1 - F) of one element
** and that log's partials; the kernel broadcasts it and forms _lcdf, _lccdf
** or _cdf.  Also the pieces the families' element functions share (the
** location-scale partials, the 1 - exp(-u) and incomplete gamma forms, the
** complement) and the macros that name a family's three functions.
*/
#ifndef TM_CDF_H
#define TM_CDF_H
#include <math.h>
#include "../tm.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_def.h"

enum { M_LCDF, M_LCCDF, M_CDF };

/* log F (upper = 0) or log(1 - F) (upper = 1) at x[0..nargs-1], with
** d[i] = d(that log) / dx[i]; d of int arguments is ignored. */
typedef double (*cdf_elem)(const double *x, int upper, double *d);

typedef struct cdf_def {
  int nargs;
  unsigned ints;               /* bit i: argument i is an int (a count or size) */
  const char *names[4];
  tm_dens_check checks[5];
  cdf_elem f;
  /* optional: checks beyond checks[] (run after them), e.g. y >= mu */
  int (*check)(const tm_dens *D);
} cdf_def;

typedef struct cdf_fn { const cdf_def *def; int mode; } cdf_fn;

/* The kernel: c->fn->data is a cdf_fn. */
int tm_cdf_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);

/* A family's cdf_def d_<name> run in the three modes (f_<name>_lcdf, ...),
** and its three table rows. */
#define MODES(name) \
  static const cdf_fn f_##name##_lcdf = {&d_##name, M_LCDF}, f_##name##_lccdf = {&d_##name, M_LCCDF}, \
    f_##name##_cdf = {&d_##name, M_CDF};

#define ENTRIES(name, sig) \
  {#name "_lcdf", sig, tm_cdf_kernel, &f_##name##_lcdf}, \
  {#name "_lccdf", sig, tm_cdf_kernel, &f_##name##_lccdf}, \
  {#name "_cdf", sig, tm_cdf_kernel, &f_##name##_cdf}

/* The table tm_fns_<name> of a family with Stan's usual five functions: its
** density or mass (dens "_lpdf" or "_lpmf", run by kernel on def), _lcdf,
** _lccdf and _cdf (the cdf_def d_<name>), all with signature sig, and
** <name>_rng (the rng_def D_<name>, tm_rng_def.h) with signature rsig.
** CONT_FAMILY_TABLE (tm_cont_family.h) and DISCRETE_FAMILY_TABLE
** (tm_dens_elem.h) name the kernel and def of their kind. */
#define FAMILY_TABLE(name, dens, kernel, def, sig, rsig) \
  MODES(name) \
  const tm_fn tm_fns_##name[] = { \
    {#name dens, sig, kernel, &def}, \
    ENTRIES(name, sig), \
    {#name "_rng", rsig, tm_rng_kernel, &D_##name}, \
    {NULL, NULL, NULL, NULL} \
  };

/* ---- location-scale families: g = d(log value) / dz, z = (y - mu) / sigma ---- */

static inline void loc_scale(double g, double z, double sigma, double *d) {
  if (g == 0) return;          /* z may be infinite there */
  d[0] = g / sigma;
  d[1] = -g / sigma;
  d[2] = -g * z / sigma;
}

static inline double normal_z(double z, int upper, double *g) {
  if (upper) { *g = -tm_dlog_Phi(-z); return tm_log_Phi(-z); }
  *g = tm_dlog_Phi(z);
  return tm_log_Phi(z);
}

/* ---- 1 - exp(-u) families: lcdf = log1m_exp(-u), lccdf = -u ---- */

/* value and d(value)/du */
static inline double one_minus_exp(double u, int upper, double *g) {
  if (upper) { *g = -1; return -u; }
  *g = isinf(u) ? 0 : 1 / expm1(u);
  return tm_log1m_exp(-u);
}

/* ---- power families: F a function of u = r^alpha, r = y / sigma (weibull)
** or sigma / y (frechet) ---- */

/* The partials through u of a value with d(value)/du = g: sign is 1 for
** r = y / sigma, -1 for r = sigma / y (du/dy = sign alpha u / y, du/dsigma
** its negative times y / sigma, du/dalpha = u log r).  None where g is 0 or
** u infinite. */
static inline void power_ratio_partials(double g, double sign, double al, double u, double r, double y,
                                        double s, double *d) {
  if (g != 0 && isfinite(u)) {
    double g_y = sign * g;
    d[0] = g_y * al * u / y;
    d[1] = g * u * log(r);
    d[2] = -g_y * al * u / s;
  }
}

/* ---- the incomplete gamma families: F = P(a, t) or Q(a, t) ---- */

/* log P(a, t) (lower = 1) or log Q(a, t) of the cdf, given which of them
** is the cdf; *ga and *gt the partials of the returned log in a and t */
static inline double inc_gamma(double a, double t, int upper, int cdf_is_p, double *ga, double *gt) {
  double lp, lq, g[4];
  tm_log_gamma_pq_grad(a, t, &lp, &lq, g);
  int want_p = cdf_is_p != upper;
  double v = want_p ? lp : lq;
  *ga = *gt = 0;
  if (isfinite(v)) {
    *ga = want_p ? g[0] : g[1];
    *gt = want_p ? g[2] : g[3];
  }
  return v;
}

/* ---- where one side has a closed form the other is its complement by log1m_exp ---- */

/* log(1 - A) from v = log A and its partials d[0..n-1], in place */
static inline double tm_cdf_complement(double v, double *d, int n) {
  if (v == -INFINITY) { for (int i = 0; i < n; i++) d[i] = 0; return 0; }
  double w = tm_log1m_exp(v), r = -exp(v - w);
  for (int i = 0; i < n; i++) d[i] = isfinite(r) ? d[i] * r : 0;
  return w;
}

#endif
