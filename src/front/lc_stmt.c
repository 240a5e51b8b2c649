/*
** lc_stmt.c -- statements: declarations (slots, dep, constraint and size
** rules), assignments, ~ and target +=, loops with their loop variables,
** return; function bodies and the analysis of whether every path returns.
*/
#include <string.h>
#include "lc.h"

/* ---- declarations ---- */

static int is_matrix_keyword(const char *tr) {
  return tr && (!strcmp(tr, "cov_matrix") || !strcmp(tr, "corr_matrix") ||
                !strcmp(tr, "cholesky_factor_corr") || !strcmp(tr, "cholesky_factor_cov"));
}

static int has_constraint(const ln_decl *d) {
  return d->transform || d->lower || d->upper || d->offset || d->multiplier;
}

static int check_bound(lc_ctx *c, ln_decl *d, ln_expr *b, const char *what) {
  int rc;
  if (!b) return AD_OK;
  if ((rc = lc_expr(c, b))) return rc;
  ln_type t = b->type, dt = lc_mk(d->type.base, d->type.narr);
  char t1[64], t2[64];
  if (d->type.base == TM_INT) {
    if (t.base == TM_INT && (t.narr == 0 || t.narr == dt.narr)) return AD_OK;
    return lc_error(c, b->line, b->col, "the %s of int variable '%s' must be an int; found %s",
                    what, d->name, lc_type_name(t, t1, sizeof t1));
  }
  if (lc_is_scalar(t) || lc_assign_cost(dt, t) >= 0) return AD_OK;
  if (lc_is_scalar(dt))
    return lc_error(c, b->line, b->col, "the %s of '%s' must be an int or a real; found %s",
                    what, d->name, lc_type_name(t, t2, sizeof t2));
  return lc_error(c, b->line, b->col, "the %s of '%s' must be an int, a real or %s %s; found %s",
                  what, d->name, dt.narr ? "an" : "a", lc_type_name(dt, t1, sizeof t1),
                  lc_type_name(t, t2, sizeof t2));
}

static int sizes(lc_ctx *c, ln_decl *d) {
  int rc;
  for (int i = 0; i < d->type.narr; i++) {
    if (!d->dims[i]) return lc_error(c, d->line, d->col, "array '%s' declared without a size", d->name);
    if ((rc = lc_int_expr(c, d->dims[i], "an array size"))) return rc;
  }
  int b = d->type.base;
  if (b == TM_CVECTOR || b == TM_CROW_VECTOR) b = TM_VECTOR;   /* sized as the real ones */
  if (b == TM_CMATRIX) b = TM_MATRIX;
  if (b == TM_VECTOR || b == TM_ROW_VECTOR || b == TM_MATRIX) {
    if (!d->size1) return lc_error(c, d->line, d->col, "'%s' declared without its size", d->name);
    if ((rc = lc_int_expr(c, d->size1, b == TM_MATRIX ? "the number of rows" : "a vector size"))) return rc;
  }
  if (b == TM_MATRIX && !d->size2 && !is_matrix_keyword(d->transform))
    return lc_error(c, d->line, d->col, "matrix '%s' declared without its number of columns", d->name);
  if (d->size2 && (rc = lc_int_expr(c, d->size2, "the number of columns"))) return rc;
  return AD_OK;
}

