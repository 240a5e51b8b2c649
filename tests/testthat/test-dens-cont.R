# Univariate continuous densities (src/math/prob/tm_<family>.c): values against
# R's own densities, gradients against finite differences, the constants
# dropped under propto, one node per vectorized call, and Stan's errors.

tp_type <- function(x) if (length(x) == 1L) "real" else "vector"
types_of <- function(args) vapply(args, tp_type, "")

# Log density summed over the broadcast, from R's functions.
ref <- list(
  normal_lpdf = function(y, mu, s) dnorm(y, mu, s, log = TRUE),
  std_normal_lpdf = function(y) dnorm(y, log = TRUE),
  student_t_lpdf = function(y, nu, mu, s) dt((y - mu) / s, nu, log = TRUE) - log(s),
  cauchy_lpdf = function(y, mu, s) dcauchy(y, mu, s, log = TRUE),
  double_exponential_lpdf = function(y, mu, s) -log(2 * s) - abs(y - mu) / s,
  logistic_lpdf = function(y, mu, s) dlogis(y, mu, s, log = TRUE),
  lognormal_lpdf = function(y, mu, s) dlnorm(y, mu, s, log = TRUE),
  exponential_lpdf = function(y, b) dexp(y, b, log = TRUE),
  gamma_lpdf = function(y, a, b) dgamma(y, a, rate = b, log = TRUE),
  inv_gamma_lpdf = function(y, a, b) dgamma(1 / y, a, rate = b, log = TRUE) - 2 * log(y),
  weibull_lpdf = function(y, a, s) dweibull(y, a, scale = s, log = TRUE),
  beta_lpdf = function(y, a, b) dbeta(y, a, b, log = TRUE),
  uniform_lpdf = function(y, a, b) dunif(y, a, b, log = TRUE)
)
ref_sum <- function(fn, args) sum(do.call(ref[[fn]], args))

# Stan Math's summands: each with the arguments it depends on.  Under propto
# a summand is dropped when none of them is autodiff.
term <- function(deps, f) list(deps = deps, f = f)
l2pi <- 0.5 * log(2 * pi)
terms <- list(
  normal_lpdf = list(term(integer(), function(y, mu, s) -l2pi + 0 * y),
                     term(3, function(y, mu, s) -log(s)),
                     term(1:3, function(y, mu, s) -0.5 * ((y - mu) / s)^2)),
  std_normal_lpdf = list(term(integer(), function(y) -l2pi + 0 * y),
                         term(1, function(y) -0.5 * y^2)),
  student_t_lpdf = list(term(integer(), function(y, nu, mu, s) -0.5 * log(pi) + 0 * y),
                        term(2, function(y, nu, mu, s) lgamma(nu / 2 + 0.5) - lgamma(nu / 2) - 0.5 * log(nu)),
                        term(4, function(y, nu, mu, s) -log(s)),
                        term(1:4, function(y, nu, mu, s) -(nu / 2 + 0.5) * log1p(((y - mu) / s)^2 / nu))),
  cauchy_lpdf = list(term(integer(), function(y, mu, s) -log(pi) + 0 * y),
                     term(3, function(y, mu, s) -log(s)),
                     term(1:3, function(y, mu, s) -log1p(((y - mu) / s)^2))),
  double_exponential_lpdf = list(term(integer(), function(y, mu, s) -log(2) + 0 * y),
                                 term(3, function(y, mu, s) -log(s)),
                                 term(1:3, function(y, mu, s) -abs(y - mu) / s)),
  logistic_lpdf = list(term(3, function(y, mu, s) -log(s)),
                       term(1:3, function(y, mu, s) {
                         z <- (y - mu) / s
                         -z - 2 * log1p(exp(-z))
                       })),
  lognormal_lpdf = list(term(integer(), function(y, mu, s) -l2pi + 0 * y),
                        term(1:3, function(y, mu, s) -0.5 * ((log(y) - mu) / s)^2),
                        term(3, function(y, mu, s) -log(s)),
                        term(1, function(y, mu, s) -log(y))),
  exponential_lpdf = list(term(2, function(y, b) log(b)),
                          term(1:2, function(y, b) -b * y)),
  gamma_lpdf = list(term(2, function(y, a, b) -lgamma(a)),
                    term(2:3, function(y, a, b) a * log(b)),
                    term(1:2, function(y, a, b) (a - 1) * log(y)),
                    term(c(1, 3), function(y, a, b) -b * y)),
  inv_gamma_lpdf = list(term(2, function(y, a, b) -lgamma(a)),
                        term(2:3, function(y, a, b) a * log(b)),
                        term(1:2, function(y, a, b) -(a + 1) * log(y)),
                        term(c(1, 3), function(y, a, b) -b / y)),
  weibull_lpdf = list(term(1:3, function(y, a, s) -(y / s)^a),
                      term(2, function(y, a, s) log(a)),
                      term(1:2, function(y, a, s) (a - 1) * log(y)),
                      term(2:3, function(y, a, s) -a * log(s))),
  beta_lpdf = list(term(2, function(y, a, b) -lgamma(a)),
                   term(3, function(y, a, b) -lgamma(b)),
                   term(1:2, function(y, a, b) (a - 1) * log(y)),
                   term(c(1, 3), function(y, a, b) (b - 1) * log1p(-y)),
                   term(2:3, function(y, a, b) lgamma(a + b))),
  uniform_lpdf = list(term(2:3, function(y, a, b) -log(b - a)))
)
# Sum of the summands dropped when `ad` marks the autodiff arguments.
dropped <- function(fn, args, ad) {
  N <- max(lengths(args))
  s <- 0
  for (t in terms[[fn]])
    if (!any(ad[t$deps])) s <- s + sum(rep_len(do.call(t$f, args), N))
  s
}

