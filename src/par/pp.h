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

/* Cores the process may use: online processors, at most 2 when
** _R_CHECK_LIMIT_CORES_ is set (as R CMD check asks). */
int  pp_cores(void);

#endif
