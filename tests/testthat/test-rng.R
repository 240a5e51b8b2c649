# The _rng functions: goodness of fit against R's distribution functions,
# vectorization, reproducibility and argument checks.  Every check draws with
# its own fixed seed (so checks are independent and never flaky) and uses
# 20,000 draws against a p-value threshold of 1e-3.

N_DRAWS <- 20000

# N_DRAWS draws in one vectorized call: the first argument repeated.
draws <- function(fn, args, types, seed, n = N_DRAWS) {
  args[[1]] <- rep(args[[1]], n)
  types[1] <- paste("array[]", types[1])
  tp_call(fn, args, types, seed = seed)$value
}

expect_ks <- function(x, pfun, label) {
  p <- suppressWarnings(ks.test(x, pfun)$p.value)
  expect_true(p > 1e-3, label = sprintf("%s: KS p-value %.3g", label, p))
}

# Chi-square goodness of fit of integer draws against pmf `d` and cdf `pc`
# (pc(k) = P(X <= k)); cells are merged until each expects at least 20
# draws, the two tails included.
expect_chisq <- function(x, d, pc, label) {
  lo <- min(x); hi <- max(x)
  k <- lo:hi
  e <- d(k)
  e[1] <- e[1] + (if (lo > 0) pc(lo - 1) else 0)
  e[length(e)] <- e[length(e)] + (1 - pc(hi))
  e <- e * length(x)
  o <- tabulate(x - lo + 1L, hi - lo + 1L)
  gid <- integer(length(e)); g <- 1L; acc <- 0
  for (i in seq_along(e)) {
    gid[i] <- g; acc <- acc + e[i]
    if (acc >= 20) { g <- g + 1L; acc <- 0 }
  }
  if (acc > 0) gid[gid == g] <- max(g - 1L, 1L)
  O <- tapply(o, gid, sum); E <- tapply(e, gid, sum)
  expect_true(length(O) >= 2, label = paste(label, "has at least two cells"))
  stat <- sum((O - E)^2 / E)
  p <- pchisq(stat, length(O) - 1, lower.tail = FALSE)
  expect_true(p > 1e-3, label = sprintf("%s: chi-square p-value %.3g (%d cells)", label, p, length(O)))
}

