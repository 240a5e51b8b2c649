/*
** r_data.c -- R lists of data as ld_sets, and the data layer's test entries.
**
** rd_from_r walks the list twice per variable: once to find the shape (and
** refuse what is not numeric, missing or ragged), once to copy the numbers
** in row-major order.  It reads vectors through *_GET_REGION, which never
** allocates (not even for ALTREP vectors such as 1:n), so no R error can
** unwind through it while it holds malloc'd memory.  The entries keep the
** set in an external pointer with a finalizer for the R calls that follow,
** which can raise.
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "r_data.h"
#include "r_convert.h"
#include "r_entries_data.h"

#define CHUNK 1024
#define PATHLEN 256

typedef struct cx {
  const char *name;        /* the variable */
  char *err;
  size_t errsize;
} cx;

typedef struct rshape {
  int ndim;
  int dims[LD_MAXDIM];
} rshape;

static int is_numeric(SEXP e) {
  int t = TYPEOF(e);
  return t == REALSXP || t == INTSXP || t == LGLSXP;
}

static const char *what_is(SEXP e) {
  if (isNull(e)) return "NULL";
  if (isFactor(e)) return "a factor";
  if (inherits(e, "integer64")) return "an integer64 vector";
  switch (TYPEOF(e)) {
  case STRSXP: return "a character vector";
  case CPLXSXP: return "a complex vector";
  case RAWSXP: return "a raw vector";
  case CLOSXP: case BUILTINSXP: case SPECIALSXP: return "a function";
  case ENVSXP: return "an environment";
  case SYMSXP: return "a symbol";
  case LANGSXP: return "a call";
  case S4SXP: return "an S4 object";
  default: return "an unsupported R object";
  }
}

/* "variable 'x': expected numeric values in x[[2]], given a factor" */
static int bad_type(const cx *C, const char *path, SEXP e) {
  if (strcmp(path, C->name) == 0)
    snprintf(C->err, C->errsize, "variable '%s': expected numeric values, given %s", C->name, what_is(e));
  else
    snprintf(C->err, C->errsize, "variable '%s': expected numeric values in %s, given %s", C->name, path,
             what_is(e));
  return AD_EINVALID;
}

static void shape_phrase(const rshape *s, char *buf, size_t size) {
  if (s->ndim == 0) {
    snprintf(buf, size, "is a scalar");
    return;
  }
  size_t len = (size_t)snprintf(buf, size, "has dimensions [");
  for (int d = 0; d < s->ndim && len < size; d++)
    len += (size_t)snprintf(buf + len, size - len, "%s%d", d ? ", " : "", s->dims[d]);
  if (len < size) snprintf(buf + len, size - len, "]");
}

static int too_deep(const cx *C) {
  snprintf(C->err, C->errsize, "variable '%s': more than %d dimensions", C->name, LD_MAXDIM);
  return AD_EINVALID;
}

static int too_long(const cx *C) {
  snprintf(C->err, C->errsize, "variable '%s': a dimension larger than %d", C->name, INT_MAX);
  return AD_EINVALID;
}

/* The shape of a data frame's values: its columns as a matrix's. */
static int frame_shape(SEXP e, const cx *C, const char *path, rshape *sh, int *all_int) {
  R_xlen_t ncol = XLENGTH(e), nrow = ncol ? XLENGTH(VECTOR_ELT(e, 0)) : 0;
  char cpath[PATHLEN];
  for (R_xlen_t j = 0; j < ncol; j++) {
    SEXP col = VECTOR_ELT(e, j);
    snprintf(cpath, sizeof cpath, "%s[[%ld]]", path, (long)j + 1);
    if (!is_numeric(col) || isFactor(col) || inherits(col, "integer64") ||
        !isNull(getAttrib(col, R_DimSymbol)))
      return bad_type(C, cpath, col);
    if (TYPEOF(col) == REALSXP) *all_int = 0;
    if (XLENGTH(col) != nrow) {
      snprintf(C->err, C->errsize, "variable '%s': the columns of the data frame differ in length", C->name);
      return AD_EINVALID;
    }
  }
  if (nrow > INT_MAX || ncol > INT_MAX) return too_long(C);
  sh->ndim = 2;
  sh->dims[0] = (int)nrow;
  sh->dims[1] = (int)ncol;
  return AD_OK;
}

