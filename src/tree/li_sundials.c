/*
** li_sundials.c -- the failure handling the SUNDIALS-based solvers share
** (see li_sundials.h).  Only li_sun_free needs SUNDIALS's headers, so
** tools/cross-windows.sh compiles this file with them as well.
*/
#include <stdio.h>
#include "li_int.h"
#include "li_sundials.h"

int li_sun_callback_failed(li_sun_fail *f, int rc) {
  if (!f->status) {
    f->status = rc;
    snprintf(f->msg, sizeof f->msg, "%s", ad_errmsg());
  }
  return -1;
}

void li_sun_err_handler(int code, const char *module, const char *function, char *msg, void *eh_data) {
  (void)code; (void)module; (void)function;
  li_sun_fail *f = eh_data;
  if (!f->status) snprintf(f->msg, sizeof f->msg, "%s", msg);
}

int li_sun_setup_failed(const char *name, const li_sun_fail *f) {
  return ad_fail(AD_EINVALID, "%s: the solver could not be set up: %s", name, f->msg);
}

int li_sun_step_failed(const li_sun_fail *f, const char *name, int too_much_work, double t_out, double t) {
  if (f->status) return ad_fail(f->status, "%s", f->msg);
  if (too_much_work)
    return ad_fail(AD_EDOMAIN, "%s: Failed to integrate to next output time (%g) in less than max_num_steps "
                   "steps", name, t_out);
  return ad_fail(AD_EDOMAIN, "%s: the solver failed at t = %g: %s", name, t, f->msg[0] ? f->msg : "error");
}

int li_sun_missing(const char *name) {
  return ad_fail(AD_EINVALID, "%s needs SUNDIALS, which this build of tapestry was made without: install it "
                 "(Debian/Ubuntu: apt-get install libsundials-dev) and reinstall tapestry", name);
}

#ifdef TAPESTRY_SUNDIALS
void li_sun_free(SUNLinearSolver LS, SUNMatrix A, N_Vector *v, int nv, SUNContext *ctx) {
  if (LS) SUNLinSolFree(LS);
  if (A) SUNMatDestroy(A);
  for (int i = 0; i < nv; i++)
    if (v[i]) N_VDestroy(v[i]);
  SUNContext_Free(ctx);
}
#endif
