/*
** nuts_sum_var.c -- every asked summary of one variable.
**
** One sort of the variable's draws serves the median, the quantiles, the
** ranks of the rank-normalisation and, by merging its two halves around
** the median, the folded draws |x - median| in order (mad, and the tail
** R-hat's ranks), so a variable is sorted once whatever is asked.  Each
** result is computed when the first op needs it and kept for the others.
**
** What posterior returns for draws with NA, NaN or infinite values, or for
** constant draws, follows from its code and is repeated here: the median
** and quantiles are NA with any NA; R-hat and the ESS are NA when the
** matrix they are computed on has a non-finite value or is constant (so
** ess_bulk, on ranks, is a number for draws with an infinite value, and
** ess_tail, on the draws, is NA); mean() and var() give what R's
** arithmetic gives.
*/
#include <float.h>
#include <math.h>
#include <string.h>
#include "nuts_sum_int.h"

/* R's ISNA: a NaN whose low word is R's 1954 (the caller's na). */
static int is_na(double v, double na) {
  if (!isnan(v)) return 0;
  uint64_t a, b;
  memcpy(&a, &v, sizeof a);
  memcpy(&b, &na, sizeof b);
  return (uint32_t)a == (uint32_t)b;
}

/* R's max() and min() of two doubles: NA before NaN before numbers. */
static double r_max2(double a, double b, double na, int want_max) {
  if (is_na(a, na) || is_na(b, na)) return na;
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  return want_max ? (a > b ? a : b) : (a < b ? a : b);
}

/* What the variable has computed so far. */
typedef struct vstate {
  int nan, inf;
  int same;              /* every draw the same number (no NaN): nothing to sort */
  int have_mean, have_var, have_sorted, have_fold, have_bulk, have_rhat, have_ess_bulk;
  int have_ess_mean;
  double mean, var, median, rhat, ess_bulk, ess_mean;
  int bulk_bad;          /* the bulk z matrix is constant */
  int small;             /* every |draw| below 1e300: sums of them stay finite */
} vstate;

/* vals (N draws) into the split layout of posterior's .split_chains() */
static void to_split(const nsum_work *w, const double *vals, double *sp) {
  for (size_t d = 0; d < w->N; d++)
    if (w->pos[d] >= 0) sp[w->pos[d]] = vals[d];
}

/* The normal scores of the ranks of the split draws, ties averaged:
** sorted/order list the N draws in order; the ones the split drops (the
** middle iteration of an odd chain) are skipped, as posterior ranks only
** what .split_chains() keeps. */
static size_t ranks_to_split(const nsum_work *w, const double *sorted, const uint32_t *order,
                             double *sp) {
  const double *z = w->job->znorm;
  const int32_t *pos = w->pos;
  size_t k = 0, rank = 0, groups = 0, N = w->N;   /* rank: kept draws before this group */
  if (w->S == N) {
    /* nothing dropped (chains of even length): a group keeps all its draws */
    while (k < N) {
      size_t e = k + 1;
      while (e < N && sorted[e] == sorted[k]) e++;
      double zk = z[2 * rank + (e - k) + 1];
      for (size_t q = k; q < e; q++) sp[pos[order[q]]] = zk;
      groups++;
      rank += e - k;
      k = e;
    }
    return groups;
  }
  while (k < N) {
    size_t e = k + 1;
    while (e < N && sorted[e] == sorted[k]) e++;
    size_t kept = 0;
    for (size_t q = k; q < e; q++) kept += pos[order[q]] >= 0;
    if (kept) {
      groups++;
      double zk = z[2 * rank + kept + 1];    /* (first + last + 2) with first = rank, last = rank + kept - 1 */
      for (size_t q = k; q < e; q++) {
        int32_t p = pos[order[q]];
        if (p >= 0) sp[p] = zk;
      }
    }
    rank += kept;
    k = e;
  }
  return groups;
}

static void need_sorted(nsum_work *w, vstate *st) {
  if (st->have_sorted) return;
  if (st->same) {
    /* a variable fixed by the data (common among transformed parameters) */
    for (size_t d = 0; d < w->N; d++) { w->sorted[d] = w->x[d]; w->order[d] = (uint32_t)d; }
  } else {
    nsum_argsort(w->x, w->N, w->sorted, w->order, &w->ss);
  }
  st->median = nsum_median_sorted(w->sorted, w->N);
  st->have_sorted = 1;
}