test_that("continuous _rng functions follow their distributions (KS)", {
  pdexp <- function(mu, s) function(q) ifelse(q < mu, 0.5 * exp((q - mu) / s), 1 - 0.5 * exp(-(q - mu) / s))
  cases <- list(
    list("normal_rng", list(1, 2), function(q) pnorm(q, 1, 2)),
    list("normal_rng", list(-1e3, 1e-3), function(q) pnorm(q, -1e3, 1e-3)),
    list("student_t_rng", list(0.5, 1, 2), function(q) pt((q - 1) / 2, 0.5)),
    list("student_t_rng", list(4, -2, 0.5), function(q) pt((q + 2) / 0.5, 4)),
    list("student_t_rng", list(300, 0, 1), function(q) pt(q, 300)),
    list("cauchy_rng", list(1, 3), function(q) pcauchy(q, 1, 3)),
    list("cauchy_rng", list(-5, 0.1), function(q) pcauchy(q, -5, 0.1)),
    list("double_exponential_rng", list(1, 3), pdexp(1, 3)),
    list("double_exponential_rng", list(-2, 0.2), pdexp(-2, 0.2)),
    list("logistic_rng", list(1, 3), function(q) plogis(q, 1, 3)),
    list("logistic_rng", list(-4, 0.5), function(q) plogis(q, -4, 0.5)),
    list("lognormal_rng", list(1, 0.3), function(q) plnorm(q, 1, 0.3)),
    list("lognormal_rng", list(-1, 2), function(q) plnorm(q, -1, 2)),
    list("exponential_rng", list(2.5), function(q) pexp(q, 2.5)),
    list("exponential_rng", list(1e-3), function(q) pexp(q, 1e-3)),
    list("gamma_rng", list(0.1, 2), function(q) pgamma(q, 0.1, 2)),
    list("gamma_rng", list(0.7, 0.5), function(q) pgamma(q, 0.7, 0.5)),
    list("gamma_rng", list(1, 1), function(q) pgamma(q, 1, 1)),
    list("gamma_rng", list(30, 3), function(q) pgamma(q, 30, 3)),
    list("inv_gamma_rng", list(0.3, 2), function(q) pgamma(2 / q, 0.3, lower.tail = FALSE)),
    list("inv_gamma_rng", list(4, 0.5), function(q) pgamma(0.5 / q, 4, lower.tail = FALSE)),
    list("weibull_rng", list(0.4, 2), function(q) pweibull(q, 0.4, 2)),
    list("weibull_rng", list(3, 0.5), function(q) pweibull(q, 3, 0.5)),
    list("beta_rng", list(0.1, 0.2), function(q) pbeta(q, 0.1, 0.2)),
    list("beta_rng", list(0.3, 0.3), function(q) pbeta(q, 0.3, 0.3)),
    list("beta_rng", list(1.5, 0.7), function(q) pbeta(q, 1.5, 0.7)),
    list("beta_rng", list(2, 30), function(q) pbeta(q, 2, 30)),
    list("uniform_rng", list(-1, 2), function(q) punif(q, -1, 2)),
    list("uniform_rng", list(1e6, 1e6 + 1), function(q) punif(q, 1e6, 1e6 + 1))
  )
  for (i in seq_along(cases)) {
    cs <- cases[[i]]
    x <- draws(cs[[1]], cs[[2]], rep("real", length(cs[[2]])), seed = 100 + i)
    expect_length(x, N_DRAWS)
    expect_true(all(is.finite(x)), label = paste(cs[[1]], "draws are finite"))
    expect_ks(x, cs[[3]], paste(cs[[1]], paste(unlist(cs[[2]]), collapse = ", ")))
  }
  # std_normal_rng has no arguments: draws one at a time
  x <- unlist(tp_rng("std_normal_rng", list(), character(0), N_DRAWS, seed = 99))
  expect_ks(x, pnorm, "std_normal_rng")
})

test_that("further continuous _rng functions follow their distributions (KS)", {
  pemg <- function(mu, s, l) function(q) {
    z <- (q - mu) / s
    pnorm(z) - exp(-l * (q - mu) + l^2 * s^2 / 2 + pnorm(z - l * s, log.p = TRUE))
  }
  cases <- list(
    list("chi_square_rng", list(5), function(q) pchisq(q, 5)),
    list("chi_square_rng", list(0.3), function(q) pchisq(q, 0.3)),
    list("inv_chi_square_rng", list(3), function(q) pchisq(1 / q, 3, lower.tail = FALSE)),
    list("scaled_inv_chi_square_rng", list(4, 2), function(q) pchisq(16 / q, 4, lower.tail = FALSE)),
    list("exp_mod_normal_rng", list(1, 2, 0.5), pemg(1, 2, 0.5)),
    list("gumbel_rng", list(1, 2), function(q) exp(-exp(-(q - 1) / 2))),
    list("frechet_rng", list(2, 3), function(q) exp(-(q / 3)^-2)),
    list("rayleigh_rng", list(2), function(q) 1 - exp(-q^2 / 8)),
    list("pareto_rng", list(2, 3), function(q) 1 - (2 / q)^3),
    list("pareto_type_2_rng", list(1, 2, 3), function(q) 1 - (1 + (q - 1) / 2)^-3),
    list("loglogistic_rng", list(2, 3), function(q) 1 / (1 + (q / 2)^-3)),
    list("beta_proportion_rng", list(0.3, 5), function(q) pbeta(q, 1.5, 3.5))
  )
  for (i in seq_along(cases)) {
    cs <- cases[[i]]
    x <- draws(cs[[1]], cs[[2]], rep("real", length(cs[[2]])), seed = 300 + i)
    expect_ks(x, cs[[3]], paste(cs[[1]], paste(unlist(cs[[2]]), collapse = ", ")))
  }
  # skew normal: the squared standardized draw is chi-square(1) and the sign
  # is positive with probability 1/2 + atan(alpha) / pi
  x <- draws("skew_normal_rng", list(1, 2, 3), rep("real", 3), seed = 320)
  z <- (x - 1) / 2
  expect_ks(z^2, function(q) pchisq(q, 1), "skew_normal_rng squared")
  expect_true(binom.test(sum(z > 0), length(z), 0.5 + atan(3) / pi)$p.value > 1e-3)
  expect_equal(mean(z), 3 / sqrt(10) * sqrt(2 / pi), tolerance = 0.02)
})

