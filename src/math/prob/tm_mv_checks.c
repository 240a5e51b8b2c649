/*
** tm_mv_checks.c -- the argument checks the multivariate families share
** (tm_mv_checks.h), with Stan's messages: sizes, "vectors" arguments,
** Cholesky factors, symmetric positive definite matrices, and the first
** checks of every multivariate _rng.
*/
#include <math.h>
#include "../tm.h"
#include "../tm_linalg.h"
#include "tm_mv_checks.h"

#define AT TM_AT

int tm_mv_size_match(const char *fn, const char *n1, long s1, const char *n2, long s2) {
  if (s1 == s2) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s (%ld) and %s (%ld) must match in size", fn, n1, s1, n2, s2);
}

/* Stan's check_cholesky_factor: at least as many rows as columns, at least
** one column, lower triangular, positive diagonal. */
int tm_mv_check_cholesky(const char *fn, const char *name, const tm_v *L) {
  int rc;
  if ((rc = tm_mv_check_matrix(fn, name, L))) return rc;
  int m = L->rows, n = L->cols;
  if (!(n <= m))
    return ad_fail(AD_EDOMAIN, "%s: columns and rows of Cholesky factor is %d, but must be less than or equal to %d",
                   fn, n, m);
  if (n <= 0) return ad_fail(AD_EDOMAIN, "%s: columns of Cholesky factor is %d, but must be positive!", fn, n);
  for (int j = 1; j < n; j++)
    for (int i = 0; i < j; i++)
      if (AT(L->val, m, i, j) != 0)
        return ad_fail(AD_EDOMAIN, "%s: %s is not lower triangular; %s[%d,%d]=%.17g", fn, name, name, i + 1, j + 1,
                       AT(L->val, m, i, j));
  for (int i = 0; i < n; i++) {
    double x = AT(L->val, m, i, i);
    if (!(x > 0)) {
      if (isnan(x)) return ad_fail(AD_EDOMAIN, "%s: %s[%d] is nan, but must be positive!", fn, name, i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s[%d] is %.17g, but must be positive!", fn, name, i + 1, x);
    }
  }
  return AD_OK;
}

/* Symmetric (Stan's check_symmetric) and positive definite (Stan's
** check_ldlt_factor, named ldlt_name): *L gets the lower Cholesky factor. */
int tm_mv_spd(const char *fn, const char *sym_name, const char *ldlt_name, const tm_v *S, double **L) {
  int rc, k = S->rows;
  if ((rc = tm_la_check_symmetric(fn, sym_name, k, S->val))) return rc;
  size_t kk = (size_t)k * (size_t)k;
  if (!(*L = ad_alloc_doubles(kk ? kk : 1))) return AD_EMEMORY;
  double piv = 0;
  if (tm_la_cholesky(k, S->val, *L, &piv) >= 0)
    return ad_fail(AD_EDOMAIN, "%s: %s is not positive definite.  last conditional variance is %g.", fn, ldlt_name, piv);
  return AD_OK;
}

double tm_mv_chol_logdet(int k, const double *L) {
  double s = 0;
  for (int j = 0; j < k; j++) s += log(AT(L, k, j, j));
  return 2 * s;
}

int tm_mv_check_greater(const char *fn, const char *name, const tm_v *v, double lo) {
  double x = tm_get(v, 0);
  if (x > lo) return AD_OK;
  if (isnan(x)) return ad_fail(AD_EDOMAIN, "%s: %s is nan, but must be greater than %.17g", fn, name, lo);
  return ad_fail(AD_EDOMAIN, "%s: %s is %.17g, but must be greater than %.17g", fn, name, x, lo);
}

int tm_mv_check_matrix(const char *fn, const char *name, const tm_v *v) {
  if (v->narr || v->base != TM_MATRIX) return ad_fail(AD_EINVALID, "%s: %s must be a matrix", fn, name);
  return AD_OK;
}

/* ---- "vectors" arguments ---- */

int tm_mv_args(const char *fn, const tm_v *a, int nargs, int dof, tm_mvec *y, tm_mvec *mu) {
  int rc, m = dof ? 4 : 3;
  if (nargs != m || (dof && !tm_is_scalar(&a[1])) || a[m - 1].narr || a[m - 1].base != TM_MATRIX)
    return ad_fail(AD_EINVALID, "%s: expects (vectors, %svectors, matrix)", fn, dof ? "real, " : "");
  if ((rc = tm_mvec_of(fn, &a[0], "Random variable", y)) ||
      (rc = tm_mvec_of(fn, &a[m - 2], "Location parameter", mu)))
    return rc;
  return AD_OK;
}

int tm_mv_consistent(const char *fn, const char *n1, const tm_mvec *a, const char *n2, const tm_mvec *b) {
  if (!a->many || !b->many || a->n == b->n) return AD_OK;
  return ad_fail(AD_EINVALID, "%s: %s has size = %d, but %s has size %d; and they must be the same size.",
                 fn, n1, a->n, n2, b->n);
}

int tm_mv_check_locations_paired(const char *fn, const tm_mvec *y, const tm_mvec *mu, int N) {
  int rc;
  for (int i = 0; i < N; i++) {
    tm_v m = tm_mvec_elem(mu, i), e = tm_mvec_elem(y, i);
    if ((rc = tm_check_finite(fn, "Location parameter", &m)) || (rc = tm_check_not_nan(fn, "Random variable", &e)))
      return rc;
  }
  return AD_OK;
}
