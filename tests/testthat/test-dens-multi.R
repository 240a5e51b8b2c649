# Multivariate densities: multi_normal(_cholesky) (prob/tm_multi_normal.c),
# lkj_corr_cholesky (prob/tm_lkj.c), dirichlet (prob/tm_dirichlet.c).

# Gradients along linear parametrizations (helper-linear.R) are used where
# moving one element at a time leaves the domain: a symmetric Sigma, a
# lower-triangular L for lkj_corr_cholesky, and a simplex for dirichlet.

set.seed(7)
spd <- function(k) { X <- matrix(rnorm(k * k), k); crossprod(X) / k + diag(k) }
mvn_ref <- function(y, mu, S) {
  r <- y - mu
  -0.5 * length(y) * log(2 * pi) - 0.5 * as.numeric(determinant(S)$modulus) - 0.5 * sum(r * solve(S, r))
}
S3 <- spd(3); y1 <- rnorm(3); mu1 <- rnorm(3)
ys <- list(rnorm(3), rnorm(3), rnorm(3)); mus <- list(rnorm(3), rnorm(3), rnorm(3))
VS <- c("vector", "vector", "matrix")
AVS <- c("array[] vector", "array[] vector", "matrix")

test_that("multi_normal_lpdf: values against the closed form, every vectorization", {
  expect_equal(tval("multi_normal_lpdf", list(y1, mu1, S3), VS), mvn_ref(y1, mu1, S3), tolerance = 1e-13)
  expect_equal(tval("multi_normal_lpdf", list(y1, mu1, S3), c("row_vector", "vector", "matrix")),
               mvn_ref(y1, mu1, S3), tolerance = 1e-13)
  expect_equal(tval("multi_normal_lpdf", list(ys, mus, S3), AVS),
               sum(mapply(mvn_ref, ys, mus, MoreArgs = list(S = S3))), tolerance = 1e-13)
  expect_equal(tval("multi_normal_lpdf", list(ys, mu1, S3), c("array[] vector", "vector", "matrix")),
               sum(sapply(ys, mvn_ref, mu = mu1, S = S3)), tolerance = 1e-13)
  expect_equal(tval("multi_normal_lpdf", list(y1, mus, S3), c("row_vector", "array[] row_vector", "matrix")),
               sum(sapply(mus, function(m) mvn_ref(y1, m, S3))), tolerance = 1e-13)
  expect_equal(tval("multi_normal_lpdf", list(list(), mu1, S3), c("array[] vector", "vector", "matrix")), 0)
})

test_that("multi_normal_lpdf: gradients, one node", {
  for (args in list(list(y1, mu1, S3), list(ys, mu1, S3), list(ys, mus, S3))) {
    ty <- c(if (is.list(args[[1]])) "array[] vector" else "vector",
            if (is.list(args[[2]])) "array[] vector" else "vector", "matrix")
    r <- expect_gradient_fd("multi_normal_lpdf", args, ty, c(TRUE, TRUE, FALSE))
    expect_equal(r$nodes[1], 1)
    r <- expect_gradient_linear("multi_normal_lpdf", args, ty, 3, dup_matrix(3), ad = c(TRUE, TRUE, TRUE))
    expect_equal(r$nodes[1], 1)
    G <- matrix(r$jacobian[[3]], 3, 3)
    expect_equal(G, t(G), tolerance = 1e-12)   # the Sigma gradient is symmetric
  }
  # far in the tail and with a badly scaled covariance (kept where central
  # differences still resolve 1e-6: value ~1e3)
  expect_gradient_fd("multi_normal_lpdf", list(c(5, -20, 0.5), c(0, 0, 0), diag(c(1e-2, 10, 1))), VS,
                     c(TRUE, TRUE, FALSE))
  expect_equal(tp_call("multi_normal_lpdf", list(y1, mu1, S3), VS)$nodes[1], 0)
})

