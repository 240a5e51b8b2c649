# Constraint transforms: round trips, log |J| against finite-difference
# Jacobians, gradients against finite differences, known values, errors and
# node counts.

tr_value <- function(name, x, params = list(), shape = "real", types = NULL) {
  r <- tp_transform(name, x, params, shape, ad = FALSE, types = types)
  c(unlist(r$value), r$lp)
}


# log |det| of the Jacobian of x -> the independent constrained coordinates
# `keep` (indices into the flattened value) equals the transform's lp.
expect_logdet <- function(name, x, params = list(), shape, keep = NULL, tol = 1e-7) {
  r <- tp_transform(name, x, params, shape)
  v <- unlist(r$value)
  if (is.null(keep)) keep <- seq_along(v)
  J <- fd_jac(function(u) unlist(tp_transform(name, u, params, shape)$value)[keep], x)
  expect_equal(nrow(J), length(x), label = paste(name, "independent coordinates"))
  ld <- as.numeric(determinant(J, logarithm = TRUE)$modulus)
  expect_equal(r$lp, ld, tolerance = tol, label = paste(name, shape, "lp"),
               expected.label = "log|det| of the finite-difference Jacobian")
}

# The autodiff Jacobian of c(value, lp) in x and in every parameter equals
# finite differences.
expect_tr_gradient <- function(name, x, params = list(), shape = "real",
                               ad = TRUE, tol = 1e-6, types = NULL, h = NULL) {
  ad <- rep_len(ad, 1 + length(params))
  r <- tp_transform(name, x, params, shape, ad = ad, types = types)
  r0 <- tp_transform(name, x, params, shape, ad = FALSE, types = types)
  expect_equal(c(unlist(r$value), r$lp), c(unlist(r0$value), r0$lp), tolerance = 1e-14)
  inputs <- c(list(x), params)
  for (i in which(ad)) {
    f <- function(u) {
      a <- inputs
      a[[i]] <- u
      if (!is.null(dim(inputs[[i]]))) dim(a[[i]]) <- dim(inputs[[i]])
      tr_value(name, a[[1]], a[-1], shape, types)
    }
    fd <- fd_jac(f, as.numeric(inputs[[i]]), h)
    J <- r$jacobian[[i]]
    expect_false(is.null(J), label = paste(name, "Jacobian for input", i))
    err <- abs(J - fd) / pmax(abs(fd), 1e-3)
    expect_true(all(err < tol),
                label = sprintf("%s %s: input %d gradient vs finite differences (max rel err %.3g)",
                                name, shape, i, max(err)))
  }
  invisible(r)
}

expect_round_trip <- function(name, x, params = list(), shape, tol = 1e-10) {
  y <- tp_transform(name, x, params, shape, ad = FALSE)$value
  back <- tp_transform(name, y, params, shape, direction = "free")
  expect_equal(back, x, tolerance = tol, label = paste(name, shape, "free(constrain(x))"))
  y2 <- tp_transform(name, back, params, shape, ad = FALSE)$value
  expect_equal(unlist(y2), unlist(y), tolerance = tol, label = paste(name, shape, "constrain(free(y))"))
}

set.seed(20240611)

test_that("sizes of the unconstrained spaces follow Stan", {
  sz <- function(name, shape) tp_transform(name, shape = shape, direction = "size",
                                           params = if (name == "lower") list(0) else list())
  expect_equal(sz("lower", "array[2,3] matrix[2,4]"), 48)
  expect_equal(sz("simplex", "vector[5]"), 4)
  expect_equal(sz("simplex", "array[3] vector[5]"), 12)
  expect_equal(sz("sum_to_zero_vector", "vector[4]"), 3)
  expect_equal(sz("ordered", "vector[4]"), 4)
  expect_equal(sz("unit_vector", "vector[4]"), 4)
  expect_equal(sz("cholesky_factor_corr", "matrix[4,4]"), 6)
  expect_equal(sz("corr_matrix", "matrix[4,4]"), 6)
  expect_equal(sz("cov_matrix", "matrix[4,4]"), 10)
  expect_equal(sz("cholesky_factor_cov", "matrix[5,3]"), 6 + 2 * 3)
  expect_error(sz("simplex", "matrix[2,2]"), "simplex")
  expect_error(sz("cov_matrix", "matrix[2,3]"), "square")
  expect_error(sz("cholesky_factor_cov", "matrix[2,3]"), "at least as many rows")
})

