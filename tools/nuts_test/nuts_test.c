/*
** nuts_test.c -- standalone checks of src/nuts on Gaussian targets.
** Not part of the package.  Build and run: sh tools/nuts_test/run.sh
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nuts/nuts.h"

/* ---- targets ---- */
typedef struct gauss {
  int n;
  const double *prec;   /* dense precision n*n (column-major), or NULL */
  const double *scale;  /* diag scales, or NULL (= 1) */
  int positive;         /* reject q[0] < 0 (half-normal in the first coordinate) */
} gauss;

static int gauss_logp(void *model, const double *q, double *lp, double *g,
                      char *msg, size_t msgsize) {
  const gauss *m = model;
  int n = m->n;
  if (m->positive && q[0] < 0) {
    snprintf(msg, msgsize, "q[0] = %g is negative", q[0]);
    return AD_EDOMAIN;
  }
  double s = 0;
  if (m->prec) {
    for (int i = 0; i < n; i++) {
      double r = 0;
      for (int k = 0; k < n; k++) r += m->prec[i + k * n] * q[k];
      g[i] = -r;
      s += q[i] * r;
    }
  } else {
    for (int i = 0; i < n; i++) {
      double sc = m->scale ? m->scale[i] : 1;
      double z = q[i] / sc;
      s += z * z;
      g[i] = -z / sc;
    }
  }
  *lp = -0.5 * s;
  return AD_OK;
}

/* ---- collecting draws ---- */
typedef struct store {
  int n, cap, count;
  double *q;            /* count x n */
  double accept_sum; long divergent, leapfrog;
  double *inv_metric; int adapt_called;
} store;

static int store_draw(void *ctx, const nuts_draw *d) {
  store *st = ctx;
  if (d->warmup || !d->saved) return 0;
  if (st->count >= st->cap) return 1;
  memcpy(st->q + (size_t)st->count * st->n, d->q, st->n * sizeof(double));
  st->count++;
  st->accept_sum += d->accept_stat;
  st->divergent += d->divergent;
  st->leapfrog += d->n_leapfrog;
  return 0;
}

static int store_adapt(void *ctx, double eps, const double *minv, int n, nuts_metric_kind k) {
  store *st = ctx;
  (void)eps; (void)minv; (void)n; (void)k;
  st->adapt_called++;
  return 0;
}

/* ---- ESS: Stan's multi-chain estimator (Geyer initial monotone sequence) ---- */
static double ess(const double *x[], int chains, int draws) {
  double *acov = calloc((size_t)chains * draws, sizeof(double));
  double *mean = calloc(chains, sizeof(double)), *var = calloc(chains, sizeof(double));
  for (int c = 0; c < chains; c++) {
    double m = 0;
    for (int t = 0; t < draws; t++) m += x[c][t];
    m /= draws;
    mean[c] = m;
    for (int lag = 0; lag < draws; lag++) {
      double s = 0;
      for (int t = 0; t + lag < draws; t++) s += (x[c][t] - m) * (x[c][t + lag] - m);
      acov[c * draws + lag] = s / draws;
    }
    var[c] = acov[c * draws] * draws / (draws - 1.0);
  }
  double W = 0, mm = 0, B = 0;
  for (int c = 0; c < chains; c++) { W += var[c]; mm += mean[c]; }
  W /= chains; mm /= chains;
  for (int c = 0; c < chains; c++) B += (mean[c] - mm) * (mean[c] - mm);
  B = chains > 1 ? B / (chains - 1) : 0;
  double vplus = (draws - 1.0) / draws * W + B;
  double *rho = calloc(draws, sizeof(double));
  for (int lag = 0; lag < draws; lag++) {
    double a = 0;
    for (int c = 0; c < chains; c++) a += acov[c * draws + lag];
    a /= chains;
    rho[lag] = 1 - (W - a) / vplus;
  }
  rho[0] = 1;
  int t = 0;
  double sum = 0, prev = INFINITY;
  while (t + 1 < draws) {
    double p = rho[t] + rho[t + 1];
    if (p < 0) break;
    if (p > prev) p = prev;
    prev = p;
    sum += p;
    t += 2;
  }
  double tau = -1 + 2 * sum;
  if (tau < 1.0 / log10((double)chains * draws)) tau = 1.0 / log10((double)chains * draws);
  free(acov); free(mean); free(var); free(rho);
  return chains * draws / tau;
}

