/* r_entries_gq.h -- .Call entry points of src/r/r_gq.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_GQ_H
#define R_ENTRIES_GQ_H
#include <Rinternals.h>
SEXP tp_gq(SEXP ctx, SEXP upars, SEXP chain_id, SEXP seed, SEXP warmup);
SEXP tp_log_prob_full(SEXP ctx, SEXP upars, SEXP jacobian);
#define R_ENTRIES_GQ \
  ENTRY(tp_gq, 5), \
  ENTRY(tp_log_prob_full, 3),
#endif
