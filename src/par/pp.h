/*
** pp.h -- the package's thread pool.
**
** One pool of worker threads per process, made on first use and resized on
** request.  Each worker gets its own autodiff stack when it starts and keeps
** it, so a task may record and sweep a tape at once.  Work comes in as tasks
** (a function and its argument) that belong to a group; whoever submitted
** them waits for the group, with a timeout so R's main thread can show
** progress and look for an interrupt between waits.
**
** Workers block every asynchronous signal: a Ctrl-C sent to the process
** reaches R's main thread, which owns the decision to stop.
**
** Nothing here calls R.
*/
#ifndef PP_H
#define PP_H

#include <pthread.h>
#include <stdint.h>
#include "../ad/ad.h"

typedef void (*pp_fn)(void *arg);

/* A batch of tasks someone waits for. */
typedef struct pp_group {
  pthread_mutex_t lock;
  pthread_cond_t done;
  int pending;                   /* submitted and not yet finished */
  int finished;                  /* finished since init */
} pp_group;

int  pp_group_init(pp_group *g);
void pp_group_destroy(pp_group *g);
/* Waits until no task of g is pending or `seconds` have passed (0: just
** look).  Returns the number of tasks still pending. */
int  pp_group_wait(pp_group *g, double seconds);
/* Waits until more than `seen` tasks of g have finished (seen: this
** function's last return, 0 at first), none is pending, or `seconds` have
** passed.  Returns the number finished.  For a watcher that hands out the
** next task as soon as one ends (the chains of $sample()). */
int  pp_group_wait_next(pp_group *g, int seen, double seconds);

/* Makes the pool exactly n workers (n >= 1), starting or retiring threads.
** Call only while no task is queued or running.  AD_OK or AD_EMEMORY (with
** ad_fail's message) when a thread cannot be started. */
int  pp_pool_resize(int n);
int  pp_pool_size(void);
/* Retires every worker; the package calls it when it is unloaded. */
void pp_pool_shutdown(void);

/* Queues fn(arg) as a task of g.  AD_OK, or AD_EINVALID if the pool has no
** workers. */
int  pp_submit(pp_group *g, pp_fn fn, void *arg);

/* Removes the tasks of g that no worker has started, as if they had run;
** returns how many.  A region's opener calls it when no chunk is left, so
** it never waits for a helper stuck behind other work in the queue. */
int  pp_cancel(pp_group *g);

/* ---- threads an evaluation may use ----
** Thread-local: the number of threads (this one included) a parallel
** region opened on this thread may use.  A chain sets it to
** threads_per_chain, R's main thread to tapestry_set_num_threads(); helpers
** take the opener's value while they work for its region, so nested regions
** inherit it.  Default 1. */
int  pp_threads(void);
void pp_set_threads(int n);

/* ---- parallel regions ----
** A region runs chunks 0 .. nchunks-1 of one piece of work.  The thread that
** opens it (slot 0) queues helpers, runs chunks itself, then takes back the
** helpers no worker has started and waits only for those that did: it never
** runs a task of another region (its tape holds a half-recorded evaluation),
** and a region finishes even when every worker is busy with other chains.
** Chunks are handed out one at a time from a shared counter, so a slow
** chunk does not hold up the others.
**
** Each participant (slot) gets its own tapes for the region: stack[slot],
** active during its begin() and chunk() calls, and, when keep_stacks is set,
** keep[slot] for results that must outlive the region (it is never the
** active stack; record on it with ad_scoped_execute or allocate from its
** arena directly).  Their parent is the opener's active stack, so
** ad_scoped_append_to_parent hands their nodes to the opener's tape.  They
** come from a free list and go back with pp_region_release, after the opener
** has read what it needs: steady state, a region allocates nothing.
**
** A chunk that fails stops the handing out of chunks; pp_region_run returns
** the status of the failing chunk with the lowest index and sets its message
** on the opener's thread, having released the region's tapes itself (no
** pp_region_release then).  Every participant has stopped when it returns. */
#define PP_MAX_SLOTS 64
typedef struct pp_region pp_region;
struct pp_region {
  /* set by the opener */
  int nchunks;
  int nthreads;                 /* participants at most, the opener included (<= 0: pp_threads()) */
  int keep_stacks;              /* also give each slot a keep stack */
  int no_stacks;                /* chunks touch no tape: no stacks at all, each slot keeps
                                   the stack it had (pp_for's blocks) */
  int (*begin)(pp_region *g, int slot);              /* optional, before a slot's first chunk */
  int (*chunk)(pp_region *g, int slot, int chunk);
  void *ctx;
  /* set by pp_region_run */
  int nslots;                   /* slots that took part (0 .. nslots-1) */
  int nheld;                    /* stacks held per kind, >= nslots (until release) */
  ad_stack *stack[PP_MAX_SLOTS];
  ad_stack *keep[PP_MAX_SLOTS];
  /* private to pp_region.c */
  struct pp_region_state *st;
};

int  pp_region_run(pp_region *g);
/* Recovers the slots' stacks and returns them to the free list. */
void pp_region_release(pp_region *g);
/* Frees the stacks on the free list (package unload, after the pool). */
void pp_stacks_free(void);

/* ---- a kernel's blocks (pp_for.c) ----
** fn(ctx, b) for every block b < nblocks, on the threads of this thread's
** budget (pp_threads()) when it is above 1, else in order here.  fn touches
** no tape and writes only what block b owns; the caller combines the
** blocks' results in block order, so they do not depend on the threads.
** work is the call's size in the kernel's own unit (elements, multiply-
** adds): pp_gate decides by it whether the threads pay. */
void pp_for(int nblocks, double work, void (*fn)(void *ctx, int block), void *ctx);
/* pp_for calls so far that opened a region (for tests). */
long pp_for_regions(void);

/* ---- whether the threads pay (pp_gate.c) ----
** A call site (key: a kernel's block function, a plan node) asks before
** its parallel work how many threads to use, 1 or `threads`, and reports
** after it (pp_gate_end, with the same g).  The site times itself both ways
** per size of work (powers of 2) and thread count, and keeps the faster,
** trying the other way now and then.  The callers' results do not depend on
** the choice (reduce_sum may differ in the last bits, as DESIGN.md allows).
** Mode: PP_GATE_MEASURE (the default), PP_GATE_ALWAYS (always the threads,
** as before the gate: the tests of bits across thread counts), PP_GATE_NEVER. */
enum { PP_GATE_MEASURE = 0, PP_GATE_ALWAYS = 1, PP_GATE_NEVER = 2 };
typedef struct pp_gate {
  void *slot;                    /* NULL: nothing to record */
  int par, record;
  double work;
  long long t0;
} pp_gate;
int  pp_gate_begin(pp_gate *g, uintptr_t key, double work, int threads);
void pp_gate_end(pp_gate *g);
void pp_gate_set_mode(int mode);
int  pp_gate_get_mode(void);
/* Forgets every site's times (tests). */
void pp_gate_reset(void);

/* Cores the process may use: online processors, at most 2 when
** _R_CHECK_LIMIT_CORES_ is set (as R CMD check asks). */
int  pp_cores(void);

#endif