static int failures = 0;
static uint64_t seed_offset = 0;   /* argv[1]: run the checks with other seeds */
static void check(int ok, const char *what, double got, double want) {
  printf("  %-4s %-50s got %10.4f  want %10.4f\n", ok ? "ok" : "FAIL", what, got, want);
  if (!ok) failures++;
}

#define CHAINS 4

typedef struct run {
  store st[CHAINS];
  nuts_result res[CHAINS];
  double *minv[CHAINS];
} run;

static void do_run(run *r, gauss *model, const nuts_config *cfg, int n, uint64_t seed) {
  size_t ms = cfg->metric == NUTS_DENSE_E ? (size_t)n * n : (size_t)n;
  for (int c = 0; c < CHAINS; c++) {
    tm_rng rng;
    tm_rng_seed(&rng, seed + seed_offset, (uint64_t)c + 1);
    double *q0 = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) q0[i] = 4 * tm_rng_uniform(&rng) - 2;
    if (model->positive) q0[0] = fabs(q0[0]);
    store *st = &r->st[c];
    memset(st, 0, sizeof *st);
    st->n = n; st->cap = cfg->num_samples;
    st->q = malloc((size_t)st->cap * n * sizeof(double));
    nuts_sink sink = { st, store_draw, store_adapt };
    r->minv[c] = malloc(ms * sizeof(double));
    r->res[c].inv_metric = r->minv[c];
    int rc = nuts_chain_run(cfg, gauss_logp, model, n, q0, &rng, &sink, &r->res[c]);
    if (rc != AD_OK) printf("  chain %d: status %d: %s\n", c + 1, rc, r->res[c].msg);
    free(q0);
  }
}

static void free_run(run *r) {
  for (int c = 0; c < CHAINS; c++) { free(r->st[c].q); free(r->minv[c]); }
}

/* Means, variances, ESS per leapfrog for each coordinate; returns the
** minimum ESS / leapfrog. */
static void summarise(run *r, int n, const double *truevar, const char *name,
                      double delta, int check_accept) {
  int draws = r->st[0].count;
  double *col[CHAINS];
  for (int c = 0; c < CHAINS; c++) col[c] = malloc(draws * sizeof(double));
  double *sq[CHAINS];
  for (int c = 0; c < CHAINS; c++) sq[c] = malloc(draws * sizeof(double));
  long leap = 0, div = 0;
  double acc = 0;
  for (int c = 0; c < CHAINS; c++) {
    leap += r->st[c].leapfrog; div += r->st[c].divergent; acc += r->st[c].accept_sum;
  }
  acc /= (double)CHAINS * draws;
  double worst_mean = 0, worst_var = 0, min_ess = INFINITY, sum_ess = 0;
  for (int i = 0; i < n; i++) {
    double m = 0, v = 0;
    for (int c = 0; c < CHAINS; c++)
      for (int t = 0; t < draws; t++) {
        double x = r->st[c].q[(size_t)t * n + i];
        col[c][t] = x; sq[c][t] = x * x;
        m += x; v += x * x;
      }
    double N = (double)CHAINS * draws;
    m /= N; v = v / N - m * m;
    double e = ess((const double **)col, CHAINS, draws);
    double e2 = ess((const double **)sq, CHAINS, draws);
    double sd = sqrt(truevar[i]);
    double zm = fabs(m) / (sd / sqrt(e));
    /* var(x^2) = 2 sd^4 for a centred Gaussian */
    double zv = fabs(v - truevar[i]) / (sqrt(2.0) * truevar[i] / sqrt(e2));
    if (zm > worst_mean) worst_mean = zm;
    if (zv > worst_var) worst_var = zv;
    if (e < min_ess) min_ess = e;
    sum_ess += e;
  }
  printf("%s: %d chains x %d draws, %ld leapfrog steps after warmup\n", name, CHAINS, draws, leap);
  /* with n coordinates the worst z-score grows like sqrt(2 log n) */
  double zlim = 3.5 + sqrt(2 * log((double)n));
  check(worst_mean < zlim, "worst |mean| / MCSE", worst_mean, zlim);
  check(worst_var < zlim, "worst |var - true| / MCSE", worst_var, zlim);
  /* the final step size exp(x_bar) is a little smaller than the iterates
     that averaged delta, so accept_stat ends above delta (as in Stan) */
  if (check_accept) check(acc > delta - 0.05 && acc < delta + 0.15, "mean accept_stat (sampling)", acc, delta);
  check(div == 0, "divergences", (double)div, 0);
  for (int c = 0; c < CHAINS; c++)
    if (r->st[c].adapt_called != 1) { check(0, "adapt_done called once", r->st[c].adapt_called, 1); break; }
  printf("  info min ESS %.0f, mean ESS %.0f, min ESS/leapfrog %.4f, mean ESS/leapfrog %.4f, "
         "step size chain 1 %.4f\n", min_ess, sum_ess / n, min_ess / leap, sum_ess / n / leap,
         r->res[0].stepsize);
  for (int c = 0; c < CHAINS; c++) { free(col[c]); free(sq[c]); }
}

