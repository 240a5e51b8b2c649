# The functions Stan 2.21 did not have (so test-stan221.R cannot check them
# against Stan's values) at the hard places of their domains, against
# Richardson's differences (fd_jac in helper-math.R): extreme arguments of
# the special functions, branch points, near-singular and clustered
# matrices.  Values are checked against closed forms or R where R has them.

test_that("hypergeometric functions near their radius and with large parameters", {
  expect_gradient_fd("hypergeometric_2F1", list(1.5, 2.25, 3.5, 0.97), c("real", "real", "real", "real"), tol = 1e-5)
  expect_gradient_fd("hypergeometric_2F1", list(0.3, 0.7, 12.5, -0.9), c("real", "real", "real", "real"), tol = 1e-6)
  expect_gradient_fd("hypergeometric_2F1", list(1, 1, 2, -0.999), c("real", "real", "real", "real"), tol = 1e-6)
  # 2F1(1, 1; 2; z) = -log(1 - z) / z
  expect_equal(tval("hypergeometric_2F1", list(1, 1, 2, -0.999), c("real", "real", "real", "real"))[[1]],
               -log1p(0.999) / -0.999, tolerance = 1e-13)
  expect_gradient_fd("hypergeometric_3F2", list(c(1.5, 2, 0.5), c(3, 4.5), 0.95), c("vector", "vector", "real"), tol = 1e-5)
  expect_gradient_fd("hypergeometric_pFq", list(c(0.5, 1.5), c(2.5, 3, 1.2), -4.5), c("vector", "vector", "real"), tol = 1e-6)
})

test_that("inv_inc_beta near 0 and 1 and with extreme shapes", {
  # (not where the quantile is within 1e-10 of 1: there a double holds only
  # five digits of 1 - x, and the derivative 1 / pdf(x) no more)
  for (a in list(c(0.05, 0.4, 1e-6), c(2, 5, 0.999999), c(0.5, 60, 0.02), c(3, 3, 0.5)))
    expect_gradient_fd("inv_inc_beta", as.list(a), c("real", "real", "real"), tol = 1e-5, h = 1e-8)
  x <- tval("inv_inc_beta", list(0.05, 0.4, 1e-6), c("real", "real", "real"))[[1]]
  expect_equal(pbeta(x, 0.05, 0.4), 1e-6, tolerance = 1e-10)
})

test_that("log_modified_bessel_first_kind, lambert_w0 and lambert_wm1 at their extremes", {
  for (a in list(c(0.5, 1e-8), c(12.5, 0.3), c(3.2, 800), c(0, 1e-3)))
    expect_gradient_fd("log_modified_bessel_first_kind", as.list(a), c("real", "real"), tol = 1e-6, h = 1e-4)
  expect_equal(tval("log_modified_bessel_first_kind", list(0.5, 1e-8), c("real", "real"))[[1]],
               log(besselI(1e-8, 0.5)), tolerance = 1e-12)
  e1 <- exp(-1)
  # steps of 1e-8 of the element: 3.7e-9 at -1/e + 1e-6, inside the domain
  expect_gradient_fd("lambert_w0", list(c(-e1 + 1e-6, 1e-10, 1e6)), "vector", tol = 1e-5, h = 1e-8)
  expect_gradient_fd("lambert_wm1", list(c(-e1 + 1e-6, -1e-8, -0.2)), "vector", tol = 1e-5, h = 1e-8)
  w <- tval("lambert_w0", list(1e6), "real")[[1]]
  expect_equal(w * exp(w), 1e6, tolerance = 1e-14)
})

