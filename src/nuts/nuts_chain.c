/*
** nuts_chain.c -- one chain: allocation, warmup with adaptation, sampling.
**
** Follows Stan's run_adaptive_sampler and the adapt_*_nuts transitions: after
** each warmup transition the step size learns from accept_stat; at the end of
** each slow window the metric is replaced by the regularised estimate, the
** step size is re-initialised by the heuristic and dual averaging restarts at
** mu = log(10 * eps).  Warmup ends with the step size at exp(x_bar).
** All buffers are allocated here once; the iterations allocate nothing.
**
** A chain can also run in pieces (nuts_chain_start / _step / _end), which
** is what cross-chain warmup and sampling to a target ESS need: the
** chains stop at the same iteration, the caller looks at all their draws,
** and sets the next stretch (a pooled metric, the end of warmup, the end of
** sampling).  nuts_chain_run is the three in one go, so a run that never
** pauses makes exactly the numbers it made before the split.
*/
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nuts_int.h"

void nuts_config_default(nuts_config *cfg) {
  /* CmdStan's defaults; every other field zero */
  *cfg = (nuts_config){
    .num_warmup = 1000,
    .num_samples = 1000,
    .thin = 1,
    .adapt_engaged = 1,
    .delta = 0.8,
    .gamma = 0.05,
    .kappa = 0.75,
    .t0 = 10,
    .init_buffer = 75,
    .term_buffer = 50,
    .window = 25,
    .max_depth = 10,
    .metric = NUTS_DIAG_E,
    .stepsize = 1,
  };
}

static int fail(nuts_result *res, int code, const char *what) {
  res->status = code;
  snprintf(res->msg, sizeof res->msg, "%s", what);
  return code;
}

static const char *check_config(const nuts_config *c, int n) {
  if (n < 1) return "the model has no parameters to sample";
  if (c->num_warmup < 0) return "num_warmup must be non-negative";
  if (c->num_samples < 0) return "num_samples must be non-negative";
  if (c->thin < 1) return "thin must be positive";
  if (c->max_depth < 1 || c->max_depth > 30) return "max_depth must be between 1 and 30";
  if (!(c->stepsize > 0) || !isfinite(c->stepsize)) return "stepsize must be positive and finite";
  if (!(c->stepsize_jitter >= 0 && c->stepsize_jitter <= 1)) return "stepsize_jitter must be in [0, 1]";
  if (c->metric != NUTS_UNIT_E && c->metric != NUTS_DIAG_E && c->metric != NUTS_DENSE_E)
    return "unknown metric";
  if (c->adapt_engaged) {
    if (!(c->delta > 0 && c->delta < 1)) return "adapt delta must be in (0, 1)";
    if (!(c->gamma > 0)) return "adapt gamma must be positive";
    if (!(c->kappa > 0)) return "adapt kappa must be positive";
    if (!(c->t0 > 0)) return "adapt t0 must be positive";
    if (c->init_buffer < 0 || c->term_buffer < 0 || c->window < 1)
      return "adaptation buffers must be non-negative and the window positive";
  }
  return NULL;
}

/* Bump allocation from one block, so freeing is one call. */
typedef struct bump { double *next; } bump;
static double *take(bump *b, size_t k) { double *p = b->next; b->next += k; return p; }
static void take_point(bump *b, int n, nuts_point *z) {
  z->q = take(b, (size_t)n);
  z->p = take(b, (size_t)n);
  z->g = take(b, (size_t)n);
  z->V = 0;
}

/* A chain between calls of nuts_chain_step: everything the loop of
** Stan's run_adaptive_sampler keeps on its stack, kept on the heap so that
** the chain can stop at an iteration and go on later (possibly on another
** thread) with the same numbers it would have made in one go. */
struct nuts_chain {
  const nuts_config *cfg;
  const nuts_sink *sink;
  nuts_result *res;
  nuts_sampler *s;
  nuts_level *lvl;
  double *block;
  nuts_welford wf;
  nuts_dual_avg da;
  nuts_windows win;
  int n, adapt, finished, rc;
  size_t msize;
  long it, num_warmup, num_samples;
};

