# Recorded plans (src/plan): the gradient from a replayed plan equals the
# tree interpreter's bit for bit, for every bundled program and every brms
# fixture, at many points; guards send an evaluation back to the tree and
# record again when a decision on a parameter changes; what plans do not
# follow yet stays on the tree and says why.

test_that("every bundled program: plans give the tree's bits, and loops replay", {
  set.seed(11)
  on_tree <- character()
  for (f in ext_files("\\.stan$")) {
    nm <- sub("\\.stan$", "", basename(f))
    data <- ext(paste0(nm, ".data.json"))
    if (!nzchar(data)) data <- ext("logistic.data.json")
    if (nm %in% c("logistic_reduce", "hier_poisson_reduce")) {
      data <- jsonlite::fromJSON(data)
      data$grainsize <- 1L
    }
    ctx <- suppressWarnings(tapestry_model(f))$bind(data)
    for (jac in c(TRUE, FALSE)) {
      r <- both_paths(ctx, points_for(ctx), jacobian = jac)
      expect_identical(r$plan, r$tree, label = paste(nm, "through the plan"))
    }
    s <- r$stats
    if (nm %in% on_tree) {
      expect_equal(s$replays, 0, label = paste(nm, "replays"))
      expect_match(s$why, "^map_rect \\(its plan is to come\\)$", label = paste(nm, "why"))
    } else {
      expect_gt(s$replays, 15, label = paste(nm, "replays"))
      expect_equal(s$fallbacks, 0, label = paste(nm, "fallbacks"))
      expect_identical(s$why, "", label = paste(nm, "why"))
    }
  }
})

test_that("every brms fixture: plans give the tree's bits", {
  set.seed(12)
  dir <- test_path("fixtures", "brms")
  for (f in list.files(dir, "\\.stan$", full.names = TRUE)) {
    nm <- sub("\\.stan$", "", basename(f))
    ctx <- suppressWarnings(tapestry_model(f))$bind(file.path(dir, paste0(nm, ".data.json")))
    r <- both_paths(ctx, points_for(ctx, k = 3, sd = 0.5))
    expect_identical(r$plan, r$tree, label = paste(nm, "through the plan"))
  }
})

test_that("a branch on a parameter is a guard: the other side runs on the tree and records again", {
  code <- "
    parameters { real theta; vector[3] v; }
    model {
      real s = 0;
      if (theta > 0) s = theta * 2; else s = exp(theta);
      for (i in 1:3) if (v[i] < theta) s += v[i] ^ 2; else s += log1p(v[i]^2);
      while (s > 100) s = s / 2;
      target += -0.5 * s - 0.5 * dot_self(v) + (theta > 1 ? sin(theta) : cos(theta));
    }"
  ctx <- tapestry_model(code = code)$bind(list())
  set.seed(3)
  pts <- list(c(1, 0, 2, -1), c(-1, 0, 2, -1), c(2, 3, -4, 5), c(1, 0, 2, -1), c(-0.5, -1, 1, 0),
              c(1, 0, 2, -1), c(30, 40, 50, 60))
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  s <- r$stats
  expect_gt(s$fallbacks, 0)
  expect_gt(s$records, 1)
  expect_lte(s$records, 2 * 4)   # PL_MAX_RECORDS per Jacobian setting
  # with the records spent, the tree: still the same bits
  more <- both_paths(ctx, rev(pts))
  expect_identical(more$plan, more$tree)
  # gradients against finite differences, through plans
  for (u in list(c(0.3, 0.1, 2, -1.5), c(-0.7, 0.2, -2, 1), c(1.4, 3, -4, 5))) {
    g <- as.vector(ctx$grad_log_prob(u))
    expect_equal(g, fd_grad(ctx, u), tolerance = 1e-6)
  }
})

