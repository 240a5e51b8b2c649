/*
** r_plan.c -- what R sees of the plans (src/plan): a context's counters,
** and the process-wide switch the tests use to compare the two paths.
*/
#include <time.h>
#include <R.h>
#include <Rinternals.h>
#include "../plan/pl.h"
#include "r_model.h"
#include "r_interrupt.h"
#include "r_entries_model.h"

/* list(replays, records, fallbacks, tree, instructions, why, evaluations, loops, map_lanes, direct) */
SEXP tp_plan_stats(SEXP ctx) {
  pl_stats s;
  pl_get_stats(rm_ctx_of(ctx), &s);
  const char *names[] = {"replays", "records", "fallbacks", "tree", "instructions", "why", "evaluations", "loops", "map_lanes", "direct"};
  SEXP res = PROTECT(allocVector(VECSXP, 10)), nm = PROTECT(allocVector(STRSXP, 10));
  SET_VECTOR_ELT(res, 0, ScalarReal((double)s.replays));
  SET_VECTOR_ELT(res, 1, ScalarReal((double)s.records));
  SET_VECTOR_ELT(res, 2, ScalarReal((double)s.fallbacks));
  SET_VECTOR_ELT(res, 3, ScalarReal((double)s.tree));
  SET_VECTOR_ELT(res, 4, ScalarInteger(s.instructions));
  SET_VECTOR_ELT(res, 5, mkString(s.why));
  SET_VECTOR_ELT(res, 6, ScalarReal((double)s.evaluations));
  SET_VECTOR_ELT(res, 7, ScalarInteger(s.loops));
  SET_VECTOR_ELT(res, 8, ScalarInteger(s.map_lanes));
  SET_VECTOR_ELT(res, 9, ScalarInteger(s.direct));
  for (int i = 0; i < 10; i++) SET_STRING_ELT(nm, i, mkChar(names[i]));
  setAttrib(res, R_NamesSymbol, nm);
  UNPROTECT(2);
  return res;
}

/* The loops of the context's plan, as columns: line, col, loop, where,
** runs, vectorized (runs that ran lane by lane), iterations, reason. */
SEXP tp_plan_loops(SEXP ctx) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t n = pl_loop_report(c, NULL, 0);
  pl_loopinfo *info = (pl_loopinfo *)R_alloc(n ? n : 1, sizeof *info);
  n = pl_loop_report(c, info, n);
  const char *names[] = {"line", "col", "loop", "where", "runs", "vectorized", "iterations", "reason"};
  SEXP res = PROTECT(allocVector(VECSXP, 8)), nm = PROTECT(allocVector(STRSXP, 8));
  SEXP line = allocVector(INTSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 0, line);
  SEXP col = allocVector(INTSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 1, col);
  SEXP var = allocVector(STRSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 2, var);
  SEXP where = allocVector(STRSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 3, where);
  SEXP runs = allocVector(REALSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 4, runs);
  SEXP lanes = allocVector(REALSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 5, lanes);
  SEXP iters = allocVector(REALSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 6, iters);
  SEXP why = allocVector(STRSXP, (R_xlen_t)n); SET_VECTOR_ELT(res, 7, why);
  for (size_t k = 0; k < n; k++) {
    const pl_loopinfo *q = &info[k];
    INTEGER(line)[k] = q->line;
    INTEGER(col)[k] = q->col;
    SET_STRING_ELT(var, (R_xlen_t)k, mkChar(q->var));
    SET_STRING_ELT(where, (R_xlen_t)k, mkChar(q->where));
    REAL(runs)[k] = (double)q->runs;
    REAL(lanes)[k] = (double)q->lanes;
    REAL(iters)[k] = q->iters;
    char buf[300];
    if (q->detail)
      snprintf(buf, sizeof buf, "unrolled: its body has %s, which has no lane kernel", q->detail);
    else
      snprintf(buf, sizeof buf, "%s", pl_why_text(q->why));
    SET_STRING_ELT(why, (R_xlen_t)k, mkChar(buf));
  }
  for (int i = 0; i < 8; i++) SET_STRING_ELT(nm, i, mkChar(names[i]));
  setAttrib(res, R_NamesSymbol, nm);
  UNPROTECT(2);
  return res;
}

/* on: TRUE/FALSE sets the switch, NA leaves it; returns the previous state. */
SEXP tp_plan_enable(SEXP on) {
  int was = pl_enabled();
  int v = asLogical(on);
  if (v != NA_LOGICAL) pl_set_enabled(v);
  return ScalarLogical(was);
}

/* The same for loops kept as loops in plans recorded from now on. */
SEXP tp_plan_lanes(SEXP on) {
  int was = pl_lanes_enabled();
  int v = asLogical(on);
  if (v != NA_LOGICAL) pl_set_lanes(v);
  return ScalarLogical(was);
}

/* Nanoseconds per gradient evaluation, reps evaluations at upars in C (no R
** call between them): the benches' measure of the replay itself. */
SEXP tp_plan_time(SEXP ctx, SEXP upars, SEXP reps_) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t n = li_num_upars(c);
  if (TYPEOF(upars) != REALSXP || (size_t)XLENGTH(upars) != n) error("upars: %zu reals expected", n);
  int reps = asInteger(reps_);
  if (reps == NA_INTEGER || reps < 1) error("reps: a positive count expected");
  double *g = (double *)R_alloc(n ? n : 1, sizeof(double)), lp = 0;
  char err[256];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = AD_OK;
  ri_begin();      /* Ctrl-C stops the loop (r_interrupt.h) */
  for (int k = 0; k < reps && rc == AD_OK; k++) {
    rc = pl_log_prob(c, REAL(upars), 1, &lp, g, NULL, err, sizeof err);
    ad_stack_recover(ad_active);
    if (ad_interrupted()) rc = AD_EINTERRUPT;
  }
  if (ri_end()) ri_raise("Timing the plan");
  if (rc) error("the evaluation failed: %s", err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ScalarReal(((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / reps);
}