test_that("multi_normal_lpdf: propto drops exactly Stan's constants", {
  full <- tval("multi_normal_lpdf", list(ys, mu1, S3), c("array[] vector", "vector", "matrix"))
  ty <- c("array[] vector", "vector", "matrix")
  p <- function(ad) unlist(tp_call("multi_normal_lpdf", list(ys, mu1, S3), ty, ad, TRUE)$value)
  N <- 3; k <- 3; ld <- as.numeric(determinant(S3)$modulus)
  expect_equal(p(c(FALSE, FALSE, FALSE)), 0)
  expect_equal(full - p(c(TRUE, FALSE, FALSE)), -0.5 * N * k * log(2 * pi) - 0.5 * N * ld, tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, TRUE, FALSE)), -0.5 * N * k * log(2 * pi) - 0.5 * N * ld, tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, FALSE, TRUE)), -0.5 * N * k * log(2 * pi), tolerance = 1e-12)
  # the dropped terms are constant in y and mu: the gradients are unchanged
  g <- function(propto) tp_call("multi_normal_lpdf", list(ys, mu1, S3), ty, c(TRUE, TRUE, TRUE), propto)$jacobian
  expect_equal(g(TRUE), g(FALSE), tolerance = 1e-14)
})

test_that("multi_normal_lpdf: errors", {
  fn <- "multi_normal_lpdf"
  expect_error(tp_call(fn, list(y1, mu1, matrix(c(1, .5, .4, 1, 0, 0, 0, 0, 1), 3)), VS),
               "multi_normal_lpdf: Covariance matrix is not symmetric")
  expect_error(tp_call(fn, list(y1, mu1, diag(c(1, -1, 1))), VS), "multi_normal_lpdf: .*not positive definite",
               class = "tapestry_domain_error")
  expect_error(tp_call(fn, list(y1, mu1[1:2], S3), VS),
               "multi_normal_lpdf: Size of random variable \\(3\\) and size of location parameter \\(2\\)")
  expect_error(tp_call(fn, list(y1, mu1, diag(2)), VS),
               "multi_normal_lpdf: Size of random variable \\(3\\) and rows of covariance parameter \\(2\\)")
  expect_error(tp_call(fn, list(y1, mu1, matrix(0, 3, 2)), VS), "columns of covariance parameter")
  expect_error(tp_call(fn, list(ys, mus[1:2], S3), AVS), "multi_normal_lpdf: y has size = 3, but mu has size 2")
  expect_error(tp_call(fn, list(c(1, NaN, 0), mu1, S3), VS), "multi_normal_lpdf: Random variable\\[2\\] is nan")
  expect_error(tp_call(fn, list(y1, c(Inf, 0, 0), S3), VS), "multi_normal_lpdf: Location parameter\\[1\\] is inf")
  expect_error(tp_call(fn, list(numeric(0), numeric(0), matrix(0, 0, 0)), VS),
               "multi_normal_lpdf: Covariance matrix rows is 0")
})

test_that("multi_normal_cholesky_lpdf: values, gradients, propto, errors", {
  fn <- "multi_normal_cholesky_lpdf"
  L <- t(chol(S3))
  expect_equal(tval(fn, list(y1, mu1, L), VS), mvn_ref(y1, mu1, S3), tolerance = 1e-13)
  expect_equal(tval(fn, list(ys, mus, L), AVS), tval("multi_normal_lpdf", list(ys, mus, S3), AVS), tolerance = 1e-13)
  Lu <- L; Lu[1, 3] <- 5   # the upper triangle is not read
  expect_equal(tval(fn, list(ys, mu1, Lu), c("array[] vector", "vector", "matrix")),
               tval("multi_normal_lpdf", list(ys, mu1, S3), c("array[] vector", "vector", "matrix")), tolerance = 1e-13)
  for (args in list(list(y1, mu1, L), list(ys, mu1, L), list(y1, mus, L), list(ys, mus, L))) {
    ty <- c(if (is.list(args[[1]])) "array[] vector" else "vector",
            if (is.list(args[[2]])) "array[] vector" else "vector", "matrix")
    # L moves freely (no symmetry check); its upper triangle gets zero gradient
    r <- expect_gradient_fd(fn, args, ty)
    expect_equal(r$nodes[1], 1)
    expect_true(all(matrix(r$jacobian[[3]], 3)[upper.tri(L)] == 0))
    expect_gradient_fd(fn, args, ty, c(FALSE, TRUE, FALSE))
  }
  full <- tval(fn, list(ys, mu1, L), c("array[] vector", "vector", "matrix"))
  p <- function(ad) unlist(tp_call(fn, list(ys, mu1, L), c("array[] vector", "vector", "matrix"), ad, TRUE)$value)
  expect_equal(p(c(FALSE, FALSE, FALSE)), 0)
  expect_equal(full - p(c(TRUE, FALSE, FALSE)), -4.5 * log(2 * pi) - 3 * sum(log(diag(L))), tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, FALSE, TRUE)), -4.5 * log(2 * pi), tolerance = 1e-12)
  expect_error(tp_call(fn, list(y1, mu1[1:2], L), VS), "multi_normal_cholesky_lpdf: Size of random variable \\(3\\)")
  expect_error(tp_call(fn, list(y1, mu1, diag(2)), VS), "rows of covariance parameter \\(2\\)")
  expect_error(tp_call(fn, list(ys[1:2], mus, L), AVS), "multi_normal_cholesky_lpdf: y has size = 2, but mu has size 3")
  expect_error(tp_call(fn, list(y1, c(0, NaN, 0), L), VS), "multi_normal_cholesky_lpdf: Location parameter\\[2\\]")
})

