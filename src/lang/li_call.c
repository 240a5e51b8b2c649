/*
** li_call.c -- calls of user-defined functions, and the higher-order
** builtins reduce_sum, reduce_sum_static, map_rect and parallel_map.
**
** The higher-order builtins run serially here, as one evaluation on the
** caller's tape; src/par will spread them over threads.  Their values are
** those of the serial definition, which any parallel schedule reproduces.
*/
#include <string.h>
#include "li_int.h"

#define LI_MAX_DEPTH 400

int li_call_user(li_run *r, const ln_func *f, const tm_v *args, int nargs, int propto, tm_v *out) {
  if (f->def) f = f->def;
  if (!f->body) return li_fail_at(r, AD_EINVALID, "function '%s' is declared but not defined", f->name);
  if (nargs != f->nparams)
    return li_fail_at(r, AD_EINVALID, "function '%s' takes %d arguments, given %d", f->name, f->nparams, nargs);
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

/* ---- reduce_sum ---- */

static int eval_all(li_run *r, ln_expr *const *a, int n, tm_v *out) {
  for (int i = 0; i < n; i++) {
    int rc = li_eval(r, a[i], &out[i]);
    if (rc) return rc;
  }
  return AD_OK;
}

static int reduce_sum(li_run *r, const ln_expr *e, tm_v *out) {
  const char *name = e->builtin == LN_BI_REDUCE_SUM ? "reduce_sum" : "reduce_sum_static";
  const ln_func *f = e->args[0]->ufn;
  int ns = e->nargs - 3, rc, grain;
  tm_v *a = ad_alloc((size_t)(ns + 3) * sizeof(tm_v));
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = li_eval(r, e->args[1], &a[0]))) return rc;
  if ((rc = li_eval_int(r, e->args[2], &grain))) return rc;
  if (grain < 1) return li_fail_at(r, AD_EDOMAIN, "%s: grainsize must be at least 1, but is %d", name, grain);
  if ((rc = eval_all(r, e->args + 3, ns, a + 3))) return rc;
  int n = a[0].narr ? a[0].dim[0] : 0;
  if (n == 0) return tm_set_real(out, 0.0);
  if ((rc = tm_new_int(&a[1])) || (rc = tm_new_int(&a[2]))) return rc;
  a[1].ival[0] = 1;
  a[2].ival[0] = n;
  return li_call_user(r, f, a, ns + 3, 0, out);
}

/* ---- concatenating per-job results into one vector ---- */

static int concat(li_run *r, const tm_v *parts, int n, tm_v *out) {
  size_t total = 0;
  int ad = 0, dep = 0, rc;
  for (int i = 0; i < n; i++) {
    total += tm_numel(&parts[i]);
    if (r->ad && parts[i].adj) ad = 1;
    if (li_nonconst(&parts[i])) dep = 1;
  }
  if (total > (size_t)0x7fffffff) return ad_fail(AD_EINVALID, "result too large");
  if ((rc = tm_new_vector(out, (int)total, ad))) return rc;
  out->dep = (unsigned char)dep;
  double **sadj = NULL;
  if (ad && !(sadj = ad_alloc((total ? total : 1) * sizeof *sadj))) return ad_fail(AD_EMEMORY, "out of memory");
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    size_t m = tm_numel(&parts[i]);
    for (size_t j = 0; j < m; j++, k++) {
      out->val[k] = tm_get(&parts[i], j);
      if (sadj) sadj[k] = parts[i].adj ? parts[i].adj + j : NULL;
    }
  }
  return ad ? li_record_pack(total, out->adj, sadj) : AD_OK;
}

static int map_rect(li_run *r, const ln_expr *e, tm_v *out) {
  const ln_func *f = e->args[0]->ufn;
  tm_v a[4];
  int rc;
  if ((rc = eval_all(r, e->args + 1, 4, a))) return rc;
  int J = a[1].dim[0];
  if (a[2].dim[0] != J && !(a[2].dim[0] == 0 && tm_numel(&a[2]) == 0))
    return li_fail_at(r, AD_EINVALID, "map_rect: %d parameter sets (job_params) but %d real data sets (x_r)", J, a[2].dim[0]);
  if (a[3].dim[0] != J && !(a[3].dim[0] == 0 && tm_numel(&a[3]) == 0))
    return li_fail_at(r, AD_EINVALID, "map_rect: %d parameter sets (job_params) but %d int data sets (x_i)", J, a[3].dim[0]);
  tm_v *parts = ad_alloc((size_t)(J ? J : 1) * sizeof(tm_v));
  if (!parts) return ad_fail(AD_EMEMORY, "out of memory");
  for (int j = 0; j < J; j++) {
    tm_v args[4];
    args[0] = a[0];
    args[1] = tm_elem(&a[1], j);
    args[2] = a[2].dim[0] ? tm_elem(&a[2], j) : a[2];
    args[3] = a[3].dim[0] ? tm_elem(&a[3], j) : a[3];
    if ((rc = li_call_user(r, f, args, 4, 0, &parts[j]))) return rc;
  }
  return concat(r, parts, J, out);
}

/* ---- parallel_map ---- */

/* Indexed elementwise: vectors, row vectors and 1-D arrays. */
static int elementwise(const tm_v *v) {
  return v->narr == 1 || (v->narr == 0 && (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR));
}

static tm_v element(const tm_v *v, int i) {
  if (v->narr == 1) return tm_elem(v, i);
  tm_v x = tm_real_view(v->val + i, v->adj ? v->adj + i : NULL);
  x.dep = v->dep;
  return x;
}

static int parallel_map(li_run *r, const ln_expr *e, tm_v *out) {
  const ln_func *f = e->args[0]->ufn;
  int na = e->nargs - 2, rc, grain, n = -1;
  tm_v *a = ad_alloc((size_t)(2 * na + 1) * sizeof(tm_v));
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  tm_v *call = a + na;
  if ((rc = li_eval_int(r, e->args[1], &grain))) return rc;
  if (grain < 1) return li_fail_at(r, AD_EDOMAIN, "parallel_map: grainsize must be at least 1, but is %d", grain);
  if ((rc = eval_all(r, e->args + 2, na, a))) return rc;
  for (int k = 0; k < na; k++) {
    if (!elementwise(&a[k])) continue;
    int m = a[k].narr == 1 ? a[k].dim[0] : (int)tm_numel(&a[k]);
    if (n >= 0 && m != n)
      return li_fail_at(r, AD_EINVALID, "parallel_map: argument %d has %d elements, but an earlier one has %d",
                        k + 1, m, n);
    n = m;
  }
  if (n < 0) n = 1;
  tm_v *parts = ad_alloc((size_t)(n ? n : 1) * sizeof(tm_v));
  if (!parts) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < na; k++) call[k] = elementwise(&a[k]) ? element(&a[k], i) : a[k];
    if ((rc = li_call_user(r, f, call, na, 0, &parts[i]))) return rc;
  }
  return concat(r, parts, n, out);
}

int li_call_builtin(li_run *r, const ln_expr *e, tm_v *out) {
  switch (e->builtin) {
  case LN_BI_REDUCE_SUM:
  case LN_BI_REDUCE_SUM_STATIC:
    return reduce_sum(r, e, out);
  case LN_BI_MAP_RECT:
    return map_rect(r, e, out);
  case LN_BI_PARALLEL_MAP:
    return parallel_map(r, e, out);
  default:
    return li_fail_at(r, AD_EINVALID, "unknown builtin");
  }
}