test_that("element writes, slices, whole assignments and copies replay exactly", {
  code <- "
    functions {
      vector shift(vector x) { vector[rows(x)] y = x; y[2:rows(x)] = x[1:(rows(x) - 1)]; return y; }
    }
    data { int N; vector[N] y; }
    parameters { vector[N] z; real<lower=0> s; matrix[2, 2] M; }
    transformed parameters {
      vector[N] w = shift(z);
      w[1] = w[N];
      w = reverse(w);
    }
    model {
      matrix[2, 2] K = M;
      K[1, 2] = K[2, 1];
      K[2] = K[1];
      array[2] real a = {z[1], s};
      a[1] = a[2] * a[1];
      y ~ normal(w + a[1], s);
      to_vector(K) ~ normal(0, 1);
      z ~ std_normal();
    }"
  ctx <- tapestry_model(code = code)$bind(list(N = 5L, y = c(0.1, -0.3, 0.8, 1.2, -0.4)))
  set.seed(4)
  r <- both_paths(ctx, points_for(ctx, k = 6))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 5)
  u <- stats::rnorm(ctx$num_upars())
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
})

test_that("a rejection during replay gives the tree's error, and replay goes on after it", {
  code <- "
    parameters { real mu; }
    transformed parameters { real<upper=1> e = exp(mu); }
    model { mu ~ normal(0, 1); }"
  ctx <- tapestry_model(code = code)$bind(list())
  expect_no_error(ctx$grad_log_prob(-1))
  expect_no_error(ctx$grad_log_prob(-0.5))
  tapestry:::plans_enabled(FALSE)
  tree_msg <- tryCatch(ctx$grad_log_prob(1), error = conditionMessage)
  tapestry:::plans_enabled(TRUE)
  plan_msg <- tryCatch(ctx$grad_log_prob(1), error = conditionMessage)
  expect_identical(plan_msg, tree_msg)
  expect_match(plan_msg, "e")
  before <- tapestry:::plan_stats(ctx)$replays
  expect_no_error(ctx$grad_log_prob(-2))
  expect_equal(tapestry:::plan_stats(ctx)$replays, before + 1)
})

test_that("print() keeps a program on the tree, and prints every time", {
  ctx <- tapestry_model(code = "parameters { real x; } model { print(\"x=\", x); x ~ std_normal(); }")$bind(list())
  out <- capture.output(for (i in 1:3) ctx$grad_log_prob(0.5))
  expect_length(grep("x=0.5", out), 3)
  s <- tapestry:::plan_stats(ctx)
  expect_equal(s$replays, 0)
  expect_match(s$why, "print")
})

test_that("sampling through plans: 2 chains at once equal 2 single runs", {
  mod <- tapestry_model(ext("ar3_loop.stan"))
  d <- ext("ar3_loop.data.json")
  run <- function(chains, ids) {
    fit <- mod$sample(data = d, chains = chains, chain_ids = ids, parallel_chains = chains, seed = 9,
                      iter_warmup = 100, iter_sampling = 50, refresh = 0, show_messages = FALSE)
    posterior::as_draws_array(fit$draws())
  }
  both <- run(2, 1:2)
  one <- run(1, 1)
  two <- run(1, 2)
  expect_identical(unclass(both)[, 1, ], unclass(one)[, 1, ])
  expect_identical(unclass(both)[, 2, ], unclass(two)[, 1, ])
})

test_that("scalar functions and normal densities with instructions of their own keep the tree's bits", {
  code <- "
    data { int N; array[N] real y; array[N] int k; real s_data; }
    parameters { real mu; real<lower=0> sigma; real x; }
    model {
      for (n in 1:N) {
        y[n] ~ normal(mu, sigma);
        k[n] ~ normal(mu, s_data);
        target += normal_lpdf(y[n] | mu * x, 1.5);
        target += normal_lupdf(mu | y[n], sigma);
        target += exp(-square(x)) + log1p(sigma) + inv_logit(mu) + fabs(x) + sqrt(sigma) + -mu;
        target += pow(sigma, 1.5) + fmax(mu, x) + fmin(y[n], x) + atan2(x, sigma) + hypot(mu, 2.0);
        target += log_sum_exp(mu, x) + fdim(sigma, 1) + log_diff_exp(sigma + 1, 0.5);
        target += log_mix(inv_logit(x), normal_lpdf(y[n] | mu, 1), normal_lpdf(y[n] | -mu, sigma));
        target += log_mix(0.3, mu, x) + log_sum_exp({mu, x * y[n], sigma}) + log_sum_exp([mu, -x]');
      }
      x ~ normal(mu, mu);    // a scale that can be negative: domain error
    }"
  d <- list(N = 4L, y = c(0.5, 0, -1.2, 2), k = c(0L, 1L, 3L, -2L), s_data = 2)
  ctx <- tapestry_model(code = code)$bind(d)
  pts <- list(c(0.5, 0, 0.2), c(0, -0.3, 0), c(1.2, 0.4, -0.7), c(0.8, 0.1, 0.8), c(2, 1, 2))
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 5)
  # mu = 0 makes normal(x | mu, mu) reject: the tree's message through the plan
  bad <- c(0, 0, 0.1)
  tapestry:::plans_enabled(FALSE)
  tree_msg <- tryCatch(ctx$grad_log_prob(bad), error = conditionMessage)
  tapestry:::plans_enabled(TRUE)
  expect_identical(tryCatch(ctx$grad_log_prob(bad), error = conditionMessage), tree_msg)
  expect_match(tree_msg, "Scale parameter|scale|sigma")
  # away from the kinks of fdim, fmax and fmin (sigma = 1, mu = x), where
  # finite differences straddle two slopes
  for (u in list(c(1.2, 0.4, -0.7), c(0.3, -0.2, 0.9), c(0.7, 0.6, -0.1)))
    expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
})

