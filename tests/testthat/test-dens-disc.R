# Discrete masses (src/math/prob/tm_<family>.c, on the kernel of
# tm_dens_elem.c): values against R's own functions, gradients against finite
# differences, propto against the exact constant Stan drops, one node per
# call, Stan's error messages.

val <- function(fn, args, types, propto = FALSE) unlist(tval(fn, args, types, propto))
# the value with the real arguments marked in `ad` as autodiff
val_ad <- function(fn, args, types, ad, propto = FALSE) {
  unlist(tp_call(fn, args, types, ad, propto)$value)
}
# |x - y| <= tol |y| elementwise (infinities must match exactly)
expect_rel <- function(x, y, tol = 1e-12, label = NULL) {
  x <- as.numeric(x); y <- as.numeric(y)
  ok <- length(x) == length(y) &&
    all(ifelse(is.finite(y), abs(x - y) <= tol * abs(y), x == y), na.rm = FALSE)
  expect_true(isTRUE(ok), label = paste(label, "values", paste(signif(x, 17), collapse = " "),
                                        "vs", paste(signif(y, 17), collapse = " ")))
}
ints <- "array[] int"
reals <- "array[] real"

# ---- bernoulli ----

test_that("bernoulli_lpmf matches dbinom(size = 1)", {
  n <- c(0L, 1L, 1L, 0L, 1L)
  th <- c(0.2, 0.7, 1e-9, 1 - 1e-9, 0.5)
  expect_rel(val("bernoulli_lpmf", list(n, th), c(ints, "vector")),
             sum(dbinom(n, 1, th, log = TRUE)))
  expect_rel(val("bernoulli_lpmf", list(n, 0.3), c(ints, "real")),
             sum(dbinom(n, 1, 0.3, log = TRUE)))
  expect_rel(val("bernoulli_lpmf", list(1L, th), c("int", reals)),
             sum(dbinom(1, 1, th, log = TRUE)))
  expect_equal(val("bernoulli_lpmf", list(1L, 0), c("int", "real")), -Inf)
  expect_equal(val("bernoulli_lpmf", list(0L, 0), c("int", "real")), 0)
  expect_equal(val("bernoulli_lpmf", list(1L, 1), c("int", "real")), 0)
  expect_equal(val("bernoulli_lpmf", list(integer(0), 0.3), c(ints, "real")), 0)
})

test_that("bernoulli_lpmf gradients match finite differences", {
  n <- c(0L, 1L, 1L, 0L)
  for (th in list(c(0.3, 0.6, 0.02, 0.98), c(0.5, 0.5, 0.5, 0.5)))
    expect_gradient_fd("bernoulli_lpmf", list(n, th), c(ints, "vector"), c(FALSE, TRUE))
  for (th in c(0.02, 0.4, 0.97))
    expect_gradient_fd("bernoulli_lpmf", list(n, th), c(ints, "real"), c(FALSE, TRUE))
  # next to the boundaries finite differences would step outside [0, 1]
  th <- c(1e-10, 1 - 1e-10, 1e-10, 1 - 1e-10)
  n <- c(1L, 0L, 0L, 1L)
  J <- tp_call("bernoulli_lpmf", list(n, th), c(ints, "vector"), c(FALSE, TRUE))$jacobian[[2]]
  expect_rel(as.numeric(J), ifelse(n == 1, 1 / th, -1 / (1 - th)))
})

test_that("bernoulli_logit_lpmf matches the plogis forms", {
  n <- c(0L, 1L, 1L, 0L, 1L, 0L)
  a <- c(-3, 0.4, 40, -40, -800, 25)
  s <- 2 * n - 1
  expect_rel(val("bernoulli_logit_lpmf", list(n, a), c(ints, "vector")),
             sum(plogis(s * a, log.p = TRUE)))
  for (i in seq_along(n))
    expect_rel(val("bernoulli_logit_lpmf", list(n[i], a[i]), c("int", "real")),
               plogis(s[i] * a[i], log.p = TRUE))
  expect_rel(val("bernoulli_logit_lpmf", list(n[1:3], 0.7), c(ints, "real")),
             sum(dbinom(n[1:3], 1, plogis(0.7), log = TRUE)))
  expect_gradient_fd("bernoulli_logit_lpmf", list(n, c(-3, 0.4, 30, -30, -5, 25)),
                     c(ints, "vector"), c(FALSE, TRUE))
  for (a0 in c(-30, -2, 0, 1.5, 30))
    expect_gradient_fd("bernoulli_logit_lpmf", list(n, a0), c(ints, "real"), c(FALSE, TRUE))
})

# ---- binomial ----

