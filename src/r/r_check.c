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
  char *dump = ln_dump(p), *checked = lc_dump(p);
  if (!dump || !checked) {
    free(dump);
    free(checked);
    ln_program_free(p);
    error("tapestry: out of memory");
  }
  SEXP res = PROTECT(allocVector(VECSXP, 3));
  SEXP names = PROTECT(allocVector(STRSXP, 3));
  SET_STRING_ELT(names, 0, mkChar("dump"));
  SET_STRING_ELT(names, 1, mkChar("warnings"));
  SET_STRING_ELT(names, 2, mkChar("checked"));
  setAttrib(res, R_NamesSymbol, names);
  SEXP d = PROTECT(mkCharCE(dump, CE_UTF8));
  free(dump);
  SEXP k = PROTECT(rc_lines(checked));
  free(checked);
  SEXP w = PROTECT(rc_lines(p->warnings));
  ln_program_free(p);
  SET_VECTOR_ELT(res, 0, ScalarString(d));
  SET_VECTOR_ELT(res, 1, w);
  SET_VECTOR_ELT(res, 2, k);
  UNPROTECT(5);
  return res;
}
