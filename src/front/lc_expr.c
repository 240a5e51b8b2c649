/*
** lc_expr.c -- typing expressions: literals, variables, indexing, array and
** row-vector literals, the conditional operator, target().  Calls and
** operators are resolved in lc_call.c.
**
** Each expression gets its type and dep (may depend on parameters).  The
** walk is recursive with a depth bound; no function here keeps a buffer in
** its frame, messages are built in the leaf helpers.
*/
#include <string.h>
#include "lc.h"

char *lc_args_text(ln_expr **args, int n, char *buf, size_t size) {
  if (!size) return buf;
  buf[0] = 0;
  lc_cat(buf, size, "(");
  for (int i = 0; i < n; i++) {
    char tb[64];
    ln_type t = args[i] ? args[i]->type : lc_mk(LN_ERRTYPE, 0);
    lc_cat(buf, size, "%s%s", i ? ", " : "", lc_type_name(t, tb, sizeof tb));
  }
  lc_cat(buf, size, ")");
  return buf;
}

static int type_error(lc_ctx *c, ln_expr *e, const char *what, const char *need) {
  char tb[64];
  return lc_error(c, e->line, e->col, "%s must be %s; found %s", what, need,
                  lc_type_name(e->type, tb, sizeof tb));
}

int lc_int_expr(lc_ctx *c, ln_expr *e, const char *what) {
  int rc = lc_expr(c, e);
  if (rc) return rc;
  if (e->type.base != TM_INT || e->type.narr) return type_error(c, e, what, "an int");
  return AD_OK;
}

int lc_scalar_expr(lc_ctx *c, ln_expr *e, const char *what) {
  int rc = lc_expr(c, e);
  if (rc) return rc;
  if (!lc_is_scalar(e->type)) return type_error(c, e, what, "an int or a real");
  return AD_OK;
}

/* ---- variables ---- */

static int unknown_identifier(lc_ctx *c, ln_expr *e) {
  int n;
  const char *s;
  if (lc_funcs(c, e->name, &n))
    return lc_error(c, e->line, e->col,
                    "'%s' is a function; a function can only be passed to a higher-order "
                    "function (reduce_sum, map_rect, parallel_map, the ODE, DAE and algebraic "
                    "solvers, integrate_1d)", e->name);
  if (lc_lib_sigs(e->name, &n) || lc_hof_kind(e->name))
    return lc_error(c, e->line, e->col, "'%s' is a library function, not a variable", e->name);
  if ((s = lc_suggest(c, e->name)) != NULL)
    return lc_error(c, e->line, e->col, "identifier '%s' not in scope; did you mean '%s'?", e->name, s);
  return lc_error(c, e->line, e->col, "identifier '%s' not in scope", e->name);
}

static int variable(lc_ctx *c, ln_expr *e) {
  if (!e->name) return lc_error(c, e->line, e->col, "a variable without a name");
  const lc_sym *s = lc_lookup(c, e->name);
  if (!s) {
    int n;
    ln_func **f = lc_funcs(c, e->name, &n);
    if (f && c->funcref_ok) {
      for (int i = 0; i < n; i++)
        if (f[i]->body) { e->ufn = f[i]; break; }
      if (!e->ufn) e->ufn = f[0]->def ? f[0]->def : f[0];
      e->kind = LE_FUNCREF;
      e->type = lc_mk(LN_FUNCREF, 0);
      e->dep = 0;
      return AD_OK;
    }
    return unknown_identifier(c, e);
  }
  ln_decl *d = s->decl;
  if (c->toplevel_size && d->scope == LN_SCOPE_GLOBAL &&
      (d->block == LN_BLK_PARAMS || d->block == LN_BLK_TPARAMS || d->block == LN_BLK_GQ))
    return lc_error(c, e->line, e->col,
                    "sizes must be data: '%s' is declared in the %s block, and sizes of "
                    "top-level declarations may only use data and transformed data",
                    e->name, ln_block_name(d->block));
  e->kind = LE_VAR;
  e->type = lc_mk(d->type.base, d->type.narr);
  e->scope = d->scope;
  e->slot = d->slot;
  e->decl = d;
  /* generated quantities run on doubles: nothing there is autodiff */
  e->dep = d->dep && !(c->fn == NULL && c->blk == LN_BLK_GQ);
  return AD_OK;
}

