# A map_rect whose phi is data that changes from call to call at one call
# site (a loop over data): the workers' job plans, recorded with the first
# phi, must not run with another.  Sourced by check.R (every rank, under
# mpirun) and by tests/testthat/test-mpi.R (one process), which compares
# the two.
loop_phi_grads <- function() {
  m <- tapestry::tapestry_model(code = "
    functions {
      vector f(vector phi, vector theta, array[] real x_r, array[] int x_i) {
        return [normal_lpdf(x_r | theta[1] * phi[1], 1)]';
      }
    }
    data { array[2] vector[1] ph; array[6, 3] real y; }
    transformed data { array[6, 0] int none; }
    parameters { array[6] vector[1] th; }
    model { for (k in 1:2) target += sum(map_rect(f, ph[k], th, y, none)); }")
  set.seed(5)
  ctx <- m$bind(list(ph = matrix(c(1, 2), 2), y = matrix(rnorm(18), 6)))
  lapply(1:3, function(k) ctx$grad_log_prob(seq(0.1, 0.6, by = 0.1) * k))
}