static int chain_fail(nuts_chain *ch, int code, const char *what) {
  ch->finished = 1;
  return ch->rc = fail(ch->res, code, what);
}

/* Step one of a start: one calloc'd block carved into every vector the
** sampler, its recursion levels and the Welford estimator use, so the
** iterations allocate nothing and nuts_chain_end frees with four calls.
** The order of the carving is the layout the sums of `total` count. */
static nuts_chain *chain_alloc(const nuts_config *cfg, int n) {
  int dense = cfg->metric == NUTS_DENSE_E;
  size_t nn = (size_t)n, msize = dense ? nn * nn : nn;
  size_t levels = (size_t)cfg->max_depth + 1;
  size_t total = 6 * 3 * nn + 14 * nn          /* points, tree vectors */
               + msize + (dense ? nn * nn : 0) + nn   /* metric */
               + levels * 9 * nn                 /* recursion levels */
               + 2 * nn + msize;                 /* welford */
  double *block = calloc(total, sizeof(double));
  nuts_sampler *s = calloc(1, sizeof *s);
  nuts_level *lvl = calloc(levels, sizeof *lvl);
  nuts_chain *ch = calloc(1, sizeof *ch);
  if (!block || !s || !lvl || !ch) {
    free(block); free(s); free(lvl); free(ch);
    return NULL;
  }
  ch->s = s; ch->lvl = lvl; ch->block = block;
  ch->n = n; ch->msize = msize;
  bump b = { block };
  take_point(&b, n, &s->z); take_point(&b, n, &s->z_fwd); take_point(&b, n, &s->z_bck);
  take_point(&b, n, &s->z_sample); take_point(&b, n, &s->z_propose); take_point(&b, n, &s->z_init);
  s->p_fwd_fwd = take(&b, nn); s->ps_fwd_fwd = take(&b, nn);
  s->p_fwd_bck = take(&b, nn); s->ps_fwd_bck = take(&b, nn);
  s->p_bck_fwd = take(&b, nn); s->ps_bck_fwd = take(&b, nn);
  s->p_bck_bck = take(&b, nn); s->ps_bck_bck = take(&b, nn);
  s->rho = take(&b, nn); s->rho_fwd = take(&b, nn); s->rho_bck = take(&b, nn);
  s->tmp1 = take(&b, nn); s->tmp2 = take(&b, nn); s->dq = take(&b, nn);
  s->m.kind = cfg->metric; s->m.n = n;
  s->m.minv = take(&b, msize);
  s->m.chol = dense ? take(&b, nn * nn) : NULL;
  s->m.u = take(&b, nn);
  s->lvl = lvl;
  for (size_t d = 0; d < levels; d++) {
    nuts_level *L = &lvl[d];
    L->p_init_end = take(&b, nn); L->ps_init_end = take(&b, nn); L->rho_init = take(&b, nn);
    L->p_final_beg = take(&b, nn); L->ps_final_beg = take(&b, nn); L->rho_final = take(&b, nn);
    take_point(&b, n, &L->z_propose_final);
  }
  nuts_welford *wf = &ch->wf;
  wf->n = n; wf->dense = dense; wf->count = 0;
  wf->mean = take(&b, nn); wf->delta = take(&b, nn); wf->m2 = take(&b, msize);
  return ch;
}

/* Step two: the metric the chain starts with, the user's or the identity
** (unit_e ignores a user's metric, as Stan does), with its factor. */
static int chain_init_metric(nuts_chain *ch) {
  const nuts_config *cfg = ch->cfg;
  nuts_sampler *s = ch->s;
  int n = ch->n, dense = cfg->metric == NUTS_DENSE_E;
  size_t nn = (size_t)n;
  if (cfg->inv_metric && cfg->metric != NUTS_UNIT_E) {
    memcpy(s->m.minv, cfg->inv_metric, ch->msize * sizeof(double));
  } else if (dense) {
    for (int i = 0; i < n; i++) s->m.minv[i + nn * i] = 1;
  } else {
    for (int i = 0; i < n; i++) s->m.minv[i] = 1;
  }
  if (nuts_metric_update(&s->m) != AD_OK)
    return chain_fail(ch, AD_EINVALID, dense ? "the inverse metric is not symmetric positive definite"
                                             : "the inverse metric must be positive and finite");
  return AD_OK;
}

