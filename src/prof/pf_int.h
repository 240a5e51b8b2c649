/*
** pf_int.h -- the registry's insides, shared by src/prof/pf_*.c.
*/
#ifndef PF_INT_H
#define PF_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "pf.h"

/* Threads whose table is found without the lock: ids below this.  Thread
** ids are small (R's main thread, then the pool's workers in order), so
** only a process that resized its pool very many times takes the slow path. */
#define PF_FAST 256
/* Program strings remembered per entry for the comparison by address: the
** same name written in a few places hits without a strcmp. */
#define PF_KEYS 4
/* Trace events reserved per thread when a trace is asked for. */
#define PF_TRACE_RESERVE 1024

typedef struct pf_entry {
  const char *keys[PF_KEYS];    /* program strings seen for this name */
  int nkeys;
  char *name;                   /* own copy */
  int phase;
  int parent;                   /* entry active at the first entry, -1: top level */
  char *parent_name;            /* -1 on a helper thread: the opener's active profile (own copy), or NULL */
  int outer;                    /* while active: the entry active before it */
  int active;
  int rev_on;                   /* the reverse timer runs */
  int64_t fwd_ns, rev_ns, rev_start;
  uint64_t chain, nochain, ad_calls, noad_calls;
} pf_entry;

typedef struct pf_tev {
  int idx;                      /* entry */
  int64_t start, dur;           /* ns */
} pf_tev;

/* A thread's entries.  Written by that thread only (the reverse steps of
** blocks it recorded may run on the thread that sweeps a tape its nodes
** were appended to, once the region that recorded them has joined, which
** orders the two). */
struct pf_table {
  pf_registry *g;
  int tid;
  int cur;                      /* innermost active entry, -1 */
  pf_entry *e;
  int n, cap;
  pf_tev *ev;
  size_t nev, capev, dropped;
  pf_table *next;               /* the registry's list, newest first */
};

struct pf_registry {
  uint64_t serial;              /* unique for the process's life */
  int trace_every;
  /* written by the driver between evaluations; participants of a region
     read them after the region's start, which orders the two */
  int phase;
  int tracing;                  /* this evaluation is traced */
  uint64_t eval;
  int64_t t0;                   /* creation, ns */
  pthread_mutex_t lock;         /* guards `tables` and the making of a table */
  pf_table *tables;
  _Atomic(pf_table *) byid[PF_FAST];
};

static inline int64_t pf_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

/* The table this thread used last, and the serial number of its registry
** (numbers are never reused, so a registry freed and another made at the
** same address cannot be mistaken for it).  One thread-local read on the
** hot path. */
typedef struct pf_tcache {
  uint64_t serial;
  pf_table *t;
} pf_tcache;
extern _Thread_local pf_tcache pf_cache AD_HOT_TLS;

/* This thread's table in g, made on first use; NULL on out of memory. */
pf_table *pf_table_find(pf_registry *g);
static inline pf_table *pf_table_of(pf_registry *g) {
  pf_tcache *c = &pf_cache;
  if (c->serial == g->serial) return c->t;
  return pf_table_find(g);
}

#endif