/* The folded draws |x - median| in order, by merging the draws below the
** median (read backwards) with those from it upwards: both runs are
** already in order of distance, and rounding keeps them so.
**
** The merge's order is (distance, the lower run first on ties, then the
** order within a run), and each step's pick depends on the one before: a
** chain of loads and compares whose picks are as likely one way as the
** other (mispredicted branches).  So the first half is merged from the
** median outwards and the second half from both ends inwards (taking the
** larger, the upper run on ties, which is the same order read from its
** end), two independent chains in one loop, each pick made without a
** branch.  The result is the forward merge's, value and position alike. */
static void need_fold(nsum_work *w, vstate *st) {
  if (st->have_fold) return;
  need_sorted(w, st);
  double med = st->median;
  size_t N = w->N;
  const double *v = w->sorted;
  const uint32_t *ord = w->order;
  double *fs = w->fsorted;
  uint32_t *fo = w->forder;
  /* the first draw not below the median (the values are in order) */
  size_t p = 0, hi = N;
  while (p < hi) {
    size_t mid = p + (hi - p) / 2;
    if (v[mid] < med) p = mid + 1; else hi = mid;
  }
  size_t h = N / 2;
  size_t a = p, b = p, of = 0;       /* forward: v[a - 1] below, v[b] above; writes fs[of++] */
  size_t l = 0, u = N, ob = N;       /* backward: v[l] below, v[u - 1] above; writes fs[--ob] */
  while (of < h && ob > h && a > 0 && b < N && l < p && u > p) {
    double da = fabs(v[a - 1] - med), db = fabs(v[b] - med);
    size_t left = da <= db;
    size_t at = left ? a - 1 : b;
    fs[of] = fmin(da, db);
    fo[of++] = ord[at];
    a -= left;
    b += 1 - left;
    double dl = fabs(v[l] - med), du = fabs(v[u - 1] - med);
    size_t low = dl > du;
    size_t bt = low ? l : u - 1;
    fs[--ob] = fmax(dl, du);
    fo[ob] = ord[bt];
    l += low;
    u -= 1 - low;
  }
  /* what is left of each half, a run of it possibly used up */
  while (of < h) {
    int left = a > 0 && (b >= N || fabs(v[a - 1] - med) <= fabs(v[b] - med));
    size_t at = left ? --a : b++;
    fs[of] = fabs(v[at] - med);
    fo[of++] = ord[at];
  }
  while (ob > h) {
    int low = l < p && (u <= p || fabs(v[l] - med) > fabs(v[u - 1] - med));
    size_t bt = low ? l++ : --u;
    fs[--ob] = fabs(v[bt] - med);
    fo[ob] = ord[bt];
  }
  st->have_fold = 1;
}

static double mean_of(nsum_work *w, vstate *st) {
  if (!st->have_mean) {
    st->mean = w->job->integer ? nsum_mean01(w->x, w->N) : nsum_mean(w->x, w->N);
    st->have_mean = 1;
  }
  return st->mean;
}

/* var(): R's two mean passes are mean()'s when the sum is finite, so the
** mean is shared (not for integers, whose mean() sums once but whose
** var() works on doubles, nor for draws whose sum could overflow, where
** mean() and var() take different roads). */
static double var_of(nsum_work *w, vstate *st) {
  if (st->have_var) return st->var;
  st->have_var = 1;
  double m = w->job->integer || !st->small ? NAN : mean_of(w, st);
  if (st->nan || w->N <= 1 || w->N > 10000000 || !isfinite(m)) {
    st->var = nsum_var(w->x, w->N, w->job->na);
  } else {
    long double q = 0.0L;
    for (size_t k = 0; k < w->N; k++) q += (long double)(w->x[k] - m) * (w->x[k] - m);
    st->var = (double)(q / (long double)(w->N - 1));
  }
  return st->var;
}

/* .rhat() and .ess() of a split matrix of the draws (not ranks), with R's
** own sums. */
static double rhat_split(nsum_work *w, const double *sp) {
  double na = w->job->na;
  if (w->sr <= 1 || nsum_bad(sp, w->S)) return na;
  for (int j = 0; j < w->sc; j++) w->cm[j] = nsum_colmean2(sp + (size_t)j * (size_t)w->sr, (size_t)w->sr, 1);
  nsum_colvars(sp, w->sr, w->sc, w->cm, w->cv);
  return nsum_rhat(w->sr, w->sc, na, w->cm, w->cv);
}