test_that("scalar bounds: known values", {
  r <- tp_transform("lower", 0, list(0))
  expect_equal(r$value, 1)
  expect_equal(r$lp, 0)
  r <- tp_transform("lower", log(2), list(3))
  expect_equal(r$value, 5, tolerance = 1e-15)
  expect_equal(r$lp, log(2))
  r <- tp_transform("upper", log(2), list(3))
  expect_equal(r$value, 1, tolerance = 1e-15)
  expect_equal(r$lp, log(2))
  r <- tp_transform("lower_upper", 0, list(-1, 3))
  expect_equal(r$value, 1)
  expect_equal(r$lp, log(4) + 2 * log(0.5), tolerance = 1e-15)
  r <- tp_transform("lower_upper", 0.7, list(0, 1))
  expect_equal(r$value, plogis(0.7), tolerance = 1e-15)
  expect_equal(r$lp, log(plogis(0.7) * plogis(-0.7)), tolerance = 1e-14)
  r <- tp_transform("lower_upper", -800, list(0, 1))     # far tail: finite lp
  expect_equal(r$lp, -800, tolerance = 1e-12)
  r <- tp_transform("offset_multiplier", 1.5, list(2, 3))
  expect_equal(r$value, 6.5)
  expect_equal(r$lp, log(3))
  # infinite bounds: Stan's special cases
  r <- tp_transform("lower", 0.3, list(-Inf))
  expect_equal(c(r$value, r$lp), c(0.3, 0))
  r <- tp_transform("upper", 0.3, list(Inf))
  expect_equal(c(r$value, r$lp), c(0.3, 0))
  r <- tp_transform("lower_upper", 0.3, list(-Inf, Inf))
  expect_equal(c(r$value, r$lp), c(0.3, 0))
  r <- tp_transform("lower_upper", 0.3, list(1, Inf))
  expect_equal(c(r$value, r$lp), c(1 + exp(0.3), 0.3))
  r <- tp_transform("lower_upper", 0.3, list(-Inf, 1))
  expect_equal(c(r$value, r$lp), c(1 - exp(0.3), 0.3))
})

test_that("scalar bounds: round trips, log |J| and gradients", {
  x <- c(-2.5, -0.3, 0, 0.8, 3)
  for (case in list(list("lower", list(1.5)), list("upper", list(-2)),
                    list("lower_upper", list(-1, 4)), list("lower_upper", list(-Inf, 4)),
                    list("lower_upper", list(-1, Inf)), list("offset_multiplier", list(0.5, 2.5)))) {
    expect_round_trip(case[[1]], x, case[[2]], "vector[5]")
    expect_logdet(case[[1]], x, case[[2]], "vector[5]")
    # finite differences cannot move an infinite bound: those stay data
    expect_tr_gradient(case[[1]], x, case[[2]], "vector[5]",
                       ad = c(TRUE, vapply(case[[2]], function(p) all(is.finite(p)), TRUE)))
  }
  # vector bounds, some infinite, autodiff
  lb <- c(-1, -Inf, 0, 2, -3)
  ub <- c(1, 2, Inf, 5, -2.5)
  expect_round_trip("lower_upper", x, list(lb, ub), "vector[5]")
  expect_logdet("lower_upper", x, list(lb, ub), "vector[5]")
  lbf <- c(-1, -2, 0, 2, -3)
  ubf <- c(1, 2, 0.5, 5, -2.5)
  expect_tr_gradient("lower_upper", x, list(lbf, ubf), "vector[5]")
  expect_tr_gradient("lower_upper", x, list(-3, ubf), "vector[5]", ad = c(TRUE, TRUE, FALSE))
  expect_tr_gradient("lower", x, list(lbf), "vector[5]")
  expect_tr_gradient("upper", x, list(ubf), "vector[5]")
  expect_tr_gradient("offset_multiplier", x, list(lbf, exp(ubf)), "vector[5]")
  expect_tr_gradient("offset_multiplier", x, list(0.3, 2), "vector[5]", ad = c(FALSE, TRUE, TRUE))
  # extreme unconstrained values
  # (a step of 1e-3 at 1e-8: log |J|'s slope there is -5e-9, and the default
  # step of 1e-5 leaves rounding of 1e-9 in the differences)
  expect_tr_gradient("lower_upper", c(-30, 30, 1e-8), list(0, 2), "vector[3]", h = c(0.03, 0.03, 1e-3))
  expect_tr_gradient("lower", c(-30, 20, 1e-8), list(0), "vector[3]", ad = c(TRUE, FALSE))
  # matrices and arrays of them, in Stan's order (arrays by leading index,
  # matrices column-major)
  m <- matrix(c(0.1, -0.2, 0.3, 1, 2, -1), 2, 3)
  r <- tp_transform("lower", as.numeric(m), list(1), "matrix[2,3]")
  expect_equal(r$value, 1 + exp(m))
  expect_equal(r$lp, sum(m))
  expect_round_trip("lower", rnorm(12), list(as.numeric(1:12)), "array[2] matrix[2,3]")
  r <- tp_transform("upper", 1:6 / 10, list(0), "array[2,3] real")
  expect_equal(r$value, list(-exp(c(1, 2, 3) / 10), -exp(c(4, 5, 6) / 10)))
})

