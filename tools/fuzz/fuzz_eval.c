/*
** fuzz_eval.c -- libFuzzer target past the parser: binding data to real
** programs and evaluating them.
**
** At start-up it parses and checks a fixed set of programs (every NAME.stan
** with a NAME.data.json beside it, in the folders of FUZZ_MODELS, a
** colon-separated list).  An input is
**
**     one byte          which program (its low 7 bits, modulo their number);
**                       the high bit chooses edit mode
**     text up to a NUL  the data, as CmdStan JSON (mutated: sizes, values,
**                       dimensions, types, missing and extra variables), or
**                       in edit mode, edits of the program's own data: 3
**                       bytes each, naming one of its numbers and what it
**                       becomes (0, 2, -1, NaN, +-Inf, 1e300, 2e9, ...)
**     the rest          the unconstrained parameters: 9 bytes each, a tag
**                       byte choosing a special value (0, +-1, NaN, +-Inf,
**                       +-1e300, 1e-300, a huge int) or the 8 bytes that
**                       follow as a double; missing ones are 0.1 * k
**
** For an input whose data bind, it evaluates the log density on doubles and
** on the tape (with and without the Jacobian), and the constrained values
** with transformed parameters and generated quantities.  Besides crashes,
** memory errors, leaks, undefined behaviour and hangs (the sanitizers and
** libFuzzer's timeout), it checks the contracts: every status is one of
** ad.h's, every message is NUL-terminated and non-empty on failure, the
** value and the outcome on doubles equal those on the tape.
**
** FUZZ_WRITE_SEEDS=dir writes one seed input per program into dir and exits
** (run.sh does this to start the corpus).
*/
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ad/ad.h"
#include "math/tm.h"
#include "front/ln.h"
#include "data/ld.h"
#include "plan/pl.h"
#include "tree/li.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct prog {
  char *name;
  ln_program *p;
  char *json;
  size_t jlen;
  size_t *num_at, *num_len;   /* the number tokens of the data, for value edits */
  size_t nnum;
} prog;

/* Where the numbers of a JSON text are (outside strings). */
static void find_numbers(prog *P) {
  size_t cap = 64;
  P->num_at = malloc(cap * sizeof *P->num_at);
  P->num_len = malloc(cap * sizeof *P->num_len);
  P->nnum = 0;
  int in_str = 0;
  for (size_t i = 0; i < P->jlen; i++) {
    char c = P->json[i];
    if (in_str) { if (c == '\\') i++; else if (c == '"') in_str = 0; continue; }
    if (c == '"') { in_str = 1; continue; }
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i + 1;
      while (j < P->jlen && strchr("0123456789.eE+-", P->json[j])) j++;
      if (P->nnum == cap) {
        cap *= 2;
        P->num_at = realloc(P->num_at, cap * sizeof *P->num_at);
        P->num_len = realloc(P->num_len, cap * sizeof *P->num_len);
      }
      P->num_at[P->nnum] = i;
      P->num_len[P->nnum++] = j - i;
      i = j - 1;
    }
  }
}

/* The program's own data with some numbers replaced: each 3 bytes of ops
** name a number (two bytes, modulo their count) and what it becomes.  Sizes,
** indexes and values change while the text stays valid JSON, so these inputs
** reach binding and evaluation far more often than raw mutations. */
static char *edit_numbers(const prog *P, const uint8_t *ops, size_t nops, size_t *len) {
  static const char *const repl[] = {"0", "1", "-1", "2", "3", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"",
                                     "1e300", "-1e300", "1e-300", "0.5", "-0.5", "2147483647", "-2147483648",
                                     "100", "1000000", "2000000000", "4.9e-324", "7"};
  size_t nrep = sizeof repl / sizeof repl[0];
  const char **with = calloc(P->nnum ? P->nnum : 1, sizeof *with);
  for (size_t k = 0; k + 3 <= nops && P->nnum; k += 3) {
    size_t which = ((size_t)ops[k] << 8 | ops[k + 1]) % P->nnum;
    with[which] = repl[ops[k + 2] % nrep];
  }
  size_t cap = P->jlen + 32 * (nops / 3 + 1), n = 0, from = 0;
  char *out = malloc(cap);
  for (size_t i = 0; i < P->nnum; i++) {
    if (!with[i]) continue;
    memcpy(out + n, P->json + from, P->num_at[i] - from);
    n += P->num_at[i] - from;
    size_t r = strlen(with[i]);
    memcpy(out + n, with[i], r);
    n += r;
    from = P->num_at[i] + P->num_len[i];
  }
  memcpy(out + n, P->json + from, P->jlen - from);
  n += P->jlen - from;
  free(with);
  *len = n;
  return out;
}

static prog progs[256];
static int nprogs;

