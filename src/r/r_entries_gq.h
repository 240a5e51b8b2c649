/* r_entries_gq.h -- .Call entry points of src/r/r_gq.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_GQ_H
#define R_ENTRIES_GQ_H
#include "r_entries.h"
#define R_ENTRIES_GQ(X) \
  X(tp_gq, 5, (SEXP ctx, SEXP upars, SEXP chain_id, SEXP seed, SEXP warmup)) \
  X(tp_log_prob_full, 3, (SEXP ctx, SEXP upars, SEXP jacobian))
R_ENTRIES_GQ(R_ENTRY_DECLARE)
#endif
