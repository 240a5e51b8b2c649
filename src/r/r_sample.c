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
** chains than asked.  With more chains than that (and one thread each),
** the chains take turns instead: `parallel` tasks each run a piece of the
** chain that has waited longest, then put it back in line (turns_task), so
** every chain ends near the same time and no core idles while the last
** chain finishes alone.  The pool is sized parallel * threads_per_chain, at
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
#include "../nuts/nuts_cross.h"
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

/* An optional element (R_NilValue when absent). */
static SEXP opt_elt(SEXP list, const char *name) {
  SEXP names = getAttrib(list, R_NamesSymbol);
  for (R_xlen_t i = 0; i < XLENGTH(list); i++)
    if (!strcmp(CHAR(STRING_ELT(names, i)), name)) return VECTOR_ELT(list, i);
  return R_NilValue;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check_interrupt(void *unused) {
  (void)unused;
  R_CheckUserInterrupt();
}

/* Chains taking turns: the line of chains waiting for their next piece,
** which the workers take from and put back to themselves (the main thread
** is not woken between pieces). */
typedef struct turns {
  pthread_mutex_t lock;
  int *line;            /* a ring of chain indices, each chain at most once */
  int head, len, cap;
  nuts_run *runs;
  long slice;           /* iterations per piece */
} turns;

typedef struct shared { pp_group g; atomic_int stop; turns t; } shared;

/* One worker's share of chains taking turns: a piece of the first chain in
** line, which goes back to the end of the line unless it ended (finished,
** failed or interrupted: a paused chain sees the stop flag at once and
** ends with its draws).  The draws are the same as a chain run in one go:
** a piece stops between iterations and the chain keeps its generator and
** adaptation state. */
static void turns_task(void *arg) {
  turns *t = arg;
  for (;;) {
    pthread_mutex_lock(&t->lock);
    if (t->len == 0) {
      pthread_mutex_unlock(&t->lock);
      return;
    }
    int k = t->line[t->head];
    t->head = (t->head + 1) % t->cap;
    t->len--;
    pthread_mutex_unlock(&t->lock);
    nuts_run *r = &t->runs[k];
    nuts_run_task(r);
    if (!atomic_load(&r->paused)) continue;
    r->until += t->slice;
    atomic_store(&r->paused, 0);
    pthread_mutex_lock(&t->lock);
    t->line[(t->head + t->len) % t->cap] = k;
    t->len++;
    pthread_mutex_unlock(&t->lock);
  }
}

/* One decision of a run in pieces (cross-chain warmup or sampling to a
** target ESS), for the fit's metadata. */
typedef struct decision {
  int sampling;         /* 0 a warmup window, 1 a sampling check */
  long iteration;       /* iterations made when it was taken */
  int niter;            /* draws per chain it looked at */
  double rhat_lp, rhat_max, ess_min, ess_tail_min, step_ratio;
  int rhat_var, ess_var;   /* warmup: -1 lp__, else the unconstrained index; sampling: column */
  long divergent;
  int agree;            /* warmup: the rule held; sampling: the target was reached */
  int ends;             /* warmup ends (with its last buffer) / sampling ends here */
} decision;

/* A run in pieces: the plan of the pieces and the decisions taken. */
typedef struct cross {
  int on;               /* the chains run in pieces */
  int warmup_auto;
  long warmup_max, init_buffer, term_buffer, window;
  long warmup_used;     /* the end of warmup, once decided (-1 before) */
  int agreed;
  double target_ess, target_rhat;
  long check_every;
  const int *cols;
  int ncols;
  int ended_at_target;
  long sampling_used;
  long last_pause;      /* the iteration of the previous pause */   /* sampling iterations made, once ended (-1 before) */
  nuts_cross_rule rule;
  double *metric;       /* the pooled metric handed to the chains */
  decision *dec;
  int ndec, capdec;
  SEXP upar_names;      /* for the decisions' lines (protected by config) */
  SEXP col_names;       /* protected by the caller */
} cross;

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
  cross x;
  int *at_pause;       /* per chain: paused, waiting for the others */
  int *want;           /* per chain: to be submitted (again) */
  int turns;           /* the chains take turns (turns_task) */
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

/* A chain that cannot be queued ends at once, with the reason.  A chain
** run in pieces is submitted once per piece; its clock starts with the
** first. */
static void submit(sampling *s, pp_group *g, int k) {
  if (!s->submitted[k]) s->started[k] = now();
  s->submitted[k] = 1;
  s->want[k] = 0;
  if (pp_submit(g, nuts_run_task, &s->runs[k]) != AD_OK) {
    s->runs[k].status = AD_EMEMORY;
    snprintf(s->runs[k].msg, sizeof s->runs[k].msg, "%s", ad_errmsg());
    atomic_store(&s->runs[k].phase, NUTS_PHASE_DONE);
  }
}

/* ---- a run in pieces: the decisions between them ---- */

static void upar_name(const cross *x, int j, char *buf, size_t size) {
  if (j < 0) snprintf(buf, size, "lp__");
  else if (!isNull(x->upar_names) && j < LENGTH(x->upar_names))
    snprintf(buf, size, "%s", CHAR(STRING_ELT(x->upar_names, j)));
  else snprintf(buf, size, "parameter %d", j + 1);
}

static decision *new_decision(cross *x) {
  if (ad_grow(&x->dec, x->ndec, &x->capdec, sizeof *x->dec, 16)) return NULL;
  decision *d = &x->dec[x->ndec++];
  memset(d, 0, sizeof *d);
  return d;
}

/* A decision as a line of the output (the progress lines' companion). */
static void say(sampling *s, const char *line) {
  if (!s->show_messages) return;
  if (s->interactive) show_progress(s, NA_LOGICAL);
  Rprintf("%s\n", line);
}

/* The end of the next warmup window after iteration `it`: `window`
** iterations, the last window stretched to leave exactly the final
** buffer before iter_warmup_max (as Stan stretches its last window). */
static long next_window_end(const cross *x, long it) {
  long u = it + x->window;
  if (u + x->window + x->term_buffer > x->warmup_max) u = x->warmup_max - x->term_buffer;
  return u;
}

/* Every chain still running is paused at the same iteration: look at
** their draws, record and show the decision, and set the next piece.
** Chains whose sampling reached its target end here (counted in *ended). */
static void cross_step(sampling *s, int nthreads, int *ended) {
  cross *x = &s->x;
  int m = 0;
  nuts_run **live = (nuts_run **)R_alloc((size_t)s->nchains, sizeof *live);
  int *idx = (int *)R_alloc((size_t)s->nchains, sizeof *idx);
  for (int k = 0; k < s->nchains; k++)
    if (s->at_pause[k]) { idx[m] = k; live[m++] = &s->runs[k]; }
  *ended = 0;
  if (m == 0) return;
  long it = nuts_chain_iteration(live[0]->chain), until = LONG_MAX;
  long nw = x->warmup_used >= 0 ? x->warmup_used : live[0]->cfg.num_warmup;
  char line[1024], a[256], b[256];
  if (x->warmup_auto && x->warmup_used < 0) {
    if (it == x->init_buffer) {
      /* the initial buffer: step size only, its draws not kept */
      nuts_cross_window_shift(live, m, 0);
      until = next_window_end(x, it);
    } else {
      nuts_cross_warm w;
      int dense = live[0]->cfg.metric == NUTS_DENSE_E, unit = live[0]->cfg.metric == NUTS_UNIT_E;
      size_t keep = (size_t)(it - x->last_pause);
      int rc = nuts_cross_warmup_check(live, m, keep, &x->rule, dense, nthreads, unit ? NULL : x->metric, &w);
      if (rc != AD_OK) { memset(&w, 0, sizeof w); w.rhat_lp = w.rhat_max = w.ess_min = w.step_ratio = NAN; }
      /* one window of draws is too few to agree on: its metric came from
         the initial buffer's draws, and 100 draws a chain leave a heavy
         tail's scale unseen (gp_profile's alpha: sds 5-10% low when warmup
         ended after one window) */
      int first = w.niter < 2 * x->window;
      if (first) w.agree = 0;
      int last = it >= x->warmup_max - x->term_buffer;
      decision *d = new_decision(x);
      if (d) {
        d->iteration = it; d->niter = w.niter; d->rhat_lp = w.rhat_lp; d->rhat_max = w.rhat_max;
        d->rhat_var = w.rhat_var; d->ess_min = w.ess_min; d->ess_var = w.ess_var;
        d->ess_tail_min = NAN; d->divergent = w.divergent; d->step_ratio = w.step_ratio;
        d->agree = w.agree; d->ends = w.agree || last;
      }
      upar_name(x, w.rhat_var, a, sizeof a);
      upar_name(x, w.ess_var, b, sizeof b);
      char why[400];
      if (w.agree) snprintf(why, sizeof why, "the chains agree");
      else if (first) snprintf(why, sizeof why, "one window only");
      else if (!(w.rhat_lp <= x->rule.rhat_lp))
        snprintf(why, sizeof why, "R-hat of lp__ %.3f above %.2f", w.rhat_lp, x->rule.rhat_lp);
      else if (!(w.rhat_max <= x->rule.rhat_par))
        snprintf(why, sizeof why, "R-hat of %s %.3f above %.2f", a, w.rhat_max, x->rule.rhat_par);
      else if (!(w.ess_min >= x->rule.ess_min))
        snprintf(why, sizeof why, "bulk ESS of %s %.0f below %.0f", b, w.ess_min, x->rule.ess_min);
      else if (!w.div_ok)
        snprintf(why, sizeof why, "%ld divergent transition%s in the second half of the window", w.divergent,
                 w.divergent == 1 ? "" : "s");
      else
        snprintf(why, sizeof why, "step sizes %.2f times apart", w.step_ratio);
      if (w.agree || last) {
        x->warmup_used = it + x->term_buffer;
        x->agreed = w.agree;
        for (int k = 0; k < m; k++)
          nuts_chain_set_length(live[k]->chain, x->warmup_used, live[k]->cfg.num_samples);
        until = x->target_ess > 0 ? x->warmup_used + x->check_every : LONG_MAX;
        snprintf(line, sizeof line, "Warmup check at iteration %ld (%d draws per chain): %s; "
                 "warmup ends at iteration %ld, after %ld iterations with the pooled metric%s.",
                 it, w.niter, why, x->warmup_used, x->term_buffer,
                 w.agree ? "" : " (iter_warmup_max reached)");
      } else {
        nuts_cross_window_shift(live, m, keep);
        until = next_window_end(x, it);
        snprintf(line, sizeof line, "Warmup check at iteration %ld (%d draws per chain): %s; "
                 "warmup goes on to iteration %ld.", it, w.niter, why, until);
      }
      say(s, line);
      if (!unit) for (int k = 0; k < m; k++) live[k]->next_metric = x->metric;
    }
  } else {
    nuts_cross_samp c;
    int rc = nuts_cross_sampling_check(live, m, x->cols, x->ncols, x->target_ess, x->target_rhat,
                                       nthreads, &c);
    if (rc != AD_OK) { memset(&c, 0, sizeof c); c.rhat_max = c.ess_bulk_min = c.ess_tail_min = NAN; }
    int cap = it >= nw + live[0]->cfg.num_samples;
    decision *d = new_decision(x);
    if (d) {
      d->sampling = 1; d->iteration = it; d->niter = c.niter; d->rhat_lp = NAN;
      d->rhat_max = c.rhat_max; d->rhat_var = c.rhat_col; d->ess_min = c.ess_bulk_min;
      d->ess_tail_min = c.ess_tail_min; d->ess_var = c.ess_col; d->step_ratio = NAN;
      d->agree = c.reached; d->ends = c.reached || cap;
    }
    const char *cname = c.ess_col >= 0 && c.ess_col < LENGTH(x->col_names)
                        ? CHAR(STRING_ELT(x->col_names, c.ess_col)) : "?";
    const char *rname = c.rhat_col >= 0 && c.rhat_col < LENGTH(x->col_names)
                        ? CHAR(STRING_ELT(x->col_names, c.rhat_col)) : "?";
    snprintf(a, sizeof a, "smallest ESS %.0f bulk, %.0f tail (%s), largest R-hat %.3f (%s)",
             c.ess_bulk_min, c.ess_tail_min, cname, c.rhat_max, rname);
    if (c.reached) {
      x->ended_at_target = 1;
      x->sampling_used = it - nw;
      snprintf(line, sizeof line, "Sampling check at %d draws per chain: %s; target ESS %.0f "
               "reached, sampling stops.", c.niter, a, x->target_ess);
      for (int k = 0; k < m; k++) {
        nuts_chain_set_length(live[k]->chain, nw, it - nw);
        nuts_run_end_paused(live[k], AD_OK);
        s->at_pause[idx[k]] = 0;
        (*ended)++;
      }
      say(s, line);
      return;
    }
    until = it + x->check_every;
    snprintf(line, sizeof line, "Sampling check at %d draws per chain: %s; target ESS %.0f "
             "not reached, sampling goes on.", c.niter, a, x->target_ess);
    say(s, line);
  }
  x->last_pause = it;
  for (int k = 0; k < m; k++) {
    live[k]->until = until;
    atomic_store(&live[k]->paused, 0);
    s->at_pause[idx[k]] = 0;
    s->want[idx[k]] = 1;
  }
}

/* The decisions as R columns (the fit's metadata()$decisions). */
static SEXP decisions_sexp(const sampling *s) {
  const cross *x = &s->x;
  static const char *const f[] = { "phase", "iteration", "draws_per_chain", "rhat_lp",
    "rhat_max", "rhat_variable", "ess_min", "ess_tail_min", "ess_variable", "divergent",
    "step_size_ratio", "passed", "ends" };
  SEXP out = PROTECT(rc_named_list(13, f, NULL));
  int n = x->ndec;
  SEXP ph = PROTECT(allocVector(STRSXP, n)), rv = PROTECT(allocVector(STRSXP, n)),
       ev = PROTECT(allocVector(STRSXP, n));
  SEXP cols[7];
  for (int j = 0; j < 7; j++) cols[j] = PROTECT(allocVector(REALSXP, n));
  SEXP it = PROTECT(allocVector(INTSXP, n)), nd = PROTECT(allocVector(INTSXP, n)),
       ag = PROTECT(allocVector(LGLSXP, n)), en = PROTECT(allocVector(LGLSXP, n));
  char buf[512];
  for (int i = 0; i < n; i++) {
    const decision *d = &x->dec[i];
    SET_STRING_ELT(ph, i, mkChar(d->sampling ? "sampling" : "warmup"));
    INTEGER(it)[i] = (int)d->iteration;
    INTEGER(nd)[i] = d->niter;
    double v[7] = { d->rhat_lp, d->rhat_max, d->ess_min, d->ess_tail_min, (double)d->divergent,
                    d->step_ratio, 0 };
    for (int j = 0; j < 6; j++) REAL(cols[j])[i] = isnan(v[j]) ? NA_REAL : v[j];
    if (d->sampling) {
      SET_STRING_ELT(rv, i, d->rhat_var >= 0 && d->rhat_var < LENGTH(x->col_names)
                     ? STRING_ELT(x->col_names, d->rhat_var) : NA_STRING);
      SET_STRING_ELT(ev, i, d->ess_var >= 0 && d->ess_var < LENGTH(x->col_names)
                     ? STRING_ELT(x->col_names, d->ess_var) : NA_STRING);
      REAL(cols[4])[i] = NA_REAL;
    } else {
      upar_name(x, d->rhat_var, buf, sizeof buf);
      SET_STRING_ELT(rv, i, mkCharCE(buf, CE_UTF8));
      upar_name(x, d->ess_var, buf, sizeof buf);
      SET_STRING_ELT(ev, i, mkCharCE(buf, CE_UTF8));
    }
    LOGICAL(ag)[i] = d->agree;
    LOGICAL(en)[i] = d->ends;
  }
  SET_VECTOR_ELT(out, 0, ph);
  SET_VECTOR_ELT(out, 1, it);
  SET_VECTOR_ELT(out, 2, nd);
  SET_VECTOR_ELT(out, 3, cols[0]);
  SET_VECTOR_ELT(out, 4, cols[1]);
  SET_VECTOR_ELT(out, 5, rv);
  SET_VECTOR_ELT(out, 6, cols[2]);
  SET_VECTOR_ELT(out, 7, cols[3]);
  SET_VECTOR_ELT(out, 8, ev);
  SET_VECTOR_ELT(out, 9, cols[4]);
  SET_VECTOR_ELT(out, 10, cols[5]);
  SET_VECTOR_ELT(out, 11, ag);
  SET_VECTOR_ELT(out, 12, en);
  UNPROTECT(15);
  return out;
}

static SEXP cross_sexp(const sampling *s) {
  const cross *x = &s->x;
  static const char *const f[] = { "warmup_auto", "iter_warmup", "warmup_agreed",
    "target_ess", "iter_sampling", "target_reached", "decisions" };
  SEXP out = PROTECT(rc_named_list(7, f, NULL));
  SET_VECTOR_ELT(out, 0, ScalarLogical(x->warmup_auto));
  SET_VECTOR_ELT(out, 1, ScalarInteger(x->warmup_used >= 0 ? (int)x->warmup_used : NA_INTEGER));
  SET_VECTOR_ELT(out, 2, x->warmup_auto ? ScalarLogical(x->agreed) : ScalarLogical(NA_LOGICAL));
  SET_VECTOR_ELT(out, 3, ScalarReal(x->target_ess > 0 ? x->target_ess : NA_REAL));
  SET_VECTOR_ELT(out, 4, ScalarInteger(x->sampling_used >= 0 ? (int)x->sampling_used : NA_INTEGER));
  SET_VECTOR_ELT(out, 5, ScalarLogical(x->ended_at_target));
  SET_VECTOR_ELT(out, 6, decisions_sexp(s));
  UNPROTECT(1);
  return out;
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
  /* each field from the list element of its own name */
#define INT_FIELD(f) cfg->f = int_elt(c, #f)
#define REAL_FIELD(f) cfg->f = real_elt(c, #f)
  INT_FIELD(num_warmup);
  INT_FIELD(num_samples);
  INT_FIELD(thin);
  INT_FIELD(save_warmup);
  INT_FIELD(adapt_engaged);
  REAL_FIELD(delta);
  REAL_FIELD(gamma);
  REAL_FIELD(kappa);
  REAL_FIELD(t0);
  INT_FIELD(init_buffer);
  INT_FIELD(term_buffer);
  INT_FIELD(window);
  INT_FIELD(max_depth);
  cfg->metric = (nuts_metric_kind)int_elt(c, "metric");
  REAL_FIELD(stepsize_jitter);
#undef INT_FIELD
#undef REAL_FIELD
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
  /* a run in pieces: cross-chain warmup (config$warmup_auto, the window
     lengths, config$num_warmup its maximum) and/or sampling to a target
     ESS (config$target_ess over the 0-based draw columns target_cols,
     checked every check_every iterations) */
  cross *x = &s.x;
  x->warmup_auto = opt_int_elt(config, "warmup_auto") && cfg.adapt_engaged && cfg.num_warmup > 0;
  {
    SEXP te = opt_elt(config, "target_ess");
    x->target_ess = isNull(te) ? 0 : asReal(te);
    if (!(x->target_ess > 0)) x->target_ess = 0;
  }
  x->on = (x->warmup_auto || x->target_ess > 0) && !fixed_param;
  x->warmup_max = cfg.num_warmup;
  x->init_buffer = cfg.init_buffer;
  x->term_buffer = cfg.term_buffer;
  x->window = opt_int_elt(config, "warmup_window");
  if (x->window < 1) x->window = 100;
  x->check_every = opt_int_elt(config, "check_every");
  if (x->check_every < 1) x->check_every = 100;
  x->target_rhat = 1.01;
  x->warmup_used = x->warmup_auto ? -1 : cfg.num_warmup;
  x->sampling_used = -1;
  x->upar_names = opt_elt(config, "upar_names");
  nuts_cross_rule_default(&x->rule);
  if (x->on) {
    SEXP tc = opt_elt(config, "target_cols");
    x->ncols = isNull(tc) ? 0 : LENGTH(tc);
    x->cols = x->ncols ? INTEGER(tc) : NULL;     /* protected by config */
  }
  if (x->warmup_auto) cfg.cross_warmup = 1;
  int pool_n = asInteger(threads), cores = pp_cores();
  if (pool_n > cores) pool_n = cores;
  if (pool_n < 1) pool_n = 1;
  s.parallel = asInteger(parallel);
  if (s.parallel > pool_n) s.parallel = pool_n;
  if (s.parallel < 1) s.parallel = 1;
  /* more chains than run at once take turns (config$turns, the option
     tapestry.chain_turns): in order, the first `parallel` chains ran to
     their end, then the next, and the core that finished first idled
     while the other's last chain ran (5-10% of the wall time of 4 chains
     on 2 cores, chains differing in their step sizes).  Not for chains
     with threads of their own (their helpers are the idle workers), runs
     in pieces of their own (cross), or fixed_param. */
  s.turns = opt_int_elt(config, "turns") && !x->on && !fixed_param && per_chain == 1 &&
            s.parallel > 1 && nchains > s.parallel;
  /* a piece is a 64th of the chain: the line's cost (a lock, the chain's
     staged draws flushed) is small beside it, and the chains end within
     about a piece of each other */
  long slice = ((long)cfg.num_warmup + (long)cfg.num_samples) / 64;
  if (slice < 1) slice = 1;

  /* R memory first (it is reclaimed if anything below raises an error) */
  s.submitted = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.reported = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.nkept = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.started = (double *)R_alloc((size_t)nchains, sizeof(double));
  s.drain = R_alloc(NUTS_RUN_MSGQ_SIZE, 1);
  memset(s.submitted, 0, (size_t)nchains * sizeof(int));
  memset(s.reported, 0, (size_t)nchains * sizeof(int));
  memset(s.nkept, 0, (size_t)nchains * sizeof(int));
  s.at_pause = (int *)R_alloc((size_t)nchains, sizeof(int));
  s.want = (int *)R_alloc((size_t)nchains, sizeof(int));
  memset(s.at_pause, 0, (size_t)nchains * sizeof(int));
  for (int k = 0; k < nchains; k++) s.want[k] = 1;
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
  x->col_names = colnames;
  if (x->ncols) {
    for (int i = 0; i < x->ncols; i++)
      if (x->cols[i] < 0 || x->cols[i] >= LENGTH(colnames))
        rc_raise_msg("internal: bad target columns", "tapestry_argument_error");
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
    if (x->on) {
      r->pieces = 1;
      r->until = x->warmup_auto ? x->init_buffer : cfg.num_warmup + x->check_every;
      /* the previous window and the current one, the last stretched by
         up to a window */
      if (x->warmup_auto) r->wcap = (size_t)(3 * x->window + x->init_buffer);
    } else if (s.turns) {
      r->pieces = 1;
      r->until = slice;
    }
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
  if (rc == AD_OK && x->warmup_auto) {
    x->metric = malloc((dense ? n * n : n) * sizeof(double) + 1);
    if (!x->metric) rc = ad_fail(AD_EMEMORY, "out of memory");
  }
  int have_lock = 0;
  if (rc == AD_OK && s.turns) {
    sh->t.line = malloc((size_t)nchains * sizeof *sh->t.line);
    if (!sh->t.line) rc = ad_fail(AD_EMEMORY, "out of memory");
    else if (pthread_mutex_init(&sh->t.lock, NULL) != 0) rc = ad_fail(AD_EMEMORY, "cannot create a mutex");
    else {
      have_lock = 1;
      sh->t.cap = nchains;
      sh->t.runs = s.runs;
      sh->t.slice = slice;
    }
  }
  if (rc == AD_OK) rc = pp_pool_resize(pool_n);
  int have_group = 0;
  if (rc == AD_OK) { rc = pp_group_init(&sh->g); have_group = rc == AD_OK; }
  if (rc != AD_OK) {
    snprintf(err, sizeof err, "%s", ad_errmsg());
    if (have_group) pp_group_destroy(&sh->g);
    if (have_lock) pthread_mutex_destroy(&sh->t.lock);
    if (sh) free(sh->t.line);
    free_runs(&s);
    free(sh);
    free(x->metric);
    rc_raise_msg(err, rc_status_class(rc));
  }

  /* the workers write into `mats`: should this frame be left by a long
     jump while they run, they must still find it (released below) */
  R_PreserveObject(mats);
  /* run: submit up to `parallel` chains, then one more as each finishes */
  double run_start = now();
  ad_interrupt_clear();
  /* chains are submitted in order as slots free up: at most `parallel` run
     at once.  A chain run in pieces frees its slot when it pauses; once
     every chain still running has paused at the same iteration the
     decision between pieces is taken here (cross_step) and they are
     submitted again, so the pieces of more chains than `parallel` take
     turns. */
  int running = 0, done = 0, interrupted = 0, seen = 0;
  if (s.turns) {
    /* every chain in line, in order; `parallel` workers take turns with
       them.  The main thread watches as for chains run whole: a chain is
       reported when it is done */
    double t0 = now();
    for (int k = 0; k < nchains; k++) {
      s.started[k] = t0;
      s.submitted[k] = 1;
      s.want[k] = 0;
      sh->t.line[k] = k;
    }
    sh->t.len = nchains;
    running = nchains;
    for (int w = 0; w < s.parallel; w++)
      if (pp_submit(&sh->g, turns_task, &sh->t) != AD_OK && w == 0) {
        /* no task could be queued: every chain ends at once, with the reason */
        for (int k = 0; k < nchains; k++) {
          s.runs[k].status = AD_EMEMORY;
          snprintf(s.runs[k].msg, sizeof s.runs[k].msg, "%s", ad_errmsg());
          atomic_store(&s.runs[k].phase, NUTS_PHASE_DONE);
        }
      }
  }
  for (;;) {
    for (int k = 0; k < nchains && running < s.parallel && !interrupted; k++)
      if (s.want[k] && !s.reported[k]) { submit(&s, &sh->g, k); running++; }
    if (done >= nchains) break;
    /* wake as soon as any chain (or piece) ends, so the next one starts on
       the worker it leaves: waiting for every running chain left that
       worker idle, a quarter of the wall time of 4 chains on 2 cores */
    seen = pp_group_wait_next(&sh->g, seen, POLL_SECONDS);
    for (int k = 0; k < nchains; k++) {
      if (!s.submitted[k] || s.reported[k] || s.at_pause[k] || s.want[k]) continue;
      show_messages(&s, k, keep);
      if (atomic_load(&s.runs[k].phase) == NUTS_PHASE_DONE) {
        s.reported[k] = 1;
        done++;
        running--;
        show_messages(&s, k, keep);
      } else if (!s.turns && atomic_load(&s.runs[k].paused)) {
        s.at_pause[k] = 1;
        running--;
        show_messages(&s, k, keep);
      }
    }
    if (x->on && !interrupted && running == 0) {
      int waiting = 0, paused = 0;
      for (int k = 0; k < nchains; k++) {
        waiting += s.want[k] && !s.reported[k];
        paused += s.at_pause[k];
      }
      if (!waiting && paused) {
        int ended = 0;
        cross_step(&s, pool_n, &ended);
        for (int k = 0; k < nchains && ended; k++)
          if (!s.reported[k] && !s.at_pause[k] && !s.want[k] &&
              atomic_load(&s.runs[k].phase) == NUTS_PHASE_DONE) {
            s.reported[k] = 1;
            done++;
            show_messages(&s, k, keep);
          }
        continue;      /* submit the next pieces at once */
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
      /* chains never started count as done, with nothing; paused ones
         keep the draws they made */
      for (int k = 0; k < nchains; k++) {
        if (s.reported[k]) continue;
        if (s.at_pause[k] || (s.want[k] && s.runs[k].chain)) {
          nuts_run_end_paused(&s.runs[k], NUTS_INTERRUPTED);
          s.at_pause[k] = s.want[k] = 0;
          s.reported[k] = 1;
          done++;
        } else if (s.want[k]) {
          s.runs[k].status = NUTS_INTERRUPTED;
          s.want[k] = 0;
          s.reported[k] = 1;
          done++;
        }
      }
    }
  }
  pp_group_wait(&sh->g, 1e9);     /* every task has returned: the group and runs are free */
  double run_wall = now() - run_start;
  ad_interrupt_clear();           /* no thread of this run reads it any more */
  pp_group_destroy(&sh->g);
  if (s.turns) pthread_mutex_destroy(&sh->t.lock);
  free(sh->t.line);
  free(sh);
  R_ReleaseObject(mats);
  /* the main thread's own budget (tapestry_set_num_threads()) is untouched;
     give it back the workers it counts on if the run shrank the pool.  A
     failure here only means fewer helpers: the draws are made, keep them */
  if (pp_threads() - 1 > pp_pool_size()) pp_pool_resize(pp_threads() - 1);
  show_progress(&s, 1);

  /* "chains_time": the wall time of the chains themselves, from the first
     submission to the last chain's end (what R adds is measured apart) */
  static const char *const top[] = { "chains", "interrupted", "chains_time", "cross" };
  SEXP out = PROTECT(rc_named_list(x->on ? 4 : 3, top, NULL));
  SEXP chains = PROTECT(allocVector(VECSXP, nchains));
  for (int k = 0; k < nchains; k++)
    SET_VECTOR_ELT(chains, k, chain_result(&s, k, n, dense, colnames, VECTOR_ELT(keep, k),
                                           VECTOR_ELT(mats, 2 * k), VECTOR_ELT(mats, 2 * k + 1)));
  SET_VECTOR_ELT(out, 0, chains);
  SET_VECTOR_ELT(out, 1, ScalarLogical(interrupted));
  SET_VECTOR_ELT(out, 2, ScalarReal(run_wall));
  if (x->on) SET_VECTOR_ELT(out, 3, cross_sexp(&s));
  free(x->dec);
  free(x->metric);
  free_runs(&s);
  UNPROTECT(5);
  return out;
}

/* What a chain takes besides its draws (the run's record, its message
** queue and print buffer, the messages R keeps of it): R's check of a run
** that cannot fit in memory (R/verb-sample.R) adds the draws. */
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
