# multiply (every overload) and the linear algebra of tm_matrix.c.


set.seed(11)
A <- matrix(rnorm(6), 2, 3)
B <- matrix(rnorm(12), 3, 4)
v3 <- rnorm(3); w2 <- rnorm(2); rv3 <- rnorm(3)
spd <- function(k) { X <- matrix(rnorm(k * k), k); crossprod(X) + diag(k) }

test_that("multiply: values of every overload equal R's", {
  expect_identical(tval("multiply", list(3L, -4L), c("int", "int")), -12L)
  expect_equal(tval("multiply", list(2.5, 3L), c("real", "int")), 7.5)
  expect_equal(tval("multiply", list(2, v3), c("real", "vector")), 2 * v3, tolerance = 1e-15)
  expect_equal(tval("multiply", list(rv3, -1.5), c("row_vector", "real")), -1.5 * rv3, tolerance = 1e-15)
  expect_equal(tval("multiply", list(A, 0.5), c("matrix", "real")), A * 0.5, tolerance = 1e-15)
  expect_equal(tval("multiply", list(A, v3), c("matrix", "vector")), as.numeric(A %*% v3), tolerance = 1e-14)
  expect_equal(tval("multiply", list(rv3, B), c("row_vector", "matrix")), as.numeric(rv3 %*% B), tolerance = 1e-14)
  expect_equal(tval("multiply", list(rv3, v3), c("row_vector", "vector")), sum(rv3 * v3), tolerance = 1e-14)
  expect_equal(tval("multiply", list(w2, rv3), c("vector", "row_vector")), w2 %o% rv3, tolerance = 1e-14)
  expect_equal(tval("multiply", list(A, B), c("matrix", "matrix")), A %*% B, tolerance = 1e-14)
})

test_that("multiply: gradients match finite differences, data and autodiff mixed", {
  cases <- list(
    list(list(1.7, -0.3), c("real", "real")),
    list(list(2.5, 3L), c("real", "int")),
    list(list(-0.7, v3), c("real", "vector")),
    list(list(A, 1.3), c("matrix", "real")),
    list(list(rv3, 0.4), c("row_vector", "real")),
    list(list(A, v3), c("matrix", "vector")),
    list(list(rv3, B), c("row_vector", "matrix")),
    list(list(rv3, v3), c("row_vector", "vector")),
    list(list(w2, rv3), c("vector", "row_vector")),
    list(list(A, B), c("matrix", "matrix")))
  for (cs in cases) {
    real <- cs[[2]] != "int"
    for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE))) {
      ad <- ad & real
      if (!any(ad)) next
      r <- expect_gradient_fd("multiply", cs[[1]], cs[[2]], ad)
      expect_equal(r$nodes[1], 1)
      for (i in which(!ad)) expect_null(r$jacobian[[i]])
    }
    expect_equal(tp_call("multiply", cs[[1]], cs[[2]])$nodes[1], 0)
  }
  # edge values: zeros and large magnitudes
  expect_gradient_fd("multiply", list(matrix(c(0, 1e6, -1e-6, 0), 2), c(0, 3)), c("matrix", "vector"))
})

test_that("multiply: shape errors", {
  expect_error(tp_call("multiply", list(A, A), c("matrix", "matrix")),
               "multiply: Columns of m1 \\(3\\) and Rows of m2 \\(2\\) must match in size")
  expect_error(tp_call("multiply", list(v3, v3), c("vector", "vector")), "multiply: no overload")
  expect_error(tp_call("multiply", list(1:3, 2), c("array[] int", "real")), "multiply: no overload")
  expect_error(tp_call("multiply", list(.Machine$integer.max, 2L), c("int", "int")), "multiply: integer overflow")
  # empty containers are fine
  expect_equal(dim(tval("multiply", list(matrix(0, 2, 0), matrix(0, 0, 3)), c("matrix", "matrix"))), c(2L, 3L))
})

