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
#include "tm.h"

static void argname(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

typedef int (*pred)(double x, double lo, double hi);

/* must: the requirement as Stan words it after "but must be " (or, when it
** starts with '-', after "but must "), including any final "!". */
static int check_all(const char *fn, const char *arg, const tm_v *v, pred ok,
                     double lo, double hi, const char *must) {
  size_t n = tm_numel(v);
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(v, i);
    if (!ok(x, lo, hi)) {
      char name[160];
      argname(name, sizeof name, arg, v, i);
      if (must[0] == '-')
        return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must %s", fn, name, x, must + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be %s", fn, name, x, must);
    }
  }
  return AD_OK;
}

static int is_finite(double x, double lo, double hi) { (void)lo; (void)hi; return isfinite(x); }
static int not_nan(double x, double lo, double hi) { (void)lo; (void)hi; return !isnan(x); }
static int is_pos(double x, double lo, double hi) { (void)lo; (void)hi; return x > 0; }
static int is_pos_finite(double x, double lo, double hi) { (void)lo; (void)hi; return x > 0 && isfinite(x); }
static int is_nonneg(double x, double lo, double hi) { (void)lo; (void)hi; return x >= 0; }
static int in_bounds(double x, double lo, double hi) { return x >= lo && x <= hi; }

int tm_check_finite(const char *fn, const char *arg, const tm_v *v) {
  return check_all(fn, arg, v, is_finite, 0, 0, "finite!");
}
int tm_check_not_nan(const char *fn, const char *arg, const tm_v *v) {
  return check_all(fn, arg, v, not_nan, 0, 0, "-not be nan!");
}
int tm_check_positive(const char *fn, const char *arg, const tm_v *v) {
  return check_all(fn, arg, v, is_pos, 0, 0, "positive!");
}
int tm_check_positive_finite(const char *fn, const char *arg, const tm_v *v) {
  return check_all(fn, arg, v, is_pos_finite, 0, 0, "positive finite!");
}
int tm_check_nonnegative(const char *fn, const char *arg, const tm_v *v) {
  return check_all(fn, arg, v, is_nonneg, 0, 0, "nonnegative!");
}
int tm_check_bounded(const char *fn, const char *arg, const tm_v *v, double lo, double hi) {
  char must[96];
  snprintf(must, sizeof must, "in the interval [%g, %g]", lo, hi);
  return check_all(fn, arg, v, in_bounds, lo, hi, must);
}

int tm_check_size_match(const char *fn, const char *name1, size_t n1, const char *name2, size_t n2) {
  if (n1 == n2) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: Size of %s (%zu) and size of %s (%zu) must match in size",
                 fn, name1, n1, name2, n2);
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
