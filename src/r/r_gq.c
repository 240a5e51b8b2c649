/*
** r_gq.c -- standalone generated quantities ($generate_quantities()).
**
** tp_gq(ctx, upars, chain_id, seed, warmup): for each row i of upars (draws
** x num_upars, the unconstrained points of one chain's draws in order) the
** parameters, transformed parameters and generated quantities, with the
** generator the sampler gives the generated quantities of the chain's i-th
** saved draw of that phase (nuts_run_gq_rng): given a fit's own points and
** its seed, the values are the fit's, bit for bit.  A draw whose generated
** quantities fail keeps its parameters and has NaN for the rest, as in the
** sampler; the messages are attribute "messages".  Runs on R's main thread.
**
** tp_log_prob_full(ctx, upars, jacobian): the log density with every
** constant kept (Stan's log_prob<propto = false>) at each row of upars, NA
** where the program rejects (ADVI's ELBO drops those draws, $variational()).
*/
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "../tree/li.h"
#include "../nuts/nuts_run.h"
#include "r_convert.h"
#include "r_model.h"
#include "r_interrupt.h"
#include "r_entries_gq.h"

#define GQ_PRINT_SIZE ((size_t)1 << 14)

/* The rows of upars, checked to be a draws x n matrix of doubles. */
static size_t upars_rows(SEXP upars, size_t n) {
  SEXP dim = getAttrib(upars, R_DimSymbol);
  if (TYPEOF(upars) != REALSXP || LENGTH(dim) != 2 || (size_t)INTEGER(dim)[1] != n)
    rc_raise_msg("internal: upars must be a draws x num_upars matrix", "tapestry_argument_error");
  return (size_t)INTEGER(dim)[0];
}

SEXP tp_gq(SEXP ctx, SEXP upars, SEXP chain_id, SEXP seed, SEXP warmup) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t n = li_num_upars(c);
  size_t nd = upars_rows(upars, n);
  double sd = asReal(seed);
  if (!R_FINITE(sd) || sd < 0 || sd != floor(sd))
    rc_raise_msg("seed must be a non-negative whole number", "tapestry_argument_error");
  int id = asInteger(chain_id), wu = asLogical(warmup) == TRUE;
  size_t nout = li_num_outputs(c, 1, 1);
  SEXP out = PROTECT(allocMatrix(REALSXP, (int)nd, (int)nout));
  double *row = (double *)R_alloc(nout ? nout : 1, sizeof(double));
  double *q = (double *)R_alloc(n ? n : 1, sizeof(double));
  char *pbuf = R_alloc(GQ_PRINT_SIZE, 1);
  li_print pr;
  pr.buf = pbuf;
  pr.size = GQ_PRINT_SIZE;
  SEXP msgs = PROTECT(allocVector(STRSXP, (R_xlen_t)nd));
  int nmsg = 0;
  for (size_t i = 0; i < nd; i++) {
    for (size_t j = 0; j < n; j++) q[j] = REAL(upars)[i + j * nd];
    tm_rng rng;
    nuts_run_gq_rng(&rng, (uint64_t)sd, id, i, wu);
    char err[1024];
    err[0] = '\0';
    pr.len = 0;
    pbuf[0] = '\0';
    ri_begin();
    int rc = li_write_array(c, q, 1, 1, &rng, row, &pr, err, sizeof err);
    int interrupted = ri_end();
    ad_stack_recover(ad_active);
    if (pr.len > 0 && pbuf[0]) Rprintf("%s", pbuf);
    if (interrupted) ri_raise("Computing the generated quantities");
    if (rc != AD_OK) {
      if (rc != AD_EDOMAIN && rc != AD_EINVALID) rc_raise_msg(err, rc_status_class(rc));
      for (size_t k = 0; k < nout; k++) row[k] = NAN;
      li_write_array(c, q, 0, 0, NULL, row, NULL, NULL, 0);
      ad_stack_recover(ad_active);
      SET_STRING_ELT(msgs, nmsg++, mkCharCE(err, CE_UTF8));
    }
    for (size_t k = 0; k < nout; k++) REAL(out)[i + k * nd] = row[k];
    if (i % 64 == 63) R_CheckUserInterrupt();
  }
  SEXP m = PROTECT(allocVector(STRSXP, nmsg));
  for (int i = 0; i < nmsg; i++) SET_STRING_ELT(m, i, STRING_ELT(msgs, i));
  setAttrib(out, install("messages"), m);
  UNPROTECT(3);
  return out;
}

SEXP tp_log_prob_full(SEXP ctx, SEXP upars, SEXP jacobian) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t n = li_num_upars(c);
  size_t nd = upars_rows(upars, n);
  int jac = asLogical(jacobian) == TRUE;
  SEXP out = PROTECT(allocVector(REALSXP, (R_xlen_t)nd));
  double *q = (double *)R_alloc(n ? n : 1, sizeof(double));
  char *pbuf = R_alloc(GQ_PRINT_SIZE, 1);
  li_print pr;
  pr.buf = pbuf;
  pr.size = GQ_PRINT_SIZE;
  for (size_t i = 0; i < nd; i++) {
    for (size_t j = 0; j < n; j++) q[j] = REAL(upars)[i + j * nd];
    char err[1024];
    err[0] = '\0';
    pr.len = 0;
    pbuf[0] = '\0';
    double lp = NA_REAL;
    ri_begin();
    int rc = li_log_prob_full(c, q, jac, &lp, &pr, err, sizeof err);
    int interrupted = ri_end();
    ad_stack_recover(ad_active);
    if (pr.len > 0 && pbuf[0]) Rprintf("%s", pbuf);
    if (interrupted) ri_raise("The log density evaluation");
    if (rc == AD_EDOMAIN) lp = NA_REAL;
    else if (rc != AD_OK) rc_raise_msg(err, rc_status_class(rc));
    REAL(out)[i] = lp;
    if (i % 256 == 255) R_CheckUserInterrupt();
  }
  UNPROTECT(1);
  return out;
}
