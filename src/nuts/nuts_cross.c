/*
** nuts_cross.c -- the checks across chains that end warmup and sampling.
**
** The R-hat and ESS are posterior's (nuts_sum_run: rank-normalized split
** R-hat, bulk and tail ESS), computed on the draws of every chain at once.
** They are what a user would look at after the run, so a decision made
** here can be checked with $summary().  The normal scores of the ranks
** come from tm_inv_Phi rather than R's qnorm (the two agree to rounding;
** a decision does not hang on the last bit).
**
** The metric pooled over chains is the variance (or covariance) of all
** the chains' window draws about their common mean, so chains that sit in
** different places widen it rather than each keeping a metric of its own
** corner; it is regularised as Stan regularises one chain's, for the
** number of draws pooled.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nuts_cross.h"
#include "nuts_sum.h"
#include "../math/tm_special_dist.h"

void nuts_cross_rule_default(nuts_cross_rule *rule) {
  rule->rhat_lp = 1.05;
  rule->rhat_par = 1.05;
  rule->ess_min = 100;
  rule->step_ratio = 2;
  rule->div_rate = 0.05;
}

static double *znorm_table(int m, int niter) {
  size_t S = nuts_sum_ranked(m, niter);
  double *z = malloc((2 * S + 1) * sizeof(double));
  if (!z) return NULL;
  z[0] = z[1] = 0;
  for (size_t k = 2; k <= 2 * S; k++)
    z[k] = tm_inv_Phi(((double)k / 2 - 0.375) / ((double)S + 0.25));
  return z;
}

/* The summaries `kinds` of nvars variables whose draws in chain k start
** at seg[v * m + k]; out[v + o * nvars]. */
static int summarise(const double **seg, int nvars, int m, int niter, const nuts_sum_kind *kinds,
                     int nk, int nthreads, double *out) {
  double *z = znorm_table(m, niter);
  if (!z) return AD_EMEMORY;
  nuts_sum_op ops[4];
  memset(ops, 0, sizeof ops);
  for (int o = 0; o < nk; o++) ops[o].kind = kinds[o];
  nuts_sum_job job;
  memset(&job, 0, sizeof job);
  job.nvars = nvars; job.nchains = m; job.niter = niter;
  job.seg = seg; job.znorm = z; job.na = NAN; job.integer = 0;
  job.ops = ops; job.nops = nk; job.out = out; job.capped = NULL;
  int rc = nuts_sum_run(&job, nthreads);
  free(z);
  return rc;
}

/* A missing R-hat or ESS (constant draws, a stuck chain) never passes. */
static int le(double x, double bound) { return !isnan(x) && x <= bound; }
static int ge(double x, double bound) { return !isnan(x) && x >= bound; }

int nuts_cross_warmup_check(nuts_run *const *runs, int m, size_t cur, const nuts_cross_rule *rule,
                            int dense, int nthreads, double *metric, nuts_cross_warm *out) {
  memset(out, 0, sizeof *out);
  size_t n = li_num_upars(runs[0]->ctx), nv = n + 1, rows = runs[0]->wlen;
  if (cur > rows) cur = rows;
  out->niter = (int)rows;
  const double **seg = malloc(nv * (size_t)m * sizeof *seg);
  double *res = malloc(2 * nv * sizeof(double));
  if (!seg || !res) { free(seg); free(res); return AD_EMEMORY; }
  for (size_t v = 0; v < nv; v++)
    for (int k = 0; k < m; k++) seg[v * (size_t)m + k] = runs[k]->wbuf + v * runs[k]->wcap;
  static const nuts_sum_kind kinds[2] = { NUTS_SUM_RHAT, NUTS_SUM_ESS_BULK };
  int rc = summarise(seg, (int)nv, m, (int)rows, kinds, 2, nthreads, res);
  if (rc != AD_OK) { free(seg); free(res); return rc; }
  out->rhat_lp = res[0];
  out->rhat_max = res[0]; out->rhat_var = -1;
  out->ess_min = res[nv]; out->ess_var = -1;
  int ok = le(res[0], rule->rhat_lp) && ge(res[nv], rule->ess_min);
  for (size_t v = 1; v < nv; v++) {
    double r = res[v], e = res[nv + v];
    if (isnan(r) || (!isnan(out->rhat_max) && r > out->rhat_max)) { out->rhat_max = r; out->rhat_var = (int)v - 1; }
    if (isnan(e) || (!isnan(out->ess_min) && e < out->ess_min)) { out->ess_min = e; out->ess_var = (int)v - 1; }
    ok = ok && le(r, rule->rhat_par) && ge(e, rule->ess_min);
  }
  double lo = INFINITY, hi = 0;
  /* divergences in the second half of the window just ended: the first
     half follows a new metric and a restarted dual averaging, whose first
     large step sizes diverge on posteriors that are fine */
  size_t from = rows - cur + cur / 2;
  for (int k = 0; k < m; k++) {
    const double *dv = runs[k]->wbuf + (n + 1) * runs[k]->wcap;
    for (size_t i = from; i < rows; i++) out->divergent += dv[i] != 0;
    double e = nuts_chain_adapted_stepsize(runs[k]->chain);
    if (e < lo) lo = e;
    if (e > hi) hi = e;
  }
  out->step_ratio = hi / lo;
  double half = (double)(rows - from) * m;
  out->div_ok = (double)out->divergent <= rule->div_rate * half;
  ok = ok && out->div_ok && le(out->step_ratio, rule->step_ratio);
  out->agree = ok;

  if (metric) {
    /* the pooled (co)variance: two passes over all draws, about the
       common mean */
    double N = (double)rows * m, *mean = (double *)res;   /* res has 2 nv >= n doubles */
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < m; k++) {
        const double *x = seg[(j + 1) * (size_t)m + k];
        for (size_t i = 0; i < rows; i++) s += x[i];
      }
      mean[j] = s / N;
    }
    double a = N / (N + 5), b = 1e-3 * 5 / (N + 5);
    if (!dense) {
      for (size_t j = 0; j < n; j++) {
        double s = 0;
        for (int k = 0; k < m; k++) {
          const double *x = seg[(j + 1) * (size_t)m + k];
          for (size_t i = 0; i < rows; i++) s += (x[i] - mean[j]) * (x[i] - mean[j]);
        }
        metric[j] = a * s / (N - 1) + b;
      }
    } else {
      for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l <= j; l++) {
          double s = 0;
          for (int k = 0; k < m; k++) {
            const double *x = seg[(j + 1) * (size_t)m + k], *y = seg[(l + 1) * (size_t)m + k];
            for (size_t i = 0; i < rows; i++) s += (x[i] - mean[j]) * (y[i] - mean[l]);
          }
          double c = a * s / (N - 1) + (j == l ? b : 0);
          metric[j + n * l] = metric[l + n * j] = c;
        }
    }
  }
  free(seg);
  free(res);
  return AD_OK;
}

