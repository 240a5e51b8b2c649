# The interpreter, statement by statement and expression by expression.
# Values come back through generated quantities (doubles) and log_prob
# (doubles and the tape); gradients are checked against finite differences.

gq <- function(body, data = list(), functions = "", data_decl = "") {
  code <- paste0(
    if (nzchar(functions)) paste0("functions {\n", functions, "\n}\n") else "",
    if (nzchar(data_decl)) paste0("data {\n", data_decl, "\n}\n") else "",
    "generated quantities {\n", body, "\n}\n")
  ctx <- tapestry_model(code = code)$bind(data)
  ctx$constrain_variables(numeric(0), generated_quantities = TRUE)
}

lp_fn <- function(code, data = list()) {
  ctx <- tapestry_model(code = code)$bind(data)
  list(
    ctx = ctx,
    f = function(u) ctx$log_prob(u),
    g = function(u) as.vector(ctx$grad_log_prob(u))
  )
}

expect_grad_fd <- function(m, u, tol = 1e-6) {
  g <- m$g(u)
  fd <- as.numeric(fd_jac(m$f, u, 1e-4 * pmax(1, abs(u))))
  expect_equal(g, fd, tolerance = tol)
  # the log density on doubles equals the one on the tape, to the bit
  expect_identical(m$f(u), attr(m$ctx$grad_log_prob(u), "log_prob"))
}

