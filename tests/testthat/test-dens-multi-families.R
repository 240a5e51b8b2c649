# Multivariate densities and _rng functions of the family files in prob/:
# multi_normal_prec (tm_multi_normal.c), multi_student_t(_cholesky) and their
# _rng (tm_multi_student_t.c), multi_gp(_cholesky) (tm_multi_gp.c), lkj_cov
# (tm_lkj.c), wishart, inv_wishart and their Cholesky forms with their _rng
# (tm_wishart.c), and gaussian_dlm_obs (tm_dlm.c).
#
# Symmetric matrix arguments are moved along their free lower triangle
# (dup_matrix) and Cholesky factors along theirs (lower_select), with
# expect_gradient_linear (helper-linear.R): moving one element at a time
# would leave the domain.

set.seed(11)
spd <- function(k) { X <- matrix(rnorm(k * k), k); crossprod(X) / k + diag(k) }
lmg <- function(k, x) k * (k - 1) / 4 * log(pi) + sum(lgamma(x + (1 - seq_len(k)) / 2))
ldet <- function(S) as.numeric(determinant(S)$modulus)
mvn_ref <- function(y, mu, S) {
  r <- y - mu
  -0.5 * length(y) * log(2 * pi) - 0.5 * ldet(S) - 0.5 * sum(r * solve(S, r))
}
mst_ref <- function(y, nu, mu, S) {
  k <- length(y); r <- y - mu; q <- sum(r * solve(S, r))
  lgamma((nu + k) / 2) - lgamma(nu / 2) - k / 2 * log(nu * pi) - 0.5 * ldet(S) - (nu + k) / 2 * log1p(q / nu)
}
wis_ref <- function(W, nu, S) {
  k <- nrow(W)
  -nu * k / 2 * log(2) - lmg(k, nu / 2) - nu / 2 * ldet(S) + (nu - k - 1) / 2 * ldet(W) - 0.5 * sum(diag(solve(S, W)))
}
iwis_ref <- function(W, nu, S) {
  k <- nrow(W)
  -nu * k / 2 * log(2) - lmg(k, nu / 2) + nu / 2 * ldet(S) - (nu + k + 1) / 2 * ldet(W) - 0.5 * sum(diag(solve(W, S)))
}
# log Jacobian of L -> L L' on lower-triangular L with positive diagonal
chol_jac <- function(L) { k <- nrow(L); k * log(2) + sum((k - seq_len(k) + 1) * log(diag(L))) }
gp_ref <- function(Y, K, w) sum(sapply(seq_len(nrow(Y)), function(i) mvn_ref(Y[i, ], 0 * Y[i, ], K / w[i])))
lkj_cov_ref <- function(y, mu, sigma, eta) {
  s <- sqrt(diag(y)); R <- y / outer(s, s); K <- nrow(y)
  lkjc <- { cc <- -0.25 * (K - 1) * K * log(pi)
            for (k in seq_len(K - 1)) cc <- cc + lgamma(k / 2) - lbeta(k / 2, eta + (K - 1 - k) / 2); cc }
  sum(dlnorm(s, mu, sigma, log = TRUE)) + lkjc + (eta - 1) * ldet(R)
}

O3 <- spd(3); y1 <- rnorm(3); mu1 <- rnorm(3)
ys <- list(rnorm(3), rnorm(3), rnorm(3)); mus <- list(rnorm(3), rnorm(3), rnorm(3))
L3 <- t(chol(spd(3))); S3 <- L3 %*% t(L3)
VS <- c("vector", "vector", "matrix")
W3 <- spd(3); Sc3 <- spd(3); LW3 <- t(chol(W3)); LS3 <- t(chol(Sc3))
MRM <- c("matrix", "real", "matrix")
Y23 <- matrix(rnorm(6), 2); K3 <- spd(3); w2 <- c(0.7, 2); GPT <- c("matrix", "matrix", "vector")
Cv3 <- spd(3); mu3 <- c(0.1, -0.3, 0.2); sg3 <- c(0.8, 1.5, 1.1); LKT <- c("matrix", "vector", "vector", "real")

# ---- multi_normal_prec ----

test_that("multi_normal_prec_lpdf: values against the closed form, every vectorization", {
  fn <- "multi_normal_prec_lpdf"; Si <- solve(O3)
  expect_equal(tval(fn, list(y1, mu1, O3), VS), mvn_ref(y1, mu1, Si), tolerance = 1e-12)
  expect_equal(tval(fn, list(y1, mu1, O3), c("row_vector", "row_vector", "matrix")), mvn_ref(y1, mu1, Si),
               tolerance = 1e-12)
  expect_equal(tval(fn, list(ys, mus, O3), c("array[] vector", "array[] row_vector", "matrix")),
               sum(mapply(mvn_ref, ys, mus, MoreArgs = list(S = Si))), tolerance = 1e-12)
  expect_equal(tval(fn, list(ys, mu1, O3), c("array[] row_vector", "vector", "matrix")),
               sum(sapply(ys, mvn_ref, mu = mu1, S = Si)), tolerance = 1e-12)
  expect_equal(tval(fn, list(y1, mus, O3), c("vector", "array[] vector", "matrix")),
               sum(sapply(mus, function(m) mvn_ref(y1, m, Si))), tolerance = 1e-12)
  expect_equal(tval(fn, list(list(), mu1, O3), c("array[] vector", "vector", "matrix")), 0)
})

test_that("multi_normal_prec_lpdf: gradients, one node, propto", {
  fn <- "multi_normal_prec_lpdf"
  for (args in list(list(y1, mu1, O3), list(ys, mu1, O3), list(ys, mus, O3))) {
    ty <- c(if (is.list(args[[1]])) "array[] vector" else "vector",
            if (is.list(args[[2]])) "array[] vector" else "vector", "matrix")
    r <- expect_gradient_fd(fn, args, ty, c(TRUE, TRUE, FALSE))
    expect_equal(r$nodes[1], 1)
    r <- expect_gradient_linear(fn, args, ty, 3, dup_matrix(3), ad = c(TRUE, TRUE, TRUE))
    expect_equal(r$nodes[1], 1)
    G <- matrix(r$jacobian[[3]], 3, 3)
    expect_equal(G, t(G), tolerance = 1e-12)
  }
  ty <- c("array[] vector", "vector", "matrix")
  full <- tval(fn, list(ys, mu1, O3), ty)
  p <- function(ad) unlist(tp_call(fn, list(ys, mu1, O3), ty, ad, TRUE)$value)
  N <- 3; k <- 3
  expect_equal(p(c(FALSE, FALSE, FALSE)), 0)
  expect_equal(full - p(c(TRUE, FALSE, FALSE)), -0.5 * N * k * log(2 * pi) + 0.5 * N * ldet(O3), tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, FALSE, TRUE)), -0.5 * N * k * log(2 * pi), tolerance = 1e-12)
  g <- function(propto) tp_call(fn, list(ys, mu1, O3), ty, c(TRUE, TRUE, TRUE), propto)$jacobian
  expect_equal(g(TRUE), g(FALSE), tolerance = 1e-14)
})

