/*
** r_sample.c -- $sample(): chains as tasks of the pool, watched from R's
** main thread.
**
** Everything R-related happens here, on the main thread: reading the
** arguments, handing the chains' progress to R (R/ux-progress.R formats
** it) and printing the chains' messages, noticing Ctrl-C
** (R_ToplevelExec around R_CheckUserInterrupt, so the interrupt is caught
** here instead of jumping out while workers run), and building the result.
** The chains write only their own C memory (src/nuts/nuts_run.c); the R
** result is built after every task of the batch has finished.
**
** At most `parallel` chains run at once: the main thread submits the next
** chain when one finishes, so a pool sized for other work never runs more
** chains than asked.  The pool is sized parallel * threads_per_chain, at
** most the cores: a chain's parallel regions get helpers only from idle
** workers, so the process never runs more threads than cores however many
** chains and threads per chain are asked.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <R.h>
#include <Rinternals.h>
#include "../nuts/nuts_run.h"
#include "../par/pp.h"
#include "r_convert.h"
#include "r_model.h"
#include "../par/pp_mpi.h"
#include "r_entries_sample.h"
#include "r_entries_prof.h"

#define POLL_SECONDS 0.05
#define KEEP_MESSAGES 200      /* messages kept per chain in the result */

static SEXP list_elt(SEXP list, const char *name) {
  SEXP names = getAttrib(list, R_NamesSymbol);
  for (R_xlen_t i = 0; i < XLENGTH(list); i++)
    if (!strcmp(CHAR(STRING_ELT(names, i)), name)) return VECTOR_ELT(list, i);
  rc_raise_msg("internal: missing sampler setting", "tapestry_argument_error");
}

static int int_elt(SEXP list, const char *name) { return asInteger(list_elt(list, name)); }

/* A setting that may be absent or NULL (then 0). */
static int opt_int_elt(SEXP list, const char *name) {
  SEXP names = getAttrib(list, R_NamesSymbol);
  for (R_xlen_t i = 0; i < XLENGTH(list); i++)
    if (!strcmp(CHAR(STRING_ELT(names, i)), name)) {
      SEXP v = VECTOR_ELT(list, i);
      int k = isNull(v) ? 0 : asInteger(v);
      return k == NA_INTEGER || k < 0 ? 0 : k;
    }
  return 0;
}
static double real_elt(SEXP list, const char *name) { return asReal(list_elt(list, name)); }

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check_interrupt(void *unused) {
  (void)unused;
  R_CheckUserInterrupt();
}

typedef struct shared { pp_group g; atomic_int stop; } shared;

/* The state of one $sample() call. */
typedef struct sampling {
  int nchains, parallel, refresh, show_messages, interactive;
  int trace_every;     /* profiles: trace every k-th evaluation, 0 none */
  nuts_run *runs;
  int *submitted, *reported;
  double *started;
  char *drain;
  SEXP *kept;          /* per chain: character vectors of messages, protected by `keep` */
  int *nkept;
  SEXP progress;       /* R function showing progress, or R_NilValue (config's `progress`) */
} sampling;

static int show_progress(sampling *s, int final);

static void show_messages(sampling *s, int k, SEXP keep) {
  nuts_run *r = &s->runs[k];
  long dropped = 0;
  size_t len = nuts_run_drain(r, s->drain, NUTS_RUN_MSGQ_SIZE, &dropped);
  for (size_t off = 0; off < len; ) {
    const char *m = s->drain + off;
    off += strlen(m) + 1;
    if (s->show_messages) {
      /* the progress line is cleared first (final NA), so a message starts a line */
      if (off == strlen(m) + 1 && s->interactive) show_progress(s, NA_LOGICAL);
      /* one "Chain k" prefix per line, as cmdstanr shows messages */
      const char *p = m;
      while (*p) {
        const char *e = strchr(p, '\n');
        int n = e ? (int)(e - p) : (int)strlen(p);
        Rprintf("Chain %d %.*s\n", r->chain_id, n, p);
        p += n + (e ? 1 : 0);
      }
    }
    if (s->nkept[k] < KEEP_MESSAGES) {
      SET_STRING_ELT(VECTOR_ELT(keep, k), s->nkept[k]++, mkCharCE(m, CE_UTF8));
    }
  }
  if (dropped > 0 && s->show_messages)
    Rprintf("Chain %d: %ld messages not shown (too many at once)\n", r->chain_id, dropped);
}

