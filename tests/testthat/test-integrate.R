# integrate_1d (src/tree/li_integrate.c, on GSL's adaptive quadrature):
# integrals in closed form on finite, half-infinite and infinite ranges, the
# xc argument, gradients by theta and by the limits against closed forms and
# finite differences, and Stan's checks.

skip_without_gsl <- function() {
  ok <- tryCatch({
    tapestry_model(code = "functions { real f(real x, real xc, array[] real t, array[] real r, array[] int i) { return x; } }
      transformed data { real v = integrate_1d(f, 0, 1, {1.0}, {0.0}, {0}); }")$bind(list())
    TRUE
  }, error = function(e) !grepl("needs the GNU Scientific Library", conditionMessage(e)))
  skip_if_not(ok, "tapestry was built without GSL")
}

test_that("normal densities integrate to their probabilities on every kind of range, with gradients", {
  skip_without_gsl()
  code <- "
    functions {
      real dens(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {
        return exp(normal_lpdf(x | theta[1], theta[2]));
      }
    }
    data { int which; real lo; real hi; }
    parameters { real mu; real<lower=0> sigma; }
    model {
      real p;
      if (which == 1) p = integrate_1d(dens, lo, hi, {mu, sigma}, {0.0}, {0}, 1e-10);
      else if (which == 2) p = integrate_1d(dens, lo, positive_infinity(), {mu, sigma}, {0.0}, {0}, 1e-10);
      else if (which == 3) p = integrate_1d(dens, negative_infinity(), hi, {mu, sigma}, {0.0}, {0}, 1e-10);
      else p = integrate_1d(dens, negative_infinity(), positive_infinity(), {mu, sigma}, {0.0}, {0}, 1e-10);
      target += log(p);
    }"
  m <- tapestry_model(code = code)
  mu <- 0.3; sigma <- 1.4; lo <- -0.5; hi <- 2
  u <- c(mu, log(sigma))
  want <- list(pnorm(hi, mu, sigma) - pnorm(lo, mu, sigma), pnorm(lo, mu, sigma, lower.tail = FALSE),
               pnorm(hi, mu, sigma), 1)
  for (w in 1:4) {
    ctx <- m$bind(list(which = w, lo = lo, hi = hi))
    expect_equal(exp(ctx$log_prob(u, jacobian = FALSE)), want[[w]], tolerance = 1e-9, info = w)
    expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-5), tolerance = 1e-6, info = w)
  }
})

