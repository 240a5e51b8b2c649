/*
** r_summary.c -- summaries, sampler checks and posterior's draws_array
** from the draws where they are, for R/summary.R and R/fit.R.
**
** Draws come as one of two shapes: a 3-d double array (iterations x
** chains x variables, posterior's draws_array: the internal entry point
** the tests use on arbitrary draws), or the fit's chains, a list of
** draws matrices (rows = iterations, columns = outputs, as the sampler
** wrote them) with, per chain, the first post-warmup row, the number of
** rows and the columns asked for.  Either way every (variable, chain) is a
** contiguous run of doubles, so the C code reads R's memory in place;
** pointers are taken here, on the main thread, and the workers of
** src/nuts/nuts_sum_run.c only read them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include <Rmath.h>
#include "../nuts/nuts_sum.h"
#include "../par/pp.h"
#include "r_convert.h"
#include "r_entries_summary.h"

/* Per (variable, chain) pointers into x: an array, or list(chains, first,
** n, cols).  Sets *nvars, *nchains, *niter.  R memory (R_alloc). */
static const double **segments(SEXP x, int *nvars, int *nchains, int *niter) {
  if (isArray(x) && TYPEOF(x) == REALSXP) {
    SEXP dim = getAttrib(x, R_DimSymbol);
    if (LENGTH(dim) != 3) rc_raise_msg("internal: draws must be a 3-d array", "tapestry_argument_error");
    int n = INTEGER(dim)[0], m = INTEGER(dim)[1], v = INTEGER(dim)[2];
    const double **seg = (const double **)R_alloc((size_t)v * (size_t)m + 1, sizeof *seg);
    const double *base = REAL(x);
    for (int k = 0; k < v; k++)
      for (int j = 0; j < m; j++)
        seg[(size_t)k * (size_t)m + (size_t)j] = base + ((size_t)k * (size_t)m + (size_t)j) * (size_t)n;
    *nvars = v; *nchains = m; *niter = n;
    return seg;
  }
  if (TYPEOF(x) != VECSXP || LENGTH(x) != 4)
    rc_raise_msg("internal: draws must be an array or list(chains, first, n, cols)", "tapestry_argument_error");
  SEXP chains = VECTOR_ELT(x, 0), first = VECTOR_ELT(x, 1), cols = VECTOR_ELT(x, 3);
  int n = asInteger(VECTOR_ELT(x, 2)), m = LENGTH(chains), v = LENGTH(cols);
  if (TYPEOF(first) != INTSXP || LENGTH(first) != m || TYPEOF(cols) != INTSXP || n < 0)
    rc_raise_msg("internal: bad chains of draws", "tapestry_argument_error");
  const double **seg = (const double **)R_alloc((size_t)v * (size_t)m + 1, sizeof *seg);
  for (int j = 0; j < m; j++) {
    SEXP d = VECTOR_ELT(chains, j);
    if (TYPEOF(d) != REALSXP || !isMatrix(d))
      rc_raise_msg("internal: a chain's draws must be a double matrix", "tapestry_argument_error");
    int nr = nrows(d), nc = ncols(d), f = INTEGER(first)[j];
    if (f < 0 || f + n > nr) rc_raise_msg("internal: rows out of range", "tapestry_argument_error");
    for (int k = 0; k < v; k++) {
      int c = INTEGER(cols)[k];
      if (c < 1 || c > nc) rc_raise_msg("internal: column out of range", "tapestry_argument_error");
      seg[(size_t)k * (size_t)m + (size_t)j] = REAL(d) + (size_t)(c - 1) * (size_t)nr + (size_t)f;
    }
  }
  *nvars = v; *nchains = m; *niter = n;
  return seg;
}

/* The threads of work outside sampling: the main thread's budget
** (tapestry_set_num_threads()) or the pool the last run left, whichever is
** larger, at most the cores; the pool grows to match.  Called only
** between runs, when no task is queued. */
static int summary_threads(SEXP threads) {
  int k = isNull(threads) ? 0 : asInteger(threads);
  if (k == NA_INTEGER || k < 1) {
    k = pp_threads();
    if (pp_pool_size() + 1 > k) k = pp_pool_size() + 1;
    if (k > pp_cores()) k = pp_cores();
  }
  if (k < 1) k = 1;
  if (k - 1 > pp_pool_size() && pp_pool_resize(k - 1) != AD_OK) k = pp_pool_size() + 1;
  return k;
}

/* The normal scores of every average rank among S values, with R's qnorm:
** znorm[k] for the rank k / 2.  Kept from one call to the next (on R's
** thread only), as every summary of a fit has the same S and its 2S qnorm
** calls were a fifth of a small fit's summary; not kept beyond 2^20 draws. */
static double *scores_kept;
static size_t scores_S;