/* Progress: the state of every chain handed to an R function (config's
** `progress`, made by R/ux-progress.R's progress_display()), which formats
** and prints it: progress(iteration, phase, elapsed, final) with, per chain,
** the iterations done, the phase (0 waiting, 1 warmup, 2 sampling, 3
** finished, 4 stopped: failed or interrupted) and the seconds it has run.
** Called on the main thread every poll and once at the end (final TRUE).
** An R error inside is caught by the function itself; what escapes it is
** an interrupt (Ctrl-C while it ran), returned here as 1 so the run stops
** as for any Ctrl-C. */
static int show_progress(sampling *s, int final) {
  if (s->refresh <= 0 || isNull(s->progress)) return 0;
  int n = s->nchains;
  SEXP it = PROTECT(allocVector(INTSXP, n));
  SEXP ph = PROTECT(allocVector(INTSXP, n));
  SEXP el = PROTECT(allocVector(REALSXP, n));
  for (int k = 0; k < n; k++) {
    nuts_run *r = &s->runs[k];
    int p = atomic_load(&r->phase), done = p == NUTS_PHASE_DONE;
    INTEGER(it)[k] = s->submitted[k] ? atomic_load(&r->iteration) : 0;
    INTEGER(ph)[k] = !s->submitted[k] ? 0 : done ? (r->status == AD_OK ? 3 : 4)
                     : p == NUTS_PHASE_SAMPLING ? 2 : 1;
    REAL(el)[k] = !s->submitted[k] ? 0.0 : done ? r->t_warmup + r->t_sampling
                  : now() - s->started[k];
  }
  SEXP call = PROTECT(lang5(s->progress, it, ph, el, ScalarLogical(final)));   /* final: 0, 1 or NA (clear) */
  int err = 0;
  R_tryEvalSilent(call, R_GlobalEnv, &err);
  R_FlushConsole();    /* the line shows at once; a log file gets lines as they are made */
  UNPROTECT(4);
  return err != 0;
}

/* A chain that cannot be queued ends at once, with the reason. */
static void submit(sampling *s, pp_group *g, int k) {
  s->started[k] = now();
  s->submitted[k] = 1;
  if (pp_submit(g, nuts_run_task, &s->runs[k]) != AD_OK) {
    s->runs[k].status = AD_EMEMORY;
    snprintf(s->runs[k].msg, sizeof s->runs[k].msg, "%s", ad_errmsg());
    atomic_store(&s->runs[k].phase, NUTS_PHASE_DONE);
  }
}

/* The first nr rows of a column-major cap x nc matrix, as a new matrix
** (a chain that stopped early filled only those). */
static SEXP first_rows(SEXP m, size_t nr, size_t cap, size_t nc) {
  if (nr == cap) return m;
  SEXP out = allocMatrix(REALSXP, (int)nr, (int)nc);
  for (size_t j = 0; j < nc; j++)
    if (nr) memcpy(REAL(out) + j * nr, REAL(m) + j * cap, nr * sizeof(double));
  return out;
}

