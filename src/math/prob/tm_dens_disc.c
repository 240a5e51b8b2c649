/*
** tm_dens_disc.c -- probability mass functions of the discrete distributions.
**
** The elementwise masses (bernoulli, binomial, poisson, neg_binomial_2 and
** their logit/log forms) share one kernel, `elementwise`, driven by a
** description: the argument names Stan uses in messages, a check, and a
** function computing one element's log mass and partials.  Adding such a
** mass is one description and one table line.  categorical and
** categorical_logit index or multiply rather than broadcast, so they have
** kernels of their own.  (bernoulli_logit_glm is with the GLMs, tm_glm.c.)
**
** Dropping constants (propto) follows Stan's include_summand: a term is kept
** when propto is off or when an argument it depends on is not constant.
** Integer outcomes are always constant, so e.g. -lgamma(n + 1) goes.
** The formulas are Stan Math's, except where a form loses digits that a
** rearrangement keeps; those places say so.
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"
#include "../tm_simd.h"

/* ---- shared pieces ---- */

/* Stan's multiply_log: 0 log 0 is 0, the limit, so n = 0 with rate 0 works. */
static double multiply_log(double a, double b) {
  if (a == 0 && b == 0) return 0;
  return a * log(b);
}

/* Stan's binomial_coefficient_log(n, k) for n >= -1, 0 <= k <= n + 1: the
** smaller of k and n - k, lgamma while n is small and the lbeta form (whose
** Stirling differences keep digits) once n + 1 >= 10. */
static double lbinom(double n, double k) {
  if (isnan(n) || isnan(k)) return NAN;
  if (n > -1 && k > n / 2 + 1e-8) return lbinom(n, n - k);
  if (k == 0) return 0;
  double n1 = n + 1;
  if (n1 < 10) return tm_lgamma(n1) - tm_lgamma(k + 1) - tm_lgamma(n1 - k);
  return -tm_lbeta(n1 - k, k + 1) - log1p(n);
}

/* digamma(n + phi) - digamma(phi).  For a modest count the finite sum of
** 1/(phi + k) is exact where the difference of two digammas cancels: with
** phi = 1e8 both are 18.4 and the difference is n * 1e-8. */
static double digamma_diff(double n, double phi) {
  if (n <= 64) {
    double s = 0;
    for (int k = 0; k < (int)n; k++) s += 1 / (phi + k);
    return s;
  }
  return tm_digamma(n + phi) - tm_digamma(phi);
}

/* Full masses of large counts.  Stan's n log(lambda) - lambda - lgamma(n + 1)
** adds terms of size n log n that cancel to a result of size log n, losing
** about log10(n) digits (1e-10 absolute at n = 1e6).  When propto keeps
** every term, poisson and binomial use Loader's saddle-point form instead
** (as R's dpois and dbinom do): the Stirling remainder and the deviance
** bd0 carry the cancellation analytically.  Poisson counts below
** TM_LFACT_N keep Stan's form (at most 2.5 digits lost there, as Stan
** does), with lgamma(n + 1) from a table: the saddle point costs several
** logarithms and a series per observation. */

/* tm_stirlerr and tm_bd0 (tm_special_dist.c) are the pieces. */

/* log Poisson(n | lambda), n >= 1, 0 < lambda < inf */
static double poisson_saddle(double n, double lam) {
  return -tm_stirlerr(n) - tm_bd0(n, lam) - 0.5 * (TM_LOG_2PI + log(n));
}

/* log Binomial(n | N, p), 0 < n < N, with q = 1 - p given separately so
** neither tail rounds away */
static double binomial_saddle(double n, double N, double p, double q) {
  double lc = tm_stirlerr(N) - tm_stirlerr(n) - tm_stirlerr(N - n) - tm_bd0(n, N * p) - tm_bd0(N - n, N * q);
  return lc - 0.5 * (TM_LOG_2PI + log(n) + log1p(-n / N));
}

/* The name of element i of argument v in a message: "n" or "n[3]". */
static void elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

/* Every element of int argument v in [lo, hi], where hi may vary by element
** (binomial's population sizes) and is broadcast like the density's arguments. */
static int check_int_bounds(const char *fn, const char *arg, const tm_v *v, size_t n,
                            int lo, const tm_v *hiv, int hi) {
  size_t m = hiv ? n : tm_is_scalar(v) ? 1 : tm_numel(v);
  for (size_t i = 0; i < m; i++) {
    int x = tm_geti(v, i), h = hiv ? tm_geti(hiv, i) : hi;
    if (x < lo || x > h) {
      char name[160];
      elem_name(name, sizeof name, arg, v, i);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be in the interval [%d, %d]!",
                     fn, name, x, lo, h);
    }
  }
  return AD_OK;
}