test_that("free rejects values outside the constraint, naming it", {
  expect_error(tp_transform("lower", -1, list(0), direction = "free"),
               "lb_free: Lower bounded variable is -1, but must be greater than or equal to 0")
  expect_error(tp_transform("lower", c(1, -1), list(0), "vector[2]", direction = "free"),
               "lb_free: Lower bounded variable\\[2\\] is -1")
  expect_error(tp_transform("upper", 2, list(1), direction = "free"),
               "ub_free: Upper bounded variable is 2, but must be less than or equal to 1")
  expect_error(tp_transform("lower_upper", 2, list(0, 1), direction = "free"),
               "lub_free: Bounded variable is 2, but must be in the interval \\[0, 1\\]")
  expect_error(tp_transform("lower_upper", NaN, list(0, 1), direction = "free"), "lub_free")
  expect_error(tp_transform("offset_multiplier", 1, list(0, -1), direction = "free"),
               "offset_multiplier_free: multiplier is -1, but must be positive finite")
  expect_error(tp_transform("simplex", c(0.5, 0.6), shape = "vector[2]", direction = "free"),
               "simplex_free: Simplex variable is not a valid simplex. sum\\(Simplex variable\\) = 1.1")
  expect_error(tp_transform("simplex", c(1.1, -0.1), shape = "vector[2]", direction = "free"),
               "simplex_free: .*Simplex variable\\[2\\] = -0.1")
  expect_error(tp_transform("sum_to_zero_vector", c(1, -0.9), shape = "vector[2]", direction = "free"),
               "sum_to_zero_free: sum_to_zero variable does not sum to zero")
  expect_error(tp_transform("ordered", c(1, 3, 2), shape = "vector[3]", direction = "free"),
               "ordered_free: Ordered variable is not a valid ordered vector. The element at 3 is 2")
  expect_error(tp_transform("positive_ordered", c(-1, 3), shape = "vector[2]", direction = "free"),
               "positive_ordered_free: .*The element at 1 is -1, but should be positive")
  expect_error(tp_transform("unit_vector", c(1, 0.5), shape = "vector[2]", direction = "free"),
               "unit_vector_free: Unit vector variable is not a valid unit vector.*is 1.25")
  expect_error(tp_transform("cov_matrix", matrix(c(1, 2, 2, 1), 2), shape = "matrix[2,2]", direction = "free"),
               "cov_matrix_free: y is not positive definite")
  expect_error(tp_transform("cov_matrix", matrix(c(1, 0.2, 0.3, 1), 2), shape = "matrix[2,2]", direction = "free"),
               "cov_matrix_free: y is not symmetric")
  expect_error(tp_transform("cov_matrix", diag(c(1, -1)), shape = "matrix[2,2]", direction = "free"),
               "cov_matrix_free: y\\[2,2\\] is -1")
  expect_error(tp_transform("corr_matrix", diag(c(1, 2)), shape = "matrix[2,2]", direction = "free"),
               "corr_matrix_free: y is not a valid correlation matrix")
  expect_error(tp_transform("corr_matrix", matrix(c(1, 1.5, 1.5, 1), 2), shape = "matrix[2,2]", direction = "free"),
               "corr_matrix_free: y is not positive definite")
  expect_error(tp_transform("cholesky_factor_corr", matrix(c(1, 0.5, 0, 0.5), 2), shape = "matrix[2,2]",
                            direction = "free"),
               "cholesky_corr_free: .*Row 2")
  expect_error(tp_transform("cholesky_factor_corr", matrix(c(1, 0, 0.1, 1), 2), shape = "matrix[2,2]",
                            direction = "free"),
               "cholesky_corr_free: y is not lower triangular")
  expect_error(tp_transform("cholesky_factor_cov", matrix(c(1, 0.5, 0, -2), 2), shape = "matrix[2,2]",
                            direction = "free"),
               "cholesky_factor_free: y\\[2,2\\] is -2")
})

