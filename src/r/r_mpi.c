/*
** r_mpi.c -- MPI from R: starting and stopping it with the package, what
** tapestry_mpi_rank() and friends report, and the collective form of the
** context's evaluations (rank 0 evaluates in a session, the other ranks
** serve its map_rect jobs and return its result).
*/
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "../par/pp_mpi.h"
#include "../tree/li_mpi.h"
#include "../ad/ad.h"
#include "../plan/pl.h"
#include "r_convert.h"
#include "r_interrupt.h"
#include "r_model.h"
#include "r_entries.h"

SEXP tp_mpi_start(void) {
  if (pp_mpi_start() != AD_OK) rc_raise_msg(ad_errmsg(), "tapestry_error");
  return ScalarLogical(pp_mpi_running());
}

SEXP tp_mpi_stop(void) {
  pp_mpi_stop();
  return R_NilValue;
}

SEXP tp_mpi_info(void) {
  static const char *const names[] = { "built", "rank", "size", "bytes" };
  SEXP out = PROTECT(rc_named_list(4, names, NULL));
  SET_VECTOR_ELT(out, 0, ScalarLogical(pp_mpi_built()));
  SET_VECTOR_ELT(out, 1, ScalarInteger(pp_mpi_rank()));
  SET_VECTOR_ELT(out, 2, ScalarInteger(pp_mpi_size()));
  SET_VECTOR_ELT(out, 3, ScalarReal(pp_mpi_bytes()));
  UNPROTECT(1);
  return out;
}

int rm_log_prob_collective(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                           li_print *pr, char *err, size_t errsize) {
  size_t n = li_num_upars(c);
  int nres = 1 + (grad ? (int)n : 0);
  if (pp_mpi_rank() > 0) {
    double *res;
    int nr, r0;
    int rc = li_mpi_serve(c, &res, &nr, &r0, err, errsize);
    if (rc) return rc;
    if (r0) return r0;                 /* err holds rank 0's message */
    if (nr != nres) {
      snprintf(err, errsize, "MPI: rank 0 evaluated something else than rank %d (%d results, not %d): "
               "every rank must call the same methods in the same order", pp_mpi_rank(), nr, nres);
      return AD_EINVALID;
    }
    *lp = res[0];
    if (grad && n) memcpy(grad, res + 1, n * sizeof(double));
    return AD_OK;
  }
  pp_mpi_session_open();
  /* Ctrl-C stops the evaluation (r_interrupt.h): AD_EINTERRUPT, whatever
     the evaluation returned, so the caller raises the interrupt */
  ri_begin();
  int rc = pl_log_prob(c, upars, jacobian, lp, grad, pr, err, errsize);
  if (ri_end()) rc = AD_EINTERRUPT;
  if (pp_mpi_session_active()) {
    double *res = (double *)R_alloc((size_t)nres, sizeof(double));
    res[0] = *lp;
    if (grad && n) memcpy(res + 1, grad, n * sizeof(double));
    int crc = pp_mpi_session_close(rc ? NULL : res, rc ? -1 : nres, rc, err);
    if (!rc && crc) {
      snprintf(err, errsize, "%s", ad_errmsg());
      rc = crc;
    }
  }
  return rc;
}

/* A worker's $sample(): serves rank 0's run; NULL when it ended well, else
** rank 0's error. */
SEXP tp_mpi_serve(SEXP ctx) {
  const li_ctx *c = rm_ctx_of(ctx);
  double *res;
  int nr, r0;
  char err[1024];
  int rc = li_mpi_serve(c, &res, &nr, &r0, err, sizeof err);
  ad_stack_recover(ad_active);
  if (rc || r0) rc_raise_msg(err, rc_status_class(rc ? rc : r0));
  return R_NilValue;
}

/* Every rank's raw vector x to rank 0, as a list by rank there (NULL on
** the other ranks): $sample(mpi = "chains") gathers the chains' results. */
SEXP tp_mpi_gather_raw(SEXP x) {
  if (TYPEOF(x) != RAWSXP) rc_raise_msg("internal: tp_mpi_gather_raw takes a raw vector", "tapestry_error");
  int size = pp_mpi_size(), rank = pp_mpi_rank();
  if (size < 2) {
    SEXP out = PROTECT(allocVector(VECSXP, 1));
    SET_VECTOR_ELT(out, 0, x);
    UNPROTECT(1);
    return out;
  }
  if (XLENGTH(x) > 0x7fffffff) rc_raise_msg("MPI: a rank's chains are too large to send (over 2 GB)", "tapestry_error");
  int mine[2] = { 0, (int)XLENGTH(x) };
  int *all = (int *)R_alloc(4 * (size_t)size, sizeof(int));
  int *cnt = all + 2 * size, *dsp = cnt + size;
  if (pp_mpi_gather_ints2(mine, all)) rc_raise_msg(ad_errmsg(), "tapestry_error");
  if (rank > 0) {
    if (pp_mpi_gatherv_bytes(RAW(x), mine[1], NULL, NULL, NULL)) rc_raise_msg(ad_errmsg(), "tapestry_error");
    return R_NilValue;
  }
  double total = 0;
  for (int q = 0; q < size; q++) {
    cnt[q] = all[2 * q + 1];
    dsp[q] = (int)total;
    total += cnt[q];
  }
  if (total > 0x7fffffff) rc_raise_msg("MPI: the chains are too large to gather (over 2 GB)", "tapestry_error");
  SEXP buf = PROTECT(allocVector(RAWSXP, (R_xlen_t)total));
  if (pp_mpi_gatherv_bytes(RAW(x), mine[1], RAW(buf), cnt, dsp)) rc_raise_msg(ad_errmsg(), "tapestry_error");
  SEXP out = PROTECT(allocVector(VECSXP, size));
  for (int q = 0; q < size; q++) {
    SEXP part = allocVector(RAWSXP, cnt[q]);
    SET_VECTOR_ELT(out, q, part);
    if (cnt[q]) memcpy(RAW(part), RAW(buf) + dsp[q], (size_t)cnt[q]);
  }
  UNPROTECT(2);
  return out;
}
