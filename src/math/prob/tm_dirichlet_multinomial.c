/*
** tm_dirichlet_multinomial.c -- the dirichlet_multinomial family:
** dirichlet_multinomial_lpmf, and dirichlet_multinomial_rng on the kernel
** of multinomial_rng (tm_multinomial.c): a dirichlet draw, then the
** multinomial's.
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_mass_terms.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* ---- dirichlet_multinomial(ns | alpha)
**   = log N + lbeta(alpha_0, N) - sum_{n_k > 0} (log n_k + lbeta(alpha_k, n_k)) ---- */

static int k_dirichlet_multinomial(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 2 || a[0].base != TM_INT || a[0].narr != 1 || a[1].base != TM_VECTOR || a[1].narr)
    return tm_no_overload(c, a, nargs);
  const tm_v *ns = &a[0], *al = &a[1];
  size_t K = tm_numel(ns);
  if ((rc = tm_check_size_match(fn, "number of trials variable", K, "rows of prior size parameter", tm_numel(al))) ||
      (rc = tm_check_nonnegative(fn, "Number of trials variable", ns)) ||
      (rc = tm_check_positive_finite(fn, "Prior size parameter", al)))
    return rc;
  double lp = 0, N = 0, a0 = 0;
  for (size_t k = 0; k < K; k++) { N += ns->ival[k]; a0 += al->val[k]; }
  double *d = NULL;
  if (al->adj && !(d = ad_alloc_zeros(K + 1))) return AD_EMEMORY;
  if ((!c->propto || !tm_is_const(al)) && N > 0) {
    if (!c->propto) {
      lp += log(N);
      for (size_t k = 0; k < K; k++) if (ns->ival[k] > 0) lp -= log((double)ns->ival[k]);
    }
    lp += tm_lbeta(a0, N);
    double dsum = d ? -digamma_diff_at(a0, N) : 0;      /* digamma(a0) - digamma(a0 + N) */
    for (size_t k = 0; k < K; k++) {
      int n = ns->ival[k];
      if (n > 0) lp -= tm_lbeta(al->val[k], n);
      if (d) d[k] = (n > 0 ? digamma_diff_at(al->val[k], n) : 0) + dsum;
    }
  }
  ad_operand o = {al->adj, d, K};
  return tm_set_operands(out, d != NULL, &o, lp, al->dep);
}

static const int W_DIRICHLET = 2;

const tm_fn tm_fns_dirichlet_multinomial[] = {
  {"dirichlet_multinomial_lpmf", "real(array[] int, vector)", k_dirichlet_multinomial, NULL},
  {"dirichlet_multinomial_rng", "array[] int(vector, int)", tm_multinomial_rng_kernel, &W_DIRICHLET},
  {NULL, NULL, NULL, NULL}
};