/* Step three: the log density and gradient at q0.  A chain cannot start
** where either is not finite: the first trajectory would be meaningless. */
static int chain_init_point(nuts_chain *ch, const double *q0) {
  nuts_sampler *s = ch->s;
  nuts_result *res = ch->res;
  int n = ch->n;
  memcpy(s->z_sample.q, q0, (size_t)n * sizeof(double));
  int rc = nuts_eval(s, &s->z_sample);
  if (rc != AD_OK) {
    ch->finished = 1;
    ch->rc = res->status = rc;
    snprintf(res->msg, sizeof res->msg, "log density at the initial point: %.400s",
             rc == AD_EDOMAIN ? s->reject_msg : s->msg);
    return rc;
  }
  int finite = isfinite(s->z_sample.V);
  for (int i = 0; i < n && finite; i++) finite = isfinite(s->z_sample.g[i]);
  if (!finite)
    return chain_fail(ch, AD_EDOMAIN, "log density or its gradient is not finite at the initial point");
  return AD_OK;
}

/* Step four, only when warmup adapts: dual averaging around 10 times the
** starting step size, the adaptation windows, an empty estimator, and the
** step size heuristic at the initial point (Stan's order). */
static int chain_init_warmup(nuts_chain *ch) {
  const nuts_config *cfg = ch->cfg;
  nuts_sampler *s = ch->s;
  ch->adapt = cfg->adapt_engaged && cfg->num_warmup > 0;
  if (!ch->adapt) return AD_OK;
  ch->da.mu = log(10 * cfg->stepsize);
  ch->da.delta = cfg->delta; ch->da.gamma = cfg->gamma; ch->da.kappa = cfg->kappa; ch->da.t0 = cfg->t0;
  nuts_da_restart(&ch->da);
  nuts_windows_set(&ch->win, cfg->num_warmup, cfg->init_buffer, cfg->term_buffer, cfg->window);
  nuts_welford_restart(&ch->wf);
  if (nuts_init_stepsize(s) != AD_OK) return chain_fail(ch, s->status, s->msg);
  return AD_OK;
}

int nuts_chain_start(const nuts_config *cfg, nuts_logp_fn f, void *model, int n,
                     const double *q0, tm_rng *rng, const nuts_sink *sink,
                     nuts_result *res, nuts_chain **out) {
  double *keep_out = res->inv_metric;
  *out = NULL;
  memset(res, 0, sizeof *res);
  res->inv_metric = keep_out;
  const char *bad = check_config(cfg, n);
  if (bad) return fail(res, AD_EINVALID, bad);

  nuts_chain *ch = chain_alloc(cfg, n);
  if (!ch) return fail(res, AD_EMEMORY, "out of memory allocating the sampler");
  ch->cfg = cfg; ch->sink = sink; ch->res = res;
  ch->num_warmup = cfg->num_warmup;
  ch->num_samples = cfg->num_samples;
  ch->rc = AD_OK;
  *out = ch;
  nuts_sampler *s = ch->s;
  s->n = n; s->f = f; s->model = model; s->rng = rng;
  s->nom_eps = cfg->stepsize;
  s->jitter = cfg->stepsize_jitter;
  s->max_depth = cfg->max_depth;
  s->max_delta_h = 1000;
  s->status = AD_OK;

  int rc = chain_init_metric(ch);
  if (rc == AD_OK) rc = chain_init_point(ch, q0);
  if (rc == AD_OK) rc = chain_init_warmup(ch);
  return rc;
}

