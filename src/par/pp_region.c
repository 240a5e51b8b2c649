/*
** pp_region.c -- parallel regions: chunks of one piece of work spread over
** the opener and the pool's idle workers.
**
** Why helpers and a shared counter rather than one task per chunk: the
** opener must be able to finish alone (every worker may be busy with another
** chain), and it must not run other regions' tasks.  So the opener queues
** at most nthreads - 1 helpers, every participant takes chunks from one
** atomic counter until none is left, and the opener then takes back the
** helpers no worker has picked up.  A chunk costs one atomic increment.
**
** Why the helpers count down themselves: the region's state lives on the
** opener's C stack.  A helper's last access to it is the decrement of
** `outstanding`; the opener returns once it reads zero (and has removed the
** helpers still queued), so no thread touches the state after that.
*/
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp.h"
#include "pp_int.h"

/* ---- the thread budget of evaluations on this thread ---- */

static _Thread_local int thread_budget AD_HOT_TLS = 1;

int pp_threads(void) { return thread_budget; }
void pp_set_threads(int n) { thread_budget = n < 1 ? 1 : n; }

/* ---- the free list of region stacks ---- */

static struct {
  pthread_mutex_t lock;
  ad_stack **s;
  int n, cap;
} spare = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

/* n stacks whose parent is the caller's active stack.  AD_OK or
** AD_EMEMORY; on failure none is held. */
static int stacks_get(ad_stack **out, int n) {
  int k = 0;
  pthread_mutex_lock(&spare.lock);
  while (k < n && spare.n > 0) out[k++] = spare.s[--spare.n];
  pthread_mutex_unlock(&spare.lock);
  for (; k < n; k++) {
    out[k] = ad_stack_new();
    if (!out[k]) {
      for (int i = 0; i < k; i++) ad_stack_free(out[i]);
      return AD_EMEMORY;
    }
  }
  for (int i = 0; i < n; i++) out[i]->parent = ad_active;
  return AD_OK;
}

static void stacks_put(ad_stack **in, int n) {
  for (int i = 0; i < n; i++) {
    ad_stack_recover(in[i]);
    in[i]->parent = NULL;
  }
  pthread_mutex_lock(&spare.lock);
  if (spare.n + n > spare.cap) {
    int cap = spare.cap ? spare.cap : 16;
    while (cap < spare.n + n) cap *= 2;
    ad_stack **ns = realloc(spare.s, (size_t)cap * sizeof *ns);
    if (!ns) {
      /* cannot keep them: free them instead */
      pthread_mutex_unlock(&spare.lock);
      for (int i = 0; i < n; i++) ad_stack_free(in[i]);
      return;
    }
    spare.s = ns;
    spare.cap = cap;
  }
  for (int i = 0; i < n; i++) spare.s[spare.n++] = in[i];
  pthread_mutex_unlock(&spare.lock);
}

void pp_stacks_free(void) {
  pthread_mutex_lock(&spare.lock);
  for (int i = 0; i < spare.n; i++) ad_stack_free(spare.s[i]);
  free(spare.s);
  spare.s = NULL;
  spare.n = spare.cap = 0;
  pthread_mutex_unlock(&spare.lock);
}

/* ---- running a region ---- */

struct pp_region_state {
  atomic_int next;              /* the next chunk to hand out */
  atomic_int stop;              /* a chunk failed: hand out no more */
  atomic_int slots;             /* slots claimed */
  atomic_int outstanding;       /* helpers queued or running */
  atomic_flag fail_lock;
  int fail_chunk, fail_code;    /* under fail_lock */
  int nstacks;                  /* stacks held per kind */
  int budget;                   /* the opener's thread budget */
  char msg[1024];
};

static void record_failure(pp_region *g, int chunk, int rc) {
  struct pp_region_state *st = g->st;
  atomic_store(&st->stop, 1);
  while (atomic_flag_test_and_set_explicit(&st->fail_lock, memory_order_acquire)) pp_pause();
  if (chunk < st->fail_chunk) {
    st->fail_chunk = chunk;
    st->fail_code = rc;
    snprintf(st->msg, sizeof st->msg, "%s", ad_errmsg());
  }
  atomic_flag_clear_explicit(&st->fail_lock, memory_order_release);
}