test_that("unconstrained parameters and scalar bounds replay without a call, with the tree's bits", {
  code <- "
    data { real lb; }
    parameters {
      real mu;
      real<lower=0> s;
      real<lower=lb> t;
      real<lower=negative_infinity()> w;
      real<upper=2> q;
      real<upper=lb> q2;
      real<upper=positive_infinity()> q3;
      vector<lower=0>[2] v;
      real x;
    }
    transformed parameters {
      real xb = lower_bound_jacobian(x, -1.5);
    }
    model {
      mu ~ normal(0, 2);
      s ~ normal(1, 1);
      t ~ normal(lb + 1, 1);
      w ~ normal(0, 1);
      q ~ normal(0, 1);
      q2 ~ normal(lb - 1, 2);
      q3 ~ normal(-1, 1);
      v ~ normal(1, s);
      xb ~ normal(mu, 1);
    }"
  ctx <- tapestry_model(code = code)$bind(list(lb = 0.25))
  set.seed(11)
  pts <- points_for(ctx)
  expect_paths_and_fd(ctx, pts)
  # without the Jacobian the log |J| outputs are absent
  r <- both_paths(ctx, pts, jacobian = FALSE)
  expect_identical(r$plan, r$tree)
  # mu and x need no instruction; s, t, q, q2 and lower_bound_jacobian()'s
  # bound three each (exp, + or -, and + for log |J|); w and q3 keep their
  # calls (an infinite bound is the identity), and so does the vector's bound
  one <- tapestry_model(code = "parameters { real mu; } model { mu ~ normal(0, 1); }")$bind(list())
  one$grad_log_prob(0.3)
  lower <- tapestry_model(code = "parameters { real<lower=0> s; } model { s ~ normal(0, 1); }")$bind(list())
  lower$grad_log_prob(0.3)
  expect_identical(tapestry:::plan_stats(lower)$instructions - tapestry:::plan_stats(one)$instructions, 3L)
  upper <- tapestry_model(code = "parameters { real<upper=0> s; } model { s ~ normal(0, 1); }")$bind(list())
  upper$grad_log_prob(0.3)
  expect_identical(tapestry:::plan_stats(upper)$instructions - tapestry:::plan_stats(one)$instructions, 3L)
})

