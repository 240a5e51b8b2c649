/*
** tm_glm.c -- the GLM densities: normal_id_glm_lpdf, bernoulli_logit_glm_lpmf,
** poisson_log_glm_lpmf, neg_binomial_2_log_glm_lpmf, ordered_logistic_glm_lpmf
** and categorical_logit_glm_lpmf: a density of a linear predictor
** eta = alpha + x * beta, without forming eta as a program value.  The first
** four make one pass over x in blocks of rows (glm_sweep, tm_simd.h).
**
** x is a matrix (one row per outcome) or a row_vector shared by every
** outcome; alpha (and normal's sigma) a real or a vector; y a scalar or a
** container that broadcasts against x's rows.  One operands node per call,
** with the partial of each autodiff argument: d/d eta_n = g_n gives alpha's
** (g, or its sum), beta's (x' g) and x's (g beta').  Also
** bernoulli_logit_glm_rng, the draws of the same linear predictor.
*/
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_simd.h"
#include "tm_rng_def.h"


typedef struct glm {
  const char *fn;
  const tm_v *y, *x, *al, *be;
  size_t N, K;
  int xrow;
  double *g;                /* d logp / d eta per outcome */
  double *dbeta;            /* X' g, when beta is autodiff */
  double *lanes;            /* X' g as lane sums, during the sweep (tm_simd.h) */
  double gsum;
} glm;

/* The arguments' count and shapes, and the memory of g and X' g.  extra
** names a fifth argument (normal's sigma, neg_binomial's phi), a real or a
** vector, its shape checked before the others and its size (as extra_vec)
** after them, as Stan does; NULL: four arguments. */
static int glm_begin(glm *G, const tm_call *c, const tm_v *a, int nargs, int y_int, const char *extra,
                     const char *extra_vec) {
  const char *fn = c->fn->name;
  int want = extra ? 5 : 4;
  if (nargs != want) return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, want, nargs);
  if (extra && !tm_is_scalar(&a[4]) && (a[4].base != TM_VECTOR || a[4].narr))
    return ad_fail(AD_EINVALID, "%s: %s must be a real or a vector", fn, extra);
  const tm_v *y = &a[0], *x = &a[1], *al = &a[2], *be = &a[3];
  memset(G, 0, sizeof *G);
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
  if (!rc && extra && !tm_is_scalar(&a[4])) rc = tm_check_consistent_size(fn, extra_vec, tm_numel(&a[4]), G->N);
  if (rc) return rc;
  /* not zeroed: the pass writes every outcome's g before anything reads it
     (a GLM that returns before its pass has no autodiff argument to read it) */
  if (!(G->g = ad_alloc_doubles(G->N + 1))) return AD_EMEMORY;
  if (be->adj && !(G->dbeta = ad_alloc_zeros(G->K + 1))) return AD_EMEMORY;
  if (be->adj && !G->xrow && !(G->lanes = ad_alloc_zeros(G->K * TM_SIMD_LANES + 1))) return AD_EMEMORY;
  return AD_OK;
}

/* The intercept of outcome n. */
static inline double glm_alpha(const glm *G, size_t n) {
  return tm_is_scalar(G->al) ? tm_get(G->al, 0) : G->al->val[n];
}

/* What a GLM does with a block of outcomes n0 .. n0 + b - 1: t holds x beta
** (the intercept not added); it leaves there d logp / d eta, and adds the
** block's terms of the log density to its own sums. */
typedef void (*glm_rows)(void *ctx, const glm *G, size_t n0, size_t b, double *t);

/* Outcomes n0 .. n1 - 1 in blocks: x beta, the GLM's rows, then X' g while
** the block's slice of X is still in cache (tm_simd.h), into *gsum and
** lanes. */
static void glm_range(const glm *G, glm_rows rows, void *ctx, size_t n0_, size_t n1, double e0, double *gsum,
                      double *lanes) {
  size_t N = G->N, K = G->K;
  const double *xv = G->x->val, *bv = G->be->val;
  for (size_t n0 = n0_; n0 < n1; n0 += TM_SIMD_BLOCK) {
    size_t b = n1 - n0 < TM_SIMD_BLOCK ? n1 - n0 : TM_SIMD_BLOCK;
    double *t = G->g + n0;
    if (G->xrow) for (size_t r = 0; r < b; r++) t[r] = e0;
    else tm_block_gemv_n(xv + n0, N, K, b, bv, t);
    rows(ctx, G, n0, b, t);
    *gsum += tm_block_sum(t, b);
    if (lanes) tm_block_gemv_t(xv + n0, N, K, b, t, lanes);
  }
}

