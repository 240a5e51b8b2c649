# The _rng functions of prob/tm_<family>.c (on the kernel of tm_rng_def.c): means (and a second moment) over many
# draws within a few standard errors, vectorized forms, Stan's checks.  Each
# check uses its own fixed seed.

N3 <- 20000
draws3 <- function(fn, args, types, seed, n = N3) {
  args[[1]] <- rep(args[[1]], n)
  types[1] <- paste("array[]", types[1])
  tp_call(fn, args, types, seed = seed)$value
}
# the mean of x within 4.5 standard errors of mu (sd the distribution's)
expect_mean <- function(x, mu, sd, label) {
  se <- sd / sqrt(length(x))
  expect_true(abs(mean(x) - mu) < 4.5 * se,
              label = sprintf("%s: mean %.5g, expected %.5g (se %.3g)", label, mean(x), mu, se))
}

# a frequency within 4.5 standard errors of its probability
expect_prop <- function(hit, p, label) expect_mean(as.numeric(hit), p, sqrt(p * (1 - p)), label)

test_that("univariate rngs: moments", {
  # skew_double_exponential(mu, sigma, tau): mean mu + sigma (1 - 2 tau) / (2 tau (1 - tau))
  for (p in list(c(1, 2, 0.3), c(-2, 0.5, 0.5), c(0, 1, 0.9))) {
    x <- draws3("skew_double_exponential_rng", as.list(p), rep("real", 3), seed = 11)
    mu <- p[1]; s <- p[2]; t <- p[3]
    m <- mu + s * (1 - 2 * t) / (2 * t * (1 - t))
    # variance: the two exponential sides
    e2 <- t * 2 * (s / (2 * (1 - t)))^2 + (1 - t) * 2 * (s / (2 * t))^2
    v <- e2 - (m - mu)^2
    expect_mean(x, m, sqrt(v), "skew_double_exponential_rng")
    expect_prop(x < mu, t, "skew_double_exponential_rng below mu")
  }
  # von_mises(mu, kappa): E cos(y - mu) = I1 / I0, E sin(y - mu) = 0, values in [mu - pi, mu + pi] mod 2 pi
  for (p in list(c(1, 2), c(-2, 0.3), c(0.5, 60), c(3, 0))) {
    x <- draws3("von_mises_rng", as.list(p), rep("real", 2), seed = 12)
    r <- if (p[2] == 0) 0 else besselI(p[2], 1, TRUE) / besselI(p[2], 0, TRUE)
    expect_mean(cos(x - p[1]), r, sqrt((1 + (if (p[2] == 0) 0 else besselI(p[2], 2, TRUE) / besselI(p[2], 0, TRUE))) / 2 - r^2),
                "von_mises_rng cos")
    expect_mean(sin(x - p[1]), 0, 1, "von_mises_rng sin")
  }
  # beta_neg_binomial(r, alpha, beta): mean r beta / (alpha - 1) for alpha > 1,
  # variance r beta (r + alpha - 1)(beta + alpha - 1) / ((alpha - 2)(alpha - 1)^2) for alpha > 2
  for (p in list(c(3, 5, 2), c(0.5, 8, 4), c(10, 4.5, 0.7))) {
    x <- draws3("beta_neg_binomial_rng", as.list(p), rep("real", 3), seed = 13)
    expect_true(is.integer(x) && all(x >= 0))
    r <- p[1]; a <- p[2]; b <- p[3]
    v <- r * b * (r + a - 1) * (b + a - 1) / ((a - 2) * (a - 1)^2)
    expect_mean(x, r * b / (a - 1), sqrt(v), "beta_neg_binomial_rng")
  }
  # yule_simon(alpha): mean alpha / (alpha - 1), variance alpha^2 / ((alpha - 1)^2 (alpha - 2))
  for (a in c(3, 5, 10)) {
    x <- draws3("yule_simon_rng", list(a), "real", seed = 14)
    expect_true(is.integer(x) && all(x >= 1))
    expect_mean(x, a / (a - 1), sqrt(a^2 / ((a - 1)^2 * (a - 2))), "yule_simon_rng")
  }
  # the masses, by a chi-square-like check of P(1) = alpha / (alpha + 1)
  x <- draws3("yule_simon_rng", list(0.8), "real", seed = 15)
  expect_prop(x == 1, 0.8 / 1.8, "yule_simon_rng P(1)")
})

