/*
** nuts_run.h -- one chain of a Stan program: initialisation, NUTS, and the
** draws written out as Stan writes them.
**
** A chain is a task for the thread pool (src/par).  Everything it writes is
** its own nuts_run: the draws, the messages, the progress counters.  The
** data context is shared and only read.  The thread that made the nuts_run
** (R's main thread) reads the progress counters and drains the messages
** while the chain runs, and everything else once the task has finished.
** The chain's parallel regions (reduce_sum, ...) use up to `threads`
** threads: the worker running the chain and idle workers of the pool.
*/
#ifndef NUTS_RUN_H
#define NUTS_RUN_H

#include <stdint.h>
#include <stdatomic.h>
#include <pthread.h>
#include "nuts.h"
#include "../tree/li.h"
#include "../prof/pf.h"

/* Columns before the model's outputs, in Stan's order. */
#define NUTS_RUN_NSAMPLER 7
extern const char *const nuts_run_sampler_names[NUTS_RUN_NSAMPLER];

enum { NUTS_PHASE_WAITING = 0, NUTS_PHASE_INIT, NUTS_PHASE_WARMUP,
       NUTS_PHASE_SAMPLING, NUTS_PHASE_DONE };

#define NUTS_RUN_MSGQ_SIZE ((size_t)1 << 16)
#define NUTS_RUN_PRINT_SIZE ((size_t)1 << 14)   /* a chain's print() buffer */

/* Messages for the main thread: NUL-separated strings in a fixed buffer. */
typedef struct nuts_msgq {
  pthread_mutex_t lock;
  char *buf;
  size_t size, len;
  long dropped;                   /* messages that did not fit */
} nuts_msgq;

typedef struct nuts_run {
  /* set by the caller */
  const li_ctx *ctx;
  nuts_config cfg;                /* cfg.stop is the shared interrupt flag */
  int chain_id;
  uint64_t seed;
  double init_radius;
  const double *init_values;      /* num_upars, or NULL */
  const unsigned char *init_given;/* num_upars flags, or NULL: nothing given */
  int keep_messages;              /* queue rejections and print() output */
  int threads;                    /* threads of the chain's parallel regions (threads_per_chain) */
  pf_registry *prof;              /* the chain's profiles, or NULL; the caller makes and frees it
                                     (written by the chain's threads, read once the task ended) */
  int fixed_param;                /* CmdStan's fixed_param sampler: the initial point is every
                                     draw (num_samples of them, thinned; no warmup), lp__ and
                                     accept_stat__ 0, the other sampler columns 0 */

  /* a run in pieces (cross-chain warmup, sampling to a target ESS;
     src/nuts/nuts_cross.h): the task returns with `paused` set once the
     chain has made `until` iterations, keeping its state in `chain`; the
     main thread looks at every chain's draws, may set the chain's length
     (nuts_chain_set_length) and a pooled metric for the next piece
     (`next_metric`, applied by the chain's own thread, since it takes
     gradients), sets `until` and submits the task again */
  int pieces;                     /* run in pieces */
  long until;
  nuts_chain *chain;
  nuts_result res;
  nuts_sink sink;
  const double *next_metric;      /* NULL, or applied when the next piece starts */
  atomic_int paused;
  /* the warmup draws since the start of the previous window: lp__, the
     unconstrained parameters, then divergent__, column-major with wcap
     rows, wlen held */
  double *wbuf;
  size_t wcap, wlen;
  double t_paused;                /* when the chain paused (pauses are not its time) */

  /* results: valid once the task has finished.  draws and upars are
     column-major (draw i of column j at [i + j * cap_rows]), the layout of
     R's matrices, so the caller may give R's own memory (set both before
     nuts_run_alloc) and the draws are never copied; otherwise
     nuts_run_alloc allocates them */
  double *draws;                  /* ncol columns of cap_rows draws */
  double *upars;                  /* the unconstrained point of each draw (num_upars columns),
                                     so that generated quantities can be recomputed exactly */
  int own_draws;                  /* draws and upars were allocated by nuts_run_alloc */
  size_t ncol, cap_rows, nrows, warmup_rows;
  size_t draws_bytes;         /* counted against the memory budget (ad_mem_take) */
  double *init_used;              /* num_upars */
  int init_ok;
  double step_size;
  double *inv_metric;             /* num_upars, or num_upars^2 for dense_e */
  int have_metric;
  double t_warmup, t_sampling;
  int status;                     /* AD_OK, NUTS_INTERRUPTED or an error */
  char msg[2048];
  double n_grad;

  /* progress, read by the main thread while the chain runs */
  atomic_int iteration;           /* iterations finished */
  atomic_int phase;               /* NUTS_PHASE_* */
  nuts_msgq q;

  /* the chain's own scratch */
  tm_rng rng;
  li_print print;
  char *print_buf;
  double *grad;
  double *stage;                  /* saved draws as rows (ncol values, then num_upars), before
                                     they go to their columns a block at a time */
  size_t stage_rows, staged;      /* rows the stage holds; rows in it now */
  double t_phase;                 /* start of the current phase */
} nuts_run;

/* The shape of the draws of r (the caller set ctx and cfg): ncol and
** cap_rows. */
void nuts_run_shape(nuts_run *r);
/* Counts the draws of r against the memory budget (after nuts_run_shape),
** with the message that names the chain; nuts_run_release gives them
** back.  AD_OK or AD_EMEMORY. */
int  nuts_run_reserve(nuts_run *r);
void nuts_run_release(nuts_run *r);
/* Allocates the buffers of r for a context with its outputs (draws and
** upars only if the caller gave none) and reserves the draws' memory; the
** caller set ctx and cfg.  AD_OK or AD_EMEMORY. */
int  nuts_run_alloc(nuts_run *r);
void nuts_run_free(nuts_run *r);
/* The task: runs the chain to its end (or its stop), or, with `pieces`,
** to `until` (then `paused` is 1 and the task may be submitted again). */
void nuts_run_task(void *arg);
/* Ends a paused chain where it stands (on the caller's thread): status
** AD_OK keeps its draws as a finished chain (sampling stopped at a target
** ESS), NUTS_INTERRUPTED as an interrupted one. */
void nuts_run_end_paused(nuts_run *r, int status);
/* The generator of the generated quantities of one saved draw: seeded with
** (seed, a stream made of the chain id, the draw's index among the chain's
** saved draws of its phase, and the phase), fresh for every draw and apart
** from the sampler's own generator.  Standalone generated quantities
** (src/r/r_gq.c) seed theirs with the same function, so they reproduce a
** fit's generated quantities bit for bit. */
void nuts_run_gq_rng(tm_rng *rng, uint64_t seed, int chain_id, size_t index, int warmup);

/* Moves the queued messages into out (size >= NUTS_RUN_MSGQ_SIZE bytes;
** NUL-terminated strings one after the other; returns the bytes used),
** empties the queue and reports how many messages were dropped since the
** last call because the queue was full. */
size_t nuts_run_drain(nuts_run *r, char *out, size_t size, long *dropped);

#endif
