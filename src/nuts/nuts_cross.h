/*
** nuts_cross.h -- decisions across the chains of a run: when warmup
** ends (iter_warmup = "auto") and when sampling has reached its ESS
** (target_ess).
**
** Chains are tasks of one process, run in pieces (nuts_run.h's `pieces`):
** every chain stops at the same iteration, and the thread that runs the
** run (R's main thread) calls these with all the chains paused, so the
** draws are read while nothing writes them, and the summaries run on the
** pool's idle workers.  Nothing here calls R.
*/
#ifndef NUTS_CROSS_H
#define NUTS_CROSS_H

#include "nuts_run.h"

/* The rule that ends warmup (documented in R/verb-sample-auto.R). */
typedef struct nuts_cross_rule {
  double rhat_lp;       /* 1.05: R-hat of lp__ at most this */
  double rhat_par;      /* 1.05: R-hat of every unconstrained parameter at most this */
  double ess_min;       /* 100: bulk ESS of lp__ and of every parameter at least this */
  double step_ratio;    /* 2: the chains' step sizes within this factor */
  double div_rate;      /* 0.05: divergences in the second half of the window at most
                           this fraction of its transitions */
} nuts_cross_rule;

void nuts_cross_rule_default(nuts_cross_rule *rule);

/* What a window's check saw.  Variables: -1 is lp__, j >= 0 the j-th
** unconstrained parameter. */
typedef struct nuts_cross_warm {
  int niter;            /* iterations per chain checked */
  double rhat_lp, rhat_max;
  int rhat_var;         /* the variable of rhat_max */
  double ess_min;
  int ess_var;
  long divergent;       /* divergences of the chains in the second half of the window */
  int div_ok;           /* the divergences within the rule's rate */
  double step_ratio;    /* largest / smallest adapted step size */
  int agree;            /* every condition of the rule holds */
} nuts_cross_warm;

/* Checks the window draws of the m chains (each runs[k]->wbuf, wlen rows,
** the same for all, the last `cur` of them the window just ended) and writes the metric pooled from all of them into
** `metric` (n values for diag_e, n*n column-major for dense_e, with Stan's
** regularisation for N draws in all; NULL: none).  AD_OK or AD_EMEMORY. */
int nuts_cross_warmup_check(nuts_run *const *runs, int m, size_t cur, const nuts_cross_rule *rule,
                            int dense, int nthreads, double *metric, nuts_cross_warm *out);

/* Keeps the last `keep` rows of every chain's window draws (the window
** just ended), so the next check sees it and the next window. */
void nuts_cross_window_shift(nuts_run *const *runs, int m, size_t keep);

/* What a sampling check saw over the draws of `cols` (columns of the
** draws, 0-based) made since warmup. */
typedef struct nuts_cross_samp {
  int niter;            /* draws per chain */
  double ess_bulk_min, ess_tail_min, rhat_max;
  int ess_col, rhat_col;   /* the columns of the smallest ESS and largest R-hat */
  int reached;          /* every ESS >= target and every R-hat <= rhat_max of the rule */
} nuts_cross_samp;

int nuts_cross_sampling_check(nuts_run *const *runs, int m, const int *cols, int ncols,
                              double target, double rhat_max, int nthreads,
                              nuts_cross_samp *out);

#endif
