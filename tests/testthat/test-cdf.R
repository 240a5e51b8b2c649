# Cumulative distribution functions (src/math/prob/tm_cdf.c, tm_<family>.c): _lcdf, _lccdf and
# _cdf against R's distribution functions, gradients against finite
# differences, one node per vectorized call, the far tails truncation needs,
# and Stan's argument errors.

tp_type <- function(x) if (length(x) == 1L) "real" else "vector"
int_type <- function(x) if (length(x) == 1L) "int" else "array[] int"

# log F (lower = TRUE) or log(1 - F), elementwise, from R.
gumbel_p <- function(y, mu, b, lower) {
  e <- exp(-(y - mu) / b)
  if (lower) -e else log(-expm1(-e))
}
dexp_p <- function(y, mu, s, lower) {
  z <- (y - mu) / s
  if (!lower) z <- -z
  ifelse(z < 0, log(0.5) + z, log1p(-0.5 * exp(-abs(z))))
}
one_minus_exp <- function(u, lower) if (lower) log(-expm1(-u)) else -u
ref <- list(
  normal = function(y, mu, s, lower) pnorm(y, mu, s, lower.tail = lower, log.p = TRUE),
  std_normal = function(y, lower) pnorm(y, lower.tail = lower, log.p = TRUE),
  lognormal = function(y, mu, s, lower) plnorm(y, mu, s, lower.tail = lower, log.p = TRUE),
  cauchy = function(y, mu, s, lower) pcauchy(y, mu, s, lower.tail = lower, log.p = TRUE),
  logistic = function(y, mu, s, lower) plogis(y, mu, s, lower.tail = lower, log.p = TRUE),
  double_exponential = dexp_p,
  gumbel = gumbel_p,
  exponential = function(y, b, lower) pexp(y, b, lower.tail = lower, log.p = TRUE),
  weibull = function(y, a, s, lower) pweibull(y, a, s, lower.tail = lower, log.p = TRUE),
  rayleigh = function(y, s, lower) one_minus_exp(y^2 / (2 * s^2), lower),
  pareto = function(y, ym, a, lower) {
    L <- a * log(ym / y)
    if (lower) log(-expm1(L)) else L
  },
  uniform = function(y, a, b, lower) punif(y, a, b, lower.tail = lower, log.p = TRUE),
  frechet = function(y, a, s, lower) { u <- (s / y)^a; if (lower) -u else log(-expm1(-u)) },
  gamma = function(y, a, b, lower) pgamma(y, a, rate = b, lower.tail = lower, log.p = TRUE),
  inv_gamma = function(y, a, b, lower) pgamma(1 / y, a, rate = b, lower.tail = !lower, log.p = TRUE),
  chi_square = function(y, nu, lower) pchisq(y, nu, lower.tail = lower, log.p = TRUE),
  inv_chi_square = function(y, nu, lower) pchisq(1 / y, nu, lower.tail = !lower, log.p = TRUE),
  scaled_inv_chi_square = function(y, nu, s, lower)
    pgamma(nu * s^2 / (2 * y), nu / 2, lower.tail = !lower, log.p = TRUE),
  beta = function(y, a, b, lower) pbeta(y, a, b, lower.tail = lower, log.p = TRUE),
  student_t = function(y, nu, mu, s, lower) pt((y - mu) / s, nu, lower.tail = lower, log.p = TRUE),
  bernoulli = function(n, th, lower) pbinom(n, 1, th, lower.tail = lower, log.p = TRUE),
  poisson = function(n, lam, lower) ppois(n, lam, lower.tail = lower, log.p = TRUE),
  binomial = function(n, N, th, lower) pbinom(n, N, th, lower.tail = lower, log.p = TRUE),
  neg_binomial_2 = function(n, mu, phi, lower) pnbinom(n, mu = mu, size = phi, lower.tail = lower, log.p = TRUE),
  skew_normal = function(y, xi, om, al, lower) {
    # F = 2 int_-inf^z phi(t) Phi(al t) dt, by R's integrate
    n <- max(length(y), length(xi), length(om), length(al))
    z <- (rep_len(y, n) - rep_len(xi, n)) / rep_len(om, n)
    mapply(function(z, al) {
      f <- function(t) 2 * dnorm(t) * pnorm(al * t)
      log(integrate(f, if (lower) -Inf else z, if (lower) z else Inf, rel.tol = 1e-13, abs.tol = 0)$value)
    }, z, rep_len(al, n))
  },
  exp_mod_normal = function(y, mu, s, l, lower) {
    z <- (y - mu) / s
    ep <- exp(-l * (y - mu) + (l * s)^2 / 2) * pnorm(z - l * s)
    if (lower) log(pnorm(z) - ep) else log(pnorm(z, lower.tail = FALSE) + ep)
  }
)
# Which arguments are ints (discrete outcomes and sizes).
ints <- list(bernoulli = 1, poisson = 1, binomial = 1:2, neg_binomial_2 = 1)

