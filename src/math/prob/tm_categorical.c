/*
** tm_categorical.c -- the categorical family: categorical_lpmf and
** categorical_logit_lpmf (which index or multiply rather than broadcast:
** kernels of their own), categorical_rng and categorical_logit_rng.
** categorical_logit_glm is with the GLMs (tm_glm.c).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_dens_elem.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* ---- categorical ---- */

/* What both masses begin with: y (int or array[] int), each outcome in
** [1, K], and a vector of K categories passing check (named param[0]);
** then the density frame over the vector.  *N the number of outcomes.  An
** outcome out of range is named as Stan names it in each mass: one (y an
** int), many (an array). */
static int categorical_begin(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, const char *one,
                             const char *many, int (*check)(const char *, const char *, const tm_v *),
                             const char *const *param, size_t *N) {
  const char *fn = c->fn->name;
  if (nargs != 2) return ad_fail(AD_EINVALID, "%s: expected 2 arguments, got %d", fn, nargs);
  if (a[0].base != TM_INT || a[0].narr > 1) return tm_dens_not_int(fn, "outcome");
  if (a[1].base != TM_VECTOR || a[1].narr != 0)
    return ad_fail(AD_EINVALID, "%s: the second argument must be a vector", fn);
  const tm_v *y = &a[0];
  *N = tm_is_scalar(y) ? 1 : tm_numel(y);
  int rc = tm_dens_check_int_bounds(fn, tm_is_scalar(y) ? one : many, y, 0, 1, NULL, a[1].rows);
  if (rc || (rc = check(fn, param[0], &a[1]))) return rc;
  return tm_dens_begin(D, c, &a[1], 1, param);
}

static const char *const theta_name[] = {"Probabilities parameter"};
static const char *const beta_name[] = {"log odds parameter"};

/* categorical_lpmf(y | theta): sum of log theta[y]. */
static int categorical(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  tm_dens D;
  size_t N;
  int rc = categorical_begin(&D, c, a, nargs, "Number of categories", "element of outcome array",
                             tm_dens_check_simplex, theta_name, &N);
  if (rc) return rc;
  const tm_v *y = &a[0], *th = &a[1];
  double logp = 0;
  if (tm_dens_keep(&D, 1u)) {
    for (size_t i = 0; i < N; i++) {
      int k = tm_geti(y, i) - 1;
      logp += log(th->val[k]);
      tm_dens_add(&D, 0, (size_t)k, 1 / th->val[k]);
    }
  }
  return tm_dens_end(&D, logp, out);
}

/* categorical_logit_lpmf(y | beta): sum of beta[y] - log_sum_exp(beta);
** the partials are the counts minus N softmax(beta). */
static int categorical_logit(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  tm_dens D;
  size_t N;
  int rc = categorical_begin(&D, c, a, nargs, "categorical outcome out of support",
                             "categorical outcome out of support", tm_check_finite, beta_name, &N);
  if (rc) return rc;
  const tm_v *y = &a[0], *be = &a[1];
  int K = be->rows;
  double logp = 0;
  if (N > 0 && tm_dens_keep(&D, 1u)) {
    double mx = -INFINITY, s = 0;
    for (int k = 0; k < K; k++) if (be->val[k] > mx) mx = be->val[k];
    for (int k = 0; k < K; k++) s += exp(be->val[k] - mx);
    double lse = mx + log(s);
    for (size_t i = 0; i < N; i++) {
      int k = tm_geti(y, i) - 1;
      logp += be->val[k];
      tm_dens_add(&D, 0, (size_t)k, 1);
    }
    logp -= (double)N * lse;
    if (D.d[0])
      for (int k = 0; k < K; k++) D.d[0][k] -= (double)N * exp(be->val[k] - lse);
  }
  return tm_dens_end(&D, logp, out);
}

/* ---- categorical_rng, categorical_logit_rng ---- */

/* Inversion on the cumulative sum; the last category takes any u beyond
** the rounded total. */
static int categorical_draw(tm_rng *r, const double *theta, int k) {
  double u = tm_rng_uniform(r), cum = 0;
  for (int i = 0; i < k - 1; i++) {
    cum += theta[i];
    if (u <= cum) return i + 1;
  }
  return k;
}

static int k_categorical_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "categorical_rng";
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 1))) return rc;
  if ((rc = tm_dens_check_simplex_digits(fn, "Probabilities parameter", &a[0], 10, 17))) return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  out->ival[0] = categorical_draw(c->rng, a[0].val, (int)tm_numel(&a[0]));
  return AD_OK;
}

static int k_categorical_logit_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "categorical_logit_rng";
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 1))) return rc;
  if ((rc = tm_check_finite(fn, "Log odds parameter", &a[0])) ||
      (rc = tm_check_nonzero_size(fn, "Log odds parameter", &a[0])))
    return rc;
  int k = (int)tm_numel(&a[0]);
  double *theta = ad_alloc_doubles((size_t)k);
  if (!theta) return ad_fail(AD_EMEMORY, "out of memory");
  tm_softmax(a[0].val, (size_t)k, 0, theta);   /* finite log odds: as Stan's softmax */
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  out->ival[0] = categorical_draw(c->rng, theta, k);
  return AD_OK;
}

const tm_fn tm_fns_categorical[] = {
  {"categorical_lpmf",         "real(ints, vector)",       categorical, NULL},
  {"categorical_logit_lpmf",   "real(ints, vector)",       categorical_logit, NULL},
  {"categorical_logit_rng", "int(vector)", k_categorical_logit_rng, NULL},
  {"categorical_rng", "int(vector)", k_categorical_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
