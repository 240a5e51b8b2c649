/*
** r_transform.c -- the test entry point of the constraint transforms.
**
** tp_transform(name, x, params, shape, ad, direction) with direction
**   "size"       the number of unconstrained values of the declared shape
**   "constrain"  x (unconstrained, numeric) -> value, log |J|, the Jacobian of
**                c(value, lp) in x and each autodiff parameter, node counts
**   "value"      as constrain without asking for log |J|
**   "free"       x (a constrained R value of the shape) -> unconstrained
** shape is a Stan type with sizes: "real", "vector[3]", "matrix[3,2]",
** "array[2] vector[3]".  params is a list; attr(params, "types") gives the
** Stan type of each.  ad: logicals for x then each parameter.
*/
#include <string.h>
#include <stdlib.h>
#include <R.h>
#include <Rinternals.h>
#include "r_convert.h"
#include "r_entries.h"
#include "../math/tm_transform.h"

#define MAXP 4

static const char *skip(const char *p) { while (*p == ' ') p++; return p; }

/* "[a,b]" -> up to max ints; returns the end or NULL. */
static const char *ints(const char *p, int *out, int max, int *n) {
  if (*p != '[') return NULL;
  p++;
  *n = 0;
  for (;;) {
    char *end;
    long v = strtol(skip(p), &end, 10);
    if (end == skip(p) || *n >= max || v < 0) return NULL;
    out[(*n)++] = (int)v;
    p = skip(end);
    if (*p == ']') return p + 1;
    if (*p != ',') return NULL;
    p++;
  }
}

static void parse_shape(const char *s, tm_v *shape) {
  memset(shape, 0, sizeof *shape);
  shape->rows = shape->cols = 1;
  const char *p = skip(s);
  int n;
  if (strncmp(p, "array", 5) == 0) {
    p = ints(p + 5, shape->dim, TM_MAXARR, &n);
    if (!p) error("bad array dimensions in shape '%s'", s);
    shape->narr = (unsigned char)n;
    p = skip(p);
  }
  int d[2];
  if (strcmp(p, "real") == 0) { shape->base = TM_REAL; return; }
  if (strncmp(p, "row_vector", 10) == 0) {
    if (!(p = ints(p + 10, d, 1, &n)) || *p) error("bad shape '%s'", s);
    shape->base = TM_ROW_VECTOR; shape->cols = d[0]; return;
  }
  if (strncmp(p, "vector", 6) == 0) {
    if (!(p = ints(p + 6, d, 1, &n)) || *p) error("bad shape '%s'", s);
    shape->base = TM_VECTOR; shape->rows = d[0]; return;
  }
  if (strncmp(p, "matrix", 6) == 0) {
    if (!(p = ints(p + 6, d, 2, &n)) || n != 2 || *p) error("bad shape '%s'", s);
    shape->base = TM_MATRIX; shape->rows = d[0]; shape->cols = d[1]; return;
  }
  error("bad shape '%s'", s);
}

/* "array[,] vector" for rc_from_r */
static void type_of(const tm_v *shape, char *buf, size_t size) {
  static const char *names[] = {"int", "real", "vector", "row_vector", "matrix"};
  char commas[TM_MAXARR + 1];
  int k = 0;
  for (int i = 1; i < shape->narr; i++) commas[k++] = ',';
  commas[k] = '\0';
  if (shape->narr) snprintf(buf, size, "array[%s] %s", commas, names[shape->base]);
  else snprintf(buf, size, "%s", names[shape->base]);
}

typedef struct {
  const tm_transform *t;
  SEXP x, params, ptypes;
  int ad[1 + MAXP], nparams, want_lp;
  tm_v shape, xv, p[MAXP], y, lp;
} setup;

/* Build the inputs on a fresh tape and constrain. */
static int run(setup *s) {
  ad_stack_recover(ad_active);
  ad_clear_error();
  int rc = rc_from_r(s->x, "vector", s->ad[0], "x", &s->xv);
  for (int k = 0; !rc && k < s->nparams; k++) {
    char nm[16];
    snprintf(nm, sizeof nm, "param %d", k + 1);
    rc = rc_from_r(VECTOR_ELT(s->params, k), CHAR(STRING_ELT(s->ptypes, k)), s->ad[1 + k], nm, &s->p[k]);
  }
  if (rc) return rc;
  s->y = s->shape;
  return tm_transform_constrain(s->t, &s->xv, s->nparams ? s->p : NULL, &s->y, s->want_lp ? &s->lp : NULL);
}

static void fail(int rc) {
  ad_stack_recover(ad_active);
  rc_raise(rc);
}

