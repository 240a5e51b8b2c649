/*
** lc_check.c -- the checker's entry: ln_check walks the program in Stan's
** order (functions, data, transformed data, parameters, transformed
** parameters, model, generated quantities) and applies the rules that
** concern the program as a whole: function signatures, forward
** declarations and their definitions, what each block may contain.
**
** Every global declaration gets its slot in p->globals in program order;
** every other variable a slot in its block's (or function's) local frame.
** Slots are never reused within a frame, so a frame's size is simply the
** number of local declarations and loop variables it contains.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lc.h"

int lc_error(lc_ctx *c, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ln_verror(c->p, line, col, c->err, c->errsize, fmt, ap);
  va_end(ap);
  return AD_EINVALID;
}

int lc_ends_with(const char *s, const char *suffix) {
  if (!s || !suffix) return 0;
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && !memcmp(s + n - k, suffix, k);
}

/* ---- functions ---- */

static int fn_kind(const char *name) {
  if (lc_ends_with(name, "_rng")) return LC_FK_RNG;
  if (lc_ends_with(name, "_lp")) return LC_FK_LP;
  if (lc_ends_with(name, "_lpdf") || lc_ends_with(name, "_lpmf")) return LC_FK_LPDF;
  if (lc_ends_with(name, "_jacobian")) return LC_FK_JACOBIAN;
  return LC_FK_PLAIN;
}

static int same_params(const ln_func *a, const ln_func *b) {
  if (a->nparams != b->nparams) return 0;
  for (int k = 0; k < a->nparams; k++)
    if (a->params[k]->type.base != b->params[k]->type.base || a->params[k]->type.narr != b->params[k]->type.narr)
      return 0;
  return 1;
}

static void params_text(const ln_func *f, char *buf, size_t size) {
  char tb[64];
  buf[0] = 0;
  lc_cat(buf, size, "(");
  for (int k = 0; k < f->nparams; k++)
    lc_cat(buf, size, "%s%s", k ? ", " : "", lc_type_name(f->params[k]->type, tb, sizeof tb));
  lc_cat(buf, size, ")");
}

/* The shape of one function: its name, return type and parameters. */
static int signature_rules(lc_ctx *c, ln_func *f) {
  char tb[64];
  const char *n = f->name;
  if (lc_hof_kind(n))
    return lc_error(c, f->line, f->col, "'%s' is a builtin function and cannot be redefined", n);
  if (lc_ends_with(n, "_lupdf") || lc_ends_with(n, "_lupmf"))
    return lc_error(c, f->line, f->col,
                    "%s is not a valid name: user-defined densities are defined with _lpdf/_lpmf "
                    "and called with _lupdf/_lupmf", n);
  if (f->ret.base != LN_VOID && !lc_is_numeric(f->ret))
    return lc_error(c, f->line, f->col, "function '%s' has an unknown return type", n);
  if (f->nparams < 0 || (f->nparams > 0 && !f->params))
    return lc_error(c, f->line, f->col, "function '%s' without its parameters", n);
  for (int k = 0; k < f->nparams; k++) {
    ln_decl *d = f->params[k];
    if (!d || !d->name) return lc_error(c, f->line, f->col, "a parameter of '%s' without a name", n);
    if (!lc_is_numeric(d->type) || d->type.narr > TM_MAXARR)
      return lc_error(c, d->line, d->col, "parameter '%s' of '%s' has an unknown type", d->name, n);
    for (int j = 0; j < k; j++)
      if (f->params[j]->name && !strcmp(f->params[j]->name, d->name))
        return lc_error(c, d->line, d->col, "all function arguments must have distinct names: '%s' appears twice", d->name);
  }
  if (lc_ends_with(n, "_lpdf") || lc_ends_with(n, "_lpmf") || lc_ends_with(n, "_lcdf") ||
      lc_ends_with(n, "_lccdf") || lc_ends_with(n, "_cdf")) {
    if (f->ret.base != TM_REAL || f->ret.narr)
      return lc_error(c, f->line, f->col,
                      "probability functions (names ending in _lpdf, _lpmf, _cdf, _lcdf or _lccdf) "
                      "must return real; '%s' returns %s", n, lc_type_name(f->ret, tb, sizeof tb));
    if (f->nparams < 1)
      return lc_error(c, f->line, f->col, "probability function '%s' needs its variate as first argument", n);
  }
  if (lc_ends_with(n, "_lpdf") && f->params[0]->type.base == TM_INT)
    return lc_error(c, f->params[0]->line, f->params[0]->col,
                    "probability density functions require real variates (first argument); found %s",
                    lc_type_name(f->params[0]->type, tb, sizeof tb));
  if (lc_ends_with(n, "_lpmf") && f->params[0]->type.base != TM_INT)
    return lc_error(c, f->params[0]->line, f->params[0]->col,
                    "probability mass functions require integer variates (first argument); found %s",
                    lc_type_name(f->params[0]->type, tb, sizeof tb));
  return AD_OK;
}