test_that("densities, a scalar times a container and sums with containers run without their nodes, with the tree's bits", {
  code <- "
    data { int N; vector[N] y; real c; int k; matrix[2, 3] D; }
    parameters {
      real mu;
      real<lower=0> tau;
      vector[N] z;
      row_vector[3] r;
      matrix[2, 3] M;
      real<lower=0> sigma;
    }
    transformed parameters {
      vector[N] theta = mu + tau * z;       // scalar + (scalar * vector)
      vector[N] t2 = z * tau - mu;          // (vector * scalar) - scalar
      vector[N] t3 = theta + t2;            // vector + vector
      vector[N] t4 = theta - y;             // vector - data
      vector[N] t5 = c * z + y;             // data scalar * vector + data
      vector[N] t6 = k * z;                 // int scalar * vector
      row_vector[3] r2 = 2.5 - r * tau;     // constant - row_vector * scalar
      matrix[2, 3] M2 = tau * M + D;        // scalar * matrix + data matrix
      matrix[2, 3] M3 = M - sigma;          // matrix - scalar
    }
    model {
      mu ~ normal(0, 5);
      tau ~ cauchy(0, 5);
      z ~ std_normal();
      sigma ~ lognormal(0, 1);
      y ~ normal(theta, sigma);
      target += normal_lpdf(t2 | 0, 3) + student_t_lpdf(t3 | 4, mu, 2);
      t4 ~ normal(0, sigma);
      target += cauchy_lpdf(t5 | mu, 2) + normal_lpdf(t6 | 0, 10);
      r2 ~ normal(mu, sigma);
      to_vector(M2) ~ normal(0, 2);
      to_vector(M3) ~ logistic(mu, tau);
      target += normal_lupdf(y | mu, 1);    // every argument data but mu, constants dropped
    }"
  m <- tapestry_model(code = code)
  ctx <- m$bind(list(N = 4, y = c(0.5, -1, 2, 0.1), c = -0.7, k = 3L,
                     D = matrix(c(1, -2, 0.5, 3, 0, -1), 2, 3)))
  set.seed(21)
  pts <- points_for(ctx)
  r <- expect_paths_and_fd(ctx, pts)
  expect_gt(r$stats$replays, 0)
  # the densities (13: mu's scalar normal is an instruction of its own), the
  # products (6) and the sums (8) all run directly
  expect_identical(r$stats$direct, 27L)
  r0 <- both_paths(ctx, pts, jacobian = FALSE)
  expect_identical(r0$plan, r0$tree)
  # sampling: the same draws with plans as on the tree
  fit <- function(on) {
    old <- tapestry:::plans_enabled(on)
    on.exit(tapestry:::plans_enabled(old))
    m$sample(data = list(N = 4, y = c(0.5, -1, 2, 0.1), c = -0.7, k = 3L,
                         D = matrix(c(1, -2, 0.5, 3, 0, -1), 2, 3)),
             chains = 1, iter_warmup = 40, iter_sampling = 20, seed = 3, refresh = 0,
             show_messages = FALSE, diagnostics = NULL)$draws()
  }
  expect_identical(unclass(fit(TRUE)), unclass(fit(FALSE)))
})

test_that("elementwise masses of scalars replay as their kernel computes them", {
  code <- "
    data { int N; array[N] int y; array[N] int cnt; array[N] int tr; }
    parameters { real a; real<lower=0> lam; real<lower=0, upper=1> th; }
    model {
      for (n in 1:N) {
        y[n] ~ bernoulli_logit(a * n);
        cnt[n] ~ poisson_log(a + 0.1 * n);
        target += poisson_lpmf(cnt[n] | lam);
        target += binomial_lpmf(y[n] | tr[n], th);
        target += neg_binomial_2_lpmf(cnt[n] | lam, 2.5);
        target += bernoulli_logit_lupmf(y[n] | a);
      }
    }"
  d <- list(N = 5L, y = c(0L, 1L, 1L, 0L, 1L), cnt = c(0L, 3L, 7L, 1L, 2L), tr = c(1L, 2L, 3L, 4L, 5L))
  ctx <- tapestry_model(code = code)$bind(d)
  set.seed(5)
  r <- both_paths(ctx, points_for(ctx, k = 6))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 5)
  u <- c(0.2, 0.3, -0.4)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
})

