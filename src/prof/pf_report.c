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

/* Both flattenings start alike: the tables in thread order, and room for
** count items of size bytes (at least one, so malloc never sees 0).  NULL
** when either fails, with the message set and nothing kept. */
static void *flat_begin(const pf_registry *g, size_t count, size_t size, const char *nomem,
                        pf_table ***tabs, int *nt) {
  *nt = sorted_tables(g, tabs);
  void *items = *nt < 0 ? NULL : malloc((count ? count : 1) * size);
  if (!items) {
    if (*nt >= 0) free(*tabs);
    ad_fail(AD_EMEMORY, "%s", nomem);
  }
  return items;
}

int pf_nrows(const pf_registry *g) {
  int n = 0;
  if (g) for (const pf_table *t = g->tables; t; t = t->next) n += t->n;
  return n;
}

int pf_rows(const pf_registry *g, pf_row **rows, int *n) {
  *rows = NULL;
  *n = 0;
  if (!g) return AD_OK;
  pf_table **tabs;
  int nt;
  pf_row *r = flat_begin(g, (size_t)pf_nrows(g), sizeof *r, "out of memory reading the profiles", &tabs, &nt);
  if (!r) return AD_EMEMORY;
  int k = 0;
  for (int i = 0; i < nt; i++) {
    const pf_table *t = tabs[i];
    for (int j = 0; j < t->n; j++) {
      const pf_entry *e = &t->e[j];
      pf_row *w = &r[k++];
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
  }
  free(tabs);
  *rows = r;
  *n = k;
  return AD_OK;
}

int pf_events(const pf_registry *g, pf_event **ev, size_t *n, size_t *dropped) {
  *ev = NULL;
  *n = 0;
  *dropped = 0;
  if (!g) return AD_OK;
  size_t total = 0, lost = 0;
  for (const pf_table *t = g->tables; t; t = t->next) {
    total += t->nev;
    lost += t->dropped;
  }
  pf_table **tabs;
  int nt;
  pf_event *v = flat_begin(g, total, sizeof *v, "out of memory reading the profile trace", &tabs, &nt);
  if (!v) return AD_EMEMORY;
  size_t k = 0;
  for (int i = 0; i < nt; i++) {
    const pf_table *t = tabs[i];
    for (size_t j = 0; j < t->nev; j++) {
      const pf_tev *x = &t->ev[j];
      v[k].name = t->e[x->idx].name;
      v[k].ts = 1e-3 * (double)(x->start - g->t0);
      v[k].dur = 1e-3 * (double)x->dur;
      v[k].tid = t->tid;
      k++;
    }
  }
  free(tabs);
  *ev = v;
  *n = k;
  *dropped = lost;
  return AD_OK;
}