int lc_decl(lc_ctx *c, ln_stmt *s, int global) {
  int rc;
  ln_decl *d = s->decl;
  ln_program *p = c->p;
  if (!d || !d->name) return lc_error(c, s->line, s->col, "a declaration without a variable");
  if (!lc_is_numeric(d->type) || d->type.narr > TM_MAXARR)
    return lc_error(c, d->line, d->col, "'%s' is declared with an unknown type", d->name);
  c->toplevel_size = global;
  rc = sizes(c, d);
  c->toplevel_size = 0;
  if (rc) return rc;
  if (global && (c->blk == LN_BLK_PARAMS || c->blk == LN_BLK_TPARAMS) && d->type.base == TM_INT)
    return lc_error(c, d->line, d->col, "%s cannot be integers: '%s' is declared int",
                    c->blk == LN_BLK_PARAMS ? "parameters" : "transformed parameters", d->name);
  if (global && c->blk == LN_BLK_PARAMS && lc_is_complex(d->type))
    return lc_error(c, d->line, d->col, "parameters cannot be complex: '%s' is declared %s; declare its "
                    "real and imaginary parts as real parameters and build it with to_complex()",
                    d->name, ln_base_name(d->type.base));
  if (lc_is_complex(d->type) && lc_on_tape(c)) p->uses_complex = 1;
  if (!global && has_constraint(d))
    return lc_error(c, d->line, d->col,
                    "local variable '%s' cannot have a constraint: only top-level declarations of "
                    "data, transformed data, parameters, transformed parameters and generated "
                    "quantities can be constrained", d->name);
  if ((rc = check_bound(c, d, d->lower, "lower bound")) || (rc = check_bound(c, d, d->upper, "upper bound")) ||
      (rc = check_bound(c, d, d->offset, "offset")) || (rc = check_bound(c, d, d->multiplier, "multiplier")))
    return rc;
  if (global && d->init && (c->blk == LN_BLK_DATA || c->blk == LN_BLK_PARAMS))
    return lc_error(c, d->line, d->col, "variables of the %s block cannot have an initial value",
                    ln_block_name(c->blk));
  if (global) {
    d->scope = LN_SCOPE_GLOBAL;
    d->slot = p->nglobals;
    p->globals[p->nglobals++] = d;
  } else {
    d->scope = LN_SCOPE_LOCAL;
    d->slot = c->nslots++;
  }
  d->block = c->fn ? LN_BLK_FUNCTIONS : c->blk;
  d->dep = lc_real_based(d->type) &&
           (c->fn || c->blk == LN_BLK_PARAMS || c->blk == LN_BLK_TPARAMS || c->blk == LN_BLK_MODEL);
  if ((rc = lc_declare(c, d, LC_RO_NONE))) return rc;
  if (d->init) {
    if ((rc = lc_expr(c, d->init))) return rc;
    if (lc_assign_cost(lc_mk(d->type.base, d->type.narr), d->init->type) < 0) {
      char t1[64], t2[64];
      return lc_error(c, d->init->line, d->init->col,
                      "'%s' is declared %s but its initial value has type %s", d->name,
                      lc_type_name(d->type, t1, sizeof t1), lc_type_name(d->init->type, t2, sizeof t2));
    }
  }
  return AD_OK;
}

/* ---- assignment ---- */

static int not_assignable(lc_ctx *c, ln_expr *at, const lc_sym *s) {
  const ln_decl *d = s->decl;
  const char *n = d->name;
  if (s->ro == LC_RO_LOOP) return lc_error(c, at->line, at->col, "cannot assign to loop variable '%s'", n);
  if (s->ro == LC_RO_ARG) return lc_error(c, at->line, at->col, "cannot assign to function argument '%s'", n);
  if (d->scope != LN_SCOPE_GLOBAL || (d->block == c->blk && !c->fn)) return AD_OK;
  switch (d->block) {
  case LN_BLK_DATA: return lc_error(c, at->line, at->col, "cannot assign to data variable '%s'", n);
  case LN_BLK_PARAMS: return lc_error(c, at->line, at->col, "cannot assign to parameter '%s'", n);
  default:
    return lc_error(c, at->line, at->col, "cannot assign to %s variable '%s' outside the %s block",
                    ln_block_name(d->block), n, ln_block_name(d->block));
  }
}