/* What the sink is told of one transition; `saved` applies thinning, and
** warmup draws count only when the caller keeps them. */
static void chain_draw(const nuts_chain *ch, long it, int warm, nuts_draw *d) {
  const nuts_sampler *s = ch->s;
  const nuts_config *cfg = ch->cfg;
  d->iteration = (int)it;
  d->warmup = warm;
  d->warmup_end = warm && it == ch->num_warmup - 1;
  d->q = s->z_sample.q;
  d->lp = -s->z_sample.V;
  d->accept_stat = s->accept_stat;
  d->stepsize = s->eps;
  d->treedepth = s->depth;
  d->n_leapfrog = s->n_leapfrog;
  d->divergent = s->divergent;
  d->energy = s->energy;
  d->n_reject = s->n_reject;
  d->reject_msg = s->n_reject ? s->reject_msg : NULL;
  long m = warm ? it : it - ch->num_warmup;
  d->saved = (warm ? cfg->save_warmup : 1) && m % cfg->thin == 0;
}

/* One warmup transition's adaptation: the step size learns from
** accept_stat; at the end of a slow window the metric becomes the window's
** regularised estimate and the step size starts over (Stan's
** adapt_diag_e_nuts / adapt_dense_e_nuts). */
static int chain_adapt(nuts_chain *ch) {
  const nuts_config *cfg = ch->cfg;
  nuts_sampler *s = ch->s;
  nuts_da_learn(&ch->da, &s->nom_eps, s->accept_stat);
  /* unit_e adapts the step size only, as Stan's adapt_unit_e_nuts;
     with cross-chain warmup the metric comes from the caller at the
     ends of its windows (nuts_chain_set_metric) */
  if (cfg->metric != NUTS_UNIT_E && !cfg->cross_warmup) {
    if (nuts_windows_in(&ch->win)) nuts_welford_add(&ch->wf, s->z_sample.q);
    if (nuts_windows_end(&ch->win)) {
      nuts_windows_next(&ch->win);
      if (nuts_welford_estimate(&ch->wf, s->m.minv) != AD_OK ||
          nuts_metric_update(&s->m) != AD_OK)
        return chain_fail(ch, AD_EFATAL, "Numerical overflow in metric adaptation. This "
                  "occurs when the sampler encounters extreme values on the "
                  "unconstrained space; this may happen when the posterior density "
                  "function is too wide or improper. There may be problems with "
                  "your model specification.");
      nuts_welford_restart(&ch->wf);
      if (nuts_init_stepsize(s) != AD_OK) return chain_fail(ch, s->status, s->msg);
      ch->da.mu = log(10 * s->nom_eps);
      nuts_da_restart(&ch->da);
    }
    ch->win.counter++;
  }
  return AD_OK;
}

/* Runs iterations until `until` of them are done (counting from the start
** of warmup) or the chain's end.  AD_OK when it paused or finished. */
int nuts_chain_step(nuts_chain *ch, long until) {
  if (ch->finished) return ch->rc;
  const nuts_config *cfg = ch->cfg;
  const nuts_sink *sink = ch->sink;
  nuts_result *res = ch->res;
  nuts_sampler *s = ch->s;
  int adapt = ch->adapt, n = ch->n;
  for (; ch->it < ch->num_warmup + ch->num_samples && ch->it < until; ch->it++) {
    long it = ch->it;
    if (cfg->stop && atomic_load(cfg->stop)) {
      ch->finished = 1;
      ch->rc = res->status = NUTS_INTERRUPTED;
      snprintf(res->msg, sizeof res->msg, "interrupted");
      return ch->rc;
    }
    int warm = it < ch->num_warmup;
    s->n_reject = 0;
    s->reject_msg[0] = '\0';
    if (nuts_transition(s) != AD_OK) return chain_fail(ch, s->status, s->msg);
    nuts_draw d;
    chain_draw(ch, it, warm, &d);
    res->n_leapfrog += s->n_leapfrog;
    if (!warm) {
      res->n_leapfrog_sampling += s->n_leapfrog;
      res->divergent += s->divergent;
      res->max_depth_hits += s->depth >= s->max_depth;
    }

    /* chain_fail marks the chain finished whatever the code */
    if (warm && adapt && (chain_adapt(ch) != AD_OK || ch->finished)) return ch->rc;
    if (sink && sink->draw) {
      int src = sink->draw(sink->ctx, &d);
      if (src != 0) return chain_fail(ch, src, "stopped by the output sink");
    }
    res->iterations = it + 1;
    res->saved += d.saved;
    if (warm && adapt && it == ch->num_warmup - 1) {
      nuts_da_complete(&ch->da, &s->nom_eps);
      if (sink && sink->adapt_done) {
        int src = sink->adapt_done(sink->ctx, s->nom_eps, s->m.minv, n, cfg->metric);
        if (src != 0) return chain_fail(ch, src, "stopped by the output sink");
      }
    }
  }
  if (ch->it >= ch->num_warmup + ch->num_samples) {
    ch->finished = 1;
    ch->rc = res->status = AD_OK;
  }
  return ch->rc;
}