static int not_int(const char *fn, const char *arg) {
  return ad_fail(AD_EINVALID, "%s: %s must be an int or an array of ints", fn, arg);
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

static const elem_def bernoulli_logit_def, poisson_log_def;

int tm_dens_elem_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const elem_def *def = c->fn->data;
  const char *fn = c->fn->name;
  if (nargs != def->nargs)
    return ad_fail(AD_EINVALID, "%s: expected %d arguments, got %d", fn, def->nargs, nargs);
  for (int i = 0; i < nargs; i++) {
    if ((def->ints >> i & 1u) && (a[i].base != TM_INT || a[i].narr > 1))
      return not_int(fn, def->names[i]);
    if (!(def->ints >> i & 1u) && a[i].base == TM_INT && a[i].narr > 1)
      return ad_fail(AD_EINVALID, "%s: %s must be a real or a one-dimensional container", fn, def->names[i]);
  }
  tm_dens D;
  int rc = tm_dens_begin_ints(&D, c, a, nargs, def->names);
  if (rc || (rc = def->check(&D))) return rc;
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
    if (def == &bernoulli_logit_def && (r.keep & 2u)) r.rows = tm_rows_bernoulli_logit;
    if (def == &poisson_log_def && (r.keep & 2u)) {
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
  if (fn->kernel != tm_dens_elem_kernel || fn->data != &poisson_log_def || propto || nargs != 2 ||
      args[0].base != TM_INT || args[1].base == TM_INT || tm_is_scalar(&args[1]))
    return 0;
  size_t n = tm_numel(&args[1]);
  if (!n || (!tm_is_scalar(&args[0]) && tm_numel(&args[0]) != n)) return 0;
  return counts_lfact(&args[0], n, out);
}

/* bernoulli_lpmf(n | theta) */
static int bernoulli_check(const tm_dens *D) {
  int rc = tm_check_bounded(D->fn, "n", &D->a[0], 0, 1);
  return rc ? rc : tm_check_bounded(D->fn, "Probability parameter", &D->a[1], 0, 1);
}
static double bernoulli_term(elem *e) {
  double th = e->x[1];
  if (e->x[0] == 1) { e->d[1] = 1 / th; return log(th); }
  e->d[1] = 1 / (th - 1);
  return log1p(-th);
}
static const elem_def bernoulli_def = {
  2, 1u, {"Random variable", "Probability parameter"}, bernoulli_check, bernoulli_term , NULL};

/* bernoulli_logit_lpmf(n | alpha).  Stan switches to -exp(-x) and x beyond
** |x| > 20; log_inv_logit is exact everywhere and costs the same. */
static int bernoulli_logit_check(const tm_dens *D) {
  int rc = tm_check_bounded(D->fn, "n", &D->a[0], 0, 1);
  return rc ? rc : tm_check_not_nan(D->fn, "Logit transformed probability parameter", &D->a[1]);
}
/* log inv_logit(s x), s = 2 n - 1, and its derivative s inv_logit(-s x)
** from one exp, with the exp and log1p of the vector kernels: a loop of
** these run as lanes (src/plan) or the vector form keeps the bits */
static double bernoulli_logit_term(elem *e) { return tm_bernoulli_logit1((int)e->x[0], e->x[1], &e->d[1]); }
static const elem_def bernoulli_logit_def = {
  2, 1u, {"Random variable", "Probability parameter"}, bernoulli_logit_check, bernoulli_logit_term,
  tm_block_bernoulli_logit };

/* binomial_lpmf(n | N, theta): the branches keep 0 * log(0) out. */
static int binomial_check(const tm_dens *D) {
  int rc = check_int_bounds(D->fn, "Successes variable", &D->a[0], D->n, 0, &D->a[1], 0);
  if (!rc) rc = tm_check_nonnegative(D->fn, "Population size parameter", &D->a[1]);
  return rc ? rc : tm_check_bounded(D->fn, "Probability parameter", &D->a[2], 0, 1);
}
static double binomial_term(elem *e) {
  double n = e->x[0], N = e->x[1], th = e->x[2], lp = 0;
  e->d[2] = 0;
  if (N == 0) return 0;
  int full = KEEP(e, 7u) == 7u && n > 0 && n < N;
  if (full) {
    lp = binomial_saddle(n, N, th, 1 - th);
    e->d[2] = n / th - (N - n) / (1 - th);
    return lp;
  }
  if (KEEP(e, 3u)) lp += lbinom(N, n);
  if (n == 0) {
    lp += N * log1p(-th);
    e->d[2] = -N / (1 - th);
  } else if (n == N) {
    lp += n * log(th);
    e->d[2] = n / th;
  } else {
    lp += n * log(th) + (N - n) * log1p(-th);
    e->d[2] = n / th - (N - n) / (1 - th);
  }
  return lp;
}
static const elem_def binomial_def = {
  3, 3u, {"Successes variable", "Population size parameter", "Probability parameter"},
  binomial_check, binomial_term , NULL};

/* binomial_logit_lpmf(n | N, alpha) */
static int binomial_logit_check(const tm_dens *D) {
  int rc = check_int_bounds(D->fn, "Successes variable", &D->a[0], D->n, 0, &D->a[1], 0);
  if (!rc) rc = tm_check_nonnegative(D->fn, "Population size parameter", &D->a[1]);
  return rc ? rc : tm_check_finite(D->fn, "Probability parameter", &D->a[2]);
}
static double binomial_logit_term(elem *e) {
  double n = e->x[0], N = e->x[1], al = e->x[2], lp = 0;
  /* the two tails separately: 1 - inv_logit(alpha) would round to 0 */
  double p = tm_inv_logit(al), q = tm_inv_logit(-al);
  e->d[2] = n * q - (N - n) * p;
  if (KEEP(e, 7u) == 7u && n > 0 && n < N && p > 0 && q > 0)
    return binomial_saddle(n, N, p, q);
  if (KEEP(e, 3u)) lp += lbinom(N, n);
  lp += n * tm_log_inv_logit(al) + (N - n) * tm_log1m_inv_logit(al);
  return lp;
}
static const elem_def binomial_logit_def = {
  3, 3u, {"Successes variable", "Population size parameter", "Probability parameter"},
  binomial_logit_check, binomial_logit_term , NULL};

/* poisson_lpmf(n | lambda) */
static int poisson_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Random variable", &D->a[0]);
  return rc ? rc : tm_check_nonnegative(D->fn, "Rate parameter", &D->a[1]);
}
static double poisson_term(elem *e) {
  double n = e->x[0], lam = e->x[1], lp = 0;
  e->d[1] = 0;
  /* Stan: an infinite rate, or a zero rate with a count, is log(0) */
  if (isinf(lam) || (lam == 0 && n != 0)) return -INFINITY;
  /* Stan's n / lambda - 1 is 0/0 at lambda = 0; the limit is -1 */
  e->d[1] = n == 0 ? -1 : n / lam - 1;
  if (KEEP(e, 3u) == 3u && n >= TM_LFACT_N) return poisson_saddle(n, lam);
  if (KEEP(e, 3u)) lp += multiply_log(n, lam);
  if (KEEP(e, 2u)) lp -= lam;
  if (KEEP(e, 1u)) lp -= tm_lfact(n);
  return lp;
}
static const elem_def poisson_def = {
  2, 1u, {"Random variable", "Rate parameter"}, poisson_check, poisson_term , NULL};

