/* r_entries_parse.h -- .Call entry points of src/r/r_parse*.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_PARSE_H
#define R_ENTRIES_PARSE_H
#include <Rinternals.h>
SEXP tp_parse(SEXP code, SEXP filename);
#define R_ENTRIES_PARSE \
  ENTRY(tp_parse, 2),
#endif
