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
/* R error from the current ad_errmsg(), with the status as a condition class. */
void rc_raise(int status);
#endif
