# Elementwise functions, arithmetic operators, log_sum_exp and log_mix
# (src/math/scalar/tm_elementary.c).

# Largest relative difference, with `floor` keeping values near zero sensible.
max_rel <- function(x, y, floor = 1e-300) {
  x <- as.numeric(unlist(x)); y <- as.numeric(unlist(y))
  same <- (is.na(x) & is.na(y)) | (is.infinite(x) & x == y)
  d <- abs(x - y) / pmax(abs(y), floor)
  d[same] <- 0
  max(d)
}
expect_rel <- function(x, y, tol = 1e-13, floor = 1e-300, label = "") {
  e <- max_rel(x, y, floor)
  expect_true(is.finite(e) && e <= tol, label = sprintf("%s max rel err %.3g", label, e))
}

log1p_exp_r <- function(x) ifelse(x > 0, x + log1p(exp(-x)), log1p(exp(x)))

# name, points inside the domain (for finite differences), R reference
unary <- list(
  list("exp", c(-30, -3, 0, 2.5, 20), exp),
  list("log", c(1e-3, 0.5, 3, 1e5), log),
  list("log1p", c(-0.9, 0, 2, 1e4), log1p),
  list("expm1", c(-5, -1e-4, 0, 3), expm1),
  list("sqrt", c(1e-2, 0.3, 4, 1e6), sqrt),
  list("square", c(-3, 0, 0.5, 1e3), function(x) x^2),
  list("inv", c(-2, 1e-3, 7), function(x) 1 / x),
  list("fabs", c(-2, 1e-3, 1.5), abs),
  list("abs", c(-2, 1e-3, 1.5), abs),
  list("logit", c(0.02, 0.3, 0.5, 0.95), qlogis),
  list("inv_logit", c(-40, -3, 0, 2, 35), plogis),
  list("log_inv_logit", c(-50, -2, 0, 3, 40), function(x) plogis(x, log.p = TRUE)),
  list("log1m_inv_logit", c(-50, -2, 0, 3, 40), function(x) plogis(x, lower.tail = FALSE, log.p = TRUE)),
  list("log1m", c(-5, 0, 0.5, 0.9), function(x) log1p(-x)),
  list("log1p_exp", c(-40, -1, 0, 2, 50), log1p_exp_r),
  list("lgamma", c(1e-3, 0.5, 1.5, 3, 25, 1e4, -0.5, -2.3), lgamma),
  list("digamma", c(0.1, 1, 2.5, 30, 1e3, -0.5, -3.7), digamma),
  list("erf", c(-3, -0.2, 0.7, 2), function(x) 2 * pnorm(x * sqrt(2)) - 1),
  list("erfc", c(-2, 0, 1, 4), function(x) 2 * pnorm(-x * sqrt(2))),
  list("Phi", c(-6, -2, 0, 1.3, 7), pnorm),
  list("Phi_approx", c(-4, 0, 2), function(x) plogis(0.07056 * x^3 + 1.5976 * x)),
  list("sin", c(-2, 0, 1, 10), sin),
  list("cos", c(-2, 0.3, 1, 10), cos),
  list("tan", c(-1, 0, 0.5, 1.4), tan),
  list("asin", c(-0.9, 0, 0.5), asin),
  list("acos", c(-0.9, 0, 0.5), acos),
  list("atan", c(-10, 0, 1.5), atan),
  list("sinh", c(-3, 0, 0.5, 4), sinh),
  list("cosh", c(-3, 0.2, 0.5, 4), cosh),
  list("tanh", c(-3, 0, 0.5, 4), tanh),
  list("asinh", c(-5, 0, 2), asinh),
  list("acosh", c(1.1, 2, 50), acosh),
  list("atanh", c(-0.9, 0, 0.6), atanh),
  list("log2", c(0.01, 1, 100), log2),
  list("log10", c(0.01, 1, 100), log10),
  list("exp2", c(-3, 0, 5), function(x) 2^x),
  list("cbrt", c(-8, 0.01, 3), function(x) sign(x) * abs(x)^(1 / 3)),
  list("inv_sqrt", c(0.01, 1, 50), function(x) 1 / sqrt(x)),
  list("inv_square", c(-2, 0.1, 3), function(x) 1 / x^2),
  list("inv_cloglog", c(-5, 0, 1.5), function(x) -expm1(-exp(x))),
  list("log1m_exp", c(-20, -1, -0.5, -1e-3), function(x) ifelse(x > -0.693, log(-expm1(x)), log1p(-exp(x)))),
  list("minus", c(-1, 0, 2), function(x) -x)
)

