/*
** cli_sample.c -- tapestry-cli --sample: the chains of a Stan program and
** their CmdStan CSV files.
**
** As src/r/r_sample.c runs $sample(): every chain is a pool task
** (nuts_run_task, src/nuts/nuts_run.c), at most --parallel-chains at once,
** the pool sized parallel x threads per chain and at most the cores; the
** main thread waits in short slices, prints the chains' messages and
** progress on stderr and notices Ctrl-C (the stop flag and src/ad's
** interrupt flag, so a chain stops within one evaluation).  Each chain's
** file is written after every chain has ended, in the layout R/csv.R
** writes (CmdStan 2.33's): the configuration as comments, the column names
** (lp__, accept_stat__, ..., theta.1), the warmup draws when saved, the
** adaptation block, the draws and the timing block.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "nuts/nuts_run.h"
#include "par/pp.h"
#include "prof/pf.h"

#define POLL_SECONDS 0.05

/* A double as text that reads back to the same double: the shortest of 15,
** 16 or 17 significant digits that does (R/csv.R's csv_numbers), with R's
** spelling of the non-finite values. */
static void num(FILE *f, double x) {
  if (isnan(x)) { fputs("NaN", f); return; }
  if (isinf(x)) { fputs(x > 0 ? "Inf" : "-Inf", f); return; }
  char buf[40];
  for (int d = 15; d <= 17; d++) {
    snprintf(buf, sizeof buf, "%.*g", d, x);
    if (d == 17 || strtod(buf, NULL) == x) break;
  }
  fputs(buf, f);
}

/* "theta[1]" -> "theta.1", "L[2,1]" -> "L.2.1" (R/csv.R's cmdstan_names). */
static void cmdstan_name(char *s) {
  for (char *p = s; *p; p++)
    if (*p == '[' || *p == ']' || *p == ',') *p = '.';
  size_t n = strlen(s);
  if (n && s[n - 1] == '.') s[n - 1] = '\0';
}

static const char *metric_name(int k) {
  return k == NUTS_UNIT_E ? "unit_e" : k == NUTS_DENSE_E ? "dense_e" : "diag_e";
}

/* Seconds as R's format(signif(x, 6), scientific = FALSE). */
static void seconds(FILE *f, double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", x);
  if (strchr(buf, 'e')) snprintf(buf, sizeof buf, "%.*f", x < 1 ? 12 : 0, x);
  fputs(buf, f);
}

static void setting(FILE *f, int level, const char *key, const char *value, int is_default) {
  fprintf(f, "# %*s%s", 2 * level, "", key);
  if (value) fprintf(f, " = %s%s", value, is_default ? " (Default)" : "");
  fputc('\n', f);
}

static void setting_int(FILE *f, int level, const char *key, long v, long def) {
  char b[32];
  snprintf(b, sizeof b, "%ld", v);
  setting(f, level, key, b, v == def);
}

static void setting_num(FILE *f, int level, const char *key, double v, double def) {
  char b[40];
  for (int d = 15; d <= 17; d++) {
    snprintf(b, sizeof b, "%.*g", d, v);
    if (d == 17 || strtod(b, NULL) == v) break;
  }
  setting(f, level, key, b, v == def);
}

