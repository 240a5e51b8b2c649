# Loops kept as loops (src/plan/pl_reroll.c, pl_lanes.c): a loop whose
# iterations repeat one body runs lane by lane, and gives the bits of the
# unrolled plan and of the tree; loops whose lane order would change a value
# (recurrences, one adjoint summed by two instructions) stay unrolled.

# The tree, an unrolled plan and a plan with lanes, each on a context of its
# own, at every point; the lanes context's counters.
three_paths <- function(code, data, pts = NULL, k = 6, sd = 0.8) {
  m <- tapestry_model(code = code)
  ctx_tree <- m$bind(data)
  ctx_flat <- m$bind(data)
  ctx_lanes <- m$bind(data)
  if (is.null(pts)) {
    n <- ctx_lanes$num_upars()
    pts <- c(list(rep(0.1, n)), lapply(seq_len(k), function(i) stats::rnorm(n, sd = sd)))
  }
  one <- function(ctx, u) tryCatch(ctx$grad_log_prob(u),
                                   error = function(e) paste("error:", conditionMessage(e)))
  old_plans <- tapestry:::plans_enabled(FALSE)
  old_lanes <- tapestry:::plan_lanes(NA)
  on.exit({
    tapestry:::plans_enabled(old_plans)
    tapestry:::plan_lanes(old_lanes)
  })
  tree <- lapply(pts, function(u) one(ctx_tree, u))
  tapestry:::plans_enabled(TRUE)
  tapestry:::plan_lanes(FALSE)
  flat <- lapply(pts, function(u) one(ctx_flat, u))
  tapestry:::plan_lanes(TRUE)
  lanes <- lapply(pts, function(u) one(ctx_lanes, u))
  list(tree = tree, flat = flat, lanes = lanes,
       stats = tapestry:::plan_stats(ctx_lanes), flat_stats = tapestry:::plan_stats(ctx_flat))
}

expect_three <- function(r, label) {
  expect_identical(r$flat, r$tree, label = paste(label, "unrolled plan"))
  expect_identical(r$lanes, r$tree, label = paste(label, "lanes"))
}

test_that("a regression loop with a varying intercept runs lane by lane, same bits", {
  code <- "
    data { int N; int J; array[N] int<lower=1, upper=J> g; vector[N] x; vector[N] y; }
    parameters { vector[J] a; real b; real<lower=0> sigma; }
    model {
      a ~ normal(0, 1);
      for (n in 1:N) y[n] ~ normal(a[g[n]] + b * x[n], sigma);
    }"
  set.seed(1)
  N <- 60
  d <- list(N = N, J = 5, g = sample(1:5, N, TRUE), x = rnorm(N), y = rnorm(N))
  r <- three_paths(code, d)
  expect_three(r, "varying intercept")
  expect_equal(r$stats$loops, 1)
  expect_lt(r$stats$instructions, r$flat_stats$instructions / 10)
  expect_gt(r$stats$replays, 3)
})

test_that("recurrences and shared sums in the wrong order stay unrolled, same bits", {
  set.seed(2)
  d <- list(N = 40, x = rnorm(40), z = rnorm(40), y = rnorm(40))
  # mu[t] reads mu[t - 1], which the iteration before wrote last
  ar <- "
    data { int N; vector[N] y; }
    parameters { real a; real<lower=-1, upper=1> b; real<lower=0> s; }
    model {
      vector[N] mu;
      mu[1] = a;
      for (t in 2:N) mu[t] = a + b * mu[t - 1];
      y ~ normal(mu, s);
    }"
  r <- three_paths(ar, d)
  expect_three(r, "recurrence")
  expect_equal(r$stats$loops, 0)
  # a's adjoint summed by two instructions of each iteration
  two <- "
    data { int N; vector[N] x; vector[N] z; vector[N] y; }
    parameters { real a; real<lower=0> s; }
    model { for (n in 1:N) y[n] ~ normal(a * x[n] + a * z[n], s); }"
  r <- three_paths(two, d)
  expect_three(r, "two sums into one adjoint")
  # ... runs lane by lane all the same: each of those sums goes to a cell of
  # its own, and a merge adds them to a's adjoint in the unrolled order
  expect_equal(r$stats$loops, 1)
  # a running sum in a local
  acc <- "
    data { int N; vector[N] y; }
    parameters { real a; }
    model { real s = 0; for (n in 1:N) s += (y[n] - a)^2; target += -0.5 * s; }"
  r <- three_paths(acc, d)
  expect_three(r, "running sum")
})

