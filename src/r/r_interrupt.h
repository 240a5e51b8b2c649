/*
** r_interrupt.h -- Ctrl-C during an evaluation on R's main thread.
**
** While the main thread evaluates a program (a log density, transformed
** data, generated quantities), R is not polling for Ctrl-C.  Between
** ri_begin() and ri_end() Ctrl-C sets the interrupt flag of src/ad (which
** the interpreter and the plans look at in every loop and call) instead of
** R's; ri_end() says whether it was set, and ri_raise() then signals the R
** condition.  The handler is installed once (the first ri_begin) and
** passes Ctrl-C on to R's outside the guards; ri_shutdown() removes it
** when the package is unloaded.  Between the two no R function may be
** called that can jump (an R error), or the guard would stay up: the
** guarded region is plain C.
*/
#ifndef R_INTERRUPT_H
#define R_INTERRUPT_H

void ri_begin(void);
/* 1 when Ctrl-C came while the guard was up */
int  ri_end(void);
/* R's handler back, for R_unload_tapestry */
void ri_shutdown(void);
/* An R error of classes tapestry_interrupt and interrupt: "<what> was
** interrupted (Ctrl-C)." */
_Noreturn void ri_raise(const char *what);

#endif
