/* r_entries_summary.h -- .Call entry points of src/r/r_summary.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_SUMMARY_H
#define R_ENTRIES_SUMMARY_H
#include <Rinternals.h>
SEXP tp_summary(SEXP draws, SEXP kinds, SEXP probs, SEXP lo, SEXP hi, SEXP threads, SEXP integer);
SEXP tp_hmc_diag(SEXP chains, SEXP first, SEXP n, SEXP cols, SEXP max_depth);
SEXP tp_draws_array(SEXP chains, SEXP first, SEXP nw, SEXP ns, SEXP cols, SEXP names);
#define R_ENTRIES_SUMMARY \
  ENTRY(tp_summary, 7), \
  ENTRY(tp_hmc_diag, 5), \
  ENTRY(tp_draws_array, 6),
#endif
