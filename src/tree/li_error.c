/*
** li_error.c -- where a failure happened, and print().
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "li_int.h"

int li_locate(li_run *r, int rc) {
  if (rc == AD_OK || r->located || r->line <= 0) return rc;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", ad_errmsg());
  r->located = 1;
  int fline;
  const char *fname = ln_where(r->p, r->line, &fline);
  return ad_fail(rc, "%s (in '%s', line %d, column %d)", msg, fname, fline, r->col);
}

int li_fail_at(li_run *r, int code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ad_fail(code, "%s", msg);
  return li_locate(r, code);
}

void li_printf(li_run *r, const char *fmt, ...) {
  li_print *p = r->print;
  if (!p || !p->buf || p->len + 1 >= p->size) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(p->buf + p->len, p->size - p->len, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  p->len += (size_t)k;
  if (p->len >= p->size) p->len = p->size - 1;
}