test_that("integer arithmetic follows Stan", {
  expect_warning(r <- gq("int a = 7 %/% 2; int b = -7 %/% 2; int c = 7 % 3; int d = -7 % 3;
           int e = 7 / 2; real f = 7.0 / 2; int g = 2 * 3 + 4; int h = 2 + 3 * 4;
           real k = 2 ^ 3 ^ 2; real m = -2 ^ 2; int n = (1 < 2) + (2 <= 2) + (3 > 4) + (1 == 1) + (1 != 1);
           int o = !0 + (1 && 0) + (0 || 1);"), "int division")
  expect_equal(r$a, 3L); expect_equal(r$b, -3L); expect_equal(r$c, 1L); expect_equal(r$d, -1L)
  expect_equal(r$e, 3L); expect_equal(r$f, 3.5); expect_equal(r$g, 10L); expect_equal(r$h, 14L)
  expect_equal(r$k, 512); expect_equal(r$m, -4); expect_equal(r$n, 3L); expect_equal(r$o, 2L)
})

test_that("conditional operator, literals and transposes", {
  r <- gq("real a = 1 > 0 ? 2.5 : 3; array[3] int b = {1, 2, 3}; row_vector[2] c = [1, 2];
           vector[2] d = [3, 4]'; matrix[2, 2] m = [[1, 2], [3, 4]]; array[2, 2] real e = {{1.0, 2}, {3, 4}};
           real f = m[2, 1]; row_vector[2] g = m[1]; vector[2] h = m[:, 2];")
  expect_equal(r$a, 2.5); expect_equal(r$b, 1:3); expect_equal(as.numeric(r$c), c(1, 2))
  expect_equal(as.numeric(r$d), c(3, 4)); expect_equal(r$m, matrix(c(1, 3, 2, 4), 2))
  expect_equal(unname(r$e), matrix(c(1, 3, 2, 4), 2)); expect_equal(r$f, 3)
  expect_equal(as.numeric(r$g), c(1, 2)); expect_equal(as.numeric(r$h), c(2, 4))
})

test_that("indexing: single, multi, slices, matrices and arrays", {
  r <- gq("vector[5] v = [1, 2, 3, 4, 5]'; array[3] int idx = {5, 1, 1};
           vector[3] a = v[idx]; vector[2] b = v[2:3]; vector[2] c = v[4:]; vector[2] d = v[:2];
           vector[0] e = v[3:2]; matrix[3, 3] m = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];
           matrix[2, 2] f = m[2:3, {1, 3}]; row_vector[3] g = m[3, :]; vector[2] h = m[{3, 1}, 2];
           array[2, 3] int z = {{1, 2, 3}, {4, 5, 6}}; array[2] int y = z[:, 2]; int w = z[2][3];")
  expect_equal(as.numeric(r$a), c(5, 1, 1)); expect_equal(as.numeric(r$b), c(2, 3))
  expect_equal(as.numeric(r$c), c(4, 5)); expect_equal(as.numeric(r$d), c(1, 2))
  expect_length(r$e, 0); expect_equal(r$f, matrix(c(4, 7, 6, 9), 2))
  expect_equal(as.numeric(r$g), c(7, 8, 9)); expect_equal(as.numeric(r$h), c(8, 2))
  expect_equal(r$y, c(2L, 5L)); expect_equal(r$w, 6L)
})

test_that("assignment to elements and slices, compound assignment", {
  r <- gq("vector[4] v = rep_vector(0, 4); v[2] = 5; v[3:4] = [7, 8]'; v[{1}] = [9]';
           matrix[2, 3] m = rep_matrix(0, 2, 3); m[1] = [1, 2, 3]; m[:, 3] = [4, 5]'; m[2, 1] = 6;
           array[2, 2] real a; a[1] = {1.0, 2.0}; a[2, 1] = 3; a[2][2] = 4;
           real x = 1; x += 2; x *= 3; x -= 1; x /= 4;
           vector[2] y = [1, 2]'; y .*= [3, 4]'; y ./= [2, 2]'; y += 1;
           int k = 5; k += 2;")
  expect_equal(as.numeric(r$v), c(9, 5, 7, 8))
  expect_equal(r$m, matrix(c(1, 6, 2, 0, 4, 5), 2))
  expect_equal(unname(r$a), matrix(c(1, 3, 2, 4), 2))
  expect_equal(r$x, 2); expect_equal(as.numeric(r$y), c(2.5, 5)); expect_equal(r$k, 7L)
})

test_that("loops, while, break, continue, if/else, nested blocks", {
  r <- gq("int s = 0; for (i in 1:10) { if (i == 3) continue; if (i > 6) break; s += i; }
           int w = 0; while (w < 5) w += 2;
           real t = 0; for (x in [1.5, 2.5]) t += x;
           int u = 0; for (x in {3, 4}) u += x;
           real mm = 0; for (x in [[1, 2], [3, 4]]) mm = mm * 10 + x;
           int c = 0; if (s > 100) c = 1; else if (s > 10) c = 2; else c = 3;
           int e = 0; for (i in 3:1) e += 1;
           { int inner = 4; c += inner; }")
  expect_equal(r$s, 1L + 2L + 4L + 5L + 6L); expect_equal(r$w, 6L); expect_equal(r$t, 4)
  expect_equal(r$u, 7L); expect_equal(r$mm, 1324); expect_equal(r$c, 6L); expect_equal(r$e, 0L)
})

test_that("user functions: recursion, void functions, forward declarations, promotion", {
  r <- gq("int f5 = fib(10); real h = half(3); vector[3] d = twice([1, 2, 3]');",
          functions = "int fib(int n);
                       int fib(int n) { if (n < 2) return n; return fib(n - 1) + fib(n - 2); }
                       real half(real x) { return x / 2; }
                       vector twice(vector x) { vector[rows(x)] y = 2 * x; return y; }
                       void nothing(real x) { }")
  expect_equal(r$f5, 55L); expect_equal(r$h, 1.5); expect_equal(as.numeric(r$d), c(2, 4, 6))
})

test_that("print and reject reach R", {
  code <- "parameters { real mu; } model { print(\"mu = \", mu, \" v = \", [1, 2]); mu ~ normal(0, 1); }"
  ctx <- tapestry_model(code = code)$bind(list())
  expect_output(ctx$log_prob(0.5), "mu = 0.5 v = \\[1,2\\]")
  code <- "parameters { real mu; } model { if (mu > 1) reject(\"mu too large: \", mu); mu ~ normal(0, 1); }"
  ctx <- tapestry_model(code = code)$bind(list())
  expect_error(ctx$log_prob(2), "mu too large: 2", class = "tapestry_domain_error")
  expect_equal(ctx$log_prob(0), 0)
})

test_that("~ drops constants, target += keeps them, and truncation normalises", {
  m1 <- lp_fn("parameters { real mu; } model { mu ~ normal(1, 2); }")
  m2 <- lp_fn("parameters { real mu; } model { target += normal_lpdf(mu | 1, 2); }")
  m3 <- lp_fn("parameters { real mu; } model { target += normal_lupdf(mu | 1, 2); }")
  expect_equal(m1$f(0.3), -0.5 * ((0.3 - 1) / 2)^2)
  expect_equal(m2$f(0.3), dnorm(0.3, 1, 2, log = TRUE))
  expect_equal(m3$f(0.3), m1$f(0.3))
  m4 <- lp_fn("data { real y; } parameters { real<lower=0> s; } model { y ~ normal(0, s) T[-1, 2]; }",
              list(y = 0.5))
  s <- 1.3
  expect_equal(m4$f(log(s)),
               dnorm(0.5, 0, s, log = TRUE) + 0.5 * log(2 * pi) -
                 log(pnorm(2, 0, s) - pnorm(-1, 0, s)) + log(s), tolerance = 1e-12)
  expect_grad_fd(m4, log(s))
})

test_that("element assignment on the tape: gradients through loops and overwrites", {
  code <- "
  parameters { vector[3] x; real a; }
  transformed parameters {
    vector[3] y;
    for (i in 1:3) y[i] = a * x[i];
    y[2] = y[2] + y[1] * y[3];
    y = y .* y;
  }
  model {
    vector[3] z = y;
    z[1] = exp(z[1]) - z[3];
    target += -0.5 * dot_self(z) + sum(y);
    a ~ normal(0, 1);
  }"
  m <- lp_fn(code)
  expect_grad_fd(m, c(0.2, -0.4, 0.7, 0.9))
  expect_grad_fd(m, c(-0.3, 0.1, 0.5, -1.2))
})

test_that("a matrix element overwritten after the matrix was used keeps earlier uses right", {
  code <- "
  parameters { real s; real t; }
  model {
    matrix[2, 2] K = [[1 + s^2, t], [t, 2 + t^2]];
    real before = sum(K * K);
    K[1, 1] = K[1, 1] + s^2;
    target += before - 0.5 * sum(K);
  }"
  m <- lp_fn(code)
  expect_grad_fd(m, c(0.3, 0.4))
})

test_that("errors inside model code name the Stan line", {
  bad <- function(body, u = c(0, 0)) {
    code <- paste0("data { int N; vector[N] y; }\nparameters { real mu; real s; }\nmodel {\n", body, "\n}\n")
    ctx <- tapestry_model(code = code)$bind(list(N = 3, y = c(1, 2, 3)))
    ctx$log_prob(u)
  }
  expect_snapshot(error = TRUE, bad("  vector[N] z;\n  z[N + 1] = 1;"))
  expect_snapshot(error = TRUE, bad("  vector[N] z = y;\n  z = y[1:2];"))
  expect_snapshot(error = TRUE, bad("  y ~ normal(mu, s);", c(0, -1)))
  expect_snapshot(error = TRUE, bad("  array[2] int k = {1, 2};\n  target += k[0];"))
  expect_snapshot(error = TRUE, bad("  matrix[2, 2] m = rep_matrix(0, 2, 2);\n  target += m[1, 3];"))
  expect_error(bad("  y ~ normal(mu, s);", c(0, -1)), class = "tapestry_domain_error")
})

test_that("transformed parameters are checked against their constraints after the block", {
  code <- "parameters { real a; } transformed parameters { real<lower=0> b = a; } model { a ~ normal(0, 1); }"
  ctx <- tapestry_model(code = code)$bind(list())
  expect_equal(ctx$log_prob(0.5), -0.125)
  expect_snapshot(error = TRUE, ctx$log_prob(-0.5))
})

test_that("transformed data runs once with random numbers from the bind seed", {
  code <- "transformed data { real z = normal_rng(0, 1); } parameters { real mu; } model { mu ~ normal(z, 1); }
           generated quantities { real zz = z; }"
  m <- tapestry_model(code = code)
  z1 <- m$bind(list(), seed = 1)$constrain_variables(0)$zz
  z1b <- m$bind(list(), seed = 1)$constrain_variables(0)$zz
  z2 <- m$bind(list(), seed = 2)$constrain_variables(0)$zz
  expect_identical(z1, z1b)
  expect_false(identical(z1, z2))
})

test_that("a user _lpdf called as _lpdf keeps the constants of its _lupdf calls", {
  f <- "real foo_lpdf(real y, real mu) { return normal_lupdf(y | mu, 1); }"
  full <- lp_fn(paste0("functions {", f, "} parameters { real mu; } model { target += foo_lpdf(0.5 | mu); }"))
  drop <- lp_fn(paste0("functions {", f, "} parameters { real mu; } model { target += foo_lupdf(0.5 | mu); }"))
  tilde <- lp_fn(paste0("functions {", f, "} parameters { real mu; } model { 0.5 ~ foo(mu); }"))
  expect_equal(full$f(0.2), dnorm(0.5, 0.2, 1, log = TRUE))
  expect_equal(drop$f(0.2), -0.5 * 0.3^2)
  expect_equal(tilde$f(0.2), -0.5 * 0.3^2)
  expect_grad_fd(full, 0.2)
})

test_that("truncation of a container: one normalizer per element, as stanc3 lowers it", {
  code <- "
    data { int which; vector[3] y; array[3] int k; }
    parameters { real mu; real<lower=0> s; vector[3] m; }
    model {
      if (which == 1) y ~ normal(mu, s) T[-1, 2];
      if (which == 2) y ~ normal(m, s) T[-1, 2];
      if (which == 3) y ~ normal(mu, s) T[-1, ];
      if (which == 4) y ~ normal(m, s) T[, 2];
      if (which == 5) k ~ poisson(exp(m)) T[1, 6];
      if (which == 6) k ~ poisson(exp(mu)) T[1, ];
      if (which == 7) y ~ normal(mu, s) T[-1, 1];   // y[3] = 1.2 is outside
    }"
  m <- tapestry_model(code = code)
  y <- c(0.3, -0.5, 1.2); k <- c(2L, 1L, 4L); mu <- 0.2; s <- 0.9; mm <- c(0.1, 0.5, -0.3)
  u <- c(mu, log(s), mm)
  # ~ drops normal's -log(2 pi) / 2 and poisson's -lgamma(k + 1)
  cn <- 3 * 0.5 * log(2 * pi); cp <- sum(lgamma(k + 1))
  ref <- c(
    sum(dnorm(y, mu, s, log = TRUE) - log(pnorm(2, mu, s) - pnorm(-1, mu, s))) + cn,
    sum(dnorm(y, mm, s, log = TRUE) - log(pnorm(2, mm, s) - pnorm(-1, mm, s))) + cn,
    sum(dnorm(y, mu, s, log = TRUE) - log(1 - pnorm(-1, mu, s))) + cn,
    sum(dnorm(y, mm, s, log = TRUE) - log(pnorm(2, mm, s))) + cn,
    sum(dpois(k, exp(mm), log = TRUE) - log(ppois(6, exp(mm)) - ppois(0, exp(mm)))) + cp,
    sum(dpois(k, exp(mu), log = TRUE) - log(1 - ppois(0, exp(mu)))) + cp,
    -Inf)
  for (w in 1:7) {
    ctx <- m$bind(list(which = w, y = y, k = k))
    expect_equal(ctx$log_prob(u, jacobian = FALSE), ref[w], tolerance = 1e-12, info = w)
    if (w < 7) {
      expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6, info = w)
      r <- both_paths(ctx, list(u, u + 0.1))
      expect_identical(r$plan, r$tree, info = w)
    }
  }
})