static SEXP chain_result(sampling *s, int k, size_t n, int dense, SEXP colnames, SEXP msgs,
                         SEXP draws, SEXP upars) {
  static const char *const fields[] = { "chain_id", "draws", "num_warmup_draws", "init",
    "step_size", "inv_metric", "time", "return_code", "message", "n_grad", "messages",
    "profiles", "trace", "upars" };
  nuts_run *r = &s->runs[k];
  SEXP out = PROTECT(rc_named_list(14, fields, NULL));
  SET_VECTOR_ELT(out, 0, ScalarInteger(r->chain_id));

  /* the chain wrote its draws into this matrix, column by column: it is
     the result as it is, unless the chain stopped before filling it */
  size_t nr = r->nrows, nc = r->ncol;
  SEXP d = PROTECT(first_rows(draws, nr, r->cap_rows, nc));
  SEXP dn = PROTECT(allocVector(VECSXP, 2));
  SET_VECTOR_ELT(dn, 1, colnames);
  setAttrib(d, R_DimNamesSymbol, dn);
  SET_VECTOR_ELT(out, 1, d);
  UNPROTECT(2);
  SET_VECTOR_ELT(out, 2, ScalarInteger((int)r->warmup_rows));

  if (r->init_ok) {
    SEXP init = allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 3, init);
    if (n) memcpy(REAL(init), r->init_used, n * sizeof(double));
  }
  SET_VECTOR_ELT(out, 4, ScalarReal(isnan(r->step_size) ? NA_REAL : r->step_size));
  if (r->have_metric) {
    SEXP m = dense ? allocMatrix(REALSXP, (int)n, (int)n) : allocVector(REALSXP, (R_xlen_t)n);
    SET_VECTOR_ELT(out, 5, m);
    if (n) memcpy(REAL(m), r->inv_metric, (dense ? n * n : n) * sizeof(double));
  }
  static const char *const tnames[] = { "warmup", "sampling", "total" };
  SEXP t = PROTECT(allocVector(REALSXP, 3));
  REAL(t)[0] = r->t_warmup;
  REAL(t)[1] = r->t_sampling;
  REAL(t)[2] = r->t_warmup + r->t_sampling;
  SEXP tn = PROTECT(allocVector(STRSXP, 3));
  for (int i = 0; i < 3; i++) SET_STRING_ELT(tn, i, mkChar(tnames[i]));
  setAttrib(t, R_NamesSymbol, tn);
  SET_VECTOR_ELT(out, 6, t);
  UNPROTECT(2);
  int code = r->status == AD_OK ? 0 : r->status == NUTS_INTERRUPTED ? 2 : 1;
  SET_VECTOR_ELT(out, 7, ScalarInteger(code));
  SET_VECTOR_ELT(out, 8, mkString(code == 1 ? r->msg : ""));
  SET_VECTOR_ELT(out, 9, ScalarReal(r->n_grad));
  SEXP m = PROTECT(allocVector(STRSXP, s->nkept[k]));
  for (int i = 0; i < s->nkept[k]; i++) SET_STRING_ELT(m, i, STRING_ELT(msgs, i));
  SET_VECTOR_ELT(out, 10, m);
  SET_VECTOR_ELT(out, 11, rp_profiles(r->prof));
  SET_VECTOR_ELT(out, 12, rp_trace(r->prof, s->trace_every > 0));
  /* the unconstrained point of each draw (one row each), for standalone
     generated quantities that reproduce the draws' own */
  SET_VECTOR_ELT(out, 13, first_rows(upars, nr, r->cap_rows, n));
  UNPROTECT(2);
  return out;
}

/* Copies the settings every chain shares from R's list into cfg. */
static void read_config(SEXP c, nuts_config *cfg) {
  nuts_config_default(cfg);
  cfg->num_warmup = int_elt(c, "num_warmup");
  cfg->num_samples = int_elt(c, "num_samples");
  cfg->thin = int_elt(c, "thin");
  cfg->save_warmup = int_elt(c, "save_warmup");
  cfg->adapt_engaged = int_elt(c, "adapt_engaged");
  cfg->delta = real_elt(c, "delta");
  cfg->gamma = real_elt(c, "gamma");
  cfg->kappa = real_elt(c, "kappa");
  cfg->t0 = real_elt(c, "t0");
  cfg->init_buffer = int_elt(c, "init_buffer");
  cfg->term_buffer = int_elt(c, "term_buffer");
  cfg->window = int_elt(c, "window");
  cfg->max_depth = int_elt(c, "max_depth");
  cfg->metric = (nuts_metric_kind)int_elt(c, "metric");
  cfg->stepsize_jitter = real_elt(c, "stepsize_jitter");
}

static void free_runs(sampling *s) {
  if (!s->runs) return;
  for (int k = 0; k < s->nchains; k++) {
    nuts_run_free(&s->runs[k]);
    pf_registry_free(s->runs[k].prof);
    free((void *)s->runs[k].init_given);
    free((void *)s->runs[k].cfg.inv_metric);
  }
  free(s->runs);
  s->runs = NULL;
}

