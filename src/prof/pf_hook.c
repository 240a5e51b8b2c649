/*
** pf_hook.c -- entering and leaving a profiled block, and the two tape
** nodes that time its reverse pass.
**
** This is the hot path: a profile around one scalar statement in a loop
** must cost under 100 ns per entry and exit, and a clock read alone costs
** 25-35 ns.  So the entry is found by comparing the program's string
** address before any strcmp, nothing is allocated once a name has been
** seen, and the reverse pass saves clock reads where nothing but the sweep
** itself can run between two reverse steps: when a block's entry node sits
** right after another block's exit node on the tape (a profile in a loop),
** the time that stops the one starts the other, and when the two are the
** same block the reverse timer simply keeps running, so a loop's reverse
** pass reads the clock twice in all.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include "pf_int.h"

typedef struct pf_node pf_node;
struct pf_node {
  ad_node hdr;
  /* the table and an index, not a pointer to the entry: the table's array
     moves when a later name is added */
  pf_table *t;
  int idx;
  /* exit nodes: what the entry node recorded right after this one handed
     over (a time, PF_CONTINUE, or -1 for nothing); entry nodes: that exit
     node, or NULL */
  int64_t given;
  pf_node *prev_exit;
};

/* The reverse timer of the block keeps running across the gap. */
#define PF_CONTINUE ((int64_t)-2)

/* The reverse pass reaches the block's entry: it leaves the block. */
static void rev_stop(ad_node *self) {
  pf_node *n = (pf_node *)self;
  pf_node *p = n->prev_exit;
  if (p && p->t == n->t && p->idx == n->idx) {
    p->given = PF_CONTINUE;
    return;
  }
  int64_t now = pf_now();
  pf_entry *e = &n->t->e[n->idx];
  if (e->rev_on) {
    e->rev_ns += now - e->rev_start;
    e->rev_on = 0;
  }
  if (p) p->given = now;
}

/* The reverse pass reaches the block's exit: it enters the block. */
static void rev_start(ad_node *self) {
  pf_node *n = (pf_node *)self;
  int64_t given = n->given;
  n->given = -1;
  if (given == PF_CONTINUE) return;
  pf_entry *e = &n->t->e[n->idx];
  e->rev_start = given >= 0 ? given : pf_now();
  e->rev_on = 1;
}

static int find(const pf_table *t, const char *name, int phase) {
  const pf_entry *e = t->e;
  for (int i = 0; i < t->n; i++)
    if (e[i].keys[0] == name && e[i].phase == phase) return i;
  for (int i = 0; i < t->n; i++) {
    if (e[i].phase != phase) continue;
    for (int k = 1; k < e[i].nkeys; k++)
      if (e[i].keys[k] == name) return i;
  }
  return -1;
}

/* The name by content: the same name written in another place, or a
** string other than the program's.  Remembers the address when there is
** room, so that place is found by address from then on. */
static int find_by_content(pf_table *t, const char *name, int phase) {
  for (int i = 0; i < t->n; i++) {
    pf_entry *e = &t->e[i];
    if (e->phase != phase || strcmp(e->name, name)) continue;
    if (e->nkeys < PF_KEYS) e->keys[e->nkeys++] = name;
    return i;
  }
  return -1;
}

static int add(pf_table *t, const char *name, int phase, const char *outer) {
  if (ad_grow(&t->e, t->n, &t->cap, sizeof *t->e, 8)) return -1;
  size_t len = strlen(name);
  char *copy = malloc(len + 1);
  if (!copy) return -1;
  memcpy(copy, name, len + 1);
  pf_entry *e = &t->e[t->n];
  memset(e, 0, sizeof *e);
  e->keys[0] = name;
  e->nkeys = 1;
  e->name = copy;
  e->phase = phase;
  e->parent = t->cur;
  /* a helper of a parallel region has no profile of its own around this
     one: its parent is the profile the region's opener was in */
  if (t->cur < 0 && outer) {
    size_t n = strlen(outer);
    if (!(e->parent_name = malloc(n + 1))) { free(copy); return -1; }
    memcpy(e->parent_name, outer, n + 1);
  }
  e->outer = -1;
  return t->n++;
}

static void trace(pf_table *t, int idx, int64_t start, int64_t dur) {
  if (t->nev == t->capev) {
    size_t cap = t->capev ? 2 * t->capev : PF_TRACE_RESERVE;
    if (cap > PF_TRACE_MAX) cap = PF_TRACE_MAX;
    pf_tev *ev = cap > t->capev ? realloc(t->ev, cap * sizeof *ev) : NULL;
    if (!ev) { t->dropped++; return; }
    t->ev = ev;
    t->capev = cap;
  }
  pf_tev *v = &t->ev[t->nev++];
  v->idx = idx;
  v->start = start;
  v->dur = dur;
}