static int assign(lc_ctx *c, ln_stmt *s) {
  int rc;
  ln_expr *lhs = s->lhs, *root = lhs;
  if (!lhs || !s->e) return lc_error(c, s->line, s->col, "an assignment without its two sides");
  while (root && root->kind == LE_INDEX) root = root->nargs >= 1 && root->args ? root->args[0] : NULL;
  if (!root || root->kind != LE_VAR || !root->name)
    return lc_error(c, lhs->line, lhs->col, "the left side of an assignment must be a variable, indexed or not");
  const lc_sym *sym = lc_lookup(c, root->name);
  if (sym && (rc = not_assignable(c, root, sym))) return rc;
  if ((rc = lc_expr(c, lhs))) return rc;
  /* a[i][j] = ... is fine, a[2:3][1] = ... is not: Stan forbids multi-indexes below the last */
  for (ln_expr *x = lhs->kind == LE_INDEX ? lhs->args[0] : NULL; x && x->kind == LE_INDEX; x = x->args[0])
    for (int i = 0; i < x->nidx; i++)
      if (x->idx[i].kind != LI_SINGLE)
        return lc_error(c, lhs->line, lhs->col, "the left side of an assignment cannot have nested multi-indexing");
  if ((rc = lc_expr(c, s->e))) return rc;
  if (s->op == LN_OP_NONE) {
    if (lc_assign_cost(lhs->type, s->e->type) < 0) {
      char t1[64], t2[64];
      return lc_error(c, s->e->line, s->e->col, "cannot assign a value of type %s to '%s' of type %s",
                      lc_type_name(s->e->type, t2, sizeof t2), root->name, lc_type_name(lhs->type, t1, sizeof t1));
    }
    return AD_OK;
  }
  ln_type ret;
  return lc_compound_fn(c, s->line, s->col, s->op, lhs->type, s->e, &s->fn, &ret);
}

/* ---- ~ ---- */

/* The variate and the arguments as one list, in the pool. */
static ln_expr **tilde_args(lc_ctx *c, ln_stmt *s) {
  ln_expr **a = ln_alloc(c->p, (size_t)(s->nargs + 1) * sizeof *a);
  if (!a) return NULL;
  a[0] = s->e;
  for (int i = 0; i < s->nargs; i++) a[i + 1] = s->args[i];
  return a;
}

static int truncation(lc_ctx *c, ln_stmt *s, ln_expr **a, int n, const char *lpdf) {
  int k;
  const char *cdf = lc_resuffixed(c, s->name, 0, "_lcdf"), *ccdf = lc_resuffixed(c, s->name, 0, "_lccdf");
  if (!cdf || !ccdf) return lc_error(c, s->line, s->col, "out of memory");
  if (s->ufn)
    return lc_error(c, s->line, s->col,
                    "truncation T[,] is not available for the user-defined distribution %s", lpdf);
  int has_cdf = lc_lib_sigs(cdf, &k) != NULL, has_ccdf = lc_lib_sigs(ccdf, &k) != NULL;
  if (!has_cdf || !has_ccdf)
    return lc_error(c, s->line, s->col,
                    "truncation needs %s and %s, but the library has no %s%s%s", cdf, ccdf,
                    has_cdf ? "" : cdf, !has_cdf && !has_ccdf ? " and no " : "", has_ccdf ? "" : ccdf);
  /* each cumulative function takes a bound in place of the variate (the
  ** variate's own type when T[,] gives no bound) */
  ln_expr *bounds[2] = { s->lo, s->hi }, *save = a[0];
  for (int w = 0; w < 2; w++) {
    const char *fn = w == 0 ? cdf : ccdf;
    const lc_sig *found = NULL;
    ln_type ret;
    for (int b = 0; b < 3; b++) {
      if (b < 2 && !bounds[b]) continue;
      if (b == 2 && found) break;
      a[0] = b < 2 ? bounds[b] : save;
      found = lc_lib_resolve_args(fn, a, n, &ret);
      if (!found) {
        char msg[2048], tb[512];
        msg[0] = 0;
        lc_cat(msg, sizeof msg, "truncation: no signature of %s matches %s; available:", fn,
               lc_args_text(a, n, tb, sizeof tb));
        lc_list_sigs(c->p, fn, NULL, 10, msg, sizeof msg);
        a[0] = save;
        return lc_error(c, s->line, s->col, "%s", msg);
      }
    }
    if (w == 0) s->cdf = found->fn;
    else s->ccdf = found->fn;
  }
  a[0] = save;
  return AD_OK;
}

