/*
** r_interrupt.h -- Ctrl-C during an evaluation on R's main thread.
**
** While the main thread evaluates a program (a log density, transformed
** data, generated quantities), R is not polling for Ctrl-C.  ri_begin()
** installs a handler that sets the interrupt flag of src/ad (which the
** interpreter and the plans look at in every loop and call), ri_end()
** puts R's own handler back and says whether the flag was set, and
** ri_raise() then signals the R condition.  Between the two no R function
** may be called that can jump (an R error), or R's handler would stay
** replaced: the guarded region is plain C.
*/
#ifndef R_INTERRUPT_H
#define R_INTERRUPT_H

void ri_begin(void);
/* 1 when Ctrl-C came while the guard was up */
int  ri_end(void);
/* An R error of classes tapestry_interrupt and interrupt: "<what> was
** interrupted (Ctrl-C)." */
_Noreturn void ri_raise(const char *what);

#endif
