/*
** tm_glm.c -- normal_id_glm_lpdf, poisson_log_glm_lpmf and
** neg_binomial_2_log_glm_lpmf: a density of a
** linear predictor eta = alpha + x * beta, without forming eta as a program
** value.  (bernoulli_logit_glm is in tm_dens_disc.c.)
**
** x is a matrix (one row per outcome) or a row_vector shared by every
** outcome; alpha (and normal's sigma) a real or a vector; y a scalar or a
** container that broadcasts against x's rows.  One operands node per call,
** with the partial of each autodiff argument: d/d eta_n = g_n gives alpha's
** (g, or its sum), beta's (x' g) and x's (g beta').
*/
#include <math.h>
#include <string.h>
#include "tm_tables.h"
#include "tm_special.h"


typedef struct glm {
  const char *fn;
  const tm_v *y, *x, *al, *be;
  size_t N, K;
  int xrow;
  double *eta;
} glm;

/* Shapes and the linear predictor. */
static int glm_begin(glm *G, const char *fn, const tm_v *a, int y_int) {
  const tm_v *y = &a[0], *x = &a[1], *al = &a[2], *be = &a[3];
  G->fn = fn; G->y = y; G->x = x; G->al = al; G->be = be;
  if (y_int ? (y->base != TM_INT || y->narr > 1)
            : !(tm_is_scalar(y) || (y->narr == 0 && y->base == TM_VECTOR) || (y->narr == 1 && y->base <= TM_REAL)))
    return ad_fail(AD_EINVALID, "%s: Vector of dependent variables must be %s", fn,
                   y_int ? "an int or an array of ints" : "a real or a vector");
  if ((x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr)
    return ad_fail(AD_EINVALID, "%s: Matrix of independent variables must be a matrix or a row_vector", fn);
  if (!tm_is_scalar(al) && (al->base != TM_VECTOR || al->narr))
    return ad_fail(AD_EINVALID, "%s: Intercept must be a real or a vector", fn);
  if (be->base != TM_VECTOR || be->narr) return ad_fail(AD_EINVALID, "%s: Weight vector must be a vector", fn);
  G->xrow = x->base == TM_ROW_VECTOR;
  G->N = G->xrow ? (tm_is_scalar(y) ? (tm_is_scalar(al) ? 1 : tm_numel(al)) : tm_numel(y)) : (size_t)x->rows;
  G->K = (size_t)x->cols;
  int rc = AD_OK;
  if (!tm_is_scalar(y)) rc = tm_check_consistent_size(fn, "Vector of dependent variables", tm_numel(y), G->N);
  if (!rc) rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), G->K);
  if (!rc && !tm_is_scalar(al)) rc = tm_check_consistent_size(fn, "Vector of intercepts", tm_numel(al), G->N);
  if (rc) return rc;
  size_t N = G->N, K = G->K;
  if (!(G->eta = ad_alloc_doubles(N ? N : 1))) return AD_EMEMORY;
  double e0 = 0;
  if (G->xrow) for (size_t k = 0; k < K; k++) e0 += x->val[k] * be->val[k];
  for (size_t n = 0; n < N; n++) G->eta[n] = tm_get(al, tm_is_scalar(al) ? 0 : n) + e0;
  if (!G->xrow)
    for (size_t k = 0; k < K; k++) {
      const double *xk = x->val + k * N;
      double bk = be->val[k];
      for (size_t n = 0; n < N; n++) G->eta[n] += xk[n] * bk;
    }
  return AD_OK;
}

/* The failure Stan reports when the sum came out non-finite. */
static int glm_nonfinite(const glm *G) {
  int rc;
  if ((rc = tm_check_finite(G->fn, "Weight vector", G->be))) return rc;
  if ((rc = tm_check_finite(G->fn, "Intercept", G->al))) return rc;
  return tm_check_finite(G->fn, "Matrix of independent variables", G->x);
}

/* Partials of alpha, beta, x from g (d logp / d eta), then the node; extra
** operands (y, sigma) come in ops[0..nops). */
static int glm_end(const glm *G, const double *g, ad_operand *ops, int nops, double lp, int dep, tm_v *out) {
  size_t N = G->N, K = G->K;
  if (G->al->adj) {
    double *d = ad_alloc_doubles(N + 1);
    if (!d) return AD_EMEMORY;
    if (tm_is_scalar(G->al)) { double s = 0; for (size_t n = 0; n < N; n++) s += g[n]; d[0] = s; }
    else memcpy(d, g, N * sizeof *d);
    ops[nops++] = (ad_operand){G->al->adj, d, tm_numel(G->al)};
  }
  if (G->be->adj) {
    double *d = ad_alloc_zeros(K + 1);
    if (!d) return AD_EMEMORY;
    for (size_t k = 0; k < K; k++) {
      double s = 0;
      if (G->xrow) { for (size_t n = 0; n < N; n++) s += g[n]; s *= G->x->val[k]; }
      else { const double *xk = G->x->val + k * N; for (size_t n = 0; n < N; n++) s += xk[n] * g[n]; }
      d[k] = s;
    }
    ops[nops++] = (ad_operand){G->be->adj, d, K};
  }
  if (G->x->adj) {
    size_t m = tm_numel(G->x);
    double *d = ad_alloc_zeros(m + 1);
    if (!d) return AD_EMEMORY;
    if (G->xrow) {
      double s = 0;
      for (size_t n = 0; n < N; n++) s += g[n];
      for (size_t k = 0; k < K; k++) d[k] = s * G->be->val[k];
    } else {
      for (size_t k = 0; k < K; k++)
        for (size_t n = 0; n < N; n++) d[k * N + n] = g[n] * G->be->val[k];
    }
    ops[nops++] = (ad_operand){G->x->adj, d, m};
  }
  return tm_set_operands(out, nops, ops, lp, dep);
}


