# More densities and masses (src/math/prob/tm_<family>.c): values against R,
# gradients against finite differences, one node per call, propto, and Stan's
# argument errors.

tp_type <- function(x) if (length(x) == 1L) "real" else "vector"

ref2 <- list(
  gumbel_lpdf = function(y, mu, b) { z <- (y - mu) / b; -log(b) - z - exp(-z) },
  pareto_lpdf = function(y, m, a) ifelse(y < m, -Inf, log(a) + a * log(m) - (a + 1) * log(y)),
  frechet_lpdf = function(y, a, s) log(a) + a * log(s) - (1 + a) * log(y) - (y / s)^(-a),
  rayleigh_lpdf = function(y, s) log(y) - 2 * log(s) - y^2 / (2 * s^2),
  chi_square_lpdf = function(y, nu) dchisq(y, nu, log = TRUE),
  inv_chi_square_lpdf = function(y, nu) dchisq(1 / y, nu, log = TRUE) - 2 * log(y),
  scaled_inv_chi_square_lpdf = function(y, nu, s)
    nu / 2 * log(nu / 2) - lgamma(nu / 2) + nu * log(s) - (nu / 2 + 1) * log(y) - nu * s^2 / (2 * y),
  skew_normal_lpdf = function(y, xi, om, al)
    log(2) + dnorm(y, xi, om, log = TRUE) + pnorm(al * (y - xi) / om, log.p = TRUE),
  exp_mod_normal_lpdf = function(y, mu, s, l)
    log(l) + l * (mu - y) + l^2 * s^2 / 2 + pnorm((y - mu) / s - l * s, log.p = TRUE),
  von_mises_lpdf = function(y, mu, k) k * cos(y - mu) - log(2 * pi) - (log(besselI(k, 0, TRUE)) + k),
  beta_proportion_lpdf = function(y, mu, k) dbeta(y, mu * k, (1 - mu) * k, log = TRUE)
)

pts2 <- list(
  gumbel_lpdf = list(list(0.5, -1, 2), list(c(1, 20, -3), 0, 1.5), list(2, c(0, 1), c(1, 3))),
  pareto_lpdf = list(list(1.5, 0.7, 2), list(c(1.1, 2, 30), 1, 0.5), list(2, c(0.5, 1.5), c(1, 3))),
  frechet_lpdf = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 5), 3, 2), list(2, c(0.5, 4), c(1, 3))),
  rayleigh_lpdf = list(list(1.5, 0.7), list(c(0.1, 1, 3), 2), list(2, c(0.5, 4))),
  chi_square_lpdf = list(list(1.5, 3), list(c(0.1, 1, 30), 4.5), list(2, c(0.5, 40))),
  inv_chi_square_lpdf = list(list(1.5, 3), list(c(0.1, 1, 30), 4.5), list(0.2, c(0.5, 40))),
  scaled_inv_chi_square_lpdf = list(list(1.5, 3, 0.5), list(c(0.1, 1, 30), 4.5, 2), list(0.2, c(0.5, 40), c(1, 0.3))),
  skew_normal_lpdf = list(list(0.5, -1, 2, 1.5), list(c(1, 4, -3), 0, 1.5, -2), list(2, c(0, 1), c(1, 3), c(0, 30))),
  exp_mod_normal_lpdf = list(list(0.5, -1, 2, 1.5), list(c(1, 4, -3), 0, 1.5, 0.3), list(2, c(0, 1), c(1, 3), c(0.2, 5))),
  von_mises_lpdf = list(list(0.5, -1, 2), list(c(1, 2, -3), 0, 0.01), list(2, c(0, 1), c(60, 3)), list(0.3, 0.1, 200)),
  beta_proportion_lpdf = list(list(0.3, 0.4, 5), list(c(0.1, 0.5, 0.95), 0.2, 3), list(0.6, c(0.5, 0.9), c(1, 30)))
)