int nuts_chain_finished(const nuts_chain *ch) { return ch->finished; }
long nuts_chain_iteration(const nuts_chain *ch) { return ch->it; }

/* Moving the end of warmup is only meaningful ahead of the chain: an
** iteration already made stays what it was. */
int nuts_chain_set_length(nuts_chain *ch, long num_warmup, long num_samples) {
  if (num_warmup < 0 || num_samples < 0) return AD_EINVALID;
  if (num_warmup != ch->num_warmup && num_warmup < ch->it) return AD_EINVALID;
  if (num_warmup + num_samples < ch->it) return AD_EINVALID;
  ch->num_warmup = num_warmup;
  ch->num_samples = num_samples;
  return AD_OK;
}

double nuts_chain_adapted_stepsize(const nuts_chain *ch) {
  /* what nuts_da_complete would give now: the averaged step size */
  return ch->adapt && ch->it < ch->num_warmup ? exp(ch->da.x_bar) : ch->s->nom_eps;
}

/* What Stan does at the end of a slow window, with the window's estimate
** replaced by the caller's (pooled over chains): the step size heuristic
** for the new metric, dual averaging restarted around 10 times it. */
int nuts_chain_set_metric(nuts_chain *ch, const double *inv_metric) {
  nuts_sampler *s = ch->s;
  if (ch->finished) return ch->rc;
  if (ch->cfg->metric != NUTS_UNIT_E && inv_metric) {
    memcpy(s->m.minv, inv_metric, ch->msize * sizeof(double));
    if (nuts_metric_update(&s->m) != AD_OK)
      return chain_fail(ch, AD_EFATAL, "Numerical overflow in metric adaptation: the metric "
                        "pooled over the chains is not positive definite.");
  }
  if (!ch->adapt) return AD_OK;
  if (nuts_init_stepsize(s) != AD_OK) return chain_fail(ch, s->status, s->msg);
  ch->da.mu = log(10 * s->nom_eps);
  nuts_da_restart(&ch->da);
  return AD_OK;
}

int nuts_chain_end(nuts_chain *ch) {
  int rc = ch->rc;
  nuts_result *res = ch->res;
  res->stepsize = ch->s->nom_eps;
  if (res->inv_metric) memcpy(res->inv_metric, ch->s->m.minv, ch->msize * sizeof(double));
  free(ch->block);
  free(ch->s);
  free(ch->lvl);
  free(ch);
  return rc;
}

int nuts_chain_run(const nuts_config *cfg, nuts_logp_fn f, void *model, int n,
                   const double *q0, tm_rng *rng, const nuts_sink *sink,
                   nuts_result *res) {
  nuts_chain *ch;
  int rc = nuts_chain_start(cfg, f, model, n, q0, rng, sink, res, &ch);
  if (!ch) return rc;
  if (rc == AD_OK) nuts_chain_step(ch, LONG_MAX);
  return nuts_chain_end(ch);
}