test_that("unary functions match R's values", {
  for (u in unary) {
    x <- u[[2]]
    expect_rel(tval(u[[1]], list(x), "vector"), u[[3]](x), 1e-13, label = u[[1]])
    for (xi in x) expect_rel(tval(u[[1]], list(xi), "real"), u[[3]](xi), 1e-13, label = u[[1]])
  }
})

test_that("unary gradients match finite differences on scalars and vectors", {
  for (u in unary) {
    for (xi in u[[2]]) expect_gradient_fd(u[[1]], list(xi), "real")
    r <- expect_gradient_fd(u[[1]], list(u[[2]]), "vector")
    J <- r$jacobian[[1]]
    expect_equal(J[row(J) != col(J)], rep(0, sum(row(J) != col(J))))
  }
})

test_that("unary functions take every container type and promote ints", {
  m <- matrix(c(0.1, 0.5, 2, 3, 0.7, 1.1), 2)
  expect_gradient_fd("log", list(m), "matrix")
  expect_equal(dim(tval("log", list(m), "matrix")), c(2L, 3L))
  expect_gradient_fd("lgamma", list(c(0.3, 4, 9)), "row_vector")
  expect_gradient_fd("inv_logit", list(c(-1, 0.5, 3)), "array[] real")
  expect_gradient_fd("sqrt", list(list(c(1, 2), c(3, 4))), "array[] vector")
  expect_gradient_fd("exp", list(list(list(1, 2), list(3, 4))), "array[,] real")
  expect_identical(tval("exp", list(c(0L, 1L, 2L)), "array[] int"), exp(c(0, 1, 2)))
  expect_identical(tval("exp", list(1L), "int"), exp(1))
  expect_identical(tval("minus", list(3L), "int"), -3L)
  expect_identical(tval("abs", list(-3L), "int"), 3L)
  expect_identical(tval("fabs", list(-3L), "int"), 3)
  expect_length(tval("exp", list(numeric(0)), "vector"), 0)
  r <- tp_call("exp", list(numeric(0)), "vector", TRUE)
  expect_length(r$value, 0)
})

test_that("unary edges: NaN where Stan returns NaN, Stan's derivatives at kinks", {
  expect_true(is.nan(tval("log", list(-1), "real")))
  expect_true(is.nan(tval("sqrt", list(-1), "real")))
  expect_true(is.nan(tval("logit", list(2), "real")))
  expect_identical(tval("log", list(0), "real"), -Inf)
  expect_identical(tval("lgamma", list(0), "real"), Inf)
  expect_true(is.nan(tval("digamma", list(0), "real")))
  expect_true(is.nan(tval("digamma", list(-2), "real")))
  expect_identical(tval("log1p", list(-1), "real"), -Inf)
  expect_identical(tval("log1m", list(1), "real"), -Inf)
  expect_true(is.nan(tval("log1p", list(NaN), "real")))
  expect_identical(tval("inv_logit", list(-800), "real"), 0)
  expect_identical(tval("log_inv_logit", list(-800), "real"), -800)
  expect_identical(tval("log1p_exp", list(800), "real"), 800)
  expect_identical(tval("Phi", list(-40), "real"), 0)
  expect_identical(tval("Phi", list(9), "real"), 1)
  expect_equal(tp_call("fabs", list(0), "real", TRUE)$jacobian[[1]][1, 1], 0)
  expect_equal(tp_call("sqrt", list(0), "real", TRUE)$jacobian[[1]][1, 1], Inf)
  # inv_logit's derivative keeps its digits in the upper tail
  d <- tp_call("inv_logit", list(30), "real", TRUE)$jacobian[[1]][1, 1]
  expect_rel(d, dlogis(30), 1e-13)
  d <- tp_call("log1m_inv_logit", list(-40), "real", TRUE)$jacobian[[1]][1, 1]
  expect_rel(d, -plogis(-40), 1e-13)
  # Phi in its erf branch loses relative accuracy in the lower tail (Stan's cut-offs)
  expect_rel(tval("Phi", list(-4.9), "real"), pnorm(-4.9), 1e-9)
})

