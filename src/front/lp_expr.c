/*
** lp_expr.c -- expressions, by precedence climbing over Stan's levels
** (stanc3's parser.mly, loosest first):
**   ?: (right)  ||  &&  == !=  < <= > >=  + -  * / % .* ./  \ %/%
**   prefix ! - +   ^ .^ (right)   postfix ' and [...]
** so -a^b is -(a^b), a^-b is a^(-b), and \ binds tighter than *.
** Each operator built in a left-associative chain counts one level of
** depth, so a long chain cannot make the tree deeper than LP_MAXDEPTH.
*/
#include <stdio.h>
#include <string.h>
#include "lp_parse.h"

/* A node of `kind` at its first operand's position, with room for nargs
** operands of which `first` is the first (binary operators, indexing,
** tuple projections and conditionals all start from a parsed operand). */
static ln_expr *after(lp *P, int kind, ln_expr *first, int nargs) {
  ln_expr *e = lp_alloc(P, sizeof *e);
  e->kind = (unsigned char)kind;
  e->line = first->line;
  e->col = first->col;
  e->args = lp_alloc(P, (size_t)nargs * sizeof *e->args);
  e->args[0] = first;
  e->nargs = nargs;
  return e;
}

static ln_expr *binop(lp *P, int op, ln_expr *a, ln_expr *b) {
  ln_expr *e = after(P, LE_BINOP, a, 2);
  e->op = (unsigned char)op;
  e->args[1] = b;
  return e;
}

static ln_expr *unop(lp *P, int op, ln_expr *a, const lx_token *at) {
  ln_expr *e = lp_new_expr(P, LE_UNOP, at);
  e->op = (unsigned char)op;
  e->args = lp_alloc(P, sizeof *e->args);
  e->args[0] = a;
  e->nargs = 1;
  return e;
}

static ln_expr *unary(lp *P);

void lp_expr_list(lp *P, lp_vec *out, int close, int allow_empty, const char *context) {
  char m[200];
  if (lp_is(P, close) && allow_empty) { lp_next(P); return; }
  for (;;) {
    lp_push(P, out, lp_expr(P));
    if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
    if (lp_is(P, close)) { lp_next(P); return; }
    snprintf(m, sizeof m, "expected ',' or '%s' in %s, found %%s",
             close == LX_RPAREN ? ")" : close == LX_RBRACK ? "]" : "}", context);
    lp_error_found(P, m);
  }
}

/* f(args) or f(y | args) */
static ln_expr *call(lp *P, const lx_token *name) {
  ln_expr *e = lp_new_expr(P, LE_CALL, name);
  e->name = lp_text(P, name);
  if (!strcmp(e->name, "qr") || !strcmp(e->name, "qr_thin") || !strcmp(e->name, "svd") ||
      !strcmp(e->name, "eigendecompose_sym") || !strcmp(e->name, "eigendecompose") ||
      !strcmp(e->name, "csr_extract"))
    P->p->has_tuples = 1;
  lp_next(P);   /* name */
  lp_next(P);   /* '(' */
  char ctx[120];
  snprintf(ctx, sizeof ctx, "the arguments of '%.60s'", e->name);
  lp_vec args = {0};
  if (lp_is(P, LX_RPAREN)) {
    lp_next(P);
  } else {
    lp_push(P, &args, lp_expr(P));
    if (lp_is(P, LX_BAR)) {
      e->bar = 1;
      lp_next(P);
      lp_expr_list(P, &args, LX_RPAREN, 1, ctx);
    } else if (lp_is(P, LX_COMMA)) {
      lp_next(P);
      lp_expr_list(P, &args, LX_RPAREN, 0, ctx);
    } else {
      char m[200];
      snprintf(m, sizeof m, "expected ',', '|' or ')' in %s, found %%s", ctx);
      lp_expect(P, LX_RPAREN, m);
    }
  }
  e->args = lp_exprs(P, &args);
  e->nargs = args.n;
  return e;
}

