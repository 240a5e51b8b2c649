/*
** tm_dens_def.c -- the generic univariate density kernel (tm_dens_def.h).
**
** One kernel serves every univariate density defined as data: a tm_dens_def
** (the kernel's `data`) names the arguments as Stan's messages do, lists the
** argument checks in Stan's order, and points at a body that sums the log
** density over the broadcast and accumulates the partials on the tm_dens
** frame.  Each body (in its family's file tm_<family>.c) mirrors its Stan
** Math counterpart term by term: a term is added only when tm_dens_keep says
** an argument it depends on is not constant, so propto drops exactly what
** Stan's include_summand drops.  The partials are always the full analytic
** derivatives: a dropped term depends only on constants and contributes
** nothing to them.  The helpers the bodies share are in tm_dens_body.h.
*/
#include "../tm.h"
#include "tm_dens_def.h"

/* the definitions and their checks live in tm_dens_def.h, shared with the cdfs */
typedef tm_dens_def dens_def;

static int run_checks(const dens_def *f, const tm_dens *D) {
  return tm_dens_run_checks(D, f->names, f->checks);
}

/* `reals`: int, real, a 1-d array of them, vector or row vector. */
static int check_reals(const char *fn, const tm_v *a, int nargs) {
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    int ok = v->base <= TM_REAL ? v->narr <= 1
           : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0;
    if (!ok) {
      char buf[64];
      return ad_fail(AD_EINVALID, "%s: argument %d has type %s, but must be real, array[] real, vector or row_vector",
                     fn, i + 1, tm_type_name(v, buf, sizeof buf));
    }
  }
  return AD_OK;
}

/* The density into *logp with its partials on the frame D; the kernel
** makes the node of them (tm_dens_end), a plan's call adds them itself
** (tm_dens_def_direct). */
static int run(const tm_call *c, const tm_v *a, int nargs, tm_dens *D, double *logp) {
  if (!c->fn || !c->fn->data) return ad_fail(AD_EINVALID, "density kernel called without its definition");
  const dens_def *f = c->fn->data;
  const char *name = c->fn->name;
  if (nargs != f->nargs)
    return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", name, f->nargs, nargs);
  int rc = check_reals(name, a, nargs);
  if (rc) return rc;
  rc = f->assigns ? tm_dens_begin_assign(D, c, a, nargs, f->names)
                  : tm_dens_begin(D, c, a, nargs, f->names);
  if (rc) return rc;
  D->frozen = c->frozen;
  *logp = 0;
  if (!f->late_checks && (rc = run_checks(f, D))) return rc;
  /* Stan: an empty argument, or (under propto) no argument that is not
  ** constant, gives 0 */
  if (D->n == 0 || !tm_dens_keep(D, (1u << nargs) - 1)) return AD_OK;
  if (f->late_checks && (rc = run_checks(f, D))) return rc;
  return f->body(D, logp);
}

int tm_dens_def_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  tm_dens D;
  double logp;
  int rc = run(c, a, nargs, &D, &logp);
  if (rc) return rc;
  return tm_dens_end(&D, logp, out);
}

int tm_is_dens_def(const tm_fn *fn) {
  return fn && fn->kernel == tm_dens_def_kernel && fn->data;
}

int tm_dens_def_direct(const tm_call *c, const tm_v *a, int nargs, double *logp, ad_operand *ops,
                       int *nops) {
  tm_dens D;
  int rc = run(c, a, nargs, &D, logp);
  if (rc) return rc;
  /* tm_dens_end's operands, then ad_operands_node's (those with elements) */
  int any = 0, k = 0;
  for (int i = 0; i < D.nargs; i++) {
    if (!D.d[i]) continue;
    any = 1;
    size_t n = tm_is_scalar(&D.a[i]) ? 1 : tm_numel(&D.a[i]);
    if (!D.a[i].adj || n == 0) continue;
    ops[k].adj = D.a[i].adj;
    ops[k].partial = D.d[i];
    ops[k].n = n;
    k++;
  }
  *nops = any ? k : -1;
  return AD_OK;
}
