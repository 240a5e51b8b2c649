/*
** tm_value.c -- making, viewing and describing tm_v values.
*/
#include <stdio.h>
#include <string.h>
#include "../tm.h"

static tm_v blank(int base) {
  tm_v v;
  memset(&v, 0, sizeof v);
  v.base = (unsigned char)base;
  v.rows = v.cols = 1;
  return v;
}

tm_v tm_int_view(int *p) { tm_v v = blank(TM_INT); v.ival = p; return v; }
tm_v tm_real_view(double *val, double *adj) { tm_v v = blank(TM_REAL); v.val = val; v.adj = adj; return v; }
tm_v tm_vector_view(double *val, double *adj, int n) {
  tm_v v = blank(TM_VECTOR); v.val = val; v.adj = adj; v.rows = n; return v;
}
tm_v tm_row_vector_view(double *val, double *adj, int n) {
  tm_v v = blank(TM_ROW_VECTOR); v.val = val; v.adj = adj; v.cols = n; return v;
}

tm_v tm_elem(const tm_v *v, int i) {
  tm_v e = *v;
  e.narr = (unsigned char)(v->narr - 1);
  memmove(e.dim, v->dim + 1, sizeof(int) * (TM_MAXARR - 1));
  e.dim[TM_MAXARR - 1] = 0;
  size_t stride = tm_numel(&e), vstride = tm_nval(&e);
  if (e.val) e.val += (size_t)i * vstride;
  if (e.adj) e.adj += (size_t)i * vstride;
  if (e.ival) e.ival += (size_t)i * stride;
  return e;
}

static int new_real_shape(tm_v *out, int base, int rows, int cols, int ad) {
  *out = blank(base);
  out->rows = rows;
  out->cols = cols;
  size_t n = (size_t)rows * (size_t)cols;
  out->val = ad_alloc_doubles(n ? n : 1);
  if (!out->val) return AD_EMEMORY;
  if (ad && !(out->adj = ad_alloc_zeros(n ? n : 1))) return AD_EMEMORY;
  return AD_OK;
}

int tm_new_real(tm_v *out, int ad) { return new_real_shape(out, TM_REAL, 1, 1, ad); }
int tm_new_vector(tm_v *out, int n, int ad) { return new_real_shape(out, TM_VECTOR, n, 1, ad); }
int tm_new_row_vector(tm_v *out, int n, int ad) { return new_real_shape(out, TM_ROW_VECTOR, 1, n, ad); }
int tm_new_matrix(tm_v *out, int rows, int cols, int ad) {
  return new_real_shape(out, TM_MATRIX, rows, cols, ad);
}

int tm_new_int(tm_v *out) {
  *out = blank(TM_INT);
  out->ival = ad_alloc(sizeof(int));
  return out->ival ? AD_OK : AD_EMEMORY;
}

int tm_new_int_array(tm_v *out, int n) {
  *out = blank(TM_INT);
  out->narr = 1;
  out->dim[0] = n;
  out->ival = ad_alloc((size_t)(n ? n : 1) * sizeof(int));
  return out->ival ? AD_OK : AD_EMEMORY;
}

int tm_new_like(tm_v *out, const tm_v *shape, int ad) {
  *out = blank(shape->base == TM_INT ? TM_REAL : shape->base);
  out->rows = shape->rows;
  out->cols = shape->cols;
  out->narr = shape->narr;
  memcpy(out->dim, shape->dim, sizeof out->dim);
  size_t n = tm_nval(out);
  out->val = ad_alloc_doubles(n ? n : 1);
  if (!out->val) return AD_EMEMORY;
  if (ad && !(out->adj = ad_alloc_zeros(n ? n : 1))) return AD_EMEMORY;
  return AD_OK;
}

int tm_set_real(tm_v *out, double x) {
  int rc = tm_new_real(out, 0);
  if (rc == AD_OK) out->val[0] = x;
  return rc;
}

int tm_set_var(tm_v *out, ad_var x) {
  *out = blank(TM_REAL);
  out->val = x.val;
  /* gcc's vectorizer joins the two stores into one of 16 bytes, loaded
  ** from a spill of x: a failed store-forward that cost 2% of a small
  ** model's gradient.  An empty asm statement keeps them apart. */
#if defined(__GNUC__)
  __asm__("");
#endif
  out->adj = x.adj;
  return AD_OK;
}

int tm_set_int(tm_v *out, int x) {
  int rc = tm_new_int(out);
  if (rc == AD_OK) out->ival[0] = x;
  return rc;
}

int tm_any_ad(const tm_v *a, int n) {
  for (int i = 0; i < n; i++) if (a[i].adj) return 1;
  return 0;
}

double *tm_copy_vals(const tm_v *v) {
  size_t n = tm_nval(v);
  double *p = ad_alloc_doubles(n ? n : 1);
  if (!p) return NULL;
  if (v->base == TM_INT) for (size_t i = 0; i < n; i++) p[i] = (double)v->ival[i];
  else if (n) memcpy(p, v->val, n * sizeof *p);
  return p;
}

int tm_any_dep(const tm_v *a, int n) {
  for (int i = 0; i < n; i++) if (a[i].dep || a[i].adj) return 1;
  return 0;
}

int tm_set_operands(tm_v *out, int k, const ad_operand *ops, double x, int dep) {
  if (k == 0) {
    int rc = tm_set_real(out, x);
    out->dep = (unsigned char)dep;
    return rc;
  }
  ad_var r;
  int rc = ad_operands_node(k, ops, x, &r);
  return rc ? rc : tm_set_var(out, r);
}

int tm_set_partials(tm_v *out, const tm_v *a, double *const *d, int nargs, double x) {
  ad_operand ops[TM_DENS_MAXARGS];
  int k = 0, dep = 0;
  if (nargs > TM_DENS_MAXARGS)
    return ad_fail(AD_EFATAL, "internal error: %d operands, at most %d", nargs, TM_DENS_MAXARGS);
  for (int i = 0; i < nargs; i++) {
    dep |= a[i].dep;
    if (!a[i].adj) continue;
    ops[k++] = (ad_operand){a[i].adj, d[i], tm_nval(&a[i])};
  }
  return tm_set_operands(out, k, ops, x, dep);
}

double *tm_new_partials(const tm_v *v, int *rc) {
  if (!v->adj) return NULL;
  size_t n = tm_nval(v);
  double *p = ad_alloc_zeros(n ? n : 1);
  if (!p) *rc = AD_EMEMORY;
  return p;
}

const char *tm_type_name(const tm_v *v, char *buf, size_t size) {
  static const char *names[] = {"int", "real", "vector", "row_vector", "matrix",
                                "complex", "complex_vector", "complex_row_vector", "complex_matrix"};
  const char *b = v->base <= TM_CMATRIX ? names[v->base] : "?";
  if (v->narr == 0) snprintf(buf, size, "%s", b);
  else {
    char commas[TM_MAXARR + 1];
    int k = 0;
    for (int i = 1; i < v->narr; i++) commas[k++] = ',';
    commas[k] = '\0';
    snprintf(buf, size, "array[%s] %s", commas, b);
  }
  return buf;
}
