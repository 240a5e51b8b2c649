/*
** tm_dens_elem.c -- the kernel of the elementwise masses (tm_dens_elem.h):
** a mass of one element (argument names, which arguments are ints, a check,
** a function computing one element's log mass and partials) run over the
** broadcast in blocks, on the evaluation's threads (tm_for) for many
** elements; bernoulli_logit and poisson_log on the vector rows of
** tm_simd.h when they can.  The masses themselves are in their families'
** files (tm_bernoulli.c, tm_binomial.c, tm_poisson.c, ...).
**
** Dropping constants (propto) follows Stan's include_summand: a term is kept
** when propto is off or when an argument it depends on is not constant.
** Integer outcomes are always constant, so e.g. -lgamma(n + 1) goes.
** The formulas are Stan Math's, except where a form loses digits that a
** rearrangement keeps; those places say so.
**
** Also the checks the masses share (int bounds, Stan's check_simplex) and
** their messages' element names.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"
#include "tm_dens_def.h"
#include "../tm_simd.h"

/* ---- shared pieces ---- */

/* The name of element i of argument v in a message: "n" or "n[3]". */
void tm_dens_elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

/* Every element of int argument v in [lo, hi], where hi may vary by element
** (binomial's population sizes) and is broadcast like the density's arguments. */
int tm_dens_check_int_bounds(const char *fn, const char *arg, const tm_v *v, size_t n,
                             int lo, const tm_v *hiv, int hi) {
  size_t m = hiv ? n : tm_is_scalar(v) ? 1 : tm_numel(v);
  for (size_t i = 0; i < m; i++) {
    int x = tm_geti(v, i), h = hiv ? tm_geti(hiv, i) : hi;
    if (x < lo || x > h) {
      char name[160];
      tm_dens_elem_name(name, sizeof name, arg, v, i);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be in the interval [%d, %d]!",
                     fn, name, x, lo, h);
    }
  }
  return AD_OK;
}

int tm_dens_not_int(const char *fn, const char *arg) {
  return ad_fail(AD_EINVALID, "%s: %s must be an int or an array of ints", fn, arg);
}

/* Stan's check_simplex, with its messages; the sum and a negative element
** printed to the digits the Stan function asking prints them with. */
int tm_dens_check_simplex_digits(const char *fn, const char *arg, const tm_v *v, int sum_digits,
                                 int elem_digits) {
  int rc = tm_check_nonzero_size(fn, arg, v);
  if (rc) return rc;
  size_t K = tm_numel(v);
  double s = 0;
  for (size_t i = 0; i < K; i++) s += v->val[i];
  if (!(fabs(1 - s) <= 1e-8))
    return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. sum(%s) = %.*g, but should be 1",
                   fn, arg, arg, sum_digits, s);
  for (size_t i = 0; i < K; i++)
    if (!(v->val[i] >= 0))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. %s[%zu] = %.*g, but should be "
                     "greater than or equal to 0", fn, arg, arg, i + 1, elem_digits, v->val[i]);
  return AD_OK;
}

int tm_dens_check_simplex(const char *fn, const char *arg, const tm_v *v) {
  return tm_dens_check_simplex_digits(fn, arg, v, 17, 17);
}

int tm_dens_elem_checks(const tm_dens *D, const elem_check *checks) {
  const char *names[TM_DENS_MAXARGS];
  tm_dens_check run[TM_DENS_MAXARGS + 1];
  int n = 0;
  for (int i = 0; checks[i].name; i++) {
    names[i] = checks[i].name;
    if (checks[i].kind != CK_NONE) run[n++] = (tm_dens_check){(unsigned char)i, (unsigned char)checks[i].kind};
  }
  run[n] = (tm_dens_check){0, CK_END};
  return tm_dens_run_checks(D, names, run);
}

/* ---- elementwise masses ---- */

/* elem, elem_def, KEEP and NEED: tm_dens_elem.h */

/* Elements per block: a mass over more than TM_BLOCK_MIN elements sums each
** block in order and then the blocks' sums in order, so its blocks can run
** on the evaluation's threads (tm_for) with the bits of one thread.  The
** blocks depend on the size alone; TM_BLOCK_MIN elements or fewer are one
** block, the plain order. */
#define TM_BLOCK_MIN 256
#define TM_BLOCKS_MAX 64
#define TM_PAR_MIN 2048           /* fewer elements: not worth waking a thread */