static int tilde_resolve(lc_ctx *c, ln_stmt *s) {
  int n = s->nargs + 1, bad = 0, anybad = 0, k;
  ln_expr **a = tilde_args(c, s);
  const char *pdf = lc_resuffixed(c, s->name, 0, "_lpdf"), *pmf = lc_resuffixed(c, s->name, 0, "_lpmf");
  if (!a || !pdf || !pmf) return lc_error(c, s->line, s->col, "out of memory");
  ln_type ret;
  const char *used = NULL;
  s->ufn = lc_user_resolve(c, pdf, a, n, &ret, &bad);
  if (s->ufn) used = pdf;
  else {
    anybad = bad;
    s->ufn = lc_user_resolve(c, pmf, a, n, &ret, &bad);
    if (s->ufn) { used = pmf; s->discrete = 1; }
    else {
      const lc_sig *sg;
      if (!anybad) anybad = bad;
      if ((sg = lc_lib_resolve_args(pdf, a, n, &ret)) != NULL) { s->fn = sg->fn; used = pdf; }
      else if ((sg = lc_lib_resolve_args(pmf, a, n, &ret)) != NULL) { s->fn = sg->fn; used = pmf; s->discrete = 1; }
    }
  }
  int k0;
  if (!used && !lc_funcs(c, pdf, &k0) && !lc_funcs(c, pmf, &k0)) {
    /* Stan 2.21: a user-defined density foo_log, which Stan 2.33 no longer reads as one */
    const char *old = lc_resuffixed(c, s->name, 0, "_log");
    if (!old) return lc_error(c, s->line, s->col, "out of memory");
    if ((s->ufn = lc_user_resolve(c, old, a, n, &ret, &bad)) != NULL) {
      ln_warn(c->p, s->line, s->col, "a density named %s is deprecated (Stan 2.33 removed the _log suffix); "
              "name it %s or %s", old, pdf, pmf);
      used = old;
      s->discrete = a[0]->type.base == TM_INT;
    }
  }
  if (!used) {
    int hp = lc_funcs(c, pdf, &k) || lc_lib_sigs(pdf, &k), hm = lc_funcs(c, pmf, &k) || lc_lib_sigs(pmf, &k);
    if (!hp && !hm)
      return lc_error(c, s->line, s->col, "no distribution '%s': neither %s nor %s exists", s->name, pdf, pmf);
    if (anybad)
      return lc_error(c, a[anybad - 1]->line, a[anybad - 1]->col,
                      "argument %d of %s must be data only, but it depends on parameters", anybad,
                      hp ? pdf : pmf);
    char msg[2048], tb[512];
    msg[0] = 0;
    lc_cat(msg, sizeof msg, "no signature of %s matches %s; available:", hp && hm ? s->name : hp ? pdf : pmf,
           lc_args_text(a, n, tb, sizeof tb));
    if (hp) lc_list_sigs(c->p, pdf, pdf, 10, msg, sizeof msg);
    if (hm) lc_list_sigs(c->p, pmf, pmf, 10, msg, sizeof msg);
    return lc_error(c, s->line, s->col, "%s", msg);
  }
  if (ret.base != TM_REAL || ret.narr)
    return lc_error(c, s->line, s->col, "%s must return real to be used with ~", used);
  if (s->trunc) return truncation(c, s, a, n, used);
  /* y ~ bernoulli_logit(alpha + X * beta) and its kin: the GLM (lc_glm.c) */
  ln_expr **ga;
  int gn;
  const tm_fn *gf;
  if (s->fn && !s->ufn && lc_glm_fuse(c, s->name, a, n, &ga, &gn, &gf)) {
    s->fn = gf;
    s->args = ga + 1;
    s->nargs = gn - 1;
  }
  return AD_OK;
}

