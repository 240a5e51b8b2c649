# The GLM densities: values against R, gradients (x, intercepts, weights,
# scales, cut-points all as parameters) against finite differences, every
# signature form, the constants `~` drops, and Stan's checks.

glm_eta <- function(x, alpha, beta) as.vector(alpha + x %*% beta)

# One program per form: x matrix[N, K] or row_vector[K] (then the N outcomes
# share it), every real argument a parameter so each gets a gradient.
glm_program <- function(call, xrow, alpha_vec, extra = "", ytype = "array[N] int", ydecl = NULL) {
  sprintf("data { int N; int K; %s; }
    parameters { %s x; %s alpha; vector[K] beta; %s }
    model { target += %s; }",
    if (is.null(ydecl)) paste(ytype, "y") else ydecl,
    if (xrow) "row_vector[K]" else "matrix[N, K]",
    if (alpha_vec) "vector[N]" else "real", extra, call)
}

glm_check <- function(code, data, npar, logp_r, seed = 1) {
  ctx <- tapestry_model(code = code)$bind(data)
  expect_equal(ctx$num_upars(), npar)
  set.seed(seed)
  u <- runif(npar, -1, 1)
  v <- ctx$constrain_variables(u)
  expect_equal(ctx$log_prob(u, jacobian = FALSE), logp_r(v), tolerance = 1e-12)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  invisible(ctx)
}

xmat <- function(v, N) if (is.matrix(v$x)) v$x else matrix(v$x, N, length(v$x), byrow = TRUE)

test_that("normal_id_glm_lpdf: every form against dnorm, gradients against finite differences", {
  N <- 5; K <- 3
  set.seed(2); y <- rnorm(N)
  for (xrow in c(FALSE, TRUE)) for (av in c(FALSE, TRUE)) for (sv in c(FALSE, TRUE)) {
    code <- glm_program("normal_id_glm_lpdf(y | x, alpha, beta, sigma)", xrow, av,
                        if (sv) "vector<lower=0>[N] sigma;" else "real<lower=0> sigma;",
                        ydecl = "vector[N] y")
    npar <- (if (xrow) K else N * K) + (if (av) N else 1) + K + (if (sv) N else 1)
    glm_check(code, list(N = N, K = K, y = y), npar, function(v)
      sum(dnorm(y, glm_eta(xmat(v, N), v$alpha, v$beta), v$sigma, log = TRUE)))
  }
  # y a real shared by every row
  code <- "data { int N; int K; real y; } parameters { matrix[N, K] x; real alpha; vector[K] beta; real<lower=0> sigma; }
    model { target += normal_id_glm_lpdf(y | x, alpha, beta, sigma); }"
  glm_check(code, list(N = N, K = K, y = 0.4), N * K + K + 2, function(v)
    sum(dnorm(0.4, glm_eta(v$x, v$alpha, v$beta), v$sigma, log = TRUE)))
})

