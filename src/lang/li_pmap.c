/*
** li_pmap.c -- parallel_map(f, grainsize, a1, ...).
**
** Serial for now: one call of f per element on the caller's tape.
*/
#include "li_int.h"

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

int li_parallel_map(li_run *r, const ln_expr *e, tm_v *out) {
  const ln_func *f = e->args[0]->ufn;
  int na = e->nargs - 2, rc, grain, n = -1;
  tm_v *a = ad_alloc((size_t)(2 * na + 1) * sizeof(tm_v));
  if (!a) return ad_fail(AD_EMEMORY, "out of memory");
  tm_v *call = a + na;
  if ((rc = li_eval_int(r, e->args[1], &grain))) return rc;
  if (grain < 1) return li_fail_at(r, AD_EDOMAIN, "parallel_map: grainsize must be at least 1, but is %d", grain);
  if ((rc = li_eval_args(r, e->args + 2, na, a))) return rc;
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
  return li_concat(r, parts, n, out);
}