/* ---- indexing ---- */

static int index_one(lc_ctx *c, ln_expr *at, ln_index *ix, int *multi) {
  int rc;
  *multi = 1;
  switch (ix->kind) {
  case LI_SINGLE:
  case LI_MULTI:
    if (!ix->a) return lc_error(c, at->line, at->col, "an index without an expression");
    if ((rc = lc_expr(c, ix->a))) return rc;
    if (ix->a->type.base == TM_INT && ix->a->type.narr == 0 && ix->kind == LI_SINGLE) {
      *multi = 0;
      return AD_OK;
    }
    if (ix->a->type.base == TM_INT && ix->a->type.narr == 1) {
      ix->kind = LI_MULTI;
      return AD_OK;
    }
    return type_error(c, ix->a, "an index", "an int, an array[] int or a range");
  case LI_ALL:
    return AD_OK;
  case LI_RANGE:
    if (!ix->a || !ix->b) return lc_error(c, at->line, at->col, "a range without bounds");
    if ((rc = lc_int_expr(c, ix->a, "the lower bound of a range"))) return rc;
    return lc_int_expr(c, ix->b, "the upper bound of a range");
  case LI_FROM:
    if (!ix->a) return lc_error(c, at->line, at->col, "a range without its lower bound");
    return lc_int_expr(c, ix->a, "the lower bound of a range");
  case LI_TO:
    if (!ix->b) return lc_error(c, at->line, at->col, "a range without its upper bound");
    return lc_int_expr(c, ix->b, "the upper bound of a range");
  default:
    return lc_error(c, at->line, at->col, "an index of unknown kind");
  }
}

static int container_dims(int base) {
  return base == TM_MATRIX || base == TM_CMATRIX ? 2
       : (base == TM_VECTOR || base == TM_ROW_VECTOR || base == TM_CVECTOR || base == TM_CROW_VECTOR) ? 1 : 0;
}

static int indexed(lc_ctx *c, ln_expr *e) {
  int rc;
  if (e->nargs < 1 || !e->args || !e->args[0])
    return lc_error(c, e->line, e->col, "an indexed expression without its value");
  ln_expr *v = e->args[0];
  if ((rc = lc_expr(c, v))) return rc;
  ln_type t = v->type;
  if (!lc_is_numeric(t)) {
    char tb[64];
    return lc_error(c, e->line, e->col, "a value of type %s cannot be indexed",
                    lc_type_name(t, tb, sizeof tb));
  }
  int total = t.narr + container_dims(t.base);
  if (e->nidx > total) {
    char tb[64];
    if (total == 0)
      return lc_error(c, e->line, e->col, "a value of type %s cannot be indexed",
                      lc_type_name(t, tb, sizeof tb));
    return lc_error(c, e->line, e->col,
                    "too many indexes: %s has %d dimension%s, found %d indexes",
                    lc_type_name(t, tb, sizeof tb), total, total == 1 ? "" : "s", e->nidx);
  }
  if (e->nidx > 0 && !e->idx) return lc_error(c, e->line, e->col, "missing indexes");
  int narr = 0, cm[2] = {1, 1}, nc = 0;
  for (int i = 0; i < e->nidx; i++) {
    int multi;
    if ((rc = index_one(c, e, &e->idx[i], &multi))) return rc;
    if (i < t.narr) narr += multi;
    else cm[nc++] = multi;
  }
  if (e->nidx < t.narr) narr += t.narr - e->nidx;
  int base = t.base;
  if (base == TM_VECTOR || base == TM_ROW_VECTOR) {
    if (nc == 1 && !cm[0]) base = TM_REAL;
  } else if (base == TM_MATRIX && nc > 0) {
    int row = cm[0], col = nc == 2 ? cm[1] : 1;
    base = row && col ? TM_MATRIX : row ? TM_VECTOR : col ? TM_ROW_VECTOR : TM_REAL;
  } else if (base == TM_CVECTOR || base == TM_CROW_VECTOR) {
    if (nc == 1 && !cm[0]) base = TM_COMPLEX;
  } else if (base == TM_CMATRIX && nc > 0) {
    int row = cm[0], col = nc == 2 ? cm[1] : 1;
    base = row && col ? TM_CMATRIX : row ? TM_CVECTOR : col ? TM_CROW_VECTOR : TM_COMPLEX;
  }
  e->type = lc_mk(base, narr);
  e->dep = v->dep && base != TM_INT;
  return AD_OK;
}