test_that("constrain rejects bad bounds and sizes", {
  expect_error(tp_transform("lower_upper", 0, list(1, 0)), "lub_constrain: lb is 1, but must be less than 0")
  expect_error(tp_transform("lower_upper", c(0, 0), list(c(0, 2), 1), "vector[2]"),
               "lub_constrain: lb\\[2\\] is 2")
  expect_error(tp_transform("offset_multiplier", 0, list(Inf, 1)),
               "offset_multiplier_constrain: offset is inf, but must be finite")
  expect_error(tp_transform("offset_multiplier", 0, list(0, 0)),
               "offset_multiplier_constrain: multiplier is 0, but must be positive finite")
  expect_error(tp_transform("lower", c(0, 0), list(c(0, 0, 0)), "vector[2]"),
               "lb_constrain: Size of x \\(2\\) and size of lb \\(3\\) must match")
  expect_error(tp_transform("simplex", c(0, 0, 0), shape = "vector[3]"), "needs 2 unconstrained values, got 3")
  expect_error(tp_transform("unit_vector", c(0, 0), shape = "vector[2]"),
               "unit_vector_constrain: norm is 0, but must be positive finite")
  expect_error(tp_transform("unit_vector", numeric(), shape = "vector[0]"), "non-zero size")
})

test_that("simplex: the isometric log ratio transform of current Stan", {
  # zero maps to the uniform simplex
  r <- tp_transform("simplex", c(0, 0, 0), shape = "vector[4]")
  expect_equal(r$value, rep(0.25, 4))
  expect_equal(r$lp, 4 * log(0.25) + 0.5 * log(4))
  # K = 2: softmax of (u / sqrt(2), -u / sqrt(2))
  u <- 0.9
  r <- tp_transform("simplex", u, shape = "vector[2]")
  expect_equal(r$value, c(plogis(sqrt(2) * u), plogis(-sqrt(2) * u)), tolerance = 1e-15)
  r <- tp_transform("simplex", numeric(), shape = "vector[1]")
  expect_equal(c(r$value, r$lp), c(1, 0))
  for (K in c(2, 3, 6)) {
    x <- rnorm(K - 1)
    expect_round_trip("simplex", x, shape = sprintf("vector[%d]", K))
    expect_logdet("simplex", x, shape = sprintf("vector[%d]", K), keep = seq_len(K - 1))
    expect_tr_gradient("simplex", x, shape = sprintf("vector[%d]", K))
  }
  expect_tr_gradient("simplex", c(8, -12, 3), shape = "vector[4]")
  x <- rnorm(6)
  expect_round_trip("simplex", x, shape = "array[3] vector[3]")
  expect_tr_gradient("simplex", x, shape = "array[3] vector[3]")
})

test_that("sum_to_zero_vector: Stan's isometric transform", {
  # K = 2: (u / sqrt(2), -u / sqrt(2)); K = 3 by hand
  expect_equal(tp_transform("sum_to_zero_vector", 1, shape = "vector[2]")$value, c(1, -1) / sqrt(2))
  v <- tp_transform("sum_to_zero_vector", c(1, 2), shape = "vector[3]")$value
  expect_equal(v, c(1 / sqrt(2) + 2 / sqrt(6), -1 / sqrt(2) + 2 / sqrt(6), -4 / sqrt(6)), tolerance = 1e-15)
  for (K in c(2, 3, 7)) {
    x <- rnorm(K - 1)
    r <- tp_transform("sum_to_zero_vector", x, shape = sprintf("vector[%d]", K))
    expect_equal(sum(r$value), 0, tolerance = 1e-14)
    expect_equal(sum(r$value^2), sum(x^2), tolerance = 1e-14)   # isometric
    expect_equal(r$lp, 0)
    expect_round_trip("sum_to_zero_vector", x, shape = sprintf("vector[%d]", K))
    expect_tr_gradient("sum_to_zero_vector", x, shape = sprintf("vector[%d]", K))
  }
})

