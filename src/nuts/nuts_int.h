/*
** nuts_int.h -- the sampler's state, shared by the files of src/nuts only.
*/
#ifndef NUTS_INT_H
#define NUTS_INT_H

#include "nuts.h"

/* A phase-space point: Stan's ps_point.  g is the gradient of lp (= -dV/dq). */
typedef struct nuts_point { double *q, *p, *g; double V; } nuts_point;

/* The metric: minv is the inverse metric (n for unit/diag, n*n column-major
** for dense); chol its lower Cholesky factor (dense only). */
typedef struct nuts_metric {
  nuts_metric_kind kind;
  int n;
  double *minv, *chol, *u;        /* u: scratch for sampling momenta */
} nuts_metric;

/* Per-level buffers of the recursion of build_tree, so nothing allocates. */
typedef struct nuts_level {
  double *p_init_end, *ps_init_end, *rho_init;
  double *p_final_beg, *ps_final_beg, *rho_final;
  nuts_point z_propose_final;
} nuts_level;

typedef struct nuts_sampler {
  int n;
  nuts_logp_fn f;
  void *model;
  tm_rng *rng;
  nuts_metric m;
  double nom_eps, eps, jitter;
  int max_depth;
  double max_delta_h;
  nuts_point z, z_fwd, z_bck, z_sample, z_propose, z_init;
  double *p_fwd_fwd, *ps_fwd_fwd, *p_fwd_bck, *ps_fwd_bck;
  double *p_bck_fwd, *ps_bck_fwd, *p_bck_bck, *ps_bck_bck;
  double *rho, *rho_fwd, *rho_bck, *tmp1, *tmp2, *dq;
  nuts_level *lvl;
  /* results of the last transition */
  int depth, n_leapfrog, divergent;
  double accept_stat, energy;
  /* errors: status != AD_OK stops everything; rejections are counted */
  int status;
  char msg[512];
  int n_reject;
  char reject_msg[512];
  char scratch_msg[512];
  long total_leapfrog;
} nuts_sampler;

/* nuts_metric.c */
double nuts_kinetic(const nuts_metric *m, const double *p);
void nuts_dtau_dp(const nuts_metric *m, const double *p, double *out);
void nuts_sample_p(nuts_metric *m, tm_rng *rng, double *p);
int nuts_metric_update(nuts_metric *m);      /* recompute chol after minv changed */

/* nuts_tree.c */
void nuts_point_copy(int n, nuts_point *dst, const nuts_point *src);
int nuts_eval(nuts_sampler *s, nuts_point *z);   /* V and g at z->q */
void nuts_leapfrog(nuts_sampler *s, nuts_point *z, double eps);
double nuts_hamiltonian(const nuts_sampler *s, const nuts_point *z);
int nuts_transition(nuts_sampler *s);

/* nuts_stepsize.c */
int nuts_init_stepsize(nuts_sampler *s);
typedef struct nuts_dual_avg {
  double counter, s_bar, x_bar, mu, delta, gamma, kappa, t0;
} nuts_dual_avg;
void nuts_da_restart(nuts_dual_avg *da);
void nuts_da_learn(nuts_dual_avg *da, double *eps, double adapt_stat);
void nuts_da_complete(const nuts_dual_avg *da, double *eps);

/* nuts_windows.c */
typedef struct nuts_windows {
  unsigned num_warmup, init_buffer, term_buffer, base_window;
  unsigned counter, window_size, next_window;
} nuts_windows;
void nuts_windows_set(nuts_windows *w, int num_warmup, int init_buffer,
                      int term_buffer, int base_window);
int nuts_windows_in(const nuts_windows *w);
int nuts_windows_end(const nuts_windows *w);
void nuts_windows_next(nuts_windows *w);

/* nuts_welford.c: running mean and (co)variance, Stan's regularised estimate */
typedef struct nuts_welford {
  int n, dense;
  long count;
  double *mean, *m2, *delta;
} nuts_welford;
void nuts_welford_restart(nuts_welford *w);
void nuts_welford_add(nuts_welford *w, const double *q);
int nuts_welford_estimate(const nuts_welford *w, double *out);

#endif