test_that("unary domain errors name the function and argument as Stan does", {
  expect_error(tp_call("log1m", list(2), "real"),
               "log1m: x is 2, but must be less than or equal to 1", fixed = TRUE)
  expect_error(tp_call("log1m", list(c(0, 2)), "vector"), "log1m: x[2] is 2", fixed = TRUE)
  expect_error(tp_call("log1p", list(-2), "real"),
               "log1p: x is -2, but must be greater than or equal to -1", fixed = TRUE)
  expect_error(tp_call("Phi", list(NaN), "real"), "Phi: x is nan, but must not be nan", fixed = TRUE)
  expect_error(tp_call("acosh", list(0.5), "real"), "acosh: x is 0.5")
  expect_error(tp_call("atanh", list(c(0, 1.5)), "array[] real"), "atanh: x[2] is 1.5", fixed = TRUE)
  expect_s3_class(tryCatch(tp_call("log1m", list(2), "real"), error = identity),
                  "tapestry_domain_error")
})

test_that("a vectorized call records one node; data calls record none", {
  x <- seq(0.1, 10, length.out = 100)
  expect_equal(tp_call("exp", list(x), "vector", TRUE)$nodes[1], 1)
  expect_equal(tp_call("lgamma", list(matrix(x, 10)), "matrix", TRUE)$nodes[1], 1)
  expect_equal(tp_call("pow", list(x, 2.5), c("vector", "real"), c(TRUE, TRUE))$nodes[1], 1)
  expect_equal(tp_call("add", list(x, x), c("vector", "vector"), c(TRUE, FALSE))$nodes[1], 1)
  expect_equal(tp_call("log_sum_exp", list(x), "vector", TRUE)$nodes[1], 1)
  expect_equal(tp_call("log_mix", list(x / sum(x), -x), c("vector", "vector"), c(TRUE, TRUE))$nodes[1], 1)
  expect_equal(tp_call("exp", list(x), "vector", FALSE)$nodes[1], 0)
  expect_equal(tp_call("exp", list(1), "real", TRUE)$nodes[1], 1)
})

# ---- binary functions ----

lde_r <- function(a, b) a + log(-expm1(b - a))
lchoose_g <- function(n, k) lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)

binary <- list(
  list("pow", list(c(2, 3), c(0.5, -1.5), c(3, 0.5), c(1e-3, 2), c(7, 0)), function(x, y) x^y),
  list("fmin", list(c(1, 2), c(3, -1), c(-5, 4)), pmin),
  list("fmax", list(c(1, 2), c(3, -1), c(-5, 4)), pmax),
  list("log_diff_exp", list(c(0, -1), c(5, 4.9), c(-1, -30), c(700, 1)), lde_r),
  list("lbeta", list(c(0.5, 2), c(3, 40), c(100, 2000), c(1e-3, 5), c(20, 20), c(15, 0.3)), lbeta),
  list("lchoose", list(c(10, 3), c(5.5, 2.2), c(100, 50), c(30, 0.5), c(2000, 7)), lchoose_g),
  list("log_sum_exp", list(c(0, -1), c(700, 710), c(-3, 2), c(-1000, -1001)),
       function(a, b) pmax(a, b) + log1p(exp(-abs(a - b)))),
  list("add", list(c(1, 2), c(-3, 0.5)), function(x, y) x + y),
  list("subtract", list(c(1, 2), c(-3, 0.5)), function(x, y) x - y),
  list("elt_multiply", list(c(1.5, 2), c(-3, 0.5)), function(x, y) x * y),
  list("elt_divide", list(c(1.5, 2), c(-3, 0.5)), function(x, y) x / y),
  list("divide", list(c(1.5, 2), c(-3, 0.5)), function(x, y) x / y)
)

