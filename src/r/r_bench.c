/*
** r_bench.c -- timing loops for bench/ (run by hand, not by the tests).
**
** Each loop records, sweeps and recovers on the main thread's stack and
** returns nanoseconds per unit of work (element or operation), the best of
** `reps` repetitions so a noisy machine disturbs the figure less.
**
** "region" and "chunk" time the scheduling of parallel regions (src/par)
** with n threads, the main thread opening: an empty region of n empty
** chunks (so with n > 1 helpers are queued and, when the opener is faster,
** taken back), and one region of 10^5 empty chunks per chunk.  "join" is a
** region of n chunks that each wait for all n to have started, so every
** helper must join: what a region costs when its helpers do take part.
** Their check value is the mean number of threads that took part.
*/
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <R.h>
#include <Rinternals.h>
#include "../ad/ad.h"
#include "../math/tm.h"
#include "../par/pp.h"
#include "r_entries.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static const tm_fn *need(const char *name) {
  int n;
  const tm_fn *f = tm_lookup(name, &n);
  if (!f) error("benchmark needs '%s', which the math library lacks", name);
  return f;
}

/* Gradient of normal_lpdf(y | mu, sigma) with mu an autodiff vector. */
static int normal_vec(int n, double *ydata, double *check) {
  const tm_fn *f = need("normal_lpdf");
  double *mv, *ma;
  ad_var sigma;
  int rc;
  if ((rc = ad_leaves((size_t)n, NULL, &mv, &ma)) || (rc = ad_leaf(1.1, &sigma))) return rc;
  for (int i = 0; i < n; i++) mv[i] = 0.0;
  tm_v a[3] = {tm_vector_view(ydata, NULL, n), tm_vector_view(mv, ma, n), tm_real_view(sigma.val, sigma.adj)};
  tm_v lp;
  if ((rc = tm_invoke(f, 0, NULL, a, 3, &lp))) return rc;
  *lp.adj = 1.0;
  ad_sweep(ad_active);
  *check = *sigma.adj + ma[n - 1];
  return AD_OK;
}

/* n scalar operations cycling add, multiply, exp, log, on the tape directly. */
static int chain_tape(int n, double *check) {
  ad_var x, c, v;
  int rc;
  if ((rc = ad_leaf(0.5, &x)) || (rc = ad_leaf(1.0000001, &c))) return rc;
  v = x;
  for (int i = 0; i < n; i++) {
    double a = *v.val;
    switch (i & 3) {
    case 0: rc = ad_binary(v, c, a + *c.val, 1.0, 1.0, &v); break;
    case 1: rc = ad_binary(v, c, a * *c.val, *c.val, a, &v); break;
    case 2: { double e = exp(a); rc = ad_unary(v, e, e, &v); break; }
    default: rc = ad_unary(v, log(a), 1.0 / a, &v); break;
    }
    if (rc) return rc;
  }
  *v.adj = 1.0;
  ad_sweep(ad_active);
  *check = *x.adj;
  return AD_OK;
}

/* The same chain through the library's kernels (tm_invoke on scalars). */
static int chain_kernels(int n, double *check) {
  const tm_fn *fadd = need("add"), *fmul = need("multiply"), *fexp = need("exp"), *flog = need("log");
  ad_var x, c;
  int rc;
  if ((rc = ad_leaf(0.5, &x)) || (rc = ad_leaf(1.0000001, &c))) return rc;
  tm_v v = tm_real_view(x.val, x.adj), cv = tm_real_view(c.val, c.adj), out;
  for (int i = 0; i < n; i++) {
    tm_v a2[2] = {v, cv};
    switch (i & 3) {
    case 0: rc = tm_invoke(fadd, 0, NULL, a2, 2, &out); break;
    case 1: rc = tm_invoke(fmul, 0, NULL, a2, 2, &out); break;
    case 2: rc = tm_invoke(fexp, 0, NULL, &v, 1, &out); break;
    default: rc = tm_invoke(flog, 0, NULL, &v, 1, &out); break;
    }
    if (rc) return rc;
    v = out;
  }
  *v.adj = 1.0;
  ad_sweep(ad_active);
  *check = *x.adj;
  return AD_OK;
}

