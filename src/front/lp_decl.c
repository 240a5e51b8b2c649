/*
** lp_decl.c -- declarations and types: sized types with constraints for
** variables, unsized types for function arguments and results, and the
** deprecated array syntax (`real y[N]`, `real[] x`), accepted with a warning.
*/
#include <stdio.h>
#include <string.h>
#include "lp_parse.h"

static const char *constrained_vec[] = {
  "simplex", "ordered", "positive_ordered", "unit_vector", "sum_to_zero_vector", NULL
};
static const char *constrained_mat[] = {
  "cholesky_factor_corr", "cholesky_factor_cov", "corr_matrix", "cov_matrix",
  "sum_to_zero_matrix", "column_stochastic_matrix", "row_stochastic_matrix", NULL
};
/* Stan types tapestry does not have */
static const char *unsupported[] = { NULL };
static const char *basic[] = {"int", "real", "vector", "row_vector", "matrix",
                              "complex", "complex_vector", "complex_row_vector", "complex_matrix", NULL};

static int word_in(const lp *P, const lx_token *t, const char **list) {
  for (int i = 0; list[i]; i++) if (lp_tok_is(P, t, list[i])) return i + 1;
  return 0;
}

int lp_at_type(const lp *P) {
  const lx_token *t = lp_cur(P);
  return lp_tok_is(P, t, "array") || word_in(P, t, basic) || word_in(P, t, constrained_vec) ||
         word_in(P, t, constrained_mat) || word_in(P, t, unsupported) || lp_tok_is(P, t, "tuple");
}

static LP_NORETURN void unsupported_type(lp *P, const lx_token *t) {
  char d[64];
  lp_desc(P, t, d, sizeof d);
  lp_error_at(P, t->line, t->col, "the type %s is not supported by tapestry", d);
}

