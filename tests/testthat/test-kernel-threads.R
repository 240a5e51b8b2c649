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

# every instruction set this machine has, widest first
simd_levels <- function() {
  levels <- unique(c(simd_cap(-1), 1, 0))
  levels[levels <= levels[1]]
}

test_that("vector bernoulli_logit and poisson_log rows: R's values on every instruction set, limits at -inf", {
  code <- "
    data { int N; vector[N] x; array[N] int<lower=0, upper=1> y; array[N] int c; }
    parameters { real a; real<lower=0> s; }
    model {
      y ~ bernoulli_logit(a + s * x);
      c ~ poisson_log(a + s * x);
    }"
  set.seed(21)
  N <- 700
  x <- c(rnorm(N - 2, sd = 3), -Inf, 400)
  d <- list(N = N, x = x, y = rbinom(N, 1, 0.5), c = c(rpois(N - 2, 2), 0L, 1L))
  ctx <- tapestry_model(code = code)$bind(d)
  u <- c(0.2, log(0.7))
  eta <- 0.2 + 0.7 * x
  # the -inf rate with a count of 0 is a mass of 1 (Stan's limit): the
  # blocks with it go element by element
  ref <- sum(plogis(ifelse(d$y == 1, eta, -eta), log.p = TRUE)) +
    sum(ifelse(is.infinite(eta), 0, d$c * eta - exp(eta)))
  on.exit(simd_cap(-1))
  for (level in simd_levels()) {
    expect_equal(simd_cap(level), level)
    expect_equal(ctx$log_prob(u, jacobian = FALSE), ref, tolerance = 1e-13)
    g <- ctx$grad_log_prob(u, jacobian = FALSE)
    expect_equal(attr(g, "log_prob"), ref, tolerance = 1e-13)
    # d/da; d/ds meets x = -inf and is not finite, as in Stan
    expect_equal(g[1], sum(d$y - plogis(eta)) + sum(ifelse(is.infinite(eta), 0, d$c - exp(eta))),
                 tolerance = 1e-12)
  }
  simd_cap(-1)
  # finite differences on data without the limits
  d$x <- rnorm(N)
  ctx <- tapestry_model(code = code)$bind(d)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-6), tolerance = 1e-7)
})

test_that("cholesky_decompose: the same bits on every instruction set, gradient against finite differences", {
  code <- "
    data { int n; matrix[n, n] S; }
    parameters { vector<lower=0>[n] s; real<lower=0> r; }
    model {
      matrix[n, n] A = S * r;
      for (i in 1:n) A[i, i] += s[i];
      matrix[n, n] L = cholesky_decompose(A);
      target += sum(log(diagonal(L))) + 0.1 * sum(L);
      s ~ lognormal(0, 1);
    }"
  set.seed(22)
  n <- 37
  M <- matrix(rnorm(n * n), n)
  S <- crossprod(M) / n
  S <- (S + t(S)) / 2
  ctx <- tapestry_model(code = code)$bind(list(n = n, S = S))
  u <- rnorm(n + 1, sd = 0.3)
  on.exit(simd_cap(-1))
  gs <- lapply(simd_levels(), function(level) {
    simd_cap(level)
    ctx$grad_log_prob(u)
  })
  for (g in gs) expect_identical(g, gs[[1]])
  simd_cap(-1)
  expect_equal(as.vector(gs[[1]]), fd_grad(ctx, u, 1e-6), tolerance = 1e-7)
})

test_that("cholesky_decompose by blocks: L against R's chol, the gradient against finite differences", {
  # n = 110: blocks of 48, 48 and 14 columns, forward and reverse
  code <- "
    data { int n; matrix[n, n] S; }
    parameters { real<lower=0> r; vector<lower=0>[3] s; }
    model {
      matrix[n, n] A = S * r;
      for (i in 1:n) A[i, i] += s[1 + i % 3];
      matrix[n, n] L = cholesky_decompose(A);
      target += sum(log(diagonal(L))) + 0.01 * sum(L);
    }"
  set.seed(23)
  n <- 110
  M <- matrix(rnorm(n * n), n)
  S <- crossprod(M) / n
  S <- (S + t(S)) / 2
  ctx <- tapestry_model(code = code)$bind(list(n = n, S = S))
  u <- c(log(0.7), log(c(0.5, 1, 2)))
  A <- S * 0.7
  diag(A) <- diag(A) + c(0.5, 1, 2)[1 + seq_len(n) %% 3]
  L <- t(chol(A))
  expect_equal(ctx$log_prob(u, jacobian = FALSE), sum(log(diag(L))) + 0.01 * sum(L), tolerance = 1e-12)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-6), tolerance = 1e-7)
})

test_that("a costly function of the same argument in every element is taken again, same bits", {
  code <- "
    functions {
      real f(real x, real a, real b) {
        return lgamma(a * x) + lgamma(b) + digamma(b) - lgamma(a * x + b) + digamma(a) + lgamma(a);
      }
    }
    data { int N; vector<lower=0>[N] x; vector[N] y; }
    parameters { real<lower=0> a; real<lower=0> b; }
    model {
      vector[N] mu = parallel_map(f, 10, x, a, b);
      y ~ normal(mu, 1);
    }"
  set.seed(23)
  N <- 200
  d <- list(N = N, x = rexp(N), y = rnorm(N))
  ctx <- tapestry_model(code = code)$bind(d)
  pts <- lapply(1:5, function(i) rnorm(2, sd = 0.5))
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 5)
  expect_equal(as.vector(ctx$grad_log_prob(pts[[2]])), fd_grad(ctx, pts[[2]], 1e-6), tolerance = 1e-7)
})

test_that("poisson_log with its constant: R's value, the tree's bits on plans, counts past the lgamma table", {
  # the rows' sum less lgamma(y + 1) taken once (a plan computes it when it
  # records: tm_dens_konst); a count of 256 or more sends every row element
  # by element (Stan's saddle form)
  code <- "
    data { int N; array[N] int c; vector[N] x; }
    parameters { real a; real<lower=0> s; }
    model { target += poisson_log_lpmf(c | a + s * x); }"
  set.seed(41)
  x <- seq(-1, 1, length.out = 3000)
  for (cmax in c(20, 400)) {
    cnt <- rpois(3000, 3)
    cnt[17] <- cmax
    d <- list(N = 3000L, c = as.integer(cnt), x = x)
    ctx <- tapestry_model(code = code)$bind(d)
    u <- c(0.3, log(0.4))
    old <- tapestry:::plans_enabled(FALSE)
    tree <- lapply(1:2, function(i) ctx$grad_log_prob(u))
    tapestry:::plans_enabled(TRUE)
    plan <- lapply(1:3, function(i) ctx$grad_log_prob(u))
    tapestry:::plans_enabled(old)
    for (g in plan) expect_identical(g, tree[[1]])
    lp <- ctx$log_prob(u, jacobian = FALSE)
    expect_equal(lp, sum(dpois(cnt, exp(0.3 + 0.4 * x), log = TRUE)), tolerance = 1e-12)
    expect_equal(attr(tree[[1]], "log_prob") - log(0.4), lp, tolerance = 1e-12)
  }
})
