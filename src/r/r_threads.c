/*
** r_threads.c -- the threads of evaluations outside sampling.
**
** tp_threads(n): with n an integer, the main thread's evaluations
** ($log_prob(), $grad_log_prob(), ...) may use n threads: the budget is
** set and the pool grown to n - 1 workers (the main thread is the first
** participant of its regions).  NULL only reads.  Returns the budget.
** No cap here: tapestry_set_num_threads() caps at the cores in R, and the
** tests ask for more threads than this machine has (bit-identity of
** reduce_sum_static across 1, 2 and 8 threads).
*/
#include <R.h>
#include <Rinternals.h>
#include "../ad/ad.h"
#include "../par/pp.h"
#include "../par/pp_map.h"
#include "r_entries_threads.h"

SEXP tp_threads(SEXP n) {
  if (!isNull(n)) {
    int k = asInteger(n);
    if (k == NA_INTEGER || k < 1) error("the number of threads must be a positive integer");
    if (k - 1 > pp_pool_size() && pp_pool_resize(k - 1) != AD_OK) error("%s", ad_errmsg());
    pp_set_threads(k);
  }
  return ScalarInteger(pp_threads());
}

/* tp_for_regions(): kernels' blocks run on a region so far (pp_for), for tests. */
SEXP tp_for_regions(void) { return ScalarReal((double)pp_for_regions()); }

/* tp_pool_size(): the pool's workers, for tests. */
SEXP tp_pool_size(void) { return ScalarInteger(pp_pool_size()); }

/* tp_cores(): the cores the package may use (at most 2 under R CMD check). */
SEXP tp_cores(void) { return ScalarInteger(pp_cores()); }

/* tp_pmap_threshold(above): parallel_map's threshold for the append
** strategy (reals of broadcast autodiff arguments; negative: the default),
** for bench/parallel_map_threshold.R and the tests.  Returns the previous. */
SEXP tp_pmap_threshold(SEXP above) {
  double a = asReal(above);
  long v = ISNAN(a) || a < 0 ? -1 : a > 1e15 ? (long)1e15 : (long)a;
  return ScalarReal((double)tm_parallel_map_threshold(v));
}