# Points inside the support: scalars and vectors mixed (broadcasting).
points <- list(
  normal = list(list(0.3, -0.2, 1.5), list(c(1, 2.5, -3), 0.5, 2), list(c(0.1, 2, -1), c(0, 1, 2), c(0.5, 1, 3))),
  std_normal = list(list(0.7), list(c(-3, 0, 2.5))),
  lognormal = list(list(1.5, 0.2, 0.8), list(c(0.1, 1, 30), -0.5, 1.2), list(2, c(0, 1), c(1, 3))),
  cauchy = list(list(0.5, -1, 2), list(c(1, 20, -3), 0, 0.5), list(2, c(0, 1), c(1, 3))),
  logistic = list(list(0.5, -1, 2), list(c(1, 20, -3), 0, 0.5), list(2, c(0, 1), c(1, 3))),
  double_exponential = list(list(0.5, -1, 2), list(c(1, 2, -3), 0, 0.5), list(-2, c(0, 1), c(1, 3))),
  gumbel = list(list(0.5, -1, 2), list(c(1, 2, -3), 0, 1.5), list(2, c(0, 1), c(1, 3))),
  exponential = list(list(0.5, 2), list(c(0.01, 1, 3), 0.3), list(2, c(0.5, 4))),
  weibull = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 3), 3, 2), list(2, c(0.5, 4), c(1, 3))),
  rayleigh = list(list(1.5, 0.7), list(c(0.1, 1, 3), 2), list(2, c(0.5, 4))),
  pareto = list(list(1.5, 0.7, 2), list(c(1.1, 2, 30), 1, 0.5), list(2, c(0.5, 1.5), c(1, 3))),
  uniform = list(list(0.5, -1, 2), list(c(0.1, 1, 1.9), -0.5, 2), list(0.2, c(-1, 0.1), c(1, 3))),
  frechet = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 5), 3, 2), list(2, c(0.5, 4), c(1, 3))),
  gamma = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 30), 3, 0.5), list(2, c(0.3, 40), c(1, 3)), list(0.5, 30, 7)),
  inv_gamma = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 30), 3, 0.5), list(2, c(0.3, 40), c(1, 3))),
  chi_square = list(list(1.5, 3), list(c(0.1, 1, 30), 4.5), list(2, c(0.5, 40))),
  inv_chi_square = list(list(1.5, 3), list(c(0.1, 1, 30), 4.5), list(0.2, c(0.5, 40))),
  scaled_inv_chi_square = list(list(1.5, 3, 0.5), list(c(0.1, 1, 30), 4.5, 2), list(0.2, c(0.5, 40), c(1, 0.3))),
  beta = list(list(0.3, 2, 3), list(c(0.1, 0.5, 0.95), 0.5, 1.5), list(0.6, c(0.5, 4), c(1, 30))),
  student_t = list(list(0.5, 3, 0.1, 2), list(c(1, -2, 7), 0.5, 0, 1.3), list(c(1, 2), c(2, 5), c(0, 1), c(1, 2)),
                   list(0.4, c(1, 30), -0.3, 0.7), list(-30, 4, 0, 1)),
  bernoulli = list(list(0L, 0.3), list(c(0L, 0L, 0L), c(0.2, 0.5, 0.9))),
  poisson = list(list(3L, 2.5), list(c(0L, 5L, 17L), 13), list(4L, c(0.5, 4, 20))),
  binomial = list(list(3L, 10L, 0.4), list(c(0L, 5L, 17L), 30L, 0.35), list(c(2L, 8L), c(10L, 12L), c(0.2, 0.7))),
  neg_binomial_2 = list(list(3L, 2.5, 4), list(c(0L, 5L, 17L), 13, 2.5), list(4L, c(0.5, 4, 20), c(1, 30, 0.7))),
  skew_normal = list(list(0.5, 0.2, 1.5, 0.8), list(c(-1, 0.5, 1.5), 0.3, 0.7, -2), list(1.2, c(0, 1), c(0.5, 2), c(1, 4))),
  exp_mod_normal = list(list(0.5, 0.2, 1.5, 0.8), list(c(-1, 0.5, 3), 0.3, 0.7, 2), list(1.2, c(0, 1), c(0.5, 2), c(1, 0.3)))
)