test_that("loop shapes: nested, ragged, reversed, foreach, squares, guards, functions", {
  set.seed(3)
  nested <- "
    data { int I; int J; array[I, J] int<lower=0, upper=1> y; array[I] int<lower=1> len; }
    parameters { vector[J] theta; vector[I] b; vector<lower=0>[I] a; real<lower=0> s; }
    model {
      theta ~ normal(0, 1); b ~ normal(0, 2); a ~ lognormal(0, 1);
      for (i in 1:I) for (j in 1:J) y[i, j] ~ bernoulli_logit(a[i] * (theta[j] - b[i]));
      for (i in 1:I) for (j in 1:len[i]) target += normal_lpdf(theta[j] | b[i], s);
      for (n in 1:J) target += -0.5 * square(theta[J - n + 1] * s);
      for (v in theta) target += log_mix(0.3, normal_lpdf(v | 0, 1), normal_lpdf(v | 1, s));
      for (n in 1:J) target += -0.01 * s * s * theta[n];
    }"
  d <- list(I = 4, J = 12, y = matrix(rbinom(48, 1, 0.5), 4, 12), len = c(3L, 12L, 7L, 12L))
  r <- three_paths(nested, d)
  expect_three(r, "nested")
  expect_gt(r$stats$loops, 3)

  guarded <- "
    data { int N; vector[N] y; }
    parameters { vector[N] th; real<lower=0> s; }
    model {
      th ~ normal(0, 1);
      for (n in 1:N) {
        if (th[n] > -10) target += normal_lpdf(y[n] | th[n], s);
        else target += -th[n];
      }
    }"
  d <- list(N = 10, y = rnorm(10))
  pts <- list(rep(0.1, 11), c(rep(-20, 10), 0), rnorm(11), c(-20, rnorm(10)), rep(0.2, 11))
  r <- three_paths(guarded, d, pts)
  expect_three(r, "guarded")
  expect_gt(r$stats$fallbacks, 0)

  fn <- "
    functions {
      real sq(vector x, real c) { real t = 0; for (i in 1:rows(x)) t += square(x[i] - c); return t; }
      vector shift(vector x, real c) { vector[rows(x)] z; for (i in 1:rows(x)) z[i] = x[i] - c; return z; }
    }
    data { int N; vector[N] y; }
    parameters { real c; real<lower=0> s; }
    model { target += -0.5 * sq(y, c) / s^2 - N * log(s); shift(y, c) ~ normal(0, s); }"
  r <- three_paths(fn, list(N = 40, y = rnorm(40)))
  expect_three(r, "user functions")
  expect_gt(r$stats$loops, 0)
})

test_that("a failure inside a lane gives the tree's error; data branches and breaks keep the bits", {
  code <- "
    data { int N; vector[N] y; array[N] int k; }
    parameters { real m; real t; }
    model {
      for (n in 1:N) {
        if (n > N - 2) break;
        if (k[n] > 0) y[n] ~ normal(m, exp(t)); else y[n] ~ normal(m, t);
      }
    }"
  d <- list(N = 12, y = rnorm(12), k = c(rep(1L, 6), 0L, rep(1L, 5)))
  r <- three_paths(code, d, list(c(0.1, 0.5), c(0.2, -0.5), c(0, 1), c(1, -2)))
  expect_three(r, "domain error")
  expect_match(r$lanes[[2]], "error:")

  d <- list(N = 40, y = rnorm(40), k = rep(1L, 40))
  code2 <- "
    data { int N; vector[N] y; array[N] int k; }
    parameters { real m; real t; }
    model { for (n in 1:N) y[n] ~ normal(m, t); }"
  r <- three_paths(code2, d, list(c(0.1, 0.5), c(0.2, -0.5), c(0, 1)))
  expect_three(r, "domain error in a lane")
  expect_equal(r$stats$loops, 1)
  expect_match(r$lanes[[2]], "normal_lpdf.*Scale parameter")
})

