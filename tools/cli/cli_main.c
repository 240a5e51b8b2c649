/*
** cli_main.c -- tapestry-cli: a Stan program run by the C core, with no R.
**
**   tapestry-cli MODEL.stan [DATA.json] [--threads T] [--evals N] ...
**   tapestry-cli MODEL.stan DATA.json --sample --chains C --threads T ...
**
** The first form binds the data, evaluates the log density and its
** gradient at a point and prints the log density and the nanoseconds per
** gradient (the median of blocks).  The second runs the sampler, one pool
** task per chain as $sample() does, and writes CmdStan CSV.
**
** What R does for the core in the package (src/init.c, src/r/), this file
** does for the driver: the main thread's tape and the function table at
** start, kernels' blocks on the pool (tm_set_for), Ctrl-C as src/ad's
** interrupt flag, messages on stderr.  BLAS: the core's own kernels unless
** built with BLAS=... (cli_blas.c).
*/
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "math/tm.h"
#include "data/ld.h"
#include "par/pp.h"
#include "plan/pl.h"
#include "nuts/nuts.h"

volatile sig_atomic_t cli_interrupted = 0;

/* Async-signal-safe: a flag here and src/ad's (an atomic store). */
static void on_sigint(int sig) {
  (void)sig;
  cli_interrupted = 1;
  ad_interrupt_set();
}

double cli_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void usage(FILE *f) {
  fprintf(f,
"usage: tapestry-cli MODEL.stan [DATA.json] [options]\n"
"\n"
"Gradient timing (the default): binds the data, evaluates the log density and\n"
"its gradient at a point, prints the log density and ns per gradient.\n"
"  --threads T         threads of each evaluation (reduce_sum, parallel_map,\n"
"                      map_rect, kernels' blocks); default 1\n"
"  --evals N           timed gradient evaluations in all (default 1000)\n"
"  --blocks B          split into B blocks; ns per gradient is the median\n"
"                      of the blocks (default 7)\n"
"  --warmup-evals W    untimed evaluations first (default N/10, at least 1;\n"
"                      the first records the plan)\n"
"  --upars FILE[:K]    the point: the K-th \"upars\" array in FILE (K=1 by\n"
"                      default; NAME.reference.json of the shared models), or\n"
"                      every number of FILE; default: all zeros\n"
"  --jacobian 0|1      include the Jacobian (default 1, as $log_prob())\n"
"  --grad              print the gradient too (17 significant digits)\n"
"  --tree              no recorded plans: every evaluation walks the tree\n"
"\n"
"Sampling (--sample): NUTS with Stan's adaptation; CmdStan CSV.\n"
"  --chains C          chains (default 4)\n"
"  --parallel-chains P chains at once (default C)\n"
"  --threads T         threads per chain (default 1); the pool has\n"
"                      min(P * T, cores) workers\n"
"  --warmup W          warmup iterations (default 1000)\n"
"  --samples S         sampling iterations (default 1000)\n"
"  --thin K            keep every K-th draw (default 1)\n"
"  --save-warmup       write the warmup draws too\n"
"  --max-depth D       maximum tree depth (default 10)\n"
"  --adapt-delta A     target acceptance (default 0.8)\n"
"  --metric M          unit_e, diag_e (default) or dense_e\n"
"  --stepsize E        initial step size (default 1)\n"
"  --init R            initial values uniform(-R, R) (default 2)\n"
"  --output FILE       CSV file (default output.csv); with several chains\n"
"                      one file per chain, FILE_1.csv, FILE_2.csv, ...\n"
"  --refresh N         progress on stderr every N iterations (default 100,\n"
"                      0 for none)\n"
"\n"
"Both:\n"
"  --seed S            seed of transformed data and of the chains (default:\n"
"                      0 when timing, from the clock when sampling)\n"
"  --include-path DIR  folder for #include (repeatable; the model's own\n"
"                      folder is searched last)\n"
"  --help              this text\n");
}

