/*
** ld_bind.c -- a given data value meets its declaration (ld.h).
**
** Given values are row-major (JSON's nesting order, and what r_data.c makes
** of R's column-major arrays); bound values take tm.h's layout, which
** differs only inside matrices (column-major).  Shapes must agree exactly,
** with two exceptions that R and CmdStan users rely on:
**   - a value of one element stands for any declared value of one element,
**     whatever the nesting of either: R has no scalars (3 is a vector of
**     length 1), and CmdStan's JSON writers write a vector[1] as 3;
**   - a declared value with no elements accepts any given value with no
**     elements (JSON [] for array[0] vector[3]: JSON cannot spell the
**     trailing sizes of an empty array).
** Messages follow Stan's wording ("y[2, 1] is -1, but must be greater than
** or equal to 0") with 1-based indices: array indices first, then the
** vector element or the matrix row and column.
*/
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ld.h"

/* Shortest %g form that reads back as x, so a message never shows 2 for
** 2.0000000000000004. */
static const char *fmt_num(double x, char *buf, size_t size) {
  if (isnan(x)) snprintf(buf, size, "nan");
  else if (isinf(x)) snprintf(buf, size, x > 0 ? "inf" : "-inf");
  else {
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(buf, size, "%.*g", prec, x);
      if (strtod(buf, NULL) == x) break;
    }
  }
  return buf;
}

/* "y" or "y[i, j, ...]" from 0-based indices. */
static const char *index_text(const char *name, const long *idx, int n, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "%s", name);
  for (int d = 0; d < n && len < size; d++)
    len += (size_t)snprintf(buf + len, size - len, "%s%ld", d ? ", " : "[", idx[d] + 1);
  if (n && len < size) snprintf(buf + len, size - len, "]");
  return buf;
}

/* Indices of element k in row-major order over dims[0..n-1]. */
static void row_major_index(size_t k, const int *dims, int n, long *idx) {
  for (int d = n - 1; d >= 0; d--) {
    idx[d] = dims[d] ? (long)(k % (size_t)dims[d]) : 0;
    if (dims[d]) k /= (size_t)dims[d];
  }
}

/* The declared dimensions as the given ones are written: array sizes, then
** (n) for a vector or row vector, (rows, cols) for a matrix. */
static int declared_dims(const tm_v *s, int *dims) {
  int nd = 0;
  for (int i = 0; i < s->narr; i++) dims[nd++] = s->dim[i];
  if (s->base == TM_VECTOR) dims[nd++] = s->rows;
  else if (s->base == TM_ROW_VECTOR) dims[nd++] = s->cols;
  else if (s->base == TM_MATRIX) { dims[nd++] = s->rows; dims[nd++] = s->cols; }
  return nd;
}

static const char *base_name(int base) {
  static const char *names[] = {"int", "real", "vector", "row_vector", "matrix"};
  return base >= TM_INT && base <= TM_MATRIX ? names[base] : "?";
}

/* A declaration's text when the caller has none, e.g. "array[3] vector[2]". */
static const char *shape_text(const tm_v *s, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < s->narr && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%d%s", i ? ", " : "array[", s->dim[i],
                            i == s->narr - 1 ? "] " : "");
  if (len >= size) return buf;
  if (s->base == TM_VECTOR) snprintf(buf + len, size - len, "vector[%d]", s->rows);
  else if (s->base == TM_ROW_VECTOR) snprintf(buf + len, size - len, "row_vector[%d]", s->cols);
  else if (s->base == TM_MATRIX) snprintf(buf + len, size - len, "matrix[%d, %d]", s->rows, s->cols);
  else snprintf(buf + len, size - len, "%s", base_name(s->base));
  return buf;
}

static int shape_mismatch(const ld_value *g, const char *name, const char *decl,
                          char *err, size_t errsize) {
  char dims[200];
  if (g->ndim == 0) snprintf(dims, sizeof dims, "a scalar");
  else {
    size_t len = (size_t)snprintf(dims, sizeof dims, "dimensions [");
    for (int d = 0; d < g->ndim && len < sizeof dims; d++)
      len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%d", d ? ", " : "", g->dims[d]);
    if (len < sizeof dims) snprintf(dims + len, sizeof dims - len, "]");
  }
  snprintf(err, errsize, "variable '%s': declared %s, given %s", name, decl, dims);
  return AD_EINVALID;
}

