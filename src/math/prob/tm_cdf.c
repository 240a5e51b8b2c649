/*
** tm_cdf.c -- cumulative distribution functions: X_cdf, X_lcdf and X_lccdf
** of the univariate distributions, for truncation (y ~ normal(mu, s) T[L, U])
** and censoring.
**
** Each distribution is one function that returns, for one element of the
** broadcast, log F or log(1 - F) and the partials of that log in each
** argument; one kernel runs it over the broadcast on the density frame
** (tm_dens: broadcasting, one node per call) and forms what Stan returns
** for containers: the sum of the logs for _lcdf and _lccdf, the product of
** the cdfs for _cdf (whose partials are the product times the log partials).
**
** The tails are what truncation needs, so each function takes the form that
** keeps its digits there: log Phi through erfcx, Cauchy's cdf as an atan2
** angle, log1m_exp for 1 - exp(-u), the incomplete gamma and beta functions
** as logs.  An element outside the support gives log(0) = -inf for the
** call, with zero partials, as Stan's explicit returns do.
**
** Here: the kernel.  Each family's element functions, defs and rows are in
** its file tm_<family>.c; the pieces they share are in tm_cdf.h.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_def.h"
#include "tm_cdf.h"

/* cdf_def, cdf_fn, the modes: tm_cdf.h */

static int check_types(const char *fn, const cdf_def *f, const tm_v *a, int nargs) {
  char buf[64];
  if (nargs != f->nargs)
    return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, f->nargs, nargs);
  for (int i = 0; i < nargs; i++) {
    const tm_v *v = &a[i];
    if (f->ints >> i & 1u) {
      if (v->base != TM_INT || v->narr > 1)
        return ad_fail(AD_EINVALID, "%s: %s has type %s, but must be int or array[] int", fn,
                       f->names[i], tm_type_name(v, buf, sizeof buf));
      continue;
    }
    int ok = v->base <= TM_REAL ? v->narr <= 1
           : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && v->narr == 0;
    if (!ok)
      return ad_fail(AD_EINVALID, "%s: %s has type %s, but must be real, array[] real, vector or row_vector",
                     fn, f->names[i], tm_type_name(v, buf, sizeof buf));
  }
  return AD_OK;
}

static void zero_partials(tm_dens *D) {
  for (int i = 0; i < D->nargs; i++)
    if (D->d[i]) memset(D->d[i], 0, (tm_is_scalar(&D->a[i]) ? 1 : D->n) * sizeof(double));
}

int tm_cdf_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const cdf_fn *F = c->fn->data;
  const cdf_def *f = F->def;
  int rc = check_types(c->fn->name, f, a, nargs);
  if (rc) return rc;
  tm_dens D;
  if ((rc = tm_dens_begin(&D, c, a, nargs, f->names))) return rc;
  D.frozen = c->frozen;
  if ((rc = tm_dens_run_checks(&D, f->names, f->checks))) return rc;
  if (f->check && (rc = f->check(&D))) return rc;
  int upper = F->mode == M_LCCDF, dep = 0;
  for (int i = 0; i < nargs; i++) dep |= a[i].dep;
  double s = 0, x[4], d[4];
  for (size_t j = 0; j < D.n && s > -INFINITY; j++) {
    for (int i = 0; i < nargs; i++) { x[i] = D.x[i][j * D.inc[i]]; d[i] = 0; }
    s += f->f(x, upper, d);
    for (int i = 0; i < nargs; i++) tm_dens_add(&D, i, j, d[i]);
  }
  if (s == -INFINITY) zero_partials(&D);
  if (F->mode == M_CDF) {
    s = exp(s);                /* Stan: the product of the cdfs; 1 when empty */
    for (int i = 0; i < nargs; i++)
      if (D.d[i]) {
        size_t m = tm_is_scalar(&a[i]) ? 1 : D.n;
        for (size_t k = 0; k < m; k++) D.d[i][k] *= s;
      }
  }
  rc = tm_dens_end(&D, s, out);
  if (!rc && !out->adj) out->dep = (unsigned char)dep;
  return rc;
}
