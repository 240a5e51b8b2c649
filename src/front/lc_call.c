/*
** lc_call.c -- resolving calls and operators to exactly one function.
**
** A call resolves to a user-defined function when one of that name accepts
** the arguments (user functions come first), else to the library entry
** whose signature needs the fewest int -> real promotions.  Operators are
** calls of library functions (+ is add, ' is transpose...), except those
** the interpreter does itself: comparisons, logic and %/%.
** The name's suffix brings rules of its own: _lupdf/_lupmf are the
** _lpdf/_lpmf with constants dropped, densities need the bar, _rng and _lp
** functions only run where Stan allows them.
*/
#include <string.h>
#include "lc.h"

/* ---- user functions ---- */

ln_func *lc_user_resolve(lc_ctx *c, const char *name, ln_expr **args, int nargs,
                         ln_type *ret, int *data_bad) {
  int n;
  ln_func **fs = lc_funcs(c, name, &n), *best = NULL;
  int bestcost = -1, bad = 0, badcost = -1;
  for (int i = 0; i < n; i++) {
    ln_func *f = fs[i];
    if (!f->body || f->nparams != nargs) continue;   /* forward declarations share their definition's signature */
    int cost = 0, dbad = 0;
    for (int k = 0; k < nargs && cost >= 0; k++) {
      ln_decl *pd = f->params ? f->params[k] : NULL;
      int kc = pd ? lc_assign_cost(pd->type, args[k]->type) : -1;
      if (kc < 0) cost = -1;
      else {
        cost += kc;
        if (pd->type.data_only && args[k]->dep && !dbad) dbad = k + 1;
      }
    }
    if (cost < 0) continue;
    if (dbad) {
      if (badcost < 0 || cost < badcost) { bad = dbad; badcost = cost; }
      continue;
    }
    if (bestcost < 0 || cost < bestcost) { best = f; bestcost = cost; }
  }
  if (data_bad) *data_bad = best ? 0 : bad;
  if (best) *ret = lc_mk(best->ret.base, best->ret.narr);
  return best;
}

const lc_sig *lc_lib_resolve_args(const char *name, ln_expr **args, int nargs, ln_type *ret) {
  ln_type t[LC_MAXSIGARGS];
  if (nargs > LC_MAXSIGARGS) return NULL;
  for (int i = 0; i < nargs; i++) t[i] = args[i]->type;
  return lc_lib_resolve(name, t, nargs, ret);
}

/* ---- suffixes ---- */

static int is_conditional(const char *name) {
  static const char *const sfx[] = {"_lpdf", "_lupdf", "_lpmf", "_lupmf", "_lcdf", "_lccdf", "_cdf"};
  for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++)
    if (lc_ends_with(name, sfx[i])) return 1;
  return 0;
}

int lc_suffix_rules(lc_ctx *c, const char *name, int line, int col) {
  if (lc_ends_with(name, "_rng")) {
    if (c->toplevel_size)
      return lc_error(c, line, col, "random number generators are not allowed in the sizes of top-level declarations");
    if (c->fn ? c->fkind != LC_FK_RNG : !(c->blk == LN_BLK_TDATA || c->blk == LN_BLK_GQ))
      return lc_error(c, line, col,
                      "random number generators are only allowed in transformed data, generated "
                      "quantities and functions ending in _rng");
  }
  if (lc_ends_with(name, "_lp") &&
      (c->fn ? c->fkind != LC_FK_LP : !(c->blk == LN_BLK_MODEL || c->blk == LN_BLK_TPARAMS)))
    return lc_error(c, line, col,
                    "functions ending in _lp (which change target) are only allowed in the model "
                    "block, the transformed parameters block and functions ending in _lp");
  if (lc_ends_with(name, "_jacobian") &&
      (c->fn ? c->fkind != LC_FK_JACOBIAN : c->blk != LN_BLK_TPARAMS))
    return lc_error(c, line, col,
                    "functions ending in _jacobian are only allowed in the transformed parameters "
                    "block and functions ending in _jacobian");
  return AD_OK;
}