test_that("bernoulli_logit_glm, poisson_log_glm, neg_binomial_2_log_glm: every form against R", {
  N <- 6; K <- 2
  set.seed(3)
  yb <- rbinom(N, 1, 0.5); yp <- rpois(N, 2)
  for (xrow in c(FALSE, TRUE)) for (av in c(FALSE, TRUE)) {
    npar <- (if (xrow) K else N * K) + (if (av) N else 1) + K
    glm_check(glm_program("bernoulli_logit_glm_lpmf(y | x, alpha, beta)", xrow, av),
              list(N = N, K = K, y = yb), npar, function(v)
                sum(dbinom(yb, 1, plogis(glm_eta(xmat(v, N), v$alpha, v$beta)), log = TRUE)))
    glm_check(glm_program("poisson_log_glm_lpmf(y | x, alpha, beta)", xrow, av),
              list(N = N, K = K, y = yp), npar, function(v)
                sum(dpois(yp, exp(glm_eta(xmat(v, N), v$alpha, v$beta)), log = TRUE)))
    for (pv in c(FALSE, TRUE)) {
      glm_check(glm_program("neg_binomial_2_log_glm_lpmf(y | x, alpha, beta, phi)", xrow, av,
                            if (pv) "vector<lower=0>[N] phi;" else "real<lower=0> phi;"),
                list(N = N, K = K, y = yp), npar + (if (pv) N else 1), function(v)
                  sum(dnbinom(yp, size = v$phi, mu = exp(glm_eta(xmat(v, N), v$alpha, v$beta)), log = TRUE)))
    }
  }
  # an int outcome shared by every row
  code <- "data { int N; int K; int y; } parameters { matrix[N, K] x; real alpha; vector[K] beta; real<lower=0> phi; }
    model { target += neg_binomial_2_log_glm_lpmf(y | x, alpha, beta, phi); }"
  glm_check(code, list(N = N, K = K, y = 3L), N * K + K + 2, function(v)
    sum(dnbinom(3, size = v$phi, mu = exp(glm_eta(v$x, v$alpha, v$beta)), log = TRUE)))
  code <- "data { int N; int K; int y; } parameters { matrix[N, K] x; real alpha; vector[K] beta; }
    model { target += poisson_log_glm_lpmf(y | x, alpha, beta) + bernoulli_logit_glm_lpmf(1 | x, alpha, beta); }"
  glm_check(code, list(N = N, K = K, y = 3L), N * K + K + 1, function(v) {
    eta <- glm_eta(v$x, v$alpha, v$beta)
    sum(dpois(3, exp(eta), log = TRUE)) + sum(plogis(eta, log.p = TRUE))
  })
})

ordered_logistic_r <- function(y, eta, cuts) {
  cc <- c(-Inf, cuts, Inf)
  sum(log(plogis(eta - cc[y]) - plogis(eta - cc[y + 1])))
}