# LKJ (2009): the density of a correlation matrix is det(Omega)^(eta - 1) / c_K with
# c_K = prod_{k=1}^{K-1} [2^{(2 eta - 2 + K - k)} B(eta + (K-k-1)/2, eta + (K-k-1)/2)]^{K-k};
# the Cholesky factor adds the Jacobian sum_{i=2}^K (K - i) log L_ii.
lkj_ref <- function(L, eta) {
  K <- nrow(L)
  logc <- 0
  for (k in seq_len(K - 1)) {
    b <- eta + (K - k - 1) / 2
    logc <- logc + (K - k) * ((2 * eta - 2 + K - k) * log(2) + lbeta(b, b))
  }
  i <- seq_len(K)[-1]
  -logc + sum((K - i + 2 * eta - 2) * log(diag(L)[i]))
}
rand_corr_chol <- function(K) t(chol(cov2cor(spd(K))))

test_that("lkj_corr_cholesky_lpdf: values against the LKJ formula", {
  fn <- "lkj_corr_cholesky_lpdf"
  for (K in c(1, 2, 3, 5)) for (eta in c(0.5, 1, 2.5, 50)) {
    L <- rand_corr_chol(K)
    expect_equal(tval(fn, list(L, eta), c("matrix", "real")), lkj_ref(L, eta), tolerance = 1e-12)
  }
  # K = 2 also against a numerical integral: the correlation r has density (1 - r^2)^(eta - 1) / c_2
  eta <- 1.7; r <- 0.3
  L <- matrix(c(1, r, 0, sqrt(1 - r^2)), 2)
  c2 <- integrate(function(x) (1 - x^2)^(eta - 1), -1, 1, rel.tol = 1e-12)$value
  expect_equal(tval(fn, list(L, eta), c("matrix", "real")), (eta - 1) * log(1 - r^2) - log(c2), tolerance = 1e-9)
  expect_equal(tval(fn, list(matrix(0, 0, 0), eta), c("matrix", "real")), 0)
})

test_that("lkj_corr_cholesky_lpdf: gradients, propto, errors", {
  fn <- "lkj_corr_cholesky_lpdf"
  ty <- c("matrix", "real")
  for (K in c(2, 4)) for (eta in c(0.3, 1, 4, 200)) {
    L <- rand_corr_chol(K)
    expect_gradient_fd(fn, list(L, eta), ty, c(FALSE, TRUE))
    # moving an upper element breaks lower-triangularity: move the lower triangle only
    r <- expect_gradient_linear(fn, list(L, eta), ty, 1, lower_select(K), ad = c(FALSE, TRUE))
    expect_equal(r$nodes[1], 1)
  }
  L <- rand_corr_chol(3); eta <- 2
  full <- tval(fn, list(L, eta), ty)
  p <- function(ad) unlist(tp_call(fn, list(L, eta), ty, ad, TRUE)$value)
  expect_equal(p(c(FALSE, FALSE)), 0)
  expect_equal(p(c(FALSE, TRUE)), full, tolerance = 1e-14)
  expect_equal(full - p(c(TRUE, FALSE)), lkj_ref(diag(3), eta), tolerance = 1e-12)   # the constant
  expect_error(tp_call(fn, list(L, -1), ty), "lkj_corr_cholesky_lpdf: Shape parameter is -1, but must be positive")
  Lu <- L; Lu[1, 2] <- 0.5
  expect_error(tp_call(fn, list(Lu, 2), ty),
               "lkj_corr_cholesky_lpdf: Random variable is not lower triangular; Random variable\\[1,2\\]=0.5")
  expect_error(tp_call(fn, list(matrix(0, 2, 3), 2), ty), "lkj_corr_cholesky_lpdf: Expecting a square matrix")
})