test_that("binomial_lpmf matches dbinom", {
  n <- c(0L, 3L, 10L, 7L, 0L, 250L)
  N <- c(5L, 10L, 10L, 20L, 0L, 1000L)
  th <- c(0.2, 0.5, 0.9, 1e-12, 0.3, 0.25)
  expect_rel(val("binomial_lpmf", list(n, N, th), c(ints, ints, "vector")),
             sum(dbinom(n, N, th, log = TRUE)))
  for (i in seq_along(n))
    expect_rel(val("binomial_lpmf", list(n[i], N[i], th[i]), c("int", "int", "real")),
               dbinom(n[i], N[i], th[i], log = TRUE))
  expect_rel(val("binomial_lpmf", list(n, 1000L, 0.4), c(ints, "int", "real")),
             sum(dbinom(n, 1000, 0.4, log = TRUE)))
  expect_equal(val("binomial_lpmf", list(0L, 5L, 0), c("int", "int", "real")), 0)
  expect_equal(val("binomial_lpmf", list(5L, 5L, 1), c("int", "int", "real")), 0)
  expect_equal(val("binomial_lpmf", list(2L, 5L, 0), c("int", "int", "real")), -Inf)
  expect_rel(val("binomial_lpmf", list(400000L, 1000000L, 0.4), c("int", "int", "real")),
             dbinom(400000, 1000000, 0.4, log = TRUE))
})

test_that("binomial_lpmf gradients match finite differences", {
  n <- c(0L, 3L, 10L, 7L, 0L)
  N <- c(5L, 10L, 10L, 20L, 0L)
  expect_gradient_fd("binomial_lpmf", list(n, N, c(0.2, 0.5, 0.9, 0.02, 0.3)),
                     c(ints, ints, "vector"), c(FALSE, FALSE, TRUE))
  expect_gradient_fd("binomial_lpmf", list(n, N, c(0.98, 0.02, 0.97, 0.6, 0.5)),
                     c(ints, ints, "vector"), c(FALSE, FALSE, TRUE))
  for (th in c(0.02, 0.5, 0.98))
    expect_gradient_fd("binomial_lpmf", list(n, N, th), c(ints, ints, "real"),
                       c(FALSE, FALSE, TRUE))
  expect_gradient_fd("binomial_lpmf", list(400000L, 1000000L, 0.41),
                     c("int", "int", "real"), c(FALSE, FALSE, TRUE))
  J <- tp_call("binomial_lpmf", list(c(0L, 4L), c(4L, 4L), c(1e-10, 1 - 1e-10)),
               c(ints, ints, "vector"), c(FALSE, FALSE, TRUE))$jacobian[[3]]
  expect_rel(as.numeric(J), c(-4 / (1 - 1e-10), 4 / (1 - 1e-10)))
})

test_that("binomial_logit_lpmf matches dbinom and the plogis forms", {
  n <- c(0L, 3L, 10L, 7L, 0L, 250L)
  N <- c(5L, 10L, 10L, 20L, 0L, 1000L)
  a <- c(-1.5, 0, 2, -40, 3, 50)
  ref <- lchoose(N, n) + n * plogis(a, log.p = TRUE) + (N - n) * plogis(-a, log.p = TRUE)
  expect_rel(val("binomial_logit_lpmf", list(n, N, a), c(ints, ints, "vector")), sum(ref))
  expect_rel(val("binomial_logit_lpmf", list(n[1:4], N[1:4], 0.3), c(ints, ints, "real")),
             sum(dbinom(n[1:4], N[1:4], plogis(0.3), log = TRUE)))
  expect_gradient_fd("binomial_logit_lpmf", list(n, N, c(-1.5, 0, 2, -30, 3, 30)),
                     c(ints, ints, "vector"), c(FALSE, FALSE, TRUE))
  for (a0 in c(-20, -0.5, 0, 4))
    expect_gradient_fd("binomial_logit_lpmf", list(n, N, a0), c(ints, ints, "real"),
                       c(FALSE, FALSE, TRUE))
})

# ---- poisson ----

test_that("poisson_lpmf matches dpois and Stan's edges", {
  n <- c(0L, 1L, 5L, 20L, 1000000L, 0L)
  lam <- c(0.5, 1e-8, 4.2, 30, 1e6, 1e3)
  expect_rel(val("poisson_lpmf", list(n, lam), c(ints, "vector")),
             sum(dpois(n, lam, log = TRUE)))
  for (i in seq_along(n))
    expect_rel(val("poisson_lpmf", list(n[i], lam[i]), c("int", "real")),
               dpois(n[i], lam[i], log = TRUE))
  expect_rel(val("poisson_lpmf", list(n, 7.5), c(ints, "real")), sum(dpois(n, 7.5, log = TRUE)))
  expect_equal(val("poisson_lpmf", list(0L, 0), c("int", "real")), 0)
  expect_equal(val("poisson_lpmf", list(c(0L, 0L), c(0, 2)), c(ints, "vector")),
               dpois(0, 2, log = TRUE))
  expect_equal(val("poisson_lpmf", list(1L, 0), c("int", "real")), -Inf)
  expect_equal(val("poisson_lpmf", list(c(1L, 2L), c(1, Inf)), c(ints, "vector")), -Inf)
  expect_equal(val_ad("poisson_lpmf", list(3L, Inf), c("int", "real"), c(FALSE, TRUE)), -Inf)
  # rate 0 with no count: the derivative is the limit -1, not 0/0
  J <- tp_call("poisson_lpmf", list(c(0L, 0L), c(0, 1)), c(ints, "vector"), c(FALSE, TRUE))$jacobian[[2]]
  expect_equal(as.numeric(J), c(-1, -1))
})

