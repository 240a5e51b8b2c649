/* r_entries_threads.h -- .Call entry points of src/r/r_threads.c,
** src/r/r_memory.c and src/r/r_pmaptest.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_THREADS_H
#define R_ENTRIES_THREADS_H
#include <Rinternals.h>
SEXP tp_threads(SEXP n);
SEXP tp_pool_size(void);
SEXP tp_for_regions(void);
SEXP tp_gate(SEXP mode);
SEXP tp_gate_probe(SEXP one_us, SEXP many_us, SEXP calls);
SEXP tp_cores(void);
SEXP tp_pmap_threshold(SEXP above);
SEXP tp_memory_limit(SEXP bytes);
SEXP tp_pmap_test(SEXP n, SEXP m, SEXP strategy, SEXP fail_at);
#define R_ENTRIES_THREADS \
  ENTRY(tp_threads, 1), \
  ENTRY(tp_pool_size, 0), \
  ENTRY(tp_for_regions, 0), \
  ENTRY(tp_gate, 1), \
  ENTRY(tp_gate_probe, 3), \
  ENTRY(tp_cores, 0), \
  ENTRY(tp_pmap_threshold, 1), \
  ENTRY(tp_memory_limit, 1), \
  ENTRY(tp_pmap_test, 4),
#endif