test_that("diag_pre_multiply, diag_post_multiply, quad_form_diag", {
  M <- matrix(rnorm(6), 2, 3); S <- spd(3)
  expect_equal(tval("diag_pre_multiply", list(w2, M), c("vector", "matrix")), diag(w2) %*% M, tolerance = 1e-15)
  expect_equal(tval("diag_pre_multiply", list(w2, M), c("row_vector", "matrix")), diag(w2) %*% M, tolerance = 1e-15)
  expect_equal(tval("diag_post_multiply", list(M, v3), c("matrix", "vector")), M %*% diag(v3), tolerance = 1e-15)
  Q <- tval("quad_form_diag", list(S, v3), c("matrix", "vector"))
  expect_equal(Q, diag(v3) %*% S %*% diag(v3), tolerance = 1e-14)
  expect_identical(Q, t(Q))   # exactly symmetric, so cholesky_decompose accepts it
  for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE))) {
    expect_equal(expect_gradient_fd("diag_pre_multiply", list(w2, M), c("vector", "matrix"), ad)$nodes[1], 1)
    expect_equal(expect_gradient_fd("diag_post_multiply", list(M, v3), c("matrix", "row_vector"), ad)$nodes[1], 1)
    expect_equal(expect_gradient_fd("quad_form_diag", list(S, v3), c("matrix", "vector"), ad)$nodes[1], 1)
  }
  expect_error(tp_call("diag_pre_multiply", list(v3, M), c("vector", "matrix")),
               "diag_pre_multiply: m1.size\\(\\) \\(3\\) and m2.rows\\(\\) \\(2\\) must match")
  expect_error(tp_call("diag_post_multiply", list(M, w2), c("matrix", "vector")), "diag_post_multiply: m2.size")
  expect_error(tp_call("quad_form_diag", list(M, w2), c("matrix", "vector")),
               "quad_form_diag: Expecting a square matrix; rows of mat \\(2\\)")
  expect_error(tp_call("quad_form_diag", list(S, w2), c("matrix", "vector")),
               "quad_form_diag: rows of mat \\(3\\) and size of vec \\(2\\)")
})

test_that("multiply_lower_tri_self_transpose", {
  for (m in list(matrix(rnorm(9), 3), matrix(rnorm(6), 3, 2), matrix(rnorm(6), 2, 3), matrix(2.5, 1, 1))) {
    L <- m; L[upper.tri(L)] <- 0
    expect_equal(tval("multiply_lower_tri_self_transpose", list(m), "matrix"), L %*% t(L), tolerance = 1e-14)
    # the upper triangle is not read: its finite differences are zero, as the gradient
    r <- expect_gradient_fd("multiply_lower_tri_self_transpose", list(m), "matrix")
    expect_equal(r$nodes[1], 1)
  }
  expect_equal(dim(tval("multiply_lower_tri_self_transpose", list(matrix(0, 0, 0)), "matrix")), c(0L, 0L))
})

test_that("cholesky_decompose: values equal R's chol (transposed)", {
  for (k in c(1, 2, 4, 7)) {
    S <- spd(k)
    expect_equal(tval("cholesky_decompose", list(S), "matrix"), t(chol(S)), tolerance = 1e-13)
  }
  expect_equal(dim(tval("cholesky_decompose", list(matrix(0, 0, 0)), "matrix")), c(0L, 0L))
})

test_that("cholesky_decompose: gradient along symmetric directions, one node", {
  for (k in c(1, 2, 3, 5)) {
    S <- spd(k)
    r <- expect_gradient_linear("cholesky_decompose", list(S), "matrix", 1, dup_matrix(k))
    expect_equal(r$nodes[1], 1)
  }
  # nearly singular but positive definite (a smaller step keeps the finite
  # differences inside the domain)
  S <- matrix(c(1, 0.999, 0.999, 1), 2)
  expect_gradient_linear("cholesky_decompose", list(S), "matrix", 1, dup_matrix(2), hscale = 1e-5)
  # and composed: chol(quad_form_diag(Omega, tau)) differentiates through both
  expect_gradient_fd("quad_form_diag", list(cov2cor(spd(3)), c(0.5, 2, 1)), c("matrix", "vector"), c(FALSE, TRUE))
})

test_that("cholesky_decompose: errors", {
  expect_error(tp_call("cholesky_decompose", list(A), "matrix"),
               "cholesky_decompose: Expecting a square matrix; rows of m \\(2\\) and columns of m \\(3\\)")
  expect_error(tp_call("cholesky_decompose", list(matrix(c(1, 0.5, 0.4, 1), 2)), "matrix"),
               "cholesky_decompose: m is not symmetric. m\\[1,2\\] = 0.4, but m\\[2,1\\] = 0.5")
  expect_error(tp_call("cholesky_decompose", list(matrix(c(1, 2, 2, 1), 2)), "matrix"),
               "cholesky_decompose: Matrix m is not positive definite", class = "tapestry_domain_error")
  expect_error(tp_call("cholesky_decompose", list(matrix(c(1, NaN, NaN, 1), 2)), "matrix"), "cholesky_decompose: m")
  expect_error(tp_call("cholesky_decompose", list(diag(c(1, Inf))), "matrix"), "not positive definite")
})

