# Linear systems, inverses, determinants (src/math/linalg/tm_solve.c) and the matrix
# products and reductions of src/math/linalg/tm_matrix_ops.c.

set.seed(23)
spd2 <- function(k) { X <- matrix(rnorm(k * k), k); crossprod(X) + diag(k) }
G3 <- matrix(c(0.2, 1.5, -0.7, 2.1, 0.3, 0.8, -1.2, 0.4, 1.9), 3)   # needs pivoting
S3 <- spd2(3)
B32 <- matrix(rnorm(6), 3, 2)
B23 <- matrix(rnorm(6), 2, 3)
v3 <- rnorm(3); rv3 <- rnorm(3)
L3 <- t(chol(S3))

all_ad <- function(n) list(rep(TRUE, n), c(TRUE, rep(FALSE, n - 1)), c(FALSE, rep(TRUE, n - 1)))

test_that("mdivide_left and mdivide_right equal R's solve, gradients match, one node", {
  expect_equal(tval("mdivide_left", list(G3, v3), c("matrix", "vector")), as.numeric(solve(G3, v3)), tolerance = 1e-13)
  expect_equal(tval("mdivide_left", list(G3, B32), c("matrix", "matrix")), solve(G3, B32), tolerance = 1e-13)
  expect_equal(tval("mdivide_right", list(rv3, G3), c("row_vector", "matrix")), as.numeric(rv3 %*% solve(G3)),
               tolerance = 1e-13)
  expect_equal(tval("mdivide_right", list(B23, G3), c("matrix", "matrix")), B23 %*% solve(G3), tolerance = 1e-13)
  for (ad in all_ad(2)) {
    r <- expect_gradient_fd("mdivide_left", list(G3, v3), c("matrix", "vector"), ad)
    expect_equal(r$nodes[1], 1)
    expect_gradient_fd("mdivide_left", list(G3, B32), c("matrix", "matrix"), ad)
    expect_gradient_fd("mdivide_right", list(rv3, G3), c("row_vector", "matrix"), rev(ad))
    r <- expect_gradient_fd("mdivide_right", list(B23, G3), c("matrix", "matrix"), rev(ad))
    expect_equal(r$nodes[1], 1)
  }
  expect_error(tp_call("mdivide_left", list(G3, c(1, 2)), c("matrix", "vector")),
               "mdivide_left: Columns of A \\(3\\) and Rows of b \\(2\\) must match in size")
  expect_error(tp_call("mdivide_left", list(B32, c(1, 2, 3)), c("matrix", "vector")),
               "mdivide_left: Expecting a square matrix; rows of A \\(3\\) and columns of A \\(2\\)")
  expect_error(tp_call("mdivide_right", list(c(1, 2), G3), c("row_vector", "matrix")),
               "mdivide_right: Columns of b \\(2\\) and Rows of A \\(3\\) must match in size")
  expect_length(tval("mdivide_left", list(matrix(0, 0, 0), numeric(0)), c("matrix", "vector")), 0)
})

test_that("the _spd solves use Cholesky, check symmetry and definiteness", {
  expect_equal(tval("mdivide_left_spd", list(S3, v3), c("matrix", "vector")), as.numeric(solve(S3, v3)), tolerance = 1e-13)
  expect_equal(tval("mdivide_right_spd", list(B23, S3), c("matrix", "matrix")), B23 %*% solve(S3), tolerance = 1e-13)
  expect_gradient_fd("mdivide_left_spd", list(S3, B32), c("matrix", "matrix"), c(FALSE, TRUE))
  expect_gradient_fd("mdivide_right_spd", list(rv3, S3), c("row_vector", "matrix"), c(TRUE, FALSE))
  D <- dup_matrix(3)
  expect_gradient_linear("mdivide_left_spd", list(S3, v3), c("matrix", "vector"), 1, D)
  expect_gradient_linear("mdivide_right_spd", list(B23, S3), c("matrix", "matrix"), 2, D, ad = c(TRUE, FALSE))
  expect_error(tp_call("mdivide_left_spd", list(G3, v3), c("matrix", "vector")), "mdivide_left_spd: A is not symmetric")
  expect_error(tp_call("mdivide_left_spd", list(-S3, v3), c("matrix", "vector")),
               "mdivide_left_spd: A is not positive definite")
})

