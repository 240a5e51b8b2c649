# Run by tests/testthat/test-mpi.R under mpirun (every rank runs it):
#   mpirun -np 3 Rscript check.R <out-dir>
# Rank r saves what it saw to <out-dir>/rank<r>.rds; the test compares rank
# 0's values with a one-process run of the same calls.
suppressMessages(library(tapestry))
out <- commandArgs(TRUE)[1]
rank <- tapestry_mpi_rank()
ext <- system.file("extdata", package = "tapestry")
m <- tapestry_model(file.path(ext, "map_rect_hier.stan"))
sim <- function(J, n_per) {
  set.seed(3)
  list(J = J, n_per = n_per, y = matrix(rnorm(J * n_per, rep(rnorm(J), n_per), 1.5), J, n_per))
}
res <- list(rank = rank, size = tapestry_mpi_size())
evals <- function(d) {
  ctx <- m$bind(d)
  set.seed(1)
  u <- rnorm(ctx$num_upars(), sd = 0.3)
  b <- tapestry:::mpi_bytes()
  g1 <- ctx$grad_log_prob(u)
  b1 <- tapestry:::mpi_bytes()
  g2 <- ctx$grad_log_prob(u + 0.01)
  b2 <- tapestry:::mpi_bytes()
  g3 <- ctx$grad_log_prob(u + 0.02)
  b3 <- tapestry:::mpi_bytes()
  lp <- ctx$log_prob(u)
  list(g = list(g1, g2, g3), lp = lp, bytes = c(b1 - b, b2 - b1, b3 - b2))
}
res$small <- evals(sim(40, 50))
res$large <- evals(sim(40, 100))
fit <- m$sample(data = sim(40, 50), chains = 2, parallel_chains = 2, iter_warmup = 100,
                iter_sampling = 50, seed = 11, refresh = 0, show_messages = FALSE)
res$fit_null <- is.null(fit)
if (!is.null(fit)) res$draws <- posterior::as_draws_array(fit$draws())

# a job that rejects on the last rank: rank 0 fails with its message, and
# the next evaluation works (the ranks stayed in step)
rej <- tapestry_model(code = "
  functions {
    vector f(vector phi, vector theta, array[] real x_r, array[] int x_i) {
      if (theta[1] > 5) reject(\"job \", x_i[1], \" got theta \", theta[1]);
      return [normal_lpdf(x_r[1] | theta[1], phi[1])]';
    }
  }
  data { int J; array[J, 1] real y; array[J, 1] int id; }
  parameters { real<lower=0> s; array[J] vector[1] th; }
  model { target += sum(map_rect(f, [s]', th, y, id)); }")
ctx <- rej$bind(list(J = 6, y = matrix(rnorm(6)), id = matrix(1:6)))
u <- c(0, rep(0.5, 6))
u_bad <- u
u_bad[7] <- 9
res$reject <- tryCatch(ctx$log_prob(u_bad), error = function(e) conditionMessage(e))
res$after_reject <- ctx$log_prob(u)
# the same with gradients: the workers' job plans, recorded at u, meet a
# branch that goes the other way (their guard), and the tree rejects
g_ok <- ctx$grad_log_prob(u)
res$reject_grad <- tryCatch(ctx$grad_log_prob(u_bad), error = function(e) conditionMessage(e))
res$after_reject_grad <- list(g_ok, ctx$grad_log_prob(u))

# phi as data that changes from call to call at one site (loop_phi.R)
source(system.file("mpi", "loop_phi.R", package = "tapestry"))
res$loop_phi <- loop_phi_grads()

# a call site whose data change size from one call to the next
chg <- tapestry_model(code = "
  functions {
    vector f(vector phi, vector theta, array[] real x_r, array[] int x_i) {
      return [normal_lpdf(x_r | theta[1], phi[1])]';
    }
  }
  data { array[2, 3] real a; array[2, 4] real b; }
  transformed data { array[2, 0] int none; }
  parameters { real<lower=0> s; array[2] vector[1] th; }
  model {
    for (k in 1:2) target += sum(map_rect(f, [s]', th, k == 1 ? a : b, none));
  }")
ctx2 <- chg$bind(list(a = matrix(rnorm(6), 2), b = matrix(rnorm(8), 2)))
res$change <- tryCatch(ctx2$log_prob(c(0, 0.1, 0.2)), error = function(e) conditionMessage(e))
res$after_change <- ctx$log_prob(u)
# ... and one whose data keep their size but not their values, by value
# and by gradient (rank 0 compares a hash of what it sent)
chv <- tapestry_model(code = gsub("array[2, 4] real b", "array[2, 3] real b", paste(chg$code(), collapse = "\n"), fixed = TRUE))
ctx3 <- chv$bind(list(a = matrix(rnorm(6), 2), b = matrix(rnorm(6), 2)))
res$change_values <- c(tryCatch(ctx3$log_prob(c(0, 0.1, 0.2)), error = function(e) conditionMessage(e)),
                       tryCatch(ctx3$grad_log_prob(c(0, 0.1, 0.2)), error = function(e) conditionMessage(e)))
saveRDS(res, file.path(out, sprintf("rank%d.rds", rank)))
