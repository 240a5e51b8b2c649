# parallel_map(f, grainsize, a1, ...): values and gradients against the
# same program written as a loop and against finite differences, with 1 and
# 2 threads, through both strategies (eager local gradients, and append for
# large broadcast autodiff arguments); the checker's and the runtime's
# errors.

# Runs code with the strategy's threshold (reals of broadcast autodiff
# arguments above which parallel_map appends) set to `above`.
pm_with_above <- function(above, code) {
  old <- .Call(C_tp_pmap_threshold, as.numeric(above))
  on.exit(.Call(C_tp_pmap_threshold, old))
  code
}

# Log density and gradient at u with 1 and 2 threads, which agree to the
# bit with eager local gradients (elements are computed independently and
# their partials added in element order, whoever ran them); the append
# strategy's sweep adds the elements' shares in the order the threads
# recorded them.
pm_eval <- function(ctx, u, exact = TRUE) {
  one <- with_threads(1, list(lp = ctx$log_prob(u), g = as.vector(ctx$grad_log_prob(u))))
  two <- with_threads(2, list(lp = ctx$log_prob(u), g = as.vector(ctx$grad_log_prob(u))))
  if (exact) expect_identical(two, one) else expect_equal(two, one, tolerance = 1e-14)
  one
}

test_that("lbeta_map matches the serial loop and Stan's reference values", {
  code <- paste(readLines(ext("lbeta_map.stan")), collapse = "\n")
  serial <- sub("vector[N] mu = parallel_map(lbeta_fn, 100, x, alpha, beta);",
                "vector[N] mu;\n  for (i in 1:N) mu[i] = lbeta_fn(x[i], alpha, beta);", code, fixed = TRUE)
  expect_false(identical(serial, code))
  data <- jsonlite::read_json(ext("lbeta_map.data.json"), simplifyVector = TRUE)
  ref <- jsonlite::read_json(ext("lbeta_map.reference.json"), simplifyVector = TRUE)$points
  par <- tapestry_model(code = code)$bind(data)
  ser <- tapestry_model(code = serial)$bind(data)
  for (i in seq_along(ref$upars)) {
    u <- ref$upars[[i]]
    p <- pm_eval(par, u)
    s <- list(lp = ser$log_prob(u), g = as.vector(ser$grad_log_prob(u)))
    expect_equal(p$lp, s$lp, tolerance = 1e-12)
    expect_equal(p$g, s$g, tolerance = 1e-12)
    expect_equal(p$lp, ref$log_prob[i], tolerance = 1e-8)
    expect_equal(p$g, ref$gradient[[i]], tolerance = 1e-8)
    expect_equal(par$log_prob(u, jacobian = FALSE), ref$log_prob_nojac[i], tolerance = 1e-8)
  }
})

