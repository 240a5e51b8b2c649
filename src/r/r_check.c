/*
** r_check.c -- tp_check: parse and check a Stan program, returning the tree
** and what the checker decided as text (tests and debugging).
*/
#include <stdlib.h>
#include <string.h>
#include <Rinternals.h>
#include "../front/ln.h"
#include "../front/lc.h"
#include "r_convert.h"
#include "r_entries_check.h"
#include "r_entries_parse.h"

SEXP tp_check(SEXP code, SEXP filename) {
  const char *src = translateCharUTF8(rc_string_arg(code, "code"));
  const char *fname = translateCharUTF8(rc_string_arg(filename, "filename"));
  char err[8192];
  ln_program *p = ln_parse(fname, src, strlen(src), err, sizeof err);
  /* err is a local buffer and the program is freed first, so R may unwind. */
  if (!p) rc_raise_msg(err, "tapestry_syntax_error");
  if (ln_check(p, err, sizeof err) != AD_OK) {
    ln_program_free(p);
    rc_raise_msg(err, "tapestry_semantic_error");
  }
  char *checked = lc_dump(p);
  if (!checked) {
    ln_program_free(p);
    error("tapestry: out of memory");
  }
  return rp_program_text(p, checked);
}