static int die(const char *fmt, const char *a) {
  fprintf(stderr, "tapestry-cli: ");
  fprintf(stderr, fmt, a);
  fprintf(stderr, "\n");
  return 2;
}

static int to_long(const char *s, long lo, long *out) {
  char *e;
  errno = 0;
  long v = strtol(s, &e, 10);
  if (errno || *e || e == s || v < lo) return 1;
  *out = v;
  return 0;
}

static int to_double(const char *s, double *out) {
  char *e;
  errno = 0;
  double v = strtod(s, &e);
  if (errno || *e || e == s || !isfinite(v)) return 1;
  *out = v;
  return 0;
}

static int parse(int argc, char **argv, cli_opts *o) {
  memset(o, 0, sizeof *o);
  o->threads = 1;
  o->evals = 1000;
  o->blocks = 7;
  o->warmup_evals = -1;
  o->upars_index = 1;
  o->jacobian = 1;
  o->chains = 4;
  o->warmup = 1000;
  o->samples = 1000;
  o->thin = 1;
  o->refresh = 100;
  o->init_radius = 2;
  /* the sampler's own defaults (Stan's), not a second copy of them */
  nuts_config dflt;
  nuts_config_default(&dflt);
  o->max_depth = dflt.max_depth;
  o->adapt_delta = dflt.delta;
  o->stepsize = dflt.stepsize;
  o->metric = dflt.metric;
  o->output = "output.csv";
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long n;
    double x;
#define NEED_VALUE() do { if (!v) return die("%s needs a value", a); i++; } while (0)
#define INT_ARG(field, lo) do { \
      NEED_VALUE(); \
      if (to_long(v, lo, &n) || n > 1000000000L) return die("bad value for %s", a); \
      o->field = (int)n; \
    } while (0)
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); exit(0); }
    else if (!strcmp(a, "--threads")) INT_ARG(threads, 1);
    else if (!strcmp(a, "--evals")) { NEED_VALUE(); if (to_long(v, 1, &n)) return die("bad value for %s", a); o->evals = n; }
    else if (!strcmp(a, "--blocks")) INT_ARG(blocks, 1);
    else if (!strcmp(a, "--warmup-evals")) { NEED_VALUE(); if (to_long(v, 0, &n)) return die("bad value for %s", a); o->warmup_evals = n; }
    else if (!strcmp(a, "--upars")) {
      NEED_VALUE();
      static char path[4096];
      snprintf(path, sizeof path, "%s", v);
      char *colon = strrchr(path, ':');
      if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        *colon = '\0';
        o->upars_index = atoi(colon + 1);
        if (o->upars_index < 1) return die("bad index in --upars %s", v);
      }
      o->upars_file = path;
    }
    else if (!strcmp(a, "--jacobian")) INT_ARG(jacobian, 0);
    else if (!strcmp(a, "--grad")) o->print_grad = 1;
    else if (!strcmp(a, "--tree")) o->tree = 1;
    else if (!strcmp(a, "--sample")) o->sample = 1;
    else if (!strcmp(a, "--chains")) INT_ARG(chains, 1);
    else if (!strcmp(a, "--parallel-chains")) INT_ARG(parallel_chains, 1);
    else if (!strcmp(a, "--warmup")) INT_ARG(warmup, 0);
    else if (!strcmp(a, "--samples")) INT_ARG(samples, 0);
    else if (!strcmp(a, "--thin")) INT_ARG(thin, 1);
    else if (!strcmp(a, "--save-warmup")) o->save_warmup = 1;
    else if (!strcmp(a, "--max-depth")) INT_ARG(max_depth, 1);
    else if (!strcmp(a, "--refresh")) INT_ARG(refresh, 0);
    else if (!strcmp(a, "--adapt-delta")) {
      NEED_VALUE();
      if (to_double(v, &x) || !(x > 0 && x < 1)) return die("--adapt-delta must be in (0, 1), not %s", v);
      o->adapt_delta = x;
    }
    else if (!strcmp(a, "--init")) {
      NEED_VALUE();
      if (to_double(v, &x) || x < 0) return die("--init must be a radius >= 0, not %s", v);
      o->init_radius = x;
    }
    else if (!strcmp(a, "--stepsize")) {
      NEED_VALUE();
      if (to_double(v, &x) || !(x > 0)) return die("--stepsize must be positive, not %s", v);
      o->stepsize = x;
    }
    else if (!strcmp(a, "--metric")) {
      NEED_VALUE();
      if (!strcmp(v, "unit_e")) o->metric = NUTS_UNIT_E;
      else if (!strcmp(v, "diag_e")) o->metric = NUTS_DIAG_E;
      else if (!strcmp(v, "dense_e")) o->metric = NUTS_DENSE_E;
      else return die("--metric must be unit_e, diag_e or dense_e, not %s", v);
    }
    else if (!strcmp(a, "--output")) { NEED_VALUE(); o->output = v; }
    else if (!strcmp(a, "--seed")) {
      NEED_VALUE();
      if (to_long(v, 0, &n)) return die("--seed must be a non-negative whole number, not %s", v);
      o->seed = (uint64_t)n;
      o->seed_given = 1;
    }
    else if (!strcmp(a, "--include-path")) {
      NEED_VALUE();
      if (o->ninclude >= 15) return die("too many %s", a);
      o->include[o->ninclude++] = v;
    }
    else if (a[0] == '-' && a[1] == '-') return die("unknown option %s (see --help)", a);
    else if (npos == 0) { o->model = a; npos++; }
    else if (npos == 1) { o->data = a; npos++; }
    else return die("one model and one data file, not also %s", a);
