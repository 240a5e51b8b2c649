/*
** ad_error.c -- the per-thread message of the last failure.
**
** A failing function formats its message here and returns a status; callers
** pass the status up unchanged.  The buffer is thread-local so workers never
** race on it, and the thread that opened a parallel region copies a worker's
** message before reporting it.
*/
#include <stdarg.h>
#include <stdio.h>
#include "ad.h"

static _Thread_local char errbuf[1024];

int ad_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  return code;
}

const char *ad_errmsg(void) { return errbuf; }

void ad_clear_error(void) { errbuf[0] = '\0'; }