/* name with its _lupdf/_lupmf suffix made _lpdf/_lpmf, in the program's pool */
const char *lc_normalized(lc_ctx *c, const char *name) {
  size_t n = strlen(name);
  char *s = ln_strdup(c->p, name, n);
  if (!s) return NULL;
  memmove(s + n - 4, s + n - 3, 4);   /* "_lupdf" -> "_lpdf": drop the 'u' */
  return s;
}

/* ---- messages ---- */

static int no_function(lc_ctx *c, ln_expr *e, const char *name) {
  int n;
  const lc_sym *s = lc_lookup(c, name);
  if (s) return lc_error(c, e->line, e->col, "'%s' is a variable, not a function", name);
  size_t len = strlen(name);
  if (len > 5 && (lc_ends_with(name, "_lpdf") || lc_ends_with(name, "_lpmf"))) {
    char alt[160];
    if (len < sizeof alt) {
      memcpy(alt, name, len + 1);
      alt[len - 2] = alt[len - 2] == 'd' ? 'm' : 'd';
      if (lc_lib_sigs(alt, &n) || lc_funcs(c, alt, &n))
        return lc_error(c, e->line, e->col, "function '%s' does not exist; use '%s' instead%s",
                        name, alt, alt[len - 2] == 'm' ? " (the distribution is discrete)" : "");
    }
  }
  if (lc_is_stan_name(name))
    return lc_error(c, e->line, e->col,
                    "'%s' is a Stan function that is not supported by tapestry yet "
                    "(the README lists Stan's functions tapestry lacks)", name);
  return lc_error(c, e->line, e->col, "unknown function '%s'", name);
}

int lc_is_stan_name(const char *name) {
  int lo = 0, hi = lc_n_stan_names - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, d = strcmp(name, lc_stan_names[mid]);
    if (!d) return 1;
    if (d < 0) hi = mid - 1; else lo = mid + 1;
  }
  return 0;
}

static int mismatch(lc_ctx *c, ln_expr *e, const char *name, const char *shown) {
  char msg[2048], tb[512];
  msg[0] = 0;
  lc_cat(msg, sizeof msg, "no signature of %s matches %s; available:", shown,
         lc_args_text(e->args, e->nargs, tb, sizeof tb));
  int z = 0;
  for (int i = 0; i < e->nargs; i++) z |= e->args[i] && lc_is_complex(e->args[i]->type);
  /* Stan's functions of complex arguments that tapestry lacks (tm_complex*.c has the others) */
  static const char *const lacking[] = {
    "eigendecompose_sym", "svd",
    "eigendecompose", "complex_schur_decompose", NULL
  };
  for (int i = 0; z && lacking[i]; i++)
    if (!strcmp(name, lacking[i]))
      return lc_error(c, e->line, e->col, "%s of complex arguments %s is not supported by tapestry yet", shown,
                      lc_args_text(e->args, e->nargs, tb, sizeof tb));
  lc_list_sigs_z(c->p, name, name, 10, z, msg, sizeof msg);
  return lc_error(c, e->line, e->col, "%s", msg);
}

static int not_data(lc_ctx *c, ln_expr *arg, int k, const char *name) {
  return lc_error(c, arg->line, arg->col,
                  "argument %d of %s must be data only (its parameter is declared 'data'), "
                  "but it depends on parameters", k, name);
}

/* ---- Stan 2.21's names ----
** Programs written for rstan 2.21 call functions by names Stan 2.33
** removed.  As with that Stan's array syntax (lp_decl.c), and its `<-` and
** increment_log_prob (lp_stmt.c), they are read as what replaced them,
** with a warning; a name that the program or the library defines is never
** read so. */

static int defined(lc_ctx *c, const char *name) {
  int n;
  return lc_funcs(c, name, &n) || lc_lib_sigs(name, &n) || lc_hof_kind(name);
}

