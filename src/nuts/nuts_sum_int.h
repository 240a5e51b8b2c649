/*
** nuts_sum_int.h -- what the files of the summaries (nuts_sum_*.c) share.
*/
#ifndef NUTS_SUM_INT_H
#define NUTS_SUM_INT_H

#include <stddef.h>
#include <stdint.h>
#include "nuts_sum.h"

/* ---- R's arithmetic (nuts_sum_stats.c) ----
** Each function gives the bits R gives: sums in long double (R's
** LDOUBLE, the x87 extended type on the platforms R builds on), in R's
** order, with R's second pass where R makes one. */
double nsum_mean(const double *x, size_t n);          /* mean() of doubles */
double nsum_mean01(const double *x, size_t n);        /* mean() of a logical (0/1) vector */
double nsum_var(const double *x, size_t n, double na);/* var(): NA for n < 2 or any NaN */
double nsum_colmean2(const double *x, size_t n, size_t stride); /* matrixStats's col/rowMeans2 */
double nsum_sum(const double *x, size_t n);           /* sum() */
/* quantile(type = 7) at p from the n sorted values (no NaN) */
double nsum_quantile7(const double *sorted, size_t n, double p);
/* median() from the n >= 1 sorted values (no NaN) */
double nsum_median_sorted(const double *sorted, size_t n);
int    nsum_any_nan(const double *x, size_t n);
/* R's x^4 (R_pow for a double power that is not 2) */
double nsum_pow4(double x);

/* ---- sorting (nuts_sum_sort.c) ----
** Sorts the n values of x (no NaN) ascending into val, with idx[i] the
** position in x of val[i]; ties in any order.  -0 sorts as 0.  The
** scratch holds 2n keys. */
typedef struct nsum_sort_scratch {
  uint64_t *key, *key2;
} nsum_sort_scratch;
void nsum_argsort(const double *x, size_t n, double *val, uint32_t *idx, nsum_sort_scratch *s);

/* ---- R-hat and ESS of split chains (nuts_sum_ess.c) ----
** x: an r x c matrix, column-major: posterior's .split_chains() of the
** draws (the c columns are what posterior treats as chains). */
typedef struct nsum_ess_scratch {
  double *yc;        /* r * c centred columns (indicators: prefix counts) */
  double *ac;        /* r * c autocovariances, lag-major per column */
  double *means;     /* r: their means over the columns */
  double *rho;       /* r: Geyer's sequence */
  double *colv;      /* c: lag-0 sums (indicators: counts) */
  double *cm;        /* 2c: indicators' column means and variances */
  uint64_t *bits;    /* (r / 64 + 1) c: indicators' bits */
  double *fft;       /* 2P doubles: P complex values (P the FFT length) */
  double *tw;        /* P doubles: cos, sin pairs of half the circle */
  size_t fft_n;      /* the P of tw, 0 for none yet */
} nsum_ess_scratch;
/* posterior's should_return_NA(): any NaN or infinite value, or constant */
int    nsum_bad(const double *x, size_t n);
/* per column: colMeans2 (cm), mean() (mean01 when logical) and var(), as R sums */
void   nsum_colstats(const double *x, int r, int c, int logical, double na,
                     double *cm, double *mean, double *var);
/* per column of bounded values: mean and variance around it, in double */
void   nsum_colstats_fast(const double *x, int r, int c, double *cm, double *var);
/* matrixStats::colVars(x, center = cm) */
void   nsum_colvars(const double *x, int r, int c, const double *cm, double *cv);
/* .rhat() from column means and variances (r > 1) */
double nsum_rhat(int r, int c, double na, const double *cm, const double *cv);
/* .ess() of a matrix that passed nsum_bad, with its column statistics */
double nsum_ess(const double *x, int r, int c, double na, const double *cm,
                const double *mean, const double *varx, nsum_ess_scratch *s, long *capped);
/* .ess() of a 0/1 matrix (NA when constant) */
double nsum_ess_bits(const double *x, int r, int c, double na, nsum_ess_scratch *s, long *capped);

/* Radix-2 complex FFT in place (nuts_sum_fft.c): z holds n = 2^k complex
** values as (re, im) pairs; tw the table nsum_fft_twiddles made for n;
** inverse = 1 for the unscaled inverse transform. */
void nsum_fft_twiddles(double *tw, size_t n);
void nsum_fft(double *z, size_t n, const double *tw, int inverse);

/* ---- one thread's work (nuts_sum_var.c, nuts_sum_run.c) ---- */
typedef struct nsum_work {
  const nuts_sum_job *job;
  int n, m;              /* iterations, chains */
  size_t N, S;           /* draws, ranked (split) draws */
  int sr, sc;            /* the split matrix: rows, columns */
  const int32_t *pos;    /* N: where draw j * n + i goes in the split matrix, -1 nowhere */
  int pr, pc;            /* the split of a plain matrix (see nuts_sum_run.c) */
  const int32_t *ppos;
  double *x;             /* N: the variable's draws, chain after chain */
  double *y;             /* 2N: transformed copies of them, split matrices */
  double *sorted;        /* N */
  uint32_t *order;       /* N */
  double *fsorted;       /* N: the folded draws |x - median|, sorted */
  uint32_t *forder;      /* N */
  double *sp;            /* S: a split matrix */
  double *cm, *cmean, *cvar, *cv;  /* sc each: column statistics */
  double *bcm, *bmean, *bvar;      /* sc each: those of the bulk (w->sp) */
  nsum_sort_scratch ss;
  nsum_ess_scratch es;
  long capped;
} nsum_work;

int  nsum_work_init(nsum_work *w, const nuts_sum_job *job, const int32_t *pos,
                    const int32_t *ppos);
void nsum_work_free(nsum_work *w);
void nsum_variable(nsum_work *w, int v);

#endif