/* After the pass: the sum of g, and beta's partials from the lanes (or,
** for a row x, from the sum). */
static void glm_finish(glm *G, double gsum) {
  G->gsum = gsum;
  if (G->lanes) tm_block_lane_sums(G->lanes, G->K, G->dbeta);
  if (G->dbeta && G->xrow) for (size_t k = 0; k < G->K; k++) G->dbeta[k] = gsum * G->x->val[k];
}

/* One pass over the outcomes (glm_range), then beta's partials. */
static void glm_sweep(glm *G, glm_rows rows, void *ctx) {
  size_t K = G->K;
  const double *xv = G->x->val, *bv = G->be->val;
  double e0 = 0;
  if (G->xrow) for (size_t k = 0; k < K; k++) e0 += xv[k] * bv[k];
  double gsum = 0;
  glm_range(G, rows, ctx, 0, G->N, e0, &gsum, G->lanes);
  glm_finish(G, gsum);
}

/* ---- the same pass in chunks, on the evaluation's threads ----
** Above GLM_CHUNK_MIN outcomes the pass is cut into chunks of whole blocks
** by N alone (at most GLM_CHUNKS); each chunk sums into a context, gsum and
** lanes of its own, started from the caller's context as it came in (its
** sums still zero), and they are added in chunk order, so the bits
** depend on N only, never on the threads (tm_for). */
#define GLM_CHUNK_MIN 512
#define GLM_CHUNKS 32

/* Chunks' contexts and lanes start this many bytes apart at least: a chunk
** adds into them every block, and two threads' chunks sharing a cache line
** (or the pair the hardware prefetches together) slowed the pass on two
** threads below one thread's speed. */
#define GLM_PAD 128

typedef struct glm_par {
  const glm *G;
  glm_rows rows;
  size_t csize, ctx_size, ctx_stride, lanes_stride;
  char *ctxs;                 /* nchunks contexts */
  double *gsums, *lanes;      /* per chunk; lanes K * TM_SIMD_LANES each */
  double e0;
} glm_par;

