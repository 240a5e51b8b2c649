/*
** tm_rng_fns.c -- Stan's _rng functions.
**
** Univariate functions share one kernel driven by an rng_def: it checks the
** arguments (per argument, in order, with Stan's messages), broadcasts them
** as Stan does (all scalars give a scalar; any container gives an array of
** its size) and calls the def's sampler once per element.  The samplers on
** doubles live in tm_rng_dist.c.  Arguments are data to an _rng function:
** autodiff arguments are read by value and no node is ever recorded.
**
** Here: the kernel and its checks, and the _rng functions no family file
** holds yet.  Each family's rng_def and rows are in its file tm_<family>.c.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_rng_dist.h"
#include "tm_rng_def.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"

#define POISSON_MAX_RATE TM_POISSON_MAX_RATE
#define CONSTRAINT_TOLERANCE 1e-8

/* the checks (CK_*), rng_def: tm_rng_def.h */

static void elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

/* x < bound for every element, Stan's check_less. */
static int check_less(const char *fn, const char *arg, const tm_v *v, double bound) {
  size_t n = tm_numel(v);
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(v, i);
    if (!(x < bound)) {
      char name[160];
      elem_name(name, sizeof name, arg, v, i);
      return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be less than %g", fn, name, x, bound);
    }
  }
  return AD_OK;
}

/* y > low (or >= when ge) elementwise, low broadcast: Stan's check_greater
** and check_greater_or_equal. */
static int check_greater(const char *fn, const char *arg, const tm_v *y, const tm_v *low, int ge) {
  size_t n = tm_numel(y), nl = tm_numel(low);
  if (!tm_is_scalar(y) && !tm_is_scalar(low) && n != nl) return AD_OK;  /* size check reports it */
  size_t m = tm_is_scalar(y) ? nl : n;
  for (size_t i = 0; i < m; i++) {
    double x = tm_get(y, i), lo = tm_get(low, i);
    if (!(x > lo || (ge && x == lo))) {
      char name[160];
      elem_name(name, sizeof name, arg, y, i);
      return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than %s%.17g", fn, name, x,
                     ge ? "or equal to " : "", lo);
    }
  }
  return AD_OK;
}

static int check_arg(const rng_def *d, const tm_v *a, int i) {
  const char *fn = d->name, *arg = d->argname[i];
  int rc = AD_OK;
  switch (d->check[i]) {
  case CK_NONE: break;
  case CK_FINITE: rc = tm_check_finite(fn, arg, &a[i]); break;
  case CK_POS_FINITE: rc = tm_check_positive_finite(fn, arg, &a[i]); break;
  case CK_POS: rc = tm_check_positive(fn, arg, &a[i]); break;
  case CK_NONNEG: rc = tm_check_nonnegative(fn, arg, &a[i]); break;
  case CK_NOT_NAN: rc = tm_check_not_nan(fn, arg, &a[i]); break;
  case CK_PROB:
    if (!(rc = tm_check_finite(fn, arg, &a[i]))) rc = tm_check_bounded(fn, arg, &a[i], 0, 1);
    break;
  case CK_RATE:
    if (!(rc = tm_check_nonnegative(fn, arg, &a[i]))) rc = check_less(fn, arg, &a[i], POISSON_MAX_RATE);
    break;
  case CK_LOG_RATE:
    if (!(rc = tm_check_not_nan(fn, arg, &a[i]))) rc = check_less(fn, arg, &a[i], 30 * TM_LOG_2);
    break;
  case CK_ABOVE_PREV:
    if (!(rc = tm_check_finite(fn, arg, &a[i]))) rc = check_greater(fn, arg, &a[i], &a[i - 1], 0);
    break;
  case CK_GE_PREV: rc = check_greater(fn, arg, &a[i], &a[i - 1], 1); break;
  case CK_UNIT_OPEN:
    if (!(rc = tm_check_positive(fn, arg, &a[i]))) rc = check_less(fn, arg, &a[i], 1.0);
    break;
  case CK_UNIT: rc = tm_check_bounded(fn, arg, &a[i], 0, 1); break;
  case CK_NONNEG_FINITE:
    if (!(rc = tm_check_nonnegative(fn, arg, &a[i]))) rc = tm_check_finite(fn, arg, &a[i]);
    break;
  }
  return rc;
}

/* ---- results ---- */

