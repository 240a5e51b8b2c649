/*
** lc_hof.c -- the higher-order builtins the interpreter runs itself:
** reduce_sum, reduce_sum_static, map_rect and parallel_map.  Their first
** argument names a user-defined function; the checker picks the definition
** whose parameters accept what the builtin will pass it, and says which
** argument does not fit when none does.
**
**   reduce_sum(f, array[] T x, int grainsize, s1, ...): real
**     f: real f(array[] T slice, int start, int end, s1, ...)
**   map_rect(f, vector phi, array[] vector theta, data array[,] real x_r,
**            data array[,] int x_i): vector
**     f: vector f(vector, vector, data array[] real, data array[] int)
**   parallel_map(f, grainsize, a1, ...): vector, or matrix (two-index form)
**     f: real f(...).  An argument is passed whole when its type fits f's
**     parameter, else mapped over when its elements' type does (vector,
**     row_vector -> real; array -> its element type; matrix -> real, by
**     (i, j): the two-index form, whose grainsize may be a pair).
**   ode_rk45(f, vector y0, real t0, array[] real ts, s1, ...): array[] vector,
**   and ode_ckrk, ode_adams, ode_bdf; their _tol forms take rel_tol,
**   abs_tol and max_num_steps after ts
**     f: vector f(real t, vector y, s1, ...)
**   integrate_ode_rk45(f, array[] real y0, real t0, array[] real ts,
**            array[] real theta, data array[] real x_r, data array[] int x_i
**            [, data real rel_tol, data real abs_tol, data int max_num_steps]):
**            array[,] real, and integrate_ode_adams, integrate_ode_bdf
**     f: array[] real f(real t, array[] real y, array[] real theta,
**                       data array[] real x_r, data array[] int x_i)
**   solve_newton(f, vector y_guess, s1, ...): vector, and solve_powell; their
**   _tol forms take two data reals and an int after y_guess
**     f: vector f(vector y, s1, ...)
**   algebra_solver(f, vector y_guess, vector theta, data array[] real x_r,
**            data array[] int x_i[, data real rel_tol, data real f_tol,
**            int max_steps]): vector, and algebra_solver_newton
**     f: vector f(vector y, vector theta, data array[] real x_r,
**                 data array[] int x_i)
**   integrate_1d(f, real a, real b, array[] real theta, data array[] real
**            x_r, data array[] int x_i[, data real relative_tolerance]): real
**     f: real f(real x, real xc, array[] real theta, data array[] real x_r,
**               data array[] int x_i)
*/
#include <string.h>
#include "lc.h"

int lc_hof_kind(const char *name) {
  if (!name) return 0;
  if (!strcmp(name, "reduce_sum")) return LN_BI_REDUCE_SUM;
  if (!strcmp(name, "reduce_sum_static")) return LN_BI_REDUCE_SUM_STATIC;
  if (!strcmp(name, "map_rect")) return LN_BI_MAP_RECT;
  if (!strcmp(name, "parallel_map")) return LN_BI_PARALLEL_MAP;
  static const char *const odes[] = { "ode_rk45", "ode_rk45_tol", "ode_ckrk", "ode_ckrk_tol", "ode_adams",
                                      "ode_adams_tol", "ode_bdf", "ode_bdf_tol", "ode_adjoint_tol_ctl" };
  for (size_t i = 0; i < sizeof odes / sizeof *odes; i++)
    if (!strcmp(name, odes[i])) return LN_BI_ODE;
  if (!strcmp(name, "integrate_ode_rk45") || !strcmp(name, "integrate_ode_adams") ||
      !strcmp(name, "integrate_ode_bdf"))
    return LN_BI_ODE_OLD;
  if (!strcmp(name, "solve_newton") || !strcmp(name, "solve_newton_tol") || !strcmp(name, "solve_powell") ||
      !strcmp(name, "solve_powell_tol"))
    return LN_BI_SOLVE;
  if (!strcmp(name, "algebra_solver") || !strcmp(name, "algebra_solver_newton")) return LN_BI_SOLVE_OLD;
  if (!strcmp(name, "integrate_1d")) return LN_BI_INTEGRATE;
  if (!strcmp(name, "integrate_1d_gauss_kronrod") || !strcmp(name, "integrate_1d_gauss_kronrod_tol") ||
      !strcmp(name, "integrate_1d_double_exponential") || !strcmp(name, "integrate_1d_double_exponential_tol"))
    return LN_BI_INTEGRATE_V;
  if (!strcmp(name, "dae") || !strcmp(name, "dae_tol")) return LN_BI_DAE;
  return 0;
}

static const char *ordinal(int k, char *buf, size_t size) {
  const char *sfx = (k % 100 >= 11 && k % 100 <= 13) ? "th" : k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
  buf[0] = 0;
  lc_cat(buf, size, "%d%s", k, sfx);
  return buf;
}

/* What the builtin passes to f: types, whether each must be data, and the
** builtin's argument each comes from (0 when it is the builtin's own, such
** as reduce_sum's start and end). */
#define MAXP 64
typedef struct want {
  int n;
  ln_type t[MAXP];
  unsigned char data[MAXP];
  int from[MAXP];
  ln_type ret;
} want;

