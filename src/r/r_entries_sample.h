/* r_entries_sample.h -- .Call entry points of src/r/r_sample.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_SAMPLE_H
#define R_ENTRIES_SAMPLE_H
#include "r_entries.h"
#define R_ENTRIES_SAMPLE(X) \
  X(tp_sample, 10, (SEXP ctx, SEXP config, SEXP inits, SEXP chain_ids, SEXP seed, SEXP parallel, \
    SEXP threads, SEXP refresh, SEXP show_msgs, SEXP interactive)) \
  X(tp_chain_bytes, 0, (void))
R_ENTRIES_SAMPLE(R_ENTRY_DECLARE)
#endif