# Points inside the support, scalars and vectors mixed (broadcasting).
points <- list(
  normal_lpdf = list(list(0.3, -0.2, 1.5), list(c(1, 2.5, -3), 0.5, 2),
                     list(c(0.1, 2, -1), c(0, 1, 2), c(0.5, 1, 3)), list(4, c(1, -1), 0.25)),
  std_normal_lpdf = list(list(0.7), list(c(-3, 0, 2.5, 8))),
  student_t_lpdf = list(list(0.5, 3, 0.1, 2), list(c(1, -2, 7), 0.5, 0, 1.3),
                        list(c(1, 2), c(2, 5), c(0, 1), c(1, 2)), list(0.4, c(1, 30), -0.3, 0.7)),
  cauchy_lpdf = list(list(0.5, -1, 2), list(c(1, 20, -3), 0, 0.5), list(2, c(0, 1), c(1, 3))),
  double_exponential_lpdf = list(list(0.5, -1, 2), list(c(1, 20, -3), 0, 0.5), list(2, c(0, 1), c(1, 3))),
  logistic_lpdf = list(list(0.5, -1, 2), list(c(1, 20, -3), 0, 0.5), list(2, c(0, 1), c(1, 3))),
  lognormal_lpdf = list(list(1.5, 0.2, 0.8), list(c(0.1, 1, 30), -0.5, 1.2), list(2, c(0, 1), c(1, 3))),
  exponential_lpdf = list(list(0.5, 2), list(c(0.01, 1, 30), 0.3), list(2, c(0.5, 4))),
  gamma_lpdf = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 20), 3, 0.5), list(2, c(0.5, 4), c(1, 3))),
  inv_gamma_lpdf = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 20), 3, 0.5), list(2, c(0.5, 4), c(1, 3))),
  weibull_lpdf = list(list(1.5, 2.5, 0.7), list(c(0.1, 1, 5), 3, 2), list(2, c(0.5, 4), c(1, 3))),
  beta_lpdf = list(list(0.3, 2, 3), list(c(0.1, 0.5, 0.95), 0.5, 1.5), list(0.6, c(0.5, 4), c(1, 3))),
  uniform_lpdf = list(list(0.3, -1, 2), list(c(0.1, 0.5, 0.9), 0, 1), list(c(0.1, 0.2), c(0, 0.15), c(0.5, 1)))
)

test_that("values equal R's densities (log = TRUE)", {
  for (fn in names(points)) for (p in points[[fn]]) {
    v <- tval(fn, p, types_of(p))
    expect_equal(v, ref_sum(fn, p), tolerance = 1e-12, label = paste(fn, deparse(p)))
    # the summand list used for the propto tests adds up to the density
    expect_equal(dropped(fn, p, rep(FALSE, length(p))), ref_sum(fn, p), tolerance = 1e-12,
                 label = paste(fn, "summands"))
  }
})

