# Masses of the discrete families (prob/tm_beta_neg_binomial.c, tm_yule_simon.c,
# tm_hypergeometric.c, tm_dirichlet_multinomial.c, tm_binomial.c):
# beta_neg_binomial, yule_simon, hypergeometric, dirichlet_multinomial,
# binomial_logit_glm; ordered_probit (tm_ordered.c) with one location for many
# cut-point vectors.

int_type <- function(x) if (length(x) == 1L) "int" else "array[] int"
tp_type <- function(x) if (length(x) == 1L) "real" else "vector"

bnb <- function(n, r, a, b) lbeta(n + r, a + b) - lbeta(r, a) + lgamma(n + b) - lgamma(n + 1) - lgamma(b)
ys <- function(n, a) log(a) + lbeta(n, a + 1)

test_that("beta_neg_binomial_lpmf and yule_simon_lpmf: values, gradients, propto", {
  for (args in list(list(3L, 2, 3, 1.5), list(c(0L, 4L, 70L), 1.5, 2.5, 4), list(6L, c(1, 3), c(2, 5), c(0.7, 2)),
                    list(c(2L, 100L), c(0.3, 8), 0.9, c(50, 0.2)))) {
    ty <- c(int_type(args[[1]]), vapply(args[-1], tp_type, ""))
    expect_equal(tval("beta_neg_binomial_lpmf", args, ty), sum(do.call(bnb, args)), tolerance = 1e-12)
    r <- expect_gradient_fd("beta_neg_binomial_lpmf", args, ty)
    expect_equal(r$nodes[1], 1)
    expect_equal(tval("beta_neg_binomial_lpmf", args, ty, propto = TRUE), 0)
  }
  for (args in list(list(3L, 2.5), list(c(1L, 4L, 90L), 0.7), list(5L, c(1, 6)), list(c(2L, 3L), c(0.01, 300)))) {
    ty <- c(int_type(args[[1]]), tp_type(args[[2]]))
    expect_equal(tval("yule_simon_lpmf", args, ty), sum(do.call(ys, args)), tolerance = 1e-12)
    r <- expect_gradient_fd("yule_simon_lpmf", args, ty)
    expect_equal(r$nodes[1], 1)
  }
  # propto: beta_neg_binomial drops -lgamma(n + 1), and with only r a parameter
  # the beta terms; yule_simon drops lgamma(n)
  n <- c(0L, 4L, 7L)
  a <- list(n, 2, 3, 1.5); ty <- c("array[] int", "real", "real", "real")
  pr <- tp_call("beta_neg_binomial_lpmf", a, ty, c(FALSE, TRUE, FALSE, FALSE), TRUE)$value
  expect_equal(pr, sum(lbeta(n + 2, 4.5) - lbeta(2, 3)), tolerance = 1e-13)
  pr <- tp_call("beta_neg_binomial_lpmf", a, ty, c(FALSE, TRUE, TRUE, TRUE), TRUE)$value
  expect_equal(pr, tval("beta_neg_binomial_lpmf", a, ty) + sum(lgamma(n + 1)), tolerance = 1e-13)
  n <- c(1L, 4L, 7L)
  pr <- tp_call("yule_simon_lpmf", list(n, 2.5), c("array[] int", "real"), c(FALSE, TRUE), TRUE)$value
  expect_equal(pr, tval("yule_simon_lpmf", list(n, 2.5), c("array[] int", "real")) - sum(lgamma(n)), tolerance = 1e-13)
  # the masses sum to one (far enough out) and agree with the cdfs
  k <- 0:400
  p <- exp(bnb(k, 3, 4, 2))
  expect_equal(exp(tval("beta_neg_binomial_lcdf", list(20L, 3, 4, 2), c("int", "real", "real", "real"))),
               sum(p[k <= 20]), tolerance = 1e-12)
  expect_equal(exp(tval("yule_simon_lcdf", list(9L, 2.5), c("int", "real"))), sum(exp(ys(1:9, 2.5))), tolerance = 1e-12)
  # errors
  expect_error(tp_call("yule_simon_lpmf", list(0L, 1), c("int", "real")),
               "yule_simon_lpmf: Outcome variable is 0, but must be greater than or equal to 1")
  expect_error(tp_call("beta_neg_binomial_lpmf", list(-1L, 1, 1, 1), c("int", "real", "real", "real")),
               "beta_neg_binomial_lpmf: Failures variable is -1, but must be nonnegative!")
  expect_error(tp_call("beta_neg_binomial_lpmf", list(1L, 1, 1, Inf), c("int", "real", "real", "real")),
               "beta_neg_binomial_lpmf: Prior failure parameter is inf, but must be positive finite!")
})

test_that("hypergeometric_lpmf equals dhyper; Stan's checks", {
  ty <- rep("int", 4)
  for (a in list(c(2L, 5L, 4L, 6L), c(0L, 3L, 2L, 9L), c(4L, 4L, 4L, 0L)))
    expect_equal(tval("hypergeometric_lpmf", as.list(a), ty), dhyper(a[1], a[3], a[4], a[2], log = TRUE),
                 tolerance = 1e-13)
  expect_equal(tval("hypergeometric_lpmf", list(2L, 5L, 4L, 6L), ty, propto = TRUE), 0)
  expect_error(tp_call("hypergeometric_lpmf", list(5L, 5L, 4L, 6L), ty),
               "hypergeometric_lpmf: Successes variable is 5, but must be in the interval \\[0, 4\\]")
  expect_error(tp_call("hypergeometric_lpmf", list(2L, 1L, 4L, 6L), ty),
               "hypergeometric_lpmf: Draws parameter is 1, but must be greater than or equal to 2")
  expect_error(tp_call("hypergeometric_lpmf", list(1L, 9L, 4L, 6L), ty),
               "Draws parameter minus successes variable is 8, but must be in the interval \\[0, 6\\]")
})

