/*
** cli_grad.c -- the gradient timing of tapestry-cli: the log density and
** nanoseconds per gradient at one point.
**
** The evaluations run on the main thread as $grad_log_prob() runs them
** (pl_log_prob: the first records the plan, later ones replay it), with a
** thread budget of --threads: the pool gets threads - 1 workers and the
** main thread is the first participant of every parallel region, as after
** tapestry_set_num_threads() in R.  The timed evaluations are split into
** blocks; the median block's time per evaluation is the figure, so one
** block disturbed by another process does not move it.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "par/pp.h"
#include "plan/pl.h"

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int eval(const li_ctx *c, const double *u, int jac, double *lp, double *g, char *err, size_t es) {
  err[0] = '\0';
  int rc = pl_log_prob(c, u, jac, lp, g, NULL, err, es);
  ad_stack_recover(ad_active);
  return rc;
}

int cli_grad(const cli_opts *o, cli_model *m) {
  const li_ctx *c = m->ctx;
  size_t n = li_num_upars(c);
  double *u = calloc(n + 1, sizeof *u), *g = calloc(n + 1, sizeof *g);
  double *ns = calloc((size_t)o->blocks, sizeof *ns);
  char err[4096];
  int status = 1;
  if (!u || !g || !ns) { fprintf(stderr, "tapestry-cli: out of memory\n"); goto out; }
  if (o->upars_file && cli_read_upars(o->upars_file, o->upars_index, u, n, err, sizeof err)) {
    fprintf(stderr, "tapestry-cli: %s\n", err);
    goto out;
  }
  if (o->threads - 1 > pp_pool_size() && pp_pool_resize(o->threads - 1) != AD_OK) {
    fprintf(stderr, "tapestry-cli: %s\n", ad_errmsg());
    goto out;
  }
  pp_set_threads(o->threads);

  /* the log density as $log_prob() gives it (on doubles) and with the
     gradient; the plan is recorded by the first gradient */
  double lp_d = NAN, lp = NAN;
  int rc = eval(c, u, o->jacobian, &lp_d, NULL, err, sizeof err);
  if (rc == AD_OK) rc = eval(c, u, o->jacobian, &lp, g, err, sizeof err);
  for (long i = 1; rc == AD_OK && i < o->warmup_evals && !cli_interrupted; i++)
    rc = eval(c, u, o->jacobian, &lp, g, err, sizeof err);
  if (rc != AD_OK) {
    fprintf(stderr, "tapestry-cli: the log density at the point fails: %s\n",
            rc == AD_EINTERRUPT ? "interrupted" : err);
    goto out;
  }

  long done = 0;
  int moved = 0;
  for (int b = 0; b < o->blocks && rc == AD_OK && !cli_interrupted; b++) {
    long k = o->evals / o->blocks + (b < o->evals % o->blocks);
    double lp_b, t0 = cli_now();
    for (long i = 0; i < k && rc == AD_OK; i++) rc = eval(c, u, o->jacobian, &lp_b, g, err, sizeof err);
    ns[b] = 1e9 * (cli_now() - t0) / (double)k;
    done += k;
    /* reduce_sum may differ in the last bits from one call to the next
       (DESIGN.md, reproducibility): said, not an error */
    if (rc == AD_OK && memcmp(&lp_b, &lp, sizeof lp) != 0 && !moved++)
      fprintf(stderr, "tapestry-cli: note: the log density moved between evaluations at one point: %.17g, then %.17g\n",
              lp, lp_b);
  }
  if (rc != AD_OK || cli_interrupted) {
    fprintf(stderr, "tapestry-cli: %s\n", cli_interrupted || rc == AD_EINTERRUPT ? "interrupted" : err);
    goto out;
  }
  pl_stats st;
  pl_get_stats(c, &st);
  printf("model            %s\n", m->name);
  printf("upars            %lu\n", (unsigned long)n);
  printf("threads          %d\n", o->threads);
  printf("path             %s%s%s\n", st.replays > 0 ? "plan" : "tree", st.why[0] ? ": " : "", st.why);
  printf("log_density      %.17g\n", lp);
  if (memcmp(&lp, &lp_d, sizeof lp) != 0)
    printf("log_density_dbl  %.17g (on doubles, without the gradient: differs)\n", lp_d);
  if (o->print_grad) {
    printf("gradient        ");
    for (size_t i = 0; i < n; i++) printf(" %.17g", g[i]);
    printf("\n");
  }
  double *sorted = malloc((size_t)o->blocks * sizeof *sorted);
  if (!sorted) goto out;
  memcpy(sorted, ns, (size_t)o->blocks * sizeof *ns);
  qsort(sorted, (size_t)o->blocks, sizeof *sorted, by_value);
  int nb = o->blocks;
  double med = nb % 2 ? sorted[nb / 2] : 0.5 * (sorted[nb / 2 - 1] + sorted[nb / 2]);
  printf("ns_per_gradient  %.0f\n", med);
  printf("blocks           %d x %ld evaluations; ns min %.0f, max %.0f\n", nb, done / nb, sorted[0], sorted[nb - 1]);
  free(sorted);
  status = 0;
out:
  free(u);
  free(g);
  free(ns);
  return status;
}