#undef INT_ARG
#undef NEED_VALUE
  }
  if (!o->model) { usage(stderr); return 2; }
  if (o->warmup_evals < 0) o->warmup_evals = o->evals / 10 > 0 ? o->evals / 10 : 1;
  if (o->blocks > o->evals) o->blocks = (int)o->evals;
  if (!o->parallel_chains || o->parallel_chains > o->chains) o->parallel_chains = o->chains;
  if (!o->seed_given) o->seed = o->sample ? ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) % 4294967296u : 0;
  return 0;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap);
  for (size_t k; b && (k = fread(b + n, 1, cap - n - 1, f)) > 0; ) {
    n += k;
    if (n + 1 == cap) {
      char *nb = realloc(b, cap *= 2);
      if (!nb) { free(b); b = NULL; }
      else b = nb;
    }
  }
  fclose(f);
  if (b) { b[n] = '\0'; *len = n; }
  return b;
}

/* The point: see cli.h.  Numbers are read with strtod, so the JSON's
** shortest round-trip decimals give the doubles R's jsonlite gives. */
int cli_read_upars(const char *path, int k, double *u, size_t n, char *err, size_t errsize) {
  size_t len;
  char *text = slurp(path, &len);
  if (!text) { snprintf(err, errsize, "cannot read %s: %s", path, strerror(errno)); return 1; }
  char *p = text, *end = text + len;
  int keyed = strstr(text, "\"upars\"") != NULL;
  if (keyed) {
    for (int i = 0; i < k; i++) {
      p = strstr(p, "\"upars\"");
      if (!p) {
        snprintf(err, errsize, "%s has fewer than %d \"upars\" arrays", path, k);
        free(text);
        return 1;
      }
      p += 7;
    }
    /* an array, or one number (a model with one parameter, as jsonlite
       writes it unboxed) */
    p += strspn(p, " \t\r\n:");
    char *close = *p == '[' ? strchr(p, ']') : p + strcspn(p, ",}");
    if (!*p || !close) { snprintf(err, errsize, "no values after \"upars\" in %s", path); free(text); return 1; }
    end = close;
  }
  size_t got = 0;
  while (p < end) {
    if (strchr("+-.0123456789", *p) && !(p > text && (isalpha((unsigned char)p[-1]) || p[-1] == '_'))) {
      char *e;
      double v = strtod(p, &e);
      if (e > p) {
        if (got < n) u[got] = v;
        got++;
        p = e;
        continue;
      }
    }
    p++;
  }
  free(text);
  if (got != n) {
    snprintf(err, errsize, "%s gives %lu values, but the model has %lu unconstrained parameters",
             path, (unsigned long)got, (unsigned long)n);
    return 1;
  }
  return 0;
}

