/*
** lp_parse.c -- ln_parse: the program and its blocks, function definitions,
** and the helpers the other lp_ files share (tokens, errors, memory).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lp_parse.h"

/* ---- tokens ---- */
const lx_token *lp_cur(const lp *P) { return &P->t[P->pos]; }

const lx_token *lp_peek(const lp *P, size_t k) {
  size_t i = P->pos + k;
  return &P->t[i < P->nt ? i : P->nt - 1];
}

void lp_next(lp *P) {
  if (P->pos + 1 < P->nt) P->pos++;
}

int lp_is(const lp *P, int kind) { return lp_cur(P)->kind == kind; }

int lp_tok_is(const lp *P, const lx_token *t, const char *word) {
  size_t n = strlen(word);
  return t->kind == LX_IDENT && t->len == n && memcmp(P->p->source + t->off, word, n) == 0;
}

int lp_is_word(const lp *P, const char *word) { return lp_tok_is(P, lp_cur(P), word); }

/* Stan's reserved words (Reference Manual, "Variable names"), plus the
** types it has and tapestry lacks, so that using one gets a clear message. */
static const char *reserved[] = {
  "for", "in", "while", "repeat", "until", "if", "then", "else", "true", "false",
  "target", "functions", "model", "data", "parameters", "quantities", "transformed",
  "generated", "int", "real", "complex", "vector", "row_vector", "matrix", "array", "tuple",
  "simplex", "ordered", "positive_ordered", "unit_vector", "sum_to_zero_vector",
  "sum_to_zero_matrix", "cholesky_factor_corr", "cholesky_factor_cov", "corr_matrix",
  "cov_matrix", "column_stochastic_matrix", "row_stochastic_matrix", "complex_vector",
  "complex_row_vector", "complex_matrix", "lower", "upper", "offset", "multiplier",
  "print", "reject", "fatal_error", "profile", "return", "break", "continue", "void",
  "struct", "typedef", "export", "auto", "extern", "var", "static"
};

/* Reserved since Stan 2.33; Stan 2.21's programs name variables so
** (`vector[N] offset`), which is read with a warning. */
static const char *reserved_since_233[] = { "lower", "upper", "offset", "multiplier" };

int lp_is_late_reserved(const lp *P, const lx_token *t) {
  for (size_t i = 0; i < sizeof reserved_since_233 / sizeof reserved_since_233[0]; i++)
    if (lp_tok_is(P, t, reserved_since_233[i])) return 1;
  return 0;
}

int lp_is_reserved(const lp *P, const lx_token *t) {
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (lp_tok_is(P, t, reserved[i])) return 1;
  return 0;
}

const char *lp_desc(const lp *P, const lx_token *t, char *buf, size_t size) {
  return lx_describe(P->p, t, buf, size);
}

/* ---- errors ---- */
static LP_NORETURN void report(lp *P, int line, int col, const char *msg) {
  const lx_token *c = lp_cur(P);
  /* A lexical error where the parser stopped is the real cause of whatever
  ** the parser complains about (a missing ';' before a stray '&'...). */
  if (c->kind == LX_ERROR && P->lexmsg)
    ln_diag(P->p, c->line, c->col, "syntax error", P->err, P->errsize, "%s", P->lexmsg);
  else
    ln_diag(P->p, line, col, "syntax error", P->err, P->errsize, "%s", msg);
  longjmp(P->jb, 1);
}

void lp_error_at(lp *P, int line, int col, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  report(P, line, col, msg);
}

void lp_error_found(lp *P, const char *fmt) {
  char d[64], msg[600];
  const lx_token *c = lp_cur(P);
  lp_desc(P, c, d, sizeof d);
  /* fmt is a message with one "%s" where the token goes.  It is not used
  ** as a format: some messages are built from the program's text (a
  ** constraint's name), whose bytes must not be read as conversions.  The
  ** last "%s" is the token's place: text from the program comes before it. */
  const char *at = NULL;
  for (const char *s = strstr(fmt, "%s"); s; s = strstr(s + 1, "%s")) at = s;
  if (at) snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - fmt), fmt, d, at + 2);
  else snprintf(msg, sizeof msg, "%s", fmt);
  report(P, c->line, c->col, msg);
}

