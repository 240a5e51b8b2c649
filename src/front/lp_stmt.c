/*
** lp_stmt.c -- statements.
**
** A statement that begins with an expression (assignment, '~', a call) is
** parsed as an expression first and classified by the token after it; the
** left side of an assignment is then checked to be a variable, possibly
** indexed.
*/
#include <stdio.h>
#include <string.h>
#include "lp_parse.h"

static int is_lvalue(const ln_expr *e) {
  while (e->kind == LE_INDEX || e->kind == LE_TPROJ) e = e->args[0];
  return e->kind == LE_VAR;
}

static int assign_op(int kind) {
  switch (kind) {
  case LX_ASSIGN: return LN_OP_NONE;
  case LX_PLUSEQ: return LN_OP_ADD;
  case LX_MINUSEQ: return LN_OP_SUB;
  case LX_TIMESEQ: return LN_OP_MUL;
  case LX_DIVEQ: return LN_OP_DIV;
  case LX_ELTTIMESEQ: return LN_OP_ELTMUL;
  case LX_ELTDIVEQ: return LN_OP_ELTDIV;
  default: return -1;
  }
}

/* y ~ dist(args) T[lo, hi]; */
static ln_stmt *tilde(lp *P, ln_expr *lhs, const lx_token *start) {
  ln_stmt *s = lp_new_stmt(P, LS_TILDE, start);
  s->e = lhs;
  lp_next(P);   /* '~' */
  const lx_token *d = lp_cur(P);
  if (d->kind != LX_IDENT || lp_is_reserved(P, d))
    lp_error_found(P, "expected a distribution's name after '~', found %s");
  s->name = lp_text(P, d);
  static const char *suffix[] = {"_lpdf", "_lupdf", "_lpmf", "_lupmf"};
  size_t n = strlen(s->name);
  for (int i = 0; i < 4; i++) {
    size_t k = strlen(suffix[i]);
    if (n > k && strcmp(s->name + n - k, suffix[i]) == 0)
      lp_error_at(P, d->line, d->col, "'~' takes the distribution's name without '%s': write '%.*s'",
                  suffix[i], (int)(n - k > 60 ? 60 : n - k), s->name);
  }
  lp_next(P);
  char m[160];
  snprintf(m, sizeof m, "expected '(' after the distribution '%.60s', found %%s", s->name);
  lp_expect(P, LX_LPAREN, m);
  lp_vec args = {0};
  snprintf(m, sizeof m, "the arguments of '%.60s'", s->name);
  lp_expr_list(P, &args, LX_RPAREN, 1, m);
  s->args = lp_exprs(P, &args);
  s->nargs = args.n;
  if (lp_is_word(P, "T") && lp_peek(P, 1)->kind == LX_LBRACK) {
    lp_next(P);
    lp_next(P);
    if (!lp_is(P, LX_COMMA)) s->lo = lp_expr(P);
    lp_expect(P, LX_COMMA, "expected ',' in the truncation T[lower, upper], found %s");
    if (!lp_is(P, LX_RBRACK)) s->hi = lp_expr(P);
    lp_expect(P, LX_RBRACK, "expected ']' to close the truncation T[lower, upper], found %s");
    /* T[,] truncates nothing, as in stanc */
    s->trunc = s->lo || s->hi;
  }
  lp_semi(P, "the '~' statement");
  return s;
}

/* Stan 2.21's `x <- e;` (removed in Stan 2.33) ahead: a name, its indexes,
** then '<' and '-' side by side.  At the start of a statement the two
** cannot mean `x < -e`, which would be an expression alone. */
static int old_arrow_ahead(const lp *P) {
  if (lp_peek(P, 0)->kind != LX_IDENT) return 0;
  size_t k = 1;
  while (lp_peek(P, k)->kind == LX_LBRACK) {
    int depth = 0;
    do {
      int kind = lp_peek(P, k)->kind;
      if (kind == LX_LBRACK) depth++;
      else if (kind == LX_RBRACK) depth--;
      else if (kind == LX_SEMI || kind == LX_EOF || kind == LX_ERROR) return 0;
      k++;
    } while (depth > 0);
  }
  const lx_token *lt = lp_peek(P, k), *minus = lp_peek(P, k + 1);
  return lt->kind == LX_LT && minus->kind == LX_MINUS && minus->line == lt->line && minus->col == lt->col + 1;
}

