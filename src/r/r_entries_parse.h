/* r_entries_parse.h -- .Call entry points of src/r/r_parse*.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_PARSE_H
#define R_ENTRIES_PARSE_H
#include "r_entries.h"
#include "../front/ln.h"
/* tp_parse's and tp_check's result: list(dump = p's tree as text (ln_dump),
** warnings[, checked = the lines of checked, the checker's dump]); frees p
** and checked (NULL: none). */
SEXP rp_program_text(ln_program *p, char *checked);
#define R_ENTRIES_PARSE(X) \
  X(tp_parse, 2, (SEXP code, SEXP filename))
R_ENTRIES_PARSE(R_ENTRY_DECLARE)
#endif
