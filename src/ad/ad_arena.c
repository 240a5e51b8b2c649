/*
** ad_arena.c -- the memory of a tape.
**
** An arena is a list of blocks used front to back.  Recovering rewinds it to
** the first block and keeps every block, so a gradient loop that records the
** same computation over and over mallocs only during its first evaluations.
**
** append_to_parent hands the used blocks of a scoped stack to its parent so
** the nodes in them live until the parent's sweep.  Such a lent block keeps a
** pointer to the arena that made it (its home); when the borrower recovers it
** gives the block back to its home, so neither side grows without bound.  The
** borrower and the home may be on different threads, hence the lock around
** the list of returned blocks.  A home arena must outlive its lent blocks,
** which holds because worker stacks live as long as the thread pool.
*/
#include <stdlib.h>
#include <string.h>
#include "ad.h"

struct ad_block {
  ad_arena *home;               /* the arena that allocated this block */
  ad_block *next_returned;      /* link in home->returned */
  size_t size;                  /* bytes of data */
  size_t used;                  /* bytes in use, for blocks before cur */
  _Alignas(16) char data[];
};

#define AD_FIRST_BLOCK ((size_t)1 << 16)

int ad_arena_init(ad_arena *a) {
  memset(a, 0, sizeof *a);
  if (pthread_mutex_init(&a->lock, NULL) != 0)
    return ad_fail(AD_EMEMORY, "cannot create an arena lock");
  return AD_OK;
}

void ad_arena_free(ad_arena *a) {
  /* Blocks lent to us are ours to free now; their home will not see them. */
  for (int i = 0; i < a->nblocks; i++) {
    ad_mem_give(sizeof *a->blocks[i] + a->blocks[i]->size);
    free(a->blocks[i]);
  }
  for (ad_block *b = a->returned; b; ) {
    ad_block *nx = b->next_returned;
    ad_mem_give(sizeof *b + b->size);
    free(b);
    b = nx;
  }
  free(a->blocks);
  pthread_mutex_destroy(&a->lock);
  memset(a, 0, sizeof *a);
}

static int reserve_slots(ad_arena *a, int extra) {
  if (a->nblocks + extra <= a->capblocks) return AD_OK;
  int cap = a->capblocks ? a->capblocks : 8;
  while (cap < a->nblocks + extra) cap *= 2;
  ad_block **nb = realloc(a->blocks, (size_t)cap * sizeof *nb);
  if (!nb) return ad_fail(AD_EMEMORY, "out of memory growing the autodiff arena");
  a->blocks = nb;
  a->capblocks = cap;
  return AD_OK;
}

static void insert_block(ad_arena *a, int at, ad_block *b) {
  memmove(a->blocks + at + 1, a->blocks + at,
          (size_t)(a->nblocks - at) * sizeof *a->blocks);
  a->blocks[at] = b;
  a->nblocks++;
}

static void enter_block(ad_arena *a, int i) {
  a->cur = i;
  a->next = a->blocks[i]->data;
  a->end = a->blocks[i]->data + a->blocks[i]->size;
}

/* Slow path of ad_arena_alloc: the current block is full. */
void *ad_arena_grow(ad_arena *a, size_t n) {
  int start = a->cur;
  if (a->next) {
    a->blocks[a->cur]->used = (size_t)(a->next - a->blocks[a->cur]->data);
    start++;
  }
  /* A free block already held that is large enough. */
  for (int i = start; i < a->nblocks; i++) {
    if (a->blocks[i]->size >= n) {
      ad_block *b = a->blocks[i];
      memmove(a->blocks + start + 1, a->blocks + start, (size_t)(i - start) * sizeof *a->blocks);
      a->blocks[start] = b;
      enter_block(a, start);
      void *p = a->next;
      a->next += n;
      return p;
    }
  }
  if (reserve_slots(a, 1) != AD_OK) return NULL;
  /* A block that a borrower gave back. */
  ad_block *b = NULL;
  pthread_mutex_lock(&a->lock);
  for (ad_block **pp = &a->returned; *pp; pp = &(*pp)->next_returned) {
    if ((*pp)->size >= n) {
      b = *pp;
      *pp = b->next_returned;
      break;
    }
  }
  pthread_mutex_unlock(&a->lock);
  if (!b) {
    size_t size = a->nblocks ? a->blocks[a->nblocks - 1]->size * 2 : AD_FIRST_BLOCK;
    if (size > ((size_t)1 << 28)) size = (size_t)1 << 28;
    if (size < n) size = n;
    /* A doubled block that would cross the budget when the request alone
    ** does not: ask for the request only. */
    if (size > n && ad_mem_used() + size > ad_mem_limit()) size = n;
    if (ad_mem_take(sizeof *b + size, "the autodiff arena") != AD_OK) return NULL;
    b = malloc(sizeof *b + size);
    if (!b) {
      ad_mem_give(sizeof *b + size);
      ad_fail(AD_EMEMORY, "out of memory: autodiff arena needs %zu more bytes", size);
      return NULL;
    }
    b->home = a;
    b->size = size;
    a->bytes += size;
  }
  b->used = 0;
  b->next_returned = NULL;
  insert_block(a, start, b);
  enter_block(a, start);
  void *p = a->next;
  a->next += n;
  return p;
}

