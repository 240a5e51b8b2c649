# More scalar functions (src/math/scalar/tm_numeric.c): rounding and steps, the
# binary functions, the normal quantile, fma, choose and the constants.

rel_ok <- function(x, y, tol = 1e-13) {
  x <- as.numeric(unlist(x)); y <- as.numeric(unlist(y))
  all((is.na(x) & is.na(y)) | x == y | abs(x - y) <= tol * pmax(abs(y), 1e-300))
}

test_that("floor, ceil, round, trunc, step: values on every shape, zero gradients", {
  x <- c(-2.5, -1.2, -0.5, 0, 0.5, 1.7, 2.5)
  expect_identical(tval("floor", list(x), "vector"), floor(x))
  expect_identical(tval("ceil", list(x), "row_vector"), ceiling(x))
  # Stan rounds half away from zero (C's round), unlike R's round-half-even
  expect_identical(tval("round", list(x), "array[] real"), c(-3, -1, -1, 0, 1, 2, 3))
  expect_identical(tval("trunc", list(x), "vector"), trunc(x))
  expect_identical(tval("floor", list(3L), "int"), 3)
  expect_identical(tval("step", list(-0.1), "real"), 0)
  expect_identical(tval("step", list(0), "real"), 1)
  expect_identical(tval("step", list(NaN), "real"), 1)
  r <- tp_call("floor", list(x), "vector", TRUE)
  expect_equal(r$jacobian[[1]], matrix(0, 7, 7))
  expect_equal(r$nodes[1], 1)
  expect_equal(tp_call("round", list(1.3), "real", TRUE)$jacobian[[1]][1, 1], 0)
  expect_equal(dim(tval("ceil", list(matrix(x[1:6], 2)), "matrix")), c(2L, 3L))
})

test_that("int_step, is_inf, is_nan return ints", {
  expect_identical(tval("int_step", list(0L), "int"), 0L)
  expect_identical(tval("int_step", list(3L), "int"), 1L)
  expect_identical(tval("int_step", list(-0.5), "real"), 0L)
  expect_identical(tval("int_step", list(0.5), "real"), 1L)
  expect_identical(tval("int_step", list(NaN), "real"), 0L)
  expect_identical(tval("is_inf", list(-Inf), "real"), 1L)
  expect_identical(tval("is_inf", list(1e308), "real"), 0L)
  expect_identical(tval("is_nan", list(NaN), "real"), 1L)
  expect_identical(tval("is_nan", list(Inf), "real"), 0L)
  expect_error(tp_call("is_nan", list(c(1, 2)), "vector"), "is_nan: argument 1 must be int or real")
})

