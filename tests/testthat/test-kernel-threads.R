# Big kernels on the evaluation's threads without reduce_sum (src/par/pp_for.c):
# a vectorized mass cut into blocks by its size alone, and matrix products
# cut by rows, give the same bits for any number of threads, on the tree and
# through plans.

kernel_threads_code <- "
  data { int N; int K; matrix[N, K] X; array[N] int<lower=0, upper=1> y; array[N] int c; }
  parameters { real alpha; vector[K] beta; real<lower=0> s; }
  model {
    vector[N] eta = alpha + X * beta;
    alpha ~ normal(0, 2.5);
    beta ~ normal(0, 1);
    y ~ bernoulli_logit(eta);
    c ~ poisson_log(s * eta);
    c ~ poisson(s);
  }"

kernel_threads_data <- function(N = 6000, K = 12) {
  set.seed(11)
  X <- matrix(rnorm(N * K), N, K)
  list(N = N, K = K, X = X, y = rbinom(N, 1, 0.4), c = rpois(N, 2))
}

test_that("a big vectorized mass and product give the same bits for 1, 2 and 5 threads", {
  d <- kernel_threads_data()
  m <- tapestry_model(code = kernel_threads_code)
  set.seed(12)
  pts <- lapply(1:3, function(i) rnorm(d$K + 2, sd = 0.2))
  run <- function(threads, plans) {
    ctx <- m$bind(d)
    old <- tapestry:::plans_enabled(plans)
    on.exit(tapestry:::plans_enabled(old))
    with_threads(threads, lapply(pts, function(u) ctx$grad_log_prob(u)))
  }
  regions <- function() .Call(tapestry:::C_tp_for_regions)
  r0 <- regions()
  one <- run(1, FALSE)
  expect_identical(regions(), r0)
  expect_identical(run(2, FALSE), one)
  # the blocks did run on regions of threads
  expect_gt(regions(), r0)
  expect_identical(run(5, FALSE), one)
  expect_identical(run(1, TRUE), one)
  expect_identical(run(2, TRUE), one)
  expect_identical(run(5, TRUE), one)
})

test_that("the blocked sums agree with R and the gradient with finite differences", {
  d <- kernel_threads_data(N = 3000, K = 5)
  ctx <- tapestry_model(code = kernel_threads_code)$bind(d)
  set.seed(13)
  u <- rnorm(d$K + 2, sd = 0.2)
  v <- ctx$constrain_variables(u)
  eta <- v$alpha + drop(d$X %*% v$beta)
  lp <- with_threads(2, ctx$log_prob(u, jacobian = FALSE))
  # ~ drops the constants: bernoulli_logit keeps all, poisson_log and
  # poisson drop lgamma(c + 1)
  ref <- dnorm(v$alpha, 0, 2.5, log = TRUE) + log(2.5) + 0.5 * log(2 * pi) +
    sum(dnorm(v$beta, 0, 1, log = TRUE)) + d$K * 0.5 * log(2 * pi) +
    sum(dbinom(d$y, 1, plogis(eta), log = TRUE)) +
    sum(dpois(d$c, exp(v$s * eta), log = TRUE) + lgamma(d$c + 1)) +
    sum(dpois(d$c, v$s, log = TRUE) + lgamma(d$c + 1))
  expect_equal(lp, ref, tolerance = 1e-11)
  g <- with_threads(2, ctx$grad_log_prob(u))
  expect_equal(as.vector(g), fd_grad(ctx, u, 1e-5), tolerance = 1e-6)
})
