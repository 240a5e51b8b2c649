/*
** pl_plan.c -- a context's plans: which one runs, when to record, counters.
**
** The cache hangs on the context (li_ctx_attach), one plan per Jacobian
** setting.  Chains and threads read the current plan through an atomic
** pointer; a new recording replaces it, and the plan it replaces is kept
** (a thread may still be replaying it) until the context is freed.  At most
** PL_MAX_RECORDS plans are recorded per setting, so a program whose guards
** keep failing settles on the tree.
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <pthread.h>
#include "pl_int.h"

typedef struct pl_cache {
  _Atomic(pl_plan *) plan[2];
  atomic_int nrecords[2];
  atomic_int given_up[2];     /* recording failed: the tree for good */
  atomic_int recording[2];    /* one thread records at a time; the others use the tree */
  atomic_long replays, records, fallbacks, tree;
  pthread_mutex_t lock;       /* retired plans and why */
  pl_plan **retired;
  int nretired, capretired;
  char why[200];
} pl_cache;

static atomic_int enabled = 1;

void pl_set_enabled(int on) { atomic_store(&enabled, on ? 1 : 0); }
int  pl_enabled(void) { return atomic_load(&enabled); }

static void cache_free(void *ptr) {
  pl_cache *c = ptr;
  for (int j = 0; j < 2; j++) pl_plan_free(atomic_load(&c->plan[j]));
  for (int i = 0; i < c->nretired; i++) pl_plan_free(c->retired[i]);
  free(c->retired);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static pl_cache *cache_of(const li_ctx *ctx) {
  pl_cache *c = li_ctx_attachment(ctx);
  if (c) return c;
  c = calloc(1, sizeof *c);
  if (!c) return NULL;
  for (int j = 0; j < 2; j++) {
    atomic_init(&c->plan[j], NULL);
    atomic_init(&c->nrecords[j], 0);
    atomic_init(&c->given_up[j], 0);
    atomic_init(&c->recording[j], 0);
  }
  atomic_init(&c->replays, 0);
  atomic_init(&c->records, 0);
  atomic_init(&c->fallbacks, 0);
  atomic_init(&c->tree, 0);
  pthread_mutex_init(&c->lock, NULL);
  pl_cache *held = li_ctx_attach(ctx, c, cache_free);
  if (held != c) cache_free(c);
  return held;
}

static void set_why(pl_cache *c, const char *why) {
  pthread_mutex_lock(&c->lock);
  snprintf(c->why, sizeof c->why, "%s", why);
  pthread_mutex_unlock(&c->lock);
}

static void publish(pl_cache *c, int j, pl_plan *p) {
  pl_plan *old = atomic_exchange(&c->plan[j], p);
  if (!old) return;
  pthread_mutex_lock(&c->lock);
  if (c->nretired == c->capretired) {
    int cap = c->capretired ? 2 * c->capretired : 4;
    pl_plan **n = realloc(c->retired, (size_t)cap * sizeof *n);
    if (n) { c->retired = n; c->capretired = cap; }
  }
  if (c->nretired < c->capretired) c->retired[c->nretired++] = old;
  else pl_plan_free(old);   /* unreachable in practice: realloc of a few pointers failed */
  pthread_mutex_unlock(&c->lock);
}

/* The tree, recording a plan on the way. */
static int record(const li_ctx *ctx, pl_cache *c, int j, const double *upars, double *lp, double *grad,
                  li_print *print, char *err, size_t errsize) {
  pl_rec *r = pl_rec_new(ctx);
  if (!r) return li_log_prob(ctx, upars, j, lp, grad, print, err, errsize);
  int rc = li_log_prob_traced(ctx, upars, j, lp, grad, print, err, errsize, pl_rec_tracer(r));
  if (rc == AD_OK) {
    char why[200];
    pl_plan *p = pl_rec_finish(r, why, sizeof why);
    if (p) {
      atomic_fetch_add(&c->nrecords[j], 1);
      atomic_fetch_add(&c->records, 1);
      publish(c, j, p);
    } else {
      atomic_store(&c->given_up[j], 1);
      set_why(c, why);
    }
  }
  pl_rec_free(r);
  return rc;
}

int pl_log_prob(const li_ctx *ctx, const double *upars, int jacobian, double *lp, double *grad,
                li_print *print, char *err, size_t errsize) {
  pl_cache *c;
  if (!grad || !pl_enabled() || !(c = cache_of(ctx)))
    return li_log_prob(ctx, upars, jacobian, lp, grad, print, err, errsize);
  int j = jacobian ? 1 : 0;
  pl_plan *p = atomic_load(&c->plan[j]);
  if (p) {
    int rc = pl_replay(p, upars, lp, grad);
    ad_stack_recover(ad_active);
    if (rc == AD_OK) {
      atomic_fetch_add(&c->replays, 1);
      return AD_OK;
    }
    atomic_fetch_add(&c->fallbacks, 1);
    ad_clear_error();
    /* a failed guard: the decisions differ here, so record again; a
       function's failure: the tree says why (and with which line) */
    if (rc != PL_GUARD) {
      atomic_fetch_add(&c->tree, 1);
      return li_log_prob(ctx, upars, jacobian, lp, grad, print, err, errsize);
    }
  }
  if (!atomic_load(&c->given_up[j]) && atomic_load(&c->nrecords[j]) < PL_MAX_RECORDS &&
      !atomic_exchange(&c->recording[j], 1)) {
    int rc = record(ctx, c, j, upars, lp, grad, print, err, errsize);
    atomic_store(&c->recording[j], 0);
    return rc;
  }
  if (atomic_load(&c->nrecords[j]) >= PL_MAX_RECORDS) set_why(c, "guards failed on every plan recorded");
  /* (or another thread is recording: this evaluation takes the tree) */
  atomic_fetch_add(&c->tree, 1);
  return li_log_prob(ctx, upars, jacobian, lp, grad, print, err, errsize);
}

void pl_get_stats(const li_ctx *ctx, pl_stats *out) {
  memset(out, 0, sizeof *out);
  pl_cache *c = li_ctx_attachment(ctx);
  if (!c) return;
  out->replays = atomic_load(&c->replays);
  out->records = atomic_load(&c->records);
  out->fallbacks = atomic_load(&c->fallbacks);
  out->tree = atomic_load(&c->tree);
  pl_plan *p = atomic_load(&c->plan[1]);
  out->instructions = p ? (int)p->nins : 0;
  pthread_mutex_lock(&c->lock);
  snprintf(out->why, sizeof out->why, "%s", c->why);
  pthread_mutex_unlock(&c->lock);
}
