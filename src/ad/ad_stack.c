/*
** ad_stack.c -- tapes, the thread's active tape, and the reverse sweep.
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ad.h"

_Thread_local ad_stack *ad_active AD_HOT_TLS;
/* The stack ad_thread_init made for this thread, kept to free it later. */
static _Thread_local ad_stack *thread_stack AD_HOT_TLS;

ad_stack *ad_stack_new(void) {
  ad_stack *s = calloc(1, sizeof *s);
  if (!s) { ad_fail(AD_EMEMORY, "out of memory creating an autodiff stack"); return NULL; }
  if (ad_arena_init(&s->arena) != AD_OK) { free(s); return NULL; }
  return s;
}

void ad_stack_free(ad_stack *s) {
  if (!s) return;
  ad_arena_free(&s->arena);
  free(s->chain);
  free(s->nochain);
  free(s);
}

void ad_stack_recover(ad_stack *s) {
  s->nchain = 0;
  s->nnochain = 0;
  ad_arena_recover(&s->arena);
}

size_t ad_stack_bytes(const ad_stack *s) {
  return ad_arena_bytes(&s->arena) + (s->capchain + s->capnochain) * sizeof(ad_node *);
}

static int grow(ad_node ***arr, size_t *cap, size_t need) {
  size_t c = *cap ? *cap : 1024;
  while (c < need) c *= 2;
  ad_node **n = realloc(*arr, c * sizeof *n);
  if (!n) return ad_fail(AD_EMEMORY, "out of memory growing the autodiff stack");
  *arr = n;
  *cap = c;
  return AD_OK;
}

int ad_stack_push_chain(ad_stack *s, ad_node *n) {
  if (s->nchain == s->capchain && grow(&s->chain, &s->capchain, s->nchain + 1)) return AD_EMEMORY;
  s->chain[s->nchain++] = n;
  return AD_OK;
}

int ad_stack_push_nochain(ad_stack *s, ad_node *n) {
  if (s->nnochain == s->capnochain && grow(&s->nochain, &s->capnochain, s->nnochain + 1)) return AD_EMEMORY;
  s->nochain[s->nnochain++] = n;
  return AD_OK;
}

/* Thread ids are handed out once per thread from a process-wide counter;
** the thread-local copy makes ad_thread_id() a plain load afterwards. */
static atomic_int next_thread_id;
static _Thread_local int thread_id AD_HOT_TLS = -1;

int ad_thread_id(void) {
  if (thread_id < 0) thread_id = atomic_fetch_add(&next_thread_id, 1);
  return thread_id;
}

int ad_thread_init(void) {
  ad_thread_id();
  if (ad_active) return AD_OK;
  thread_stack = ad_stack_new();
  if (!thread_stack) return AD_EMEMORY;
  ad_active = thread_stack;
  return AD_OK;
}

void ad_thread_free(void) {
  if (ad_active == thread_stack) ad_active = NULL;
  ad_stack_free(thread_stack);
  thread_stack = NULL;
}

void ad_sweep(ad_stack *s) {
  for (size_t i = s->nchain; i-- > 0; ) s->chain[i]->chain(s->chain[i]);
}

void ad_grad(ad_var y) {
  *y.adj = 1.0;
  ad_sweep(ad_active);
}

/* ---- scoped stacks ---- */

ad_stack *ad_scoped_new(void) {
  ad_stack *s = ad_stack_new();
  if (s) s->parent = ad_active;
  return s;
}

/* The previous stack is restored whatever fn returns: a failure inside fn
** is a status, not a jump, so this line always runs. */
int ad_scoped_execute(ad_stack *s, int (*fn)(void *), void *data) {
  if (s->executing)
    return ad_fail(AD_EREENTER, "scoped autodiff stack is already executing; it cannot be re-entered");
  ad_stack *prev = ad_active;
  s->executing = 1;
  ad_active = s;
  int rc = fn(data);
  ad_active = prev;
  s->executing = 0;
  return rc;
}

/* Move the nodes of s, and the blocks holding them, onto its parent.  The
** parent's next sweep then runs s's reverse steps first (they were recorded
** after the parent's nodes they read), so one sweep covers both tapes. */
int ad_scoped_append_to_parent(ad_stack *s) {
  ad_stack *p = s->parent;
  if (!p) return ad_fail(AD_EINVALID, "scoped autodiff stack has no parent to append to");
  if (s->executing)
    return ad_fail(AD_EREENTER, "scoped autodiff stack cannot be appended while it is executing");
  if (p->nchain + s->nchain > p->capchain && grow(&p->chain, &p->capchain, p->nchain + s->nchain))
    return AD_EMEMORY;
  if (p->nnochain + s->nnochain > p->capnochain &&
      grow(&p->nochain, &p->capnochain, p->nnochain + s->nnochain))
    return AD_EMEMORY;
  if (ad_arena_give(&s->arena, &p->arena) != AD_OK) return AD_EMEMORY;
  /* (an empty stack's arrays may be NULL, which memcpy may not be given) */
  if (s->nchain) memcpy(p->chain + p->nchain, s->chain, s->nchain * sizeof *s->chain);
  if (s->nnochain) memcpy(p->nochain + p->nnochain, s->nochain, s->nnochain * sizeof *s->nochain);
  p->nchain += s->nchain;
  p->nnochain += s->nnochain;
  s->nchain = 0;
  s->nnochain = 0;
  return AD_OK;
}

/* ---- marks and snapshots ---- */

ad_mark ad_stack_mark(const ad_stack *s) {
  ad_mark m = { s->arena.cur, s->arena.next, s->arena.end, s->nchain, s->nnochain };
  return m;
}

void ad_stack_rewind(ad_stack *s, const ad_mark *m) {
  s->nchain = m->nchain;
  s->nnochain = m->nnochain;
  ad_arena_rewind(&s->arena, m->cur, m->next, m->end);
}

struct ad_snapshot {
  int n;                        /* ranges */
  char **at;                    /* where each range lives in the arena */
  size_t *len;
  char *bytes;                  /* their contents, back to back */
};

int ad_stack_snapshot(ad_stack *s, const ad_mark *m, ad_snapshot **out) {
  ad_arena *a = &s->arena;
  /* the end of the piece, before this function allocates after it */
  int ecur = a->cur;
  char *enext = a->next;
  int n = ad_arena_ranges(a, m->cur, m->next, ecur, enext, NULL, NULL);
  ad_snapshot *snap = ad_alloc(sizeof *snap);
  char **at = ad_alloc((size_t)(n ? n : 1) * sizeof *at);
  size_t *len = ad_alloc((size_t)(n ? n : 1) * sizeof *len);
  if (!snap || !at || !len) return ad_fail(AD_EMEMORY, "out of memory");
  ad_arena_ranges(a, m->cur, m->next, ecur, enext, at, len);
  size_t total = 0;
  for (int i = 0; i < n; i++) total += len[i];
  char *bytes = ad_alloc(total ? total : 1);
  if (!bytes) return ad_fail(AD_EMEMORY, "out of memory");
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    memcpy(bytes + k, at[i], len[i]);
    k += len[i];
  }
  snap->n = n;
  snap->at = at;
  snap->len = len;
  snap->bytes = bytes;
  *out = snap;
  return AD_OK;
}

void ad_stack_restore(const ad_snapshot *snap) {
  size_t k = 0;
  for (int i = 0; i < snap->n; i++) {
    memcpy(snap->at[i], snap->bytes + k, snap->len[i]);
    k += snap->len[i];
  }
}
