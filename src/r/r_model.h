/* r_model.h -- the data context behind an R external pointer, for the other
** entry files of src/r (r_sample.c).  Raises a classed R error when x is not
** a live context. */
#ifndef R_MODEL_H
#define R_MODEL_H
#include <Rinternals.h>
#include "../tree/li.h"
const li_ctx *rm_ctx_of(SEXP x);
/* pl_log_prob as a collective call of an MPI job (r_mpi.c): rank 0
** evaluates in a session and sends its result to the other ranks, which
** serve its map_rect jobs meanwhile and return that result.  Without MPI,
** pl_log_prob. */
int rm_log_prob_collective(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                           li_print *pr, char *err, size_t errsize);
#endif