test_that("mdivide_right_tri_low reads the lower triangle", {
  Lfull <- L3; Lfull[1, 3] <- 99   # ignored
  expect_equal(tval("mdivide_right_tri_low", list(B23, Lfull), c("matrix", "matrix")), B23 %*% solve(L3), tolerance = 1e-13)
  expect_equal(tval("mdivide_right_tri_low", list(rv3, L3), c("row_vector", "matrix")), as.numeric(rv3 %*% solve(L3)),
               tolerance = 1e-13)
  for (ad in all_ad(2)) {
    r <- expect_gradient_linear("mdivide_right_tri_low", list(B23, L3), c("matrix", "matrix"), 2, lower_select(3), ad = ad)
    expect_equal(r$nodes[1], 1)
    if (ad[1]) expect_gradient_fd("mdivide_right_tri_low", list(rv3, L3), c("row_vector", "matrix"), c(TRUE, FALSE))
  }
})

test_that("inverse, inverse_spd, chol2inv", {
  expect_equal(tval("inverse", list(G3), "matrix"), solve(G3), tolerance = 1e-13)
  r <- expect_gradient_fd("inverse", list(G3), "matrix")
  expect_equal(r$nodes[1], 1)
  Si <- tval("inverse_spd", list(S3), "matrix")
  expect_equal(Si, solve(S3), tolerance = 1e-13)
  expect_identical(Si, t(Si))
  expect_gradient_linear("inverse_spd", list(S3), "matrix", 1, dup_matrix(3))
  expect_equal(tval("chol2inv", list(L3), "matrix"), solve(S3), tolerance = 1e-12)
  expect_gradient_linear("chol2inv", list(L3), "matrix", 1, lower_select(3))
  expect_error(tp_call("chol2inv", list(t(L3)), "matrix"), "chol2inv: L is not lower triangular")
  expect_error(tp_call("inverse", list(B32), "matrix"), "inverse: Expecting a square matrix")
  expect_error(tp_call("inverse_spd", list(G3), "matrix"), "inverse_spd: m is not symmetric")
})

test_that("determinant, log_determinant, log_determinant_spd", {
  expect_equal(tval("determinant", list(G3), "matrix"), det(G3), tolerance = 1e-13)
  expect_equal(tval("log_determinant", list(G3), "matrix"), log(abs(det(G3))), tolerance = 1e-13)
  expect_equal(tval("log_determinant", list(-S3), "matrix"), log(det(S3)), tolerance = 1e-13)
  expect_equal(tval("log_determinant_spd", list(S3), "matrix"), log(det(S3)), tolerance = 1e-13)
  expect_equal(tval("determinant", list(matrix(2.5, 1, 1)), "matrix"), 2.5)
  expect_equal(tval("determinant", list(matrix(0, 0, 0)), "matrix"), 1)
  r <- expect_gradient_fd("determinant", list(G3), "matrix")
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("log_determinant", list(G3), "matrix")
  expect_gradient_linear("log_determinant_spd", list(S3), "matrix", 1, dup_matrix(3))
  expect_error(tp_call("log_determinant_spd", list(G3), "matrix"), "log_determinant_spd: m is not symmetric")
})