test_that("parallel_map's elements replay from a plan of their own, with threads too", {
  code <- "
    functions {
      real f(real x, vector z, vector th, matrix S, real s) {
        return x * th[1] + dot_product(z, th[1:2]) + s * S[1, 2] + sin(x * s) + lgamma(exp(z[1]) + x^2);
      }
      real g(real a, real b, matrix S, vector w) { return a * b + exp(b) * S[2, 1] + sum(w) * a; }
    }
    data { int N; int R; int C; vector[N] x; matrix[R, C] A; matrix[2, 2] S; }
    parameters { array[N] vector[2] z; vector[3] th; real s; matrix[R, C] B; vector[2] w; }
    model {
      vector[N] m = parallel_map(f, 2, x, z, th, S, s);
      matrix[R, C] P = parallel_map(g, {2, 1}, A, B, S, w);
      target += sum(m .* m) / 10 + sum(P) / 4 + normal_lpdf(to_vector(B) | 0, 1) + normal_lpdf(th | 0, 1);
    }"
  data <- list(N = 9L, R = 3L, C = 2L, x = seq(-1, 1, length.out = 9),
               A = matrix(c(0.5, -1, 2, 0.1, 0.3, -0.7), 3), S = matrix(c(1, 0.5, -0.3, 2), 2))
  set.seed(21)
  pts <- points_for(tapestry_model(code = code)$bind(data))
  for (k in 1:2) {
    ctx <- tapestry_model(code = code)$bind(data)
    r <- with_threads(k, both_paths(ctx, pts))
    expect_identical(r$plan, r$tree)
    expect_gt(r$stats$replays, 10)
    expect_equal(r$stats$fallbacks, 0)
    expect_identical(r$stats$why, "")
    if (k == 1) one <- r$plan else expect_identical(r$plan, one)
  }
  expect_equal(as.vector(ctx$grad_log_prob(rep(0.2, ctx$num_upars()))),
               fd_grad(ctx, rep(0.2, ctx$num_upars())), tolerance = 1e-6)
})

test_that("parallel_map's elements run as lanes, chunk by chunk, with the bits of one at a time", {
  # 300 elements: chunks of 128, 128 and 44; a shared lgamma (the memo), a
  # data and a parameter operand per element, a guard on parameters (the
  # same side for every element at all but the last point) and a mass;
  # the tree and the lanes agree bit for bit, with one thread and with two
  code <- "
    functions {
      real f(real x, real a, real b, real z) {
        real m = lgamma(a * x) + lgamma(b) - lgamma(a * x + b);
        if (z > a) m -= square(z - a);
        return m + log1p(x * a) + normal_lpdf(z | m / 10, b);
      }
    }
    data { int N; vector<lower=0>[N] x; }
    parameters { real<lower=0> a; real<lower=0> b; vector[N] z; }
    model {
      vector[N] mu = parallel_map(f, 25, x, a, b, z);
      target += sum(mu) / N;
      z ~ normal(0, 1);
    }"
  set.seed(41)
  N <- 300L
  d <- list(N = N, x = rexp(N, 1))
  pts <- c(lapply(1:4, function(i) c(2 + i / 10, -i / 5, rnorm(N, sd = 0.3))),
           list(c(-3, 0.1, rnorm(N, sd = 0.3))))
  for (k in 1:2) {
    ctx <- tapestry_model(code = code)$bind(d)
    r <- with_threads(k, both_paths(ctx, pts))
    expect_identical(r$plan, r$tree)
    expect_identical(r$stats$why, "")
    expect_equal(r$stats$map_lanes, 1L)
    expect_gt(r$stats$replays, 5)
    expect_gt(r$stats$fallbacks, 0)
    if (k == 1) one <- r$plan else expect_identical(r$plan, one)
  }
  # the element by element run (a call in the element keeps it off the
  # lanes) gives the same values
  ctx2 <- tapestry_model(code = sub("return m +", "return dot_product([m]', [1]') +", code, fixed = TRUE))$bind(d)
  r2 <- both_paths(ctx2, pts)
  expect_equal(r2$stats$map_lanes, 0L)
  expect_gt(r2$stats$replays, 5)
  expect_identical(r2$plan, r2$tree)
  expect_equal(lapply(r2$plan, as.numeric), lapply(r$plan, as.numeric), tolerance = 1e-14)
  u <- pts[[2]]
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
})

test_that("a decision on a mapped element's data or parameters is a guard", {
  code <- "
    functions { real h(real x, real t) { if (x * t > 0) return log1p(x * t); else return -square(x - t); } }
    data { int N; vector[N] x; }
    parameters { real t; }
    model { target += sum(parallel_map(h, 1, x, t)) - t^2; }"
  pts <- list(0.5, -0.5, 0.7, 1.2, -2, 0.3)
  # every element takes the same side, which changes with t
  ctx <- tapestry_model(code = code)$bind(list(N = 6L, x = c(0.1, 0.5, 1, 2, 3, 4)))
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 3)
  expect_gt(r$stats$fallbacks, 0)
  # elements that take different sides fail every plan's guards: the tree for good
  ctx <- tapestry_model(code = code)$bind(list(N = 6L, x = c(-1, 0.5, 1, -2, 3, 4)))
  r <- both_paths(ctx, c(pts, pts))
  expect_identical(r$plan, r$tree)
  expect_match(r$stats$why, "guards failed")
  # a mapped int stays on the tree and says so
  ctx <- tapestry_model(code = "
    functions { real k(real t, int j) { return t * j; } }
    data { int N; array[N] int j; }
    parameters { real t; }
    model { target += -sum(parallel_map(k, 1, t, j))^2; }")$bind(list(N = 3L, j = 1:3))
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_match(r$stats$why, "parallel_map over ints")
})