test_that("trigamma, tgamma, inv_Phi, std_normal_log_qf: values and gradients", {
  x <- c(0.1, 0.7, 3, 12.5, 200, -0.4, -2.7)
  expect_true(rel_ok(tval("trigamma", list(x), "vector"), trigamma(x), 1e-12))
  for (xi in x) expect_gradient_fd("trigamma", list(xi), "real")
  g <- c(0.3, 1.5, 4, 10.2, -0.5, -1.5)
  expect_true(rel_ok(tval("tgamma", list(g), "vector"), gamma(g), 1e-13))
  expect_gradient_fd("tgamma", list(g), "vector")
  p <- c(1e-300, 1e-20, 1e-5, 0.01, 0.3, 0.5, 0.5 + 1e-12, 0.7, 0.999, 1 - 1e-12)
  expect_true(rel_ok(tval("inv_Phi", list(p), "vector"), qnorm(p), 1e-14))
  expect_true(rel_ok(tval("std_normal_qf", list(p), "vector"), qnorm(p), 1e-14))
  # Newton steps to full precision: Phi of the quantile gives p back
  expect_true(rel_ok(pnorm(tval("inv_Phi", list(p[1:6]), "vector")), p[1:6], 1e-13))
  expect_identical(tval("inv_Phi", list(c(0, 1)), "vector"), c(-Inf, Inf))
  expect_gradient_fd("inv_Phi", list(c(0.001, 0.2, 0.5, 0.9)), "vector")
  lp <- c(-1e4, -50, -3, log(0.3), log(0.5), log(0.8), -1e-10)
  x <- tval("std_normal_log_qf", list(lp), "vector")
  expect_true(rel_ok(pnorm(x, log.p = TRUE), lp, 1e-13))
  expect_true(rel_ok(x[-1], qnorm(lp[-1], log.p = TRUE), 1e-12))
  expect_gradient_fd("std_normal_log_qf", list(c(-50, -3, log(0.5), -0.1)), "vector")
  expect_error(tp_call("inv_Phi", list(1.5), "real"),
               "inv_Phi: Probability variable is 1.5, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("inv_Phi", list(c(0.5, -1)), "vector"), "inv_Phi: Probability variable\\[2\\] is -1")
  expect_error(tp_call("std_normal_log_qf", list(0.1), "real"),
               "std_normal_log_qf: Log probability variable is 0.1")
  expect_error(tp_call("tgamma", list(-2), "real"), "tgamma: x is -2, but must not be 0 or a negative integer")
})

bin_cases <- list(
  list("fdim", c(3, -1, 0.5), c(1, 2, -4), function(x, y) pmax(x - y, 0)),
  list("fmod", c(7.5, -7.5, 2.2), c(2, 2, 0.7), function(x, y) x - trunc(x / y) * y),
  list("hypot", c(3, -1e200, 0.5), c(4, 1e200, -2), function(x, y) sqrt(x^2 + y^2)),
  list("atan2", c(1, -2, 0.3), c(-1, 0.5, 4), atan2),
  list("lmultiply", c(2, 0.5, 3), c(0.3, 4, 1e-5), function(x, y) x * log(y)),
  list("multiply_log", c(2, 0.5, 3), c(0.3, 4, 1e-5), function(x, y) x * log(y)),
  list("log_inv_logit_diff", c(1, 3, 40), c(0.5, -30, 39.5), function(x, y) log(plogis(x) - plogis(y))),
  list("beta", c(0.5, 2, 30), c(3, 0.7, 25), beta),
  list("log_falling_factorial", c(5.5, 10, 3.2), c(2, 3.5, 0.5), function(x, n) lgamma(x + 1) - lgamma(x - n + 1)),
  list("log_rising_factorial", c(5.5, 0.3, 3.2), c(2, 3.5, 0.5), function(x, n) lgamma(x + n) - lgamma(x))
)

test_that("binary functions: values, broadcasting, gradients", {
  for (b in bin_cases) {
    fn <- b[[1]]; x <- b[[2]]; y <- b[[3]]
    ref <- b[[4]](x, y)
    if (fn == "hypot") ref[2] <- sqrt(2) * 1e200
    if (fn == "log_inv_logit_diff") ref[3] <- 40 - log1p(exp(40)) + log(-expm1(-0.5)) - log1p(exp(39.5))
    expect_true(rel_ok(tval(fn, list(x, y), c("vector", "vector")), ref, 1e-13), label = fn)
    for (i in seq_along(x))
      expect_true(rel_ok(tval(fn, list(x[i], y[i]), c("real", "real")), ref[i], 1e-13), label = fn)
    expect_true(rel_ok(tval(fn, list(x, y[1]), c("vector", "real")), b[[4]](x, y[1]), 1e-13), label = fn)
    for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE))) {
      r <- expect_gradient_fd(fn, list(x[1:2], y[1:2]), c("vector", "vector"), ad)
      expect_equal(r$nodes[1], 1)
      expect_gradient_fd(fn, list(x[1], y[1]), c("real", "real"), ad)
      expect_gradient_fd(fn, list(x[1:2], y[1]), c("row_vector", "real"), ad)
    }
  }
  expect_identical(tval("lmultiply", list(0, 0), c("real", "real")), 0)
  expect_error(tp_call("beta", list(-1, 2), c("real", "real")), "beta: first argument is -1, but must be nonnegative!")
})

test_that("lmgamma, factorials and binary_log_loss take ints where Stan does", {
  lmg <- function(k, x) k * (k - 1) / 4 * log(pi) + sum(lgamma(x + (1 - seq_len(k)) / 2))
  expect_equal(tval("lmgamma", list(3L, 4.2), c("int", "real")), lmg(3, 4.2), tolerance = 1e-14)
  expect_equal(tval("lmgamma", list(3L, c(4.2, 7)), c("int", "vector")), c(lmg(3, 4.2), lmg(3, 7)), tolerance = 1e-14)
  expect_gradient_fd("lmgamma", list(3L, c(4.2, 7)), c("int", "vector"))
  expect_equal(tval("falling_factorial", list(5.5, 2L), c("real", "int")), 5.5 * 4.5, tolerance = 1e-14)
  expect_equal(tval("rising_factorial", list(5.5, 2L), c("real", "int")), 5.5 * 6.5, tolerance = 1e-14)
  expect_gradient_fd("falling_factorial", list(c(5.5, 8), 3L), c("vector", "int"))
  expect_gradient_fd("rising_factorial", list(c(0.5, 8), 3L), c("vector", "int"))
  expect_error(tp_call("falling_factorial", list(5.5, -1L), c("real", "int")),
               "falling_factorial: second argument is -1, but must be nonnegative!")
  expect_error(tp_call("log_rising_factorial", list(-1, 2), c("real", "real")),
               "log_rising_factorial: first argument is -1, but must be positive!")
  expect_equal(tval("binary_log_loss", list(1L, 0.3), c("int", "real")), -log(0.3))
  expect_equal(tval("binary_log_loss", list(0L, 0.3), c("int", "real")), -log(0.7))
  expect_equal(tval("binary_log_loss", list(c(1L, 0L), c(0.3, 0.9)), c("array[] int", "array[] real")),
               c(-log(0.3), -log(0.1)))
  expect_gradient_fd("binary_log_loss", list(c(1L, 0L), c(0.3, 0.9)), c("array[] int", "array[] real"))
  expect_error(tp_call("binary_log_loss", list(2L, 0.3), c("int", "real")),
               "binary_log_loss: n is 2, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("binary_log_loss", list(1L, 1.3), c("int", "real")),
               "binary_log_loss: probability is 1.3")
})