static ln_expr *primary(lp *P) {
  const lx_token *t = lp_cur(P);
  ln_expr *e;
  switch (t->kind) {
  case LX_INT:
    e = lp_new_expr(P, LE_INT, t);
    e->ival = t->ival;
    lp_next(P);
    return e;
  case LX_REAL:
    e = lp_new_expr(P, LE_REAL, t);
    e->rval = t->rval;
    e->name = lp_text(P, t);
    lp_next(P);
    return e;
  case LX_IMAG: {
    /* 2.5i is to_complex(0, 2.5) */
    lp_vec args = {0};
    e = lp_new_expr(P, LE_CALL, t);
    e->name = "to_complex";
    ln_expr *z = lp_new_expr(P, LE_INT, t);
    z->ival = 0;
    ln_expr *im = lp_new_expr(P, LE_REAL, t);
    im->rval = t->rval;
    im->name = lp_text(P, t);
    lp_push(P, &args, z);
    lp_push(P, &args, im);
    e->args = lp_exprs(P, &args);
    e->nargs = args.n;
    lp_next(P);
    return e;
  }
  case LX_STRING:
    lp_error_at(P, t->line, t->col,
                "a string can only be an argument of print, reject, fatal_error or profile");
  case LX_LPAREN: {
    lp_next(P);
    e = lp_expr(P);
    if (lp_is(P, LX_COMMA)) {
      /* (a, b, ...): a tuple literal */
      lp_vec v = {0};
      lp_push(P, &v, e);
      lp_next(P);
      lp_expr_list(P, &v, LX_RPAREN, 0, "the tuple expression '(...)'");
      e = lp_new_expr(P, LE_TUPLE, t);
      P->p->has_tuples = 1;
      e->args = lp_exprs(P, &v);
      e->nargs = v.n;
      return e;
    }
    lp_expect(P, LX_RPAREN, "expected ')' to close '(', found %s");
    return e;
  }
  case LX_LBRACE: {
    lp_vec v = {0};
    e = lp_new_expr(P, LE_ARRAY, t);
    lp_next(P);
    if (lp_is(P, LX_RBRACE)) lp_error_at(P, t->line, t->col, "an array expression '{ }' cannot be empty");
    lp_expr_list(P, &v, LX_RBRACE, 0, "the array expression '{...}'");
    e->args = lp_exprs(P, &v);
    e->nargs = v.n;
    return e;
  }
  case LX_LBRACK: {
    lp_vec v = {0};
    e = lp_new_expr(P, LE_ROWVEC, t);
    lp_next(P);
    lp_expr_list(P, &v, LX_RBRACK, 1, "the row vector expression '[...]'");
    e->args = lp_exprs(P, &v);
    e->nargs = v.n;
    return e;
  }
  case LX_IDENT:
    if (lp_tok_is(P, t, "target")) {
      if (lp_peek(P, 1)->kind == LX_LPAREN && lp_peek(P, 2)->kind == LX_RPAREN) {
        e = lp_new_expr(P, LE_TARGET, t);
        lp_next(P); lp_next(P); lp_next(P);
        return e;
      }
      lp_error_at(P, t->line, t->col, "'target' can only be read as 'target()' or incremented with 'target +='");
    }
    if (lp_is_reserved(P, t) && !lp_is_late_reserved(P, t))
      lp_error_found(P, "expected an expression, found %s (a reserved word)");
    if (lp_peek(P, 1)->kind == LX_LPAREN) return call(P, t);
    e = lp_new_expr(P, LE_VAR, t);
    e->name = lp_text(P, t);
    lp_next(P);
    return e;
  default:
    lp_error_found(P, "expected an expression, found %s");
  }
}

/* one index of x[...]: empty, ':', a, a:, :b, a:b */
static void index1(lp *P, ln_index *x) {
  if (lp_is(P, LX_COMMA) || lp_is(P, LX_RBRACK)) { x->kind = LI_ALL; return; }
  if (lp_is(P, LX_COLON)) {
    lp_next(P);
    if (lp_is(P, LX_COMMA) || lp_is(P, LX_RBRACK)) { x->kind = LI_ALL; return; }
    x->kind = LI_TO;
    x->b = lp_expr(P);
    return;
  }
  x->a = lp_expr(P);
  x->kind = LI_SINGLE;
  if (lp_is(P, LX_COLON)) {
    lp_next(P);
    if (lp_is(P, LX_COMMA) || lp_is(P, LX_RBRACK)) { x->kind = LI_FROM; return; }
    x->kind = LI_RANGE;
    x->b = lp_expr(P);
  }
}

/* The k of a token ".k" (digits only after the point), or 0. */
static int tuple_index(const lp *P, const lx_token *t) {
  long k = 0;
  for (size_t j = 1; j < t->len; j++) {
    char c = P->p->source[t->off + j];
    if (c < '0' || c > '9') return 0;
    k = k * 10 + (c - '0');
    if (k > 100000) return 0;
  }
  return (int)k;
}