int pf_enter(pf_registry *g, const char *name, int ad, int line, const char *outer, pf_handle *h) {
  h->t = NULL;
  if (!g) return AD_OK;
  pf_table *t = pf_table_of(g);
  if (!t) return AD_EMEMORY;
  int phase = g->phase;
  int i = find(t, name, phase);
  if (i < 0 && (i = find_by_content(t, name, phase)) < 0 && (i = add(t, name, phase, outer)) < 0)
    return ad_fail(AD_EMEMORY, "out of memory recording profile '%s'", name);
  pf_entry *e = &t->e[i];
  if (e->active)
    return ad_fail(AD_EINVALID, "profile '%s' is already active on this thread (entered again at line %d)",
                   name, line);
  ad_stack *s = NULL;
  if (ad) {
    s = ad_active;
    pf_node *n = ad_node_new(sizeof *n, rev_stop);
    if (!n) return ad_fail(AD_EMEMORY, "out of memory recording profile '%s'", name);
    n->t = t;
    n->idx = i;
    n->given = -1;
    n->prev_exit = s->nchain >= 2 && s->chain[s->nchain - 2]->chain == rev_start
                   ? (pf_node *)s->chain[s->nchain - 2] : NULL;
    e->ad_calls++;
  } else {
    e->noad_calls++;
  }
  e->active = 1;
  e->outer = t->cur;
  t->cur = i;
  h->t = t;
  h->idx = i;
  h->ad = ad;
  h->stack = s;
  if (s) {
    h->nchain = s->nchain;
    h->nnochain = s->nnochain;
  }
  h->start = pf_now();
  return AD_OK;
}

static int exit_with(pf_handle *h, int counted, size_t chain, size_t nochain) {
  pf_table *t = h->t;
  if (!t) return AD_OK;
  int64_t now = pf_now();
  pf_entry *e = &t->e[h->idx];
  e->fwd_ns += now - h->start;
  int rc = AD_OK;
  if (h->ad) {
    /* a block that rewound its own tape below its entry (it cannot, but a
       count must never wrap) or left another stack active counts nothing */
    ad_stack *s = ad_active;
    if (counted) {
      e->chain += chain;
      e->nochain += nochain;
    } else if (s == h->stack && s->nchain >= h->nchain && s->nnochain >= h->nnochain) {
      e->chain += s->nchain - h->nchain;
      e->nochain += s->nnochain - h->nnochain;
    }
    pf_node *n = ad_node_new(sizeof *n, rev_start);
    if (n) {
      n->t = t;
      n->idx = h->idx;
      n->given = -1;
      n->prev_exit = NULL;
    } else {
      rc = ad_fail(AD_EMEMORY, "out of memory recording profile '%s'", e->name);
    }
  }
  e->active = 0;
  t->cur = e->outer;
  if (t->g->tracing) trace(t, h->idx, h->start, now - h->start);
  h->t = NULL;
  return rc;
}

int pf_exit(pf_handle *h, int ad) {
  (void)ad;   /* the entry's own flag decides: the two are the same */
  return exit_with(h, 0, 0, 0);
}

int pf_exit_counted(pf_handle *h, size_t chain, size_t nochain) { return exit_with(h, 1, chain, nochain); }

void pf_cancel(pf_handle *h) {
  pf_table *t = h->t;
  if (!t) return;
  pf_entry *e = &t->e[h->idx];
  if (h->ad) e->ad_calls--;
  else e->noad_calls--;
  e->active = 0;
  t->cur = e->outer;
  h->t = NULL;
}

void pf_uncount(const pf_handle *closed, size_t chain, size_t nochain) {
  pf_table *t = closed->t;
  if (!t) return;
  pf_entry *e = &t->e[closed->idx];
  if (closed->ad) {
    e->ad_calls--;
    e->chain -= chain;
    e->nochain -= nochain;
  } else {
    e->noad_calls--;
  }
  /* and its interval in the trace: among the last few events */
  for (size_t k = t->nev, seen = 0; k-- > 0 && seen < 64; seen++)
    if (t->ev[k].idx == closed->idx && t->ev[k].start == closed->start) {
      memmove(&t->ev[k], &t->ev[k + 1], (t->nev - k - 1) * sizeof *t->ev);
      t->nev--;
      break;
    }
}
