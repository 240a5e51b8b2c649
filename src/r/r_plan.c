/*
** r_plan.c -- what R sees of the plans (src/plan): a context's counters,
** and the process-wide switch the tests use to compare the two paths.
*/
#include <R.h>
#include <Rinternals.h>
#include "../plan/pl.h"
#include "r_model.h"
#include "r_entries_model.h"

/* list(replays, records, fallbacks, tree, instructions, why, evaluations) */
SEXP tp_plan_stats(SEXP ctx) {
  pl_stats s;
  pl_get_stats(rm_ctx_of(ctx), &s);
  const char *names[] = {"replays", "records", "fallbacks", "tree", "instructions", "why", "evaluations"};
  SEXP res = PROTECT(allocVector(VECSXP, 7)), nm = PROTECT(allocVector(STRSXP, 7));
  SET_VECTOR_ELT(res, 0, ScalarReal((double)s.replays));
  SET_VECTOR_ELT(res, 1, ScalarReal((double)s.records));
  SET_VECTOR_ELT(res, 2, ScalarReal((double)s.fallbacks));
  SET_VECTOR_ELT(res, 3, ScalarReal((double)s.tree));
  SET_VECTOR_ELT(res, 4, ScalarInteger(s.instructions));
  SET_VECTOR_ELT(res, 5, mkString(s.why));
  SET_VECTOR_ELT(res, 6, ScalarReal((double)s.evaluations));
  for (int i = 0; i < 7; i++) SET_STRING_ELT(nm, i, mkChar(names[i]));
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