/* ---- literals of containers ---- */

/* The common type of two element types with int -> real; 0 when none. */
static int common_type(ln_type a, ln_type b, ln_type *out) {
  if (!lc_is_numeric(a) || !lc_is_numeric(b) || a.narr != b.narr) return 0;
  if (a.base == b.base) { *out = a; return 1; }
  if ((a.base == TM_INT && b.base == TM_REAL) || (a.base == TM_REAL && b.base == TM_INT)) {
    *out = lc_mk(TM_REAL, a.narr);
    return 1;
  }
  /* int and real promote to complex, each real container to its complex one */
  ln_type p = lc_is_complex(a) ? a : b, q = lc_is_complex(a) ? b : a;
  if (lc_is_complex(p) && lc_assign_cost(p, q) > 0) { *out = p; return 1; }
  return 0;
}

static int array_literal(lc_ctx *c, ln_expr *e) {
  int rc, dep = 0;
  if (e->nargs < 1 || !e->args)
    return lc_error(c, e->line, e->col, "array expressions must contain at least one element");
  ln_type t = lc_mk(LN_ERRTYPE, 0);
  for (int i = 0; i < e->nargs; i++) {
    ln_expr *a = e->args[i];
    if (!a) return lc_error(c, e->line, e->col, "an array element without an expression");
    if ((rc = lc_expr(c, a))) return rc;
    if (!lc_is_numeric(a->type)) return type_error(c, a, "an array element", "an int or real value or container");
    if (i == 0) t = a->type;
    else if (!common_type(t, a->type, &t)) {
      char t1[64], t2[64];
      return lc_error(c, a->line, a->col,
                      "array expression must have entries of consistent type: expected %s, found %s",
                      lc_type_name(t, t1, sizeof t1), lc_type_name(a->type, t2, sizeof t2));
    }
    dep |= a->dep;
  }
  if (t.narr + 1 > TM_MAXARR)
    return lc_error(c, e->line, e->col, "arrays may have at most %d dimensions", TM_MAXARR);
  e->type = lc_mk(t.base, t.narr + 1);
  e->dep = dep && t.base != TM_INT;
  return AD_OK;
}

static int rowvec_literal(lc_ctx *c, ln_expr *e) {
  int rc, dep = 0, rows = 0, cplx = 0;
  for (int i = 0; i < e->nargs; i++) {
    ln_expr *a = e->args ? e->args[i] : NULL;
    if (!a) return lc_error(c, e->line, e->col, "a row vector element without an expression");
    if ((rc = lc_expr(c, a))) return rc;
    int rv = a->type.narr == 0 && (a->type.base == TM_ROW_VECTOR || a->type.base == TM_CROW_VECTOR);
    if (i == 0) rows = rv;
    if (rows && !rv)
      return type_error(c, a, "each row of a matrix expression [...]", "a row_vector");
    if (!rows && !lc_is_scalar(a->type) && !(a->type.narr == 0 && a->type.base == TM_COMPLEX))
      return type_error(c, a, "each element of a row_vector expression [...]", "an int or a real");
    cplx |= lc_is_complex(a->type);
    dep |= a->dep;
  }
  e->type = lc_mk(rows ? (cplx ? TM_CMATRIX : TM_MATRIX) : (cplx ? TM_CROW_VECTOR : TM_ROW_VECTOR), 0);
  e->dep = dep;
  return AD_OK;
}