static void header(FILE *f, const cli_opts *o, const cli_model *m, const nuts_run *r,
                   const char *file, time_t start) {
  char b[512];
  struct tm tmv;
  gmtime_r(&start, &tmv);
  setting_int(f, 0, "stan_version_major", 2, -1);
  setting_int(f, 0, "stan_version_minor", 33, -1);
  setting_int(f, 0, "stan_version_patch", 0, -1);
  snprintf(b, sizeof b, "%s_model", m->name);
  setting(f, 0, "model", b, 0);
  strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &tmv);
  setting(f, 0, "start_datetime", b, 0);
  setting(f, 0, "method", "sample", 1);
  setting(f, 1, "sample", NULL, 0);
  setting_int(f, 2, "num_samples", o->samples, 1000);
  setting_int(f, 2, "num_warmup", o->warmup, 1000);
  setting_int(f, 2, "save_warmup", o->save_warmup, 0);
  setting_int(f, 2, "thin", o->thin, 1);
  setting(f, 2, "adapt", NULL, 0);
  setting_int(f, 3, "engaged", 1, 1);
  setting_num(f, 3, "gamma", r->cfg.gamma, 0.05);
  setting_num(f, 3, "delta", r->cfg.delta, 0.8);
  setting_num(f, 3, "kappa", r->cfg.kappa, 0.75);
  setting_num(f, 3, "t0", r->cfg.t0, 10);
  setting_int(f, 3, "init_buffer", r->cfg.init_buffer, 75);
  setting_int(f, 3, "term_buffer", r->cfg.term_buffer, 50);
  setting_int(f, 3, "window", r->cfg.window, 25);
  setting(f, 2, "algorithm", "hmc", 1);
  setting(f, 3, "hmc", NULL, 0);
  setting(f, 4, "engine", "nuts", 1);
  setting(f, 5, "nuts", NULL, 0);
  setting_int(f, 6, "max_depth", o->max_depth, 10);
  setting(f, 4, "metric", metric_name(o->metric), o->metric == NUTS_DIAG_E);
  setting(f, 4, "metric_file", "", 1);
  setting_num(f, 4, "stepsize", o->stepsize, 1);
  setting_num(f, 4, "stepsize_jitter", 0, 0);
  setting_int(f, 2, "num_chains", 1, 1);
  setting_int(f, 0, "id", r->chain_id, 1);
  setting(f, 0, "data", NULL, 0);
  setting(f, 1, "file", o->data ? o->data : "", !o->data);
  setting_num(f, 0, "init", o->init_radius, 2);
  setting(f, 0, "random", NULL, 0);
  snprintf(b, sizeof b, "%llu", (unsigned long long)o->seed);
  setting(f, 1, "seed", b, 0);
  setting(f, 0, "output", NULL, 0);
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  setting(f, 1, "file", base, 0);
  setting(f, 1, "diagnostic_file", "", 1);
  setting_int(f, 1, "refresh", o->refresh, 100);
  setting_int(f, 1, "sig_figs", 17, -1);
  setting(f, 1, "profile_file", "profile.csv", 1);
  setting_int(f, 0, "num_threads", o->threads, 1);
  snprintf(b, sizeof b, "tapestry %s (tapestry-cli)", TAPESTRY_VERSION);
  setting(f, 0, "stanc_version", b, 0);
  fputs("# stancflags = \n", f);
}

static void rows(FILE *f, const nuts_run *r, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    for (size_t j = 0; j < r->ncol; j++) {
      if (j) fputc(',', f);
      num(f, r->draws[i + j * r->cap_rows]);
    }
    fputc('\n', f);
  }
}

static int write_csv(const cli_opts *o, const cli_model *m, const nuts_run *r, const char *file,
                     time_t start) {
  FILE *f = fopen(file, "w");
  if (!f) {
    perror(file);
    return 1;
  }
  const li_ctx *c = m->ctx;
  header(f, o, m, r, file, start);
  /* the column names */
  for (int i = 0; i < NUTS_RUN_NSAMPLER; i++) fprintf(f, "%s%s", i ? "," : "", nuts_run_sampler_names[i]);
  char buf[1024];
  for (int v = 0; v < li_num_vars(c); v++) {
    const li_var *var = li_var_at(c, v);
    for (size_t e = 0; e < var->numel; e++) {
      buf[0] = '\0';
      li_elem_name(var, e, 0, buf, sizeof buf);
      cmdstan_name(buf);
      fprintf(f, ",%s", buf);
    }
  }
  fputc('\n', f);
  size_t n = li_num_upars(c);
  rows(f, r, 0, r->warmup_rows);
  /* the adaptation block, when warmup adapted and ran to its end */
  if (o->warmup > 0 && !isnan(r->step_size)) {
    fputs("# Adaptation terminated\n# Step size = ", f);
    num(f, r->step_size);
    fputc('\n', f);
    if (o->metric == NUTS_UNIT_E || !r->have_metric) {
      fputs("# No free parameters for unit metric\n", f);
    } else if (o->metric == NUTS_DENSE_E) {
      fputs("# Elements of inverse mass matrix:\n", f);
      for (size_t i = 0; i < n; i++) {
        fputs("# ", f);
        for (size_t j = 0; j < n; j++) {
          if (j) fputs(", ", f);
          num(f, r->inv_metric[i + j * n]);
        }
        fputc('\n', f);
      }
    } else {
      fputs("# Diagonal elements of inverse mass matrix:\n# ", f);
      for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        num(f, r->inv_metric[i]);
      }
      fputc('\n', f);
    }
  }
  rows(f, r, r->warmup_rows, r->nrows);
  fputs("# \n#  Elapsed Time: ", f);
  seconds(f, r->t_warmup);
  fputs(" seconds (Warm-up)\n#                ", f);
  seconds(f, r->t_sampling);
  fputs(" seconds (Sampling)\n#                ", f);
  seconds(f, r->t_warmup + r->t_sampling);
  fputs(" seconds (Total)\n# \n", f);
  if (fclose(f) != 0) {
    perror(file);
    return 1;
  }
  return 0;
}

