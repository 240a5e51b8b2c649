/*
** r_pmaptest.c -- tm_parallel_map_spec (src/par/pp_map.h) driven from C, for
** tests/testthat/test-parallel-map.R.
**
** tp_pmap_test(n, m, strategy, fail_at): out[i] = z[i]^2 * theta[i % m]
** + x[i] * theta[0], with x data (read in place), z autodiff and indexed,
** theta autodiff and broadcast (shared).  The caller seeds out's adjoints
** with w[i] = 1 + i / 10 and sweeps; the values and adjoints are compared
** with the analytic ones (largest relative errors).  strategy: 0 auto, 1 eager, 2 append.  fail_at
** >= 1: that element (and every later tenth) fails, and the status and
** message come back instead.  Runs on the main thread's budget.
*/
#include <math.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "../ad/ad.h"
#include "../math/tm.h"
#include "../par/pp_map.h"
#include "r_entries_threads.h"

typedef struct pmt {
  tm_v x, z, theta;
  int m, fail_at;
} pmt;

static int pmt_index(void *ctx, int i, tm_pm_ops *o) {
  const pmt *t = ctx;
  o->n = 3;
  o->v[0] = tm_real_view(t->x.val + i, NULL);
  o->v[1] = tm_real_view(t->z.val + i, t->z.adj + i);
  o->v[2] = t->theta;
  o->shared[2] = 1;
  return AD_OK;
}

static int pmt_apply(void *ctx, int slot, int i, const tm_v *a, int nargs, tm_v *out) {
  const pmt *t = ctx;
  (void)slot;
  if (nargs != 3) return ad_fail(AD_EINVALID, "pmt: %d operands", nargs);
  if (t->fail_at > 0 && i + 1 >= t->fail_at && (i + 1 - t->fail_at) % 10 == 0)
    return ad_fail(AD_EDOMAIN, "pmt: element %d fails", i + 1);
  int j = i % t->m, rc;
  double x = a[0].val[0];
  ad_var z = { a[1].val, a[1].adj }, tj = { a[2].val + j, a[2].adj + j }, t0 = { a[2].val, a[2].adj };
  ad_var z2, b, y;
  if ((rc = ad_binary(z, z, *z.val * *z.val, *z.val, *z.val, &z2)) ||
      (rc = ad_binary(z2, tj, *z2.val * *tj.val, *tj.val, *z2.val, &b)) ||
      (rc = ad_binary(b, t0, *b.val + x * *t0.val, 1.0, x, &y)))
    return rc;
  return tm_set_var(out, y);
}

SEXP tp_pmap_test(SEXP sn, SEXP sm, SEXP sstrategy, SEXP sfail) {
  int n = asInteger(sn), m = asInteger(sm), strategy = asInteger(sstrategy), fail_at = asInteger(sfail);
  if (n < 1 || m < 1) error("n and m must be at least 1");
  ad_stack *s = ad_active;
  ad_mark mk = ad_stack_mark(s);
  pmt t;
  memset(&t, 0, sizeof t);
  t.m = m;
  t.fail_at = fail_at;
  tm_v out;
  int rc = tm_new_vector(&t.x, n, 0) || tm_new_vector(&t.z, n, 1) || tm_new_vector(&t.theta, m, 1);
  if (rc) { ad_stack_rewind(s, &mk); error("out of memory"); }
  for (int i = 0; i < n; i++) { t.x.val[i] = 0.5 - 0.01 * i; t.z.val[i] = 0.3 + 0.02 * i; }
  for (int j = 0; j < m; j++) t.theta.val[j] = 1.0 + 0.1 * j;
  tm_pm_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.n = n;
  sp.grainsize = 1;
  sp.index = pmt_index;
  sp.apply = pmt_apply;
  sp.ctx = &t;
  sp.strategy = strategy;
  sp.append_above = -1;
  rc = tm_parallel_map_spec(&sp, &out);
  if (rc) {
    SEXP r = PROTECT(mkString(ad_errmsg()));
    setAttrib(r, install("status"), ScalarInteger(rc));
    ad_stack_rewind(s, &mk);
    UNPROTECT(1);
    return r;
  }
  /* seed and sweep what was recorded since the mark (the map's nodes) */
  for (int i = 0; i < n; i++) out.adj[i] = 1.0 + i / 10.0;
  for (size_t k = s->nchain; k-- > mk.nchain; ) s->chain[k]->chain(s->chain[k]);
  double verr = 0, zerr = 0, terr = 0, tg[4096];
  if (m > 4096) { ad_stack_rewind(s, &mk); error("m at most 4096"); }
  memset(tg, 0, (size_t)m * sizeof *tg);
  for (int i = 0; i < n; i++) {
    int j = i % m;
    double w = 1.0 + i / 10.0, x = t.x.val[i], z = t.z.val[i], th = t.theta.val[j];
    double v = z * z * th + x * t.theta.val[0], e;
    if ((e = fabs(out.val[i] - v) / fmax(1.0, fabs(v))) > verr) verr = e;
    if ((e = fabs(t.z.adj[i] - w * 2 * z * th) / fmax(1.0, fabs(w * 2 * z * th))) > zerr) zerr = e;
    tg[j] += w * z * z;
    tg[0] += w * x;
  }
  for (int j = 0; j < m; j++) {
    double e = fabs(t.theta.adj[j] - tg[j]) / fmax(1.0, fabs(tg[j]));
    if (e > terr) terr = e;
  }
  ad_stack_rewind(s, &mk);
  SEXP r = PROTECT(allocVector(REALSXP, 4)), nm = PROTECT(allocVector(STRSXP, 4));
  const char *names[4] = { "value_err", "z_grad_err", "theta_grad_err", "strategy" };
  double vals[4] = { verr, zerr, terr, (double)sp.used };
  for (int k = 0; k < 4; k++) { REAL(r)[k] = vals[k]; SET_STRING_ELT(nm, k, mkChar(names[k])); }
  setAttrib(r, R_NamesSymbol, nm);
  UNPROTECT(2);
  return r;
}