/* Why f does not accept w; NULL when it does. */
static const char *misfit(const ln_func *f, const want *w, ln_expr **args, int *bad) {
  *bad = -1;
  if (f->ret.base != w->ret.base || f->ret.narr != w->ret.narr) return "return";
  if (f->nparams != w->n) return "count";
  for (int k = 0; k < w->n; k++) {
    ln_decl *pd = f->params ? f->params[k] : NULL;
    if (!pd || lc_assign_cost(pd->type, w->t[k]) < 0) { *bad = k; return "type"; }
    if (pd->type.data_only && w->from[k] && args[w->from[k]]->dep) { *bad = k; return "data"; }
  }
  return NULL;
}

static int explain(lc_ctx *c, ln_expr *e, const ln_func *f, const want *w, const char *why, int k) {
  char t1[64], t2[64], t3[64], o[16];
  const char *bi = e->name, *fn = f->name;
  if (!strcmp(why, "return"))
    return lc_error(c, e->line, e->col, "%s: function %s must return %s, but it returns %s", bi, fn,
                    lc_type_name(w->ret, t1, sizeof t1), lc_type_name(f->ret, t2, sizeof t2));
  if (!strcmp(why, "count"))
    return lc_error(c, e->line, e->col, "%s: function %s takes %d argument%s, but %s passes it %d",
                    bi, fn, f->nparams, f->nparams == 1 ? "" : "s", bi, w->n);
  ln_decl *pd = f->params ? f->params[k] : NULL;
  const char *pname = pd && pd->name ? pd->name : "?";
  ln_expr *a = w->from[k] ? e->args[w->from[k]] : e;
  if (!strcmp(why, "data"))
    return lc_error(c, a->line, a->col,
                    "%s: argument %d passed to parameter '%s' of %s must be data only, but it depends on parameters",
                    bi, w->from[k] + 1, pname, fn);
  if (w->from[k])
    return lc_error(c, a->line, a->col,
                    "%s: argument %d has type %s, so %s passes %s to the %s parameter '%s' of %s, declared %s",
                    bi, w->from[k] + 1, lc_type_name(a->type, t1, sizeof t1), bi,
                    lc_type_name(w->t[k], t2, sizeof t2), ordinal(k + 1, o, sizeof o), pname, fn,
                    pd ? lc_type_name(pd->type, t3, sizeof t3) : "?");
  return lc_error(c, e->line, e->col, "%s: the %s parameter '%s' of %s must be %s",
                  bi, ordinal(k + 1, o, sizeof o), pname, fn, lc_type_name(w->t[k], t1, sizeof t1));
}

/* The definition of fname that accepts w, or a reported error. */
static int pick(lc_ctx *c, ln_expr *e, ln_expr *fe, const want *w) {
  int n, k;
  ln_func **fs = lc_funcs(c, fe->name, &n);
  const ln_func *first = NULL;
  const char *why = NULL;
  int whyk = -1;
  for (int i = 0; i < n; i++) {
    if (!fs[i]->body) continue;
    const char *m = misfit(fs[i], w, e->args, &k);
    if (!m) {
      fe->ufn = fs[i];
      e->ufn = fs[i];
      return AD_OK;
    }
    if (!first) { first = fs[i]; why = m; whyk = k; }
  }
  if (!first)
    return lc_error(c, fe->line, fe->col, "%s: '%s' is not a defined function", e->name, fe->name);
  return explain(c, e, first, w, why, whyk);
}

static int need(lc_ctx *c, ln_expr *e, int k, int ok, const char *what) {
  if (ok) return AD_OK;
  char tb[64];
  ln_expr *a = e->args[k];
  return lc_error(c, a->line, a->col, "%s: argument %d must be %s; found %s", e->name, k + 1, what,
                  lc_type_name(a->type, tb, sizeof tb));
}

/* A builtin's argument at its position: the type it must take (int -> real
** promotes), as its message says it, and whether it must be data: data is
** NULL when it may depend on parameters, "" when it may not, else the name
** the message gives it. */
typedef struct hof_arg { unsigned char base, narr; const char *what, *data; } hof_arg;

/* Arguments 1 .. n-1 of e (args[0], f, is not looked at): every type in
** order first, then the ones that must be data. */
static int need_args(lc_ctx *c, ln_expr *e, const hof_arg *args, int n) {
  int rc;
  for (int k = 1; k < n; k++)
    if ((rc = need(c, e, k, lc_assign_cost(lc_mk(args[k].base, args[k].narr), e->args[k]->type) >= 0,
                   args[k].what)))
      return rc;
  for (int k = 1; k < n; k++) {
    ln_expr *a = e->args[k];
    if (!args[k].data || !a->dep) continue;
    if (*args[k].data)
      return lc_error(c, a->line, a->col, "%s: argument %d (%s) must be data only, but it depends on parameters",
                      e->name, k + 1, args[k].data);
    return lc_error(c, a->line, a->col, "%s: argument %d must be data only, but it depends on parameters",
                    e->name, k + 1);
  }
  return AD_OK;
}

