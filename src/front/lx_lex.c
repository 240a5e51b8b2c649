/*
** lx_lex.c -- the lexer (see lx_lex.h).
**
** Works on byte counts, never on NUL termination, so a NUL byte or any
** non-UTF-8 byte in the source is just an unexpected character.  Numbers
** follow stanc3's lexer: longest match, so "2.*x" is the real 2. times x.
*/
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lx_lex.h"

typedef struct lx_state {
  ln_program *p;
  const char *s;
  size_t n, i;
  int line, col;
  lx_token *t;
  size_t nt, cap;
  char *msg;
  size_t msgsize;
} lx_state;

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident(int c) { return is_alpha(c) || is_digit(c) || c == '_'; }

static int at(const lx_state *L, size_t k) { return L->i + k < L->n ? (unsigned char)L->s[L->i + k] : -1; }

static void advance(lx_state *L, size_t k) {
  while (k-- > 0 && L->i < L->n) {
    if (L->s[L->i] == '\n') { L->line++; L->col = 1; }
    else L->col++;
    L->i++;
  }
}

static lx_token *push(lx_state *L, int kind, int line, int col, size_t off, size_t len) {
  if (L->nt == L->cap) {
    size_t cap = L->cap ? 2 * L->cap : 256;
    lx_token *t = realloc(L->t, cap * sizeof *t);
    if (!t) return NULL;
    L->t = t; L->cap = cap;
  }
  lx_token *t = &L->t[L->nt++];
  memset(t, 0, sizeof *t);
  t->kind = kind; t->line = line; t->col = col; t->off = off; t->len = len;
  return t;
}

/* A character for a message: printable ASCII as itself, anything else as \xNN,
** so a message never carries a NUL or a byte that is not valid UTF-8. */
static void char_text(int c, char *buf, size_t size) {
  if (c >= 0x20 && c < 0x7f) snprintf(buf, size, "%c", c);
  else snprintf(buf, size, "\\x%02X", (unsigned)c & 0xffu);
}

/* Ends tokenizing with an error token at (line, col). */
#ifdef __GNUC__
__attribute__((format(AD_PRINTF_FMT, 5, 6)))
#endif
static int fail(lx_state *L, int line, int col, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(L->msg, L->msgsize, fmt, ap);
  va_end(ap);
  return push(L, LX_ERROR, line, col, off, 0) ? 1 : -1;
}

/* Skips blanks and comments; 1 on a lexical error (token pushed), -1 OOM. */
static int skip_space(lx_state *L) {
  for (;;) {
    int c = at(L, 0);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      advance(L, 1);
    } else if (c == '/' && at(L, 1) == '/') {
      while (L->i < L->n && L->s[L->i] != '\n') advance(L, 1);
    } else if (c == '/' && at(L, 1) == '*') {
      int line = L->line, col = L->col;
      size_t off = L->i;
      advance(L, 2);
      for (;;) {
        if (L->i >= L->n)
          return fail(L, line, col, off, "unterminated comment: '/*' has no matching '*/'");
        if (at(L, 0) == '*' && at(L, 1) == '/') { advance(L, 2); break; }
        advance(L, 1);
      }
    } else if (c == '#') {
      /* Directives were expanded before lexing (ln_include.c); one left here
      ** is not the first thing on its line, and read as a comment it would
      ** silently drop the included code. */
      if (L->n - L->i >= 8 && memcmp(L->s + L->i, "#include", 8) == 0)
        return fail(L, L->line, L->col, L->i, "'#include' must be the first thing on its line");
      ln_warn(L->p, L->line, L->col, "comments beginning with '#' are deprecated; use '//' instead");
      while (L->i < L->n && L->s[L->i] != '\n') advance(L, 1);
    } else {
      return 0;
    }
  }
}

/* Digits with '_' separators between them (Stan 2.33). */
static void scan_digits(lx_state *L, size_t *k) {
  while (is_digit(at(L, *k)) || (at(L, *k) == '_' && is_digit(at(L, *k + 1)))) (*k)++;
}

static int lex_number(lx_state *L) {
  int line = L->line, col = L->col;
  size_t off = L->i, k = 0;
  int real = 0;
  scan_digits(L, &k);
  if (at(L, k) == '.') {
    /* "1." is a real; ".5" too, when a digit follows the point */
    if (k > 0 || is_digit(at(L, k + 1))) { real = 1; k++; scan_digits(L, &k); }
  }
  if (k > 0 && (at(L, k) == 'e' || at(L, k) == 'E')) {
    size_t e = k + 1;
    if (at(L, e) == '+' || at(L, e) == '-') e++;
    if (is_digit(at(L, e))) { real = 1; k = e; scan_digits(L, &k); }
  }
  int imag = at(L, k) == 'i' && !is_ident(at(L, k + 1));
  char buf[512];
  size_t m = 0;
  for (size_t j = 0; j < k; j++) {
    if (L->s[off + j] == '_') continue;
    if (m + 1 >= sizeof buf)
      return fail(L, line, col, off, "numeric literal is too long");
    buf[m++] = L->s[off + j];
  }
  buf[m] = '\0';
  lx_token *t = push(L, imag ? LX_IMAG : real ? LX_REAL : LX_INT, line, col, off, k + (size_t)imag);
  if (!t) return -1;
  if (imag) {
    t->rval = strtod(buf, NULL);
    if (isinf(t->rval)) {
      L->nt--;
      return fail(L, line, col, off, "imaginary literal '%.40si' is too large", buf);
    }
    advance(L, k + 1);
    return 0;
  }
  if (real) {
    t->rval = strtod(buf, NULL);
    if (isinf(t->rval)) {
      L->nt--;
      return fail(L, line, col, off, "real literal '%.40s' is too large", buf);
    }
  } else {
    long long v = 0;
    for (size_t j = 0; j < m; j++) {
      v = v * 10 + (buf[j] - '0');
      if (v > INT_MAX) {
        L->nt--;
        char txt[64];
        snprintf(txt, sizeof txt, "%.40s%s", buf, m > 40 ? "..." : "");
        return fail(L, line, col, off, "integer literal '%s' is too large for an int (the largest is 2147483647)", txt);
      }
    }
    t->ival = (int)v;
  }
  advance(L, k);
  return 0;
}

