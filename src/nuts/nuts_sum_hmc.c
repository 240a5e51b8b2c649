/*
** nuts_sum_hmc.c -- the sampler's own checks, per chain: divergences,
** transitions at the maximum tree depth, and the E-BFMI.
**
** The counts cmdstanr reports after a run, and the E-BFMI as Stan and
** cmdstanr compute it, sum(diff(energy)^2) / n over sum((energy -
** mean(energy))^2) / (n - 1), with R's sums (long double) and mean.
*/
#include <math.h>
#include "nuts_sum_int.h"

void nuts_sum_hmc(const double *divergent, const double *treedepth, const double *energy,
                  size_t n, int max_depth, double na, int *ndiv, int *ndepth, double *ebfmi) {
  int d = 0, t = 0;
  for (size_t i = 0; i < n; i++) {
    d += divergent[i] != 0;
    t += treedepth[i] >= max_depth;
  }
  *ndiv = d;
  *ndepth = t;
  if (n < 3) { *ebfmi = na; return; }
  long double num = 0.0L, den = 0.0L;
  for (size_t i = 1; i < n; i++) { double e = energy[i] - energy[i - 1]; num += e * e; }
  double m = nsum_mean(energy, n);
  for (size_t i = 0; i < n; i++) { double e = energy[i] - m; den += e * e; }
  *ebfmi = ((double)num / (double)n) / ((double)den / (double)(n - 1));
}