test_that("binary functions match R's values", {
  for (b in binary) for (p in b[[2]])
    expect_rel(tval(b[[1]], list(p[1], p[2]), c("real", "real")), b[[3]](p[1], p[2]), 1e-13,
               label = paste(b[[1]], p[1], p[2]))
  expect_rel(tval("lchoose", list(c(10, 100, 2000, 5), 3), c("vector", "real")),
             lchoose(c(10, 100, 2000, 5), 3), 1e-13)
  expect_rel(tval("lchoose", list(1e6, c(2, 500000)), c("real", "vector")), lchoose(1e6, c(2, 500000)), 1e-13)
  expect_rel(tval("lbeta", list(c(1e-8, 1e5, 1e10), c(3, 1e6, 2)), c("vector", "vector")),
             lbeta(c(1e-8, 1e5, 1e10), c(3, 1e6, 2)), 1e-13)
  expect_rel(tval("pow", list(-2, 3), c("real", "real")), -8)
  expect_equal(tval("fmin", list(NaN, 1), c("real", "real")), 1)
  expect_equal(tval("fmax", list(2, NaN), c("real", "real")), 2)
  expect_identical(tval("log_diff_exp", list(1, 1), c("real", "real")), -Inf)
  expect_true(is.nan(tval("log_diff_exp", list(1, 2), c("real", "real"))))
  expect_identical(tval("log_diff_exp", list(3, -Inf), c("real", "real")), 3)
  expect_identical(tval("lbeta", list(0, 2), c("real", "real")), Inf)
  expect_identical(tval("lchoose", list(7, 0), c("real", "real")), 0)
  expect_true(is.nan(tval("lbeta", list(NaN, -2), c("real", "real"))))
})

test_that("binary gradients match finite differences", {
  # finite differences step by 1e-3 |x|: too coarse at |x| in the hundreds
  for (b in binary) for (p in b[[2]]) if (max(abs(p)) < 150 || b[[1]] %in% c("lbeta", "lchoose"))
    expect_gradient_fd(b[[1]], list(p[1], p[2]), c("real", "real"))
  expect_gradient_fd("log_sum_exp", list(3, 2), c("real", "real"))
  expect_gradient_fd("log_diff_exp", list(3, -20), c("real", "real"))
  # one argument data
  expect_gradient_fd("pow", list(-2, 3), c("real", "real"), ad = c(TRUE, FALSE))
  expect_gradient_fd("lbeta", list(2.5, 4), c("real", "real"), ad = c(FALSE, TRUE))
  expect_gradient_fd("lchoose", list(12, 4L), c("real", "int"), ad = c(TRUE, FALSE))
  # Stan's partials at the kinks
  r <- tp_call("fmin", list(2, 2), c("real", "real"), c(TRUE, TRUE))
  expect_equal(c(r$jacobian[[1]], r$jacobian[[2]]), c(0, 1))
  r <- tp_call("fmax", list(NaN, 2), c("real", "real"), c(TRUE, TRUE))
  expect_equal(c(r$value, r$jacobian[[1]], r$jacobian[[2]]), c(2, 0, 1))
  r <- tp_call("pow", list(0, 2), c("real", "real"), c(TRUE, TRUE))
  expect_equal(c(r$value, r$jacobian[[1]], r$jacobian[[2]]), c(0, 0, 0))
  r <- tp_call("pow", list(0, 1), c("real", "real"), c(TRUE, TRUE))
  expect_equal(c(r$jacobian[[1]], r$jacobian[[2]]), c(1, 0))
  r <- tp_call("log_diff_exp", list(3, -Inf), c("real", "real"), c(TRUE, TRUE))
  expect_equal(c(r$jacobian[[1]], r$jacobian[[2]]), c(1, 0))
  r <- tp_call("log_sum_exp", list(1000, 1000), c("real", "real"), c(TRUE, TRUE))
  expect_equal(c(r$value, r$jacobian[[1]], r$jacobian[[2]]), c(1000 + log(2), 0.5, 0.5))
})