test_that("a mapped element's domain error during replay gives the tree's error", {
  code <- "
    functions { real h(real x, real t) { return normal_lpdf(x | 0, t - x); } }
    data { int N; vector[N] x; }
    parameters { real t; }
    model { target += sum(parallel_map(h, 1, x, t)); }"
  ctx <- tapestry_model(code = code)$bind(list(N = 4L, x = c(0, 1, 2, 3)))
  r <- both_paths(ctx, list(5, 4, 2.5, 6))
  expect_identical(r$plan, r$tree)
  expect_match(r$tree[[3]], "^error: .*line 2")
})

test_that("reduce_sum and reduce_sum_static run their chunks from plans of their own", {
  code <- function(fn) paste0("
    functions {
      real part_lpdf(array[] vector zs, int start, int end, vector y, vector mu, real sigma) {
        real t = 0;
        for (i in 1:size(zs)) t += normal_lpdf(y[start + i - 1] | mu[1] + dot_product(zs[i], mu[2:3]), sigma);
        return t + normal_lupdf(y[start:end] | mu[1], sigma + 1);
      }
    }
    data { int N; vector[N] y; int g; }
    parameters { array[N] vector[2] z; vector[3] mu; real<lower=0> sigma; }
    model {
      target += ", fn, "(part_lupdf, z, g, y, mu, sigma);
      for (i in 1:N) z[i] ~ normal(0, 1);
      mu ~ normal(0, 2);
    }")
  set.seed(31)
  data <- list(N = 23L, y = rnorm(23), g = 3L)
  for (fn in c("reduce_sum", "reduce_sum_static")) {
    ctx <- tapestry_model(code = code(fn))$bind(data)
    pts <- points_for(ctx)
    r <- both_paths(ctx, pts)
    expect_identical(r$plan, r$tree, label = fn)
    expect_gt(r$stats$replays, 10)
    expect_identical(r$stats$why, "")
    if (fn == "reduce_sum_static") {
      # the same bits with 2 threads, through plans recorded there
      ctx2 <- tapestry_model(code = code(fn))$bind(data)
      r2 <- with_threads(2, both_paths(ctx2, pts))
      expect_identical(r2$plan, r$tree)
      expect_identical(r2$tree, r$tree)
    } else {
      ctx2 <- tapestry_model(code = code(fn))$bind(data)
      r2 <- with_threads(2, both_paths(ctx2, pts))
      expect_equal(r2$plan, r$tree, tolerance = 1e-13)
    }
    u <- pts[[2]]
    expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  }
})

test_that("reduce_sum(f_lupdf, ...) drops the constants of f's _lupdf calls, reduce_sum(f_lpdf, ...) keeps them", {
  code <- function(name) paste0("
    functions {
      real part_lpdf(array[] real ys, int start, int end, real mu, real sigma) {
        return normal_lupdf(ys | mu, sigma);
      }
    }
    data { int N; array[N] real y; }
    parameters { real mu; real<lower=0> sigma; }
    model { target += reduce_sum(", name, ", y, 2, mu, sigma); }")
  data <- list(N = 7L, y = c(0.1, -0.4, 1.2, 0.3, 2, -1, 0.5))
  up <- tapestry_model(code = code("part_lupdf"))$bind(data)
  p <- tapestry_model(code = code("part_lpdf"))$bind(data)
  u <- c(0.2, -0.3)
  expect_equal(p$log_prob(u) - up$log_prob(u), -7 * log(sqrt(2 * pi)), tolerance = 1e-12)
  expect_identical(as.vector(p$grad_log_prob(u)), as.vector(up$grad_log_prob(u)))
  expect_error(tapestry_model(code = sub("target += reduce_sum", "real z = reduce_sum",
                                         sub("model {", "transformed parameters {", code("part_lupdf"), fixed = TRUE),
                                         fixed = TRUE)), "_lupdf and _lupmf can only be used")
})

test_that("profile blocks replay: the tree's bits, the tree's node counts, every evaluation counted", {
  code <- "
    functions {
      real part(array[] real sl, int s, int e, vector th) {
        real t = 0;
        profile(\"in_chunk\") { for (i in s:e) t += normal_lpdf(sl[i - s + 1] | th[1], exp(th[2])); }
        return t;
      }
    }
    data { int N; array[N] real y; }
    parameters { vector[2] th; real z; }
    model {
      profile(\"priors\") { th ~ normal(0, 1); }
      profile(\"lik\") {
        real s = 0;
        profile(\"branch\") { if (z > 0) s = z ^ 2; else s = -z; }
        target += -s + reduce_sum(part, y, 2, th);
      }
    }"
  ctx <- tapestry_model(code = code)$bind(list(N = 7L, y = c(0.1, -0.5, 1.2, 0.3, 2, -1, 0.4)))
  set.seed(51)
  pts <- points_for(ctx)
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_identical(r$stats$why, "")
  keep <- c("name", "thread_id", "chain_stack", "no_chain_stack", "autodiff_calls", "no_autodiff_calls")
  rows <- function(on, u) {
    old <- tapestry:::plans_enabled(on)
    on.exit(tapestry:::plans_enabled(old))
    p <- ctx$profile_log_prob(u, n = 6)$profiles[keep]
    p[order(p$name), ]
  }
  for (u in list(c(0.1, 0.2, 0.5), c(0.1, 0.2, -0.5))) {    # both sides of the branch
    tree <- rows(FALSE, u)
    plan <- rows(TRUE, u)
    expect_identical(plan, tree)
    expect_setequal(tree$name, c("priors", "lik", "branch", "in_chunk"))
    expect_true(all(tree$autodiff_calls == 6))
  }
  # a replay abandoned inside a block (its guard fails) leaves nothing open
  old <- tapestry:::plans_enabled(TRUE)
  on.exit(tapestry:::plans_enabled(old))
  ctx$grad_log_prob(c(0.1, 0.2, 0.5))
  p <- ctx$profile_log_prob(c(0.1, 0.2, -0.7), n = 3)$profiles
  expect_true(all(p$autodiff_calls == 3))
})

test_that("options(tapestry.verbose = TRUE): $sample() says which path the gradients took, and why", {
  withr_opt <- options(tapestry.verbose = TRUE)
  on.exit(options(withr_opt))
  m <- tapestry_model(code = "parameters { real x; } model { x ~ normal(0, 1); }")
  out <- capture.output(m$sample(data = list(), chains = 1, iter_warmup = 30, iter_sampling = 30, seed = 1,
                                 refresh = 0))
  expect_match(out, "^Gradients: [0-9,]+ replayed from recorded plans, 1 on the tree interpreter \\(1 plan recorded, 0 replays fell back\\)\\.$",
               all = FALSE)
  expect_false(any(grepl("stays on the tree", out)))
  p <- tapestry_model(code = "parameters { real x; } model { if (x > 100) print(\"far\"); x ~ normal(0, 1); }")
  out <- capture.output(p$sample(data = list(), chains = 1, iter_warmup = 30, iter_sampling = 30, seed = 1,
                                 refresh = 0))
  expect_match(out, "^Gradients: [0-9,]+ replayed", all = FALSE)
  options(tapestry.verbose = FALSE)
  out <- capture.output(m$sample(data = list(), chains = 1, iter_warmup = 30, iter_sampling = 30, seed = 1,
                                 refresh = 0))
  expect_false(any(grepl("^Gradients:", out)))
  # a program that stays on the tree says why
  options(tapestry.verbose = TRUE)
  q <- tapestry_model(code = "parameters { real x; } model { print(\"x\"); x ~ normal(0, 1); }")
  out <- capture.output(q$sample(data = list(), chains = 1, iter_warmup = 5, iter_sampling = 5, seed = 1,
                                 refresh = 0))
  expect_match(out, "^Gradients: 0 replayed", all = FALSE)
  expect_match(out, "^The program stays on the tree interpreter: print", all = FALSE)
})
