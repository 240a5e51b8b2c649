/*
** tm_rng_fns.c -- Stan's _rng functions.
**
** Univariate functions share one kernel driven by an rng_def: it checks the
** arguments (per argument, in order, with Stan's messages), broadcasts them
** as Stan does (all scalars give a scalar; any container gives an array of
** its size) and calls the def's sampler once per element.  The samplers on
** doubles live in tm_rng_dist.c.  Arguments are data to an _rng function:
** autodiff arguments are read by value and no node is ever recorded.
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
  case CK_POSITIVE: rc = tm_check_positive(fn, arg, &a[i]); break;
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

static int need_rng(const tm_call *c, const char *fn) {
  if (c->rng) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: no random number generator here", fn);
}

static int nargs_ok(const char *fn, int nargs, int want) {
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
  if ((rc = need_rng(c, d->name)) || (rc = nargs_ok(d->name, nargs, d->nargs))) return rc;
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

/* ---- samplers of the univariate functions ---- */

static int d_normal(tm_rng *r, const double *p, double *x) { *x = p[0] + p[1] * tm_rng_normal(r); return 0; }
static int d_std_normal(tm_rng *r, const double *p, double *x) { (void)p; *x = tm_rng_normal(r); return 0; }
static int d_student_t(tm_rng *r, const double *p, double *x) {
  *x = p[1] + p[2] * tm_rd_student_t(r, p[0]);
  return 0;
}
static int d_cauchy(tm_rng *r, const double *p, double *x) {
  *x = p[0] + p[1] * tan(TM_PI * (tm_rng_uniform(r) - 0.5));
  return 0;
}
/* an exponential with a random sign */
static int d_double_exponential(tm_rng *r, const double *p, double *x) {
  double e = tm_rd_exponential(r);
  *x = p[0] + p[1] * (tm_rng_next(r) >> 63 ? e : -e);
  return 0;
}
static int d_logistic(tm_rng *r, const double *p, double *x) {
  double u = tm_rng_uniform(r);
  *x = p[0] + p[1] * (log(u) - log1p(-u));
  return 0;
}
static int d_lognormal(tm_rng *r, const double *p, double *x) { *x = exp(p[0] + p[1] * tm_rng_normal(r)); return 0; }
static int d_exponential(tm_rng *r, const double *p, double *x) { *x = tm_rd_exponential(r) / p[0]; return 0; }
static int d_gamma(tm_rng *r, const double *p, double *x) { *x = tm_rd_gamma(r, p[0]) / p[1]; return 0; }
static int d_inv_gamma(tm_rng *r, const double *p, double *x) { *x = p[1] / tm_rd_gamma(r, p[0]); return 0; }
static int d_weibull(tm_rng *r, const double *p, double *x) {
  *x = p[1] * pow(tm_rd_exponential(r), 1.0 / p[0]);
  return 0;
}
static int d_beta(tm_rng *r, const double *p, double *x) { *x = tm_rd_beta(r, p[0], p[1]); return 0; }
static int d_uniform(tm_rng *r, const double *p, double *x) {
  *x = p[0] + (p[1] - p[0]) * tm_rng_uniform(r);
  return 0;
}
static int d_bernoulli(tm_rng *r, const double *p, double *x) { *x = tm_rng_uniform(r) < p[0]; return 0; }
static int d_bernoulli_logit(tm_rng *r, const double *p, double *x) {
  *x = tm_rng_uniform(r) < tm_inv_logit(p[0]);
  return 0;
}
static int d_binomial(tm_rng *r, const double *p, double *x) { *x = tm_rd_binomial(r, (int)p[0], p[1]); return 0; }
static int d_binomial_logit(tm_rng *r, const double *p, double *x) {
  *x = tm_rd_binomial(r, (int)p[0], tm_inv_logit(p[1]));
  return 0;
}
static int d_poisson(tm_rng *r, const double *p, double *x) { *x = tm_rd_poisson(r, p[0]); return 0; }
static int d_poisson_log(tm_rng *r, const double *p, double *x) { *x = tm_rd_poisson(r, exp(p[0])); return 0; }

