/* r_transform.c -- placeholder; the transform module's test entry point goes here. */
#include <R.h>
#include <Rinternals.h>
#include "r_entries.h"
SEXP tp_transform(SEXP name, SEXP x, SEXP params, SEXP shape, SEXP ad, SEXP direction) {
  (void)name; (void)x; (void)params; (void)shape; (void)ad; (void)direction;
  error("transforms are not built yet");
}
