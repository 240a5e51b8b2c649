/*
** r_model.c -- model objects and data contexts for R (R/model.R, R/context.R).
**
** A program and a context live in C memory that R reaches through external
** pointers.  A context points into its program, and R does not promise the
** order in which it runs the finalizers of two objects that die in the same
** collection, so the program is reference counted: its R object holds one
** reference and every context another, and whichever goes last frees it.
**
** R errors jump out of the C frame, so no entry raises one while it owns
** malloc'd memory: messages are written into local buffers, C memory is
** freed (or owned by an external pointer with a finalizer), then the classed
** condition is signalled by R/internal.R's tapestry_raise() (rc_raise_msg).  Scratch space
** (print() output) comes from R_alloc, which R reclaims even on an error.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>
#include <R.h>
#include <Rinternals.h>
#include "../front/ln.h"
#include "../data/ld.h"
#include "../tree/li.h"
#include "../plan/pl.h"
#include "r_data.h"
#include "r_convert.h"
#include "r_interrupt.h"
#include "r_entries_model.h"
#include "r_model.h"

#define ERRSIZE 4096          /* diagnostics quote a line of the program */
#define PRINTSIZE 65536       /* print() output kept per call; the rest is cut */

typedef struct rm_prog {
  ln_program *p;
  int refs;
} rm_prog;

typedef struct rm_ctx {
  li_ctx *c;
  rm_prog *prog;
} rm_ctx;

static void prog_release(rm_prog *m) {
  if (m && --m->refs == 0) {
    ln_program_free(m->p);
    free(m);
  }
}

static void prog_finalize(SEXP x) {
  rm_prog *m = R_ExternalPtrAddr(x);
  R_ClearExternalPtr(x);
  prog_release(m);
}

static void ctx_finalize(SEXP x) {
  rm_ctx *m = R_ExternalPtrAddr(x);
  R_ClearExternalPtr(x);
  if (!m) return;
  li_ctx_free(m->c);
  prog_release(m->prog);
  free(m);
}

/* The C object behind x, an external pointer tagged `tag`; the message
** not_one when x is no such pointer, gone when its memory is (R saved and
** loaded it). */
static void *object_of(SEXP x, const char *tag, const char *not_one, const char *gone) {
  if (TYPEOF(x) != EXTPTRSXP || R_ExternalPtrTag(x) != install(tag)) rc_raise_msg(not_one, "tapestry_argument_error");
  void *m = R_ExternalPtrAddr(x);
  if (!m) rc_raise_msg(gone, "tapestry_argument_error");
  return m;
}

static rm_prog *prog_of(SEXP x) {
  return object_of(x, "tapestry_program", "not a tapestry program",
                   "the program's memory is gone (was the model saved and loaded again?): "
                   "create it again with tapestry_model()");
}

const li_ctx *rm_ctx_of(SEXP x) {
  const rm_ctx *m = object_of(x, "tapestry_context", "not a tapestry data context",
                              "the context's memory is gone (was it saved and loaded again?): "
                              "bind the data again with $bind()");
  return m->c;
}

/* One buffer for every call: these entries run on R's main thread only, one
** at a time, and a buffer made per call (64 kB) cost more than a small
** model's whole evaluation. */
static char print_space[PRINTSIZE];

static li_print print_buffer(void) {
  li_print pr;
  pr.buf = print_space;
  pr.size = PRINTSIZE;
  pr.len = 0;
  pr.buf[0] = '\0';
  return pr;
}

/* Shows what the program printed, before any error of the same call.  A
** full buffer means the output was cut: say so on a line of its own. */
static void print_flush(const li_print *pr) {
  if (pr->len > 0 && pr->buf[0]) Rprintf("%s", pr->buf);
  if (pr->len + 1 >= pr->size)
    Rprintf("\n[print() output cut after %d bytes]\n", (int)pr->len);
}

static int flag(SEXP x) {
  return asLogical(x) == TRUE;
}

