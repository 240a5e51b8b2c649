# Univariate distributions of prob/tm_<family>.c and prob/tm_cdf.c: values against
# R or closed forms, cdf/lcdf/lccdf consistency, gradients against finite
# differences, propto, Stan's argument errors.

tp_type <- function(x) if (length(x) == 1L) "real" else "vector"
int_type <- function(x) if (length(x) == 1L) "int" else "array[] int"

d3 <- list(
  pareto_type_2_lpdf = function(y, mu, l, a) log(a) - log(l) - (a + 1) * log1p((y - mu) / l),
  skew_double_exponential_lpdf = function(y, mu, s, t)
    log(2) + log(t) + log1p(-t) - log(s) - 2 / s * ifelse(y < mu, (1 - t) * (mu - y), t * (y - mu)),
  loglogistic_lpdf = function(y, a, b) log(b) - log(a) + (b - 1) * log(y / a) - 2 * log1p((y / a)^b)
)
pts3 <- list(
  pareto_type_2_lpdf = list(list(2, 0.5, 1.5, 3), list(c(1, 2.5, 30), 0.2, 0.7, 1.5),
                            list(2, c(0.5, -1), c(1, 3), c(0.5, 4))),
  skew_double_exponential_lpdf = list(list(-1, 0.5, 1.5, 0.3), list(c(-2, 0.4, 3), 0.1, 2, 0.8),
                                      list(0.7, c(0, 1), c(1, 3), c(0.2, 0.6))),
  loglogistic_lpdf = list(list(2, 1.5, 3), list(c(0.1, 1, 7), 2, 0.8), list(1.3, c(0.5, 4), c(1, 6)))
)

test_that("densities equal their closed forms, gradients match, one node per call", {
  for (fn in names(pts3)) for (args in pts3[[fn]]) {
    ty <- vapply(args, tp_type, "")
    expect_equal(tval(fn, args, ty), sum(do.call(d3[[fn]], args)), tolerance = 1e-12, label = fn)
    r <- expect_gradient_fd(fn, args, ty)
    expect_equal(r$nodes[1], 1)
    expect_gradient_fd(fn, args, ty, seq_along(args) == 1)
    rp <- tp_call(fn, args, ty, rep(TRUE, length(args)), propto = TRUE)
    for (i in seq_along(args)) expect_equal(rp$jacobian[[i]], r$jacobian[[i]], tolerance = 1e-13)
    expect_equal(tval(fn, args, ty, propto = TRUE), 0)
  }
})

test_that("propto drops exactly the constant terms", {
  y <- c(0.5, 1.2, 3)
  # pareto_type_2: log(alpha) and -log(lambda) dropped with both data
  a <- list(y, 0.1, 2, 3); ty <- c("vector", "real", "real", "real")
  pr <- tp_call("pareto_type_2_lpdf", a, ty, c(FALSE, TRUE, FALSE, FALSE), TRUE)$value
  expect_equal(pr, tval("pareto_type_2_lpdf", a, ty) - 3 * (log(3) - log(2)), tolerance = 1e-14)
  # skew_double_exponential: log 2, log sigma and log tau (1 - tau) dropped with mu the only parameter
  a <- list(y, 1, 2, 0.3)
  pr <- tp_call("skew_double_exponential_lpdf", a, ty, c(FALSE, TRUE, FALSE, FALSE), TRUE)$value
  expect_equal(pr, tval("skew_double_exponential_lpdf", a, ty) - 3 * (log(2) - log(2) + log(0.3 * 0.7)),
               tolerance = 1e-14)
  # loglogistic: the alpha-beta term dropped with y the only parameter
  a <- list(y, 1.5, 3); ty <- c("vector", "real", "real")
  pr <- tp_call("loglogistic_lpdf", a, ty, c(TRUE, FALSE, FALSE), TRUE)$value
  expect_equal(pr, tval("loglogistic_lpdf", a, ty) - 3 * (log(3) - 3 * log(1.5)), tolerance = 1e-14)
})

