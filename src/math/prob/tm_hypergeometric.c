/*
** tm_hypergeometric.c -- the hypergeometric family: hypergeometric_lpmf
** (ints only) and hypergeometric_rng.
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

/* ---- hypergeometric(n | N, a, b): ints only, so 0 under propto ---- */

static int k_hypergeometric(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 4) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < 4; i++)
    if (!tm_is_scalar(&a[i]) || a[i].base != TM_INT) return tm_no_overload(c, a, nargs);
  int n = a[0].ival[0], N = a[1].ival[0], A = a[2].ival[0], B = a[3].ival[0], rc;
  int Nmn = N - n;
  tm_v vNmn = tm_int_view(&Nmn);
  if ((rc = tm_check_bounded(fn, "Successes variable", &a[0], 0, A))) return rc;
  if (N < n)
    return ad_fail(AD_EDOMAIN, "%s: Draws parameter is %d, but must be greater than or equal to %d", fn, N, n);
  if ((rc = tm_check_bounded(fn, "Draws parameter minus successes variable", &vNmn, 0, B)) ||
      (rc = tm_check_bounded(fn, "Draws parameter", &a[1], 0, (double)A + B)))
    return rc;
  double lp = 0;
  if (!c->propto) lp = tm_lchoose(A, n) + tm_lchoose(B, N - n) - tm_lchoose((double)A + B, N);
  return tm_set_real(out, lp);
}

/* ---- hypergeometric_rng(N, a, b): white balls among N drawn without
** replacement from a white and b black (the distribution of
** hypergeometric_lpmf), one draw at a time ---- */
static int k_hypergeometric_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "hypergeometric_rng";
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 3))) return rc;
  int N = tm_geti(&a[0], 0), A = tm_geti(&a[1], 0), B = tm_geti(&a[2], 0);
  if ((rc = tm_check_bounded(fn, "Draws parameter", &a[0], 0, (double)A + B)) ||
      (rc = tm_check_positive(fn, "Draws parameter", &a[0])) ||
      (rc = tm_check_positive(fn, "Successes in population parameter", &a[1])) ||
      (rc = tm_check_positive(fn, "Failures in population parameter", &a[2])))
    return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  double wa = A, wb = B;
  int n = 0;
  for (int i = 0; i < N; i++) {
    if (tm_rng_uniform(c->rng) * (wa + wb) < wa) { n++; wa--; } else wb--;
  }
  out->ival[0] = n;
  return AD_OK;
}

const tm_fn tm_fns_hypergeometric[] = {
  {"hypergeometric_lpmf", "real(int, int, int, int)", k_hypergeometric, NULL},
  {"hypergeometric_rng", "int(int, int, int)", k_hypergeometric_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