/* assignment, '~', or a function call as a statement */
static ln_stmt *expr_stmt(lp *P) {
  const lx_token *start = lp_cur(P);
  if (old_arrow_ahead(P)) {
    ln_stmt *s = lp_new_stmt(P, LS_ASSIGN, start);
    s->lhs = lp_postfix(P);
    const lx_token *at = lp_cur(P);
    ln_warn(P->p, at->line, at->col, "assignment with '<-' is deprecated (Stan 2.33 removed it); write '='");
    lp_next(P);   /* '<' */
    lp_next(P);   /* '-' */
    s->e = lp_expr(P);
    lp_semi(P, "the assignment");
    return s;
  }
  ln_expr *e = lp_expr(P);
  const lx_token *t = lp_cur(P);
  int op = assign_op(t->kind);
  if (op >= 0) {
    if (!is_lvalue(e)) {
      char m[40];
      snprintf(m, sizeof m, "%s=", op ? ln_op_text(op) : "");
      lp_error_at(P, e->line, e->col, "the left side of '%s' must be a variable, possibly indexed", m);
    }
    lp_next(P);
    ln_stmt *s = lp_new_stmt(P, LS_ASSIGN, start);
    s->op = (unsigned char)op;
    s->lhs = e;
    s->e = lp_expr(P);
    lp_semi(P, "the assignment");
    return s;
  }
  if (t->kind == LX_TILDE) return tilde(P, e, start);
  if (e->kind == LE_CALL && !strcmp(e->name, "increment_log_prob")) {
    /* Stan 2.21's increment_log_prob(e) (removed in Stan 2.33) */
    if (e->nargs != 1 || e->bar) lp_error_at(P, e->line, e->col, "increment_log_prob takes one argument");
    ln_warn(P->p, e->line, e->col,
            "increment_log_prob(...) is deprecated (Stan 2.33 removed it); write 'target += ...'");
    ln_stmt *s = lp_new_stmt(P, LS_TARGET, start);
    s->e = e->args[0];
    lp_semi(P, "'increment_log_prob(...)'");
    return s;
  }
  if (e->kind == LE_CALL) {
    ln_stmt *s = lp_new_stmt(P, LS_CALL, start);
    s->e = e;
    lp_semi(P, "the statement");
    return s;
  }
  /* `vectr[N] y;` reads as an expression followed by a name: a misspelt type */
  const ln_expr *base = e;
  while (base->kind == LE_INDEX) base = base->args[0];
  if (base->kind == LE_VAR && t->kind == LX_IDENT && (base == e || e->nidx > 0))
    lp_error_at(P, base->line, base->col, "unknown type '%s'", base->name);
  if (t->kind == LX_SEMI)
    lp_error_at(P, e->line, e->col,
                "an expression alone is not a statement: expected an assignment, a '~' statement or a function call");
  lp_error_found(P, "expected '=', '~' or ';' after the expression, found %s");
}