test_that("continuous densities equal R's, gradients match, one node per call", {
  for (fn in names(pts2)) for (args in pts2[[fn]]) {
    ty <- vapply(args, tp_type, "")
    expect_equal(tval(fn, args, ty), sum(do.call(ref2[[fn]], args)), tolerance = 1e-12, label = fn)
    r <- expect_gradient_fd(fn, args, ty)
    expect_equal(r$nodes[1], 1)
    ad1 <- seq_along(args) == 1
    expect_gradient_fd(fn, args, ty, ad1)
    # propto keeps the full partials and drops only constant terms
    rp <- tp_call(fn, args, ty, rep(TRUE, length(args)), propto = TRUE)
    for (i in seq_along(args)) expect_equal(rp$jacobian[[i]], r$jacobian[[i]], tolerance = 1e-13)
    expect_equal(tval(fn, args, ty, propto = TRUE), 0)
  }
})

test_that("constants dropped under propto", {
  y <- c(0.5, 1.2); a <- list(y, 0.3, 2, 1.5)
  full <- tval("skew_normal_lpdf", a, c("vector", "real", "real", "real"))
  pr <- tp_call("skew_normal_lpdf", a, c("vector", "real", "real", "real"), c(TRUE, TRUE, TRUE, TRUE), TRUE)$value
  expect_equal(pr, full - 2 * (log(2) - 0.5 * log(2 * pi)), tolerance = 1e-14)
  pr <- tp_call("chi_square_lpdf", list(y, 3), c("vector", "real"), c(TRUE, FALSE), TRUE)$value
  expect_equal(pr, sum((3 / 2 - 1) * log(y) - y / 2), tolerance = 1e-14)
  pr <- tp_call("von_mises_lpdf", list(y, 0.2, 3), c("vector", "real", "real"), c(FALSE, TRUE, FALSE), TRUE)$value
  expect_equal(pr, sum(3 * cos(y - 0.2)), tolerance = 1e-14)
})

test_that("continuous edge cases and errors", {
  expect_identical(tval("pareto_lpdf", list(0.5, 1, 2), rep("real", 3)), -Inf)
  expect_identical(tval("inv_chi_square_lpdf", list(-1, 2), rep("real", 2)), -Inf)
  expect_equal(tval("skew_normal_lpdf", list(-30, 0, 1, 5), rep("real", 4)),
               log(2) + dnorm(-30, log = TRUE) + pnorm(-150, log.p = TRUE), tolerance = 1e-13)
  expect_equal(tval("von_mises_lpdf", list(0.1, 0, 0), rep("real", 3)), -log(2 * pi), tolerance = 1e-15)
  expect_error(tp_call("gumbel_lpdf", list(1, 0, -1), rep("real", 3)), "gumbel_lpdf: Scale parameter is -1, but must be positive!")
  expect_error(tp_call("frechet_lpdf", list(-1, 1, 1), rep("real", 3)), "frechet_lpdf: Random variable is -1, but must be positive!")
  expect_error(tp_call("chi_square_lpdf", list(1, -2), rep("real", 2)),
               "chi_square_lpdf: Degrees of freedom parameter is -2, but must be positive finite!")
  expect_error(tp_call("beta_proportion_lpdf", list(0.5, 1, 2), rep("real", 3)),
               "beta_proportion_lpdf: Location parameter is 1, but must be less than 1")
  expect_error(tp_call("von_mises_lpdf", list(0.5, 0, -1), rep("real", 3)),
               "von_mises_lpdf: Scale parameter is -1, but must be nonnegative!")
})

ordered_ref <- function(y, eta, cut, probit = FALSE) {
  s <- 0
  for (i in seq_along(y)) {
    ci <- if (is.list(cut)) cut[[i]] else cut
    e <- if (length(eta) == 1) eta else eta[i]
    cc <- c(-Inf, ci, Inf); k <- y[i]
    s <- s + if (probit) log(pnorm(cc[k + 1] - e) - pnorm(cc[k] - e)) else log(plogis(e - cc[k]) - plogis(e - cc[k + 1]))
  }
  s
}