types_for <- function(d, args) {
  vapply(seq_along(args), function(i) {
    if (i %in% ints[[d]]) int_type(args[[i]]) else tp_type(args[[i]])
  }, "")
}
ref_value <- function(d, args, lower) sum(do.call(ref[[d]], c(args, list(lower = lower))))

test_that("lcdf, lccdf and cdf equal R's values, summed (product for cdf) over the broadcast", {
  for (d in names(points)) for (args in points[[d]]) {
    ty <- types_for(d, args)
    lo <- ref_value(d, args, TRUE)
    hi <- ref_value(d, args, FALSE)
    expect_equal(tval(paste0(d, "_lcdf"), args, ty), lo, tolerance = 1e-12, label = paste(d, "_lcdf"))
    expect_equal(tval(paste0(d, "_lccdf"), args, ty), hi, tolerance = 1e-12, label = paste(d, "_lccdf"))
    expect_equal(tval(paste0(d, "_cdf"), args, ty), exp(lo), tolerance = 1e-12, label = paste(d, "_cdf"))
  }
})

test_that("gradients match finite differences, one node per call", {
  for (d in names(points)) for (args in points[[d]]) {
    ty <- types_for(d, args)
    real <- !grepl("int", ty)
    for (suffix in c("_lcdf", "_lccdf", "_cdf")) {
      fn <- paste0(d, suffix)
      r <- expect_gradient_fd(fn, args, ty, real, tol = 1e-6)
      expect_equal(r$nodes[1], 1, label = paste(fn, "chain nodes"))
      # data and autodiff mixed: the first real argument alone
      ad1 <- real & cumsum(real) == 1
      if (sum(real) > 1) expect_gradient_fd(fn, args, ty, ad1, tol = 1e-6)
    }
  }
})

test_that("the normal tails stay finite and accurate (truncation far from the mode)", {
  z <- c(-1e5, -200, -40, -38.5, -20, -5, -1, 0, 1, 5, 8, 20, 40)
  for (zi in z) {
    expect_equal(tval("std_normal_lcdf", list(zi), "real"), pnorm(zi, log.p = TRUE), tolerance = 1e-14)
    expect_equal(tval("std_normal_lccdf", list(zi), "real"), pnorm(zi, lower.tail = FALSE, log.p = TRUE),
                 tolerance = 1e-14)
    expect_equal(tval("normal_lcdf", list(2 * zi + 1, 1, 2), rep("real", 3)), pnorm(zi, log.p = TRUE),
                 tolerance = 1e-14)
  }
  # d/dz log Phi(z) = phi(z) / Phi(z), about -z in the lower tail
  g <- tp_call("std_normal_lcdf", list(-40), "real", TRUE)$jacobian[[1]][1, 1]
  expect_equal(g, 40.02496884720, tolerance = 1e-12)
  g <- tp_call("std_normal_lccdf", list(40), "real", TRUE)$jacobian[[1]][1, 1]
  expect_equal(g, -40.02496884720, tolerance = 1e-12)
  g <- tp_call("normal_lcdf", list(-40, 0, 1), rep("real", 3), c(TRUE, TRUE, TRUE))$jacobian
  expect_equal(c(g[[1]], g[[2]], g[[3]]), c(1, -1, 40) * 40.02496884720, tolerance = 1e-12)
  expect_gradient_fd("std_normal_lcdf", list(c(-30, -8, -3)), "vector")
  expect_gradient_fd("std_normal_lccdf", list(c(30, 8, 3)), "vector")
  expect_identical(tval("std_normal_lcdf", list(Inf), "real"), 0)
  expect_identical(tval("std_normal_lcdf", list(-Inf), "real"), -Inf)
  expect_identical(tval("std_normal_cdf", list(-Inf), "real"), 0)
})

