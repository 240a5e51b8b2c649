/*
** nuts_run.c -- a chain of a Stan program as a pool task.
**
** Initialisation follows Stan's services: the unconstrained values the user
** did not give are drawn uniform(-radius, radius) from the chain's own
** generator, and redrawn (up to 100 times) while the log density or its
** gradient is not finite; a radius of 0 means zeros and a single try.  The
** same generator then drives the sampler and the generated quantities, so a
** chain's draws depend only on (seed, chain id), never on which thread runs
** it or what runs beside it.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nuts_run.h"
#include "../par/pp.h"
#include "../plan/pl.h"

#define MAX_INIT_TRIES 100
#define MSGQ_SIZE NUTS_RUN_MSGQ_SIZE
#define PRINT_SIZE NUTS_RUN_PRINT_SIZE

const char *const nuts_run_sampler_names[NUTS_RUN_NSAMPLER] = {
  "lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
  "divergent__", "energy__"
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t rows_for(long n, int thin) { return n <= 0 ? 0 : (size_t)((n + thin - 1) / thin); }

void nuts_run_shape(nuts_run *r) {
  r->ncol = NUTS_RUN_NSAMPLER + li_num_outputs(r->ctx, 1, 1);
  r->cap_rows = rows_for(r->cfg.num_samples, r->cfg.thin) +
                (r->cfg.save_warmup ? rows_for(r->cfg.num_warmup, r->cfg.thin) : 0);
}

/* The draws are the one large allocation of a run: counted against the
** memory budget first (a long run of a program with large generated
** quantities would otherwise get R killed when the pages are touched). */
int nuts_run_reserve(nuts_run *r) {
  size_t n = li_num_upars(r->ctx);
  size_t rows = r->cap_rows ? r->cap_rows : 1;
  if (r->ncol + n != 0 && rows > SIZE_MAX / sizeof(double) / (r->ncol + n + 1))
    return ad_fail(AD_EMEMORY, "the draws of chain %d (%zu draws of %zu values) cannot be held in memory",
                   r->chain_id, rows, r->ncol);
  char what[96];
  snprintf(what, sizeof what, "keeping the draws of chain %d (%zu draws of %zu values)", r->chain_id, rows, r->ncol);
  /* the draws' unconstrained points (for standalone generated quantities)
     are counted with them */
  size_t bytes = rows * (r->ncol + (n ? n : 1)) * sizeof(double);
  if (ad_mem_take(bytes, what) != AD_OK) return AD_EMEMORY;
  r->draws_bytes = bytes;
  return AD_OK;
}

void nuts_run_release(nuts_run *r) {
  ad_mem_give(r->draws_bytes);
  r->draws_bytes = 0;
}

int nuts_run_alloc(nuts_run *r) {
  size_t n = li_num_upars(r->ctx);
  size_t m = r->cfg.metric == NUTS_DENSE_E ? n * n : n;
  nuts_run_shape(r);
  if (nuts_run_reserve(r) != AD_OK) return AD_EMEMORY;
  size_t rows = r->cap_rows ? r->cap_rows : 1;
  r->own_draws = r->draws == NULL;
  if (r->own_draws) {
    r->draws = malloc(rows * r->ncol * sizeof(double));
    r->upars = malloc(rows * (n ? n : 1) * sizeof(double));
  }
  /* up to 64 staged rows, and no more than about 4 MB of them */
  size_t width = r->ncol + n;
  r->stage_rows = ((size_t)4 << 20) / ((width ? width : 1) * sizeof(double));
  if (r->stage_rows > 64) r->stage_rows = 64;
  if (r->stage_rows < 1) r->stage_rows = 1;
  r->staged = 0;
  r->stage = malloc(r->stage_rows * (width ? width : 1) * sizeof(double));
  r->init_used = calloc(n ? n : 1, sizeof(double));
  r->inv_metric = calloc(m ? m : 1, sizeof(double));
  r->grad = calloc(n ? n : 1, sizeof(double));
  r->wbuf = r->wcap ? malloc(r->wcap * (n + 2) * sizeof(double)) : NULL;
  r->wlen = 0;
  r->chain = NULL;
  r->next_metric = NULL;
  atomic_init(&r->paused, 0);
  r->print_buf = malloc(PRINT_SIZE);
  r->q.buf = malloc(MSGQ_SIZE);
  r->q.size = MSGQ_SIZE;
  r->q.len = 0;
  r->q.dropped = 0;
  if (!r->draws || !r->upars || !r->stage || !r->init_used || !r->inv_metric || !r->grad ||
      (r->wcap && !r->wbuf) || !r->print_buf || !r->q.buf || pthread_mutex_init(&r->q.lock, NULL)) {
    if (r->own_draws) { free(r->draws); free(r->upars); }
    free(r->stage); free(r->init_used); free(r->inv_metric); free(r->grad);
    free(r->print_buf); free(r->q.buf); free(r->wbuf);
    r->wbuf = NULL;
    r->draws = r->upars = r->stage = r->init_used = r->inv_metric = r->grad = NULL;
    r->print_buf = r->q.buf = NULL;
    nuts_run_release(r);
    return ad_fail(AD_EMEMORY, "out of memory allocating the draws of chain %d", r->chain_id);
  }
  r->print.buf = r->print_buf;
  r->print.size = PRINT_SIZE;
  r->print.len = 0;
  r->print_buf[0] = '\0';
  r->nrows = r->warmup_rows = 0;
  r->status = AD_OK;
  r->msg[0] = '\0';
  r->step_size = NAN;
  r->t_warmup = r->t_sampling = r->t_phase = 0;
  r->init_ok = r->have_metric = 0;
  r->n_grad = 0;
  atomic_init(&r->iteration, 0);
  atomic_init(&r->phase, NUTS_PHASE_WAITING);
  return AD_OK;
}

