/*
** ln_diag.c -- messages that point into the program: file:line:col, the
** source line and a caret under the column.
**
** The echoed line is made safe for R's console: control bytes and bytes
** that are not valid UTF-8 become '?', and a very long line is cut to a
** window around the caret.  Columns stay byte counts (as stanc reports
** them); only the caret's padding counts displayed characters, and copies
** tabs, so the caret lines up under the right character.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln.h"

typedef struct sbuf { char *s; size_t n, size; } sbuf;

static void sput(sbuf *b, const char *s, size_t n) {
  if (b->size == 0) return;
  size_t room = b->size - 1 - b->n;
  if (n > room) n = room;
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  size_t k;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) k = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) k = 3;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) k = 4;
  else return 0;
  if (k > n) return 0;
  for (size_t i = 1; i < k; i++) if ((s[i] & 0xc0) != 0x80) return 0;
  if (s[0] == 0xe0 && s[1] < 0xa0) return 0;   /* overlong */
  if (s[0] == 0xed && s[1] >= 0xa0) return 0;  /* surrogate */
  if (s[0] == 0xf0 && s[1] < 0x90) return 0;   /* overlong */
  if (s[0] == 0xf4 && s[1] >= 0x90) return 0;  /* > U+10FFFF */
  return k;
}

#define LN_DIAG_WINDOW 160

static void echo_line(sbuf *b, const ln_program *p, int line, int col) {
  if (!p || !p->source || line < 1) return;
  const char *s = p->source;
  size_t n = p->srclen, i = 0;
  for (int l = 1; l < line; l++) {
    const char *nl = i < n ? memchr(s + i, '\n', n - i) : NULL;
    if (!nl) return;
    i = (size_t)(nl - s) + 1;
  }
  size_t end = i;
  while (end < n && s[end] != '\n') end++;
  if (end > i && s[end - 1] == '\r') end--;
  size_t c0 = col > 1 ? (size_t)col - 1 : 0;   /* caret offset in the line */
  size_t from = 0, to = end - i;
  if (c0 > LN_DIAG_WINDOW / 2 + 20) from = c0 - LN_DIAG_WINDOW / 2;
  if (to - from > LN_DIAG_WINDOW) to = from + LN_DIAG_WINDOW;
  while (from > 0 && from < end - i && ((unsigned char)s[i + from] & 0xc0) == 0x80) from++;
  char head[32];
  int fline;
  ln_where(p, line, &fline);
  snprintf(head, sizeof head, "\n%5d | ", fline);
  sput(b, head, strlen(head));
  if (from > 0) sput(b, "...", 3);
  /* the caret's padding is built alongside the echo */
  char pad[LN_DIAG_WINDOW + 8];
  size_t np = 0;
  if (from > 0) { memcpy(pad, "   ", 3); np = 3; }
  for (size_t j = from; j < to;) {
    const unsigned char *c = (const unsigned char *)s + i + j;
    size_t k = 1;
    if (*c == '\t') sput(b, "\t", 1);
    else if (*c < 0x20 || *c == 0x7f) sput(b, "?", 1);
    else if (*c < 0x80) sput(b, (const char *)c, 1);
    else if ((k = utf8_len(c, to - j)) > 0) sput(b, (const char *)c, k);
    else { k = 1; sput(b, "?", 1); }
    if (j < c0 && np < sizeof pad - 1) pad[np++] = *c == '\t' ? '\t' : ' ';
    j += k;
  }
  if (to < end - i) sput(b, "...", 3);
  /* a caret past the end of the line (end of input, a missing ';') */
  for (size_t j = to > from ? to : from; j < c0 && np < sizeof pad - 1 && j < to + 2; j++) pad[np++] = ' ';
  sput(b, "\n      | ", 9);
  sput(b, pad, np);
  sput(b, "^", 1);
}

char *ln_vdiag(const ln_program *p, int line, int col, const char *kind,
               char *buf, size_t size, const char *fmt, va_list ap) {
  if (!buf || size == 0) return buf;
  sbuf b = {buf, 0, size};
  buf[0] = '\0';
  char head[600];
  int fline;
  const char *fname = ln_where(p, line, &fline);
  snprintf(head, sizeof head, "%.500s:%d:%d: %s: ", fname, fline, col, kind ? kind : "error");
  sput(&b, head, strlen(head));
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  sput(&b, msg, strlen(msg));
  echo_line(&b, p, line, col);
  return buf;
}

char *ln_diag(const ln_program *p, int line, int col, const char *kind,
              char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ln_vdiag(p, line, col, kind, buf, size, fmt, ap);
  va_end(ap);
  return buf;
}

/* The checker's and the tuple lowering's errors: a position before the
** program's start (a node made up by the compiler) is shown at 1:1. */
void ln_verror(const ln_program *p, int line, int col, char *err, size_t errsize,
               const char *fmt, va_list ap) {
  ln_vdiag(p, line > 0 ? line : 1, col > 0 ? col : 1, "error", err, errsize, fmt, ap);
}

void ln_warn(ln_program *p, int line, int col, const char *fmt, ...) {
  if (!p) return;
  char msg[1200];
  int fline;
  const char *fname = ln_where(p, line, &fline);
  int n = snprintf(msg, sizeof msg, "%.500s:%d:%d: warning: ", fname, fline, col);
  if (n < 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  size_t add = strlen(msg), old = p->warnings ? strlen(p->warnings) : 0;
  char *w = realloc(p->warnings, old + add + 2);
  if (!w) return;   /* a lost warning is better than a failed parse */
  memcpy(w + old, msg, add);
  w[old + add] = '\n';
  w[old + add + 1] = '\0';
  p->warnings = w;
}
