/*
** ld_set.c -- a set of named data values (ld.h).
**
** A data list has tens of variables at most, looked up once each when the
** program's declarations are bound, so a plain array with a linear search
** is all it needs.
*/
#include <stdlib.h>
#include <string.h>
#include "ld.h"

void ld_set_init(ld_set *s) {
  s->v = NULL;
  s->n = s->cap = 0;
}

void ld_set_truncate(ld_set *s, int n) {
  for (int i = n; i < s->n; i++) {
    free(s->v[i].name);
    free(s->v[i].val);
  }
  if (n < s->n) s->n = n;
}

void ld_set_free(ld_set *s) {
  ld_set_truncate(s, 0);
  free(s->v);
  ld_set_init(s);
}

/* Ownership passes at the call, so on failure the value is freed here and
** the caller has nothing to clean up.  Names are unique: a second value of
** one name is refused (callers check first to say where it came from). */
int ld_set_add(ld_set *s, ld_value v) {
  if (!v.name || ld_find(s, v.name)) {
    free(v.name);
    free(v.val);
    return v.name ? AD_EINVALID : AD_EMEMORY;
  }
  if (ad_grow(&s->v, s->n, &s->cap, sizeof *s->v, 8)) {
    free(v.name);
    free(v.val);
    return AD_EMEMORY;
  }
  s->v[s->n++] = v;
  return AD_OK;
}

const ld_value *ld_find(const ld_set *s, const char *name) {
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->v[i].name, name) == 0) return &s->v[i];
  return NULL;
}
