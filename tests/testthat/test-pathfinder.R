# $pathfinder(): single- and multi-path, against the exact posterior of
# conjugate_normal, the NUTS posteriors of logistic and eight_schools
# (non-centred); Pareto smoothing against 'loo'; pathfinder-initialised
# sampling.

pf_model <- function(name) tapestry_model(ext(paste0(name, ".stan")))
pf_data <- function(name) ext(paste0(name, ".data.json"))
pf_ref <- function(name) jsonlite::fromJSON(ext(paste0(name, ".reference.json")))$summary

test_that("Pareto smoothing is loo's", {
  skip_if_not_installed("loo")
  for (df in c(3, 10, 50)) {
    lr <- with_seed(df, stats::rt(3000, df = df) * 2)
    a <- psis_smooth(lr)
    b <- suppressWarnings(loo::psis(lr, r_eff = 1))
    expect_equal(a$pareto_k, unname(b$diagnostics$pareto_k), tolerance = 1e-10)
    w <- exp(a$log_weights)
    expect_equal(w / sum(w), as.vector(weights(b, log = FALSE)), tolerance = 1e-10)
  }
})

test_that("Pareto smoothing: a known tail and the untouched bulk", {
  # importance ratios with an exact generalized Pareto tail of shape 0.5
  lr <- with_seed(1, log(stats::runif(20000)^(-0.5)))
  a <- psis_smooth(lr)
  expect_equal(a$pareto_k, 0.5, tolerance = 0.08)
  bulk <- lr <= stats::quantile(lr, 0.9)
  expect_equal(a$log_weights[bulk], lr[bulk] - max(lr))
  expect_true(max(a$log_weights) <= 0)
})

test_that("conjugate_normal: the exact posterior, single and multi-path", {
  d <- jsonlite::fromJSON(pf_data("conjugate_normal"))
  prec <- 1 / d$tau0^2 + d$N / d$sigma^2
  mean_ <- (d$mu0 / d$tau0^2 + sum(d$y) / d$sigma^2) / prec
  sd_ <- 1 / sqrt(prec)
  mod <- pf_model("conjugate_normal")
  fit <- mod$pathfinder(data = d, seed = 1, show_messages = FALSE)
  mu <- as.vector(fit$draws("mu"))
  expect_length(mu, 1000)
  expect_lt(abs(mean(mu) - mean_), 0.2 * sd_)
  expect_lt(abs(sd(mu) / sd_ - 1), 0.15)
  # the approximation is exact: equal weights (NA: nothing to fit) or a light tail
  k <- fit$metadata()$pareto_k
  expect_true(is.na(k) || k < 0.5)
  one <- mod$pathfinder(data = d, seed = 1, num_paths = 1, single_path_draws = 2000,
                        show_messages = FALSE)
  mu1 <- as.vector(one$draws("mu"))
  expect_length(mu1, 2000)
  expect_lt(abs(mean(mu1) - mean_), 4.5 * sd_ / sqrt(2000))
  expect_lt(abs(sd(mu1) / sd_ - 1), 4.5 / sqrt(2 * 2000))
  expect_true(is.na(one$metadata()$pareto_k))
  # the approximation is exact here: lp__ - lp_approx__ is one constant
  r <- as.vector(one$draws("lp__") - one$draws("lp_approx__"))
  expect_lt(diff(range(r)), 1e-6)
})

test_that("logistic: means within a fifth of a posterior sd of NUTS", {
  skip_if(!nzchar(pf_data("logistic")), "logistic data not available")
  ref <- pf_ref("logistic")
  fit <- pf_model("logistic")$pathfinder(data = pf_data("logistic"), seed = 2,
                                          show_messages = FALSE)
  vars <- c("alpha", paste0("beta[", 1:20, "]"))
  s <- fit$summary(vars, "mean", "sd")
  nuts_mean <- vapply(vars, function(v) ref[[v]]$mean, 0)
  nuts_sd <- vapply(vars, function(v) ref[[v]]$sd, 0)
  expect_true(all(abs(s$mean - nuts_mean) < 0.2 * nuts_sd))
  expect_true(all(abs(s$sd / nuts_sd - 1) < 0.2))
})

