# reduce_sum and reduce_sum_static on the thread pool: values and gradients
# against the serial sum and finite differences, reduce_sum_static's
# bit-identity across thread counts, and failures inside chunks.

# A program with a reduce_sum over x (the sliced argument) and the same sum
# written serially, selected by the data flag `serial`.
rs_program <- function(fun, sliced_decl, call_args, serial_expr, extra_params = "") {
  paste0("functions {\n", fun, "\n}\n",
         "data { int N; int K; int serial; int grain; array[N] int yi; vector[N] xr; matrix[N, K] X; }\n",
         "parameters { ", sliced_decl, " vector[K] beta; real<lower=0> sigma; ", extra_params, " }\n",
         "model {\n",
         "  beta ~ normal(0, 1); sigma ~ lognormal(0, 1);\n",
         "  if (serial) target += ", serial_expr, ";\n",
         "  else target += reduce_sum(partial, ", call_args, ");\n",
         "}\n")
}

rs_data <- function(N = 37, K = 3, serial = 0L, grain = 1L) {
  set.seed(42)
  list(N = N, K = K, serial = serial, grain = grain, yi = rpois(N, 3),
       xr = rnorm(N), X = matrix(rnorm(N * K), N, K))
}

check_against_serial <- function(code, threads = c(1, 2), grains = c(1L, 5L)) {
  mod <- tapestry_model(code = code)
  ser <- mod$bind(rs_data(serial = 1L))
  set.seed(7)
  u <- rnorm(ser$num_upars(), sd = 0.5)
  g_ser <- ser$grad_log_prob(u)
  for (grain in grains) {
    par <- mod$bind(rs_data(serial = 0L, grain = grain))
    for (th in threads) {
      with_threads(th, {
        expect_equal(par$log_prob(u), ser$log_prob(u), tolerance = 1e-12)
        g <- par$grad_log_prob(u)
        expect_equal(as.vector(g), as.vector(g_ser), tolerance = 1e-12)
        expect_equal(attr(g, "log_prob"), attr(g_ser, "log_prob"), tolerance = 1e-12)
      })
    }
  }
  par <- mod$bind(rs_data(serial = 0L))
  expect_equal(as.vector(par$grad_log_prob(u)), fd_grad(par, u), tolerance = 1e-6)
}

test_that("a sliced parameter array and shared parameters match the serial sum", {
  code <- rs_program(
    "real partial(array[] real mu_slice, int start, int end, vector xr, matrix X, vector beta, real sigma) {
       return normal_lpdf(mu_slice | xr[start:end] + X[start:end] * beta, sigma);
     }",
    "array[N] real mu;", "mu, grain, xr, X, beta, sigma",
    "normal_lpdf(mu | xr + X * beta, sigma)")
  check_against_serial(code)
})

test_that("a sliced data array with a multi-index of a shared vector matches", {
  code <- rs_program(
    "real partial(array[] int y_slice, int start, int end, vector lam, array[] int idx) {
       return poisson_log_lpmf(y_slice | lam[idx[start:end]]);
     }",
    "vector[4] lam;", "yi, grain, lam, g",
    "poisson_log_lpmf(yi | lam[g])")
  code <- sub("parameters {", "transformed data { array[N] int g; for (n in 1:N) g[n] = 1 + n % 4; }\nparameters {",
              code, fixed = TRUE)
  check_against_serial(code)
})

test_that("a sliced array of parameter vectors matches", {
  code <- rs_program(
    "real partial(array[] vector z, int start, int end, vector beta) {
       real s = 0;
       for (i in 1:size(z)) s += normal_lpdf(z[i] | beta, 1 + start * 0.01);
       return s;
     }",
    "array[N] vector[K] z;", "z, grain, beta",
    "reduce_sum_serial_placeholder")
  serial <- "0"
  code <- sub("reduce_sum_serial_placeholder", "serial_z(z, beta)", code, fixed = TRUE)
  code <- sub("functions {", "functions {
     real serial_z(array[] vector z, vector beta) {
       real s = 0;
       for (i in 1:size(z)) s += normal_lpdf(z[i] | beta, 1 + i * 0.01);
       return s;
     }", code, fixed = TRUE)
  # chunk-relative i in partial: use the global index instead
  code <- sub("1 + start * 0.01", "1 + (start + i - 1) * 0.01", code, fixed = TRUE)
  check_against_serial(code)
})

