/*
** pf_report.c -- a registry's rows and trace events, read by its owner
** once every thread that recorded into it has stopped.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include "pf_int.h"

/* The tables in order of thread id (the list is newest first). */
static int sorted_tables(const pf_registry *g, pf_table ***out) {
  int n = 0;
  for (pf_table *t = g->tables; t; t = t->next) n++;
  pf_table **v = malloc((size_t)(n ? n : 1) * sizeof *v);
  if (!v) return -1;
  int k = 0;
  for (pf_table *t = g->tables; t; t = t->next) {
    int j = k++;
    while (j > 0 && v[j - 1]->tid > t->tid) { v[j] = v[j - 1]; j--; }
    v[j] = t;
  }
  *out = v;
  return n;
}

/* A flattening: every table's items, the tables in thread order, one array
** of them.  A kind says how many items a table has, how big one is, how
** one is filled in, and the message when there is no memory for them. */
typedef struct {
  size_t (*count)(const pf_table *t);
  size_t size;
  void (*fill)(const pf_registry *g, const pf_table *t, size_t j, void *item);
  const char *nomem;
} flat_kind;

static int flatten(const pf_registry *g, const flat_kind *kind, void **items, size_t *n) {
  size_t total = 0;
  for (const pf_table *t = g->tables; t; t = t->next) total += kind->count(t);
  pf_table **tabs;
  int nt = sorted_tables(g, &tabs);
  unsigned char *v = nt < 0 ? NULL : malloc((total ? total : 1) * kind->size);   /* malloc(0) may be NULL */
  if (!v) {
    if (nt >= 0) free(tabs);
    return ad_fail(AD_EMEMORY, "%s", kind->nomem);
  }
  size_t k = 0;
  for (int i = 0; i < nt; i++)
    for (size_t j = 0, m = kind->count(tabs[i]); j < m; j++) kind->fill(g, tabs[i], j, v + k++ * kind->size);
  free(tabs);
  *items = v;
  *n = k;
  return AD_OK;
}

int pf_nrows(const pf_registry *g) {
  int n = 0;
  if (g) for (const pf_table *t = g->tables; t; t = t->next) n += t->n;
  return n;
}

static size_t row_count(const pf_table *t) { return (size_t)t->n; }

static void row_fill(const pf_registry *g, const pf_table *t, size_t j, void *item) {
  (void)g;
  const pf_entry *e = &t->e[j];
  pf_row *w = item;
  w->name = e->name;
  w->thread_id = t->tid;
  w->phase = e->phase;
  w->parent = e->parent >= 0 ? t->e[e->parent].name : e->parent_name;
  w->forward_time = 1e-9 * (double)e->fwd_ns;
  w->reverse_time = 1e-9 * (double)e->rev_ns;
  w->chain_stack = (double)e->chain;
  w->no_chain_stack = (double)e->nochain;
  w->autodiff_calls = (double)e->ad_calls;
  w->no_autodiff_calls = (double)e->noad_calls;
}

int pf_rows(const pf_registry *g, pf_row **rows, int *n) {
  *rows = NULL;
  *n = 0;
  if (!g) return AD_OK;
  static const flat_kind kind = { row_count, sizeof(pf_row), row_fill, "out of memory reading the profiles" };
  void *r;
  size_t k;
  int rc = flatten(g, &kind, &r, &k);
  if (rc) return rc;
  *rows = r;
  *n = (int)k;
  return AD_OK;
}

static size_t event_count(const pf_table *t) { return t->nev; }

static void event_fill(const pf_registry *g, const pf_table *t, size_t j, void *item) {
  const pf_tev *x = &t->ev[j];
  pf_event *v = item;
  v->name = t->e[x->idx].name;
  v->ts = 1e-3 * (double)(x->start - g->t0);
  v->dur = 1e-3 * (double)x->dur;
  v->tid = t->tid;
}

int pf_events(const pf_registry *g, pf_event **ev, size_t *n, size_t *dropped) {
  *ev = NULL;
  *n = 0;
  *dropped = 0;
  if (!g) return AD_OK;
  static const flat_kind kind = { event_count, sizeof(pf_event), event_fill,
                                  "out of memory reading the profile trace" };
  size_t lost = 0;
  for (const pf_table *t = g->tables; t; t = t->next) lost += t->dropped;
  void *v;
  int rc = flatten(g, &kind, &v, n);
  if (rc) return rc;
  *ev = v;
  *dropped = lost;
  return AD_OK;
}
