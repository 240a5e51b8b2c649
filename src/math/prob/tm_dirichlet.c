/*
** tm_dirichlet.c -- the dirichlet family: dirichlet_lpdf (vectorized as
** Stan does over "vectors" theta and alpha, one operands node per call) and
** dirichlet_rng.  dirichlet_multinomial, a mass, is with the discrete
** distributions.
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_rng_dist.h"
#include "tm_mv_checks.h"
#include "tm_rng_def.h"

/* ---- dirichlet_lpdf(theta | alpha) ---- */

/* Stan's check_simplex, with the precision of dirichlet_lpdf's messages. */
static int check_simplex(const char *fn, const char *name, const tm_v *t) {
  int rc;
  if ((rc = tm_check_nonzero_size(fn, name, t))) return rc;
  size_t n = tm_numel(t);
  double s = 0;
  for (size_t i = 0; i < n; i++) s += t->val[i];
  if (!(fabs(1.0 - s) <= 1e-8))
    return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. sum(%s) = %g, but should be 1", fn, name, name, s);
  for (size_t i = 0; i < n; i++)
    if (!(t->val[i] >= 0))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. %s[%zu] = %g, but should be greater than or equal to 0",
                     fn, name, name, i + 1, t->val[i]);
  return AD_OK;
}

static int k_dirichlet(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  static const char fn[] = "dirichlet_lpdf";
  int rc = AD_OK;
  tm_mvec th = {0}, al = {0};
  if (nargs != 2) return ad_fail(AD_EINVALID, "%s: expects (vectors, vectors)", fn);
  if ((rc = tm_mvec_of(fn, &a[0], "probabilities", &th)) || (rc = tm_mvec_of(fn, &a[1], "prior sample sizes", &al)))
    return rc;
  if ((rc = tm_mv_consistent(fn, "probabilities", &th, "prior sample sizes", &al))) return rc;
  int N = th.n > al.n ? th.n : al.n;
  if (th.n == 0 || al.n == 0) N = 0;
  if (N > 0 && (rc = tm_check_size_match(fn, "probabilities", (size_t)th.k, "prior sample sizes", (size_t)al.k)))
    return rc;
  for (int i = 0; i < N; i++) {
    tm_v ai = tm_mvec_elem(&al, i), ti = tm_mvec_elem(&th, i);
    if ((rc = tm_check_positive(fn, "prior sample sizes", &ai))) return rc;
    if ((rc = check_simplex(fn, "probabilities", &ti))) return rc;
  }
  double *d[2] = {tm_new_partials(&a[0], &rc), tm_new_partials(&a[1], &rc)};
  if (rc) return rc;
  int k = th.k, propto = c->propto;
  int norm = !propto || !tm_is_const(&a[1]);
  int kern = !propto || !tm_is_const(&a[0]) || !tm_is_const(&a[1]);
  double lp = 0;
  for (int i = 0; i < N; i++) {
    const double *t = th.v->val + tm_mvec_off(&th, i), *al_i = al.v->val + tm_mvec_off(&al, i);
    double *dt = d[0] ? d[0] + tm_mvec_off(&th, i) : NULL, *da = d[1] ? d[1] + tm_mvec_off(&al, i) : NULL;
    if (norm) {
      double sa = 0;
      for (int j = 0; j < k; j++) { sa += al_i[j]; lp -= tm_lgamma(al_i[j]); }
      lp += tm_lgamma(sa);
      if (da) {
        double dsa = tm_digamma(sa);
        for (int j = 0; j < k; j++) da[j] += dsa - tm_digamma(al_i[j]);
      }
    }
    if (kern)
      for (int j = 0; j < k; j++) {
        double am1 = al_i[j] - 1, lt = log(t[j]);
        if (am1 != 0) lp += am1 * lt;   /* 0 * log(0) is 0, as multiply_log */
        if (dt && am1 != 0) dt[j] += am1 / t[j];
        if (da) da[j] += lt;
      }
  }
  return tm_set_partials(out, a, d, 2, lp);
}

/* ---- dirichlet_rng(alpha) ---- */

/* Normalised gammas; in log space when a shape is below 1, where the gamma
** draws themselves may underflow (Stan's method). */
static int k_dirichlet_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "dirichlet_rng";
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 1))) return rc;
  if ((rc = tm_check_positive_finite(fn, "prior sample sizes", &a[0]))) return rc;
  int k = (int)tm_numel(&a[0]);
  if ((rc = tm_new_vector(out, k, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  if (k == 0) return AD_OK;
  double amin = a[0].val[0];
  for (int i = 1; i < k; i++) amin = fmin(amin, a[0].val[i]);
  if (amin < 1) {
    double lse = -INFINITY;
    for (int i = 0; i < k; i++) {
      out->val[i] = tm_rd_log_gamma(c->rng, a[0].val[i]);
      lse = tm_log_sum_exp2(lse, out->val[i]);
    }
    for (int i = 0; i < k; i++) out->val[i] = exp(out->val[i] - lse);
  } else {
    double sum = 0;
    for (int i = 0; i < k; i++) sum += out->val[i] = tm_rd_gamma(c->rng, a[0].val[i]);
    for (int i = 0; i < k; i++) out->val[i] /= sum;
  }
  return AD_OK;
}


const tm_fn tm_fns_dirichlet[] = {
  {"dirichlet_lpdf", "real(vectors, vectors)", k_dirichlet, NULL},
  {"dirichlet_rng", "vector(vector)", k_dirichlet_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