test_that("the same variable in two shared arguments gets both contributions", {
  code <- rs_program(
    "real partial(array[] real x, int start, int end, vector a, vector b) {
       return normal_lpdf(x | a[1] * 2 + b[2], 1 + b[1] ^ 2);
     }",
    "", "to_array_1d(xr), grain, beta, beta",
    "normal_lpdf(to_array_1d(xr) | beta[1] * 2 + beta[2], 1 + beta[1] ^ 2)")
  check_against_serial(code)
})

test_that("nested reduce_sum works and matches the serial sum", {
  code <- rs_program(
    "real inner(array[] real x, int start, int end, real s) {
       return normal_lpdf(x | 0, s);
     }
     real partial(array[] real x, int start, int end, vector beta, real sigma) {
       return reduce_sum(inner, x, 2, sigma) + beta[1] * (end - start + 1);
     }",
    "", "to_array_1d(xr), grain, beta, sigma",
    "normal_lpdf(to_array_1d(xr) | 0, sigma) + beta[1] * N")
  check_against_serial(code)
})

test_that("reduce_sum_static gives the same bits with 1, 2 and 8 threads", {
  code <- "
    functions {
      real partial(array[] real mu, int start, int end, vector xr, real sigma, vector beta) {
        return normal_lpdf(mu | xr[start:end] * beta[1], sigma);
      }
    }
    data { int N; vector[N] xr; int grain; }
    parameters { array[N] real mu; real<lower=0> sigma; vector[2] beta; }
    model { target += reduce_sum_static(partial, mu, grain, xr, sigma, beta); }"
  mod <- tapestry_model(code = code)
  set.seed(3)
  for (grain in c(1L, 7L, 64L)) {
    ctx <- mod$bind(list(N = 203L, xr = rnorm(203), grain = grain))
    u <- rnorm(ctx$num_upars())
    ref <- with_threads(1, ctx$grad_log_prob(u))
    for (th in c(2, 8)) {
      for (rep in 1:3) {
        g <- with_threads(th, ctx$grad_log_prob(u))
        expect_identical(g, ref)
        expect_identical(with_threads(th, ctx$log_prob(u)), attr(ref, "log_prob"))
      }
    }
  }
})

test_that("an empty sliced array gives 0, grainsize below 1 is an error naming the call", {
  code <- "
    functions { real partial(array[] real x, int s, int e, real m) { return normal_lpdf(x | m, 1); } }
    data { int N; array[N] real y; int grain; }
    parameters { real m; }
    model { target += reduce_sum(partial, y, grain, m); }"
  mod <- tapestry_model(code = code)
  ctx <- mod$bind(list(N = 0L, y = numeric(0), grain = 1L))
  expect_equal(ctx$log_prob(0.3), 0)
  expect_equal(as.vector(ctx$grad_log_prob(0.3)), 0)
  bad <- mod$bind(list(N = 2L, y = c(1, 2), grain = 0L))
  expect_snapshot(bad$log_prob(0.3), error = TRUE)
})

