/*
** li_sundials.h -- what the SUNDIALS-based solvers (li_ode.c's CVODES and
** ARKODE, li_dae.c's IDAS, li_solve.c's KINSOL) share: how a failure in a
** callback or a message from the solver reaches the caller, and the
** messages a failed set-up, a failed step or a build without SUNDIALS give.
** Only li_sun_free needs SUNDIALS's headers (under TAPESTRY_SUNDIALS);
** the rest compiles in every build.  The messages are the same word for
** word in the three solvers.
*/
#ifndef LI_SUNDIALS_H
#define LI_SUNDIALS_H

/* A solver's callbacks cannot return our status codes (SUNDIALS wants -1),
** so the first failure inside f and its message are kept here; otherwise
** msg is the solver's own last error message. */
typedef struct li_sun_fail {
  int status;                   /* the first failure inside a callback; 0 if none */
  char msg[1024];
} li_sun_fail;

/* A callback's rc != 0: keeps rc and ad_errmsg() unless a failure is kept
** already, and returns -1, SUNDIALS's "unrecoverable: stop". */
int li_sun_callback_failed(li_sun_fail *f, int rc);

/* The error handler for CVODES, ARKODE, IDAS and KINSOL (their
** ErrHandlerFn types are this one); eh_data is the solver's li_sun_fail.
** The solver's message is kept only when no callback failed first. */
void li_sun_err_handler(int code, const char *module, const char *function, char *msg, void *eh_data);

/* "NAME: the solver could not be set up: MSG" */
int li_sun_setup_failed(const char *name, const li_sun_fail *f);

/* A step to the output time t_out failed at t: the callback's failure if
** one was kept, Stan's max_num_steps message when too_much_work, else the
** solver's message. */
int li_sun_step_failed(const li_sun_fail *f, const char *name, int too_much_work, double t_out, double t);

/* NAME called in a build made without SUNDIALS. */
int li_sun_missing(const char *name);

#ifdef TAPESTRY_SUNDIALS
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>

/* A solve's end, after the solver's own memory is freed: its linear
** solver, matrix and the nv vectors in v (any of them NULL when never
** made), then the context, in that order. */
void li_sun_free(SUNLinearSolver LS, SUNMatrix A, N_Vector *v, int nv, SUNContext *ctx);
#endif

#endif