test_that("poisson_lpmf gradients match finite differences", {
  n <- c(0L, 1L, 5L, 20L)
  expect_gradient_fd("poisson_lpmf", list(n, c(0.01, 1e-3, 4.2, 30)), c(ints, "vector"), c(FALSE, TRUE))
  for (l in c(0.05, 3, 1e5))
    expect_gradient_fd("poisson_lpmf", list(n, l), c(ints, "real"), c(FALSE, TRUE))
  expect_gradient_fd("poisson_lpmf", list(c(1000000L, 999000L), c(1e6, 1.01e6)),
                     c(ints, "vector"), c(FALSE, TRUE))
})

test_that("poisson_log_lpmf matches dpois(exp(alpha))", {
  n <- c(0L, 1L, 5L, 20L, 1000000L, 0L)
  a <- c(log(0.5), -18, log(4.2), log(30), log(1e6), 5)
  expect_rel(val("poisson_log_lpmf", list(n, a), c(ints, "vector")),
             sum(dpois(n, exp(a), log = TRUE)))
  expect_rel(val("poisson_log_lpmf", list(n, 2), c(ints, "real")),
             sum(dpois(n, exp(2), log = TRUE)))
  expect_equal(val("poisson_log_lpmf", list(0L, -Inf), c("int", "real")), 0)
  expect_equal(val("poisson_log_lpmf", list(2L, -Inf), c("int", "real")), -Inf)
  expect_equal(val("poisson_log_lpmf", list(0L, Inf), c("int", "real")), -Inf)
  expect_gradient_fd("poisson_log_lpmf", list(n[1:4], c(-5, 0, 1.5, 3.4)), c(ints, "vector"),
                     c(FALSE, TRUE))
  for (a0 in c(-10, 0, 2, 13.8))
    expect_gradient_fd("poisson_log_lpmf", list(c(0L, 3L, 1000000L), a0), c(ints, "real"),
                       c(FALSE, TRUE))
})

# ---- negative binomial ----

# log NB2 for a small count and a huge phi, exact: lgamma(n + phi) - lgamma(phi)
# is a finite sum of logs.  (R's dnbinom switches to a Poisson approximation
# there, which is off by 5e-10 at phi = 1e8.)
nb2_small_n <- function(n, mu, phi) {
  k <- seq_len(n) - 1
  sum(log1p(k / phi)) - lgamma(n + 1) + n * log(mu) - (n + phi) * log1p(mu / phi)
}

test_that("neg_binomial_2_lpmf matches dnbinom(size = phi, mu = mu)", {
  n <- c(0L, 1L, 5L, 20L, 3L, 0L, 7L, 250L)
  mu <- c(0.5, 3, 4.2, 30, 2.5, 1e3, 6, 300)
  phi <- c(2, 0.1, 10, 1e3, 1e8, 0.3, 1e12, 7)
  ref <- dnbinom(n, size = phi, mu = mu, log = TRUE)
  ref[phi > 1e6] <- mapply(nb2_small_n, n[phi > 1e6], mu[phi > 1e6], phi[phi > 1e6])
  for (i in seq_along(n))
    expect_rel(val("neg_binomial_2_lpmf", list(n[i], mu[i], phi[i]), c("int", "real", "real")),
               ref[i], label = paste("element", i))
  expect_rel(val("neg_binomial_2_lpmf", list(n, mu, phi), c(ints, "vector", "vector")), sum(ref))
  expect_rel(val("neg_binomial_2_lpmf", list(n, 5, 2.5), c(ints, "real", "real")),
             sum(dnbinom(n, size = 2.5, mu = 5, log = TRUE)))
  # Stan's form adds terms of size n log(n) that cancel: at n = 1e5 the value
  # keeps 11 digits, not 12 (poisson and binomial use the saddle point instead)
  expect_rel(val("neg_binomial_2_lpmf", list(100000L, 1.1e5, 50), c("int", "real", "real")),
             dnbinom(100000, size = 50, mu = 1.1e5, log = TRUE), tol = 1e-10)
})