/* The shape of e, which sits `depth` lists deep; in_list: e is an element of
** a list, where a vector of length 1 counts as a scalar. */
static int shape_of(SEXP e, int in_list, int depth, const cx *C, const char *path, rshape *sh, int *all_int) {
  if (is_numeric(e)) {
    if (isFactor(e) || inherits(e, "integer64")) return bad_type(C, path, e);
    if (TYPEOF(e) == REALSXP) *all_int = 0;
    SEXP dim = getAttrib(e, R_DimSymbol);
    if (!isNull(dim)) {
      if (LENGTH(dim) + depth > LD_MAXDIM) return too_deep(C);
      sh->ndim = LENGTH(dim);
      for (int d = 0; d < sh->ndim; d++) sh->dims[d] = INTEGER(dim)[d];
    } else if (in_list && XLENGTH(e) == 1) {
      sh->ndim = 0;
    } else {
      if (XLENGTH(e) > INT_MAX) return too_long(C);
      if (depth + 1 > LD_MAXDIM) return too_deep(C);
      sh->ndim = 1;
      sh->dims[0] = (int)XLENGTH(e);
    }
    return AD_OK;
  }
  if (TYPEOF(e) != VECSXP) return bad_type(C, path, e);
  if (depth + 2 > LD_MAXDIM && inherits(e, "data.frame")) return too_deep(C);
  if (inherits(e, "data.frame")) return frame_shape(e, C, path, sh, all_int);
  if (depth + 1 > LD_MAXDIM) return too_deep(C);
  R_xlen_t len = XLENGTH(e);
  if (len > INT_MAX) return too_long(C);
  sh->ndim = 1;
  sh->dims[0] = (int)len;
  if (len == 0) return AD_OK;
  rshape first, cur;
  char cpath[PATHLEN];
  for (R_xlen_t i = 0; i < len; i++) {
    snprintf(cpath, sizeof cpath, "%s[[%ld]]", path, (long)i + 1);
    rshape *s = i ? &cur : &first;
    int rc = shape_of(VECTOR_ELT(e, i), 1, depth + 1, C, cpath, s, all_int);
    if (rc) return rc;
    int same = i == 0 || cur.ndim == first.ndim;
    for (int d = 0; same && i > 0 && d < cur.ndim; d++) same = cur.dims[d] == first.dims[d];
    if (!same) {
      char a[120], b[120], fpath[PATHLEN];
      snprintf(fpath, sizeof fpath, "%s[[1]]", path);
      shape_phrase(&first, a, sizeof a);
      shape_phrase(&cur, b, sizeof b);
      snprintf(C->err, C->errsize, "variable '%s': ragged list: %s %s, but %s %s", C->name, fpath, a, cpath, b);
      return AD_EINVALID;
    }
  }
  if (first.ndim + 1 > LD_MAXDIM) return too_deep(C);
  sh->ndim = first.ndim + 1;
  for (int d = 0; d < first.ndim; d++) sh->dims[d + 1] = first.dims[d];
  return AD_OK;
}

/* count values of e from start, as doubles (NA_integer_ becomes NA_real_). */
static void read_region(SEXP e, R_xlen_t start, R_xlen_t count, double *out) {
  if (TYPEOF(e) == REALSXP) {
    REAL_GET_REGION(e, start, count, out);
    return;
  }
  int tmp[CHUNK];
  for (R_xlen_t k = 0; k < count; k += CHUNK) {
    R_xlen_t m = count - k < CHUNK ? count - k : CHUNK;
    if (TYPEOF(e) == INTSXP) INTEGER_GET_REGION(e, start + k, m, tmp);
    else LOGICAL_GET_REGION(e, start + k, m, tmp);
    for (R_xlen_t t = 0; t < m; t++) out[k + t] = tmp[t] == NA_INTEGER ? NA_REAL : (double)tmp[t];
  }
}