test_that("density errors as Stan's", {
  expect_error(tp_call("pareto_type_2_lpdf", list(0.1, 0.5, 1, 1), rep("real", 4)),
               "pareto_type_2_lpdf: Random variable is 0.10000000000000001, but must be greater than or equal to 0.5")
  expect_error(tp_call("pareto_type_2_lpdf", list(1, 0.5, -1, 1), rep("real", 4)),
               "pareto_type_2_lpdf: Scale parameter is -1, but must be positive finite!")
  expect_error(tp_call("skew_double_exponential_lpdf", list(1, 0.5, 1, 1.5), rep("real", 4)),
               "skew_double_exponential_lpdf: Skewness parameter is 1.5, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("loglogistic_lpdf", list(-1, 1, 1), rep("real", 3)),
               "loglogistic_lpdf: Random variable is -1, but must be positive finite!")
  expect_error(tp_call("loglogistic_lpdf", list(1, 1, c(1, 2)), c("real", "real", "vector")), NA)
  expect_error(tp_call("loglogistic_lpdf", list(c(1, 2, 3), 1, c(1, 2)), c("vector", "real", "vector")),
               "must match in size")
})

# ---- cdfs ----

# log F (lower) or log(1 - F), elementwise, closed forms or R's
pcum <- list(
  pareto_type_2 = function(y, mu, l, a, lower) {
    L <- -a * log1p((y - mu) / l); if (lower) log(-expm1(L)) else L
  },
  skew_double_exponential = function(y, mu, s, t, lower) {
    F <- ifelse(y < mu, t * exp(-2 * (1 - t) * (mu - y) / s), 1 - (1 - t) * exp(-2 * t * (y - mu) / s))
    if (lower) log(F) else log1p(-F)
  },
  loglogistic = function(y, a, b, lower) plogis(b * log(y / a), lower.tail = lower, log.p = TRUE),
  beta_proportion = function(y, mu, k, lower) pbeta(y, mu * k, (1 - mu) * k, lower.tail = lower, log.p = TRUE),
  von_mises = function(y, mu, k, lower) {
    n <- max(length(y), length(mu), length(k))
    mapply(function(y, mu, k) {
      f <- function(t) exp(k * (cos(t - mu) - 1)) / (2 * pi * besselI(k, 0, TRUE))
      if (lower) log(integrate(f, -pi, y, rel.tol = 1e-12)$value) else log(integrate(f, y, pi, rel.tol = 1e-12)$value)
    }, rep_len(y, n), rep_len(mu, n), rep_len(k, n))
  },
  beta_binomial = function(n, N, a, b, lower) {
    m <- max(length(n), length(N), length(a), length(b))
    mapply(function(n, N, a, b) {
      k <- 0:N; p <- exp(lchoose(N, k) + lbeta(k + a, N - k + b) - lbeta(a, b))
      log(if (lower) sum(p[k <= n]) else sum(p[k > n]))
    }, rep_len(n, m), rep_len(N, m), rep_len(a, m), rep_len(b, m))
  },
  neg_binomial = function(n, a, b, lower) pnbinom(n, size = a, prob = b / (1 + b), lower.tail = lower, log.p = TRUE),
  beta_neg_binomial = function(n, r, a, b, lower) {
    m <- max(length(n), length(r), length(a), length(b))
    mapply(function(n, r, a, b) {
      k <- 0:n
      F <- sum(exp(lbeta(k + r, a + b) - lbeta(r, a) + lgamma(k + b) - lgamma(k + 1) - lgamma(b)))
      if (lower) log(F) else log1p(-F)
    }, rep_len(n, m), rep_len(r, m), rep_len(a, m), rep_len(b, m))
  },
  yule_simon = function(n, a, lower) {
    m <- max(length(n), length(a))
    mapply(function(n, a) {
      F <- sum(exp(log(a) + lbeta(1:n, a + 1)))
      if (lower) log(F) else log1p(-F)
    }, rep_len(n, m), rep_len(a, m))
  },
  discrete_range = function(y, lo, hi, lower) {
    F <- (y - lo + 1) / (hi - lo + 1); if (lower) log(F) else log1p(-F)
  }
)
# arguments; ints named by `ints` (indices)
cpts <- list(
  pareto_type_2 = list(list(2, 0.5, 1.5, 3), list(c(0.6, 2.5, 30), 0.2, 0.7, 1.5), list(2, c(0.5, -1), c(1, 3), c(0.5, 4))),
  skew_double_exponential = list(list(-1, 0.5, 1.5, 0.3), list(c(-2, 0.4, 3), 0.1, 2, 0.8),
                                 list(0.7, c(0, 1), c(1, 3), c(0.2, 0.6))),
  loglogistic = list(list(2, 1.5, 3), list(c(0.1, 1, 7), 2, 0.8), list(1.3, c(0.5, 4), c(1, 6))),
  beta_proportion = list(list(0.3, 0.4, 5), list(c(0.1, 0.5, 0.95), 0.2, 3), list(0.6, c(0.5, 0.9), c(1, 30))),
  von_mises = list(list(0.5, 0.2, 2), list(c(-2, 0.4, 3), 0.1, 0.5), list(1, c(-3, 2.5), c(10, 3)),
                   list(c(-0.1, 0.2), 0.05, c(60, 49.5))),
  beta_binomial = list(list(3L, 10L, 2, 3), list(c(0L, 4L, 8L), 9L, 0.7, 2.5), list(5L, c(6L, 20L), c(1, 3), c(4, 0.5))),
  neg_binomial = list(list(3L, 2, 0.5), list(c(0L, 4L, 30L), 3.5, 0.2), list(7L, c(1, 20), c(0.5, 3))),
  beta_neg_binomial = list(list(3L, 2, 3, 1.5), list(c(0L, 4L, 12L), 1.5, 2.5, 4), list(6L, c(1, 3), c(2, 5), c(0.7, 2))),
  yule_simon = list(list(3L, 2.5), list(c(1L, 4L, 20L), 0.7), list(5L, c(1, 6))),
  discrete_range = list(list(3L, 1L, 6L), list(c(-2L, 0L, 4L), -3L, 5L))
)
ints_of <- list(beta_binomial = 1:2, neg_binomial = 1, beta_neg_binomial = 1, yule_simon = 1, discrete_range = 1:3)
only <- list(loglogistic = "_cdf", beta_proportion = c("_lcdf", "_lccdf"))

