/* r_entries_prof.h -- .Call entry points of src/r/r_prof.c, one row each (see r_entries.h),
** and its conversion of a profile registry, which r_sample.c shares. */
#ifndef R_ENTRIES_PROF_H
#define R_ENTRIES_PROF_H
#include "r_entries.h"
#include "../prof/pf.h"
/* The rows of g as a named list of columns (name, thread_id, phase, parent,
** forward_time, reverse_time, chain_stack, no_chain_stack, autodiff_calls,
** no_autodiff_calls); zero rows for NULL g. */
SEXP rp_profiles(const pf_registry *g);
/* The trace of g: list(name, ts, dur, tid) with attribute "dropped", or
** NULL when traced is 0. */
SEXP rp_trace(const pf_registry *g, int traced);
#define R_ENTRIES_PROF(X) \
  X(tp_profile_log_prob, 4, (SEXP ctx, SEXP upars, SEXP n, SEXP trace_every)) \
  X(tp_prof_test, 1, (SEXP which))
R_ENTRIES_PROF(R_ENTRY_DECLARE)
#endif
