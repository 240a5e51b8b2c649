# Matrix functions (src/math/linalg/tm_matfun.c) and the CSR functions and
# to_array_2d (src/math/linalg/tm_sparse.c).

set.seed(31)
A3 <- matrix(c(0.3, -0.8, 0.5, 1.1, 0.2, -0.4, -0.6, 0.9, 0.1), 3)
B32 <- matrix(rnorm(6), 3, 2)
B23 <- matrix(rnorm(6), 2, 3)
B43 <- matrix(rnorm(12), 4, 3)

# exp(A) of a diagonalizable matrix from its eigen decomposition
expm_eig <- function(A) {
  e <- eigen(A)
  Re(e$vectors %*% diag(exp(e$values), nrow(A)) %*% solve(e$vectors))
}
# ... and from the series, for a check independent of eigen()
expm_series <- function(A, terms = 60) {
  E <- diag(nrow(A)); T <- diag(nrow(A))
  for (k in 1:terms) { T <- T %*% A / k; E <- E + T }
  E
}
sign_cols <- function(M) sweep(M, 2, sign(M[cbind(apply(abs(M), 2, which.max), seq_len(ncol(M)))]), "*")

test_that("matrix_exp equals the eigen decomposition and the series at every Pade degree", {
  for (s in c(0.005, 0.1, 0.5, 1.5, 4, 20)) {
    A <- A3 * s
    E <- tval("matrix_exp", list(A), "matrix")
    expect_equal(E, expm_eig(A), tolerance = 1e-12)
    if (s < 5) expect_equal(E, expm_series(A), tolerance = 1e-12)
  }
  expect_equal(tval("matrix_exp", list(matrix(2, 1, 1)), "matrix"), matrix(exp(2), 1, 1), tolerance = 1e-15)
  S <- crossprod(B43) / 4
  e <- eigen(S, symmetric = TRUE)
  expect_equal(tval("matrix_exp", list(S), "matrix"), e$vectors %*% diag(exp(e$values)) %*% t(e$vectors),
               tolerance = 1e-12)
  expect_equal(dim(tval("matrix_exp", list(matrix(0, 0, 0)), "matrix")), c(0L, 0L))
  expect_error(tp_call("matrix_exp", list(B32), "matrix"),
               "matrix_exp: Expecting a square matrix; rows of input matrix \\(3\\) and columns of input matrix \\(2\\)")
})

test_that("matrix_exp gradients (the Frechet adjoint) match finite differences, one node", {
  for (s in c(0.01, 0.7, 6)) {
    r <- expect_gradient_fd("matrix_exp", list(A3 * s), "matrix", tol = 1e-6)
    expect_equal(r$nodes[1], 1)
  }
})

test_that("matrix_exp_multiply and scale_matrix_exp_multiply", {
  expect_equal(tval("matrix_exp_multiply", list(A3, B32), c("matrix", "matrix")), expm_eig(A3) %*% B32,
               tolerance = 1e-12)
  expect_equal(tval("scale_matrix_exp_multiply", list(0.7, A3, B32), c("real", "matrix", "matrix")),
               expm_eig(0.7 * A3) %*% B32, tolerance = 1e-12)
  for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE)))
    expect_gradient_fd("matrix_exp_multiply", list(A3, B32), c("matrix", "matrix"), ad)
  for (ad in list(c(TRUE, TRUE, TRUE), c(TRUE, FALSE, FALSE), c(FALSE, TRUE, FALSE), c(FALSE, FALSE, TRUE))) {
    r <- expect_gradient_fd("scale_matrix_exp_multiply", list(1.3, A3, B32), c("real", "matrix", "matrix"), ad)
    expect_equal(r$nodes[1], 1)
  }
  expect_error(tp_call("matrix_exp_multiply", list(A3, B23), c("matrix", "matrix")),
               "matrix_exp_multiply: Columns of A \\(3\\) and Rows of B \\(2\\) must match in size")
  expect_error(tp_call("scale_matrix_exp_multiply", list(1, B32, B23), c("real", "matrix", "matrix")),
               "scale_matrix_exp_multiply: Expecting a square matrix")
})