/* Does x still hold C memory?  Not after a save and load of its R object. */
SEXP tp_ptr_ok(SEXP x) {
  return ScalarLogical(TYPEOF(x) == EXTPTRSXP && R_ExternalPtrAddr(x) != NULL);
}

/* ---- the program ---- */

/* Parse and check code; an external pointer to the program, with the
** checker's warnings (deprecations...) as attribute "warnings".
** include_paths: the folders #include searches, in order (a character
** vector, possibly empty). */
SEXP tp_model_new(SEXP code, SEXP filename, SEXP include_paths) {
  const char *src = translateCharUTF8(rc_string_arg(code, "code"));
  const char *fname = translateCharUTF8(rc_string_arg(filename, "filename"));
  if (TYPEOF(include_paths) != STRSXP) rc_raise_msg("include_paths must be a character vector", "tapestry_invalid_argument");
  int npaths = LENGTH(include_paths);
  /* R_alloc: reclaimed by R, also when an error unwinds */
  const char **paths = npaths ? (const char **)R_alloc((size_t)npaths, sizeof *paths) : NULL;
  for (int i = 0; i < npaths; i++) paths[i] = translateCharUTF8(STRING_ELT(include_paths, i));
  SEXP ptr = PROTECT(R_MakeExternalPtr(NULL, install("tapestry_program"), R_NilValue));
  R_RegisterCFinalizerEx(ptr, prog_finalize, TRUE);
  rm_prog *m = malloc(sizeof *m);
  if (!m) rc_raise_msg("out of memory", "tapestry_memory_error");
  char err[ERRSIZE];
  err[0] = '\0';
  ln_program *p = ln_parse_include(fname, src, strlen(src), paths, npaths, err, sizeof err);
  if (!p) {
    free(m);
    rc_raise_msg(*err ? err : "out of memory while parsing", "tapestry_syntax_error");
  }
  err[0] = '\0';
  if (ln_check(p, err, sizeof err) != AD_OK) {
    ln_program_free(p);
    free(m);
    rc_raise_msg(err, "tapestry_semantic_error");
  }
  m->p = p;
  m->refs = 1;
  R_SetExternalPtrAddr(ptr, m);
  setAttrib(ptr, install("warnings"), rc_lines(p->warnings));
  UNPROTECT(1);
  return ptr;
}

/* Number of dimensions as cmdstanr's variables() counts them: array
** dimensions plus one for a vector, two for a matrix. */
static int ndims(ln_type t) {
  int d = t.narr;
  if (t.base == TM_VECTOR || t.base == TM_ROW_VECTOR) d += 1;
  else if (t.base == TM_MATRIX) d += 2;
  else if (t.base == TM_CVECTOR || t.base == TM_CROW_VECTOR) d += 1;
  else if (t.base == TM_CMATRIX) d += 2;
  return d;
}

static SEXP block_vars(const ln_program *p, int blk) {
  const ln_stmt *b = p->block[blk];
  int n = 0;
  if (b)
    for (int i = 0; i < b->nbody; i++)
      if (b->body[i]->kind == LS_DECL && b->body[i]->decl) n++;
  SEXP r = PROTECT(allocVector(VECSXP, n));
  SEXP nm = PROTECT(allocVector(STRSXP, n));
  static const char *const fields[] = {"type", "dimensions", "constraint"};
  int k = 0;
  if (b)
    for (int i = 0; i < b->nbody; i++) {
      const ln_decl *d = b->body[i]->decl;
      if (b->body[i]->kind != LS_DECL || !d || k >= n) continue;
      char buf[128];
      ln_type t = d->type;
      t.data_only = 0;
      SEXP vals[3];
      vals[0] = PROTECT(mkString(ln_type_text(t, buf, sizeof buf)));
      vals[1] = PROTECT(ScalarInteger(ndims(d->type)));
      vals[2] = PROTECT(d->transform ? mkString(d->transform) : ScalarString(NA_STRING));
      SET_VECTOR_ELT(r, k, rc_named_list(3, fields, vals));
      UNPROTECT(3);
      SET_STRING_ELT(nm, k, mkCharCE(d->name, CE_UTF8));
      k++;
    }
  setAttrib(r, R_NamesSymbol, nm);
  UNPROTECT(2);
  return r;
}

