/*
** pp_gate.c -- whether a piece of parallel work pays for its threads,
** measured as it runs.
**
** DESIGN.md: "a kernel splits over threads only when its measured size makes
** it faster; a slower chain with threads than without is a bug".  What a
** region costs (waking a helper, handing out chunks, cache lines moving
** between cores) depends on the machine, on what else runs, and on how the
** cores are shared, so no fixed threshold holds everywhere: on this
** project's 2-core machine a 20,000-element Poisson kernel ran 1.5x slower
** on 2 threads, while reduce_sum over the same rows ran 1.5x faster.  So
** each call site times itself both ways and keeps the faster.
**
** A site is a key (a kernel's block function, a plan node) with the size of
** its work in powers of 2 and the threads it may use.  Its first calls run
** on one thread, the next ones on the threads; then it runs the way whose
** time per unit of work is lower, and three calls in every 64 the other
** way (every 1024 when that way was 1.25 times slower or more), so a
** change (other chains starting, a bigger machine) is seen.  The first
** call of a turn to the threads is not counted: it wakes helpers that slept
** while the site ran alone.  Times are exponential averages, each sample
** counted as at most twice the average.  The table is shared by every
** thread with relaxed atomics: two sites that hash to one slot, or two
** threads updating it at once, only blur the averages.  Nothing here changes a result: the callers
** cut their work the same way whatever the threads (or, for reduce_sum, may
** differ in the last bits, as DESIGN.md allows).
*/
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "pp.h"

#define GATE_SLOTS 1024           /* a power of 2 */
#define GATE_SERIAL_FIRST 3       /* calls 0..2 on one thread */
#define GATE_THREADS_FIRST 6      /* calls 3..5 on the threads */
#define GATE_EXPLORE 64           /* then the other way for GATE_BURST calls every 64, */
#define GATE_EXPLORE_FAR 1024     /* or every 1024 when it was 1.25 times slower or more */
#define GATE_BURST 3

typedef struct gate_slot {
  _Atomic uint64_t tag;           /* 0: free */
  _Atomic uint32_t calls;
  _Atomic uint64_t ns[2];         /* ns per unit of work: one thread, threads (double bits) */
} gate_slot;

static gate_slot slots[GATE_SLOTS];

static _Atomic int gate_mode = PP_GATE_MEASURE;

void pp_gate_set_mode(int mode) { atomic_store(&gate_mode, mode); }
int pp_gate_get_mode(void) { return atomic_load(&gate_mode); }

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

static double load_d(_Atomic uint64_t *p) {
  uint64_t u = atomic_load_explicit(p, memory_order_relaxed);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static void store_d(_Atomic uint64_t *p, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  atomic_store_explicit(p, u, memory_order_relaxed);
}

/* The site's slot: open addressing over a few probes, then any slot (a
** full table only shares averages). */
static gate_slot *slot_of(uint64_t tag) {
  size_t h = (size_t)tag & (GATE_SLOTS - 1);
  for (int probe = 0; probe < 8; probe++) {
    gate_slot *s = &slots[(h + (size_t)probe) & (GATE_SLOTS - 1)];
    uint64_t t = atomic_load_explicit(&s->tag, memory_order_relaxed);
    if (t == tag) return s;
    if (t == 0) {
      uint64_t zero = 0;
      if (atomic_compare_exchange_strong_explicit(&s->tag, &zero, tag, memory_order_relaxed,
                                                  memory_order_relaxed) || zero == tag)
        return s;
    }
  }
  return &slots[h];
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int pp_gate_begin(pp_gate *g, uintptr_t key, double work, int threads) {
  g->slot = NULL;
  if (threads <= 1) return 1;
  int mode = atomic_load_explicit(&gate_mode, memory_order_relaxed);
  if (mode == PP_GATE_ALWAYS) return threads;
  if (mode == PP_GATE_NEVER) return 1;
  if (!(work > 1)) work = 1;
  int size = (int)ilogb(work);
  uint64_t tag = mix((uint64_t)key ^ ((uint64_t)size << 48) ^ ((uint64_t)threads << 56));
  if (!tag) tag = 1;
  gate_slot *s = slot_of(tag);
  uint32_t n = atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
  int par, first = 0;
  if (n < GATE_SERIAL_FIRST) {
    par = 0;
  } else if (n < GATE_THREADS_FIRST) {
    par = 1;
    first = n == GATE_SERIAL_FIRST;
  } else {
    double one = load_d(&s->ns[0]), many = load_d(&s->ns[1]);
    par = many < one;
    double lo = par ? many : one, hi = par ? one : many;
    uint32_t every = hi >= 1.25 * lo ? GATE_EXPLORE_FAR : GATE_EXPLORE;
    if (n % every < GATE_BURST) {
      par = !par;
      first = n % every == 0;
    }
  }
  /* the first call of a switch to the threads wakes helpers that went to
     sleep while the site ran on one thread (a futex wake, tens of
     microseconds): not what the threads cost while they are in use, so
     not counted */
  g->slot = s;
  g->record = !(first && par);
  g->par = par;
  g->work = work;
  g->t0 = now_ns();
  return par ? threads : 1;
}

void pp_gate_end(pp_gate *g) {
  gate_slot *s = (gate_slot *)g->slot;
  if (!s || !g->record) return;
  double x = (double)(now_ns() - g->t0) / g->work;
  double old = load_d(&s->ns[g->par]);
  /* a call the system interrupted (another process, a page fault) counts
     as at most twice the average: one outlier must not send a site the
     wrong way for 64 calls */
  if (old > 0 && x > 2 * old) x = 2 * old;
  store_d(&s->ns[g->par], old > 0 ? old + (x - old) / 4 : x);
  g->slot = NULL;
}

void pp_gate_reset(void) {
  for (size_t i = 0; i < GATE_SLOTS; i++) {
    atomic_store(&slots[i].tag, 0);
    atomic_store(&slots[i].calls, 0);
    atomic_store(&slots[i].ns[0], 0);
    atomic_store(&slots[i].ns[1], 0);
  }
}
