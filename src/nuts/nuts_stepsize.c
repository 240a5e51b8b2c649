/*
** nuts_stepsize.c -- the step size: Stan's initial heuristic and its dual
** averaging (Nesterov's scheme as in Hoffman and Gelman 2014).
*/
#include <math.h>
#include <stdio.h>
#include "nuts_int.h"

/* One leapfrog step from s->z_init with fresh momenta; returns H0 - h. */
static double trial(nuts_sampler *s) {
  nuts_point_copy(s->n, &s->z, &s->z_init);
  nuts_sample_p(&s->m, s->rng, s->z.p);
  double H0 = nuts_hamiltonian(s, &s->z);
  nuts_leapfrog(s, &s->z, s->nom_eps);
  double h = nuts_hamiltonian(s, &s->z);
  if (isnan(h)) h = INFINITY;
  return H0 - h;
}

/* Stan's base_hmc::init_stepsize: double or halve the step size until the
** acceptance of one leapfrog step crosses 0.8, from the current draw
** (s->z_sample, left unchanged). */
int nuts_init_stepsize(nuts_sampler *s) {
  if (s->nom_eps == 0 || s->nom_eps > 1e7 || isnan(s->nom_eps)) return AD_OK;
  nuts_point_copy(s->n, &s->z_init, &s->z_sample);
  double delta_h = trial(s);
  if (s->status != AD_OK) return s->status;
  int direction = delta_h > log(0.8) ? 1 : -1;
  for (;;) {
    delta_h = trial(s);
    if (s->status != AD_OK) return s->status;
    if (direction == 1 && !(delta_h > log(0.8))) break;
    if (direction == -1 && !(delta_h < log(0.8))) break;
    s->nom_eps = direction == 1 ? 2 * s->nom_eps : 0.5 * s->nom_eps;
    if (s->nom_eps > 1e7) {
      s->status = AD_EFATAL;
      snprintf(s->msg, sizeof s->msg, "Posterior is improper. Please check your model.");
      return s->status;
    }
    if (s->nom_eps == 0) {
      s->status = AD_EFATAL;
      snprintf(s->msg, sizeof s->msg, "No acceptably small step size could be found. "
               "Perhaps the posterior is not continuous?");
      return s->status;
    }
  }
  return AD_OK;
}

void nuts_da_restart(nuts_dual_avg *da) {
  da->counter = 0;
  da->s_bar = 0;
  da->x_bar = 0;
}

/* Stan's stepsize_adaptation::learn_stepsize. */
void nuts_da_learn(nuts_dual_avg *da, double *eps, double adapt_stat) {
  da->counter += 1;
  if (adapt_stat > 1) adapt_stat = 1;
  double eta = 1.0 / (da->counter + da->t0);
  da->s_bar = (1.0 - eta) * da->s_bar + eta * (da->delta - adapt_stat);
  double x = da->mu - da->s_bar * sqrt(da->counter) / da->gamma;
  double x_eta = pow(da->counter, -da->kappa);
  da->x_bar = (1.0 - x_eta) * da->x_bar + x_eta * x;
  *eps = exp(x);
}

void nuts_da_complete(const nuts_dual_avg *da, double *eps) {
  *eps = exp(da->x_bar);
}