/* One of f's leading parameters: its type and the builtin's argument it
** comes from (0: the builtin's own value, such as an ODE's t and y). */
typedef struct hof_param { unsigned char base, narr; int from; } hof_param;

/* What f gets (w): returning ret, the leading parameters `lead`, then the
** builtin's arguments from `rest` on, as they are. */
static int f_gets(lc_ctx *c, ln_expr *e, want *w, ln_type ret, const hof_param *lead, int nlead, int rest) {
  if (nlead + e->nargs - rest > MAXP) return lc_error(c, e->line, e->col, "%s: too many arguments", e->name);
  w->ret = ret;
  w->n = 0;
  for (int k = 0; k < nlead; k++) {
    w->t[w->n] = lc_mk(lead[k].base, lead[k].narr);
    w->from[w->n++] = lead[k].from;
  }
  for (int k = rest; k < e->nargs; k++) {
    w->t[w->n] = e->args[k]->type;
    w->from[w->n++] = k;
  }
  return AD_OK;
}

/* The end of most builtins' checks: arguments 1 .. nargs-1 as args says,
** what f gets (returning fret, the leading parameters, then the builtin's
** arguments from rest on), and the call's own type. */
static int check_call(lc_ctx *c, ln_expr *e, want *w, const hof_arg *args, int nargs, ln_type fret,
                      const hof_param *lead, int nlead, int rest, ln_type type) {
  int rc;
  if ((rc = need_args(c, e, args, nargs)) || (rc = f_gets(c, e, w, fret, lead, nlead, rest))) return rc;
  e->type = type;
  return AD_OK;
}

static int reduce_sum(lc_ctx *c, ln_expr *e, want *w) {
  int rc;
  if (e->nargs < 3)
    return lc_error(c, e->line, e->col, "%s takes a function, the sliced array, the grainsize and the "
                    "shared arguments: %s(f, x, grainsize, ...)", e->name, e->name);
  ln_type x = e->args[1]->type;
  if ((rc = need(c, e, 1, lc_is_numeric(x) && x.narr >= 1, "an array (the argument sliced)"))) return rc;
  if ((rc = need(c, e, 2, e->args[2]->type.base == TM_INT && e->args[2]->type.narr == 0,
                 "an int (the grainsize)"))) return rc;
  /* f(slice, start, end, s...) */
  static const hof_param lead[] = { { TM_REAL, 1, 1 }, { TM_INT, 0, 0 }, { TM_INT, 0, 0 } };
  if ((rc = f_gets(c, e, w, lc_mk(TM_REAL, 0), lead, 3, 3))) return rc;
  w->t[0] = x;                  /* the slice has x's own type */
  e->type = lc_mk(TM_REAL, 0);
  return AD_OK;
}

static int map_rect(lc_ctx *c, ln_expr *e, want *w) {
  if (e->nargs != 5)
    return lc_error(c, e->line, e->col,
                    "map_rect takes 5 arguments: map_rect(f, vector phi, array[] vector theta, "
                    "data array[,] real x_r, data array[,] int x_i)");
  static const hof_arg args[] = { { 0 }, { TM_VECTOR, 0, "a vector (phi)", NULL },
    { TM_VECTOR, 1, "an array[] vector (theta)", NULL }, { TM_REAL, 2, "an array[,] real (x_r)", "x_r" },
    { TM_INT, 2, "an array[,] int (x_i)", "x_i" } };
  static const hof_param lead[] = { { TM_VECTOR, 0, 1 }, { TM_VECTOR, 0, 2 }, { TM_REAL, 1, 3 }, { TM_INT, 1, 4 } };
  return check_call(c, e, w, args, 5, lc_mk(TM_VECTOR, 0), lead, 4, 5, lc_mk(TM_VECTOR, 0));
}

static int is_real_scalar(ln_type t) { return (t.base == TM_REAL || t.base == TM_INT) && t.narr == 0; }

/* ode_*: (f, vector y0, real t0, array[] real ts[, rel_tol, abs_tol,
** max_num_steps], ...): f gets t, y and the rest. */
/* ode_adjoint_tol_ctl(f, vector y0, real t0, array[] real ts, data real
** rtol_f, data vector atol_f, data real rtol_b, data vector atol_b, data real
** rtol_q, data real atol_q, data int max_num_steps, data int
** num_steps_between_checkpoints, data int interpolation_polynomial, data int
** solver_f, data int solver_b, ...) */
static int ode_adjoint(lc_ctx *c, ln_expr *e) {
  int rc;
  if (e->nargs < 15)
    return lc_error(c, e->line, e->col, "ode_adjoint_tol_ctl takes a function, the initial state, the initial time, "
                    "the output times, 11 control arguments and the function's other arguments: "
                    "ode_adjoint_tol_ctl(f, y0, t0, ts, rel_tol_f, abs_tol_f, rel_tol_b, abs_tol_b, rel_tol_q, "
                    "abs_tol_q, max_num_steps, num_checkpoints, interpolation_polynomial, solver_f, solver_b, ...)");
  static const char *const what[11] = { "a real (relative_tolerance_forward)", "a vector (absolute_tolerance_forward)",
    "a real (relative_tolerance_backward)", "a vector (absolute_tolerance_backward)",
    "a real (relative_tolerance_quadrature)", "a real (absolute_tolerance_quadrature)", "an int (max_num_steps)",
    "an int (num_steps_between_checkpoints)", "an int (interpolation_polynomial)", "an int (solver_forward)",
    "an int (solver_backward)" };
  for (int k = 4; k < 15; k++) {
    ln_type t = e->args[k]->type;
    int ok = k == 5 || k == 7 ? t.base == TM_VECTOR && t.narr == 0 : k >= 10 ? t.base == TM_INT && t.narr == 0
           : is_real_scalar(t);
    if ((rc = need(c, e, k, ok, what[k - 4]))) return rc;
    if (e->args[k]->dep)
      return lc_error(c, e->args[k]->line, e->args[k]->col, "ode_adjoint_tol_ctl: argument %d must be data only, "
                      "but it depends on parameters", k + 1);
  }
  return AD_OK;
}