/* The program's data, parameters, transformed parameters and generated
** quantities: name -> list(type, dimensions, constraint). */
SEXP tp_model_variables(SEXP prog) {
  const ln_program *p = prog_of(prog)->p;
  static const char *const names[] = {"data", "parameters", "transformed_parameters",
                                      "generated_quantities"};
  static const int blocks[] = {LN_BLK_DATA, LN_BLK_PARAMS, LN_BLK_TPARAMS, LN_BLK_GQ};
  SEXP vals[4];
  for (int i = 0; i < 4; i++) vals[i] = PROTECT(block_vars(p, blocks[i]));
  SEXP r = rc_named_list(4, names, vals);
  UNPROTECT(4);
  return r;
}

/* The program's top-level tuple variables (x may be a program or a data
** context): list(name, block, shape), shape as lt_tuple_vars gives it. */
SEXP tp_tuples(SEXP x) {
  const ln_program *p;
  if (TYPEOF(x) == EXTPTRSXP && R_ExternalPtrTag(x) == install("tapestry_context")) {
    rm_ctx *m = R_ExternalPtrAddr(x);
    if (!m) rc_raise_msg("the context's memory is gone", "tapestry_argument_error");
    p = m->prog->p;
  } else {
    p = prog_of(x)->p;
  }
  int n;
  const ln_tuple_var *t = lt_tuple_vars(p, &n);
  SEXP name = PROTECT(allocVector(STRSXP, n));
  SEXP block = PROTECT(allocVector(STRSXP, n));
  SEXP shape = PROTECT(allocVector(STRSXP, n));
  for (int i = 0; i < n; i++) {
    SET_STRING_ELT(name, i, mkCharCE(t[i].name, CE_UTF8));
    SET_STRING_ELT(block, i, mkChar(ln_block_name(t[i].block)));
    SET_STRING_ELT(shape, i, mkChar(t[i].shape));
  }
  static const char *const fields[] = {"name", "block", "shape"};
  SEXP vals[3] = {name, block, shape};
  SEXP r = rc_named_list(3, fields, vals);
  UNPROTECT(3);
  return r;
}

/* ---- the data context ---- */

/* Reads data given as a named list or as the path of a JSON file. */
static int read_data(SEXP data, ld_set *set, char *err, size_t errsize) {
  if (isString(data)) {
    if (XLENGTH(data) != 1 || STRING_ELT(data, 0) == NA_STRING) {
      snprintf(err, errsize, "data must be a named list or the path of a JSON file");
      return AD_EINVALID;
    }
    return ld_json_file(R_ExpandFileName(translateChar(STRING_ELT(data, 0))), set, err, errsize);
  }
  return rd_from_r(data, set, err, errsize);
}

static uint64_t seed_of(SEXP seed) {
  double s = asReal(seed);
  if (!R_FINITE(s) || s < 0 || s != floor(s) || s > 9007199254740992.0)
    rc_raise_msg("seed must be a non-negative whole number", "tapestry_argument_error");
  return (uint64_t)s;
}

