/* r_model.h -- the data context behind an R external pointer, for the other
** entry files of src/r (r_sample.c).  Raises a classed R error when x is not
** a live context. */
#ifndef R_MODEL_H
#define R_MODEL_H
#include <Rinternals.h>
#include "../tree/li.h"
const li_ctx *rm_ctx_of(SEXP x);
#endif