/* normal_id_glm(y | x, alpha, beta, sigma) = normal(y | alpha + x beta, sigma) */
static int k_normal_id_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 5) return ad_fail(AD_EINVALID, "%s: expected 5 arguments, got %d", fn, nargs);
  const tm_v *sg = &a[4];
  if (!tm_is_scalar(sg) && (sg->base != TM_VECTOR || sg->narr))
    return ad_fail(AD_EINVALID, "%s: Scale vector must be a real or a vector", fn);
  glm G;
  int rc = glm_begin(&G, fn, a, 0);
  if (rc) return rc;
  size_t N = G.N;
  if (!tm_is_scalar(sg) && (rc = tm_check_consistent_size(fn, "Vector of scale parameters", tm_numel(sg), N))) return rc;
  if ((rc = tm_check_positive_finite(fn, "Scale vector", sg))) return rc;
  int propto = c->propto, keep_s = !propto || !tm_is_const(sg);
  int keep_q = keep_s || !tm_is_const(&a[0]) || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]);
  double *g = ad_alloc_doubles(N + 1), *ds = sg->adj ? ad_alloc_zeros(tm_numel(sg) + 1) : NULL;
  if (!g || (sg->adj && !ds)) return AD_EMEMORY;
  double lp = 0, zz = 0, ls = 0;
  for (size_t n = 0; n < N; n++) {
    double s = tm_get(sg, tm_is_scalar(sg) ? 0 : n), y = tm_get(&a[0], tm_is_scalar(&a[0]) ? 0 : n);
    double z = (y - G.eta[n]) / s;
    zz += z * z;
    g[n] = z / s;
    if (keep_s) ls += log(s);
    if (ds) ds[tm_is_scalar(sg) ? 0 : n] += (z * z - 1) / s;
  }
  if (keep_q && N) {
    lp -= 0.5 * zz;
    if (!propto) lp -= TM_LOG_SQRT_2PI * (double)N;
    if (keep_s) lp -= ls;
  }
  if (!isfinite(lp) && (rc = glm_nonfinite(&G))) return rc;
  ad_operand ops[5];
  int nops = 0;
  if (a[0].adj) {
    double *dy = ad_alloc_doubles(G.N + 1);
    if (!dy) return AD_EMEMORY;
    if (tm_is_scalar(&a[0])) { double t = 0; for (size_t n = 0; n < G.N; n++) t -= g[n]; dy[0] = t; }
    else for (size_t n = 0; n < G.N; n++) dy[n] = -g[n];
    ops[nops++] = (ad_operand){a[0].adj, dy, tm_numel(&a[0])};
  }
  if (ds) ops[nops++] = (ad_operand){sg->adj, ds, tm_numel(sg)};
  return glm_end(&G, g, ops, nops, lp, tm_any_dep(a, 5), out);
}

/* poisson_log_glm(y | x, alpha, beta) = poisson_log(y | alpha + x beta) */
static int k_poisson_log_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 4) return ad_fail(AD_EINVALID, "%s: expected 4 arguments, got %d", fn, nargs);
  glm G;
  int rc = glm_begin(&G, fn, a, 1);
  if (rc) return rc;
  if ((rc = tm_check_nonnegative(fn, "Vector of dependent variables", &a[0]))) return rc;
  size_t N = G.N;
  int propto = c->propto;
  int keep = !propto || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]);
  double *g = ad_alloc_doubles(N + 1);
  if (!g) return AD_EMEMORY;
  double lp = 0;
  for (size_t n = 0; n < N; n++) {
    double y = tm_geti(&a[0], tm_is_scalar(&a[0]) ? 0 : n), e = G.eta[n], ee = exp(e);
    g[n] = y - ee;
    if (keep) lp += (y == 0 ? 0 : y * e) - ee;
    if (!propto) lp -= tm_lgamma(y + 1);
  }
  if (!isfinite(lp) && (rc = glm_nonfinite(&G))) return rc;
  ad_operand ops[4];
  return glm_end(&G, g, ops, 0, lp, tm_any_dep(a, 4), out);
}