# A program using every way of passing arguments, and the same program with
# loops.  f: an indexed real, int and vector (array[] vector), broadcast
# vector, matrix and real; g: the two-index form with a broadcast matrix.
pm_code <- function(loop) {
  body <- if (loop) "
  vector[N] m;
  matrix[R, C] P;
  for (i in 1:N) m[i] = f(x[i], k[i], z[i], th, S, s);
  for (j in 1:C) for (i in 1:R) P[i, j] = g(A[i, j], B[i, j], S, w);" else "
  vector[N] m = parallel_map(f, 2, x, k, z, th, S, s);
  matrix[R, C] P = parallel_map(g, {2, 1}, A, B, S, w);"
  paste0("
functions {
  real f(real x, int k, vector z, vector th, matrix S, real s) {
    return x * th[k] + dot_product(z, th[1:2]) + s * S[1, 2] + sin(x * s);
  }
  real g(real a, real b, matrix S, vector w) { return a * b + exp(b) * S[2, 1] + sum(w) * a; }
}
data { int N; int R; int C; vector[N] x; array[N] int k; matrix[R, C] A; }
parameters { array[N] vector[2] z; vector[3] th; matrix[2, 2] S; real s; matrix[R, C] B; vector[2] w; }
model {", body, "
  target += sum(m .* m) / 10 + sum(P) / 4 + normal_lpdf(to_vector(B) | 0, 1);
}
generated quantities {", body, "
}")
}

test_that("values and gradients equal the loop's and finite differences", {
  data <- list(N = 7L, R = 3L, C = 2L, x = seq(-1, 1, length.out = 7), k = c(1L, 3L, 2L, 3L, 1L, 2L, 2L),
               A = matrix(c(0.5, -1, 2, 0.1, 0.3, -0.7), 3))
  par <- tapestry_model(code = pm_code(FALSE))$bind(data)
  ser <- tapestry_model(code = pm_code(TRUE))$bind(data)
  set.seed(3)
  u <- rnorm(par$num_upars()) / 2
  s <- list(lp = ser$log_prob(u), g = as.vector(ser$grad_log_prob(u)))
  for (above in c("1e15", "0")) {         # eager, then append
    p <- pm_with_above(above, pm_eval(par, u, exact = above != "0"))
    expect_equal(p$lp, s$lp, tolerance = 1e-12)
    expect_equal(p$g, s$g, tolerance = 1e-12)
  }
  expect_equal(s$g, fd_grad(ser, u), tolerance = 1e-6)
  expect_equal(p$g, fd_grad(par, u), tolerance = 1e-6)
  # on doubles (generated quantities), in parallel
  gq_ser <- ser$constrain_variables(u, generated_quantities = TRUE)
  gq_par <- with_threads(2, par$constrain_variables(u, generated_quantities = TRUE))
  expect_equal(dim(gq_par$P), c(3L, 2L))
  expect_identical(gq_par$m, gq_ser$m)
  expect_identical(gq_par$P, gq_ser$P)
})

test_that("a large broadcast vector takes the append strategy, with the same gradient", {
  # 300 broadcast reals is above the threshold (64): each element reads one
  code <- function(loop) paste0("
    functions { real f(real x, int j, vector th) { return x * th[j] + th[j]^2; } }
    data { int N; int M; vector[N] x; array[N] int j; }
    parameters { vector[M] th; }
    model {", if (loop) "vector[N] m; for (i in 1:N) m[i] = f(x[i], j[i], th);"
              else "vector[N] m = parallel_map(f, 1, x, j, th);", "
      target += -0.5 * dot_self(m) - 0.5 * dot_self(th);
    }")
  set.seed(4)
  data <- list(N = 60L, M = 300L, x = rnorm(60), j = c(1:20, sample.int(250L, 40)))
  par <- tapestry_model(code = code(FALSE))$bind(data)
  ser <- tapestry_model(code = code(TRUE))$bind(data)
  u <- rnorm(300) / 3
  p <- pm_eval(par, u, exact = FALSE)
  expect_equal(p$lp, ser$log_prob(u), tolerance = 1e-12)
  expect_equal(p$g, as.vector(ser$grad_log_prob(u)), tolerance = 1e-12)
  # finite differences on entries read, and on one not read (299)
  idx <- c(1:3, data$j[41], 299L)
  fd <- vapply(idx, function(i) {
    up <- u; dn <- u
    up[i] <- up[i] + 1e-6; dn[i] <- dn[i] - 1e-6
    (par$log_prob(up) - par$log_prob(dn)) / 2e-6
  }, 0)
  expect_equal(p$g[idx], fd, tolerance = 1e-6)
  # the eager strategy, forced, agrees
  expect_equal(pm_with_above("1e15", pm_eval(par, u)), p, tolerance = 1e-12)
})

test_that("an element that fails fails the evaluation with the lowest element's message", {
  code <- "
    functions {
      real f(real x, real t) {
        if (x > 2) reject(\"x is \", x);
        return x * t;
      }
    }
    data { int N; vector[N] x; }
    parameters { real t; }
    model { target += sum(parallel_map(f, 1, x, t)); }"
  ctx <- tapestry_model(code = code)$bind(list(N = 40L, x = c(rep(0, 30), 3, 2.5, rep(5, 8))))
  for (k in 1:2) {
    expect_error(with_threads(k, ctx$log_prob(0.5)), "x is 3 (in 'string', line 4", fixed = TRUE)
    expect_error(with_threads(k, ctx$grad_log_prob(0.5)), "x is 3 (in 'string', line 4", fixed = TRUE)
  }
  # and nothing is left behind: a correct evaluation follows
  x <- seq(-1, 2, length.out = 40)
  ok <- tapestry_model(code = code)$bind(list(N = 40L, x = x))
  expect_equal(with_threads(2, as.vector(ok$grad_log_prob(0.5))), sum(x), tolerance = 1e-12)
  expect_equal(ok$log_prob(0.5), 0.5 * sum(x), tolerance = 1e-12)
})

test_that("empty arguments give an empty result", {
  code <- "
    functions { real f(real x, real t) { return x * t; } }
    data { int N; vector[N] x; matrix[N, 2] A; }
    parameters { real t; }
    model { target += sum(parallel_map(f, 1, x, t)) + sum(parallel_map(f, 1, A, t)) + t; }
    generated quantities { vector[N] m = parallel_map(f, 1, x, t); matrix[N, 2] P = parallel_map(f, 1, A, t); }"
  ctx <- tapestry_model(code = code)$bind(list(N = 0L, x = numeric(0), A = matrix(0, 0, 2)))
  expect_equal(as.vector(ctx$grad_log_prob(0.3)), 1)
  gq <- ctx$constrain_variables(0.3, generated_quantities = TRUE)
  expect_length(gq$m, 0)
})

test_that("sizes that differ and bad grainsizes are errors", {
  F <- "functions { real f(real x, real y) { return x * y; } real g(real x, vector y) { return x; } }"
  expect_snapshot(error = TRUE, {
    tp_check(paste(F, "data { vector[3] a; vector[4] b; } model { vector[3] m = parallel_map(f, 1, a, b); }"))
    tp_check(paste(F, "model { vector[3] m = parallel_map(f, 1, [1, 2, 3]', {1.0, 2.0}); }"))
    tp_check(paste(F, "data { matrix[2, 3] A; matrix[3, 3] B; } model { matrix[2, 3] m = parallel_map(f, 1, A, B); }"))
    tp_check(paste(F, "data { int N; matrix[N, 3] A; matrix[N, 2] B; } model { matrix[N, 3] m = parallel_map(f, 1, A, B); }"))
    tp_check(paste(F, "data { matrix[2, 3] A; vector[3] b; } model { matrix[2, 3] m = parallel_map(f, 1, A, b); }"))
    tp_check(paste(F, "data { vector[3] a; } model { vector[3] m = parallel_map(f, {1, 2}, a, a); }"))
    tp_check(paste(F, "data { matrix[3, 3] A; } model { matrix[3, 3] m = parallel_map(f, {1, 2, 3}, A, A); }"))
    tp_check(paste(F, "data { matrix[3, 3] A; } model { matrix[3, 3] m = parallel_map(g, 1, A, A); }"))
    tp_check(paste(F, "data { real a; } model { vector[3] m = parallel_map(f, 1, a, a); }"))
  })
  code <- "
    functions { real f(real x, real y) { return x * y; } }
    data { int N; int M; vector[N] a; vector[M] b; int G; array[2] int GP; matrix[N, 2] A; matrix[M, 2] B; }
    parameters { real t; }
    model { target += t * sum(parallel_map(f, G, a, b)); }
    generated quantities { matrix[N, 2] P = parallel_map(f, GP, A, B); }"
  mod <- tapestry_model(code = code)
  d <- list(N = 3L, M = 4L, a = c(1, 2, 3), b = c(1, 2, 3, 4), G = 1L, GP = c(1L, 1L),
            A = matrix(0, 3, 2), B = matrix(0, 4, 2))
  ctx <- mod$bind(d)
  d$M <- 3L; d$b <- c(1, 2, 3); d$B <- matrix(0, 3, 2); d$G <- 0L
  ctx0 <- mod$bind(d)
  d$G <- 2L; d$GP <- c(2L, 0L)
  ctxp <- mod$bind(d)
  expect_snapshot(error = TRUE, {
    ctx$log_prob(1)
    ctx0$log_prob(1)
    ctx$constrain_variables(1, generated_quantities = TRUE)
    ctxp$constrain_variables(1, generated_quantities = TRUE)
  })
})

test_that("tm_parallel_map works from C, on both strategies", {
  # the entry (src/r/r_pmaptest.c) drives the C API with a data, an indexed
  # and a broadcast operand, and compares with the analytic gradient
  run <- function(n, m, strategy, fail_at = 0L) {
    .Call(C_tp_pmap_test, as.integer(n), as.integer(m), as.integer(strategy), as.integer(fail_at))
  }
  for (k in 1:3) with_threads(k, {
    for (nm in list(c(1, 1), c(7, 3), c(100, 5), c(300, 200))) {
      for (strategy in 0:2) {
        r <- run(nm[1], nm[2], strategy)
        expect_lt(max(r[1:3]), 1e-13)
        # auto: eager up to 64 broadcast reals, append above
        want <- if (strategy > 0) strategy else if (nm[2] > 64) 2 else 1
        expect_equal(r[["strategy"]], want)
      }
    }
    for (strategy in 1:2) {
      r <- run(100, 5, strategy, fail_at = 37L)
      expect_identical(as.vector(r), "pmt: element 37 fails")
      expect_identical(attr(r, "status"), 1L)
    }
  })
})