/* poisson_log_lpmf(n | alpha) */
static int poisson_log_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Random variable", &D->a[0]);
  return rc ? rc : tm_check_not_nan(D->fn, "Log rate parameter", &D->a[1]);
}
static double poisson_log_term(elem *e) {
  double n = e->x[0], al = e->x[1], lp = 0;
  e->d[1] = 0;
  if (al == INFINITY) return -INFINITY;
  /* rate 0: Stan's n * alpha would be 0 * -inf = NaN for n = 0, whose mass is 1 */
  if (al == -INFINITY) return n != 0 ? -INFINITY : 0;
  double ea = exp(al);
  e->d[1] = n - ea;
  if (KEEP(e, 3u) == 3u && n >= TM_LFACT_N && ea > 0 && isfinite(ea)) return poisson_saddle(n, ea);
  if (KEEP(e, 3u)) lp += n * al;
  if (KEEP(e, 2u)) lp -= ea;
  if (KEEP(e, 1u)) lp -= tm_lfact(n);
  return lp;
}
static const elem_def poisson_log_def = {
  2, 1u, {"Random variable", "Log rate parameter"}, poisson_log_check, poisson_log_term , NULL};

/* neg_binomial_2_lpmf(n | mu, phi), Stan's form: binomial_coefficient_log
** and -phi log1p(mu / phi) stay accurate as phi grows, where the textbook
** lgamma(n + phi) - lgamma(phi) + phi log(phi / (mu + phi)) cancels. */
static int neg_binomial_2_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Failures variable", &D->a[0]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Location parameter", &D->a[1]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Precision parameter", &D->a[2]);
}
static double neg_binomial_2_term(elem *e) {
  double n = e->x[0], mu = e->x[1], phi = e->x[2], lp = 0;
  double mpp = mu + phi, lmpp = log(mpp), npp = n + phi;
  if (KEEP(e, 5u)) lp += lbinom(npp - 1, n);
  if (KEEP(e, 3u)) lp += multiply_log(n, mu);
  if (KEEP(e, 7u)) lp += -phi * log1p(mu / phi) - n * lmpp;
  if (NEED(e, 1)) e->d[1] = n / mu - npp / mpp;
  if (NEED(e, 2))
    e->d[2] = (mu - n) / mpp + (mu < phi ? log1p(-mu / mpp) : log(phi) - lmpp)
              + digamma_diff(n, phi);
  return lp;
}
static const elem_def neg_binomial_2_def = {
  3, 1u, {"Failures variable", "Location parameter", "Precision parameter"},
  neg_binomial_2_check, neg_binomial_2_term , NULL};

/* neg_binomial_2_log_lpmf(n | eta, phi), as Stan computes it: everything
** through log1p_exp(eta - log(phi)), so exp(eta) never overflows the value. */
static int neg_binomial_2_log_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Failures variable", &D->a[0]);
  if (!rc) rc = tm_check_finite(D->fn, "Log location parameter", &D->a[1]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Precision parameter", &D->a[2]);
}
static double neg_binomial_2_log_term(elem *e) {
  double n = e->x[0], eta = e->x[1], phi = e->x[2], lp = 0;
  double lphi = log(phi), L = tm_log1p_exp(eta - lphi), npp = n + phi;
  if (KEEP(e, 5u)) lp += lbinom(npp - 1, n);
  if (KEEP(e, 3u)) lp += n * eta;
  if (KEEP(e, 7u)) lp += -phi * L - n * (lphi + L);
  if (e->need) {
    double ee = exp(eta), q = 1 / (phi / ee + 1);   /* mu / (mu + phi) */
    if (NEED(e, 1)) e->d[1] = n - npp * q;
    if (NEED(e, 2)) e->d[2] = q - n / (ee + phi) - L + digamma_diff(n, phi);
  }
  return lp;
}
static const elem_def neg_binomial_2_log_def = {
  3, 1u, {"Failures variable", "Log location parameter", "Precision parameter"},
  neg_binomial_2_log_check, neg_binomial_2_log_term , NULL};

/* ---- categorical ---- */

/* y (int or array[] int) and a vector of K categories. */
static int categorical_args(const char *fn, const tm_v *a, int nargs) {
  if (nargs != 2) return ad_fail(AD_EINVALID, "%s: expected 2 arguments, got %d", fn, nargs);
  if (a[0].base != TM_INT || a[0].narr > 1) return not_int(fn, "outcome");
  if (a[1].base != TM_VECTOR || a[1].narr != 0)
    return ad_fail(AD_EINVALID, "%s: the second argument must be a vector", fn);
  return AD_OK;
}

/* Stan's check_simplex, with its messages. */
static int check_simplex(const char *fn, const char *arg, const tm_v *v) {
  int rc = tm_check_nonzero_size(fn, arg, v);
  if (rc) return rc;
  size_t K = tm_numel(v);
  double s = 0;
  for (size_t i = 0; i < K; i++) s += v->val[i];
  if (!(fabs(1 - s) <= 1e-8))
    return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. sum(%s) = %.17g, but should be 1",
                   fn, arg, arg, s);
  for (size_t i = 0; i < K; i++)
    if (!(v->val[i] >= 0))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid simplex. %s[%zu] = %.17g, but should be "
                     "greater than or equal to 0", fn, arg, arg, i + 1, v->val[i]);
  return AD_OK;
}

static const char *const theta_name[] = {"Probabilities parameter"};
static const char *const beta_name[] = {"log odds parameter"};

/* categorical_lpmf(y | theta): sum of log theta[y]. */
static int categorical(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc = categorical_args(fn, a, nargs);
  if (rc) return rc;
  const tm_v *y = &a[0], *th = &a[1];
  int K = th->rows;
  size_t N = tm_is_scalar(y) ? 1 : tm_numel(y);
  rc = check_int_bounds(fn, tm_is_scalar(y) ? "Number of categories" : "element of outcome array",
                        y, 0, 1, NULL, K);
  if (rc || (rc = check_simplex(fn, "Probabilities parameter", th))) return rc;
  tm_dens D;
  if ((rc = tm_dens_begin(&D, c, th, 1, theta_name))) return rc;
  double logp = 0;
  if (tm_dens_keep(&D, 1u)) {
    for (size_t i = 0; i < N; i++) {
      int k = tm_geti(y, i) - 1;
      logp += log(th->val[k]);
      tm_dens_add(&D, 0, (size_t)k, 1 / th->val[k]);
    }
  }
  return tm_dens_end(&D, logp, out);
}