static int ode(lc_ctx *c, ln_expr *e, want *w) {
  int adjoint = !strcmp(e->name, "ode_adjoint_tol_ctl");
  int rc, tol = !adjoint && lc_ends_with(e->name, "_tol"), first = adjoint ? 15 : tol ? 7 : 4;
  if (adjoint && (rc = ode_adjoint(c, e))) return rc;
  if (e->nargs < first)
    return lc_error(c, e->line, e->col, tol ? "%s takes a function, the initial state, the initial time, the output "
                    "times, rel_tol, abs_tol, max_num_steps and the function's other arguments: "
                    "%s(f, y0, t0, ts, rel_tol, abs_tol, max_num_steps, ...)"
                    : "%s takes a function, the initial state, the initial time, the output times and the "
                    "function's other arguments: %s(f, y0, t0, ts, ...)", e->name, e->name);
  static const hof_arg args[] = { { 0 }, { TM_VECTOR, 0, "a vector (y0)", NULL }, { TM_REAL, 0, "a real (t0)", NULL },
    { TM_REAL, 1, "an array[] real (ts)", NULL }, { TM_REAL, 0, "a real (rel_tol)", "rel_tol" },
    { TM_REAL, 0, "a real (abs_tol)", "abs_tol" }, { TM_INT, 0, "an int (max_num_steps)", "max_num_steps" } };
  static const hof_param lead[] = { { TM_REAL, 0, 0 }, { TM_VECTOR, 0, 0 } };       /* t, y */
  return check_call(c, e, w, args, tol ? 7 : 4, lc_mk(TM_VECTOR, 0), lead, 2, first, lc_mk(TM_VECTOR, 1));
}

/* dae(F, vector yy0, vector yp0, data real t0, data array[] real ts, ...)
** and dae_tol(F, yy0, yp0, t0, ts, data real rtol, data real atol, data int
** max_num_steps, ...): F gets t, yy, yp and the rest. */
static int dae(lc_ctx *c, ln_expr *e, want *w) {
  int tol = lc_ends_with(e->name, "_tol"), first = tol ? 8 : 5;
  if (e->nargs < first)
    return lc_error(c, e->line, e->col, tol ? "%s takes a residual function, the initial state, its derivative, the "
                    "initial time, the output times, rtol, atol, max_num_steps and the function's other arguments: "
                    "%s(F, yy0, yp0, t0, ts, rtol, atol, max_num_steps, ...)"
                    : "%s takes a residual function, the initial state, its derivative, the initial time, the output "
                    "times and the function's other arguments: %s(F, yy0, yp0, t0, ts, ...)", e->name, e->name);
  static const hof_arg args[] = { { 0 }, { TM_VECTOR, 0, "a vector (yy0)", NULL },
    { TM_VECTOR, 0, "a vector (yp0)", NULL }, { TM_REAL, 0, "a real (t0)", "t0" },
    { TM_REAL, 1, "an array[] real (ts)", "ts" }, { TM_REAL, 0, "a real (rtol)", "rtol" },
    { TM_REAL, 0, "a real (atol)", "atol" }, { TM_INT, 0, "an int (max_num_steps)", "max_num_steps" } };
  static const hof_param lead[] = { { TM_REAL, 0, 0 }, { TM_VECTOR, 0, 0 }, { TM_VECTOR, 0, 0 } };   /* t, yy, yp */
  return check_call(c, e, w, args, first, lc_mk(TM_VECTOR, 0), lead, 3, first, lc_mk(TM_VECTOR, 1));
}