static void glm_chunk(void *arg, int c) {
  const glm_par *P = arg;
  size_t n0 = (size_t)c * P->csize, n1 = n0 + P->csize < P->G->N ? n0 + P->csize : P->G->N;
  double *lanes = P->lanes ? P->lanes + (size_t)c * P->lanes_stride : NULL;
  /* the chunk's sums start from zero here, on its own thread; its gsum is
     summed on the stack and stored once */
  double gsum = 0;
  if (lanes) memset(lanes, 0, P->G->K * TM_SIMD_LANES * sizeof *lanes);
  glm_range(P->G, P->rows, P->ctxs + (size_t)c * P->ctx_stride, n0, n1, P->e0, &gsum, lanes);
  P->gsums[c] = gsum;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* glm_sweep by chunks; a chunk context's sums, nsums adjacent double members
** from byte sums_at of the context, are added into the caller's.  AD_OK or
** AD_EMEMORY. */
static int glm_sweep_chunks(glm *G, glm_rows rows, void *ctx, size_t ctx_size,
                            size_t sums_at, int nsums) {
  size_t N = G->N, K = G->K;
  size_t cs = (N + GLM_CHUNKS - 1) / GLM_CHUNKS;
  cs = (cs + TM_SIMD_BLOCK - 1) / TM_SIMD_BLOCK * TM_SIMD_BLOCK;
  if (cs < GLM_CHUNK_MIN) cs = GLM_CHUNK_MIN;
  if (N <= cs) { glm_sweep(G, rows, ctx); return AD_OK; }
  int nc = (int)((N + cs - 1) / cs);
  glm_par P;
  P.G = G;
  P.rows = rows;
  P.csize = cs;
  P.ctx_size = ctx_size;
  P.ctx_stride = round_up(ctx_size, GLM_PAD);
  P.lanes_stride = round_up(K * TM_SIMD_LANES, GLM_PAD / sizeof(double));
  P.e0 = 0;
  if (G->xrow) for (size_t k = 0; k < K; k++) P.e0 += G->x->val[k] * G->be->val[k];
  P.ctxs = ad_alloc((size_t)nc * P.ctx_stride);
  P.gsums = ad_alloc_doubles((size_t)nc);
  P.lanes = G->lanes ? ad_alloc_doubles((size_t)nc * P.lanes_stride) : NULL;
  if (!P.ctxs || !P.gsums || (G->lanes && !P.lanes)) return AD_EMEMORY;
  for (int c = 0; c < nc; c++) memcpy(P.ctxs + (size_t)c * P.ctx_stride, ctx, ctx_size);
  tm_for(nc, (double)N * (K + 1), glm_chunk, &P);
  double gsum = 0;
  for (int c = 0; c < nc; c++) {
    double *into = (double *)((char *)ctx + sums_at);
    const double *from = (const double *)(P.ctxs + (size_t)c * P.ctx_stride + sums_at);
    for (int i = 0; i < nsums; i++) into[i] += from[i];
    gsum += P.gsums[c];
    if (G->lanes) {
      const double *l = P.lanes + (size_t)c * P.lanes_stride;
      for (size_t k = 0; k < K * TM_SIMD_LANES; k++) G->lanes[k] += l[k];
    }
  }
  glm_finish(G, gsum);
  return AD_OK;
}

/* The failure Stan reports when the sum came out non-finite: the first
** non-finite of beta, alpha, x. */
static int glm_nonfinite(const char *fn, const tm_v *x, const tm_v *al, const tm_v *be) {
  int rc;
  if ((rc = tm_check_finite(fn, "Weight vector", be))) return rc;
  if ((rc = tm_check_finite(fn, "Intercept", al))) return rc;
  return tm_check_finite(fn, "Matrix of independent variables", x);
}

/* Partials of alpha, beta, x from g, then the node; extra operands (y,
** sigma, phi) come in ops[0..nops). */
static int glm_end(const glm *G, ad_operand *ops, int nops, double lp, int dep, tm_v *out) {
  size_t N = G->N, K = G->K;
  const double *g = G->g;
  if (G->al->adj) {
    double *d;
    if (tm_is_scalar(G->al)) {
      if (!(d = ad_alloc_doubles(1))) return AD_EMEMORY;
      d[0] = G->gsum;
    } else {
      d = G->g;   /* the node's own copy: g is not written again */
    }
    ops[nops++] = (ad_operand){G->al->adj, d, tm_numel(G->al)};
  }
  if (G->be->adj) ops[nops++] = (ad_operand){G->be->adj, G->dbeta, K};
  if (G->x->adj) {
    size_t m = tm_numel(G->x);
    double *d = ad_alloc_zeros(m + 1);
    if (!d) return AD_EMEMORY;
    if (G->xrow) {
      for (size_t k = 0; k < K; k++) d[k] = G->gsum * G->be->val[k];
    } else {
      for (size_t k = 0; k < K; k++) {
        double bk = G->be->val[k], *dk = d + k * N;
        for (size_t n = 0; n < N; n++) dk[n] = g[n] * bk;
      }
    }
    ops[nops++] = (ad_operand){G->x->adj, d, m};
  }
  return tm_set_operands(out, nops, ops, lp, dep);
}

/* ---- tables of lgamma and digamma at base + y for the counts y ----
** Counts are small integers that repeat, and lgamma and digamma cost more
** than everything else a count GLM does per outcome.  lgamma(base + j) and
** digamma(base + j) for j = 0 .. ymax by their recurrences (adding log and
** reciprocal of base + j - 1), computed afresh every GLM_TABLE_EXACT steps
** so the rounding of the sums stays within a few ulps; only when the table
** is no longer than the outcomes are many. */
#define GLM_TABLE_EXACT 32

static int count_max(const tm_v *y, size_t N, int *ymax) {
  size_t n = tm_is_scalar(y) ? 1 : tm_numel(y);
  int m = 0;
  for (size_t i = 0; i < n; i++) if (y->ival[i] > m) m = y->ival[i];
  *ymax = m;
  return (size_t)m <= N && m < (1 << 20);
}

static double *lgamma_table(double base, int ymax) {
  double *t = ad_alloc_doubles((size_t)ymax + 1);
  if (!t) return NULL;
  for (int j = 0; j <= ymax; j++)
    t[j] = j % GLM_TABLE_EXACT == 0 ? tm_lgamma(base + j) : t[j - 1] + log(base + (j - 1));
  return t;
}

static double *digamma_table(double base, int ymax) {
  double *t = ad_alloc_doubles((size_t)ymax + 1);
  if (!t) return NULL;
  for (int j = 0; j <= ymax; j++)
    t[j] = j % GLM_TABLE_EXACT == 0 ? tm_digamma(base + j) : t[j - 1] + 1 / (base + (j - 1));
  return t;
}

/* ---- normal_id_glm(y | x, alpha, beta, sigma) = normal(y | alpha + x beta, sigma) ---- */

typedef struct nid_ctx {
  const tm_v *y, *sg;
  double inv_s0;            /* 1 / sigma when sigma is a scalar */
  double *dy, *ds;          /* partials of y and sigma, or NULL */
  double zz, logs;
  int keep_s;
} nid_ctx;

/* z for each row goes into t first and the sum of squares is taken there by
** tm_block_sumsq, on both paths: the fast one (data y, one sigma) and the
** general one (y or a vector sigma on the tape) must add in the same order,
** or a log density on doubles would differ from its value on the tape. */
static void nid_rows(void *ctx, const glm *G, size_t n0, size_t b, double *t) {
  nid_ctx *C = ctx;
  int yv = !tm_is_scalar(C->y), sv = !tm_is_scalar(C->sg);
  if (yv && !sv && !C->dy) {
    /* the common case, on vector lanes */
    int av = !tm_is_scalar(G->al);
    double a0 = av ? 0 : tm_get(G->al, 0);
    tm_rows_normal_z(C->y->val + n0, av ? G->al->val + n0 : &a0, (size_t)av, C->inv_s0, t, b);
    C->zz += tm_block_sumsq(t, b);
    tm_block_scale(t, C->inv_s0, b);
    return;
  }
  double y0 = tm_get(C->y, 0), logs = 0;
  for (size_t r = 0; r < b; r++) {
    size_t n = n0 + r;
    double inv_s = sv ? 1 / C->sg->val[n] : C->inv_s0;
    double z = ((yv ? C->y->val[n] : y0) - t[r] - glm_alpha(G, n)) * inv_s;   /* Stan's order */
    double g = inv_s * z;
    if (sv) {
      if (C->keep_s) logs += log(C->sg->val[n]);
      if (C->ds) C->ds[n] = (z * z - 1) * inv_s;
    }
    if (C->dy) {
      if (yv) C->dy[n] = -g;
      else C->dy[0] -= g;
    }
    t[r] = z;
  }
  C->zz += tm_block_sumsq(t, b);
  if (sv) for (size_t r = 0; r < b; r++) t[r] *= 1 / C->sg->val[n0 + r];
  else tm_block_scale(t, C->inv_s0, b);
  C->logs += logs;
}

_Static_assert(offsetof(nid_ctx, logs) == offsetof(nid_ctx, zz) + sizeof(double), "nid_ctx's sums adjacent");

static int k_normal_id_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  const tm_v *sg = &a[4];
  glm G;
  int rc = glm_begin(&G, c, a, nargs, 0, "Scale vector", "Vector of scale parameters");
  if (rc) return rc;
  size_t N = G.N;
  if ((rc = tm_check_positive_finite(fn, "Scale vector", sg))) return rc;
  int propto = c->propto;
  nid_ctx C = {&a[0], sg, 1 / tm_get(sg, 0), NULL, NULL, 0, 0, !propto || !tm_is_const(sg)};
  int keep_q = C.keep_s || !tm_is_const(&a[0]) || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]);
  if (a[0].adj && !(C.dy = ad_alloc_zeros(tm_numel(&a[0]) + 1))) return AD_EMEMORY;
  if (sg->adj && !(C.ds = ad_alloc_zeros(tm_numel(sg) + 1))) return AD_EMEMORY;
  /* a scalar y on the tape sums its partial across rows: one pass */
  if (C.dy && tm_is_scalar(&a[0])) glm_sweep(&G, nid_rows, &C);
  else if ((rc = glm_sweep_chunks(&G, nid_rows, &C, sizeof C, offsetof(nid_ctx, zz), 2))) return rc;
  if (C.ds && tm_is_scalar(sg)) C.ds[0] = (C.zz - (double)N) * C.inv_s0;
  if (!isfinite(C.zz)) {
    if ((rc = tm_check_finite(fn, "Vector of dependent variables", &a[0])) || (rc = glm_nonfinite(fn, G.x, G.al, G.be))) return rc;
  }
  double lp = 0;
  if (!propto) lp -= TM_LOG_SQRT_2PI * (double)N;
  if (C.keep_s) lp -= tm_is_scalar(sg) ? (double)N * log(tm_get(sg, 0)) : C.logs;
  if (keep_q) lp -= 0.5 * C.zz;
  ad_operand ops[5];
  int nops = 0;
  if (C.dy) ops[nops++] = (ad_operand){a[0].adj, C.dy, tm_numel(&a[0])};
  if (C.ds) ops[nops++] = (ad_operand){sg->adj, C.ds, tm_numel(sg)};
  return glm_end(&G, ops, nops, lp, tm_any_dep(a, 5), out);
}