test_that("multi_normal_prec_lpdf: Stan's errors", {
  fn <- "multi_normal_prec_lpdf"
  expect_error(tp_call(fn, list(y1, mu1, matrix(c(1, .5, .4, 1, 0, 0, 0, 0, 1), 3)), VS),
               "multi_normal_prec_lpdf: Precision matrix is not symmetric")
  expect_error(tp_call(fn, list(y1, mu1, diag(c(1, -1, 1))), VS),
               "multi_normal_prec_lpdf: LDLT_Factor of precision parameter is not positive definite",
               class = "tapestry_domain_error")
  expect_error(tp_call(fn, list(y1, mu1[1:2], O3), VS),
               "Size of random variable \\(3\\) and size of location parameter \\(2\\) must match in size")
  expect_error(tp_call(fn, list(y1[1:2], mu1[1:2], O3), VS),
               "Size of random variable \\(2\\) and rows of covariance parameter \\(3\\)")
  expect_error(tp_call(fn, list(ys, mus[1:2], O3), c("array[] vector", "array[] vector", "matrix")),
               "multi_normal_prec_lpdf: y has size = 3, but mu has size 2")
  expect_error(tp_call(fn, list(c(1, NaN, 0), mu1, O3), VS), "Random variable\\[2\\] is nan")
  expect_error(tp_call(fn, list(y1, c(0, Inf, 0), O3), VS), "Location parameter\\[2\\] is inf")
  expect_error(tp_call(fn, list(numeric(0), numeric(0), matrix(0, 0, 0)), VS),
               "multi_normal_prec_lpdf: Precision matrix rows is 0, but must be positive!")
})

# ---- multi_student_t_cholesky ----

MST <- c("vector", "real", "vector", "matrix")

test_that("multi_student_t_cholesky_lpdf: values, vectorizations, agreement with multi_student_t", {
  fn <- "multi_student_t_cholesky_lpdf"
  expect_equal(tval(fn, list(y1, 4.5, mu1, L3), MST), mst_ref(y1, 4.5, mu1, S3), tolerance = 1e-12)
  expect_equal(tval(fn, list(ys, 3, mus, L3), c("array[] row_vector", "real", "array[] vector", "matrix")),
               sum(mapply(mst_ref, ys, mus, MoreArgs = list(nu = 3, S = S3))), tolerance = 1e-12)
  expect_equal(tval(fn, list(y1, 7, mus, L3), c("row_vector", "int", "array[] row_vector", "matrix")),
               sum(sapply(mus, function(m) mst_ref(y1, 7, m, S3))), tolerance = 1e-12)
  expect_equal(tval(fn, list(ys, 2.5, mu1, L3), c("array[] vector", "real", "vector", "matrix")),
               tval("multi_student_t_lpdf", list(ys, 2.5, mu1, S3), c("array[] vector", "real", "vector", "matrix")),
               tolerance = 1e-12)
  expect_equal(tval(fn, list(list(), 2.5, mu1, L3), c("array[] vector", "real", "vector", "matrix")), 0)
})

test_that("multi_student_t_cholesky_lpdf: gradients, one node, propto", {
  fn <- "multi_student_t_cholesky_lpdf"
  for (args in list(list(y1, 4.5, mu1, L3), list(ys, 3.2, mu1, L3), list(ys, 6, mus, L3))) {
    ty <- c(if (is.list(args[[1]])) "array[] vector" else "vector", "real",
            if (is.list(args[[3]])) "array[] vector" else "vector", "matrix")
    r <- expect_gradient_fd(fn, args, ty, c(TRUE, TRUE, TRUE, FALSE))
    expect_equal(r$nodes[1], 1)
    r <- expect_gradient_linear(fn, args, ty, 4, lower_select(3), ad = c(TRUE, TRUE, TRUE, TRUE))
    expect_equal(r$nodes[1], 1)
    G <- matrix(r$jacobian[[4]], 3, 3)
    expect_equal(G[upper.tri(G)], rep(0, 3))
  }
  ty <- c("array[] vector", "real", "vector", "matrix"); args <- list(ys, 4.5, mu1, L3)
  full <- tval(fn, args, ty)
  p <- function(ad) unlist(tp_call(fn, args, ty, ad, TRUE)$value)
  N <- 3; K <- 3; nu <- 4.5; sl <- sum(log(diag(L3)))
  expect_equal(p(c(FALSE, FALSE, FALSE, FALSE)), 0)
  expect_equal(full - p(c(TRUE, FALSE, FALSE, FALSE)),
               -N * K / 2 * log(pi) + N * (lgamma((nu + K) / 2) - lgamma(nu / 2) - K / 2 * log(nu)) - N * sl,
               tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, TRUE, FALSE, FALSE)), -N * K / 2 * log(pi) - N * sl, tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, FALSE, FALSE, TRUE)),
               -N * K / 2 * log(pi) + N * (lgamma((nu + K) / 2) - lgamma(nu / 2) - K / 2 * log(nu)), tolerance = 1e-12)
  g <- function(propto) tp_call(fn, args, ty, c(TRUE, TRUE, TRUE, TRUE), propto)$jacobian
  expect_equal(g(TRUE), g(FALSE), tolerance = 1e-14)
})

