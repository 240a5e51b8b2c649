/* r_entries_summary.h -- .Call entry points of src/r/r_summary.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_SUMMARY_H
#define R_ENTRIES_SUMMARY_H
#include "r_entries.h"
#define R_ENTRIES_SUMMARY(X) \
  X(tp_summary, 7, (SEXP draws, SEXP kinds, SEXP probs, SEXP lo, SEXP hi, SEXP threads, SEXP integer)) \
  X(tp_hmc_diag, 5, (SEXP chains, SEXP first, SEXP n, SEXP cols, SEXP max_depth)) \
  X(tp_draws_array, 6, (SEXP chains, SEXP first, SEXP nw, SEXP ns, SEXP cols, SEXP names))
R_ENTRIES_SUMMARY(R_ENTRY_DECLARE)
#endif