/* categorical_logit_lpmf(y | beta): sum of beta[y] - log_sum_exp(beta);
** the partials are the counts minus N softmax(beta). */
static int categorical_logit(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc = categorical_args(fn, a, nargs);
  if (rc) return rc;
  const tm_v *y = &a[0], *be = &a[1];
  int K = be->rows;
  size_t N = tm_is_scalar(y) ? 1 : tm_numel(y);
  rc = check_int_bounds(fn, "categorical outcome out of support", y, 0, 1, NULL, K);
  if (rc || (rc = tm_check_finite(fn, "log odds parameter", be))) return rc;
  tm_dens D;
  if ((rc = tm_dens_begin(&D, c, be, 1, beta_name))) return rc;
  double logp = 0;
  if (N > 0 && tm_dens_keep(&D, 1u)) {
    double mx = -INFINITY, s = 0;
    for (int k = 0; k < K; k++) if (be->val[k] > mx) mx = be->val[k];
    for (int k = 0; k < K; k++) s += exp(be->val[k] - mx);
    double lse = mx + log(s);
    for (size_t i = 0; i < N; i++) {
      int k = tm_geti(y, i) - 1;
      logp += be->val[k];
      tm_dens_add(&D, 0, (size_t)k, 1);
    }
    logp -= (double)N * lse;
    if (D.d[0])
      for (int k = 0; k < K; k++) D.d[0][k] -= (double)N * exp(be->val[k] - lse);
  }
  return tm_dens_end(&D, logp, out);
}

/*
** More discrete masses: beta_binomial, neg_binomial and
** discrete_range (elementwise, on the kernel above, tm_dens_elem.h),
** ordered_logistic and ordered_probit (a cut-point vector per outcome or
** shared), multinomial and multinomial_logit.
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/

/* digamma(x + n) - digamma(x) for a real x and a count n that may be any
** real: a finite sum for a modest integral count, exact where the
** difference of two digammas cancels (x large).  digamma_diff above takes
** the count first and only integral counts. */
static double digamma_diff_at(double x, double n) {
  if (n >= 0 && n <= 64 && n == floor(n)) {
    double s = 0;
    for (int k = 0; k < (int)n; k++) s += 1 / (x + k);
    return s;
  }
  return tm_digamma(x + n) - tm_digamma(x);
}

/* ---- beta_binomial(n | N, alpha, beta) ---- */

static int beta_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Population size parameter", &D->a[1]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "First prior sample size parameter", &D->a[2]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Second prior sample size parameter", &D->a[3]);
}
static double beta_binomial_term(elem *e) {
  double n = e->x[0], N = e->x[1], a = e->x[2], b = e->x[3], lp = 0;
  e->d[2] = e->d[3] = 0;
  if (n < 0 || n > N) return -INFINITY;       /* Stan: LOG_ZERO */
  if (KEEP(e, 3u)) lp += tm_lchoose(N, n);
  if (KEEP(e, 12u)) lp += tm_lbeta(n + a, N - n + b) - tm_lbeta(a, b);
  if (e->need & 12u) {
    double dab = digamma_diff_at(a + b, N);      /* digamma(N + a + b) - digamma(a + b) */
    e->d[2] = digamma_diff_at(a, n) - dab;
    e->d[3] = digamma_diff_at(b, N - n) - dab;
  }
  return lp;
}
static const elem_def beta_binomial_def = {
  4, 3u, {"Successes variable", "Population size parameter", "First prior sample size parameter",
          "Second prior sample size parameter"}, beta_binomial_check, beta_binomial_term , NULL};

/* ---- neg_binomial(n | alpha, beta) ---- */

static int neg_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Failures variable", &D->a[0]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Shape parameter", &D->a[1]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Inverse scale parameter", &D->a[2]);
}
static double neg_binomial_term(elem *e) {
  double n = e->x[0], a = e->x[1], b = e->x[2], lp = 0;
  double l1b = log1p(1 / b);                  /* -log(beta / (1 + beta)) */
  if (KEEP(e, 2u)) lp += tm_lchoose(n + a - 1, n);
  if (KEEP(e, 6u)) lp -= a * l1b;
  if (KEEP(e, 4u)) lp -= n * log1p(b);
  if (NEED(e, 1)) e->d[1] = digamma_diff_at(a, n) - l1b;
  if (NEED(e, 2)) e->d[2] = a / b - (a + n) / (1 + b);
  return lp;
}
static const elem_def neg_binomial_def = {
  3, 1u, {"Failures variable", "Shape parameter", "Inverse scale parameter"}, neg_binomial_check,
  neg_binomial_term , NULL};

/* ---- discrete_range(y | lower, upper) ---- */

static int discrete_range_check(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++) {
    int lo = tm_geti(&D->a[1], j), hi = tm_geti(&D->a[2], j);
    if (hi < lo) {
      char name[64];
      elem_name(name, sizeof name, "Upper bound parameter", &D->a[2], j);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to %d", D->fn, name, hi, lo);
    }
  }
  return AD_OK;
}
static double discrete_range_term(elem *e) {
  double y = e->x[0], lo = e->x[1], hi = e->x[2];
  if (y < lo || y > hi) return -INFINITY;
  return -log(hi - lo + 1);
}
static const elem_def discrete_range_def = {
  3, 7u, {"Random variable", "Lower bound parameter", "Upper bound parameter"}, discrete_range_check,
  discrete_range_term , NULL};

/* ---- ordered_logistic, ordered_probit ---- */

/* log P(y = k) for cut-points c[0..K-2] and location eta, with the partials
** in eta (*de) and in the two cut-points that bound category k (*dlo for
** c[k-2], *dhi for c[k-1]; 0 when absent). */
typedef double (*ordered_fn)(int k, int K, double eta, const double *c, double *de, double *dlo, double *dhi);

static double ordered_logistic_k(int k, int K, double eta, const double *c, double *de, double *dlo, double *dhi) {
  *dlo = *dhi = 0;
  if (K == 1) { *de = 0; return 0; }
  if (k == 1) {                /* log(1 - inv_logit(eta - c_1)) */
    double x = eta - c[0], s = tm_inv_logit(x);
    *de = -s; *dhi = s;
    return tm_log1m_inv_logit(x);
  }
  if (k == K) {                /* log inv_logit(eta - c_{K-1}) */
    double x = eta - c[K - 2], s = tm_inv_logit(-x);
    *de = s; *dlo = -s;
    return tm_log_inv_logit(x);
  }
  /* log(inv_logit(a) - inv_logit(b)), a = eta - c_{k-1} > b = eta - c_k */
  double a = eta - c[k - 2], b = eta - c[k - 1];
  double da = -1 / expm1(b - a) - tm_inv_logit(a), db = -1 / expm1(a - b) - tm_inv_logit(b);
  *de = da + db; *dlo = -da; *dhi = -db;
  return a - tm_log1p_exp(a) + tm_log1m_exp(b - a) - tm_log1p_exp(b);
}

