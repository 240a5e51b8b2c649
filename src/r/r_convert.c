/*
** r_convert.c -- R values to tm_v and back.
**
** Arrays come from R as lists (one element per leading index, recursively);
** a one-dimensional array of int or real may also be an atomic vector.
** Matrices are R matrices, already column-major as Stan stores them.
*/
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "r_convert.h"
#include "r_interrupt.h"

int rc_parse_type(const char *type, int *base, int *narr) {
  const char *p = type;
  *narr = 0;
  if (strncmp(p, "array[", 6) == 0) {
    *narr = 1;
    for (p += 6; *p && *p != ']'; p++) if (*p == ',') (*narr)++;
    if (*p != ']') return -1;
    p++;
    while (*p == ' ') p++;
  }
  static const char *names[] = {"int", "real", "vector", "row_vector", "matrix"};
  for (int b = 0; b < 5; b++)
    if (strcmp(p, names[b]) == 0) { *base = b; return 0; }
  return -1;
}

/* Walk the R value to find the array dimensions and the inner shape. */
static int shape_of(SEXP x, int base, int narr, tm_v *v, const char *argname) {
  SEXP cur = x;
  for (int d = 0; d < narr; d++) {
    if (TYPEOF(cur) == VECSXP) {
      v->dim[d] = (int)XLENGTH(cur);
      if (XLENGTH(cur) == 0) {   /* empty array: the rest of the shape is zero */
        for (int e = d + 1; e < narr; e++) v->dim[e] = 0;
        v->rows = base == TM_ROW_VECTOR ? 1 : 0;
        v->cols = base == TM_VECTOR ? 1 : 0;
        if (base <= TM_REAL) v->rows = v->cols = 1;
        return AD_OK;
      }
      cur = VECTOR_ELT(cur, 0);
    } else if (d == narr - 1 && base <= TM_REAL && (isReal(cur) || isInteger(cur) || isLogical(cur))) {
      v->dim[d] = (int)XLENGTH(cur);
      v->rows = v->cols = 1;
      return AD_OK;
    } else {
      return ad_fail(AD_EINVALID, "argument %s: expected a list for an array dimension", argname);
    }
  }
  if (!(isReal(cur) || isInteger(cur) || isLogical(cur)))
    return ad_fail(AD_EINVALID, "argument %s: expected a numeric value", argname);
  R_xlen_t n = XLENGTH(cur);
  switch (base) {
  case TM_INT: case TM_REAL:
    if (n != 1) return ad_fail(AD_EINVALID, "argument %s: expected a scalar, got length %ld", argname, (long)n);
    v->rows = v->cols = 1; break;
  case TM_VECTOR: v->rows = (int)n; v->cols = 1; break;
  case TM_ROW_VECTOR: v->rows = 1; v->cols = (int)n; break;
  case TM_MATRIX: {
    SEXP dim = getAttrib(cur, R_DimSymbol);
    if (isNull(dim) || LENGTH(dim) != 2)
      return ad_fail(AD_EINVALID, "argument %s: expected a matrix", argname);
    v->rows = INTEGER(dim)[0]; v->cols = INTEGER(dim)[1]; break;
  }
  }
  return AD_OK;
}

/* Copy the elements in Stan's order: leading array index first. */
static int fill(SEXP x, int depth, const tm_v *v, size_t *pos, size_t inner, const char *argname) {
  if (depth < v->narr && TYPEOF(x) == VECSXP) {
    if (XLENGTH(x) != v->dim[depth])
      return ad_fail(AD_EINVALID, "argument %s: ragged array (dimension %d has sizes %d and %ld)",
                     argname, depth + 1, v->dim[depth], (long)XLENGTH(x));
    for (R_xlen_t i = 0; i < XLENGTH(x); i++) {
      int rc = fill(VECTOR_ELT(x, i), depth + 1, v, pos, inner, argname);
      if (rc) return rc;
    }
    return AD_OK;
  }
  size_t n = (size_t)XLENGTH(x);
  size_t want = depth < v->narr ? (size_t)v->dim[depth] : inner;
  if (n != want)
    return ad_fail(AD_EINVALID, "argument %s: element has %zu values, expected %zu", argname, n, want);
  for (size_t i = 0; i < n; i++) {
    if (v->base == TM_INT) {
      int iv = isReal(x) ? (int)REAL(x)[i] : INTEGER(x)[i];
      v->ival[(*pos)++] = iv;
    } else {
      double dv = isReal(x) ? REAL(x)[i] : (INTEGER(x)[i] == NA_INTEGER ? NA_REAL : INTEGER(x)[i]);
      v->val[(*pos)++] = dv;
    }
  }
  return AD_OK;
}

int rc_from_r(SEXP x, const char *type, int ad, const char *argname, tm_v *out) {
  int base, narr;
  memset(out, 0, sizeof *out);
  if (rc_parse_type(type, &base, &narr))
    return ad_fail(AD_EINVALID, "argument %s: unknown type '%s'", argname, type);
  out->base = (unsigned char)base;
  out->narr = (unsigned char)narr;
  int rc = shape_of(x, base, narr, out, argname);
  if (rc) return rc;
  size_t n = tm_numel(out);
  if (base == TM_INT) {
    if (!(out->ival = ad_alloc((n ? n : 1) * sizeof(int)))) return AD_EMEMORY;
  } else if (ad) {
    if ((rc = ad_leaves(n, NULL, &out->val, &out->adj))) return rc;
  } else if (!(out->val = ad_alloc_doubles(n ? n : 1))) return AD_EMEMORY;
  size_t pos = 0;
  return fill(x, 0, out, &pos, (size_t)out->rows * (size_t)out->cols, argname);
}