test_that("matrix_power: values, gradients, Stan's checks", {
  P <- diag(3)
  for (k in 0:5) {
    expect_equal(tval("matrix_power", list(A3, k), c("matrix", "int")), P, tolerance = 1e-14)
    P <- P %*% A3
  }
  for (k in c(1L, 2L, 5L)) {
    r <- expect_gradient_fd("matrix_power", list(A3, k), c("matrix", "int"))
    expect_equal(r$nodes[1], 1)
  }
  expect_error(tp_call("matrix_power", list(A3, -1L), c("matrix", "int")), "matrix_power: n is -1, but must be nonnegative")
  expect_error(tp_call("matrix_power", list(B32, 2L), c("matrix", "int")), "matrix_power: Expecting a square matrix")
  Ai <- A3; Ai[2, 2] <- Inf
  expect_error(tp_call("matrix_power", list(Ai, 2L), c("matrix", "int")), "matrix_power: M\\[.*\\] is inf")
})

test_that("trace_gen_quad_form is trace(D B' A B) with gradients", {
  D <- matrix(rnorm(4), 2); A <- matrix(rnorm(9), 3)
  expect_equal(tval("trace_gen_quad_form", list(D, A, B32), rep("matrix", 3)),
               sum(diag(D %*% t(B32) %*% A %*% B32)), tolerance = 1e-13)
  for (ad in list(c(TRUE, TRUE, TRUE), c(TRUE, FALSE, FALSE), c(FALSE, TRUE, FALSE), c(FALSE, FALSE, TRUE))) {
    r <- expect_gradient_fd("trace_gen_quad_form", list(D, A, B32), rep("matrix", 3), ad)
    expect_equal(r$nodes[1], 1)
  }
  expect_error(tp_call("trace_gen_quad_form", list(D, B32, B32), rep("matrix", 3)),
               "trace_gen_quad_form: Expecting a square matrix; rows of A \\(3\\) and columns of A \\(2\\)")
  expect_error(tp_call("trace_gen_quad_form", list(A, A, B32), rep("matrix", 3)),
               "trace_gen_quad_form: Columns of B \\(2\\) and Rows of D \\(3\\) must match in size")
})

test_that("singular_values, svd_U, svd_V equal R's svd up to the columns' signs", {
  for (M in list(B43, t(B43), A3, B32)) {
    s <- svd(M)
    d <- tval("singular_values", list(M), "matrix")
    U <- tval("svd_U", list(M), "matrix")
    V <- tval("svd_V", list(M), "matrix")
    expect_equal(d, s$d, tolerance = 1e-13)
    expect_equal(sign_cols(V), sign_cols(s$v), tolerance = 1e-12)
    expect_equal(V, sign_cols(V), tolerance = 1e-15)      # largest component of each V column positive
    expect_equal(U %*% diag(d) %*% t(V), M, tolerance = 1e-13)
    expect_equal(crossprod(U), diag(length(d)), tolerance = 1e-13)
  }
  expect_error(tp_call("svd_U", list(matrix(0, 0, 2)), "matrix"), "svd_U: m has size 0")
  expect_error(tp_call("svd_V", list(matrix(0, 2, 0)), "matrix"), "svd_V: m has size 0")
  expect_length(tval("singular_values", list(matrix(0, 0, 2)), "matrix"), 0)
})

test_that("SVD gradients match finite differences (tall, wide, square)", {
  for (M in list(B43, t(B43), A3)) {
    for (fn in c("singular_values", "svd_U", "svd_V")) {
      r <- expect_gradient_fd(fn, list(M), "matrix", tol = 1e-5)
      expect_equal(r$nodes[1], 1)
    }
  }
  expect_error(tp_call("svd_U", list(diag(c(2, 2, 1))), "matrix", TRUE), "repeated or zero singular values")
})

test_that("generalized_inverse is the Moore-Penrose inverse, with gradients at full rank", {
  pinv <- function(M) { s <- svd(M); k <- s$d > max(dim(M)) * .Machine$double.eps * s$d[1]
    s$v[, k, drop = FALSE] %*% diag(1 / s$d[k], sum(k)) %*% t(s$u[, k, drop = FALSE]) }
  for (M in list(B43, t(B43), A3)) {
    G <- tval("generalized_inverse", list(M), "matrix")
    expect_equal(G, pinv(M), tolerance = 1e-12)
    r <- expect_gradient_fd("generalized_inverse", list(M), "matrix", tol = 1e-5)
    expect_equal(r$nodes[1], 1)
  }
  expect_equal(tval("generalized_inverse", list(A3), "matrix"), solve(A3), tolerance = 1e-12)
  R1 <- outer(1:4, c(1, -2, 0.5))                         # rank 1
  G <- tval("generalized_inverse", list(R1), "matrix")
  expect_equal(G, pinv(R1), tolerance = 1e-12)
  expect_equal(R1 %*% G %*% R1, R1, tolerance = 1e-12)
  expect_equal(dim(tval("generalized_inverse", list(matrix(0, 0, 0)), "matrix")), c(0L, 0L))
})

