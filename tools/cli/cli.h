/*
** cli.h -- the command-line driver of the C core (tools/cli), shared by its
** files.  Not part of the R package: built by `make -C tools/cli` from the
** package's sources, with no R.
*/
#ifndef CLI_H
#define CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "ad/ad.h"
#include "front/ln.h"
#include "tree/li.h"

#ifndef TAPESTRY_VERSION
#define TAPESTRY_VERSION "unknown"
#endif

typedef struct cli_opts {
  const char *model, *data;       /* paths; data NULL: no data */
  const char *include[16];        /* #include folders, the model's own last */
  int ninclude;
  int threads;                    /* threads of an evaluation (gradient mode) or of a chain */
  uint64_t seed;
  int seed_given;
  /* gradient mode */
  long evals;                     /* timed evaluations in all */
  int blocks;                     /* split into this many blocks; the median is printed */
  long warmup_evals;              /* untimed evaluations first (the first one records the plan) */
  const char *upars_file;         /* the point, or NULL: zeros */
  int upars_index;                /* the k-th "upars" array of the file (1-based) */
  int jacobian;
  int print_grad;
  int tree;                       /* no plans: every evaluation on the tree */
  /* sampling mode */
  int sample;
  int chains, parallel_chains;
  int warmup, samples, thin, save_warmup, max_depth, refresh;
  double adapt_delta, init_radius, stepsize;
  int metric;                     /* nuts_metric_kind */
  const char *output;             /* CSV file; with several chains NAME_k.csv */
} cli_opts;

/* The program and its data, bound. */
typedef struct cli_model {
  ln_program *prog;
  li_ctx *ctx;
  char name[256];                 /* the model file's name without .stan */
} cli_model;

/* Set by SIGINT (cli_main.c): chains stop, loops end. */
extern volatile sig_atomic_t cli_interrupted;

int cli_grad(const cli_opts *o, cli_model *m);      /* cli_grad.c; exit status */
int cli_sample(const cli_opts *o, cli_model *m);    /* cli_sample.c; exit status */
double cli_now(void);                               /* monotonic seconds */
/* Reads the point of a file: the k-th (1-based) array after a "upars" key
** (a NAME.reference.json of the shared models, or {"upars": [...]}), or,
** when the file has no such key, every number in it.  n values or an
** error message in err.  0 on success. */
int cli_read_upars(const char *path, int k, double *u, size_t n, char *err, size_t errsize);
/* The system BLAS and LAPACK as the core's dense operations, when built
** with BLAS=... (cli_blas.c); returns 1 when installed. */
int cli_blas_install(void);

#endif
