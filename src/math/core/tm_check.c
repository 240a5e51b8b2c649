/*
** tm_check.c -- argument checks with Stan's messages.
**
** Stan reports "normal_lpdf: Scale parameter is -1, but must be positive!";
** our messages keep that shape, adding the element index for containers
** ("Scale parameter[2] is -1, ...", 1-based as in Stan), so users who search
** for Stan's wording find the same explanation.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tm.h"

static void argname(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

/* must: the requirement as Stan words it after "but must be " (or, when it
** starts with '-', after "but must "), including any final "!". */
static int report(const char *fn, const char *arg, const tm_v *v, size_t i, const char *must) {
  char name[160];
  double x = tm_get(v, i);
  argname(name, sizeof name, arg, v, i);
  /* NaN as Stan (C++ streams) writes it, whatever its sign bit */
  if (isnan(x)) {
    if (must[0] == '-') return ad_fail(AD_EDOMAIN, "%s: %s is nan, but must %s", fn, name, must + 1);
    return ad_fail(AD_EDOMAIN, "%s: %s is nan, but must be %s", fn, name, must);
  }
  if (must[0] == '-')
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must %s", fn, name, x, must + 1);
  return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be %s", fn, name, x, must);
}

/* Each check runs on every element of every call (a GLM checks its N
** outcomes on each evaluation), so the values go by in chunks of a fixed
** size with no branch per element, which the compiler turns into vector
** code; only a chunk with a failure is walked again, element by element,
** and the message is formatted for the first failing one. */
#define CHECK_CHUNK 256
#define SCAN(TYPE, P, OK, FAIL)                                                \
  do {                                                                        \
    const TYPE *p_ = (P);                                                     \
    size_t i = 0;                                                             \
    for (; i + CHECK_CHUNK <= n; i += CHECK_CHUNK) {                          \
      int ok_ = 1;                                                            \
      for (size_t j = 0; j < CHECK_CHUNK; j++) {                              \
        double x = (double)p_[i + j];                                         \
        ok_ &= (OK);                                                          \
      }                                                                       \
      if (!ok_) break;                                                        \
    }                                                                         \
    for (; i < n; i++) {                                                      \
      double x = (double)p_[i];                                               \
      if (!(OK)) return FAIL;                                                 \
    }                                                                         \
  } while (0)

#define DEFINE_CHECK(NAME, OK, MUST)                                          \
  int NAME(const char *fn, const char *arg, const tm_v *v) {                  \
    size_t n = tm_is_scalar(v) ? 1 : tm_numel(v);                             \
    if (v->base == TM_INT) SCAN(int, v->ival, OK, report(fn, arg, v, i, MUST)); \
    else SCAN(double, v->val, OK, report(fn, arg, v, i, MUST));               \
    return AD_OK;                                                             \
  }

DEFINE_CHECK(tm_check_finite, isfinite(x), "finite!")
DEFINE_CHECK(tm_check_not_nan, !isnan(x), "-not be nan!")
DEFINE_CHECK(tm_check_positive, x > 0, "positive!")
DEFINE_CHECK(tm_check_positive_finite, x > 0 && isfinite(x), "positive finite!")
DEFINE_CHECK(tm_check_nonnegative, x >= 0, "nonnegative!")

static int bounded_fail(const char *fn, const char *arg, const tm_v *v, size_t i, double lo, double hi) {
  char must[96];
  snprintf(must, sizeof must, "in the interval [%g, %g]", lo, hi);
  return report(fn, arg, v, i, must);
}

int tm_check_bounded(const char *fn, const char *arg, const tm_v *v, double lo, double hi) {
  size_t n = tm_is_scalar(v) ? 1 : tm_numel(v);
  if (v->base == TM_INT) SCAN(int, v->ival, x >= lo && x <= hi, bounded_fail(fn, arg, v, i, lo, hi));
  else SCAN(double, v->val, x >= lo && x <= hi, bounded_fail(fn, arg, v, i, lo, hi));
  return AD_OK;
}

int tm_check_size_match(const char *fn, const char *name1, size_t n1, const char *name2, size_t n2) {
  if (n1 == n2) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: Size of %s (%zu) and size of %s (%zu) must match in size",
                 fn, name1, n1, name2, n2);
}

int tm_check_consistent_size(const char *fn, const char *arg, size_t got, size_t want) {
  if (got == want) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s has dimension = %zu, expecting dimension = %zu; a function was "
                 "called with arguments of different scalar, array, vector, or matrix types, and they "
                 "were not consistently sized; all arguments must be scalars or multidimensional "
                 "values of the same shape.", fn, arg, got, want);
}

/* The argument types, comma separated, as far as they fit. */
int tm_no_overload(const tm_call *c, const tm_v *a, int nargs) {
  char buf[256], t[64];
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < nargs && k + 70 < sizeof buf; i++) {
    tm_type_name(&a[i], t, sizeof t);
    size_t m = strlen(t);
    if (i) { memcpy(buf + k, ", ", 2); k += 2; }
    memcpy(buf + k, t, m + 1);
    k += m;
  }
  return ad_fail(AD_EINVALID, "%s: no signature accepts arguments (%s)", c->fn->name, buf);
}

int tm_check_square(const char *fn, const char *arg, const tm_v *v) {
  if (v->rows == v->cols) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: Expecting a square matrix; rows of %s (%d) and columns of %s (%d) must match in size",
                 fn, arg, v->rows, arg, v->cols);
}

int tm_check_nonzero_size(const char *fn, const char *arg, const tm_v *v) {
  if (tm_numel(v) > 0) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s has size 0, but must have a non-zero size", fn, arg);
}