/* print / reject / fatal_error: expressions and strings */
static ln_stmt *printables(lp *P, int kind, const char *what) {
  ln_stmt *s = lp_new_stmt(P, kind, lp_cur(P));
  lp_next(P);
  char m[120];
  snprintf(m, sizeof m, "expected '(' after '%s', found %%s", what);
  lp_expect(P, LX_LPAREN, m);
  lp_vec args = {0};
  for (;;) {
    if (lp_is(P, LX_STRING)) {
      ln_expr *e = lp_new_expr(P, LE_STRING, lp_cur(P));
      e->name = lp_text(P, lp_cur(P));
      lp_next(P);
      lp_push(P, &args, e);
    } else {
      if (lp_is(P, LX_RPAREN)) {
        snprintf(m, sizeof m, "expected an expression or a string in '%s(...)', found %%s", what);
        lp_error_found(P, m);
      }
      lp_push(P, &args, lp_expr(P));
    }
    if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
    snprintf(m, sizeof m, "expected ',' or ')' in '%s(...)', found %%s", what);
    lp_expect(P, LX_RPAREN, m);
    break;
  }
  s->args = lp_exprs(P, &args);
  s->nargs = args.n;
  snprintf(m, sizeof m, "'%s(...)'", what);
  lp_semi(P, m);
  return s;
}

/* '(' expression ')' after if / while */
static ln_expr *condition(lp *P, const char *what) {
  char m[120];
  snprintf(m, sizeof m, "expected '(' after '%s', found %%s", what);
  lp_expect(P, LX_LPAREN, m);
  ln_expr *e = lp_expr(P);
  snprintf(m, sizeof m, "expected ')' after the condition of '%s', found %%s", what);
  lp_expect(P, LX_RPAREN, m);
  return e;
}

static void one_body(lp *P, ln_stmt *s, int blk) {
  s->body = lp_alloc(P, sizeof *s->body);
  s->body[0] = lp_stmt(P, blk);
  s->nbody = 1;
}

static ln_stmt *for_stmt(lp *P, int blk) {
  ln_stmt *s = lp_new_stmt(P, LS_FOR, lp_cur(P));
  lp_next(P);
  lp_expect(P, LX_LPAREN, "expected '(' after 'for', found %s");
  const lx_token *v = lp_cur(P);
  lp_check_name(P, v, "the loop variable's name");
  s->name = lp_text(P, v);
  lp_next(P);
  if (!lp_is_word(P, "in")) lp_error_found(P, "expected 'in' after the loop variable, found %s");
  lp_next(P);
  ln_expr *e = lp_expr(P);
  if (lp_is(P, LX_COLON)) {
    lp_next(P);
    s->lo = e;
    s->hi = lp_expr(P);
    lp_expect(P, LX_RPAREN, "expected ')' after the range of 'for', found %s");
  } else {
    s->kind = LS_FOREACH;
    s->e = e;
    lp_expect(P, LX_RPAREN, "expected ':' or ')' after the start of the range of 'for', found %s");
  }
  one_body(P, s, blk);
  return s;
}

ln_stmt *lp_braced(lp *P, int where, int blk) {
  const lx_token *open = lp_cur(P);
  ln_stmt *s = lp_new_stmt(P, LS_BLOCK, open);
  lp_next(P);
  lp_vec body = {0};
  while (!lp_is(P, LX_RBRACE)) {
    if (lp_is(P, LX_EOF) || lp_is(P, LX_ERROR)) {
      char m[120];
      snprintf(m, sizeof m, "expected '}' to close the '{' at line %d, column %d, found %%s", open->line, open->col);
      lp_error_found(P, m);
    }
    lp_item(P, where, blk, &body);
  }
  lp_next(P);
  s->body = lp_stmts(P, &body);
  s->nbody = body.n;
  return s;
}