/* How far inputs got, printed when the run ends: a fuzz run that never gets
** past the JSON reader tests little. */
static unsigned long n_inputs, n_json, n_bound, n_eval_ok, n_rejected;

static void report(void) {
  fprintf(stderr, "fuzz_eval: %lu inputs: %lu read as JSON, %lu bound to their program, "
          "%lu evaluations succeeded, %lu rejected or failed with a message\n",
          n_inputs, n_json, n_bound, n_eval_ok, n_rejected);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  fclose(f);
  if (b) { b[n] = '\0'; *len = (size_t)n; }
  return b;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const prog *)a)->name, ((const prog *)b)->name);
}

static void load_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) && nprogs < 256) {
    size_t k = strlen(e->d_name);
    if (k < 6 || strcmp(e->d_name + k - 5, ".stan") != 0) continue;
    char path[4096], dpath[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(dpath, sizeof dpath, "%s/%.*s.data.json", dir, (int)(k - 5), e->d_name);
    size_t slen, jlen;
    char *src = slurp(path, &slen), *json = slurp(dpath, &jlen);
    if (!src || !json) { free(src); free(json); continue; }
    char err[4096];
    ln_program *p = ln_parse(e->d_name, src, slen, err, sizeof err);
    free(src);
    if (!p || ln_check(p, err, sizeof err) != AD_OK) { ln_program_free(p); free(json); continue; }
    progs[nprogs].name = strdup(e->d_name);
    progs[nprogs].p = p;
    progs[nprogs].json = json;
    progs[nprogs].jlen = jlen;
    find_numbers(&progs[nprogs]);
    nprogs++;
  }
  closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (ad_thread_init() != AD_OK || tm_table_init() != AD_OK) __builtin_trap();
  /* a small budget: mutated sizes must fail with a message, not exhaust
  ** the fuzzer's RSS limit */
  ad_mem_set_limit((size_t)256 << 20);
  const char *dirs = getenv("FUZZ_MODELS");
  if (!dirs) dirs = "inst/extdata";
  char *copy = strdup(dirs);
  for (char *s = strtok(copy, ":"); s; s = strtok(NULL, ":")) load_dir(s);
  free(copy);
  if (nprogs == 0) {
    fprintf(stderr, "fuzz_eval: no programs with data found in FUZZ_MODELS=%s\n", dirs);
    exit(1);
  }
  qsort(progs, (size_t)nprogs, sizeof *progs, by_name);
  atexit(report);
  fprintf(stderr, "fuzz_eval: %d programs\n", nprogs);
  const char *seeds = getenv("FUZZ_WRITE_SEEDS");
  if (seeds) {
    for (int i = 0; i < nprogs; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/seed-%s", seeds, progs[i].name);
      FILE *f = fopen(path, "wb");
      if (!f) continue;
      unsigned char sel = (unsigned char)i, nul = 0;
      fwrite(&sel, 1, 1, f);
      fwrite(progs[i].json, 1, progs[i].jlen, f);
      fwrite(&nul, 1, 1, f);
      /* a few parameter values: tags past the special ones, doubles near 0 */
      for (int k = 0; k < 4; k++) {
        unsigned char tag = 200;
        double v = 0.3 * (k - 1.5);
        fwrite(&tag, 1, 1, f);
        fwrite(&v, sizeof v, 1, f);
      }
      fclose(f);
      /* and one in edit mode: replace the first number with 2 */
      snprintf(path, sizeof path, "%s/seed-edit-%s", seeds, progs[i].name);
      if (!(f = fopen(path, "wb"))) continue;
      unsigned char e[5] = {(unsigned char)(0x80 | (i & 0x7f)), 0, 0, 3, 0};
      fwrite(e, 1, sizeof e, f);
      fclose(f);
    }
    exit(0);
  }
  return 0;
}

static double param(const uint8_t *b, size_t n, size_t k) {
  static const double special[] = {0.0, 1.0, -1.0, NAN, INFINITY, -INFINITY, 1e300, -1e300, 1e-300, 2147483647.0};
  size_t at = 9 * k;
  if (at + 9 > n) return 0.1 * (double)k;
  uint8_t tag = b[at];
  if (tag < sizeof special / sizeof special[0]) return special[tag];
  double v;
  memcpy(&v, b + at + 1, sizeof v);
  return v;
}