/* An R array (column-major, first index fastest) into row-major order:
** walk the source in order, stepping the destination with an odometer. */
static void fill_array(SEXP e, const int *D, int nd, double *dst) {
  R_xlen_t n = XLENGTH(e);
  size_t stride[LD_MAXDIM];
  int idx[LD_MAXDIM] = {0};
  stride[nd - 1] = 1;
  for (int d = nd - 2; d >= 0; d--) stride[d] = stride[d + 1] * (size_t)D[d + 1];
  size_t off = 0;
  double tmp[CHUNK];
  for (R_xlen_t k = 0; k < n; k += CHUNK) {
    R_xlen_t m = n - k < CHUNK ? n - k : CHUNK;
    read_region(e, k, m, tmp);
    for (R_xlen_t t = 0; t < m; t++) {
      dst[off] = tmp[t];
      int d = 0;
      idx[0]++;
      off += stride[0];
      while (d < nd - 1 && idx[d] == D[d]) {
        off -= (size_t)D[d] * stride[d];
        idx[d] = 0;
        d++;
        idx[d]++;
        off += stride[d];
      }
    }
  }
}

/* Copy the n values of e (whose shape was checked) row-major into dst. */
static void fill(SEXP e, size_t n, double *dst) {
  if (n == 0) return;
  if (is_numeric(e)) {
    SEXP dim = getAttrib(e, R_DimSymbol);
    if (isNull(dim) || LENGTH(dim) == 1) read_region(e, 0, XLENGTH(e), dst);
    else fill_array(e, INTEGER(dim), LENGTH(dim), dst);
    return;
  }
  R_xlen_t len = XLENGTH(e);
  if (inherits(e, "data.frame")) {
    size_t nrow = n / (size_t)len;
    double tmp[CHUNK];
    for (R_xlen_t j = 0; j < len; j++) {
      SEXP col = VECTOR_ELT(e, j);
      for (size_t k = 0; k < nrow; k += CHUNK) {
        size_t m = nrow - k < CHUNK ? nrow - k : CHUNK;
        read_region(col, (R_xlen_t)k, (R_xlen_t)m, tmp);
        for (size_t t = 0; t < m; t++) dst[(k + t) * (size_t)len + (size_t)j] = tmp[t];
      }
    }
    return;
  }
  size_t each = n / (size_t)len;
  for (R_xlen_t i = 0; i < len; i++) fill(VECTOR_ELT(e, i), each, dst + (size_t)i * each);
}

static int convert(SEXP e, const char *name, char *err, size_t errsize, ld_value *out) {
  cx C = {name, err, errsize};
  rshape sh;
  int all_int = 1;
  int rc = shape_of(e, 0, 0, &C, name, &sh, &all_int);
  if (rc) return rc;
  size_t n = 1;
  for (int d = 0; d < sh.ndim; d++) {
    if (sh.dims[d] && n > ((size_t)-1) / sizeof(double) / (size_t)sh.dims[d]) {
      snprintf(err, errsize, "variable '%s': too many values", name);
      return AD_EMEMORY;
    }
    n *= (size_t)sh.dims[d];
  }
  double *val = NULL;
  if (n && !(val = malloc(n * sizeof *val))) {
    snprintf(err, errsize, "variable '%s': out of memory", name);
    return AD_EMEMORY;
  }
  fill(e, n, val);
  for (size_t k = 0; k < n; k++) {
    if (!R_IsNA(val[k])) continue;
    char where[PATHLEN];
    if (n == 1 && sh.ndim <= 1) snprintf(where, sizeof where, "%s", name);
    else {
      size_t len = (size_t)snprintf(where, sizeof where, "%s[", name), r = k;
      long idx[LD_MAXDIM];
      for (int d = sh.ndim - 1; d >= 0; d--) {
        idx[d] = (long)(r % (size_t)sh.dims[d]);
        r /= (size_t)sh.dims[d];
      }
      for (int d = 0; d < sh.ndim && len < sizeof where; d++)
        len += (size_t)snprintf(where + len, sizeof where - len, "%s%ld", d ? ", " : "", idx[d] + 1);
      if (len < sizeof where) snprintf(where + len, sizeof where - len, "]");
    }
    snprintf(err, errsize, "variable '%s': %s is NA, but data cannot have missing values", name, where);
    free(val);
    return AD_EINVALID;
  }
  char *nm = malloc(strlen(name) + 1);
  if (!nm) {
    free(val);
    snprintf(err, errsize, "variable '%s': out of memory", name);
    return AD_EMEMORY;
  }
  strcpy(nm, name);
  memset(out, 0, sizeof *out);
  out->name = nm;
  out->ndim = sh.ndim;
  for (int d = 0; d < sh.ndim; d++) out->dims[d] = sh.dims[d];
  out->n = n;
  out->val = val;
  out->all_int = all_int;
  return AD_OK;
}