static int conditional(lc_ctx *c, ln_expr *e) {
  int rc;
  if (e->nargs != 3 || !e->args || !e->args[0] || !e->args[1] || !e->args[2])
    return lc_error(c, e->line, e->col, "a conditional expression without its three operands");
  if ((rc = lc_scalar_expr(c, e->args[0], "the condition of ?:"))) return rc;
  if ((rc = lc_expr(c, e->args[1])) || (rc = lc_expr(c, e->args[2]))) return rc;
  ln_type t;
  if (!common_type(e->args[1]->type, e->args[2]->type, &t)) {
    char t1[64], t2[64];
    return lc_error(c, e->line, e->col,
                    "the branches of ?: must have the same type (int promotes to real); found %s and %s",
                    lc_type_name(e->args[1]->type, t1, sizeof t1),
                    lc_type_name(e->args[2]->type, t2, sizeof t2));
  }
  e->type = t;
  e->dep = (e->args[0]->dep || e->args[1]->dep || e->args[2]->dep) && t.base != TM_INT;
  return AD_OK;
}

static int target_value(lc_ctx *c, ln_expr *e) {
  if (!(c->fn ? c->fkind == LC_FK_LP : (c->blk == LN_BLK_MODEL || c->blk == LN_BLK_TPARAMS)))
    return lc_error(c, e->line, e->col,
                    "target() is only available in the model block, the transformed parameters "
                    "block and functions whose names end in _lp");
  e->type = lc_mk(TM_REAL, 0);
  e->dep = 1;
  return AD_OK;
}

static int operator_expr(lc_ctx *c, ln_expr *e) {
  int rc, n = e->kind == LE_BINOP ? 2 : 1;
  if (e->nargs != n || !e->args)
    return lc_error(c, e->line, e->col, "an operator without its operands");
  for (int i = 0; i < n; i++) {
    if (!e->args[i]) return lc_error(c, e->line, e->col, "an operator without its operands");
    if ((rc = lc_expr(c, e->args[i]))) return rc;
  }
  return lc_operator(c, e);
}

static int expr1(lc_ctx *c, ln_expr *e) {
  switch (e->kind) {
  case LE_INT: e->type = lc_mk(TM_INT, 0); e->dep = 0; return AD_OK;
  case LE_REAL: e->type = lc_mk(TM_REAL, 0); e->dep = 0; return AD_OK;
  case LE_STRING:
    return lc_error(c, e->line, e->col,
                    "a string can only be an argument of print, reject or fatal_error");
  case LE_VAR:
  case LE_FUNCREF: return variable(c, e);
  case LE_CALL: return lc_call(c, e, 0);
  case LE_BINOP:
  case LE_UNOP: return operator_expr(c, e);
  case LE_COND: return conditional(c, e);
  case LE_INDEX: return indexed(c, e);
  case LE_ARRAY: return array_literal(c, e);
  case LE_ROWVEC: return rowvec_literal(c, e);
  case LE_TARGET: return target_value(c, e);
  default: return lc_error(c, e->line, e->col, "an expression of unknown kind");
  }
}

int lc_expr(lc_ctx *c, ln_expr *e) {
  if (!e) return lc_error(c, c->line, c->col, "a missing expression");
  if (c->depth >= LC_MAXDEPTH)
    return lc_error(c, e->line, e->col, "expression nested too deeply (more than %d levels)", LC_MAXDEPTH);
  int funcref_ok = c->funcref_ok;
  c->funcref_ok = 0;
  if (e->kind == LE_VAR) c->funcref_ok = funcref_ok;   /* only the argument itself may name a function */
  c->depth++;
  int rc = expr1(c, e);
  c->depth--;
  if (rc == AD_OK && lc_is_complex(e->type) && lc_on_tape(c)) c->p->uses_complex = 1;
  c->funcref_ok = funcref_ok;
  return rc;
}
