/* r_stubs.c -- entry points whose modules are being written. */
#include <R.h>
#include <Rinternals.h>
#include "r_entries.h"
SEXP tp_transform(SEXP name, SEXP x, SEXP params, SEXP shape, SEXP ad, SEXP direction) {
  (void)name; (void)x; (void)params; (void)shape; (void)ad; (void)direction;
  error("transforms are not built yet");
}
SEXP tp_ad_selftest(SEXP which) { (void)which; error("not built yet"); }
SEXP tp_ad_memory(SEXP n) { (void)n; error("not built yet"); }
SEXP tp_bench(SEXP which, SEXP n, SEXP reps) { (void)which; (void)n; (void)reps; error("not built yet"); }
