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
  char *dump = ln_dump(p);
  if (!dump) {
    ln_program_free(p);
    error("tapestry: out of memory");
  }
  SEXP res = PROTECT(allocVector(VECSXP, 2));
  SEXP names = PROTECT(allocVector(STRSXP, 2));
  SET_STRING_ELT(names, 0, mkChar("dump"));
  SET_STRING_ELT(names, 1, mkChar("warnings"));
  setAttrib(res, R_NamesSymbol, names);
  /* Each C buffer is freed as soon as R holds a copy of it. */
  SEXP d = PROTECT(mkCharCE(dump, CE_UTF8));
  free(dump);
  SEXP w = PROTECT(rc_lines(p->warnings));
  ln_program_free(p);
  SET_VECTOR_ELT(res, 0, ScalarString(d));
  SET_VECTOR_ELT(res, 1, w);
  UNPROTECT(4);
  return res;
}
