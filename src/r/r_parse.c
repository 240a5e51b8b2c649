/*
** r_parse.c -- tp_parse: parse a Stan program and return its tree as text
** (tests and debugging; the model entry points parse and check for real).
*/
#include <stdlib.h>
#include <string.h>
#include <Rinternals.h>
#include "../front/ln.h"
#include "r_convert.h"
#include "r_entries_parse.h"

SEXP tp_parse(SEXP code, SEXP filename) {
  /* The bytes as they are, unless R knows them to be latin1: translating
  ** invalid UTF-8 would turn a stray byte into the text "<ff>".  R strings
  ** hold no NUL, so strlen is the length. */
  SEXP cs = rc_string_arg(code, "code");
  const char *src = getCharCE(cs) == CE_LATIN1 ? translateCharUTF8(cs) : CHAR(cs);
  const char *fname = translateCharUTF8(rc_string_arg(filename, "filename"));
  size_t len = strlen(src);
  char err[4096];
  ln_program *p = ln_parse(fname, src, len, err, sizeof err);
  if (!p) rc_raise_msg(err, "tapestry_syntax_error");   /* err is a local buffer */
  return rp_program_text(p, NULL);
}

SEXP rp_program_text(ln_program *p, char *checked) {
  char *dump = ln_dump(p);
  if (!dump) {
    free(checked);
    ln_program_free(p);
    error("tapestry: out of memory");
  }
  int n = checked ? 3 : 2;
  SEXP res = PROTECT(allocVector(VECSXP, n));
  SEXP names = PROTECT(allocVector(STRSXP, n));
  SET_STRING_ELT(names, 0, mkChar("dump"));
  SET_STRING_ELT(names, 1, mkChar("warnings"));
  if (checked) SET_STRING_ELT(names, 2, mkChar("checked"));
  setAttrib(res, R_NamesSymbol, names);
  /* Each C buffer is freed as soon as R holds a copy of it. */
  SEXP d = PROTECT(mkCharCE(dump, CE_UTF8));
  free(dump);
  SET_VECTOR_ELT(res, 0, ScalarString(d));
  if (checked) {
    SET_VECTOR_ELT(res, 2, rc_lines(checked));
    free(checked);
  }
  SET_VECTOR_ELT(res, 1, rc_lines(p->warnings));
  ln_program_free(p);
  UNPROTECT(3);
  return res;
}