test_that("further discrete _rng functions follow their distributions (chi-square)", {
  dbb <- function(k, n, a, b) exp(lchoose(n, k) + lbeta(k + a, n - k + b) - lbeta(a, b))
  x <- draws("beta_binomial_rng", list(20, 0.5, 2), c("int", "real", "real"), seed = 330)
  expect_chisq(x, function(k) dbb(k, 20, 0.5, 2), function(k) sum(dbb(0:k, 20, 0.5, 2)), "beta_binomial_rng")
  x <- draws("neg_binomial_rng", list(2, 0.5), c("real", "real"), seed = 331)
  expect_chisq(x, function(k) dnbinom(k, 2, 0.5 / 1.5), function(k) pnbinom(k, 2, 0.5 / 1.5), "neg_binomial_rng")
  x <- draws("discrete_range_rng", list(-3L, 4L), c("int", "int"), seed = 332)
  expect_true(is.integer(x) && all(x >= -3 & x <= 4))
  expect_chisq(x, function(k) ifelse(k >= -3 & k <= 4, 1 / 8, 0), function(k) pmin(pmax(k + 4, 0), 8) / 8,
               "discrete_range_rng")
  expect_equal(unique(draws("discrete_range_rng", list(5L, 5L), c("int", "int"), seed = 1, n = 50)), 5L)
})

test_that("location-scale draws are the standard draw moved and scaled", {
  z <- unlist(tp_rng("std_normal_rng", list(), character(0), 5, seed = 7))
  x <- unlist(tp_rng("normal_rng", list(3, 2), c("real", "real"), 5, seed = 7))
  expect_equal(x, 3 + 2 * z, tolerance = 1e-14)
  x <- unlist(tp_rng("lognormal_rng", list(3, 2), c("real", "real"), 5, seed = 7))
  expect_equal(x, exp(3 + 2 * z), tolerance = 1e-14)
})