ddir_ref <- function(theta, alpha) lgamma(sum(alpha)) - sum(lgamma(alpha)) + sum((alpha - 1) * log(theta))
# directions that keep sum(theta) = 1: e_j - e_K
simplex_dirs <- function(K) rbind(diag(K - 1), -1)

test_that("dirichlet_lpdf: values, vectorization", {
  fn <- "dirichlet_lpdf"
  th <- c(0.2, 0.5, 0.3); al <- c(0.7, 2, 5)
  ths <- list(th, c(0.1, 0.1, 0.8)); als <- list(al, c(1, 1, 1))
  expect_equal(tval(fn, list(th, al), c("vector", "vector")), ddir_ref(th, al), tolerance = 1e-13)
  expect_equal(tval(fn, list(ths, als), c("array[] vector", "array[] vector")),
               ddir_ref(ths[[1]], als[[1]]) + ddir_ref(ths[[2]], als[[2]]), tolerance = 1e-13)
  expect_equal(tval(fn, list(ths, al), c("array[] vector", "vector")),
               ddir_ref(ths[[1]], al) + ddir_ref(ths[[2]], al), tolerance = 1e-13)
  # a zero probability with alpha = 1 contributes 0 (0 * log 0 = 0)
  expect_equal(tval(fn, list(c(0, 1), c(1, 3)), c("vector", "vector")), lgamma(4) - lgamma(3), tolerance = 1e-14)
})

test_that("dirichlet_lpdf: gradients, propto, errors", {
  fn <- "dirichlet_lpdf"
  th <- c(0.2, 0.5, 0.3); al <- c(0.7, 2, 5)
  ths <- list(th, c(0.1, 0.1, 0.8))
  r <- expect_gradient_fd(fn, list(th, al), c("vector", "vector"), c(FALSE, TRUE))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd(fn, list(ths, al), c("array[] vector", "vector"), c(FALSE, TRUE))
  expect_gradient_fd(fn, list(th, c(1e-3, 1e3, 1)), c("vector", "vector"), c(FALSE, TRUE))
  # theta cannot leave the simplex: finite differences along it, and the
  # analytic partials (alpha - 1) / theta checked directly
  r <- expect_gradient_linear(fn, list(th, al), c("vector", "vector"), 1, simplex_dirs(3), ad = c(FALSE, TRUE))
  expect_equal(as.numeric(r$jacobian[[1]]), (al - 1) / th, tolerance = 1e-14)
  full <- tval(fn, list(ths, al), c("array[] vector", "vector"))
  p <- function(ad) unlist(tp_call(fn, list(ths, al), c("array[] vector", "vector"), ad, TRUE)$value)
  expect_equal(p(c(FALSE, FALSE)), 0)
  expect_equal(full - p(c(TRUE, FALSE)), 2 * (lgamma(sum(al)) - sum(lgamma(al))), tolerance = 1e-12)
  expect_equal(p(c(FALSE, TRUE)), full, tolerance = 1e-14)
  expect_error(tp_call(fn, list(c(0.5, 0.6), c(1, 1)), c("vector", "vector")),
               "dirichlet_lpdf: probabilities is not a valid simplex. sum\\(probabilities\\) = 1.1, but should be 1")
  expect_error(tp_call(fn, list(c(1.1, -0.1), c(1, 1)), c("vector", "vector")),
               "dirichlet_lpdf: probabilities is not a valid simplex. probabilities\\[2\\] = -0.1, but should be greater than or equal to 0")
  expect_error(tp_call(fn, list(th, c(1, 0, 1)), c("vector", "vector")),
               "dirichlet_lpdf: prior sample sizes\\[2\\] is 0, but must be positive")
  expect_error(tp_call(fn, list(th, c(1, 1)), c("vector", "vector")),
               "dirichlet_lpdf: Size of probabilities \\(3\\) and size of prior sample sizes \\(2\\)")
  expect_error(tp_call(fn, list(numeric(0), numeric(0)), c("vector", "vector")),
               "dirichlet_lpdf: probabilities has size 0")
  expect_error(tp_call(fn, list(ths, list(al, al, al)), c("array[] vector", "array[] vector")),
               "dirichlet_lpdf: probabilities has size = 2, but prior sample sizes has size 3")
})