static double log_phi(double x) { return -0.5 * x * x - TM_LOG_SQRT_2PI; }

static double ordered_probit_k(int k, int K, double eta, const double *c, double *de, double *dlo, double *dhi) {
  *dlo = *dhi = 0;
  if (K == 1) { *de = 0; return 0; }
  if (k == 1) {                /* Phi(c_1 - eta) */
    double u = c[0] - eta, g = tm_dlog_Phi(u);
    *dhi = g; *de = -g;
    return tm_log_Phi(u);
  }
  if (k == K) {                /* Phi(eta - c_{K-1}) */
    double l = eta - c[K - 2], g = tm_dlog_Phi(l);
    *de = g; *dlo = -g;
    return tm_log_Phi(l);
  }
  /* Phi(u) - Phi(l), u = c_k - eta > l = c_{k-1} - eta, from the tail both are in */
  double u = c[k - 1] - eta, l = c[k - 2] - eta, lp;
  if (l > 0) lp = tm_log_diff_exp(tm_log_Phi(-l), tm_log_Phi(-u));
  else lp = tm_log_diff_exp(tm_log_Phi(u), tm_log_Phi(l));
  double gu = exp(log_phi(u) - lp), gl = -exp(log_phi(l) - lp);
  *dhi = gu; *dlo = gl; *de = -(gu + gl);
  return lp;
}

/* Stan's check_ordered */
static int check_ordered(const char *fn, const char *name, const double *c, int n, int which, int many) {
  char nm[64];
  if (many) snprintf(nm, sizeof nm, "%s[%d]", name, which + 1);
  else snprintf(nm, sizeof nm, "%s", name);
  for (int i = 0; i < n; i++) {
    if (!isfinite(c[i]))
      return ad_fail(AD_EDOMAIN, "%s: %s[%d] is %.17g, but must be finite!", fn, nm, i + 1, c[i]);
    if (i > 0 && !(c[i] > c[i - 1]))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid ordered vector. The element at %d is %.17g, but should "
                     "be greater than the previous element, %.17g", fn, nm, i + 1, c[i], c[i - 1]);
  }
  return AD_OK;
}

static int k_ordered(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  ordered_fn f = *(const ordered_fn *)c->fn->data;
  const char *fn = c->fn->name;
  if (nargs != 3) return ad_fail(AD_EINVALID, "%s: expected 3 arguments, got %d", fn, nargs);
  const tm_v *y = &a[0], *eta = &a[1], *cut = &a[2];
  if (y->base != TM_INT || y->narr > 1)
    return ad_fail(AD_EINVALID, "%s: Random variable must be an int or an array of ints", fn);
  int eta_ok = tm_is_scalar(eta) || (eta->narr == 0 && eta->base == TM_VECTOR);
  int cut_ok = cut->base == TM_VECTOR && cut->narr <= 1;
  if (!eta_ok || !cut_ok)
    return ad_fail(AD_EINVALID, "%s: expects (int or array[] int, real or vector, vector or array[] vector)", fn);
  size_t N = tm_is_scalar(y) ? 1 : tm_numel(y);
  int many = cut->narr == 1, Km1 = cut->rows, rc;
  if (!tm_is_scalar(eta) && (rc = tm_check_size_match(fn, "Integers", N, "Locations", tm_numel(eta)))) return rc;
  if (many && (rc = tm_check_size_match(fn, "Length of location variables", N, "Number of cutpoint vectors",
                                        (size_t)cut->dim[0])))
    return rc;
  int K = Km1 + 1;
  for (size_t i = 0; i < N; i++) {
    int k = tm_geti(y, i);
    if (k < 1 || k > K) {
      char nm[64];
      elem_name(nm, sizeof nm, "Random variable", y, i);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be in the interval [1, %d]", fn, nm, k, K);
    }
  }
  if ((rc = tm_check_finite(fn, "Location parameter", eta))) return rc;
  int ncut = many ? cut->dim[0] : 1;
  for (int m = 0; m < ncut; m++)
    if ((rc = check_ordered(fn, "Cut-points", cut->val + (size_t)m * Km1, Km1, m, many))) return rc;
  double *de = NULL, *dc = NULL;
  if (eta->adj && !(de = ad_alloc_zeros(tm_numel(eta) + 1))) return AD_EMEMORY;
  if (cut->adj && !(dc = ad_alloc_zeros(tm_numel(cut) + 1))) return AD_EMEMORY;
  double lp = 0;
  if (!c->propto || !tm_is_const(eta) || !tm_is_const(cut))
    for (size_t i = 0; i < N; i++) {
      const double *ci = cut->val + (many ? i * (size_t)Km1 : 0);
      double g, glo, ghi, e = tm_get(eta, tm_is_scalar(eta) ? 0 : i);
      int k = tm_geti(y, i);
      lp += f(k, K, e, ci, &g, &glo, &ghi);
      if (de) de[tm_is_scalar(eta) ? 0 : i] += g;
      if (dc) {
        double *dci = dc + (many ? i * (size_t)Km1 : 0);
        if (k >= 2) dci[k - 2] += glo;
        if (k <= Km1) dci[k - 1] += ghi;
      }
    }
  if (!de && !dc) {
    int r = tm_set_real(out, lp);
    out->dep = (unsigned char)(eta->dep || cut->dep);
    return r;
  }
  ad_operand ops[2];
  int nops = 0;
  if (de) ops[nops++] = (ad_operand){eta->adj, de, tm_numel(eta)};
  if (dc) ops[nops++] = (ad_operand){cut->adj, dc, tm_numel(cut)};
  ad_var r;
  if ((rc = ad_operands_node(nops, ops, lp, &r))) return rc;
  return tm_set_var(out, r);
}

static const ordered_fn f_ordered_logistic = ordered_logistic_k, f_ordered_probit = ordered_probit_k;