/* A complex value is given as its real counterpart with one more, last
** dimension of 2 (CmdStan's JSON: a complex number is [re, im]). */
static int bind_complex(const ld_value *given, const char *name, const char *decl_text,
                        const tm_v *shape, tm_v *out, char *err, size_t errsize) {
  tm_v rs = *shape;
  rs.base = shape->base == TM_COMPLEX ? TM_REAL : shape->base == TM_CVECTOR ? TM_VECTOR
          : shape->base == TM_CROW_VECTOR ? TM_ROW_VECTOR : TM_MATRIX;
  int D[LD_MAXDIM + 1];
  int nd = declared_dims(&rs, D);
  D[nd++] = 2;
  size_t numel = 1;
  for (int d = 0; d < nd; d++) {
    if (D[d] < 0) {
      snprintf(err, errsize, "variable '%s': declared %s has a negative size", name, decl_text);
      return AD_EINVALID;
    }
    if (D[d] && numel > ((size_t)-1) / 4 / (size_t)D[d]) return shape_mismatch(given, name, decl_text, err, errsize);
    numel *= (size_t)D[d];
  }
  int fits = given->ndim == nd;
  for (int d = 0; fits && d < nd; d++) fits = given->dims[d] == D[d];
  if (!fits && numel == 0 && given->n == 0) fits = 1;
  if (!fits && numel == 2 && given->n == 2) fits = 1;   /* one complex, whatever the nesting */
  if (!fits) return shape_mismatch(given, name, decl_text, err, errsize);
  memset(out, 0, sizeof *out);
  out->base = shape->base;
  out->narr = shape->narr;
  for (int i = 0; i < shape->narr; i++) out->dim[i] = shape->dim[i];
  out->rows = shape->base == TM_COMPLEX ? 1 : shape->rows;
  out->cols = shape->base == TM_COMPLEX ? 1 : shape->cols;
  if (!(out->val = ad_alloc_doubles(numel ? numel : 1))) {
    snprintf(err, errsize, "variable '%s': out of memory", name);
    return AD_EMEMORY;
  }
  if (numel == 0) return AD_OK;
  if (shape->base != TM_CMATRIX) {
    memcpy(out->val, given->val, numel * sizeof(double));
    return AD_OK;
  }
  /* Each matrix: given row by row, stored column by column, in pairs. */
  size_t r = (size_t)shape->rows, c = (size_t)shape->cols, rc = 2 * r * c;
  for (size_t a = 0; a < numel; a += rc) {
    const double *src = given->val + a;
    double *dst = out->val + a;
    for (size_t i = 0; i < r; i++)
      for (size_t j = 0; j < c; j++) {
        dst[2 * (i + j * r)] = src[2 * (i * c + j)];
        dst[2 * (i + j * r) + 1] = src[2 * (i * c + j) + 1];
      }
  }
  return AD_OK;
}