static const double *normal_scores(size_t S) {
  if (scores_kept && scores_S == S) return scores_kept;
  double *z = NULL;
  if (S <= ((size_t)1 << 20) && (z = malloc((2 * S + 2) * sizeof *z))) {
    free(scores_kept);
    scores_kept = z;
    scores_S = S;
  } else {
    z = (double *)R_alloc(2 * S + 2, sizeof *z);
  }
  double denom = ((double)S - 2 * 0.375) + 1;
  z[0] = z[1] = 0;
  for (size_t k = 2; k <= 2 * S; k++) z[k] = qnorm(((double)k / 2 - 0.375) / denom, 0.0, 1.0, 1, 0);
  z[2 * S + 1] = 0;
  return z;
}

/* tp_summary(draws, kinds, probs, lo, hi, threads, integer): a nvars x nops matrix,
** with attribute "capped", the number of ESS values of each variable that
** posterior caps (and warns about).  kinds: nuts_sum_kind codes; probs:
** their probabilities; lo, hi: per op NULL or one value per variable
** (NUTS_SUM_ORDER_HALFDIFF); integer: the draws were R integers (the
** caller made them doubles; R's mean() of integers differs in the last
** bits). */
SEXP tp_summary(SEXP draws, SEXP kinds, SEXP probs, SEXP lo, SEXP hi, SEXP threads, SEXP integer) {
  int nvars, nchains, niter;
  const double **seg = segments(draws, &nvars, &nchains, &niter);
  int nops = LENGTH(kinds);
  if (TYPEOF(kinds) != INTSXP || TYPEOF(probs) != REALSXP || LENGTH(probs) != nops ||
      TYPEOF(lo) != VECSXP || TYPEOF(hi) != VECSXP || LENGTH(lo) != nops || LENGTH(hi) != nops)
    rc_raise_msg("internal: bad summary ops", "tapestry_argument_error");
  nuts_sum_op *ops = (nuts_sum_op *)R_alloc((size_t)nops + 1, sizeof *ops);
  for (int o = 0; o < nops; o++) {
    int k = INTEGER(kinds)[o];
    if (k < 0 || k >= NUTS_SUM_NKINDS) rc_raise_msg("internal: bad summary op", "tapestry_argument_error");
    ops[o].kind = (nuts_sum_kind)k;
    ops[o].prob = REAL(probs)[o];
    ops[o].lo = ops[o].hi = NULL;
    if (k == NUTS_SUM_ORDER_HALFDIFF) {
      SEXP l = VECTOR_ELT(lo, o), h = VECTOR_ELT(hi, o);
      if (TYPEOF(l) != REALSXP || TYPEOF(h) != REALSXP || LENGTH(l) != nvars || LENGTH(h) != nvars)
        rc_raise_msg("internal: bad order statistics", "tapestry_argument_error");
      ops[o].lo = REAL(l);
      ops[o].hi = REAL(h);
    }
  }
  const double *znorm = normal_scores(nuts_sum_ranked(nchains, niter));
  SEXP out = PROTECT(allocMatrix(REALSXP, nvars, nops));
  SEXP capped = PROTECT(allocVector(INTSXP, nvars));
  int nthreads = summary_threads(threads);
  nuts_sum_job job = {
    .nvars = nvars,
    .nchains = nchains,
    .niter = niter,
    .seg = seg,
    .znorm = znorm,
    .na = NA_REAL,
    .integer = asLogical(integer) == TRUE,
    .ops = ops,
    .nops = nops,
    .out = REAL(out),
    .capped = INTEGER(capped),
  };
  if (nvars > 0 && niter > 0) {
    int rc = nuts_sum_run(&job, nthreads);
    if (rc != AD_OK) rc_raise(rc);
  } else {
    for (int i = 0; i < nvars; i++) INTEGER(capped)[i] = 0;
  }
  setAttrib(out, install("capped"), capped);
  UNPROTECT(2);
  return out;
}