static int empty_chunk(pp_region *g, int slot, int chunk) {
  (void)g; (void)slot; (void)chunk;
  return AD_OK;
}

/* "join": each chunk waits (a bounded while) until every chunk has started. */
typedef struct join_ctx { atomic_int arrived; int n; } join_ctx;

static int join_chunk(pp_region *g, int slot, int chunk) {
  join_ctx *j = g->ctx;
  (void)slot; (void)chunk;
  atomic_fetch_add(&j->arrived, 1);
  for (long spins = 0; atomic_load(&j->arrived) < j->n; spins++)
    if (spins > 100000000L) return ad_fail(AD_EINVALID, "a helper never joined the region");
  return AD_OK;
}

#define REGIONS_PER_REP 20000
#define CHUNKS_PER_REGION 100000

/* Best of reps: nanoseconds per region (kind 'r': REGIONS_PER_REP regions
** of `threads` empty chunks; 'j': the same with join_chunk) or per chunk
** ('c': one region of CHUNKS_PER_REGION chunks).  *slots: participants per
** region, on average. */
static int region_bench(int threads, char kind, int reps, double *best, double *slots) {
  int old = pp_pool_size(), rc = AD_OK, chunked = kind == 'c';
  if (threads - 1 > old && (rc = pp_pool_resize(threads - 1))) return rc;
  int nregions = chunked ? 1 : REGIONS_PER_REP / (kind == 'j' ? 10 : 1);
  join_ctx j;
  double units = chunked ? (double)CHUNKS_PER_REGION : (double)nregions, nslots = 0;
  *best = INFINITY;
  for (int r = 0; r < reps && rc == AD_OK; r++) {
    nslots = 0;
    double t0 = now_ns();
    for (int i = 0; i < nregions; i++) {
      pp_region g;
      memset(&g, 0, sizeof g);
      g.nchunks = chunked ? CHUNKS_PER_REGION : threads;
      g.nthreads = threads;
      g.chunk = kind == 'j' ? join_chunk : empty_chunk;
      atomic_init(&j.arrived, 0);
      j.n = threads;
      g.ctx = &j;
      if ((rc = pp_region_run(&g))) break;
      nslots += g.nslots;
      pp_region_release(&g);
    }
    double t = (now_ns() - t0) / units;
    if (t < *best) *best = t;
  }
  *slots = nslots / nregions;
  /* leave the pool as the session had it */
  if (pp_pool_size() != old && old > 0) pp_pool_resize(old);
  return rc;
}

SEXP tp_bench(SEXP which_, SEXP n_, SEXP reps_) {
  const char *which = CHAR(STRING_ELT(which_, 0));
  int n = asInteger(n_), reps = asInteger(reps_);
  if (n < 1 || reps < 1) error("n and reps must be positive");
  if (!strcmp(which, "region") || !strcmp(which, "chunk") || !strcmp(which, "join")) {
    double best, slots;
    if (n > PP_MAX_SLOTS) error("at most %d threads", PP_MAX_SLOTS);
    if (region_bench(n, which[0], reps, &best, &slots)) error("%s", ad_errmsg());
    SEXP r = PROTECT(allocVector(REALSXP, 2));
    REAL(r)[0] = best;
    REAL(r)[1] = slots;
    UNPROTECT(1);
    return r;
  }
  double *ydata = NULL;
  if (strcmp(which, "normal_vec") == 0) {
    ydata = (double *)R_alloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) ydata[i] = sin(0.001 * i);
  }
  ad_stack *s = ad_active;
  ad_stack_recover(s);
  double best = INFINITY, check = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now_ns();
    int rc;
    if (strcmp(which, "normal_vec") == 0) rc = normal_vec(n, ydata, &check);
    else if (strcmp(which, "chain_tape") == 0) rc = chain_tape(n, &check);
    else if (strcmp(which, "chain_kernels") == 0) rc = chain_kernels(n, &check);
    else error("unknown benchmark '%s'", which);
    ad_stack_recover(s);
    double t = now_ns() - t0;
    if (rc) error("%s", ad_errmsg());
    if (t < best) best = t;
  }
  SEXP r = PROTECT(allocVector(REALSXP, 2));
  REAL(r)[0] = best / n;
  REAL(r)[1] = check;
  UNPROTECT(1);
  return r;
}
