/*
** pp_pool.c -- worker threads, the task queue and groups.
**
** The queue is a ring of tasks under one mutex: chains are long tasks and
** few, so a lock per submit costs nothing measurable.  Resizing happens only
** between batches, so a retiring worker is always idle when told to go.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif
#include "../ad/ad.h"
#include "pp.h"
#include "pp_int.h"

/* An idle worker keeps looking at the queue for this long before it
** sleeps: the regions of a gradient loop come back sooner than that (even
** through R's call overhead between two $grad_log_prob() calls), and waking
** a sleeping worker costs the opener a system call and the helper tens of
** microseconds.  Time rather than a count of pauses, whose length varies
** tenfold between processors. */
#define SPIN_NS 200000L

/* The interpreter recurses (nested expressions, user functions up to a depth
** limit), so workers get more stack than a default thread might. */
#define WORKER_STACK ((size_t)32 << 20)

typedef struct task { pp_fn fn; void *arg; pp_group *g; } task;

typedef struct worker { pthread_t th; } worker;

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;           /* a task was queued, or workers must retire */
  task *ring;
  int cap, head, count;
  worker *w;
  int nworkers, capworkers;
  int keep;                      /* workers with index >= keep retire */
  int sleeping;                  /* workers waiting on `wake` */
  atomic_int queued;             /* count, readable without the lock (spinning) */
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0,
           NULL, 0, 0, 0, 0, 0 };

int pp_group_init(pp_group *g) {
  g->pending = 0;
  g->finished = 0;
  if (pthread_mutex_init(&g->lock, NULL)) return ad_fail(AD_EMEMORY, "cannot create a mutex");
  if (pthread_cond_init(&g->done, NULL)) {
    pthread_mutex_destroy(&g->lock);
    return ad_fail(AD_EMEMORY, "cannot create a condition variable");
  }
  return AD_OK;
}

void pp_group_destroy(pp_group *g) {
  pthread_cond_destroy(&g->done);
  pthread_mutex_destroy(&g->lock);
}

static struct timespec deadline(double seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  long ns = (long)((seconds - (double)(long)seconds) * 1e9);
  until.tv_sec += (time_t)seconds;
  until.tv_nsec += ns;
  if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
  return until;
}

int pp_group_wait(pp_group *g, double seconds) {
  struct timespec until = deadline(seconds);
  pthread_mutex_lock(&g->lock);
  while (g->pending > 0 && seconds > 0) {
    if (pthread_cond_timedwait(&g->done, &g->lock, &until) == ETIMEDOUT) break;
  }
  int left = g->pending;
  pthread_mutex_unlock(&g->lock);
  return left;
}

int pp_group_wait_next(pp_group *g, int seen, double seconds) {
  struct timespec until = deadline(seconds);
  pthread_mutex_lock(&g->lock);
  while (g->finished <= seen && g->pending > 0 && seconds > 0) {
    if (pthread_cond_timedwait(&g->done, &g->lock, &until) == ETIMEDOUT) break;
  }
  int finished = g->finished;
  pthread_mutex_unlock(&g->lock);
  return finished;
}

static long elapsed_ns(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)(t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

/* Returns when a task is queued or SPIN_NS have passed. */
static void spin_for_work(void) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (unsigned i = 1;; i++) {
    if (atomic_load_explicit(&pool.queued, memory_order_relaxed) > 0) return;
    pp_pause();
    if ((i & 63) == 0 && elapsed_ns(&t0) > SPIN_NS) return;
  }
}

/* The argument is the worker's index, not a pointer into pool.w, which
** moves when the pool grows. */
static void *worker_main(void *arg) {
  int index = (int)(intptr_t)arg;
  /* a stack per worker, kept for the worker's life; a task that finds none
     fails its own evaluation with AD_EMEMORY rather than crash */
  ad_thread_init();
  pthread_mutex_lock(&pool.lock);
  for (;;) {
    if (pool.count == 0 && index < pool.keep) {
      pthread_mutex_unlock(&pool.lock);
      spin_for_work();
      pthread_mutex_lock(&pool.lock);
      while (pool.count == 0 && index < pool.keep) {
        pool.sleeping++;
        pthread_cond_wait(&pool.wake, &pool.lock);
        pool.sleeping--;
      }
    }
    if (index >= pool.keep) break;
    task t = pool.ring[pool.head];
    pool.head = (pool.head + 1) % pool.cap;
    pool.count--;
    atomic_store_explicit(&pool.queued, pool.count, memory_order_relaxed);
    pthread_mutex_unlock(&pool.lock);
    t.fn(t.arg);
    /* a task without a group (a region's helper) has signalled its end
       itself and its memory may be gone: touch nothing of it */
    if (t.g) {
      pthread_mutex_lock(&t.g->lock);
      t.g->pending--;
      t.g->finished++;
      pthread_cond_broadcast(&t.g->done);
      pthread_mutex_unlock(&t.g->lock);
    }
    pthread_mutex_lock(&pool.lock);
  }
  pthread_mutex_unlock(&pool.lock);
  ad_thread_free();
  return NULL;
}

static int start_worker(int index) {
  if (index >= pool.capworkers) {
    int cap = pool.capworkers ? 2 * pool.capworkers : 8;
    while (cap <= index) cap *= 2;
    worker *w = realloc(pool.w, (size_t)cap * sizeof *w);
    if (!w) return ad_fail(AD_EMEMORY, "out of memory starting a worker thread");
    pool.w = w;
    pool.capworkers = cap;
  }
#ifndef _WIN32
  /* the new thread inherits this mask: no asynchronous signal for workers
     (Windows has no such signals: Ctrl-C runs a handler on a thread of its own) */
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV); sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGFPE); sigdelset(&all, SIGILL);
  pthread_sigmask(SIG_BLOCK, &all, &old);
