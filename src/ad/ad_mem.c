/*
** ad_mem.c -- the memory budget: one limit on the large memory tapestry
** takes from the system (autodiff arenas of every thread and chain, the
** draws of the sampler), so that a program asking for more than the machine
** can give fails with a message instead of getting R killed by the
** operating system.
**
** Why a budget and not malloc's NULL: on Linux malloc of 32 GB usually
** succeeds (overcommit) and the process is killed later, when the pages are
** touched.  So the bytes are counted before they are asked for.
**
** The default limit is half the machine's physical memory (R and the data
** live in the other half); tapestry_memory_limit() in R changes it.
*/
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif
#include "ad.h"

static atomic_size_t mem_used;
static atomic_size_t mem_limit;   /* 0: not set yet, the default applies */

static size_t default_limit(void) {
#ifdef _WIN32
  MEMORYSTATUSEX st;
  st.dwLength = sizeof st;
  if (!GlobalMemoryStatusEx(&st) || st.ullTotalPhys == 0) return (size_t)8 << 30;
  return (size_t)(st.ullTotalPhys / 2);
#else
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return (size_t)8 << 30;   /* unknown: 8 GB */
  return (size_t)pages / 2 * (size_t)size;
#endif
}

size_t ad_mem_limit(void) {
  size_t l = atomic_load(&mem_limit);
  if (l == 0) {
    size_t d = default_limit(), zero = 0;
    atomic_compare_exchange_strong(&mem_limit, &zero, d);
    l = atomic_load(&mem_limit);
  }
  return l;
}

void ad_mem_set_limit(size_t bytes) { atomic_store(&mem_limit, bytes); }

size_t ad_mem_used(void) { return atomic_load(&mem_used); }

/* "1.5 GB" */
void ad_mem_format(double bytes, char *buf, size_t size) {
  static const char *unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000 && u < 6) { bytes /= 1024; u++; }
  if (u == 0) snprintf(buf, size, "%.0f bytes", bytes);
  else snprintf(buf, size, "%.1f %s", bytes, unit[u]);
}

int ad_mem_take(size_t bytes, const char *what) {
  size_t limit = ad_mem_limit();
  size_t before = atomic_fetch_add(&mem_used, bytes);
  if (bytes > limit || before > limit - bytes) {
    atomic_fetch_sub(&mem_used, bytes);
    char need[32], lim[32], used[32];
    ad_mem_format((double)bytes, need, sizeof need);
    ad_mem_format((double)limit, lim, sizeof lim);
    ad_mem_format((double)before, used, sizeof used);
    ad_fail(AD_EMEMORY, "%s needs %s more, over the memory limit of %s (%s in use); "
            "tapestry_memory_limit() sets the limit", what ? what : "this evaluation", need, lim, used);
    ad_fail_budget(ad_errmsg());
    return AD_EMEMORY;
  }
  return AD_OK;
}

void ad_mem_give(size_t bytes) { atomic_fetch_sub(&mem_used, bytes); }

int ad_grow(void *arr, int n, int *cap, size_t elem, int first) {
  if (n < *cap) return AD_OK;
  int c = *cap ? 2 * *cap : first;
  void *q = realloc(*(void **)arr, (size_t)c * elem);
  if (!q) return AD_EMEMORY;
  *(void **)arr = q;
  *cap = c;
  return AD_OK;
}
