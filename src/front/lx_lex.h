/*
** lx_lex.h -- the lexer: Stan source text to tokens.
**
** The whole program is cut into tokens before parsing, so the parser can
** look ahead freely.  A lexical error does not stop at once: it becomes an
** LX_ERROR token at its position, and the parser reports it only if it gets
** there without finding an earlier error (the first error wins, as in stanc).
** Keywords are plain LX_IDENT tokens: Stan's keywords are ordinary words to
** the lexer and the parser tells them apart by their text.
*/
#ifndef LX_LEX_H
#define LX_LEX_H

#include <stddef.h>
#include "ln.h"

enum {
  LX_EOF = 0, LX_ERROR,
  LX_IDENT, LX_INT, LX_REAL, LX_STRING,
  LX_LBRACE, LX_RBRACE, LX_LPAREN, LX_RPAREN, LX_LBRACK, LX_RBRACK,
  LX_LT, LX_GT, LX_LE, LX_GE, LX_EQ, LX_NE,
  LX_COMMA, LX_SEMI, LX_BAR, LX_QMARK, LX_COLON,
  LX_BANG, LX_MINUS, LX_PLUS, LX_HAT, LX_ELTPOW, LX_TRANSPOSE,
  LX_TIMES, LX_DIVIDE, LX_MODULO, LX_IDIVIDE, LX_LDIVIDE, LX_ELTTIMES, LX_ELTDIVIDE,
  LX_OR, LX_AND, LX_TILDE,
  LX_ASSIGN, LX_PLUSEQ, LX_MINUSEQ, LX_TIMESEQ, LX_DIVEQ, LX_ELTTIMESEQ, LX_ELTDIVEQ,
  LX_IMAG            /* imaginary literal such as 2i or 1.5i: rval */
};

typedef struct lx_token {
  int kind;
  int line, col;     /* 1-based; col counts bytes */
  size_t off, len;   /* the token's text in p->source (a string's quotes included) */
  int ival;          /* LX_INT */
  double rval;       /* LX_REAL, LX_IMAG */
} lx_token;

/* Tokenizes p->source (p->srclen bytes; NUL and other bytes allowed) into a
** malloc'd array that ends with an LX_EOF or an LX_ERROR token, whose message
** goes to msg.  Deprecated '#' comments are reported with ln_warn.
** Returns 0, or -1 when out of memory (*out is then NULL). */
int lx_tokenize(ln_program *p, lx_token **out, size_t *ntok, char *msg, size_t msgsize);

/* The token's spelling for messages: "'foo'", "end of input"... (buf) */
const char *lx_describe(const ln_program *p, const lx_token *t, char *buf, size_t size);

#endif
