/* r_entries_data.h -- .Call entry points of src/r/r_data*.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_DATA_H
#define R_ENTRIES_DATA_H
#include <Rinternals.h>
SEXP tp_data_read(SEXP x);
SEXP tp_data_bind(SEXP x, SEXP name, SEXP decl_text, SEXP base, SEXP narr, SEXP dims,
                  SEXP rows, SEXP cols, SEXP lower, SEXP upper);
#define R_ENTRIES_DATA \
  ENTRY(tp_data_read, 1), \
  ENTRY(tp_data_bind, 10),
#endif