void nuts_run_free(nuts_run *r) {
  if (r->chain) { nuts_chain_end(r->chain); r->chain = NULL; }
  free(r->wbuf);
  r->wbuf = NULL;
  if (r->q.buf) pthread_mutex_destroy(&r->q.lock);
  nuts_run_release(r);
  if (r->own_draws) { free(r->draws); free(r->upars); }
  free(r->stage); free(r->init_used); free(r->inv_metric); free(r->grad);
  free(r->print_buf); free(r->q.buf);
  r->draws = r->upars = r->stage = r->init_used = r->inv_metric = r->grad = NULL;
  r->print_buf = r->q.buf = NULL;
}

void nuts_run_gq_rng(tm_rng *rng, uint64_t seed, int chain_id, size_t index, int warmup) {
  uint64_t stream = ((uint64_t)1 << 63) | ((uint64_t)(warmup != 0) << 62) |
                    (((uint64_t)(uint32_t)chain_id & 0x3fffffffULL) << 32) |
                    ((uint64_t)index & 0xffffffffULL);
  tm_rng_seed(rng, seed, stream);
}

static void push(nuts_run *r, const char *s) {
  if (!r->keep_messages || !s || !*s) return;
  size_t k = strlen(s) + 1;
  pthread_mutex_lock(&r->q.lock);
  if (r->q.len + k <= r->q.size) {
    memcpy(r->q.buf + r->q.len, s, k);
    r->q.len += k;
  } else {
    r->q.dropped++;
  }
  pthread_mutex_unlock(&r->q.lock);
}

/* What the model printed during the last evaluations, as one message. */
static void flush_print(nuts_run *r) {
  if (r->print.len == 0) return;
  push(r, r->print_buf);
  r->print.len = 0;
  r->print_buf[0] = '\0';
}

size_t nuts_run_drain(nuts_run *r, char *out, size_t size, long *dropped) {
  pthread_mutex_lock(&r->q.lock);
  size_t k = r->q.len <= size ? r->q.len : 0;
  if (k) memcpy(out, r->q.buf, k);
  else if (r->q.len) r->q.dropped++;     /* the caller's buffer is too small */
  r->q.len = 0;
  *dropped = r->q.dropped;
  r->q.dropped = 0;
  pthread_mutex_unlock(&r->q.lock);
  return k;
}

static int stopped(const nuts_run *r) {
  return r->cfg.stop && atomic_load(r->cfg.stop);
}

/* The model as the sampler sees it: Stan's log density with the Jacobian,
** constants dropped by `~`.  Checks the stop flag so that a chain in a long
** gradient-heavy iteration still stops within one evaluation. */
static int logp(void *model, const double *q, double *lp, double *grad, char *msg, size_t size) {
  nuts_run *r = model;
  if (stopped(r)) {
    snprintf(msg, size, "interrupted");
    return NUTS_INTERRUPTED;
  }
  r->n_grad += 1;
  pf_next_evaluation(r->prof);
  int rc = pl_log_prob(r->ctx, q, 1, lp, grad, &r->print, msg, size);
  /* the interrupt flag (ad.h) stopped the evaluation midway: the chain
     ends as interrupted, with the draws it made */
  return rc == AD_EINTERRUPT ? NUTS_INTERRUPTED : rc;
}

static int all_finite(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
  return 1;
}