test_that("quantile functions and inverse error functions in the far tails", {
  expect_gradient_fd("std_normal_log_qf", list(c(-1e-12, -50, -0.3)), "vector", tol = 1e-6, h = 1e-4)
  expect_equal(tval("std_normal_log_qf", list(-50), "real")[[1]], qnorm(-50, log.p = TRUE), tolerance = 1e-12)
  expect_gradient_fd("inv_erfc", list(c(1e-15, 1.9999999, 0.3)), "vector", tol = 1e-5, h = 1e-8)
  st <- list(0.999999, 2.5, 0.3, 1.7)
  expect_gradient_fd("student_t_qf", st, c("real", "real", "real", "real"), ad = c(TRUE, FALSE, FALSE, FALSE), tol = 1e-5, h = 1e-8)
  expect_gradient_fd("student_t_qf", st, c("real", "real", "real", "real"), ad = c(FALSE, TRUE, TRUE, TRUE), tol = 1e-6)
  expect_equal(tval("student_t_qf", list(0.999999, 2.5, 0, 1), c("real", "real", "real", "real"))[[1]],
               qt(0.999999, 2.5), tolerance = 1e-10)
  # x - y = 1e-7: steps of 1e-10 of the element
  expect_gradient_fd("log_inv_logit_diff", list(c(3, 40, -2), c(3 - 1e-7, 10, -2.5)), c("vector", "vector"), tol = 1e-5, h = 1e-10)
})

test_that("newer densities by every argument in their tails", {
  expect_gradient_fd("beta_neg_binomial_lpmf", list(c(0L, 40L), c(0.5, 150), c(2.5, 0.7), c(30, 1.2)),
                     c("array[] int", "vector", "vector", "vector"), tol = 1e-6)
  expect_gradient_fd("skew_double_exponential_lcdf", list(c(-30, 0.2, 12), 0.5, 1.5, 0.05),
                     c("vector", "real", "real", "real"), tol = 1e-6)
  expect_gradient_fd("loglogistic_cdf", list(c(1e-4, 40), 2.5, 7), c("vector", "real", "real"), tol = 1e-6)
  # kappa inside Stan's series (whose number of terms steps with kappa) and
  # beyond its normal approximation's start at 50, away from the switches
  expect_gradient_fd("von_mises_lcdf", list(c(-3.1, 0.05, 3), 0.2, c(0.01, 30.3, 200)), c("vector", "real", "vector"), tol = 1e-5)
  expect_gradient_fd("binomial_logit_glm_lpmf", list(c(0L, 5L, 9L), c(10L, 10L, 10L), matrix(c(3, -2, 8, 0.5, 7, -9), 3), 0.3, c(4, -3)),
                     c("array[] int", "array[] int", "matrix", "real", "vector"), tol = 1e-6)
})

test_that("newer matrix functions at near-singular and clustered matrices", {
  Q <- qr.Q(qr(matrix(c(0.3, -1.2, 0.7, 0.9, 0.4, -0.5, 1.1, 0.2, 0.6), 3)))
  near <- Q %*% diag(c(1e-4, 1, 2)) %*% t(Q)
  clus <- Q %*% diag(c(1, 1 + 1e-6, 3)) %*% t(Q)
  # symmetric arguments move along symmetric directions (helper-linear.R)
  expect_gradient_linear("log_determinant_spd", list(near), "matrix", 1, dup_matrix(3), tol = 1e-5, hscale = 1e-6)
  expect_gradient_linear("chol2inv", list(t(chol(near))), "matrix", 1, lower_select(3), tol = 1e-5, hscale = 1e-5)
  expect_gradient_fd("matrix_power", list(clus, 5L), c("matrix", "int"), ad = c(TRUE, FALSE), tol = 1e-6)
  expect_gradient_fd("trace_dot", list(near, clus), c("matrix", "matrix"), tol = 1e-6)
  expect_gradient_fd("norm1", list(c(1e-6, -3, 2)), "vector", tol = 1e-5, h = 1e-3)
  expect_gradient_fd("norm2", list(c(1e-150, 1e-150, 3e-151)), "vector", tol = 1e-6, h = 1e-3)
  # singular vectors at singular values 1e-4 apart, each column's largest
  # element positive (closer, the vectors' own rounding, eps / gap, over the
  # step leaves finite differences nothing to compare with)
  A <- Q %*% diag(c(1, 1 + 1e-4, 3)) %*% qr.Q(qr(matrix(c(2, 1, 0, -1, 1, 3, 0.5, 0, 1), 3)))
  # steps of 1e-5 of the element: inside the gap, where the vectors turn
  expect_gradient_fd("svd_U", list(A), "matrix", tol = 1e-6, h = 1e-5)
  expect_gradient_fd("svd_V", list(A), "matrix", tol = 1e-6, h = 1e-5)
  expect_gradient_fd("generalized_inverse", list(near), "matrix", tol = 1e-5, h = 1e-6)
})
