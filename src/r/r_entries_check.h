/* r_entries_check.h -- .Call entry points of src/r/r_check.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_CHECK_H
#define R_ENTRIES_CHECK_H
#include <Rinternals.h>
SEXP tp_check(SEXP code, SEXP filename);
#define R_ENTRIES_CHECK \
  ENTRY(tp_check, 2),
#endif