test_that("reduce_sum's chunks keep their loops as loops; brms-style predictors too", {
  code <- "
    functions {
      real part(array[] real ys, int start, int end, vector mu, real s) {
        real t = 0;
        for (i in start:end) t += normal_lpdf(ys[i - start + 1] | mu[i], s);
        return t;
      }
    }
    data { int N; array[N] real y; array[N] int<lower=1, upper=3> J; vector[N] Z; }
    parameters { real b0; vector[3] r; real<lower=0> s; }
    model {
      vector[N] mu = rep_vector(b0, N);
      for (n in 1:N) mu[n] += r[J[n]] * Z[n];
      r ~ normal(0, 1);
      target += reduce_sum(part, y, 8, mu, s);
    }"
  set.seed(5)
  d <- list(N = 40, y = rnorm(40), J = sample(1:3, 40, TRUE), Z = rnorm(40))
  r <- three_paths(code, d)
  expect_three(r, "reduce_sum")
  expect_equal(r$stats$loops, 1)
})

test_that("elementwise masses run as one lane: shared and per-iteration arguments, ints, checks", {
  # poisson_log with a shared intercept (its adjoint summed in a register),
  # binomial_logit with a per-row count, bernoulli_logit with both signs of
  # its argument, and poisson whose rate can go negative: the lane's check
  # fails where the tree's would, and the tree gives the error
  code <- "
    data { int N; array[N] int c; array[N] int k; array[N] int m; array[N] int<lower=0, upper=1> z; vector[N] x; }
    parameters { real a; real b; }
    model {
      for (n in 1:N) c[n] ~ poisson_log(a);
      for (n in 1:N) k[n] ~ binomial_logit(m[n], a + b * x[n]);
      for (n in 1:N) z[n] ~ bernoulli_logit(b * x[n] * 40);
      for (n in 1:N) target += poisson_lpmf(c[n] | a + b * x[n]);
    }"
  set.seed(6)
  N <- 30
  m <- sample(1:9, N, TRUE)
  d <- list(N = N, c = rpois(N, 2), k = rbinom(N, m, 0.4), m = m, z = rbinom(N, 1, 0.5),
            x = runif(N, 0.1, 1))
  pts <- list(c(2, 0.5), c(3, -0.1), c(1.5, 1), c(0.5, -1), c(2, 0))
  r <- three_paths(code, d, pts)
  expect_three(r, "masses")
  expect_equal(r$stats$loops, 4)
  expect_match(r$lanes[[4]], "error:.*poisson_lpmf")
  expect_false(is.character(r$lanes[[1]]))
  g <- r$lanes[[1]]
  f <- function(u) tapestry_model(code = code)$bind(d)$log_prob(u)
  fd <- as.numeric(fd_jac(f, pts[[1]], 1e-4 * pmax(1, abs(pts[[1]]))))
  expect_equal(as.numeric(g), fd, tolerance = 1e-6)
})

test_that("a function of one argument in every iteration is evaluated once per lane, same bits and errors", {
  code <- "
    data { int N; vector[N] x; }
    parameters { real a; real b; }
    model {
      for (n in 1:N) target += -square(a) * x[n] + log1p(b) * x[n] - exp(a) * square(x[n]) + lgamma(exp(b) + 1);
    }"
  set.seed(13)
  d <- list(N = 30, x = runif(30))
  pts <- list(c(0.3, 0.5), c(-0.2, 1.5), c(0.1, -2), c(1, 0.2))     # log1p(-2): the tree's error
  r <- three_paths(code, d, pts)
  expect_three(r, "invariant functions")
  expect_equal(r$stats$loops, 1)
  expect_match(r$lanes[[3]], "error:.*log1p")
  expect_false(is.character(r$lanes[[1]]))
})