test_that("every container type and int arguments are accepted", {
  y <- c(0.3, -1, 2)
  r <- ref_sum("normal_lpdf", list(y, 1, 2))
  for (ty in c("vector", "row_vector", "array[] real"))
    expect_equal(tval("normal_lpdf", list(y, 1, 2), c(ty, "real", "real")), r, tolerance = 1e-14)
  expect_equal(tval("normal_lpdf", list(2L, 1L, 3L), c("int", "int", "int")),
               dnorm(2, 1, 3, log = TRUE), tolerance = 1e-14)
  expect_equal(tval("exponential_lpdf", list(c(0L, 3L, 5L), 2L), c("array[] int", "int")),
               sum(dexp(c(0, 3, 5), 2, log = TRUE)), tolerance = 1e-14)
  # an autodiff real argument next to int data
  g <- tp_call("normal_lpdf", list(2L, 0.5, 3L), c("int", "real", "int"), c(FALSE, TRUE, FALSE))
  expect_equal(g$jacobian[[2]][1, 1], (2 - 0.5) / 9, tolerance = 1e-14)
  expect_error(tp_call("normal_lpdf", list(matrix(1, 2, 2), 0, 1), c("matrix", "real", "real")),
               "normal_lpdf: argument 1 has type matrix")
})

test_that("student_t with large nu agrees with R up to lgamma cancellation", {
  # Stan's formula takes lgamma(nu/2 + 1/2) - lgamma(nu/2): digits lost ~ log10(nu)
  for (nu in c(1e3, 1e6)) {
    p <- list(c(0.3, -1.2), nu, 0.1, 1.5)
    expect_equal(tval("student_t_lpdf", p, types_of(p)), ref_sum("student_t_lpdf", p),
                 tolerance = 1e-14 * nu)
  }
})

# Gradient points: interior ones plus edges (tiny and huge scales and shapes,
# y near the boundary of the support, large degrees of freedom).
grad_points <- list(
  normal_lpdf = list(list(c(1e-4, -2e-4), 0, 1e-3), list(c(5, -3), 1, 1e4)),
  std_normal_lpdf = list(list(-30), list(c(1e-3, -2e-3))),
  student_t_lpdf = list(list(c(0.1, -0.2), 0.05, 0, 1e-2), list(c(0.3, 1.2), 1e6, 0.2, 1.5),
                        list(c(300, -100), 2, 1, 1e4)),
  cauchy_lpdf = list(list(c(2e-3, -1e-3), 0, 1e-3), list(c(100, -200), 3, 1e4)),
  double_exponential_lpdf = list(list(c(2e-3, -1e-3), 0, 1e-3), list(c(50, -30), 1, 1e4)),
  logistic_lpdf = list(list(c(2e-3, -1e-3), 0, 1e-3), list(c(800, -800), 0, 1), list(c(5, -3), 1, 1e4)),
  lognormal_lpdf = list(list(c(1e-2, 2e-2), -4, 1e-2), list(c(1e3, 1e5), 8, 30)),
  exponential_lpdf = list(list(c(1e-2, 3), 1e-3), list(c(1e-2, 2e-2), 1e4)),
  gamma_lpdf = list(list(c(1e-2, 3), 1e-3, 2), list(c(1000, 1250), 1100, 1), list(c(0.5, 2), c(1, 3), c(1e-3, 1e3))),
  inv_gamma_lpdf = list(list(c(0.05, 3), 0.01, 2), list(c(1e3, 2e3), 5, 1e4), list(c(0.5, 2), c(1e3, 3), c(1e-3, 2))),
  weibull_lpdf = list(list(c(0.01, 3), 0.05, 2), list(c(500, 1500), 30, 1e3), list(c(0.5, 2), c(1, 3), c(1e-3, 5))),
  beta_lpdf = list(list(c(1e-3, 0.5), 0.5, 0.5), list(c(0.2, 0.7), 1e3, 2e3), list(c(0.01, 0.3), c(1e-3, 2), c(3, 1e-2))),
  uniform_lpdf = list(list(c(1e-3, 0.5), -1e-3, 1e4))
)

test_that("gradients match finite differences for every argument", {
  for (fn in names(points)) {
    for (p in c(points[[fn]], grad_points[[fn]])) {
      # uniform's density is flat: perturbing y must stay inside the bounds
      expect_gradient_fd(fn, p, types_of(p), ad = rep(TRUE, length(p)))
    }
  }
})