test_that("vectorized forms, results' types and sizes", {
  x <- tp_call("von_mises_rng", list(c(0, 1, 2), c(1, 2, 3)), c("vector", "array[] real"), seed = 1)$value
  expect_length(x, 3)
  x <- tp_call("von_mises_rng", list(1L, 2L), c("int", "int"), seed = 1)$value
  expect_length(x, 1)
  x <- tp_call("beta_neg_binomial_rng", list(c(1, 2), 3, c(4, 5)), c("row_vector", "real", "array[] real"), seed = 1)$value
  expect_length(x, 2); expect_true(is.integer(x))
  x <- tp_call("yule_simon_rng", list(c(2L, 3L)), "array[] int", seed = 1)$value
  expect_length(x, 2); expect_true(is.integer(x))
  x <- tp_call("skew_double_exponential_rng", list(0, c(1, 2, 3, 4), 0.5), c("real", "vector", "real"), seed = 1)$value
  expect_length(x, 4)
  expect_error(tp_call("von_mises_rng", list(c(0, 1), c(1, 2, 3)), c("vector", "vector")), "must match in size")
})

test_that("hypergeometric, ordered, multinomial and GLM rngs: means", {
  many <- function(fn, args, types, n = 4000, seed = 20)
    vapply(seq_len(n), function(i) tp_call(fn, args, types, seed = seed + i)$value, numeric(length(
      tp_call(fn, args, types, seed = 1)$value)))
  # hypergeometric(N, a, b): mean N a / (a + b), variance N a b (a + b - N) / ((a + b)^2 (a + b - 1))
  x <- many("hypergeometric_rng", list(5L, 4L, 6L), rep("int", 3))
  expect_mean(x, 5 * 4 / 10, sqrt(5 * 4 * 6 * 5 / (100 * 9)), "hypergeometric_rng")
  # ordered_logistic / probit: the frequencies of the categories
  cuts <- c(-1, 0.5, 2)
  for (probit in c(FALSE, TRUE)) {
    fn <- if (probit) "ordered_probit_rng" else "ordered_logistic_rng"
    x <- many(fn, list(0.3, cuts), c("real", "vector"))
    F <- if (probit) pnorm(cuts - 0.3) else plogis(cuts - 0.3)
    p <- diff(c(0, F, 1))
    for (k in 1:4) expect_prop(x == k, p[k], paste(fn, k))
  }
  # multinomial(theta, N): mean N theta, each count binomial
  th <- c(0.2, 0.3, 0.5)
  x <- many("multinomial_rng", list(th, 20L), c("vector", "int"), n = 2000)
  expect_true(all(colSums(x) == 20))
  for (k in 1:3) expect_mean(x[k, ], 20 * th[k], sqrt(20 * th[k] * (1 - th[k])), "multinomial_rng")
  x <- many("multinomial_logit_rng", list(log(th) + 3, 20L), c("vector", "int"), n = 2000)
  for (k in 1:3) expect_mean(x[k, ], 20 * th[k], sqrt(20 * th[k] * (1 - th[k])), "multinomial_logit_rng")
  # dirichlet_multinomial(alpha, N): mean N alpha / alpha0, variance
  # N p (1 - p) (N + alpha0) / (1 + alpha0)
  al <- c(0.5, 2, 1.5); a0 <- sum(al)
  x <- many("dirichlet_multinomial_rng", list(al, 10L), c("vector", "int"), n = 3000)
  expect_true(all(colSums(x) == 10))
  for (k in 1:3) {
    p <- al[k] / a0
    expect_mean(x[k, ], 10 * p, sqrt(10 * p * (1 - p) * (10 + a0) / (1 + a0)), "dirichlet_multinomial_rng")
  }
  expect_identical(tp_call("dirichlet_multinomial_rng", list(al, 0L), c("vector", "int"), seed = 1)$value, c(0L, 0L, 0L))
  # bernoulli_logit_glm: mean inv_logit(alpha + x beta) per row
  X <- matrix(c(1, -2, 0.5, 3, 0, -1), 3, 2); al <- c(0.1, 0.2, -0.3); be <- c(0.8, -0.4)
  x <- many("bernoulli_logit_glm_rng", list(X, al, be), c("matrix", "vector", "vector"), n = 3000)
  pr <- plogis(as.vector(al + X %*% be))
  for (m in 1:3) expect_mean(x[m, ], pr[m], sqrt(pr[m] * (1 - pr[m])), "bernoulli_logit_glm_rng")
})