const char *lc_resuffixed(lc_ctx *c, const char *name, size_t drop, const char *sfx) {
  size_t n = strlen(name) - drop, k = strlen(sfx);
  char *s = ln_alloc(c->p, n + k + 1);
  if (!s) return NULL;
  memcpy(s, name, n);
  memcpy(s + n, sfx, k + 1);
  return s;
}

/* What replaced a Stan 2.21 function's name (it may not exist either), or
** NULL. */
static const char *current_name(lc_ctx *c, const char *name) {
  static const char *const renamed[][2] = {
    { "binomial_coefficient_log", "lchoose" },
    { "integrate_ode", "integrate_ode_rk45" },
  };
  for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
    if (!strcmp(name, renamed[i][0])) return renamed[i][1];
  if (lc_ends_with(name, "_ccdf_log")) return lc_resuffixed(c, name, 9, "_lccdf");
  if (lc_ends_with(name, "_cdf_log")) return lc_resuffixed(c, name, 8, "_lcdf");
  if (!lc_ends_with(name, "_log")) return NULL;
  const char *pdf = lc_resuffixed(c, name, 4, "_lpdf");          /* normal_log, poisson_log */
  return pdf && defined(c, pdf) ? pdf : lc_resuffixed(c, name, 4, "_lpmf");
}

/* 0: e's name is current (or unknown either way); 1: e now calls its
** replacement; 2: e became another kind of expression (if_else is ?:,
** get_lp() is target()). */
static int old_name(lc_ctx *c, ln_expr *e) {
  const char *name = e->name, *to;
  if (defined(c, name)) return 0;
  if (!strcmp(name, "if_else") && e->nargs == 3 && !e->bar) {
    ln_warn(c->p, e->line, e->col, "if_else(c, a, b) is deprecated (Stan 2.33 removed it); write c ? a : b");
    e->kind = LE_COND;
    e->name = NULL;
    return 2;
  }
  if (!strcmp(name, "get_lp") && e->nargs == 0) {
    ln_warn(c->p, e->line, e->col, "get_lp() is deprecated (Stan 2.33 removed it); write target()");
    e->kind = LE_TARGET;
    e->name = NULL;
    return 2;
  }
  if (!(to = current_name(c, name)) || !defined(c, to)) return 0;
  ln_warn(c->p, e->line, e->col, "%s is deprecated (Stan 2.33 removed it); write %s", name, to);
  e->name = to;
  if (lc_ends_with(to, "_lpdf") || lc_ends_with(to, "_lpmf") || lc_ends_with(to, "_lcdf") ||
      lc_ends_with(to, "_lccdf"))
    e->bar = e->nargs > 1;      /* f(y | theta), which Stan 2.21 wrote f(y, theta) */
  return 1;
}

/* ---- calls ---- */

/* Resolution once the arguments are typed: a leaf, so the frames of the
** recursive walk stay small. */
static int resolve(lc_ctx *c, ln_expr *e, const char *name, int as_stmt) {
  int bad = 0, n;
  ln_type ret = lc_mk(LN_ERRTYPE, 0);
  ln_func *f = lc_user_resolve(c, name, e->args, e->nargs, &ret, &bad);
  const lc_sig *s = NULL;
  if (!f) s = lc_lib_resolve_args(name, e->args, e->nargs, &ret);
  if (!f && !s) {
    if (bad) return not_data(c, e->args[bad - 1], bad, name);
    if (!lc_funcs(c, name, &n) && !lc_lib_sigs(name, &n)) return no_function(c, e, e->name);
    return mismatch(c, e, name, name);
  }
  e->ufn = f;
  e->fn = s ? s->fn : NULL;
  e->type = ret;
  /* bernoulli_logit_lpmf(y | alpha + X * beta) and its kin: the GLM */
  size_t len = strlen(name);
  if (s && len > 5 && (lc_ends_with(name, "_lpmf") || lc_ends_with(name, "_lpdf")) && len - 5 < 32) {
    char dist[32];
    memcpy(dist, name, len - 5);
    dist[len - 5] = '\0';
    ln_expr **ga;
    int gn;
    const tm_fn *gf;
    if (lc_glm_fuse(c, dist, e->args, e->nargs, &ga, &gn, &gf)) {
      e->args = ga;
      e->nargs = gn;
      e->fn = gf;
    }
  }
  if (as_stmt && ret.base != LN_VOID)
    return lc_error(c, e->line, e->col,
                    "function '%s' returns a value, which a statement would discard; a statement "
                    "can only call a void function", e->name);
  if (!as_stmt && ret.base == LN_VOID)
    return lc_error(c, e->line, e->col, "function '%s' returns void; it cannot be used in an expression", e->name);
  int dep = 0;
  for (int i = 0; i < e->nargs; i++) dep |= e->args[i]->dep;
  e->dep = dep && lc_real_based(ret) && !lc_ends_with(name, "_rng");
  return AD_OK;
}