void nuts_cross_window_shift(nuts_run *const *runs, int m, size_t keep) {
  for (int k = 0; k < m; k++) {
    nuts_run *r = runs[k];
    size_t n = li_num_upars(r->ctx);
    if (keep > r->wlen) keep = r->wlen;
    size_t from = r->wlen - keep;
    for (size_t v = 0; v <= n + 1; v++)
      memmove(r->wbuf + v * r->wcap, r->wbuf + v * r->wcap + from, keep * sizeof(double));
    r->wlen = keep;
  }
}

static int constant(const double *const *seg, int m, size_t rows) {
  double x0 = seg[0][0];
  for (int k = 0; k < m; k++)
    for (size_t i = 0; i < rows; i++)
      if (!(seg[k][i] == x0)) return 0;
  return 1;
}

int nuts_cross_sampling_check(nuts_run *const *runs, int m, const int *cols, int ncols,
                              double target, double rhat_max, int nthreads,
                              nuts_cross_samp *out) {
  memset(out, 0, sizeof *out);
  size_t rows = runs[0]->nrows - runs[0]->warmup_rows;
  out->niter = (int)rows;
  out->ess_bulk_min = out->ess_tail_min = out->rhat_max = NAN;
  if (rows < 4 || ncols < 1) return AD_OK;
  const double **seg = malloc((size_t)ncols * (size_t)m * sizeof *seg);
  double *res = malloc(3 * (size_t)ncols * sizeof(double));
  if (!seg || !res) { free(seg); free(res); return AD_EMEMORY; }
  for (int c = 0; c < ncols; c++)
    for (int k = 0; k < m; k++)
      seg[(size_t)c * m + k] = runs[k]->draws + (size_t)cols[c] * runs[k]->cap_rows + runs[k]->warmup_rows;
  static const nuts_sum_kind kinds[3] = { NUTS_SUM_RHAT, NUTS_SUM_ESS_BULK, NUTS_SUM_ESS_TAIL };
  int rc = summarise(seg, ncols, m, (int)rows, kinds, 3, nthreads, res);
  if (rc == AD_OK) {
    /* the worst variable: a missing value first (it never passes), then
       the smallest ESS and the largest R-hat */
    int ok = 1, e_nan = 0, r_nan = 0;
    double worst_e = INFINITY, worst_r = -INFINITY;
    for (int c = 0; c < ncols; c++) {
      double r = res[c], eb = res[ncols + c], et = res[2 * ncols + c];
      /* a value that never moves (the 1 of a Cholesky factor of a
         correlation matrix) has no ESS: it is not waited for */
      if ((isnan(r) || isnan(eb) || isnan(et)) && constant(seg + (size_t)c * m, m, rows)) continue;
      double e = isnan(eb) || isnan(et) ? NAN : eb < et ? eb : et;
      if (!e_nan && (isnan(e) || e < worst_e)) {
        worst_e = e; e_nan = isnan(e);
        out->ess_bulk_min = eb; out->ess_tail_min = et; out->ess_col = cols[c];
      }
      if (!r_nan && (isnan(r) || r > worst_r)) {
        worst_r = r; r_nan = isnan(r);
        out->rhat_max = r; out->rhat_col = cols[c];
      }
      ok = ok && le(r, rhat_max) && ge(eb, target) && ge(et, target);
    }
    out->reached = ok;
  }
  free(seg);
  free(res);
  return rc;
}