/* integrate_ode_*: (f, array[] real y0, real t0, array[] real ts, array[]
** real theta, data array[] real x_r, data array[] int x_i[, rel_tol,
** abs_tol, max_num_steps]) */
static int ode_old(lc_ctx *c, ln_expr *e, want *w) {
  if (e->nargs != 7 && e->nargs != 10)
    return lc_error(c, e->line, e->col, "%s takes 7 arguments, or 10 with the tolerances: %s(f, y0, t0, ts, theta, "
                    "x_r, x_i[, rel_tol, abs_tol, max_num_steps])", e->name, e->name);
  /* Stan declares the older forms' max_num_steps real (an int promotes) */
  static const hof_arg args[] = { { 0 }, { TM_REAL, 1, "an array[] real (y0)", NULL },
    { TM_REAL, 0, "a real (t0)", NULL }, { TM_REAL, 1, "an array[] real (ts)", NULL },
    { TM_REAL, 1, "an array[] real (theta)", NULL }, { TM_REAL, 1, "an array[] real (x_r)", "" },
    { TM_INT, 1, "an array[] int (x_i)", "" }, { TM_REAL, 0, "a real (rel_tol)", "" },
    { TM_REAL, 0, "a real (abs_tol)", "" }, { TM_REAL, 0, "an int (max_num_steps)", "" } };
  /* t, y, theta, x_r, x_i */
  static const hof_param lead[] = { { TM_REAL, 0, 0 }, { TM_REAL, 1, 0 }, { TM_REAL, 1, 4 }, { TM_REAL, 1, 5 },
                                    { TM_INT, 1, 6 } };
  return check_call(c, e, w, args, e->nargs, lc_mk(TM_REAL, 1), lead, 5, e->nargs, lc_mk(TM_REAL, 2));
}

/* solve_*: (f, vector y_guess[, tol1, tol2, max_steps], ...): f gets y and
** the rest. */
static int solve(lc_ctx *c, ln_expr *e, want *w) {
  int tol = lc_ends_with(e->name, "_tol"), first = tol ? 5 : 2;
  if (e->nargs < first)
    return lc_error(c, e->line, e->col, tol ? "%s takes a function, the initial guess, two tolerances, the maximum "
                    "number of steps and the function's other arguments" : "%s takes a function, the initial "
                    "guess and the function's other arguments: %s(f, y_guess, ...)", e->name, e->name);
  static const hof_arg args[] = { { 0 }, { TM_VECTOR, 0, "a vector (the guess)", NULL },
    { TM_REAL, 0, "a real (a tolerance)", "" }, { TM_REAL, 0, "a real (a tolerance)", "" },
    { TM_INT, 0, "an int (max_num_steps)", "" } };
  static const hof_param lead[] = { { TM_VECTOR, 0, 0 } };      /* y */
  return check_call(c, e, w, args, first, lc_mk(TM_VECTOR, 0), lead, 1, first, lc_mk(TM_VECTOR, 0));
}

/* algebra_solver(_newton)(f, vector y_guess, vector theta, data array[] real
** x_r, data array[] int x_i[, rel_tol, f_tol, max_steps]) */
static int solve_old(lc_ctx *c, ln_expr *e, want *w) {
  if (e->nargs != 5 && e->nargs != 8)
    return lc_error(c, e->line, e->col, "%s takes 5 arguments, or 8 with the tolerances: %s(f, y_guess, theta, "
                    "x_r, x_i[, rel_tol, f_tol, max_steps])", e->name, e->name);
  /* max_steps takes a real, as the older ODE forms' max_num_steps */
  static const hof_arg args[] = { { 0 }, { TM_VECTOR, 0, "a vector (the guess)", NULL },
    { TM_VECTOR, 0, "a vector (theta)", NULL }, { TM_REAL, 1, "an array[] real (x_r)", "" },
    { TM_INT, 1, "an array[] int (x_i)", "" }, { TM_REAL, 0, "a real (rel_tol)", "" },
    { TM_REAL, 0, "a real (f_tol)", "" }, { TM_REAL, 0, "an int (max_steps)", "" } };
  /* y, theta, x_r, x_i */
  static const hof_param lead[] = { { TM_VECTOR, 0, 0 }, { TM_VECTOR, 0, 2 }, { TM_REAL, 1, 3 }, { TM_INT, 1, 4 } };
  return check_call(c, e, w, args, e->nargs, lc_mk(TM_VECTOR, 0), lead, 4, e->nargs, lc_mk(TM_VECTOR, 0));
}

/* integrate_1d_gauss_kronrod, integrate_1d_double_exponential: (f, a, b[,
** data real rel_tol, data real abs_tol, data int max_depth], ...): f gets x,
** xc and the rest. */
static int integrate_v(lc_ctx *c, ln_expr *e, want *w) {
  int tol = lc_ends_with(e->name, "_tol"), first = tol ? 6 : 3;
  if (e->nargs < first)
    return lc_error(c, e->line, e->col, tol ? "%s takes a function, the limits, the relative and absolute "
                    "tolerances, the maximum depth and the function's other arguments: %s(f, a, b, rel_tol, "
                    "abs_tol, max_depth, ...)" : "%s takes a function, the limits and the function's other "
                    "arguments: %s(f, a, b, ...)", e->name, e->name);
  static const hof_arg args[] = { { 0 }, { TM_REAL, 0, "a real (the lower limit)", NULL },
    { TM_REAL, 0, "a real (the upper limit)", NULL }, { TM_REAL, 0, "a real (the relative tolerance)", "" },
    { TM_REAL, 0, "a real (the absolute tolerance)", "" }, { TM_INT, 0, "an int (max_depth)", "" } };
  static const hof_param lead[] = { { TM_REAL, 0, 0 }, { TM_REAL, 0, 0 } };         /* x, xc */
  return check_call(c, e, w, args, first, lc_mk(TM_REAL, 0), lead, 2, first, lc_mk(TM_REAL, 0));
}