/* tp_sample(ctx, config, inits, chain_ids, seed, parallel, threads, refresh,
** show_messages, interactive).  config: the nuts settings (metric 0 unit, 1 diag, 2
** dense), `stepsize` one per chain, `inv_metric` NULL or one per chain,
** `threads_per_chain`, `profile_trace_every` (absent or NULL: 0).  Each chain
** of the result carries `profiles` and `trace` (r_prof.c's rp_profiles and
** rp_trace of the chain's registry).  threads: the pool's size (parallel * threads_per_chain),
** capped at the cores.
** inits: per chain list(radius, values, given). */
static SEXP sample_body(SEXP ctx, SEXP config, SEXP inits, SEXP chain_ids, SEXP seed, SEXP parallel,
                        SEXP threads, SEXP refresh, SEXP show_msgs, SEXP interactive) {
  const li_ctx *c = rm_ctx_of(ctx);
  size_t n = li_num_upars(c);
  int nchains = LENGTH(chain_ids);
  double sd = asReal(seed);
  if (nchains < 1 || LENGTH(inits) != nchains || !(sd >= 0))
    rc_raise_msg("internal: bad sampler arguments", "tapestry_argument_error");
  int fixed_param = opt_int_elt(config, "fixed_param");
  if (n == 0 && !fixed_param)
    rc_raise_msg("Model contains no parameters to sample: a model without parameters can "
                 "run only its generated quantities, which tapestry does not do yet.",
                 "tapestry_argument_error");
  nuts_config cfg;
  read_config(config, &cfg);
  int dense = cfg.metric == NUTS_DENSE_E;
  int per_chain = int_elt(config, "threads_per_chain");
  if (per_chain == NA_INTEGER || per_chain < 1) per_chain = 1;
  SEXP stepsizes = list_elt(config, "stepsize"), metrics = list_elt(config, "inv_metric");

  sampling s;
  memset(&s, 0, sizeof s);
  s.nchains = nchains;
  s.refresh = asInteger(refresh);
  s.show_messages = asLogical(show_msgs) == TRUE;
  s.interactive = asLogical(interactive) == TRUE;
  s.trace_every = opt_int_elt(config, "profile_trace_every");
  s.progress = R_NilValue;
  {
    SEXP names = getAttrib(config, R_NamesSymbol);
    for (R_xlen_t i = 0; i < XLENGTH(config); i++)
      if (!strcmp(CHAR(STRING_ELT(names, i)), "progress") && isFunction(VECTOR_ELT(config, i)))
        s.progress = VECTOR_ELT(config, i);     /* protected by config */
  }
  int pool_n = asInteger(threads), cores = pp_cores();
  if (pool_n > cores) pool_n = cores;
  if (pool_n < 1) pool_n = 1;
  s.parallel = asInteger(parallel);
  if (s.parallel > pool_n) s.parallel = pool_n;
  if (s.parallel < 1) s.parallel = 1;

  /* R memory first (it is reclaimed if anything below raises an error) */
  s.submitted = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.reported = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.nkept = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.started = (double *)R_alloc((size_t)nchains, sizeof(double));
  s.drain = R_alloc(NUTS_RUN_MSGQ_SIZE, 1);
  memset(s.submitted, 0, (size_t)nchains * sizeof(int));
  memset(s.reported, 0, (size_t)nchains * sizeof(int));
  memset(s.nkept, 0, (size_t)nchains * sizeof(int));
  SEXP keep = PROTECT(allocVector(VECSXP, nchains));
  for (int k = 0; k < nchains; k++) SET_VECTOR_ELT(keep, k, allocVector(STRSXP, KEEP_MESSAGES));
  SEXP colnames = PROTECT(allocVector(STRSXP, (R_xlen_t)(NUTS_RUN_NSAMPLER + li_num_outputs(c, 1, 1))));
  for (int i = 0; i < NUTS_RUN_NSAMPLER; i++)
    SET_STRING_ELT(colnames, i, mkChar(nuts_run_sampler_names[i]));
  {
    R_xlen_t j = NUTS_RUN_NSAMPLER;
    char buf[512];
    for (int v = 0; v < li_num_vars(c); v++) {
      const li_var *var = li_var_at(c, v);
      for (size_t e = 0; e < var->numel; e++) {
        buf[0] = '\0';
        li_elem_name(var, e, 0, buf, sizeof buf);
        SET_STRING_ELT(colnames, j++, mkCharCE(buf, CE_UTF8));
      }
    }
  }

  /* The draws go straight into R matrices, the fit's own, which the
     chains fill column by column: nothing is copied after the run.  The
     memory budget is checked first (with the message that names the
     chain), then R allocates (an R error here leaves nothing behind). */
  SEXP mats = PROTECT(allocVector(VECSXP, 2 * (R_xlen_t)nchains));
  {
    nuts_run *probe = (nuts_run *)R_alloc((size_t)nchains, sizeof *probe);
    memset(probe, 0, (size_t)nchains * sizeof *probe);
    int ok = AD_OK, k = 0;
    for (; k < nchains && ok == AD_OK; k++) {
      probe[k].ctx = c;
      probe[k].cfg = cfg;
      probe[k].chain_id = INTEGER(chain_ids)[k];
      nuts_run_shape(&probe[k]);
      ok = nuts_run_reserve(&probe[k]);
    }
    for (int q = 0; q < nchains; q++) nuts_run_release(&probe[q]);
    if (ok != AD_OK) rc_raise_msg(ad_errmsg(), rc_status_class(ok));
    for (k = 0; k < nchains; k++) {
      SET_VECTOR_ELT(mats, 2 * k, allocMatrix(REALSXP, (int)probe[k].cap_rows, (int)probe[k].ncol));
      SET_VECTOR_ELT(mats, 2 * k + 1, allocMatrix(REALSXP, (int)probe[k].cap_rows, (int)n));
    }
  }

  /* C memory: no R error may happen from here until it is freed.  The
     group and the stop flag live on the heap too: were this frame left by
     a long jump, workers would still find them. */
  shared *sh = calloc(1, sizeof *sh);
  s.runs = calloc((size_t)nchains, sizeof *s.runs);
  if (sh) atomic_init(&sh->stop, 0);
  char err[512];
  err[0] = '\0';
  int rc = s.runs && sh ? AD_OK : ad_fail(AD_EMEMORY, "out of memory");
  for (int k = 0; k < nchains && rc == AD_OK; k++) {
    nuts_run *r = &s.runs[k];
    SEXP init = VECTOR_ELT(inits, k);
    r->ctx = c;
    r->cfg = cfg;
    r->cfg.stop = &sh->stop;
    r->cfg.stepsize = REAL(stepsizes)[k];
    r->chain_id = INTEGER(chain_ids)[k];
    r->seed = (uint64_t)sd;
    r->keep_messages = 1;
    r->threads = per_chain;
    r->fixed_param = fixed_param;
    r->draws = REAL(VECTOR_ELT(mats, 2 * k));
    r->upars = REAL(VECTOR_ELT(mats, 2 * k + 1));
    /* one registry per chain: its threads write only their own tables, and
       it is read here once the chain's task has returned */
    r->prof = pf_registry_new(s.trace_every);
    r->init_radius = asReal(VECTOR_ELT(init, 0));
    r->init_values = REAL(VECTOR_ELT(init, 1));
    unsigned char *given = malloc(n);
    double *im = NULL;
    if (given) for (size_t i = 0; i < n; i++) given[i] = LOGICAL(VECTOR_ELT(init, 2))[i] == TRUE;
    r->init_given = given;
    if (!isNull(metrics) && cfg.metric != NUTS_UNIT_E) {
      size_t m = dense ? n * n : n;
      im = malloc(m * sizeof(double));
      if (im) memcpy(im, REAL(VECTOR_ELT(metrics, k)), m * sizeof(double));
      r->cfg.inv_metric = im;
    }
    if (!given || !r->prof || (!isNull(metrics) && cfg.metric != NUTS_UNIT_E && !im))
      rc = ad_fail(AD_EMEMORY, "out of memory");
    else
      rc = nuts_run_alloc(r);
  }
  if (rc == AD_OK) rc = pp_pool_resize(pool_n);
  int have_group = 0;
  if (rc == AD_OK) { rc = pp_group_init(&sh->g); have_group = rc == AD_OK; }
  if (rc != AD_OK) {
    snprintf(err, sizeof err, "%s", ad_errmsg());
    if (have_group) pp_group_destroy(&sh->g);
    free_runs(&s);
    free(sh);
    rc_raise_msg(err, rc_status_class(rc));
  }

  /* the workers write into `mats`: should this frame be left by a long
     jump while they run, they must still find it (released below) */
  R_PreserveObject(mats);
  /* run: submit up to `parallel` chains, then one more as each finishes */
  double run_start = now();
  ad_interrupt_clear();
  int next = 0, running = 0, done = 0, interrupted = 0;
  for (; next < nchains && running < s.parallel; next++, running++) submit(&s, &sh->g, next);
  while (done < nchains) {
    pp_group_wait(&sh->g, POLL_SECONDS);
    for (int k = 0; k < nchains; k++) {
      if (!s.submitted[k] || s.reported[k]) continue;
      show_messages(&s, k, keep);
      if (atomic_load(&s.runs[k].phase) == NUTS_PHASE_DONE) {
        s.reported[k] = 1;
        done++;
        running--;
        show_messages(&s, k, keep);
        if (next < nchains && !interrupted) { submit(&s, &sh->g, next); next++; running++; }
      }
    }
    int stop = show_progress(&s, 0);
    if (!interrupted && (stop || !R_ToplevelExec(check_interrupt, NULL))) {
      interrupted = 1;
      atomic_store(&sh->stop, 1);
      /* and the evaluations running now stop at their next loop or call */
      ad_interrupt_set();
    }
    if (interrupted) {
      /* chains never started count as done, with nothing */
      for (; next < nchains; next++) {
        s.runs[next].status = NUTS_INTERRUPTED;
        s.reported[next] = 1;
        done++;
      }
    }
  }
  pp_group_wait(&sh->g, 1e9);     /* every task has returned: the group and runs are free */
  double run_wall = now() - run_start;
  ad_interrupt_clear();           /* no thread of this run reads it any more */
  pp_group_destroy(&sh->g);
  free(sh);
  R_ReleaseObject(mats);
  /* the main thread's own budget (tapestry_set_num_threads()) is untouched;
     give it back the workers it counts on if the run shrank the pool.  A
     failure here only means fewer helpers: the draws are made, keep them */
  if (pp_threads() - 1 > pp_pool_size()) pp_pool_resize(pp_threads() - 1);
  show_progress(&s, 1);

  /* "chains_time": the wall time of the chains themselves, from the first
     submission to the last chain's end (what R adds is measured apart) */
  static const char *const top[] = { "chains", "interrupted", "chains_time" };
  SEXP out = PROTECT(rc_named_list(3, top, NULL));
  SEXP chains = PROTECT(allocVector(VECSXP, nchains));
  for (int k = 0; k < nchains; k++)
    SET_VECTOR_ELT(chains, k, chain_result(&s, k, n, dense, colnames, VECTOR_ELT(keep, k),
                                           VECTOR_ELT(mats, 2 * k), VECTOR_ELT(mats, 2 * k + 1)));
  SET_VECTOR_ELT(out, 0, chains);
  SET_VECTOR_ELT(out, 1, ScalarLogical(interrupted));
  SET_VECTOR_ELT(out, 2, ScalarReal(run_wall));
  free_runs(&s);
  UNPROTECT(5);
  return out;
}