static SEXP inner_to_r(const tm_v *v, size_t off) {
  size_t n = (size_t)v->rows * (size_t)v->cols;
  SEXP r;
  if (v->base == TM_INT) {
    r = PROTECT(allocVector(INTSXP, (R_xlen_t)n));
    memcpy(INTEGER(r), v->ival + off, n * sizeof(int));
  } else {
    r = PROTECT(allocVector(REALSXP, (R_xlen_t)n));
    memcpy(REAL(r), v->val + off, n * sizeof(double));
  }
  if (v->base == TM_MATRIX) {
    SEXP dim = PROTECT(allocVector(INTSXP, 2));
    INTEGER(dim)[0] = v->rows;
    INTEGER(dim)[1] = v->cols;
    setAttrib(r, R_DimSymbol, dim);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return r;
}

static SEXP array_to_r(const tm_v *v, int depth, size_t off, size_t inner) {
  if (depth == v->narr) return inner_to_r(v, off);
  size_t stride = inner;
  for (int d = depth + 1; d < v->narr; d++) stride *= (size_t)v->dim[d];
  if (depth == v->narr - 1 && v->base <= TM_REAL) {
    /* innermost array of scalars: an atomic vector */
    size_t n = (size_t)v->dim[depth];
    SEXP r;
    if (v->base == TM_INT) {
      r = PROTECT(allocVector(INTSXP, (R_xlen_t)n));
      if (n) memcpy(INTEGER(r), v->ival + off, n * sizeof(int));
    } else {
      r = PROTECT(allocVector(REALSXP, (R_xlen_t)n));
      if (n) memcpy(REAL(r), v->val + off, n * sizeof(double));
    }
    UNPROTECT(1);
    return r;
  }
  SEXP r = PROTECT(allocVector(VECSXP, v->dim[depth]));
  for (int i = 0; i < v->dim[depth]; i++)
    SET_VECTOR_ELT(r, i, array_to_r(v, depth + 1, off + (size_t)i * stride, inner));
  UNPROTECT(1);
  return r;
}

SEXP rc_to_r(const tm_v *v) {
  return array_to_r(v, 0, 0, (size_t)v->rows * (size_t)v->cols);
}

const char *rc_status_class(int status) {
  switch (status) {
  case AD_EDOMAIN: return "tapestry_domain_error";
  case AD_EFATAL:  return "tapestry_fatal_error";
  case AD_EMEMORY: return "tapestry_memory_error";
  default:         return "tapestry_error";
  }
}

void rc_raise(int status) {
  static const char *cls[] = {"tapestry_error", "tapestry_domain_error", "tapestry_invalid_argument",
                              "tapestry_fatal_error", "tapestry_memory_error", "tapestry_reentry_error"};
  char msg[1100];
  snprintf(msg, sizeof msg, "%s", ad_errmsg());
  rc_raise_msg(msg, status > 0 && status <= AD_EREENTER ? cls[status] : cls[0]);
}

/* r_interrupt.h's: the condition R/internal.R's tapestry_interrupt() signals */
_Noreturn void ri_raise(const char *what) {
  char msg[300];
  snprintf(msg, sizeof msg, "%s was interrupted (Ctrl-C).", what);
  SEXP fn = PROTECT(install("tapestry_interrupt"));
  SEXP ns = PROTECT(R_FindNamespace(mkString("tapestry")));
  SEXP call = PROTECT(lang2(fn, ScalarString(mkCharCE(msg, CE_UTF8))));
  eval(call, ns);   /* does not return */
  UNPROTECT(3);
  error("%s", msg);
}

_Noreturn void rc_raise_msg(const char *msg, const char *cls) {
  SEXP fn = PROTECT(install("tapestry_raise"));
  SEXP ns = PROTECT(R_FindNamespace(mkString("tapestry")));
  SEXP m = PROTECT(ScalarString(mkCharCE(msg && *msg ? msg : "unknown error", CE_UTF8)));
  SEXP call = PROTECT(lang3(fn, m, mkString(cls)));
  eval(call, ns);   /* does not return: tapestry_raise() signals an R error */
  UNPROTECT(4);
  error("%s", msg ? msg : "");   /* not reached; keeps the promise never to return */
}

SEXP rc_string_arg(SEXP x, const char *name) {
  if (!isString(x) || XLENGTH(x) != 1 || STRING_ELT(x, 0) == NA_STRING) {
    char msg[128];
    snprintf(msg, sizeof msg, "'%s' must be a single string", name);
    rc_raise_msg(msg, "tapestry_argument_error");
  }
  return STRING_ELT(x, 0);
}

SEXP rc_lines(const char *text) {
  int n = 0;
  for (const char *c = text; c && *c; c++) n += *c == '\n';
  if (text && *text && text[strlen(text) - 1] != '\n') n++;
  SEXP out = PROTECT(allocVector(STRSXP, n));
  const char *c = text;
  for (int i = 0; i < n; i++) {
    const char *e = strchr(c, '\n');
    size_t len = e ? (size_t)(e - c) : strlen(c);
    SET_STRING_ELT(out, i, mkCharLenCE(c, (int)len, CE_UTF8));
    c = e ? e + 1 : c + len;
  }
  UNPROTECT(1);
  return out;
}

SEXP rc_named_list(int n, const char *const *names, SEXP *vals) {
  SEXP r = PROTECT(allocVector(VECSXP, n));
  SEXP nm = PROTECT(allocVector(STRSXP, n));
  for (int i = 0; i < n; i++) {
    if (vals) SET_VECTOR_ELT(r, i, vals[i]);
    SET_STRING_ELT(nm, i, mkCharCE(names[i], CE_UTF8));
  }
  setAttrib(r, R_NamesSymbol, nm);
  UNPROTECT(2);
  return r;
}