int lc_call(lc_ctx *c, ln_expr *e, int as_stmt) {
  int rc, which;
  const char *name = e->name;
  if (!name) return lc_error(c, e->line, e->col, "a call without a function name");
  if (e->nargs < 0 || (e->nargs > 0 && !e->args))
    return lc_error(c, e->line, e->col, "a call without its arguments");
  if (old_name(c, e) == 2) return lc_expr(c, e);
  name = e->name;
  if ((which = lc_hof_kind(name)) != 0) {
    if (as_stmt)
      return lc_error(c, e->line, e->col, "%s returns a value, which a statement would discard", name);
    return lc_hof(c, e, which);
  }
  for (int i = 0; i < e->nargs; i++)
    if ((rc = lc_expr(c, e->args[i]))) return rc;
  for (int i = 0; i < e->nargs; i++)
    if (e->args[i]->type.base == LN_STRING || e->args[i]->type.base == LN_VOID) {
      char tb[64];
      return lc_error(c, e->args[i]->line, e->args[i]->col, "argument %d of %s has type %s",
                      i + 1, name, lc_type_name(e->args[i]->type, tb, sizeof tb));
    }
  if (lc_ends_with(name, "_lupdf") || lc_ends_with(name, "_lupmf")) {
    if (c->fn ? c->fkind != LC_FK_LPDF : c->blk != LN_BLK_MODEL)
      return lc_error(c, e->line, e->col,
                      "functions ending in _lupdf and _lupmf can only be used in the model block "
                      "or in functions ending in _lpdf or _lpmf");
    if (!(name = lc_normalized(c, name))) return lc_error(c, e->line, e->col, "out of memory");
    e->propto = 1;
  }
  /* Stan 2.21 wrote a cdf's arguments with commas only */
  if (lc_ends_with(name, "_cdf") && !e->bar && e->nargs > 1) {
    ln_warn(c->p, e->line, e->col, "%s(y, ...) is deprecated (Stan 2.33 removed it); write %s(y | ...)",
            e->name, e->name);
    e->bar = 1;
  }
  /* a density of the variate alone takes no bar, as in stanc:
     std_normal_lpdf(z), foo_lpdf(x) */
  if (is_conditional(e->name) && !e->bar && e->nargs > 1)
    return lc_error(c, e->line, e->col,
                    "probability functions with suffixes _lpdf, _lupdf, _lpmf, _lupmf, _cdf, _lcdf "
                    "and _lccdf require a vertical bar (|) between the first two arguments: %s(y | ...)",
                    e->name);
  if (!is_conditional(e->name) && e->bar)
    return lc_error(c, e->line, e->col,
                    "only functions with names ending in _lpdf, _lupdf, _lpmf, _lupmf, _cdf, _lcdf "
                    "and _lccdf can use the vertical bar (|)");
  if ((rc = lc_suffix_rules(c, name, e->line, e->col))) return rc;
  return resolve(c, e, name, as_stmt);
}

/* ---- operators ---- */

