/*
** r_memory.c -- tp_memory_limit: the memory budget of src/ad/ad_mem.c from R
** (R/memory.R, tapestry_memory_limit()).
*/
#include <math.h>
#include <Rinternals.h>
#include "../ad/ad.h"
#include "r_convert.h"
#include "r_entries_threads.h"

/* Sets the limit when bytes is a number (NULL: leaves it); returns
** c(limit = , used = ) in bytes. */
SEXP tp_memory_limit(SEXP bytes) {
  if (bytes != R_NilValue) {
    if (!isReal(bytes) || LENGTH(bytes) != 1 || ISNAN(REAL(bytes)[0]) || REAL(bytes)[0] < 1)
      rc_raise_msg("the memory limit must be a positive number of bytes", "tapestry_invalid_argument");
    double b = REAL(bytes)[0];
    ad_mem_set_limit(b >= 1.8e19 ? (size_t)-1 : (size_t)b);
  }
  SEXP r = PROTECT(allocVector(REALSXP, 2));
  SEXP nm = PROTECT(allocVector(STRSXP, 2));
  REAL(r)[0] = (double)ad_mem_limit();
  REAL(r)[1] = (double)ad_mem_used();
  SET_STRING_ELT(nm, 0, mkChar("limit"));
  SET_STRING_ELT(nm, 1, mkChar("used"));
  setAttrib(r, R_NamesSymbol, nm);
  UNPROTECT(2);
  return r;
}