test_that("other tails: no cancellation where F or 1 - F is tiny", {
  expect_equal(tval("cauchy_lcdf", list(-1e12, 0, 1), rep("real", 3)), pcauchy(-1e12, log.p = TRUE), tolerance = 1e-14)
  expect_equal(tval("cauchy_lccdf", list(1e12, 0, 1), rep("real", 3)), pcauchy(-1e12, log.p = TRUE), tolerance = 1e-14)
  expect_equal(tval("logistic_lcdf", list(-800, 0, 1), rep("real", 3)), -800, tolerance = 1e-15)
  expect_equal(tval("exponential_lcdf", list(1e-12, 1), rep("real", 2)), pexp(1e-12, log.p = TRUE), tolerance = 1e-14)
  expect_equal(tval("exponential_lccdf", list(1e3, 2), rep("real", 2)), -2000)
  expect_equal(tval("gumbel_lccdf", list(50, 0, 1), rep("real", 3)), log(-expm1(-exp(-50))), tolerance = 1e-14)
  expect_equal(tval("poisson_lccdf", list(60L, 3), c("int", "real")),
               ppois(60, 3, lower.tail = FALSE, log.p = TRUE), tolerance = 1e-12)
  expect_equal(tval("poisson_lcdf", list(1000L, 1100), c("int", "real")), ppois(1000, 1100, log.p = TRUE),
               tolerance = 1e-11)
  expect_equal(tval("binomial_lccdf", list(95L, 100L, 0.3), c("int", "int", "real")),
               pbinom(95, 100, 0.3, lower.tail = FALSE, log.p = TRUE), tolerance = 1e-11)
  expect_equal(tval("binomial_lcdf", list(3L, 100L, 1e-10), c("int", "int", "real")),
               pbinom(3, 100, 1e-10, log.p = TRUE), tolerance = 1e-11)
  expect_equal(tval("neg_binomial_2_lccdf", list(200L, 5, 3), c("int", "real", "real")),
               pnbinom(200, mu = 5, size = 3, lower.tail = FALSE, log.p = TRUE), tolerance = 1e-11)
  expect_gradient_fd("neg_binomial_2_lccdf", list(200L, 5, 3), c("int", "real", "real"))
  # beyond 20000 terms the incomplete beta form takes over
  for (f in c("neg_binomial_2_lcdf", "neg_binomial_2_lccdf")) {
    lower <- f == "neg_binomial_2_lcdf"
    expect_equal(tval(f, list(30000L, 29000, 40), c("int", "real", "real")),
                 pnbinom(30000, mu = 29000, size = 40, lower.tail = lower, log.p = TRUE), tolerance = 1e-9)
    expect_gradient_fd(f, list(30000L, 29000, 40), c("int", "real", "real"))
  }
  # incomplete gamma tails: both sides keep their digits, with their gradients
  expect_equal(tval("gamma_lccdf", list(80, 5, 1), rep("real", 3)),
               pgamma(80, 5, lower.tail = FALSE, log.p = TRUE), tolerance = 1e-12)
  expect_equal(tval("gamma_lcdf", list(0.01, 30, 1), rep("real", 3)), pgamma(0.01, 30, log.p = TRUE), tolerance = 1e-12)
  expect_gradient_fd("gamma_lccdf", list(80, 5, 1), rep("real", 3))
  expect_gradient_fd("gamma_lcdf", list(0.5, 30, 2), rep("real", 3))
  expect_gradient_fd("inv_gamma_lcdf", list(0.02, 4, 2), rep("real", 3))
  expect_equal(tval("student_t_lcdf", list(-1e4, 3, 0, 1), rep("real", 4)), pt(-1e4, 3, log.p = TRUE), tolerance = 1e-12)
  expect_equal(tval("student_t_lccdf", list(1e-9, 3, 0, 1), rep("real", 4)), pt(1e-9, 3, lower.tail = FALSE, log.p = TRUE),
               tolerance = 1e-14)
  expect_equal(tval("student_t_lcdf", list(0, 3, 0, 1), rep("real", 4)), log(0.5), tolerance = 1e-15)
  expect_gradient_fd("student_t_lcdf", list(0, 3, 0, 1), rep("real", 4))
  expect_gradient_fd("student_t_lccdf", list(50, 2.5, 0, 1), rep("real", 4))
  expect_equal(tval("beta_lccdf", list(0.999, 2, 30), rep("real", 3)),
               pbeta(0.999, 2, 30, lower.tail = FALSE, log.p = TRUE), tolerance = 1e-11)
  expect_gradient_fd("poisson_lccdf", list(60L, 3), c("int", "real"))
  expect_gradient_fd("binomial_lccdf", list(95L, 100L, 0.3), c("int", "int", "real"))
})

test_that("skew_normal far out: Owen's T with a huge or infinite h (found by fuzz_eval)", {
  # the panel count was a double beyond INT_MAX cast to int, undefined
  # behaviour caught by the sanitizer pass of CI
  for (al in c(0.5, 3, -3)) for (y in c(1e200, Inf)) {
    expect_identical(tval("skew_normal_lcdf", list(y, 0, 1, al), rep("real", 4)), 0)
    expect_identical(tval("skew_normal_lccdf", list(y, 0, 1, al), rep("real", 4)), -Inf)
    expect_identical(tval("skew_normal_lcdf", list(-y, 0, 1, al), rep("real", 4)), -Inf)
    expect_identical(tval("skew_normal_lccdf", list(-y, 0, 1, al), rep("real", 4)), 0)
  }
})