static int integrate_1d(lc_ctx *c, ln_expr *e, want *w) {
  if (e->nargs != 6 && e->nargs != 7)
    return lc_error(c, e->line, e->col, "integrate_1d takes 6 arguments, or 7 with the relative tolerance: "
                    "integrate_1d(f, a, b, theta, x_r, x_i[, relative_tolerance])");
  static const hof_arg args[] = { { 0 }, { TM_REAL, 0, "a real (the lower limit)", NULL },
    { TM_REAL, 0, "a real (the upper limit)", NULL }, { TM_REAL, 1, "an array[] real (theta)", NULL },
    { TM_REAL, 1, "an array[] real (x_r)", "" }, { TM_INT, 1, "an array[] int (x_i)", "" },
    { TM_REAL, 0, "a real (the relative tolerance)", "" } };
  /* x, xc, theta, x_r, x_i */
  static const hof_param lead[] = { { TM_REAL, 0, 0 }, { TM_REAL, 0, 0 }, { TM_REAL, 1, 3 }, { TM_REAL, 1, 4 },
                                    { TM_INT, 1, 5 } };
  return check_call(c, e, w, args, e->nargs, lc_mk(TM_REAL, 0), lead, 5, e->nargs, lc_mk(TM_REAL, 0));
}

/* ---- parallel_map ----
** How an argument reaches f is decided by f's declared parameter: passed
** whole when its type fits, else indexed when its elements' type fits (a
** vector's or row vector's reals, an array's elements along the first
** index, a matrix's reals by (i, j)).  li_pmap.c applies the same rule. */
enum { PM_WHOLE = 0, PM_ELEM, PM_ELEM2 };

/* The type of a's elements, and how they are indexed; 0 when a has none. */
static int pm_elem_type(ln_type a, ln_type *et) {
  if (a.narr >= 1) { *et = lc_mk(a.base, a.narr - 1); return PM_ELEM; }
  if (a.base == TM_VECTOR || a.base == TM_ROW_VECTOR) { *et = lc_mk(TM_REAL, 0); return PM_ELEM; }
  if (a.base == TM_MATRIX) { *et = lc_mk(TM_REAL, 0); return PM_ELEM2; }
  return 0;
}

/* Why f does not take the arguments of e (as misfit), the types it gets in
** w and each argument's mode. */
static const char *pm_misfit(const ln_func *f, ln_expr *e, want *w, int *mode, int *bad) {
  *bad = -1;
  w->ret = lc_mk(TM_REAL, 0);
  w->n = e->nargs - 2;
  if (f->ret.base != TM_REAL || f->ret.narr != 0) return "return";
  if (f->nparams != w->n) return "count";
  for (int k = 0; k < w->n; k++) {
    ln_decl *pd = f->params ? f->params[k] : NULL;
    ln_type a = e->args[k + 2]->type, et;
    int m = pm_elem_type(a, &et);
    w->from[k] = k + 2;
    w->t[k] = a;
    mode[k] = PM_WHOLE;
    if (!pd) { *bad = k; return "type"; }
    if (lc_assign_cost(pd->type, a) < 0) {
      if (!m || lc_assign_cost(pd->type, et) < 0) { *bad = k; return "type"; }
      w->t[k] = et;
      mode[k] = m;
    }
    if (pd->type.data_only && e->args[k + 2]->dep) { *bad = k; return "data"; }
  }
  return NULL;
}

static int is_int_lit(const ln_expr *x, int *v) {
  if (!x || x->kind != LE_INT) return 0;
  *v = x->ival;
  return 1;
}

/* The size of a mapped argument when the program text fixes it: the
** number of elements along the first index (*r), and for a matrix its
** columns (*c); -1 where it is unknown. */
static void pm_known_size(const ln_expr *a, int *r, int *c) {
  *r = *c = -1;
  ln_type t = a->type;
  if (a->kind == LE_ARRAY && t.narr >= 1) { *r = a->nargs; return; }
  if (a->kind == LE_ROWVEC && t.narr == 0) {
    *r = a->nargs;
    if (t.base == TM_MATRIX && a->nargs > 0 && a->args[0]->kind == LE_ROWVEC) *c = a->args[0]->nargs;
    return;
  }
  if (a->kind == LE_UNOP && a->op == LN_OP_TRANSPOSE && a->args[0]->kind == LE_ROWVEC) {
    int r0, c0;
    pm_known_size(a->args[0], &r0, &c0);
    if (t.base == TM_VECTOR) *r = r0;
    else if (t.base == TM_MATRIX) { *r = c0; *c = r0; }
    return;
  }
  const ln_decl *d = a->kind == LE_VAR ? a->decl : NULL;
  if (!d || d->type.narr != t.narr) return;
  if (t.narr >= 1) { is_int_lit(d->dims[0], r); return; }
  if (t.base == TM_VECTOR || t.base == TM_ROW_VECTOR) { is_int_lit(d->size1, r); return; }
  if (t.base != TM_MATRIX) return;
  is_int_lit(d->size1, r);
  if (d->size2) is_int_lit(d->size2, c);
  else *c = *r;                 /* cov_matrix[K] and the like: square */
}