test_that("limits that are parameters: the gradient is -f(a) and f(b)", {
  skip_without_gsl()
  code <- "
    functions {
      real f(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {
        return theta[1] * x ^ 2 + x_r[1];
      }
    }
    parameters { real a; real b; real c; }
    model { target += integrate_1d(f, a, b, {c}, {0.5}, {0}); }"
  ctx <- tapestry_model(code = code)$bind(list())
  a <- -0.4; b <- 1.3; cc <- 2
  F <- function(x) cc * x^3 / 3 + 0.5 * x
  expect_equal(ctx$log_prob(c(a, b, cc)), F(b) - F(a), tolerance = 1e-10)
  g <- as.vector(ctx$grad_log_prob(c(a, b, cc)))
  expect_equal(g, c(-(cc * a^2 + 0.5), cc * b^2 + 0.5, (b^3 - a^3) / 3), tolerance = 1e-9)
})

test_that("xc is the distance to the nearest limit on a finite range, NaN on an infinite one", {
  skip_without_gsl()
  code <- "
    functions {
      real f(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {
        if (x_i[1] == 1) {
          // on [0, 1]: xc = -x near 0 and 1 - x near 1
          real want = x < 0.5 ? -x : 1 - x;
          if (abs(xc - want) > 1e-12) reject(\"xc \", xc, \" at \", x);
          return sqrt(abs(xc));
        }
        if (!is_nan(xc)) reject(\"xc is not NaN on an infinite range\");
        return exp(-x);
      }
    }
    data { int which; }
    transformed data {
      real v = which == 1 ? integrate_1d(f, 0, 1, {0.0}, {0.0}, {1})
                          : integrate_1d(f, 0, positive_infinity(), {0.0}, {0.0}, {2});
    }
    generated quantities { real out = v; }"
  m <- tapestry_model(code = code)
  # the integral of sqrt(min(x, 1 - x)) over [0, 1] is 2 * (2/3) * 0.5^1.5
  expect_equal(m$bind(list(which = 1))$constrain_variables(numeric(0))$out, 4 / 3 * 0.5^1.5, tolerance = 1e-7)
  expect_equal(m$bind(list(which = 2))$constrain_variables(numeric(0))$out, 1, tolerance = 1e-8)
})

test_that("Stan's checks: limits in order, finite theta, the tolerance, a rejecting integrand", {
  skip_without_gsl()
  code <- "
    functions {
      real f(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {
        if (theta[1] > 10) reject(\"theta too large: \", theta[1]);
        return x * theta[1];
      }
    }
    data { real a; real b; real tol; }
    parameters { real t; }
    model { target += integrate_1d(f, a, b, {t}, {0.0}, {0}, tol); }"
  m <- tapestry_model(code = code)
  expect_error(m$bind(list(a = 1, b = 0, tol = 1e-8))$log_prob(1), "lower limit 1 is greater than the upper limit 0")
  expect_error(m$bind(list(a = 0, b = 1, tol = -1))$log_prob(1), "relative_tolerance is -1")
  expect_error(m$bind(list(a = 0, b = 1, tol = 1e-8))$log_prob(NaN), "theta\\[1\\] is nan")
  expect_error(m$bind(list(a = 0, b = 1, tol = 1e-8))$log_prob(11), "theta too large: 11",
               class = "tapestry_domain_error")
  expect_equal(m$bind(list(a = 2, b = 2, tol = 1e-8))$log_prob(3), 0)
  expect_error(tapestry_model(code = "
    functions { real f(real x, real xc, array[] real t, array[] real r, array[] int i) { return x; } }
    parameters { real t; }
    model { target += integrate_1d(f, 0, 1, {t}, {t}, {0}); }"), "must be data only")
})

test_that("the variadic forms: Gauss-Kronrod and double exponential, values and gradients", {
  skip_without_gsl()
  code <- "
    functions {
      real dens(real x, real xc, real mu, real s) { return exp(normal_lpdf(x | mu, s)); }
      real poly(real x, real xc, vector th, int k) { return th[1] * x^k + th[2]; }
      real xc_is(real x, real xc, int want_nan) { return want_nan ? is_nan(xc) : !is_nan(xc); }
    }
    data { real lo; real hi; }
    parameters { real mu; real<lower=0> s; vector[2] th; }
    transformed parameters {
      real p = integrate_1d_gauss_kronrod(dens, lo, hi, mu, s);
      real q = integrate_1d_double_exponential_tol(poly, 0, 2, 1e-8, 0, 10, th, 2);
      real r = integrate_1d_gauss_kronrod_tol(dens, negative_infinity(), hi, 1e-8, 1e-12, 15, mu, s);
      real d = integrate_1d_double_exponential(dens, lo, positive_infinity(), mu, s);
    }
    model { target += log(p) + q + r + log(d); }
    generated quantities {
      // xc is NaN under Gauss-Kronrod, the distance to a limit under double exponential
      real gk_nan = integrate_1d_gauss_kronrod(xc_is, 0, 1, 1);
      real de_finite = integrate_1d_double_exponential(xc_is, 0, 1, 0);
    }"
  m <- tapestry_model(code = code)
  ctx <- m$bind(list(lo = -1, hi = 0.5))
  mu <- 0.3; s <- 0.8; th <- c(1.5, -0.5)
  u <- c(mu, log(s), th)
  v <- ctx$constrain_variables(u, generated = TRUE, seed = 1)
  expect_equal(v$p, pnorm(0.5, mu, s) - pnorm(-1, mu, s), tolerance = 1e-9)
  expect_equal(v$q, th[1] * 8 / 3 + 2 * th[2], tolerance = 1e-9)
  expect_equal(v$r, pnorm(0.5, mu, s), tolerance = 1e-9)
  expect_equal(v$d, pnorm(-1, mu, s, lower.tail = FALSE), tolerance = 1e-9)
  expect_equal(v$gk_nan, 1)
  expect_equal(v$de_finite, 1)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u, 1e-5), tolerance = 1e-6)
  # the limits as parameters: -f(a) and f(b)
  ctx2 <- tapestry_model(code = "
    functions { real f(real x, real xc, real c) { return c * x^2; } }
    parameters { real a; real b; }
    model { target += integrate_1d_gauss_kronrod(f, a, b, 3.0); }")$bind(list())
  expect_equal(as.vector(ctx2$grad_log_prob(c(0.2, 1.1))), c(-3 * 0.2^2, 3 * 1.1^2), tolerance = 1e-10)
})

test_that("the variadic forms' checks: tolerances data only and in range", {
  skip_without_gsl()
  code <- "
    functions { real f(real x, real xc, real c) { return c * x; } }
    data { real atol; int depth; }
    parameters { real c; }
    model { target += integrate_1d_gauss_kronrod_tol(f, 0, 1, 1e-8, atol, depth, c); }"
  m <- tapestry_model(code = code)
  expect_error(m$bind(list(atol = -1, depth = 5))$log_prob(1), "absolute_tolerance is -1")
  expect_error(m$bind(list(atol = 0, depth = -2))$log_prob(1), "max_depth is -2")
  expect_equal(m$bind(list(atol = 0, depth = 0))$log_prob(2), 1, tolerance = 1e-12)
  expect_error(tapestry_model(code = "
    functions { real f(real x, real xc, real c) { return c * x; } }
    parameters { real c; }
    model { target += integrate_1d_gauss_kronrod_tol(f, 0, 1, c, 0, 5, c); }"), "must be data only")
  expect_error(tapestry_model(code = "
    functions { real f(real x, real xc, real c) { return c * x; } }
    parameters { real c; }
    model { target += integrate_1d_double_exponential(f, 0, 1); }"), "integrate_1d_double_exponential")
})

test_that("a program with integrals runs on its plan, bit for bit the tree's gradients", {
  skip_without_gsl()
  code <- "
    functions {
      real dens(real x, real xc, real mu, real s) { return exp(normal_lpdf(x | mu, s)); }
      real old(real x, real xc, array[] real th, array[] real x_r, array[] int x_i) { return th[1] * x^2; }
    }
    parameters { real mu; real<lower=0> s; real<lower=-1, upper=0> lo; }
    model {
      target += log(integrate_1d_gauss_kronrod(dens, lo, 1, mu, s));
      target += integrate_1d(old, 0, 1, {mu}, {0.0}, {0});
      target += log(integrate_1d_double_exponential_tol(dens, negative_infinity(), 0.5, 1e-8, 0, 12, mu, s));
      mu ~ normal(0, 1);
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  r <- both_paths(ctx, list(c(0.3, log(0.8), 0), c(-0.4, log(1.2), 1)))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 0)
})