/* text's lines joined by single spaces, leading blanks dropped, ending with
** a full stop (a message ending in ')' or '!' gets one too). */
static void one_line(const char *text, char *out, size_t size) {
  size_t k = 0;
  int space = 0;
  for (const char *p = text; *p && k + 2 < size; p++) {
    if (*p == '\n' || *p == ' ' || *p == '\t') { space = k > 0; continue; }
    if (space) { out[k++] = ' '; space = 0; }
    if (k + 2 < size) out[k++] = *p;
  }
  if (k > 0 && out[k - 1] != '.' && k + 1 < size) out[k++] = '.';
  out[k] = '\0';
}

static int initialise(nuts_run *r) {
  size_t n = li_num_upars(r->ctx);
  size_t free_count = 0;
  for (size_t i = 0; i < n; i++) if (!(r->init_given && r->init_given[i])) free_count++;
  int tries = (free_count == 0 || r->init_radius == 0) ? 1 : MAX_INIT_TRIES;
  char err[1024], note[1400];
  for (int t = 0; t < tries; t++) {
    for (size_t i = 0; i < n; i++) {
      if (r->init_given && r->init_given[i]) r->init_used[i] = r->init_values[i];
      else r->init_used[i] = r->init_radius == 0 ? 0.0
          : r->init_radius * (2.0 * tm_rng_uniform(&r->rng) - 1.0);
    }
    double lp = 0;
    err[0] = '\0';
    int rc = logp(r, r->init_used, &lp, r->grad, err, sizeof err);
    flush_print(r);
    if (rc == NUTS_INTERRUPTED) return rc;
    if (rc == AD_OK && isfinite(lp) && all_finite(r->grad, n)) return AD_OK;
    if (rc != AD_OK && rc != AD_EDOMAIN) {
      r->status = rc;
      snprintf(r->msg, sizeof r->msg, "%s", err);
      return rc;
    }
    if (rc == AD_EDOMAIN)
      snprintf(note, sizeof note, "Rejecting initial value:\n  Error evaluating the log "
               "probability at the initial value.\n%s", err);
    else if (!isfinite(lp))
      snprintf(note, sizeof note, "Rejecting initial value:\n  Log probability evaluates "
               "to log(0), i.e. negative infinity.\n  Stan can't start sampling from this "
               "initial value.");
    else
      snprintf(note, sizeof note, "Rejecting initial value:\n  Gradient evaluated at the "
               "initial value is not finite.\n  Stan can't start sampling from this "
               "initial value.");
    push(r, note);
  }
  r->status = AD_EDOMAIN;
  /* The last reason, so the error says why even when messages are hidden:
  ** on the line that announces it (its own lines joined), so that a view
  ** showing one line of the error still shows why, and the advice after. */
  char why[1400];
  one_line(note + strlen("Rejecting initial value:\n"), why, sizeof why);
  if (tries == 1)
    snprintf(r->msg, sizeof r->msg, "Initialization failed at the initial values%s. "
             "The attempt: %s", free_count ? " (zeros where none were given)" : " given", why);
  else
    snprintf(r->msg, sizeof r->msg, "Initialization between (-%g, %g) failed after %d "
             "attempts. The last attempt: %s Try specifying initial values, reducing ranges "
             "of constrained values, or reparameterizing the model.",
             r->init_radius, r->init_radius, MAX_INIT_TRIES, why);
  return r->status;
}

/* The staged rows to their columns: draws and upars are column-major (R's
** layout), and a draw's values lie a column apart, so writing each draw
** straight to its columns would touch a page per output (thousands a
** draw for a program with large transformed parameters); a block of rows
** moves as one contiguous run per column. */
static void stage_flush(nuts_run *r) {
  size_t n = li_num_upars(r->ctx), width = r->ncol + n, cap = r->cap_rows;
  size_t first = r->nrows - r->staged;
  for (size_t j = 0; j < width; j++) {
    double *col = j < r->ncol ? r->draws + j * cap + first : r->upars + (j - r->ncol) * cap + first;
    const double *from = r->stage + j;
    for (size_t i = 0; i < r->staged; i++) col[i] = from[i * width];
  }
  r->staged = 0;
}

