/* r_convert.h -- between R objects and tm_v values (main thread only). */
#ifndef R_CONVERT_H
#define R_CONVERT_H
#include <Rinternals.h>
#include "../math/tm.h"
/* Parse a Stan type ("array[,] vector") into base and number of array dims. */
int  rc_parse_type(const char *type, int *base, int *narr);
/* Build a value of that type from x in the active arena; ad: make leaves.
** Fails with a message naming the argument on a shape mismatch. */
int  rc_from_r(SEXP x, const char *type, int ad, const char *argname, tm_v *out);
SEXP rc_to_r(const tm_v *v);
/* The condition class of a failed model evaluation with this status. */
const char *rc_status_class(int status);
/* R error from the current ad_errmsg(), with the status as a condition class. */
void rc_raise(int status);
/* R error of class c(cls, "tapestry_error", "error", "condition") with msg
** (UTF-8; copied into R first, so the caller may free nothing after);
** raised by R/internal.R:tapestry_raise and never returns. */
_Noreturn void rc_raise_msg(const char *msg, const char *cls);
/* The CHARSXP of x when x is one non-NA string; otherwise raises a
** tapestry_argument_error "'<name>' must be a single string". */
SEXP rc_string_arg(SEXP x, const char *name);
/* A list of n elements named names[i]: vals[i], or NULL elements when vals
** is NULL (the caller fills them).  vals need not be protected beyond the
** call. */
SEXP rc_named_list(int n, const char *const *names, SEXP *vals);
/* text split at newlines into a character vector (no empty last element). */
SEXP rc_lines(const char *text);
#endif
