/*
** r_check.c -- tp_check: parse and check a Stan program, returning the tree
** and what the checker decided as text (tests and debugging).
*/
#include <stdlib.h>
#include <string.h>
#include <Rinternals.h>
#include "../lang/ln.h"
#include "../lang/lc.h"
#include "r_entries_check.h"

/* R error of class `cls` (after tapestry_error), raised by
** R/internal.R:tapestry_raise.  The message is an R string already, so no
** C memory is held when R unwinds. */
static void raise_classed(SEXP msg, const char *cls) {
  SEXP fn = PROTECT(install("tapestry_raise"));
  SEXP ns = PROTECT(R_FindNamespace(mkString("tapestry")));
  SEXP call = PROTECT(lang3(fn, msg, mkString(cls)));
  eval(call, ns);   /* does not return */
  UNPROTECT(3);
}

static SEXP lines(const char *s) {
  int n = 0;
  for (const char *c = s; c && *c; c++) n += *c == '\n';
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

SEXP tp_check(SEXP code, SEXP filename) {
  if (!isString(code) || XLENGTH(code) != 1 || STRING_ELT(code, 0) == NA_STRING)
    error("'code' must be a single string");
  if (!isString(filename) || XLENGTH(filename) != 1 || STRING_ELT(filename, 0) == NA_STRING)
    error("'filename' must be a single string");
  const char *src = translateCharUTF8(STRING_ELT(code, 0));
  char err[8192];
  ln_program *p = ln_parse(translateCharUTF8(STRING_ELT(filename, 0)), src, strlen(src), err, sizeof err);
  if (!p) {
    SEXP m = PROTECT(ScalarString(mkCharCE(err, CE_UTF8)));
    raise_classed(m, "tapestry_syntax_error");
    UNPROTECT(1);
    return R_NilValue;
  }
  if (ln_check(p, err, sizeof err) != AD_OK) {
    ln_program_free(p);
    SEXP m = PROTECT(ScalarString(mkCharCE(err, CE_UTF8)));
    raise_classed(m, "tapestry_semantic_error");
    UNPROTECT(1);
    return R_NilValue;
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
  SEXP k = PROTECT(lines(checked));
  free(checked);
  SEXP w = PROTECT(lines(p->warnings));
  ln_program_free(p);
  SET_VECTOR_ELT(res, 0, ScalarString(d));
  SET_VECTOR_ELT(res, 1, w);
  SET_VECTOR_ELT(res, 2, k);
  UNPROTECT(5);
  return res;
}
