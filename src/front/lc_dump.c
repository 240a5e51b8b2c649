/*
** lc_dump.c -- what the checker decided, as text: one line per expression,
** declaration, resolved statement and function, tab-separated, for tests
** (R reads it into data frames) and debugging.
**
**   E line col kind name type dep resolution      resolution: fn:add,
**                                                  ufn:f, bi:cmp, var:global:3,
**                                                  funcref:f, plus ",propto"
**   D line col name type block scope slot dep
**   S line col kind fn ufn cdf ccdf discrete
**   F name nparams nslots defined-at-line
**   P nglobals nlocals(data tdata params tparams model gq)
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lc.h"

static const char *ekind(int k) {
  static const char *const t[] = {"?", "int", "real", "string", "var", "funcref", "call", "binop",
                                  "unop", "cond", "index", "array", "rowvec", "target"};
  return k >= 0 && k < (int)(sizeof t / sizeof *t) ? t[k] : "?";
}

static const char *bname(int b) {
  static const char *const t[] = {"none", "cmp", "logic", "idiv", "reduce_sum", "reduce_sum_static",
                                  "map_rect", "parallel_map", "int_div_int", "ode", "ode_old", "solve", "solve_old", "integrate_1d", "integrate_1d_v"};
  return b >= 0 && b < (int)(sizeof t / sizeof *t) ? t[b] : "?";
}

static void expr(ln_text *o, const ln_expr *e, int depth);

static void exprs(ln_text *o, ln_expr *const *a, int n, int depth) {
  for (int i = 0; i < n && a; i++) expr(o, a[i], depth);
}

static void expr(ln_text *o, const ln_expr *e, int depth) {
  if (!e || depth > LC_MAXDEPTH) return;
  char tb[64], res[200];
  res[0] = 0;
  if (e->kind == LE_VAR)
    lc_cat(res, sizeof res, "var:%s:%d", e->scope == LN_SCOPE_GLOBAL ? "global" : "local", e->slot);
  else if (e->kind == LE_FUNCREF)
    lc_cat(res, sizeof res, "funcref:%s", e->ufn && e->ufn->name ? e->ufn->name : "?");
  if (e->fn) lc_cat(res, sizeof res, "%sfn:%s", res[0] ? "," : "", e->fn->name);
  if (e->ufn && e->kind != LE_FUNCREF) lc_cat(res, sizeof res, "%sufn:%s", res[0] ? "," : "", e->ufn->name);
  if (e->builtin) lc_cat(res, sizeof res, "%sbi:%s", res[0] ? "," : "", bname(e->builtin));
  if (e->propto) lc_cat(res, sizeof res, "%spropto", res[0] ? "," : "");
  const char *name = e->kind == LE_BINOP || e->kind == LE_UNOP ? ln_op_text(e->op) : e->name;
  ln_text_printf(o, "E\t%d\t%d\t%s\t%s\t%s\t%d\t%s\n", e->line, e->col, ekind(e->kind), name ? name : "",
     lc_type_name(e->type, tb, sizeof tb), e->dep, res);
  exprs(o, e->args, e->nargs, depth + 1);
  for (int i = 0; i < e->nidx && e->idx; i++) {
    expr(o, e->idx[i].a, depth + 1);
    expr(o, e->idx[i].b, depth + 1);
  }
}

static void decl(ln_text *o, const ln_decl *d, int depth) {
  if (!d) return;
  char tb[64];
  ln_text_printf(o, "D\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%d\n", d->line, d->col, d->name ? d->name : "",
     lc_type_name(lc_mk(d->type.base, d->type.narr), tb, sizeof tb), ln_block_name(d->block),
     d->scope == LN_SCOPE_GLOBAL ? "global" : d->scope == LN_SCOPE_LOCAL ? "local" : "?", d->slot, d->dep);
  for (int i = 0; i < d->type.narr && i < TM_MAXARR; i++) expr(o, d->dims[i], depth + 1);
  expr(o, d->size1, depth + 1);
  expr(o, d->size2, depth + 1);
  expr(o, d->lower, depth + 1);
  expr(o, d->upper, depth + 1);
  expr(o, d->offset, depth + 1);
  expr(o, d->multiplier, depth + 1);
  expr(o, d->init, depth + 1);
}

static const char *skind(int k) {
  static const char *const t[] = {"?", "decl", "assign", "tilde", "target", "jacobian", "for", "foreach",
                                  "while", "if", "break", "continue", "return", "block", "print",
                                  "reject", "fatal_error", "profile", "call", "empty"};
  return k >= 0 && k < (int)(sizeof t / sizeof *t) ? t[k] : "?";
}

static void stmt(ln_text *o, const ln_stmt *s, int depth) {
  if (!s || depth > LC_MAXDEPTH) return;
  if (s->fn || s->ufn || s->cdf || s->ccdf)
    ln_text_printf(o, "S\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\n", s->line, s->col, skind(s->kind),
       s->fn ? s->fn->name : "", s->ufn && s->ufn->name ? s->ufn->name : "",
       s->cdf ? s->cdf->name : "", s->ccdf ? s->ccdf->name : "", s->discrete);
  if (s->kind == LS_DECL) decl(o, s->decl, depth + 1);
  else if (s->decl) decl(o, s->decl, depth + 1);   /* loop variables */
  expr(o, s->lhs, depth + 1);
  expr(o, s->e, depth + 1);
  expr(o, s->lo, depth + 1);
  expr(o, s->hi, depth + 1);
  exprs(o, s->args, s->nargs, depth + 1);
  for (int i = 0; i < s->nbody && s->body; i++) stmt(o, s->body[i], depth + 1);
  stmt(o, s->els, depth + 1);
}

char *lc_dump(const ln_program *p) {
  ln_text o = { .piece = 512 };
  ln_text_printf(&o, "P\t%d", p->nglobals);
  for (int b = LN_BLK_DATA; b < LN_NBLOCKS; b++) ln_text_printf(&o, "\t%d", p->nlocals[b]);
  ln_text_printf(&o, "\n");
  for (int i = 0; i < p->nfuncs && p->funcs; i++) {
    const ln_func *f = p->funcs[i];
    if (!f) continue;
    ln_text_printf(&o, "F\t%s\t%d\t%d\t%d\n", f->name ? f->name : "", f->nparams, f->nslots, f->def ? f->def->line : 0);
    for (int k = 0; k < f->nparams && f->params; k++) decl(&o, f->params[k], 0);
    stmt(&o, f->body, 0);
  }
  for (int b = LN_BLK_DATA; b < LN_NBLOCKS; b++) stmt(&o, p->block[b], 0);
  if (o.oom) { free(o.s); return NULL; }
  return o.s;
}