int tm_rng_new_array(tm_v *out, int base, int inner_rows, size_t n) {
  memset(out, 0, sizeof *out);
  out->base = (unsigned char)base;
  out->rows = inner_rows;
  out->cols = 1;
  out->narr = 1;
  out->dim[0] = (int)n;
  size_t m = n * (size_t)inner_rows;
  if (base == TM_INT) out->ival = ad_alloc((m ? m : 1) * sizeof(int));
  else out->val = ad_alloc_doubles(m ? m : 1);
  return (out->ival || out->val) ? AD_OK : ad_fail(AD_EMEMORY, "out of memory");
}

int tm_rng_need(const tm_call *c, const char *fn) {
  if (c->rng) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: no random number generator here", fn);
}

int tm_rng_nargs(const char *fn, int nargs, int want) {
  if (nargs == want) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, want, nargs);
}

/* An int result of a draw: the samplers keep within int range, but a
** double is clamped rather than converted out of range. */
static int to_int(double x) {
  if (!(x < 2147483647.0)) return 2147483647;
  return x > -2147483648.0 ? (int)x : -2147483647 - 1;
}

/* ---- the generic univariate kernel ---- */

int tm_rng_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const rng_def *d = c->fn->data;
  int rc;
  if ((rc = tm_rng_need(c, d->name)) || (rc = tm_rng_nargs(d->name, nargs, d->nargs))) return rc;
  for (int i = 0; i < nargs; i++)
    if ((rc = check_arg(d, a, i))) return rc;
  int first = -1;
  size_t n = 1;
  for (int i = 0; i < nargs; i++) {
    if (tm_is_scalar(&a[i])) continue;
    if (first < 0) { first = i; n = tm_numel(&a[i]); continue; }
    if ((rc = tm_check_size_match(d->name, d->argname[first], n, d->argname[i], tm_numel(&a[i]))))
      return rc;
  }
  if (first < 0) {
    if ((rc = d->is_int ? tm_new_int(out) : tm_new_real(out, 0))) return ad_fail(rc, "out of memory");
  } else if ((rc = tm_rng_new_array(out, d->is_int ? TM_INT : TM_REAL, 1, n))) return rc;
  double p[3] = {0, 0, 0}, x;
  for (size_t j = 0; j < n; j++) {
    for (int i = 0; i < nargs; i++) p[i] = tm_get(&a[i], j);
    if ((rc = d->draw(c->rng, p, &x))) return rc;
    if (d->is_int) out->ival[j] = to_int(x);
    else out->val[j] = x;
  }
  return AD_OK;
}

/* Gamma-poisson mixture, with Stan's checks on the intermediate draw. */
int tm_rng_gamma_poisson(tm_rng *r, const char *fn, double shape, double scale, double *x) {
  double lambda = tm_rd_gamma(r, shape) * scale;
  if (!(lambda < TM_POISSON_MAX_RATE))
    return ad_fail(AD_EDOMAIN, "%s: Random number that came from gamma distribution is %.17g, but must be less than %g",
                   fn, lambda, TM_POISSON_MAX_RATE);
  *x = tm_rd_poisson(r, lambda);
  return 0;
}

/* ---- multivariate ---- */

/* The location argument of multi_normal(_cholesky)_rng: one vector or row
** vector, or an array of them; all must have the same size. */
typedef struct { int narr, count, k; } locs;

static int loc_shape(const char *fn, const tm_v *mu, locs *s) {
  if (mu->narr > 1 || (mu->base != TM_VECTOR && mu->base != TM_ROW_VECTOR))
    return ad_fail(AD_EINVALID, "%s: Location parameter must be a vector, row_vector or an array of them", fn);
  s->narr = mu->narr;
  s->count = mu->narr ? mu->dim[0] : 1;
  s->k = mu->base == TM_VECTOR ? mu->rows : mu->cols;
  return AD_OK;
}

static int check_symmetric(const char *fn, const char *arg, const tm_v *S) {
  int n = S->rows;
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) {
      double a = S->val[i + (size_t)j * n], b = S->val[j + (size_t)i * n];
      if (!(fabs(a - b) <= CONSTRAINT_TOLERANCE))
        return ad_fail(AD_EDOMAIN, "%s: %s is not symmetric. %s[%d,%d] = %.17g, but %s[%d,%d] = %.17g",
                       fn, arg, arg, j + 1, i + 1, b, arg, i + 1, j + 1, a);
    }
  return AD_OK;
}

