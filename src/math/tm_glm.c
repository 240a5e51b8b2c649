/*
** tm_glm.c -- normal_id_glm_lpdf, poisson_log_glm_lpmf,
** neg_binomial_2_log_glm_lpmf, ordered_logistic_glm_lpmf and
** categorical_logit_glm_lpmf: a density of a
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

/* Shapes shared by the two GLMs of categories: y an int or an int array;
** x a matrix (a row per outcome) or a row_vector shared by all; N outcomes. */
static int cat_shapes(const char *fn, const tm_v *y, const tm_v *x, size_t *N, int *xrow) {
  if (y->base != TM_INT || y->narr > 1)
    return ad_fail(AD_EINVALID, "%s: Vector of dependent variables must be an int or an array of ints", fn);
  if ((x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr)
    return ad_fail(AD_EINVALID, "%s: Matrix of independent variables must be a matrix or a row_vector", fn);
  *xrow = x->base == TM_ROW_VECTOR;
  *N = *xrow ? (tm_is_scalar(y) ? 1 : tm_numel(y)) : (size_t)x->rows;
  if (!tm_is_scalar(y) && !*xrow)
    return tm_check_consistent_size(fn, "Vector of dependent variables", tm_numel(y), *N);
  return AD_OK;
}

/* ordered_logistic_glm(y | x, beta, cuts) = ordered_logistic(y | x beta, cuts),
** as Stan Math computes it: log(1 - inv_logit) terms by their stable forms. */
static int k_ordered_logistic_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 4) return ad_fail(AD_EINVALID, "%s: expected 4 arguments, got %d", fn, nargs);
  const tm_v *y = &a[0], *x = &a[1], *be = &a[2], *cu = &a[3];
  size_t N;
  int xrow, rc;
  if ((rc = cat_shapes(fn, y, x, &N, &xrow))) return rc;
  if (be->base != TM_VECTOR || be->narr) return ad_fail(AD_EINVALID, "%s: Weight vector must be a vector", fn);
  if (cu->base != TM_VECTOR || cu->narr) return ad_fail(AD_EINVALID, "%s: Cut-points must be a vector", fn);
  size_t K = (size_t)x->cols, C = tm_numel(cu) + 1;
  if ((rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), K))) return rc;
  if ((rc = tm_check_bounded(fn, "Vector of dependent variables", y, 1, (double)C))) return rc;
  const double *cv = cu->val;
  for (size_t i = 1; i + 1 < C; i++)
    if (!(cv[i] > cv[i - 1]))
      return ad_fail(AD_EDOMAIN, "%s: Cut-points is not a valid ordered vector. The element at %zu is %.17g, but "
                     "should be greater than the previous element, %.17g", fn, i + 1, cv[i], cv[i - 1]);
  if (C > 2 && !isfinite(cv[C - 2]))
    return ad_fail(AD_EDOMAIN, "%s: Final cut-point is %.17g, but must be finite!", fn, cv[C - 2]);
  if (C > 1 && !isfinite(cv[0]))
    return ad_fail(AD_EDOMAIN, "%s: First cut-point is %.17g, but must be finite!", fn, cv[0]);
  ad_operand ops[3];
  int nops = 0, dep = tm_any_dep(a, 4);
  int keep = !c->propto || !tm_is_const(x) || !tm_is_const(be) || !tm_is_const(cu);
  double *dx = x->adj ? ad_alloc_zeros(tm_numel(x) + 1) : NULL, *db = be->adj ? ad_alloc_zeros(K + 1) : NULL;
  double *dc = cu->adj ? ad_alloc_zeros(C) : NULL;
  if ((x->adj && !dx) || (be->adj && !db) || (cu->adj && !dc)) return AD_EMEMORY;
  if (dx) ops[nops++] = (ad_operand){x->adj, dx, tm_numel(x)};
  if (db) ops[nops++] = (ad_operand){be->adj, db, K};
  if (dc) ops[nops++] = (ad_operand){cu->adj, dc, C - 1};
  if (N == 0 || C == 1 || !keep) return tm_set_operands(out, nops, ops, 0.0, dep);
  /* locations: x beta per row, or one for a row_vector */
  size_t NL = xrow ? 1 : N;
  double *loc = ad_alloc_zeros(NL + 1), *g = ad_alloc_doubles(N + 1);
  if (!loc || !g) return AD_EMEMORY;
  for (size_t k = 0; k < K; k++) {
    const double *xk = x->val + k * NL;
    double bk = be->val[k];
    for (size_t n = 0; n < NL; n++) loc[n] += xk[n] * bk;
  }
  double lsum = 0;
  for (size_t n = 0; n < NL; n++) lsum += loc[n];
  if (!isfinite(lsum)) {
    if ((rc = tm_check_finite(fn, "Weight vector", be))) return rc;
    if ((rc = tm_check_finite(fn, "Matrix of independent variables", x))) return rc;
  }
  int yv = !tm_is_scalar(y);
  double lp = 0;
  for (size_t n = 0; n < N; n++) {
    int k = y->ival[yv ? n : 0];
    double L = loc[xrow ? 0 : n];
    double c1 = k != (int)C ? cv[k - 1] : INFINITY, c2 = k != 1 ? cv[k - 2] : -INFINITY;
    double cut2 = L - c2, cut1 = L - c1;
    double m1 = (cut1 > 0 ? -cut1 : 0) - log1p(exp(-fabs(cut1)));
    double m2 = (cut2 <= 0 ? cut2 : 0) - log1p(exp(-fabs(cut2)));
    if (k == 1) lp += m1;
    else if (k == (int)C) lp += m2;
    else lp += m2 + tm_log1m_exp(cut1 - cut2) + m1;
    double em1 = exp(-cut1), em2 = exp(-cut2), ecd = exp(c2 - c1);
    double d1 = (cut2 > 0 ? em2 / (1 + em2) : 1 / (1 + exp(cut2))) - ecd / (ecd - 1);
    double d2 = 1 / (1 - ecd) - (cut1 > 0 ? em1 / (1 + em1) : 1 / (1 + exp(cut1)));
    g[n] = d1 - d2;
    if (dc) {
      if (k != (int)C) dc[k - 1] += d2;
      if (k != 1) dc[k - 2] -= d1;
    }
  }
  if (dx || db) {
    for (size_t k = 0; k < K; k++) {
      double bk = be->val[k], s = 0;
      if (xrow) {
        double sg = 0;
        for (size_t n = 0; n < N; n++) sg += g[n];
        if (dx) dx[k] = bk * sg;
        s = sg * x->val[k];
      } else {
        const double *xk = x->val + k * N;
        for (size_t n = 0; n < N; n++) {
          s += g[n] * xk[n];
          if (dx) dx[k * N + n] = bk * g[n];
        }
      }
      if (db) db[k] = s;
    }
  }
  return tm_set_operands(out, nops, ops, lp, dep);
}