SEXP tp_ctx_new(SEXP prog, SEXP data, SEXP seed) {
  rm_prog *m = prog_of(prog);
  uint64_t s = seed_of(seed);
  li_print pr = print_buffer();
  SEXP ptr = PROTECT(R_MakeExternalPtr(NULL, install("tapestry_context"), prog));
  R_RegisterCFinalizerEx(ptr, ctx_finalize, TRUE);
  char err[ERRSIZE];
  err[0] = '\0';
  ld_set set;
  ld_set_init(&set);
  int rc = read_data(data, &set, err, sizeof err);
  if (rc) {
    ld_set_free(&set);
    rc_raise_msg(err, rc == AD_EMEMORY ? "tapestry_memory_error" : "tapestry_data_error");
  }
  rm_ctx *cm = malloc(sizeof *cm);
  if (!cm) {
    ld_set_free(&set);
    rc_raise_msg("out of memory", "tapestry_memory_error");
  }
  li_ctx *c = NULL;
  /* transformed data run here: Ctrl-C stops them (r_interrupt.h) */
  ri_begin();
  rc = li_ctx_new(m->p, &set, s, &c, &pr, err, sizeof err);
  int interrupted = ri_end();
  ld_set_free(&set);
  ad_stack_recover(ad_active);
  print_flush(&pr);
  if (rc || interrupted) {
    if (c) li_ctx_free(c);
    free(cm);
    if (interrupted) ri_raise("Binding the data (transformed data)");
    rc_raise_msg(err, rc == AD_EMEMORY ? "tapestry_memory_error" : "tapestry_data_error");
  }
  cm->c = c;
  cm->prog = m;
  m->refs++;
  R_SetExternalPtrAddr(ptr, cm);
  UNPROTECT(1);
  return ptr;
}

static void check_upars(const li_ctx *c, SEXP upars) {
  if (!isReal(upars))
    rc_raise_msg("upars must be a numeric vector", "tapestry_argument_error");
  size_t n = li_num_upars(c);
  if ((size_t)XLENGTH(upars) != n) {
    char msg[200];
    snprintf(msg, sizeof msg, "upars has length %ld, but the model has %lu unconstrained parameters",
             (long)XLENGTH(upars), (unsigned long)n);
    rc_raise_msg(msg, "tapestry_argument_error");
  }
}

/* The log density at upars; with grad, the gradient as attribute
** "gradient". */
SEXP tp_log_prob(SEXP ctx, SEXP upars, SEXP jacobian, SEXP grad) {
  const li_ctx *c = rm_ctx_of(ctx);
  check_upars(c, upars);
  int want_grad = flag(grad);
  size_t n = li_num_upars(c);
  li_print pr = print_buffer();
  SEXP g = PROTECT(want_grad ? allocVector(REALSXP, (R_xlen_t)n) : R_NilValue);
  char err[ERRSIZE];
  err[0] = '\0';
  double lp = 0, dummy = 0;
  int rc = rm_log_prob_collective(c, n ? REAL(upars) : &dummy, flag(jacobian), &lp,
                                  want_grad ? (n ? REAL(g) : &dummy) : NULL, &pr, err, sizeof err);
  ad_stack_recover(ad_active);
  print_flush(&pr);
  if (rc == AD_EINTERRUPT) ri_raise("The log density evaluation");
  if (rc) rc_raise_msg(err, rc_status_class(rc));
  SEXP r = PROTECT(ScalarReal(lp));
  if (want_grad) setAttrib(r, install("gradient"), g);
  UNPROTECT(2);
  return r;
}

/* The gradient at upars with the log density as attribute "log_prob", as
** $grad_log_prob() returns it (one call: this is in every benchmark loop). */
/* $grad_log_prob()'s common case in one call: a live context, a plain
** double vector of the right length and TRUE or FALSE; R_NilValue when
** anything else (the R method then checks and says what is wrong). */
SEXP tp_grad_fast(SEXP ctx, SEXP upars, SEXP jacobian) {
  if (TYPEOF(ctx) != EXTPTRSXP || R_ExternalPtrAddr(ctx) == NULL) return R_NilValue;
  if (TYPEOF(upars) != REALSXP || ATTRIB(upars) != R_NilValue) return R_NilValue;
  if (TYPEOF(jacobian) != LGLSXP || XLENGTH(jacobian) != 1 || LOGICAL(jacobian)[0] == NA_LOGICAL) return R_NilValue;
  if ((size_t)XLENGTH(upars) != li_num_upars(rm_ctx_of(ctx))) return R_NilValue;
  return tp_grad_log_prob(ctx, upars, jacobian);
}