static const char *op_fn(int op, ln_type b) {
  switch (op) {
  case LN_OP_ADD: return "add";
  case LN_OP_SUB: return "subtract";
  case LN_OP_MUL: return "multiply";
  case LN_OP_DIV: return (b.base == TM_MATRIX || b.base == TM_CMATRIX) && b.narr == 0 ? "mdivide_right" : "divide";
  case LN_OP_LDIV: return "mdivide_left";
  case LN_OP_ELTMUL: return "elt_multiply";
  case LN_OP_ELTDIV: return "elt_divide";
  case LN_OP_MOD: return "modulus";
  case LN_OP_POW: case LN_OP_ELTPOW: return "pow";
  case LN_OP_NEG: return "minus";
  case LN_OP_TRANSPOSE: return "transpose";
  default: return NULL;
  }
}

static int op_mismatch(lc_ctx *c, ln_expr *at, int op, const char *fn, ln_type *t, int n) {
  char msg[2048], tb[256];
  msg[0] = 0;
  int k;
  lc_cat(msg, sizeof msg, "no signature of operator %s (%s) matches %s", ln_op_text(op), fn,
         lc_types_text(t, n, tb, sizeof tb));
  if (lc_lib_sigs(fn, &k)) {
    lc_cat(msg, sizeof msg, "; available:");
    int z = 0;
    for (int i = 0; i < n; i++) z |= lc_is_complex(t[i]);
    lc_list_sigs_z(c->p, fn, NULL, 10, z, msg, sizeof msg);
  } else
    lc_cat(msg, sizeof msg, "; the library has no function %s", fn);
  return lc_error(c, at->line, at->col, "%s", msg);
}

static int scalar_op(lc_ctx *c, ln_expr *e, int builtin, const char *need) {
  for (int i = 0; i < e->nargs; i++)
    if (!lc_is_scalar(e->args[i]->type)) {
      char tb[256];
      ln_type t[2] = { e->args[0]->type, e->nargs > 1 ? e->args[1]->type : e->args[0]->type };
      return lc_error(c, e->line, e->col, "operator %s needs %s; found %s", ln_op_text(e->op), need,
                      lc_types_text(t, e->nargs, tb, sizeof tb));
    }
  e->builtin = builtin;
  e->type = lc_mk(TM_INT, 0);
  e->dep = 0;
  return AD_OK;
}

