/* r_entries_data.h -- .Call entry points of src/r/r_data*.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_DATA_H
#define R_ENTRIES_DATA_H
#include "r_entries.h"
#define R_ENTRIES_DATA(X) \
  X(tp_data_read, 1, (SEXP x)) \
  X(tp_data_bind, 10, (SEXP x, SEXP name, SEXP decl_text, SEXP base, SEXP narr, SEXP dims, \
    SEXP rows, SEXP cols, SEXP lower, SEXP upper))
R_ENTRIES_DATA(R_ENTRY_DECLARE)
#endif