static int tilde(lc_ctx *c, ln_stmt *s) {
  int rc;
  if (!s->name || !s->e) return lc_error(c, s->line, s->col, "a ~ statement without its distribution");
  if (c->fn ? c->fkind != LC_FK_LP : c->blk != LN_BLK_MODEL)
    return lc_error(c, s->line, s->col,
                    "~ statements are only allowed in the model block and in functions ending in _lp");
  static const char *const dens[] = {"_lpdf", "_lupdf", "_lpmf", "_lupmf"};
  static const char *const cum[] = {"_cdf", "_ccdf", "_lcdf", "_lccdf"};
  for (int i = 0; i < 4; i++) {
    if (lc_ends_with(s->name, dens[i]))
      return lc_error(c, s->line, s->col,
                      "a ~ statement names the distribution without its %s suffix: write y ~ foo(...) "
                      "rather than y ~ foo%s(...)", dens[i], dens[i]);
    if (lc_ends_with(s->name, cum[i]))
      return lc_error(c, s->line, s->col,
                      "cumulative distribution functions cannot be used with ~; write target += %s(y | ...)",
                      s->name);
  }
  if ((rc = lc_expr(c, s->e))) return rc;
  if (s->nargs > 0 && !s->args) return lc_error(c, s->line, s->col, "a ~ statement without its arguments");
  for (int i = 0; i < s->nargs; i++)
    if ((rc = lc_expr(c, s->args[i]))) return rc;
  if (s->lo && (rc = lc_scalar_expr(c, s->lo, "a truncation bound"))) return rc;
  if (s->hi && (rc = lc_scalar_expr(c, s->hi, "a truncation bound"))) return rc;
  return tilde_resolve(c, s);
}

/* ---- statements ---- */

/* complex_ok: print, reject and fatal_error show complex values too */
static int numeric_value_z(lc_ctx *c, ln_expr *e, const char *what, int complex_ok) {
  int rc = lc_expr(c, e);
  if (rc) return rc;
  if (!lc_is_numeric(e->type) || (!complex_ok && lc_is_complex(e->type))) {
    char tb[64];
    return lc_error(c, e->line, e->col, "%s must be an int or real value or container; found %s",
                    what, lc_type_name(e->type, tb, sizeof tb));
  }
  return AD_OK;
}

static int numeric_value(lc_ctx *c, ln_expr *e, const char *what) {
  return numeric_value_z(c, e, what, 0);
}

static int body(lc_ctx *c, ln_stmt *s, int loop) {
  if (s->nbody < 1 || !s->body || !s->body[0]) return AD_OK;
  int mark = lc_scope_mark(c);
  c->loop_depth += loop;
  int rc = lc_stmt(c, s->body[0]);
  c->loop_depth -= loop;
  lc_scope_pop(c, mark);
  return rc;
}

static ln_decl *loop_variable(lc_ctx *c, ln_stmt *s, ln_type t, int dep) {
  ln_decl *d = ln_alloc(c->p, sizeof *d);
  if (!d) return NULL;
  d->name = s->name;
  d->line = s->line;
  d->col = s->col;
  d->type = t;
  d->block = c->fn ? LN_BLK_FUNCTIONS : c->blk;
  d->scope = LN_SCOPE_LOCAL;
  d->slot = c->nslots++;
  d->dep = (unsigned char)(dep && lc_real_based(t));
  s->decl = d;
  return d;
}

static int loop(lc_ctx *c, ln_stmt *s) {
  int rc;
  ln_type t = lc_mk(TM_INT, 0);
  int dep = 0;
  if (!s->name) return lc_error(c, s->line, s->col, "a loop without its variable");
  if (s->kind == LS_FOR) {
    if (!s->lo || !s->hi) return lc_error(c, s->line, s->col, "a for loop without its range");
    if ((rc = lc_int_expr(c, s->lo, "the lower bound of a for loop")) ||
        (rc = lc_int_expr(c, s->hi, "the upper bound of a for loop")))
      return rc;
  } else {
    if ((rc = lc_expr(c, s->e))) return rc;
    ln_type et = s->e->type;
    if (lc_is_numeric(et) && et.narr > 0) t = lc_mk(et.base, et.narr - 1);
    else if (et.base == TM_VECTOR || et.base == TM_ROW_VECTOR || et.base == TM_MATRIX) t = lc_mk(TM_REAL, 0);
    else if (et.base == TM_CVECTOR || et.base == TM_CROW_VECTOR || et.base == TM_CMATRIX) t = lc_mk(TM_COMPLEX, 0);
    else {
      char tb[64];
      return lc_error(c, s->e->line, s->e->col,
                      "a foreach loop runs over an array, vector, row_vector or matrix; found %s",
                      lc_type_name(et, tb, sizeof tb));
    }
    dep = s->e->dep;
  }
  int mark = lc_scope_mark(c);
  ln_decl *d = loop_variable(c, s, t, dep);
  if (!d) return lc_error(c, s->line, s->col, "out of memory");
  if ((rc = lc_declare(c, d, LC_RO_LOOP)) == AD_OK) rc = body(c, s, 1);
  lc_scope_pop(c, mark);
  return rc;
}

