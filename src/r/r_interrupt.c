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
** The handler is installed once, not around every evaluation: each
** installation is two system calls, which cost 2 µs apiece in some
** sandboxes and so doubled the time of a small model's gradient from R.
** Outside an evaluation the handler hands the signal to the one it found
** (R's), and puts itself back should that one reinstall itself (R's
** handleInterrupt does).  An evaluation checks that the handler is still
** the installed one when the last check is 200 ms old (a clock read in
** between), so that a handler put in place by other code since is found
** again.  R_unload_tapestry puts R's back (ri_shutdown).
**
** Nothing here includes R's headers: ri_raise is in r_convert.c.
*/
#ifdef _WIN32
#include <windows.h>
#else
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include <time.h>
#endif
#include "../ad/ad.h"
#include "r_interrupt.h"

static int depth;                      /* main thread only: guards may nest */
static volatile sig_atomic_t in_eval;  /* read by the handler */
static int installed;

#ifdef _WIN32
/* Windows calls the handlers last added first; FALSE passes the event on
** to the next (R's) */
static BOOL WINAPI on_ctrl(DWORD type) {
  if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT) return FALSE;
  if (!in_eval) return FALSE;
  ad_interrupt_set();
  return TRUE;
}

static void ensure_installed(void) {
  if (installed) return;
  if (SetConsoleCtrlHandler(on_ctrl, TRUE)) installed = 1;
}

void ri_shutdown(void) {
  if (installed) SetConsoleCtrlHandler(on_ctrl, FALSE);
  installed = 0;
}
#else
static struct sigaction theirs;        /* the handler found: R's */
static struct sigaction ours;
static double checked_at;

static void on_sigint(int sig, siginfo_t *info, void *uctx) {
  if (in_eval) {
    ad_interrupt_set();
    return;
  }
  /* R's Ctrl-C: hand it on, then take the place back (R's handler
     reinstalls itself with signal()).  sigaction is async-signal-safe. */
  if (theirs.sa_flags & SA_SIGINFO) {
    if (theirs.sa_sigaction) theirs.sa_sigaction(sig, info, uctx);
  } else if (theirs.sa_handler == SIG_DFL) {
    sigaction(SIGINT, &theirs, NULL);  /* the default ends the process: let it */
    raise(SIGINT);
    return;
  } else if (theirs.sa_handler != SIG_IGN) {
    theirs.sa_handler(sig);
  }
  sigaction(SIGINT, &ours, NULL);
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ensure_installed(void) {
  double t = now_seconds();
  if (installed && t - checked_at < 0.2) return;
  checked_at = t;
  struct sigaction cur;
  if (sigaction(SIGINT, NULL, &cur) != 0) return;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigint) { installed = 1; return; }
  theirs = cur;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_sigint;
  sigemptyset(&ours.sa_mask);
  ours.sa_flags = SA_RESTART | SA_SIGINFO;
  if (sigaction(SIGINT, &ours, NULL) == 0) installed = 1;
}

void ri_shutdown(void) {
  if (!installed) return;
  struct sigaction cur;
  if (sigaction(SIGINT, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigint)
    sigaction(SIGINT, &theirs, NULL);
  installed = 0;
}
#endif

void ri_begin(void) {
  if (depth++ > 0) return;
  ad_interrupt_clear();
  ensure_installed();
  in_eval = 1;
}

int ri_end(void) {
  if (depth > 1) { depth--; return ad_interrupted(); }
  depth = 0;
  /* a Ctrl-C from here on is R's again, and R acts on it as usual */
  in_eval = 0;
  int hit = ad_interrupted();
  ad_interrupt_clear();
  return hit;
}