/* ---- poisson_log_glm(y | x, alpha, beta) = poisson_log(y | alpha + x beta) ---- */

typedef struct plg_ctx { const tm_v *y; double lin, lgy; int keep, full; const double *lgf; } plg_ctx;

static void plg_rows(void *ctx, const glm *G, size_t n0, size_t b, double *t) {
  plg_ctx *C = ctx;
  int yv = !tm_is_scalar(C->y), av = !tm_is_scalar(G->al);
  double a0 = av ? 0 : tm_get(G->al, 0), lgy = 0;
  const int *y = C->y->ival + (yv ? n0 : 0);
  if (C->full && yv)
    for (size_t r = 0; r < b; r++) lgy += C->lgf ? C->lgf[y[r]] : tm_lgamma(y[r] + 1.0);
  C->lin += tm_rows_poisson_log(y, (size_t)yv, av ? G->al->val + n0 : &a0, (size_t)av, t, b);
  C->lgy += lgy;
}

_Static_assert(offsetof(plg_ctx, lgy) == offsetof(plg_ctx, lin) + sizeof(double), "plg_ctx's sums adjacent");

static int k_poisson_log_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  glm G;
  int rc = glm_begin(&G, c, a, nargs, 1, NULL, NULL);
  if (rc) return rc;
  if (!(c->frozen & 1u) && (rc = tm_check_nonnegative(fn, "Vector of dependent variables", &a[0]))) return rc;
  int propto = c->propto;
  plg_ctx C = {&a[0], 0, 0, !propto || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]), !propto,
               NULL};
  ad_operand ops[4];
  if (!C.keep) return glm_end(&G, ops, 0, 0.0, tm_any_dep(a, 4), out);
  int ymax;
  if (C.full && !tm_is_scalar(&a[0]) && count_max(&a[0], G.N, &ymax) && !(C.lgf = lgamma_table(1, ymax)))
    return AD_EMEMORY;
  if ((rc = glm_sweep_chunks(&G, plg_rows, &C, sizeof C, offsetof(plg_ctx, lin), 2))) return rc;
  if (!isfinite(G.gsum) && (rc = glm_nonfinite(fn, G.x, G.al, G.be))) return rc;
  double lp = 0;
  if (!propto) lp -= tm_is_scalar(&a[0]) ? tm_lgamma(a[0].ival[0] + 1.0) * (double)G.N : C.lgy;
  lp += C.lin;
  return glm_end(&G, ops, 0, lp, tm_any_dep(a, 4), out);
}