test_that("fma: value and gradients, data and autodiff mixed", {
  expect_equal(tval("fma", list(2, 3, 4), rep("real", 3)), 10)
  for (ad in list(c(TRUE, TRUE, TRUE), c(TRUE, FALSE, TRUE), c(FALSE, FALSE, TRUE))) {
    r <- expect_gradient_fd("fma", list(1.5, -2, 0.3), rep("real", 3), ad)
    expect_equal(r$nodes[1], 1)
  }
  # containers take the container entry (test-container-forms.R); arrays none
  expect_error(tp_call("fma", list(c(1, 2), 1, 1), c("array[] real", "real", "real")), "fma: argument 1 must be int or real")
})

test_that("choose is exact and refuses overflow", {
  expect_identical(tval("choose", list(5L, 2L), c("int", "int")), 10L)
  expect_identical(tval("choose", list(2L, 5L), c("int", "int")), 0L)
  expect_identical(tval("choose", list(0L, 0L), c("int", "int")), 1L)
  expect_identical(tval("choose", list(33L, 16L), c("int", "int")), as.integer(choose(33, 16)))
  expect_identical(tval("choose", list(100000L, 1L), c("int", "int")), 100000L)
  expect_error(tp_call("choose", list(40L, 20L), c("int", "int")), "choose: n choose k is larger than")
  expect_error(tp_call("choose", list(-1L, 0L), c("int", "int")), "choose: first argument is -1, but must be nonnegative!")
  expect_error(tp_call("choose", list(5, 2L), c("real", "int")), "choose: both arguments must be int")
})

test_that("constants", {
  k <- list(pi = pi, e = exp(1), sqrt2 = sqrt(2),
            positive_infinity = Inf, negative_infinity = -Inf, machine_precision = .Machine$double.eps)
  for (n in names(k)) expect_identical(tp_call(n, list(), character())$value, k[[n]], label = n)
  expect_true(is.nan(tp_call("not_a_number", list(), character())$value))
  # log2() and log10() are second entries of their names, beside the
  # one-argument forms (the interpreter picks by signature; tp_call takes the first)
  f <- tp_functions()
  expect_true("real()" %in% f$signatures[f$name == "log2"])
  expect_true("real()" %in% f$signatures[f$name == "log10"])
  expect_equal(tval("log2", list(8), "real"), 3)
  expect_error(tp_call("pi", list(1), "real"), "pi: expected 0 arguments, got 1")
})

test_that("gamma_p, gamma_q, inc_beta: values and gradients in every argument", {
  a <- c(0.3, 2.5, 30, 5); x <- c(0.01, 3, 10, 80)
  expect_equal(tval("gamma_p", list(a, x), c("vector", "vector")), pgamma(x, a), tolerance = 1e-13)
  expect_equal(tval("gamma_q", list(a, x), c("vector", "vector")), pgamma(x, a, lower.tail = FALSE), tolerance = 1e-12)
  r <- expect_gradient_fd("gamma_p", list(a[1:3], x[1:3]), c("vector", "vector"))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("gamma_q", list(a, x), c("vector", "vector"))
  expect_gradient_fd("gamma_q", list(2.5, 3), c("real", "real"))
  expect_error(tp_call("gamma_p", list(-1, 2), c("real", "real")), "gamma_p: first argument is -1, but must be positive!")
  expect_error(tp_call("gamma_q", list(1, -2), c("real", "real")), "gamma_q: second argument is -2, but must be nonnegative!")
  for (p in list(c(2, 3, 0.2), c(0.5, 0.5, 0.9), c(30, 5, 0.95), c(1.5, 40, 0.01))) {
    expect_equal(tval("inc_beta", as.list(p), rep("real", 3)), pbeta(p[3], p[1], p[2]), tolerance = 1e-13)
    r <- expect_gradient_fd("inc_beta", as.list(p), rep("real", 3))
    expect_equal(r$nodes[1], 1)
    expect_gradient_fd("inc_beta", as.list(p), rep("real", 3), c(FALSE, TRUE, FALSE))
  }
  expect_identical(tval("inc_beta", list(2, 3, 1), rep("real", 3)), 1)
  expect_error(tp_call("inc_beta", list(2, 3, 1.5), rep("real", 3)),
               "inc_beta: third argument is 1.5, but must be in the interval \\[0, 1\\]")
})

test_that("to_int truncates toward zero and checks int's range", {
  expect_identical(tval("to_int", list(2.7), "real"), 2L)
  expect_identical(tval("to_int", list(-2.7), "real"), -2L)
  expect_identical(tval("to_int", list(c(1.5, -0.5, 3)), "array[] real"), c(1L, 0L, 3L))
  expect_identical(tval("to_int", list(5L), "int"), 5L)
  expect_error(tp_call("to_int", list(3e10), "real"), "to_int: x is 30000000000, but must be in the interval")
  expect_error(tp_call("to_int", list(NaN), "real"), "to_int: x is nan")
})