test_that("neg_binomial_2_lpmf gradients match finite differences", {
  n <- c(0L, 1L, 5L, 20L)
  expect_gradient_fd("neg_binomial_2_lpmf", list(n, c(0.5, 3, 4.2, 30), c(2, 0.1, 10, 1e3)),
                     c(ints, "vector", "vector"))
  expect_gradient_fd("neg_binomial_2_lpmf", list(n, 4, 0.7), c(ints, "real", "real"))
  # large phi (close to Poisson) and large counts
  expect_gradient_fd("neg_binomial_2_lpmf", list(n, 6, 1e7), c(ints, "real", "real"))
  expect_gradient_fd("neg_binomial_2_lpmf", list(c(100000L, 99000L), c(1.1e5, 9e4), c(50, 3e4)),
                     c(ints, "vector", "vector"))
  expect_gradient_fd("neg_binomial_2_lpmf", list(200L, 150, 1e3), c("int", "real", "real"))
  # the precision partial of a nearly Poisson model is tiny; it must not drown in rounding
  r <- tp_call("neg_binomial_2_lpmf", list(3L, 5, 1e8), c("int", "real", "real"), c(FALSE, TRUE, TRUE))
  exact <- ((5 - 3) / (5 + 1e8) + log1p(-5 / (5 + 1e8)) + sum(1 / (1e8 + 0:2)))
  expect_equal(as.numeric(r$jacobian[[3]]), exact, tolerance = 1e-6)
  expect_rel(as.numeric(r$jacobian[[2]]), 3 / 5 - (3 + 1e8) / (5 + 1e8))
})

test_that("neg_binomial_2_log_lpmf matches dnbinom(mu = exp(eta))", {
  n <- c(0L, 1L, 5L, 20L, 250L, 3L, 0L)
  eta <- c(log(0.5), 1, log(4.2), -2, log(300), 0.9, 7)
  phi <- c(2, 0.1, 10, 1e3, 7, 1e8, 0.3)
  ref <- dnbinom(n, size = phi, mu = exp(eta), log = TRUE)
  ref[6] <- nb2_small_n(n[6], exp(eta[6]), phi[6])
  for (i in seq_along(n))
    expect_rel(val("neg_binomial_2_log_lpmf", list(n[i], eta[i], phi[i]), c("int", "real", "real")),
               ref[i], label = paste("element", i))
  expect_rel(val("neg_binomial_2_log_lpmf", list(n, eta, phi), c(ints, "vector", "vector")), sum(ref))
  expect_rel(val("neg_binomial_2_log_lpmf", list(100000L, log(1.1e5), 50), c("int", "real", "real")),
             dnbinom(100000, size = 50, mu = 1.1e5, log = TRUE), tol = 1e-10)
  expect_gradient_fd("neg_binomial_2_log_lpmf", list(n[1:4], c(-0.7, 1, 1.4, -2), c(2, 0.1, 10, 1e3)),
                     c(ints, "vector", "vector"))
  expect_gradient_fd("neg_binomial_2_log_lpmf", list(n[1:4], 1.2, 0.8), c(ints, "real", "real"))
  expect_gradient_fd("neg_binomial_2_log_lpmf", list(n[1:4], 2, 1e7), c(ints, "real", "real"))
  expect_gradient_fd("neg_binomial_2_log_lpmf", list(c(100000L, 120000L), c(11.6, 11.7), c(50, 3e4)),
                     c(ints, "vector", "vector"))
  expect_gradient_fd("neg_binomial_2_log_lpmf", list(c(0L, 4L), c(-25, 30), c(3, 2)),
                     c(ints, "vector", "vector"))
})

# ---- categorical ----

test_that("categorical_lpmf is log(theta[y]) with gradient count / theta", {
  th <- c(0.1, 0.2, 0.3, 0.4)
  y <- c(1L, 4L, 4L, 2L, 3L)
  expect_rel(val("categorical_lpmf", list(y, th), c(ints, "vector")), sum(log(th[y])))
  expect_rel(val("categorical_lpmf", list(3L, th), c("int", "vector")), log(0.3))
  expect_equal(val("categorical_lpmf", list(integer(0), th), c(ints, "vector")), 0)
  r <- tp_call("categorical_lpmf", list(y, th), c(ints, "vector"), c(FALSE, TRUE))
  expect_rel(as.numeric(r$jacobian[[2]]), tabulate(y, 4) / th)
  expect_equal(r$nodes[1], 1)
  expect_equal(val("categorical_lpmf", list(2L, c(1, 0)), c("int", "vector")), -Inf)
})