/* ---- bernoulli_logit_glm(y | x, alpha, beta) = bernoulli_logit(y | alpha + x beta) ---- */

typedef struct blg_ctx { const tm_v *y; double lp; } blg_ctx;

static void blg_rows(void *ctx, const glm *G, size_t n0, size_t b, double *t) {
  blg_ctx *C = ctx;
  int yv = !tm_is_scalar(C->y), av = !tm_is_scalar(G->al);
  double a0 = av ? 0 : tm_get(G->al, 0);
  C->lp += tm_rows_bernoulli_logit(C->y->ival + (yv ? n0 : 0), (size_t)yv, av ? G->al->val + n0 : &a0, (size_t)av,
                                   t, b);
}

static int k_bernoulli_logit_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  glm G;
  int rc = glm_begin(&G, c, a, nargs, 1, NULL, NULL);
  if (rc) return rc;
  /* a plan's constant y passed this check when the plan was recorded */
  if (!(c->frozen & 1u) && (rc = tm_check_bounded(fn, "Vector of dependent variables", &a[0], 0, 1))) return rc;
  int keep = !c->propto || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]);
  ad_operand ops[4];
  if (!keep) return glm_end(&G, ops, 0, 0.0, tm_any_dep(a, 4), out);
  blg_ctx C = {&a[0], 0};
  if ((rc = glm_sweep_chunks(&G, blg_rows, &C, sizeof C, offsetof(blg_ctx, lp), 1))) return rc;
  /* Stan looks for the culprit only when the sum came out non-finite */
  if (!isfinite(C.lp) && (rc = glm_nonfinite(fn, G.x, G.al, G.be))) return rc;
  return glm_end(&G, ops, 0, C.lp, tm_any_dep(a, 4), out);
}

/* ---- neg_binomial_2_log_glm(y | x, alpha, beta, phi) ----
** = neg_binomial_2_log(y | alpha + x beta, phi), in Stan Math's order of
** checks and terms: log(exp(eta) + phi) by the stable branch on eta > log phi. */