static ln_expr *postfix(lp *P) {
  int d0 = P->depth;
  ln_expr *e = primary(P);
  for (;;) {
    const lx_token *t = lp_cur(P);
    if (t->kind == LX_TRANSPOSE) {
      lp_enter(P);
      ln_expr *u = unop(P, LN_OP_TRANSPOSE, e, t);
      u->line = e->line;
      u->col = e->col;
      e = u;
      lp_next(P);
    } else if (t->kind == LX_LBRACK) {
      lp_enter(P);
      lp_next(P);
      ln_expr *x = after(P, LE_INDEX, e, 1);
      int n = 0, cap = 2;
      ln_index *idx = lp_alloc(P, (size_t)cap * sizeof *idx);
      for (;;) {
        if (n == cap) {
          if (cap > (1 << 20)) lp_error_at(P, t->line, t->col, "too many indexes");
          ln_index *nx = lp_alloc(P, (size_t)cap * 2 * sizeof *nx);
          memcpy(nx, idx, (size_t)n * sizeof *nx);
          idx = nx;
          cap *= 2;
        }
        index1(P, &idx[n++]);
        if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
        lp_expect(P, LX_RBRACK, "expected ',' or ']' in the indexes, found %s");
        break;
      }
      x->idx = idx;
      x->nidx = n;
      e = x;
    } else if (t->kind == LX_REAL && t->len >= 2 && P->p->source[t->off] == '.' &&
               tuple_index(P, t) > 0) {
      /* e.1: Stan's tuple indexing (the lexer read ".1" as a real) */
      lp_enter(P);
      ln_expr *x = after(P, LE_TPROJ, e, 1);
      P->p->has_tuples = 1;
      x->ival = tuple_index(P, t);
      lp_next(P);
      e = x;
    } else {
      break;
    }
  }
  P->depth = d0;
  return e;
}

ln_expr *lp_postfix(lp *P) { return postfix(P); }

/* postfix ( ^ unary )?: right associative through unary */
static ln_expr *power(lp *P) {
  ln_expr *e = postfix(P);
  const lx_token *t = lp_cur(P);
  if (t->kind == LX_HAT || t->kind == LX_ELTPOW) {
    lp_next(P);
    e = binop(P, t->kind == LX_HAT ? LN_OP_POW : LN_OP_ELTPOW, e, unary(P));
  }
  return e;
}

static ln_expr *unary(lp *P) {
  const lx_token *t = lp_cur(P);
  ln_expr *e;
  lp_enter(P);
  if (t->kind == LX_BANG || t->kind == LX_MINUS || t->kind == LX_PLUS) {
    lp_next(P);
    e = unop(P, t->kind == LX_BANG ? LN_OP_NOT : t->kind == LX_MINUS ? LN_OP_NEG : LN_OP_PLUS, unary(P), t);
  } else {
    e = power(P);
  }
  P->depth--;
  return e;
}

/* left-associative binary levels, tightest first */
typedef struct binlevel { int tok[6]; int op[6]; } binlevel;
static const binlevel levels[] = {
  {{LX_LDIVIDE, LX_IDIVIDE}, {LN_OP_LDIV, LN_OP_IDIV}},
  {{LX_TIMES, LX_DIVIDE, LX_MODULO, LX_ELTTIMES, LX_ELTDIVIDE},
   {LN_OP_MUL, LN_OP_DIV, LN_OP_MOD, LN_OP_ELTMUL, LN_OP_ELTDIV}},
  {{LX_PLUS, LX_MINUS}, {LN_OP_ADD, LN_OP_SUB}},
  {{LX_LT, LX_LE, LX_GT, LX_GE}, {LN_OP_LT, LN_OP_LE, LN_OP_GT, LN_OP_GE}},
  {{LX_EQ, LX_NE}, {LN_OP_EQ, LN_OP_NE}},
  {{LX_AND}, {LN_OP_AND}},
  {{LX_OR}, {LN_OP_OR}}
};
enum { LV_ADD = 2, LV_OR = 6 };

static ln_expr *level(lp *P, int lv) {
  int d0 = P->depth;
  ln_expr *e = lv == 0 ? unary(P) : level(P, lv - 1);
  for (;;) {
    int k = lp_cur(P)->kind, op = 0;
    for (int i = 0; i < 6 && levels[lv].tok[i]; i++)
      if (levels[lv].tok[i] == k) op = levels[lv].op[i];
    if (!op) break;
    lp_enter(P);
    lp_next(P);
    e = binop(P, op, e, lv == 0 ? unary(P) : level(P, lv - 1));
  }
  P->depth = d0;
  return e;
}

ln_expr *lp_expr(lp *P) {
  ln_expr *c = level(P, LV_OR);
  if (!lp_is(P, LX_QMARK)) return c;
  lp_enter(P);
  lp_next(P);
  ln_expr *e = after(P, LE_COND, c, 3);
  e->args[1] = lp_expr(P);
  lp_expect(P, LX_COLON, "expected ':' in the conditional expression 'a ? b : c', found %s");
  e->args[2] = lp_expr(P);
  P->depth--;
  return e;
}

ln_expr *lp_expr_arith(lp *P) { return level(P, LV_ADD); }