test_that("categorical_logit_lpmf is beta[y] - log_sum_exp(beta)", {
  be <- c(-1, 0.5, 2, 0.1)
  y <- c(1L, 4L, 4L, 2L, 3L)
  lse <- function(b) max(b) + log(sum(exp(b - max(b))))
  expect_rel(val("categorical_logit_lpmf", list(y, be), c(ints, "vector")),
             sum(be[y]) - length(y) * lse(be))
  expect_rel(val("categorical_logit_lpmf", list(2L, be), c("int", "vector")), be[2] - lse(be))
  big <- c(800, 1000, -500)
  expect_rel(val("categorical_logit_lpmf", list(c(1L, 2L), big), c(ints, "vector")),
             800 + 1000 - 2 * lse(big))
  expect_equal(val("categorical_logit_lpmf", list(integer(0), be), c(ints, "vector")), 0)
  expect_gradient_fd("categorical_logit_lpmf", list(y, be), c(ints, "vector"), c(FALSE, TRUE))
  expect_gradient_fd("categorical_logit_lpmf", list(3L, c(5, -20, 1)), c("int", "vector"), c(FALSE, TRUE))
})

# ---- bernoulli_logit_glm ----

glm_ref <- function(y, x, alpha, beta) {
  if (is.null(dim(x))) x <- matrix(x, length(y), length(x), byrow = TRUE)
  s <- 2 * y - 1
  eta <- as.numeric(alpha + x %*% beta)
  g <- s * plogis(-s * eta)
  list(value = sum(plogis(s * eta, log.p = TRUE)), g = g, x = x)
}

test_that("bernoulli_logit_glm_lpmf equals bernoulli_logit_lpmf(y | alpha + x * beta)", {
  set.seed(3)
  N <- 7; K <- 3
  x <- matrix(rnorm(N * K), N, K)
  y <- c(0L, 1L, 1L, 0L, 1L, 0L, 1L)
  beta <- c(0.5, -1.2, 2)
  for (alpha in list(0.3, rnorm(N))) {
    at <- if (length(alpha) == 1) "real" else "vector"
    ref <- glm_ref(y, x, alpha, beta)
    args <- list(y, x, alpha, beta)
    types <- c(ints, "matrix", at, "vector")
    expect_rel(val("bernoulli_logit_glm_lpmf", args, types), ref$value)
    expect_rel(val("bernoulli_logit_glm_lpmf", args, types),
               val("bernoulli_logit_lpmf", list(y, as.numeric(alpha + x %*% beta)), c(ints, "vector")))
    r <- tp_call("bernoulli_logit_glm_lpmf", args, types, c(FALSE, TRUE, TRUE, TRUE))
    expect_equal(r$nodes[1], 1)
    expect_rel(as.numeric(r$jacobian[[2]]), as.numeric(outer(ref$g, beta)))
    expect_rel(as.numeric(r$jacobian[[3]]), if (length(alpha) == 1) sum(ref$g) else ref$g)
    expect_rel(as.numeric(r$jacobian[[4]]), as.numeric(crossprod(x, ref$g)))
    expect_gradient_fd("bernoulli_logit_glm_lpmf", args, types, c(FALSE, TRUE, TRUE, TRUE))
    expect_gradient_fd("bernoulli_logit_glm_lpmf", args, types, c(FALSE, FALSE, TRUE, TRUE))
  }
  # int outcome broadcast over the rows, large linear predictors
  ref <- glm_ref(rep(1, N), 10 * x, -1, beta)
  expect_rel(val("bernoulli_logit_glm_lpmf", list(1L, 10 * x, -1, beta), c("int", "matrix", "real", "vector")),
             ref$value)
  expect_gradient_fd("bernoulli_logit_glm_lpmf", list(1L, 10 * x, -1, beta),
                     c("int", "matrix", "real", "vector"), c(FALSE, TRUE, TRUE, TRUE))
})

test_that("bernoulli_logit_glm_lpmf takes a row_vector x shared by every outcome", {
  y <- c(1L, 0L, 0L, 1L, 1L)
  xr <- c(0.4, -2, 1)
  beta <- c(1, 0.3, -0.6)
  alpha <- c(0.1, -0.2, 0.3, 0, 2)
  for (al in list(0.7, alpha)) {
    at <- if (length(al) == 1) "real" else "vector"
    ref <- glm_ref(y, xr, al, beta)
    args <- list(y, xr, al, beta)
    types <- c(ints, "row_vector", at, "vector")
    expect_rel(val("bernoulli_logit_glm_lpmf", args, types), ref$value)
    r <- tp_call("bernoulli_logit_glm_lpmf", args, types, c(FALSE, TRUE, TRUE, TRUE))
    expect_rel(as.numeric(r$jacobian[[2]]), sum(ref$g) * beta)
    expect_rel(as.numeric(r$jacobian[[4]]), sum(ref$g) * xr)
    expect_gradient_fd("bernoulli_logit_glm_lpmf", args, types, c(FALSE, TRUE, TRUE, TRUE))
  }
  expect_rel(val("bernoulli_logit_glm_lpmf", list(0L, xr, 0.2, beta), c("int", "row_vector", "real", "vector")),
             plogis(-(0.2 + sum(xr * beta)), log.p = TRUE))
})