void lp_expect(lp *P, int kind, const char *fmt) {
  if (!lp_is(P, kind)) lp_error_found(P, fmt);
  lp_next(P);
}

void lp_semi(lp *P, const char *what) {
  if (lp_is(P, LX_SEMI)) { lp_next(P); return; }
  const lx_token *prev = P->pos > 0 ? &P->t[P->pos - 1] : lp_cur(P);
  lp_error_at(P, prev->line, prev->col + (int)prev->len, "expected ';' after %s", what);
}

void lp_enter(lp *P) {
  if (++P->depth > LP_MAXDEPTH) {
    const lx_token *c = lp_cur(P);
    lp_error_at(P, c->line, c->col, "the program is nested too deeply (more than %d levels)", LP_MAXDEPTH);
  }
}

void lp_check_name(lp *P, const lx_token *t, const char *what) {
  char d[64];
  if (t->kind != LX_IDENT) {
    snprintf(d, sizeof d, "expected %s, found %%s", what);
    lp_error_found(P, d);
  }
  lp_desc(P, t, d, sizeof d);
  if (lp_is_late_reserved(P, t))
    ln_warn(P->p, t->line, t->col, "%s as a name is deprecated (Stan 2.33 reserved it); rename it", d);
  else if (lp_is_reserved(P, t))
    lp_error_at(P, t->line, t->col, "%s is a reserved word and cannot be used as a name", d);
  if (t->len >= 2 && P->p->source[t->off + t->len - 1] == '_' && P->p->source[t->off + t->len - 2] == '_')
    lp_error_at(P, t->line, t->col, "%s: names ending in '__' are reserved", d);
}

/* ---- memory ---- */
void *lp_alloc(lp *P, size_t n) {
  void *r = ln_alloc(P->p, n);
  if (!r) {
    const lx_token *c = lp_cur(P);
    lp_error_at(P, c->line, c->col, "out of memory");
  }
  return r;
}

char *lp_text(lp *P, const lx_token *t) {
  const char *s = P->p->source + t->off;
  size_t n = t->len;
  if (t->kind == LX_STRING && n >= 2) { s++; n -= 2; }
  char *r = ln_strdup(P->p, s, n);
  if (!r) lp_error_at(P, t->line, t->col, "out of memory");
  return r;
}

void lp_push(lp *P, lp_vec *v, void *x) {
  if (v->n == v->cap && v->cap > (1 << 28)) lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col, "too many items");
  if (ln_grow(P->p, &v->v, v->n, &v->cap, sizeof *v->v, 8))
    lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col, "out of memory");
  v->v[v->n++] = x;
}

ln_expr **lp_exprs(lp *P, const lp_vec *v) {
  if (v->n == 0) return NULL;
  ln_expr **a = lp_alloc(P, (size_t)v->n * sizeof *a);
  for (int i = 0; i < v->n; i++) a[i] = v->v[i];
  return a;
}

ln_stmt **lp_stmts(lp *P, const lp_vec *v) {
  if (v->n == 0) return NULL;
  ln_stmt **a = lp_alloc(P, (size_t)v->n * sizeof *a);
  for (int i = 0; i < v->n; i++) a[i] = v->v[i];
  return a;
}

ln_expr *lp_new_expr(lp *P, int kind, const lx_token *at) {
  ln_expr *e = lp_alloc(P, sizeof *e);
  e->kind = (unsigned char)kind;
  e->line = at->line;
  e->col = at->col;
  return e;
}

ln_stmt *lp_new_stmt(lp *P, int kind, const lx_token *at) {
  ln_stmt *s = lp_alloc(P, sizeof *s);
  s->kind = (unsigned char)kind;
  s->line = at->line;
  s->col = at->col;
  return s;
}