/* tp_hmc_diag(chains, first, n, cols, max_depth): per chain the divergent
** transitions, those at the maximum tree depth, the E-BFMI and whether
** any energy is NA, from the columns (divergent__, treedepth__, energy__)
** of the post-warmup rows. */
SEXP tp_hmc_diag(SEXP chains, SEXP first, SEXP n, SEXP cols, SEXP max_depth) {
  SEXP x = PROTECT(allocVector(VECSXP, 4));
  SET_VECTOR_ELT(x, 0, chains);
  SET_VECTOR_ELT(x, 1, first);
  SET_VECTOR_ELT(x, 2, n);
  SET_VECTOR_ELT(x, 3, cols);
  int nvars, nchains, niter;
  const double **seg = segments(x, &nvars, &nchains, &niter);
  if (nvars != 3) rc_raise_msg("internal: three diagnostic columns", "tapestry_argument_error");
  static const char *const names[] = { "num_divergent", "num_max_treedepth", "ebfmi", "energy_na" };
  SEXP out = PROTECT(rc_named_list(4, names, NULL));
  SEXP nd = allocVector(INTSXP, nchains);
  SET_VECTOR_ELT(out, 0, nd);
  SEXP nt = allocVector(INTSXP, nchains);
  SET_VECTOR_ELT(out, 1, nt);
  SEXP eb = allocVector(REALSXP, nchains);
  SET_VECTOR_ELT(out, 2, eb);
  SEXP ena = allocVector(LGLSXP, nchains);
  SET_VECTOR_ELT(out, 3, ena);
  int depth = asInteger(max_depth);
  for (int j = 0; j < nchains; j++) {
    const double *e = seg[2 * (size_t)nchains + j];
    nuts_sum_hmc(seg[j], seg[(size_t)nchains + j], e, (size_t)niter,
                 depth, NA_REAL, &INTEGER(nd)[j], &INTEGER(nt)[j], &REAL(eb)[j]);
    int na = 0;
    for (int i = 0; i < niter && !na; i++) na = ISNAN(e[i]);
    LOGICAL(ena)[j] = na;
  }
  UNPROTECT(2);
  return out;
}

/* tp_draws_array(chains, first, nw, ns, cols, names): posterior's
** draws_array of the columns `cols` of the chains, iterations x chains x
** variables: the first nw rows of each chain (its warmup) followed by ns
** rows from row first[j] (its sampling), with posterior's dimnames and
** class, as posterior::as_draws_array() makes them. */
SEXP tp_draws_array(SEXP chains, SEXP first, SEXP nw, SEXP ns, SEXP cols, SEXP names) {
  int w = asInteger(nw), s = asInteger(ns), m = LENGTH(chains), v = LENGTH(cols);
  if (w < 0 || s < 0 || TYPEOF(first) != INTSXP || LENGTH(first) != m || TYPEOF(cols) != INTSXP ||
      TYPEOF(names) != STRSXP || LENGTH(names) != v)
    rc_raise_msg("internal: bad draws request", "tapestry_argument_error");
  int n = w + s;
  for (int j = 0; j < m; j++) {
    SEXP d = VECTOR_ELT(chains, j);
    if (TYPEOF(d) != REALSXP || !isMatrix(d) || INTEGER(first)[j] < w ||
        INTEGER(first)[j] + s > nrows(d))
      rc_raise_msg("internal: bad chain draws", "tapestry_argument_error");
    for (int k = 0; k < v; k++)
      if (INTEGER(cols)[k] < 1 || INTEGER(cols)[k] > ncols(d))
        rc_raise_msg("internal: column out of range", "tapestry_argument_error");
  }
  SEXP dim = PROTECT(allocVector(INTSXP, 3));
  INTEGER(dim)[0] = n; INTEGER(dim)[1] = m; INTEGER(dim)[2] = v;
  SEXP arr = PROTECT(allocArray(REALSXP, dim));
  double *a = REAL(arr);
  for (int k = 0; k < v; k++) {
    for (int j = 0; j < m; j++) {
      SEXP d = VECTOR_ELT(chains, j);
      const double *col = REAL(d) + (size_t)(INTEGER(cols)[k] - 1) * (size_t)nrows(d);
      double *to = a + ((size_t)k * (size_t)m + (size_t)j) * (size_t)n;
      if (w) memcpy(to, col, (size_t)w * sizeof(double));
      if (s) memcpy(to + w, col + INTEGER(first)[j], (size_t)s * sizeof(double));
    }
  }
  SEXP dn = PROTECT(allocVector(VECSXP, 3));
  SEXP it = allocVector(STRSXP, n);
  SET_VECTOR_ELT(dn, 0, it);
  char buf[32];
  for (int i = 0; i < n; i++) { snprintf(buf, sizeof buf, "%d", i + 1); SET_STRING_ELT(it, i, mkChar(buf)); }
  SEXP ch = allocVector(STRSXP, m);
  SET_VECTOR_ELT(dn, 1, ch);
  for (int j = 0; j < m; j++) { snprintf(buf, sizeof buf, "%d", j + 1); SET_STRING_ELT(ch, j, mkChar(buf)); }
  SET_VECTOR_ELT(dn, 2, names);
  static const char *const dnn[] = { "iteration", "chain", "variable" };
  SEXP nms = PROTECT(allocVector(STRSXP, 3));
  for (int i = 0; i < 3; i++) SET_STRING_ELT(nms, i, mkChar(dnn[i]));
  setAttrib(dn, R_NamesSymbol, nms);
  setAttrib(arr, R_DimNamesSymbol, dn);
  static const char *const cls[] = { "draws_array", "draws", "array" };
  SEXP cl = PROTECT(allocVector(STRSXP, 3));
  for (int i = 0; i < 3; i++) SET_STRING_ELT(cl, i, mkChar(cls[i]));
  setAttrib(arr, R_ClassSymbol, cl);
  UNPROTECT(5);
  return arr;
}
