/*
** ad_error.c -- the per-thread message of the last failure.
**
** A failing function formats its message here and returns a status; callers
** pass the status up unchanged.  The buffer is thread-local so workers never
** race on it, and the thread that opened a parallel region copies a worker's
** message before reporting it.
**
** When memory runs out because of the memory budget (ad_mem.c), kernels
** still say "<function>: out of memory"; the budget's explanation (how much,
** the limit, how to change it) is kept aside and takes the place of "out of
** memory" in the next such message, so the user learns what to do.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ad.h"

static _Thread_local char errbuf[1024];
static _Thread_local char budget[512];

int ad_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  if (code == AD_EMEMORY && budget[0]) {
    static const char oom[] = "out of memory";
    size_t n = strlen(errbuf), k = sizeof oom - 1;
    if (n >= k && strcmp(errbuf + n - k, oom) == 0)
      snprintf(errbuf + n - k, sizeof errbuf - (n - k), "%s", budget);
    budget[0] = '\0';
  }
  return code;
}

void ad_fail_budget(const char *msg) {
  snprintf(budget, sizeof budget, "%s", msg);
}

const char *ad_errmsg(void) { return errbuf; }

void ad_clear_error(void) { errbuf[0] = '\0'; budget[0] = '\0'; }
