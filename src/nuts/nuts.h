/*
** nuts.h -- the No-U-Turn sampler as Stan runs it, one chain at a time.
**
** The model is a callback (nuts_logp_fn), so this layer knows nothing of the
** language or of R.  A chain owns its buffers (allocated once at chain start),
** its generator (the caller's tm_rng) and its sink; nothing here is global, so
** chains can run on any threads at once.  No printing: everything the caller
** may want to show travels through the sink or the result.
*/
#ifndef NUTS_H
#define NUTS_H

#include <stddef.h>
#include <stdatomic.h>
#include "../math/tm.h"

/* Log density (Jacobian included, constants as the caller likes) and its
** gradient at q (n values).  Returns AD_OK; AD_EDOMAIN rejects the point (the
** energy becomes +inf, so the trajectory ends as a divergence, as in Stan, and
** the message is kept); any other code stops the chain.  msg (msgsize bytes)
** receives a message when the return is not AD_OK. */
typedef int (*nuts_logp_fn)(void *model, const double *q, double *lp,
                            double *grad, char *msg, size_t msgsize);

typedef enum { NUTS_UNIT_E = 0, NUTS_DIAG_E = 1, NUTS_DENSE_E = 2 } nuts_metric_kind;

/* Status of nuts_chain_run beyond the AD_ codes of ad.h. */
enum { NUTS_INTERRUPTED = 100 };   /* cfg->stop was set; draws so far are valid */

typedef struct nuts_config {
  int num_warmup, num_samples;     /* 1000, 1000 */
  int thin;                        /* 1: keep every thin-th draw of each phase */
  int save_warmup;                 /* 0 */
  int adapt_engaged;               /* 1; no adaptation when num_warmup == 0 */
  double delta, gamma, kappa, t0;  /* 0.8, 0.05, 0.75, 10 */
  int init_buffer, term_buffer, window;  /* 75, 50, 25 */
  int max_depth;                   /* 10 */
  nuts_metric_kind metric;         /* NUTS_DIAG_E */
  double stepsize;                 /* 1: initial step size (and mu = log(10 * stepsize)) */
  double stepsize_jitter;          /* 0, in [0, 1] */
  const double *inv_metric;        /* NULL (identity), else n values (diag) or
                                      n*n column-major (dense); ignored for unit_e */
  atomic_int *stop;                /* NULL, or nonzero to stop before the next iteration */
  int cross_warmup;                /* 0; 1: no windowed metric adaptation of the chain's own:
                                      the caller sets the metric (nuts_chain_set_metric) and
                                      the end of warmup (nuts_chain_set_length) from what all
                                      chains drew, between nuts_chain_step calls */
} nuts_config;

void nuts_config_default(nuts_config *cfg);

/* One iteration, as the sink sees it.  Pointers are valid during the call only. */
typedef struct nuts_draw {
  int iteration;                   /* 0-based over warmup then sampling */
  int warmup;                      /* 1 during warmup */
  int saved;                       /* 1 if Stan would write this draw (thin, save_warmup) */
  int warmup_end;                  /* 1 on the last warmup iteration */
  const double *q;                 /* the unconstrained draw, n values */
  double lp;                       /* lp__ */
  double accept_stat;              /* accept_stat__ */
  double stepsize;                 /* stepsize__ (the one used, jitter included) */
  int treedepth;                   /* treedepth__ */
  int n_leapfrog;                  /* n_leapfrog__ */
  int divergent;                   /* divergent__ */
  double energy;                   /* energy__ */
  int n_reject;                    /* rejections (AD_EDOMAIN) during this iteration */
  const char *reject_msg;          /* the last rejection message, or NULL */
} nuts_draw;

/* The sink is called for every iteration (saved or not: check d->saved);
** a nonzero return stops the chain with that status.  adapt_done, if not NULL,
** is called once when warmup ends with adaptation engaged, with the final step
** size and inverse metric (n values, or n*n column-major for dense_e). */
typedef struct nuts_sink {
  void *ctx;
  int (*draw)(void *ctx, const nuts_draw *d);
  int (*adapt_done)(void *ctx, double stepsize, const double *inv_metric, int n,
                    nuts_metric_kind kind);
} nuts_sink;

typedef struct nuts_result {
  int status;                      /* AD_OK, NUTS_INTERRUPTED, or an error code */
  char msg[512];                   /* the error message when status is an error */
  double stepsize;                 /* final nominal step size */
  double *inv_metric;              /* caller's buffer (n, or n*n for dense) or NULL:
                                      receives the final inverse metric */
  long iterations;                 /* iterations completed */
  long saved;                      /* draws passed with saved = 1 */
  long divergent;                  /* divergences after warmup */
  long max_depth_hits;             /* treedepth == max_depth after warmup */
  long n_leapfrog;                 /* leapfrog steps, warmup and sampling */
  long n_leapfrog_sampling;        /* leapfrog steps after warmup */
} nuts_result;

/* Runs warmup and sampling from q0 (n values, log density must be finite
** there).  The generator is the caller's, seeded by the caller.  Returns
** res->status. */
int nuts_chain_run(const nuts_config *cfg, nuts_logp_fn f, void *model, int n,
                   const double *q0, tm_rng *rng, const nuts_sink *sink,
                   nuts_result *res);

/* The same chain in pieces.  nuts_chain_start allocates, evaluates q0 and
** (with adaptation) runs the step size heuristic; on failure res->status
** says why, and *out is NULL when nothing was allocated (otherwise call
** nuts_chain_end).  nuts_chain_step runs iterations until `until` of them
** are done or the chain ends (AD_OK), is interrupted or fails (the status;
** the chain is then finished).  Between steps the caller may move the end
** of warmup and of sampling (never behind the iterations made) and replace
** the metric (Stan's end of a metric window: step size heuristic, dual
** averaging restarted).  nuts_chain_end fills res's step size and metric
** and frees the chain; it returns the chain's status.  The calls of one
** chain may come from different threads, one at a time. */
typedef struct nuts_chain nuts_chain;
int nuts_chain_start(const nuts_config *cfg, nuts_logp_fn f, void *model, int n,
                     const double *q0, tm_rng *rng, const nuts_sink *sink,
                     nuts_result *res, nuts_chain **out);
int nuts_chain_step(nuts_chain *ch, long until);
int nuts_chain_finished(const nuts_chain *ch);
long nuts_chain_iteration(const nuts_chain *ch);
int nuts_chain_set_length(nuts_chain *ch, long num_warmup, long num_samples);
int nuts_chain_set_metric(nuts_chain *ch, const double *inv_metric);   /* NULL: keep it */
double nuts_chain_adapted_stepsize(const nuts_chain *ch);   /* exp(x_bar) during warmup */
int nuts_chain_end(nuts_chain *ch);

#endif