test_that("binary functions broadcast scalars and map containers", {
  v <- c(0.5, 1.5, 3); w <- c(2, 0.25, 1.1)
  m <- matrix(c(0.5, 1, 2, 3, 0.2, 4), 2); m2 <- matrix(c(1, 2, 0.3, 0.4, 3, 1.5), 2)
  for (fn in c("pow", "fmin", "lbeta", "add", "subtract", "elt_multiply", "elt_divide")) {
    expect_gradient_fd(fn, list(v, 1.7), c("vector", "real"))
    expect_gradient_fd(fn, list(1.7, v), c("real", "vector"))
    expect_gradient_fd(fn, list(v, w), c("vector", "vector"))
    expect_gradient_fd(fn, list(v, w), c("row_vector", "row_vector"))
    expect_gradient_fd(fn, list(m, m2), c("matrix", "matrix"))
    expect_gradient_fd(fn, list(2.2, m), c("real", "matrix"))
  }
  expect_gradient_fd("lchoose", list(c(10, 20, 5.5), c(3, 2.5, 1)), c("array[] real", "array[] real"))
  expect_gradient_fd("log_diff_exp", list(c(1, 2, 3), 0.5), c("array[] real", "real"))
  expect_gradient_fd("divide", list(v, 1.7), c("vector", "real"))
  expect_gradient_fd("divide", list(m, -2), c("matrix", "real"))
  expect_gradient_fd("fmax", list(list(c(1, 2), c(3, 4)), 2.5), c("array[] vector", "real"))
  expect_equal(tval("pow", list(c(1L, 2L, 3L), 2L), c("array[] int", "int")), c(1, 4, 9))
  expect_equal(tval("add", list(2L, v), c("int", "vector")), v + 2)
  expect_equal(tval("subtract", list(m, 1), c("matrix", "real")), m - 1)
  expect_equal(tval("lbeta", list(c(1L, 2L), c(2.5, 3)), c("array[] int", "array[] real")),
               lbeta(c(1, 2), c(2.5, 3)))
  x <- seq(0.1, 10, length.out = 100)
  expect_equal(tval("pow", list(x, 1.5), c("vector", "real")), x^1.5)
})

test_that("integer arithmetic stays integer", {
  expect_identical(tval("add", list(2L, 3L), c("int", "int")), 5L)
  expect_identical(tval("subtract", list(2L, 3L), c("int", "int")), -1L)
  expect_identical(tval("divide", list(7L, 2L), c("int", "int")), 3L)
  expect_identical(tval("divide", list(-7L, 2L), c("int", "int")), -3L)
  expect_identical(tval("modulus", list(7L, 3L), c("int", "int")), 1L)
  expect_identical(tval("modulus", list(-7L, 3L), c("int", "int")), -1L)
  expect_identical(tval("minus", list(4L), "int"), -4L)
  expect_identical(tval("add", list(2L, 0.5), c("int", "real")), 2.5)
  expect_identical(tval("divide", list(7L, 2), c("int", "real")), 3.5)
  # Stan's elt_divide(int, int) is int division, as divide (stanc3: => int)
  expect_identical(tval("elt_divide", list(7L, 2L), c("int", "int")), 3L)
  expect_identical(tval("elt_multiply", list(7L, 6L), c("int", "int")), 42L)
  expect_error(tp_call("elt_multiply", list(.Machine$integer.max, 2L), c("int", "int")), "integer overflow")
  expect_error(tp_call("divide", list(1L, 0L), c("int", "int")), "divide: denominator is 0", fixed = TRUE)
  expect_error(tp_call("modulus", list(1L, 0L), c("int", "int")), "modulus: divisor is 0", fixed = TRUE)
  expect_error(tp_call("modulus", list(1, 2L), c("real", "int")), "modulus:")
  expect_error(tp_call("add", list(.Machine$integer.max, 1L), c("int", "int")), "add: integer overflow")
  expect_identical(tval("divide", list(1, 0), c("real", "real")), Inf)
})

