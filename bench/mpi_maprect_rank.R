# One rank of bench/mpi_maprect.R (every rank runs this under mpirun):
# map_rect over 400 jobs of a heavier likelihood, gradient time on rank 0.
#   mpirun -np K Rscript bench/mpi_maprect_rank.R <reps> <out.rds>
suppressMessages(library(tapestry))
args <- commandArgs(TRUE)
reps <- as.integer(args[1])
code <- "
functions {
  vector job(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    int n = x_i[1];
    vector[n] y = to_vector(x_r[1:n]);
    vector[n] x = to_vector(x_r[(n + 1):(2 * n)]);
    return [student_t_lpdf(y | phi[3], theta[1] + phi[1] * x, phi[2])
            + normal_lpdf(theta[1] | 0, 1)]';
  }
}
data { int J; int n; array[J, 2 * n] real xr; }
transformed data { array[J, 1] int xi; for (j in 1:J) xi[j, 1] = n; }
parameters { real b; real<lower=0> s; real<lower=1> nu; array[J] vector[1] th; }
model {
  b ~ normal(0, 1);
  s ~ normal(0, 2);
  nu ~ gamma(2, 0.1);
  target += sum(map_rect(job, [b, s, nu]', th, xr, xi));
}"
J <- 400L; n <- 200L
set.seed(1)
th <- rnorm(J)
xr <- t(vapply(seq_len(J), function(j) {
  x <- rnorm(n)
  c(th[j] + 0.5 * x + rt(n, 5), x)
}, numeric(2 * n)))
tapestry_set_num_threads(1)
ctx <- tapestry_model(code = code)$bind(list(J = J, n = n, xr = xr))
u <- c(0.5, 0, log(4), th)
for (i in 1:5) g <- ctx$grad_log_prob(u)
t0 <- proc.time()[["elapsed"]]
for (i in seq_len(reps)) g <- ctx$grad_log_prob(u)
t <- (proc.time()[["elapsed"]] - t0) / reps
if (tapestry_mpi_rank() == 0) saveRDS(list(t = t, g = g, size = tapestry_mpi_size()), args[2])
