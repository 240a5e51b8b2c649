/*
** tm_dens_disc3.c -- more discrete masses: beta_neg_binomial and yule_simon
** (elementwise, on tm_dens_disc.c's kernel, tm_dens_elem.h),
** hypergeometric (ints only), dirichlet_multinomial, and
** binomial_logit_glm (binomial_logit of alpha + x beta without forming it).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_dens_elem.h"

/* digamma(x + n) - digamma(x): a finite sum for a modest count */
static double digamma_diff(double x, double n) {
  if (n >= 0 && n <= 64 && n == floor(n)) {
    double s = 0;
    for (int k = 0; k < (int)n; k++) s += 1 / (x + k);
    return s;
  }
  return tm_digamma(x + n) - tm_digamma(x);
}

/* ---- beta_neg_binomial(n | r, alpha, beta)
**   = Gamma(n + beta) B(n + r, alpha + beta) / (n! Gamma(beta) B(r, alpha)) ---- */

static int beta_neg_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Failures variable", &D->a[0]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Number of successes parameter", &D->a[1]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Prior success parameter", &D->a[2]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Prior failure parameter", &D->a[3]);
}
static double beta_neg_binomial_term(elem *e) {
  double n = e->x[0], r = e->x[1], a = e->x[2], b = e->x[3], lp = 0;
  if (KEEP(e, 1u)) lp -= tm_lfact(n);
  if (KEEP(e, 14u)) lp += tm_lbeta(n + r, a + b);
  if (KEEP(e, 6u)) lp -= tm_lbeta(r, a);
  if (KEEP(e, 8u)) lp += tm_lgamma(n + b) - tm_lgamma(b);
  if (e->need & 14u) {
    double dall = digamma_diff(r + a + b, n);          /* digamma(n + r + a + b) - digamma(r + a + b) */
    double dab = tm_digamma(r + a + b) - tm_digamma(a + b);
    /* d/dr: digamma(n + r) - digamma(n + r + a + b) - digamma(r) + digamma(r + a) */
    if (NEED(e, 1)) e->d[1] = digamma_diff(r, n) - dall - (tm_digamma(r + a + b) - tm_digamma(r + a));
    /* d/dalpha: digamma(a + b) - digamma(n + r + a + b) - digamma(a) + digamma(r + a) */
    if (NEED(e, 2)) e->d[2] = -dall - dab - tm_digamma(a) + tm_digamma(r + a);
    /* d/dbeta: digamma(a + b) - digamma(n + r + a + b) + digamma(n + b) - digamma(b) */
    if (NEED(e, 3)) e->d[3] = -dall - dab + digamma_diff(b, n);
  }
  return lp;
}
static const elem_def beta_neg_binomial_def = {
  4, 1u, {"Failures variable", "Number of successes parameter", "Prior success parameter", "Prior failure parameter"},
  beta_neg_binomial_check, beta_neg_binomial_term , NULL};

/* ---- yule_simon(n | alpha) = alpha B(n, alpha + 1), n >= 1 ---- */

