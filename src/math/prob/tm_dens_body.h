/*
** tm_dens_body.h -- what the bodies of the tm_dens_def densities share (the
** family files tm_<family>.c): the elements of an argument the broadcast
** visits, terms of one argument evaluated once per element and scaled by
** how often the broadcast repeats it (as Stan does, so a scalar shape costs
** one lgamma), and the support test that gives LOG_ZERO.
*/
#ifndef TM_DENS_BODY_H
#define TM_DENS_BODY_H
#include <math.h>
#include "../tm.h"
#include "../tm_special.h"
#include "tm_dens_def.h"

/* Elements of argument i that the broadcast visits (1 for a scalar), and how
** often each is repeated. */
static inline size_t len(const tm_dens *D, int i) { return tm_is_scalar(&D->a[i]) ? 1 : D->n; }
static inline double rep(const tm_dens *D, int i) { return (double)D->n / (double)len(D, i); }
static inline double at(const tm_dens *D, int i, size_t j) { return tm_get(&D->a[i], j); }
static inline int ad(const tm_dens *D, int i) { return D->d[i] != NULL; }

/* Add sum_k g(a_i[k]) * rep to *logp: a term of one argument. */
static inline void add_unary(tm_dens *D, int i, double (*g)(double), double *logp) {
  size_t m = len(D, i);
  double s = 0;
  for (size_t k = 0; k < m; k++) s += g(at(D, i, k));
  *logp += s * rep(D, i);
}

/* g(a_i[k]) for each element of argument i, computed once (lgamma, digamma
** of a scalar shape); index with idx(). */
static inline double *per_elem(const tm_dens *D, int i, double (*g)(double)) {
  size_t m = len(D, i);
  double *v = ad_alloc_doubles(m ? m : 1);
  if (!v) return NULL;
  for (size_t k = 0; k < m; k++) v[k] = g(at(D, i, k));
  return v;
}
static inline size_t idx(const tm_dens *D, int i, size_t j) { return tm_is_scalar(&D->a[i]) ? 0 : j; }

/* Any element of argument i below lo (or at lo when `or_equal`)?  Stan then
** returns LOG_ZERO with zero partials. */
static inline int any_below(const tm_dens *D, int i, double lo, int or_equal) {
  size_t m = len(D, i);
  for (size_t k = 0; k < m; k++) {
    double x = at(D, i, k);
    if (x < lo || (or_equal && x == lo)) return 1;
  }
  return 0;
}

/* Stan's LOG_ZERO, with zero partials, for a y outside the support (after
** any_below): a body's early return. */
static inline int log_zero(double *logp) {
  *logp = -INFINITY;
  return AD_OK;
}

/* the g of add_unary and per_elem */
static inline double neg_log(double x) { return -log(x); }
static inline double neg_lgamma(double x) { return -tm_lgamma(x); }
static inline double log_fn(double x) { return log(x); }
static inline double digamma_fn(double x) { return tm_digamma(x); }

/* The digamma of argument i per element when it is autodiff (the partial of
** its -lgamma term), else NULL, in *dg; AD_EMEMORY when out of memory. */
static inline int ad_digamma(const tm_dens *D, int i, double **dg) {
  *dg = NULL;
  if (ad(D, i) && !(*dg = per_elem(D, i, digamma_fn))) return AD_EMEMORY;
  return AD_OK;
}

/* Which terms of a density of three arguments (y, then two parameters a and
** b) tm_dens_keep keeps, by the two arguments each term depends on. */
typedef struct pair_keep { int ya, yb, ab; } pair_keep;
static inline pair_keep keep_pairs(const tm_dens *D) {
  pair_keep k = {tm_dens_keep(D, B(0) | B(1)), tm_dens_keep(D, B(0) | B(2)), tm_dens_keep(D, B(1) | B(2))};
  return k;
}

/* The -log(sigma) term of a location-scale density (sigma is argument 2):
** once per element of sigma, when kept. */
static inline void add_neg_log_scale(tm_dens *D, double *logp) {
  if (tm_dens_keep(D, B(2))) add_unary(D, 2, neg_log, logp);
}

#endif