test_that("bernoulli_logit_glm_lpmf on 1000 x 20 records one node and is right", {
  set.seed(5)
  N <- 1000; K <- 20
  x <- matrix(rnorm(N * K), N, K)
  beta <- rnorm(K) / 3
  y <- rbinom(N, 1, 0.4)
  ref <- glm_ref(y, x, 0.2, beta)
  r <- tp_call("bernoulli_logit_glm_lpmf", list(y, x, 0.2, beta), c(ints, "matrix", "real", "vector"),
               c(FALSE, TRUE, TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  expect_rel(unlist(r$value), ref$value)
  expect_equal(as.numeric(r$jacobian[[2]]), as.numeric(outer(ref$g, beta)), tolerance = 1e-12)
  expect_equal(as.numeric(r$jacobian[[4]]), as.numeric(crossprod(x, ref$g)), tolerance = 1e-12)
  expect_rel(as.numeric(r$jacobian[[3]]), sum(ref$g))
  expect_equal(tp_call("bernoulli_logit_glm_lpmf", list(y, x, 0.2, beta),
                       c(ints, "matrix", "real", "vector"), c(FALSE, FALSE, FALSE, TRUE))$nodes[1], 1)
})

# ---- propto ----

test_that("propto drops exactly the constants Stan drops", {
  n <- c(0L, 1L, 5L, 20L)
  N <- c(3L, 4L, 10L, 25L)
  drop <- function(fn, args, types, ad) {
    val_ad(fn, args, types, ad, FALSE) - val_ad(fn, args, types, ad, TRUE)
  }
  # data only: everything goes
  expect_equal(val("poisson_lpmf", list(n, 2), c(ints, "real"), propto = TRUE), 0)
  expect_equal(val("neg_binomial_2_lpmf", list(n, 2, 3), c(ints, "real", "real"), propto = TRUE), 0)
  expect_equal(val("categorical_lpmf", list(2L, c(0.5, 0.5)), c("int", "vector"), propto = TRUE), 0)
  expect_equal(val("bernoulli_logit_glm_lpmf", list(1L, matrix(1, 2, 2), 0, c(1, 1)),
                   c("int", "matrix", "real", "vector"), propto = TRUE), 0)
  # only the terms in the outcomes alone go
  expect_rel(drop("poisson_lpmf", list(n, c(1, 2, 3, 4)), c(ints, "vector"), c(FALSE, TRUE)),
             -sum(lgamma(n + 1)))
  expect_rel(drop("poisson_log_lpmf", list(n, 0.5), c(ints, "real"), c(FALSE, TRUE)),
             -sum(lgamma(n + 1)))
  expect_rel(drop("binomial_lpmf", list(n, N, 0.3), c(ints, ints, "real"), c(FALSE, FALSE, TRUE)),
             sum(lchoose(N, n)))
  expect_rel(drop("binomial_logit_lpmf", list(n, N, c(0, 1, -1, 2)), c(ints, ints, "vector"),
                  c(FALSE, FALSE, TRUE)), sum(lchoose(N, n)))
  expect_equal(drop("bernoulli_lpmf", list(c(0L, 1L), 0.3), c(ints, "real"), c(FALSE, TRUE)), 0)
  expect_equal(drop("bernoulli_logit_lpmf", list(c(0L, 1L), 0.3), c(ints, "real"), c(FALSE, TRUE)), 0)
  expect_equal(drop("categorical_lpmf", list(c(1L, 2L), c(0.4, 0.6)), c(ints, "vector"), c(FALSE, TRUE)), 0)
  expect_equal(drop("categorical_logit_lpmf", list(c(1L, 2L), c(0.4, 0.6)), c(ints, "vector"), c(FALSE, TRUE)), 0)
  # neg_binomial_2: binomial_coefficient_log(n + phi - 1, n) depends on phi, multiply_log(n, mu) on mu
  mu <- c(0.5, 3, 4.2, 30); phi <- c(2, 0.1, 10, 1e3)
  args <- list(n, mu, phi); types <- c(ints, "vector", "vector")
  expect_equal(drop("neg_binomial_2_lpmf", args, types, c(FALSE, TRUE, TRUE)), 0)
  expect_rel(drop("neg_binomial_2_lpmf", args, types, c(FALSE, TRUE, FALSE)),
             sum(lchoose(n + phi - 1, n)))
  expect_rel(drop("neg_binomial_2_lpmf", args, types, c(FALSE, FALSE, TRUE)), sum(n * log(mu)))
  args <- list(n, log(mu), phi)
  expect_equal(drop("neg_binomial_2_log_lpmf", args, types, c(FALSE, TRUE, TRUE)), 0)
  expect_rel(drop("neg_binomial_2_log_lpmf", args, types, c(FALSE, TRUE, FALSE)),
             sum(lchoose(n + phi - 1, n)))
  expect_rel(drop("neg_binomial_2_log_lpmf", args, types, c(FALSE, FALSE, TRUE)), sum(n * log(mu)))
  # the gradient is the same with and without propto
  g1 <- tp_call("neg_binomial_2_lpmf", list(n, mu, phi), types, c(FALSE, TRUE, FALSE), TRUE)$jacobian[[2]]
  g0 <- tp_call("neg_binomial_2_lpmf", list(n, mu, phi), types, c(FALSE, TRUE, FALSE), FALSE)$jacobian[[2]]
  expect_equal(g1, g0)
})

# ---- one node per call ----

test_that("every mass records one chain node on 1000-element inputs", {
  set.seed(9)
  m <- 1000
  n01 <- rbinom(m, 1, 0.5)
  cnt <- rpois(m, 4)
  N <- cnt + rpois(m, 3)
  p <- runif(m, 0.1, 0.9)
  pos <- runif(m, 0.5, 5)
  cases <- list(
    list("bernoulli_lpmf", list(n01, p), c(ints, "vector")),
    list("bernoulli_logit_lpmf", list(n01, qlogis(p)), c(ints, "vector")),
    list("binomial_lpmf", list(cnt, N, p), c(ints, ints, "vector")),
    list("binomial_logit_lpmf", list(cnt, N, qlogis(p)), c(ints, ints, "vector")),
    list("poisson_lpmf", list(cnt, pos), c(ints, "vector")),
    list("poisson_log_lpmf", list(cnt, log(pos)), c(ints, "vector")),
    list("neg_binomial_2_lpmf", list(cnt, pos, pos + 1), c(ints, "vector", "vector")),
    list("neg_binomial_2_log_lpmf", list(cnt, log(pos), pos + 1), c(ints, "vector", "vector")),
    list("neg_binomial_2_lpmf", list(cnt, 4, pos), c(ints, "real", "vector")),
    list("categorical_lpmf", list(sample.int(4, m, TRUE), rep(0.25, 4)), c(ints, "vector")),
    list("categorical_logit_lpmf", list(sample.int(4, m, TRUE), rnorm(4)), c(ints, "vector"))
  )
  for (cs in cases) {
    ad <- !grepl("int", cs[[3]])
    r <- tp_call(cs[[1]], cs[[2]], cs[[3]], ad)
    expect_equal(r$nodes[1], 1, label = paste(cs[[1]], "chain nodes"))
    expect_true(is.finite(unlist(r$value)), label = paste(cs[[1]], "value"))
    expect_equal(unlist(r$value), val(cs[[1]], cs[[2]], cs[[3]]), tolerance = 1e-14)
  }
  # data only: no node
  expect_equal(tp_call("poisson_lpmf", list(cnt, pos), c(ints, "vector"))$nodes[1], 0)
})

# ---- errors ----

test_that("bad arguments give Stan's messages", {
  expect_error(tval("poisson_lpmf", list(-1L, 2), c("int", "real")),
               "poisson_lpmf: Random variable is -1, but must be nonnegative!", fixed = TRUE)
  expect_error(tval("poisson_lpmf", list(c(1L, -3L), 2), c(ints, "real")),
               "poisson_lpmf: Random variable[2] is -3", fixed = TRUE)
  expect_error(tval("poisson_lpmf", list(1L, -2), c("int", "real")), "poisson_lpmf: Rate parameter")
  expect_error(tval("poisson_lpmf", list(1L, NaN), c("int", "real")), "poisson_lpmf: Rate parameter")
  expect_error(tval("poisson_lpmf", list(c(1L, 2L), c(1, 2, 3)), c(ints, "vector")),
               "poisson_lpmf: Size of Random variable \\(2\\) and size of Rate parameter \\(3\\)")
  expect_error(tval("poisson_log_lpmf", list(1L, NaN), c("int", "real")), "poisson_log_lpmf: Log rate parameter")
  expect_error(tval("bernoulli_lpmf", list(2L, 0.5), c("int", "real")), "bernoulli_lpmf: n is 2")
  expect_error(tval("bernoulli_lpmf", list(1L, 1.5), c("int", "real")), "bernoulli_lpmf: Probability parameter")
  expect_error(tval("bernoulli_lpmf", list(1L, NaN), c("int", "real")), "bernoulli_lpmf: Probability parameter")
  expect_error(tval("bernoulli_logit_lpmf", list(1L, NaN), c("int", "real")),
               "bernoulli_logit_lpmf: Logit transformed probability parameter")
  expect_error(tval("bernoulli_logit_lpmf", list(-1L, 0), c("int", "real")), "bernoulli_logit_lpmf: n is -1")
  expect_error(tval("binomial_lpmf", list(5L, 3L, 0.5), c("int", "int", "real")),
               "binomial_lpmf: Successes variable is 5, but must be in the interval [0, 3]", fixed = TRUE)
  expect_error(tval("binomial_lpmf", list(c(1L, 5L), c(3L, 4L), 0.5), c(ints, ints, "real")),
               "binomial_lpmf: Successes variable[2] is 5", fixed = TRUE)
  expect_error(tval("binomial_lpmf", list(-1L, 3L, 0.5), c("int", "int", "real")), "binomial_lpmf: Successes variable")
  expect_error(tval("binomial_lpmf", list(1L, 3L, 1.2), c("int", "int", "real")), "binomial_lpmf: Probability parameter")
  expect_error(tval("binomial_logit_lpmf", list(1L, 3L, Inf), c("int", "int", "real")),
               "binomial_logit_lpmf: Probability parameter is inf")
  expect_error(tval("binomial_lpmf", list(c(1L, 2L), c(3L, 4L, 5L), 0.5), c(ints, ints, "real")),
               "binomial_lpmf: Size of Successes variable")
  expect_error(tval("neg_binomial_2_lpmf", list(-2L, 1, 1), c("int", "real", "real")),
               "neg_binomial_2_lpmf: Failures variable is -2")
  expect_error(tval("neg_binomial_2_lpmf", list(2L, 0, 1), c("int", "real", "real")),
               "neg_binomial_2_lpmf: Location parameter is 0, but must be positive finite!")
  expect_error(tval("neg_binomial_2_lpmf", list(2L, 1, Inf), c("int", "real", "real")),
               "neg_binomial_2_lpmf: Precision parameter is inf")
  expect_error(tval("neg_binomial_2_log_lpmf", list(2L, Inf, 1), c("int", "real", "real")),
               "neg_binomial_2_log_lpmf: Log location parameter is inf")
  expect_error(tval("neg_binomial_2_log_lpmf", list(2L, 1, -1), c("int", "real", "real")),
               "neg_binomial_2_log_lpmf: Precision parameter is -1")
  expect_error(tval("categorical_lpmf", list(0L, c(0.5, 0.5)), c("int", "vector")),
               "categorical_lpmf: Number of categories is 0, but must be in the interval [1, 2]", fixed = TRUE)
  expect_error(tval("categorical_lpmf", list(c(1L, 3L), c(0.5, 0.5)), c(ints, "vector")),
               "categorical_lpmf: element of outcome array[2] is 3", fixed = TRUE)
  expect_error(tval("categorical_lpmf", list(1L, c(0.5, 0.6)), c("int", "vector")),
               "categorical_lpmf: Probabilities parameter is not a valid simplex. sum(Probabilities parameter) = 1.1",
               fixed = TRUE)
  expect_error(tval("categorical_lpmf", list(1L, c(1.5, -0.5)), c("int", "vector")),
               "categorical_lpmf: Probabilities parameter is not a valid simplex. Probabilities parameter[2] = -0.5",
               fixed = TRUE)
  expect_error(tval("categorical_lpmf", list(integer(0), numeric(0)), c(ints, "vector")),
               "categorical_lpmf: Probabilities parameter has size 0")
  expect_error(tval("categorical_logit_lpmf", list(3L, c(1, 2)), c("int", "vector")),
               "categorical_logit_lpmf: categorical outcome out of support is 3")
  expect_error(tval("categorical_logit_lpmf", list(1L, c(1, NaN)), c("int", "vector")),
               "categorical_logit_lpmf: log odds parameter\\[2\\] is nan")
  x <- matrix(1, 3, 2)
  glmt <- c(ints, "matrix", "real", "vector")
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 0L), x, 0, c(1, 1)), glmt),
               "bernoulli_logit_glm_lpmf: Vector of dependent variables has dimension = 2, expecting dimension = 3")
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 0L, 1L), x, 0, c(1, 1, 1)), glmt),
               "bernoulli_logit_glm_lpmf: Weight vector has dimension = 3, expecting dimension = 2")
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 0L, 1L), x, c(0, 1), c(1, 1)),
                    c(ints, "matrix", "vector", "vector")),
               "bernoulli_logit_glm_lpmf: Vector of intercepts has dimension = 2")
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 2L, 1L), x, 0, c(1, 1)), glmt),
               "bernoulli_logit_glm_lpmf: Vector of dependent variables\\[2\\] is 2")
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 0L, 1L), x, 0, c(1, Inf)), glmt),
               "bernoulli_logit_glm_lpmf: Weight vector\\[2\\] is inf")
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 0L, 1L), x, NaN, c(1, 1)), glmt),
               "bernoulli_logit_glm_lpmf: Intercept is nan")
  x[2, 1] <- NaN
  expect_error(tval("bernoulli_logit_glm_lpmf", list(c(1L, 0L, 1L), x, 0, c(1, 1)), glmt),
               "bernoulli_logit_glm_lpmf: Matrix of independent variables\\[2\\] is nan")
  # domain errors are classed so that the sampler can reject the proposal
  e <- tryCatch(tval("poisson_lpmf", list(-1L, 2), c("int", "real")), error = function(e) e)
  expect_s3_class(e, "tapestry_error")
})
