/*
** pl_mem.c -- a plan's memory: the chunks its pieces live in (they never
** move, so an instruction may point into them), the growth of its arrays
** while it is recorded or rewritten, and freeing a plan with the plans of
** its pieces.  Below every other file of the folder: the recorder, the
** passes and the lanes allocate here, and nothing here calls them.
*/
#include <stdlib.h>
#include <string.h>
#include "pl_int.h"

struct pl_chunk { pl_chunk *next; size_t size, used; _Alignas(16) char data[]; };

void *pl_mem(pl_chunk **head, size_t n) {
  n = (n + 15) & ~(size_t)15;
  pl_chunk *c = *head;
  if (!c || c->size - c->used < n) {
    size_t size = n > 65536 ? n : 65536;
    c = malloc(sizeof *c + size);
    if (!c) return NULL;
    c->next = *head;
    c->size = size;
    c->used = 0;
    *head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  return p;
}

char *pl_strdup(pl_chunk **head, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = pl_mem(head, n);
  if (d) memcpy(d, s, n);
  return d;
}

void pl_mem_free(pl_chunk *head) {
  while (head) { pl_chunk *n = head->next; free(head); head = n; }
}

int pl_grow(void *arr, size_t n, size_t *cap, size_t elem, size_t first) {
  if (n < *cap) return AD_OK;
  size_t c = *cap ? 2 * *cap : first;
  void *q = realloc(*(void **)arr, c * elem);
  if (!q) return AD_EMEMORY;
  *(void **)arr = q;
  *cap = c;
  return AD_OK;
}

void pl_plan_free(pl_plan *p) {
  if (!p) return;
  free(p->ins);
  free(p->calls);
  free(p->consts);
  free(p->ptrs);
  free(p->seen);
  for (size_t k = 0; k < p->nsubs; k++) pl_plan_free(p->subs[k]);
  free(p->subs);
  pl_mem_free(p->mem);
  free(p);
}