/* neg_binomial_2_log_glm(y | x, alpha, beta, phi)
**   = neg_binomial_2_log(y | alpha + x beta, phi), in Stan Math's order of
** checks and terms: log(exp(eta) + phi) by the stable branch on eta > log phi. */
static int k_neg_binomial_2_log_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 5) return ad_fail(AD_EINVALID, "%s: expected 5 arguments, got %d", fn, nargs);
  const tm_v *ph = &a[4];
  if (!tm_is_scalar(ph) && (ph->base != TM_VECTOR || ph->narr))
    return ad_fail(AD_EINVALID, "%s: Precision parameter must be a real or a vector", fn);
  glm G;
  int rc = glm_begin(&G, fn, a, 1);
  if (rc) return rc;
  size_t N = G.N;
  int phi_vec = !tm_is_scalar(ph);
  if (phi_vec && (rc = tm_check_consistent_size(fn, "Vector of precision parameters", tm_numel(ph), N))) return rc;
  if ((rc = tm_check_nonnegative(fn, "Failures variables", &a[0])) ||
      (rc = tm_check_finite(fn, "Weight vector", G.be)) || (rc = tm_check_finite(fn, "Intercept", G.al)) ||
      (rc = tm_check_positive_finite(fn, "Precision parameter", ph)))
    return rc;
  for (size_t n = 0; n < N; n++)
    if (!isfinite(G.eta[n])) return tm_check_finite(fn, "Matrix of independent variables", G.x);
  int propto = c->propto;
  int keep_phi = !propto || !tm_is_const(ph);
  int keep_lin = !propto || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]);
  ad_operand ops[5];
  int y_vec = !tm_is_scalar(&a[0]);
  double *g = ad_alloc_zeros(N + 1), *dphi = ph->adj ? ad_alloc_zeros(tm_numel(ph) + 1) : NULL;
  if (!g || (ph->adj && !dphi)) return AD_EMEMORY;
  /* nothing to add (no outcome, or all constant under propto): zero partials */
  if (N == 0 || !(keep_phi || keep_lin)) {
    int nops = 0;
    if (dphi) ops[nops++] = (ad_operand){ph->adj, dphi, tm_numel(ph)};
    return glm_end(&G, g, ops, nops, 0.0, tm_any_dep(a, 5), out);
  }
  double lp = 0, s_lse = 0, s_ytheta = 0, s_lgyp = 0, s_phi = 0, s_lgy = 0;
  double phi0 = ph->val[0], log_phi0 = log(phi0), dg_phi0 = ph->adj ? tm_digamma(phi0) : 0;
  for (size_t n = 0; n < N; n++) {
    double y = tm_geti(&a[0], y_vec ? n : 0), phi = phi_vec ? ph->val[n] : phi0;
    double log_phi = phi_vec ? log(phi) : log_phi0, th = G.eta[n];
    double lse = th > log_phi ? th + log1p(exp(log_phi - th)) : log_phi + log1p(exp(th - log_phi));
    double ypp = y + phi;
    if (!propto && y_vec) s_lgy += tm_lgamma(y + 1);
    if (keep_phi && phi_vec) s_phi += (phi == 0 ? 0 : phi * log(phi)) - tm_lgamma(phi);
    s_lse += ypp * lse;
    if (keep_lin) s_ytheta += y * th;
    if (keep_phi) s_lgyp += tm_lgamma(ypp);
    double te = exp(th);
    g[n] = y - te * ypp / (te + phi);
    if (dphi) {
      double d = -ypp / (te + phi) + log_phi - lse + tm_digamma(ypp) - (phi_vec ? tm_digamma(phi) : dg_phi0);
      if (phi_vec) dphi[n] = 1 + d;
      else dphi[0] += d;
    }
  }
  if (dphi && !phi_vec) dphi[0] += (double)N;
  if (!propto) lp -= y_vec ? s_lgy : tm_lgamma(tm_geti(&a[0], 0) + 1) * (double)N;
  if (keep_phi) lp += phi_vec ? s_phi : (double)N * ((phi0 == 0 ? 0 : phi0 * log_phi0) - tm_lgamma(phi0));
  lp -= s_lse;
  if (keep_lin) lp += s_ytheta;
  if (keep_phi) lp += s_lgyp;
  int nops = 0;
  if (dphi) ops[nops++] = (ad_operand){ph->adj, dphi, tm_numel(ph)};
  return glm_end(&G, g, ops, nops, lp, tm_any_dep(a, 5), out);
}

#define X2(y, r) "real(" y ", matrix, " r "); real(" y ", row_vector, " r ")"
#define NID(y) X2(y, "real, vector, real") "; " X2(y, "vector, vector, real") "; " \
  X2(y, "real, vector, vector") "; " X2(y, "vector, vector, vector")
#define PLG(y) X2(y, "real, vector") "; " X2(y, "vector, vector")

const tm_fn tm_fns_glm[] = {
  {"normal_id_glm_lpdf", NID("real") "; " NID("vector"), k_normal_id_glm, NULL},
  {"poisson_log_glm_lpmf", PLG("int") "; " PLG("array[] int"), k_poisson_log_glm, NULL},
  {"neg_binomial_2_log_glm_lpmf", NID("int") "; " NID("array[] int"), k_neg_binomial_2_log_glm, NULL},
  {NULL, NULL, NULL, NULL}
};