static double ess_split(nsum_work *w, const double *sp, int logical) {
  double na = w->job->na;
  if (w->sr < 3 || nsum_bad(sp, w->S)) return na;
  nsum_colstats(sp, w->sr, w->sc, logical, na, w->cm, w->cmean, w->cvar);
  return nsum_ess(sp, w->sr, w->sc, na, w->cm, w->cmean, w->cvar, &w->es, &w->capped);
}

/* R-hat of rank-normalised draws from their fast column statistics; when
** every column is constant the within-chain variance is R's rounding
** error, which only R's own sums repeat. */
static double rhat_bounded(nsum_work *w, const double *sp, const double *cm, const double *cv) {
  int all_const = 1;
  for (int j = 0; j < w->sc && all_const; j++) all_const = cv[j] == 0;
  if (!all_const) return nsum_rhat(w->sr, w->sc, w->job->na, cm, cv);
  double *ecm = w->cmean, *ecv = w->cvar;
  for (int j = 0; j < w->sc; j++) ecm[j] = nsum_colmean2(sp + (size_t)j * (size_t)w->sr, (size_t)w->sr, 1);
  nsum_colvars(sp, w->sr, w->sc, ecm, ecv);
  return nsum_rhat(w->sr, w->sc, w->job->na, ecm, ecv);
}

/* The bulk: the rank-normalised split draws, kept in w->sp for R-hat and
** ess_bulk, with their column statistics.  Ranks are bounded normal
** scores, so their sums need no long double (nuts_sum_ess.c). */
static void need_bulk(nsum_work *w, vstate *st) {
  if (st->have_bulk) return;
  need_sorted(w, st);
  st->bulk_bad = ranks_to_split(w, w->sorted, w->order, w->sp) <= 1;
  if (!st->bulk_bad) nsum_colstats_fast(w->sp, w->sr, w->sc, w->bcm, w->bvar);
  st->have_bulk = 1;
}

static double ess_bulk(nsum_work *w, vstate *st) {
  if (st->have_ess_bulk) return st->ess_bulk;
  double na = w->job->na;
  st->have_ess_bulk = 1;
  st->ess_bulk = na;
  if (st->nan) return na;
  need_bulk(w, st);
  if (w->sr < 3 || st->bulk_bad) return na;
  st->ess_bulk = nsum_ess(w->sp, w->sr, w->sc, na, w->bcm, w->bcm, w->bvar, &w->es, &w->capped);
  return st->ess_bulk;
}

/* rhat(): the larger of the bulk's and the folded draws' split R-hat. */
static double rhat(nsum_work *w, vstate *st) {
  if (st->have_rhat) return st->rhat;
  double na = w->job->na;
  st->have_rhat = 1;
  st->rhat = na;
  if (st->nan) return na;
  need_bulk(w, st);
  double rb = na, rt = na;
  if (!st->bulk_bad && w->sr > 1) rb = rhat_bounded(w, w->sp, w->bcm, w->bvar);
  /* an infinite median leaves NaN among the folded draws: NA */
  if (isfinite(st->median) && w->sr > 1) {
    need_fold(w, st);
    if (ranks_to_split(w, w->fsorted, w->forder, w->y) > 1) {
      nsum_colstats_fast(w->y, w->sr, w->sc, w->cm, w->cv);
      rt = rhat_bounded(w, w->y, w->cm, w->cv);
    }
  }
  st->rhat = r_max2(rb, rt, na, 1);
  return st->rhat;
}

/* posterior's .ess_quantile(x, prob) */
static double ess_quantile(nsum_work *w, vstate *st, double prob) {
  double na = w->job->na;
  if (st->nan || st->inf) return na;
  need_sorted(w, st);
  if (fabs(w->sorted[w->N - 1] - w->sorted[0]) < DBL_EPSILON) return na;   /* is_constant(x) */
  if (prob == 1) prob = ((double)w->N - 0.5) / (double)w->N;
  double q = nsum_quantile7(w->sorted, w->N, prob);
  for (size_t d = 0; d < w->N; d++) w->y[d] = w->x[d] <= q ? 1.0 : 0.0;
  double *sp = w->y + w->N;            /* the indicator's split matrix (a plain matrix's) */
  for (size_t d = 0; d < w->N; d++)
    if (w->ppos[d] >= 0) sp[w->ppos[d]] = w->y[d];
  return nsum_ess_bits(sp, w->pr, w->pc, na, &w->es, &w->capped);
}