test_that("QR: Stan's signs (R's diagonal nonnegative), full and thin forms", {
  for (M in list(B43, t(B43), A3, -B43)) {
    m <- nrow(M); n <- ncol(M); k <- min(m, n)
    Q <- tval("qr_Q", list(M), "matrix"); R <- tval("qr_R", list(M), "matrix")
    Qt <- tval("qr_thin_Q", list(M), "matrix"); Rt <- tval("qr_thin_R", list(M), "matrix")
    expect_equal(dim(Q), c(m, m)); expect_equal(dim(R), c(m, n))
    expect_equal(dim(Qt), c(m, k)); expect_equal(dim(Rt), c(k, n))
    expect_equal(Q %*% R, M, tolerance = 1e-13)
    expect_equal(Qt %*% Rt, M, tolerance = 1e-13)
    expect_equal(crossprod(Q), diag(m), tolerance = 1e-13)
    expect_true(all(diag(Rt) >= 0))
    expect_equal(R[upper.tri(R, diag = TRUE) | row(R) <= col(R)], R[row(R) <= col(R)])
    expect_true(all(R[row(R) > col(R)] == 0))
    # R's qr with the same sign normalization
    q <- qr(M); sg <- sign(diag(qr.R(q)))
    expect_equal(Rt, diag(sg, k) %*% qr.R(q), tolerance = 1e-12)
    expect_equal(Qt, qr.Q(q) %*% diag(sg, k), tolerance = 1e-12)
  }
  expect_error(tp_call("qr_R", list(matrix(0, 0, 3)), "matrix"), "qr_R: m has size 0")
})

test_that("QR gradients match finite differences", {
  for (M in list(B43, t(B43), A3)) {
    for (fn in c("qr_thin_Q", "qr_thin_R", "qr_R")) {
      r <- expect_gradient_fd(fn, list(M), "matrix", tol = 1e-5)
      expect_equal(r$nodes[1], 1)
    }
    r <- expect_gradient_fd("qr_Q", list(M), "matrix", tol = 1e-5)
    expect_equal(r$nodes[1], 1)
  }
  # the full Q of a tall matrix: its last columns are the reflectors' (as Eigen's and LINPACK's)
  B53 <- matrix(rnorm(15), 5, 3)
  Q <- tval("qr_Q", list(B53), "matrix")
  q <- qr(B53); sg <- c(sign(diag(qr.R(q))), 1, 1)
  expect_equal(Q, qr.Q(q, complete = TRUE) %*% diag(sg), tolerance = 1e-12)
  r <- expect_gradient_fd("qr_Q", list(B53), "matrix", tol = 1e-5)
  expect_equal(r$nodes[1], 1)
  expect_error(tp_call("qr_thin_Q", list(cbind(B43[, 1], B43[, 1], B43[, 2])), "matrix", TRUE),
               "qr_thin_Q: the gradient is undefined: m has rank less than 3")
})