test_that("crossprod, tcrossprod, quad_form(_sym), trace_quad_form", {
  expect_equal(tval("crossprod", list(B32), "matrix"), crossprod(B32), tolerance = 1e-14)
  expect_equal(tval("tcrossprod", list(B32), "matrix"), tcrossprod(B32), tolerance = 1e-14)
  C <- tval("crossprod", list(B32), "matrix")
  expect_identical(C, t(C))
  expect_equal(expect_gradient_fd("crossprod", list(B32), "matrix")$nodes[1], 1)
  expect_gradient_fd("tcrossprod", list(B32), "matrix")
  expect_equal(tval("quad_form", list(G3, B32), c("matrix", "matrix")), t(B32) %*% G3 %*% B32, tolerance = 1e-13)
  expect_equal(tval("quad_form", list(G3, v3), c("matrix", "vector")), as.numeric(t(v3) %*% G3 %*% v3), tolerance = 1e-13)
  Q <- tval("quad_form_sym", list(S3, B32), c("matrix", "matrix"))
  expect_equal(Q, t(B32) %*% S3 %*% B32, tolerance = 1e-13)
  expect_identical(Q, t(Q))
  expect_equal(tval("trace_quad_form", list(G3, B32), c("matrix", "matrix")), sum(diag(t(B32) %*% G3 %*% B32)),
               tolerance = 1e-13)
  for (ad in all_ad(2)) {
    for (fn in c("quad_form", "trace_quad_form")) {
      r <- expect_gradient_fd(fn, list(G3, B32), c("matrix", "matrix"), ad)
      expect_equal(r$nodes[1], 1)
      expect_gradient_fd(fn, list(G3, v3), c("matrix", "vector"), ad)
    }
    if (ad[2]) {
      expect_gradient_fd("quad_form_sym", list(S3, B32), c("matrix", "matrix"), c(FALSE, TRUE))
      expect_gradient_fd("quad_form_sym", list(S3, v3), c("matrix", "vector"), c(FALSE, TRUE))
    }
  }
  expect_gradient_linear("quad_form_sym", list(S3, B32), c("matrix", "matrix"), 1, dup_matrix(3), ad = c(TRUE, TRUE))
  expect_error(tp_call("quad_form", list(G3, B23), c("matrix", "matrix")),
               "quad_form: Columns of A \\(3\\) and Rows of B \\(2\\) must match in size")
  expect_error(tp_call("quad_form_sym", list(G3, v3), c("matrix", "vector")), "quad_form_sym: A is not symmetric")
})

test_that("trace, diagonal, add_diag, symmetrize_from_lower_tri, sub_col, sub_row", {
  expect_equal(tval("trace", list(G3), "matrix"), sum(diag(G3)))
  expect_equal(tval("trace", list(B32), "matrix"), sum(diag(B32)))
  expect_equal(expect_gradient_fd("trace", list(G3), "matrix")$nodes[1], 1)
  expect_equal(tval("diagonal", list(B32), "matrix"), diag(B32))
  expect_gradient_fd("diagonal", list(G3), "matrix")
  expect_equal(tval("add_diag", list(G3, 2), c("matrix", "real")), G3 + diag(2, 3))
  expect_equal(tval("add_diag", list(G3, v3), c("matrix", "vector")), G3 + diag(v3))
  for (ad in all_ad(2)) {
    expect_equal(expect_gradient_fd("add_diag", list(G3, 0.5), c("matrix", "real"), ad)$nodes[1], 1)
    expect_gradient_fd("add_diag", list(B32, c(1, 2)), c("matrix", "row_vector"), ad)
  }
  expect_error(tp_call("add_diag", list(G3, c(1, 2)), c("matrix", "vector")), "add_diag: Size of")
  S <- G3; S[upper.tri(S)] <- t(S)[upper.tri(S)]
  expect_identical(tval("symmetrize_from_lower_tri", list(G3), "matrix"), S)
  expect_gradient_fd("symmetrize_from_lower_tri", list(G3), "matrix")
  expect_equal(tval("sub_col", list(G3, 2L, 3L, 2L), c("matrix", "int", "int", "int")), G3[2:3, 3])
  expect_equal(tval("sub_row", list(G3, 3L, 1L, 3L), c("matrix", "int", "int", "int")), G3[3, 1:3])
  expect_gradient_fd("sub_row", list(G3, 2L, 2L, 2L), c("matrix", "int", "int", "int"))
  expect_length(tval("sub_col", list(G3, 3L, 1L, 0L), c("matrix", "int", "int", "int")), 0)
  expect_error(tp_call("sub_col", list(G3, 2L, 1L, 3L), c("matrix", "int", "int", "int")),
               "sub_col: n_rows is 3, but must be in the interval \\[0, 2\\]")
  expect_error(tp_call("sub_row", list(G3, 4L, 1L, 1L), c("matrix", "int", "int", "int")),
               "sub_row: i is 4, but must be in the interval \\[1, 3\\]")
})

