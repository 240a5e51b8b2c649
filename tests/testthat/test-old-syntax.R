# Stan 2.21's statements and function names that Stan 2.33 removed, which
# programs written for rstan 2.21 still use (src/front/lp_stmt.c,
# lc_call.c, lc_stmt.c): each is read as what replaced it, with a warning
# naming the replacement, and gives the log density and gradient of the
# program written the current way.

# The program in old and current spelling: the same log density and
# gradient at a few points, and the warnings the old one gave (one line
# each; tapestry_model() gives them as one R warning).
same_as_current <- function(old, current, data = list(), n = 1, seed = 1) {
  warnings <- character()
  m_old <- withCallingHandlers(tapestry_model(code = old), warning = function(w) {
    warnings <<- c(warnings, strsplit(conditionMessage(w), "\n", fixed = TRUE)[[1]])
    invokeRestart("muffleWarning")
  })
  m_new <- expect_silent(tapestry_model(code = current))
  c_old <- m_old$bind(data)
  c_new <- m_new$bind(data)
  set.seed(seed)
  for (k in 1:3) {
    u <- stats::rnorm(n, sd = 0.5)
    expect_identical(c_old$grad_log_prob(u), c_new$grad_log_prob(u))
  }
  warnings
}

test_that("`x <- e;` is an assignment, indexed or not; `x < -e` in an expression stays a comparison", {
  w <- same_as_current(
    "parameters { real y; } model { vector[2] z; real a; a <- y; z[1] <- -a; z[2]<-2 * a + 1; z ~ normal(0, 1); }",
    "parameters { real y; } model { vector[2] z; real a; a = y; z[1] = -a; z[2] = 2 * a + 1; z ~ normal(0, 1); }")
  expect_length(w, 3)
  expect_match(w, "assignment with '<-' is deprecated (Stan 2.33 removed it); write '='", fixed = TRUE)
  expect_silent(m <- tapestry_model(code = "parameters { real y; } model { if (y <-1) target += y; y ~ normal(0, 1); }"))
  ctx <- m$bind(list())
  expect_equal(ctx$log_prob(-2), -2 + dnorm(-2, log = TRUE) + 0.5 * log(2 * pi))
  expect_equal(ctx$log_prob(0), dnorm(0, log = TRUE) + 0.5 * log(2 * pi))
  # the left side must still be a variable the block may assign
  expect_error(tapestry_model(code = "data { real d; } parameters { real y; } model { d <- y; }"), "d")
})

test_that("increment_log_prob(e) is target += e, and get_lp() is target()", {
  w <- same_as_current(
    "parameters { real y; } model { real t; increment_log_prob(-0.5 * y^2); t <- get_lp(); increment_log_prob(0.1 * t); }",
    "parameters { real y; } model { real t; target += -0.5 * y^2; t = target(); target += 0.1 * t; }")
  expect_match(w[1], "increment_log_prob(...) is deprecated (Stan 2.33 removed it); write 'target += ...'", fixed = TRUE)
  expect_true(any(grepl("get_lp() is deprecated (Stan 2.33 removed it); write target()", w, fixed = TRUE)))
  expect_error(tapestry_model(code = "parameters { real y; } model { increment_log_prob(y, y); }"),
               "increment_log_prob takes one argument")
})