static SEXP constrain(setup *s) {
  int rc = run(s);
  if (rc) fail(rc);
  SEXP value = PROTECT(rc_to_r(&s->y));
  SEXP lp = PROTECT(s->want_lp ? ScalarReal(s->lp.val[0]) : ScalarReal(NA_REAL));
  SEXP counts = PROTECT(allocVector(REALSXP, 2));
  REAL(counts)[0] = (double)ad_active->nchain;
  REAL(counts)[1] = (double)ad_active->nnochain;
  /* Jacobian of c(value, lp): one sweep per row, recording afresh each time */
  int nin = 1 + s->nparams;
  SEXP jac = PROTECT(allocVector(VECSXP, nin));
  size_t ny = tm_numel(&s->y), nout = ny + (s->want_lp ? 1 : 0);
  int any = 0;
  for (int i = 0; i < nin; i++) {
    const tm_v *in = i == 0 ? &s->xv : &s->p[i - 1];
    if (s->ad[i] && in->adj) {
      SET_VECTOR_ELT(jac, i, allocMatrix(REALSXP, (int)nout, (int)tm_numel(in)));
      memset(REAL(VECTOR_ELT(jac, i)), 0, sizeof(double) * nout * tm_numel(in));
      any = 1;
    }
  }
  for (size_t k = 0; any && k < nout; k++) {
    if (k > 0 && (rc = run(s))) fail(rc);
    double *seed = k < ny ? (s->y.adj ? s->y.adj + k : NULL) : s->lp.adj;
    if (!seed) continue;   /* a value that depends on no autodiff input */
    *seed = 1.0;
    ad_sweep(ad_active);
    for (int i = 0; i < nin; i++) {
      SEXP J = VECTOR_ELT(jac, i);
      if (isNull(J)) continue;
      const tm_v *in = i == 0 ? &s->xv : &s->p[i - 1];
      size_t m = tm_numel(in);
      for (size_t j = 0; j < m; j++) REAL(J)[k + j * nout] = in->adj[j];
    }
  }
  ad_stack_recover(ad_active);
  static const char *const names[] = {"value", "lp", "jacobian", "nodes"};
  SEXP vals[] = {value, lp, jac, counts};
  SEXP res = rc_named_list(4, names, vals);
  UNPROTECT(4);
  return res;
}

SEXP tp_transform(SEXP name, SEXP x, SEXP params, SEXP shape, SEXP ad, SEXP direction) {
  setup s;
  memset(&s, 0, sizeof s);
  s.t = tm_transform_find(CHAR(STRING_ELT(name, 0)));
  if (!s.t) error("no transform '%s'", CHAR(STRING_ELT(name, 0)));
  parse_shape(CHAR(STRING_ELT(shape, 0)), &s.shape);
  const char *dir = CHAR(STRING_ELT(direction, 0));
  s.x = x;
  s.params = params;
  s.nparams = LENGTH(params);
  if (s.nparams > MAXP) error("at most %d parameters", MAXP);
  if (s.nparams != s.t->nparams)
    error("transform '%s' takes %d parameters, got %d", s.t->name, s.t->nparams, s.nparams);
  s.ptypes = getAttrib(params, install("types"));
  if (s.nparams && (isNull(s.ptypes) || LENGTH(s.ptypes) != s.nparams)) error("params need a 'types' attribute");
  if (LENGTH(ad) != 1 + s.nparams) error("ad must have one element for x and one per parameter");
  for (int i = 0; i <= s.nparams; i++) s.ad[i] = LOGICAL(ad)[i] == TRUE;

  if (strcmp(dir, "size") == 0) {
    size_t n;
    int rc = tm_transform_size(s.t, &s.shape, &n);
    if (rc) fail(rc);
    return ScalarReal((double)n);
  }
  if (strcmp(dir, "constrain") == 0 || strcmp(dir, "value") == 0) {
    s.want_lp = strcmp(dir, "constrain") == 0;
    return constrain(&s);
  }
  if (strcmp(dir, "free") == 0) {
    ad_stack_recover(ad_active);
    ad_clear_error();
    char ty[64];
    type_of(&s.shape, ty, sizeof ty);
    tm_v y, out;
    int rc = rc_from_r(x, ty, 0, "y", &y);
    for (int k = 0; !rc && k < s.nparams; k++)
      rc = rc_from_r(VECTOR_ELT(params, k), CHAR(STRING_ELT(s.ptypes, k)), 0, "param", &s.p[k]);
    if (!rc) rc = tm_transform_free(s.t, &y, s.nparams ? s.p : NULL, &out);
    if (rc) fail(rc);
    SEXP res = PROTECT(allocVector(REALSXP, (R_xlen_t)tm_numel(&out)));
    if (tm_numel(&out)) memcpy(REAL(res), out.val, sizeof(double) * tm_numel(&out));
    ad_stack_recover(ad_active);
    UNPROTECT(1);
    return res;
  }
  error("direction must be one of size, constrain, value, free");
  return R_NilValue;
}