ln_stmt *lp_stmt(lp *P, int blk) {
  const lx_token *t = lp_cur(P);
  ln_stmt *s;
  lp_enter(P);
  if (t->kind == LX_LBRACE) {
    s = lp_braced(P, LP_DECL_LOCAL, blk);
  } else if (t->kind == LX_SEMI) {
    s = lp_new_stmt(P, LS_EMPTY, t);
    lp_next(P);
  } else if (t->kind != LX_IDENT) {
    if (t->kind == LX_RBRACE || t->kind == LX_RPAREN || t->kind == LX_RBRACK) {
      char d[64];
      lp_desc(P, t, d, sizeof d);
      lp_error_at(P, t->line, t->col, "unexpected %s", d);
    }
    s = expr_stmt(P);
  } else if (lp_is_word(P, "if")) {
    s = lp_new_stmt(P, LS_IF, t);
    lp_next(P);
    s->e = condition(P, "if");
    one_body(P, s, blk);
    if (lp_is_word(P, "else")) {
      lp_next(P);
      s->els = lp_stmt(P, blk);
    }
  } else if (lp_is_word(P, "while")) {
    s = lp_new_stmt(P, LS_WHILE, t);
    lp_next(P);
    s->e = condition(P, "while");
    one_body(P, s, blk);
  } else if (lp_is_word(P, "for")) {
    s = for_stmt(P, blk);
  } else if (lp_is_word(P, "break") || lp_is_word(P, "continue")) {
    int brk = lp_is_word(P, "break");
    s = lp_new_stmt(P, brk ? LS_BREAK : LS_CONTINUE, t);
    lp_next(P);
    lp_semi(P, brk ? "'break'" : "'continue'");
  } else if (lp_is_word(P, "return")) {
    s = lp_new_stmt(P, LS_RETURN, t);
    lp_next(P);
    if (!lp_is(P, LX_SEMI)) s->e = lp_expr(P);
    lp_semi(P, "the return statement");
  } else if (lp_is_word(P, "print")) {
    s = printables(P, LS_PRINT, "print");
  } else if (lp_is_word(P, "reject")) {
    s = printables(P, LS_REJECT, "reject");
  } else if (lp_is_word(P, "fatal_error")) {
    s = printables(P, LS_FATAL, "fatal_error");
  } else if (lp_is_word(P, "profile")) {
    s = lp_new_stmt(P, LS_PROFILE, t);
    lp_next(P);
    lp_expect(P, LX_LPAREN, "expected '(' after 'profile', found %s");
    if (!lp_is(P, LX_STRING)) lp_error_found(P, "expected the profile's name as a string, found %s");
    s->name = lp_text(P, lp_cur(P));
    lp_next(P);
    lp_expect(P, LX_RPAREN, "expected ')' after the profile's name, found %s");
    if (!lp_is(P, LX_LBRACE)) lp_error_found(P, "expected '{' after 'profile(...)', found %s");
    ln_stmt *b = lp_braced(P, LP_DECL_LOCAL, blk);
    s->body = b->body;
    s->nbody = b->nbody;
  } else if ((lp_is_word(P, "target") || lp_is_word(P, "jacobian")) && lp_peek(P, 1)->kind == LX_PLUSEQ) {
    int target = lp_is_word(P, "target");       /* target += e or jacobian += e */
    s = lp_new_stmt(P, target ? LS_TARGET : LS_JACOBIAN, t);
    lp_next(P);
    lp_next(P);
    s->e = lp_expr(P);
    lp_semi(P, target ? "'target +='" : "'jacobian +='");
  } else if (lp_is_word(P, "else")) {
    lp_error_at(P, t->line, t->col, "'else' without a matching 'if'");
  } else if (lp_at_type(P)) {
    lp_error_at(P, t->line, t->col,
                "a declaration cannot be the body of if, for or while: put it inside braces { }");
  } else {
    s = expr_stmt(P);
  }
  P->depth--;
  return s;
}

void lp_item(lp *P, int where, int blk, lp_vec *out) {
  if (lp_at_type(P)) {
    lp_decl(P, where, blk, out);
    return;
  }
  if (where == LP_DECL_INPUT) {
    if (lp_is(P, LX_SEMI)) { lp_next(P); return; }   /* stray ';' between declarations */
    char m[160];
    snprintf(m, sizeof m, "only declarations are allowed in the '%s' block, found %%s", ln_block_name(blk));
    lp_error_found(P, m);
  }
  lp_push(P, out, lp_stmt(P, blk));
}