test_that("discrete _rng functions follow their distributions (chi-square)", {
  cases <- list(
    list("bernoulli_rng", list(0.3), "real", function(k) dbinom(k, 1, 0.3), function(k) pbinom(k, 1, 0.3)),
    list("bernoulli_logit_rng", list(-1.2), "real",
         function(k) dbinom(k, 1, plogis(-1.2)), function(k) pbinom(k, 1, plogis(-1.2))),
    list("binomial_rng", list(10, 0.3), c("int", "real"),
         function(k) dbinom(k, 10, 0.3), function(k) pbinom(k, 10, 0.3)),
    list("binomial_rng", list(20, 0.97), c("int", "real"),
         function(k) dbinom(k, 20, 0.97), function(k) pbinom(k, 20, 0.97)),
    list("binomial_rng", list(100, 0.31), c("int", "real"),
         function(k) dbinom(k, 100, 0.31), function(k) pbinom(k, 100, 0.31)),
    list("binomial_rng", list(5000, 0.8), c("int", "real"),
         function(k) dbinom(k, 5000, 0.8), function(k) pbinom(k, 5000, 0.8)),
    list("binomial_rng", list(1e8, 0.4), c("int", "real"),
         function(k) dbinom(k, 1e8, 0.4), function(k) pbinom(k, 1e8, 0.4)),
    list("binomial_logit_rng", list(200, 0.5), c("int", "real"),
         function(k) dbinom(k, 200, plogis(0.5)), function(k) pbinom(k, 200, plogis(0.5))),
    list("poisson_rng", list(0.5), "real", function(k) dpois(k, 0.5), function(k) ppois(k, 0.5)),
    list("poisson_rng", list(9.5), "real", function(k) dpois(k, 9.5), function(k) ppois(k, 9.5)),
    list("poisson_rng", list(40), "real", function(k) dpois(k, 40), function(k) ppois(k, 40)),
    list("poisson_rng", list(1e6), "real", function(k) dpois(k, 1e6), function(k) ppois(k, 1e6)),
    list("poisson_rng", list(1e9), "real", function(k) dpois(k, 1e9), function(k) ppois(k, 1e9)),
    list("poisson_log_rng", list(log(20)), "real", function(k) dpois(k, 20), function(k) ppois(k, 20)),
    list("neg_binomial_2_rng", list(10, 0.5), c("real", "real"),
         function(k) dnbinom(k, size = 0.5, mu = 10), function(k) pnbinom(k, size = 0.5, mu = 10)),
    list("neg_binomial_2_rng", list(500, 40), c("real", "real"),
         function(k) dnbinom(k, size = 40, mu = 500), function(k) pnbinom(k, size = 40, mu = 500)),
    list("neg_binomial_2_log_rng", list(log(3), 2), c("real", "real"),
         function(k) dnbinom(k, size = 2, mu = 3), function(k) pnbinom(k, size = 2, mu = 3))
  )
  for (i in seq_along(cases)) {
    cs <- cases[[i]]
    x <- draws(cs[[1]], cs[[2]], cs[[3]], seed = 200 + i)
    expect_true(is.integer(x), label = paste(cs[[1]], "gives ints"))
    expect_length(x, N_DRAWS)
    expect_chisq(x, cs[[4]], cs[[5]], paste(cs[[1]], paste(unlist(cs[[2]]), collapse = ", ")))
  }
  theta <- c(0.1, 0.25, 0.05, 0.6)
  x <- unlist(tp_rng("categorical_rng", list(theta), "vector", N_DRAWS, seed = 250))
  expect_true(is.integer(x) && all(x %in% 1:4))
  expect_chisq(x, function(k) theta[k], function(k) c(0, cumsum(theta))[k + 1], "categorical_rng")
  x <- unlist(tp_rng("categorical_logit_rng", list(c(2, -1, 0.5)), "vector", N_DRAWS, seed = 251))
  pr <- exp(c(2, -1, 0.5)); pr <- pr / sum(pr)
  expect_chisq(x, function(k) pr[k], function(k) c(0, cumsum(pr))[k + 1], "categorical_logit_rng")
  # an overwhelming log odds gives that category every time
  expect_true(all(unlist(tp_rng("categorical_logit_rng", list(c(0, 800, 0)), "vector", 50, seed = 3)) == 2L))
})

test_that("degenerate parameters give their only value", {
  expect_equal(unique(draws("binomial_rng", list(7, 0), c("int", "real"), 1, n = 100)), 0L)
  expect_equal(unique(draws("binomial_rng", list(7, 1), c("int", "real"), 1, n = 100)), 7L)
  expect_equal(unique(draws("binomial_rng", list(0, 0.5), c("int", "real"), 1, n = 100)), 0L)
  expect_equal(unique(draws("poisson_rng", list(0), "real", 1, n = 100)), 0L)
  expect_equal(unique(draws("poisson_log_rng", list(-Inf), "real", 1, n = 100)), 0L)
  expect_equal(unique(draws("bernoulli_rng", list(1), "real", 1, n = 100)), 1L)
  expect_equal(unlist(tp_rng("categorical_rng", list(c(0, 1, 0)), "vector", 20, seed = 2)), rep(2L, 20))
})