# Central differences (one Richardson step) with step h[k] for element k of
# argument i: for points where the helper's step (at least 1e-5) would be a
# large fraction of the value or leave the support.
fd_at <- function(fn, args, i, k, h) {
  f <- function(d) { a <- args; a[[i]][k] <- a[[i]][k] + d; tval(fn, a, types_of(a)) }
  (8 * (f(h / 2) - f(-h / 2)) - (f(h) - f(-h))) / (6 * h)
}
# Every argument's gradient against fd_at with a step relative to each value
# (or to its distance from 1 for beta's y).
expect_gradient_rel <- function(fn, p, rel = 1e-2, tol = 1e-6) {
  g <- tp_call(fn, p, types_of(p), rep(TRUE, length(p)))
  for (i in seq_along(p)) for (k in seq_along(p[[i]])) {
    x <- p[[i]][k]
    h <- rel * if (fn == "beta_lpdf" && i == 1) min(x, 1 - x) else abs(x)
    fd <- fd_at(fn, p, i, k, h)
    expect_equal(g$jacobian[[i]][1, k], fd, tolerance = tol,
                 label = sprintf("%s d/d arg %d[%d] at %s", fn, i, k, deparse(p)))
  }
}

test_that("gradients at tiny scales and at the edges of the support", {
  expect_gradient_rel("beta_lpdf", list(c(0.999, 1 - 1e-6), 2, 3))
  expect_gradient_rel("beta_lpdf", list(c(1e-6, 1e-3), 0.7, 0.2))
  expect_gradient_rel("beta_lpdf", list(c(1e-8, 1 - 1e-8), 1e-6, 1e-5))
  expect_gradient_rel("normal_lpdf", list(c(3e-7, -1e-7), 1e-7, 1e-6))
  expect_gradient_rel("student_t_lpdf", list(c(3e-7, -1e-7), 1e-3, 1e-7, 1e-6))
  expect_gradient_rel("cauchy_lpdf", list(c(1e-3, -1e-3), 2e-4, 1e-4))
  expect_gradient_rel("double_exponential_lpdf", list(c(3e-7, -1e-7), 1e-7, 1e-6))
  expect_gradient_rel("logistic_lpdf", list(c(3e-7, -2e-7), 1e-7, 1e-6))
  expect_gradient_rel("lognormal_lpdf", list(c(1e-8, 3e-8), -18, 1e-3))
  expect_gradient_rel("exponential_lpdf", list(c(1e2, 3e5), 1e-6))
  expect_gradient_rel("gamma_lpdf", list(c(1e-8, 3e-8), 1e-6, 1e-6))
  expect_gradient_rel("inv_gamma_lpdf", list(c(1e-8, 3e-8), 1e-6, 1e-7))
  expect_gradient_rel("weibull_lpdf", list(c(1e-8, 3e-8), 1.5, 1e-7))
  expect_gradient_rel("weibull_lpdf", list(c(0.5, 2), 1e-6, 1))
  expect_gradient_rel("uniform_lpdf", list(c(1e-8, 3e-8), 5e-9, 4e-8))
})

test_that("propto drops exactly the summands Stan drops", {
  for (fn in names(points)) for (p in points[[fn]]) {
    k <- length(p)
    for (m in 0:(2^k - 1)) {
      ad <- as.logical(bitwAnd(m, 2^(0:(k - 1))))
      full <- tp_call(fn, p, types_of(p), ad, propto = FALSE)$value
      part <- tp_call(fn, p, types_of(p), ad, propto = TRUE)$value
      expect_equal(full - part, dropped(fn, p, ad), tolerance = 1e-12,
                   label = sprintf("%s ad=%s full - propto", fn, paste(as.integer(ad), collapse = "")))
      # the gradient is unchanged: dropped summands depend on data only
      if (any(ad)) {
        Jf <- tp_call(fn, p, types_of(p), ad, propto = FALSE)$jacobian
        Jp <- tp_call(fn, p, types_of(p), ad, propto = TRUE)$jacobian
        expect_identical(Jp, Jf, label = paste(fn, "propto gradient"))
      }
    }
  }
})

