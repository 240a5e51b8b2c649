/*
** r_parse.c -- tp_parse: parse a Stan program and return its tree as text
** (tests and debugging; the model entry points parse and check for real).
*/
#include <stdlib.h>
#include <string.h>
#include <Rinternals.h>
#include "../lang/ln.h"
#include "r_entries_parse.h"

/* R error of class tapestry_syntax_error (after tapestry_error), raised by
** R/internal.R:tapestry_raise.  The message is copied into an R string
** before the call, so no C memory is held when R unwinds. */
static void raise_syntax_error(SEXP msg) {
  SEXP fn = PROTECT(install("tapestry_raise"));
  SEXP ns = PROTECT(R_FindNamespace(mkString("tapestry")));
  SEXP call = PROTECT(lang3(fn, msg, mkString("tapestry_syntax_error")));
  eval(call, ns);   /* does not return */
  UNPROTECT(3);
}

/* The warnings, one per line, as a character vector. */
static SEXP split_lines(const char *s) {
  int n = 0;
  for (const char *c = s; c && *c; c++) if (*c == '\n') n++;
  if (s && *s && s[strlen(s) - 1] != '\n') n++;
  SEXP out = PROTECT(allocVector(STRSXP, n));
  const char *c = s;
  for (int i = 0; i < n; i++) {
    const char *e = strchr(c, '\n');
    size_t len = e ? (size_t)(e - c) : strlen(c);
    SET_STRING_ELT(out, i, mkCharLenCE(c, (int)len, CE_UTF8));
    c = e ? e + 1 : c + len;
  }
  UNPROTECT(1);
  return out;
}

SEXP tp_parse(SEXP code, SEXP filename) {
  if (!isString(code) || XLENGTH(code) != 1 || STRING_ELT(code, 0) == NA_STRING)
    error("'code' must be a single string");
  if (!isString(filename) || XLENGTH(filename) != 1 || STRING_ELT(filename, 0) == NA_STRING)
    error("'filename' must be a single string");
  /* The bytes as they are, unless R knows them to be latin1: translating
  ** invalid UTF-8 would turn a stray byte into the text "<ff>".  R strings
  ** hold no NUL, so strlen is the length. */
  SEXP cs = STRING_ELT(code, 0);
  const char *src = getCharCE(cs) == CE_LATIN1 ? translateCharUTF8(cs) : CHAR(cs);
  size_t len = strlen(src);
  char err[4096];
  ln_program *p = ln_parse(translateCharUTF8(STRING_ELT(filename, 0)), src, len, err, sizeof err);
  if (!p) {
    SEXP msg = PROTECT(mkCharCE(err, CE_UTF8));
    SEXP m = PROTECT(ScalarString(msg));
    raise_syntax_error(m);
    UNPROTECT(2);
    return R_NilValue;
  }
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
  SEXP w = PROTECT(split_lines(p->warnings));
  ln_program_free(p);
  SET_VECTOR_ELT(res, 0, ScalarString(d));
  SET_VECTOR_ELT(res, 1, w);
  UNPROTECT(4);
  return res;
}
