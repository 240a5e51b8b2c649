/* r_entries_check.h -- .Call entry points of src/r/r_check.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_CHECK_H
#define R_ENTRIES_CHECK_H
#include "r_entries.h"
#define R_ENTRIES_CHECK(X) \
  X(tp_check, 2, (SEXP code, SEXP filename))
R_ENTRIES_CHECK(R_ENTRY_DECLARE)
#endif
