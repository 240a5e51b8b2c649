/*
** r_math.c -- internal entry points that call the math library from R.
**
** These serve the tests and benchmarks; they are not the user API.  Every
** call records on the main thread's stack and recovers it before returning,
** so R's memory never points into the arena.
*/
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "r_convert.h"
#include "../math/tm_simd.h"
#include "../front/ln.h"
#include "../front/lc.h"

#define MAXARGS 16

typedef struct {
  const tm_fn *fn;
  int nargs, propto;
  SEXP args, types, ad;
  tm_v a[MAXARGS];
  tm_rng rng;
} call_setup;

static const tm_fn *find(SEXP name) {
  int count;
  const tm_fn *f = tm_lookup(CHAR(STRING_ELT(name, 0)), &count);
  if (!f) error("no function '%s' in the math library", CHAR(STRING_ELT(name, 0)));
  return f;
}

/* Build the arguments on a fresh tape and call the kernel. */
static int run(call_setup *cs, tm_v *out) {
  ad_stack_recover(ad_active);
  for (int i = 0; i < cs->nargs; i++) {
    char argname[32];
    snprintf(argname, sizeof argname, "%d", i + 1);
    int rc = rc_from_r(VECTOR_ELT(cs->args, i), CHAR(STRING_ELT(cs->types, i)),
                       LOGICAL(cs->ad)[i], argname, &cs->a[i]);
    if (rc) return rc;
  }
  ad_clear_error();
  /* a name with several table entries: the one whose signature the checker picks */
  int count = 0;
  const tm_fn *first = tm_lookup(cs->fn->name, &count), *fn = cs->fn;
  if (first && count > 1) {
    ln_type t[MAXARGS], ret;
    for (int i = 0; i < cs->nargs; i++) t[i] = lc_mk(cs->a[i].base, cs->a[i].narr);
    const lc_sig *s = lc_lib_resolve(cs->fn->name, t, cs->nargs, &ret);
    if (s && s->fn) fn = s->fn;
  }
  return tm_invoke(fn, cs->propto, &cs->rng, cs->a, cs->nargs, out);
}

static void setup(call_setup *cs, SEXP name, SEXP args, SEXP types, SEXP ad, SEXP propto, SEXP seed) {
  cs->fn = find(name);
  cs->nargs = LENGTH(args);
  if (cs->nargs > MAXARGS || LENGTH(types) != cs->nargs || LENGTH(ad) != cs->nargs)
    error("args, types and ad must have the same length (at most %d)", MAXARGS);
  cs->args = args;
  cs->types = types;
  cs->ad = ad;
  cs->propto = asLogical(propto);
  tm_rng_seed(&cs->rng, (uint64_t)asReal(seed), 1);
}

/* value, the Jacobian of every autodiff argument (rows: output elements),
** and the node counts of one evaluation. */
SEXP tp_call(SEXP name, SEXP args, SEXP types, SEXP ad, SEXP propto, SEXP seed) {
  call_setup cs;
  setup(&cs, name, args, types, ad, propto, seed);
  tm_v out;
  int rc = run(&cs, &out);
  if (rc) { ad_stack_recover(ad_active); rc_raise(rc); }
  SEXP value = PROTECT(rc_to_r(&out));
  SEXP counts = PROTECT(allocVector(REALSXP, 2));
  REAL(counts)[0] = (double)ad_active->nchain;
  REAL(counts)[1] = (double)ad_active->nnochain;
  SEXP jac = PROTECT(allocVector(VECSXP, cs.nargs));
  if (out.adj) {
    size_t nout = tm_numel(&out);
    for (int i = 0; i < cs.nargs; i++)
      if (LOGICAL(ad)[i] && cs.a[i].adj)
        SET_VECTOR_ELT(jac, i, allocMatrix(REALSXP, (int)nout, (int)tm_numel(&cs.a[i])));
    for (size_t k = 0; k < nout; k++) {
      /* Record afresh for each output: one sweep per row of the Jacobian. */
      if (k > 0 && (rc = run(&cs, &out))) { ad_stack_recover(ad_active); rc_raise(rc); }
      out.adj[k] = 1.0;
      ad_sweep(ad_active);
      for (int i = 0; i < cs.nargs; i++) {
        SEXP J = VECTOR_ELT(jac, i);
        if (isNull(J)) continue;
        size_t m = tm_numel(&cs.a[i]);
        for (size_t j = 0; j < m; j++) REAL(J)[k + j * nout] = cs.a[i].adj[j];
      }
    }
  }
  ad_stack_recover(ad_active);
  SEXP res = PROTECT(allocVector(VECSXP, 3));
  SET_VECTOR_ELT(res, 0, value);
  SET_VECTOR_ELT(res, 1, jac);
  SET_VECTOR_ELT(res, 2, counts);
  SEXP nm = PROTECT(allocVector(STRSXP, 3));
  SET_STRING_ELT(nm, 0, mkChar("value"));
  SET_STRING_ELT(nm, 1, mkChar("jacobian"));
  SET_STRING_ELT(nm, 2, mkChar("nodes"));
  setAttrib(res, R_NamesSymbol, nm);
  UNPROTECT(5);
  return res;
}

/* n draws of an _rng function with one generator seeded by (seed, 1). */
SEXP tp_rng(SEXP name, SEXP args, SEXP types, SEXP n, SEXP seed) {
  call_setup cs;
  SEXP ad = PROTECT(allocVector(LGLSXP, LENGTH(args)));
  memset(LOGICAL(ad), 0, sizeof(int) * (size_t)LENGTH(args));
  setup(&cs, name, args, types, ad, ScalarLogical(0), seed);
  int draws = asInteger(n);
  SEXP res = PROTECT(allocVector(VECSXP, draws));
  for (int d = 0; d < draws; d++) {
    tm_v out;
    int rc = run(&cs, &out);
    if (rc) { ad_stack_recover(ad_active); rc_raise(rc); }
    SET_VECTOR_ELT(res, d, rc_to_r(&out));
  }
  ad_stack_recover(ad_active);
  UNPROTECT(2);
  return res;
}

SEXP tp_functions(void) {
  int n = tm_table_size();
  SEXP names = PROTECT(allocVector(STRSXP, n)), sigs = PROTECT(allocVector(STRSXP, n));
  for (int i = 0; i < n; i++) {
    SET_STRING_ELT(names, i, mkChar(tm_table_entry(i)->name));
    SET_STRING_ELT(sigs, i, mkChar(tm_table_entry(i)->sig ? tm_table_entry(i)->sig : ""));
  }
  SEXP res = PROTECT(allocVector(VECSXP, 2));
  SET_VECTOR_ELT(res, 0, names);
  SET_VECTOR_ELT(res, 1, sigs);
  UNPROTECT(3);
  return res;
}

/* tp_simd_cap(cap): caps the instruction set of the math kernels (0 the
** baseline, 1 AVX2, -1 none) and returns the one in use, so the tests run
** every variant the machine has. */
SEXP tp_simd_cap(SEXP cap) {
  return ScalarInteger(tm_simd_cap(asInteger(cap)));
}