test_that("_rng and _lp functions cannot be passed to reduce_sum", {
  expect_snapshot(error = TRUE, {
    tapestry_model(code = "
      functions { real p_rng(array[] real x, int s, int e) { return normal_rng(0, 1); } }
      data { array[3] real y; }
      generated quantities { real z = reduce_sum(p_rng, y, 1); }")
  })
})

test_that("a failing chunk rejects the evaluation with the first failing chunk's message; the pool recovers", {
  code <- "
    functions {
      real partial(array[] real mu, int start, int end, real tau) {
        for (i in 1:size(mu))
          if (mu[i] > 5) reject(\"element \", start + i - 1, \" is too large\");
        return normal_lpdf(mu | 0, tau);
      }
    }
    data { int N; }
    parameters { array[N] real mu; real<lower=0> tau; }
    model { target += reduce_sum(partial, mu, 1, tau); }"
  mod <- tapestry_model(code = code)
  ctx <- mod$bind(list(N = 100L))
  set.seed(11)
  base <- c(rnorm(100), 0.2)
  ref <- ctx$grad_log_prob(base)
  with_threads(2, {
    failures <- 0
    for (i in 1:1000) {
      u <- base
      u[1:100] <- u[1:100] + rnorm(100, sd = 0.01)
      if (i %% 10 == 0) {
        # two failing elements: the message names the lower one
        u[c(37 + i %% 50, 90)] <- 10
        err <- tryCatch(ctx$grad_log_prob(u), error = function(e) e)
        expect_s3_class(err, "tapestry_domain_error")
        expect_match(conditionMessage(err), paste0("element ", 37 + i %% 50, " is too large"))
        failures <- failures + 1
      } else {
        ctx$grad_log_prob(u)
      }
    }
    expect_equal(failures, 100)
    # reduce_sum's partial sums may be added in another order: last bits only
    expect_equal(ctx$grad_log_prob(base), ref, tolerance = 1e-14)
  })
  expect_snapshot(ctx$log_prob(replace(base, 90, 10)), error = TRUE)
})

test_that("print inside a partial sum on several threads does not crash", {
  code <- "
    functions {
      real partial(array[] real x, int s, int e, real m) {
        print(\"chunk \", s, \":\", e);
        return normal_lpdf(x | m, 1);
      }
    }
    data { int N; array[N] real y; }
    parameters { real m; }
    model { target += reduce_sum(partial, y, 1, m); }"
  ctx <- tapestry_model(code = code)$bind(list(N = 40L, y = seq(0, 1, length.out = 40)))
  out <- with_threads(2, capture.output(lp <- ctx$log_prob(0.1)))
  expect_equal(lp, sum(dnorm(seq(0, 1, length.out = 40), 0.1, 1, log = TRUE)))
})

test_that("row blocks of a parameter matrix (X[start:end]) pass their gradient back", {
  code <- "
    functions {
      real partial(array[] real y, int start, int end, matrix M, vector b) {
        return normal_lpdf(y | M[start:end] * b, 1) + sum(M[start:end, 2]);
      }
    }
    data { int N; array[N] real y; int grain; }
    parameters { matrix[N, 2] M; vector[2] b; }
    model { target += reduce_sum(partial, y, grain, M, b); }"
  mod <- tapestry_model(code = code)
  set.seed(5)
  ctx <- mod$bind(list(N = 9L, y = rnorm(9), grain = 2L))
  u <- rnorm(ctx$num_upars())
  for (th in c(1, 2)) {
    g <- with_threads(th, as.vector(ctx$grad_log_prob(u)))
    expect_equal(g, fd_grad(ctx, u), tolerance = 1e-6)
  }
})

test_that("a plan replays only on the threads whose chunks it recorded; other threads record their own", {
  code <- "
    functions {
      real partial(array[] real y, int start, int end, real m, real s) {
        return normal_lpdf(y | m, s);
      }
    }
    data { int N; array[N] real y; }
    parameters { real m; real<lower=0> s; }
    model { target += reduce_sum(partial, y, 1, m, s); }"
  mod <- tapestry_model(code = code)
  set.seed(8)
  ctx <- mod$bind(list(N = 400L, y = rnorm(400)))
  u <- c(0.2, -0.1)
  old <- tapestry:::plans_enabled(FALSE)
  tree1 <- with_threads(1, ctx$grad_log_prob(u))
  tapestry:::plans_enabled(old)
  # recorded on 2 threads (8 chunks), then on 1 (one chunk, as the tree
  # cuts it there): two plans, and each thread count replays its own
  g2 <- with_threads(2, ctx$grad_log_prob(u))
  g1 <- with_threads(1, ctx$grad_log_prob(u))
  expect_identical(tapestry:::plan_stats(ctx)$records, 2)
  expect_identical(g1, tree1)
  expect_equal(g2, tree1, tolerance = 1e-13)
  for (k in 1:3) {
    expect_identical(with_threads(2, ctx$grad_log_prob(u)), g2)
    expect_identical(with_threads(1, ctx$grad_log_prob(u)), g1)
  }
  s <- tapestry:::plan_stats(ctx)
  expect_identical(s$records, 2)
  expect_identical(s$replays, 6)
})
