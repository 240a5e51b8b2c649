/*
** r_interrupt.c -- the guard around evaluations on R's main thread
** (contract in r_interrupt.h).
**
** Why a handler and not a poll: the evaluation runs on the main thread,
** and R notices Ctrl-C only when the main thread calls
** R_CheckUserInterrupt(), which could also run R code (event handlers)
** in the middle of the evaluation's tape.  So for the length of the
** evaluation Ctrl-C sets src/ad's interrupt flag instead, which the
** interpreter and the plans read at every loop back-edge and call; the
** evaluation stops there and the guard reports it to R.  The handler only
** stores to a lock-free atomic, which is all a signal handler may do, and
** whichever thread the signal lands on (the pool's workers block it).
**
** Unix: SIGINT (a terminal's Ctrl-C, `kill -INT`, R's own front ends).
** Windows: the console's Ctrl-C and Ctrl-Break (Rterm); the handler
** Windows calls first returns TRUE, so R's does not also record the
** interrupt for later.  Rgui's Esc is noticed by R only between
** evaluations.
**
** Nothing here includes R's headers: ri_raise is in r_convert.c.
*/
#ifdef _WIN32
#include <windows.h>
#else
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#endif
#include "../ad/ad.h"
#include "r_interrupt.h"

static int depth;      /* main thread only: guards may nest */

#ifdef _WIN32
static BOOL WINAPI on_ctrl(DWORD type) {
  if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT) return FALSE;
  ad_interrupt_set();
  return TRUE;
}
#else
static struct sigaction saved;

static void on_sigint(int sig) {
  (void)sig;
  ad_interrupt_set();
}
#endif

void ri_begin(void) {
  if (depth++ > 0) return;
  ad_interrupt_clear();
#ifdef _WIN32
  SetConsoleCtrlHandler(on_ctrl, TRUE);
#else
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &saved);
#endif
}

int ri_end(void) {
  if (depth > 1) { depth--; return ad_interrupted(); }
  depth = 0;
#ifdef _WIN32
  SetConsoleCtrlHandler(on_ctrl, FALSE);
#else
  /* a Ctrl-C from here on is R's again, and R acts on it as usual */
  sigaction(SIGINT, &saved, NULL);
#endif
  int hit = ad_interrupted();
  ad_interrupt_clear();
  return hit;
}