test_that("ordered_logistic_glm_lpmf: matrix and row_vector x, against R", {
  N <- 7; K <- 2
  set.seed(4); y <- c(1L, 2L, 3L, 4L, 2L, 3L, 1L)
  for (xrow in c(FALSE, TRUE)) {
    code <- sprintf("data { int N; int K; array[N] int y; } parameters { %s x; vector[K] beta; ordered[3] cuts; }
      model { target += ordered_logistic_glm_lpmf(y | x, beta, cuts); }", if (xrow) "row_vector[K]" else "matrix[N, K]")
    glm_check(code, list(N = N, K = K, y = y), (if (xrow) K else N * K) + K + 3, function(v)
      ordered_logistic_r(y, as.vector(xmat(v, N) %*% v$beta), v$cuts))
  }
  code <- "data { int N; int K; int y; } parameters { matrix[N, K] x; vector[K] beta; ordered[3] cuts; }
      model { target += ordered_logistic_glm_lpmf(y | x, beta, cuts); }"
  glm_check(code, list(N = N, K = K, y = 4L), N * K + K + 3, function(v)
    ordered_logistic_r(rep(4L, N), as.vector(v$x %*% v$beta), v$cuts))
})

categorical_r <- function(y, x, alpha, beta) {
  lin <- sweep(x %*% beta, 2, alpha, "+")
  sum(vapply(seq_along(y), function(n) lin[n, y[n]] - log(sum(exp(lin[n, ]))), 0))
}

test_that("categorical_logit_glm_lpmf: matrix and row_vector x, against R", {
  N <- 6; K <- 2; C <- 3
  y <- c(1L, 3L, 2L, 2L, 3L, 1L)
  for (xrow in c(FALSE, TRUE)) {
    code <- sprintf("data { int N; int K; int C; array[N] int y; } parameters { %s x; vector[C] alpha; matrix[K, C] beta; }
      model { target += categorical_logit_glm_lpmf(y | x, alpha, beta); }", if (xrow) "row_vector[K]" else "matrix[N, K]")
    glm_check(code, list(N = N, K = K, C = C, y = y), (if (xrow) K else N * K) + C + K * C, function(v)
      categorical_r(y, xmat(v, N), v$alpha, v$beta))
  }
  code <- "data { int K; int C; } parameters { row_vector[K] x; vector[C] alpha; matrix[K, C] beta; }
      model { target += categorical_logit_glm_lpmf(2 | x, alpha, beta); }"
  glm_check(code, list(K = K, C = C), K + C + K * C, function(v)
    categorical_r(2L, matrix(v$x, 1), v$alpha, v$beta))
})

test_that("the GLMs with data x: `~` drops what Stan's propto drops, and nothing is recorded for data", {
  N <- 8; K <- 3
  set.seed(5)
  x <- matrix(rnorm(N * K), N, K); yp <- rpois(N, 2); yn <- rnorm(N); yo <- sample(1:4, N, TRUE)
  data <- list(N = N, K = K, x = x, yp = yp, yn = yn, yo = yo, yb = as.integer(yp > 1), yc = pmin(yo, 3L))
  pre <- "data { int N; int K; matrix[N, K] x; array[N] int yp; vector[N] yn; array[N] int yo; array[N] int yb; array[N] int yc; }
    parameters { real alpha; vector[K] beta; real<lower=0> s; ordered[3] cuts; matrix[K, 3] B; }
    model { "
  pairs <- list(
    c("yn ~ normal_id_glm(x, alpha, beta, s);", "target += normal_id_glm_lpdf(yn | x, alpha, beta, s);", N * 0.5 * log(2 * pi)),
    c("yp ~ poisson_log_glm(x, alpha, beta);", "target += poisson_log_glm_lpmf(yp | x, alpha, beta);", sum(lgamma(yp + 1))),
    c("yp ~ neg_binomial_2_log_glm(x, alpha, beta, s);", "target += neg_binomial_2_log_glm_lpmf(yp | x, alpha, beta, s);", sum(lgamma(yp + 1))),
    c("yb ~ bernoulli_logit_glm(x, alpha, beta);", "target += bernoulli_logit_glm_lpmf(yb | x, alpha, beta);", 0),
    c("yo ~ ordered_logistic_glm(x, beta, cuts);", "target += ordered_logistic_glm_lpmf(yo | x, beta, cuts);", 0),
    c("yc ~ categorical_logit_glm(x, rep_vector(alpha, 3), B);", "target += categorical_logit_glm_lpmf(yc | x, rep_vector(alpha, 3), B);", 0))
  for (p in pairs) {
    a <- tapestry_model(code = paste(pre, p[1], "}"))$bind(data)
    b <- tapestry_model(code = paste(pre, p[2], "}"))$bind(data)
    set.seed(6); u <- runif(a$num_upars(), -1, 1)
    expect_equal(a$log_prob(u), b$log_prob(u) + as.numeric(p[3]), tolerance = 1e-12, info = p[1])
    expect_equal(a$grad_log_prob(u), b$grad_log_prob(u), tolerance = 1e-12, ignore_attr = TRUE, info = p[1])
    expect_equal(as.vector(b$grad_log_prob(u)), fd_grad(b, u), tolerance = 1e-6, info = p[2])
  }
})

test_that("the GLMs check their arguments as Stan does", {
  lp <- function(body, data = list()) {
    m <- tapestry_model(code = paste("parameters { real z; } model { z ~ std_normal();", body, "}"))
    m$bind(data)$log_prob(0)
  }
  x <- "[[1, 2], [3, 4]]"
  expect_error(lp(sprintf("target += neg_binomial_2_log_glm_lpmf({1, -1} | %s, 0, [1, 1]', 2);", x)),
               "Failures variables\\[2\\] is -1, but must be nonnegative", class = "tapestry_domain_error")
  expect_error(lp(sprintf("target += neg_binomial_2_log_glm_lpmf({1, 1} | %s, 0, [1, 1]', -2);", x)),
               "Precision parameter is -2, but must be positive finite", class = "tapestry_domain_error")
  expect_error(lp(sprintf("target += neg_binomial_2_log_glm_lpmf({1, 1, 1} | %s, 0, [1, 1]', 2);", x)),
               "Vector of dependent variables has dimension = 3, expecting dimension = 2", class = "tapestry_error")
  expect_error(lp(sprintf("target += ordered_logistic_glm_lpmf({1, 5} | %s, [1, 1]', [0, 1, 2]');", x)),
               "Vector of dependent variables\\[2\\] is 5, but must be in the interval \\[1, 4\\]", class = "tapestry_domain_error")
  expect_error(lp(sprintf("target += ordered_logistic_glm_lpmf({1, 2} | %s, [1, 1]', [0, 2, 1]');", x)),
               "Cut-points is not a valid ordered vector", class = "tapestry_domain_error")
  expect_error(lp(sprintf("target += categorical_logit_glm_lpmf({1, 4} | %s, [0, 0, 0]', rep_matrix(0, 2, 3));", x)),
               "categorical outcome out of support\\[2\\] is 4, but must be in the interval \\[1, 3\\]", class = "tapestry_domain_error")
  expect_error(lp(sprintf("target += categorical_logit_glm_lpmf({1, 2} | %s, [0, 0, 0]', rep_matrix(0, 3, 3));", x)),
               "Size of x.cols\\(\\) \\(2\\) and size of beta.rows\\(\\) \\(3\\) must match", class = "tapestry_error")
})

test_that("count GLMs with large counts: the lgamma and digamma tables keep full precision", {
  N <- 3000; K <- 2
  set.seed(8)
  x <- matrix(rnorm(N * K), N, K)
  y <- c(0:2000, sample(0:50, N - 2001, TRUE))
  code <- "data { int N; int K; matrix[N, K] x; array[N] int y; }
    parameters { real alpha; vector[K] beta; real<lower=0> phi; }
    model { target += neg_binomial_2_log_glm_lpmf(y | x, alpha, beta, phi) + poisson_log_glm_lpmf(y | x, alpha, beta); }"
  ctx <- tapestry_model(code = code)$bind(list(N = N, K = K, x = x, y = y))
  u <- c(3, 0.1, -0.2, log(3.7))
  eta <- as.vector(3 + x %*% c(0.1, -0.2))
  want <- sum(dnbinom(y, size = 3.7, mu = exp(eta), log = TRUE)) + sum(dpois(y, exp(eta), log = TRUE))
  expect_equal(ctx$log_prob(u, jacobian = FALSE), want, tolerance = 1e-12)
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  # the derivative in phi against R's digamma, exactly
  g_phi <- sum(1 - (y + 3.7) / (exp(eta) + 3.7) + log(3.7) - log(exp(eta) + 3.7) + digamma(y + 3.7) - digamma(3.7))
  expect_equal(ctx$grad_log_prob(u, jacobian = FALSE)[4], g_phi * 3.7, tolerance = 1e-11)
})

test_that("GLM rows on vector lanes and on libm's lanes agree with R over the whole range of eta, on every instruction set", {
  # 301 rows: blocks of 128, vectors of 4 and 8 and the rows left over; eta
  # from -800 to 800 puts some vectors on the polynomial lanes and some
  # (|eta| past 700) on libm's, in the same call
  N <- 301; K <- 2
  set.seed(9)
  x <- matrix(rnorm(N * K, sd = 0.1), N, K)
  beta <- c(0.3, -0.2)
  code <- function(call, extra = "") sprintf(
    "data { int N; int K; matrix[N, K] x; array[N] int y; }
     parameters { vector[N] alpha; vector[K] beta; %s }
     model { target += %s; }", extra, call)
  lse <- function(a, b) pmax(a, b) + log1p(exp(-abs(a - b)))
  # every instruction set this machine has, widest first
  levels <- unique(c(simd_cap(-1), 1, 0))
  levels <- levels[levels <= levels[1]]
  on.exit(simd_cap(-1))
  for (level in levels) for (range in list(c(-800, 800), c(-30, 30))) {
    expect_equal(simd_cap(level), level)
    alpha <- seq(range[1], range[2], length.out = N)
    eta <- as.vector(alpha + x %*% beta)
    # bernoulli_logit: log inv_logit(+-eta), and y - inv_logit(eta) per row
    y <- rbinom(N, 1, 0.5)
    ctx <- tapestry_model(code = code("bernoulli_logit_glm_lpmf(y | x, alpha, beta)"))$bind(list(N = N, K = K, x = x, y = y))
    g <- ctx$grad_log_prob(c(alpha, beta))
    expect_equal(attr(g, "log_prob"), sum(plogis(ifelse(y == 1, eta, -eta), log.p = TRUE)), tolerance = 1e-14)
    expect_equal(as.vector(g[1:N]), ifelse(y == 1, plogis(-eta), -plogis(eta)), tolerance = 1e-14)
    # poisson_log, with eta up to 300 (exp(700) in a sum would overflow)
    etp <- pmin(eta, 300)
    yp <- rpois(N, 3)
    ctx <- tapestry_model(code = code("poisson_log_glm_lpmf(y | x, alpha, beta)"))$bind(list(N = N, K = K, x = x, y = yp))
    g <- ctx$grad_log_prob(c(pmin(alpha, 300 - as.vector(x %*% beta)), beta))
    expect_equal(attr(g, "log_prob"), sum(yp * etp - exp(etp) - lgamma(yp + 1)), tolerance = 1e-14)
    expect_equal(as.vector(g[1:N]), yp - exp(etp), tolerance = 1e-14)
    # neg_binomial_2_log: log(exp(eta) + phi) and its derivatives in eta and phi
    phi <- 2.5
    ctx <- tapestry_model(code = code("neg_binomial_2_log_glm_lpmf(y | x, alpha, beta, phi)", "real<lower=0> phi;"))$bind(
      list(N = N, K = K, x = x, y = yp))
    g <- ctx$grad_log_prob(c(alpha, beta, log(phi)), jacobian = FALSE)
    l <- lse(eta, log(phi))
    want <- sum(lgamma(yp + phi) - lgamma(yp + 1) - lgamma(phi) + phi * log(phi) + yp * eta - (yp + phi) * l)
    expect_equal(attr(g, "log_prob"), want, tolerance = 1e-14)
    expect_equal(as.vector(g[1:N]), yp - (yp + phi) * plogis(eta - log(phi)), tolerance = 1e-14)
    dphi <- sum(1 - (yp + phi) / phi * plogis(log(phi) - eta) + log(phi) - l + digamma(yp + phi) - digamma(phi))
    expect_equal(g[N + K + 1], dphi * phi, tolerance = 1e-13)
  }
})

test_that("normal_id_glm: the log density on doubles equals its value on the tape, bit for bit", {
  # y a parameter: on doubles it takes the fast path (data-like y), on the
  # tape the general one; both must add the squares in the same order
  # (the fuzzer found a brms program with mi() where they differed in the last bit)
  N <- 301; K <- 3
  set.seed(10)
  x <- matrix(rnorm(N * K), N, K)
  code <- "data { int N; int K; matrix[N, K] x; }
    parameters { vector[N] y; real alpha; vector[K] beta; real<lower=0> sigma; }
    model { target += normal_id_glm_lpdf(y | x, alpha, beta, sigma); }"
  ctx <- tapestry_model(code = code)$bind(list(N = N, K = K, x = x))
  for (s in 1:5) {
    u <- c(rnorm(N, sd = 10^s), rnorm(K + 1), log(0.3))
    expect_identical(ctx$log_prob(u), attr(ctx$grad_log_prob(u), "log_prob"))
  }
})