#endif
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, WORKER_STACK);
  int rc = pthread_create(&pool.w[index].th, &attr, worker_main, (void *)(intptr_t)index);
  pthread_attr_destroy(&attr);
#ifndef _WIN32
  pthread_sigmask(SIG_SETMASK, &old, NULL);
#endif
  if (rc) return ad_fail(AD_EMEMORY, "cannot start a worker thread (%s)", strerror(rc));
  return AD_OK;
}

int pp_pool_resize(int n) {
  if (n < 1) n = 1;
  if (n == pool.nworkers) return AD_OK;
  if (n < pool.nworkers) {
    pthread_mutex_lock(&pool.lock);
    pool.keep = n;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = n; i < pool.nworkers; i++) pthread_join(pool.w[i].th, NULL);
    pool.nworkers = n;
    return AD_OK;
  }
  pthread_mutex_lock(&pool.lock);
  pool.keep = n;
  pthread_mutex_unlock(&pool.lock);
  while (pool.nworkers < n) {
    int rc = start_worker(pool.nworkers);
    if (rc) {
      pthread_mutex_lock(&pool.lock);
      pool.keep = pool.nworkers;
      pthread_mutex_unlock(&pool.lock);
      return rc;
    }
    pool.nworkers++;
  }
  return AD_OK;
}

int pp_pool_size(void) { return pool.nworkers; }

void pp_pool_shutdown(void) {
  pthread_mutex_lock(&pool.lock);
  pool.keep = 0;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (int i = 0; i < pool.nworkers; i++) pthread_join(pool.w[i].th, NULL);
  pool.nworkers = 0;
  free(pool.w);
  pool.w = NULL;
  pool.capworkers = 0;
  free(pool.ring);
  pool.ring = NULL;
  pool.cap = pool.head = pool.count = 0;
}

/* Queues a task under the pool's lock (held by the caller). */
static int enqueue(pp_group *g, pp_fn fn, void *arg) {
  if (pool.count == pool.cap) {
    int cap = pool.cap ? 2 * pool.cap : 64;
    task *r = malloc((size_t)cap * sizeof *r);
    if (!r) return ad_fail(AD_EMEMORY, "out of memory queueing a task");
    for (int i = 0; i < pool.count; i++) r[i] = pool.ring[(pool.head + i) % pool.cap];
    free(pool.ring);
    pool.ring = r;
    pool.cap = cap;
    pool.head = 0;
  }
  pool.ring[(pool.head + pool.count) % pool.cap] = (task){ fn, arg, g };
  pool.count++;
  atomic_store_explicit(&pool.queued, pool.count, memory_order_relaxed);
  return AD_OK;
}

int pp_submit(pp_group *g, pp_fn fn, void *arg) {
  if (pool.nworkers == 0) return ad_fail(AD_EINVALID, "the thread pool has no workers");
  pthread_mutex_lock(&pool.lock);
  int rc = enqueue(g, fn, arg);
  if (rc == AD_OK) {
    pthread_mutex_lock(&g->lock);
    g->pending++;
    pthread_mutex_unlock(&g->lock);
    if (pool.sleeping) pthread_cond_signal(&pool.wake);
  }
  pthread_mutex_unlock(&pool.lock);
  return rc;
}

int pp_submit_helpers(pp_fn fn, void *arg, int n) {
  int k = 0;
  pthread_mutex_lock(&pool.lock);
  for (; k < n; k++)
    if (enqueue(NULL, fn, arg) != AD_OK) break;
  if (k > 0 && pool.sleeping) {
    if (k >= pool.sleeping) pthread_cond_broadcast(&pool.wake);
    else for (int i = 0; i < k; i++) pthread_cond_signal(&pool.wake);
  }
  pthread_mutex_unlock(&pool.lock);
  return k;
}

/* Removes the queued tasks matching (g, arg) and keeps the others in order. */
static int remove_queued(pp_group *g, void *arg) {
  int removed = 0, kept = 0;
  for (int i = 0; i < pool.count; i++) {
    task t = pool.ring[(pool.head + i) % pool.cap];
    if (t.g == g && (g || t.arg == arg)) { removed++; continue; }
    pool.ring[(pool.head + kept) % pool.cap] = t;
    kept++;
  }
  pool.count = kept;
  atomic_store_explicit(&pool.queued, pool.count, memory_order_relaxed);
  return removed;
}

int pp_cancel(pp_group *g) {
  pthread_mutex_lock(&pool.lock);
  int removed = remove_queued(g, NULL);
  pthread_mutex_unlock(&pool.lock);
  if (removed) {
    pthread_mutex_lock(&g->lock);
    g->pending -= removed;
    g->finished += removed;
    pthread_cond_broadcast(&g->done);
    pthread_mutex_unlock(&g->lock);
  }
  return removed;
}

int pp_cancel_helpers(void *arg) {
  pthread_mutex_lock(&pool.lock);
  int removed = pool.count ? remove_queued(NULL, arg) : 0;
  pthread_mutex_unlock(&pool.lock);
  return removed;
}

int pp_cores(void) {
#ifdef _WIN32
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  long n = (long)si.dwNumberOfProcessors;
#else
  long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
  int cores = n > 0 ? (int)n : 1;
  const char *lim = getenv("_R_CHECK_LIMIT_CORES_");
  if (lim && *lim && strcmp(lim, "false") && strcmp(lim, "FALSE") && cores > 2) cores = 2;
  return cores;
}
