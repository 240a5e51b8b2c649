/*
** nuts_welford.c -- running variance (diag) or covariance (dense) of the
** draws of one adaptation window, and Stan's regularised estimate: shrunk
** toward 1e-3 times the identity with the weight of 5 pseudo-draws.
*/
#include <math.h>
#include <string.h>
#include "nuts_int.h"

void nuts_welford_restart(nuts_welford *w) {
  size_t m = w->dense ? (size_t)w->n * w->n : (size_t)w->n;
  w->count = 0;
  memset(w->mean, 0, (size_t)w->n * sizeof(double));
  memset(w->m2, 0, m * sizeof(double));
}

void nuts_welford_add(nuts_welford *w, const double *q) {
  int n = w->n;
  w->count++;
  for (int i = 0; i < n; i++) {
    w->delta[i] = q[i] - w->mean[i];
    w->mean[i] += w->delta[i] / (double)w->count;
  }
  if (!w->dense) {
    for (int i = 0; i < n; i++) w->m2[i] += (q[i] - w->mean[i]) * w->delta[i];
  } else {
    for (int j = 0; j < n; j++) {
      double dj = w->delta[j];
      double *col = w->m2 + (size_t)j * n;
      for (int i = 0; i < n; i++) col[i] += (q[i] - w->mean[i]) * dj;
    }
  }
}

/* Writes the regularised estimate into out (n, or n*n).  Returns AD_EDOMAIN
** when it is not finite (Stan's "numerical overflow in metric adaptation"). */
int nuts_welford_estimate(const nuts_welford *w, double *out) {
  int n = w->n;
  double c = (double)w->count;
  double a = c / (c + 5.0), b = 1e-3 * (5.0 / (c + 5.0));
  size_t m = w->dense ? (size_t)n * n : (size_t)n;
  /* with fewer than two draws Stan leaves the sample variance as it was;
     here the previous metric stays in out, shrunk the same way */
  for (size_t k = 0; k < m; k++) {
    double v = w->count > 1 ? w->m2[k] / (c - 1.0) : out[k];
    out[k] = a * v;
  }
  if (!w->dense) {
    for (int i = 0; i < n; i++) out[i] += b;
  } else {
    /* Welford's cross products are symmetric only up to rounding; the
       Cholesky factor reads one triangle and Minv p the whole matrix */
    for (int j = 0; j < n; j++)
      for (int i = j + 1; i < n; i++) {
        double v = 0.5 * (out[i + (size_t)j * n] + out[j + (size_t)i * n]);
        out[i + (size_t)j * n] = out[j + (size_t)i * n] = v;
      }
    for (int i = 0; i < n; i++) out[i + (size_t)i * n] += b;
  }
  for (size_t k = 0; k < m; k++)
    if (!isfinite(out[k])) return AD_EDOMAIN;
  return AD_OK;
}