test_that("ordered_logistic and ordered_probit", {
  cut <- c(-1, 0.5, 2)
  y <- c(1L, 2L, 3L, 4L, 2L); eta <- c(0.3, -0.5, 1, 2.5, 4)
  cuts <- list(cut, cut + 0.1, cut - 0.2, cut * 2, cut)
  for (fn in c("ordered_logistic_lpmf", "ordered_probit_lpmf")) {
    pr <- fn == "ordered_probit_lpmf"
    expect_equal(tval(fn, list(y, eta, cut), c("array[] int", "vector", "vector")), ordered_ref(y, eta, cut, pr),
                 tolerance = 1e-13)
    expect_equal(tval(fn, list(3L, 0.7, cut), c("int", "real", "vector")), ordered_ref(3L, 0.7, cut, pr),
                 tolerance = 1e-13)
    expect_equal(tval(fn, list(y, eta, cuts), c("array[] int", "vector", "array[] vector")),
                 ordered_ref(y, eta, cuts, pr), tolerance = 1e-13)
    for (ad in list(c(FALSE, TRUE, TRUE), c(FALSE, TRUE, FALSE), c(FALSE, FALSE, TRUE))) {
      r <- expect_gradient_fd(fn, list(y, eta, cut), c("array[] int", "vector", "vector"), ad)
      expect_equal(r$nodes[1], 1)
      expect_gradient_fd(fn, list(y, eta, cuts), c("array[] int", "vector", "array[] vector"), ad)
      expect_gradient_fd(fn, list(y, 0.4, cut), c("array[] int", "real", "vector"), ad)
    }
    # far tails stay finite
    expect_true(is.finite(tval(fn, list(1L, 40, cut), c("int", "real", "vector"))))
    expect_true(is.finite(tval(fn, list(4L, -40, cut), c("int", "real", "vector"))))
    expect_true(is.finite(tval(fn, list(2L, 45, cut), c("int", "real", "vector"))))
    expect_error(tp_call(fn, list(5L, 0.5, cut), c("int", "real", "vector")),
                 paste0(fn, ": Random variable is 5, but must be in the interval \\[1, 4\\]"))
    expect_error(tp_call(fn, list(2L, 0.5, c(1, 0, 2)), c("int", "real", "vector")),
                 paste0(fn, ": Cut-points is not a valid ordered vector. The element at 2 is 0"))
    expect_error(tp_call(fn, list(c(1L, 2L), c(0.5, 1, 2), cut), c("array[] int", "vector", "vector")),
                 paste0(fn, ": Size of Integers \\(2\\) and size of Locations \\(3\\) must match"))
  }
  expect_equal(tval("ordered_logistic_lpmf", list(2L, 45, cut), c("int", "real", "vector")),
               log(plogis(45 - 0.5, lower.tail = FALSE) - plogis(45 + 1, lower.tail = FALSE)), tolerance = 1e-12)
  expect_equal(tval("ordered_probit_lpmf", list(2L, 45, cut), c("int", "real", "vector")),
               pnorm(-44.5, log.p = TRUE) + log1p(-exp(pnorm(-46, log.p = TRUE) - pnorm(-44.5, log.p = TRUE))),
               tolerance = 1e-12)
})