/* A function of the same signature in the library or earlier in the
** program; links a forward declaration to its definition. */
static int overload_rules(lc_ctx *c, ln_func *f, int i) {
  char tb[512];
  const char *n = f->name;
  for (int j = 0; j < i; j++) {
    ln_func *g = c->p->funcs[j];
    if (!g || !g->name || strcmp(g->name, n) || !same_params(f, g)) continue;
    params_text(f, tb, sizeof tb);
    if (g->ret.base != f->ret.base || g->ret.narr != f->ret.narr)
      return lc_error(c, f->line, f->col, "function '%s%s' cannot be overloaded by its return type only", n, tb);
    if (!g->body && f->body && !g->def) { g->def = f; return AD_OK; }
    if (!g->body && !f->body)
      return lc_error(c, f->line, f->col, "function '%s%s' has already been declared; a definition is expected", n, tb);
    return lc_error(c, f->line, f->col, "function '%s%s' is already defined", n, tb);
  }
  int cnt;
  const lc_sig *s = lc_lib_sigs(n, &cnt);
  if (s && f->nparams <= LC_MAXSIGARGS) {
    ln_type t[LC_MAXSIGARGS], r;
    for (int k = 0; k < f->nparams; k++) t[k] = lc_mk(f->params[k]->type.base, f->params[k]->type.narr);
    for (int k = 0; k < cnt; k++)
      if (lc_sig_match(&s[k], t, f->nparams, &r) == 0) {
        params_text(f, tb, sizeof tb);
        return lc_error(c, f->line, f->col,
                        "function '%s%s' is already defined in the library with these argument types; "
                        "an overload must differ in its argument types", n, tb);
      }
  }
  return AD_OK;
}

static int function_body(lc_ctx *c, ln_func *f) {
  int rc = AD_OK, mark = lc_scope_mark(c);
  c->fn = f;
  c->fkind = fn_kind(f->name);
  c->blk = LN_BLK_FUNCTIONS;
  c->nslots = 0;
  c->loop_depth = 0;
  for (int k = 0; k < f->nparams && !rc; k++) {
    ln_decl *d = f->params[k];
    d->block = LN_BLK_FUNCTIONS;
    d->scope = LN_SCOPE_LOCAL;
    d->slot = c->nslots++;
    d->dep = lc_real_based(d->type) && !d->type.data_only;
    rc = lc_declare(c, d, LC_RO_ARG);
  }
  if (!rc) rc = lc_stmt(c, f->body);
  if (!rc && f->ret.base != LN_VOID && lc_returns(f->body, 0) != LC_RT_COMPLETE)
    rc = lc_error(c, f->line, f->col,
                  "function '%s' may end without returning a value: every path through a non-void "
                  "function must end in return, reject or fatal_error", f->name);
  f->nslots = c->nslots;
  lc_scope_pop(c, mark);
  c->fn = NULL;
  c->fkind = LC_FK_PLAIN;
  return rc;
}