test_that("rng errors as Stan's", {
  expect_error(tp_call("skew_double_exponential_rng", list(0, 1, 1.5), rep("real", 3)),
               "skew_double_exponential_rng: Skewness parameter is 1.5, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("von_mises_rng", list(0, -1), rep("real", 2)),
               "von_mises_rng: Scale parameter is -1, but must be nonnegative!")
  expect_error(tp_call("von_mises_rng", list(Inf, 1), rep("real", 2)),
               "von_mises_rng: Location parameter is inf, but must be finite!")
  expect_error(tp_call("yule_simon_rng", list(0), "real"), "yule_simon_rng: Shape parameter is 0, but must be positive finite!")
  expect_error(tp_call("beta_neg_binomial_rng", list(1, -1, 1), rep("real", 3)),
               "beta_neg_binomial_rng: Prior success parameter is -1, but must be positive finite!")
  expect_error(tp_call("hypergeometric_rng", list(11L, 4L, 6L), rep("int", 3)),
               "hypergeometric_rng: Draws parameter is 11, but must be in the interval \\[0, 10\\]")
  expect_error(tp_call("ordered_logistic_rng", list(0, c(1, 0)), c("real", "vector")),
               "ordered_logistic_rng: Cut-points is not a valid ordered vector")
  expect_error(tp_call("multinomial_rng", list(c(0.5, 0.6), 3L), c("vector", "int")),
               "multinomial_rng: Probabilities parameter is not a valid simplex")
  expect_error(tp_call("multinomial_logit_rng", list(c(0.5, 0.6), -3L), c("vector", "int")),
               "multinomial_logit_rng: number of trials variables is -3, but must be nonnegative!")
  expect_error(tp_call("bernoulli_logit_glm_rng", list(matrix(1, 2, 2), c(0, 0), c(1, 2, 3)),
                       c("matrix", "vector", "vector")), "Weight vector")
})

test_that("the new rngs in generated quantities", {
  code <- "data { int N; } parameters { real mu; }
    model { mu ~ normal(0, 1); }
    generated quantities {
      real s = skew_double_exponential_rng(mu, 1, 0.3);
      array[N] real vm = von_mises_rng(rep_vector(mu, N), 2);
      int bnb = beta_neg_binomial_rng(2, 3, 1.5);
      array[2] int ys = yule_simon_rng({2.0, 3.0});
      int h = hypergeometric_rng(5, 4, 6);
      int ol = ordered_logistic_rng(mu, [-1, 1]');
      int op = ordered_probit_rng(mu, [-1, 1]');
      array[3] int mn = multinomial_rng([0.2, 0.3, 0.5]', 10);
      array[3] int ml = multinomial_logit_rng([0.2, 0.3, 0.5]', 10);
      array[3] int dm = dirichlet_multinomial_rng([1, 2, 3]', 10);
      array[2] int bg = bernoulli_logit_glm_rng([[1, 2], [3, 4]], [0, mu]', [0.5, -0.5]');
      real q = student_t_qf(0.9, 3, mu, 2);
    }"
  ctx <- tapestry_model(code = code)$bind(list(N = 3), seed = 3)
  g <- ctx$constrain_variables(0.4)
  expect_identical(ctx$constrain_variables(0.4), g)
  expect_length(g$vm, 3)
  expect_true(all(abs(g$vm - 0.4) <= pi + 1e-12 | abs(g$vm - 0.4 - 2 * pi) <= pi))
  expect_true(g$bnb >= 0 && all(g$ys >= 1) && g$h >= 0 && g$h <= 4)
  expect_true(g$ol %in% 1:3 && g$op %in% 1:3)
  expect_equal(sum(g$mn), 10); expect_equal(sum(g$ml), 10); expect_equal(sum(g$dm), 10)
  expect_true(all(g$bg %in% 0:1))
  expect_equal(g$q, 0.4 + 2 * qt(0.9, 3), tolerance = 1e-10)
})