test_that("_rng functions vectorize as Stan does", {
  # all scalars: one scalar
  x <- tp_call("normal_rng", list(0, 1), c("real", "real"), seed = 1)$value
  expect_length(x, 1)
  x <- tp_call("poisson_rng", list(3), "real", seed = 1)$value
  expect_true(is.integer(x) && length(x) == 1)
  # containers of any kind give an array of their size; scalars broadcast
  x <- tp_call("normal_rng", list(c(0, 1000, -1000), 1e-3), c("vector", "real"), seed = 1)$value
  expect_equal(x, c(0, 1000, -1000), tolerance = 1e-5)
  x <- tp_call("normal_rng", list(5, c(1e-9, 1e-9)), c("real", "row_vector"), seed = 1)$value
  expect_equal(x, c(5, 5), tolerance = 1e-8)
  x <- tp_call("uniform_rng", list(c(0, 10), c(1, 11)), c("array[] real", "vector"), seed = 1)$value
  expect_true(x[1] > 0 && x[1] < 1 && x[2] > 10 && x[2] < 11)
  x <- tp_call("binomial_rng", list(c(0L, 5L, 1000L), 1), c("array[] int", "real"), seed = 1)$value
  expect_identical(x, c(0L, 5L, 1000L))
  x <- tp_call("poisson_rng", list(c(0, 0, 0)), "vector", seed = 1)$value
  expect_identical(x, c(0L, 0L, 0L))
  x <- tp_call("student_t_rng", list(3, c(1, 2, 3, 4), 1), c("real", "array[] real", "real"), seed = 1)$value
  expect_length(x, 4)
  # an empty container gives an empty array
  x <- tp_call("normal_rng", list(numeric(0), 1), c("vector", "real"), seed = 1)$value
  expect_length(x, 0)
  # int arguments where reals are expected
  x <- tp_call("exponential_rng", list(2L), "int", seed = 1)$value
  expect_true(x > 0)
})

test_that("autodiff arguments are read by value and record nothing", {
  r <- tp_call("normal_rng", list(c(1, 2), 0.5), c("vector", "real"), ad = c(TRUE, TRUE), seed = 4)
  r0 <- tp_call("normal_rng", list(c(1, 2), 0.5), c("vector", "real"), seed = 4)
  expect_equal(r$value, r0$value)
  expect_equal(r$nodes[1], 0)
  expect_null(r$jacobian[[1]])
  r <- tp_call("multi_normal_rng", list(c(0, 1), diag(2)), c("vector", "matrix"), ad = c(TRUE, TRUE), seed = 4)
  expect_equal(r$nodes[1], 0)
})

test_that("the same seed gives the same draws and different seeds differ", {
  fns <- list(list("normal_rng", list(0, 1), c("real", "real")),
              list("gamma_rng", list(0.5, 1), c("real", "real")),
              list("poisson_rng", list(100), "real"),
              list("binomial_rng", list(1000L, 0.3), c("int", "real")),
              list("dirichlet_rng", list(c(1, 2, 3)), "vector"),
              list("lkj_corr_cholesky_rng", list(3L, 2), c("int", "real")))
  for (f in fns) {
    a <- tp_rng(f[[1]], f[[2]], f[[3]], 50, seed = 11)
    b <- tp_rng(f[[1]], f[[2]], f[[3]], 50, seed = 11)
    d <- tp_rng(f[[1]], f[[2]], f[[3]], 50, seed = 12)
    expect_identical(a, b, label = paste(f[[1]], "same seed"))
    expect_false(identical(a, d), label = paste(f[[1]], "different seeds"))
  }
})