test_that("cdfs equal R's or closed forms; lcdf = log(cdf), lccdf = log1m(cdf)", {
  for (d in names(cpts)) for (args in cpts[[d]]) {
    ty <- vapply(args, tp_type, "")
    ii <- ints_of[[d]]
    if (length(ii)) ty[ii] <- vapply(args[ii], int_type, "")
    modes <- if (is.null(only[[d]])) c("_cdf", "_lcdf", "_lccdf") else only[[d]]
    lo <- sum(do.call(pcum[[d]], c(args, list(TRUE))))
    up <- sum(do.call(pcum[[d]], c(args, list(FALSE))))
    # von_mises: Stan's series (to ~1e-10) below kappa = 49, its normal
    # approximation (to ~1e-5) from there on
    tol <- if (d != "von_mises") 1e-11 else if (any(args[[3]] >= 49)) 1e-4 else 1e-9
    if ("_lcdf" %in% modes) expect_equal(tval(paste0(d, "_lcdf"), args, ty), lo, tolerance = tol, label = paste(d, "lcdf"))
    if ("_lccdf" %in% modes) expect_equal(tval(paste0(d, "_lccdf"), args, ty), up, tolerance = tol, label = paste(d, "lccdf"))
    if ("_cdf" %in% modes) expect_equal(tval(paste0(d, "_cdf"), args, ty), exp(lo), tolerance = tol, label = paste(d, "cdf"))
    if (all(c("_cdf", "_lcdf", "_lccdf") %in% modes)) {
      # element by element: lcdf = log(cdf), lccdf = log1p(-cdf)
      n <- max(lengths(args))
      for (j in seq_len(n)) {
        aj <- lapply(args, function(x) if (length(x) == 1) x else x[j])
        tj <- sub("array\\[\\] ", "", sub("vector", "real", ty))
        cj <- tval(paste0(d, "_cdf"), aj, tj)
        expect_equal(tval(paste0(d, "_lcdf"), aj, tj), log(cj), tolerance = 1e-12)
        expect_equal(tval(paste0(d, "_lccdf"), aj, tj), log1p(-cj), tolerance = 1e-9)
      }
    }
    for (m in modes) {
      ad <- !grepl("int", ty)
      if (!any(ad)) next
      r <- expect_gradient_fd(paste0(d, m), args, ty, ad, tol = if (d == "von_mises") 1e-5 else 1e-6)
      expect_equal(r$nodes[1], 1)
    }
  }
})

