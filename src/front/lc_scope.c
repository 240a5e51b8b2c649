/*
** lc_scope.c -- the checker's symbol tables.
**
** Variables: a stack of visible symbols with a hash index.  Stan forbids a
** declaration whose name is already a visible variable, so a name maps to
** at most one visible symbol; closing a scope pops its symbols and restores
** the buckets (each symbol remembers the one it hid in its bucket chain).
** Functions: the program's functions sorted by name once, for lookup by
** binary search (overloads and forward declarations share a name).
*/
#include <stdlib.h>
#include <string.h>
#include "lc.h"

static unsigned hash_name(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

typedef struct { ln_func *f; int i; } fentry;

static int by_name(const void *a, const void *b) {
  const fentry *x = a, *y = b;
  int k = strcmp(x->f->name, y->f->name);
  return k ? k : (x->i > y->i) - (x->i < y->i);
}

int lc_scope_init(lc_ctx *c) {
  lc_scope *sc = &c->sc;
  memset(sc, 0, sizeof *sc);
  for (int i = 0; i < LC_NBUCKETS; i++) sc->bucket[i] = -1;
  ln_program *p = c->p;
  if (p->nfuncs <= 0 || !p->funcs) return AD_OK;
  fentry *tmp = malloc((size_t)p->nfuncs * sizeof *tmp);
  sc->funcs = malloc((size_t)p->nfuncs * sizeof *sc->funcs);
  if (!tmp || !sc->funcs) {
    free(tmp);
    return lc_error(c, 1, 1, "out of memory checking the program");
  }
  int n = 0;
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i] && p->funcs[i]->name) { tmp[n].f = p->funcs[i]; tmp[n].i = i; n++; }
  qsort(tmp, (size_t)n, sizeof *tmp, by_name);
  for (int i = 0; i < n; i++) sc->funcs[i] = tmp[i].f;
  sc->nfuncs = n;
  free(tmp);
  return AD_OK;
}

void lc_scope_free(lc_ctx *c) {
  free(c->sc.syms);
  free(c->sc.funcs);
  c->sc.syms = NULL;
  c->sc.funcs = NULL;
}

int lc_scope_mark(lc_ctx *c) { return c->sc.nsyms; }

void lc_scope_pop(lc_ctx *c, int mark) {
  lc_scope *sc = &c->sc;
  while (sc->nsyms > mark) {
    lc_sym *s = &sc->syms[--sc->nsyms];
    sc->bucket[s->hash % LC_NBUCKETS] = s->next;
  }
}

const lc_sym *lc_lookup(const lc_ctx *c, const char *name) {
  if (!name) return NULL;
  const lc_scope *sc = &c->sc;
  unsigned h = hash_name(name);
  for (int i = sc->bucket[h % LC_NBUCKETS]; i >= 0; i = sc->syms[i].next)
    if (sc->syms[i].hash == h && !strcmp(sc->syms[i].name, name)) return &sc->syms[i];
  return NULL;
}

int lc_declare(lc_ctx *c, ln_decl *d, int ro) {
  lc_scope *sc = &c->sc;
  if (!d->name) return lc_error(c, d->line, d->col, "a declaration without a name");
  if (lc_lookup(c, d->name))
    return lc_error(c, d->line, d->col, "identifier '%s' is already in use", d->name);
  if (lc_ends_with(d->name, "_lupdf") || lc_ends_with(d->name, "_lupmf"))
    return lc_error(c, d->line, d->col,
                    "identifier '%s' has a _lupdf/_lupmf suffix, which only functions may have", d->name);
  if (ad_grow(&sc->syms, sc->nsyms, &sc->cap, sizeof *sc->syms, 64))
    return lc_error(c, d->line, d->col, "out of memory checking the program");
  unsigned h = hash_name(d->name);
  lc_sym *s = &sc->syms[sc->nsyms];
  s->name = d->name;
  s->decl = d;
  s->hash = h;
  s->ro = (unsigned char)ro;
  s->next = sc->bucket[h % LC_NBUCKETS];
  sc->bucket[h % LC_NBUCKETS] = sc->nsyms++;
  return AD_OK;
}

ln_func **lc_funcs(const lc_ctx *c, const char *name, int *n) {
  const lc_scope *sc = &c->sc;
  *n = 0;
  if (!name || !sc->nfuncs) return NULL;
  int lo = 0, hi = sc->nfuncs;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (strcmp(sc->funcs[mid]->name, name) < 0) lo = mid + 1; else hi = mid;
  }
  int k = 0;
  while (lo + k < sc->nfuncs && !strcmp(sc->funcs[lo + k]->name, name)) k++;
  *n = k;
  return k ? &sc->funcs[lo] : NULL;
}

/* Edit distance, for names of up to 63 characters. */
static int distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return 99;
  int row[64];
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

const char *lc_suggest(const lc_ctx *c, const char *name) {
  if (!name) return NULL;
  const char *best = NULL;
  int bestd = 3;    /* at most two edits, as stanc suggests */
  int len = (int)strlen(name);
  for (int i = c->sc.nsyms - 1; i >= 0; i--) {
    int d = distance(name, c->sc.syms[i].name);
    if (d < bestd && d < len) { bestd = d; best = c->sc.syms[i].name; }
  }
  return best;
}