test_that("beta_binomial, neg_binomial, discrete_range", {
  n <- c(0L, 3L, 10L); N <- c(10L, 10L, 12L)
  bb <- function(n, N, a, b) lchoose(N, n) + lbeta(n + a, N - n + b) - lbeta(a, b)
  expect_equal(tval("beta_binomial_lpmf", list(n, N, 2.5, 0.7), c("array[] int", "array[] int", "real", "real")),
               sum(bb(n, N, 2.5, 0.7)), tolerance = 1e-13)
  r <- expect_gradient_fd("beta_binomial_lpmf", list(n, N, c(2.5, 1, 300), 0.7),
                          c("array[] int", "array[] int", "vector", "real"))
  expect_equal(r$nodes[1], 1)
  expect_identical(tval("beta_binomial_lpmf", list(11L, 10L, 1, 1), c("int", "int", "real", "real")), -Inf)
  expect_equal(tval("neg_binomial_lpmf", list(n, 2.5, 0.7), c("array[] int", "real", "real")),
               sum(dnbinom(n, size = 2.5, prob = 0.7 / 1.7, log = TRUE)), tolerance = 1e-13)
  r <- expect_gradient_fd("neg_binomial_lpmf", list(n, c(2.5, 1e3, 0.2), 0.7), c("array[] int", "vector", "real"))
  expect_equal(r$nodes[1], 1)
  expect_equal(tval("discrete_range_lpmf", list(c(2L, 5L), 1L, 5L), c("array[] int", "int", "int")), -2 * log(5))
  expect_identical(tval("discrete_range_lpmf", list(6L, 1L, 5L), c("int", "int", "int")), -Inf)
  expect_error(tp_call("discrete_range_lpmf", list(1L, 3L, 2L), c("int", "int", "int")),
               "discrete_range_lpmf: Upper bound parameter is 2, but must be greater than or equal to 3")
  expect_error(tp_call("neg_binomial_lpmf", list(1L, -1, 1), c("int", "real", "real")),
               "neg_binomial_lpmf: Shape parameter is -1, but must be positive finite!")
  expect_error(tp_call("beta_binomial_lpmf", list(1L, 3L, 1, 0), c("int", "int", "real", "real")),
               "beta_binomial_lpmf: Second prior sample size parameter is 0, but must be positive finite!")
})

test_that("multinomial and multinomial_logit", {
  y <- c(3L, 0L, 5L); th <- c(0.2, 0.3, 0.5); g <- c(0.1, -1, 2)
  expect_equal(tval("multinomial_lpmf", list(y, th), c("array[] int", "vector")), dmultinom(y, prob = th, log = TRUE),
               tolerance = 1e-13)
  expect_equal(tval("multinomial_logit_lpmf", list(y, g), c("array[] int", "vector")),
               dmultinom(y, prob = exp(g) / sum(exp(g)), log = TRUE), tolerance = 1e-13)
  r <- expect_gradient_fd("multinomial_logit_lpmf", list(y, g), c("array[] int", "vector"))
  expect_equal(r$nodes[1], 1)
  r <- tp_call("multinomial_lpmf", list(y, th), c("array[] int", "vector"), c(FALSE, TRUE))
  expect_equal(as.numeric(r$jacobian[[2]]), y / th)
  pr <- tp_call("multinomial_lpmf", list(y, th), c("array[] int", "vector"), c(FALSE, TRUE), TRUE)$value
  expect_equal(pr, sum(y * log(th)), tolerance = 1e-14)
  expect_error(tp_call("multinomial_lpmf", list(y, c(0.2, 0.3, 0.6)), c("array[] int", "vector")),
               "multinomial_lpmf: Probabilities parameter is not a valid simplex")
  expect_error(tp_call("multinomial_lpmf", list(c(1L, -1L, 0L), th), c("array[] int", "vector")),
               "multinomial_lpmf: Number of trials variable\\[2\\] is -1, but must be nonnegative!")
  expect_error(tp_call("multinomial_logit_lpmf", list(y, c(1, 2)), c("array[] int", "vector")),
               "multinomial_logit_lpmf: Size of number of trials variable \\(3\\) and size of probabilities parameter \\(2\\)")
})

