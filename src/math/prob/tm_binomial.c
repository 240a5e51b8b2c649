/*
** tm_binomial.c -- the binomial family: binomial_lpmf and
** binomial_logit_lpmf (elementwise masses, tm_dens_elem.h),
** binomial_logit_glm_lpmf (binomial_logit of alpha + x beta without forming
** it, a kernel of its own), binomial_cdf, _lcdf and _lccdf (tm_cdf.h),
** binomial_rng and binomial_logit_rng (tm_rng_def.h).
**
** The full mass of large counts is Loader's saddle-point form, as
** poisson's (tm_poisson.c says why).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"
#include "tm_mass_terms.h"
#include "tm_cdf.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* log Binomial(n | N, p), 0 < n < N, with q = 1 - p given separately so
** neither tail rounds away */
static double binomial_saddle(double n, double N, double p, double q) {
  double lc = tm_stirlerr(N) - tm_stirlerr(n) - tm_stirlerr(N - n) - tm_bd0(n, N * p) - tm_bd0(N - n, N * q);
  return lc - 0.5 * (TM_LOG_2PI + log(n) + log1p(-n / N));
}

/* n in [0, N] and N >= 0: the checks binomial and binomial_logit share */
static int binomial_counts_check(const tm_dens *D) {
  int rc = tm_dens_check_int_bounds(D->fn, "Successes variable", &D->a[0], D->n, 0, &D->a[1], 0);
  return rc ? rc : tm_check_nonnegative(D->fn, "Population size parameter", &D->a[1]);
}

/* binomial_lpmf(n | N, theta): the branches keep 0 * log(0) out. */
static int binomial_check(const tm_dens *D) {
  int rc = binomial_counts_check(D);
  return rc ? rc : tm_check_bounded(D->fn, "Probability parameter", &D->a[2], 0, 1);
}
static double binomial_term(elem *e) {
  double n = e->x[0], N = e->x[1], th = e->x[2], lp = 0;
  e->d[2] = 0;
  if (N == 0) return 0;
  int full = KEEP(e, 7u) == 7u && n > 0 && n < N;
  if (full) {
    lp = binomial_saddle(n, N, th, 1 - th);
    e->d[2] = n / th - (N - n) / (1 - th);
    return lp;
  }
  if (KEEP(e, 3u)) lp += lbinom(N, n);
  if (n == 0) {
    lp += N * log1p(-th);
    e->d[2] = -N / (1 - th);
  } else if (n == N) {
    lp += n * log(th);
    e->d[2] = n / th;
  } else {
    lp += n * log(th) + (N - n) * log1p(-th);
    e->d[2] = n / th - (N - n) / (1 - th);
  }
  return lp;
}
static const elem_def binomial_def = {
  3, 3u, {"Successes variable", "Population size parameter", "Probability parameter"},
  binomial_check, binomial_term , NULL};

/* binomial_logit_lpmf(n | N, alpha) */
static int binomial_logit_check(const tm_dens *D) {
  int rc = binomial_counts_check(D);
  return rc ? rc : tm_check_finite(D->fn, "Probability parameter", &D->a[2]);
}
static double binomial_logit_term(elem *e) {
  double n = e->x[0], N = e->x[1], al = e->x[2], lp = 0;
  /* the two tails separately: 1 - inv_logit(alpha) would round to 0 */
  double p = tm_inv_logit(al), q = tm_inv_logit(-al);
  e->d[2] = n * q - (N - n) * p;
  if (KEEP(e, 7u) == 7u && n > 0 && n < N && p > 0 && q > 0)
    return binomial_saddle(n, N, p, q);
  if (KEEP(e, 3u)) lp += lbinom(N, n);
  lp += n * tm_log_inv_logit(al) + (N - n) * tm_log1m_inv_logit(al);
  return lp;
}
static const elem_def binomial_logit_def = {
  3, 3u, {"Successes variable", "Population size parameter", "Probability parameter"},
  binomial_logit_check, binomial_logit_term , NULL};

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

/* ---- binomial_cdf, _lcdf, _lccdf ---- */

/* x log y with 0 log 0 = 0 */
static double xlogy(double x, double y) { return x == 0 ? 0 : x * log(y); }

/* F(n) = I_{1 - theta}(N - n, n + 1);
** dF / dtheta = -theta^n (1 - theta)^(N - n - 1) / B(N - n, n + 1) */
static double binomial_e(const double *x, int upper, double *d) {
  double n = x[0], N = x[1], th = x[2], li, lj;
  if (n < 0) return upper ? 0 : -INFINITY;
  if (n >= N) return upper ? -INFINITY : 0;
  tm_log_inc_beta(N - n, n + 1, 1 - th, th, &li, &lj);
  double v = upper ? lj : li;
  if (isfinite(v)) {
    double ld = xlogy(n, th) + xlogy(N - n - 1, 1 - th) - tm_lbeta(N - n, n + 1);
    double g = exp(ld - v);
    d[2] = upper ? g : -g;
  }
  return v;
}

static const cdf_def
  d_binomial = {3, 3u, {"Successes variable", "Population size parameter", "Probability parameter"},
    {{1, CK_NONNEG}, {2, CK_UNIT}}, binomial_e, NULL};
MODES(binomial)

/* ---- binomial_rng, binomial_logit_rng ---- */

static int draw_binomial(tm_rng *r, const double *p, double *x) { *x = tm_rd_binomial(r, (int)p[0], p[1]); return 0; }
static int draw_binomial_logit(tm_rng *r, const double *p, double *x) {
  *x = tm_rd_binomial(r, (int)p[0], tm_inv_logit(p[1]));
  return 0;
}
static const rng_def D_binomial = {"binomial_rng", 2, 1, draw_binomial,
  {"Population size parameter", "Probability parameter"}, {CK_NONNEG, CK_PROB}};
static const rng_def D_binomial_logit = {"binomial_logit_rng", 2, 1, draw_binomial_logit,
  {"Population size parameter", "Logit transformed probability parameter"}, {CK_NONNEG, CK_FINITE}};

const tm_fn tm_fns_binomial[] = {
  {"binomial_lpmf",            "real(ints, ints, reals)",  tm_dens_elem_kernel, &binomial_def},
  {"binomial_logit_lpmf",      "real(ints, ints, reals)",  tm_dens_elem_kernel, &binomial_logit_def},
  {"binomial_logit_glm_lpmf", BLG("int", "int") "; " BLG("int", "array[] int") "; " BLG("array[] int", "int") "; "
   BLG("array[] int", "array[] int"), k_binomial_logit_glm, NULL},
  ENTRIES(binomial, "real(ints, ints, reals)"),
  {"binomial_logit_rng", IN, tm_rng_kernel, &D_binomial_logit},
  {"binomial_rng", IN, tm_rng_kernel, &D_binomial},
  {NULL, NULL, NULL, NULL}
};