/* ---- functions ---- */
static ln_func *function_def(lp *P) {
  const lx_token *start = lp_cur(P);
  ln_func *f = lp_alloc(P, sizeof *f);
  f->line = start->line;
  f->col = start->col;
  if (lp_is_word(P, "void")) {
    f->ret.base = LN_VOID;
    lp_next(P);
  } else {
    f->ret = lp_unsized_type(P, "a function definition (a return type such as void, real, vector...)");
    if (f->ret.base == LN_TUPLE) f->ret_tuple = P->last_tuple;
    if (f->ret.data_only)
      lp_error_at(P, start->line, start->col, "'data' qualifies function arguments, not return types");
  }
  const lx_token *name = lp_cur(P);
  lp_check_name(P, name, "the function's name");
  f->name = lp_text(P, name);
  f->line = name->line;
  f->col = name->col;
  lp_next(P);
  lp_expect(P, LX_LPAREN, "expected '(' after the function's name, found %s");
  lp_vec params = {0};
  if (!lp_is(P, LX_RPAREN)) {
    for (;;) {
      const lx_token *at = lp_cur(P);
      ln_decl *d = lp_alloc(P, sizeof *d);
      d->type = lp_unsized_type(P, "an argument type (int, real, vector, row_vector, matrix or array)");
      if (d->type.base == LN_TUPLE) d->tuple = P->last_tuple;
      const lx_token *an = lp_cur(P);
      lp_check_name(P, an, "the argument's name");
      d->name = lp_text(P, an);
      d->line = an->line;
      d->col = an->col;
      (void)at;
      lp_next(P);
      lp_push(P, &params, d);
      if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
      if (!lp_is(P, LX_RPAREN)) lp_error_found(P, "expected ',' or ')' after a function argument, found %s");
      break;
    }
  }
  lp_next(P);
  if (params.n) {
    f->params = lp_alloc(P, (size_t)params.n * sizeof *f->params);
    for (int i = 0; i < params.n; i++) f->params[i] = params.v[i];
  }
  f->nparams = params.n;
  if (lp_is(P, LX_SEMI)) {
    lp_next(P);           /* a forward declaration */
  } else if (lp_is(P, LX_LBRACE)) {
    f->body = lp_braced(P, LP_DECL_LOCAL, LN_BLK_FUNCTIONS);
  } else {
    char m[200];
    snprintf(m, sizeof m, "expected '{' (the body of '%.60s') or ';' (a forward declaration), found %%s", f->name);
    lp_error_found(P, m);
  }
  return f;
}

/* ---- blocks ---- */
static const char *block_list =
  "functions, data, transformed data, parameters, transformed parameters, model, generated quantities";

/* Reads a block's name; returns LN_BLK_*. */
static int block_name(lp *P) {
  const lx_token *t = lp_cur(P);
  char d[64];
  if (t->kind == LX_EOF) return -1;
  if (t->kind != LX_IDENT) {
    lp_desc(P, t, d, sizeof d);
    lp_error_at(P, t->line, t->col, "unexpected %s: expected a program block (one of: %s)", d, block_list);
  }
  static const char *single[] = {"functions", "data", NULL, "parameters", NULL, "model", NULL};
  for (int k = 0; k < LN_NBLOCKS; k++)
    if (single[k] && lp_tok_is(P, t, single[k])) { lp_next(P); return k; }
  if (lp_tok_is(P, t, "transformed")) {
    lp_next(P);
    if (lp_is_word(P, "data")) { lp_next(P); return LN_BLK_TDATA; }
    if (lp_is_word(P, "parameters")) { lp_next(P); return LN_BLK_TPARAMS; }
    lp_error_found(P, "expected 'data' or 'parameters' after 'transformed', found %s");
  }
  if (lp_tok_is(P, t, "generated")) {
    lp_next(P);
    if (lp_is_word(P, "quantities")) { lp_next(P); return LN_BLK_GQ; }
    lp_error_found(P, "expected 'quantities' after 'generated', found %s");
  }
  lp_desc(P, t, d, sizeof d);
  lp_error_at(P, t->line, t->col, "unknown block %s (expected one of: %s)", d, block_list);
}