/* The mapped arguments agree in size where the program fixes their sizes. */
static int pm_sizes(lc_ctx *c, ln_expr *e, const int *mode, int n) {
  int first = -1, r0 = -1, c0 = -1;
  for (int k = 0; k < n; k++) {
    if (mode[k] == PM_WHOLE) continue;
    ln_expr *a = e->args[k + 2];
    int r, cc;
    pm_known_size(a, &r, &cc);
    if (first < 0) { first = k; r0 = r; c0 = cc; continue; }
    int rbad = r >= 0 && r0 >= 0 && r != r0;
    int cbad = mode[k] == PM_ELEM2 && cc >= 0 && c0 >= 0 && cc != c0;
    if ((rbad || cbad) && mode[k] == PM_ELEM2 && r >= 0 && r0 >= 0 && cc >= 0 && c0 >= 0)
      return lc_error(c, a->line, a->col, "parallel_map: argument %d is a %d x %d matrix, but argument %d is "
                      "%d x %d; the matrices mapped over must have the same shape", k + 3, r, cc, first + 3, r0, c0);
    if (rbad || cbad)
      return lc_error(c, a->line, a->col, "parallel_map: argument %d has %d %s, but argument %d has %d; the "
                      "%s mapped over must have the same size", k + 3, rbad ? r : cc,
                      mode[k] == PM_ELEM2 ? (rbad ? "rows" : "columns") : "elements", first + 3, rbad ? r0 : c0,
                      mode[k] == PM_ELEM2 ? "matrices" : "arguments");
    if (r0 < 0) r0 = r;
    if (c0 < 0) c0 = cc;
  }
  return AD_OK;
}

static int parallel_map(lc_ctx *c, ln_expr *e) {
  int rc, n, bad, mode[MAXP];
  char t1[64], t2[64], t3[64], o[16];
  if (e->nargs < 3)
    return lc_error(c, e->line, e->col,
                    "parallel_map takes a function, the grainsize and the arguments: parallel_map(f, grainsize, a1, ...)");
  ln_type gt = e->args[1]->type;
  if ((rc = need(c, e, 1, gt.base == TM_INT && gt.narr <= 1, "an int (the grainsize)"))) return rc;
  if (e->nargs - 2 > MAXP) return lc_error(c, e->line, e->col, "parallel_map: too many arguments");
  ln_expr *fe = e->args[0];
  ln_func **fs = lc_funcs(c, fe->name, &n);
  ln_func *f = NULL, *first = NULL;
  const char *why = NULL;
  want w, fw;
  int whyk = -1;
  for (int i = 0; i < n && !f; i++) {
    if (!fs[i]->body) continue;
    memset(&w, 0, sizeof w);
    const char *m = pm_misfit(fs[i], e, &w, mode, &bad);
    if (!m) f = fs[i];
    else if (!first) { first = fs[i]; why = m; whyk = bad; fw = w; }
  }
  if (!f && !first)
    return lc_error(c, fe->line, fe->col, "parallel_map: '%s' is not a defined function", fe->name);
  if (!f && !strcmp(why, "type")) {
    ln_decl *pd = first->params ? first->params[whyk] : NULL;
    ln_expr *a = e->args[whyk + 2];
    ln_type et;
    lc_type_name(a->type, t1, sizeof t1);
    lc_type_name(pd ? pd->type : lc_mk(LN_ERRTYPE, 0), t3, sizeof t3);
    ordinal(whyk + 1, o, sizeof o);
    if (pm_elem_type(a->type, &et))
      return lc_error(c, a->line, a->col, "parallel_map: argument %d has type %s; neither it nor its elements "
                      "(%s) fit the %s parameter '%s' of %s, declared %s", whyk + 3, t1,
                      lc_type_name(et, t2, sizeof t2), o, pd && pd->name ? pd->name : "?", first->name, t3);
    return lc_error(c, a->line, a->col, "parallel_map: argument %d has type %s, which does not fit the %s "
                    "parameter '%s' of %s, declared %s", whyk + 3, t1, o, pd && pd->name ? pd->name : "?",
                    first->name, t3);
  }
  if (!f) return explain(c, e, first, &fw, why, whyk);

  /* the form: one index (vectors, arrays) or two (matrices), not both */
  int one = -1, two = -1;
  for (int k = 0; k < w.n; k++) {
    if (mode[k] == PM_ELEM && one < 0) one = k;
    if (mode[k] == PM_ELEM2 && two < 0) two = k;
  }
  if (one < 0 && two < 0)
    return lc_error(c, e->line, e->col,
                    "parallel_map: %s takes every argument whole; at least one must be mapped over: a vector, "
                    "row_vector, matrix or array whose elements fit a parameter of %s", f->name, f->name);
  if (one >= 0 && two >= 0) {
    int later = one > two ? one : two;
    ln_expr *a = e->args[later + 2];
    return lc_error(c, a->line, a->col,
                    "parallel_map: argument %d is mapped over one index, but argument %d is a matrix mapped "
                    "over two (i, j); map over matrices only, or over vectors and arrays only",
                    one + 3, two + 3);
  }
  if (gt.narr == 1) {
    if (two < 0)
      return lc_error(c, e->args[1]->line, e->args[1]->col,
                      "parallel_map: a grainsize pair (rows, cols) needs the two-index form (matrices mapped "
                      "over); here the grainsize must be an int");
    if (e->args[1]->kind == LE_ARRAY && e->args[1]->nargs != 2)
      return lc_error(c, e->args[1]->line, e->args[1]->col,
                      "parallel_map: the grainsize must be an int or a pair (rows, cols); found %d ints",
                      e->args[1]->nargs);
  }
  if ((rc = pm_sizes(c, e, mode, w.n))) return rc;
  fe->ufn = f;
  e->ufn = f;
  e->type = lc_mk(two >= 0 ? TM_MATRIX : TM_VECTOR, 0);
  return AD_OK;
}

