/*
** pp_int.h -- what pp_region.c needs from pp_pool.c.
*/
#ifndef PP_INT_H
#define PP_INT_H

#include "pp.h"

/* Queues n group-less tasks fn(arg) (a region's helpers: each tells the
** region itself that it has finished, so the pool touches nothing of it
** after fn returns).  Returns how many were queued. */
int pp_submit_helpers(pp_fn fn, void *arg, int n);
/* Removes the queued group-less tasks with this arg; returns how many. */
int pp_cancel_helpers(void *arg);

/* A short pause in a spin loop. */
static inline void pp_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