test_that("densities and cdfs by their _log, _cdf_log and _ccdf_log names; cdfs with commas", {
  w <- same_as_current(
    "data { int n; } parameters { real y; real<lower=0> s; }
     model { target += normal_log(y, 0, s) + lognormal_log(s, 0, 1) + poisson_log(n, s) + poisson_log_log(n, y)
                       + normal_cdf_log(y, 0, 2) + normal_ccdf_log(y, 1, 2) + binomial_coefficient_log(5 + s, 2)
                       + log(normal_cdf(y, 0, 3)); }",
    "data { int n; } parameters { real y; real<lower=0> s; }
     model { target += normal_lpdf(y | 0, s) + lognormal_lpdf(s | 0, 1) + poisson_lpmf(n | s) + poisson_log_lpmf(n | y)
                       + normal_lcdf(y | 0, 2) + normal_lccdf(y | 1, 2) + lchoose(5 + s, 2)
                       + log(normal_cdf(y | 0, 3)); }",
    data = list(n = 3L), n = 2)
  expect_true(all(c("normal_log is deprecated (Stan 2.33 removed it); write normal_lpdf",
                    "poisson_log is deprecated (Stan 2.33 removed it); write poisson_lpmf",
                    "poisson_log_log is deprecated (Stan 2.33 removed it); write poisson_log_lpmf",
                    "normal_cdf_log is deprecated (Stan 2.33 removed it); write normal_lcdf",
                    "normal_ccdf_log is deprecated (Stan 2.33 removed it); write normal_lccdf",
                    "binomial_coefficient_log is deprecated (Stan 2.33 removed it); write lchoose",
                    "normal_cdf(y, ...) is deprecated (Stan 2.33 removed it); write normal_cdf(y | ...)") %in%
                  sub("^.*warning: ", "", w)))
  # a name the library has keeps its meaning (multiply_log is a function of its own)
  expect_silent(tapestry_model(code = "parameters { real<lower=0> y; } model { target += multiply_log(2, y) - y; }"))
})

test_that("if_else(c, a, b) is c ? a : b", {
  w <- same_as_current(
    "parameters { real y; } model { target += if_else(y > 0, -y, 2 * y) + normal_lpdf(y | 0, 1); }",
    "parameters { real y; } model { target += (y > 0 ? -y : 2 * y) + normal_lpdf(y | 0, 1); }")
  expect_match(w, "if_else(c, a, b) is deprecated (Stan 2.33 removed it); write c ? a : b", fixed = TRUE)
})

test_that("a user-defined density named foo_log serves ~ and direct calls; user functions keep their names", {
  w <- same_as_current(
    "functions { real foo_log(real y, real m) { return -square(y - m); } real my_log(real x) { return log(x); } }
     parameters { real y; } model { y ~ foo(1); target += foo_log(y, 2) + my_log(3); }",
    "functions { real foo_lpdf(real y, real m) { return -square(y - m); } real my_log(real x) { return log(x); } }
     parameters { real y; } model { y ~ foo(1); target += foo_lpdf(y | 2) + my_log(3); }")
  expect_length(w, 1)
  expect_match(w, "a density named foo_log is deprecated (Stan 2.33 removed the _log suffix); name it foo_lpdf or foo_lpmf",
               fixed = TRUE)
})

test_that("integrate_ode is integrate_ode_rk45", {
  skip_without_sundials()
  f <- "functions { array[] real f(real t, array[] real y, array[] real th, array[] real xr, array[] int xi) {
          return {-th[1] * y[1]}; } }
        data { array[2] real ts; } parameters { real<lower=0> k; }
        model { array[2, 1] real y = %s(f, {1.0}, 0.0, ts, {k}, rep_array(0.0, 0), rep_array(0, 0));
                target += normal_lpdf(y[2, 1] | 0.5, 0.1); k ~ normal(1, 1); }"
  w <- same_as_current(sprintf(f, "integrate_ode"), sprintf(f, "integrate_ode_rk45"), data = list(ts = c(0.5, 1)))
  expect_match(w, "integrate_ode is deprecated (Stan 2.33 removed it); write integrate_ode_rk45", fixed = TRUE)
})

test_that("lower, upper, offset and multiplier name variables, as before Stan 2.33 reserved them", {
  w <- same_as_current(
    "data { vector[2] offset; real lower; } parameters { real<lower=lower> y; }
     model { real upper = 2; y ~ normal(offset[1] + upper, 1); }",
    "data { vector[2] off; real lo; } parameters { real<lower=lo> y; }
     model { real up = 2; y ~ normal(off[1] + up, 1); }",
    data = list(offset = c(0.5, 1), lower = -1, off = c(0.5, 1), lo = -1))
  expect_true(all(c("'offset' as a name is deprecated (Stan 2.33 reserved it); rename it",
                    "'lower' as a name is deprecated (Stan 2.33 reserved it); rename it",
                    "'upper' as a name is deprecated (Stan 2.33 reserved it); rename it") %in%
                  sub("^.*warning: ", "", w)))
})
