/*
** r_prof.c -- profiles for R: a registry's rows and trace as R lists (for
** $sample() and profile_log_prob), profile_log_prob itself, and the
** scenarios of src/prof's unit tests.
**
** profile_log_prob runs its evaluations on R's main thread with a registry
** of its own, made current for the duration and owned meanwhile by an
** external pointer, so an R error (out of memory while converting) cannot
** leak it; an interrupt is noticed between evaluations through
** R_ToplevelExec, which returns instead of jumping out while the registry
** is still this thread's current one.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <R.h>
#include <Rinternals.h>
#include "../tree/li.h"
#include "../plan/pl.h"
#include "r_convert.h"
#include "r_interrupt.h"
#include "r_model.h"
#include "r_entries_prof.h"

#define ERRSIZE 4096
#define CHECK_SECONDS 0.1     /* between looks for an interrupt */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- a registry as R values ---- */

static SEXP utf8(const char *s) { return s ? mkCharCE(s, CE_UTF8) : NA_STRING; }

SEXP rp_profiles(const pf_registry *g) {
  static const char *const cols[] = { "name", "thread_id", "phase", "parent", "forward_time",
    "reverse_time", "chain_stack", "no_chain_stack", "autodiff_calls", "no_autodiff_calls" };
  pf_row *rows = NULL;
  int n = 0;
  /* every R allocation that could jump out comes before or after the
     malloc'd rows live: the columns and a copy of what the strings need
     first (the strings themselves live in g), then the rows, freed before
     any mkChar */
  int nr = pf_nrows(g);
  SEXP out = PROTECT(rc_named_list(10, cols, NULL));
  SET_VECTOR_ELT(out, 0, allocVector(STRSXP, nr));
  SET_VECTOR_ELT(out, 1, allocVector(INTSXP, nr));
  SET_VECTOR_ELT(out, 2, allocVector(STRSXP, nr));
  SET_VECTOR_ELT(out, 3, allocVector(STRSXP, nr));
  for (int j = 4; j < 10; j++) SET_VECTOR_ELT(out, j, allocVector(REALSXP, nr));
  const char **names = (const char **)R_alloc((size_t)(nr ? 2 * nr : 1), sizeof(char *));
  int *phase = (int *)R_alloc((size_t)(nr ? nr : 1), sizeof(int));
  if (pf_rows(g, &rows, &n) != AD_OK || n != nr) {
    free(rows);
    rc_raise_msg("out of memory reading the profiles", "tapestry_memory_error");
  }
  for (int i = 0; i < n; i++) {
    INTEGER(VECTOR_ELT(out, 1))[i] = rows[i].thread_id;
    REAL(VECTOR_ELT(out, 4))[i] = rows[i].forward_time;
    REAL(VECTOR_ELT(out, 5))[i] = rows[i].reverse_time;
    REAL(VECTOR_ELT(out, 6))[i] = rows[i].chain_stack;
    REAL(VECTOR_ELT(out, 7))[i] = rows[i].no_chain_stack;
    REAL(VECTOR_ELT(out, 8))[i] = rows[i].autodiff_calls;
    REAL(VECTOR_ELT(out, 9))[i] = rows[i].no_autodiff_calls;
    names[2 * i] = rows[i].name;
    names[2 * i + 1] = rows[i].parent;
    phase[i] = rows[i].phase;
  }
  free(rows);
  SEXP warm = PROTECT(mkChar("warmup")), samp = PROTECT(mkChar("sampling"));
  for (int i = 0; i < n; i++) {
    SET_STRING_ELT(VECTOR_ELT(out, 0), i, utf8(names[2 * i]));
    SET_STRING_ELT(VECTOR_ELT(out, 2), i, phase[i] == PF_WARMUP ? warm : samp);
    SET_STRING_ELT(VECTOR_ELT(out, 3), i, utf8(names[2 * i + 1]));
  }
  UNPROTECT(3);
  return out;
}

SEXP rp_trace(const pf_registry *g, int traced) {
  if (!traced) return R_NilValue;
  static const char *const cols[] = { "name", "ts", "dur", "tid" };
  pf_event *ev = NULL;
  size_t n = 0, dropped = 0;
  if (pf_events(g, &ev, &n, &dropped) != AD_OK)
    rc_raise_msg("out of memory reading the profile trace", "tapestry_memory_error");
  /* the R vectors are made first; should that fail, only ev leaks, and
     only when R itself is out of memory */
  SEXP out = PROTECT(rc_named_list(4, cols, NULL));
  SET_VECTOR_ELT(out, 0, allocVector(STRSXP, (R_xlen_t)n));
  SET_VECTOR_ELT(out, 1, allocVector(REALSXP, (R_xlen_t)n));
  SET_VECTOR_ELT(out, 2, allocVector(REALSXP, (R_xlen_t)n));
  SET_VECTOR_ELT(out, 3, allocVector(INTSXP, (R_xlen_t)n));
  setAttrib(out, install("dropped"), ScalarReal((double)dropped));
  double *ts = REAL(VECTOR_ELT(out, 1)), *dur = REAL(VECTOR_ELT(out, 2));
  int *tid = INTEGER(VECTOR_ELT(out, 3));
  /* few distinct names: reuse the CHARSXP of the previous event's name */
  const char *last = NULL;
  SEXP lastc = R_NilValue;
  PROTECT_INDEX pi;
  PROTECT_WITH_INDEX(lastc, &pi);
  for (size_t i = 0; i < n; i++) {
    if (ev[i].name != last) {
      last = ev[i].name;
      REPROTECT(lastc = utf8(last), pi);
    }
    SET_STRING_ELT(VECTOR_ELT(out, 0), (R_xlen_t)i, lastc);
    ts[i] = ev[i].ts;
    dur[i] = ev[i].dur;
    tid[i] = ev[i].tid;
  }
  free(ev);
  UNPROTECT(2);
  return out;
}