SEXP tp_grad_log_prob(SEXP ctx, SEXP upars, SEXP jacobian) {
  const li_ctx *c = rm_ctx_of(ctx);
  check_upars(c, upars);
  size_t n = li_num_upars(c);
  li_print pr = print_buffer();
  SEXP g = PROTECT(allocVector(REALSXP, (R_xlen_t)n));
  char err[ERRSIZE];
  err[0] = '\0';
  double lp = 0, dummy = 0;
  int rc = rm_log_prob_collective(c, n ? REAL(upars) : &dummy, flag(jacobian), &lp, n ? REAL(g) : &dummy,
                                  &pr, err, sizeof err);
  ad_stack_recover(ad_active);
  print_flush(&pr);
  if (rc == AD_EINTERRUPT) ri_raise("The gradient evaluation");
  if (rc) rc_raise_msg(err, rc_status_class(rc));
  static SEXP sym = NULL;
  if (!sym) sym = install("log_prob");
  setAttrib(g, sym, ScalarReal(lp));
  UNPROTECT(1);
  return g;
}

/* ---- constrained values ---- */

static int wanted(const li_var *v, int tparams, int gqs) {
  return v->block == LN_BLK_PARAMS || (tparams && v->block == LN_BLK_TPARAMS) ||
         (gqs && v->block == LN_BLK_GQ);
}

/* The R dimensions of a variable's value: array sizes, then rows of a
** vector, columns of a row vector, rows and columns of a matrix.  Stan's
** output order (first index fastest) is R's array order, so the flat values
** need no reordering. */
static int r_dims(const tm_v *shape, int *dims) {
  int nd = 0;
  for (int i = 0; i < shape->narr; i++) dims[nd++] = shape->dim[i];
  switch (shape->base) {
  case TM_VECTOR: dims[nd++] = shape->rows; break;
  case TM_ROW_VECTOR: dims[nd++] = shape->cols; break;
  case TM_MATRIX: dims[nd++] = shape->rows; dims[nd++] = shape->cols; break;
  case TM_CVECTOR: dims[nd++] = shape->rows; break;
  case TM_CROW_VECTOR: dims[nd++] = shape->cols; break;
  case TM_CMATRIX: dims[nd++] = shape->rows; dims[nd++] = shape->cols; break;
  default: break;
  }
  return nd;
}