/* out[k] = mu[k] + sum_j L[k, j] z[j] for each location; L is used whole
** (not only its lower triangle), as Stan's multi_normal_cholesky_rng does. */
static int mvn_draws(tm_rng *r, const tm_v *mu, const locs *s, const double *L, tm_v *out) {
  int rc, k = s->k;
  if (s->narr) rc = tm_rng_new_array(out, TM_VECTOR, k, (size_t)s->count);
  else rc = tm_new_vector(out, k, 0);
  if (rc) return ad_fail(AD_EMEMORY, "out of memory");
  double *z = ad_alloc_doubles(k ? (size_t)k : 1);
  if (!z) return ad_fail(AD_EMEMORY, "out of memory");
  for (int m = 0; m < s->count; m++) {
    double *o = out->val + (size_t)m * k;
    for (int j = 0; j < k; j++) z[j] = tm_rng_normal(r);
    for (int i = 0; i < k; i++) {
      double acc = mu->val[(size_t)m * k + i];
      for (int j = 0; j < k; j++) acc += L[i + (size_t)j * k] * z[j];
      o[i] = acc;
    }
  }
  return AD_OK;
}

static int multi_normal_common(const tm_call *c, const tm_v *a, int nargs, tm_v *out, int chol) {
  const char *fn = chol ? "multi_normal_cholesky_rng" : "multi_normal_rng";
  const char *sname = chol ? "Cholesky factor of covariance matrix" : "Covariance matrix";
  int rc;
  locs s = {0, 0, 0};
  if ((rc = tm_rng_need(c, fn)) || (rc = tm_rng_nargs(fn, nargs, 2)) || (rc = loc_shape(fn, &a[0], &s))) return rc;
  const tm_v *S = &a[1];
  if (S->narr || S->base != TM_MATRIX) return ad_fail(AD_EINVALID, "%s: %s must be a matrix", fn, sname);
  if (s.narr && s.count == 0) s.k = S->rows;   /* no locations: an empty array */
  if (!chol && S->rows <= 0)
    return ad_fail(AD_EINVALID, "%s: Covariance matrix rows is %d, but must be positive!", fn, S->rows);
  if ((rc = tm_check_size_match(fn, "Rows of location parameter", (size_t)s.k, chol ? "Rows of Cholesky factor" : "Rows of Sigma", (size_t)S->rows)))
    return rc;
  if ((rc = tm_check_square(fn, sname, S)) || (rc = tm_check_finite(fn, "Location parameter", &a[0])))
    return rc;
  const double *L = S->val;
  if (!chol) {
    if ((rc = tm_check_not_nan(fn, sname, S)) || (rc = check_symmetric(fn, sname, S))) return rc;
    double *F = ad_alloc_doubles((size_t)s.k * (size_t)s.k);
    if (!F) return ad_fail(AD_EMEMORY, "out of memory");
    if (tm_rd_cholesky(s.k, S->val, F))
      return ad_fail(AD_EDOMAIN, "%s: Covariance matrix is not positive definite", fn);
    L = F;
  }
  return mvn_draws(c->rng, &a[0], &s, L, out);
}

static int k_multi_normal(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return multi_normal_common(c, a, nargs, out, 0);
}
static int k_multi_normal_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return multi_normal_common(c, a, nargs, out, 1);
}