test_that("a loop whose iterations take a branch on data runs in parts, one per branch, same bits", {
  # a zero-inflated Poisson written as a loop: zeros and counts are two kinds
  # of iteration; theta's, a's and b's adjoints take sums from both, which
  # go to cells of their own and are merged in the unrolled order
  zip <- "
    data { int N; array[N] int y; vector[N] x; }
    parameters { real a; real b; real<lower=0, upper=1> theta; }
    model {
      for (n in 1:N) {
        if (y[n] == 0)
          target += log_sum_exp(log(theta), log1m(theta) + poisson_log_lpmf(y[n] | a + b * x[n]));
        else
          target += log1m(theta) + poisson_log_lpmf(y[n] | a + b * x[n]);
      }
    }"
  set.seed(12)
  N <- 300
  x <- rnorm(N)
  y <- ifelse(runif(N) < 0.3, 0L, rpois(N, exp(0.5 + 0.3 * x)))
  d <- list(N = N, y = y, x = x)
  r <- three_paths(zip, d)
  expect_three(r, "zero-inflated")
  expect_equal(r$stats$loops, 2)
  ctx <- tapestry_model(code = zip)$bind(d)
  p <- ctx$plan()
  expect_match(p$reason, "grouped by the branch they take")
  u <- c(0.4, 0.2, -0.5)
  th <- plogis(u[3]); lam <- exp(u[1] + u[2] * x)
  want <- sum(ifelse(y == 0, log(th + (1 - th) * exp(-lam)), log1p(-th) + dpois(y, lam, log = TRUE)))
  expect_equal(ctx$log_prob(u, jacobian = FALSE), want, tolerance = 1e-12)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)

  # three kinds of row with a shared location and scale, and a kind met once
  three <- "
    data { int N; array[N] int g; vector[N] x; vector[N] y; }
    parameters { real a; real b; real<lower=0> s; }
    model {
      for (n in 1:N) {
        if (g[n] == 1) y[n] ~ normal(a + b * x[n] + exp(b * x[n]) / 10, s);
        else if (g[n] == 2) y[n] ~ normal(a - b * square(x[n]), 2 * s);
        else target += -square(y[n] - a) / s - log(s);
      }
      a ~ normal(0, 1);
    }"
  g <- c(3L, sample(1:2, N - 1, TRUE))
  d3 <- list(N = N, g = g, x = x, y = rnorm(N))
  r <- three_paths(three, d3)
  expect_three(r, "three kinds")
  expect_equal(r$stats$loops, 3)

  # iterations of too many kinds (inner loops of every length) stay unrolled
  ragged <- "
    data { int N; vector[N] y; }
    parameters { real a; }
    model { for (n in 1:N) for (k in 1:n) target += -square(y[k] - a * n); }"
  r <- three_paths(ragged, list(N = 12, y = rnorm(12)))
  expect_three(r, "ragged")
  ctx <- tapestry_model(code = ragged)$bind(list(N = 12, y = rnorm(12)))
  expect_match(ctx$plan()$reason[1], "record different operations|inside it are vectorized")
})

test_that("bernoulli_logit in a loop runs on vector lanes with the bits of the scalar mass, on every instruction set", {
  # an item-response loop: the lane's terms go through tm_block_bernoulli_logit
  # (vectors of 4 or 8 and the rows left over), the tree's through the scalar
  # mass; eta from -900 to 900 puts vectors on the polynomial lanes, on
  # libm's (|eta| past 700) and mixed
  code <- "
    data { int I; int J; array[I, J] int<lower=0, upper=1> y; vector[J] s; }
    parameters { vector[J] theta; vector[I] b; vector<lower=0>[I] a; }
    model {
      theta ~ std_normal();
      for (i in 1:I)
        for (j in 1:J)
          y[i, j] ~ bernoulli_logit(a[i] * (s[j] * theta[j] - b[i]));
    }"
  set.seed(11)
  I <- 3; J <- 37
  d <- list(I = I, J = J, y = matrix(rbinom(I * J, 1, 0.5), I, J), s = seq(-450, 450, length.out = J))
  pts <- list(c(rep(1, J), 0, 0.5, -0.5, 0, 0, 0), c(rep(0.01, J), 0.2, 0, -0.3, 0.1, -0.2, 0.3))
  levels <- unique(c(simd_cap(-1), 1, 0))
  levels <- levels[levels <= levels[1]]
  on.exit(simd_cap(-1))
  first <- NULL
  for (level in levels) {
    expect_equal(simd_cap(level), level)
    r <- three_paths(code, d, pts)
    expect_three(r, paste("irt, level", level))
    expect_equal(r$stats$loops, I)     # the inner loop, once per item
    if (is.null(first)) first <- r$lanes else expect_identical(r$lanes, first, label = paste("level", level))
  }
  # the value against R, and the gradient against finite differences
  u <- pts[[2]]
  th <- u[1:J]; b <- u[J + 1:I]; a <- exp(u[J + I + 1:I])
  eta <- outer(seq_len(I), seq_len(J), function(i, j) a[i] * (d$s[j] * th[j] - b[i]))
  want <- sum(-th^2 / 2) + sum(plogis(ifelse(d$y == 1, eta, -eta), log.p = TRUE)) + sum(u[J + I + 1:I])
  ctx <- tapestry_model(code = code)$bind(d)
  expect_equal(ctx$log_prob(u), want, tolerance = 1e-12)
  fd <- fd_grad(ctx, u)
  expect_equal(as.numeric(ctx$grad_log_prob(u)), fd, tolerance = 1e-6)
})

