/*
** pf_registry.c -- registries, the thread's current registry, and the
** per-thread tables.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include "pf_int.h"

static _Thread_local pf_registry *current AD_HOT_TLS;
_Thread_local pf_tcache pf_cache AD_HOT_TLS;
/* 0 is the empty cache's */
static atomic_uint_least64_t next_serial = 1;

pf_registry *pf_current(void) { return current; }
void pf_set_current(pf_registry *g) { current = g; }

pf_registry *pf_registry_new(int trace_every) {
  pf_registry *g = calloc(1, sizeof *g);
  if (!g) { ad_fail(AD_EMEMORY, "out of memory creating a profile registry"); return NULL; }
  if (pthread_mutex_init(&g->lock, NULL)) {
    free(g);
    ad_fail(AD_EMEMORY, "cannot create the lock of a profile registry");
    return NULL;
  }
  for (int i = 0; i < PF_FAST; i++) atomic_init(&g->byid[i], NULL);
  g->serial = atomic_fetch_add(&next_serial, 1);
  g->trace_every = trace_every > 0 ? trace_every : 0;
  g->phase = PF_SAMPLING;
  g->eval = 0;
  g->tracing = g->trace_every > 0;
  g->t0 = pf_now();
  return g;
}

void pf_registry_free(pf_registry *g) {
  if (!g) return;
  pf_table *t = g->tables;
  while (t) {
    pf_table *next = t->next;
    for (int i = 0; i < t->n; i++) {
      free(t->e[i].name);
      free(t->e[i].parent_name);
    }
    free(t->e);
    free(t->ev);
    free(t);
    t = next;
  }
  pthread_mutex_destroy(&g->lock);
  free(g);
}

void pf_set_phase(pf_registry *g, int phase) {
  if (g) g->phase = phase == PF_WARMUP ? PF_WARMUP : PF_SAMPLING;
}

void pf_next_evaluation(pf_registry *g) {
  if (!g) return;
  g->eval++;
  g->tracing = g->trace_every > 0 && g->eval % (uint64_t)g->trace_every == 0;
}

/* The cache missed: this thread's first profile in g, or a thread that
** works for several registries by turns (a pool worker helping two chains).
** The array by thread id answers without the lock; the lock is taken to
** make a table, and for threads whose id is past PF_FAST. */
pf_table *pf_table_find(pf_registry *g) {
  int tid = ad_thread_id();
  pf_table *t = tid < PF_FAST ? atomic_load_explicit(&g->byid[tid], memory_order_acquire) : NULL;
  if (!t) {
    pthread_mutex_lock(&g->lock);
    t = g->tables;
    while (t && t->tid != tid) t = t->next;
    if (!t && (t = calloc(1, sizeof *t)) != NULL) {
      t->g = g;
      t->tid = tid;
      t->cur = -1;
      if (g->trace_every > 0) {
        /* most runs never grow it; a failure here only means growing later */
        t->ev = malloc(PF_TRACE_RESERVE * sizeof *t->ev);
        t->capev = t->ev ? PF_TRACE_RESERVE : 0;
      }
      t->next = g->tables;
      g->tables = t;
      if (tid < PF_FAST) atomic_store_explicit(&g->byid[tid], t, memory_order_release);
    }
    pthread_mutex_unlock(&g->lock);
    if (!t) {
      ad_fail(AD_EMEMORY, "out of memory creating a profile table");
      return NULL;
    }
  }
  pf_cache.serial = g->serial;
  pf_cache.t = t;
  return t;
}