/* Gamma-poisson mixture, with Stan's checks on the intermediate draw. */
static int gamma_poisson_draw(tm_rng *r, const char *fn, double shape, double scale, double *x) {
  double lambda = tm_rd_gamma(r, shape) * scale;
  if (!(lambda < TM_POISSON_MAX_RATE))
    return ad_fail(AD_EDOMAIN, "%s: Random number that came from gamma distribution is %.17g, but must be less than %g",
                   fn, lambda, TM_POISSON_MAX_RATE);
  *x = tm_rd_poisson(r, lambda);
  return 0;
}

/* gamma_poisson_draw after Stan's check of the scale (the neg_binomials) */
static int gamma_poisson(tm_rng *r, const char *fn, const char *scale_name, double shape, double scale, double *x) {
  if (!(scale > 0 && isfinite(scale)))
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be positive finite!", fn, scale_name, scale);
  return gamma_poisson_draw(r, fn, shape, scale, x);
}
static int d_neg_binomial(tm_rng *r, const double *p, double *x) {
  return gamma_poisson(r, "neg_binomial_rng", "Inverse of the inverse scale parameter", p[0], 1.0 / p[1], x);
}
static int d_neg_binomial_2(tm_rng *r, const double *p, double *x) {
  return gamma_poisson(r, "neg_binomial_2_rng", "Location parameter divided by the precision parameter",
                       p[1], p[0] / p[1], x);
}
static int d_neg_binomial_2_log(tm_rng *r, const double *p, double *x) {
  return gamma_poisson(r, "neg_binomial_2_log_rng",
                       "Exponential of the log-location parameter divided by the precision parameter",
                       p[1], exp(p[0]) / p[1], x);
}

static int d_chi_square(tm_rng *r, const double *p, double *x) { *x = 2.0 * tm_rd_gamma(r, 0.5 * p[0]); return 0; }
static int d_inv_chi_square(tm_rng *r, const double *p, double *x) { *x = 0.5 / tm_rd_gamma(r, 0.5 * p[0]); return 0; }
static int d_scaled_inv_chi_square(tm_rng *r, const double *p, double *x) {
  *x = p[0] * p[1] * p[1] / (2.0 * tm_rd_gamma(r, 0.5 * p[0]));
  return 0;
}
static int d_exp_mod_normal(tm_rng *r, const double *p, double *x) {
  *x = p[0] + p[1] * tm_rng_normal(r) + tm_rd_exponential(r) / p[2];
  return 0;
}
static int d_gumbel(tm_rng *r, const double *p, double *x) { *x = p[0] - p[1] * log(tm_rd_exponential(r)); return 0; }
static int d_frechet(tm_rng *r, const double *p, double *x) { *x = p[1] * pow(tm_rd_exponential(r), -1.0 / p[0]); return 0; }
static int d_rayleigh(tm_rng *r, const double *p, double *x) { *x = p[0] * sqrt(2.0 * tm_rd_exponential(r)); return 0; }
static int d_pareto(tm_rng *r, const double *p, double *x) { *x = p[0] * exp(tm_rd_exponential(r) / p[1]); return 0; }
static int d_pareto_type_2(tm_rng *r, const double *p, double *x) {
  *x = p[0] + p[1] * expm1(tm_rd_exponential(r) / p[2]);
  return 0;
}
static int d_loglogistic(tm_rng *r, const double *p, double *x) {
  double u = tm_rng_uniform(r);
  *x = p[0] * exp((log(u) - log1p(-u)) / p[1]);
  return 0;
}
/* |Z0| picks the sign of a correlated Z1 (Azzalini's representation). */
static int d_skew_normal(tm_rng *r, const double *p, double *x) {
  double delta = p[2] / sqrt(1.0 + p[2] * p[2]);
  double z0 = tm_rng_normal(r), z1 = delta * z0 + sqrt(1.0 - delta * delta) * tm_rng_normal(r);
  *x = p[0] + p[1] * (z0 >= 0 ? z1 : -z1);
  return 0;
}
static int d_beta_proportion(tm_rng *r, const double *p, double *x) {
  *x = tm_rd_beta(r, p[0] * p[1], (1.0 - p[0]) * p[1]);
  return 0;
}
static int d_beta_binomial(tm_rng *r, const double *p, double *x) {
  *x = tm_rd_binomial(r, (int)p[0], tm_rd_beta(r, p[1], p[2]));
  return 0;
}
static int d_discrete_range(tm_rng *r, const double *p, double *x) {
  double width = p[1] - p[0] + 1.0;
  *x = p[0] + fmin(floor(tm_rng_uniform(r) * width), width - 1.0);
  return 0;
}

