# A density of a linear predictor runs as its GLM (src/front/lc_glm.c):
# y ~ bernoulli_logit(alpha + X * beta), poisson_log and normal, in ~
# statements and in _lpmf/_lupmf calls, are the GLM's bits; the unfused
# form (through a variable) agrees to rounding.  The GLMs' pass runs in
# chunks fixed by N on the evaluation's threads.

glm_fuse_data <- function(N = 1500, K = 6) {
  set.seed(31)
  X <- matrix(rnorm(N * K), N, K)
  list(N = N, K = K, X = X, y = rbinom(N, 1, 0.4), c = rpois(N, 2), z = rnorm(N))
}

glm_fuse_program <- function(model) sprintf("
  data { int N; int K; matrix[N, K] X; array[N] int<lower=0, upper=1> y; array[N] int c; vector[N] z; }
  parameters { real alpha; vector[K] beta; real<lower=0> sigma; vector[N] a; }
  model {
    alpha ~ normal(0, 1); beta ~ normal(0, 1); sigma ~ lognormal(0, 1); a ~ normal(0, 0.1);
    %s
  }", model)

grads_at <- function(model, d, pts) {
  ctx <- tapestry_model(code = glm_fuse_program(model))$bind(d)
  lapply(pts, function(u) ctx$grad_log_prob(u))
}

test_that("alpha + X * beta in bernoulli_logit, poisson_log and normal is the GLM, bit for bit", {
  d <- glm_fuse_data()
  set.seed(32)
  pts <- lapply(1:3, function(i) rnorm(1 + d$K + 1 + d$N, sd = 0.2))
  pairs <- list(
    c("y ~ bernoulli_logit(alpha + X * beta);", "y ~ bernoulli_logit_glm(X, alpha, beta);"),
    c("y ~ bernoulli_logit(X * beta + a);", "y ~ bernoulli_logit_glm(X, a, beta);"),
    c("y ~ bernoulli_logit(X * beta);", "y ~ bernoulli_logit_glm(X, 0, beta);"),
    c("target += bernoulli_logit_lpmf(y | alpha + X * beta);", "target += bernoulli_logit_glm_lpmf(y | X, alpha, beta);"),
    c("target += bernoulli_logit_lupmf(y | alpha + X * beta);", "target += bernoulli_logit_glm_lupmf(y | X, alpha, beta);"),
    c("c ~ poisson_log(alpha + X * beta);", "c ~ poisson_log_glm(X, alpha, beta);"),
    c("target += poisson_log_lpmf(c | a + X * beta);", "target += poisson_log_glm_lpmf(c | X, a, beta);"),
    c("z ~ normal(alpha + X * beta, sigma);", "z ~ normal_id_glm(X, alpha, beta, sigma);"),
    c("target += normal_lpdf(z | X * beta + a, sigma);", "target += normal_id_glm_lpdf(z | X, a, beta, sigma);"))
  for (p in pairs) {
    fused <- grads_at(p[1], d, pts)
    expect_identical(fused, grads_at(p[2], d, pts), label = p[1])
    # through a variable: the density of a vector, the same up to rounding
    unfused <- sub("(alpha|a) \\+ X \\* beta|X \\* beta \\+ (alpha|a)|X \\* beta", "eta", p[1])
    what <- regmatches(p[1], regexpr("(alpha|a) \\+ X \\* beta|X \\* beta \\+ (alpha|a)|X \\* beta", p[1]))
    plain <- grads_at(sprintf("vector[N] eta = %s; %s", what, unfused), d, pts)
    for (k in seq_along(pts)) {
      expect_equal(attr(fused[[k]], "log_prob"), attr(plain[[k]], "log_prob"), tolerance = 1e-12, label = p[1])
      expect_equal(as.vector(fused[[k]]), as.vector(plain[[k]]), tolerance = 1e-10, label = p[1])
    }
  }
})

test_that("other forms of the location are left as written", {
  d <- glm_fuse_data(N = 40, K = 3)
  code <- glm_fuse_program("y ~ bernoulli_logit(alpha + X * beta + a);")
  m <- tapestry_model(code = code)
  ctx <- m$bind(d)
  u <- rnorm(1 + d$K + 1 + d$N, sd = 0.2)
  v <- ctx$constrain_variables(u)
  eta <- v$alpha + drop(d$X %*% v$beta) + v$a
  lp <- ctx$log_prob(u, jacobian = FALSE)
  ref <- dnorm(v$alpha, 0, 1, log = TRUE) + sum(dnorm(v$beta, 0, 1, log = TRUE)) +
    dlnorm(v$sigma, 0, 1, log = TRUE) + sum(dnorm(v$a, 0, 0.1, log = TRUE)) +
    sum(dbinom(d$y, 1, plogis(eta), log = TRUE))
  # ~ drops the normal constants: compare differences between two points
  u2 <- u + 0.01
  v2 <- ctx$constrain_variables(u2)
  eta2 <- v2$alpha + drop(d$X %*% v2$beta) + v2$a
  ref2 <- dnorm(v2$alpha, 0, 1, log = TRUE) + sum(dnorm(v2$beta, 0, 1, log = TRUE)) +
    dlnorm(v2$sigma, 0, 1, log = TRUE) + sum(dnorm(v2$a, 0, 0.1, log = TRUE)) +
    sum(dbinom(d$y, 1, plogis(eta2), log = TRUE))
  expect_equal(ctx$log_prob(u2, jacobian = FALSE) - lp, ref2 - ref, tolerance = 1e-9)
})

test_that("a GLM's pass in chunks: the same bits for 1, 2 and 5 threads, R's values, finite differences", {
  d <- glm_fuse_data(N = 5000, K = 8)
  set.seed(33)
  pts <- lapply(1:2, function(i) rnorm(1 + d$K + 1 + d$N, sd = 0.1))
  for (model in c("y ~ bernoulli_logit(alpha + X * beta);", "c ~ poisson_log(a + X * beta);",
                  "z ~ normal(alpha + X * beta, sigma);")) {
    ctx <- tapestry_model(code = glm_fuse_program(model))$bind(d)
    one <- with_threads(1, lapply(pts, function(u) ctx$grad_log_prob(u)))
    regions <- .Call(tapestry:::C_tp_for_regions)
    expect_identical(with_threads(2, lapply(pts, function(u) ctx$grad_log_prob(u))), one, label = model)
    expect_gt(.Call(tapestry:::C_tp_for_regions), regions)
    expect_identical(with_threads(5, lapply(pts, function(u) ctx$grad_log_prob(u))), one, label = model)
    # R's densities, whose constants ~ drops: differences between two points
    ref <- function(u) {
      v <- ctx$constrain_variables(u)
      eta <- drop(d$X %*% v$beta) + if (startsWith(model, "c ~")) v$a else v$alpha
      lik <- switch(substr(model, 1, 1),
                    y = sum(dbinom(d$y, 1, plogis(eta), log = TRUE)),
                    c = sum(dpois(d$c, exp(eta), log = TRUE)),
                    z = sum(dnorm(d$z, eta, v$sigma, log = TRUE)))
      lik + dnorm(v$alpha, 0, 1, log = TRUE) + sum(dnorm(v$beta, 0, 1, log = TRUE)) +
        dlnorm(v$sigma, 0, 1, log = TRUE) + sum(dnorm(v$a, 0, 0.1, log = TRUE))
    }
    u1 <- pts[[1]]
    u2 <- pts[[2]]
    expect_equal(ctx$log_prob(u2, jacobian = FALSE) - ctx$log_prob(u1, jacobian = FALSE),
                 ref(u2) - ref(u1), tolerance = 1e-9, label = model)
  }
  d <- glm_fuse_data(N = 700, K = 3)
  ctx <- tapestry_model(code = glm_fuse_program("y ~ bernoulli_logit(alpha + X * beta);"))$bind(d)
  u <- rnorm(1 + d$K + 1 + d$N, sd = 0.1)
  idx <- c(1:5, 10, 100)
  g <- as.vector(ctx$grad_log_prob(u))
  fd <- fd_grad(ctx, u, 1e-6)
  expect_equal(g[idx], fd[idx], tolerance = 1e-6)
})
