/*
** tm_rng_def.c -- the kernel of Stan's univariate _rng functions.
**
** Univariate functions share one kernel driven by an rng_def: it checks the
** arguments (per argument, in order, with Stan's messages), broadcasts them
** as Stan does (all scalars give a scalar; any container gives an array of
** its size) and calls the def's sampler once per element.  The samplers on
** doubles live in tm_rng_dist.c.  Arguments are data to an _rng function:
** autodiff arguments are read by value and no node is ever recorded.
**
** Here: the kernel and its checks.  Each family's rng_defs and rows are in
** its file tm_<family>.c; the _rng functions with kernels of their own
** too.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_rng_dist.h"
#include "tm_rng_def.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"

/* x < bound for every element, Stan's check_less. */
static int check_less(const char *fn, const char *arg, const tm_v *v, double bound) {
  size_t n = tm_numel(v);
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(v, i);
    if (!(x < bound)) {
      char name[160];
      tm_dens_elem_name(name, sizeof name, arg, v, i);
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
      tm_dens_elem_name(name, sizeof name, arg, y, i);
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
    if (!(rc = tm_check_nonnegative(fn, arg, &a[i]))) rc = check_less(fn, arg, &a[i], TM_POISSON_MAX_RATE);
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

int tm_rng_begin(const tm_call *c, const char *fn, int nargs, int want) {
  if (!c->rng) return ad_fail(AD_EINVALID, "%s: no random number generator here", fn);
  if (nargs != want) return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, want, nargs);
  return AD_OK;
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
  if ((rc = tm_rng_begin(c, d->name, nargs, d->nargs))) return rc;
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