#define LOC "Location parameter"
#define SCALE "Scale parameter"
static const rng_def D_normal = {"normal_rng", 2, 0, d_normal, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};
static const rng_def D_std_normal = {"std_normal_rng", 0, 0, d_std_normal, {NULL}, {CK_NONE}};
static const rng_def D_student_t = {"student_t_rng", 3, 0, d_student_t,
  {"Degrees of freedom parameter", LOC, SCALE}, {CK_POS_FINITE, CK_FINITE, CK_POS_FINITE}};
static const rng_def D_cauchy = {"cauchy_rng", 2, 0, d_cauchy, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};
static const rng_def D_double_exponential = {"double_exponential_rng", 2, 0, d_double_exponential,
  {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};
static const rng_def D_logistic = {"logistic_rng", 2, 0, d_logistic, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};
static const rng_def D_lognormal = {"lognormal_rng", 2, 0, d_lognormal, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};
static const rng_def D_exponential = {"exponential_rng", 1, 0, d_exponential,
  {"Inverse scale parameter"}, {CK_POS_FINITE}};
static const rng_def D_gamma = {"gamma_rng", 2, 0, d_gamma,
  {"Shape parameter", "Inverse scale parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_inv_gamma = {"inv_gamma_rng", 2, 0, d_inv_gamma,
  {"Shape parameter", SCALE}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_weibull = {"weibull_rng", 2, 0, d_weibull,
  {"Shape parameter", SCALE}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_beta = {"beta_rng", 2, 0, d_beta,
  {"First shape parameter", "Second shape parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_uniform = {"uniform_rng", 2, 0, d_uniform,
  {"Lower bound parameter", "Upper bound parameter"}, {CK_FINITE, CK_ABOVE_PREV}};
static const rng_def D_bernoulli = {"bernoulli_rng", 1, 1, d_bernoulli, {"Probability parameter"}, {CK_PROB}};
static const rng_def D_bernoulli_logit = {"bernoulli_logit_rng", 1, 1, d_bernoulli_logit,
  {"Logit transformed probability parameter"}, {CK_FINITE}};
static const rng_def D_binomial = {"binomial_rng", 2, 1, d_binomial,
  {"Population size parameter", "Probability parameter"}, {CK_NONNEG, CK_PROB}};
static const rng_def D_binomial_logit = {"binomial_logit_rng", 2, 1, d_binomial_logit,
  {"Population size parameter", "Logit transformed probability parameter"}, {CK_NONNEG, CK_FINITE}};
static const rng_def D_poisson = {"poisson_rng", 1, 1, d_poisson, {"Rate parameter"}, {CK_RATE}};
static const rng_def D_poisson_log = {"poisson_log_rng", 1, 1, d_poisson_log, {"Log rate parameter"}, {CK_LOG_RATE}};
static const rng_def D_chi_square = {"chi_square_rng", 1, 0, d_chi_square,
  {"Degrees of freedom parameter"}, {CK_POS_FINITE}};
static const rng_def D_inv_chi_square = {"inv_chi_square_rng", 1, 0, d_inv_chi_square,
  {"Degrees of freedom parameter"}, {CK_POS_FINITE}};
static const rng_def D_scaled_inv_chi_square = {"scaled_inv_chi_square_rng", 2, 0, d_scaled_inv_chi_square,
  {"Degrees of freedom parameter", SCALE}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_exp_mod_normal = {"exp_mod_normal_rng", 3, 0, d_exp_mod_normal,
  {LOC, SCALE, "Inv_scale parameter"}, {CK_FINITE, CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_gumbel = {"gumbel_rng", 2, 0, d_gumbel, {LOC, SCALE}, {CK_FINITE, CK_POS_FINITE}};
static const rng_def D_frechet = {"frechet_rng", 2, 0, d_frechet,
  {"Shape parameter", SCALE}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_rayleigh = {"rayleigh_rng", 1, 0, d_rayleigh, {SCALE}, {CK_POS_FINITE}};
static const rng_def D_pareto = {"pareto_rng", 2, 0, d_pareto,
  {SCALE, "Shape parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_pareto_type_2 = {"pareto_type_2_rng", 3, 0, d_pareto_type_2,
  {LOC, SCALE, "Shape parameter"}, {CK_FINITE, CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_loglogistic = {"loglogistic_rng", 2, 0, d_loglogistic,
  {SCALE, "Shape parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_skew_normal = {"skew_normal_rng", 3, 0, d_skew_normal,
  {LOC, SCALE, "Shape parameter"}, {CK_FINITE, CK_POS_FINITE, CK_FINITE}};
static const rng_def D_beta_proportion = {"beta_proportion_rng", 2, 0, d_beta_proportion,
  {LOC, "Precision parameter"}, {CK_UNIT_OPEN, CK_POS_FINITE}};
static const rng_def D_beta_binomial = {"beta_binomial_rng", 3, 1, d_beta_binomial,
  {"Population size parameter", "First prior sample size parameter", "Second prior sample size parameter"},
  {CK_NONNEG, CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_discrete_range = {"discrete_range_rng", 2, 1, d_discrete_range,
  {"Lower bound parameter", "Upper bound parameter"}, {CK_NONE, CK_GE_PREV}};
static const rng_def D_neg_binomial = {"neg_binomial_rng", 2, 1, d_neg_binomial,
  {"Shape parameter", "Inverse scale parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_neg_binomial_2 = {"neg_binomial_2_rng", 2, 1, d_neg_binomial_2,
  {LOC, "Precision parameter"}, {CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_neg_binomial_2_log = {"neg_binomial_2_log_rng", 2, 1, d_neg_binomial_2_log,
  {"Log-location parameter", "Inverse dispersion parameter"}, {CK_FINITE, CK_POS_FINITE}};

/* ---- categorical ---- */

static int check_simplex(const char *fn, const char *arg, const tm_v *v) {
  int rc = tm_check_nonzero_size(fn, arg, v);
  if (rc) return rc;
  size_t n = tm_numel(v);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += v->val[i];
  if (!(fabs(1.0 - sum) <= CONSTRAINT_TOLERANCE))
    return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. sum(%s) = %.10g, but should be 1", fn, arg, arg, sum);
  for (size_t i = 0; i < n; i++)
    if (!(v->val[i] >= 0))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. %s[%zu] = %.17g, but should be greater than or equal to 0",
                     fn, arg, arg, i + 1, v->val[i]);
  return AD_OK;
}

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

static int k_categorical(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "categorical_rng";
  int rc;
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 1))) return rc;
  if ((rc = check_simplex(fn, "Probabilities parameter", &a[0]))) return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  out->ival[0] = categorical_draw(c->rng, a[0].val, (int)tm_numel(&a[0]));
  return AD_OK;
}

static int k_categorical_logit(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "categorical_logit_rng";
  int rc;
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 1))) return rc;
  if ((rc = tm_check_finite(fn, "Log odds parameter", &a[0])) ||
      (rc = tm_check_nonzero_size(fn, "Log odds parameter", &a[0])))
    return rc;
  int k = (int)tm_numel(&a[0]);
  double *theta = ad_alloc_doubles((size_t)k), mx = -INFINITY, sum = 0;
  if (!theta) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < k; i++) mx = fmax(mx, a[0].val[i]);
  for (int i = 0; i < k; i++) sum += theta[i] = exp(a[0].val[i] - mx);
  for (int i = 0; i < k; i++) theta[i] /= sum;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  out->ival[0] = categorical_draw(c->rng, theta, k);
  return AD_OK;
}

/* ---- the table ---- */
#define R1 "real(real); array[] real(reals)"
#define R2 "real(real, real); array[] real(reals, reals)"
#define R3 "real(real, real, real); array[] real(reals, reals, reals)"
#define I1 "int(real); array[] int(reals)"
#define I2 "int(real, real); array[] int(reals, reals)"
#define IN "int(int, real); array[] int(ints, reals)"
#define IN2 "int(int, real, real); array[] int(ints, reals, reals)"
#define II "int(int, int); array[] int(ints, ints)"

/*
** More _rng functions: skew_double_exponential,
** beta_neg_binomial, yule_simon and von_mises on the univariate kernel
** above (tm_rng_def.h); hypergeometric, ordered_logistic,
** ordered_probit, multinomial, multinomial_logit, dirichlet_multinomial and
** bernoulli_logit_glm with kernels of their own.  Arguments are data to an
** _rng function: autodiff arguments are read by value, nothing is recorded.
*/

#define TWO_PI (2 * TM_PI)

/* ---- univariate ---- */

/* inversion of the cdf: tau below mu, 1 - tau above */
static int d_skew_double_exponential(tm_rng *r, const double *p, double *x) {
  double mu = p[0], s = p[1], t = p[2], u = tm_rng_uniform(r);
  if (u < t) *x = mu + s / (2 * (1 - t)) * log(u / t);
  else *x = mu - s / (2 * t) * log((1 - u) / (1 - t));
  return 0;
}

/* p ~ beta(alpha, beta), then neg_binomial(r, p / (1 - p)) as gamma-poisson */
static int d_beta_neg_binomial(tm_rng *r, const double *p, double *x) {
  double q = tm_rd_beta(r, p[1], p[2]), odds = exp(log(q) - log1p(-q));
  if (!(odds > 0 && isfinite(odds)))
    return ad_fail(AD_EDOMAIN, "beta_neg_binomial_rng: Inverse scale parameter is %.17g, but must be positive finite!",
                   odds);
  return gamma_poisson_draw(r, "beta_neg_binomial_rng", p[0], 1 / odds, x);
}

/* w ~ exponential(alpha), then 1 + neg_binomial(1, p / (1 - p)), p = exp(-w) (Stan's) */
static int d_yule_simon(tm_rng *r, const double *p, double *x) {
  double w = tm_rd_exponential(r) / p[0], odds = exp(-w - tm_log1m_exp(-w));
  if (!(odds > 0 && isfinite(odds)))
    return ad_fail(AD_EDOMAIN, "yule_simon_rng: Inverse scale parameter is %.17g, but must be positive finite!", odds);
  int rc = gamma_poisson_draw(r, "yule_simon_rng", 1.0, 1 / odds, x);
  *x += 1;
  return rc;
}

/* Best and Fisher (1979), as Stan: uniform on the circle below kappa = 1.4e-8 */
static int d_von_mises(tm_rng *r, const double *p, double *x) {
  double mu = p[0], k = p[1], shift = fmod(fmod(mu, TWO_PI) + TWO_PI, TWO_PI);
  if (k < 1.4e-8) { *x = (tm_rng_uniform(r) - 0.5) * TWO_PI + shift; return 0; }
  double rr = 1 + sqrt(1 + 4 * k * k), rho = 0.5 * (rr - sqrt(2 * rr)) / k, s = 0.5 * (1 + rho * rho) / rho, W;
  for (;;) {
    double Z = cos(TM_PI * tm_rng_uniform(r));
    W = (1 + s * Z) / (s + Z);
    double Y = k * (s - W), U2 = tm_rng_uniform(r);
    if (Y * (2 - Y) - U2 > 0 || log(Y / U2) + 1 - Y >= 0) break;
  }
  double U3 = tm_rng_uniform(r) - 0.5, sign = (U3 >= 0) - (U3 <= 0);
  *x = sign * acos(W) + shift;
  return 0;
}

#define LOC "Location parameter"
#define SCALE "Scale parameter"
static const rng_def D_skew_double_exponential = {"skew_double_exponential_rng", 3, 0, d_skew_double_exponential,
  {LOC, SCALE, "Skewness parameter"}, {CK_FINITE, CK_POS_FINITE, CK_UNIT}};
static const rng_def D_beta_neg_binomial = {"beta_neg_binomial_rng", 3, 1, d_beta_neg_binomial,
  {"Number of successes parameter", "Prior success parameter", "Prior failure parameter"},
  {CK_POS_FINITE, CK_POS_FINITE, CK_POS_FINITE}};
static const rng_def D_yule_simon = {"yule_simon_rng", 1, 1, d_yule_simon, {"Shape parameter"}, {CK_POS_FINITE}};
static const rng_def D_von_mises = {"von_mises_rng", 2, 0, d_von_mises, {LOC, SCALE}, {CK_FINITE, CK_NONNEG_FINITE}};

/* ---- hypergeometric_rng(N, a, b): white balls among N drawn without
** replacement from a white and b black (the distribution of
** hypergeometric_lpmf), one draw at a time ---- */
static int k_hypergeometric(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "hypergeometric_rng";
  int rc;
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 3))) return rc;
  int N = tm_geti(&a[0], 0), A = tm_geti(&a[1], 0), B = tm_geti(&a[2], 0);
  if ((rc = tm_check_bounded(fn, "Draws parameter", &a[0], 0, (double)A + B)) ||
      (rc = tm_check_positive(fn, "Draws parameter", &a[0])) ||
      (rc = tm_check_positive(fn, "Successes in population parameter", &a[1])) ||
      (rc = tm_check_positive(fn, "Failures in population parameter", &a[2])))
    return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  double wa = A, wb = B;
  int n = 0;
  for (int i = 0; i < N; i++) {
    if (tm_rng_uniform(c->rng) * (wa + wb) < wa) { n++; wa--; } else wb--;
  }
  out->ival[0] = n;
  return AD_OK;
}

/* ---- ordered_logistic_rng, ordered_probit_rng: inversion on the cumulative
** probabilities F(k) = P(y <= k), logistic or normal at c_k - eta ---- */

static int check_ordered(const char *fn, const char *name, const double *c, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(c[i]))
      return ad_fail(AD_EDOMAIN, "%s: %s[%d] is %.17g, but must be finite!", fn, name, i + 1, c[i]);
    if (i > 0 && !(c[i] > c[i - 1]))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid ordered vector. The element at %d is %.17g, but should "
                     "be greater than the previous element, %.17g", fn, name, i + 1, c[i], c[i - 1]);
  }
  return AD_OK;
}

static int k_ordered_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int probit = c->fn->data != NULL, rc;
  const char *fn = probit ? "ordered_probit_rng" : "ordered_logistic_rng";
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 2))) return rc;
  if (!tm_is_scalar(&a[0]) || a[1].base != TM_VECTOR || a[1].narr)
    return ad_fail(AD_EINVALID, "%s: expects (real, vector)", fn);
  double eta = tm_get(&a[0], 0);
  int Km1 = a[1].rows;
  if ((rc = tm_check_finite(fn, "Location parameter", &a[0])) || (rc = check_ordered(fn, "Cut-points", a[1].val, Km1)))
    return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  double u = tm_rng_uniform(c->rng);
  int k = 1;
  for (; k <= Km1; k++) {
    double z = a[1].val[k - 1] - eta, F = probit ? tm_Phi(z) : tm_inv_logit(z);
    if (u <= F) break;
  }
  out->ival[0] = k;
  return AD_OK;
}