test_that("a vectorized call records one chain node", {
  set.seed(1)
  n <- 1000
  y01 <- runif(n, 0.05, 0.95)
  pos <- runif(n, 0.5, 3)
  big <- list(
    normal_lpdf = list(rnorm(n), rnorm(n), pos),
    std_normal_lpdf = list(rnorm(n)),
    student_t_lpdf = list(rnorm(n), pos, rnorm(n), pos),
    cauchy_lpdf = list(rnorm(n), rnorm(n), pos),
    double_exponential_lpdf = list(rnorm(n), rnorm(n), pos),
    logistic_lpdf = list(rnorm(n), rnorm(n), pos),
    lognormal_lpdf = list(pos, rnorm(n), pos),
    exponential_lpdf = list(pos, pos),
    gamma_lpdf = list(pos, pos, pos),
    inv_gamma_lpdf = list(pos, pos, pos),
    weibull_lpdf = list(pos, pos, pos),
    beta_lpdf = list(y01, pos, pos),
    uniform_lpdf = list(y01, rep(0, n), rep(1, n))
  )
  for (fn in names(big)) {
    p <- big[[fn]]
    r <- tp_call(fn, p, rep("vector", length(p)), rep(TRUE, length(p)))
    expect_equal(r$nodes[1], 1, label = paste(fn, "chain nodes"))
    expect_equal(r$value, ref_sum(fn, p), tolerance = 1e-12, label = paste(fn, "value"))
    # scalar parameters broadcast over the 1000-vector: still one node
    q <- c(list(p[[1]]), lapply(p[-1], `[`, 1))
    r <- tp_call(fn, q, types_of(q), rep(TRUE, length(q)))
    expect_equal(r$nodes[1], 1)
    expect_equal(r$value, ref_sum(fn, q), tolerance = 1e-12)
  }
  # data-only calls record nothing
  r <- tp_call("normal_lpdf", big$normal_lpdf, rep("vector", 3))
  expect_equal(r$nodes[1], 0)
})

test_that("outside the support the log density is -Inf, with zero gradient", {
  cases <- list(
    list("gamma_lpdf", list(c(1, -0.5), 2, 1)),
    list("inv_gamma_lpdf", list(c(1, 0), 2, 1)),
    list("weibull_lpdf", list(-1, 2, 1)),
    list("lognormal_lpdf", list(c(0, 1), 0, 1)),
    list("uniform_lpdf", list(c(0.5, 1.5), 0, 1)),
    list("uniform_lpdf", list(-0.1, 0, 1))
  )
  for (cs in cases) {
    fn <- cs[[1]]; p <- cs[[2]]
    r <- tp_call(fn, p, types_of(p), rep(TRUE, length(p)))
    expect_identical(r$value, -Inf, label = fn)
    for (J in r$jacobian) expect_true(all(J == 0), label = paste(fn, "zero gradient"))
    expect_identical(tval(fn, p, types_of(p)), -Inf)
  }
  # the bounds themselves are in the support
  expect_equal(tval("uniform_lpdf", list(c(0, 2), 0, 2), c("vector", "real", "real")), -2 * log(2))
  expect_equal(tval("exponential_lpdf", list(0, 2), c("real", "real")), log(2))
})

test_that("empty containers give 0", {
  for (fn in c("normal_lpdf", "gamma_lpdf", "beta_lpdf", "uniform_lpdf")) {
    p <- list(numeric(0), 0.5, 1)
    expect_identical(tval(fn, p, c("vector", "real", "real")), 0)
    expect_equal(tp_call(fn, p, c("vector", "real", "real"), c(TRUE, TRUE, TRUE))$value, 0)
  }
  expect_identical(tval("std_normal_lpdf", list(numeric(0)), "array[] real"), 0)
})