/* What a chain takes besides its draws (the run's record, its message
** queue and print buffer, the messages R keeps of it): R's check of a run
** that cannot fit in memory (R/sample.R) adds the draws. */
SEXP tp_chain_bytes(void) {
  return ScalarReal((double)sizeof(nuts_run) + (double)NUTS_RUN_MSGQ_SIZE + (double)NUTS_RUN_PRINT_SIZE +
                    (double)KEEP_MESSAGES * sizeof(SEXP));
}

/* ---- the run as a collective call of an MPI job ----
** Rank 0 samples in a session (its chains send map_rect jobs to the other
** ranks, which wait in tp_mpi_serve); the session is closed however the
** run ends, an R error or interrupt included, so the workers return. */
typedef struct sample_args { SEXP a[10]; } sample_args;

static SEXP sample_call(void *d) {
  SEXP *a = ((sample_args *)d)->a;
  return sample_body(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
}

static void sample_clean(void *d, Rboolean jump) {
  (void)d;
  pp_mpi_session_close(NULL, -1, jump ? AD_EINVALID : AD_OK,
                       jump ? "the run on MPI rank 0 stopped with an error or an interrupt" : NULL);
}

SEXP tp_sample(SEXP ctx, SEXP config, SEXP inits, SEXP chain_ids, SEXP seed, SEXP parallel,
               SEXP threads, SEXP refresh, SEXP show_msgs, SEXP interactive) {
  /* config$mpi_session: 0 when each rank runs chains of its own
     ($sample(mpi = "chains")) */
  if (pp_mpi_size() < 2 || opt_int_elt(config, "mpi_session") == 0)
    return sample_body(ctx, config, inits, chain_ids, seed, parallel, threads, refresh, show_msgs, interactive);
  sample_args a = { { ctx, config, inits, chain_ids, seed, parallel, threads, refresh, show_msgs, interactive } };
  pp_mpi_session_open();
  SEXP cont = PROTECT(R_MakeUnwindCont());
  SEXP out = R_UnwindProtect(sample_call, &a, sample_clean, NULL, cont);
  UNPROTECT(1);
  return out;
}