test_that("binary size and shape errors name the function", {
  expect_error(tp_call("add", list(c(1, 2), c(1, 2, 3)), c("vector", "vector")),
               "add: Size of x (2) and size of y (3) must match in size", fixed = TRUE)
  expect_error(tp_call("pow", list(c(1, 2), c(1, 2, 3)), c("array[] real", "array[] real")), "pow: Size")
  expect_error(tp_call("elt_multiply", list(matrix(1:6, 2), matrix(1:6, 3)), c("matrix", "matrix")),
               "elt_multiply: x")
  expect_error(tp_call("subtract", list(c(1, 2), c(1, 2)), c("vector", "row_vector")), "subtract: x")
  expect_error(tp_call("divide", list(c(1, 2), c(1, 2)), c("vector", "vector")), "divide: the second")
  expect_error(tp_call("lbeta", list(-1, 2), c("real", "real")),
               "lbeta: first argument is -1, but must be nonnegative!", fixed = TRUE)
  expect_error(tp_call("lbeta", list(c(1, 2), c(1, -2)), c("vector", "vector")),
               "lbeta: second argument[2] is -2", fixed = TRUE)
  expect_error(tp_call("lchoose", list(-2, 1), c("real", "real")),
               "lchoose: first argument is -2, but must be greater than or equal to -1", fixed = TRUE)
  expect_error(tp_call("lchoose", list(3, 5), c("real", "real")),
               "lchoose: (first argument - second argument + 1) is -1", fixed = TRUE)
  expect_s3_class(tryCatch(tp_call("add", list(c(1, 2), c(1, 2, 3)), c("vector", "vector")),
                           error = identity), "tapestry_invalid_argument")
})

# ---- log_sum_exp and log_mix ----

lse_r <- function(x) { m <- max(x); if (!is.finite(m)) m else m + log(sum(exp(x - m))) }

test_that("log_sum_exp over containers is stable and has exact gradients", {
  set.seed(1)
  x <- rnorm(100, sd = 5)
  expect_rel(tval("log_sum_exp", list(x), "vector"), lse_r(x), 1e-14)
  expect_rel(tval("log_sum_exp", list(x + 1e4), "array[] real"), lse_r(x + 1e4), 1e-14)
  expect_rel(tval("log_sum_exp", list(x - 1e4), "row_vector"), lse_r(x - 1e4), 1e-14)
  expect_rel(tval("log_sum_exp", list(matrix(x, 10)), "matrix"), lse_r(x), 1e-14)
  expect_identical(tval("log_sum_exp", list(numeric(0)), "vector"), -Inf)
  expect_identical(tval("log_sum_exp", list(c(-Inf, -Inf)), "vector"), -Inf)
  expect_identical(tval("log_sum_exp", list(c(1, Inf)), "vector"), Inf)
  expect_true(is.nan(tval("log_sum_exp", list(c(1, NaN)), "vector")))
  expect_identical(tval("log_sum_exp", list(c(1L, 2L)), "array[] int"), lse_r(c(1, 2)))
  expect_identical(tval("log_sum_exp", list(-Inf, 2), c("real", "real")), 2)
  expect_gradient_fd("log_sum_exp", list(c(-1, 0.5, 3, -20)), "vector")
  expect_gradient_fd("log_sum_exp", list(c(10, 11, 9)), "row_vector")
  r <- tp_call("log_sum_exp", list(c(1000, 1001, 999)), "row_vector", TRUE)
  expect_rel(r$jacobian[[1]], exp(c(1000, 1001, 999) - lse_r(c(1000, 1001, 999))), 1e-13)
  expect_gradient_fd("log_sum_exp", list(matrix(c(1, 2, 3, 4), 2)), "matrix")
  expect_gradient_fd("log_sum_exp", list(c(0.1, -0.2)), "array[] real")
  r <- tp_call("log_sum_exp", list(c(-Inf, 0)), "vector", TRUE)
  expect_equal(as.numeric(r$jacobian[[1]]), c(0, 1))
})

log_mix_r <- function(th, l1, l2) log(th * exp(l1) + (1 - th) * exp(l2))

