# wiener_lpdf's five-parameter form (prob/tm_wiener.c): drift varying between
# trials with sd sv.  Values against R: the four-parameter density by its
# series, integrated over the drift by integrate(); gradients; errors; a
# program on both paths.

# upper-boundary density of the four-parameter model, series with many terms
p4 <- function(y, a, t0, w, v) {
  t <- y - t0; w2 <- 1 - w; v2 <- -v; u <- t / a^2
  f <- if (u < 1) {
    k <- -60:60
    sum((w2 + 2 * k) * exp(-(w2 + 2 * k)^2 / (2 * u))) / sqrt(2 * pi * u^3)
  } else {
    k <- 1:200
    pi * sum(k * exp(-k^2 * pi^2 * u / 2) * sin(k * pi * w2))
  }
  exp(-v2 * a * w2 - v2^2 * t / 2) / a^2 * f
}
p5 <- function(y, a, t0, w, v, sv) {
  if (sv == 0) return(p4(y, a, t0, w, v))
  integrate(function(x) sapply(x, function(vv) p4(y, a, t0, w, vv)) * dnorm(x, v, sv), -Inf, Inf, rel.tol = 1e-12)$value
}
cases <- list(c(1.2, 1.5, 0.2, 0.4, 0.7, 0.5), c(0.35, 2, 0.1, 0.6, -1, 1.2), c(3, 1, 0.5, 0.5, 0.3, 0.1),
              c(0.9, 1, 0.2, 0.3, 0.2, 0), c(0.25, 0.8, 0.2, 0.2, 2, 2))

test_that("values equal the four-parameter density integrated over the drift", {
  for (x in cases) {
    want <- log(p5(x[1], x[2], x[3], x[4], x[5], x[6]))
    expect_equal(tval("wiener_lpdf", as.list(x), rep("real", 6)), want, tolerance = 1e-10)
    expect_equal(tval("wiener_lpdf", as.list(c(x, 1e-4)), rep("real", 7)), want, tolerance = 1e-10)
  }
  # sv = 0 is the four-parameter model (whose series Stan truncates at 1e-6)
  x <- cases[[4]]
  expect_equal(tval("wiener_lpdf", as.list(x), rep("real", 6)), tval("wiener_lpdf", as.list(x[1:5]), rep("real", 5)),
               tolerance = 1e-6)
  # vectors: the sum
  V <- do.call(rbind, cases)
  args <- lapply(1:6, function(i) V[, i])
  want <- sum(apply(V, 1, function(x) log(p5(x[1], x[2], x[3], x[4], x[5], x[6]))))
  expect_equal(tval("wiener_lpdf", args, rep("vector", 6)), want, tolerance = 1e-10)
  expect_equal(tval("wiener_lpdf", c(args, 1e-5), c(rep("vector", 6), "real")), want, tolerance = 1e-10)
})

test_that("gradients against finite differences, one node, propto", {
  for (x in cases) {
    # sv = 0 sits on its bound: its finite differences would step below it
    r <- expect_gradient_fd("wiener_lpdf", as.list(x), rep("real", 6), ad = c(rep(TRUE, 5), x[6] > 0), tol = 1e-6)
    expect_equal(r$nodes[1], 1)
  }
  V <- do.call(rbind, cases[-4])
  args <- lapply(1:6, function(i) V[, i])
  expect_gradient_fd("wiener_lpdf", args, rep("vector", 6), tol = 1e-6)
  expect_gradient_fd("wiener_lpdf", c(args, 1e-4), c(rep("vector", 6), "real"), ad = c(rep(TRUE, 6), FALSE))
  # Stan keeps every term unless all arguments are constant
  x <- as.list(cases[[1]])
  expect_equal(tval("wiener_lpdf", x, rep("real", 6), propto = TRUE), 0)
  expect_equal(tp_call("wiener_lpdf", x, rep("real", 6), c(FALSE, FALSE, FALSE, FALSE, TRUE, FALSE), TRUE)$value,
               tval("wiener_lpdf", x, rep("real", 6)), tolerance = 1e-15)
})