typedef struct nb_ctx {
  const tm_v *y, *ph;
  double phi0, log_phi0, dg_phi0;
  double *dphi;
  const double *lgf, *lgp, *dgp;   /* tables: lgamma(y + 1), lgamma(y + phi), digamma(y + phi) */
  double s_lgy, s_phi, s_lse, s_ytheta, s_lgyp;
  size_t nbad;              /* first outcome whose linear predictor is not finite, 1-based */
  double bad;
  int keep_phi, keep_lin, full;
} nb_ctx;

static void nb_rows(void *ctx, const glm *G, size_t n0, size_t b, double *t) {
  nb_ctx *C = ctx;
  int yv = !tm_is_scalar(C->y), pv = !tm_is_scalar(C->ph);
  /* log(exp(theta) + phi) = log phi + log1p_exp(theta - log phi), with
  ** exp(theta) / (exp(theta) + phi) and phi / (exp(theta) + phi) as the
  ** inv_logit of +-(theta - log phi) */
  double ths[TM_SIMD_BLOCK], lph[TM_SIMD_BLOCK], l[TM_SIMD_BLOCK], p[TM_SIMD_BLOCK], q[TM_SIMD_BLOCK];
  for (size_t r = 0; r < b; r++) {
    ths[r] = t[r] + glm_alpha(G, n0 + r);
    lph[r] = pv ? log(C->ph->val[n0 + r]) : C->log_phi0;
    t[r] = ths[r] - lph[r];
  }
  tm_block_log1p_exp(t, l, p, q, b);
  for (size_t r = 0; r < b; r++) {
    size_t n = n0 + r;
    double y = yv ? C->y->ival[n] : C->y->ival[0], phi = pv ? C->ph->val[n] : C->phi0;
    double log_phi = lph[r], th = ths[r];
    if (!isfinite(th) && !C->nbad) { C->nbad = n + 1; C->bad = th; }
    double lse = log_phi + l[r];
    double ypp = y + phi;
    int yi = (int)y;
    if (C->full && yv) C->s_lgy += C->lgf ? C->lgf[yi] : tm_lgamma(y + 1);
    if (C->keep_phi && pv) C->s_phi += (phi == 0 ? 0 : phi * log_phi) - tm_lgamma(phi);
    C->s_lse += ypp * lse;
    if (C->keep_lin) C->s_ytheta += y * th;
    if (C->keep_phi) C->s_lgyp += C->lgp ? C->lgp[yi] : tm_lgamma(ypp);
    t[r] = y - ypp * p[r];
    if (C->dphi) {
      double d = -ypp / phi * q[r] + log_phi - lse + (C->dgp ? C->dgp[yi] : tm_digamma(ypp)) -
                 (pv ? tm_digamma(phi) : C->dg_phi0);
      if (pv) C->dphi[n] = 1 + d;
      else C->dphi[0] += d;
    }
  }
}

static int k_neg_binomial_2_log_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  const tm_v *ph = &a[4];
  glm G;
  int rc = glm_begin(&G, c, a, nargs, 1, "Precision parameter", "Vector of precision parameters");
  if (rc) return rc;
  size_t N = G.N;
  int pv = !tm_is_scalar(ph);
  if ((rc = tm_check_nonnegative(fn, "Failures variables", &a[0])) ||
      (rc = tm_check_finite(fn, "Weight vector", G.be)) || (rc = tm_check_finite(fn, "Intercept", G.al)) ||
      (rc = tm_check_positive_finite(fn, "Precision parameter", ph)))
    return rc;
  int propto = c->propto;
  nb_ctx C;
  memset(&C, 0, sizeof C);
  C.y = &a[0];
  C.ph = ph;
  C.phi0 = ph->val[0];
  C.log_phi0 = log(C.phi0);
  C.dg_phi0 = ph->adj ? tm_digamma(C.phi0) : 0;
  C.keep_phi = !propto || !tm_is_const(ph);
  C.keep_lin = !propto || !tm_is_const(&a[1]) || !tm_is_const(&a[2]) || !tm_is_const(&a[3]);
  C.full = !propto;
  if (ph->adj && !(C.dphi = ad_alloc_zeros(tm_numel(ph) + 1))) return AD_EMEMORY;
  ad_operand ops[5];
  int nops = 0;
  if (C.dphi) ops[nops++] = (ad_operand){ph->adj, C.dphi, tm_numel(ph)};
  /* nothing to add (all constant under propto): zero partials */
  if (N == 0 || !(C.keep_phi || C.keep_lin)) return glm_end(&G, ops, nops, 0.0, tm_any_dep(a, 5), out);
  int ymax;
  if (!tm_is_scalar(&a[0]) && count_max(&a[0], N, &ymax)) {
    if (C.full && !(C.lgf = lgamma_table(1, ymax))) return AD_EMEMORY;
    if (!pv && C.keep_phi && !(C.lgp = lgamma_table(C.phi0, ymax))) return AD_EMEMORY;
    if (!pv && C.dphi && !(C.dgp = digamma_table(C.phi0, ymax))) return AD_EMEMORY;
  }
  glm_sweep(&G, nb_rows, &C);
  /* Stan checks the linear predictor itself */
  if (C.nbad)
    return ad_fail(AD_EDOMAIN, "%s: Matrix of independent variables[%zu] is %.17g, but must be finite!",
                   fn, C.nbad, C.bad);
  if (C.dphi && !pv) C.dphi[0] += (double)N;
  double lp = 0;
  if (!propto) lp -= tm_is_scalar(&a[0]) ? tm_lgamma(a[0].ival[0] + 1.0) * (double)N : C.s_lgy;
  if (C.keep_phi) lp += pv ? C.s_phi : (double)N * ((C.phi0 == 0 ? 0 : C.phi0 * C.log_phi0) - tm_lgamma(C.phi0));
  lp -= C.s_lse;
  if (C.keep_lin) lp += C.s_ytheta;
  if (C.keep_phi) lp += C.s_lgyp;
  return glm_end(&G, ops, nops, lp, tm_any_dep(a, 5), out);
}

