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
#include <stdint.h>
#include <time.h>
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

/* tp_gate(mode): whether parallel work measures if its threads pay (0,
** the default), always takes them (1) or never (2), and with "reset" the
** sites' times forgotten; NULL only reads.  Returns the previous mode.  For
** the tests, which compare the bits of 1, 2 and 5 threads and so need the
** threads to be taken. */
SEXP tp_gate(SEXP mode) {
  int old = pp_gate_get_mode();
  if (isString(mode)) {
    pp_gate_reset();
  } else if (!isNull(mode)) {
    int m = asInteger(mode);
    if (m == NA_INTEGER || m < 0 || m > 2) error("the gate's mode must be 0, 1 or 2");
    pp_gate_set_mode(m);
  }
  return ScalarInteger(old);
}

/* tp_gate_probe(one_us, many_us, calls): a site of the gate whose work
** takes one_us microseconds on one thread and many_us on two (a busy wait
** stands for it), asked `calls` times; returns how many calls it ran on
** the threads.  For the test of pp_gate.c's choice. */
static void busy_us(double us) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

SEXP tp_gate_probe(SEXP one_us, SEXP many_us, SEXP calls) {
  static int site;           /* its address names the probe's site */
  double one = asReal(one_us), many = asReal(many_us);
  int n = asInteger(calls), par = 0;
  if (!(one >= 0 && many >= 0 && one < 1e5 && many < 1e5) || n == NA_INTEGER || n < 0)
    error("tp_gate_probe: bad arguments");
  for (int i = 0; i < n; i++) {
    pp_gate g;
    int t = pp_gate_begin(&g, (uintptr_t)&site, 1000.0, 2);
    busy_us(t > 1 ? many : one);
    par += t > 1;
    pp_gate_end(&g);
  }
  return ScalarInteger(par);
}

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