test_that("multi_normal_rng and multi_normal_cholesky_rng have the right mean and covariance", {
  Sigma <- matrix(c(4, 1.2, -0.6, 1.2, 1, 0.3, -0.6, 0.3, 2), 3)
  mu <- c(1, -2, 10)
  L <- t(chol(Sigma))
  for (fn in c("multi_normal_rng", "multi_normal_cholesky_rng")) {
    S <- if (fn == "multi_normal_rng") Sigma else L
    x <- do.call(rbind, tp_rng(fn, list(mu, S), c("vector", "matrix"), N_DRAWS, seed = 31))
    expect_equal(dim(x), c(N_DRAWS, 3))
    se <- sqrt(diag(Sigma) / N_DRAWS)
    expect_true(all(abs(colMeans(x) - mu) < 4.5 * se), label = paste(fn, "mean"))
    expect_true(all(abs(cov(x) - Sigma) < 0.12), label = paste(fn, "covariance"))
    # each margin is normal
    expect_ks(x[, 1], function(q) pnorm(q, 1, 2), paste(fn, "margin 1"))
    expect_ks(x[, 2] + x[, 3], function(q) pnorm(q, 8, sqrt(1 + 2 + 2 * 0.3)), paste(fn, "sum of margins 2, 3"))
  }
  # row_vector location; an array of locations gives an array of vectors
  x <- tp_call("multi_normal_rng", list(mu, Sigma), c("row_vector", "matrix"), seed = 1)$value
  expect_length(x, 3)
  locs <- list(c(0, 0, 0), c(100, 100, 100))
  x <- tp_call("multi_normal_rng", list(locs, Sigma * 1e-8), c("array[] vector", "matrix"), seed = 1)$value
  expect_length(x, 2)
  expect_equal(x[[2]], c(100, 100, 100), tolerance = 1e-5)
  x <- tp_call("multi_normal_cholesky_rng", list(locs, L * 1e-4), c("array[] row_vector", "matrix"), seed = 1)$value
  expect_equal(x[[1]], c(0, 0, 0), tolerance = 1e-2)
  x <- tp_call("multi_normal_rng", list(list(), Sigma), c("array[] vector", "matrix"), seed = 1)$value
  expect_length(x, 0)
})

test_that("dirichlet_rng draws simplexes with the right means", {
  for (alpha in list(c(2, 3, 5), c(0.2, 0.5, 3, 0.05))) {
    x <- do.call(rbind, tp_rng("dirichlet_rng", list(alpha), "vector", N_DRAWS, seed = 41))
    expect_true(all(x >= 0) && all(is.finite(x)))
    expect_true(all(abs(rowSums(x) - 1) < 1e-12))
    a0 <- sum(alpha); m <- alpha / a0
    se <- sqrt(m * (1 - m) / (a0 + 1) / N_DRAWS)
    expect_true(all(abs(colMeans(x) - m) < 4.5 * se), label = paste("dirichlet means", toString(alpha)))
    # the first coordinate is Beta(alpha1, a0 - alpha1)
    expect_ks(x[, 1], function(q) pbeta(q, alpha[1], a0 - alpha[1]), paste("dirichlet margin", toString(alpha)))
  }
  # tiny concentrations still give valid simplexes
  x <- do.call(rbind, tp_rng("dirichlet_rng", list(c(1e-3, 1e-3, 1e-3)), "vector", 200, seed = 42))
  expect_true(all(is.finite(x)) && all(abs(rowSums(x) - 1) < 1e-12))
})