test_that("errors as Stan's", {
  r6 <- rep("real", 6)
  expect_error(tp_call("wiener_lpdf", list(0.1, 1, 0.2, 0.5, 0, 0), r6),
               "wiener_lpdf: Random variable  = 0.1, but must be greater than nondecision time = 0.2")
  expect_error(tp_call("wiener_lpdf", list(1, -1, 0.2, 0.5, 0, 0), r6),
               "wiener_lpdf: Boundary separation is -1, but must be positive finite!")
  expect_error(tp_call("wiener_lpdf", list(1, 1, 0.2, 1, 0, 0), r6),
               "wiener_lpdf: A-priori bias is 1, but must be less than 1")
  expect_error(tp_call("wiener_lpdf", list(1, 1, 0.2, 0, 0, 0), r6),
               "wiener_lpdf: A-priori bias is 0, but must be greater than 0")
  expect_error(tp_call("wiener_lpdf", list(1, 1, 0.2, 0.5, 0, -1), r6),
               "wiener_lpdf: Inter-trial variability in drift rate is -1, but must be nonnegative!")
  expect_error(tp_call("wiener_lpdf", list(1, 1, -0.2, 0.5, 0, 1), r6),
               "wiener_lpdf: Nondecision time is -0.2[0-9]*, but must be nonnegative!")
})

test_that("a program with the five-parameter form, on the tree and the plan", {
  code <- "data { int N; vector[N] rt; }
    parameters { real<lower=0> a; real<lower=0, upper=0.2> t0; real<lower=0, upper=1> w; real v; real<lower=0> sv; }
    model {
      a ~ gamma(4, 2); v ~ normal(0, 2); sv ~ normal(0, 1);
      rt ~ wiener(rep_vector(a, N), rep_vector(t0, N), rep_vector(w, N), rep_vector(v, N), rep_vector(sv, N));
    }"
  rt <- c(0.45, 0.62, 0.8, 1.3, 0.51)
  ctx <- tapestry_model(code = code)$bind(list(N = 5, rt = rt))
  pts <- list(c(0.3, 0, 0.2, 0.5, -0.5), c(-0.2, 1, -0.4, -1, 0.3))
  rr <- both_paths(ctx, pts)
  expect_identical(rr$plan, rr$tree)
  u <- pts[[1]]
  a <- exp(u[1]); t0 <- 0.2 * plogis(u[2]); w <- plogis(u[3]); v <- u[4]; sv <- exp(u[5])
  want <- (3 * log(a) - 2 * a) - v^2 / 8 - sv^2 / 2 +
    sum(vapply(rt, function(y) log(p5(y, a, t0, w, v, sv)), 0))
  expect_equal(ctx$log_prob(u, jacobian = FALSE), want, tolerance = 1e-9)
})

# ---- wiener_lcdf_unnorm, wiener_lccdf_unnorm (prob/tm_wiener.c) ----
F4 <- function(y, a, t0, w, v)
  integrate(function(s) sapply(s, function(x) p4(x, a, t0, w, v)), t0, y, rel.tol = 1e-12)$value
Pup <- function(a, w, v) if (v == 0) w else (1 - exp(-2 * v * a * w)) / (1 - exp(-2 * v * a))
ccases <- list(c(1.2, 1.5, 0.2, 0.4, 0.7), c(0.35, 2, 0.1, 0.6, -1), c(3, 1, 0.5, 0.5, 0.3), c(0.5, 1, 0.2, 0.3, 0),
               c(0.25, 0.8, 0.2, 0.2, 2), c(0.6, 1, 0.1, 0.5, -0.5))

