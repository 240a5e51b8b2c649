/*
** nuts_tree.c -- one NUTS transition, following Stan's base_nuts.
**
** Multinomial sampling along the trajectory: within a subtree the proposal is
** drawn in proportion to exp(-H); between the old tree and a new subtree the
** draw is biased toward the new one (progressive sampling), which moves
** farther per transition.  The generalized no-U-turn criterion is checked on
** the whole tree and on the two subtrees extended by one point across their
** boundary, which stops the trajectory on the oscillations that the plain
** check misses.  An energy error above 1000 (or a rejected point: energy
** +inf) is a divergence and ends the tree.
*/
#include <math.h>
#include <string.h>
#include "nuts_int.h"

/* Stan's log_sum_exp(a, b): m + log(exp(a - m) + exp(b - m)).  One of the
** two exps is exp(0), exactly 1, so with finite operands only the other is
** taken (the sum is the same either way round: a third of the sampler's
** exps); infinities and NaN go the long way, which gives their results. */
static double log_sum_exp(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  double m = a > b ? a : b;
  if (isfinite(a) && isfinite(b)) {
    double lo = a > b ? b : a;
    return m + log(1.0 + exp(lo - m));
  }
  return m + log(exp(a - m) + exp(b - m));
}

void nuts_point_copy(int n, nuts_point *dst, const nuts_point *src) {
  size_t b = (size_t)n * sizeof(double);
  memcpy(dst->q, src->q, b);
  memcpy(dst->p, src->p, b);
  memcpy(dst->g, src->g, b);
  dst->V = src->V;
}

static void copyv(int n, double *dst, const double *src) {
  memcpy(dst, src, (size_t)n * sizeof(double));
}

