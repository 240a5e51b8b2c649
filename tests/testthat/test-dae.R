# dae and dae_tol (src/tree/li_dae.c, on SUNDIALS IDAS): a DAE with a closed
# form, Robertson's kinetics against ode_bdf, Stan's checks, the plan path,
# and a decay rate recovered by sampling.

skip_without_idas <- function() {
  ok <- tryCatch({
    m <- tapestry_model(code = "functions { vector F(real t, vector y, vector yp) { return yp + y; } }
      transformed data { array[1] vector[1] y = dae(F, [1.0]', [-1.0]', 0, {1.0}); }")
    m$bind(list())
    TRUE
  }, error = function(e) !grepl("needs SUNDIALS", conditionMessage(e)))
  skip_if_not(ok, "tapestry was built without SUNDIALS")
}

test_that("y1' = -k y1, 0 = y1 + y2 - 1: values and gradients against the closed form and finite differences", {
  skip_without_idas()
  code <- "
    functions {
      vector F(real t, vector yy, vector yp, real k) {
        return [yp[1] + k * yy[1], yy[1] + yy[2] - 1]';
      }
    }
    data { int T; array[T] real ts; vector[T] w1; vector[T] w2; int tol; }
    parameters { real k; real a; real b; }
    transformed parameters {
      array[T] vector[2] y;
      if (tol) y = dae_tol(F, [a, 1 - a]', [-k * a, b]', 0, ts, 1e-10, 1e-10, 100000, k);
      else y = dae(F, [a, 1 - a]', [-k * a, b]', 0, ts, k);
    }
    model {
      for (t in 1:T) target += w1[t] * y[t, 1] + w2[t] * y[t, 2];
    }"
  m <- tapestry_model(code = code)
  ts <- c(0.25, 1, 1, 2.5, 4)
  w1 <- c(1, -0.5, 2, 0.3, 1.5); w2 <- c(0.2, 1, -1, 0.7, 2)
  k <- 0.7; a <- 0.8
  u <- c(k, a, k * a)   # yp2 = -yp1: consistent
  for (tol in 0:1) {
    ctx <- m$bind(list(T = length(ts), ts = ts, w1 = w1, w2 = w2, tol = tol))
    y <- ctx$constrain_variables(u)$y
    expect_equal(y[, 1], a * exp(-k * ts), tolerance = 1e-8)
    expect_equal(y[, 2], 1 - a * exp(-k * ts), tolerance = 1e-8)
    lp <- sum(w1 * a * exp(-k * ts) + w2 * (1 - a * exp(-k * ts)))
    expect_equal(ctx$log_prob(u), lp, tolerance = 1e-8)
    # d/dk and d/da of the closed form; yp2 (b) does not move the solution
    gk <- sum((w1 - w2) * (-ts) * a * exp(-k * ts))
    ga <- sum((w1 - w2) * exp(-k * ts))
    g <- as.vector(ctx$grad_log_prob(u))
    expect_equal(g, c(gk, ga, 0), tolerance = 1e-6, info = tol)
    expect_equal(g, fd_grad(ctx, u, 1e-6), tolerance = 1e-5, info = tol)
    # an inconsistent yp0 is made consistent before the first step
    expect_equal(ctx$log_prob(c(k, a, 5)), lp, tolerance = 1e-8)
  }
})

test_that("Robertson's kinetics as a DAE: ode_bdf's solution of the ODE form, gradients against finite differences", {
  skip_without_idas()
  code <- "
    functions {
      vector chem(real t, vector yy, vector yp, real k1, real k2, real k3) {
        vector[3] r;
        r[1] = yp[1] + k1 * yy[1] - k2 * yy[2] * yy[3];
        r[2] = yp[2] - k1 * yy[1] + k2 * yy[2] * yy[3] + k3 * yy[2]^2;
        r[3] = yy[1] + yy[2] + yy[3] - 1;
        return r;
      }
      vector chem_ode(real t, vector y, real k1, real k2, real k3) {
        return [-k1 * y[1] + k2 * y[2] * y[3],
                k1 * y[1] - k2 * y[2] * y[3] - k3 * y[2]^2,
                k3 * y[2]^2]';
      }
    }
    data { int T; array[T] real ts; int which; }
    parameters { real<lower=0> k1; real<lower=0> k2; real<lower=0> k3; }
    transformed parameters {
      array[T] vector[3] yd = dae_tol(chem, [1, 0, 0]', [-k1, k1, 0]', 0, ts, 1e-10, 1e-12, 100000, k1, k2, k3);
      array[T] vector[3] yo = ode_bdf_tol(chem_ode, [1, 0, 0]', 0, ts, 1e-10, 1e-12, 100000, k1, k2, k3);
    }
    model {
      if (which == 1) for (t in 1:T) target += 1e3 * yd[t, 1] + 1e5 * yd[t, 2] + 10 * yd[t, 3];
      else for (t in 1:T) target += 1e3 * yo[t, 1] + 1e5 * yo[t, 2] + 10 * yo[t, 3];
    }"
  ts <- c(0.4, 4, 40, 400)
  m <- tapestry_model(code = code)
  ctx <- m$bind(list(T = length(ts), ts = ts, which = 1L))
  u <- log(c(0.04, 1e4, 3e7))
  v <- ctx$constrain_variables(u)
  expect_equal(v$yd, v$yo, tolerance = 1e-6)
  expect_equal(v$yd[, 2], v$yo[, 2], tolerance = 1e-6)
  expect_equal(rowSums(v$yd), rep(1, length(ts)), tolerance = 1e-10)
  # IDAS's example output at t = 0.4: 9.8517e-01 3.3864e-05 1.4794e-02
  expect_equal(v$yd[1, ], c(9.8517e-01, 3.3864e-05, 1.4794e-02), tolerance = 1e-4)
  g <- as.vector(ctx$grad_log_prob(u))
  expect_equal(g, fd_grad(ctx, u, 1e-5), tolerance = 1e-4)
  # the gradient of the same target on ode_bdf's solution of the ODE form
  go <- as.vector(m$bind(list(T = length(ts), ts = ts, which = 2L))$grad_log_prob(u))
  expect_equal(g, go, tolerance = 1e-6)
})

test_that("gradients by the initial state derivative and by a vector of parameters", {
  skip_without_idas()
  # y' = -k y with y'(0) given inconsistent is corrected by the solver; the
  # closed form keeps y(0): y = y0 exp(-k t)
  code <- "
    functions { vector F(real t, vector yy, vector yp, vector k) { return yp + k .* yy; } }
    parameters { vector[2] y0; vector[2] k; }
    model {
      array[2] vector[2] y = dae(F, y0, -k .* y0, 0, {0.5, 2.0}, k);
      target += y[1, 1] + 3 * y[2, 2];
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  u <- c(1.2, 0.6, 0.5, 0.9)
  y0 <- u[1:2]; k <- u[3:4]
  expect_equal(ctx$log_prob(u), y0[1] * exp(-k[1] * 0.5) + 3 * y0[2] * exp(-k[2] * 2), tolerance = 1e-8)
  g <- c(exp(-k[1] * 0.5), 3 * exp(-k[2] * 2), -0.5 * y0[1] * exp(-k[1] * 0.5), -6 * y0[2] * exp(-k[2] * 2))
  expect_equal(as.vector(ctx$grad_log_prob(u)), g, tolerance = 1e-6)
})

test_that("Stan's checks, with messages", {
  skip_without_idas()
  code <- "
    functions {
      vector F(real t, vector yy, vector yp, real k) { return yp + k * yy; }
      vector bad(real t, vector yy, vector yp, real k) { return [1, 2]'; }
      vector stiff(real t, vector yy, vector yp, real k) { return [yp[1] + k * (yy[1] - cos(t))]'; }
    }
    data { int which; array[3] real ts; vector[1] yp0; int steps; }
    parameters { real k; }
    model {
      if (which == 1) target += dae(F, [1.0]', yp0, 0, ts, k)[3, 1];
      if (which == 2) target += dae(bad, [1.0]', yp0, 0, ts, k)[3, 1];
      if (which == 3) target += dae_tol(stiff, [1.0]', yp0, 0, ts, 1e-8, 1e-8, steps, k)[3, 1];
      if (which == 4) target += dae(F, [1.0, 2.0]', yp0, 0, ts, k)[3, 1];
    }"
  m <- tapestry_model(code = code)
  d <- list(which = 1L, ts = c(1, 2, 3), yp0 = -1, steps = 1000L)
  bind <- function(...) m$bind(modifyList(d, list(...)))
  expect_equal(bind()$log_prob(1), exp(-3), tolerance = 1e-8)
  expect_error(bind(ts = c(1, 0.5, 2))$log_prob(1), "dae: times is not a valid sorted vector")
  expect_error(bind(ts = c(0, 1, 2))$log_prob(1), "dae: initial time is 0, but must be less than 0")
  expect_error(bind()$log_prob(NaN), "dae: DAE parameters and data\\[1\\] is nan")
  expect_error(bind(yp0 = Inf)$log_prob(1), "dae: initial state derivative\\[1\\] is inf")
  expect_error(bind(ts = c(1, 2, Inf))$log_prob(1), "dae: times\\[3\\] is inf")
  expect_error(bind(which = 2L)$log_prob(1), "dae: the residual function returned 2 values, but the state has 1")
  expect_error(bind(which = 3L, steps = 0L)$log_prob(1), "dae_tol: max_num_steps is 0, but must be positive")
  expect_error(bind(which = 3L, steps = 20L, ts = c(1, 2, 100))$log_prob(1e4),
               "dae_tol: Failed to integrate to next output time \\(1\\) in less than max_num_steps steps",
               class = "tapestry_domain_error")
  expect_error(bind(which = 4L)$log_prob(1), "dae: size of initial state derivative \\(1\\) and size of initial state \\(2\\)")
  expect_error(tapestry_model(code = "
    functions { vector F(real t, vector yy, vector yp) { return yp; } }
    parameters { real k; }
    model { target += dae(F, [1.0]', [0.0]', k, {1.0})[1, 1]; }"), "dae: argument 4 \\(t0\\) must be data only")
  expect_error(tapestry_model(code = "
    functions { vector F(real t, vector yy) { return yy; } }
    parameters { real k; }
    model { target += dae(F, [1.0]', [0.0]', 0, {1.0}, k)[1, 1]; }"), "dae: function F takes 2 arguments")
  expect_error(tapestry_model(code = "
    functions { vector F(real t, vector yy, vector yp, real k) { return yp; } }
    parameters { real k; }
    model { target += dae_tol(F, [1.0]', [0.0]', 0, {1.0}, k, 1e-6, 100, k)[1, 1]; }"), "must be data only")
})

test_that("a program with dae runs on its plan, bit for bit the tree's gradients", {
  skip_without_idas()
  code <- "
    functions {
      vector F(real t, vector yy, vector yp, real k, vector c) {
        return [yp[1] + k * yy[1], yy[1] + yy[2] - c[1]]';
      }
    }
    parameters { real<lower=0> k; vector<lower=0>[1] c; real y1; }
    model {
      array[3] vector[2] a = dae(F, [y1, c[1] - y1]', [-k * y1, k * y1]', 0, {0.5, 1.0, 2.0}, k, c);
      for (i in 1:3) target += normal_lpdf(a[i] | [1, 0.5]', 0.5);
      y1 ~ normal(0, 2);
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  r <- both_paths(ctx, list(c(log(0.7), log(1.3), 1), c(log(1.3), log(0.6), 0.2)))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 0)
  expect_identical(r$stats$why, "")
  expect_false(is.character(r$tree[[1]]))
})

test_that("exponential decay as a DAE with noise: sampling recovers the rate", {
  skip_without_idas()
  code <- "
    functions { vector F(real t, vector yy, vector yp, real k) { return yp + k * yy; } }
    data { int T; array[T] real ts; vector[T] y; }
    parameters { real<lower=0> k; real<lower=0> sigma; }
    model {
      array[T] vector[1] mu = dae_tol(F, [5.0]', [-5 * k]', 0, ts, 1e-8, 1e-8, 10000, k);
      k ~ lognormal(0, 1);
      sigma ~ normal(0, 1);
      for (t in 1:T) y[t] ~ normal(mu[t, 1], sigma);
    }"
  set.seed(8)
  ts <- seq(0.25, 5, by = 0.25)
  y <- 5 * exp(-0.4 * ts) + rnorm(length(ts), 0, 0.1)
  fit <- tapestry_model(code = code)$sample(data = list(T = length(ts), ts = ts, y = y), chains = 2,
                                           parallel_chains = 2, iter_warmup = 300, iter_sampling = 300,
                                           seed = 2, refresh = 0, show_messages = FALSE)
  s <- fit$summary("k")
  expect_lt(abs(s$mean - 0.4), 0.03)
  expect_lt(max(fit$summary()$rhat, na.rm = TRUE), 1.05)
})
