/* r_entries_threads.h -- .Call entry points of src/r/r_threads.c,
** src/r/r_memory.c and src/r/r_pmaptest.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_THREADS_H
#define R_ENTRIES_THREADS_H
#include "r_entries.h"
#define R_ENTRIES_THREADS(X) \
  X(tp_threads, 1, (SEXP n)) \
  X(tp_pool_size, 0, (void)) \
  X(tp_for_regions, 0, (void)) \
  X(tp_gate, 1, (SEXP mode)) \
  X(tp_gate_probe, 3, (SEXP one_us, SEXP many_us, SEXP calls)) \
  X(tp_cores, 0, (void)) \
  X(tp_pmap_threshold, 1, (SEXP above)) \
  X(tp_memory_limit, 1, (SEXP bytes)) \
  X(tp_pmap_test, 4, (SEXP n, SEXP m, SEXP strategy, SEXP fail_at))
R_ENTRIES_THREADS(R_ENTRY_DECLARE)
#endif