test_that("columns_/rows_dot_product and _self, distances, norms", {
  A <- matrix(rnorm(6), 2, 3); B <- matrix(rnorm(6), 2, 3)
  expect_equal(tval("columns_dot_product", list(A, B), c("matrix", "matrix")), colSums(A * B), tolerance = 1e-14)
  expect_equal(tval("rows_dot_product", list(A, B), c("matrix", "matrix")), rowSums(A * B), tolerance = 1e-14)
  expect_equal(tval("columns_dot_self", list(A), "matrix"), colSums(A^2), tolerance = 1e-14)
  expect_equal(tval("rows_dot_self", list(A), "matrix"), rowSums(A^2), tolerance = 1e-14)
  expect_equal(tval("columns_dot_product", list(v3, v3), c("vector", "vector")), sum(v3^2), tolerance = 1e-14)
  expect_equal(tval("rows_dot_product", list(v3, rv3), c("vector", "vector")), v3 * rv3, tolerance = 1e-14)
  for (ad in all_ad(2)) {
    expect_equal(expect_gradient_fd("columns_dot_product", list(A, B), c("matrix", "matrix"), ad)$nodes[1], 1)
    expect_gradient_fd("rows_dot_product", list(rv3, v3), c("row_vector", "row_vector"), ad)
    expect_gradient_fd("squared_distance", list(v3, rv3), c("vector", "row_vector"), ad)
    expect_gradient_fd("distance", list(v3, rv3), c("vector", "vector"), ad)
  }
  expect_gradient_fd("rows_dot_self", list(A), "matrix")
  expect_gradient_fd("columns_dot_self", list(v3), "vector")
  expect_error(tp_call("rows_dot_product", list(A, t(B)), c("matrix", "matrix")),
               "rows_dot_product: Rows of v1 \\(2\\) and rows of v2 \\(3\\) must match in size")
  expect_equal(tval("squared_distance", list(v3, rv3), c("vector", "row_vector")), sum((v3 - rv3)^2), tolerance = 1e-14)
  expect_equal(tval("distance", list(v3, rv3), c("vector", "vector")), sqrt(sum((v3 - rv3)^2)), tolerance = 1e-14)
  expect_error(tp_call("distance", list(v3, c(1, 2)), c("vector", "vector")),
               "distance: Size of x \\(3\\) and size of y \\(2\\) must match in size")
  expect_equal(tval("norm1", list(v3), "vector"), sum(abs(v3)), tolerance = 1e-14)
  expect_equal(tval("norm2", list(rv3), "row_vector"), sqrt(sum(rv3^2)), tolerance = 1e-14)
  expect_equal(expect_gradient_fd("norm1", list(v3), "vector")$nodes[1], 1)
  expect_gradient_fd("norm2", list(c(1, -2, 3)), "array[] real")
})

test_that("eigenvalues_sym and eigenvectors_sym: ascending, orthonormal, gradients", {
  S <- spd2(4); S[1, 2] <- S[2, 1] <- -0.8
  e <- eigen(S, symmetric = TRUE)
  w <- tval("eigenvalues_sym", list(S), "matrix")
  expect_equal(w, rev(e$values), tolerance = 1e-13)
  V <- tval("eigenvectors_sym", list(S), "matrix")
  expect_equal(crossprod(V), diag(4), tolerance = 1e-13)
  expect_equal(S %*% V, V %*% diag(w), tolerance = 1e-12)
  # same vectors as R's up to sign; ours have a positive largest component
  R <- e$vectors[, 4:1]
  for (j in 1:4) expect_equal(abs(sum(V[, j] * R[, j])), 1, tolerance = 1e-12)
  for (j in 1:4) expect_true(V[which.max(abs(V[, j])), j] > 0)
  # the lower triangle is what counts
  Su <- S; Su[1, 4] <- Su[1, 4] + 1e-9
  expect_equal(tval("eigenvalues_sym", list(Su), "matrix"), w, tolerance = 1e-14)
  D <- dup_matrix(4)
  r <- expect_gradient_linear("eigenvalues_sym", list(S), "matrix", 1, D)
  expect_equal(r$nodes[1], 1)
  r <- expect_gradient_linear("eigenvectors_sym", list(S), "matrix", 1, D)
  expect_equal(r$nodes[1], 1)
  # indefinite and diagonal matrices
  M <- matrix(c(2, 1, 0, 1, -3, 0.5, 0, 0.5, 1), 3)
  expect_equal(tval("eigenvalues_sym", list(M), "matrix"), rev(eigen(M, symmetric = TRUE)$values), tolerance = 1e-13)
  expect_gradient_linear("eigenvectors_sym", list(M), "matrix", 1, dup_matrix(3))
  expect_equal(tval("eigenvalues_sym", list(diag(c(3, 1, 2))), "matrix"), c(1, 2, 3))
  expect_error(tp_call("eigenvalues_sym", list(G3), "matrix"), "eigenvalues_sym: m is not symmetric")
  expect_error(tp_call("eigenvectors_sym", list(matrix(0, 0, 0)), "matrix"), "eigenvectors_sym: m has size 0")
})