# $plan(): which loops run lane by lane, and why the others do not.
plan_report_code <- "
  functions {
    real part(array[] real ys, int start, int end, real mu, real sigma) {
      real s = 0;
      for (i in 1:size(ys)) s += normal_lpdf(ys[i] | mu, sigma);
      return s;
    }
  }
  data { int N; vector[N] x; vector[N] y; array[N] int flag; }
  parameters { real a; real b; real<lower=0> sigma; vector[3] v; }
  model {
    vector[N] m;
    real r = 0;
    for (n in 1:N) y[n] ~ normal(a + b * x[n], sigma);
    m[1] = a;
    for (n in 2:N) m[n] = 0.5 * m[n - 1] + x[n];
    for (n in 1:N) {
      if (flag[n] == 1) target += -square(y[n] - a);
      else target += -0.5 * square(y[n] - b);
    }
    for (n in 1:N) target += normal_lpdf(v | a * x[n], 1);
    for (k in 1:2) r += v[k];
    target += normal_lpdf(m | 0, 10) + r;
    target += reduce_sum(part, to_array_1d(y), 5, a, sigma);
  }"

plan_report_data <- function() {
  set.seed(3)
  list(N = 20, x = rnorm(20), y = rnorm(20), flag = rep(c(1L, 2L), 10))
}

test_that("$plan() says which loops run lane by lane and why the others do not", {
  ctx <- tapestry_model(code = plan_report_code)$bind(plan_report_data())
  p <- ctx$plan()
  expect_s3_class(p, "tapestry_plan")
  expect_identical(attr(p, "path"), "plan")
  expect_identical(p$line, c(14L, 16L, 17L, 21L, 22L, 5L))
  expect_identical(p$loop, c("n", "n", "n", "n", "k", "i"))
  expect_identical(p$where, c(rep("model", 5), "reduce_sum"))
  # reduce_sum is recorded as the tree cut it: one chunk on R's thread
  expect_identical(p$runs, c(1, 1, 1, 1, 1, 1))
  expect_identical(p$iterations, c(20, 19, 20, 20, 2, 20))
  expect_identical(p$vectorized, c(1, 0, 1, 0, 0, 1))
  expect_match(p$reason[1], "^vectorized")
  expect_match(p$reason[2], "uses a result of an earlier one")
  expect_match(p$reason[3], "^vectorized: .*grouped by the branch they take")
  expect_match(p$reason[4], "normal_lpdf, which has no lane kernel")
  expect_match(p$reason[5], "fewer than 4 iterations")
  expect_match(p$reason[6], "^vectorized")
  expect_match(format(p)[1], "replay a recorded plan of [0-9,]+ instructions")
  expect_snapshot(cat(format(p)[-1], sep = "\n"))
  # the report describes the plan the gradients replay: the same bits
  u <- seq(-0.5, 0.5, length.out = ctx$num_upars())
  old <- tapestry:::plans_enabled(FALSE)
  tree <- ctx$grad_log_prob(u)
  tapestry:::plans_enabled(old)
  expect_identical(ctx$grad_log_prob(u), tree)
})

test_that("$plan() on loops recorded unrolled, on the tree, and from a fit", {
  code <- "
    data { int N; vector[N] y; }
    parameters { real mu; }
    model { for (n in 1:N) y[n] ~ normal(mu, 1); }"
  d <- list(N = 40, y = rnorm(40))
  old <- tapestry:::plan_lanes(FALSE)
  p <- tapestry_model(code = code)$bind(d)$plan()
  tapestry:::plan_lanes(old)
  expect_identical(p$vectorized, 0)
  expect_match(p$reason, "loops were turned off")
  # a program plans do not follow stays on the tree, and the report says why
  tree_code <- "
    data { int N; vector[N] y; }
    parameters { real mu; }
    model { print(mu); for (n in 1:N) y[n] ~ normal(mu, 1); }"
  pt <- tapestry_model(code = tree_code)$bind(d)$plan()
  expect_identical(attr(pt, "path"), "tree")
  expect_match(attr(pt, "why"), "print")
  expect_identical(nrow(pt), 0L)
  expect_match(format(pt)[1], "tree interpreter \\(.*print")
  fit <- tapestry_model(code = code)$sample(data = d, chains = 1, iter_warmup = 50,
                                            iter_sampling = 20, seed = 1, refresh = 0,
                                            show_messages = FALSE)
  pf <- fit$plan()
  expect_identical(pf$vectorized, 1)
  expect_match(format(pf)[2], "1 of 1 for loop vectorized")
})