/* FILE.csv -> FILE_k.csv (CmdStan's names for several chains). */
static void chain_file(const char *out, int k, int nchains, char *buf, size_t size) {
  if (nchains == 1) { snprintf(buf, size, "%s", out); return; }
  const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
  if (!dot || (slash && dot < slash)) snprintf(buf, size, "%s_%d", out, k);
  else snprintf(buf, size, "%.*s_%d%s", (int)(dot - out), out, k, dot);
}

static void drain(nuts_run *r, char *buf) {
  long dropped = 0;
  size_t len = nuts_run_drain(r, buf, NUTS_RUN_MSGQ_SIZE, &dropped);
  for (size_t off = 0; off < len; ) {
    const char *msg = buf + off;
    off += strlen(msg) + 1;
    for (const char *p = msg; *p; ) {
      const char *e = strchr(p, '\n');
      int n = e ? (int)(e - p) : (int)strlen(p);
      fprintf(stderr, "Chain %d %.*s\n", r->chain_id, n, p);
      p += n + (e ? 1 : 0);
    }
  }
  if (dropped > 0) fprintf(stderr, "Chain %d: %ld messages not shown (too many at once)\n", r->chain_id, dropped);
}

int cli_sample(const cli_opts *o, cli_model *m) {
  const li_ctx *c = m->ctx;
  size_t n = li_num_upars(c);
  if (n == 0) {
    fprintf(stderr, "tapestry-cli: the model has no parameters to sample\n");
    return 1;
  }
  int nchains = o->chains, status = 0;
  int pool_n = o->parallel_chains * o->threads, cores = pp_cores();
  if (pool_n > cores) pool_n = cores;
  if (pool_n < 1) pool_n = 1;
  int parallel = o->parallel_chains > pool_n ? pool_n : o->parallel_chains;

  nuts_config cfg;
  nuts_config_default(&cfg);
  cfg.num_warmup = o->warmup;
  cfg.num_samples = o->samples;
  cfg.thin = o->thin;
  cfg.save_warmup = o->save_warmup;
  cfg.adapt_engaged = 1;
  cfg.delta = o->adapt_delta;
  cfg.max_depth = o->max_depth;
  cfg.metric = (nuts_metric_kind)o->metric;

  nuts_run *runs = calloc((size_t)nchains, sizeof *runs);
  int *submitted = calloc((size_t)nchains, sizeof *submitted), *reported = calloc((size_t)nchains, sizeof *reported);
  char *buf = malloc(NUTS_RUN_MSGQ_SIZE);
  pp_group g;
  atomic_int stop;
  atomic_init(&stop, 0);
  int have_group = 0, nalloc = 0, rc = runs && submitted && reported && buf ? AD_OK : AD_EMEMORY;
  for (int k = 0; k < nchains && rc == AD_OK; k++, nalloc++) {
    nuts_run *r = &runs[k];
    r->ctx = c;
    r->cfg = cfg;
    r->cfg.stop = &stop;
    r->cfg.stepsize = o->stepsize;
    r->chain_id = k + 1;
    r->seed = o->seed;
    r->init_radius = o->init_radius;
    r->keep_messages = 1;
    r->threads = o->threads;
    /* a registry per chain, as $sample() gives (profile blocks are timed) */
    r->prof = pf_registry_new(0);
    rc = r->prof ? nuts_run_alloc(r) : AD_EMEMORY;
  }
  if (rc == AD_OK) rc = pp_pool_resize(pool_n);
  if (rc == AD_OK) { rc = pp_group_init(&g); have_group = rc == AD_OK; }
  if (rc != AD_OK) {
    fprintf(stderr, "tapestry-cli: %s\n", *ad_errmsg() ? ad_errmsg() : "out of memory");
    status = 1;
    goto out;
  }

  fprintf(stderr, "%d chain%s of %s, %d at once, %d thread%s per chain, pool of %d, seed %llu\n",
          nchains, nchains > 1 ? "s" : "", m->name, parallel, o->threads, o->threads > 1 ? "s" : "",
          pool_n, (unsigned long long)o->seed);
  time_t start = time(NULL);
  double t0 = cli_now(), last = t0;
  ad_interrupt_clear();
  int next = 0, running = 0, done = 0, stopped = 0;
  for (; next < nchains && running < parallel; next++, running++) {
    submitted[next] = 1;
    if (pp_submit(&g, nuts_run_task, &runs[next]) != AD_OK) {
      runs[next].status = AD_EMEMORY;
      snprintf(runs[next].msg, sizeof runs[next].msg, "%s", ad_errmsg());
      atomic_store(&runs[next].phase, NUTS_PHASE_DONE);
    }
  }
  int total_iter = o->warmup + o->samples;
  while (done < nchains) {
    pp_group_wait(&g, POLL_SECONDS);
    for (int k = 0; k < nchains; k++) {
      if (!submitted[k] || reported[k]) continue;
      drain(&runs[k], buf);
      if (atomic_load(&runs[k].phase) == NUTS_PHASE_DONE) {
        reported[k] = 1;
        done++;
        running--;
        drain(&runs[k], buf);
        if (next < nchains && !stopped) {
          submitted[next] = 1;
          if (pp_submit(&g, nuts_run_task, &runs[next]) != AD_OK) {
            runs[next].status = AD_EMEMORY;
            snprintf(runs[next].msg, sizeof runs[next].msg, "%s", ad_errmsg());
            atomic_store(&runs[next].phase, NUTS_PHASE_DONE);
          }
          next++;
          running++;
        }
      }
    }
    double now = cli_now();
    if (o->refresh > 0 && now - last >= 1.0) {
      last = now;
      fprintf(stderr, "%6.1f s:", now - t0);
      for (int k = 0; k < nchains; k++)
        if (submitted[k]) fprintf(stderr, " %d/%d", atomic_load(&runs[k].iteration), total_iter);
      fprintf(stderr, "\n");
    }
    if (cli_interrupted && !stopped) {
      stopped = 1;
      atomic_store(&stop, 1);
      ad_interrupt_set();
      fprintf(stderr, "tapestry-cli: interrupted; the chains stop\n");
    }
    if (stopped)
      for (; next < nchains; next++) { runs[next].status = NUTS_INTERRUPTED; reported[next] = 1; done++; }
  }
  pp_group_wait(&g, 1e9);
  double wall = cli_now() - t0;
  ad_interrupt_clear();

  double grads = 0;
  for (int k = 0; k < nchains; k++) {
    nuts_run *r = &runs[k];
    grads += r->n_grad;
    if (r->status != AD_OK && r->status != NUTS_INTERRUPTED) {
      fprintf(stderr, "Chain %d failed: %s\n", r->chain_id, r->msg);
      status = 1;
    }
    if (r->status == NUTS_INTERRUPTED) status = 130;
    if (!submitted[k]) continue;
    char file[4096];
    chain_file(o->output, r->chain_id, nchains, file, sizeof file);
    if (write_csv(o, m, r, file, start)) status = 1;
    fprintf(stderr, "Chain %d: %.3f s warmup, %.3f s sampling, %.0f gradients, %lu draws -> %s\n", r->chain_id,
            r->t_warmup, r->t_sampling, r->n_grad, (unsigned long)(r->nrows - r->warmup_rows), file);
  }
  printf("model            %s\n", m->name);
  printf("chains           %d (%d at once, %d thread%s each)\n", nchains, parallel, o->threads,
         o->threads > 1 ? "s" : "");
  printf("wall_seconds     %.3f\n", wall);
  printf("gradients        %.0f\n", grads);
  printf("gradients_per_s  %.0f (all chains)\n", wall > 0 ? grads / wall : NAN);
  printf("ns_per_gradient  %.0f (wall time x chains at once / gradients)\n",
         grads > 0 ? 1e9 * wall * parallel / grads : NAN);
out:
  if (have_group) pp_group_destroy(&g);
  if (runs)
    for (int k = 0; k < nalloc; k++) {
      nuts_run_free(&runs[k]);
      pf_registry_free(runs[k].prof);
    }
  free(runs);
  free(submitted);
  free(reported);
  free(buf);
  return status;
}