int lc_operator(lc_ctx *c, ln_expr *e) {
  int op = e->op, n = e->nargs;
  ln_type t[2];
  for (int i = 0; i < n; i++) t[i] = e->args[i]->type;
  for (int i = 0; i < n; i++)
    if (!lc_is_numeric(t[i])) {
      char tb[64];
      return lc_error(c, e->args[i]->line, e->args[i]->col, "operator %s cannot take a value of type %s",
                      ln_op_text(op), lc_type_name(t[i], tb, sizeof tb));
    }
  switch (op) {
  case LN_OP_EQ: case LN_OP_NE: case LN_OP_LT: case LN_OP_LE: case LN_OP_GT: case LN_OP_GE:
    if (n != 2) break;
    if ((op == LN_OP_EQ || op == LN_OP_NE) && (lc_is_complex(t[0]) || lc_is_complex(t[1]))) {
      /* complex == and != are library calls (tm_complex.c) */
      const char *cf = op == LN_OP_EQ ? "operator==" : "operator!=";
      ln_type ret;
      const lc_sig *s = lc_lib_resolve(cf, t, 2, &ret);
      if (!s) return op_mismatch(c, e, op, cf, t, 2);
      e->fn = s->fn;
      e->type = ret;
      e->dep = 0;
      return AD_OK;
    }
    return scalar_op(c, e, LN_BI_CMP, "int or real operands");
  case LN_OP_AND: case LN_OP_OR:
    if (n != 2) break;
    return scalar_op(c, e, LN_BI_LOGIC, "int or real operands");
  case LN_OP_NOT:
    if (n != 1) break;
    return scalar_op(c, e, LN_BI_LOGIC, "an int or real operand");
  case LN_OP_IDIV:
    if (n != 2) break;
    if (t[0].base != TM_INT || t[0].narr || t[1].base != TM_INT || t[1].narr) {
      char tb[256];
      return lc_error(c, e->line, e->col, "operator %%/%% needs two ints; found %s",
                      lc_types_text(t, 2, tb, sizeof tb));
    }
    e->builtin = LN_BI_IDIV;
    e->type = lc_mk(TM_INT, 0);
    e->dep = 0;
    return AD_OK;
  case LN_OP_PLUS:
    if (n != 1) break;
    e->type = t[0];
    e->dep = e->args[0]->dep;
    return AD_OK;
  default: break;
  }
  const char *fn = op_fn(op, n == 2 ? t[1] : t[0]);
  if (!fn || n != (op == LN_OP_NEG || op == LN_OP_TRANSPOSE ? 1 : 2))
    return lc_error(c, e->line, e->col, "operator %s with %d operand%s is not supported",
                    ln_op_text(op), n, n == 1 ? "" : "s");
  ln_type ret;
  const lc_sig *s = lc_lib_resolve(fn, t, n, &ret);
  if (!s) return op_mismatch(c, e, op, fn, t, n);
  e->fn = s->fn;
  e->type = ret;
  e->dep = (e->args[0]->dep || (n == 2 && e->args[1]->dep)) && lc_real_based(ret);
  int warned = 0;
  for (int i = 0; i < 16 && i < c->nwarned; i++) warned |= c->warned[i] == e;
  if (op == LN_OP_DIV && t[0].base == TM_INT && t[1].base == TM_INT && !t[0].narr && !t[1].narr) {
    e->builtin = LN_BI_INT_DIV_INT;
    if (!warned)
      ln_warn(c->p, e->line, e->col,
            "found int division: values will be rounded towards zero; if rounding is not desired, "
            "write the division as a * 1.0 / b; if rounding is intended, use the integer division "
            "operator %%/%%");
  }
  if (op == LN_OP_POW && t[0].base == TM_MATRIX && lc_is_scalar(t[1]) && !warned)
    ln_warn(c->p, e->line, e->col,
            "matrix ^ number is interpreted as elementwise exponentiation; write .^ to silence this "
            "warning, or use matrix_power(matrix, int) for the matrix power");
  if (!warned && (e->builtin == LN_BI_INT_DIV_INT || (op == LN_OP_POW && t[0].base == TM_MATRIX && lc_is_scalar(t[1]))))
    c->warned[c->nwarned++ % 16] = e;
  return AD_OK;
}

int lc_compound_fn(lc_ctx *c, int line, int col, int op, ln_type lhs, ln_expr *rhs,
                   const tm_fn **fn, ln_type *ret) {
  const char *name;
  switch (op) {
  case LN_OP_ADD: name = "add"; break;
  case LN_OP_SUB: name = "subtract"; break;
  case LN_OP_MUL: name = "multiply"; break;
  case LN_OP_DIV: name = "divide"; break;
  case LN_OP_ELTMUL: name = "elt_multiply"; break;
  case LN_OP_ELTDIV: name = "elt_divide"; break;
  default:
    return lc_error(c, line, col, "operator %s= is not a Stan compound assignment", ln_op_text(op));
  }
  ln_type t[2] = { lhs, rhs->type };
  const lc_sig *s = lc_lib_resolve(name, t, 2, ret);
  int ok = s && ret->base == lhs.base && ret->narr == lhs.narr &&
           !((op == LN_OP_ELTMUL || op == LN_OP_ELTDIV) && lc_is_scalar(lhs));
  if (!ok) {
    char t1[64], t2[64];
    lc_type_name(lhs, t1, sizeof t1);
    lc_type_name(rhs->type, t2, sizeof t2);
    return lc_error(c, line, col,
                    "operator %s= cannot update %s %s with %s %s: %s(%s, %s) must exist and return %s",
                    ln_op_text(op), t1[0] == 'i' || t1[0] == 'a' ? "an" : "a", t1,
                    t2[0] == 'i' || t2[0] == 'a' ? "an" : "a", t2, name, t1, t2, t1);
  }
  *fn = s->fn;
  return AD_OK;
}