/* ---- multinomial, multinomial_logit ---- */

static int k_multinomial(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int logit = c->fn->data != NULL, rc;
  const char *fn = c->fn->name;
  if (nargs != 2 || a[0].base != TM_INT || a[0].narr != 1 || a[1].base != TM_VECTOR || a[1].narr)
    return ad_fail(AD_EINVALID, "%s: expects (array[] int, vector)", fn);
  const tm_v *y = &a[0], *th = &a[1];
  size_t K = tm_numel(y);
  if ((rc = tm_check_size_match(fn, "number of trials variable", K, "probabilities parameter",
                                tm_numel(th))))
    return rc;
  if ((rc = tm_check_nonnegative(fn, "Number of trials variable", y))) return rc;
  if (logit) rc = tm_check_finite(fn, "log-probabilities parameter", th);
  else rc = tm_dens_check_simplex(fn, "Probabilities parameter", th);
  if (rc) return rc;
  double lp = 0, N = 0;
  for (size_t i = 0; i < K; i++) N += y->ival[i];
  if (!c->propto) {
    lp += tm_lgamma(N + 1);
    for (size_t i = 0; i < K; i++) lp -= tm_lgamma(y->ival[i] + 1.0);
  }
  double *d = NULL;
  if (th->adj && !(d = ad_alloc_zeros(K + 1))) return AD_EMEMORY;
  if (!c->propto || !tm_is_const(th)) {
    if (logit) {
      double m = -INFINITY, s = 0;
      for (size_t i = 0; i < K; i++) if (th->val[i] > m) m = th->val[i];
      for (size_t i = 0; i < K; i++) s += exp(th->val[i] - m);
      double lse = m + log(s);
      for (size_t i = 0; i < K; i++) {
        lp += y->ival[i] * (th->val[i] - lse);
        if (d) d[i] = y->ival[i] - N * exp(th->val[i] - lse);
      }
    } else {
      for (size_t i = 0; i < K; i++) {
        int n = y->ival[i];
        if (n == 0) continue;             /* 0 log 0 = 0 */
        lp += n * log(th->val[i]);
        if (d) d[i] = n / th->val[i];
      }
    }
  }
  if (!d) {
    rc = tm_set_real(out, lp);
    out->dep = th->dep;
    return rc;
  }
  ad_operand o = {th->adj, d, K};
  ad_var r;
  if ((rc = ad_operands_node(1, &o, lp, &r))) return rc;
  return tm_set_var(out, r);
}

#define ORD_SIG "real(int, real, vector); real(array[] int, real, vector); real(array[] int, vector, vector); " \
  "real(array[] int, vector, array[] vector)"

/*
** More discrete masses: beta_neg_binomial and yule_simon
** (elementwise, on the kernel above, tm_dens_elem.h),
** hypergeometric (ints only), dirichlet_multinomial, and
** binomial_logit_glm (binomial_logit of alpha + x beta without forming it).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/

/* ---- beta_neg_binomial(n | r, alpha, beta)
**   = Gamma(n + beta) B(n + r, alpha + beta) / (n! Gamma(beta) B(r, alpha)) ---- */

static int beta_neg_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Failures variable", &D->a[0]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Number of successes parameter", &D->a[1]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Prior success parameter", &D->a[2]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Prior failure parameter", &D->a[3]);
}
static double beta_neg_binomial_term(elem *e) {
  double n = e->x[0], r = e->x[1], a = e->x[2], b = e->x[3], lp = 0;
  if (KEEP(e, 1u)) lp -= tm_lfact(n);
  if (KEEP(e, 14u)) lp += tm_lbeta(n + r, a + b);
  if (KEEP(e, 6u)) lp -= tm_lbeta(r, a);
  if (KEEP(e, 8u)) lp += tm_lgamma(n + b) - tm_lgamma(b);
  if (e->need & 14u) {
    double dall = digamma_diff_at(r + a + b, n);          /* digamma(n + r + a + b) - digamma(r + a + b) */
    double dab = tm_digamma(r + a + b) - tm_digamma(a + b);
    /* d/dr: digamma(n + r) - digamma(n + r + a + b) - digamma(r) + digamma(r + a) */
    if (NEED(e, 1)) e->d[1] = digamma_diff_at(r, n) - dall - (tm_digamma(r + a + b) - tm_digamma(r + a));
    /* d/dalpha: digamma(a + b) - digamma(n + r + a + b) - digamma(a) + digamma(r + a) */
    if (NEED(e, 2)) e->d[2] = -dall - dab - tm_digamma(a) + tm_digamma(r + a);
    /* d/dbeta: digamma(a + b) - digamma(n + r + a + b) + digamma(n + b) - digamma(b) */
    if (NEED(e, 3)) e->d[3] = -dall - dab + digamma_diff_at(b, n);
  }
  return lp;
}
static const elem_def beta_neg_binomial_def = {
  4, 1u, {"Failures variable", "Number of successes parameter", "Prior success parameter", "Prior failure parameter"},
  beta_neg_binomial_check, beta_neg_binomial_term , NULL};

/* ---- yule_simon(n | alpha) = alpha B(n, alpha + 1), n >= 1 ---- */

