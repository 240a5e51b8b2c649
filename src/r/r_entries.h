/* r_entries.h -- declarations of the .Call entry points (src/r/r_*.c). */
#ifndef R_ENTRIES_H
#define R_ENTRIES_H
#include <Rinternals.h>
SEXP tp_call(SEXP name, SEXP args, SEXP types, SEXP ad, SEXP propto, SEXP seed);
SEXP tp_rng(SEXP name, SEXP args, SEXP types, SEXP n, SEXP seed);
SEXP tp_functions(void);
SEXP tp_transform(SEXP name, SEXP x, SEXP params, SEXP shape, SEXP ad, SEXP direction);
SEXP tp_ad_selftest(SEXP which);
SEXP tp_ad_memory(SEXP n);
SEXP tp_bench(SEXP which, SEXP n, SEXP reps);
SEXP tp_simd_cap(SEXP cap);
SEXP tp_dense_set(SEXP on, SEXP min_gemm, SEXP min_chol, SEXP min_trsm);
SEXP tp_mpi_start(void);
SEXP tp_mpi_stop(void);
SEXP tp_mpi_info(void);
SEXP tp_mpi_serve(SEXP ctx);
SEXP tp_mpi_gather_raw(SEXP x);
/* Entry points added by later modules go here, as ENTRY(name, nargs), */
#define R_ENTRIES_EXTRA \
  ENTRY(tp_transform, 6), \
  ENTRY(tp_ad_selftest, 1), \
  ENTRY(tp_ad_memory, 1), \
  ENTRY(tp_bench, 3), \
  ENTRY(tp_simd_cap, 1),  \
  ENTRY(tp_dense_set, 4), \
  ENTRY(tp_mpi_start, 0), \
  ENTRY(tp_mpi_stop, 0), \
  ENTRY(tp_mpi_info, 0), \
  ENTRY(tp_mpi_serve, 1), \
  ENTRY(tp_mpi_gather_raw, 1),
#endif