static int functions(lc_ctx *c) {
  ln_program *p = c->p;
  int rc;
  if (p->nfuncs > 0 && !p->funcs) return lc_error(c, 1, 1, "the function list is missing");
  for (int i = 0; i < p->nfuncs; i++) {
    ln_func *f = p->funcs[i];
    if (!f || !f->name) return lc_error(c, 1, 1, "a function without a name");
    f->def = f->body ? f : NULL;
    size_t len = strlen(f->name);
    f->density = len > 5 && (!strcmp(f->name + len - 5, "_lpdf") || !strcmp(f->name + len - 5, "_lpmf"));
    c->line = f->line;
    c->col = f->col;
    if ((rc = signature_rules(c, f)) || (rc = overload_rules(c, f, i))) return rc;
  }
  for (int i = 0; i < p->nfuncs; i++) {
    ln_func *f = p->funcs[i];
    if (!f->def)
      return lc_error(c, f->line, f->col, "function '%s' is declared but never defined", f->name);
  }
  /* all signatures are known before any body: functions may call each other */
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i]->body && (rc = function_body(c, p->funcs[i]))) return rc;
  /* a forward declaration describes the same frame as its definition */
  for (int i = 0; i < p->nfuncs; i++) {
    ln_func *f = p->funcs[i];
    if (f->body) continue;
    f->nslots = f->def->nslots;
    for (int k = 0; k < f->nparams; k++) {
      ln_decl *d = f->params[k], *dd = f->def->params[k];
      d->block = dd->block;
      d->scope = dd->scope;
      d->slot = dd->slot;
      d->dep = dd->dep;
    }
  }
  return AD_OK;
}

/* ---- blocks ---- */

static int has_globals(int blk) {
  return blk == LN_BLK_DATA || blk == LN_BLK_TDATA || blk == LN_BLK_PARAMS ||
         blk == LN_BLK_TPARAMS || blk == LN_BLK_GQ;
}

static int block(lc_ctx *c, int blk) {
  ln_stmt *b = c->p->block[blk];
  int rc = AD_OK;
  c->blk = blk;
  c->nslots = 0;
  c->loop_depth = 0;
  if (!b) { c->p->nlocals[blk] = 0; return AD_OK; }
  if (b->nbody > 0 && !b->body) return lc_error(c, b->line, b->col, "the %s block without its statements", ln_block_name(blk));
  for (int i = 0; i < b->nbody && !rc; i++) {
    ln_stmt *s = b->body[i];
    if (!s) { rc = lc_error(c, b->line, b->col, "a missing statement"); break; }
    c->line = s->line;
    c->col = s->col;
    if ((blk == LN_BLK_DATA || blk == LN_BLK_PARAMS) && s->kind != LS_DECL)
      rc = lc_error(c, s->line, s->col, "the %s block can only contain declarations", ln_block_name(blk));
    else if (s->kind == LS_DECL && has_globals(blk))
      rc = lc_decl(c, s, 1);
    else
      rc = lc_stmt(c, s);
  }
  c->p->nlocals[blk] = c->nslots;
  return rc;
}

static int count_globals(const ln_program *p) {
  int n = 0;
  for (int blk = 0; blk < LN_NBLOCKS; blk++) {
    const ln_stmt *b = p->block[blk];
    if (!b || !has_globals(blk) || !b->body) continue;
    for (int i = 0; i < b->nbody; i++) n += b->body[i] && b->body[i]->kind == LS_DECL;
  }
  return n;
}

int ln_check(ln_program *p, char *err, size_t errsize) {
  lc_ctx c = { .p = p, .err = err, .errsize = errsize, .line = 1, .col = 1 };
  if (err && errsize) err[0] = 0;
  if (!p) {
    if (err && errsize) snprintf(err, errsize, "error: no program to check");
    return AD_EINVALID;
  }
  if (!lc_lib_ready())
    return lc_error(&c, 1, 1, "out of memory reading the library's signatures");
  if (p->has_tuples && lt_lower(p, err, errsize)) return AD_EINVALID;
  int ng = count_globals(p);
  p->nglobals = 0;
  p->globals = ng ? ln_alloc(p, (size_t)ng * sizeof *p->globals) : NULL;
  if (ng && !p->globals) return lc_error(&c, 1, 1, "out of memory checking the program");
  for (int blk = 0; blk < LN_NBLOCKS; blk++) p->nlocals[blk] = 0;
  int rc = lc_scope_init(&c);
  if (!rc) rc = functions(&c);
  static const int order[] = {LN_BLK_DATA, LN_BLK_TDATA, LN_BLK_PARAMS, LN_BLK_TPARAMS, LN_BLK_MODEL, LN_BLK_GQ};
  for (size_t k = 0; k < sizeof order / sizeof *order && !rc; k++) {
    /* the model block's variables are its own: generated quantities do not see them */
    int mark = lc_scope_mark(&c);
    rc = block(&c, order[k]);
    if (order[k] == LN_BLK_MODEL) lc_scope_pop(&c, mark);
  }
  lc_scope_free(&c);
  return rc;
}
