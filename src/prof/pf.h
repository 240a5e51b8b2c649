/*
** pf.h -- profiles: what the `profile("name") { ... }` blocks of a program
** cost, per name, thread and phase.
**
** A registry belongs to one chain (or one profile_log_prob call), never to
** the process, so two fits never mix.  Each thread that runs a profile gets
** its own table inside the registry and is the only one to write it; the
** registry's lock is taken only when a thread makes its table.  The thread
** that owns the registry reads the tables once every thread has stopped.
**
** Times come from clock_gettime(CLOCK_MONOTONIC).  On the tape, entering a
** block records a node whose reverse step stops the block's reverse timer
** and leaving records one whose reverse step starts it, so the reverse pass
** of the block is timed as well; the node counts are those recorded between
** the two, not the two themselves.  With doubles (no tape) only the forward
** time and a pass without autodiff are recorded.
**
** Nothing here calls R.
*/
#ifndef PF_H
#define PF_H

#include <stddef.h>
#include <stdint.h>
#include "../ad/ad.h"

enum { PF_WARMUP = 0, PF_SAMPLING = 1 };

/* Trace events kept per thread; later ones are dropped and counted. */
#define PF_TRACE_MAX 100000

typedef struct pf_registry pf_registry;
typedef struct pf_table pf_table;

/* What pf_exit needs of the matching pf_enter; lives on the caller's stack. */
typedef struct pf_handle {
  pf_table *t;                  /* NULL: nothing was entered */
  int idx;                      /* the entry in t */
  int ad;                       /* entered on the tape */
  ad_stack *stack;              /* the active stack at entry */
  size_t nchain, nnochain;      /* its lengths after the entry's node */
  int64_t start;                /* ns, CLOCK_MONOTONIC */
} pf_handle;

/* One (name, thread, phase).  Strings point into the registry. */
typedef struct pf_row {
  const char *name;
  int thread_id;
  int phase;                    /* PF_WARMUP or PF_SAMPLING */
  const char *parent;           /* the profile active at the first entry; NULL at top level */
  double forward_time, reverse_time;          /* seconds */
  double chain_stack, no_chain_stack;         /* nodes recorded inside */
  double autodiff_calls, no_autodiff_calls;   /* passes on the tape, on doubles */
} pf_row;

/* One complete event of the trace (a forward interval of a block). */
typedef struct pf_event {
  const char *name;
  double ts, dur;               /* microseconds; ts since the registry was made */
  int tid;
} pf_event;

/* trace_every = k >= 1 records the intervals of every k-th evaluation; 0 none.
** NULL on out of memory (ad_fail set). */
pf_registry *pf_registry_new(int trace_every);
void         pf_registry_free(pf_registry *g);
/* The driver's calls, between evaluations (no profile active anywhere).
** NULL g does nothing.  A new registry is in PF_SAMPLING. */
void         pf_set_phase(pf_registry *g, int phase);
void         pf_next_evaluation(pf_registry *g);

/* Thread-local: the registry evaluations started on this thread record into
** (li_run_init reads it).  NULL: profile blocks cost a test. */
pf_registry *pf_current(void);
void         pf_set_current(pf_registry *g);

/* The interpreter's hooks around a block (g NULL: nothing recorded, h->t
** NULL).  ad: the block runs on the tape.  pf_enter fails with AD_EINVALID
** when name is already active on this thread ("profile 'NAME' is already
** active on this thread (entered again at line L)") or AD_EMEMORY; then
** nothing was entered.  After a successful pf_enter, pf_exit must run
** whatever the block did (a failure, a return): it closes the entry and
** returns AD_OK or AD_EMEMORY (the tape node could not be made).  ad must
** be the value given to pf_enter.  name must stay valid and unchanged while
** the registry lives if it is to be compared by address (the program's
** string); names are also compared by content and copied into the registry.
** outer: the profile active in the evaluation that opened the parallel
** region this thread works for (NULL: none), the parent of a name first
** entered on this thread outside any profile of its own. */
int  pf_enter(pf_registry *g, const char *name, int ad, int line, const char *outer, pf_handle *h);
int  pf_exit(pf_handle *h, int ad);
/* pf_exit with the block's node counts given rather than measured on the
** tape: a replayed plan (src/plan) records few nodes of its own, so it
** gives the counts the tree's evaluation of the block recorded. */
int  pf_exit_counted(pf_handle *h, size_t chain, size_t nochain);
/* Closes an entry whose evaluation was abandoned (a plan's replay that
** goes back to the tree): no time, and the call is not counted. */
void pf_cancel(pf_handle *h);
/* Takes back the call and node counts of an entry closed by
** pf_exit_counted (closed: a copy of its handle from before the exit) whose
** evaluation was abandoned afterwards; its time stays (it was spent). */
void pf_uncount(const pf_handle *closed, size_t chain, size_t nochain);

/* The results, once every thread has stopped (the owner's thread).  Rows in
** order of thread id, then of the first entry of each (name, phase); rows
** and events are malloc'd arrays the caller frees; their strings live as
** long as g.  AD_OK or AD_EMEMORY. */
int  pf_nrows(const pf_registry *g);
int  pf_rows(const pf_registry *g, pf_row **rows, int *n);
int  pf_events(const pf_registry *g, pf_event **ev, size_t *n, size_t *dropped);

#endif