/* A block's rows through a vector kernel of tm_simd.h: y ints (stride ys),
** the real argument's values al, its partials t (zero on entry); returns
** the block's sum. */
typedef double (*elem_rows)(const int *y, size_t ys, const double *al, size_t as, double *t, size_t n);

typedef struct elem_run {
  const elem_def *def;
  elem_rows rows;                 /* NULL: element by element through def->term */
  int finite;                     /* rows only on blocks whose real argument is finite */
  int lfact;                      /* poisson_log with its constant: the blocks leave out
                                     lgamma(y + 1), subtracted once for all rows (konst) */
  double konst;
  double *t;                      /* rows: the partials they write (D's, or scratch) */
  const tm_v *a;
  tm_dens *D;
  unsigned keep, need, shared;    /* shared: needed scalar arguments (one partial summed) */
  size_t n, bs;
  double sum[TM_BLOCKS_MAX];
  double sc[TM_BLOCKS_MAX][4];
} elem_run;

/* The sum of lgamma(y + 1) over n counts (stride ys), from the table; 0
** when a count is past it (every row then goes element by element: Stan's
** saddle form).  Four sums, so the adds do not wait on each other; the
** counts are checked nonnegative and TM_LFACT_N is a power of 2, so a count
** past the table has a bit above its mask.  (Read inside the vector rows
** instead, the table's loads made them slower.) */
static int lfact_sum(const int *y, size_t ys, size_t n, double *out) {
  const double *t = tm_lfact_table;
  unsigned past = 0, m = TM_LFACT_N - 1;
  if (!ys) {
    past = (unsigned)y[0] & ~m;
    *out = (double)n * t[(unsigned)y[0] & m];
    return !past;
  }
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    unsigned v0 = (unsigned)y[j], v1 = (unsigned)y[j + 1], v2 = (unsigned)y[j + 2],
             v3 = (unsigned)y[j + 3];
    past |= (v0 | v1 | v2 | v3) & ~m;
    s0 += t[v0 & m];
    s1 += t[v1 & m];
    s2 += t[v2 & m];
    s3 += t[v3 & m];
  }
  for (; j < n; j++) {
    unsigned v = (unsigned)y[j];
    past |= v & ~m;
    s0 += t[v & m];
  }
  *out = (s0 + s1) + (s2 + s3);
  return !past;
}

/* lfact_sum over the n rows of counts y (an int, or an array of n) */
static int counts_lfact(const tm_v *y, size_t n, double *out) {
  return lfact_sum(y->ival, tm_is_scalar(y) ? 0 : 1, n, out);
}

static void elem_block(void *ctx, int b) {
  elem_run *r = ctx;
  const elem_def *def = r->def;
  elem e;
  memset(&e, 0, sizeof e);
  /* the lgamma(y + 1) of an lfact run is taken once for all rows */
  e.keep = r->lfact ? r->keep & ~1u : r->keep;
  e.need = r->need;
  size_t lo = (size_t)b * r->bs, hi = lo + r->bs < r->n ? lo + r->bs : r->n;
  double logp = 0, sc[4] = { 0, 0, 0, 0 };
  if (r->rows) {
    const double *al = r->a[1].val + lo;
    int ok = 1;
    if (r->finite)
      for (size_t j = 0; j < hi - lo; j++) ok &= isfinite(al[j]);
    if (ok) {
      const tm_v *y = &r->a[0];
      size_t ys = tm_is_scalar(y) ? 0 : 1;
      r->sum[b] = r->rows(y->ival + (ys ? lo : 0), ys, al, 1, r->t + lo, hi - lo);
      memset(r->sc[b], 0, sizeof r->sc[b]);
      return;
    }
  }
  for (size_t j = lo; j < hi; j++) {
    for (int i = 0; i < def->nargs; i++) e.x[i] = tm_get(&r->a[i], j);
    logp += def->term(&e);
    for (int i = 0; i < def->nargs; i++) {
      if (!NEED(&e, i)) continue;
      if (r->shared >> i & 1u) sc[i] += e.d[i];
      else r->D->d[i][j] += e.d[i];
    }
  }
  r->sum[b] = logp;
  memcpy(r->sc[b], sc, sizeof sc);
}