/* ---- profile_log_prob ---- */

static void reg_finalize(SEXP x) {
  pf_registry *g = R_ExternalPtrAddr(x);
  R_ClearExternalPtr(x);
  pf_registry_free(g);
}

static void check_interrupt(void *unused) {
  (void)unused;
  R_CheckUserInterrupt();
}

/* tp_profile_log_prob(ctx, upars, n, trace_every): n gradient evaluations
** (with the Jacobian, as the sampler's) at upars, timed; print() output is
** not kept. */
SEXP tp_profile_log_prob(SEXP ctx, SEXP upars, SEXP n_, SEXP trace_every) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t np = li_num_upars(c);
  if (TYPEOF(upars) != REALSXP || (size_t)XLENGTH(upars) != np) {
    char msg[160];
    snprintf(msg, sizeof msg, "'upars' must be a numeric vector of length %zu", np);
    rc_raise_msg(msg, "tapestry_argument_error");
  }
  double nd = asReal(n_), te = isNull(trace_every) ? 0 : asReal(trace_every);
  if (!(nd >= 1 && nd <= 1e9 && nd == floor(nd)))
    rc_raise_msg("'n' must be a whole number between 1 and 1e9", "tapestry_argument_error");
  if (!(te >= 0 && te <= 2147483647.0 && te == floor(te)))
    rc_raise_msg("'trace_every' must be a non-negative whole number", "tapestry_argument_error");
  long n = (long)nd;

  double *grad = (double *)R_alloc(np ? np : 1, sizeof(double));
  double dummy = 0;
  const double *u = np ? REAL(upars) : &dummy;
  pf_registry *g = pf_registry_new((int)te);
  if (!g) rc_raise(AD_EMEMORY);
  SEXP guard = PROTECT(R_MakeExternalPtr(g, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(guard, reg_finalize, TRUE);

  char err[ERRSIZE];
  err[0] = '\0';
  int rc = AD_OK, interrupted = 0;
  pf_registry *saved = pf_current();
  pf_set_current(g);
  double t0 = now(), last_check = t0, seconds = 0;
  /* Ctrl-C inside an evaluation stops it (r_interrupt.h); between
     evaluations R's own check below sees it too (R_ToplevelExec: nothing
     jumps out of the guard) */
  ri_begin();
  for (long i = 0; i < n && rc == AD_OK && !ad_interrupted(); i++) {
    double lp;
    pf_next_evaluation(g);
    rc = pl_log_prob(c, u, 1, &lp, grad, NULL, err, sizeof err);
    double t = now();
    seconds = t - t0;
    if (t - last_check > CHECK_SECONDS) {
      last_check = t;
      if (!R_ToplevelExec(check_interrupt, NULL)) { interrupted = 1; break; }
    }
  }
  if (ri_end()) interrupted = 1;
  pf_set_current(saved);
  ad_stack_recover(ad_active);
  if (interrupted || rc != AD_OK) {
    reg_finalize(guard);
    if (interrupted) ri_raise("Profiling");
    rc_raise_msg(err, rc_status_class(rc));
  }
  static const char *const top[] = { "profiles", "trace", "seconds" };
  SEXP out = PROTECT(rc_named_list(3, top, NULL));
  SET_VECTOR_ELT(out, 0, rp_profiles(g));
  SET_VECTOR_ELT(out, 1, rp_trace(g, te > 0));
  SET_VECTOR_ELT(out, 2, ScalarReal(seconds));
  reg_finalize(guard);
  UNPROTECT(2);
  return out;
}

/* ---- unit-test scenarios (Stan's own profile tests, at the C level) ---- */

/* One scenario on the main thread's tape; returns the status of the first
** failure with its message in msg. */
static int scenario(pf_registry *g, const char *which, char *msg, size_t size, SEXP *extra) {
  pf_handle h, h2;
  ad_var a, b, c;
  int rc = AD_OK;
  *extra = R_NilValue;
  if (!strcmp(which, "c_equals_a_plus_b")) {
    /* Stan: a and b made inside the block, c = a + b; the reverse pass
       runs through the block */
    if ((rc = pf_enter(g, "p", 1, 1, NULL, &h))) goto fail;
    if (!(rc = ad_leaf(1.5, &a)) && !(rc = ad_leaf(2.0, &b)))
      rc = ad_binary(a, b, 3.5, 1.0, 1.0, &c);
    int rc2 = pf_exit(&h, 1);
    if (rc || (rc = rc2)) goto fail;
    ad_grad(c);
  } else if (!strcmp(which, "loop")) {
    if ((rc = ad_leaf(0.5, &a))) goto fail;
    for (int i = 0; i < 7; i++) {
      if ((rc = pf_enter(g, "p", 1, 1, NULL, &h))) goto fail;
      rc = ad_unary(a, 2.0 * *a.val, 2.0, &b);
      int rc2 = pf_exit(&h, 1);
      if (rc || (rc = rc2)) goto fail;
      a = b;
    }
    ad_grad(a);
  } else if (!strcmp(which, "doubles")) {
    volatile double x = 0;
    if ((rc = pf_enter(g, "p", 0, 1, NULL, &h))) goto fail;
    for (int i = 0; i < 1000; i++) x += sqrt((double)i);
    (void)x;   /* volatile: the work is done, its result is not needed */
    if ((rc = pf_exit(&h, 0))) goto fail;
  } else if (!strcmp(which, "duplicate")) {
    if ((rc = pf_enter(g, "p", 1, 1, NULL, &h))) goto fail;
    rc = pf_enter(g, "p", 1, 2, NULL, &h2);
    if (rc == AD_OK) pf_exit(&h2, 1);
    else snprintf(msg, size, "%s", ad_errmsg());
    pf_exit(&h, 1);
    /* the failed entry entered nothing: the block works afterwards */
    if (rc != AD_OK && pf_enter(g, "p", 1, 3, NULL, &h) == AD_OK) pf_exit(&h, 1);
    ad_stack_recover(ad_active);
    return rc;
  } else if (!strcmp(which, "overhead")) {
    /* ns per entry and exit of a block around one scalar node, forward and
       reverse (on the tape) and forward only (doubles): the best of five
       loops of 1e5 against the same loops without the block */
    enum { N = 100000, REPS = 5 };
    double best[4] = { INFINITY, INFINITY, INFINITY, INFINITY };
    for (int rep = 0; rep < REPS; rep++) {
      for (int mode = 0; mode < 4; mode++) {
        int prof = mode & 1, ad = mode < 2;
        double t0 = now();
        if (ad) {
          if ((rc = ad_leaf(0.5, &a))) goto fail;
          for (int i = 0; i < N; i++) {
            if (prof && (rc = pf_enter(g, "p", 1, 1, NULL, &h))) goto fail;
            rc = ad_unary(a, *a.val, 1.0, &b);
            if (prof) { int rc2 = pf_exit(&h, 1); if (!rc) rc = rc2; }
            if (rc) goto fail;
            a = b;
          }
          ad_grad(a);
          ad_stack_recover(ad_active);
        } else {
          volatile double x = 0.5;
          for (int i = 0; i < N; i++) {
            if (prof && (rc = pf_enter(g, "p", 0, 1, NULL, &h))) goto fail;
            x = x * 1.0000001;
            if (prof && (rc = pf_exit(&h, 0))) goto fail;
          }
        }
        double t = (now() - t0) * 1e9 / N;
        if (t < best[mode]) best[mode] = t;
      }
    }
    static const char *const nm[] = { "ad", "double" };
    *extra = PROTECT(rc_named_list(2, nm, NULL));
    SET_VECTOR_ELT(*extra, 0, ScalarReal(best[1] - best[0]));
    SET_VECTOR_ELT(*extra, 1, ScalarReal(best[3] - best[2]));
    UNPROTECT(1);
  } else {
    snprintf(msg, size, "unknown scenario '%s'", which);
    return AD_EINVALID;
  }
  ad_stack_recover(ad_active);
  return AD_OK;
fail:
  snprintf(msg, size, "%s", ad_errmsg());
  ad_stack_recover(ad_active);
  return rc;
}

/* tp_prof_test(which): list(profiles, status, message), plus `overhead`
** (ns per entry and exit: ad, double) for that scenario. */
SEXP tp_prof_test(SEXP which) {
  const char *w = CHAR(rc_string_arg(which, "which"));
  pf_registry *g = pf_registry_new(0);
  if (!g) rc_raise(AD_EMEMORY);
  SEXP guard = PROTECT(R_MakeExternalPtr(g, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(guard, reg_finalize, TRUE);
  char msg[1024];
  msg[0] = '\0';
  SEXP extra;
  int rc = scenario(g, w, msg, sizeof msg, &extra);
  PROTECT(extra);
  static const char *const top[] = { "profiles", "status", "message", "overhead" };
  SEXP out = PROTECT(rc_named_list(4, top, NULL));
  SET_VECTOR_ELT(out, 0, rp_profiles(g));
  SET_VECTOR_ELT(out, 1, ScalarInteger(rc));
  SET_VECTOR_ELT(out, 2, mkString(msg));
  SET_VECTOR_ELT(out, 3, extra);
  reg_finalize(guard);
  UNPROTECT(3);
  return out;
}