test_that("log_mix(theta, lambda1, lambda2) matches its definition", {
  pts <- list(c(0.3, -1, -2), c(0.999, -10, 5), c(0.01, 2, -3), c(0.5, -700, -701))
  for (p in pts) {
    ref <- if (p[2] < -600) p[2] + log(p[1] + (1 - p[1]) * exp(p[3] - p[2])) else log_mix_r(p[1], p[2], p[3])
    expect_rel(tval("log_mix", as.list(p), rep("real", 3)), ref, 1e-13)
    if (p[1] < 0.9 && max(abs(p)) < 50) expect_gradient_fd("log_mix", as.list(p), rep("real", 3))
  }
  expect_gradient_fd("log_mix", list(0.9, -10, 5), rep("real", 3))
  expect_identical(tval("log_mix", list(0, 1, -2), rep("real", 3)), -2)
  expect_identical(tval("log_mix", list(1, 1, -2), rep("real", 3)), 1)
  r <- tp_call("log_mix", list(0, 1, -2), rep("real", 3), rep(TRUE, 3))
  expect_equal(c(r$jacobian[[1]], r$jacobian[[2]], r$jacobian[[3]]), c(exp(3) - 1, 0, 1))
  expect_gradient_fd("log_mix", list(0.4, -1, -2), rep("real", 3), ad = c(FALSE, TRUE, FALSE))
  expect_error(tp_call("log_mix", list(1.5, 1, 2), rep("real", 3)), "log_mix: theta is 1.5")
  expect_error(tp_call("log_mix", list(0.5, NaN, 2), rep("real", 3)), "log_mix: lambda1")
  expect_error(tp_call("log_mix", list(0.5, 1, c(1, 2)), c("real", "real", "vector")), "log_mix:")
})

test_that("log_mix(theta, lambda) over containers and arrays of them", {
  th <- c(0.2, 0.5, 0.3); lam <- c(-1, -3, 0.5)
  ref <- log(sum(th * exp(lam)))
  expect_rel(tval("log_mix", list(th, lam), c("vector", "vector")), ref, 1e-14)
  expect_rel(tval("log_mix", list(th, lam), c("row_vector", "array[] real")), ref, 1e-14)
  expect_rel(tval("log_mix", list(th, lam - 800), c("array[] real", "vector")), ref - 800, 1e-14)
  expect_gradient_fd("log_mix", list(th, lam), c("vector", "vector"))
  expect_gradient_fd("log_mix", list(th, lam), c("array[] real", "row_vector"))
  lams <- list(lam, c(2, -1, -4), c(0, 0, 0))
  ref2 <- sum(sapply(lams, function(l) log(sum(th * exp(l)))))
  expect_rel(tval("log_mix", list(th, lams), c("vector", "array[] vector")), ref2, 1e-14)
  expect_gradient_fd("log_mix", list(th, lams), c("vector", "array[] vector"))
  expect_gradient_fd("log_mix", list(th, lams), c("row_vector", "array[] row_vector"))
  expect_gradient_fd("log_mix", list(th, lams), c("array[] real", "array[,] real"))
  expect_gradient_fd("log_mix", list(th, lams), c("vector", "array[] vector"), ad = c(FALSE, TRUE))
  expect_identical(tval("log_mix", list(th, list()), c("vector", "array[] vector")), 0)
  expect_error(tp_call("log_mix", list(th, c(1, 2)), c("vector", "vector")),
               "log_mix: Size of theta (3) and size of lambda (2) must match in size", fixed = TRUE)
  expect_error(tp_call("log_mix", list(th, list(c(1, 2))), c("vector", "array[] vector")), "log_mix: Size")
  expect_error(tp_call("log_mix", list(c(0.5, 1.5), c(1, 2)), c("vector", "vector")), "log_mix: theta[2]", fixed = TRUE)
  expect_error(tp_call("log_mix", list(th, c(1, Inf, 2)), c("vector", "vector")), "log_mix: lambda[2]", fixed = TRUE)
  expect_error(tp_call("log_mix", list(0.5, c(1, 2)), c("real", "vector")), "log_mix: theta")
})

test_that("digamma and trigamma agree with R over a wide grid", {
  x <- c(seq(-9.95, -0.05, by = 0.1), seq(0.01, 0.99, by = 0.01), seq(1, 30, by = 0.137),
         50, 99.5, 1e3, 1e5, 1e8, 1e12, 1e-5, 1e-8, -1e-5, -100.5, -1000.25, -2 - 1e-6, -2 + 1e-6)
  x <- x[abs(x - 1.4616321449683622) > 0.02]   # relative error is meaningless at the root
  r <- tp_call("digamma", list(x), "vector", TRUE)
  expect_rel(r$value, digamma(x), 1e-14, label = "digamma")
  expect_rel(diag(r$jacobian[[1]]), trigamma(x), 1e-14, label = "trigamma")
  near <- 1.4616321449683622 + c(-1e-3, 1e-3)
  expect_true(all(abs(tval("digamma", list(near), "vector") - digamma(near)) < 1e-15))
})