static double ess_mean(nsum_work *w, vstate *st) {
  if (!st->have_ess_mean) {
    to_split(w, w->x, w->y);
    st->ess_mean = ess_split(w, w->y, w->job->integer);
    st->have_ess_mean = 1;
  }
  return st->ess_mean;
}

static double op_value(nsum_work *w, vstate *st, const nuts_sum_op *op, int v) {
  double na = w->job->na;
  switch (op->kind) {
  case NUTS_SUM_MEAN: return mean_of(w, st);
  case NUTS_SUM_VAR: return var_of(w, st);
  case NUTS_SUM_SD: return sqrt(var_of(w, st));
  case NUTS_SUM_MEDIAN:
    if (st->nan) return na;
    need_sorted(w, st);
    return st->median;
  case NUTS_SUM_MAD:
    if (st->nan) return na;
    need_sorted(w, st);
    if (!isfinite(st->median)) return na;
    need_fold(w, st);
    return 1.4826 * nsum_median_sorted(w->fsorted, w->N);
  case NUTS_SUM_QUANTILE:
    if (st->nan) return na;
    need_sorted(w, st);
    return nsum_quantile7(w->sorted, w->N, op->prob);
  case NUTS_SUM_RHAT: return rhat(w, st);
  case NUTS_SUM_ESS_BULK: return ess_bulk(w, st);
  case NUTS_SUM_ESS_TAIL:
    return r_max2(ess_quantile(w, st, 0.05), ess_quantile(w, st, 0.95), na, 0);
  case NUTS_SUM_ESS_QUANTILE: return ess_quantile(w, st, op->prob);
  case NUTS_SUM_RHAT_BASIC:
    to_split(w, w->x, w->y);
    return rhat_split(w, w->y);
  case NUTS_SUM_ESS_MEAN: return ess_mean(w, st);
  case NUTS_SUM_ESS_SD: {
    double m = mean_of(w, st);
    double *f = w->y + w->N;
    for (size_t d = 0; d < w->N; d++) f[d] = fabs(w->x[d] - m);
    to_split(w, f, w->y);
    return ess_split(w, w->y, 0);
  }
  case NUTS_SUM_MCSE_MEAN: return sqrt(var_of(w, st)) / sqrt(ess_mean(w, st));
  case NUTS_SUM_MCSE_SD: {
    double m = mean_of(w, st);
    double *sq = w->y + w->N, *p4 = w->fsorted;    /* fsorted is free unless folded */
    st->have_fold = 0;
    for (size_t d = 0; d < w->N; d++) {
      double c = w->x[d] - m;
      sq[d] = c * c;
      p4[d] = nsum_pow4(c);
    }
    to_split(w, sq, w->y);
    double ess = ess_split(w, w->y, 0);
    double evar = nsum_mean(sq, w->N);
    double varvar = (nsum_mean(p4, w->N) - evar * evar) / ess;
    double varsd = varvar / evar / 4;
    return sqrt(varsd);
  }
  case NUTS_SUM_ORDER_HALFDIFF: {
    double lo = op->lo[v], hi = op->hi[v];
    if (st->nan || isnan(lo) || isnan(hi) || lo < 1 || hi > (double)w->N) return na;
    need_sorted(w, st);
    return (w->sorted[(size_t)hi - 1] - w->sorted[(size_t)lo - 1]) / 2;
  }
  default: return na;
  }
}

void nsum_variable(nsum_work *w, int v) {
  const nuts_sum_job *job = w->job;
  for (int j = 0; j < w->m; j++)
    memcpy(w->x + (size_t)j * (size_t)w->n, job->seg[(size_t)v * (size_t)w->m + (size_t)j],
           (size_t)w->n * sizeof(double));
  vstate st;
  memset(&st, 0, sizeof st);
  w->capped = 0;
  double lo = w->x[0], hi = w->x[0];
  for (size_t d = 0; d < w->N; d++) {
    double v = w->x[d];
    if (isnan(v)) st.nan = 1;
    else if (isinf(v)) st.inf = 1;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  st.same = !st.nan && lo == hi;
  st.small = fabs(lo) < 1e300 && fabs(hi) < 1e300;
  for (int o = 0; o < job->nops; o++) {
    const nuts_sum_op *op = &job->ops[o];
    job->out[(size_t)v + (size_t)o * (size_t)job->nvars] = op_value(w, &st, op, v);
  }
  if (job->capped) job->capped[v] = (int)w->capped;
}