/* Source text from token a to the start of token b, blanks squeezed, for
** quoting the program back in a message; "" when too long. */
static void span_text(const lp *P, const lx_token *a, const lx_token *b, char *buf, size_t size) {
  size_t m = 0;
  int blank = 0;
  buf[0] = '\0';
  for (const lx_token *t = a; t < b; t++) {
    if (t > a && t->off > t[-1].off + t[-1].len) blank = 1;
    if (blank && m > 0) { if (m + 1 >= size) goto toolong; buf[m++] = ' '; }
    blank = 0;
    for (size_t j = 0; j < t->len; j++) {
      unsigned char c = (unsigned char)P->p->source[t->off + j];
      if (m + 1 >= size) goto toolong;
      buf[m++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
  }
  buf[m] = '\0';
  return;
toolong:
  buf[0] = '\0';
}

/* ---- variable types ---- */
typedef struct spec {
  int base;
  const char *transform;
  ln_expr *lower, *upper, *offset, *multiplier, *size1, *size2;
  ln_tuple *tuple;
} spec;

static void constraint(lp *P, spec *s, int allow_om) {
  const lx_token *open = lp_cur(P);
  lp_next(P);   /* '<' */
  for (;;) {
    const lx_token *k = lp_cur(P);
    ln_expr **slot = lp_tok_is(P, k, "lower") ? &s->lower : lp_tok_is(P, k, "upper") ? &s->upper
                   : lp_tok_is(P, k, "offset") ? &s->offset : lp_tok_is(P, k, "multiplier") ? &s->multiplier
                   : NULL;
    if (!slot) lp_error_found(P, "expected 'lower', 'upper', 'offset' or 'multiplier' in the constraint, found %s");
    char d[64];
    lp_desc(P, k, d, sizeof d);
    if (!allow_om && (slot == &s->offset || slot == &s->multiplier))
      lp_error_at(P, k->line, k->col, "an int cannot have an offset or a multiplier");
    if (*slot) lp_error_at(P, k->line, k->col, "%s is given twice in the constraint", d);
    lp_next(P);
    char m[100];
    snprintf(m, sizeof m, "expected '=' after %s, found %%s", d);
    lp_expect(P, LX_ASSIGN, m);
    *slot = lp_expr_arith(P);
    if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
    if (lp_is(P, LX_GT)) { lp_next(P); break; }
    int k2 = lp_cur(P)->kind;
    if (k2 == LX_LT || k2 == LX_LE || k2 == LX_GE || k2 == LX_EQ || k2 == LX_NE ||
        k2 == LX_AND || k2 == LX_OR || k2 == LX_QMARK)
      lp_error_found(P, "a bound cannot contain %s at its top level: put the bound in parentheses");
    lp_error_found(P, "expected ',' or '>' to close the constraint, found %s");
  }
  if ((s->lower || s->upper) && (s->offset || s->multiplier))
    lp_error_at(P, open->line, open->col, "a constraint cannot combine lower/upper with offset/multiplier");
  s->transform = s->lower && s->upper ? "lower_upper" : s->lower ? "lower" : s->upper ? "upper"
               : "offset_multiplier";
}

/* '[' e ']' or '[' e ',' e ']' (second optional when opt2) */
static void sizes(lp *P, spec *s, int two, int opt2, const char *tname) {
  char m[160];
  snprintf(m, sizeof m, "expected '[' and the size of the %s, found %%s", tname);
  lp_expect(P, LX_LBRACK, m);
  s->size1 = lp_expr(P);
  if (two && (!opt2 || lp_is(P, LX_COMMA))) {
    snprintf(m, sizeof m, "expected ',' and the number of columns of the %s, found %%s", tname);
    lp_expect(P, LX_COMMA, m);
    s->size2 = lp_expr(P);
  }
  snprintf(m, sizeof m, "expected ']' after the size%s of the %s, found %%s", two ? "s" : "", tname);
  lp_expect(P, LX_RBRACK, m);
}

static void sized_type(lp *P, int where, spec *s) {
  const lx_token *t = lp_cur(P);
  char tname[32];
  snprintf(tname, sizeof tname, "%.*s", (int)(t->len < 31 ? t->len : 31), P->p->source + t->off);
  int b = word_in(P, t, basic), cv = word_in(P, t, constrained_vec), cm = word_in(P, t, constrained_mat);
  if (word_in(P, t, unsupported)) unsupported_type(P, t);
  if (!b && !cv && !cm) lp_error_found(P, "expected a type (int, real, vector, row_vector, matrix...), found %s");
  lp_next(P);
  if (b) {
    s->base = b - 1;   /* basic[] is in TM_INT .. TM_CMATRIX order */
    if (lp_is(P, LX_LT) && s->base >= TM_COMPLEX)
      lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col, "complex types cannot have constraints");
    if (lp_is(P, LX_LT)) {
      if (where == LP_DECL_LOCAL)
        lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col,
                    "local variables cannot have constraints (only top-level variables of data, transformed "
                    "data, parameters, transformed parameters and generated quantities can)");
      constraint(P, s, s->base != TM_INT);
    }
    if (s->base == TM_VECTOR || s->base == TM_ROW_VECTOR || s->base == TM_CVECTOR ||
        s->base == TM_CROW_VECTOR) sizes(P, s, 0, 0, tname);
    else if (s->base == TM_MATRIX || s->base == TM_CMATRIX) sizes(P, s, 1, 0, tname);
    return;
  }
  if (where == LP_DECL_LOCAL)
    lp_error_at(P, t->line, t->col, "local variables cannot have the constrained type '%s'; declare it %s",
                tname, cv ? "as a vector" : "as a matrix");
  s->transform = cv ? constrained_vec[cv - 1] : constrained_mat[cm - 1];
  s->base = cv ? TM_VECTOR : TM_MATRIX;
  /* the N x M constrained matrices take both sizes; cholesky_factor_cov
     its columns optionally; the square ones one size */
  int nm = cm >= 5;
  sizes(P, s, lp_tok_is(P, t, "cholesky_factor_cov") || nm, !nm, tname);
}

/* '[' e, ... ']' into dims (at most TM_MAXARR) */
static int dims_list(lp *P, ln_expr **dims) {
  int n = 0;
  lp_next(P);   /* '[' */
  if (lp_is(P, LX_RBRACK) || lp_is(P, LX_COMMA))
    lp_error_found(P, "expected an array size, found %s (only function arguments have unsized arrays)");
  for (;;) {
    if (n == TM_MAXARR)
      lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col, "arrays have at most %d dimensions", TM_MAXARR);
    dims[n++] = lp_expr(P);
    if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
    lp_expect(P, LX_RBRACK, "expected ',' or ']' after an array size, found %s");
    return n;
  }
}

static int dims_list(lp *P, ln_expr **dims);
static ln_tuple *tuple_type(lp *P, int where);

/* After a tuple type's ')': its elements (v, two at least, at the
** 'tuple' token at) as the pool's ln_tuple, and the nesting lp_enter opened
** at its '(' closed. */
static ln_tuple *tuple_close(lp *P, const lp_vec *v, const lx_token *at) {
  P->depth--;
  if (v->n < 2) lp_error_at(P, at->line, at->col, "a tuple type has at least two elements");
  ln_tuple *tu = lp_alloc(P, sizeof *tu);
  tu->n = v->n;
  tu->elem = lp_alloc(P, (size_t)v->n * sizeof *tu->elem);
  for (int i = 0; i < v->n; i++) tu->elem[i] = v->v[i];
  return tu;
}