/* The sink: one row per saved draw, with the outputs computed on doubles
** from the chain's generator (generated quantities draw from it, as in Stan). */
static int on_draw(void *ctx, const nuts_draw *d) {
  nuts_run *r = ctx;
  if (d->n_reject > 0 && d->reject_msg) {
    char note[1400];
    snprintf(note, sizeof note, "Informational Message: The current Metropolis proposal is "
             "about to be rejected because of the following issue:\n%s\nIf this warning "
             "occurs sporadically, such as for highly constrained variable types like "
             "covariance matrices, then the sampler is fine,\nbut if this warning occurs "
             "often then your model may be either severely ill-conditioned or misspecified.",
             d->reject_msg);
    push(r, note);
  }
  if (d->saved && r->nrows < r->cap_rows) {
    /* the draw is staged as a row (the outputs are written contiguously),
       and a block of rows goes to the columns at once (stage_flush) */
    size_t n = li_num_upars(r->ctx), width = r->ncol + n;
    double *row = r->stage + r->staged * width;
    row[0] = d->lp;
    row[1] = d->accept_stat;
    row[2] = d->stepsize;
    row[3] = d->treedepth;
    row[4] = d->n_leapfrog;
    row[5] = d->divergent;
    row[6] = d->energy;
    if (n) memcpy(row + r->ncol, d->q, n * sizeof(double));
    /* the generated quantities draw from a generator of their own, seeded
       for this draw (nuts_run_gq_rng), so they can be recomputed */
    tm_rng gq;
    nuts_run_gq_rng(&gq, r->seed, r->chain_id,
                    d->warmup ? r->warmup_rows : r->nrows - r->warmup_rows, d->warmup);
    char err[1024];
    err[0] = '\0';
    int rc = li_write_array(r->ctx, d->q, 1, 1, &gq, row + NUTS_RUN_NSAMPLER, &r->print,
                            err, sizeof err);
    /* interrupted in the generated quantities: the draw is not kept */
    if (rc == AD_EINTERRUPT) return NUTS_INTERRUPTED;
    if (rc != AD_OK) {
      /* as Stan: the draw is kept, the outputs that failed are not numbers */
      for (size_t k = NUTS_RUN_NSAMPLER; k < r->ncol; k++) row[k] = NAN;
      li_write_array(r->ctx, d->q, 0, 0, NULL, row + NUTS_RUN_NSAMPLER, NULL, NULL, 0);
      push(r, err);
    }
    r->nrows++;
    if (d->warmup) r->warmup_rows++;
    if (++r->staged == r->stage_rows) stage_flush(r);
  }
  flush_print(r);
  if (d->warmup && r->wbuf && r->wlen < r->wcap) {
    /* cross-chain warmup: the window's draws, for the checks and the
       pooled metric (nuts_cross.c) */
    size_t n = li_num_upars(r->ctx);
    r->wbuf[r->wlen] = d->lp;
    for (size_t j = 0; j < n; j++) r->wbuf[r->wlen + (j + 1) * r->wcap] = d->q[j];
    r->wbuf[r->wlen + (n + 1) * r->wcap] = d->divergent;
    r->wlen++;
  }
  if (d->warmup_end) {
    double t = now();
    r->t_warmup = t - r->t_phase;
    r->t_phase = t;
    pf_set_phase(r->prof, PF_SAMPLING);
    atomic_store(&r->phase, NUTS_PHASE_SAMPLING);
  }
  atomic_store(&r->iteration, d->iteration + 1);
  return 0;
}

/* CmdStan's fixed_param sampler: every iteration keeps the initial point;
** lp__ and accept_stat__ are 0 (stan::mcmc::sample(q, 0, 0)), the columns
** NUTS has and fixed_param has not are 0 (R drops them). */
static int fixed_param_run(nuts_run *r, nuts_result *res) {
  nuts_draw d;
  memset(&d, 0, sizeof d);
  d.q = r->init_used;
  d.stepsize = 0;
  for (int it = 0; it < r->cfg.num_samples; it++) {
    if (stopped(r)) { res->iterations = it; return NUTS_INTERRUPTED; }
    d.iteration = it;
    d.saved = it % r->cfg.thin == 0;
    if (on_draw(r, &d) == NUTS_INTERRUPTED) { res->iterations = it; return NUTS_INTERRUPTED; }
  }
  res->iterations = r->cfg.num_samples;
  res->stepsize = NAN;
  return AD_OK;
}

/* The end of the chain's task: results into r (the chain's own memory). */
static void finish(nuts_run *r, int rc, nuts_result *res) {
  stage_flush(r);
  flush_print(r);
  double t = now();
  if (atomic_load(&r->phase) == NUTS_PHASE_WARMUP) r->t_warmup = t - r->t_phase;
  else r->t_sampling = t - r->t_phase;
  r->have_metric = 1;
  if (atomic_load(&r->phase) == NUTS_PHASE_SAMPLING || res->iterations >= r->cfg.num_warmup)
    r->step_size = res->stepsize;
  r->status = rc;
  if (rc != AD_OK && rc != NUTS_INTERRUPTED) snprintf(r->msg, sizeof r->msg, "%s", res->msg);
  if (rc == NUTS_INTERRUPTED) r->msg[0] = '\0';
}