static double dot(int n, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

static int criterion(int n, const double *ps_minus, const double *ps_plus, const double *rho) {
  return dot(n, ps_minus, rho) > 0 && dot(n, ps_plus, rho) > 0;
}

int nuts_eval(nuts_sampler *s, nuts_point *z) {
  double lp = 0;
  s->scratch_msg[0] = '\0';
  int rc = s->f(s->model, z->q, &lp, z->g, s->scratch_msg, sizeof s->scratch_msg);
  if (rc == AD_OK) {
    z->V = isnan(lp) ? INFINITY : -lp;
    return AD_OK;
  }
  z->V = INFINITY;
  if (rc == AD_EDOMAIN) {
    s->n_reject++;
    memcpy(s->reject_msg, s->scratch_msg, sizeof s->reject_msg);
    s->reject_msg[sizeof s->reject_msg - 1] = '\0';
    return AD_EDOMAIN;
  }
  if (s->status == AD_OK) {
    s->status = rc;
    memcpy(s->msg, s->scratch_msg, sizeof s->msg);
    s->msg[sizeof s->msg - 1] = '\0';
  }
  return rc;
}

double nuts_hamiltonian(const nuts_sampler *s, const nuts_point *z) {
  return z->V + nuts_kinetic(&s->m, z->p);
}

/* Stan's expl_leapfrog: half step in p, full step in q, half step in p.  The
** gradient of V is -g. */
void nuts_leapfrog(nuts_sampler *s, nuts_point *z, double eps) {
  int n = s->n;
  double h = 0.5 * eps;
  for (int i = 0; i < n; i++) z->p[i] += h * z->g[i];
  nuts_dtau_dp(&s->m, z->p, s->dq);
  for (int i = 0; i < n; i++) z->q[i] += eps * s->dq[i];
  nuts_eval(s, z);
  s->total_leapfrog++;
  for (int i = 0; i < n; i++) z->p[i] += h * z->g[i];
}

/* Stan's build_tree.  Returns 1 when the subtree is valid (no divergence, no
** U-turn); 0 otherwise, and 0 on a fatal error (s->status set). */
static int build_tree(nuts_sampler *s, int depth, nuts_point *z_propose,
                      double *ps_beg, double *ps_end, double *rho,
                      double *p_beg, double *p_end, double H0, double sign,
                      double *log_sum_weight, double *sum_metro_prob) {
  int n = s->n;
  nuts_point *z = &s->z;
  if (s->status != AD_OK) return 0;
  if (depth == 0) {
    nuts_leapfrog(s, z, sign * s->eps);
    s->n_leapfrog++;
    if (s->status != AD_OK) return 0;
    double h = nuts_hamiltonian(s, z);
    if (isnan(h)) h = INFINITY;
    if (h - H0 > s->max_delta_h) s->divergent = 1;
    *log_sum_weight = log_sum_exp(*log_sum_weight, H0 - h);
    if (H0 - h > 0) *sum_metro_prob += 1;
    else *sum_metro_prob += exp(H0 - h);
    nuts_point_copy(n, z_propose, z);
    nuts_dtau_dp(&s->m, z->p, ps_beg);
    copyv(n, ps_end, ps_beg);
    for (int i = 0; i < n; i++) rho[i] += z->p[i];
    copyv(n, p_beg, z->p);
    copyv(n, p_end, p_beg);
    return !s->divergent;
  }
  nuts_level *L = &s->lvl[depth];

  /* the initial subtree */
  double lsw_init = -INFINITY;
  memset(L->rho_init, 0, (size_t)n * sizeof(double));
  if (!build_tree(s, depth - 1, z_propose, ps_beg, L->ps_init_end, L->rho_init,
                  p_beg, L->p_init_end, H0, sign, &lsw_init, sum_metro_prob))
    return 0;

  /* the final subtree */
  double lsw_final = -INFINITY;
  memset(L->rho_final, 0, (size_t)n * sizeof(double));
  if (!build_tree(s, depth - 1, &L->z_propose_final, L->ps_final_beg, ps_end,
                  L->rho_final, L->p_final_beg, p_end, H0, sign, &lsw_final,
                  sum_metro_prob))
    return 0;

  /* multinomial sample between the two halves */
  double lsw_subtree = log_sum_exp(lsw_init, lsw_final);
  *log_sum_weight = log_sum_exp(*log_sum_weight, lsw_subtree);
  if (lsw_final > lsw_subtree) {
    nuts_point_copy(n, z_propose, &L->z_propose_final);
  } else {
    double accept = exp(lsw_final - lsw_subtree);
    if (tm_rng_uniform(s->rng) < accept) nuts_point_copy(n, z_propose, &L->z_propose_final);
  }

  double *rho_sub = s->tmp1, *rho_ext = s->tmp2;
  for (int i = 0; i < n; i++) {
    rho_sub[i] = L->rho_init[i] + L->rho_final[i];
    rho[i] += rho_sub[i];
  }
  int persist = criterion(n, ps_beg, ps_end, rho_sub);
  for (int i = 0; i < n; i++) rho_ext[i] = L->rho_init[i] + L->p_final_beg[i];
  persist = persist && criterion(n, ps_beg, L->ps_final_beg, rho_ext);
  for (int i = 0; i < n; i++) rho_ext[i] = L->rho_final[i] + L->p_init_end[i];
  persist = persist && criterion(n, L->ps_init_end, ps_end, rho_ext);
  return persist;
}

/* One transition from s->z_sample (whose V and g are current).  On return
** s->z_sample holds the new draw and the diagnostics fields are set. */
int nuts_transition(nuts_sampler *s) {
  int n = s->n;
  s->eps = s->nom_eps;
  if (s->jitter > 0)
    s->eps *= 1.0 + s->jitter * (2.0 * tm_rng_uniform(s->rng) - 1.0);

  nuts_point_copy(n, &s->z, &s->z_sample);
  nuts_sample_p(&s->m, s->rng, s->z.p);
  nuts_point_copy(n, &s->z_fwd, &s->z);
  nuts_point_copy(n, &s->z_bck, &s->z);
  nuts_point_copy(n, &s->z_sample, &s->z);
  nuts_point_copy(n, &s->z_propose, &s->z);

  copyv(n, s->p_fwd_fwd, s->z.p);
  nuts_dtau_dp(&s->m, s->z.p, s->ps_fwd_fwd);
  copyv(n, s->p_fwd_bck, s->z.p);
  copyv(n, s->ps_fwd_bck, s->ps_fwd_fwd);
  copyv(n, s->p_bck_fwd, s->z.p);
  copyv(n, s->ps_bck_fwd, s->ps_fwd_fwd);
  copyv(n, s->p_bck_bck, s->z.p);
  copyv(n, s->ps_bck_bck, s->ps_fwd_fwd);
  copyv(n, s->rho, s->z.p);

  double log_sum_weight = 0;
  double H0 = nuts_hamiltonian(s, &s->z);
  double sum_metro_prob = 0;
  s->n_leapfrog = 0;
  s->depth = 0;
  s->divergent = 0;

  while (s->depth < s->max_depth) {
    double lsw_subtree = -INFINITY;
    int valid;
    memset(s->rho_fwd, 0, (size_t)n * sizeof(double));
    memset(s->rho_bck, 0, (size_t)n * sizeof(double));
    if (tm_rng_uniform(s->rng) > 0.5) {
      /* the old trajectory becomes the backward subtree: its forward end
         is the old forward end */
      copyv(n, s->rho_bck, s->rho);
      copyv(n, s->p_bck_fwd, s->p_fwd_fwd);
      copyv(n, s->ps_bck_fwd, s->ps_fwd_fwd);
      nuts_point_copy(n, &s->z, &s->z_fwd);
      valid = build_tree(s, s->depth, &s->z_propose, s->ps_fwd_bck, s->ps_fwd_fwd,
                         s->rho_fwd, s->p_fwd_bck, s->p_fwd_fwd, H0, 1.0,
                         &lsw_subtree, &sum_metro_prob);
      nuts_point_copy(n, &s->z_fwd, &s->z);
    } else {
      copyv(n, s->rho_fwd, s->rho);
      copyv(n, s->p_fwd_bck, s->p_bck_bck);
      copyv(n, s->ps_fwd_bck, s->ps_bck_bck);
      nuts_point_copy(n, &s->z, &s->z_bck);
      valid = build_tree(s, s->depth, &s->z_propose, s->ps_bck_fwd, s->ps_bck_bck,
                         s->rho_bck, s->p_bck_fwd, s->p_bck_bck, H0, -1.0,
                         &lsw_subtree, &sum_metro_prob);
      nuts_point_copy(n, &s->z_bck, &s->z);
    }
    if (s->status != AD_OK) return s->status;
    if (!valid) break;
    s->depth++;

    if (lsw_subtree > log_sum_weight) {
      nuts_point_copy(n, &s->z_sample, &s->z_propose);
    } else {
      double accept = exp(lsw_subtree - log_sum_weight);
      if (tm_rng_uniform(s->rng) < accept) nuts_point_copy(n, &s->z_sample, &s->z_propose);
    }
    log_sum_weight = log_sum_exp(log_sum_weight, lsw_subtree);

    for (int i = 0; i < n; i++) s->rho[i] = s->rho_bck[i] + s->rho_fwd[i];
    int persist = criterion(n, s->ps_bck_bck, s->ps_fwd_fwd, s->rho);
    double *rho_ext = s->tmp2;
    for (int i = 0; i < n; i++) rho_ext[i] = s->rho_bck[i] + s->p_fwd_bck[i];
    persist = persist && criterion(n, s->ps_bck_bck, s->ps_fwd_bck, rho_ext);
    for (int i = 0; i < n; i++) rho_ext[i] = s->rho_fwd[i] + s->p_bck_fwd[i];
    persist = persist && criterion(n, s->ps_bck_fwd, s->ps_fwd_fwd, rho_ext);
    if (!persist) break;
  }

  s->accept_stat = s->n_leapfrog > 0 ? sum_metro_prob / (double)s->n_leapfrog : 0;
  s->energy = nuts_hamiltonian(s, &s->z_sample);
  return AD_OK;
}
