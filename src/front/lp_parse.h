/*
** lp_parse.h -- the parser's internal state and helpers, shared by
** lp_parse.c (program, blocks, functions), lp_decl.c (declarations and
** types), lp_stmt.c (statements) and lp_expr.c (expressions).
**
** Recursive descent over the token array of lx_tokenize.  The first error
** ends the parse with a longjmp back to ln_parse: every node lives in the
** program's pool and the token array is freed by ln_parse, so nothing leaks
** on that path.  Nesting is bounded (LP_MAXDEPTH) so no input can exhaust
** the C stack, here or in the later stages that walk the tree recursively.
*/
#ifndef LP_PARSE_H
#define LP_PARSE_H

#include <setjmp.h>
#include "ln.h"
#include "lx_lex.h"

/* Bound on the depth of the tree: nested statements and parentheses,
** operands of prefix operators and the length of operator chains. */
#define LP_MAXDEPTH 1000

typedef struct lp {
  ln_program *p;
  const lx_token *t;
  size_t nt, pos;
  const char *lexmsg;      /* message of the final LX_ERROR token, if any */
  char *err;
  size_t errsize;
  int depth;
  jmp_buf jb;
  ln_tuple *last_tuple;    /* lp_unsized_type: the tuple type when it returned base LN_TUPLE */
} lp;

/* what a declaration may have, by where it is */
enum {
  LP_DECL_INPUT = 1,  /* top level of data and parameters: constraints, no value */
  LP_DECL_TOP,        /* top level of transformed data/parameters, generated quantities */
  LP_DECL_LOCAL       /* model block, nested blocks, function bodies: no constraints */
};

/* growable list of node pointers, kept in the pool */
typedef struct lp_vec { void **v; int n, cap; } lp_vec;

/* ---- tokens (lp_parse.c) ---- */
const lx_token *lp_cur(const lp *P);
const lx_token *lp_peek(const lp *P, size_t k);   /* k tokens ahead (the last is EOF/ERROR) */
void lp_next(lp *P);
int lp_is(const lp *P, int kind);
int lp_tok_is(const lp *P, const lx_token *t, const char *word);   /* an LX_IDENT spelled word */
int lp_is_word(const lp *P, const char *word);
int lp_is_reserved(const lp *P, const lx_token *t);
int lp_is_late_reserved(const lp *P, const lx_token *t);   /* lower, upper, offset, multiplier: names until Stan 2.33 */
const char *lp_desc(const lp *P, const lx_token *t, char *buf, size_t size);

/* ---- errors: report the first one and longjmp out (lp_parse.c) ---- */
#ifdef __GNUC__
#define LP_NORETURN __attribute__((noreturn))
#define LP_FMT(i, j) __attribute__((format(AD_PRINTF_FMT, i, j)))
#else
#define LP_NORETURN
#define LP_FMT(i, j)
#endif
LP_NORETURN void lp_error_at(lp *P, int line, int col, const char *fmt, ...) LP_FMT(4, 5);
/* at the current token; fmt's last %s is given the current token's description */
LP_NORETURN void lp_error_found(lp *P, const char *fmt) ;
void lp_expect(lp *P, int kind, const char *fmt);     /* lp_error_found(fmt) unless kind, then next */
void lp_semi(lp *P, const char *what);                /* ';' after `what`, caret after the previous token */
void lp_enter(lp *P);                                 /* depth + 1, error past LP_MAXDEPTH */
void lp_check_name(lp *P, const lx_token *t, const char *what);   /* a name the program declares */

/* ---- memory (lp_parse.c) ---- */
void *lp_alloc(lp *P, size_t n);
char *lp_text(lp *P, const lx_token *t);          /* the token's text (a string's without quotes) */
void lp_push(lp *P, lp_vec *v, void *x);
ln_expr **lp_exprs(lp *P, const lp_vec *v);
ln_stmt **lp_stmts(lp *P, const lp_vec *v);
ln_expr *lp_new_expr(lp *P, int kind, const lx_token *at);
ln_stmt *lp_new_stmt(lp *P, int kind, const lx_token *at);

/* ---- expressions (lp_expr.c) ---- */
ln_expr *lp_expr(lp *P);          /* a full expression */
ln_expr *lp_expr_arith(lp *P);    /* no comparison, logic or ?: at top level (constraint bounds) */
ln_expr *lp_postfix(lp *P);       /* a primary with its indexes: the left side of Stan 2.21's `x <- e` */
/* comma-separated expressions up to the closing token (consumed); context names
** the construct in messages ("the arguments of 'f'") */
void lp_expr_list(lp *P, lp_vec *out, int close, int allow_empty, const char *context);

/* ---- declarations and types (lp_decl.c) ---- */
int lp_at_type(const lp *P);      /* the current token begins a declaration */
void lp_decl(lp *P, int where, int blk, lp_vec *out);   /* appends LS_DECL statements */
/* an unsized type of a function argument or result; data_only from a `data` prefix */
ln_type lp_unsized_type(lp *P, const char *what);

/* ---- statements (lp_stmt.c) ---- */
ln_stmt *lp_stmt(lp *P, int blk);                     /* one statement (no declaration) */
void lp_item(lp *P, int where, int blk, lp_vec *out); /* a declaration or a statement */
ln_stmt *lp_braced(lp *P, int where, int blk);        /* { items } as an LS_BLOCK */

#endif
