/* r_entries_parse.h -- .Call entry points of src/r/r_parse*.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_PARSE_H
#define R_ENTRIES_PARSE_H
#include "r_entries.h"
#define R_ENTRIES_PARSE(X) \
  X(tp_parse, 2, (SEXP code, SEXP filename))
R_ENTRIES_PARSE(R_ENTRY_DECLARE)
#endif
