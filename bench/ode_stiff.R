# A stiff ODE (Robertson's chemical kinetics, 3 states, rates spanning 10^-2
# to 10^7) fitted by ode_bdf_tol against rstan 2.21's integrate_ode_bdf: the
# log density and gradient at one point, and their times side by side in one
# R process.  Run by hand from the repository root:
#   Rscript bench/ode_stiff.R
suppressMessages({library(rstan); library(tapestry)})
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"))
old <- "
functions {
  real[] rob(real t, real[] y, real[] k, real[] x_r, int[] x_i) {
    real d[3];
    d[1] = -k[1] * y[1] + k[3] * y[2] * y[3];
    d[2] = k[1] * y[1] - k[3] * y[2] * y[3] - k[2] * square(y[2]);
    d[3] = k[2] * square(y[2]);
    return d;
  }
}
data { int T; real ts[T]; real y[T, 3]; }
transformed data { real x_r[0]; int x_i[0]; }
parameters { real<lower=0> k[3]; real<lower=0> sigma; }
model {
  real z[T, 3] = integrate_ode_bdf(rob, {1.0, 0.0, 0.0}, 0, ts, k, x_r, x_i, 1e-8, 1e-10, 100000);
  for (t in 1:T) y[t] ~ normal(z[t], sigma);
}"
new <- "
functions {
  vector rob(real t, vector y, array[] real k) {
    vector[3] d;
    d[1] = -k[1] * y[1] + k[3] * y[2] * y[3];
    d[2] = k[1] * y[1] - k[3] * y[2] * y[3] - k[2] * square(y[2]);
    d[3] = k[2] * square(y[2]);
    return d;
  }
}
data { int T; array[T] real ts; array[T, 3] real y; }
parameters { array[3] real<lower=0> k; real<lower=0> sigma; }
model {
  array[T] vector[3] z = ode_bdf_tol(rob, [1.0, 0.0, 0.0]', 0, ts, 1e-8, 1e-10, 100000, k);
  for (t in 1:T) y[t] ~ normal(z[t], sigma);
}"
ts <- c(0.4, 4, 40, 400, 4000)
set.seed(1)
d <- list(T = 5, ts = ts, y = matrix(abs(rnorm(15, 0.3, 0.1)), 5, 3))
sm <- stan_model(model_code = old)
fit <- sampling(sm, data = d, chains = 0)
ctx <- tapestry_model(code = new)$bind(d)
u <- c(log(c(0.04, 3e7, 1e4)), log(0.1))
g1 <- grad_log_prob(fit, u)  # rstan 2.21 reads only the old syntax: its program is integrate_ode_bdf
g2 <- ctx$grad_log_prob(u)
cat("lp", attr(g1, "log_prob"), attr(g2, "log_prob"), "\n")
cat("max rel grad diff", max(abs(g1 - g2) / pmax(abs(g1), 1e-8)), "\n")
tm <- function(f, n = 20) { f(); t0 <- proc.time()[[3]]; for (i in 1:n) f(); (proc.time()[[3]] - t0) / n }
r <- replicate(7, c(tm(function() grad_log_prob(fit, u)), tm(function() ctx$grad_log_prob(u))))
cat(sprintf("rstan %.2f ms, tapestry %.2f ms: ratio %.2f\n", 1e3 * median(r[1, ]), 1e3 * median(r[2, ]), median(r[2, ] / r[1, ])))