test_that("bad arguments give Stan's messages", {
  e <- function(fn, args, msg, class = "tapestry_domain_error") {
    expect_error(tval(fn, args, types_of(args)), msg, fixed = TRUE, class = class)
  }
  e("normal_lpdf", list(1, 0.5, -1), "normal_lpdf: Scale parameter is -1, but must be positive!")
  e("normal_lpdf", list(1, 0.5, c(1, -1)), "normal_lpdf: Scale parameter[2] is -1, but must be positive!")
  e("normal_lpdf", list(NaN, 0, 1), "normal_lpdf: Random variable is nan, but must not be nan!")
  e("normal_lpdf", list(1, Inf, 1), "normal_lpdf: Location parameter is inf, but must be finite!")
  e("normal_lpdf", list(c(1, 2), c(1, 2, 3), 1),
    "normal_lpdf: Size of Random variable (2) and size of Location parameter (3) must match in size",
    class = "tapestry_invalid_argument")
  e("normal_lpdf", list(1, c(1, 2, 3), c(1, 2)),
    "normal_lpdf: Size of Location parameter (3) and size of Scale parameter (2) must match in size",
    class = "tapestry_invalid_argument")
  e("std_normal_lpdf", list(c(0, NaN)), "std_normal_lpdf: Random variable[2] is nan")
  e("student_t_lpdf", list(1, Inf, 0, 1), "student_t_lpdf: Degrees of freedom parameter is inf, but must be positive finite!")
  e("student_t_lpdf", list(1, 3, 0, Inf), "student_t_lpdf: Scale parameter is inf, but must be positive finite!")
  e("cauchy_lpdf", list(1, 0, 0), "cauchy_lpdf: Scale parameter is 0, but must be positive finite!")
  e("double_exponential_lpdf", list(Inf, 0, 1), "double_exponential_lpdf: Random variable is inf, but must be finite!")
  e("logistic_lpdf", list(1, NaN, 1), "logistic_lpdf: Location parameter is nan, but must be finite!")
  e("lognormal_lpdf", list(-1, 0, 1), "lognormal_lpdf: Random variable is -1, but must be nonnegative!")
  e("exponential_lpdf", list(1, -2), "exponential_lpdf: Inverse scale parameter is -2, but must be positive finite!")
  e("gamma_lpdf", list(1, -1, 1), "gamma_lpdf: Shape parameter is -1, but must be positive finite!")
  e("gamma_lpdf", list(NaN, 1, 1), "gamma_lpdf: Random variable is nan, but must not be nan!")
  e("inv_gamma_lpdf", list(1, 1, 0), "inv_gamma_lpdf: Scale parameter is 0, but must be positive finite!")
  e("weibull_lpdf", list(1, 0, 1), "weibull_lpdf: Shape parameter is 0, but must be positive finite!")
  e("beta_lpdf", list(1.5, 1, 1), "beta_lpdf: Random variable is 1.5, but must be in the interval [0, 1]")
  e("beta_lpdf", list(0.5, 1, -1), "beta_lpdf: Second shape parameter is -1, but must be positive finite!")
  e("beta_lpdf", list(0.5, c(1, 0), 1), "beta_lpdf: First shape parameter[2] is 0")
  e("uniform_lpdf", list(0.5, 1, 0), "uniform_lpdf: Upper bound parameter is 0, but must be greater than 1")
  e("uniform_lpdf", list(0.5, -Inf, 0), "uniform_lpdf: Lower bound parameter is -inf, but must be finite!")
  e("uniform_lpdf", list(0.5, 0, c(1, 0)), "uniform_lpdf: Upper bound parameter[2] is 0, but must be greater than 0")
  expect_error(tval("normal_lpdf", list(1, 0), c("real", "real")), "normal_lpdf: expected 3 arguments")
})

test_that("checks run before the propto shortcut, except where Stan checks after it", {
  # all-data call under propto: normal checks first, cauchy returns 0 first
  expect_error(tp_call("normal_lpdf", list(1, 0, -1), rep("real", 3), propto = TRUE),
               "normal_lpdf: Scale parameter is -1")
  expect_identical(tp_call("cauchy_lpdf", list(1, 0, -1), rep("real", 3), propto = TRUE)$value, 0)
  expect_identical(tp_call("double_exponential_lpdf", list(1, 0, -1), rep("real", 3), propto = TRUE)$value, 0)
  expect_error(tp_call("cauchy_lpdf", list(1, 0, -1), rep("real", 3), c(TRUE, FALSE, FALSE), propto = TRUE),
               "cauchy_lpdf: Scale parameter is -1")
  # an all-data propto call of any density is 0; with data outside the support too
  expect_identical(tp_call("gamma_lpdf", list(-1, 2, 1), rep("real", 3), propto = TRUE)$value, 0)
  expect_identical(tp_call("uniform_lpdf", list(5, 0, 1), rep("real", 3), propto = TRUE)$value, 0)
})