static int yule_simon_check(const tm_dens *D) {
  const tm_v *n = &D->a[0];
  size_t m = tm_is_scalar(n) ? 1 : tm_numel(n);
  for (size_t i = 0; i < m; i++)
    if (n->ival[i] < 1) {
      char nm[64];
      if (tm_is_scalar(n)) snprintf(nm, sizeof nm, "Outcome variable");
      else snprintf(nm, sizeof nm, "Outcome variable[%zu]", i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to 1", D->fn, nm, n->ival[i]);
    }
  return tm_check_positive_finite(D->fn, "Shape parameter", &D->a[1]);
}
static double yule_simon_term(elem *e) {
  double n = e->x[0], a = e->x[1], lp = 0;
  if (KEEP(e, 1u)) lp += tm_lgamma(n);
  if (KEEP(e, 2u)) lp += log(a) + tm_lgamma(a + 1) - tm_lgamma(n + a + 1);
  if (NEED(e, 1)) e->d[1] = 1 / a - digamma_diff(a + 1, n);
  return lp;
}
static const elem_def yule_simon_def = {
  2, 1u, {"Failures variable", "Shape parameter"}, yule_simon_check, yule_simon_term , NULL};

/* ---- hypergeometric(n | N, a, b): ints only, so 0 under propto ---- */

static int k_hypergeometric(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 4) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < 4; i++)
    if (!tm_is_scalar(&a[i]) || a[i].base != TM_INT) return tm_no_overload(c, a, nargs);
  int n = a[0].ival[0], N = a[1].ival[0], A = a[2].ival[0], B = a[3].ival[0], rc;
  int Nmn = N - n;
  tm_v vNmn = tm_int_view(&Nmn);
  if ((rc = tm_check_bounded(fn, "Successes variable", &a[0], 0, A))) return rc;
  if (N < n)
    return ad_fail(AD_EDOMAIN, "%s: Draws parameter is %d, but must be greater than or equal to %d", fn, N, n);
  if ((rc = tm_check_bounded(fn, "Draws parameter minus successes variable", &vNmn, 0, B)) ||
      (rc = tm_check_bounded(fn, "Draws parameter", &a[1], 0, (double)A + B)))
    return rc;
  double lp = 0;
  if (!c->propto) lp = tm_lchoose(A, n) + tm_lchoose(B, N - n) - tm_lchoose((double)A + B, N);
  return tm_set_real(out, lp);
}

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
    double dsum = d ? -digamma_diff(a0, N) : 0;      /* digamma(a0) - digamma(a0 + N) */
    for (size_t k = 0; k < K; k++) {
      int n = ns->ival[k];
      if (n > 0) lp -= tm_lbeta(al->val[k], n);
      if (d) d[k] = (n > 0 ? digamma_diff(al->val[k], n) : 0) + dsum;
    }
  }
  if (!d) {
    rc = tm_set_real(out, lp);
    out->dep = al->dep;
    return rc;
  }
  ad_operand o = {al->adj, d, K};
  ad_var r;
  if ((rc = ad_operands_node(1, &o, lp, &r))) return rc;
  return tm_set_var(out, r);
}