static void program(lp *P) {
  ln_program *p = P->p;
  lp_vec funcs = {0};
  int last = -1;
  for (;;) {
    const lx_token *start = lp_cur(P);
    int blk = block_name(P);
    if (blk < 0) break;
    if (p->block[blk])
      lp_error_at(P, start->line, start->col, "the '%s' block appears twice", ln_block_name(blk));
    if (blk < last)
      lp_error_at(P, start->line, start->col, "the '%s' block must come before the '%s' block",
                  ln_block_name(blk), ln_block_name(last));
    last = blk;
    char m[120];
    snprintf(m, sizeof m, "expected '{' after '%s', found %%s", ln_block_name(blk));
    const lx_token *open = lp_cur(P);
    lp_expect(P, LX_LBRACE, m);
    ln_stmt *b = lp_new_stmt(P, LS_BLOCK, start);
    p->block[blk] = b;
    lp_vec body = {0};
    int where = blk == LN_BLK_DATA || blk == LN_BLK_PARAMS ? LP_DECL_INPUT
              : blk == LN_BLK_MODEL ? LP_DECL_LOCAL : LP_DECL_TOP;
    while (!lp_is(P, LX_RBRACE)) {
      if (lp_is(P, LX_EOF) || lp_is(P, LX_ERROR)) {
        snprintf(m, sizeof m, "expected '}' to close the '%s' block opened at line %d, found %%s",
                 ln_block_name(blk), open->line);
        lp_error_found(P, m);
      }
      if (blk == LN_BLK_FUNCTIONS) lp_push(P, &funcs, function_def(P));
      else lp_item(P, where, blk, &body);
    }
    lp_next(P);
    b->body = lp_stmts(P, &body);
    b->nbody = body.n;
  }
  if (funcs.n) {
    p->funcs = lp_alloc(P, (size_t)funcs.n * sizeof *p->funcs);
    for (int i = 0; i < funcs.n; i++) p->funcs[i] = funcs.v[i];
  }
  p->nfuncs = funcs.n;
}

/* The parse runs in its own function so that setjmp's caller has no local
** variables modified between setjmp and longjmp. */
static int run(lp *P) {
  if (setjmp(P->jb)) return -1;
  program(P);
  return 0;
}

ln_program *ln_parse(const char *filename, const char *src, size_t len, char *err, size_t errsize) {
  return ln_parse_include(filename, src, len, NULL, 0, err, errsize);
}

ln_program *ln_parse_include(const char *filename, const char *src, size_t len,
                             const char *const *paths, int npaths, char *err, size_t errsize) {
  if (err && errsize) err[0] = '\0';
  char dummy[8];
  if (!err || errsize == 0) { err = dummy; errsize = sizeof dummy; }
  if (!filename) filename = "string";
  /* #include first: the parser sees the expanded text, the map keeps where
  ** each line came from. */
  ln_srcmap map;
  memset(&map, 0, sizeof map);
  char *expanded = NULL;
  if (ln_has_include(src, len)) {
    int rc = ln_include_expand(filename, src, len, paths, npaths, &map, &expanded, &len, err, errsize);
    if (rc != 0) return NULL;
  }
  ln_program *p = calloc(1, sizeof *p);
  if (!p) {
    free(expanded);
    ln_srcmap_free(&map);
    snprintf(err, errsize, "out of memory");
    return NULL;
  }
  p->map = map;
  size_t fl = strlen(filename);
  p->filename = malloc(fl + 1);
  p->source = expanded ? expanded : malloc(len + 1);
  if (!p->filename || !p->source) {
    ln_program_free(p);
    snprintf(err, errsize, "out of memory");
    return NULL;
  }
  memcpy(p->filename, filename, fl + 1);
  if (!expanded) {
    if (len) memcpy(p->source, src, len);
    p->source[len] = '\0';
  }
  p->srclen = len;

  lx_token *toks = NULL;
  size_t nt = 0;
  char lexmsg[400];
  if (lx_tokenize(p, &toks, &nt, lexmsg, sizeof lexmsg) != 0 || nt == 0) {
    free(toks);
    ln_program_free(p);
    snprintf(err, errsize, "out of memory");
    return NULL;
  }
  lp P;
  memset(&P, 0, sizeof P);
  P.p = p;
  P.t = toks;
  P.nt = nt;
  P.lexmsg = toks[nt - 1].kind == LX_ERROR ? lexmsg : NULL;
  P.err = err;
  P.errsize = errsize;
  int r = run(&P);
  free(toks);
  if (r != 0) {
    ln_program_free(p);
    return NULL;
  }
  return p;
}
