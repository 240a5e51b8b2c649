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
  int nt = sorted_tables(g, &tabs);
  int total = pf_nrows(g);
  pf_row *r = nt < 0 ? NULL : malloc((size_t)(total ? total : 1) * sizeof *r);
  if (!r) {
    if (nt >= 0) free(tabs);
    return ad_fail(AD_EMEMORY, "out of memory reading the profiles");
  }
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
  pf_table **tabs;
  int nt = sorted_tables(g, &tabs);
  if (nt < 0) return ad_fail(AD_EMEMORY, "out of memory reading the profile trace");
  size_t total = 0, lost = 0;
  for (int i = 0; i < nt; i++) {
    total += tabs[i]->nev;
    lost += tabs[i]->dropped;
  }
  pf_event *v = malloc((total ? total : 1) * sizeof *v);
  if (!v) {
    free(tabs);
    return ad_fail(AD_EMEMORY, "out of memory reading the profile trace");
  }
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