static int yule_simon_check(const tm_dens *D) {
  const tm_v *n = &D->a[0];
  size_t m = tm_is_scalar(n) ? 1 : tm_numel(n);
  for (size_t i = 0; i < m; i++)
    if (n->ival[i] < 1) {
      char nm[64];
      if (tm_is_scalar(n)) snprintf(nm, sizeof nm, "Outcome variable");
      else snprintf(nm, sizeof nm, "Outcome variable[%zu]", i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to 1", D->fn, nm, n->ival[i]);
    }
  return tm_check_positive_finite(D->fn, "Shape parameter", &D->a[1]);
}
static double yule_simon_term(elem *e) {
  double n = e->x[0], a = e->x[1], lp = 0;
  if (KEEP(e, 1u)) lp += tm_lgamma(n);
  if (KEEP(e, 2u)) lp += log(a) + tm_lgamma(a + 1) - tm_lgamma(n + a + 1);
  if (NEED(e, 1)) e->d[1] = 1 / a - digamma_diff_at(a + 1, n);
  return lp;
}
static const elem_def yule_simon_def = {
  2, 1u, {"Failures variable", "Shape parameter"}, yule_simon_check, yule_simon_term , NULL};

/* ---- hypergeometric(n | N, a, b): ints only, so 0 under propto ---- */

static int k_hypergeometric(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  if (nargs != 4) return tm_no_overload(c, a, nargs);
  for (int i = 0; i < 4; i++)
    if (!tm_is_scalar(&a[i]) || a[i].base != TM_INT) return tm_no_overload(c, a, nargs);
  int n = a[0].ival[0], N = a[1].ival[0], A = a[2].ival[0], B = a[3].ival[0], rc;
  int Nmn = N - n;
  tm_v vNmn = tm_int_view(&Nmn);
  if ((rc = tm_check_bounded(fn, "Successes variable", &a[0], 0, A))) return rc;
  if (N < n)
    return ad_fail(AD_EDOMAIN, "%s: Draws parameter is %d, but must be greater than or equal to %d", fn, N, n);
  if ((rc = tm_check_bounded(fn, "Draws parameter minus successes variable", &vNmn, 0, B)) ||
      (rc = tm_check_bounded(fn, "Draws parameter", &a[1], 0, (double)A + B)))
    return rc;
  double lp = 0;
  if (!c->propto) lp = tm_lchoose(A, n) + tm_lchoose(B, N - n) - tm_lchoose((double)A + B, N);
  return tm_set_real(out, lp);
}

/* ---- dirichlet_multinomial(ns | alpha)
**   = log N + lbeta(alpha_0, N) - sum_{n_k > 0} (log n_k + lbeta(alpha_k, n_k)) ---- */

static int k_dirichlet_multinomial(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 2 || a[0].base != TM_INT || a[0].narr != 1 || a[1].base != TM_VECTOR || a[1].narr)
    return tm_no_overload(c, a, nargs);
  const tm_v *ns = &a[0], *al = &a[1];
  size_t K = tm_numel(ns);
  if ((rc = tm_check_size_match(fn, "number of trials variable", K, "rows of prior size parameter", tm_numel(al))) ||
      (rc = tm_check_nonnegative(fn, "Number of trials variable", ns)) ||
      (rc = tm_check_positive_finite(fn, "Prior size parameter", al)))
    return rc;
  double lp = 0, N = 0, a0 = 0;
  for (size_t k = 0; k < K; k++) { N += ns->ival[k]; a0 += al->val[k]; }
  double *d = NULL;
  if (al->adj && !(d = ad_alloc_zeros(K + 1))) return AD_EMEMORY;
  if ((!c->propto || !tm_is_const(al)) && N > 0) {
    if (!c->propto) {
      lp += log(N);
      for (size_t k = 0; k < K; k++) if (ns->ival[k] > 0) lp -= log((double)ns->ival[k]);
    }
    lp += tm_lbeta(a0, N);
    double dsum = d ? -digamma_diff_at(a0, N) : 0;      /* digamma(a0) - digamma(a0 + N) */
    for (size_t k = 0; k < K; k++) {
      int n = ns->ival[k];
      if (n > 0) lp -= tm_lbeta(al->val[k], n);
      if (d) d[k] = (n > 0 ? digamma_diff_at(al->val[k], n) : 0) + dsum;
    }
  }
  if (!d) {
    rc = tm_set_real(out, lp);
    out->dep = al->dep;
    return rc;
  }
  ad_operand o = {al->adj, d, K};
  ad_var r;
  if ((rc = ad_operands_node(1, &o, lp, &r))) return rc;
  return tm_set_var(out, r);
}

