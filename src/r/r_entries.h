/* r_entries.h -- the .Call entry points (src/r/r_*.c).  Each r_entries_*.h
** lists its entries once, as rows X(name, nargs, (parameters)): the list
** declares them here (R_ENTRY_DECLARE) and ../init.c makes their
** registration rows from the same list, so a name, its argument count and
** its parameters are written in one place. */
#ifndef R_ENTRIES_H
#define R_ENTRIES_H
#include <Rinternals.h>
#define R_ENTRY_DECLARE(name, nargs, params) SEXP name params;
/* the library's functions, transforms, the tape's tests, benchmarks, dense
   linear algebra, MPI */
#define R_ENTRIES_BASE(X) \
  X(tp_call, 6, (SEXP name, SEXP args, SEXP types, SEXP ad, SEXP propto, SEXP seed)) \
  X(tp_rng, 5, (SEXP name, SEXP args, SEXP types, SEXP n, SEXP seed)) \
  X(tp_functions, 0, (void)) \
  X(tp_transform, 6, (SEXP name, SEXP x, SEXP params, SEXP shape, SEXP ad, SEXP direction)) \
  X(tp_ad_selftest, 1, (SEXP which)) \
  X(tp_ad_memory, 1, (SEXP n)) \
  X(tp_bench, 3, (SEXP which, SEXP n, SEXP reps)) \
  X(tp_simd_cap, 1, (SEXP cap)) \
  X(tp_dense_set, 4, (SEXP on, SEXP min_gemm, SEXP min_chol, SEXP min_trsm)) \
  X(tp_mpi_start, 0, (void)) \
  X(tp_mpi_stop, 0, (void)) \
  X(tp_mpi_info, 0, (void)) \
  X(tp_mpi_serve, 1, (SEXP ctx)) \
  X(tp_mpi_gather_raw, 1, (SEXP x))
R_ENTRIES_BASE(R_ENTRY_DECLARE)
#endif
