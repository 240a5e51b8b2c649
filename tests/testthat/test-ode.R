# The ODE solvers (src/tree/li_ode.c, on SUNDIALS's CVODES and ARKODE):
# closed forms, gradients against closed forms and finite differences, the
# older integrate_ode_* signatures, parameters as output times, Stan's checks,
# and a small model fitted by sampling.

decay_code <- "
functions {
  vector decay(real t, vector y, real k) { return -k * y; }
}
data { int T; array[T] real ts; int method; }
parameters { real<lower=0> k; real y00; }
model {
  array[T] vector[1] y;
  if (method == 1) y = ode_rk45_tol(decay, [y00]', 0, ts, 1e-10, 1e-10, 100000, k);
  else if (method == 2) y = ode_bdf_tol(decay, [y00]', 0.0, ts, 1e-10, 1e-10, 100000, k);
  else if (method == 3) y = ode_adams_tol(decay, [y00]', 0.0, ts, 1e-10, 1e-10, 100000, k);
  else if (method == 4) y = ode_ckrk_tol(decay, [y00]', 0.0, ts, 1e-10, 1e-10, 100000, k);
  else if (method == 5) y = ode_rk45(decay, [y00]', 0, ts, k);
  else if (method == 6) y = ode_bdf(decay, [y00]', 0, ts, k);
  else if (method == 7) y = ode_adams(decay, [y00]', 0, ts, k);
  else y = ode_ckrk(decay, [y00]', 0, ts, k);
  for (t in 1:T) target += y[t, 1];
}"

test_that("exponential decay: every solver gives the closed form and its gradient", {
  skip_without_sundials()
  m <- tapestry_model(code = decay_code)
  ts <- c(0.5, 1, 1, 2, 3.5)
  u <- c(log(0.7), 1.3)
  want <- sum(1.3 * exp(-0.7 * ts))
  gw <- c(sum(-ts * 0.7 * 1.3 * exp(-0.7 * ts)), sum(exp(-0.7 * ts)))
  for (meth in 1:8) {
    ctx <- m$bind(list(T = length(ts), ts = ts, method = meth))
    tol <- if (meth <= 4) 1e-7 else 2e-4
    expect_equal(ctx$log_prob(u, jacobian = FALSE), want, tolerance = tol, info = meth)
    expect_equal(as.vector(ctx$grad_log_prob(u, jacobian = FALSE)), gw, tolerance = tol, info = meth)
  }
})

test_that("a harmonic oscillator: the closed form, and a damped one's gradient against finite differences", {
  skip_without_sundials()
  code <- "
    functions {
      vector sho(real t, vector y, real theta) {
        return [y[2], -y[1] - theta * y[2]]';
      }
    }
    data { int T; array[T] real ts; }
    parameters { real theta; vector[2] y0; }
    transformed parameters {
      array[T] vector[2] yb = ode_bdf_tol(sho, y0, 0, ts, 1e-10, 1e-10, 100000, theta);
      array[T] vector[2] yr = ode_rk45_tol(sho, y0, 0, ts, 1e-10, 1e-10, 100000, theta);
    }
    model {
      for (t in 1:T) target += dot_self(yb[t]) + sum(yr[t]);
    }"
  m <- tapestry_model(code = code)
  ts <- seq(0.5, 6, by = 0.5)
  ctx <- m$bind(list(T = length(ts), ts = ts))
  # undamped from (1, 0): cos t, -sin t
  v <- ctx$constrain_variables(c(0, 1, 0))
  for (nm in c("yb", "yr")) {
    y <- v[[nm]]
    expect_equal(y[, 1], cos(ts), tolerance = 1e-8)
    expect_equal(y[, 2], -sin(ts), tolerance = 1e-8)
  }
  u <- c(0.3, 0.8, -0.4)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-5), tolerance = 1e-6)
})

test_that("Lotka-Volterra: four parameters and the initial state, gradient against finite differences", {
  skip_without_sundials()
  code <- "
    functions {
      vector lv(real t, vector z, real alpha, real beta, real gamma, real delta) {
        return [(alpha - beta * z[2]) * z[1], (-gamma + delta * z[1]) * z[2]]';
      }
    }
    data { int T; array[T] real ts; array[T, 2] real y; }
    parameters { array[4] real<lower=0> theta; vector<lower=0>[2] z0; real<lower=0> sigma; }
    model {
      array[T] vector[2] z = ode_rk45_tol(lv, z0, 0, ts, 1e-8, 1e-8, 100000,
                                          theta[1], theta[2], theta[3], theta[4]);
      array[T] vector[2] zb = ode_bdf_tol(lv, z0, 0, ts, 1e-8, 1e-8, 100000,
                                          theta[1], theta[2], theta[3], theta[4]);
      theta ~ normal(1, 0.5);
      sigma ~ lognormal(-1, 1);
      z0 ~ lognormal(log(10), 1);
      for (k in 1:2) {
        y[, k] ~ lognormal(log(z[, k]), sigma);
        y[, k] ~ lognormal(log(zb[, k]), sigma);
      }
    }"
  set.seed(4)
  ts <- 1:10
  y <- matrix(exp(rnorm(20, log(10), 0.3)), 10, 2)
  ctx <- tapestry_model(code = code)$bind(list(T = 10, ts = ts, y = y))
  u <- c(log(c(0.55, 0.028, 0.8, 0.024) * c(1, 10, 1, 10)), log(c(30, 4)), log(0.25))
  expect_true(is.finite(ctx$log_prob(u)))
  # the solvers' adaptive steps make the log density smooth only piecewise:
  # plain central differences at a small step, as the solvers' tolerances allow
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-5, extrapolate = FALSE),
               tolerance = 1e-5)
})

test_that("integrate_ode_rk45/bdf/adams take the older signature and agree with ode_*", {
  skip_without_sundials()
  code <- "
    functions {
      array[] real f(real t, array[] real y, array[] real theta, array[] real x_r, array[] int x_i) {
        return { -theta[1] * y[1] + x_r[1], theta[2] * y[1] - x_i[1] * y[2] };
      }
      vector g(real t, vector y, array[] real theta, array[] real x_r, array[] int x_i) {
        return to_vector(f(t, to_array_1d(y), theta, x_r, x_i));
      }
    }
    data { int T; array[T] real ts; int which; }
    parameters { array[2] real<lower=0> theta; array[2] real y0; }
    model {
      array[T, 2] real a;
      array[T] vector[2] b = ode_bdf_tol(g, to_vector(y0), 0, ts, 1e-10, 1e-10, 100000, theta, {0.5}, {2});
      if (which == 1) a = integrate_ode_rk45(f, y0, 0, ts, theta, {0.5}, {2}, 1e-10, 1e-10, 100000);
      else if (which == 2) a = integrate_ode_bdf(f, y0, 0, ts, theta, {0.5}, {2});
      // Stan declares the older forms' max_num_steps real
      else if (which == 3) a = integrate_ode_bdf(f, y0, 0, ts, theta, {0.5}, {2}, 1e-10, 1e-10, 1e5);
      else a = integrate_ode_adams(f, y0, 0, ts, theta, {0.5}, {2});
      for (t in 1:T) target += a[t, 1] + 2 * a[t, 2] - b[t, 1] - 2 * b[t, 2];
    }"
  m <- tapestry_model(code = code)
  ts <- c(0.3, 1, 2.5)
  for (w in 1:4) {
    ctx <- m$bind(list(T = 3, ts = ts, which = w))
    u <- c(log(0.8), log(0.5), 1, -0.5)
    expect_equal(ctx$log_prob(u, jacobian = FALSE), 0, tolerance = 1e-7)
    expect_equal(as.vector(ctx$grad_log_prob(u, jacobian = FALSE)), c(0, 0, 0, 0), tolerance = 1e-6)
  }
})

test_that("output times that are parameters get their derivatives (f at those times)", {
  skip_without_sundials()
  code <- "
    functions { vector decay(real t, vector y, real k) { return -k * y; } }
    parameters { real<lower=0> t1; real<lower=0> k; }
    model {
      array[2] vector[1] y = ode_rk45_tol(decay, [2.0]', 0, {t1, t1 + 1}, 1e-10, 1e-10, 100000, k);
      target += y[1, 1] + y[2, 1];
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  u <- c(log(0.8), log(0.6))
  t1 <- 0.8; k <- 0.6
  want <- 2 * exp(-k * t1) + 2 * exp(-k * (t1 + 1))
  expect_equal(ctx$log_prob(u, jacobian = FALSE), want, tolerance = 1e-8)
  dt1 <- -k * want * t1                       # d/dlog t1
  dk <- -(2 * t1 * exp(-k * t1) + 2 * (t1 + 1) * exp(-k * (t1 + 1))) * k
  expect_equal(as.vector(ctx$grad_log_prob(u, jacobian = FALSE)), c(dt1, dk), tolerance = 1e-7)
})

test_that("an initial time that is a parameter: d y(t) / d t0 = -S_y0(t) f(t0, y0)", {
  skip_without_sundials()
  code <- "
    functions {
      vector decay(real t, vector y, real k) { return -k * y; }
      vector osc(real t, vector y, real w) { return [y[2] + sin(t), -w * y[1]]'; }
    }
    parameters { real t0; real<lower=0> k; real y00; }
    model {
      array[2] vector[1] y = ode_rk45_tol(decay, [y00]', t0, {1.0, 2.5}, 1e-10, 1e-10, 100000, k);
      array[2] vector[1] z = ode_bdf_tol(decay, [1.5]', t0, {1.0, 2.5}, 1e-10, 1e-10, 100000, k);
      array[3] vector[2] o = ode_rk45_tol(osc, [1.0, 0.2]', t0, {1.0, 2.0, 3.0}, 1e-10, 1e-10, 100000, k);
      target += y[1, 1] + y[2, 1] + 2 * z[1, 1] - z[2, 1] + sum(o[1]) + o[3, 1] - o[2, 2];
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  u <- c(0.2, log(0.6), 1.3)
  g <- as.vector(ctx$grad_log_prob(u, jacobian = FALSE))
  # finite differences include the log Jacobian of k's transform (1 by log k)
  expect_equal(g, fd_grad(ctx, u, 1e-6) - c(0, 1, 0), tolerance = 1e-6)
  ctx2 <- tapestry_model(code = "
    functions { vector decay(real t, vector y, real k) { return -k * y; } }
    parameters { real t0; }
    model { target += ode_rk45_tol(decay, [1.3]', t0, {1.0, 2.5}, 1e-10, 1e-10, 100000, 0.6)[2, 1]; }")$bind(list())
  expect_equal(as.vector(ctx2$grad_log_prob(0.2)), 0.6 * 1.3 * exp(-0.6 * (2.5 - 0.2)), tolerance = 1e-8)
})

test_that("Stan's checks: times sorted and after t0, finite values, max_num_steps, f's size", {
  skip_without_sundials()
  code <- "
    functions {
      vector f(real t, vector y, real k) { return -k * y; }
      vector stiff(real t, vector y, real k) { return [-k * (y[1] - cos(t))]'; }
      vector bad(real t, vector y, real k) { return [1, 2]'; }
    }
    data { int which; array[3] real ts; }
    parameters { real k; }
    model {
      if (which == 1) target += ode_rk45(f, [1.0]', 0, ts, k)[3, 1];
      if (which == 2) target += ode_rk45_tol(stiff, [1.0]', 0, ts, 1e-8, 1e-8, 50, k)[3, 1];
      if (which == 3) target += ode_bdf(bad, [1.0]', 0, ts, k)[3, 1];
    }"
  m <- tapestry_model(code = code)
  expect_error(m$bind(list(which = 1, ts = c(1, 0.5, 2)))$log_prob(0), "times is not a valid sorted vector")
  expect_error(m$bind(list(which = 1, ts = c(0, 1, 2)))$log_prob(0), "initial time is 0, but must be less than 0")
  expect_error(m$bind(list(which = 1, ts = c(1, 2, 3)))$log_prob(NaN), "ode parameters and data\\[1\\] is nan")
  expect_error(m$bind(list(which = 2, ts = c(1, 2, 100)))$log_prob(1e4),
               "Failed to integrate to next output time \\(1\\) in less than max_num_steps steps",
               class = "tapestry_domain_error")
  expect_error(m$bind(list(which = 3, ts = c(1, 2, 3)))$log_prob(1), "returned 2 values, but the state has 1")
  # the function's signature is checked with the program
  expect_error(tapestry_model(code = "
    functions { vector f(real t, vector y) { return y; } }
    parameters { real k; }
    model { target += ode_rk45(f, [1.0]', 0, {1.0}, k)[1, 1]; }"), "ode_rk45: function f takes 2 arguments")
  expect_error(tapestry_model(code = "
    functions { vector f(real t, vector y) { return y; } }
    parameters { real k; }
    model { target += ode_bdf_tol(f, [1.0]', 0, {1.0}, k, 1e-6, 100)[1, 1]; }"), "must be data only")
})

test_that("a program with ODEs runs on its plan, bit for bit the tree's gradients", {
  skip_without_sundials()
  code <- "
    functions {
      vector f(real t, vector y, real k, vector c) { return [-k * y[1], k * y[1] - c[1] * y[2]]'; }
      array[] real g(real t, array[] real y, array[] real th, array[] real x_r, array[] int x_i) {
        return { -th[1] * y[1] };
      }
    }
    data { int which; }
    parameters { real<lower=0> k; vector<lower=0>[1] c; vector[2] y0; real<lower=0, upper=0.4> t0; }
    model {
      array[3] vector[2] a;
      array[3, 1] real b = integrate_ode_bdf(g, {y0[1]}, 0, {0.5, 1.0, 1.5}, {k}, {0.0}, {0});
      if (which == 1) a = ode_bdf(f, y0, 0, {0.5, 1.0, 2.0}, k, c);
      else if (which == 2) a = ode_rk45_tol(f, y0, t0, {0.5, 1.0, 2.0}, 1e-8, 1e-8, 10000, k, c);
      // output times that are parameters
      else a = ode_adams(f, y0, 0, {0.5, 0.5 + k, 2.0 + k}, k, c);
      for (i in 1:3) target += normal_lpdf(a[i] | [1, 0.5]', 0.5) + b[i, 1];
      y0 ~ normal(0, 2);
    }"
  m <- tapestry_model(code = code)
  for (w in 1:3) {
    ctx <- m$bind(list(which = w))
    r <- both_paths(ctx, list(c(log(0.7), log(0.3), 1, 0.5, 0), c(log(1.3), log(0.6), 0.2, -0.5, 1)))
    expect_identical(r$plan, r$tree, info = w)
    expect_gt(r$stats$replays, 0, label = paste(w, "replays"))
    expect_identical(r$stats$why, "")
  }
})

test_that("exponential decay with noise: sampling recovers the rate", {
  skip_without_sundials()
  code <- "
    functions { vector decay(real t, vector y, real k) { return -k * y; } }
    data { int T; array[T] real ts; vector[T] y; }
    parameters { real<lower=0> k; real<lower=0> sigma; }
    model {
      array[T] vector[1] mu = ode_bdf(decay, [5.0]', 0, ts, k);
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

test_that("ode_adjoint_tol_ctl: ode_bdf's values and gradients, and Stan's checks of its controls", {
  skip_without_sundials()
  code <- "
    functions { vector f(real t, vector y, real k, vector c) { return [-k * y[1], k * y[1] - c[1] * y[2]]'; } }
    data { array[3] real ts; int which; vector[2] atol; int interp; int solver; }
    parameters { real<lower=0> k; vector<lower=0>[1] c; vector[2] y0; }
    model {
      array[3] vector[2] a;
      if (which == 1) a = ode_adjoint_tol_ctl(f, y0, 0, ts, 1e-10, atol, 1e-8, [1e-8, 1e-8]', 1e-8, 1e-8,
                                              100000, 150, interp, solver, 2, k, c);
      else a = ode_bdf_tol(f, y0, 0, ts, 1e-10, 1e-10, 100000, k, c);
      for (i in 1:3) target += a[i, 1] + 2 * a[i, 2];
    }"
  m <- tapestry_model(code = code)
  u <- c(log(0.7), log(0.3), 1, 0.5)
  d <- list(ts = c(0.5, 1, 2), atol = c(1e-10, 1e-10), interp = 1L, solver = 2L)
  ref <- m$bind(c(d, which = 2))
  for (solver in 1:2) {
    ctx <- m$bind(modifyList(d, list(which = 1, solver = solver)))
    expect_equal(ctx$log_prob(u), ref$log_prob(u), tolerance = 1e-8)
    expect_equal(as.vector(ctx$grad_log_prob(u)), as.vector(ref$grad_log_prob(u)), tolerance = 1e-7)
    expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-5), tolerance = 1e-6)
  }
  expect_error(m$bind(modifyList(d, list(which = 1, atol = c(1e-8, -1))))$log_prob(u),
               "absolute_tolerance_forward\\[2\\] is -1")
  expect_error(m$bind(modifyList(d, list(which = 1, interp = 3L)))$log_prob(u),
               "interpolation_polynomial is 3, but must be in the interval \\[1, 2\\]")
  expect_error(tapestry_model(code = "
    functions { vector f(real t, vector y) { return -y; } }
    parameters { real r; }
    model { target += ode_adjoint_tol_ctl(f, [1.0]', 0, {1.0}, r, [1e-6]', 1e-6, [1e-6]', 1e-6, 1e-6,
                                          100, 10, 1, 2, 2)[1, 1]; }"), "argument 5 must be data only")
})

test_that("a solver failing on a plan's replay gives the tree's located error", {
  skip_without_sundials()
  ctx <- tapestry_model(code = "
    functions { vector f(real t, vector y, real k) { return [-k * (y[1] - cos(t))]'; } }
    parameters { real k; }
    model { target += ode_rk45_tol(f, [1.0]', 0, {1.0, 2.0, 3.0}, 1e-6, 1e-6, 200, k)[3, 1]; }")$bind(list())
  ctx$grad_log_prob(0.1)
  ctx$grad_log_prob(0.2)
  expect_gt(tapestry:::plan_stats(ctx)$replays, 0)
  expect_error(ctx$grad_log_prob(1e4), "in less than max_num_steps steps \\(in 'string', line 4, column 13\\)")
  expect_equal(ctx$grad_log_prob(0.3), ctx$grad_log_prob(0.3))
})

test_that("a right-hand side that branches on t or y: the plan of f guards, the tree takes the other side", {
  skip_without_sundials()
  code <- "
    functions {
      // a dose at t = 1: the rate doubles, and a floor on y
      vector f(real t, vector y, real k) {
        vector[1] d;
        if (t < 1) d[1] = -k * y[1]; else d[1] = -2 * k * y[1];
        if (y[1] < 0.05) d[1] = 0;
        return d;
      }
    }
    parameters { real<lower=0> k; }
    model {
      array[2] vector[1] y = ode_rk45_tol(f, [1.0]', 0, {0.5, 2.0}, 1e-10, 1e-10, 100000, k);
      target += y[1, 1] + y[2, 1];
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  r <- both_paths(ctx, list(log(0.3), log(0.5), log(0.2)))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 0)
  # y(0.5) = exp(-k / 2), y(2) = exp(-k) exp(-2k) (the floor is not reached at k = 0.3)
  k <- 0.3
  expect_equal(ctx$log_prob(log(k), jacobian = FALSE), exp(-k / 2) + exp(-3 * k), tolerance = 1e-7)
})