/* Runs chunks as `slot`, starting with `first`, until none is left. */
static void participate(pp_region *g, int slot, int first) {
  struct pp_region_state *st = g->st;
  ad_stack *saved = ad_active;
  int saved_budget = thread_budget;
  if (!g->no_stacks) ad_active = g->stack[slot];
  thread_budget = st->budget;
  int c = first, rc = AD_OK;
  if (g->begin && (rc = g->begin(g, slot)) != AD_OK) record_failure(g, c, rc);
  while (rc == AD_OK && c < g->nchunks) {
    if ((rc = g->chunk(g, slot, c)) != AD_OK) { record_failure(g, c, rc); break; }
    if (atomic_load_explicit(&st->stop, memory_order_relaxed)) break;
    c = atomic_fetch_add_explicit(&st->next, 1, memory_order_relaxed);
  }
  ad_active = saved;
  thread_budget = saved_budget;
}

static void helper(void *arg) {
  pp_region *g = arg;
  struct pp_region_state *st = g->st;
  int c = atomic_load_explicit(&st->stop, memory_order_relaxed)
          ? INT_MAX : atomic_fetch_add_explicit(&st->next, 1, memory_order_relaxed);
  if (c < g->nchunks) {
    int slot = atomic_fetch_add_explicit(&st->slots, 1, memory_order_relaxed);
    participate(g, slot, c);
  }
  /* the last access to the region: the opener may return right after */
  atomic_fetch_sub_explicit(&st->outstanding, 1, memory_order_release);
}

int pp_region_run(pp_region *g) {
  struct pp_region_state st;
  g->nslots = 0;
  g->nheld = 0;
  g->st = NULL;
  if (g->nchunks <= 0) return AD_OK;
  int want = g->nthreads > 0 ? g->nthreads : thread_budget;
  int workers = pp_pool_size();
  if (want > workers + 1) want = workers + 1;
  if (want > g->nchunks) want = g->nchunks;
  if (want > PP_MAX_SLOTS) want = PP_MAX_SLOTS;
  if (want < 1) want = 1;
  int rc = g->no_stacks ? AD_OK : stacks_get(g->stack, want);
  if (rc) return rc;
  if (!g->no_stacks && g->keep_stacks && (rc = stacks_get(g->keep, want))) {
    stacks_put(g->stack, want);
    return rc;
  }
  atomic_init(&st.next, 1);
  atomic_init(&st.stop, 0);
  atomic_init(&st.slots, 1);
  atomic_init(&st.outstanding, 0);
  atomic_flag_clear(&st.fail_lock);
  st.fail_chunk = INT_MAX;
  st.fail_code = AD_OK;
  st.nstacks = want;
  st.budget = thread_budget;
  st.msg[0] = '\0';
  g->nheld = g->no_stacks ? 0 : want;
  g->st = &st;
  if (want > 1) {
    atomic_store_explicit(&st.outstanding, want - 1, memory_order_relaxed);
    int queued = pp_submit_helpers(helper, g, want - 1);
    if (queued < want - 1) atomic_fetch_sub(&st.outstanding, want - 1 - queued);
  }
  participate(g, 0, 0);
  if (want > 1) {
    int taken = pp_cancel_helpers(g);
    if (taken) atomic_fetch_sub(&st.outstanding, taken);
    /* the helpers still out are in the middle of a chunk */
    for (unsigned spins = 0; atomic_load_explicit(&st.outstanding, memory_order_acquire) > 0; spins++) {
      if (spins < 2000) pp_pause();
      else sched_yield();
    }
  }
  g->nslots = atomic_load_explicit(&st.slots, memory_order_relaxed);
  g->st = NULL;
  if (st.fail_code != AD_OK) {
    /* nothing of a failed region is read: its tapes go back at once */
    pp_region_release(g);
    return ad_fail(st.fail_code, "%s", st.msg);
  }
  return AD_OK;
}

void pp_region_release(pp_region *g) {
  int n = g->nheld;
  if (n < 1) return;
  stacks_put(g->stack, n);
  if (g->keep_stacks) stacks_put(g->keep, n);
  g->nheld = 0;
}
