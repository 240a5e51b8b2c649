# Algebraic equations (src/tree/li_solve.c, on SUNDIALS KINSOL): roots in
# closed form, gradients by the implicit function theorem against the closed
# form and finite differences, the older algebra_solver signatures, and
# Stan's checks.

skip_without_kinsol <- function() {
  ok <- tryCatch({
    tapestry_model(code = "functions { vector f(vector y) { return y - 1; } }
      transformed data { vector[1] y = solve_newton(f, [0.5]'); }")$bind(list())
    TRUE
  }, error = function(e) !grepl("needs SUNDIALS", conditionMessage(e)))
  skip_if_not(ok, "tapestry was built without SUNDIALS")
}

test_that("a system with a closed-form root: every solver, values and gradients", {
  skip_without_kinsol()
  # y1 = a - exp(-b), y2 = y1^2 + b: the root of f(y) = (y1 - a + exp(-b), y2 - y1^2 - b)
  code <- "
    functions {
      vector sys(vector y, real a, real b) {
        return [y[1] - a + exp(-b), y[2] - square(y[1]) - b]';
      }
      vector sys_old(vector y, vector theta, array[] real x_r, array[] int x_i) {
        return sys(y, theta[1], theta[2]);
      }
    }
    data { int which; }
    parameters { real a; real<lower=0> b; }
    transformed parameters {
      vector[2] y;
      if (which == 1) y = solve_newton(sys, [1, 1]', a, b);
      else if (which == 2) y = solve_powell(sys, [1, 1]', a, b);
      else if (which == 3) y = solve_newton_tol(sys, [1, 1]', 1e-10, 1e-12, 100, a, b);
      else if (which == 4) y = solve_powell_tol(sys, [1, 1]', 1e-12, 1e-12, 100, a, b);
      else if (which == 5) y = algebra_solver(sys_old, [1, 1]', [a, b]', {0.0}, {0});
      else if (which == 6) y = algebra_solver_newton(sys_old, [1, 1]', [a, b]', {0.0}, {0}, 1e-10, 1e-12, 100);
      // Stan declares the older forms' max_steps real
      else y = algebra_solver(sys_old, [1, 1]', [a, b]', {0.0}, {0}, 1e-10, 1e-12, 100.0);
    }
    model { target += y[1] + 3 * y[2]; }"
  m <- tapestry_model(code = code)
  a <- 1.7; b <- 0.4
  u <- c(a, log(b))
  y1 <- a - exp(-b); y2 <- y1^2 + b
  # d/da: dy1 = 1, dy2 = 2 y1; d/dlog b: b * (dy1/db = exp(-b), dy2/db = 2 y1 exp(-b) + 1)
  gw <- c(1 + 3 * 2 * y1, b * (exp(-b) + 3 * (2 * y1 * exp(-b) + 1)))
  for (w in 1:7) {
    ctx <- m$bind(list(which = w))
    v <- ctx$constrain_variables(u)
    expect_equal(as.vector(v$y), c(y1, y2), tolerance = 1e-7, info = w)
    expect_equal(as.vector(ctx$grad_log_prob(u, jacobian = FALSE)), gw, tolerance = 1e-7, info = w)
  }
})

test_that("a nonlinear system's gradient against finite differences", {
  skip_without_kinsol()
  code <- "
    functions {
      vector f(vector y, vector p, array[] real s) {
        vector[3] r;
        // increasing in y[i], weakly coupled: one root
        r[1] = y[1] ^ 3 + p[1] * y[1] + 0.2 * y[2] - s[1];
        r[2] = y[2] ^ 3 + p[2] * y[2] + 0.2 * exp(-y[3]) - s[2];
        r[3] = y[3] ^ 3 + p[3] * y[3] + 0.2 * y[1] * y[2] - s[3];
        return r;
      }
    }
    data { array[3] real s; }
    parameters { vector<lower=0.1, upper=2>[3] p; }
    model {
      vector[3] y = solve_newton(f, [0.5, 0.5, 0.5]', p, s);
      target += dot_self(y) + y[2];
    }"
  ctx <- tapestry_model(code = code)$bind(list(s = c(1, 0.5, 2)))
  u <- c(0.1, -0.3, 0.4)
  expect_true(is.finite(ctx$log_prob(u)))
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-6), tolerance = 1e-6)
})

test_that("Stan's checks: max_num_steps, no root, the system's size, finite inputs", {
  skip_without_kinsol()
  code <- "
    functions {
      vector noroot(vector y, real a) { return [square(y[1]) + a]'; }
      vector wrong(vector y, real a) { return [y[1], a]'; }
    }
    data { int which; }
    parameters { real a; }
    model {
      if (which == 1) target += solve_newton_tol(noroot, [3.0]', 1e-10, 1e-10, 5, a)[1];
      if (which == 2) target += solve_newton(wrong, [1.0]', a)[1];
      if (which == 3) target += solve_powell(noroot, [1.0]', a)[1];
    }"
  m <- tapestry_model(code = code)
  expect_error(m$bind(list(which = 1))$log_prob(1), "solve_newton_tol", class = "tapestry_domain_error")
  expect_error(m$bind(list(which = 2))$log_prob(1), "returned 2 values, but the guess has 1")
  expect_error(m$bind(list(which = 3))$log_prob(NaN), "parameter vector\\[1\\] is nan")
  expect_error(tapestry_model(code = "
    functions { vector f(vector y, real a) { return y - a; } }
    parameters { real a; }
    model { target += solve_newton_tol(f, [1.0]', a, 1e-6, 10, a)[1]; }"), "must be data only")
})

test_that("a program with solvers runs on its plan, bit for bit the tree's gradients", {
  skip_without_kinsol()
  code <- "
    functions {
      vector sys(vector y, real a, real b) { return [y[1] - a + exp(-b), y[2] - square(y[1]) - b]'; }
      vector sys_old(vector y, vector theta, array[] real x_r, array[] int x_i) { return sys(y, theta[1], theta[2]); }
    }
    parameters { real a; real<lower=0> b; }
    model {
      vector[2] y = solve_newton(sys, [1, 1]', a, b);
      vector[2] z = algebra_solver(sys_old, [1, 1]', [a, b]', {0.0}, {0});
      vector[2] w = solve_powell_tol(sys, [1, 1]', 1e-10, 1e-10, 100, a, 2.0);
      target += normal_lpdf(y | 1, 2) + z[2] + w[1];
      a ~ normal(0, 1);
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  r <- both_paths(ctx, list(c(1.7, log(0.4)), c(0.5, log(1.5))))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 0)
})
