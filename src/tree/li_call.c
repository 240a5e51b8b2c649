/*
** li_call.c -- calls of user-defined functions, and the dispatch of the
** higher-order builtins (li_reduce.c, li_maprect.c, li_pmap.c; their
** shared machinery is li_par.c).
*/
#include <string.h>
#include "li_int.h"

#define LI_MAX_DEPTH 400

int li_call_user(li_run *r, const ln_func *f, const tm_v *args, int nargs, int propto, tm_v *out) {
  if (f->def) f = f->def;
  if (!f->body) return li_fail_at(r, AD_EINVALID, "function '%s' is declared but not defined", f->name);
  if (nargs != f->nparams)
    return li_fail_at(r, AD_EINVALID, "function '%s' takes %d arguments, given %d", f->name, f->nparams, nargs);
  /* a call is the other way back to the same code (recursion) */
  if (ad_interrupted()) return li_fail_at(r, AD_EINTERRUPT, "interrupted");
  if (r->depth >= LI_MAX_DEPTH)
    return li_fail_at(r, AD_EFATAL, "function '%s': recursion deeper than %d calls", f->name, LI_MAX_DEPTH);
  int nslots = f->nslots > nargs ? f->nslots : nargs;
  li_slot *frame = ad_alloc((size_t)(nslots ? nslots : 1) * sizeof *frame);
  if (!frame) return ad_fail(AD_EMEMORY, "out of memory");
  memset(frame, 0, (size_t)(nslots ? nslots : 1) * sizeof *frame);
  int fn_ad = 0, fn_dep = 0, rc;
  for (int i = 0; i < nargs; i++) {
    if ((rc = li_promote(r, &args[i], f->params[i]->type, &frame[i].v))) return rc;
    frame[i].set = 1;
    if (r->ad && args[i].adj) fn_ad = 1;
    if (li_nonconst(&args[i])) fn_dep = 1;
  }
  li_slot *locals = r->locals;
  int s_ad = r->fn_ad, s_dep = r->fn_dep, s_propto = r->fn_propto, line = r->line, col = r->col;
  r->locals = frame;
  r->fn_ad = fn_ad;
  r->fn_dep = fn_dep;
  if (f->density) r->fn_propto = propto;
  r->depth++;
  rc = li_exec(r, f->body);
  r->depth--;
  int returned = r->flow == LI_FLOW_RETURN;
  tm_v ret = r->ret;
  r->flow = LI_FLOW_NONE;
  r->locals = locals;
  r->fn_ad = s_ad;
  r->fn_dep = s_dep;
  r->fn_propto = s_propto;
  if (rc) return rc;
  r->line = line;
  r->col = col;
  if (f->ret.base == LN_VOID) {
    memset(out, 0, sizeof *out);
    out->base = LN_VOID;
    return AD_OK;
  }
  if (!returned) return li_fail_at(r, AD_EINVALID, "function '%s' ended without returning a value", f->name);
  return li_promote(r, &ret, f->ret, out);
}

int li_eval_args(li_run *r, ln_expr *const *a, int n, tm_v *out) {
  for (int i = 0; i < n; i++) {
    int rc = li_eval(r, a[i], &out[i]);
    if (rc) return rc;
  }
  return AD_OK;
}

/* Each higher-order builtin's runner, by its LN_BI_ code (the checker's
** resolution; the older and _tol forms share their newer form's runner). */
typedef int (*li_builtin_run)(li_run *r, const ln_expr *e, tm_v *out);
static const li_builtin_run builtin_runs[] = {
  [LN_BI_REDUCE_SUM] = li_reduce_sum, [LN_BI_REDUCE_SUM_STATIC] = li_reduce_sum,
  [LN_BI_MAP_RECT] = li_map_rect, [LN_BI_PARALLEL_MAP] = li_parallel_map,
  [LN_BI_ODE] = li_ode, [LN_BI_ODE_OLD] = li_ode, [LN_BI_DAE] = li_dae,
  [LN_BI_SOLVE] = li_solve, [LN_BI_SOLVE_OLD] = li_solve,
  [LN_BI_INTEGRATE] = li_integrate_1d, [LN_BI_INTEGRATE_V] = li_integrate_1d,
};

int li_call_builtin(li_run *r, const ln_expr *e, tm_v *out) {
  int b = e->builtin;
  li_builtin_run run = b >= 0 && (size_t)b < sizeof builtin_runs / sizeof *builtin_runs ? builtin_runs[b] : NULL;
  if (!run) return li_fail_at(r, AD_EINVALID, "unknown builtin");
  return run(r, e, out);
}