test_that("eight_schools (non-centred): near NUTS, and the Pareto k says how far to trust it", {
  # Over seeds 1-8 the resampled means of tau and theta_tilde[1] are within
  # 0.8 and 0.2 posterior sd of NUTS, mu's 0.5-0.9 sd low: the paths' best
  # approximations sit near their starts (the unconstrained mode, tau = 29,
  # is far from the posterior mass) and Pareto k (0.7-1) flags the
  # resampling as unreliable, as Stan's pathfinder would.
  ref <- pf_ref("eight_schools")
  fit <- pf_model("eight_schools")$pathfinder(data = pf_data("eight_schools"), seed = 1,
                                               show_messages = FALSE)
  z <- function(v) (mean(as.vector(fit$draws(v))) - ref[[v]]$mean) / ref[[v]]$sd
  expect_lt(abs(z("mu")), 1.2)
  expect_lt(abs(z("tau")), 0.5)
  expect_lt(abs(z("theta_tilde[1]")), 0.3)
  expect_gt(sd(as.vector(fit$draws("tau"))), 0.5 * ref$tau$sd)
  expect_gt(fit$metadata()$pareto_k, 0.7)
  suppressMessages(expect_message(
    pf_model("eight_schools")$pathfinder(data = pf_data("eight_schools"), seed = 1),
    "Pareto k value .* is greater than 0.7"))
})

test_that("map_rect_hier (42 parameters, the low-rank form): near the NUTS posterior", {
  ref <- pf_ref("map_rect_hier")
  fit <- pf_model("map_rect_hier")$pathfinder(data = pf_data("map_rect_hier"), seed = 1,
                                               show_messages = FALSE)
  vars <- intersect(names(ref), posterior::variables(fit$draws()))
  expect_gt(length(vars), 10)
  for (v in vars) {
    x <- as.vector(fit$draws(v))
    expect_lt(abs(mean(x) - ref[[v]]$mean), 0.3 * ref[[v]]$sd, label = v)
    expect_lt(abs(sd(x) / ref[[v]]$sd - 1), 0.3, label = v)
  }
  expect_lt(fit$metadata()$pareto_k, 0.7)
})

test_that("the fit has CmdStanPathfinder's columns and methods", {
  mod <- pf_model("eight_schools")
  fit <- mod$pathfinder(data = pf_data("eight_schools"), seed = 3, draws = 200,
                        show_messages = FALSE)
  d <- fit$draws()
  expect_s3_class(d, "draws_matrix")
  expect_equal(posterior::ndraws(d), 200L)
  expect_equal(posterior::variables(d)[1:3], c("lp_approx__", "lp__", "mu"))
  U <- fit$unconstrained_draws()
  for (i in c(1, 100)) {
    expect_equal(as.vector(d[i, "lp__"]), fit$log_prob(U[i, ], jacobian = TRUE))
    expect_equal(as.vector(d[i, "theta[4]"]), fit$constrain_variables(U[i, ])$theta[4])
  }
  expect_equal(fit$lp(), as.vector(d[, "lp__"]))
  expect_equal(fit$lp_approx(), as.vector(d[, "lp_approx__"]))
  md <- fit$metadata()
  expect_equal(md$num_paths, 4L)
  expect_equal(md$history_size, 5L)
  expect_equal(md$num_elbo_draws, 25L)
  expect_true(is.finite(md$pareto_k))
  expect_output(fit$output(), "Path \\[4\\]")
  expect_output(print(fit), "tau")
  expect_identical(mod$pathfinder(data = pf_data("eight_schools"), seed = 3, draws = 200,
                                  show_messages = FALSE)$draws(), d)
  suppressMessages(expect_message(
    mod$pathfinder(data = pf_data("eight_schools"), seed = 3, draws = 10), "4 of 4 paths"))
  # no lp: no resampling, NA lp__
  nolp <- mod$pathfinder(data = pf_data("eight_schools"), seed = 3, calculate_lp = FALSE,
                         num_paths = 2, single_path_draws = 30, show_messages = FALSE)
  expect_equal(posterior::ndraws(nolp$draws()), 60L)
  expect_true(all(is.na(nolp$lp())))
  noresample <- mod$pathfinder(data = pf_data("eight_schools"), seed = 3, psis_resample = FALSE,
                               num_paths = 3, single_path_draws = 20, show_messages = FALSE)
  expect_equal(posterior::ndraws(noresample$draws()), 60L)
})

test_that("arguments are checked", {
  mod <- pf_model("conjugate_normal")
  dat <- pf_data("conjugate_normal")
  expect_error(mod$pathfinder(data = dat, num_paths = 0), "`num_paths`")
  expect_error(mod$pathfinder(data = dat, history_size = 0), "`history_size`")
  expect_error(mod$pathfinder(data = dat, psis_resample = "yes"), "psis_resample")
  expect_error(mod$pathfinder(data = dat, init_alpha = 0), "`init_alpha`")
  expect_error(mod$pathfinder(data = dat, foo = 1), "has no argument `foo`")
  expect_message(mod$pathfinder(data = dat, seed = 1, output_dir = tempdir(), draws = 10,
                                show_messages = FALSE), "`output_dir` is ignored")
  bad <- tapestry_model(code = "parameters { real x; } model { target += x; }")
  expect_error(bad$pathfinder(seed = 1, show_messages = FALSE), "every path failed")
})