test_that("dirichlet_multinomial_lpmf: value, gradient, propto, errors", {
  ref <- function(n, a) {
    N <- sum(n); if (N == 0) return(0)
    lgamma(sum(a)) + lgamma(N + 1) - lgamma(N + sum(a)) + sum(lgamma(n + a) - lgamma(a) - lgamma(n + 1))
  }
  for (case in list(list(c(1L, 0L, 3L), c(0.5, 1, 2)), list(c(10L, 20L), c(3, 0.2)), list(c(0L, 0L), c(1, 2)))) {
    ty <- c("array[] int", "vector")
    expect_equal(tval("dirichlet_multinomial_lpmf", case, ty), ref(case[[1]], case[[2]]), tolerance = 1e-12)
    r <- expect_gradient_fd("dirichlet_multinomial_lpmf", case, ty)
    expect_equal(r$nodes[1], 1)
  }
  n <- c(1L, 0L, 3L); a <- c(0.5, 1, 2)
  pr <- tp_call("dirichlet_multinomial_lpmf", list(n, a), c("array[] int", "vector"), c(FALSE, TRUE), TRUE)$value
  expect_equal(pr, ref(n, a) - (log(4) - log(3)), tolerance = 1e-13)
  expect_equal(tval("dirichlet_multinomial_lpmf", list(n, a), c("array[] int", "vector"), propto = TRUE), 0)
  expect_error(tp_call("dirichlet_multinomial_lpmf", list(c(1L, -1L), c(1, 1)), c("array[] int", "vector")),
               "Number of trials variable\\[2\\] is -1, but must be nonnegative!")
  expect_error(tp_call("dirichlet_multinomial_lpmf", list(c(1L, 1L), c(1, 0)), c("array[] int", "vector")),
               "Prior size parameter\\[2\\] is 0, but must be positive finite!")
  expect_error(tp_call("dirichlet_multinomial_lpmf", list(c(1L, 1L), c(1, 1, 1)), c("array[] int", "vector")),
               "must match in size")
})

test_that("binomial_logit_glm_lpmf equals binomial_logit of alpha + x beta", {
  set.seed(3)
  x <- matrix(rnorm(8), 4, 2); be <- c(0.4, -0.7); al <- c(0.1, -0.2, 0.3, 0.5)
  N <- c(5L, 3L, 8L, 2L); n <- c(2L, 0L, 8L, 1L)
  ref <- function(n, N, x, al, be) {
    th <- as.vector(al + x %*% be)
    sum(dbinom(n, N, plogis(th), log = TRUE))
  }
  ty <- c("array[] int", "array[] int", "matrix", "vector", "vector")
  a <- list(n, N, x, al, be)
  expect_equal(tval("binomial_logit_glm_lpmf", a, ty), ref(n, N, x, al, be), tolerance = 1e-12)
  r <- expect_gradient_fd("binomial_logit_glm_lpmf", a, ty)
  expect_equal(r$nodes[1], 1)
  # scalar intercept, scalar N, row_vector x shared by all outcomes
  a <- list(n, 9L, x, 0.3, be); ty2 <- c("array[] int", "int", "matrix", "real", "vector")
  expect_equal(tval("binomial_logit_glm_lpmf", a, ty2), ref(n, 9L, x, 0.3, be), tolerance = 1e-12)
  expect_gradient_fd("binomial_logit_glm_lpmf", a, ty2)
  a <- list(n, N, t(x[1, ]), al, be); ty3 <- c("array[] int", "array[] int", "row_vector", "vector", "vector")
  expect_equal(tval("binomial_logit_glm_lpmf", a, ty3), ref(n, N, matrix(x[1, ], 4, 2, byrow = TRUE), al, be),
               tolerance = 1e-12)
  expect_gradient_fd("binomial_logit_glm_lpmf", a, ty3)
  # propto drops the binomial coefficients
  a <- list(n, N, x, al, be)
  pr <- tp_call("binomial_logit_glm_lpmf", a, ty, c(FALSE, FALSE, FALSE, TRUE, TRUE), TRUE)$value
  expect_equal(pr, ref(n, N, x, al, be) - sum(lchoose(N, n)), tolerance = 1e-12)
  expect_equal(tval("binomial_logit_glm_lpmf", a, ty, propto = TRUE), 0)
  expect_error(tp_call("binomial_logit_glm_lpmf", list(c(2L, 4L, 0L, 0L), N, x, al, be), ty),
               "binomial_logit_glm_lpmf: Successes variable\\[2\\] is 4, but must be in the interval \\[0, 3\\]")
  expect_error(tp_call("binomial_logit_glm_lpmf", list(n, N, x, al, c(1, 2, 3)), ty), "Weight vector")
  expect_error(tp_call("binomial_logit_glm_lpmf", list(n, N, x, al, c(Inf, 1)), ty),
               "binomial_logit_glm_lpmf: Weight vector\\[1\\] is inf, but must be finite!")
})

test_that("ordered_probit_lpmf with one location and a cut-point vector per outcome", {
  y <- c(1L, 3L, 2L)
  cuts <- list(c(-1, 0.5), c(-0.3, 0.2), c(0, 2))
  ref <- sum(mapply(function(k, cc) { b <- c(-Inf, cc, Inf); log(pnorm(b[k + 1] - 0.4) - pnorm(b[k] - 0.4)) }, y, cuts))
  ty <- c("array[] int", "real", "array[] vector")
  a <- list(y, 0.4, cuts)
  expect_equal(tval("ordered_probit_lpmf", a, ty), ref, tolerance = 1e-12)
  expect_gradient_fd("ordered_probit_lpmf", a, ty)
})