test_that("ordered and positive_ordered", {
  r <- tp_transform("ordered", c(1, 0, log(2)), shape = "vector[3]")
  expect_equal(r$value, c(1, 2, 4))
  expect_equal(r$lp, log(2))
  r <- tp_transform("positive_ordered", c(0, 0, log(2)), shape = "vector[3]")
  expect_equal(r$value, c(1, 2, 4))
  expect_equal(r$lp, log(2))
  x <- rnorm(5)
  for (nm in c("ordered", "positive_ordered")) {
    expect_round_trip(nm, x, shape = "vector[5]")
    expect_logdet(nm, x, shape = "vector[5]")
    expect_tr_gradient(nm, x, shape = "vector[5]")
    expect_tr_gradient(nm, c(x, -x), shape = "array[2] vector[5]")
  }
})

test_that("unit_vector with Stan's -r^2/2 term", {
  r <- tp_transform("unit_vector", c(3, 4), shape = "vector[2]")
  expect_equal(r$value, c(0.6, 0.8))
  expect_equal(r$lp, -12.5)
  x <- rnorm(4)
  r <- tp_transform("unit_vector", x, shape = "vector[4]")
  expect_equal(sum(r$value^2), 1, tolerance = 1e-15)
  expect_equal(r$lp, -0.5 * sum(x^2))
  back <- tp_transform("unit_vector", r$value, shape = "vector[4]", direction = "free")
  expect_equal(back, r$value)   # free gives the unit vector itself
  expect_tr_gradient("unit_vector", x, shape = "vector[4]")
  expect_tr_gradient("unit_vector", c(1e-3, -2e-3, 5e-4), shape = "vector[3]")
})

test_that("cholesky_factor_corr: tanh of partial correlations, row by row", {
  # K = 2: L = [1 0; z sqrt(1 - z^2)]
  r <- tp_transform("cholesky_factor_corr", 0.4, shape = "matrix[2,2]")
  z <- tanh(0.4)
  expect_equal(r$value, matrix(c(1, z, 0, sqrt(1 - z^2)), 2), tolerance = 1e-15)
  expect_equal(r$lp, log(1 - z^2), tolerance = 1e-14)
  # K = 3: Stan's order is (2,1), (3,1), (3,2)
  x <- c(0.3, -0.5, 0.7)
  L <- tp_transform("cholesky_factor_corr", x, shape = "matrix[3,3]")$value
  z <- tanh(x)
  expect_equal(L[2, 1], z[1])
  expect_equal(L[3, 1], z[2])
  expect_equal(L[3, 2], z[3] * sqrt(1 - z[2]^2), tolerance = 1e-15)
  expect_equal(rowSums(L^2), rep(1, 3), tolerance = 1e-15)
  for (K in c(2, 3, 5)) {
    x <- rnorm(K * (K - 1) / 2)
    shape <- sprintf("matrix[%d,%d]", K, K)
    expect_round_trip("cholesky_factor_corr", x, shape = shape)
    expect_logdet("cholesky_factor_corr", x, shape = shape, keep = which(lower.tri(diag(K))))
    expect_tr_gradient("cholesky_factor_corr", x, shape = shape)
  }
  expect_tr_gradient("cholesky_factor_corr", c(25, -3, 0.1), shape = "matrix[3,3]")
})

test_that("corr_matrix: partial correlations column by column", {
  r <- tp_transform("corr_matrix", 0.4, shape = "matrix[2,2]")
  expect_equal(r$value, matrix(c(1, tanh(0.4), tanh(0.4), 1), 2), tolerance = 1e-15)
  # K = 3: Stan's order is (2,1), (3,1), (3,2), as for the Cholesky factor
  # at K = 3 but with a different Jacobian; at K = 4 the orders differ.
  x <- c(0.3, -0.5, 0.7, 0.2, -0.1, 0.4)
  S <- tp_transform("corr_matrix", x, shape = "matrix[4,4]")$value
  z <- tanh(x)
  expect_equal(S[2, 1], z[1])
  expect_equal(S[3, 1], z[2])
  expect_equal(S[4, 1], z[3])
  expect_equal(diag(S), rep(1, 4), tolerance = 1e-15)
  L <- tp_transform("cholesky_factor_corr", x[c(1, 2, 4, 3, 5, 6)], shape = "matrix[4,4]")$value
  expect_equal(S, L %*% t(L), tolerance = 1e-14)
  for (K in c(2, 3, 4)) {
    x <- rnorm(K * (K - 1) / 2)
    shape <- sprintf("matrix[%d,%d]", K, K)
    expect_round_trip("corr_matrix", x, shape = shape)
    expect_logdet("corr_matrix", x, shape = shape, keep = which(lower.tri(diag(K))))
    expect_tr_gradient("corr_matrix", x, shape = shape)
  }
})