test_that("cdf edges: outside the support, at the bounds", {
  expect_identical(tval("pareto_type_2_lcdf", list(0.5, 0.5, 1, 2), rep("real", 4)), -Inf)
  expect_identical(tval("pareto_type_2_lccdf", list(0.5, 0.5, 1, 2), rep("real", 4)), 0)
  expect_identical(tval("pareto_type_2_lcdf", list(Inf, 0.5, 1, 2), rep("real", 4)), 0)
  expect_identical(tval("loglogistic_cdf", list(0, 1, 2), rep("real", 3)), 0)
  expect_identical(tval("von_mises_cdf", list(-pi, 1, 2), rep("real", 3)), 0)
  expect_identical(tval("von_mises_cdf", list(pi, 1, 2), rep("real", 3)), 1)
  expect_identical(tval("beta_binomial_lcdf", list(-1L, 5L, 1, 1), c("int", "int", "real", "real")), -Inf)
  expect_identical(tval("beta_binomial_lccdf", list(5L, 5L, 1, 1), c("int", "int", "real", "real")), -Inf)
  expect_identical(tval("beta_binomial_cdf", list(7L, 5L, 1, 1), c("int", "int", "real", "real")), 1)
  expect_identical(tval("yule_simon_lcdf", list(0L, 2), c("int", "real")), -Inf)
  expect_identical(tval("discrete_range_lccdf", list(6L, 1L, 6L), rep("int", 3)), -Inf)
  expect_identical(tval("discrete_range_cdf", list(0L, 1L, 6L), rep("int", 3)), 0)
  expect_identical(tval("neg_binomial_lccdf", list(-1L, 2, 1), c("int", "real", "real")), 0)
  expect_identical(tval("beta_neg_binomial_lcdf", list(-1L, 2, 1, 1), c("int", "real", "real", "real")), -Inf)
  # far tails keep their digits
  expect_equal(tval("skew_double_exponential_lccdf", list(40, 0, 1, 0.5), rep("real", 4)), log(0.5) - 40, tolerance = 1e-14)
  expect_equal(tval("pareto_type_2_lcdf", list(1e-12, 0, 1, 2), rep("real", 4)), log(2e-12), tolerance = 1e-9)
  expect_equal(tval("yule_simon_lccdf", list(1000L, 2), c("int", "real")), log(1000) + lbeta(1000, 3), tolerance = 1e-13)
})

test_that("cdf errors as Stan's", {
  expect_error(tp_call("von_mises_lcdf", list(4, 0, 1), rep("real", 3)),
               "von_mises_lcdf: Random variable is 4, but must be in the interval \\[-3.14")
  expect_error(tp_call("von_mises_cdf", list(1, 0, 0), rep("real", 3)),
               "von_mises_cdf: Scale parameter is 0, but must be positive!")
  expect_error(tp_call("beta_proportion_lcdf", list(0.5, 1, 2), rep("real", 3)),
               "beta_proportion_lcdf: Location parameter is 1, but must be less than 1")
  expect_error(tp_call("beta_binomial_cdf", list(1L, -1L, 1, 1), c("int", "int", "real", "real")),
               "beta_binomial_cdf: Population size parameter is -1, but must be nonnegative!")
  expect_error(tp_call("beta_neg_binomial_lccdf", list(1L, 1, 0, 1), c("int", "real", "real", "real")),
               "beta_neg_binomial_lccdf: Prior success parameter is 0, but must be positive finite!")
  expect_error(tp_call("yule_simon_cdf", list(1L, -1), c("int", "real")),
               "yule_simon_cdf: Shape parameter is -1, but must be positive finite!")
  expect_error(tp_call("discrete_range_lcdf", list(1L, 3L, 2L), rep("int", 3)),
               "discrete_range_lcdf: Upper bound parameter is 2, but must be greater than or equal to 3")
  expect_error(tp_call("pareto_type_2_lccdf", list(0, 1, 1, 1), rep("real", 4)),
               "pareto_type_2_lccdf: Random variable is 0, but must be greater than or equal to 1")
  expect_error(tp_call("skew_double_exponential_cdf", list(0, 1, 0, 0.5), rep("real", 4)),
               "skew_double_exponential_cdf: Scale parameter is 0, but must be positive finite!")
  expect_error(tp_call("neg_binomial_lcdf", list(1L, 1, -2), c("int", "real", "real")),
               "neg_binomial_lcdf: Inverse scale parameter is -2, but must be positive finite!")
})
