/*
** li_maprect.c -- map_rect(f, phi, theta, x_r, x_i).
**
** Serial for now: one call of f per job on the caller's tape.
*/
#include "li_int.h"

int li_map_rect(li_run *r, const ln_expr *e, tm_v *out) {
  const ln_func *f = e->args[0]->ufn;
  tm_v a[4];
  int rc;
  if ((rc = li_eval_args(r, e->args + 1, 4, a))) return rc;
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
  return li_concat(r, parts, J, out);
}

