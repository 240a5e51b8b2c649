/*
** tm_multinomial.c -- the multinomial family: multinomial_lpmf and
** multinomial_logit_lpmf, multinomial_rng and multinomial_logit_rng; the
** _rng kernel serves dirichlet_multinomial_rng too.
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

/* ---- multinomial, multinomial_logit ---- */

static int k_multinomial(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int logit = c->fn->data != NULL, rc;
  const char *fn = c->fn->name;
  if (nargs != 2 || a[0].base != TM_INT || a[0].narr != 1 || a[1].base != TM_VECTOR || a[1].narr)
    return ad_fail(AD_EINVALID, "%s: expects (array[] int, vector)", fn);
  const tm_v *y = &a[0], *th = &a[1];
  size_t K = tm_numel(y);
  if ((rc = tm_check_size_match(fn, "number of trials variable", K, "probabilities parameter",
                                tm_numel(th))))
    return rc;
  if ((rc = tm_check_nonnegative(fn, "Number of trials variable", y))) return rc;
  if (logit) rc = tm_check_finite(fn, "log-probabilities parameter", th);
  else rc = tm_dens_check_simplex(fn, "Probabilities parameter", th);
  if (rc) return rc;
  double lp = 0, N = 0;
  for (size_t i = 0; i < K; i++) N += y->ival[i];
  if (!c->propto) {
    lp += tm_lgamma(N + 1);
    for (size_t i = 0; i < K; i++) lp -= tm_lgamma(y->ival[i] + 1.0);
  }
  double *d = NULL;
  if (th->adj && !(d = ad_alloc_zeros(K + 1))) return AD_EMEMORY;
  if (!c->propto || !tm_is_const(th)) {
    if (logit) {
      double m = -INFINITY, s = 0;
      for (size_t i = 0; i < K; i++) if (th->val[i] > m) m = th->val[i];
      for (size_t i = 0; i < K; i++) s += exp(th->val[i] - m);
      double lse = m + log(s);
      for (size_t i = 0; i < K; i++) {
        lp += y->ival[i] * (th->val[i] - lse);
        if (d) d[i] = y->ival[i] - N * exp(th->val[i] - lse);
      }
    } else {
      for (size_t i = 0; i < K; i++) {
        int n = y->ival[i];
        if (n == 0) continue;             /* 0 log 0 = 0 */
        lp += n * log(th->val[i]);
        if (d) d[i] = n / th->val[i];
      }
    }
  }
  ad_operand o = {th->adj, d, K};
  return tm_set_operands(out, d != NULL, &o, lp, th->dep);
}

/* ---- multinomial_rng, multinomial_logit_rng, and dirichlet_multinomial_rng
** (tm_dirichlet_multinomial.c, through tm_rng_def.h):
** N trials by a binomial draw per category on what is left ---- */

static int multinomial_draw(tm_rng *r, const double *theta, int K, int N, tm_v *out) {
  int rc = tm_rng_new_array(out, TM_INT, 1, (size_t)K);
  if (rc) return rc;
  double left = 1;
  for (int k = 0; k < K; k++) {
    if (k == K - 1 || N == 0) { out->ival[k] = N; N = 0; continue; }
    double p = left > 0 ? theta[k] / left : 0;
    if (p > 1) p = 1;
    if (p < 0) p = 0;
    int n = (int)tm_rd_binomial(r, N, p);
    out->ival[k] = n;
    N -= n;
    left -= theta[k];
  }
  return AD_OK;
}

int tm_multinomial_rng_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int which = c->fn->data ? *(const int *)c->fn->data : 0, rc;   /* 0 plain, 1 logit, 2 dirichlet */
  const char *fn = which == 0 ? "multinomial_rng" : which == 1 ? "multinomial_logit_rng" : "dirichlet_multinomial_rng";
  if ((rc = tm_rng_begin(c, fn, nargs, 2))) return rc;
  if (a[0].base != TM_VECTOR || a[0].narr || !tm_is_scalar(&a[1]) || a[1].base != TM_INT)
    return ad_fail(AD_EINVALID, "%s: expects (vector, int)", fn);
  int K = a[0].rows, N = tm_geti(&a[1], 0);
  const double *theta = a[0].val;
  if (which == 0) rc = tm_dens_check_simplex(fn, "Probabilities parameter", &a[0]);
  else if (which == 1) rc = tm_check_finite(fn, "Log-probabilities parameter", &a[0]);
  else rc = tm_check_positive_finite(fn, "prior size parameter", &a[0]);
  if (rc || (rc = tm_check_nonnegative(fn, "number of trials variables", &a[1]))) return rc;
  if (which != 0 && K > 0) {
    double *t = ad_alloc_doubles((size_t)K);
    if (!t) return ad_fail(AD_EMEMORY, "out of memory");
    if (which == 1) {
      tm_softmax(theta, (size_t)K, 0, t);
    } else if (N > 0) {               /* a dirichlet draw, in logs when a shape is below 1 */
      double amin = theta[0], lse = -INFINITY, s = 0;
      for (int k = 1; k < K; k++) amin = fmin(amin, theta[k]);
      if (amin < 1) {
        for (int k = 0; k < K; k++) lse = tm_log_sum_exp2(lse, t[k] = tm_rd_log_gamma(c->rng, theta[k]));
        for (int k = 0; k < K; k++) t[k] = exp(t[k] - lse);
      } else {
        for (int k = 0; k < K; k++) s += t[k] = tm_rd_gamma(c->rng, theta[k]);
        for (int k = 0; k < K; k++) t[k] /= s;
      }
    } else {
      for (int k = 0; k < K; k++) t[k] = 0;
    }
    theta = t;
  }
  return multinomial_draw(c->rng, theta, K, N, out);
}

static const int W_LOGIT = 1;

const tm_fn tm_fns_multinomial[] = {
  {"multinomial_lpmf", "real(array[] int, vector)", k_multinomial, NULL},
  {"multinomial_logit_lpmf", "real(array[] int, vector)", k_multinomial, "logit"},
  {"multinomial_rng", "array[] int(vector, int)", tm_multinomial_rng_kernel, NULL},
  {"multinomial_logit_rng", "array[] int(vector, int)", tm_multinomial_rng_kernel, &W_LOGIT},
  {NULL, NULL, NULL, NULL}
};
