# The stress run of tools/tsan.sh: hier_poisson_reduce, 4 chains x 2 threads
# per chain (on a 2-core machine: more threads than cores), 200 warmup +
# 200 sampling iterations, `reps` times in a row; then a profiled
# reduce_sum program the same way (profiles written by helper threads);
# then gradients with 2 threads outside sampling; then programs that run
# from recorded plans (src/plan): 4 chains of ar3_loop recording and
# replaying at once, and a program whose guards fail now and then, so that
# plans are recorded again while other chains replay the old one; last,
# a program whose big kernels split over its threads (pp_for); then
# parallel_map (lbeta_map) and map_rect (map_rect_hier) with 2 threads per
# chain, whose replays run elements and jobs on the pool.
args <- commandArgs(TRUE)
lib <- args[1]
reps <- as.integer(args[2])
suppressMessages(library(tapestry, lib.loc = lib))
ext <- system.file("extdata", package = "tapestry")
mod <- tapestry_model(file.path(ext, "hier_poisson_reduce.stan"))
data <- file.path(ext, "hier_poisson_reduce.data.json")
for (r in seq_len(reps)) {
  fit <- mod$sample(data = data, chains = 4, parallel_chains = 4, threads_per_chain = 2,
                    iter_warmup = 200, iter_sampling = 200, seed = r, refresh = 0,
                    show_messages = FALSE)
  stopifnot(all(fit$return_codes() == 0))
  cat(sprintf("run %d: mean mu %.3f\n", r, mean(fit$draws("mu"))))
}
prof <- tapestry_model(code = "
functions {
  real partial(array[] int ys, int start, int end, vector lam, array[] int g) {
    profile(\"partial\") { return poisson_log_lpmf(ys | lam[g[start:end]]); }
  }
}
data { int N; int G; array[N] int y; array[N] int gidx; int grainsize; }
parameters { real mu; real<lower=0> tau; vector[G] log_lambda; }
model {
  profile(\"priors\") { mu ~ normal(0, 2); tau ~ normal(0, 1); log_lambda ~ normal(mu, tau); }
  profile(\"likelihood\") { target += reduce_sum(partial, y, grainsize, log_lambda, gidx); }
}")
fit <- prof$sample(data = data, chains = 4, parallel_chains = 4, threads_per_chain = 2,
                   iter_warmup = 200, iter_sampling = 200, seed = 1, refresh = 0,
                   show_messages = FALSE, profile_trace_every = 5)
stopifnot(all(fit$return_codes() == 0))
print(profiles_summary(fit))
ctx <- mod$bind(data)
tapestry_set_num_threads(2)
u <- rep(0.1, ctx$num_upars())
for (i in 1:200) g <- ctx$grad_log_prob(u)
plan_models <- list(
  tapestry_model(file.path(ext, "ar3_loop.stan"))$sample,
  tapestry_model(code = "
    parameters { real theta; real<lower=0> s; }
    model {
      real t = theta > 0 ? square(theta) : -theta;
      if (theta > 1) t += log1p(theta);
      theta ~ normal(0, 1.5); s ~ exponential(1); target += -t * s;
    }")$sample)
for (k in seq_along(plan_models)) {
  d <- if (k == 1) file.path(ext, "ar3_loop.data.json") else list()
  fit <- plan_models[[k]](data = d, chains = 4, parallel_chains = 4, iter_warmup = 200,
                          iter_sampling = 200, seed = 3, refresh = 0, show_messages = FALSE)
  stopifnot(all(fit$return_codes() == 0))
}
# big kernels on the chains' threads without reduce_sum (pp_for): the
# logistic GLM's chunks, a vectorized mass's blocks and a matrix product's
# bands, 2 chains x 2 threads
kernels <- tapestry_model(code = "
  data { int N; int K; matrix[N, K] X; array[N] int<lower=0, upper=1> y; array[N] int c; }
  parameters { real alpha; vector[K] beta; }
  model {
    vector[N] eta = alpha + X * beta;
    alpha ~ normal(0, 2); beta ~ normal(0, 1);
    y ~ bernoulli_logit(alpha + X * beta);
    c ~ poisson_log(eta);
  }")
set.seed(4)
Nk <- 3000
kd <- list(N = Nk, K = 5, X = matrix(rnorm(Nk * 5), Nk, 5), y = rbinom(Nk, 1, 0.5), c = rpois(Nk, 1))
fit <- kernels$sample(data = kd, chains = 2, parallel_chains = 2, threads_per_chain = 2, iter_warmup = 100,
                      iter_sampling = 100, seed = 6, refresh = 0, show_messages = FALSE)
stopifnot(all(fit$return_codes() == 0))
for (m in c("lbeta_map", "map_rect_hier")) {
  fit <- tapestry_model(file.path(ext, paste0(m, ".stan")))$sample(
    data = file.path(ext, paste0(m, ".data.json")), chains = 2, parallel_chains = 2, threads_per_chain = 2,
    iter_warmup = 100, iter_sampling = 100, seed = 5, refresh = 0, show_messages = FALSE)
  stopifnot(all(fit$return_codes() == 0))
}
cat("done\n")