test_that("csr_extract_w/v/u read the non-zero entries row by row", {
  M <- matrix(c(1, 0, 3, 0, 0, 5, 2, 0, 0, 0, 4, 6), 3)
  w <- tval("csr_extract_w", list(M), "matrix")
  v <- tval("csr_extract_v", list(M), "matrix")
  u <- tval("csr_extract_u", list(M), "matrix")
  tM <- t(M)
  expect_equal(w, tM[tM != 0])
  expect_equal(v, (row(tM))[tM != 0])
  expect_equal(u, c(1L, cumsum(rowSums(M != 0)) + 1L))
  expect_identical(tval("csr_to_dense_matrix", list(3L, 4L, w, v, u), c("int", "int", "vector", "array[] int", "array[] int")), M)
  # the Jacobian selects the non-zero entries (finite differences would move the zeros off zero)
  r <- tp_call("csr_extract_w", list(M), "matrix", TRUE)
  S <- matrix(0, 6, 12); S[cbind(1:6, which(t(tM != 0)))] <- 0
  S[cbind(1:6, (which(tM != 0) - 1) %/% 4 + 1 + 3 * ((which(tM != 0) - 1) %% 4))] <- 1
  expect_equal(r$jacobian[[1]], S)
  expect_equal(r$nodes[1], 1)
  b <- rnorm(4)
  types6 <- c("int", "int", "vector", "array[] int", "array[] int", "vector")
  expect_equal(tval("csr_matrix_times_vector", list(3L, 4L, w, v, u, b), types6), as.numeric(M %*% b), tolerance = 1e-15)
  for (ad in list(c(FALSE, FALSE, TRUE, FALSE, FALSE, TRUE), c(FALSE, FALSE, TRUE, FALSE, FALSE, FALSE),
                  c(FALSE, FALSE, FALSE, FALSE, FALSE, TRUE))) {
    r <- expect_gradient_fd("csr_matrix_times_vector", list(3L, 4L, w, v, u, b), types6, ad)
    expect_equal(r$nodes[1], 1)
  }
  expect_gradient_fd("csr_to_dense_matrix", list(3L, 4L, w, v, u), types6[1:5], c(FALSE, FALSE, TRUE, FALSE, FALSE))
  # Stan's checks
  expect_error(tp_call("csr_matrix_times_vector", list(3L, 4L, w, v, u, b[1:3]), types6),
               "csr_matrix_times_vector: Size of n \\(4\\) and size of b \\(3\\) must match in size")
  expect_error(tp_call("csr_matrix_times_vector", list(0L, 4L, w, v, u, b), types6),
               "csr_matrix_times_vector: m is 0, but must be positive")
  expect_error(tp_call("csr_matrix_times_vector", list(3L, 4L, w[-1], v, u, b), types6),
               "csr_matrix_times_vector: Size of w \\(5\\) and size of v \\(6\\) must match in size")
  expect_error(tp_call("csr_to_dense_matrix", list(3L, 4L, w, v, u[-1]), types6[1:5]),
               "csr_to_dense_matrix: Size of m \\(3\\) and size of u \\(2\\) must match in size")
  v2 <- v; v2[2] <- 5L
  expect_error(tp_call("csr_to_dense_matrix", list(3L, 4L, w, v2, u), types6[1:5]),
               "csr_to_dense_matrix: accessing element out of range. index 5 out of range; expecting index to be between 1 and 4$")
  u2 <- u; u2[4] <- 6L
  expect_error(tp_call("csr_to_dense_matrix", list(3L, 4L, w, v, u2), types6[1:5]),
               "csr_to_dense_matrix: Size of u/z \\(5\\) and size of v \\(6\\) must match in size")
})

test_that("to_array_2d keeps the matrix's rows as the leading index", {
  r <- tval("to_array_2d", list(B32), "matrix")
  expect_equal(r, lapply(1:3, function(i) B32[i, ]))
  g <- expect_gradient_fd("to_array_2d", list(B32), "matrix")
  expect_equal(g$nodes[1], 1)
})