/* One element of a sized tuple type: [array[...]] type, as a declaration
** without a name. */
static ln_decl *tuple_elem(lp *P, int where) {
  const lx_token *t = lp_cur(P);
  ln_decl *d = lp_alloc(P, sizeof *d);
  d->line = t->line;
  d->col = t->col;
  if (lp_is_word(P, "array")) {
    lp_next(P);
    if (!lp_is(P, LX_LBRACK)) lp_error_found(P, "expected '[' after 'array', found %s");
    d->type.narr = (unsigned char)dims_list(P, d->dims);
  }
  if (lp_is_word(P, "tuple")) {
    d->type.base = LN_TUPLE;
    d->tuple = tuple_type(P, where);
    return d;
  }
  spec s;
  memset(&s, 0, sizeof s);
  sized_type(P, where, &s);
  d->type.base = (unsigned char)s.base;
  d->transform = s.transform;
  d->lower = s.lower; d->upper = s.upper; d->offset = s.offset; d->multiplier = s.multiplier;
  d->size1 = s.size1; d->size2 = s.size2;
  return d;
}

/* tuple(T1, T2, ...) with sized element types */
static ln_tuple *tuple_type(lp *P, int where) {
  const lx_token *t = lp_cur(P);
  lp_next(P);   /* 'tuple' */
  P->p->has_tuples = 1;
  lp_expect(P, LX_LPAREN, "expected '(' after 'tuple', found %s");
  lp_enter(P);
  lp_vec v = {0};
  for (;;) {
    lp_push(P, &v, tuple_elem(P, where));
    if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
    lp_expect(P, LX_RPAREN, "expected ',' or ')' in the tuple type, found %s");
    break;
  }
  return tuple_close(P, &v, t);
}

void lp_decl(lp *P, int where, int blk, lp_vec *out) {
  const lx_token *start = lp_cur(P);
  ln_expr *dims[TM_MAXARR];
  int narr = 0;
  if (lp_is_word(P, "array")) {
    lp_next(P);
    if (!lp_is(P, LX_LBRACK)) lp_error_found(P, "expected '[' after 'array', found %s");
    narr = dims_list(P, dims);
  }
  const lx_token *tstart = lp_cur(P);
  spec s;
  memset(&s, 0, sizeof s);
  if (lp_is_word(P, "tuple")) {
    s.base = LN_TUPLE;
    s.tuple = tuple_type(P, where);
  } else {
    sized_type(P, where, &s);
  }
  for (int first = 1;; first = 0) {
    const lx_token *nt = lp_cur(P);
    lp_check_name(P, nt, "a variable name");
    ln_decl *d = lp_alloc(P, sizeof *d);
    d->name = lp_text(P, nt);
    d->line = nt->line;
    d->col = nt->col;
    d->type.base = (unsigned char)s.base;
    d->transform = s.transform;
    d->lower = s.lower; d->upper = s.upper; d->offset = s.offset; d->multiplier = s.multiplier;
    d->size1 = s.size1; d->size2 = s.size2;
    d->tuple = s.tuple;
    d->type.narr = (unsigned char)narr;
    for (int i = 0; i < narr; i++) d->dims[i] = dims[i];
    lp_next(P);
    if (lp_is(P, LX_LBRACK)) {
      const lx_token *ob = lp_cur(P);
      if (narr)
        lp_error_at(P, ob->line, ob->col, "'%s' already has array sizes from 'array[...]'; remove the brackets after its name",
                    d->name);
      if (!first)
        lp_error_at(P, ob->line, ob->col, "the old array syntax declares one variable per statement; write 'array[...]' before the type");
      d->type.narr = (unsigned char)dims_list(P, d->dims);
      d->old_syntax = 1;
      char ty[80], dm[80];
      span_text(P, tstart, nt, ty, sizeof ty);
      span_text(P, ob + 1, lp_cur(P) - 1, dm, sizeof dm);
      if (ty[0] && dm[0])
        ln_warn(P->p, nt->line, nt->col, "declaring arrays as '%s %s[%s]' is deprecated; write 'array[%s] %s %s'",
                ty, d->name, dm, dm, ty, d->name);
      else
        ln_warn(P->p, nt->line, nt->col, "array sizes after a variable's name are deprecated; write 'array[...]' before the type");
    }
    if (lp_is(P, LX_ASSIGN)) {
      if (where == LP_DECL_INPUT)
        lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col,
                    "variables declared in the '%s' block cannot be given a value", ln_block_name(blk));
      lp_next(P);
      d->init = lp_expr(P);
    }
    ln_stmt *st = lp_new_stmt(P, LS_DECL, first ? start : nt);
    st->decl = d;
    lp_push(P, out, st);
    if (lp_is(P, LX_COMMA)) {
      if (d->old_syntax)
        lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col,
                    "the old array syntax declares one variable per statement; write 'array[...]' before the type");
      lp_next(P);
      continue;
    }
    lp_semi(P, "the declaration");
    return;
  }
}