static int ret(lc_ctx *c, ln_stmt *s) {
  int rc;
  if (!c->fn) return lc_error(c, s->line, s->col, "return statements are only allowed in function bodies");
  ln_type r = c->fn->ret;
  if (r.base == LN_VOID) {
    if (s->e) return lc_error(c, s->line, s->col, "void function '%s' cannot return a value", c->fn->name);
    return AD_OK;
  }
  char t1[64], t2[64];
  if (!s->e)
    return lc_error(c, s->line, s->col, "function '%s' must return a value of type %s", c->fn->name,
                    lc_type_name(r, t1, sizeof t1));
  if ((rc = lc_expr(c, s->e))) return rc;
  if (lc_assign_cost(lc_mk(r.base, r.narr), s->e->type) < 0)
    return lc_error(c, s->e->line, s->e->col, "function '%s' returns %s, but this return gives %s",
                    c->fn->name, lc_type_name(r, t1, sizeof t1), lc_type_name(s->e->type, t2, sizeof t2));
  return AD_OK;
}

static int printables(lc_ctx *c, ln_stmt *s) {
  int rc;
  if (s->nargs > 0 && !s->args) return lc_error(c, s->line, s->col, "a print without its arguments");
  for (int i = 0; i < s->nargs; i++) {
    ln_expr *a = s->args[i];
    if (a && a->kind == LE_STRING) { a->type = lc_mk(LN_STRING, 0); continue; }
    if ((rc = numeric_value_z(c, a, "an argument of print, reject or fatal_error", 1))) return rc;
  }
  return AD_OK;
}

static int statements(lc_ctx *c, ln_stmt *s) {
  int rc = AD_OK, mark = lc_scope_mark(c);
  if (s->nbody > 0 && !s->body) rc = lc_error(c, s->line, s->col, "a block without its statements");
  for (int i = 0; i < s->nbody && !rc; i++) rc = lc_stmt(c, s->body[i]);
  lc_scope_pop(c, mark);
  return rc;
}

static int stmt1(lc_ctx *c, ln_stmt *s) {
  int rc;
  switch (s->kind) {
  case LS_DECL: return lc_decl(c, s, 0);
  case LS_ASSIGN: return assign(c, s);
  case LS_TILDE: return tilde(c, s);
  case LS_TARGET:
    if (c->fn ? c->fkind != LC_FK_LP : c->blk != LN_BLK_MODEL)
      return lc_error(c, s->line, s->col, "target += is only allowed in the model block and in functions ending in _lp");
    return numeric_value(c, s->e, "the value added to target");
  case LS_JACOBIAN:
    if (c->fn ? c->fkind != LC_FK_JACOBIAN : c->blk != LN_BLK_TPARAMS)
      return lc_error(c, s->line, s->col,
                      "jacobian += is only allowed in the transformed parameters block and in functions ending in _jacobian");
    return numeric_value(c, s->e, "the value added to the jacobian");
  case LS_FOR:
  case LS_FOREACH: return loop(c, s);
  case LS_WHILE:
    if ((rc = lc_scalar_expr(c, s->e, "the condition of a while loop"))) return rc;
    return body(c, s, 1);
  case LS_IF:
    if ((rc = lc_scalar_expr(c, s->e, "the condition of an if statement"))) return rc;
    if ((rc = body(c, s, 0))) return rc;
    if (s->els) {
      int mark = lc_scope_mark(c);
      rc = lc_stmt(c, s->els);
      lc_scope_pop(c, mark);
    }
    return rc;
  case LS_BREAK:
  case LS_CONTINUE:
    if (!c->loop_depth)
      return lc_error(c, s->line, s->col, "%s statements may only be used in loops",
                      s->kind == LS_BREAK ? "break" : "continue");
    return AD_OK;
  case LS_RETURN: return ret(c, s);
  case LS_BLOCK:
  case LS_PROFILE: return statements(c, s);
  case LS_PRINT:
  case LS_REJECT:
  case LS_FATAL: return printables(c, s);
  case LS_CALL:
    if (!s->e || s->e->kind != LE_CALL)
      return lc_error(c, s->line, s->col, "an expression cannot be a statement; only calls of void functions can");
    return lc_call(c, s->e, 1);
  case LS_EMPTY: return AD_OK;
  default: return lc_error(c, s->line, s->col, "a statement of unknown kind");
  }
}