test_that("lkj_corr_cholesky_rng draws Cholesky factors of correlation matrices", {
  K <- 4
  for (eta in c(1, 0.5, 5)) {
    Ls <- tp_rng("lkj_corr_cholesky_rng", list(K, eta), c("int", "real"), N_DRAWS / 2, seed = 51)
    ok <- vapply(Ls, function(L) {
      all(dim(L) == K) && all(L[upper.tri(L)] == 0) && all(diag(L) > 0) &&
        all(abs(rowSums(L^2) - 1) < 1e-12)
    }, logical(1))
    expect_true(all(ok), label = paste("valid factors, eta", eta))
    r41 <- vapply(Ls, function(L) (L %*% t(L))[4, 1], 0)
    r23 <- vapply(Ls, function(L) (L %*% t(L))[2, 3], 0)
    # marginally each correlation is 2 Beta(b, b) - 1 with b = eta - 1 + K / 2
    b <- eta - 1 + K / 2
    expect_ks(r41, function(q) pbeta((q + 1) / 2, b, b), paste("lkj r41, eta", eta))
    expect_ks(r23, function(q) pbeta((q + 1) / 2, b, b), paste("lkj r23, eta", eta))
    if (eta == 1) expect_true(abs(mean(c(r41, r23))) < 0.03)
  }
  expect_equal(tp_call("lkj_corr_cholesky_rng", list(1L, 2), c("int", "real"))$value, matrix(1, 1, 1))
  expect_equal(dim(tp_call("lkj_corr_cholesky_rng", list(0L, 2), c("int", "real"))$value), c(0L, 0L))
  R <- tp_call("lkj_corr_rng", list(5L, 1.5), c("int", "real"), seed = 3)$value
  expect_equal(diag(R), rep(1, 5))
  expect_equal(R, t(R))
  expect_true(all(eigen(R, only.values = TRUE)$values > 0))
})