/* categorical_logit_glm(y | x, alpha, beta) = categorical_logit(y | alpha + beta' x_n)
** per outcome; x is N x K, alpha C, beta K x C. */
static int k_categorical_logit_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 4) return ad_fail(AD_EINVALID, "%s: expected 4 arguments, got %d", fn, nargs);
  const tm_v *y = &a[0], *x = &a[1], *al = &a[2], *be = &a[3];
  size_t N;
  int xrow, rc;
  if ((rc = cat_shapes(fn, y, x, &N, &xrow))) return rc;
  if (al->base != TM_VECTOR || al->narr) return ad_fail(AD_EINVALID, "%s: Intercept vector must be a vector", fn);
  if (be->base != TM_MATRIX || be->narr) return ad_fail(AD_EINVALID, "%s: Weight matrix must be a matrix", fn);
  size_t K = (size_t)x->cols, C = (size_t)be->cols;
  if ((rc = tm_check_consistent_size(fn, "Intercept vector", tm_numel(al), C))) return rc;
  if ((rc = tm_check_size_match(fn, "x.cols()", K, "beta.rows()", (size_t)be->rows))) return rc;
  if ((rc = tm_check_bounded(fn, "categorical outcome out of support", y, 1, (double)C))) return rc;
  ad_operand ops[3];
  int nops = 0, dep = tm_any_dep(a, 4);
  int keep = !c->propto || !tm_is_const(x) || !tm_is_const(al) || !tm_is_const(be);
  double *dx = x->adj ? ad_alloc_zeros(tm_numel(x) + 1) : NULL, *da = al->adj ? ad_alloc_zeros(C + 1) : NULL;
  double *db = be->adj ? ad_alloc_zeros(K * C + 1) : NULL;
  if ((x->adj && !dx) || (al->adj && !da) || (be->adj && !db)) return AD_EMEMORY;
  if (dx) ops[nops++] = (ad_operand){x->adj, dx, tm_numel(x)};
  if (da) ops[nops++] = (ad_operand){al->adj, da, C};
  if (db) ops[nops++] = (ad_operand){be->adj, db, K * C};
  if (N == 0 || C == 1 || !keep) return tm_set_operands(out, nops, ops, 0.0, dep);
  size_t R = xrow ? 1 : N;   /* rows of the linear predictor */
  /* lin (R x C, column-major) = x beta + alpha */
  double *lin = ad_alloc_doubles(R * C + 1), *sm = ad_alloc_doubles(R * C + 1);
  double *mx = ad_alloc_doubles(R + 1), *isum = ad_alloc_doubles(R + 1);
  if (!lin || !sm || !mx || !isum) return AD_EMEMORY;
  for (size_t j = 0; j < C; j++) {
    double *lj = lin + j * R;
    for (size_t r = 0; r < R; r++) lj[r] = al->val[j];
    for (size_t k = 0; k < K; k++) {
      double b = be->val[j * K + k];
      const double *xk = x->val + k * R;
      for (size_t r = 0; r < R; r++) lj[r] += xk[r] * b;
    }
  }
  for (size_t r = 0; r < R; r++) {
    double m = lin[r];
    for (size_t j = 1; j < C; j++) if (lin[j * R + r] > m) m = lin[j * R + r];
    mx[r] = m;
  }
  double lp = 0, lmax = 0;
  for (size_t r = 0; r < R; r++) {
    double s = 0;
    for (size_t j = 0; j < C; j++) { double e = exp(lin[j * R + r] - mx[r]); sm[j * R + r] = e; s += e; }
    isum[r] = 1 / s;
    lp += log(isum[r]);
    lmax += mx[r];
  }
  lp -= lmax;
  if (xrow) lp *= (double)N;
  int yv = !tm_is_scalar(y);
  for (size_t n = 0; n < N; n++) lp += lin[(size_t)(y->ival[yv ? n : 0] - 1) * R + (xrow ? 0 : n)];
  if (!isfinite(lp)) {
    if ((rc = tm_check_finite(fn, "Weight vector", be)) || (rc = tm_check_finite(fn, "Intercept", al)) ||
        (rc = tm_check_finite(fn, "Matrix of independent variables", x)))
      return rc;
  }
  /* sm becomes the softmax; d logp / d lin[r, j] = [y == j] - softmax (times N for a row_vector) */
  for (size_t j = 0; j < C; j++)
    for (size_t r = 0; r < R; r++) sm[j * R + r] *= isum[r];
  double *gl = ad_alloc_doubles(R * C + 1);
  if (!gl) return AD_EMEMORY;
  for (size_t i = 0; i < R * C; i++) gl[i] = -sm[i] * (xrow ? (double)N : 1.0);
  for (size_t n = 0; n < N; n++) gl[(size_t)(y->ival[yv ? n : 0] - 1) * R + (xrow ? 0 : n)] += 1;
  if (da)
    for (size_t j = 0; j < C; j++) { double s = 0; for (size_t r = 0; r < R; r++) s += gl[j * R + r]; da[j] = s; }
  if (db)
    for (size_t j = 0; j < C; j++)
      for (size_t k = 0; k < K; k++) {
        const double *xk = x->val + k * R, *gj = gl + j * R;
        double s = 0;
        for (size_t r = 0; r < R; r++) s += xk[r] * gj[r];
        db[j * K + k] = s;
      }
  if (dx)
    for (size_t k = 0; k < K; k++)
      for (size_t r = 0; r < R; r++) {
        double s = 0;
        for (size_t j = 0; j < C; j++) s += gl[j * R + r] * be->val[j * K + k];
        dx[k * R + r] = s;
      }
  return tm_set_operands(out, nops, ops, lp, dep);
}

#define X2(y, r) "real(" y ", matrix, " r "); real(" y ", row_vector, " r ")"
#define NID(y) X2(y, "real, vector, real") "; " X2(y, "vector, vector, real") "; " \
  X2(y, "real, vector, vector") "; " X2(y, "vector, vector, vector")
#define PLG(y) X2(y, "real, vector") "; " X2(y, "vector, vector")

const tm_fn tm_fns_glm[] = {
  {"normal_id_glm_lpdf", NID("real") "; " NID("vector"), k_normal_id_glm, NULL},
  {"poisson_log_glm_lpmf", PLG("int") "; " PLG("array[] int"), k_poisson_log_glm, NULL},
  {"neg_binomial_2_log_glm_lpmf", NID("int") "; " NID("array[] int"), k_neg_binomial_2_log_glm, NULL},
  {"ordered_logistic_glm_lpmf", X2("int", "vector, vector") "; " X2("array[] int", "vector, vector"),
   k_ordered_logistic_glm, NULL},
  {"categorical_logit_glm_lpmf", X2("int", "vector, matrix") "; " X2("array[] int", "vector, matrix"),
   k_categorical_logit_glm, NULL},
  {NULL, NULL, NULL, NULL}
};