/* One piece of a chain run in pieces: the metric the main thread pooled,
** then iterations up to `until`.  Returns 1 if the chain paused (its state
** kept), 0 if it ended (r->chain freed). */
static int piece(nuts_run *r) {
  int rc = AD_OK;
  if (r->next_metric) {
    rc = nuts_chain_set_metric(r->chain, r->next_metric);
    r->next_metric = NULL;
  }
  if (rc == AD_OK) rc = nuts_chain_step(r->chain, r->until);
  if (rc == AD_OK && !nuts_chain_finished(r->chain)) {
    /* the draws so far are in their columns, for the main thread's checks */
    stage_flush(r);
    flush_print(r);
    r->t_paused = now();
    return 1;
  }
  rc = nuts_chain_end(r->chain);
  r->chain = NULL;
  finish(r, rc, &r->res);
  return 0;
}

void nuts_run_end_paused(nuts_run *r, int status) {
  if (!r->chain) return;
  r->t_phase += now() - r->t_paused;
  nuts_chain_end(r->chain);
  r->chain = NULL;
  r->res.status = status;
  finish(r, status, &r->res);
  atomic_store(&r->paused, 0);
  atomic_store(&r->phase, NUTS_PHASE_DONE);
}

void nuts_run_task(void *arg) {
  nuts_run *r = arg;
  size_t n = li_num_upars(r->ctx);
  double start = now();
  /* the budget is the worker's own (thread-local): set it for this chain,
     give the worker back as it was for the next task */
  int saved_threads = pp_threads();
  pp_set_threads(r->threads);
  /* evaluations on this thread record into the chain's profiles; the
     initialisation counts as warmup, as in Stan's services */
  pf_registry *saved_prof = pf_current();
  pf_set_current(r->prof);
  if (r->chain) {
    /* a paused chain goes on: the pause is not its time */
    r->t_phase += now() - r->t_paused;
    pf_set_phase(r->prof, atomic_load(&r->phase) == NUTS_PHASE_SAMPLING ? PF_SAMPLING : PF_WARMUP);
    if (piece(r)) goto paused;
    goto out;
  }
  pf_set_phase(r->prof, r->cfg.num_warmup > 0 ? PF_WARMUP : PF_SAMPLING);
  atomic_store(&r->phase, NUTS_PHASE_INIT);
  tm_rng_seed(&r->rng, r->seed, (uint64_t)r->chain_id);
  if (!ad_active) {
    r->status = AD_EMEMORY;
    snprintf(r->msg, sizeof r->msg, "no autodiff stack on this worker thread");
    goto out;
  }
  if (stopped(r)) { r->status = NUTS_INTERRUPTED; goto out; }
  int rc = initialise(r);
  if (rc != AD_OK) { r->status = rc; goto out; }
  r->init_ok = 1;

  /* warmup is timed from here; on_draw moves the clock to sampling */
  r->t_phase = now();
  atomic_store(&r->phase, r->cfg.num_warmup > 0 ? NUTS_PHASE_WARMUP : NUTS_PHASE_SAMPLING);
  static const nuts_sink sink_proto = { NULL, on_draw, NULL };
  r->sink = sink_proto;
  r->sink.ctx = r;
  memset(&r->res, 0, sizeof r->res);
  r->res.inv_metric = r->inv_metric;
  if (r->fixed_param) {
    rc = fixed_param_run(r, &r->res);
  } else if (r->pieces) {
    rc = nuts_chain_start(&r->cfg, logp, r, (int)n, r->init_used, &r->rng, &r->sink, &r->res,
                          &r->chain);
    if (r->chain && rc == AD_OK) {
      if (piece(r)) goto paused;
      goto out;
    }
    if (r->chain) { rc = nuts_chain_end(r->chain); r->chain = NULL; }
  } else {
    rc = nuts_chain_run(&r->cfg, logp, r, (int)n, r->init_used, &r->rng, &r->sink, &r->res);
  }
  finish(r, rc, &r->res);
out:
  if (!r->init_ok) r->t_warmup = now() - start;
  pp_set_threads(saved_threads);
  pf_set_current(saved_prof);
  atomic_store(&r->phase, NUTS_PHASE_DONE);
  return;
paused:
  pp_set_threads(saved_threads);
  pf_set_current(saved_prof);
  atomic_store(&r->paused, 1);
}