static const struct { const char *text; int kind; } ops[] = {
  /* longest first where one is a prefix of another */
  {".*=", LX_ELTTIMESEQ}, {"./=", LX_ELTDIVEQ}, {"%/%", LX_IDIVIDE},
  {"<=", LX_LE}, {">=", LX_GE}, {"==", LX_EQ}, {"!=", LX_NE}, {"||", LX_OR}, {"&&", LX_AND},
  {"+=", LX_PLUSEQ}, {"-=", LX_MINUSEQ}, {"*=", LX_TIMESEQ}, {"/=", LX_DIVEQ},
  {".*", LX_ELTTIMES}, {"./", LX_ELTDIVIDE}, {".^", LX_ELTPOW},
  {"{", LX_LBRACE}, {"}", LX_RBRACE}, {"(", LX_LPAREN}, {")", LX_RPAREN},
  {"[", LX_LBRACK}, {"]", LX_RBRACK}, {"<", LX_LT}, {">", LX_GT}, {",", LX_COMMA},
  {";", LX_SEMI}, {"|", LX_BAR}, {"?", LX_QMARK}, {":", LX_COLON}, {"!", LX_BANG},
  {"-", LX_MINUS}, {"+", LX_PLUS}, {"^", LX_HAT}, {"'", LX_TRANSPOSE}, {"*", LX_TIMES},
  {"/", LX_DIVIDE}, {"%", LX_MODULO}, {"\\", LX_LDIVIDE}, {"~", LX_TILDE}, {"=", LX_ASSIGN}
};

static int lex_one(lx_state *L) {
  int c = at(L, 0), line = L->line, col = L->col;
  size_t off = L->i;
  if (is_alpha(c)) {
    size_t k = 1;
    while (is_ident(at(L, k))) k++;
    if (!push(L, LX_IDENT, line, col, off, k)) return -1;
    advance(L, k);
    return 0;
  }
  if (is_digit(c) || (c == '.' && is_digit(at(L, 1)))) return lex_number(L);
  if (c == '"') {
    size_t k = 1;
    while (at(L, k) != '"') {
      if (at(L, k) < 0 || at(L, k) == '\n')
        return fail(L, line, col, off, "unterminated string literal");
      k++;
    }
    if (!push(L, LX_STRING, line, col, off, k + 1)) return -1;
    advance(L, k + 1);
    return 0;
  }
  for (size_t j = 0; j < sizeof ops / sizeof ops[0]; j++) {
    size_t m = strlen(ops[j].text);
    if (L->n - L->i >= m && memcmp(L->s + L->i, ops[j].text, m) == 0) {
      if (!push(L, ops[j].kind, line, col, off, m)) return -1;
      advance(L, m);
      return 0;
    }
  }
  char ch[8];
  char_text(c, ch, sizeof ch);
  if (c == '_') return fail(L, line, col, off, "identifiers must begin with a letter, not '%s'", ch);
  if (c == '&') return fail(L, line, col, off, "unexpected character '%s' (did you mean '&&'?)", ch);
  return fail(L, line, col, off, "unexpected character '%s'", ch);
}

int lx_tokenize(ln_program *p, lx_token **out, size_t *ntok, char *msg, size_t msgsize) {
  lx_state L;
  memset(&L, 0, sizeof L);
  L.p = p; L.s = p->source; L.n = p->srclen; L.line = 1; L.col = 1;
  L.msg = msg; L.msgsize = msgsize;
  if (msgsize) msg[0] = '\0';
  for (;;) {
    int r = skip_space(&L);
    if (r == 0) {
      if (L.i >= L.n) {
        /* end of input is reported just after the last token, on a line
        ** that shows something, rather than on a blank last line */
        int line = L.line, col = L.col;
        if (L.nt) { line = L.t[L.nt - 1].line; col = L.t[L.nt - 1].col + (int)L.t[L.nt - 1].len; }
        r = push(&L, LX_EOF, line, col, L.i, 0) ? 1 : -1;
      }
      else r = lex_one(&L);
    }
    if (r < 0) { free(L.t); *out = NULL; *ntok = 0; return -1; }
    if (r > 0) break;
    if (L.nt && L.t[L.nt - 1].kind == LX_ERROR) break;
  }
  *out = L.t;
  *ntok = L.nt;
  return 0;
}

const char *lx_describe(const ln_program *p, const lx_token *t, char *buf, size_t size) {
  if (t->kind == LX_EOF || t->kind == LX_ERROR) {
    snprintf(buf, size, "end of input");
    return buf;
  }
  /* quote at most 30 bytes, escaping what is not printable ASCII */
  size_t m = 0, lim = t->len > 30 ? 30 : t->len;
  if (size < 8) { if (size) buf[0] = '\0'; return buf; }
  buf[m++] = '\'';
  for (size_t j = 0; j < lim && m + 8 < size; j++) {
    char ch[8];
    char_text((unsigned char)p->source[t->off + j], ch, sizeof ch);
    size_t l = strlen(ch);
    memcpy(buf + m, ch, l);
    m += l;
  }
  if (lim < t->len && m + 5 < size) { memcpy(buf + m, "...", 3); m += 3; }
  buf[m++] = '\'';
  buf[m] = '\0';
  return buf;
}