/* ---- binomial_logit_glm(n | N, x, alpha, beta) = binomial_logit(n | N, alpha + x beta) ----
** x a matrix (one row per outcome) or a row_vector shared by all; alpha a
** real or a vector; n and N ints or arrays.  Stan's order of checks: the
** sizes, 0 <= n <= N, N >= 0, and finiteness only when the sum is not
** finite. */
static int k_binomial_logit_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 5) return tm_no_overload(c, a, nargs);
  const tm_v *n = &a[0], *Nn = &a[1], *x = &a[2], *al = &a[3], *be = &a[4];
  if (n->base != TM_INT || n->narr > 1 || Nn->base != TM_INT || Nn->narr > 1 ||
      (x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr ||
      !(tm_is_scalar(al) || (al->base == TM_VECTOR && !al->narr)) || be->base != TM_VECTOR || be->narr)
    return tm_no_overload(c, a, nargs);
  int xrow = x->base == TM_ROW_VECTOR;
  size_t K = (size_t)x->cols, M = (size_t)x->rows;
  size_t N = 1;                      /* max_size(n, N, x.col(0), alpha) */
  if (!tm_is_scalar(n)) N = tm_numel(n);
  if (!tm_is_scalar(Nn) && tm_numel(Nn) > N) N = tm_numel(Nn);
  if (M > N) N = M;
  if (!tm_is_scalar(al) && tm_numel(al) > N) N = tm_numel(al);
  if (!tm_is_scalar(n) && !tm_is_scalar(Nn) &&
      (rc = tm_check_size_match(fn, "Successes variable", tm_numel(n), "Population size parameter", tm_numel(Nn))))
    return rc;
  if ((!tm_is_scalar(n) && (rc = tm_check_consistent_size(fn, "Successes variable", tm_numel(n), N))) ||
      (!tm_is_scalar(Nn) && (rc = tm_check_consistent_size(fn, "Population size parameter", tm_numel(Nn), N))) ||
      (rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), K)) ||
      (!tm_is_scalar(al) && (rc = tm_check_consistent_size(fn, "Vector of intercepts", tm_numel(al), N))))
    return rc;
  if (!xrow && M != N) return tm_check_consistent_size(fn, "Matrix of independent variables", M, N);
  for (size_t i = 0; i < N; i++) {
    int ni = tm_geti(n, tm_is_scalar(n) ? 0 : i), Ni = tm_geti(Nn, tm_is_scalar(Nn) ? 0 : i);
    if (ni < 0 || ni > Ni) {
      char nm[64];
      if (tm_is_scalar(n)) snprintf(nm, sizeof nm, "Successes variable");
      else snprintf(nm, sizeof nm, "Successes variable[%zu]", i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be in the interval [0, %d]", fn, nm, ni, Ni);
    }
  }
  if ((rc = tm_check_nonnegative(fn, "Population size parameter", Nn))) return rc;
  int keep = !c->propto || !tm_is_const(x) || !tm_is_const(al) || !tm_is_const(be);
  int dep = tm_any_dep(a, 5);
  double *g = ad_alloc_doubles(N + 1);
  if (!g) return AD_EMEMORY;
  double lp = 0, gsum = 0;
  if (keep) {
    for (size_t i = 0; i < N; i++) {
      double th = tm_get(al, tm_is_scalar(al) ? 0 : i);
      for (size_t k = 0; k < K; k++) th += x->val[(xrow ? 0 : i) + k * M] * be->val[k];
      double ni = tm_geti(n, tm_is_scalar(n) ? 0 : i), Ni = tm_geti(Nn, tm_is_scalar(Nn) ? 0 : i);
      lp += ni * tm_log_inv_logit(th) + (Ni - ni) * tm_log1m_inv_logit(th);
      g[i] = ni - Ni * tm_inv_logit(th);
      gsum += g[i];
    }
    if (!isfinite(lp) &&
        ((rc = tm_check_finite(fn, "Weight vector", be)) || (rc = tm_check_finite(fn, "Intercept", al)) ||
         (rc = tm_check_finite(fn, "Matrix of independent variables", x))))
      return rc;
    if (!c->propto)
      for (size_t i = 0; i < N; i++)
        lp += tm_lchoose(tm_geti(Nn, tm_is_scalar(Nn) ? 0 : i), tm_geti(n, tm_is_scalar(n) ? 0 : i));
  } else {
    for (size_t i = 0; i < N; i++) g[i] = 0;
  }
  ad_operand ops[3];
  int nops = 0;
  if (x->adj) {
    double *d = ad_alloc_zeros(tm_numel(x) + 1);
    if (!d) return AD_EMEMORY;
    for (size_t k = 0; k < K; k++) {
      if (xrow) d[k] = gsum * be->val[k];
      else for (size_t i = 0; i < M; i++) d[i + k * M] = g[i] * be->val[k];
    }
    ops[nops++] = (ad_operand){x->adj, d, tm_numel(x)};
  }
  if (al->adj) {
    double *d = g;
    if (tm_is_scalar(al)) {
      if (!(d = ad_alloc_doubles(1))) return AD_EMEMORY;
      d[0] = gsum;
    }
    ops[nops++] = (ad_operand){al->adj, d, tm_numel(al)};
  }
  if (be->adj) {
    double *d = ad_alloc_zeros(K + 1);
    if (!d) return AD_EMEMORY;
    for (size_t k = 0; k < K; k++) {
      if (xrow) d[k] = gsum * x->val[k];
      else for (size_t i = 0; i < M; i++) d[k] += x->val[i + k * M] * g[i];
    }
    ops[nops++] = (ad_operand){be->adj, d, K};
  }
  return tm_set_operands(out, nops, ops, lp, dep);
}

#define BLG(n, N) "real(" n ", " N ", matrix, real, vector); real(" n ", " N ", matrix, vector, vector); " \
  "real(" n ", " N ", row_vector, real, vector); real(" n ", " N ", row_vector, vector, vector)"

const tm_fn tm_fns_dens_disc3[] = {
  {"beta_neg_binomial_lpmf", "real(ints, reals, reals, reals)", tm_dens_elem_kernel, &beta_neg_binomial_def},
  {"yule_simon_lpmf", "real(ints, reals)", tm_dens_elem_kernel, &yule_simon_def},
  {"hypergeometric_lpmf", "real(int, int, int, int)", k_hypergeometric, NULL},
  {"dirichlet_multinomial_lpmf", "real(array[] int, vector)", k_dirichlet_multinomial, NULL},
  {"binomial_logit_glm_lpmf", BLG("int", "int") "; " BLG("int", "array[] int") "; " BLG("array[] int", "int") "; "
   BLG("array[] int", "array[] int"), k_binomial_logit_glm, NULL},
  {NULL, NULL, NULL, NULL}
};
