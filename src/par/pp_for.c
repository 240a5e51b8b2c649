/*
** pp_for.c -- a kernel's blocks spread over the threads of its evaluation
** (the runner behind src/math's tm_for, installed when the package loads).
**
** A vectorized density, a matrix product: work over many elements that a
** program did not put in reduce_sum.  The kernel cuts it into blocks by its
** size alone and combines what the blocks give in block order, so its bits
** are the same for any number of threads; pp_for only decides who runs
** which block.  Blocks touch no tape, so any thread may run them.
*/
#include <stdatomic.h>
#include <string.h>
#include "pp.h"

static atomic_long regions;     /* pp_for calls that ran on a region */

long pp_for_regions(void) { return atomic_load(&regions); }

typedef struct for_ctx { void (*fn)(void *ctx, int block); void *ctx; } for_ctx;

static int for_chunk(pp_region *g, int slot, int chunk) {
  (void)slot;
  const for_ctx *f = g->ctx;
  f->fn(f->ctx, chunk);
  return AD_OK;
}

void pp_for(int nblocks, double work, void (*fn)(void *ctx, int block), void *ctx) {
  pp_gate gate;
  int threads = nblocks > 1 && pp_pool_size() > 0 ? pp_threads() : 1;
  gate.slot = NULL;
  if (threads > 1) {
    /* the kernel's block function names the site (pp_gate.c); a function
       pointer's bits, as C gives no conversion to an integer */
    uintptr_t key = 0;
    memcpy(&key, &fn, sizeof fn < sizeof key ? sizeof fn : sizeof key);
    threads = pp_gate_begin(&gate, key, work, threads);
  }
  if (threads > 1) {
    for_ctx f = { fn, ctx };
    pp_region g;
    memset(&g, 0, sizeof g);
    g.nchunks = nblocks;
    g.no_stacks = 1;
    g.chunk = for_chunk;
    g.ctx = &f;
    /* a region fails only when its stacks cannot be had, before any block
       ran: then this thread runs them all */
    if (pp_region_run(&g) == AD_OK) {
      pp_region_release(&g);
      atomic_fetch_add_explicit(&regions, 1, memory_order_relaxed);
      pp_gate_end(&gate);
      return;
    }
  }
  for (int b = 0; b < nblocks; b++) fn(ctx, b);
  pp_gate_end(&gate);
}