/* What the two GLMs of categories start with: four arguments; y an int or an
** int array; x a matrix (a row per outcome) or a row_vector shared by all,
** giving N outcomes; a[2] of base base2 (a vector or a matrix) named
** name2, a[3] of base3 named name3. */
static int cat_begin(const tm_call *c, const tm_v *a, int nargs, size_t *N, int *xrow, int base2,
                     const char *name2, int base3, const char *name3) {
  const char *fn = c->fn->name;
  const tm_v *y = &a[0], *x = &a[1];
  if (nargs != 4) return ad_fail(AD_EINVALID, "%s: expected 4 arguments, got %d", fn, nargs);
  if (y->base != TM_INT || y->narr > 1)
    return ad_fail(AD_EINVALID, "%s: Vector of dependent variables must be an int or an array of ints", fn);
  if ((x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr)
    return ad_fail(AD_EINVALID, "%s: Matrix of independent variables must be a matrix or a row_vector", fn);
  *xrow = x->base == TM_ROW_VECTOR;
  *N = *xrow ? (tm_is_scalar(y) ? 1 : tm_numel(y)) : (size_t)x->rows;
  int rc;
  if (!tm_is_scalar(y) && !*xrow &&
      (rc = tm_check_consistent_size(fn, "Vector of dependent variables", tm_numel(y), *N)))
    return rc;
  const int base[2] = {base2, base3};
  const char *name[2] = {name2, name3};
  for (int i = 0; i < 2; i++)
    if (a[2 + i].base != base[i] || a[2 + i].narr)
      return ad_fail(AD_EINVALID, "%s: %s must be a %s", fn, name[i], base[i] == TM_MATRIX ? "matrix" : "vector");
  return AD_OK;
}

/* The partials of x, a[2] and a[3] (sizes[i] elements each), zeroed, for
** those that are autodiff: into d[] and as operands ops[0 .. *nops). */
static int cat_partials(const tm_v *a, const size_t sizes[3], double *d[3], ad_operand *ops, int *nops) {
  *nops = 0;
  for (int i = 0; i < 3; i++) {
    const tm_v *v = &a[1 + i];
    d[i] = v->adj ? ad_alloc_zeros(sizes[i] + 1) : NULL;
    if (v->adj && !d[i]) return AD_EMEMORY;
  }
  for (int i = 0; i < 3; i++)
    if (d[i]) ops[(*nops)++] = (ad_operand){a[1 + i].adj, d[i], sizes[i]};
  return AD_OK;
}

/* ordered_logistic_glm(y | x, beta, cuts) = ordered_logistic(y | x beta, cuts),
** as Stan Math computes it: log(1 - inv_logit) terms by their stable forms. */
static int k_ordered_logistic_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  const tm_v *y = &a[0], *x = &a[1], *be = &a[2], *cu = &a[3];
  size_t N;
  int xrow, rc;
  if ((rc = cat_begin(c, a, nargs, &N, &xrow, TM_VECTOR, "Weight vector", TM_VECTOR, "Cut-points"))) return rc;
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
  int nops, dep = tm_any_dep(a, 4);
  int keep = !c->propto || !tm_is_const(x) || !tm_is_const(be) || !tm_is_const(cu);
  double *d[3];
  if ((rc = cat_partials(a, (const size_t[3]){tm_numel(x), K, C - 1}, d, ops, &nops))) return rc;
  double *dx = d[0], *db = d[1], *dc = d[2];
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
  const tm_v *y = &a[0], *x = &a[1], *al = &a[2], *be = &a[3];
  size_t N;
  int xrow, rc;
  if ((rc = cat_begin(c, a, nargs, &N, &xrow, TM_VECTOR, "Intercept vector", TM_MATRIX, "Weight matrix")))
    return rc;
  size_t K = (size_t)x->cols, C = (size_t)be->cols;
  if ((rc = tm_check_consistent_size(fn, "Intercept vector", tm_numel(al), C))) return rc;
  if ((rc = tm_check_size_match(fn, "x.cols()", K, "beta.rows()", (size_t)be->rows))) return rc;
  if ((rc = tm_check_bounded(fn, "categorical outcome out of support", y, 1, (double)C))) return rc;
  ad_operand ops[3];
  int nops, dep = tm_any_dep(a, 4);
  int keep = !c->propto || !tm_is_const(x) || !tm_is_const(al) || !tm_is_const(be);
  double *d[3];
  if ((rc = cat_partials(a, (const size_t[3]){tm_numel(x), C, K * C}, d, ops, &nops))) return rc;
  double *dx = d[0], *da = d[1], *db = d[2];
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
  if (!isfinite(lp) && (rc = glm_nonfinite(fn, x, al, be))) return rc;
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

/* ---- bernoulli_logit_glm_rng(x, alpha, beta): bernoulli_logit_rng(alpha + x beta) ---- */
static int k_bernoulli_logit_glm_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = "bernoulli_logit_glm_rng";
  int rc;
  if ((rc = tm_rng_begin(c, fn, nargs, 3))) return rc;
  const tm_v *x = &a[0], *al = &a[1], *be = &a[2];
  if ((x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr || be->base != TM_VECTOR || be->narr ||
      !(tm_is_scalar(al) || (al->base == TM_VECTOR && !al->narr)))
    return ad_fail(AD_EINVALID, "%s: expects (matrix or row_vector, real or vector, vector)", fn);
  size_t M = (size_t)x->rows, K = (size_t)x->cols;
  if ((rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), K))) return rc;
  if (!tm_is_scalar(al) && (rc = tm_check_consistent_size(fn, "Vector of intercepts", tm_numel(al), M))) return rc;
  if ((rc = tm_check_finite(fn, "Matrix of independent variables", x)) ||
      (rc = tm_check_finite(fn, "Weight vector", be)) || (rc = tm_check_finite(fn, "Intercept", al)))
    return rc;
  if ((rc = tm_rng_new_array(out, TM_INT, 1, M))) return rc;
  for (size_t m = 0; m < M; m++) {
    double th = tm_get(al, tm_is_scalar(al) ? 0 : m);
    for (size_t k = 0; k < K; k++) th += x->val[m + k * M] * be->val[k];
    out->ival[m] = tm_rng_uniform(c->rng) < tm_inv_logit(th);
  }
  return AD_OK;
}

const tm_fn tm_fns_glm[] = {
  {"normal_id_glm_lpdf", NID("real") "; " NID("vector"), k_normal_id_glm, NULL},
  {"poisson_log_glm_lpmf", PLG("int") "; " PLG("array[] int"), k_poisson_log_glm, NULL},
  {"bernoulli_logit_glm_lpmf", PLG("int") "; " PLG("array[] int"), k_bernoulli_logit_glm, NULL},
  {"neg_binomial_2_log_glm_lpmf", NID("int") "; " NID("array[] int"), k_neg_binomial_2_log_glm, NULL},
  {"ordered_logistic_glm_lpmf", X2("int", "vector, vector") "; " X2("array[] int", "vector, vector"),
   k_ordered_logistic_glm, NULL},
  {"categorical_logit_glm_lpmf", X2("int", "vector, matrix") "; " X2("array[] int", "vector, matrix"),
   k_categorical_logit_glm, NULL},
  {"bernoulli_logit_glm_rng", "array[] int(matrix, vector, vector); array[] int(row_vector, vector, vector)",
   k_bernoulli_logit_glm_rng, NULL},
  {NULL, NULL, NULL, NULL}
};