static SEXP var_to_r(const li_var *v, const double *x) {
  SEXP r;
  R_xlen_t n = (R_xlen_t)v->numel;
  if (tm_is_complex(&v->shape)) {
    /* the output's (re, im) pairs as an R complex */
    r = PROTECT(allocVector(CPLXSXP, n / 2));
    for (R_xlen_t i = 0; i < n / 2; i++) { COMPLEX(r)[i].r = x[2 * i]; COMPLEX(r)[i].i = x[2 * i + 1]; }
  } else if (v->shape.base == TM_INT) {
    r = PROTECT(allocVector(INTSXP, n));
    int *iv = INTEGER(r);
    for (R_xlen_t i = 0; i < n; i++)
      iv[i] = (R_FINITE(x[i]) && fabs(x[i]) <= INT_MAX) ? (int)x[i] : NA_INTEGER;
  } else {
    r = PROTECT(allocVector(REALSXP, n));
    if (n) memcpy(REAL(r), x, (size_t)n * sizeof(double));
  }
  int dims[TM_MAXARR + 2];
  int nd = r_dims(&v->shape, dims);
  if (nd >= 2) {
    SEXP d = PROTECT(allocVector(INTSXP, nd));
    memcpy(INTEGER(d), dims, (size_t)nd * sizeof(int));
    setAttrib(r, R_DimSymbol, d);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return r;
}

/* Constrained parameters, and when asked transformed parameters and
** generated quantities (drawn with the generator seeded (seed, 1)), as a
** named list of R values of their declared shapes. */
SEXP tp_write_array(SEXP ctx, SEXP upars, SEXP tparams, SEXP gqs, SEXP seed) {
  const li_ctx *c = rm_ctx_of(ctx);
  check_upars(c, upars);
  int tp = flag(tparams), gq = flag(gqs);
  tm_rng rng;
  tm_rng_seed(&rng, seed_of(seed), 1);
  size_t total = li_num_outputs(c, tp, gq);
  li_print pr = print_buffer();
  SEXP flat = PROTECT(allocVector(REALSXP, (R_xlen_t)total));
  char err[ERRSIZE];
  err[0] = '\0';
  double dummy = 0;
  ri_begin();
  int rc = li_write_array(c, XLENGTH(upars) ? REAL(upars) : &dummy, tp, gq, &rng,
                          total ? REAL(flat) : &dummy, &pr, err, sizeof err);
  int interrupted = ri_end();
  ad_stack_recover(ad_active);
  print_flush(&pr);
  if (interrupted) ri_raise("Computing the constrained values");
  if (rc) rc_raise_msg(err, rc_status_class(rc));
  int nv = li_num_vars(c), n = 0;
  for (int i = 0; i < nv; i++) n += wanted(li_var_at(c, i), tp, gq);
  SEXP r = PROTECT(allocVector(VECSXP, n));
  SEXP nm = PROTECT(allocVector(STRSXP, n));
  size_t pos = 0;
  for (int i = 0, k = 0; i < nv; i++) {
    const li_var *v = li_var_at(c, i);
    if (!wanted(v, tp, gq)) continue;
    if (pos + v->numel > total) rc_raise_msg("internal error: output sizes disagree", "tapestry_error");
    SET_VECTOR_ELT(r, k, var_to_r(v, REAL(flat) + pos));
    SET_STRING_ELT(nm, k, mkCharCE(v->name, CE_UTF8));
    pos += v->numel;
    k++;
  }
  setAttrib(r, R_NamesSymbol, nm);
  UNPROTECT(3);
  return r;
}

/* The unconstrained vector of parameter values given as a named list or
** the path of a JSON file (inits).  Elements that are not parameters are
** ignored, as CmdStan ignores them in init files.  With partial, parameters
** may be missing: the result has the logical attribute "given" marking the
** elements filled (the rest are 0, for the sampler to draw). */
SEXP tp_unconstrain(SEXP ctx, SEXP vals, SEXP partial) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t n = li_num_upars(c);
  int part = flag(partial);
  SEXP r = PROTECT(allocVector(REALSXP, (R_xlen_t)n));
  unsigned char *given = part ? (unsigned char *)R_alloc(n ? n : 1, 1) : NULL;
  char err[ERRSIZE];
  err[0] = '\0';
  ld_set set;
  ld_set_init(&set);
  int rc = read_data(vals, &set, err, sizeof err);
  if (rc == AD_OK) {
    double dummy = 0;
    rc = li_unconstrain(c, &set, n ? REAL(r) : &dummy, given, err, sizeof err);
  } else if (!strncmp(err, "variable '", 10) && strlen(err) + 1 < sizeof err) {
    /* the reader speaks of data variables; these values are parameters */
    memmove(err + 9, err + 8, strlen(err + 8) + 1);
    memcpy(err, "parameter", 9);
  }
  ld_set_free(&set);
  ad_stack_recover(ad_active);
  if (rc) rc_raise_msg(err, rc == AD_EMEMORY ? "tapestry_memory_error" : "tapestry_data_error");
  if (part) {
    SEXP g = PROTECT(allocVector(LGLSXP, (R_xlen_t)n));
    for (size_t i = 0; i < n; i++) LOGICAL(g)[i] = given[i] != 0;
    setAttrib(r, install("given"), g);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return r;
}

SEXP tp_num_upars(SEXP ctx) {
  size_t n = li_num_upars(rm_ctx_of(ctx));
  return n <= INT_MAX ? ScalarInteger((int)n) : ScalarReal((double)n);
}

/* Element names: of the unconstrained vector (free), or of the output. */
static SEXP elem_names(const li_ctx *c, int free_, int tp, int gq) {
  int nv = li_num_vars(c);
  size_t n = 0;
  for (int i = 0; i < nv; i++) {
    const li_var *v = li_var_at(c, i);
    if (free_ ? v->block == LN_BLK_PARAMS : wanted(v, tp, gq)) n += free_ ? v->nfree : v->numel;
  }
  SEXP r = PROTECT(allocVector(STRSXP, (R_xlen_t)n));
  R_xlen_t k = 0;
  char buf[512];
  for (int i = 0; i < nv; i++) {
    const li_var *v = li_var_at(c, i);
    if (!(free_ ? v->block == LN_BLK_PARAMS : wanted(v, tp, gq))) continue;
    size_t m = free_ ? v->nfree : v->numel;
    for (size_t j = 0; j < m && k < (R_xlen_t)n; j++) {
      buf[0] = '\0';
      li_elem_name(v, j, free_, buf, sizeof buf);
      SET_STRING_ELT(r, k++, mkCharCE(buf, CE_UTF8));
    }
  }
  UNPROTECT(1);
  return r;
}

SEXP tp_upar_names(SEXP ctx) {
  return elem_names(rm_ctx_of(ctx), 1, 0, 0);
}

SEXP tp_output_names(SEXP ctx, SEXP tparams, SEXP gqs) {
  return elem_names(rm_ctx_of(ctx), 0, flag(tparams), flag(gqs));
}

/* The output variables with their sizes, for print() and argument checks:
** list(name, block, type, constraint, dims (list of integer vectors),
** nfree). */
SEXP tp_ctx_vars(SEXP ctx) {
  const li_ctx *c = rm_ctx_of(ctx);
  int nv = li_num_vars(c);
  SEXP name = PROTECT(allocVector(STRSXP, nv));
  SEXP block = PROTECT(allocVector(STRSXP, nv));
  SEXP type = PROTECT(allocVector(STRSXP, nv));
  SEXP dims = PROTECT(allocVector(VECSXP, nv));
  SEXP nfree = PROTECT(allocVector(REALSXP, nv));
  SEXP cons = PROTECT(allocVector(STRSXP, nv));
  for (int i = 0; i < nv; i++) {
    const li_var *v = li_var_at(c, i);
    char buf[128];
    ln_type t = {v->shape.base, v->shape.narr, 0};
    if (v->decl) t = v->decl->type, t.data_only = 0;
    SET_STRING_ELT(name, i, mkCharCE(v->name, CE_UTF8));
    SET_STRING_ELT(block, i, mkChar(ln_block_name(v->block)));
    SET_STRING_ELT(type, i, mkChar(ln_type_text(t, buf, sizeof buf)));
    SET_STRING_ELT(cons, i, v->decl && v->decl->transform ? mkChar(v->decl->transform) : NA_STRING);
    int d[TM_MAXARR + 2];
    int nd = r_dims(&v->shape, d);
    SEXP dv = allocVector(INTSXP, nd);
    SET_VECTOR_ELT(dims, i, dv);
    if (nd) memcpy(INTEGER(dv), d, (size_t)nd * sizeof(int));
    REAL(nfree)[i] = v->block == LN_BLK_PARAMS ? (double)v->nfree : 0;
  }
  static const char *const fields[] = {"name", "block", "type", "constraint", "dims", "nfree"};
  SEXP vals[6] = {name, block, type, cons, dims, nfree};
  SEXP r = rc_named_list(6, fields, vals);
  UNPROTECT(6);
  return r;
}