test_that("multi_student_t_cholesky_lpdf: Stan's errors", {
  fn <- "multi_student_t_cholesky_lpdf"
  expect_error(tp_call(fn, list(y1, -1, mu1, L3), MST),
               "multi_student_t_cholesky: Degrees of freedom parameter is -1, but must be positive!")
  expect_error(tp_call(fn, list(y1, NaN, mu1, L3), MST), "Degrees of freedom parameter is nan")
  expect_error(tp_call(fn, list(y1, Inf, mu1, L3), MST), "Degrees of freedom parameter is inf, but must be finite!")
  expect_error(tp_call(fn, list(y1, 3, mu1, t(L3)), MST), "scale parameter is not lower triangular")
  expect_error(tp_call(fn, list(y1, 3, mu1, diag(c(1, -1, 1))), MST),
               "multi_student_t_cholesky: scale parameter\\[2\\] is -1, but must be positive!")
  expect_error(tp_call(fn, list(y1, 3, mu1, diag(2)), MST),
               "Size of random variable \\(3\\) and rows of scale parameter \\(2\\) must match in size")
  expect_error(tp_call(fn, list(y1[1:2], 3, mu1, L3), MST),
               "Size of random variable \\(2\\) and size of location parameter \\(3\\)")
  expect_error(tp_call(fn, list(ys, 3, mus[1:2], L3), c("array[] vector", "real", "array[] vector", "matrix")),
               "y has size = 3, but mu has size 2")
  expect_error(tp_call(fn, list(y1, 3, c(NA, 0, 0), L3), MST), "Location parameter\\[1\\] is nan")
})

# ---- multi_gp, multi_gp_cholesky ----

