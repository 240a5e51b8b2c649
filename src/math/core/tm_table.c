/*
** tm_table.c -- one sorted table of every function, built once.
**
** The modules' tables are concatenated and sorted by name (stably, so a
** module's order of overloads is kept); lookup is a binary search.  The
** interpreter resolves names at check time, never during evaluation.
*/
#include <stdlib.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"

#define TM_MODULE_TABLE(name) tm_fns_##name,
static const tm_fn *const modules[] = { TM_MODULES(TM_MODULE_TABLE) };
#undef TM_MODULE_TABLE

static tm_fn *table;
static int ntable;


typedef struct { tm_fn f; int order; } ordered;

static int by_name_order(const void *a, const void *b) {
  const ordered *x = a, *y = b;
  int c = strcmp(x->f.name, y->f.name);
  return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Called once from R's main thread at load, before any worker exists. */
int tm_table_init(void) {
  tm_special_init();
  if (table) return AD_OK;
  int n = 0;
  for (size_t m = 0; m < sizeof modules / sizeof *modules; m++)
    for (const tm_fn *f = modules[m]; f->name; f++) n++;
  ordered *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
  tm_fn *t = malloc((size_t)(n ? n : 1) * sizeof *t);
  if (!tmp || !t) { free(tmp); free(t); return ad_fail(AD_EMEMORY, "out of memory building the function table"); }
  int k = 0;
  for (size_t m = 0; m < sizeof modules / sizeof *modules; m++)
    for (const tm_fn *f = modules[m]; f->name; f++) { tmp[k].f = *f; tmp[k].order = k; k++; }
  qsort(tmp, (size_t)n, sizeof *tmp, by_name_order);
  for (int i = 0; i < n; i++) t[i] = tmp[i].f;
  free(tmp);
  table = t;
  ntable = n;
  return AD_OK;
}

const tm_fn *tm_lookup(const char *name, int *count) {
  int lo = 0, hi = ntable;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (strcmp(table[mid].name, name) < 0) lo = mid + 1; else hi = mid;
  }
  int k = 0;
  while (lo + k < ntable && strcmp(table[lo + k].name, name) == 0) k++;
  if (count) *count = k;
  return k ? &table[lo] : NULL;
}

int tm_table_size(void) { return ntable; }
const tm_fn *tm_table_entry(int i) { return i >= 0 && i < ntable ? &table[i] : NULL; }

int tm_invoke(const tm_fn *fn, int propto, tm_rng *rng, const tm_v *args, int nargs, tm_v *out) {
  tm_call c = { fn, propto, rng, 0, NULL };
  return fn->kernel(&c, args, nargs, out);
}

int tm_invoke_frozen(const tm_fn *fn, int propto, const tm_v *args, int nargs, unsigned frozen,
                     const double *konst, tm_v *out) {
  tm_call c = { fn, propto, NULL, frozen, konst };
  return fn->kernel(&c, args, nargs, out);
}