int tm_dens_elem_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const elem_def *def = c->fn->data;
  const char *fn = c->fn->name;
  if (nargs != def->nargs)
    return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, def->nargs, nargs);
  for (int i = 0; i < nargs; i++) {
    if ((def->ints >> i & 1u) && (a[i].base != TM_INT || a[i].narr > 1))
      return tm_dens_not_int(fn, def->names[i]);
    if (!(def->ints >> i & 1u) && a[i].base == TM_INT && a[i].narr > 1)
      return ad_fail(AD_EINVALID, "%s: %s must be a real or a one-dimensional container", fn, def->names[i]);
  }
  tm_dens D;
  int rc = tm_dens_begin_ints(&D, c, a, nargs, def->names);
  if (rc) return rc;
  D.frozen = c->frozen;
  if ((rc = def->check(&D))) return rc;
  elem_run r;
  r.def = def;
  r.rows = NULL;
  r.finite = 0;
  r.lfact = 0;
  r.konst = 0;
  r.t = NULL;
  r.a = a;
  r.D = &D;
  r.keep = r.need = r.shared = 0;
  for (int i = 0; i < nargs; i++) {
    if (tm_dens_keep(&D, 1u << i)) r.keep |= 1u << i;
    if (D.d[i]) r.need |= 1u << i;
    if (D.d[i] && tm_is_scalar(&a[i])) r.shared |= 1u << i;
  }
  /* bernoulli_logit and poisson_log on a vector of autodiff values: the
     rows of tm_simd.h, whose exp and log1p run on vector lanes (poisson_log
     only on finite rates: its limits at +-inf are Stan's, element by
     element; its constant, when kept, from the lgamma table) */
  if (nargs == 2 && a[0].base == TM_INT && a[1].base != TM_INT && !tm_is_scalar(&a[1]) && D.n) {
    if (def == &tm_dens_elem_bernoulli_logit && (r.keep & 2u)) r.rows = tm_rows_bernoulli_logit;
    if (def == &tm_dens_elem_poisson_log && (r.keep & 2u)) {
      r.rows = tm_rows_poisson_log;
      r.finite = 1;
      /* the constant from the table, given by the plan (tm_dens_konst)
         or summed here the same way; a count past the table: every row
         element by element (Stan's saddle form) */
      if (r.keep & 1u) {
        if (c->konst) {
          r.konst = *c->konst;
          r.lfact = 1;
        } else {
          r.lfact = counts_lfact(&a[0], D.n, &r.konst);
        }
        if (!r.lfact) {
          r.rows = NULL;
          r.finite = 0;
        }
      }
    }
    /* on doubles (no partials wanted) the rows still write theirs: to
       scratch, so the value is the tape's bit for bit */
    if (r.rows && !D.d[1]) {
      if (!(r.t = ad_alloc_doubles(D.n))) return AD_EMEMORY;
      memset(r.t, 0, D.n * sizeof *r.t);
    } else {
      r.t = D.d[1];
    }
  }
  /* Stan's early return: nothing left once propto drops every term. */
  double logp = 0;
  if (r.keep && D.n) {
    r.n = D.n;
    r.bs = (D.n + TM_BLOCKS_MAX - 1) / TM_BLOCKS_MAX;
    if (r.bs < TM_BLOCK_MIN) r.bs = TM_BLOCK_MIN;
    int nb = (int)((D.n + r.bs - 1) / r.bs);
    if (D.n >= TM_PAR_MIN) tm_for(nb, (double)D.n, elem_block, &r);
    else for (int b = 0; b < nb; b++) elem_block(&r, b);
    for (int b = 0; b < nb; b++) {
      logp += r.sum[b];
      for (int i = 0; i < nargs; i++)
        if (r.shared >> i & 1u) D.d[i][0] += r.sc[b][i];
    }
    if (r.lfact) logp -= r.konst;
  }
  return tm_dens_end(&D, logp, out);
}

int tm_dens_konst(const tm_fn *fn, int propto, const tm_v *args, int nargs, double *out) {
  /* poisson_log with its constants (propto drops lgamma(y + 1) of data y):
     what tm_dens_elem_kernel sums when it takes the rows, the count n
     being the rate's */
  if (fn->kernel != tm_dens_elem_kernel || fn->data != &tm_dens_elem_poisson_log || propto || nargs != 2 ||
      args[0].base != TM_INT || args[1].base == TM_INT || tm_is_scalar(&args[1]))
    return 0;
  size_t n = tm_numel(&args[1]);
  if (!n || (!tm_is_scalar(&args[0]) && tm_numel(&args[0]) != n)) return 0;
  return counts_lfact(&args[0], n, out);
}