int lc_stmt(lc_ctx *c, ln_stmt *s) {
  if (!s) return lc_error(c, c->line, c->col, "a missing statement");
  if (c->depth >= LC_MAXDEPTH)
    return lc_error(c, s->line, s->col, "statements nested too deeply (more than %d levels)", LC_MAXDEPTH);
  int line = c->line, col = c->col;
  c->line = s->line;
  c->col = s->col;
  c->depth++;
  int rc = stmt1(c, s);
  c->depth--;
  c->line = line;
  c->col = col;
  return rc;
}

/* ---- does every path return? ---- */

static int is_true_literal(const ln_expr *e) {
  return e && ((e->kind == LE_INT && e->ival != 0) || (e->kind == LE_REAL && e->rval != 0));
}

/* As stanc: a loop whose body always returns counts as returning, and so
** does while (1) without a way out by break; code after an escape is never
** reached.  The interpreter still fails cleanly if a function falls off. */
int lc_returns(const ln_stmt *s, int depth) {
  if (!s || depth > LC_MAXDEPTH) return LC_RT_INCOMPLETE;
  switch (s->kind) {
  case LS_RETURN: case LS_REJECT: case LS_FATAL: return LC_RT_COMPLETE;
  case LS_BREAK: return LC_RT_NONLOCAL;
  case LS_BLOCK:
  case LS_PROFILE: {
    int acc = LC_RT_INCOMPLETE;
    for (int i = 0; i < s->nbody && s->body; i++) {
      const ln_stmt *x = s->body[i];
      int r = lc_returns(x, depth + 1);
      if (r == LC_RT_NONLOCAL) acc = LC_RT_NONLOCAL;
      else if (r == LC_RT_COMPLETE) return acc == LC_RT_NONLOCAL ? LC_RT_NONLOCAL : LC_RT_COMPLETE;
      if (x && (x->kind == LS_BREAK || x->kind == LS_CONTINUE)) break;
    }
    return acc;
  }
  case LS_IF: {
    int a = s->nbody > 0 && s->body ? lc_returns(s->body[0], depth + 1) : LC_RT_INCOMPLETE;
    int b = s->els ? lc_returns(s->els, depth + 1) : LC_RT_INCOMPLETE;
    if (a == LC_RT_NONLOCAL || b == LC_RT_NONLOCAL) return LC_RT_NONLOCAL;
    return a == LC_RT_COMPLETE && b == LC_RT_COMPLETE ? LC_RT_COMPLETE : LC_RT_INCOMPLETE;
  }
  case LS_WHILE: {
    int r = s->nbody > 0 && s->body ? lc_returns(s->body[0], depth + 1) : LC_RT_INCOMPLETE;
    if (r == LC_RT_COMPLETE || (r == LC_RT_INCOMPLETE && is_true_literal(s->e))) return LC_RT_COMPLETE;
    return LC_RT_INCOMPLETE;
  }
  case LS_FOR:
  case LS_FOREACH: {
    int r = s->nbody > 0 && s->body ? lc_returns(s->body[0], depth + 1) : LC_RT_INCOMPLETE;
    return r == LC_RT_COMPLETE ? LC_RT_COMPLETE : LC_RT_INCOMPLETE;
  }
  default: return LC_RT_INCOMPLETE;
  }
}