/* A status from ad.h, with a message when it is a failure. */
static void check_status(int rc, const char *err, size_t errsize) {
  if (rc < AD_OK || rc > AD_EREENTER) __builtin_trap();
  if (!memchr(err, '\0', errsize)) __builtin_trap();
  if (rc != AD_OK && err[0] == '\0') __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  n_inputs++;
  /* the high bit of the first byte: edit the program's own data's numbers
  ** (the text up to the NUL is then the edits) rather than read the text */
  int edit = data[0] & 0x80;
  const prog *P = &progs[(data[0] & 0x7f) % nprogs];
  const uint8_t *rest = data + 1;
  size_t n = size - 1;
  const uint8_t *nul = memchr(rest, 0, n);
  size_t jlen = nul ? (size_t)(nul - rest) : n;
  const uint8_t *pb = nul ? nul + 1 : rest + n;
  size_t pn = (size_t)(rest + n - pb);
  char *edited = NULL;
  const char *text = (const char *)rest;
  if (edit) {
    edited = edit_numbers(P, rest, jlen, &jlen);
    text = edited;
  }

  char err[4096];
  ld_set set;
  ld_set_init(&set);
  int rc = ld_json_read(text, jlen, &set, err, sizeof err);
  free(edited);
  if (rc != AD_OK) {
    check_status(rc, err, sizeof err);
    ld_set_free(&set);
    return 0;
  }
  n_json++;
  li_ctx *ctx = NULL;
  static char pbuf[8192];
  li_print print = {pbuf, sizeof pbuf, 0};
  err[0] = '\0';
  rc = li_ctx_new(P->p, &set, 1, &ctx, &print, err, sizeof err);
  ld_set_free(&set);
  if (rc != AD_OK) {
    check_status(rc, err, sizeof err);
    return 0;
  }
  n_bound++;
  size_t np = li_num_upars(ctx), nout = li_num_outputs(ctx, 1, 1);
  double *u = malloc((np + 1) * sizeof *u), *g = malloc((np + 1) * sizeof *g);
  double *out = malloc((nout + 1) * sizeof *out), *g2 = malloc((np + 1) * sizeof *g2);
  if (!u || !g || !out || !g2) __builtin_trap();
  for (size_t k = 0; k < np; k++) u[k] = param(pb, pn, k);
  for (int jac = 0; jac <= 1; jac++) {
    double lp_d = NAN, lp_t = NAN;
    print.len = 0;
    err[0] = '\0';
    int rd = li_log_prob(ctx, u, jac, &lp_d, NULL, &print, err, sizeof err);
    check_status(rd, err, sizeof err);
    print.len = 0;
    err[0] = '\0';
    int rt = li_log_prob(ctx, u, jac, &lp_t, g, &print, err, sizeof err);
    check_status(rt, err, sizeof err);
    /* doubles and the tape agree on the outcome and the value */
    if (rd != rt) {
      fprintf(stderr, "fuzz_eval: %s, jacobian %d: status %d on doubles, %d on the tape (%s)\n", P->name, jac, rd, rt, err);
      __builtin_trap();
    }
    if (rd == AD_OK) n_eval_ok++;
    else n_rejected++;
    /* recorded plans (src/plan): the first call records, the next ones
       replay (here and at a moved point); each equals the tree to the bit */
    for (int rep = 0; rep < 3; rep++) {
      double lp_p = NAN, lp_r = NAN;
      if (rep == 2) for (size_t k = 0; k < np; k++) u[k] += 0.1;
      int rr = AD_OK;
      if (rep == 2) {
        err[0] = '\0';
        print.len = 0;
        rr = li_log_prob(ctx, u, jac, &lp_r, g, &print, err, sizeof err);
        check_status(rr, err, sizeof err);
        memcpy(g2, g, np * sizeof *g);
      } else {
        lp_r = lp_t;
        rr = rt;
        memcpy(g2, g, np * sizeof *g);
      }
      err[0] = '\0';
      print.len = 0;
      int rp = pl_log_prob(ctx, u, jac, &lp_p, g, &print, err, sizeof err);
      check_status(rp, err, sizeof err);
      if (rp != rr || (rp == AD_OK && (memcmp(&lp_p, &lp_r, sizeof lp_p) || memcmp(g, g2, np * sizeof *g)))) {
        fprintf(stderr, "fuzz_eval: %s, jacobian %d, call %d: the plan gives status %d, lp %.17g; the tree %d, %.17g\n",
                P->name, jac, rep, rp, lp_p, rr, lp_r);
        __builtin_trap();
      }
      if (rep == 2) for (size_t k = 0; k < np; k++) u[k] -= 0.1;
    }
    if (rd == AD_OK) {
      if (!(lp_d == lp_t || (isnan(lp_d) && isnan(lp_t)))) {
        fprintf(stderr, "fuzz_eval: %s, jacobian %d: log density %.17g on doubles, %.17g on the tape\n", P->name, jac, lp_d, lp_t);
        __builtin_trap();
      }
    }
  }
  tm_rng rng;
  tm_rng_seed(&rng, 7, 1);
  print.len = 0;
  err[0] = '\0';
  rc = li_write_array(ctx, u, 1, 1, &rng, out, &print, err, sizeof err);
  check_status(rc, err, sizeof err);
  free(u);
  free(g);
  free(g2);
  free(out);
  li_ctx_free(ctx);
  return 0;
}
