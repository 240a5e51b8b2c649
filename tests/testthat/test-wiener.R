# wiener_lpdf: Stan's four-parameter first passage time density (the series of
# Navarro and Fuss truncated for an error of 1e-6), vectorized.

wiener_r <- function(y, a, tau, b, d) {
  # either series summed far past Stan's truncation: the small-time one for
  # x < 1 (the large-time one cancels there), the large-time one beyond
  t <- y - tau; w <- 1 - b; x <- t / a^2
  vapply(seq_along(t), function(i) {
    s <- if (x[i] < 1) {
      k <- -200:200; u <- w[i] + 2 * k
      log(sum(u * exp(-u^2 / (2 * x[i])))) - 0.5 * log(2 * pi * x[i]^3)
    } else {
      k <- 1:2000
      log(pi * sum(k * exp(-k^2 * pi^2 * x[i] / 2) * sin(k * pi * w[i])))
    }
    s - log(a[i]^2) + d[i] * a[i] * w[i] - d[i]^2 * t[i] / 2
  }, 0)
}

test_that("wiener_lpdf agrees with the series summed in R, in both regimes, and its gradient with finite differences", {
  mod <- tapestry_model(code = "
    data { int N; vector[N] y; }
    parameters { real<lower=0.2> alpha; real<lower=0, upper=0.1> tau; real<lower=0, upper=1> beta; real delta; }
    model { y ~ wiener(alpha, tau, beta, delta); }")
  # short times use the small-time series, long ones the large-time series
  y <- c(0.15, 0.3, 0.5, 0.8, 1.2, 2.5, 4, 0.11)
  ctx <- mod$bind(list(N = length(y), y = y))
  set.seed(5)
  for (i in 1:4) {
    u <- runif(4, -1.5, 1.5)
    v <- ctx$constrain_variables(u)
    n <- length(y)
    want <- sum(wiener_r(y, rep(v$alpha, n), rep(v$tau, n), rep(v$beta, n), rep(v$delta, n)))
    jac <- log(v$alpha - 0.2) + log(0.1) + log(v$tau / 0.1) + log(1 - v$tau / 0.1) +
      log(v$beta) + log(1 - v$beta)
    expect_equal(ctx$log_prob(u, jacobian = FALSE), want, tolerance = 1e-6)
    expect_equal(ctx$log_prob(u), want + jac, tolerance = 1e-6)
    expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  }
})

test_that("wiener_lpdf takes every argument as a container, the data's gradient included, and checks like Stan", {
  mod <- tapestry_model(code = "
    data { int N; }
    parameters { vector<lower=0.5, upper=1>[N] y; vector<lower=0.5>[N] a; vector<lower=0, upper=0.2>[N] t;
                 vector<lower=0, upper=1>[N] b; vector[N] d; }
    model { target += wiener_lpdf(y | a, t, b, d); }")
  ctx <- mod$bind(list(N = 3))
  set.seed(6)
  u <- runif(15, -1, 1)
  v <- ctx$constrain_variables(u)
  expect_equal(ctx$log_prob(u, jacobian = FALSE), sum(wiener_r(v$y, v$a, v$t, v$b, v$d)), tolerance = 1e-6)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  chk <- function(args) {
    m <- tapestry_model(code = sprintf("parameters { real z; } model { z ~ std_normal(); target += wiener_lpdf(%s); }", args))
    m$bind(list())$log_prob(0)
  }
  expect_error(chk("0.3 | 1, 0.4, 0.5, 0"), "Random variable  = 0.3, but must be greater than nondecision time = 0.4",
               class = "tapestry_domain_error")
  expect_error(chk("0.3 | -1, 0.1, 0.5, 0"), "Boundary separation is -1, but must be positive", class = "tapestry_domain_error")
  expect_error(chk("0.3 | 1, 0.1, 1.5, 0"), "A-priori bias is 1.5, but must be in the interval \\[0, 1\\]",
               class = "tapestry_domain_error")
  expect_error(chk("[0.3, 0.4]' | 1, 0.1, [0.5, 0.5, 0.5]', 0"), "size", class = "tapestry_error")
  # all constant under propto: nothing is added
  m <- tapestry_model(code = "parameters { real z; } model { z ~ std_normal(); 0.5 ~ wiener(1, 0.1, 0.5, 0.2); }")
  expect_equal(m$bind(list())$log_prob(0.3), -0.045, tolerance = 1e-14)
})