int rd_from_r(SEXP x, ld_set *out, char *err, size_t errsize) {
  if (TYPEOF(x) != VECSXP) {
    snprintf(err, errsize, "data must be a named list, given %s",
             is_numeric(x) ? "a vector" : what_is(x));
    return AD_EINVALID;
  }
  SEXP names = getAttrib(x, R_NamesSymbol);
  int n0 = out->n, rc = AD_OK;
  R_xlen_t n = XLENGTH(x);
  for (R_xlen_t i = 0; i < n && !rc; i++) {
    SEXP s = isNull(names) ? NA_STRING : STRING_ELT(names, i);
    const char *nm = s == NA_STRING ? "" : CHAR(s);
    if (!*nm) {
      snprintf(err, errsize, "element %ld of the data list has no name", (long)i + 1);
      rc = AD_EINVALID;
    } else if (ld_find(out, nm)) {
      snprintf(err, errsize, "the data list has two elements named '%s'", nm);
      rc = AD_EINVALID;
    } else {
      ld_value v;
      if (!(rc = convert(VECTOR_ELT(x, i), nm, err, errsize, &v)) && (rc = ld_set_add(out, v)))
        snprintf(err, errsize, "variable '%s': out of memory", nm);
    }
  }
  if (rc) ld_set_truncate(out, n0);   /* leave the set as it was given */
  return rc;
}

/* ---- test entries ---- */

static void holder_free(SEXP h) {
  ld_set *s = R_ExternalPtrAddr(h);
  if (!s) return;
  ld_set_free(s);
  free(s);
  R_ClearExternalPtr(h);
}

static void raise_msg(int rc, const char *msg) {
  ad_fail(rc, "%s", msg);
  rc_raise(rc);
}

/* Reads x (a list, or a JSON file's path) into a set owned by the returned
** (protected) external pointer, so an R error later cannot leak it. */
static SEXP read_data(SEXP x, ld_set **set) {
  SEXP h = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizer(h, holder_free);
  const char *path = isString(x) && LENGTH(x) == 1 ? translateChar(STRING_ELT(x, 0)) : NULL;
  ld_set *s = malloc(sizeof *s);
  if (!s) error("out of memory");
  ld_set_init(s);
  R_SetExternalPtrAddr(h, s);
  char err[1024];
  int rc = path ? ld_json_file(path, s, err, sizeof err) : rd_from_r(x, s, err, sizeof err);
  if (rc) {
    holder_free(h);
    raise_msg(rc, err);
  }
  *set = s;
  return h;
}

SEXP tp_data_read(SEXP x) {
  ld_set *s;
  SEXP h = read_data(x, &s);
  int from_json = isString(x);
  SEXP res = PROTECT(allocVector(VECSXP, s->n));
  SEXP names = PROTECT(allocVector(STRSXP, s->n));
  SEXP fields = PROTECT(allocVector(STRSXP, 3));
  SET_STRING_ELT(fields, 0, mkChar("dims"));
  SET_STRING_ELT(fields, 1, mkChar("values"));
  SET_STRING_ELT(fields, 2, mkChar("all_int"));
  for (int i = 0; i < s->n; i++) {
    const ld_value *v = &s->v[i];
    SEXP item = PROTECT(allocVector(VECSXP, 3));
    SEXP dims = allocVector(INTSXP, v->ndim);
    SET_VECTOR_ELT(item, 0, dims);
    for (int d = 0; d < v->ndim; d++) INTEGER(dims)[d] = v->dims[d];
    SEXP vals = allocVector(REALSXP, (R_xlen_t)v->n);
    SET_VECTOR_ELT(item, 1, vals);
    if (v->n) memcpy(REAL(vals), v->val, v->n * sizeof(double));
    SET_VECTOR_ELT(item, 2, ScalarLogical(v->all_int));
    setAttrib(item, R_NamesSymbol, fields);
    SET_VECTOR_ELT(res, i, item);
    SET_STRING_ELT(names, i, mkCharCE(v->name, from_json ? CE_UTF8 : CE_NATIVE));
    UNPROTECT(1);
  }
  setAttrib(res, R_NamesSymbol, names);
  holder_free(h);
  UNPROTECT(4);
  return res;
}