test_that("mdivide_left_tri_low", {
  L <- t(chol(spd(3))); L[1, 3] <- 99   # the upper triangle is ignored
  Lt <- L; Lt[upper.tri(Lt)] <- 0
  b <- rnorm(3); Bm <- matrix(rnorm(6), 3, 2)
  expect_equal(tval("mdivide_left_tri_low", list(L, b), c("matrix", "vector")), forwardsolve(Lt, b), tolerance = 1e-13)
  expect_equal(tval("mdivide_left_tri_low", list(L, Bm), c("matrix", "matrix")), forwardsolve(Lt, Bm), tolerance = 1e-13)
  for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE))) {
    expect_equal(expect_gradient_fd("mdivide_left_tri_low", list(L, b), c("matrix", "vector"), ad)$nodes[1], 1)
    expect_equal(expect_gradient_fd("mdivide_left_tri_low", list(L, Bm), c("matrix", "matrix"), ad)$nodes[1], 1)
  }
  expect_error(tp_call("mdivide_left_tri_low", list(A, b), c("matrix", "vector")),
               "mdivide_left_tri_low: Expecting a square matrix")
  expect_error(tp_call("mdivide_left_tri_low", list(L, w2), c("matrix", "vector")),
               "mdivide_left_tri_low: Columns of A \\(3\\) and Rows of b \\(2\\)")
})

gp_ref <- function(x1, x2, s, l) {
  d2 <- outer(seq_len(nrow(x1)), seq_len(nrow(x2)), Vectorize(function(i, j) sum((x1[i, ] - x2[j, ])^2)))
  s^2 * exp(-d2 / (2 * l^2))
}

test_that("gp_exp_quad_cov and cov_exp_quad: values", {
  x <- c(-1, 0.3, 2, 5)
  K <- tval("gp_exp_quad_cov", list(x, 1.5, 0.8), c("array[] real", "real", "real"))
  expect_equal(K, gp_ref(cbind(x), cbind(x), 1.5, 0.8), tolerance = 1e-14)
  expect_identical(K, t(K))
  expect_identical(tval("cov_exp_quad", list(x, 1.5, 0.8), c("array[] real", "real", "real")), K)
  xv <- list(c(1, 2), c(0, -1), c(0.5, 0.5))
  X <- do.call(rbind, xv)
  expect_equal(tval("gp_exp_quad_cov", list(xv, 2, 1.1), c("array[] vector", "real", "real")),
               gp_ref(X, X, 2, 1.1), tolerance = 1e-14)
  x2 <- c(0, 1)
  expect_equal(tval("gp_exp_quad_cov", list(x, x2, 1.5, 0.8), c("array[] real", "array[] real", "real", "real")),
               gp_ref(cbind(x), cbind(x2), 1.5, 0.8), tolerance = 1e-14)
  expect_equal(dim(tval("gp_exp_quad_cov", list(numeric(0), 1, 1), c("array[] real", "real", "real"))), c(0L, 0L))
})

test_that("gp_exp_quad_cov: gradients, one node", {
  x <- c(-1, 0.3, 2)
  ty <- c("array[] real", "real", "real")
  for (ad in list(c(TRUE, TRUE, TRUE), c(FALSE, TRUE, FALSE), c(FALSE, FALSE, TRUE), c(TRUE, FALSE, FALSE)))
    expect_equal(expect_gradient_fd("gp_exp_quad_cov", list(x, 1.5, 0.8), ty, ad)$nodes[1], 1)
  expect_gradient_fd("gp_exp_quad_cov", list(x, 0.01, 50), ty)
  xv <- list(c(1, 2), c(0, -1), c(0.5, 0.5))
  expect_gradient_fd("gp_exp_quad_cov", list(xv, 2, 1.1), c("array[] vector", "real", "real"))
  expect_gradient_fd("cov_exp_quad", list(xv, xv[1:2], 2, 1.1),
                     c("array[] vector", "array[] vector", "real", "real"))
  expect_gradient_fd("gp_exp_quad_cov", list(x, c(0, 1), 1.5, 0.8),
                     c("array[] real", "array[] real", "real", "real"))
})

test_that("gp_exp_quad_cov: errors", {
  ty <- c("array[] real", "real", "real")
  expect_error(tp_call("gp_exp_quad_cov", list(c(1, 2), -1, 1), ty), "gp_exp_quad_cov: magnitude is -1, but must be positive")
  expect_error(tp_call("gp_exp_quad_cov", list(c(1, 2), 1, 0), ty), "gp_exp_quad_cov: length scale is 0, but must be positive")
  expect_error(tp_call("cov_exp_quad", list(c(1, NaN), 1, 1), ty), "cov_exp_quad: x\\[2\\] is nan")
  expect_error(tp_call("gp_exp_quad_cov", list(list(c(1, 2)), list(c(1, 2, 3)), 1, 1),
                       c("array[] vector", "array[] vector", "real", "real")),
               "gp_exp_quad_cov: dimension of x1 \\(2\\) and dimension of x2 \\(3\\)")
})