test_that("outside the support: log(0) for the call, or 0, as in Stan", {
  expect_identical(tval("poisson_lcdf", list(c(3L, -1L), 2), c("array[] int", "real")), -Inf)
  expect_identical(tval("poisson_lccdf", list(-1L, 2), c("int", "real")), 0)
  expect_identical(tval("poisson_cdf", list(-1L, 2), c("int", "real")), 0)
  expect_identical(tval("binomial_lcdf", list(10L, 10L, 0.3), c("int", "int", "real")), 0)
  expect_identical(tval("binomial_lccdf", list(10L, 10L, 0.3), c("int", "int", "real")), -Inf)
  expect_identical(tval("bernoulli_lccdf", list(1L, 0.3), c("int", "real")), -Inf)
  expect_identical(tval("bernoulli_lcdf", list(1L, 0.3), c("int", "real")), 0)
  expect_identical(tval("uniform_lcdf", list(-2, -1, 1), rep("real", 3)), -Inf)
  expect_identical(tval("uniform_lcdf", list(2, -1, 1), rep("real", 3)), 0)
  expect_identical(tval("uniform_lccdf", list(2, -1, 1), rep("real", 3)), -Inf)
  expect_identical(tval("pareto_lcdf", list(0.5, 1, 2), rep("real", 3)), -Inf)
  expect_identical(tval("pareto_lccdf", list(0.5, 1, 2), rep("real", 3)), 0)
  expect_identical(tval("exponential_lcdf", list(0, 1), rep("real", 2)), -Inf)
  expect_identical(tval("lognormal_lccdf", list(0, 1, 1), rep("real", 3)), 0)
  expect_identical(tval("weibull_lcdf", list(0, 1, 1), rep("real", 3)), -Inf)
  expect_identical(tval("poisson_lcdf", list(3L, 0), c("int", "real")), 0)
  # zero partials with a log(0) result
  r <- tp_call("normal_lcdf", list(c(0.5, -Inf), 0, 1), c("vector", "real", "real"), c(TRUE, TRUE, TRUE))
  expect_identical(r$value, -Inf)
  expect_equal(c(r$jacobian[[1]], r$jacobian[[2]], r$jacobian[[3]]), c(0, 0, 0, 0))
  # empty containers: log(1) and 1, as in Stan
  expect_identical(tval("normal_lcdf", list(numeric(0), 0, 1), c("vector", "real", "real")), 0)
  expect_identical(tval("normal_cdf", list(numeric(0), 0, 1), c("vector", "real", "real")), 1)
})

test_that("argument errors use Stan's wording", {
  expect_error(tp_call("normal_lcdf", list(1, 0, -1), rep("real", 3)),
               "normal_lcdf: Scale parameter is -1, but must be positive!")
  expect_error(tp_call("normal_lccdf", list(NaN, 0, 1), rep("real", 3)),
               "normal_lccdf: Random variable is nan, but must not be nan!")
  expect_error(tp_call("exponential_cdf", list(c(1, -1), 1), c("vector", "real")),
               "exponential_cdf: Random variable\\[2\\] is -1, but must be nonnegative!")
  expect_error(tp_call("uniform_lcdf", list(0.5, 1, 0), rep("real", 3)),
               "uniform_lcdf: Upper bound parameter is 0, but must be greater than 1")
  expect_error(tp_call("poisson_lcdf", list(1L, -2), c("int", "real")),
               "poisson_lcdf: Rate parameter is -2, but must be nonnegative!")
  expect_error(tp_call("binomial_lccdf", list(1L, 3L, 1.5), c("int", "int", "real")),
               "binomial_lccdf: Probability parameter is 1.5, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("normal_lcdf", list(c(1, 2), c(1, 2, 3), 1), c("vector", "vector", "real")),
               "normal_lcdf: Size of Random variable \\(2\\) and size of Location parameter \\(3\\) must match")
  expect_error(tp_call("poisson_lcdf", list(1.5, 2), c("real", "real")), "poisson_lcdf: Random variable has type real")
  expect_error(tp_call("normal_lcdf", list(matrix(1, 2, 2), 0, 1), c("matrix", "real", "real")),
               "normal_lcdf: Random variable has type matrix")
  f <- tp_functions()
  for (d in names(points)) for (s in c("_lcdf", "_lccdf", "_cdf"))
    expect_true(paste0(d, s) %in% f$name, label = paste0(d, s))
})