/* The rest, once the arguments are typed (a leaf: the want lives here). */
static int hof_types(lc_ctx *c, ln_expr *e, int which) {
  want w;
  int rc;
  memset(&w, 0, sizeof w);
  if (which == LN_BI_PARALLEL_MAP) rc = parallel_map(c, e);   /* picks f itself */
  else {
    rc = which == LN_BI_MAP_RECT ? map_rect(c, e, &w) : which == LN_BI_ODE ? ode(c, e, &w)
       : which == LN_BI_ODE_OLD ? ode_old(c, e, &w) : which == LN_BI_SOLVE ? solve(c, e, &w)
       : which == LN_BI_SOLVE_OLD ? solve_old(c, e, &w) : which == LN_BI_INTEGRATE ? integrate_1d(c, e, &w)
       : which == LN_BI_INTEGRATE_V ? integrate_v(c, e, &w) : which == LN_BI_DAE ? dae(c, e, &w)
       : reduce_sum(c, e, &w);
    if (rc == AD_OK) rc = pick(c, e, e->args[0], &w);
  }
  if (rc) return rc;
  /* f's calls run in parallel: none may change target or draw numbers */
  const char *fname = e->args[0]->name;
  if (lc_ends_with(fname, "_rng") || lc_ends_with(fname, "_lp"))
    return lc_error(c, e->args[0]->line, e->args[0]->col,
                    which >= LN_BI_ODE
                    ? "%s: the function passed cannot be a %s function"
                    : "%s: the function passed cannot be a %s function; its calls run in parallel",
                    e->name, lc_ends_with(fname, "_rng") ? "_rng" : "_lp");
  if ((rc = lc_suffix_rules(c, fname, e->args[0]->line, e->args[0]->col))) return rc;
  int dep = 0;
  for (int k = 1; k < e->nargs; k++) dep |= e->args[k]->dep;
  e->dep = dep;
  e->builtin = which;
  e->fn = NULL;
  return AD_OK;
}

int lc_hof(lc_ctx *c, ln_expr *e, int which) {
  int rc, n;
  if (e->bar) return lc_error(c, e->line, e->col, "%s cannot use the vertical bar (|)", e->name);
  if (e->nargs < 1 || !e->args || !e->args[0])
    return lc_error(c, e->line, e->col, "%s needs a function as its first argument", e->name);
  ln_expr *fe = e->args[0];
  /* reduce_sum(f_lupmf, ...): f_lpmf, its _lupmf calls dropping constants
     (as a call of f_lupmf would) */
  if ((fe->kind == LE_VAR || fe->kind == LE_FUNCREF) && fe->name &&
      (lc_ends_with(fe->name, "_lupdf") || lc_ends_with(fe->name, "_lupmf")) && !lc_lookup(c, fe->name)) {
    if (c->fn ? c->fkind != LC_FK_LPDF : c->blk != LN_BLK_MODEL)
      return lc_error(c, fe->line, fe->col,
                      "functions ending in _lupdf and _lupmf can only be used in the model block "
                      "or in functions ending in _lpdf or _lpmf");
    if (!(fe->name = lc_normalized(c, fe->name))) return lc_error(c, fe->line, fe->col, "out of memory");
    e->propto = 1;
  }
  if ((fe->kind != LE_VAR && fe->kind != LE_FUNCREF) || !fe->name || lc_lookup(c, fe->name) ||
      !lc_funcs(c, fe->name, &n))
    return lc_error(c, fe->line, fe->col,
                    "the first argument of %s must be the name of a user-defined function", e->name);
  fe->kind = LE_FUNCREF;
  fe->type = lc_mk(LN_FUNCREF, 0);
  fe->dep = 0;
  for (int i = 1; i < e->nargs; i++) {
    if ((rc = lc_expr(c, e->args[i]))) return rc;
    if (!lc_is_numeric(e->args[i]->type)) return need(c, e, i, 0, "an int or real value or container");
    if (lc_is_complex(e->args[i]->type))
      return lc_error(c, e->args[i]->line, e->args[i]->col,
                      "complex arguments to %s are not supported by tapestry yet", e->name);
  }
  return hof_types(c, e, which);
}