test_that("gp_exponential/matern32/matern52/periodic/dot_prod_cov: values and gradients", {
  x <- c(-1, 0.3, 2); xv <- list(c(1, 2), c(0, -1), c(0.5, 0.5)); X <- do.call(rbind, xv)
  x2 <- c(0, 1.5)
  D <- function(A, B) as.matrix(sqrt(outer(rowSums(A^2), rowSums(B^2), "+") - 2 * A %*% t(B)))
  kern <- list(
    gp_exponential_cov = function(d, s, l) s^2 * exp(-d / l),
    gp_matern32_cov = function(d, s, l) s^2 * (1 + sqrt(3) * d / l) * exp(-sqrt(3) * d / l),
    gp_matern52_cov = function(d, s, l) s^2 * (1 + sqrt(5) * d / l + 5 * d^2 / (3 * l^2)) * exp(-sqrt(5) * d / l))
  for (fn in names(kern)) {
    K <- tval(fn, list(x, 1.5, 0.8), c("array[] real", "real", "real"))
    expect_equal(K, kern[[fn]](abs(outer(x, x, "-")), 1.5, 0.8), tolerance = 1e-14)
    expect_identical(K, t(K))
    expect_equal(tval(fn, list(xv, 2, 1.1), c("array[] vector", "real", "real")),
                 kern[[fn]](pmax(D(X, X), 0) * (1 - diag(3)), 2, 1.1), tolerance = 1e-13)
    expect_equal(tval(fn, list(x, x2, 1.5, 0.8), c("array[] real", "array[] real", "real", "real")),
                 kern[[fn]](abs(outer(x, x2, "-")), 1.5, 0.8), tolerance = 1e-14)
    for (ad in list(c(TRUE, TRUE, TRUE), c(FALSE, TRUE, FALSE), c(FALSE, FALSE, TRUE)))
      expect_equal(expect_gradient_fd(fn, list(x, 1.5, 0.8), c("array[] real", "real", "real"), ad)$nodes[1], 1)
    expect_gradient_fd(fn, list(xv, xv[1:2], 2, 1.1), c("array[] vector", "array[] vector", "real", "real"))
  }
  per <- function(d, s, l, p) s^2 * exp(-2 * sin(pi * d / p)^2 / l^2)
  expect_equal(tval("gp_periodic_cov", list(x, 1.5, 0.8, 2.5), c("array[] real", "real", "real", "real")),
               per(abs(outer(x, x, "-")), 1.5, 0.8, 2.5), tolerance = 1e-14)
  r <- expect_gradient_fd("gp_periodic_cov", list(x, 1.5, 0.8, 2.5), c("array[] real", "real", "real", "real"))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("gp_periodic_cov", list(xv, 1.5, 0.8, 2.5), c("array[] vector", "real", "real", "real"))
  expect_equal(tval("gp_dot_prod_cov", list(xv, 0.7), c("array[] vector", "real")), 0.49 + X %*% t(X), tolerance = 1e-14)
  expect_gradient_fd("gp_dot_prod_cov", list(xv, 0.7), c("array[] vector", "real"))
  expect_gradient_fd("gp_dot_prod_cov", list(x, x2, 0.7), c("array[] real", "array[] real", "real"))
  expect_error(tp_call("gp_matern32_cov", list(x, 1, -1), c("array[] real", "real", "real")),
               "gp_matern32_cov: length scale is -1, but must be positive!")
  expect_error(tp_call("gp_periodic_cov", list(x, 1, 1, 0), c("array[] real", "real", "real", "real")),
               "gp_periodic_cov: period is 0, but must be positive!")
})
