/*
** nuts_metric.c -- Euclidean metrics: unit_e, diag_e, dense_e.
**
** The kinetic energy is 0.5 p' Minv p, its gradient in p (Stan's dtau_dp, the
** "p sharp" of the no-U-turn criterion) is Minv p, and momenta are drawn from
** N(0, M).  For dense_e that draw solves L' p = u with L the Cholesky factor
** of Minv, as Stan's dense_e_metric does, so M itself is never formed.
*/
#include <math.h>
#include "nuts_int.h"

double nuts_kinetic(const nuts_metric *m, const double *p) {
  int n = m->n;
  double t = 0;
  if (m->kind == NUTS_UNIT_E) {
    for (int i = 0; i < n; i++) t += p[i] * p[i];
  } else if (m->kind == NUTS_DIAG_E) {
    for (int i = 0; i < n; i++) t += m->minv[i] * p[i] * p[i];
  } else {
    for (int j = 0; j < n; j++) {
      const double *col = m->minv + (size_t)j * n;
      double s = 0;
      for (int i = 0; i < n; i++) s += col[i] * p[i];
      t += s * p[j];
    }
  }
  return 0.5 * t;
}

void nuts_dtau_dp(const nuts_metric *m, const double *p, double *out) {
  int n = m->n;
  if (m->kind == NUTS_UNIT_E) {
    for (int i = 0; i < n; i++) out[i] = p[i];
  } else if (m->kind == NUTS_DIAG_E) {
    for (int i = 0; i < n; i++) out[i] = m->minv[i] * p[i];
  } else {
    /* Minv is symmetric: row i is column i, which keeps the access contiguous */
    for (int i = 0; i < n; i++) {
      const double *col = m->minv + (size_t)i * n;
      double s = 0;
      for (int k = 0; k < n; k++) s += col[k] * p[k];
      out[i] = s;
    }
  }
}

void nuts_sample_p(nuts_metric *m, tm_rng *rng, double *p) {
  int n = m->n;
  if (m->kind == NUTS_UNIT_E) {
    for (int i = 0; i < n; i++) p[i] = tm_rng_normal(rng);
  } else if (m->kind == NUTS_DIAG_E) {
    for (int i = 0; i < n; i++) p[i] = tm_rng_normal(rng) / sqrt(m->minv[i]);
  } else {
    const double *L = m->chol;
    for (int i = 0; i < n; i++) m->u[i] = tm_rng_normal(rng);
    /* back substitution with U = L': U[i][k] = L[k][i] = L[k + i*n] */
    for (int i = n - 1; i >= 0; i--) {
      const double *col = L + (size_t)i * n;
      double s = m->u[i];
      for (int k = i + 1; k < n; k++) s -= col[k] * p[k];
      p[i] = s / col[i];
    }
  }
}

/* Cholesky of the dense inverse metric (lower, column-major).  Returns
** AD_EDOMAIN when Minv is not positive definite or not finite. */
int nuts_metric_update(nuts_metric *m) {
  int n = m->n;
  if (m->kind == NUTS_DIAG_E) {
    for (int i = 0; i < n; i++)
      if (!(m->minv[i] > 0) || !isfinite(m->minv[i])) return AD_EDOMAIN;
    return AD_OK;
  }
  if (m->kind != NUTS_DENSE_E) return AD_OK;
  double *L = m->chol;
  const double *A = m->minv;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) L[i + (size_t)j * n] = 0;
  }
  for (int j = 0; j < n; j++) {
    double d = A[j + (size_t)j * n];
    if (!isfinite(d)) return AD_EDOMAIN;
    for (int k = 0; k < j; k++) d -= L[j + (size_t)k * n] * L[j + (size_t)k * n];
    if (!(d > 0)) return AD_EDOMAIN;
    double ljj = sqrt(d);
    L[j + (size_t)j * n] = ljj;
    for (int i = j + 1; i < n; i++) {
      double s = A[i + (size_t)j * n];
      if (!isfinite(s)) return AD_EDOMAIN;
      for (int k = 0; k < j; k++) s -= L[i + (size_t)k * n] * L[j + (size_t)k * n];
      L[i + (size_t)j * n] = s / ljj;
    }
  }
  return AD_OK;
}