test_that("a program with the matrix functions: tree and plan agree, gradients match finite differences", {
  code <- "
    data { matrix[3, 2] X; }
    parameters { matrix[2, 2] A; real<lower=0> t; }
    model {
      matrix[2, 2] E = matrix_exp(A);
      target += -0.5 * sum(square(to_vector(A))) - t;
      target += sum(scale_matrix_exp_multiply(t, A, X')) * 0.1;
      target += sum(singular_values(X * E)) + trace_gen_quad_form(E, A, A);
      target += sum(qr_thin_R(X * A)) * 0.01 + sum(matrix_power(A, 3)) * 0.01;
      target += sum(generalized_inverse(X * E)) * 0.01 + sum(svd_V(X * A)) * 0.01;
    }"
  m <- tapestry_model(code = code)
  ctx <- m$bind(list(X = B32))
  pts <- list(c(0.1, -0.2, 0.3, 0.05, 0.2), c(-0.3, 0.4, 0.1, -0.2, -0.5))
  expect_paths_and_fd(ctx, pts)
})

test_that("gp covariances with one length scale per dimension (ARD)", {
  x <- lapply(1:4, function(i) rnorm(3)); x2 <- lapply(1:2, function(i) rnorm(3))
  l <- c(0.7, 1.5, 2.2); s <- 1.3
  kf <- list(gp_exp_quad_cov = function(r) exp(-r^2 / 2), gp_exponential_cov = function(r) exp(-r),
             gp_matern32_cov = function(r) (1 + sqrt(3) * r) * exp(-sqrt(3) * r),
             gp_matern52_cov = function(r) (1 + sqrt(5) * r + 5 * r^2 / 3) * exp(-sqrt(5) * r))
  cov_r <- function(k, a, b) outer(seq_along(a), seq_along(b),
                                   Vectorize(function(i, j) s^2 * k(sqrt(sum(((a[[i]] - b[[j]]) / l)^2)))))
  t3 <- c("array[] vector", "real", "array[] real"); t4 <- c("array[] vector", "array[] vector", "real", "array[] real")
  for (fn in names(kf)) {
    expect_equal(tval(fn, list(x, s, l), t3), cov_r(kf[[fn]], x, x), tolerance = 1e-14)
    expect_equal(tval(fn, list(x, x2, s, l), t4), cov_r(kf[[fn]], x, x2), tolerance = 1e-14)
    # a single length scale repeated is the isotropic form
    expect_equal(tval(fn, list(x, x2, s, rep(1.1, 3)), t4),
                 tval(fn, list(x, x2, s, 1.1), c("array[] vector", "array[] vector", "real", "real")), tolerance = 1e-14)
    for (ad in list(c(TRUE, TRUE, TRUE), c(FALSE, FALSE, TRUE), c(TRUE, FALSE, FALSE))) {
      r <- expect_gradient_fd(fn, list(x, s, l), t3, ad, tol = 1e-6)
      expect_equal(r$nodes[1], 1)
    }
    expect_gradient_fd(fn, list(x, x2, s, l), t4, c(TRUE, TRUE, TRUE, TRUE), tol = 1e-6)
    expect_error(tp_call(fn, list(x, s, l[1:2]), t3),
                 paste0(fn, ": Size of x dimension \\(3\\) and size of number of length scales \\(2\\) must match in size"))
    expect_error(tp_call(fn, list(x, s, c(1, -1, 1)), t3), paste0(fn, ": length scale\\[2\\] is -1, but must be positive finite"))
  }
})

test_that("trace_dot is tr(A B) with gradients and Stan's size checks", {
  expect_equal(tval("trace_dot", list(B32, B23), c("matrix", "matrix")), sum(diag(B32 %*% B23)), tolerance = 1e-14)
  for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE))) {
    r <- expect_gradient_fd("trace_dot", list(B32, B23), c("matrix", "matrix"), ad)
    expect_equal(r$nodes[1], 1)
  }
  expect_error(tp_call("trace_dot", list(B32, B32), c("matrix", "matrix")),
               "trace_dot: Size of A.cols\\(\\) \\(2\\) and size of B.rows\\(\\) \\(3\\) must match in size")
  expect_error(tp_call("trace_dot", list(B32, matrix(0, 2, 2)), c("matrix", "matrix")),
               "trace_dot: Size of A.rows\\(\\) \\(3\\) and size of B.cols\\(\\) \\(2\\) must match in size")
})

test_that("a program with the CSR functions, to_array_2d and the ARD covariances: tree and plan agree", {
  code <- "
    data { matrix[3, 4] X; array[4] vector[2] pts; }
    transformed data {
      vector[size(csr_extract_w(X))] w = csr_extract_w(X);
      array[size(w)] int v = csr_extract_v(X);
      array[4] int u = csr_extract_u(X);
    }
    parameters { vector[4] b; array[2] real<lower=0> l; }
    model {
      vector[3] mu = csr_matrix_times_vector(3, 4, w, v, u, b);
      matrix[4, 4] K = add_diag(gp_matern32_cov(pts, 1.0, l), 1e-6);
      array[3, 4] real a = to_array_2d(csr_to_dense_matrix(3, 4, w, v, u) .* rep_matrix(b', 3));
      target += normal_lpdf(mu | 1, 1) + multi_normal_lpdf(b | rep_vector(0, 4), K) + 0.1 * a[2, 3];
      l ~ lognormal(0, 1);
    }"
  m <- tapestry_model(code = code)
  X <- matrix(c(1, 0, 3, 0, 0, 5, 2, 0, 0, 0, 4, 6), 3)
  ctx <- m$bind(list(X = X, pts = lapply(1:4, function(i) c(i / 2, sin(i)))))
  pts <- list(c(0.1, -0.2, 0.3, 0.05, 0.2, -0.1), c(-0.3, 0.4, 0.1, -0.2, -0.5, 0.3))
  expect_paths_and_fd(ctx, pts)
})