test_that("multi_gp_lpdf and multi_gp_cholesky_lpdf: values, gradients, propto", {
  LK <- t(chol(K3))
  expect_equal(tval("multi_gp_lpdf", list(Y23, K3, w2), GPT), gp_ref(Y23, K3, w2), tolerance = 1e-12)
  expect_equal(tval("multi_gp_cholesky_lpdf", list(Y23, LK, w2), GPT), gp_ref(Y23, K3, w2), tolerance = 1e-12)
  expect_equal(tval("multi_gp_lpdf", list(matrix(0, 0, 3), K3, numeric(0)), GPT), 0)
  r <- expect_gradient_fd("multi_gp_lpdf", list(Y23, K3, w2), GPT, c(TRUE, FALSE, TRUE))
  expect_equal(r$nodes[1], 1)
  r <- expect_gradient_linear("multi_gp_lpdf", list(Y23, K3, w2), GPT, 2, dup_matrix(3), ad = c(TRUE, TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("multi_gp_cholesky_lpdf", list(Y23, LK, w2), GPT, c(TRUE, FALSE, TRUE))
  r <- expect_gradient_linear("multi_gp_cholesky_lpdf", list(Y23, LK, w2), GPT, 2, lower_select(3),
                              ad = c(TRUE, TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  D <- 2; N <- 3
  for (fn in c("multi_gp_lpdf", "multi_gp_cholesky_lpdf")) {
    args <- list(Y23, if (fn == "multi_gp_lpdf") K3 else LK, w2)
    full <- tval(fn, args, GPT)
    p <- function(ad) unlist(tp_call(fn, args, GPT, ad, TRUE)$value)
    expect_equal(p(c(FALSE, FALSE, FALSE)), 0)
    expect_equal(full - p(c(TRUE, FALSE, FALSE)), -D * N / 2 * log(2 * pi) - D / 2 * ldet(K3) + N / 2 * sum(log(w2)),
                 tolerance = 1e-12)
    expect_equal(full - p(c(FALSE, TRUE, FALSE)), -D * N / 2 * log(2 * pi) + N / 2 * sum(log(w2)), tolerance = 1e-12)
    expect_equal(full - p(c(FALSE, FALSE, TRUE)), -D * N / 2 * log(2 * pi) - D / 2 * ldet(K3), tolerance = 1e-12)
  }
})

test_that("multi_gp_lpdf and multi_gp_cholesky_lpdf: Stan's errors", {
  expect_error(tp_call("multi_gp_lpdf", list(Y23, K3, c(1, -1)), GPT),
               "multi_gp_lpdf: Kernel scales\\[2\\] is -1, but must be positive finite!")
  expect_error(tp_call("multi_gp_lpdf", list(Y23, K3, 1), GPT),
               "Size of random variable \\(rows y\\) \\(2\\) and Size of kernel scales \\(w\\) \\(1\\) must match in size")
  expect_error(tp_call("multi_gp_lpdf", list(Y23, diag(2), w2), GPT),
               "Size of random variable \\(3\\) and rows of covariance parameter \\(2\\)")
  expect_error(tp_call("multi_gp_lpdf", list(Y23, diag(c(1, 0, 1)), w2), GPT),
               "multi_gp_lpdf: LDLT_Factor of Sigma is not positive definite", class = "tapestry_domain_error")
  expect_error(tp_call("multi_gp_lpdf", list(Y23, K3 + outer(1:3, 0:2) * 0.1, w2), GPT), "Kernel is not symmetric")
  expect_error(tp_call("multi_gp_lpdf", list(Y23 * NaN, K3, w2), GPT), "Random variable\\[1\\] is nan")
  expect_error(tp_call("multi_gp_cholesky_lpdf", list(Y23, K3, w2), GPT),
               "multi_gp_cholesky_lpdf: Cholesky decomposition of kernel matrix is not lower triangular")
  expect_error(tp_call("multi_gp_cholesky_lpdf", list(Y23, -diag(3), w2), GPT),
               "Cholesky decomposition of kernel matrix\\[1\\] is -1, but must be positive!")
  expect_error(tp_call("multi_gp_cholesky_lpdf", list(Y23, t(chol(K3))[, 1:2], w2), GPT), "Expecting a square matrix")
})

# ---- lkj_cov ----

test_that("lkj_cov_lpdf: values, gradients, propto", {
  fn <- "lkj_cov_lpdf"
  expect_equal(tval(fn, list(Cv3, mu3, sg3, 2.5), LKT), lkj_cov_ref(Cv3, mu3, sg3, 2.5), tolerance = 1e-12)
  # eta = 1: the same value, whatever the diagonal (Stan would refuse a diagonal that is not 1 there)
  expect_equal(tval(fn, list(Cv3, mu3, sg3, 1), LKT), lkj_cov_ref(Cv3, mu3, sg3, 1), tolerance = 1e-12)
  r <- expect_gradient_fd(fn, list(Cv3, mu3, sg3, 2.5), LKT, c(FALSE, TRUE, TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  r <- expect_gradient_linear(fn, list(Cv3, mu3, sg3, 2.5), LKT, 1, dup_matrix(3), ad = c(TRUE, TRUE, TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  args <- list(Cv3, mu3, sg3, 2.5)
  full <- tval(fn, args, LKT)
  p <- function(ad) unlist(tp_call(fn, args, LKT, ad, TRUE)$value)
  s <- sqrt(diag(Cv3)); R <- Cv3 / outer(s, s)
  lkjc <- lkj_cov_ref(diag(3), c(0, 0, 0), c(1, 1, 1), 2.5) - sum(dlnorm(1, 0, 1, log = TRUE) * 3)
  expect_equal(p(c(FALSE, FALSE, FALSE, FALSE)), 0)
  expect_equal(full - p(c(TRUE, FALSE, FALSE, FALSE)), -3 * log(sqrt(2 * pi)) - sum(log(sg3)) + lkjc, tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, FALSE, FALSE, TRUE)), sum(dlnorm(s, mu3, sg3, log = TRUE)), tolerance = 1e-12)
  expect_equal(full - p(c(FALSE, TRUE, FALSE, FALSE)),
               -3 * log(sqrt(2 * pi)) - sum(log(sg3)) - sum(log(s)) + lkjc + 1.5 * ldet(R), tolerance = 1e-12)
})

test_that("lkj_cov_lpdf: Stan's errors", {
  fn <- "lkj_cov_lpdf"
  expect_error(tp_call(fn, list(Cv3, mu3, sg3, 0), LKT), "lkj_cov_lpdf: Shape parameter is 0, but must be positive!")
  expect_error(tp_call(fn, list(Cv3, mu3, sg3[1:2], 1), LKT),
               "Rows of location parameter \\(3\\) and columns of scale parameter \\(2\\) must match in size")
  expect_error(tp_call(fn, list(Cv3, mu3, c(1, -1, 1), 1), LKT),
               "lognormal_lpdf: Scale parameter is -1, but must be positive finite!")
  expect_error(tp_call(fn, list(Cv3, c(Inf, 0, 0), sg3, 1), LKT), "lkj_cov_lpdf: Location parameter\\[1\\] is inf")
  expect_error(tp_call(fn, list(diag(c(1, -1, 1)), mu3, sg3, 1), LKT), "lognormal_lpdf: Random variable is nan")
  expect_error(tp_call(fn, list(matrix(c(1, 2, 0, 2, 1, 0, 0, 0, 1), 3), mu3, sg3, 1), LKT),
               "lkj_corr_lpdf: Correlation matrix is not positive definite")
})

# ---- wishart family ----

test_that("wishart and inv_wishart densities: values against the closed forms", {
  expect_equal(tval("wishart_lpdf", list(W3, 5.3, Sc3), MRM), wis_ref(W3, 5.3, Sc3), tolerance = 1e-12)
  expect_equal(tval("inv_wishart_lpdf", list(W3, 5.3, Sc3), MRM), iwis_ref(W3, 5.3, Sc3), tolerance = 1e-12)
  expect_equal(tval("wishart_lpdf", list(W3, 4, Sc3), c("matrix", "int", "matrix")), wis_ref(W3, 4, Sc3),
               tolerance = 1e-12)
  # the Cholesky forms are the densities of the factor: the Jacobian of L -> L L'
  expect_equal(tval("wishart_cholesky_lpdf", list(LW3, 5.3, LS3), MRM), wis_ref(W3, 5.3, Sc3) + chol_jac(LW3),
               tolerance = 1e-12)
  expect_equal(tval("inv_wishart_cholesky_lpdf", list(LW3, 5.3, LS3), MRM), iwis_ref(W3, 5.3, Sc3) + chol_jac(LW3),
               tolerance = 1e-12)
  # 1 x 1: wishart is a scaled chi-square, inv_wishart a scaled inverse chi-square
  expect_equal(tval("wishart_lpdf", list(matrix(2.2), 3.5, matrix(1.3)), MRM),
               dgamma(2.2, 3.5 / 2, 1 / (2 * 1.3), log = TRUE), tolerance = 1e-12)
  expect_equal(tval("inv_wishart_lpdf", list(matrix(2.2), 3.5, matrix(1.3)), MRM),
               dgamma(1 / 2.2, 3.5 / 2, 1.3 / 2, log = TRUE) - 2 * log(2.2), tolerance = 1e-12)
})

test_that("wishart family: gradients in every argument, one node", {
  for (fn in c("wishart_lpdf", "inv_wishart_lpdf")) {
    args <- list(W3, 5.3, Sc3)
    r <- expect_gradient_fd(fn, args, MRM, c(FALSE, TRUE, FALSE))
    expect_equal(r$nodes[1], 1)
    for (i in c(1, 3)) {
      r <- expect_gradient_linear(fn, args, MRM, i, dup_matrix(3), ad = c(TRUE, TRUE, TRUE))
      expect_equal(r$nodes[1], 1)
      G <- matrix(r$jacobian[[i]], 3, 3)
      expect_equal(G, t(G), tolerance = 1e-12)
    }
  }
  for (fn in c("wishart_cholesky_lpdf", "inv_wishart_cholesky_lpdf")) {
    args <- list(LW3, 5.3, LS3)
    expect_gradient_fd(fn, args, MRM, c(FALSE, TRUE, FALSE))
    for (i in c(1, 3)) {
      r <- expect_gradient_linear(fn, args, MRM, i, lower_select(3), ad = c(TRUE, TRUE, TRUE))
      expect_equal(r$nodes[1], 1)
    }
  }
})

test_that("wishart family: propto drops exactly Stan's terms", {
  nu <- 5.3; k <- 3
  p <- function(fn, args, ad) unlist(tp_call(fn, args, MRM, ad, TRUE)$value)
  a <- list(W3, nu, Sc3); full <- tval("wishart_lpdf", a, MRM)
  expect_equal(p("wishart_lpdf", a, c(FALSE, FALSE, FALSE)), 0)
  expect_equal(full - p("wishart_lpdf", a, c(TRUE, FALSE, FALSE)),
               -nu * k / 2 * log(2) - lmg(k, nu / 2) - nu / 2 * ldet(Sc3), tolerance = 1e-12)
  expect_equal(full - p("wishart_lpdf", a, c(FALSE, FALSE, TRUE)),
               -nu * k / 2 * log(2) - lmg(k, nu / 2) + (nu - k - 1) / 2 * ldet(W3), tolerance = 1e-12)
  expect_equal(full - p("wishart_lpdf", a, c(FALSE, TRUE, FALSE)), -0.5 * sum(diag(solve(Sc3, W3))), tolerance = 1e-12)
  full <- tval("inv_wishart_lpdf", a, MRM)
  expect_equal(full - p("inv_wishart_lpdf", a, c(TRUE, FALSE, FALSE)),
               -lmg(k, nu / 2) + nu / 2 * ldet(Sc3) - nu * k / 2 * log(2), tolerance = 1e-12)
  expect_equal(full - p("inv_wishart_lpdf", a, c(FALSE, TRUE, FALSE)), -0.5 * sum(diag(solve(W3, Sc3))),
               tolerance = 1e-12)
  expect_equal(full - p("inv_wishart_lpdf", a, c(FALSE, FALSE, TRUE)), -lmg(k, nu / 2), tolerance = 1e-12)
  for (fn in c("wishart_cholesky_lpdf", "inv_wishart_cholesky_lpdf")) {
    a <- list(LW3, nu, LS3); full <- tval(fn, a, MRM)
    expect_equal(p(fn, a, c(FALSE, FALSE, FALSE)), 0)
    expect_equal(full - p(fn, a, c(TRUE, FALSE, FALSE)), k * log(2) * (1 - nu / 2) - lmg(k, nu / 2), tolerance = 1e-12)
    expect_equal(full - p(fn, a, c(FALSE, FALSE, TRUE)), k * log(2) * (1 - nu / 2) - lmg(k, nu / 2), tolerance = 1e-12)
    expect_equal(full - p(fn, a, c(FALSE, TRUE, FALSE)), 0, tolerance = 1e-12)
  }
  for (fn in c("wishart_lpdf", "inv_wishart_lpdf")) {
    g <- function(propto) tp_call(fn, list(W3, nu, Sc3), MRM, c(TRUE, TRUE, TRUE), propto)$jacobian
    expect_equal(g(TRUE), g(FALSE), tolerance = 1e-14)
  }
})

test_that("wishart family: Stan's errors", {
  expect_error(tp_call("wishart_lpdf", list(W3, 2, Sc3), MRM),
               "wishart_lpdf: Degrees of freedom parameter is 2, but must be greater than 2")
  expect_error(tp_call("wishart_lpdf", list(W3, 5, diag(2)), MRM),
               "wishart_lpdf: Rows of random variable \\(3\\) and columns of scale parameter \\(2\\) must match in size")
  expect_error(tp_call("wishart_lpdf", list(W3 + outer(1:3, 0:2), 5, Sc3), MRM),
               "wishart_lpdf: random variable is not symmetric")
  expect_error(tp_call("wishart_lpdf", list(diag(c(1, -1, 1)), 5, Sc3), MRM),
               "wishart_lpdf: LDLT_Factor of random variable is not positive definite", class = "tapestry_domain_error")
  expect_error(tp_call("inv_wishart_lpdf", list(W3, 5, diag(c(1, 0, 1))), MRM),
               "inv_wishart_lpdf: LDLT_Factor of scale parameter is not positive definite")
  expect_error(tp_call("inv_wishart_lpdf", list(W3, 1.5, Sc3), MRM),
               "inv_wishart_lpdf: Degrees of freedom parameter is 1.5, but must be greater than 2")
  expect_error(tp_call("wishart_cholesky_lpdf", list(W3, 5, LS3), MRM),
               "wishart_cholesky_lpdf: random variable is not lower triangular")
  expect_error(tp_call("wishart_cholesky_lpdf", list(LW3, 5, -LS3), MRM),
               "wishart_cholesky_lpdf: scale parameter\\[1\\] is .*, but must be positive!")
  expect_error(tp_call("inv_wishart_cholesky_lpdf", list(LW3, 5, t(LS3)), MRM),
               "inv_wishart_cholesky_lpdf: Cholesky Scale matrix is not lower triangular")
  expect_error(tp_call("inv_wishart_cholesky_lpdf", list(LW3, 5, diag(2)), MRM),
               "side length of random variable \\(3\\) and side length of scale parameter \\(2\\) must match in size")
})

# ---- gaussian_dlm_obs ----

# The Kalman filter written out in R (Stan's recursion, V a matrix or the diagonal as a vector)
dlm_ref <- function(y, F, G, V, W, m0, C0) {
  r <- nrow(y); if (is.null(dim(V))) V <- diag(V, r)
  m <- m0; C <- C0; lp <- 0
  for (t in seq_len(ncol(y))) {
    a <- G %*% m; R <- G %*% C %*% t(G) + W
    Q <- t(F) %*% R %*% F + V; e <- y[, t] - t(F) %*% a
    lp <- lp - 0.5 * (r * log(2 * pi) + ldet(Q) + sum(e * solve(Q, e)))
    A <- R %*% F %*% solve(Q); m <- a + A %*% e; C <- R - A %*% Q %*% t(A)
  }
  as.numeric(lp)
}
dl_y <- matrix(rnorm(8), 2); dl_F <- matrix(rnorm(6), 3); dl_G <- matrix(rnorm(9) * 0.5, 3)
dl_V <- spd(2); dl_v <- c(0.5, 1.3); dl_W <- spd(3) * 0.3; dl_m0 <- rnorm(3); dl_C0 <- spd(3)
DLT <- c("matrix", "matrix", "matrix", "matrix", "matrix", "vector", "matrix")
DLTv <- replace(DLT, 4, "vector")
dl_args <- list(dl_y, dl_F, dl_G, dl_V, dl_W, dl_m0, dl_C0)
dl_argsv <- replace(dl_args, 4, list(dl_v))

test_that("gaussian_dlm_obs_lpdf: values against a Kalman filter in R, both forms", {
  fn <- "gaussian_dlm_obs_lpdf"
  expect_equal(tval(fn, dl_args, DLT), do.call(dlm_ref, dl_args), tolerance = 1e-12)
  expect_equal(tval(fn, dl_argsv, DLTv), do.call(dlm_ref, dl_argsv), tolerance = 1e-12)
  # a diagonal V: the sequential filter gives the multivariate one's value
  expect_equal(tval(fn, replace(dl_args, 4, list(diag(dl_v))), DLT), tval(fn, dl_argsv, DLTv), tolerance = 1e-12)
  # one state, one series, W = 0 (positive semi-definite): a static mean observed with noise
  y1 <- matrix(c(0.3, -0.2, 1.1), 1)
  Sig <- 0.7 + diag(0.5, 3)
  expect_equal(tval(fn, list(y1, matrix(1), matrix(1), matrix(0.5), matrix(0), 0.2, matrix(0.7)), DLT),
               mvn_ref(as.numeric(y1), rep(0.2, 3), Sig), tolerance = 1e-12)
  expect_equal(tval(fn, list(y1, matrix(1), matrix(1), 0.5, matrix(0), 0.2, matrix(0.7)), DLTv),
               mvn_ref(as.numeric(y1), rep(0.2, 3), Sig), tolerance = 1e-12)
  expect_equal(tval(fn, replace(dl_args, 1, list(matrix(0, 2, 0))), DLT), 0)
})

test_that("gaussian_dlm_obs_lpdf: gradients in all seven arguments, one node", {
  fn <- "gaussian_dlm_obs_lpdf"
  r <- expect_gradient_fd(fn, dl_args, DLT, c(TRUE, TRUE, TRUE, FALSE, FALSE, TRUE, FALSE))
  expect_equal(r$nodes[1], 1)
  r <- expect_gradient_fd(fn, dl_argsv, DLTv, c(TRUE, TRUE, TRUE, TRUE, FALSE, TRUE, FALSE))
  expect_equal(r$nodes[1], 1)
  for (i in c(5, 7)) {
    expect_gradient_linear(fn, dl_args, DLT, i, dup_matrix(3), ad = rep(TRUE, 7))
    r <- expect_gradient_linear(fn, dl_argsv, DLTv, i, dup_matrix(3), ad = rep(TRUE, 7))
    G <- matrix(r$jacobian[[i]], 3, 3)
    expect_equal(G, t(G), tolerance = 1e-12)
  }
  r <- expect_gradient_linear(fn, dl_args, DLT, 4, dup_matrix(2), ad = rep(TRUE, 7))
  expect_equal(r$nodes[1], 1)
  # propto drops only the 2 pi term, and only when something is autodiff
  p <- function(ad) unlist(tp_call(fn, dl_args, DLT, ad, TRUE)$value)
  expect_equal(p(rep(FALSE, 7)), 0)
  expect_equal(tval(fn, dl_args, DLT) - p(c(FALSE, FALSE, TRUE, FALSE, FALSE, FALSE, FALSE)), -8 / 2 * log(2 * pi),
               tolerance = 1e-12)
})

test_that("gaussian_dlm_obs_lpdf: Stan's errors", {
  fn <- "gaussian_dlm_obs_lpdf"
  expect_error(tp_call(fn, replace(dl_args, 2, list(matrix(1, 3, 3))), DLT),
               "gaussian_dlm_obs_lpdf: columns of F \\(3\\) and rows of y \\(2\\) must match in size")
  expect_error(tp_call(fn, replace(dl_args, 6, list(c(0, 0))), DLT), "size of m0 \\(2\\) and rows of G \\(3\\)")
  expect_error(tp_call(fn, replace(dl_argsv, 4, list(c(1, 1, 1))), DLTv), "size of V \\(3\\) and rows of y \\(2\\)")
  expect_error(tp_call(fn, replace(dl_args, 1, list(dl_y * NA)), DLT), "gaussian_dlm_obs_lpdf: y\\[1\\] is nan")
  expect_error(tp_call(fn, replace(dl_args, 4, list(diag(c(1, -1)))), DLT),
               "gaussian_dlm_obs_lpdf: V is not positive semi-definite", class = "tapestry_domain_error")
  expect_error(tp_call(fn, replace(dl_args, 5, list(dl_W + outer(1:3, 0:2))), DLT), "W is not symmetric")
  expect_error(tp_call(fn, replace(dl_argsv, 4, list(c(1, -1))), DLTv), "V\\[2\\] is -1, but must be nonnegative!")
  expect_error(tp_call(fn, replace(dl_args, 7, list(diag(c(1, 0, 1)))), DLT), "C0 is not positive definite")
  expect_error(tp_call(fn, replace(dl_args, 6, list(c(Inf, 0, 0))), DLT), "m0\\[1\\] is inf")
})

# ---- _rng ----

N_DR <- 20000
ks_ok <- function(x, pfun, label) {
  p <- suppressWarnings(ks.test(x, pfun)$p.value)
  expect_true(p > 1e-3, label = sprintf("%s: KS p-value %.3g", label, p))
}

test_that("multi_student_t_rng and multi_student_t_cholesky_rng: mean, covariance, t margins", {
  Sigma <- matrix(c(4, 1.2, -0.6, 1.2, 1, 0.3, -0.6, 0.3, 2), 3)
  mu <- c(1, -2, 10); nu <- 6; L <- t(chol(Sigma))
  for (fn in c("multi_student_t_rng", "multi_student_t_cholesky_rng")) {
    S <- if (fn == "multi_student_t_rng") Sigma else L
    x <- do.call(rbind, tp_rng(fn, list(nu, mu, S), c("real", "vector", "matrix"), N_DR, seed = 5))
    expect_equal(dim(x), c(N_DR, 3))
    V <- Sigma * nu / (nu - 2)
    expect_true(all(abs(colMeans(x) - mu) < 4.5 * sqrt(diag(V) / N_DR)), label = paste(fn, "mean"))
    expect_true(all(abs(cov(x) - V) < 0.15 * sqrt(outer(diag(V), diag(V)))), label = paste(fn, "covariance"))
    ks_ok((x[, 1] - mu[1]) / 2, function(q) pt(q, nu), paste(fn, "margin 1"))
    ks_ok((x[, 2] + x[, 3] - 8) / sqrt(1 + 2 + 2 * 0.3), function(q) pt(q, nu), paste(fn, "margin 2 + 3"))
  }
  # arrays of locations: an array of vectors, one per location (one mixing draw per call, as Stan)
  locs <- list(c(0, 0, 0), c(100, 100, 100))
  x <- tp_call("multi_student_t_rng", list(5, locs, Sigma * 1e-10), c("real", "array[] vector", "matrix"), seed = 1)$value
  expect_length(x, 2)
  expect_equal(x[[2]], c(100, 100, 100), tolerance = 1e-3)
  x <- tp_call("multi_student_t_cholesky_rng", list(5, locs, L), c("real", "array[] row_vector", "matrix"), seed = 1)$value
  expect_length(x, 2)
  x <- tp_call("multi_student_t_cholesky_rng", list(5, mu, L), c("real", "row_vector", "matrix"), seed = 1)$value
  expect_length(x, 3)
  expect_error(tp_call("multi_student_t_rng", list(-1, mu, Sigma), c("real", "vector", "matrix")),
               "multi_student_t_rng: Degrees of freedom parameter is -1, but must be positive!")
  expect_error(tp_call("multi_student_t_rng", list(3, mu, diag(c(1, -1, 1))), c("real", "vector", "matrix")),
               "multi_student_t_rng: covariance matrix argument is not positive definite")
  expect_error(tp_call("multi_student_t_cholesky_rng", list(3, mu, t(L)), c("real", "vector", "matrix")),
               "multi_student_t_cholesky_rng: L matrix is not lower triangular")
  expect_error(tp_call("multi_student_t_cholesky_rng", list(3, mu[1:2], L), c("real", "vector", "matrix")),
               "Size of random variable \\(2\\) and rows of scale parameter \\(3\\) must match in size")
  expect_error(tp_call("multi_student_t_rng", list(3, c(Inf, 0, 0), Sigma), c("real", "vector", "matrix")),
               "Location parameter\\[1\\] is inf")
  expect_error(tp_call("multi_student_t_rng", list(Inf, mu, Sigma), c("real", "vector", "matrix")),
               "multi_student_t_rng: Degrees of freedom parameter is inf, but must be finite!")
  expect_error(tp_call("multi_student_t_cholesky_rng", list(Inf, mu, L), c("real", "vector", "matrix")),
               "inv_gamma_rng: Shape parameter is inf, but must be positive finite!")
})

test_that("wishart_rng, wishart_cholesky_rng: E[W] = nu S and chi-square diagonals", {
  S <- matrix(c(2, 0.5, -0.3, 0.5, 1, 0.2, -0.3, 0.2, 1.5), 3); nu <- 5.5; LS <- t(chol(S))
  se <- sqrt(nu * (S^2 + outer(diag(S), diag(S))) / N_DR)
  W <- tp_rng("wishart_rng", list(nu, S), c("real", "matrix"), N_DR, seed = 3)
  expect_true(all(sapply(W, function(w) isSymmetric(w))))
  M <- Reduce(`+`, W) / N_DR
  expect_true(all(abs(M - nu * S) < 4.5 * se), label = "wishart_rng mean")
  ks_ok(sapply(W, function(w) w[1, 1]) / S[1, 1], function(q) pchisq(q, nu), "wishart_rng W[1,1] / S[1,1]")
  ks_ok(sapply(W, function(w) w[3, 3]) / S[3, 3], function(q) pchisq(q, nu), "wishart_rng W[3,3] / S[3,3]")
  Lw <- tp_rng("wishart_cholesky_rng", list(nu, LS), c("real", "matrix"), N_DR, seed = 3)
  expect_true(all(sapply(Lw, function(l) all(l[upper.tri(l)] == 0) && all(diag(l) > 0))))
  W2 <- lapply(Lw, function(l) l %*% t(l))
  M <- Reduce(`+`, W2) / N_DR
  expect_true(all(abs(M - nu * S) < 4.5 * se), label = "wishart_cholesky_rng mean")
  ks_ok(sapply(W2, function(w) w[2, 2]) / S[2, 2], function(q) pchisq(q, nu), "wishart_cholesky_rng W[2,2]")
  expect_error(tp_call("wishart_rng", list(1.5, S), c("real", "matrix")),
               "wishart_rng: degrees of freedom > dims - 1 is 1.5, but must be greater than 2")
  expect_error(tp_call("wishart_rng", list(4, matrix(1, 3, 2)), c("real", "matrix")), "Expecting a square matrix")
  for (f in c("wishart_rng", "wishart_cholesky_rng"))
    expect_error(tp_call(f, list(Inf, LS), c("real", "matrix")),
                 "chi_square_rng: Degrees of freedom parameter is inf, but must be positive finite!")
  expect_error(tp_call("wishart_cholesky_rng", list(4, S), c("real", "matrix")),
               "wishart_cholesky_rng: scale parameter is not lower triangular")
})

test_that("inv_wishart_rng, inv_wishart_cholesky_rng: E[W] = S / (nu - k - 1), inverse gamma diagonals", {
  S <- matrix(c(2, 0.5, -0.3, 0.5, 1, 0.2, -0.3, 0.2, 1.5), 3); nu <- 9; k <- 3; LS <- t(chol(S))
  pinvg <- function(s) function(q) pgamma(s / (2 * q), (nu - k + 1) / 2, lower.tail = FALSE)
  W <- tp_rng("inv_wishart_rng", list(nu, S), c("real", "matrix"), N_DR, seed = 8)
  expect_true(all(sapply(W, function(w) isSymmetric(w))))
  chk <- function(W, label) {
    M <- Reduce(`+`, W) / N_DR
    sdv <- sqrt(Reduce(`+`, lapply(W, function(w) (w - M)^2)) / N_DR)
    expect_true(all(abs(M - S / (nu - k - 1)) < 4.5 * sdv / sqrt(N_DR)), label = paste(label, "mean"))
    ks_ok(sapply(W, function(w) w[1, 1]), pinvg(S[1, 1]), paste(label, "W[1,1]"))
    ks_ok(sapply(W, function(w) w[3, 3]), pinvg(S[3, 3]), paste(label, "W[3,3]"))
  }
  chk(W, "inv_wishart_rng")
  Lw <- tp_rng("inv_wishart_cholesky_rng", list(nu, LS), c("real", "matrix"), N_DR, seed = 8)
  expect_true(all(sapply(Lw, function(l) all(l[upper.tri(l)] == 0) && all(diag(l) > 0))))
  chk(lapply(Lw, function(l) l %*% t(l)), "inv_wishart_cholesky_rng")
  expect_error(tp_call("inv_wishart_rng", list(2, S), c("real", "matrix")),
               "inv_wishart_rng: degrees of freedom > dims - 1 is 2, but must be greater than 2")
  expect_error(tp_call("inv_wishart_rng", list(5, diag(c(1, -1, 1))), c("real", "matrix")),
               "inv_wishart_rng: scale parameter is not positive definite")
  expect_error(tp_call("inv_wishart_cholesky_rng", list(5, diag(c(1, -1, 1))), c("real", "matrix")),
               "inv_wishart_cholesky_rng: Cholesky Scale matrix\\[2\\] is -1, but must be positive!")
})

test_that("the same seed gives the same draws", {
  S <- diag(3) + 0.3
  for (f in c("wishart_rng", "inv_wishart_rng", "wishart_cholesky_rng", "inv_wishart_cholesky_rng")) {
    arg <- if (grepl("cholesky", f)) t(chol(S)) else S
    a <- tp_rng(f, list(4.5, arg), c("real", "matrix"), 20, seed = 2)
    expect_identical(a, tp_rng(f, list(4.5, arg), c("real", "matrix"), 20, seed = 2))
    expect_false(identical(a, tp_rng(f, list(4.5, arg), c("real", "matrix"), 20, seed = 3)))
  }
})

# ---- programs: tree and plan agree, and the gradient matches finite differences ----

fd_check_model <- function(ctx, u) {
  g <- ctx$grad_log_prob(u)
  fd <- fd_jac(function(x) ctx$log_prob(x), u)
  expect_equal(as.numeric(g), as.numeric(fd), tolerance = 1e-6)
}

test_that("programs with the multivariate densities: tree and plan agree", {
  progs <- list(
    "data { int N; array[N] vector[3] y; }
     parameters { vector[3] mu; cholesky_factor_cov[3] L; real<lower=1> nu; }
     model {
       matrix[3, 3] Omega = multiply_lower_tri_self_transpose(L);
       y ~ multi_normal_prec(mu, Omega);
       target += multi_normal_prec_lpdf(y[1] | mu, Omega);
       y ~ multi_student_t_cholesky(nu, mu, L);
       target += multi_student_t_cholesky_lpdf(y | nu, mu, L);
     }",
    "data { matrix[3, 3] S; }
     parameters { cov_matrix[3] W; cholesky_factor_cov[3] LW; real<lower=3> nu; }
     model {
       W ~ wishart(nu, S);
       target += inv_wishart_lpdf(W | nu + 1, S);
       LW ~ wishart_cholesky(nu, cholesky_decompose(S));
       target += inv_wishart_cholesky_lpdf(LW | nu, cholesky_decompose(W));
     }",
    "data { matrix[2, 3] Y; }
     parameters { cov_matrix[3] K; vector<lower=0>[2] w; vector[3] m; vector<lower=0>[3] s; }
     model {
       Y ~ multi_gp(K, w);
       target += multi_gp_cholesky_lpdf(Y | cholesky_decompose(K), w);
       K ~ lkj_cov(m, s, 2.0);
       m ~ normal(0, 1);
       s ~ lognormal(0, 1);
     }",
    "data { matrix[2, 4] y; matrix[3, 2] F; matrix[3, 3] G; vector[3] m0; }
     parameters { cholesky_factor_cov[3] LW; cholesky_factor_cov[2] LV; vector<lower=0>[2] v; cov_matrix[3] C0; }
     model {
       matrix[3, 3] W = multiply_lower_tri_self_transpose(LW);
       y ~ gaussian_dlm_obs(F, G, multiply_lower_tri_self_transpose(LV), W, m0, C0);
       target += gaussian_dlm_obs_lpdf(y | F, G, v, W, m0, C0);
       v ~ exponential(1);
     }")
  datas <- list(list(N = 3, y = ys), list(S = Sc3), list(Y = Y23), list(y = dl_y, F = dl_F, G = dl_G, m0 = dl_m0))
  for (i in seq_along(progs)) {
    m <- tapestry_model(code = progs[[i]])
    ctx <- m$bind(datas[[i]])
    set.seed(20 + i)
    pts <- points_for(ctx, k = 3, sd = 0.3)
    r <- both_paths(ctx, pts)
    expect_true(all(vapply(r$tree, is.numeric, TRUE)), label = paste("program", i, "evaluates"))
    expect_identical(r$plan, r$tree)
    fd_check_model(ctx, pts[[2]])
  }
})

test_that("programs: `~` and `target += ..._lpdf` differ by exactly the constants Stan drops", {
  nu <- 5.3; k <- 3; L <- L3
  cases <- list(
    list(data = "data { matrix[3, 3] S; real nu; }", pars = "parameters { cov_matrix[3] W; }",
         tilde = "W ~ wishart(nu, S);", plus = "target += wishart_lpdf(W | nu, S);",
         d = list(S = Sc3, nu = nu), const = -nu * k / 2 * log(2) - lmg(k, nu / 2) - nu / 2 * ldet(Sc3)),
    list(data = "data { matrix[3, 3] S; real nu; }", pars = "parameters { cholesky_factor_cov[3] L; }",
         tilde = "L ~ inv_wishart_cholesky(nu, S);", plus = "target += inv_wishart_cholesky_lpdf(L | nu, S);",
         d = list(S = LS3, nu = nu), const = k * log(2) * (1 - nu / 2) - lmg(k, nu / 2)),
    list(data = "data { matrix[3, 3] L; vector[3] mu; }", pars = "parameters { vector[3] y; }",
         tilde = "y ~ multi_student_t_cholesky(4.5, mu, L);",
         plus = "target += multi_student_t_cholesky_lpdf(y | 4.5, mu, L);",
         d = list(L = L, mu = mu1),
         const = -1.5 * log(pi) + lgamma(7.5 / 2) - lgamma(4.5 / 2) - 1.5 * log(4.5) - sum(log(diag(L)))),
    list(data = "data { matrix[2, 4] y; matrix[3, 2] F; matrix[3, 3] G; vector[2] v; matrix[3, 3] W; matrix[3, 3] C0; }",
         pars = "parameters { vector[3] m0; }",
         tilde = "y ~ gaussian_dlm_obs(F, G, v, W, m0, C0);", plus = "target += gaussian_dlm_obs_lpdf(y | F, G, v, W, m0, C0);",
         d = list(y = dl_y, F = dl_F, G = dl_G, v = dl_v, W = dl_W, C0 = dl_C0), const = -4 * log(2 * pi)))
  for (cs in cases) {
    a <- tapestry_model(code = paste(cs$data, cs$pars, "model {", cs$tilde, "}"))$bind(cs$d)
    b <- tapestry_model(code = paste(cs$data, cs$pars, "model {", cs$plus, "}"))$bind(cs$d)
    set.seed(5)
    for (u in points_for(a, k = 2, sd = 0.3))
      expect_equal(b$log_prob(u) - a$log_prob(u), cs$const, tolerance = 1e-10, label = cs$tilde)
  }
})
