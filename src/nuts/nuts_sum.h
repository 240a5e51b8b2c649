/*
** nuts_sum.h -- summaries and convergence diagnostics of draws, as the
** 'posterior' R package (version 1.4) defines them, computed in C over
** variables in parallel on the pool.
**
** posterior's R code is the reference, number for number: the same
** arithmetic in the same order wherever R's result depends on it (means
** and variances summed in long double in two passes as R's mean() and
** var() do, quantiles of type 7, ranks with ties averaged, chains split
** in half as .split_chains() splits them, Geyer's truncation as .ess()
** applies it), so a summary equals posterior's to rounding.  The one
** thing computed differently is the autocovariance: posterior takes it
** from an FFT, this module sums the first lags directly and goes to an FFT
** of its own only when Geyer's sequence runs long; both are the same
** numbers up to rounding (about 1e-16 of the variance).
**
** Two things posterior takes from R's numerical library are given by the
** caller instead, so nothing here calls R: the normal scores of the
** rank-normalisation (qnorm of every rank a summary can meet, a table)
** and, for the Monte Carlo standard errors of quantiles, the order
** statistics that qbeta() picks (a second pass, NUTS_SUM_ORDER_HALFDIFF).
**
** Nothing here calls R; the draws are only read.
*/
#ifndef NUTS_SUM_H
#define NUTS_SUM_H

#include <stddef.h>

/* One output column.  Each is the function of posterior (or R's stats)
** named in the comment, applied to one variable's iterations x chains
** draws. */
typedef enum nuts_sum_kind {
  NUTS_SUM_MEAN = 0,        /* base::mean */
  NUTS_SUM_MEDIAN,          /* stats::median */
  NUTS_SUM_SD,              /* stats::sd */
  NUTS_SUM_VAR,             /* stats::var */
  NUTS_SUM_MAD,             /* stats::mad */
  NUTS_SUM_QUANTILE,        /* quantile2 / stats::quantile, type 7, at `prob` */
  NUTS_SUM_RHAT,            /* rhat: rank-normalized split R-hat (bulk and folded) */
  NUTS_SUM_RHAT_BASIC,      /* rhat_basic: split R-hat of the draws */
  NUTS_SUM_ESS_BULK,        /* ess_bulk */
  NUTS_SUM_ESS_TAIL,        /* ess_tail */
  NUTS_SUM_ESS_MEAN,        /* ess_mean, ess_basic */
  NUTS_SUM_ESS_SD,          /* ess_sd */
  NUTS_SUM_ESS_QUANTILE,    /* ess_quantile at `prob` (ess_median: 0.5) */
  NUTS_SUM_MCSE_MEAN,       /* mcse_mean */
  NUTS_SUM_MCSE_SD,         /* mcse_sd */
  NUTS_SUM_ORDER_HALFDIFF,  /* (x(hi) - x(lo)) / 2 of the sorted draws, lo and hi per variable
                               (1-based; NaN gives NA): mcse_quantile's last step */
  NUTS_SUM_NKINDS
} nuts_sum_kind;

typedef struct nuts_sum_op {
  nuts_sum_kind kind;
  double prob;              /* QUANTILE, ESS_QUANTILE */
  const double *lo, *hi;    /* ORDER_HALFDIFF: one each per variable */
} nuts_sum_op;

typedef struct nuts_sum_job {
  int nvars, nchains, niter;
  /* seg[v * nchains + j]: the niter draws of variable v in chain j, in order */
  const double *const *seg;
  /* znorm[k] for k = 2 .. 2S (S = nuts_sum_ranked(nchains, niter)): the
     normal score of average rank k / 2 among S values,
     qnorm((k/2 - 3/8) / (S - 3/4 + 1)), as posterior's z_scale() computes it */
  const double *znorm;
  double na;                /* the caller's missing value (R's NA_real_) */
  int integer;              /* the draws were R integers: mean() sums them once, as R's
                               integer_mean() does, rather than in two passes */
  const nuts_sum_op *ops;
  int nops;
  double *out;              /* out[v + o * nvars] */
  int *capped;              /* NULL, or per variable: its ESS values capped at S log10(S)
                               (posterior warns for each) */
} nuts_sum_job;

/* The number of values the split chains hold, which rank-normalisation
** ranks: 2 * floor(niter / 2) * nchains, or nchains for one iteration. */
size_t nuts_sum_ranked(int nchains, int niter);

/* Computes every op for every variable, on the calling thread and up to
** nthreads - 1 workers of the pool (src/par; the caller sizes it).  The
** results do not depend on the number of threads.  AD_OK, or AD_EMEMORY
** with ad_fail's message. */
int nuts_sum_run(nuts_sum_job *job, int nthreads);

/* ---- sampler diagnostics (nuts_sum_hmc.c) ----
** Per chain, over n post-warmup iterations: the divergent transitions
** (divergent != 0), the transitions at the maximum tree depth (treedepth
** >= max_depth), and the E-BFMI of the energies as Stan and cmdstanr
** compute it (NaN for a constant energy, the caller's NA under 3 draws). */
void nuts_sum_hmc(const double *divergent, const double *treedepth, const double *energy,
                  size_t n, int max_depth, double na, int *ndiv, int *ndepth, double *ebfmi);

#endif