/* ---- multinomial_rng, multinomial_logit_rng, dirichlet_multinomial_rng:
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

static int k_multinomial_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int which = c->fn->data ? *(const int *)c->fn->data : 0, rc;   /* 0 plain, 1 logit, 2 dirichlet */
  const char *fn = which == 0 ? "multinomial_rng" : which == 1 ? "multinomial_logit_rng" : "dirichlet_multinomial_rng";
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 2))) return rc;
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
    if (which == 1) {                 /* softmax */
      double m = -INFINITY, s = 0;
      for (int k = 0; k < K; k++) m = fmax(m, theta[k]);
      for (int k = 0; k < K; k++) s += t[k] = exp(theta[k] - m);
      for (int k = 0; k < K; k++) t[k] /= s;
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

/* ---- bernoulli_logit_glm_rng(x, alpha, beta): bernoulli_logit_rng(alpha + x beta) ---- */
static int k_bernoulli_logit_glm_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "bernoulli_logit_glm_rng";
  int rc;
  if ((rc = need_rng(c, fn)) || (rc = nargs_ok(fn, nargs, 3))) return rc;
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

static const int W_LOGIT = 1, W_DIRICHLET = 2;

#define R2 "real(real, real); array[] real(reals, reals)"
#define R3 "real(real, real, real); array[] real(reals, reals, reals)"
#define I1 "int(real); array[] int(reals)"
#define I3 "int(real, real, real); array[] int(reals, reals, reals)"

const tm_fn tm_fns_rng[] = {
  {"bernoulli_logit_rng", I1, tm_rng_kernel, &D_bernoulli_logit},
  {"bernoulli_rng", I1, tm_rng_kernel, &D_bernoulli},
  {"beta_binomial_rng", IN2, tm_rng_kernel, &D_beta_binomial},
  {"beta_proportion_rng", R2, tm_rng_kernel, &D_beta_proportion},
  {"beta_rng", R2, tm_rng_kernel, &D_beta},
  {"binomial_logit_rng", IN, tm_rng_kernel, &D_binomial_logit},
  {"binomial_rng", IN, tm_rng_kernel, &D_binomial},
  {"categorical_logit_rng", "int(vector)", k_categorical_logit, NULL},
  {"categorical_rng", "int(vector)", k_categorical, NULL},
  {"cauchy_rng", R2, tm_rng_kernel, &D_cauchy},
  {"chi_square_rng", R1, tm_rng_kernel, &D_chi_square},
  {"discrete_range_rng", II, tm_rng_kernel, &D_discrete_range},
  {"double_exponential_rng", R2, tm_rng_kernel, &D_double_exponential},
  {"exp_mod_normal_rng", R3, tm_rng_kernel, &D_exp_mod_normal},
  {"exponential_rng", R1, tm_rng_kernel, &D_exponential},
  {"frechet_rng", R2, tm_rng_kernel, &D_frechet},
  {"gamma_rng", R2, tm_rng_kernel, &D_gamma},
  {"gumbel_rng", R2, tm_rng_kernel, &D_gumbel},
  {"inv_chi_square_rng", R1, tm_rng_kernel, &D_inv_chi_square},
  {"inv_gamma_rng", R2, tm_rng_kernel, &D_inv_gamma},
  {"logistic_rng", R2, tm_rng_kernel, &D_logistic},
  {"loglogistic_rng", R2, tm_rng_kernel, &D_loglogistic},
  {"lognormal_rng", R2, tm_rng_kernel, &D_lognormal},
  {"neg_binomial_2_log_rng", I2, tm_rng_kernel, &D_neg_binomial_2_log},
  {"neg_binomial_2_rng", I2, tm_rng_kernel, &D_neg_binomial_2},
  {"neg_binomial_rng", I2, tm_rng_kernel, &D_neg_binomial},
  {"normal_rng", R2, tm_rng_kernel, &D_normal},
  {"pareto_rng", R2, tm_rng_kernel, &D_pareto},
  {"pareto_type_2_rng", R3, tm_rng_kernel, &D_pareto_type_2},
  {"poisson_log_rng", I1, tm_rng_kernel, &D_poisson_log},
  {"poisson_rng", I1, tm_rng_kernel, &D_poisson},
  {"rayleigh_rng", R1, tm_rng_kernel, &D_rayleigh},
  {"scaled_inv_chi_square_rng", R2, tm_rng_kernel, &D_scaled_inv_chi_square},
  {"skew_normal_rng", R3, tm_rng_kernel, &D_skew_normal},
  {"std_normal_rng", "real()", tm_rng_kernel, &D_std_normal},
  {"student_t_rng", R3, tm_rng_kernel, &D_student_t},
  {"uniform_rng", R2, tm_rng_kernel, &D_uniform},
  {"weibull_rng", R2, tm_rng_kernel, &D_weibull},
  {"skew_double_exponential_rng", R3, tm_rng_kernel, &D_skew_double_exponential},
  {"beta_neg_binomial_rng", I3, tm_rng_kernel, &D_beta_neg_binomial},
  {"yule_simon_rng", I1, tm_rng_kernel, &D_yule_simon},
  {"von_mises_rng", R2, tm_rng_kernel, &D_von_mises},
  {"hypergeometric_rng", "int(int, int, int)", k_hypergeometric, NULL},
  {"ordered_logistic_rng", "int(real, vector)", k_ordered_rng, NULL},
  {"ordered_probit_rng", "int(real, vector)", k_ordered_rng, "probit"},
  {"multinomial_rng", "array[] int(vector, int)", k_multinomial_rng, NULL},
  {"multinomial_logit_rng", "array[] int(vector, int)", k_multinomial_rng, &W_LOGIT},
  {"dirichlet_multinomial_rng", "array[] int(vector, int)", k_multinomial_rng, &W_DIRICHLET},
  {"bernoulli_logit_glm_rng", "array[] int(matrix, vector, vector); array[] int(row_vector, vector, vector)",
   k_bernoulli_logit_glm_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