/* ---- function argument and result types ---- */
static int unsized_dims(lp *P, int sized_msg) {
  int n = 1;
  lp_next(P);   /* '[' */
  while (lp_is(P, LX_COMMA)) { n++; lp_next(P); }
  if (!lp_is(P, LX_RBRACK)) {
    if (sized_msg) lp_error_found(P, "function argument and return types have no sizes: expected ']', found %s");
    lp_error_found(P, "expected ',' or ']' in an unsized array type such as 'array[,] real', found %s");
  }
  lp_next(P);
  if (n > TM_MAXARR)
    lp_error_at(P, lp_cur(P)->line, lp_cur(P)->col, "arrays have at most %d dimensions", TM_MAXARR);
  return n;
}

ln_type lp_unsized_type(lp *P, const char *what) {
  ln_type t = {0, 0, 0};
  const lx_token *start = lp_cur(P);
  char m[200];
  if (lp_is_word(P, "data")) {
    t.data_only = 1;
    lp_next(P);
    what = "a type after 'data'";
  }
  if (lp_is_word(P, "array")) {
    lp_next(P);
    if (!lp_is(P, LX_LBRACK)) lp_error_found(P, "expected '[' after 'array', found %s");
    t.narr = (unsigned char)unsized_dims(P, 1);
  }
  const lx_token *bt = lp_cur(P);
  if (lp_tok_is(P, bt, "tuple")) {
    lp_next(P);
    P->p->has_tuples = 1;
    lp_expect(P, LX_LPAREN, "expected '(' after 'tuple', found %s");
    lp_enter(P);
    lp_vec v = {0};
    for (;;) {
      const lx_token *et = lp_cur(P);
      if (lp_is_word(P, "data"))
        lp_error_at(P, et->line, et->col, "'data' qualifies a whole function argument, not an element of a tuple");
      ln_decl *d = lp_alloc(P, sizeof *d);
      d->line = et->line;
      d->col = et->col;
      d->type = lp_unsized_type(P, "a type in the tuple type");
      if (d->type.base == LN_TUPLE) d->tuple = P->last_tuple;
      lp_push(P, &v, d);
      if (lp_is(P, LX_COMMA)) { lp_next(P); continue; }
      lp_expect(P, LX_RPAREN, "expected ',' or ')' in the tuple type, found %s");
      break;
    }
    ln_tuple *tu = tuple_close(P, &v, bt);
    t.base = LN_TUPLE;
    P->last_tuple = tu;
    return t;
  }
  int b = word_in(P, bt, basic);
  if (!b) {
    if (word_in(P, bt, unsupported)) unsupported_type(P, bt);
    if (word_in(P, bt, constrained_vec) || word_in(P, bt, constrained_mat))
      lp_error_at(P, bt->line, bt->col, "function argument and return types cannot be constrained types: use vector or matrix");
    snprintf(m, sizeof m, "expected %s, found %%s", what);
    lp_error_found(P, m);
  }
  t.base = (unsigned char)(b - 1);
  lp_next(P);
  if (lp_is(P, LX_LBRACK)) {
    const lx_token *ob = lp_cur(P);
    const lx_token *n1 = lp_peek(P, 1);
    if (t.narr || (n1->kind != LX_COMMA && n1->kind != LX_RBRACK))
      lp_error_at(P, ob->line, ob->col, "function argument and return types have no sizes: remove the '[...]'");
    t.narr = (unsigned char)unsized_dims(P, 1);
    char ty[80], dm[16];
    span_text(P, bt, bt + 1, ty, sizeof ty);
    memset(dm, 0, sizeof dm);
    for (int i = 0; i + 1 < t.narr; i++) dm[i] = ',';
    ln_warn(P->p, start->line, start->col, "the type '%s[%s]' is deprecated; write 'array[%s] %s'", ty, dm, dm, ty);
  }
  return t;
}