void ad_arena_recover(ad_arena *a) {
  int k = 0;
  for (int i = 0; i < a->nblocks; i++) {
    ad_block *b = a->blocks[i];
    if (b->home == a) {
      b->used = 0;
      a->blocks[k++] = b;
    } else {
      ad_arena *h = b->home;
      pthread_mutex_lock(&h->lock);
      b->next_returned = h->returned;
      h->returned = b;
      pthread_mutex_unlock(&h->lock);
    }
  }
  a->nblocks = k;
  if (k > 0) enter_block(a, 0);
  else { a->cur = 0; a->next = a->end = NULL; }
}

/* Move the used blocks of `from` to `to`, placed after the block `to` is
** filling, which counts as full from now on: the blocks up to `to->cur`
** stay in the order they were filled, so a mark taken on `to` earlier still
** names the right block (ad_stack_rewind, ad_stack_snapshot).  `from` keeps
** its free blocks. */
int ad_arena_give(ad_arena *from, ad_arena *to) {
  /* Without a current block (next == NULL) the blocks before cur are full
  ** and those from cur on are free, in both arenas. */
  int k = from->cur;
  if (from->next) {
    from->blocks[from->cur]->used = (size_t)(from->next - from->blocks[from->cur]->data);
    k++;
  }
  if (k == 0) return AD_OK;
  if (reserve_slots(to, k) != AD_OK) return AD_EMEMORY;
  int at = to->cur;
  if (to->next) {
    to->blocks[to->cur]->used = (size_t)(to->next - to->blocks[to->cur]->data);
    at++;
  }
  memmove(to->blocks + at + k, to->blocks + at, (size_t)(to->nblocks - at) * sizeof *to->blocks);
  memcpy(to->blocks + at, from->blocks, (size_t)k * sizeof *to->blocks);
  to->nblocks += k;
  /* the last lent block is current and full: the next allocation moves on */
  to->cur = at + k - 1;
  ad_block *last = to->blocks[to->cur];
  to->next = to->end = last->data + last->used;
  /* The bytes stay counted by the home arena of each block. */
  memmove(from->blocks, from->blocks + k, (size_t)(from->nblocks - k) * sizeof *from->blocks);
  from->nblocks -= k;
  if (from->nblocks > 0) enter_block(from, 0);
  else { from->cur = 0; from->next = from->end = NULL; }
  return AD_OK;
}

/* Back to position (cur, next, end), taken earlier: the blocks filled since
** are free again.  Blocks up to cur are in the order they were filled, so
** index cur is still the block of the mark. */
void ad_arena_rewind(ad_arena *a, int cur, char *next, char *end) {
  int last = a->next ? a->cur : a->cur - 1;
  int first = next ? cur + 1 : cur;
  for (int i = first; i <= last && i < a->nblocks; i++) a->blocks[i]->used = 0;
  if (next) {
    a->cur = cur;
    a->next = next;
    a->end = end;
  } else {
    a->cur = cur;
    a->next = a->end = NULL;
  }
}

/* The byte ranges filled from position (cur, next) to position (ecur,
** enext); at and len may be NULL to count them. */
int ad_arena_ranges(const ad_arena *a, int cur, char *next, int ecur, char *enext, char **at, size_t *len) {
  if (!enext) return 0;
  int n = 0;
  for (int i = cur; i <= ecur; i++) {
    ad_block *b = a->blocks[i];
    char *from = (i == cur && next) ? next : b->data;
    char *to = i == ecur ? enext : b->data + b->used;
    if (to <= from) continue;
    if (at) { at[n] = from; len[n] = (size_t)(to - from); }
    n++;
  }
  return n;
}

size_t ad_arena_bytes(const ad_arena *a) { return a->bytes; }

int ad_arena_contains(const ad_arena *a, const void *p) {
  const char *c = p;
  for (int i = 0; i < a->nblocks; i++) {
    const ad_block *b = a->blocks[i];
    if (c >= b->data && c < b->data + b->size) return 1;
  }
  return 0;
}
