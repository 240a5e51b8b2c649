/*
** tm_density.c -- the frame shared by the vectorized densities.
**
** A density kernel reads its arguments with tm_get (scalars broadcast),
** accumulates its value and, for autodiff arguments only, the partials with
** tm_dens_add; tm_dens_end then records one node for the whole call.
*/
#include <stdio.h>
#include <string.h>
#include "../tm.h"
#include "tm_dens_def.h"

enum { ASSIGN = 1, INTS_AS_INTS = 2 };

static int begin(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, const char *const *names,
                 int how) {
  int assign = how & ASSIGN;
  /* Field by field: a memset of the whole frame compiles to `rep stos`,
  ** whose start-up cost was 4% of a small model's gradient. */
  memset(D->d, 0, sizeof D->d);
  memset(D->x, 0, sizeof D->x);
  memset(D->inc, 0, sizeof D->inc);
  D->fn = c->fn ? c->fn->name : "density";
  D->a = a;
  D->nargs = nargs;
  D->propto = c->propto;
  D->n = 0;
  D->frozen = 0;
  if (nargs > TM_DENS_MAXARGS) return ad_fail(AD_EINVALID, "%s: too many arguments", D->fn);
  /* Stan: every container argument has the size of the first container. */
  int first = -1;
  size_t n = 1;
  for (int i = 0; i < nargs; i++) {
    if (tm_is_scalar(&a[i])) continue;
    size_t m = tm_numel(&a[i]);
    if (first < 0) { first = i; n = m; continue; }
    int rc = tm_check_size_match(D->fn, names[first], n, names[i], m);
    if (rc) return rc;
  }
  D->n = n;
  for (int i = 0; i < nargs; i++) {
    size_t m = tm_is_scalar(&a[i]) ? 1 : tm_numel(&a[i]);
    D->inc[i] = tm_is_scalar(&a[i]) ? 0 : 1;
    if (a[i].base == TM_INT && (how & INTS_AS_INTS)) {
      D->x[i] = NULL;                  /* the kernel reads a[i].ival */
    } else if (a[i].base == TM_INT) {
      double *x = ad_alloc_doubles(m ? m : 1);
      if (!x) return AD_EMEMORY;
      for (size_t j = 0; j < m; j++) x[j] = (double)a[i].ival[j];
      D->x[i] = x;
    } else {
      D->x[i] = a[i].val;
    }
    if (a[i].adj) {
      D->d[i] = assign && m > 1 ? ad_alloc_doubles(m) : ad_alloc_zeros(m ? m : 1);
      if (!D->d[i]) return AD_EMEMORY;
    }
  }
  return AD_OK;
}

int tm_dens_begin(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, const char *const *names) {
  return begin(D, c, a, nargs, names, 0);
}

int tm_dens_begin_assign(tm_dens *D, const tm_call *c, const tm_v *a, int nargs,
                         const char *const *names) {
  return begin(D, c, a, nargs, names, ASSIGN);
}

int tm_dens_begin_ints(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, const char *const *names) {
  return begin(D, c, a, nargs, names, INTS_AS_INTS);
}

int tm_dens_end(tm_dens *D, double logp, tm_v *out) {
  ad_operand ops[TM_DENS_MAXARGS];
  int k = 0;
  for (int i = 0; i < D->nargs; i++) {
    if (!D->d[i]) continue;
    ops[k].adj = D->a[i].adj;
    ops[k].partial = D->d[i];
    ops[k].n = tm_is_scalar(&D->a[i]) ? 1 : tm_numel(&D->a[i]);
    k++;
  }
  if (k == 0) return tm_set_real(out, logp);
  ad_var r;
  int rc = ad_operands_node(k, ops, logp, &r);
  if (rc) return rc;
  return tm_set_var(out, r);
}

/* Stan's check_greater: argument `arg` must exceed argument arg - 1,
** element by element over the broadcast (uniform's bounds). */
static int check_greater(const tm_dens *D, const char *const *names, int arg) {
  const tm_v *hi = &D->a[arg], *lo = &D->a[arg - 1];
  for (size_t j = 0; j < D->n; j++) {
    double h = tm_get(hi, j), l = tm_get(lo, j);
    if (h > l) continue;
    char name[160];
    if (tm_is_scalar(hi)) snprintf(name, sizeof name, "%s", names[arg]);
    else snprintf(name, sizeof name, "%s[%zu]", names[arg], j + 1);
    return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than %.17g", D->fn, name, h, l);
  }
  return AD_OK;
}

int tm_dens_run_checks(const tm_dens *D, const char *const *names, const tm_dens_check *checks) {
  for (const tm_dens_check *k = checks; k->kind != CK_END; k++) {
    /* a plan's constant passed when the plan was recorded (y and sigma of
    ** y ~ normal(mu, sigma) with data: half a small model's checks) */
    unsigned on = 1u << k->arg | (k->kind == CK_GREATER ? 1u << (k->arg - 1) : 0u);
    if ((D->frozen & on) == on) continue;
    const char *fn = D->fn, *nm = names[k->arg];
    const tm_v *v = &D->a[k->arg];
    int rc = AD_OK;
    switch (k->kind) {
    case CK_NOT_NAN:    rc = tm_check_not_nan(fn, nm, v); break;
    case CK_FINITE:     rc = tm_check_finite(fn, nm, v); break;
    case CK_POS:        rc = tm_check_positive(fn, nm, v); break;
    case CK_POS_FINITE: rc = tm_check_positive_finite(fn, nm, v); break;
    case CK_NONNEG:     rc = tm_check_nonnegative(fn, nm, v); break;
    case CK_UNIT:       rc = tm_check_bounded(fn, nm, v, 0, 1); break;
    case CK_GREATER:    rc = check_greater(D, names, k->arg); break;
    }
    if (rc) return rc;
  }
  return AD_OK;
}
