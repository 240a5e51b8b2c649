# Programs with the new distributions: ~ against target += (the constants
# dropped), truncation by the new cdfs, and the tree and the plan giving the
# same gradients.  Also student_t_qf.

lp_at <- function(ctx, u) ctx$log_prob(u, jacobian = FALSE)

test_that("continuous: ~ drops the constants, truncation normalises, both paths agree", {
  y <- c(-1.2, 0.4, 2.5); w <- c(0.3, 1.7, 4)
  data <- list(N = 3, y = y, w = w)
  head <- "data { int N; vector[N] y; vector[N] w; }
    parameters { real mu; real<lower=0> sigma; real<lower=0, upper=1> tau; real<lower=0> lam; real<lower=0> al; }"
  m1 <- tapestry_model(code = paste(head, "model {
    y ~ skew_double_exponential(mu, sigma, tau);
    w ~ pareto_type_2(0, lam, al);
    w ~ loglogistic(lam, al);
    mu ~ von_mises(0.5, 2);
  }"))$bind(data)
  m2 <- tapestry_model(code = paste(head, "model {
    target += skew_double_exponential_lpdf(y | mu, sigma, tau);
    target += pareto_type_2_lpdf(w | 0, lam, al);
    target += loglogistic_lpdf(w | lam, al);
    target += von_mises_lpdf(mu | 0.5, 2);
  }"))$bind(data)
  u <- c(0.3, log(1.4), qlogis(0.35), log(2), log(1.5))
  mu <- 0.3; sigma <- 1.4; tau <- 0.35; lam <- 2; al <- 1.5
  sde <- sum(log(2) + log(tau) + log1p(-tau) - log(sigma) - 2 / sigma * ifelse(y < mu, (1 - tau) * (mu - y), tau * (y - mu)))
  p2 <- sum(log(al) - log(lam) - (al + 1) * log1p(w / lam))
  ll <- sum(log(al) - log(lam) + (al - 1) * log(w / lam) - 2 * log1p((w / lam)^al))
  vm <- 2 * cos(mu - 0.5) - log(2 * pi * besselI(2, 0))
  expect_equal(lp_at(m2, u), sde + p2 + ll + vm, tolerance = 1e-12)
  # ~ drops 3 log 2 (skew_double_exponential's constant) and von_mises' -log(2 pi) - log I0(2)
  expect_equal(lp_at(m1, u), lp_at(m2, u) - 3 * log(2) + log(2 * pi * besselI(2, 0)), tolerance = 1e-12)
  pts <- list(u, c(-0.5, 0.2, 1, -0.3, 0.4), c(1, -1, -2, 0.5, 0))
  for (ctx in list(m1, m2)) {
    r <- both_paths(ctx, pts)
    expect_identical(r$plan, r$tree)
  }
  # truncated: pareto_type_2 above at 5, skew_double_exponential within [-3, 3], von_mises below 1
  # (element by element: a vectorized T[] subtracts its normalizer once, see the report)
  m3 <- tapestry_model(code = paste(head, "model {
    for (i in 1:N) {
      y[i] ~ skew_double_exponential(mu, sigma, tau) T[-3, 3];
      w[i] ~ pareto_type_2(0, lam, al) T[, 5];
    }
    mu ~ von_mises(0.5, 2) T[, 1];
  }"))$bind(data)
  Fsde <- function(x) ifelse(x < mu, tau * exp(-2 * (1 - tau) * (mu - x) / sigma), 1 - (1 - tau) * exp(-2 * tau * (x - mu) / sigma))
  Fp2 <- function(x) 1 - (1 + x / lam)^(-al)
  Fvm <- integrate(function(t) exp(2 * cos(t - 0.5)) / (2 * pi * besselI(2, 0)), -pi, 1, rel.tol = 1e-12)$value
  want <- (sde - 3 * log(2)) - 3 * log(Fsde(3) - Fsde(-3)) + p2 - 3 * log(Fp2(5)) +
    2 * cos(mu - 0.5) - log(Fvm)
  expect_equal(lp_at(m3, u), want, tolerance = 1e-9)
  r <- both_paths(m3, pts)
  expect_identical(r$plan, r$tree)
  g <- as.vector(m3$grad_log_prob(u, jacobian = FALSE))
  fd <- as.numeric(fd_jac(function(x) lp_at(m3, x), u, 1e-4 * pmax(1, abs(u))))
  expect_equal(g, fd, tolerance = 1e-6)
})

test_that("discrete: ~ drops the constants, truncation by the discrete cdfs, both paths agree", {
  n <- c(0L, 3L, 7L); k <- c(1L, 2L, 6L)
  data <- list(N = 3, n = n, k = k, t = c(2L, 4L, 5L))
  head <- "data { int N; array[N] int n; array[N] int k; array[N] int t; }
    parameters { real<lower=0> r; real<lower=0> a; real<lower=0> b; real<lower=0> ys; }"
  m1 <- tapestry_model(code = paste(head, "model {
    n ~ beta_neg_binomial(r, a, b);
    k ~ yule_simon(ys);
    t ~ beta_binomial(9, a, b);
    n ~ neg_binomial(r, b);
  }"))$bind(data)
  m2 <- tapestry_model(code = paste(head, "model {
    target += beta_neg_binomial_lpmf(n | r, a, b);
    target += yule_simon_lpmf(k | ys);
    target += beta_binomial_lpmf(t | 9, a, b);
    target += neg_binomial_lpmf(n | r, b);
  }"))$bind(data)
  r <- 2; a <- 3; b <- 1.5; ys <- 0.8
  u <- log(c(r, a, b, ys))
  bnb <- sum(lbeta(n + r, a + b) - lbeta(r, a) + lgamma(n + b) - lgamma(n + 1) - lgamma(b))
  yls <- sum(log(ys) + lbeta(k, ys + 1))
  bb <- sum(lchoose(9, data$t) + lbeta(data$t + a, 9 - data$t + b) - lbeta(a, b))
  nb <- sum(dnbinom(n, size = r, prob = b / (1 + b), log = TRUE))
  expect_equal(lp_at(m2, u), bnb + yls + bb + nb, tolerance = 1e-12)
  dropped <- -sum(lgamma(n + 1)) + sum(lgamma(k)) + sum(lchoose(9, data$t)) + sum(lchoose(n + r - 1, n) - lchoose(n + r - 1, n)) 
  # neg_binomial's binomial coefficient depends on r (a parameter): kept
  expect_equal(lp_at(m1, u), lp_at(m2, u) - dropped, tolerance = 1e-12)
  pts <- list(u, c(0.2, -0.4, 0.9, 0.1), c(-1, 1, 0, 0.5))
  for (ctx in list(m1, m2)) {
    rr <- both_paths(ctx, pts)
    expect_identical(rr$plan, rr$tree)
  }
  # truncation: beta_neg_binomial T[, 10], yule_simon T[, 8], beta_binomial T[1, 8], neg_binomial T[1, ]
  m3 <- tapestry_model(code = paste(head, "model {
    for (i in 1:N) {
      n[i] ~ beta_neg_binomial(r, a, b) T[, 10];
      k[i] ~ yule_simon(ys) T[, 8];
      t[i] ~ beta_binomial(9, a, b) T[1, 8];
    }
    for (i in 2:N) n[i] ~ neg_binomial(r, b) T[1, ];
  }"))$bind(data)
  pbnb <- function(m) sum(exp(lbeta(0:m + r, a + b) - lbeta(r, a) + lgamma(0:m + b) - lgamma(0:m + 1) - lgamma(b)))
  pys <- function(m) 1 - m * beta(m, ys + 1)
  pbb <- function(m) sum(exp(lchoose(9, 0:m) + lbeta(0:m + a, 9 - 0:m + b) - lbeta(a, b)))
  want <- (bnb + sum(lgamma(n + 1))) - 3 * log(pbnb(10)) + (yls - sum(lgamma(k))) - 3 * log(pys(8)) +
    (bb - sum(lchoose(9, data$t))) - 3 * log(pbb(8) - pbb(0)) +
    sum(dnbinom(n[2:3], size = r, prob = b / (1 + b), log = TRUE)) -
    2 * pnbinom(0, size = r, prob = b / (1 + b), lower.tail = FALSE, log.p = TRUE)
  expect_equal(lp_at(m3, u), want, tolerance = 1e-10)
  rr <- both_paths(m3, pts)
  expect_identical(rr$plan, rr$tree)
})

test_that("GLM, dirichlet_multinomial, hypergeometric and ordered_probit in programs", {
  set.seed(5)
  X <- matrix(rnorm(10), 5, 2)
  data <- list(N = 5, n = c(1L, 0L, 3L, 2L, 4L), M = c(4L, 2L, 3L, 5L, 6L), X = X, c = c(3L, 0L, 5L))
  code <- "data { int N; array[N] int n; array[N] int M; matrix[N, 2] X; array[3] int c; }
    parameters { real alpha; vector[2] beta; vector<lower=0>[3] al; }
    model {
      n ~ binomial_logit_glm(M, X, alpha, beta);
      c ~ dirichlet_multinomial(al);
      target += hypergeometric_lpmf(2 | 5, 4, 6);
      al ~ exponential(1);
    }"
  ctx <- tapestry_model(code = code)$bind(data)
  pts <- list(c(0.1, 0.3, -0.2, 0.4, -0.1, 0.5), c(-1, 1, 0.5, 0, 0.3, -0.2))
  rr <- both_paths(ctx, pts)
  expect_identical(rr$plan, rr$tree)
  u <- pts[[1]]
  # value on the constrained scale, without the Jacobian
  al <- exp(u[4:6]); cc <- data$c
  want <- sum(data$n * plogis(u[1] + X %*% u[2:3], log.p = TRUE) +
                (data$M - data$n) * plogis(u[1] + X %*% u[2:3], log.p = TRUE, lower.tail = FALSE)) +
    lbeta(sum(al), sum(cc)) - sum(lbeta(al[cc > 0], cc[cc > 0])) +
    dhyper(2, 4, 6, 5, log = TRUE) - sum(al)
  expect_equal(lp_at(ctx, u), want, tolerance = 1e-10)
  code2 <- "data { array[3] int y; } parameters { real eta; array[3] ordered[2] cuts; }
    model { y ~ ordered_probit(eta, cuts); eta ~ normal(0, 1); for (i in 1:3) cuts[i] ~ normal(0, 3); }"
  ctx2 <- tapestry_model(code = code2)$bind(list(y = c(1L, 3L, 2L)))
  rr <- both_paths(ctx2, list(rep(0.1, 7), c(0.5, -1, 0, 0.3, 0.2, -0.5, 1)))
  expect_identical(rr$plan, rr$tree)
})

test_that("student_t_qf: values against R, gradients, vectorized forms, in a program", {
  for (p in c(1e-10, 0.01, 0.3, 0.5, 0.7, 0.999)) for (nu in c(0.3, 1, 2.5, 30, 1e5)) {
    expect_equal(tval("student_t_qf", list(p, nu, 0.5, 2), rep("real", 4)), 0.5 + 2 * qt(p, nu), tolerance = 1e-10,
                 label = sprintf("student_t_qf(%g, %g)", p, nu))
  }
  # the far tail (R's qt loses digits there; this is the leading term of I_x)
  a <- 1.25; lx <- (log(1e-300) + log(a) + lbeta(a, 0.5) + log(2)) / a
  expect_equal(tval("student_t_qf", list(1e-300, 2.5, 0, 1), rep("real", 4)), -sqrt(2.5 / exp(lx)), tolerance = 1e-10)
  expect_identical(tval("student_t_qf", list(0, 3, 1, 2), rep("real", 4)), -Inf)
  expect_identical(tval("student_t_qf", list(1, 3, 1, 2), rep("real", 4)), Inf)
  expect_identical(tval("student_t_qf", list(0.5, 3, 1, 2), rep("real", 4)), 1)
  expect_equal(tval("student_t_qf", list(0.3, Inf, 1, 2), rep("real", 4)), 1 + 2 * qnorm(0.3), tolerance = 1e-14)
  for (args in list(list(0.2, 3.5, 0.5, 2), list(0.5, 2, 0, 1), list(c(0.01, 0.6, 0.97), 4, c(-1, 0, 1), 0.5),
                    list(0.8, c(0.7, 15), 0, c(1, 3)))) {
    ty <- vapply(args, function(x) if (length(x) == 1) "real" else "vector", "")
    r <- expect_gradient_fd("student_t_qf", args, ty, tol = 1e-6)
    expect_equal(r$nodes[1], 1)
  }
  v <- tval("student_t_qf", list(c(0.1, 0.9), 3, c(0, 1), 2), c("array[] real", "real", "row_vector", "real"))
  expect_equal(v, c(qt(0.1, 3) * 2, 1 + 2 * qt(0.9, 3)), tolerance = 1e-12)
  expect_error(tp_call("student_t_qf", list(1.5, 3, 0, 1), rep("real", 4)),
               "student_t_qf: Probability parameter is 1.5, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("student_t_qf", list(0.5, -3, 0, 1), rep("real", 4)),
               "student_t_qf: Degrees of freedom parameter is -3, but must be nonnegative!")
  expect_error(tp_call("student_t_qf", list(0.5, 3, 0, 0), rep("real", 4)),
               "student_t_qf: Scale parameter is 0, but must be positive!")
  code <- "data { vector[3] p; } parameters { real<lower=0> nu; real mu; }
    transformed parameters { vector[3] q = student_t_qf(p, nu, mu, 1.5); }
    model { target += normal_lpdf(q | 0, 3); nu ~ gamma(2, 0.5); }"
  ctx <- tapestry_model(code = code)$bind(list(p = c(0.1, 0.5, 0.95)))
  rr <- both_paths(ctx, list(c(log(4), 0.2), c(log(1.5), -1)))
  expect_identical(rr$plan, rr$tree)
  u <- c(log(4), 0.2)
  q <- 0.2 + 1.5 * qt(c(0.1, 0.5, 0.95), 4)
  # gamma's constant 2 log(0.5) - lgamma(2) dropped by ~
  expect_equal(lp_at(ctx, u), sum(dnorm(q, 0, 3, log = TRUE)) + log(4) - 0.5 * 4, tolerance = 1e-10)
})
