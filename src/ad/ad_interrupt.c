/*
** ad_interrupt.c -- the process's interrupt flag (contract in ad.h).
**
** One flag rather than one per evaluation: R has one main thread, so at
** most one R call (a sampling run, an optimization's gradient, one
** log density) is evaluating at a time, and every thread working for it
** must stop.  Whoever sets the flag clears it once that call's threads
** have returned (src/r/r_interrupt.c, src/r/r_sample.c).
*/
#include "ad.h"

atomic_int ad_interrupt_flag;

/* Called from a signal handler: a lock-free atomic store only. */
void ad_interrupt_set(void) {
  atomic_store_explicit(&ad_interrupt_flag, 1, memory_order_relaxed);
}

void ad_interrupt_clear(void) {
  atomic_store_explicit(&ad_interrupt_flag, 0, memory_order_relaxed);
}