/* ---- binomial_logit_glm(n | N, x, alpha, beta) = binomial_logit(n | N, alpha + x beta) ----
** x a matrix (one row per outcome) or a row_vector shared by all; alpha a
** real or a vector; n and N ints or arrays.  Stan's order of checks: the
** sizes, 0 <= n <= N, N >= 0, and finiteness only when the sum is not
** finite. */
static int k_binomial_logit_glm(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int rc;
  if (nargs != 5) return tm_no_overload(c, a, nargs);
  const tm_v *n = &a[0], *Nn = &a[1], *x = &a[2], *al = &a[3], *be = &a[4];
  if (n->base != TM_INT || n->narr > 1 || Nn->base != TM_INT || Nn->narr > 1 ||
      (x->base != TM_MATRIX && x->base != TM_ROW_VECTOR) || x->narr ||
      !(tm_is_scalar(al) || (al->base == TM_VECTOR && !al->narr)) || be->base != TM_VECTOR || be->narr)
    return tm_no_overload(c, a, nargs);
  int xrow = x->base == TM_ROW_VECTOR;
  size_t K = (size_t)x->cols, M = (size_t)x->rows;
  size_t N = 1;                      /* max_size(n, N, x.col(0), alpha) */
  if (!tm_is_scalar(n)) N = tm_numel(n);
  if (!tm_is_scalar(Nn) && tm_numel(Nn) > N) N = tm_numel(Nn);
  if (M > N) N = M;
  if (!tm_is_scalar(al) && tm_numel(al) > N) N = tm_numel(al);
  if (!tm_is_scalar(n) && !tm_is_scalar(Nn) &&
      (rc = tm_check_size_match(fn, "Successes variable", tm_numel(n), "Population size parameter", tm_numel(Nn))))
    return rc;
  if ((!tm_is_scalar(n) && (rc = tm_check_consistent_size(fn, "Successes variable", tm_numel(n), N))) ||
      (!tm_is_scalar(Nn) && (rc = tm_check_consistent_size(fn, "Population size parameter", tm_numel(Nn), N))) ||
      (rc = tm_check_consistent_size(fn, "Weight vector", tm_numel(be), K)) ||
      (!tm_is_scalar(al) && (rc = tm_check_consistent_size(fn, "Vector of intercepts", tm_numel(al), N))))
    return rc;
  if (!xrow && M != N) return tm_check_consistent_size(fn, "Matrix of independent variables", M, N);
  for (size_t i = 0; i < N; i++) {
    int ni = tm_geti(n, tm_is_scalar(n) ? 0 : i), Ni = tm_geti(Nn, tm_is_scalar(Nn) ? 0 : i);
    if (ni < 0 || ni > Ni) {
      char nm[64];
      if (tm_is_scalar(n)) snprintf(nm, sizeof nm, "Successes variable");
      else snprintf(nm, sizeof nm, "Successes variable[%zu]", i + 1);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be in the interval [0, %d]", fn, nm, ni, Ni);
    }
  }
  if ((rc = tm_check_nonnegative(fn, "Population size parameter", Nn))) return rc;
  int keep = !c->propto || !tm_is_const(x) || !tm_is_const(al) || !tm_is_const(be);
  int dep = tm_any_dep(a, 5);
  double *g = ad_alloc_doubles(N + 1);
  if (!g) return AD_EMEMORY;
  double lp = 0, gsum = 0;
  if (keep) {
    for (size_t i = 0; i < N; i++) {
      double th = tm_get(al, tm_is_scalar(al) ? 0 : i);
      for (size_t k = 0; k < K; k++) th += x->val[(xrow ? 0 : i) + k * M] * be->val[k];
      double ni = tm_geti(n, tm_is_scalar(n) ? 0 : i), Ni = tm_geti(Nn, tm_is_scalar(Nn) ? 0 : i);
      lp += ni * tm_log_inv_logit(th) + (Ni - ni) * tm_log1m_inv_logit(th);
      g[i] = ni - Ni * tm_inv_logit(th);
      gsum += g[i];
    }
    if (!isfinite(lp) &&
        ((rc = tm_check_finite(fn, "Weight vector", be)) || (rc = tm_check_finite(fn, "Intercept", al)) ||
         (rc = tm_check_finite(fn, "Matrix of independent variables", x))))
      return rc;
    if (!c->propto)
      for (size_t i = 0; i < N; i++)
        lp += tm_lchoose(tm_geti(Nn, tm_is_scalar(Nn) ? 0 : i), tm_geti(n, tm_is_scalar(n) ? 0 : i));
  } else {
    for (size_t i = 0; i < N; i++) g[i] = 0;
  }
  ad_operand ops[3];
  int nops = 0;
  if (x->adj) {
    double *d = ad_alloc_zeros(tm_numel(x) + 1);
    if (!d) return AD_EMEMORY;
    for (size_t k = 0; k < K; k++) {
      if (xrow) d[k] = gsum * be->val[k];
      else for (size_t i = 0; i < M; i++) d[i + k * M] = g[i] * be->val[k];
    }
    ops[nops++] = (ad_operand){x->adj, d, tm_numel(x)};
  }
  if (al->adj) {
    double *d = g;
    if (tm_is_scalar(al)) {
      if (!(d = ad_alloc_doubles(1))) return AD_EMEMORY;
      d[0] = gsum;
    }
    ops[nops++] = (ad_operand){al->adj, d, tm_numel(al)};
  }
  if (be->adj) {
    double *d = ad_alloc_zeros(K + 1);
    if (!d) return AD_EMEMORY;
    for (size_t k = 0; k < K; k++) {
      if (xrow) d[k] = gsum * x->val[k];
      else for (size_t i = 0; i < M; i++) d[k] += x->val[i + k * M] * g[i];
    }
    ops[nops++] = (ad_operand){be->adj, d, K};
  }
  return tm_set_operands(out, nops, ops, lp, dep);
}

#define BLG(n, N) "real(" n ", " N ", matrix, real, vector); real(" n ", " N ", matrix, vector, vector); " \
  "real(" n ", " N ", row_vector, real, vector); real(" n ", " N ", row_vector, vector, vector)"

const tm_fn tm_fns_dens_disc[] = {
  {"bernoulli_lpmf",           "real(ints, reals)",        tm_dens_elem_kernel, &bernoulli_def},
  {"bernoulli_logit_lpmf",     "real(ints, reals)",        tm_dens_elem_kernel, &bernoulli_logit_def},
  {"binomial_lpmf",            "real(ints, ints, reals)",  tm_dens_elem_kernel, &binomial_def},
  {"binomial_logit_lpmf",      "real(ints, ints, reals)",  tm_dens_elem_kernel, &binomial_logit_def},
  {"poisson_lpmf",             "real(ints, reals)",        tm_dens_elem_kernel, &poisson_def},
  {"poisson_log_lpmf",         "real(ints, reals)",        tm_dens_elem_kernel, &poisson_log_def},
  {"neg_binomial_2_lpmf",      "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_2_def},
  {"neg_binomial_2_log_lpmf",  "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_2_log_def},
  {"categorical_lpmf",         "real(ints, vector)",       categorical, NULL},
  {"categorical_logit_lpmf",   "real(ints, vector)",       categorical_logit, NULL},
  {"beta_binomial_lpmf", "real(ints, ints, reals, reals)", tm_dens_elem_kernel, &beta_binomial_def},
  {"neg_binomial_lpmf", "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_def},
  {"discrete_range_lpmf", "real(ints, ints, ints)", tm_dens_elem_kernel, &discrete_range_def},
  {"ordered_logistic_lpmf", ORD_SIG, k_ordered, &f_ordered_logistic},
  {"ordered_probit_lpmf", ORD_SIG "; real(array[] int, real, array[] vector)", k_ordered, &f_ordered_probit},
  {"multinomial_lpmf", "real(array[] int, vector)", k_multinomial, NULL},
  {"multinomial_logit_lpmf", "real(array[] int, vector)", k_multinomial, "logit"},
  {"beta_neg_binomial_lpmf", "real(ints, reals, reals, reals)", tm_dens_elem_kernel, &beta_neg_binomial_def},
  {"yule_simon_lpmf", "real(ints, reals)", tm_dens_elem_kernel, &yule_simon_def},
  {"hypergeometric_lpmf", "real(int, int, int, int)", k_hypergeometric, NULL},
  {"dirichlet_multinomial_lpmf", "real(array[] int, vector)", k_dirichlet_multinomial, NULL},
  {"binomial_logit_glm_lpmf", BLG("int", "int") "; " BLG("int", "array[] int") "; " BLG("array[] int", "int") "; "
   BLG("array[] int", "array[] int"), k_binomial_logit_glm, NULL},
  {NULL, NULL, NULL, NULL}
};

/* the kernel for descriptions made in other modules (tm_dens_elem.h) */

/* Stan's check_simplex, for other modules (tm_dens_elem.h) */
int tm_dens_check_simplex(const char *fn, const char *arg, const tm_v *v) {
  return check_simplex(fn, arg, v);
}