test_that("pathfinder-initialised sampling reaches the posterior", {
  mod <- pf_model("eight_schools")
  dat <- pf_data("eight_schools")
  ref <- pf_ref("eight_schools")
  pf <- mod$pathfinder(data = dat, seed = 4, show_messages = FALSE)
  fit <- mod$sample(data = dat, init = pf, chains = 2, iter_warmup = 500,
                    iter_sampling = 1000, seed = 4, refresh = 0, show_messages = FALSE)
  inits <- vapply(fit$init(), function(i) i$mu, 0)
  expect_true(all(inits %in% as.vector(pf$draws("mu"))))
  s <- fit$summary(c("mu", "tau"))
  for (i in 1:2) {
    v <- s$variable[i]
    expect_lt(abs(s$mean[i] - ref[[v]]$mean), 5 * ref[[v]]$sd / sqrt(s$ess_bulk[i]),
              label = v)
  }
  # an optimize fit as init: every chain starts at the mode
  m <- mod$optimize(data = dat, seed = 4, jacobian = TRUE, show_messages = FALSE)
  fit2 <- mod$sample(data = dat, init = m, chains = 2, iter_warmup = 20, iter_sampling = 20,
                     seed = 4, refresh = 0, show_messages = FALSE)
  expect_equal(vapply(fit2$init(), function(i) i$tau, 0), rep(m$mle()[["tau"]], 2))
})

test_that("the low-rank approximation is the L-BFGS inverse Hessian (dense formula)", {
  with_seed(1, {
    n <- 30; m <- 5
    A <- crossprod(matrix(stats::rnorm(n * n), n)) / n + diag(n)
    S <- matrix(stats::rnorm(n * m), n)
    # a diagonal spanning six orders of magnitude, as along real paths
    alpha <- 10^stats::runif(n, -4, 2); x <- stats::rnorm(n); g <- stats::rnorm(n)
  })
  Y <- A %*% S
  SY <- crossprod(S, Y); R <- SY; R[lower.tri(R)] <- 0; Ri <- solve(R); D <- diag(diag(SY))
  H <- diag(alpha) + S %*% t(Ri) %*% (D + t(Y) %*% (alpha * Y)) %*% Ri %*% t(S) -
    S %*% t(Ri) %*% t(alpha * Y) - (alpha * Y) %*% Ri %*% t(S)
  for (k in c(m, 2)) {   # n > 2m: low rank; then few enough columns... both forms
    a <- pf_approx(x, g, alpha, S[, seq_len(k), drop = FALSE], Y[, seq_len(k), drop = FALSE])
    Sk <- S[, seq_len(k), drop = FALSE]; Yk <- Y[, seq_len(k), drop = FALSE]
    SYk <- crossprod(Sk, Yk); Rk <- SYk; Rk[lower.tri(Rk)] <- 0; Rik <- solve(Rk)
    Hk <- diag(alpha) + Sk %*% t(Rik) %*% (diag(diag(SYk), k) + t(Yk) %*% (alpha * Yk)) %*%
      Rik %*% t(Sk) - Sk %*% t(Rik) %*% t(alpha * Yk) - (alpha * Yk) %*% Rik %*% t(Sk)
    expect_equal(a$mu, drop(x + Hk %*% g), tolerance = 1e-10)
    expect_equal(a$logdet_half, 0.5 * as.numeric(determinant(Hk)$modulus), tolerance = 1e-10)
    expect_equal(crossprod(a$draw(diag(n))), Hk, tolerance = 1e-10)
    # the secant condition of the newest pair
    expect_equal(drop(Hk %*% Yk[, k]), Sk[, k], tolerance = 1e-8)
  }
  # the dense form (2m >= n)
  a <- pf_approx(x[1:8], g[1:8], alpha[1:8], S[1:8, 1:4], A[1:8, 1:8] %*% S[1:8, 1:4])
  expect_equal(crossprod(a$draw(diag(8))) %*% (A[1:8, 1:8] %*% S[1:8, 4]), S[1:8, 4, drop = FALSE],
               tolerance = 1e-8)
})