/* Normalised gammas; in log space when a shape is below 1, where the gamma
** draws themselves may underflow (Stan's method). */
static int k_dirichlet(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "dirichlet_rng";
  int rc;
  if ((rc = tm_rng_need(c, fn)) || (rc = tm_rng_nargs(fn, nargs, 1))) return rc;
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

/* Canonical partial correlations from beta draws, turned into the Cholesky
** factor of a correlation matrix (Stan's lkj_corr_cholesky_rng and
** read_corr_L: the C-vine / onion construction of Lewandowski, Kurowicka
** and Joe 2009). */
static int lkj_chol(const tm_call *c, const tm_v *a, int nargs, tm_v *out, const char *fn) {
  int rc;
  if ((rc = tm_rng_need(c, fn)) || (rc = tm_rng_nargs(fn, nargs, 2))) return rc;
  if ((rc = tm_check_nonnegative(fn, "Dimension", &a[0])) || (rc = tm_check_positive_finite(fn, "Shape parameter", &a[1])))
    return rc;
  int K = tm_geti(&a[0], 0);
  double eta = tm_get(&a[1], 0);
  if ((rc = tm_new_matrix(out, K, K, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  double *L = out->val;
  for (size_t i = 0; i < (size_t)K * K; i++) L[i] = 0;
  if (K == 0) return AD_OK;
  L[0] = 1;
  if (K == 1) return AD_OK;
  double *acc = ad_alloc_doubles((size_t)K);   /* 1 - squared norm so far, per row */
  if (!acc) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < K; i++) acc[i] = 1;
  double alpha = eta + 0.5 * (K - 1);
  for (int j = 0; j < K - 1; j++) {            /* column j */
    alpha -= 0.5;
    if (j > 0) L[j + (size_t)j * K] = sqrt(acc[j]);
    for (int i = j + 1; i < K; i++) {
      double cpc = 2.0 * tm_rd_beta(c->rng, alpha, alpha) - 1.0;
      L[i + (size_t)j * K] = cpc * sqrt(acc[i]);
      acc[i] *= 1.0 - cpc * cpc;
    }
  }
  L[(K - 1) + (size_t)(K - 1) * K] = sqrt(acc[K - 1]);
  return AD_OK;
}

static int k_lkj_corr_cholesky(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  return lkj_chol(c, a, nargs, out, "lkj_corr_cholesky_rng");
}

/* L L' of the Cholesky draw. */
static int k_lkj_corr(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  tm_v Lv;
  int rc = lkj_chol(c, a, nargs, &Lv, "lkj_corr_rng");
  if (rc) return rc;
  int K = Lv.rows;
  if ((rc = tm_new_matrix(out, K, K, 0))) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < K; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k <= j; k++) s += Lv.val[i + (size_t)k * K] * Lv.val[j + (size_t)k * K];
      out->val[i + (size_t)j * K] = out->val[j + (size_t)i * K] = i == j ? 1.0 : s;
    }
  return AD_OK;
}

/*
** bernoulli_logit_glm_rng, with a kernel of its own.  Arguments are data
** to an _rng function: autodiff arguments are read by value, nothing is
** recorded.
*/

/* ---- bernoulli_logit_glm_rng(x, alpha, beta): bernoulli_logit_rng(alpha + x beta) ---- */
static int k_bernoulli_logit_glm_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "bernoulli_logit_glm_rng";
  int rc;
  if ((rc = tm_rng_need(c, fn)) || (rc = tm_rng_nargs(fn, nargs, 3))) return rc;
  const tm_v *x = &a[0], *al = &a[1], *be = &a[2];
  if ((x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr || be->base != TM_VECTOR || be->narr ||
      !(tm_is_scalar(al) || (al->base == TM_VECTOR && !al->narr)))
    return ad_fail(AD_EINVALID, "%s: expects (matrix or row_vector, real or vector, vector)", fn);
  size_t M = (size_t)x->rows, K = (size_t)x->cols;
  if ((rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), K))) return rc;
  if (!tm_is_scalar(al) && (rc = tm_check_consistent_size(fn, "Vector of intercepts", tm_numel(al), M))) return rc;
  if ((rc = tm_check_finite(fn, "Matrix of independent variables", x)) ||
      (rc = tm_check_finite(fn, "Weight vector", be)) || (rc = tm_check_finite(fn, "Intercept", al)))
    return rc;
  if ((rc = tm_rng_new_array(out, TM_INT, 1, M))) return rc;
  for (size_t m = 0; m < M; m++) {
    double th = tm_get(al, tm_is_scalar(al) ? 0 : m);
    for (size_t k = 0; k < K; k++) th += x->val[m + k * M] * be->val[k];
    out->ival[m] = tm_rng_uniform(c->rng) < tm_inv_logit(th);
  }
  return AD_OK;
}

/* ---- the table (its signature macros: tm_rng_def.h) ---- */

const tm_fn tm_fns_rng[] = {
  {"dirichlet_rng", "vector(vector)", k_dirichlet, NULL},
  {"lkj_corr_cholesky_rng", "matrix(int, real)", k_lkj_corr_cholesky, NULL},
  {"lkj_corr_rng", "matrix(int, real)", k_lkj_corr, NULL},
  {"multi_normal_cholesky_rng", MVN, k_multi_normal_cholesky, NULL},
  {"multi_normal_rng", MVN, k_multi_normal, NULL},
  {"bernoulli_logit_glm_rng", "array[] int(matrix, vector, vector); array[] int(row_vector, vector, vector)",
   k_bernoulli_logit_glm_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