int main(int argc, char **argv) {
  nuts_config cfg;
  if (argc > 1) seed_offset = strtoull(argv[1], NULL, 10);

  /* (a) 100-d iid standard normal, diag_e */
  {
    int n = 100;
    gauss g = { n, NULL, NULL, 0 };
    nuts_config_default(&cfg);
    run r;
    do_run(&r, &g, &cfg, n, 1234);
    double tv[100];
    for (int i = 0; i < n; i++) tv[i] = 1;
    summarise(&r, n, tv, "(a) 100-d iid normal, diag_e", cfg.delta, 1);
    double worst = 0;
    for (int c = 0; c < CHAINS; c++)
      for (int i = 0; i < n; i++) {
        double e = fabs(r.minv[c][i] - 1);
        if (e > worst) worst = e;
      }
    check(worst < 0.5, "adapted inv metric: worst |m - 1| (400 entries)", worst, 0.5);
    free_run(&r);
  }

  /* (b) 2-d Gaussian, rho 0.9, dense_e */
  {
    int n = 2;
    double rho = 0.9, det = 1 - rho * rho;
    double prec[4] = { 1 / det, -rho / det, -rho / det, 1 / det };
    gauss g = { n, prec, NULL, 0 };
    nuts_config_default(&cfg);
    cfg.metric = NUTS_DENSE_E;
    run r;
    do_run(&r, &g, &cfg, n, 99);
    double tv[2] = { 1, 1 };
    summarise(&r, n, tv, "(b) 2-d correlated (0.9), dense_e", cfg.delta, 1);
    double cov = 0; long N = 0;
    for (int c = 0; c < CHAINS; c++)
      for (int t = 0; t < r.st[c].count; t++, N++) cov += r.st[c].q[t * 2] * r.st[c].q[t * 2 + 1];
    cov /= N;
    check(fabs(cov - rho) < 0.06, "sample covariance", cov, rho);
    double worst = 0;
    for (int c = 0; c < CHAINS; c++) {
      double want[4] = { 1, rho, rho, 1 };
      for (int k = 0; k < 4; k++) if (fabs(r.minv[c][k] - want[k]) > worst) worst = fabs(r.minv[c][k] - want[k]);
    }
    check(worst < 0.45, "adapted dense inv metric: worst abs error", worst, 0.45);
    free_run(&r);
  }

  /* (c) 10-d Gaussian, scales 1..10, diag_e */
  {
    int n = 10;
    double sc[10], tv[10];
    for (int i = 0; i < n; i++) { sc[i] = i + 1; tv[i] = sc[i] * sc[i]; }
    gauss g = { n, NULL, sc, 0 };
    nuts_config_default(&cfg);
    run r;
    do_run(&r, &g, &cfg, n, 7);
    summarise(&r, n, tv, "(c) 10-d scales 1..10, diag_e", cfg.delta, 1);
    double worst = 0;
    for (int c = 0; c < CHAINS; c++)
      for (int i = 0; i < n; i++) {
        double e = fabs(r.minv[c][i] / tv[i] - 1);
        if (e > worst) worst = e;
      }
    check(worst < 0.4, "adapted inv metric: worst relative error", worst, 0.4);
    free_run(&r);
  }

  /* (d) unit_e on the 10-d target, and (e) rejections: half-normal in q[0] */
  {
    int n = 10;
    double sc[10], tv[10];
    for (int i = 0; i < n; i++) { sc[i] = i + 1; tv[i] = sc[i] * sc[i]; }
    gauss g = { n, NULL, sc, 0 };
    nuts_config_default(&cfg);
    cfg.metric = NUTS_UNIT_E;
    run r;
    do_run(&r, &g, &cfg, n, 8);
    summarise(&r, n, tv, "(d) 10-d scales 1..10, unit_e", cfg.delta, 1);
    free_run(&r);
  }
  {
    int n = 2;
    gauss g = { n, NULL, NULL, 1 };
    nuts_config_default(&cfg);
    run r;
    do_run(&r, &g, &cfg, n, 5);
    double m = 0; long N = 0;
    int neg = 0;
    for (int c = 0; c < CHAINS; c++)
      for (int t = 0; t < r.st[c].count; t++, N++) {
        m += r.st[c].q[t * 2];
        if (r.st[c].q[t * 2] < 0) neg++;
      }
    m /= N;
    printf("(e) half-normal by rejection (divergences expected at the boundary)\n");
    check(neg == 0, "draws outside the support", neg, 0);
    check(fabs(m - sqrt(2 / M_PI)) < 0.05, "mean of the half-normal coordinate", m, sqrt(2 / M_PI));
    free_run(&r);
  }

  /* (f) interrupt flag and config errors */
  {
    atomic_int stop = 1;
    gauss g = { 3, NULL, NULL, 0 };
    nuts_config_default(&cfg);
    cfg.stop = &stop;
    double q0[3] = { 0, 0, 0 };
    tm_rng rng;
    tm_rng_seed(&rng, 1, 1);
    nuts_result res = { 0 };
    int rc = nuts_chain_run(&cfg, gauss_logp, &g, 3, q0, &rng, NULL, &res);
    printf("(f) stop flag and bad configs\n");
    check(rc == NUTS_INTERRUPTED && res.iterations == 0, "stop flag set: interrupted, 0 iterations", rc, NUTS_INTERRUPTED);
    nuts_config_default(&cfg);
    cfg.delta = 1.5;
    rc = nuts_chain_run(&cfg, gauss_logp, &g, 3, q0, &rng, NULL, &res);
    check(rc == AD_EINVALID, "delta 1.5 rejected", rc, AD_EINVALID);
  }

  /* (g) same seed twice gives identical draws */
  {
    int n = 5;
    gauss g = { n, NULL, NULL, 0 };
    nuts_config_default(&cfg);
    cfg.num_warmup = 200; cfg.num_samples = 100;
    run r1, r2;
    do_run(&r1, &g, &cfg, n, 42);
    do_run(&r2, &g, &cfg, n, 42);
    int same = memcmp(r1.st[0].q, r2.st[0].q, (size_t)100 * n * sizeof(double)) == 0;
    printf("(g) reproducibility\n");
    check(same, "same seed, identical draws", same, 1);
    free_run(&r1); free_run(&r2);
  }

  printf(failures ? "FAILED: %d checks\n" : "all checks passed\n", failures);
  return failures != 0;
}