test_that("cov_matrix and cholesky_factor_cov", {
  # K = 2 by hand: L = [e^a 0; b e^c]
  x <- c(0.2, -0.7, 0.4)
  S <- tp_transform("cov_matrix", x, shape = "matrix[2,2]")
  L <- matrix(c(exp(0.2), -0.7, 0, exp(0.4)), 2)
  expect_equal(S$value, L %*% t(L), tolerance = 1e-15)
  expect_equal(S$lp, 2 * log(2) + 3 * 0.2 + 2 * 0.4, tolerance = 1e-15)
  r <- tp_transform("cholesky_factor_cov", c(x, 1.5, -2), shape = "matrix[3,2]")
  expect_equal(r$value, rbind(L, c(1.5, -2)))
  expect_equal(r$lp, 0.6)
  for (K in c(1, 3, 4)) {
    x <- rnorm(K * (K + 1) / 2)
    shape <- sprintf("matrix[%d,%d]", K, K)
    expect_round_trip("cov_matrix", x, shape = shape)
    expect_logdet("cov_matrix", x, shape = shape, keep = which(lower.tri(diag(K), diag = TRUE)))
    expect_tr_gradient("cov_matrix", x, shape = shape)
  }
  for (MN in list(c(3, 3), c(4, 2))) {
    M <- MN[1]; N <- MN[2]
    x <- rnorm(N * (N + 1) / 2 + (M - N) * N)
    shape <- sprintf("matrix[%d,%d]", M, N)
    keep <- which(row(matrix(0, M, N)) >= col(matrix(0, M, N)))
    expect_round_trip("cholesky_factor_cov", x, shape = shape)
    expect_logdet("cholesky_factor_cov", x, shape = shape, keep = keep)
    expect_tr_gradient("cholesky_factor_cov", x, shape = shape)
  }
  expect_tr_gradient("cov_matrix", rnorm(6), shape = "array[2] matrix[2,2]")
})

test_that("one node per transform, one for log |J|; data gives no nodes", {
  n1 <- function(...) tp_transform(...)$nodes[1]
  expect_equal(n1("lower", rnorm(50), list(0), "vector[50]", ad = TRUE), 2)
  expect_equal(n1("lower", rnorm(50), list(0), "vector[50]", ad = TRUE, direction = "value"), 1)
  expect_equal(n1("lower_upper", rnorm(50), list(rep(0, 50), 1), "vector[50]", ad = TRUE), 2)
  expect_equal(n1("lower", rnorm(50), list(0), "vector[50]", ad = FALSE), 0)
  expect_equal(n1("simplex", rnorm(12), shape = "array[3] vector[5]", ad = TRUE), 2)
  expect_equal(n1("cov_matrix", rnorm(10), shape = "matrix[4,4]", ad = TRUE), 2)
  expect_equal(n1("corr_matrix", rnorm(6), shape = "matrix[4,4]", ad = TRUE, direction = "value"), 1)
  # log |J| that depends on no autodiff value is a plain number
  expect_equal(n1("sum_to_zero_vector", rnorm(4), shape = "vector[5]", ad = TRUE), 1)
  expect_equal(n1("offset_multiplier", rnorm(4), list(0, 2), "vector[4]", ad = c(TRUE, FALSE, FALSE)), 1)
  expect_equal(n1("identity", rnorm(4), shape = "vector[4]", ad = TRUE), 0)
  r <- tp_transform("identity", c(1, 2, 3, 4), shape = "matrix[2,2]", ad = TRUE)
  expect_equal(r$value, matrix(1:4, 2))
  expect_equal(r$jacobian[[1]], rbind(diag(4), 0))
})
