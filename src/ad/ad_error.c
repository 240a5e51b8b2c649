/*
** ad_error.c -- the per-thread message of the last failure.
**
** A failing function formats its message here and returns a status; callers
** pass the status up unchanged.  The buffer is the thread's own so workers
** never race on it, and the thread that opened a parallel region copies a
** worker's message before reporting it.
**
** The buffers are thread-specific heap blocks (pthread keys), not
** thread-locals: the library's thread-locals use the initial-exec model
** (AD_HOT_TLS, ad.h), which asks the loader for static TLS space, and 1.5 kB
** of messages there could exhaust it.
**
** When memory runs out because of the memory budget (ad_mem.c), kernels
** still say "<function>: out of memory"; the budget's explanation (how much,
** the limit, how to change it) is kept aside and takes the place of "out of
** memory" in the next such message, so the user learns what to do.
*/
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ad.h"

typedef struct msgs {
  char err[1024];
  char budget[512];
} msgs;

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_made;

static void make_key(void) { key_made = pthread_key_create(&key, free) == 0; }

/* This thread's buffers, made on first use; NULL only when memory ran out. */
static msgs *mine(void) {
  pthread_once(&key_once, make_key);
  if (!key_made) return NULL;
  msgs *m = pthread_getspecific(key);
  if (m) return m;
  if (!(m = calloc(1, sizeof *m))) return NULL;
  if (pthread_setspecific(key, m)) { free(m); return NULL; }
  return m;
}

/* what ad_errmsg says when there was no memory for a thread's buffers */
static const char no_room[] = "out of memory (no room left for the error message)";

int ad_fail(int code, const char *fmt, ...) {
  msgs *m = mine();
  if (!m) return code;
  char *errbuf = m->err, *budget = m->budget;
  size_t size = sizeof m->err;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, size, fmt, ap);
  va_end(ap);
  if (code == AD_EMEMORY && budget[0]) {
    static const char oom[] = "out of memory";
    size_t n = strlen(errbuf), k = sizeof oom - 1;
    if (n >= k && strcmp(errbuf + n - k, oom) == 0)
      snprintf(errbuf + n - k, size - (n - k), "%s", budget);
    budget[0] = '\0';
  }
  return code;
}

void ad_fail_budget(const char *msg) {
  msgs *m = mine();
  if (m) snprintf(m->budget, sizeof m->budget, "%s", msg);
}

const char *ad_errmsg(void) {
  msgs *m = mine();
  return m ? m->err : no_room;
}

void ad_clear_error(void) {
  msgs *m = mine();
  if (m) { m->err[0] = '\0'; m->budget[0] = '\0'; }
}