test_that("bad arguments give Stan's errors naming the function", {
  e <- function(fn, args, types, msg) expect_error(tp_call(fn, args, types), msg, fixed = TRUE)
  e("normal_rng", list(0, -1), c("real", "real"), "normal_rng: Scale parameter is -1, but must be positive finite!")
  e("normal_rng", list(NaN, 1), c("real", "real"), "normal_rng: Location parameter is")
  e("normal_rng", list(c(0, Inf), 1), c("vector", "real"), "normal_rng: Location parameter[2] is")
  e("normal_rng", list(c(1, 2), c(1, 2, 3)), c("vector", "array[] real"),
    "normal_rng: Size of Location parameter (2) and size of Scale parameter (3) must match")
  e("student_t_rng", list(0, 0, 1), c("real", "real", "real"), "student_t_rng: Degrees of freedom parameter is 0")
  e("cauchy_rng", list(0, Inf), c("real", "real"), "cauchy_rng: Scale parameter is")
  e("exponential_rng", list(-2), "real", "exponential_rng: Inverse scale parameter is -2")
  e("gamma_rng", list(1, 0), c("real", "real"), "gamma_rng: Inverse scale parameter is 0")
  e("inv_gamma_rng", list(-1, 1), c("real", "real"), "inv_gamma_rng: Shape parameter is -1")
  e("weibull_rng", list(1, NaN), c("real", "real"), "weibull_rng: Scale parameter is")
  e("beta_rng", list(0, 1), c("real", "real"), "beta_rng: First shape parameter is 0")
  e("beta_rng", list(1, -1), c("real", "real"), "beta_rng: Second shape parameter is -1")
  e("uniform_rng", list(1, 0), c("real", "real"), "uniform_rng: Upper bound parameter is 0, but must be greater than 1")
  e("uniform_rng", list(-Inf, 0), c("real", "real"), "uniform_rng: Lower bound parameter is")
  e("bernoulli_rng", list(1.5), "real", "bernoulli_rng: Probability parameter is 1.5, but must be in the interval [0, 1]")
  e("bernoulli_logit_rng", list(NaN), "real", "bernoulli_logit_rng: Logit transformed probability parameter is")
  e("binomial_rng", list(-1L, 0.5), c("int", "real"), "binomial_rng: Population size parameter is -1")
  e("binomial_rng", list(3L, c(0.5, -0.1)), c("int", "vector"), "binomial_rng: Probability parameter[2] is -0.1")
  e("binomial_logit_rng", list(3L, Inf), c("int", "real"), "binomial_logit_rng: Logit transformed probability parameter")
  e("poisson_rng", list(-1), "real", "poisson_rng: Rate parameter is -1, but must be nonnegative!")
  e("poisson_rng", list(2^31), "real", "poisson_rng: Rate parameter is 2147483648, but must be less than 1.07374e+09")
  e("poisson_log_rng", list(25), "real", "poisson_log_rng: Log rate parameter is 25, but must be less than 20.7944")
  e("neg_binomial_2_rng", list(0, 1), c("real", "real"), "neg_binomial_2_rng: Location parameter is 0")
  e("neg_binomial_2_rng", list(1, -1), c("real", "real"), "neg_binomial_2_rng: Precision parameter is -1")
  e("neg_binomial_2_rng", list(1e15, 1), c("real", "real"),
    "neg_binomial_2_rng: Random number that came from gamma distribution is")
  e("neg_binomial_2_log_rng", list(NaN, 1), c("real", "real"), "neg_binomial_2_log_rng: Log-location parameter is")
  e("categorical_rng", list(c(0.5, 0.6)), "vector",
    "categorical_rng: Probabilities parameter is not a valid simplex. sum(Probabilities parameter) = 1.1")
  e("categorical_rng", list(c(1.2, -0.2)), "vector", "categorical_rng: Probabilities parameter is not a valid simplex")
  e("categorical_rng", list(numeric(0)), "vector", "categorical_rng: Probabilities parameter has size 0")
  e("categorical_logit_rng", list(c(1, NaN)), "vector", "categorical_logit_rng: Log odds parameter[2] is")
  e("dirichlet_rng", list(c(1, 0)), "vector", "dirichlet_rng: prior sample sizes[2] is 0")
  S <- diag(2)
  e("multi_normal_rng", list(c(0, 0, 0), S), c("vector", "matrix"), "multi_normal_rng: Size of Rows of location parameter (3)")
  e("multi_normal_rng", list(c(0, NaN), S), c("vector", "matrix"), "multi_normal_rng: Location parameter[2] is")
  e("multi_normal_rng", list(c(0, 0), matrix(c(1, 0.5, 0.2, 1), 2)), c("vector", "matrix"),
    "multi_normal_rng: Covariance matrix is not symmetric")
  e("multi_normal_rng", list(c(0, 0), matrix(c(1, 2, 2, 1), 2)), c("vector", "matrix"),
    "multi_normal_rng: Covariance matrix is not positive definite")
  e("multi_normal_rng", list(c(0, 0), matrix(c(1, NaN, NaN, 1), 2)), c("vector", "matrix"),
    "multi_normal_rng: Covariance matrix[2] is")
  e("multi_normal_rng", list(numeric(0), matrix(0, 0, 0)), c("vector", "matrix"),
    "multi_normal_rng: Covariance matrix rows is 0")
  e("multi_normal_cholesky_rng", list(c(0, 0), matrix(1, 2, 3)), c("vector", "matrix"),
    "multi_normal_cholesky_rng: Expecting a square matrix")
  e("multi_normal_cholesky_rng", list(list(c(0, 0), c(Inf, 0)), S), c("array[] vector", "matrix"),
    "multi_normal_cholesky_rng: Location parameter[3] is")
  e("lkj_corr_cholesky_rng", list(3L, -1), c("int", "real"), "lkj_corr_cholesky_rng: Shape parameter is -1")
  e("lkj_corr_cholesky_rng", list(-3L, 1), c("int", "real"), "lkj_corr_cholesky_rng: Dimension is -3")
  e("lkj_corr_rng", list(3L, 0), c("int", "real"), "lkj_corr_rng: Shape parameter is 0")
  e("chi_square_rng", list(-1), "real", "chi_square_rng: Degrees of freedom parameter is -1")
  e("beta_proportion_rng", list(1, 2), c("real", "real"), "beta_proportion_rng: Location parameter is 1, but must be less than 1")
  e("beta_binomial_rng", list(2L, 1, 0), c("int", "real", "real"), "beta_binomial_rng: Second prior sample size parameter is 0")
  e("discrete_range_rng", list(3L, 2L), c("int", "int"),
    "discrete_range_rng: Upper bound parameter is 2, but must be greater than or equal to 3")
  e("skew_normal_rng", list(0, 1, NaN), c("real", "real", "real"), "skew_normal_rng: Shape parameter is")
})