test_that("lkj_corr_lpdf: value from the constant and the determinant, gradients", {
  R <- matrix(c(1, 0.3, -0.2, 0.3, 1, 0.4, -0.2, 0.4, 1), 3)
  lkj_c <- function(eta, K) {
    s <- 0
    for (i in 1:(K - 1)) s <- s + (2 * eta - 2 + K - i) * (K - i) * log(2) +
      (K - i) * lbeta(eta + (K - i - 1) / 2, eta + (K - i - 1) / 2)
    -s
  }
  # the normaliser of Lewandowski, Kurowicka and Joe (2009)
  for (eta in c(0.5, 1, 2.5)) {
    v <- tval("lkj_corr_lpdf", list(R, eta), c("matrix", "real"))
    expect_equal(v - (eta - 1) * log(det(R)), lkj_c(eta, 3), tolerance = 1e-12)
  }
  L <- t(chol(R))
  # lkj_corr(R) = lkj_corr_cholesky(L) minus the log Jacobian of L -> L L'
  expect_equal(tval("lkj_corr_lpdf", list(R, 2.5), c("matrix", "real")),
               tval("lkj_corr_cholesky_lpdf", list(L, 2.5), c("matrix", "real")) - sum((3 - 1:3) * log(diag(L))),
               tolerance = 1e-12)
  r <- expect_gradient_linear("lkj_corr_lpdf", list(R, 2.5), c("matrix", "real"), 1,
                              dup_matrix(3)[, -c(1, 4, 6)], ad = c(TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("lkj_corr_lpdf", list(R, 2.5), c("matrix", "real"), c(FALSE, TRUE))
  expect_equal(tp_call("lkj_corr_lpdf", list(R, 2.5), c("matrix", "real"), c(TRUE, FALSE), TRUE)$value,
               1.5 * log(det(R)), tolerance = 1e-13)
  Rb <- R; Rb[2, 2] <- 1.1
  expect_error(tp_call("lkj_corr_lpdf", list(Rb, 2), c("matrix", "real")),
               "lkj_corr_lpdf: Correlation matrix is not a valid correlation matrix. Correlation matrix\\(2,2\\) is 1.1")
  expect_error(tp_call("lkj_corr_lpdf", list(R, -1), c("matrix", "real")),
               "lkj_corr_lpdf: Shape parameter is -1, but must be positive!")
})

test_that("multi_student_t_lpdf", {
  set.seed(5)
  S <- crossprod(matrix(rnorm(9), 3)) + diag(3)
  mu <- c(0.1, -0.3, 1); y1 <- c(0.5, 0.2, -1); y2 <- c(1, 1, 1)
  mst <- function(y, nu, mu, S) {
    K <- length(y); r <- y - mu; q <- sum(r * solve(S, r))
    lgamma((nu + K) / 2) - lgamma(nu / 2) - K / 2 * log(nu * pi) - 0.5 * log(det(S)) - (nu + K) / 2 * log1p(q / nu)
  }
  expect_equal(tval("multi_student_t_lpdf", list(y1, 4.5, mu, S), c("vector", "real", "vector", "matrix")),
               mst(y1, 4.5, mu, S), tolerance = 1e-13)
  expect_equal(tval("multi_student_t_lpdf", list(list(y1, y2), 4.5, mu, S), c("array[] vector", "real", "vector", "matrix")),
               mst(y1, 4.5, mu, S) + mst(y2, 4.5, mu, S), tolerance = 1e-13)
  ty <- c("array[] vector", "real", "vector", "matrix")
  r <- expect_gradient_fd("multi_student_t_lpdf", list(list(y1, y2), 4.5, mu, S), ty, c(TRUE, TRUE, TRUE, FALSE))
  expect_equal(r$nodes[1], 1)
  expect_gradient_linear("multi_student_t_lpdf", list(list(y1, y2), 4.5, mu, S), ty, 4, dup_matrix(3))
  expect_error(tp_call("multi_student_t_lpdf", list(y1, -1, mu, S), c("vector", "real", "vector", "matrix")),
               "multi_student_t_lpdf: Degrees of freedom parameter is -1")
  expect_error(tp_call("multi_student_t_lpdf", list(y1, 3, mu, -S), c("vector", "real", "vector", "matrix")),
               "multi_student_t_lpdf: Scale parameter is not positive definite.")
  expect_error(tp_call("multi_student_t_lpdf", list(y1, 3, c(1, 2), S), c("vector", "real", "vector", "matrix")),
               "multi_student_t_lpdf: Size of random variable \\(3\\) and size of location parameter \\(2\\)")
})

test_that("normal_id_glm_lpdf and poisson_log_glm_lpmf equal their densities of alpha + x beta", {
  set.seed(9)
  X <- matrix(rnorm(8), 4, 2); be <- c(0.5, -0.3); al <- 0.2; alv <- c(0.1, 0, -0.2, 0.3)
  y <- rnorm(4); s <- 1.3; sv <- c(1, 2, 0.5, 1.5); k <- c(0L, 3L, 1L, 7L)
  eta <- as.numeric(al + X %*% be)
  ty <- c("vector", "matrix", "real", "vector", "real")
  expect_equal(tval("normal_id_glm_lpdf", list(y, X, al, be, s), ty), sum(dnorm(y, eta, s, log = TRUE)), tolerance = 1e-13)
  expect_equal(tval("normal_id_glm_lpdf", list(y, X, alv, be, sv), c("vector", "matrix", "vector", "vector", "vector")),
               sum(dnorm(y, as.numeric(alv + X %*% be), sv, log = TRUE)), tolerance = 1e-13)
  expect_equal(tval("normal_id_glm_lpdf", list(y, X[1, ], al, be, s), c("vector", "row_vector", "real", "vector", "real")),
               sum(dnorm(y, sum(X[1, ] * be) + al, s, log = TRUE)), tolerance = 1e-13)
  r <- expect_gradient_fd("normal_id_glm_lpdf", list(y, X, al, be, s), ty)
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("normal_id_glm_lpdf", list(y, X, alv, be, sv), c("vector", "matrix", "vector", "vector", "vector"))
  expect_gradient_fd("normal_id_glm_lpdf", list(y[1], X[1, ], al, be, s), c("real", "row_vector", "real", "vector", "real"))
  pr <- tp_call("normal_id_glm_lpdf", list(y, X, al, be, s), ty, c(FALSE, FALSE, TRUE, TRUE, FALSE), TRUE)$value
  expect_equal(pr, sum(-0.5 * ((y - eta) / s)^2), tolerance = 1e-13)
  tk <- c("array[] int", "matrix", "real", "vector")
  expect_equal(tval("poisson_log_glm_lpmf", list(k, X, al, be), tk), sum(dpois(k, exp(eta), log = TRUE)), tolerance = 1e-13)
  r <- expect_gradient_fd("poisson_log_glm_lpmf", list(k, X, alv, be), c("array[] int", "matrix", "vector", "vector"))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("poisson_log_glm_lpmf", list(k, X[2, ], al, be), c("array[] int", "row_vector", "real", "vector"))
  pr <- tp_call("poisson_log_glm_lpmf", list(k, X, al, be), tk, c(FALSE, FALSE, TRUE, TRUE), TRUE)$value
  expect_equal(pr, sum(k * eta - exp(eta)), tolerance = 1e-13)
  expect_error(tp_call("normal_id_glm_lpdf", list(y[1:3], X, al, be, s), ty),
               "normal_id_glm_lpdf: Vector of dependent variables has dimension = 3, expecting dimension = 4")
  expect_error(tp_call("normal_id_glm_lpdf", list(y, X, al, be, -1), ty),
               "normal_id_glm_lpdf: Scale vector is -1, but must be positive finite!")
  expect_error(tp_call("poisson_log_glm_lpmf", list(c(1L, -1L, 0L, 2L), X, al, be), tk),
               "poisson_log_glm_lpmf: Vector of dependent variables\\[2\\] is -1, but must be nonnegative!")
  expect_error(tp_call("poisson_log_glm_lpmf", list(k, X, al, c(1, 2, 3)), tk),
               "poisson_log_glm_lpmf: Weight vector has dimension = 3, expecting dimension = 2")
})