int ld_bind_value(const ld_value *given, const char *name, const char *decl_text,
                  const tm_v *shape, tm_v *out, char *err, size_t errsize) {
  char declbuf[160];
  if (!decl_text) decl_text = shape_text(shape, declbuf, sizeof declbuf);
  if (tm_is_complex(shape) && shape->narr <= TM_MAXARR)
    return bind_complex(given, name, decl_text, shape, out, err, errsize);
  if (shape->base > TM_MATRIX || shape->narr > TM_MAXARR) {
    snprintf(err, errsize, "variable '%s': invalid declared shape", name);
    return AD_EINVALID;
  }
  int D[LD_MAXDIM];
  int nd = declared_dims(shape, D);
  size_t numel = 1;
  int overflow = 0;
  for (int d = 0; d < nd; d++) {
    if (D[d] < 0) {
      snprintf(err, errsize, "variable '%s': declared %s has a negative size", name, decl_text);
      return AD_EINVALID;
    }
    if (D[d] && numel > ((size_t)-1) / 2 / (size_t)D[d]) overflow = 1;
    else numel *= (size_t)D[d];
  }
  int fits = given->ndim == nd;
  for (int d = 0; fits && d < nd; d++) fits = given->dims[d] == D[d];
  if (!fits && !overflow && numel == 1) {  /* one number for one element, whatever the nesting */
    fits = 1;
    for (int d = 0; d < given->ndim; d++) fits = fits && given->dims[d] == 1;
  }
  if (!fits && !overflow && numel == 0 && given->n == 0) fits = 1;
  if (!fits) return shape_mismatch(given, name, decl_text, err, errsize);

  memset(out, 0, sizeof *out);
  out->base = shape->base;
  out->narr = shape->narr;
  for (int i = 0; i < shape->narr; i++) out->dim[i] = shape->dim[i];
  out->rows = shape->base <= TM_REAL ? 1 : shape->rows;
  out->cols = shape->base <= TM_REAL ? 1 : shape->cols;
  size_t n = numel;
  size_t alloc_n = n ? n : 1;
  if (shape->base == TM_INT) out->ival = ad_alloc(alloc_n * sizeof(int));
  else out->val = ad_alloc_doubles(alloc_n);
  if (!out->ival && !out->val) {
    snprintf(err, errsize, "variable '%s': out of memory", name);
    return AD_EMEMORY;
  }
  if (n == 0) return AD_OK;

  if (shape->base == TM_INT) {
    for (size_t k = 0; k < n; k++) {
      double x = given->val[k];
      if (x >= INT_MIN && x <= INT_MAX && x == floor(x)) {
        out->ival[k] = (int)x;
        continue;
      }
      char where[200], num[40];
      long idx[LD_MAXDIM];
      row_major_index(k, D, nd, idx);
      index_text(name, idx, nd, where, sizeof where);
      if (isfinite(x) && x == floor(x))
        snprintf(err, errsize, "variable '%s': %s is %s, which is outside the range of int (%d to %d)",
                 name, where, fmt_num(x, num, sizeof num), INT_MIN, INT_MAX);
      else
        snprintf(err, errsize, "variable '%s': %s is %s, but must be an integer", name, where,
                 fmt_num(x, num, sizeof num));
      return AD_EINVALID;
    }
    return AD_OK;
  }
  if (shape->base != TM_MATRIX || n == 1) {
    memcpy(out->val, given->val, n * sizeof(double));
    return AD_OK;
  }
  /* Each matrix: given row by row, stored column by column. */
  size_t r = (size_t)shape->rows, c = (size_t)shape->cols, rc = r * c;
  for (size_t a = 0; a < n; a += rc) {
    const double *src = given->val + a;
    double *dst = out->val + a;
    for (size_t i = 0; i < r; i++)
      for (size_t j = 0; j < c; j++) dst[i + j * r] = src[i * c + j];
  }
  return AD_OK;
}

/* Element i of v (tm.h's layout) as Stan names it. */
static const char *element_text(const char *name, const tm_v *v, size_t i, char *buf, size_t size) {
  long idx[LD_MAXDIM];
  int n = v->narr;
  size_t inner = (size_t)v->rows * (size_t)v->cols;
  size_t a = inner ? i / inner : 0, k = inner ? i % inner : 0;
  row_major_index(a, v->dim, v->narr, idx);
  if (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) idx[n++] = (long)k;
  else if (v->base == TM_MATRIX) {
    idx[n++] = (long)(k % (size_t)v->rows);
    idx[n++] = (long)(k / (size_t)v->rows);
  }
  return index_text(name, idx, n, buf, size);
}

static const char *value_text(const tm_v *v, size_t i, char *buf, size_t size) {
  if (v->base == TM_INT) {
    snprintf(buf, size, "%d", tm_geti(v, i));
    return buf;
  }
  return fmt_num(tm_get(v, i), buf, size);
}

/* One pass over v against one bound; upper != 0 for the upper bound.  A NaN
** fails either check, as in Stan. */
static int check_one(const char *name, const tm_v *v, const tm_v *b, int upper, char *err, size_t errsize) {
  size_t n = tm_numel(v);
  if (!tm_is_scalar(b) && tm_numel(b) != n) {
    snprintf(err, errsize, "variable '%s': the %s bound has %zu elements, but the variable has %zu",
             name, upper ? "upper" : "lower", tm_numel(b), n);
    return AD_EINVALID;
  }
  for (size_t i = 0; i < n; i++) {
    double x = tm_get(v, i), lim = tm_get(b, i);
    if (upper ? x <= lim : x >= lim) continue;
    char where[200], xs[40], ls[40];
    snprintf(err, errsize, "variable '%s': %s is %s, but must be %s than or equal to %s", name,
             element_text(name, v, i, where, sizeof where), value_text(v, i, xs, sizeof xs),
             upper ? "less" : "greater", value_text(b, i, ls, sizeof ls));
    return AD_EINVALID;
  }
  return AD_OK;
}

int ld_check_bounds(const char *name, const tm_v *v, const tm_v *lower, const tm_v *upper,
                    char *err, size_t errsize) {
  int rc;
  /* Every lower bound first, then every upper bound: the order of Stan's checks. */
  if (lower && (rc = check_one(name, v, lower, 0, err, errsize))) return rc;
  if (upper && (rc = check_one(name, v, upper, 1, err, errsize))) return rc;
  return AD_OK;
}
