/*
** tm_for.c -- a kernel's blocks, on the threads of its evaluation when the
** package has a pool.
**
** src/math sits below src/par (DESIGN.md's layers), so a kernel cannot call
** the pool itself: the package installs par's runner here once, when it is
** loaded (tm_set_for), and a kernel asks for its blocks through tm_for.
** Without a runner, or with one thread, the blocks run here in order.  A
** kernel cuts its work by its size alone and combines the blocks' results
** in block order, so its bits never depend on who ran which block.
*/
#include <stdatomic.h>
#include "../tm.h"

static _Atomic(tm_for_run) run_fn;
static _Atomic(tm_for_threads_fn) threads_fn;

void tm_set_for(tm_for_run run, tm_for_threads_fn threads) {
  atomic_store(&threads_fn, threads);
  atomic_store(&run_fn, run);
}

int tm_for_threads(void) {
  tm_for_threads_fn t = atomic_load_explicit(&threads_fn, memory_order_relaxed);
  return t ? t() : 1;
}

void tm_for(int nblocks, double work, void (*fn)(void *ctx, int block), void *ctx) {
  tm_for_run run = atomic_load_explicit(&run_fn, memory_order_relaxed);
  if (run && nblocks > 1 && tm_for_threads() > 1) {
    run(nblocks, work, fn, ctx);
    return;
  }
  for (int b = 0; b < nblocks; b++) fn(ctx, b);
}
