/*
** tm_hmm.c -- hidden Markov models with a discrete latent state:
** hmm_marginal, hmm_hidden_state_prob, hmm_latent_rng.
**
** log_omega (K x N): log p(y_n | x_n = k); Gamma (K x K): Gamma[i, j] =
** p(x_n = j | x_{n-1} = i), rows simplexes; rho (K): p(x_1).  One forward
** pass with scaled alphas (each column sums to 1, c_n its normalizer) and
** for the gradients or the marginals one backward pass with betas scaled by
** the same c_n (Rabiner's scaling), so that alpha_n .* beta_n is the
** posterior marginal of x_n.  Each column of omega is exp(log_omega - its
** maximum), the maximum added back to the log density: no underflow when
** all log densities of an observation are very negative.
**
** Gradients of L = log p(y) = sum_n (log c_n + m_n):
**   dL/dlog_omega[k, n] = alpha_n(k) beta_n(k)          (the marginals)
**   dL/dGamma[i, j]     = sum_n alpha_n(i) omega[j, n+1] beta_{n+1}(j) / c_{n+1}
**   dL/drho[k]          = omega[k, 1] beta_1(k) / c_1
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_linalg.h"
#include "tm_dens_elem.h"

#define AT TM_AT

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

/* Stan's hmm_check, in its order */
static int hmm_check(const tm_call *c, const tm_v *a, int nargs) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 3 || a[0].narr || a[0].base != TM_MATRIX || a[1].narr || a[1].base != TM_MATRIX ||
      a[2].narr || a[2].base != TM_VECTOR)
    return tm_no_overload(c, a, nargs);
  const tm_v *lo = &a[0], *G = &a[1], *rho = &a[2];
  int K = lo->rows;
  if ((rc = tm_check_consistent_size(fn, "rho", (size_t)rho->rows, (size_t)K))) return rc;
  if ((rc = tm_check_square(fn, "Gamma", G)) || (rc = tm_check_nonzero_size(fn, "Gamma", G))) return rc;
  if (G->cols != K)
    return ad_fail(AD_EINVALID, "%s: Columns of Gamma (%d) and Rows of log_omegas (%d) must match in size",
                   fn, G->cols, K);
  if ((rc = tm_dens_check_simplex(fn, "rho", rho))) return rc;
  double *row = ad_alloc_doubles((size_t)K);
  if (!row) return nomem(c);
  for (int i = 0; i < K; i++) {
    for (int j = 0; j < K; j++) row[j] = AT(G->val, K, i, j);
    tm_v r = tm_row_vector_view(row, NULL, K);
    if ((rc = tm_dens_check_simplex(fn, "Gamma[i, ]", &r))) return rc;
  }
  return AD_OK;
}

typedef struct {
  int K, N;
  double *om;      /* K x N: exp(log_omega - column max) */
  double *al;      /* K x N scaled forward */
  double *be;      /* K x N scaled backward (when asked) */
  double *cn;      /* N normalizers */
  double logp;
} hmm_pass;

/* Forward pass (and backward when back != 0).  AD_EDOMAIN when the
** observations are impossible under the model (p(y) = 0). */
static int hmm_run(const tm_call *c, const tm_v *a, int back, hmm_pass *h) {
  const double *lo = a[0].val, *G = a[1].val, *rho = a[2].val;
  int K = a[0].rows, N = a[0].cols;
  h->K = K; h->N = N;
  size_t kn = (size_t)K * (N ? N : 1);
  h->om = ad_alloc_doubles(kn);
  h->al = ad_alloc_doubles(kn);
  h->be = back ? ad_alloc_doubles(kn) : NULL;
  h->cn = ad_alloc_doubles((size_t)(N ? N : 1));
  if (!h->om || !h->al || (back && !h->be) || !h->cn) return nomem(c);
  double logp = 0;
  for (int n = 0; n < N; n++) {
    double m = -INFINITY;
    for (int k = 0; k < K; k++) m = fmax(m, AT(lo, K, k, n));
    for (int k = 0; k < K; k++)
      if (isnan(AT(lo, K, k, n))) { h->logp = NAN; return AD_OK; }
    if (m == INFINITY) { h->logp = NAN; return AD_OK; }
    if (m == -INFINITY) { h->logp = -INFINITY; return AD_OK; }
    for (int k = 0; k < K; k++) AT(h->om, K, k, n) = exp(AT(lo, K, k, n) - m);
    logp += m;
  }
  for (int n = 0; n < N; n++) {
    double s = 0;
    for (int j = 0; j < K; j++) {
      double t;
      if (n == 0) t = rho[j];
      else {
        t = 0;
        for (int i = 0; i < K; i++) t += AT(h->al, K, i, n - 1) * AT(G, K, i, j);
      }
      t *= AT(h->om, K, j, n);
      AT(h->al, K, j, n) = t;
      s += t;
    }
    h->cn[n] = s;
    if (!(s > 0)) { h->logp = -INFINITY; return AD_OK; }
    for (int j = 0; j < K; j++) AT(h->al, K, j, n) /= s;
    logp += log(s);
  }
  h->logp = logp;
  if (back && N > 0) {
    for (int k = 0; k < K; k++) AT(h->be, K, k, N - 1) = 1;
    for (int n = N - 2; n >= 0; n--)
      for (int i = 0; i < K; i++) {
        double t = 0;
        for (int j = 0; j < K; j++) t += AT(G, K, i, j) * AT(h->om, K, j, n + 1) * AT(h->be, K, j, n + 1);
        AT(h->be, K, i, n) = t / h->cn[n + 1];
      }
  }
  return AD_OK;
}