static int load(const cli_opts *o, cli_model *m) {
  char err[8192];
  size_t len;
  char *src = slurp(o->model, &len);
  if (!src) {
    fprintf(stderr, "tapestry-cli: cannot read %s: %s\n", o->model, strerror(errno));
    return 1;
  }
  /* include folders: the user's, then the model's own (as tapestry_model()) */
  const char *paths[17];
  int np = 0;
  for (int i = 0; i < o->ninclude; i++) paths[np++] = o->include[i];
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", o->model);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  paths[np++] = dir;
  const char *base = strrchr(o->model, '/') ? strrchr(o->model, '/') + 1 : o->model;
  snprintf(m->name, sizeof m->name, "%s", base);
  size_t bl = strlen(m->name);
  if (bl > 5 && !strcmp(m->name + bl - 5, ".stan")) m->name[bl - 5] = '\0';

  err[0] = '\0';
  m->prog = ln_parse_include(base, src, len, paths, np, err, sizeof err);
  free(src);
  if (!m->prog) {
    fprintf(stderr, "%s\n", *err ? err : "tapestry-cli: out of memory while parsing");
    return 1;
  }
  err[0] = '\0';
  if (ln_check(m->prog, err, sizeof err) != AD_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (m->prog->warnings && *m->prog->warnings) fprintf(stderr, "%s\n", m->prog->warnings);

  ld_set set;
  ld_set_init(&set);
  err[0] = '\0';
  int rc = o->data ? ld_json_file(o->data, &set, err, sizeof err) : AD_OK;
  if (rc != AD_OK) {
    fprintf(stderr, "tapestry-cli: %s\n", err);
    ld_set_free(&set);
    return 1;
  }
  static char pbuf[1 << 14];
  li_print pr = {pbuf, sizeof pbuf, 0};
  pbuf[0] = '\0';
  err[0] = '\0';
  rc = li_ctx_new(m->prog, &set, o->seed, &m->ctx, &pr, err, sizeof err);
  ld_set_free(&set);
  ad_stack_recover(ad_active);
  if (pr.len > 0) fprintf(stderr, "%s", pbuf);
  if (rc != AD_OK) {
    fprintf(stderr, "tapestry-cli: %s\n", rc == AD_EINTERRUPT ? "interrupted" : err);
    if (m->ctx) li_ctx_free(m->ctx);
    m->ctx = NULL;
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  cli_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  /* the load-time set-up of src/init.c */
  if (ad_thread_init() != AD_OK || tm_table_init() != AD_OK) {
    fprintf(stderr, "tapestry-cli: %s\n", ad_errmsg());
    return 1;
  }
  tm_set_for(pp_for, pp_threads);
  li_integrate_init();
  cli_blas_install();
  if (o.tree) pl_set_enabled(0);
  /* workers block asynchronous signals (src/par), so SIGINT reaches this
     thread; the handler only sets flags */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);

  cli_model m;
  memset(&m, 0, sizeof m);
  rc = load(&o, &m);
  if (rc == 0) rc = o.sample ? cli_sample(&o, &m) : cli_grad(&o, &m);
  if (m.ctx) li_ctx_free(m.ctx);
  ln_program_free(m.prog);
  pp_pool_shutdown();
  pp_stacks_free();
  ad_thread_free();
  return rc;
}