/* A bound from R: one number for every element, or one per element in
** tm.h's storage order (a flat view suffices: the check reads elements by
** position).  A view of R's memory: nothing writes to it. */
static tm_v bound_view(SEXP b) {
  if (XLENGTH(b) == 1) return isInteger(b) ? tm_int_view(INTEGER(b)) : tm_real_view(REAL(b), NULL);
  tm_v out;
  memset(&out, 0, sizeof out);
  out.base = isInteger(b) ? TM_INT : TM_REAL;
  if (isInteger(b)) out.ival = INTEGER(b);
  else out.val = REAL(b);
  out.narr = 1;
  out.dim[0] = LENGTH(b);
  out.rows = out.cols = 1;
  return out;
}

SEXP tp_data_bind(SEXP x, SEXP name, SEXP decl_text, SEXP base, SEXP narr, SEXP dims,
                  SEXP rows, SEXP cols, SEXP lower, SEXP upper) {
  static const char *bases[] = {"int", "real", "vector", "row_vector", "matrix"};
  tm_v shape;
  memset(&shape, 0, sizeof shape);
  int b = -1;
  for (int i = 0; i < 5; i++)
    if (strcmp(CHAR(STRING_ELT(base, 0)), bases[i]) == 0) b = i;
  int na = asInteger(narr);
  if (b < 0) error("unknown base type '%s'", CHAR(STRING_ELT(base, 0)));
  if (na < 0 || na > TM_MAXARR || LENGTH(dims) != na) error("narr must equal length(dims), at most %d", TM_MAXARR);
  shape.base = (unsigned char)b;
  shape.narr = (unsigned char)na;
  for (int i = 0; i < na; i++) shape.dim[i] = INTEGER(dims)[i];
  shape.rows = b <= TM_REAL ? 1 : asInteger(rows);
  shape.cols = b <= TM_REAL ? 1 : asInteger(cols);
  if (b == TM_VECTOR) shape.cols = 1;
  if (b == TM_ROW_VECTOR) shape.rows = 1;
  const char *nm = CHAR(STRING_ELT(name, 0));
  const char *decl = isNull(decl_text) ? NULL : CHAR(STRING_ELT(decl_text, 0));

  ld_set *s;
  SEXP h = read_data(x, &s);
  const ld_value *g = ld_find(s, nm);
  char err[1024];
  if (!g) {
    holder_free(h);
    snprintf(err, sizeof err, "variable '%s' not found in the data", nm);
    raise_msg(AD_EINVALID, err);
  }
  ad_stack_recover(ad_active);
  tm_v out;
  int rc = ld_bind_value(g, nm, decl, &shape, &out, err, sizeof err);
  if (!rc && (!isNull(lower) || !isNull(upper))) {
    tm_v lo, up;
    if (!isNull(lower)) lo = bound_view(lower);
    if (!isNull(upper)) up = bound_view(upper);
    rc = ld_check_bounds(nm, &out, isNull(lower) ? NULL : &lo, isNull(upper) ? NULL : &up, err, sizeof err);
  }
  holder_free(h);
  if (rc) {
    ad_stack_recover(ad_active);
    raise_msg(rc, err);
  }
  SEXP res = PROTECT(rc_to_r(&out));
  ad_stack_recover(ad_active);
  UNPROTECT(2);
  return res;
}
