/* r_entries_sample.h -- .Call entry points of src/r/r_sample.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_SAMPLE_H
#define R_ENTRIES_SAMPLE_H
#include <Rinternals.h>
SEXP tp_sample(SEXP ctx, SEXP config, SEXP inits, SEXP chain_ids, SEXP seed, SEXP parallel,
               SEXP threads, SEXP refresh, SEXP show_msgs, SEXP interactive);
SEXP tp_chain_bytes(void);
#define R_ENTRIES_SAMPLE \
  ENTRY(tp_sample, 10), \
  ENTRY(tp_chain_bytes, 0),
#endif