static int k_hmm_marginal(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int rc;
  if ((rc = hmm_check(c, a, nargs))) return rc;
  int K = a[0].rows, N = a[0].cols, ad = tm_any_ad(a, 3);
  if (N == 0) {        /* no observation: p(y) = 1 */
    double *d0[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) d0[i] = tm_new_partials(&a[i], &rc);
    if (rc) return nomem(c);
    return tm_set_partials(out, a, d0, 3, 0.0) ? nomem(c) : AD_OK;
  }
  hmm_pass h;
  if ((rc = hmm_run(c, a, ad, &h))) return rc;
  if (!ad) {
    if (tm_set_real(out, h.logp)) return nomem(c);
    out->dep = (unsigned char)tm_any_dep(a, 3);
    return AD_OK;
  }
  double *d[3];
  rc = 0;
  for (int i = 0; i < 3; i++) d[i] = tm_new_partials(&a[i], &rc);
  if (rc) return nomem(c);
  if (!isfinite(h.logp)) return tm_set_partials(out, a, d, 3, h.logp) ? nomem(c) : AD_OK;
  const double *G = a[1].val;
  if (d[0])
    for (size_t i = 0; i < (size_t)K * N; i++) d[0][i] = h.al[i] * h.be[i];
  if (d[1])
    for (int n = 0; n + 1 < N; n++)
      for (int j = 0; j < K; j++) {
        double w = AT(h.om, K, j, n + 1) * AT(h.be, K, j, n + 1) / h.cn[n + 1];
        for (int i = 0; i < K; i++) AT(d[1], K, i, j) += AT(h.al, K, i, n) * w;
      }
  if (d[2])
    for (int k = 0; k < K; k++) d[2][k] = AT(h.om, K, k, 0) * AT(h.be, K, k, 0) / h.cn[0];
  (void)G;
  return tm_set_partials(out, a, d, 3, h.logp) ? nomem(c) : AD_OK;
}

static int impossible(const tm_call *c) {
  return ad_fail(AD_EDOMAIN, "%s: the observations have probability 0 under the model", c->fn->name);
}

/* K x N matrix of p(x_n = k | y), data only (Stan's is too) */
static int k_hmm_hidden_state_prob(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int rc;
  if ((rc = hmm_check(c, a, nargs))) return rc;
  int K = a[0].rows, N = a[0].cols;
  if (tm_new_matrix(out, K, N, 0)) return nomem(c);
  if (N == 0) return AD_OK;
  hmm_pass h;
  if ((rc = hmm_run(c, a, 1, &h))) return rc;
  if (isnan(h.logp)) {
    for (size_t i = 0; i < (size_t)K * N; i++) out->val[i] = NAN;
    return AD_OK;
  }
  if (h.logp == -INFINITY) return impossible(c);
  for (size_t i = 0; i < (size_t)K * N; i++) out->val[i] = h.al[i] * h.be[i];
  for (int n = 0; n < N; n++) {          /* sums to 1 to rounding already; make it exact-ish */
    double s = 0;
    for (int k = 0; k < K; k++) s += AT(out->val, K, k, n);
    for (int k = 0; k < K; k++) AT(out->val, K, k, n) /= s;
  }
  return AD_OK;
}

/* Inversion on unnormalized weights w (total s). */
static int draw(tm_rng *r, const double *w, int K, double s) {
  double u = tm_rng_uniform(r) * s, cum = 0;
  for (int k = 0; k < K - 1; k++) {
    cum += w[k];
    if (u <= cum && w[k] > 0) return k;
  }
  for (int k = K - 1; k > 0; k--) if (w[k] > 0) return k;
  return 0;
}

/* Forward filter, backward sample: x_N ~ alpha_N, then
** p(x_n = i | x_{n+1} = j, y) proportional to alpha_n(i) Gamma[i, j]. */
static int k_hmm_latent_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int rc;
  if (!c->rng) return ad_fail(AD_EINVALID, "%s: no random number generator here", c->fn->name);
  if ((rc = hmm_check(c, a, nargs))) return rc;
  int K = a[0].rows, N = a[0].cols;
  memset(out, 0, sizeof *out);
  out->base = TM_INT;
  out->narr = 1;
  out->dim[0] = N;
  out->rows = out->cols = 1;
  if (!(out->ival = ad_alloc((size_t)(N ? N : 1) * sizeof(int)))) return nomem(c);
  if (N == 0) return AD_OK;
  hmm_pass h;
  if ((rc = hmm_run(c, a, 0, &h))) return rc;
  if (!isfinite(h.logp)) return impossible(c);
  double *w = ad_alloc_doubles((size_t)K);
  if (!w) return nomem(c);
  int x = draw(c->rng, h.al + (size_t)(N - 1) * K, K, 1.0);
  out->ival[N - 1] = x + 1;
  for (int n = N - 2; n >= 0; n--) {
    double s = 0;
    for (int i = 0; i < K; i++) s += w[i] = AT(h.al, K, i, n) * AT(a[1].val, K, i, x);
    x = draw(c->rng, w, K, s);
    out->ival[n] = x + 1;
  }
  return AD_OK;
}

const tm_fn tm_fns_hmm[] = {
  {"hmm_hidden_state_prob", "matrix(matrix, matrix, vector)", k_hmm_hidden_state_prob, NULL},
  {"hmm_latent_rng", "array[] int(matrix, matrix, vector)", k_hmm_latent_rng, NULL},
  {"hmm_marginal", "real(matrix, matrix, vector)", k_hmm_marginal, NULL},
  {NULL, NULL, NULL, NULL}
};
