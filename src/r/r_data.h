/* r_data.h -- an R list of data as an ld_set (src/data/ld.h); main thread only. */
#ifndef R_DATA_H
#define R_DATA_H
#include <stddef.h>
#include <Rinternals.h>
#include "../data/ld.h"

/* Adds every element of the named list x to out: numeric, integer or
** logical vectors, matrices and arrays (dim attribute; R's column-major
** order becomes ld.h's row-major), data frames (as matrices), and lists of
** these (arrays of arrays; they must be rectangular).  A vector without dim
** of length n has dims {n}; inside a list, a vector of length 1 is a scalar,
** as jsonlite and cmdstanr write it (list(1, 2) is an array of 2).  NA is an
** error, NaN is not.  Calls no R function that can raise an R error, so it
** never unwinds past the memory it holds.  AD_OK, or AD_EINVALID (or
** AD_EMEMORY) with a message naming the variable in err; on failure out is
** as it was given. */
int rd_from_r(SEXP x, ld_set *out, char *err, size_t errsize);

#endif