test_that("wiener_lcdf_unnorm and wiener_lccdf_unnorm equal the density integrated", {
  for (x in ccases) {
    F <- F4(x[1], x[2], x[3], x[4], x[5]); P <- Pup(x[2], x[4], x[5])
    expect_equal(tval("wiener_lcdf_unnorm", as.list(x), rep("real", 5)), log(F), tolerance = 1e-10)
    expect_equal(tval("wiener_lccdf_unnorm", as.list(x), rep("real", 5)), log(P - F), tolerance = 1e-9)
    expect_equal(tval("wiener_lcdf_unnorm", as.list(c(x, 1e-4)), rep("real", 6)), log(F), tolerance = 1e-10)
    # F + (P - F) = P, the probability of the upper boundary
    expect_equal(exp(tval("wiener_lcdf_unnorm", as.list(x), rep("real", 5))) +
                   exp(tval("wiener_lccdf_unnorm", as.list(x), rep("real", 5))), P, tolerance = 1e-13)
  }
  # the far lower tail keeps its digits (the small-time sum, scaled)
  # (zero drift, t = 2e-4: F = 2 Phi(-a w / sqrt(t)) to far below rounding)
  v <- tval("wiener_lcdf_unnorm", list(0.2002, 1, 0.2, 0.5, 0), rep("real", 5))
  expect_true(is.finite(v) && v < -300)
  expect_equal(v, log(2) + pnorm(-0.5 / sqrt(2e-4), log.p = TRUE), tolerance = 1e-12)
  # vectors: the sum
  V <- do.call(rbind, ccases)
  args <- lapply(1:5, function(i) V[, i])
  want <- sum(apply(V, 1, function(x) log(F4(x[1], x[2], x[3], x[4], x[5]))))
  expect_equal(tval("wiener_lcdf_unnorm", args, rep("vector", 5)), want, tolerance = 1e-10)
  expect_equal(tval("wiener_lcdf_unnorm", c(args, 1e-6), c(rep("vector", 5), "real")), want, tolerance = 1e-10)
})

test_that("wiener cdfs: gradients against finite differences, errors", {
  for (fn in c("wiener_lcdf_unnorm", "wiener_lccdf_unnorm")) {
    for (x in ccases) {
      r <- expect_gradient_fd(fn, as.list(x), rep("real", 5), tol = 1e-6)
      expect_equal(r$nodes[1], 1)
    }
    V <- do.call(rbind, ccases)
    expect_gradient_fd(fn, lapply(1:5, function(i) V[, i]), rep("vector", 5), tol = 1e-6)
  }
  expect_error(tp_call("wiener_lcdf_unnorm", list(0.1, 1, 0.2, 0.5, 0), rep("real", 5)),
               "wiener_lcdf_unnorm: Random variable  = 0.1, but must be greater than nondecision time = 0.2")
  expect_error(tp_call("wiener_lccdf_unnorm", list(1, 1, 0.2, 1.5, 0), rep("real", 5)),
               "wiener_lccdf_unnorm: A-priori bias is 1.5, but must be less than 1")
  expect_error(tp_call("wiener_lccdf_unnorm", list(1, 0, 0.2, 0.5, 0), rep("real", 5)),
               "wiener_lccdf_unnorm: Boundary separation is 0, but must be positive finite!")
})

test_that("censored response times: a program with the wiener cdfs on both paths", {
  prog <- function(extra) paste("data { int N; vector[N] rt; real cens; }
    parameters { real<lower=0> a; real<lower=0, upper=0.2> t0; real<lower=0, upper=1> w; real v; }
    model {
      a ~ gamma(4, 2); v ~ normal(0, 2);
      rt ~ wiener(a, t0, w, v);", extra, "}")
  code <- prog("target += 3 * wiener_lccdf_unnorm(cens, a, t0, w, v);
      target += wiener_lcdf_unnorm(0.3, a, t0, w, v);")
  rt <- c(0.45, 0.62, 0.8, 1.3, 0.51)
  ctx <- tapestry_model(code = code)$bind(list(N = 5, rt = rt, cens = 2))
  pts <- list(c(0.3, 0, 0.2, 0.5), c(-0.2, 1, -0.4, -1))
  rr <- both_paths(ctx, pts)
  expect_identical(rr$plan, rr$tree)
  u <- pts[[1]]
  a <- exp(u[1]); t0 <- 0.2 * plogis(u[2]); w <- plogis(u[3]); v <- u[4]
  P <- Pup(a, w, v)
  want <- 3 * log(P - F4(2, a, t0, w, v)) + log(F4(0.3, a, t0, w, v))
  base <- tapestry_model(code = prog(""))$bind(list(N = 5, rt = rt, cens = 2))
  expect_equal(ctx$log_prob(u, jacobian = FALSE) - base$log_prob(u, jacobian = FALSE), want, tolerance = 1e-9)
})
