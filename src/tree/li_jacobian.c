/*
** li_jacobian.c -- a call of Stan's X_jacobian functions while the log
** Jacobian is accumulated: the transform's value, and its log Jacobian added
** to the target as `jacobian +=` adds it.  When it is not (jacobian = FALSE,
** write_array) the call is X_jacobian's kernel alone, which gives the value.
**
** The call is traced as the constraint transform of a parameter is
** (LI_EV_TRANSFORM: the unconstrained values as one vector, the bounds, the
** value and the log Jacobian), so a plan replays it the same way.
*/
#include <string.h>
#include "li_int.h"
#include "../math/tm_transform_fns.h"

int li_call_jacobian(li_run *r, const tm_fn *fn, const tm_v *args, int nargs, tm_v *out) {
  tm_tf_call tc;
  int rc = tm_transform_fn_setup(fn, args, nargs, &tc);
  if (rc) return li_locate(r, rc);
  size_t c0 = r->tr ? li_chain_len() : 0;
  tm_v y = tc.shape, lp;
  if ((rc = tm_transform_constrain(tc.t, &tc.x, tc.params, &y, &lp))) return li_locate(r, rc);
  int np = tc.t->nparams, any = tc.x.adj != NULL;
  for (int k = 0; k < np; k++) any |= tc.params[k].adj != NULL;
  if (r->tr && any) {
    tm_v a[3];
    a[0] = tc.x;
    for (int k = 0; k < np; k++) a[1 + k] = tc.params[k];
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_TRANSFORM; ev.fn = tc.t; ev.args = a; ev.nargs = 1 + np;
    ev.out = &y; ev.out2 = &lp; ev.chain0 = c0;
    li_emit(r, &ev);
  }
  unsigned char dep = 0;
  for (int i = 0; i < nargs; i++) if (li_nonconst(&args[i])) dep = 1;
  if (!y.adj) y.dep = dep;
  if (!lp.adj) lp.dep = dep;
  if ((rc = li_add_term(r, &lp))) return rc;
  *out = y;
  return AD_OK;
}
