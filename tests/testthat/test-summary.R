# Summaries in C (src/nuts/nuts_sum*.c, R/summary.R) against posterior's
# own summarise_draws(): the same tibble, numbers equal to 1e-10 relative,
# the same NA and NaN, on draws of many shapes.

# posterior's summary and the C one of the same draws, compared: the
# same columns and classes, the same NA/NaN pattern, numbers to `tol`.
expect_posterior_summary <- function(x, ..., tol = 1e-10) {
  c_s <- suppressWarnings(summarise_draws_c(x, ...))
  p_s <- suppressWarnings(posterior::summarise_draws(x, ...))
  expect_identical(attributes(c_s), attributes(p_s))
  expect_identical(lapply(c_s, class), lapply(p_s, class))
  expect_identical(c_s$variable, p_s$variable)
  for (j in names(p_s)[-1]) {
    a <- as.double(c_s[[j]])
    b <- as.double(p_s[[j]])
    expect_identical(is.na(a), is.na(b), label = paste("NA of", j))
    expect_identical(is.nan(a), is.nan(b), label = paste("NaN of", j))
    ok <- !is.na(b) & a != b
    rel <- if (any(ok)) max(abs(a[ok] - b[ok]) / abs(b[ok])) else 0
    expect_lt(rel, tol, label = paste("largest relative difference of", j))
  }
  invisible(c_s)
}

all_measures <- function(x) {
  expect_posterior_summary(x)
  expect_posterior_summary(x, posterior::default_convergence_measures(),
                           posterior::default_mcse_measures())
  expect_posterior_summary(x, "rhat_basic", "ess_basic", "ess_mean", "ess_sd", "ess_median",
                           "ess_quantile", "mcse_mean")
  expect_posterior_summary(x, "mean", "quantile2", "ess_quantile",
                           .args = list(probs = c(0.025, 0.5, 0.975)))
}

draws_of <- function(n, m, k, f = stats::rnorm) array(f(n * m * k), c(n, m, k))

test_that("C summaries equal posterior's on draws of many shapes", {
  skip_on_cran()
  with_seed(11, {
    all_measures(draws_of(300, 4, 3))                                 # normal
    walk <- draws_of(300, 4, 2)
    for (k in 1:2) walk[, , k] <- apply(walk[, , k], 2, cumsum)       # long autocorrelation (FFT)
    all_measures(walk)
    all_measures(draws_of(101, 3, 3, stats::rcauchy))                 # heavy tails, odd length
    all_measures(draws_of(60, 1, 3))                                  # one chain
    all_measures(draws_of(7, 3, 2))                                   # very short chains
    for (n in 1:6) all_measures(draws_of(n, 2, 2))                    # 1 to 6 iterations
    all_measures(array(as.double(stats::rpois(80 * 4 * 3, 2)), c(80, 4, 3)))   # integer-valued
    all_measures(array(stats::rpois(80 * 4 * 2, 2), c(80, 4, 2)))     # R integers
    all_measures(array(as.double(stats::rbinom(100 * 4 * 2, 1, 0.1)), c(100, 4, 2)))
    all_measures(1e6 + draws_of(200, 4, 2) * 1e-3)                    # far from zero
    all_measures(draws_of(200, 4, 2) * 1e-300)
    # numbers a few units in the last place apart (the sort's last pass)
    all_measures(array(1 + sample(0:300, 300 * 4 * 2, TRUE) * .Machine$double.eps, c(300, 4, 2)))
  })
})

test_that("constant draws, NA, NaN and infinite values give what posterior gives", {
  skip_on_cran()
  with_seed(12, {
    x <- draws_of(20, 4, 9)
    x[, , 1] <- 3                          # constant
    x[3, 2, 2] <- NA
    x[5, 1, 3] <- Inf                      # ess_bulk and rhat from ranks, ess_tail NA
    x[, 1, 4] <- 1                         # one chain constant
    x[1:15, , 5] <- Inf                    # infinite median
    x[7, 3, 6] <- NaN
    x[2, 2, 7] <- -Inf
    x[, , 8] <- -Inf
    x[, , 9] <- rep(1:4, each = 20)        # each chain constant, the chains apart
    all_measures(x)
  })
})

test_that("the results do not depend on the number of threads", {
  x <- with_seed(13, draws_of(400, 4, 30))
  plan <- summary_plan()
  one <- summary_compute(x, plan, 1600, threads = 1L)
  two <- summary_compute(x, plan, 1600, threads = 2L)
  expect_identical(one, two)
})

test_that("measures by name, as functions, with probs; others go to posterior", {
  x <- posterior::as_draws_array(with_seed(14, draws_of(100, 2, 3)))
  s <- expect_posterior_summary(x, "mean", posterior::rhat, mad = stats::mad)
  expect_named(s, c("variable", "mean", "posterior::rhat", "mad"))
  s <- expect_posterior_summary(x, c("median", "ess_tail"), "quantile2")
  expect_named(s, c("variable", "median", "ess_tail", "q5", "q95"))
  s <- expect_posterior_summary(x, "quantile2", .args = list(probs = 0.3))
  expect_named(s, c("variable", "q30"))
  expect_named(summarise_draws_c(x, "mcse_median", "ess_median"),
               c("variable", "mcse_median", "ess_median"))
  # the plan says which go to C
  expect_null(summary_plan(list(function(x) mean(x > 0)), "f"))
  expect_null(summary_plan(list(~ mean(.x)), "~mean(.x)"))
  expect_null(summary_plan(list("var"), "var"))      # a covariance matrix of the chains
  expect_null(summary_plan(list("sd"), "sd", .args = list(probs = 0.5)))   # sd() takes no probs
  expect_null(summary_plan(list("quantile2"), "quantile2", .args = list(probs = 2)))
  expect_false(is.null(summary_plan(list("mean", "ess_bulk"), c("mean", "ess_bulk"))))
  # a function of the user's named like posterior's is the user's
  mean <- function(x) 42
  expect_null(summary_plan(list("mean"), "mean", environment()))
  f <- function(x) 1
  s <- summarise_draws_c(x, "mean", f)
  expect_identical(as.double(s$f), c(1, 1, 1))
})

test_that("posterior's warnings for capped ESS values are given", {
  # antithetic draws: an ESS above S log10(S), which posterior caps
  x <- array(rep(c(-1, 1), 500) + with_seed(15, stats::rnorm(1000, sd = 0.01)), c(250, 4, 1))
  w1 <- character()
  withCallingHandlers(posterior::summarise_draws(x, "ess_mean"),
                      warning = function(w) { w1 <<- c(w1, conditionMessage(w)); invokeRestart("muffleWarning") })
  w2 <- character()
  withCallingHandlers(summarise_draws_c(x, "ess_mean"),
                      warning = function(w) { w2 <<- c(w2, conditionMessage(w)); invokeRestart("muffleWarning") })
  expect_gt(length(w1), 0L)
  expect_identical(w2, w1)
})

test_that("a fit's summary is posterior's, kept after the run, and its checks come from C", {
  ff <- fake_fit(chains = 3L, chain_args = list(list(n_divergent = 2L), list(), list(n_max_depth = 3L)))
  fit <- ff$fit
  expect_null(fit$.__enclos_env__$private$summary_cache_)
  d <- fit$draws()
  for (args in list(list(), list("mean", "rhat"), list(posterior::default_convergence_measures()),
                    list("quantile2", .args = list(probs = c(0.1, 0.9))))) {
    s <- do.call(fit$summary, c(list(NULL), args))
    p <- suppressWarnings(do.call(posterior::summarise_draws, c(list(d), args)))
    expect_identical(attributes(s), attributes(p))
    expect_equal(s, p, tolerance = 1e-10)
  }
  expect_equal(fit$summary("theta", "mean", "sd"),
               posterior::summarise_draws(fit$draws("theta"), "mean", "sd"), tolerance = 1e-10)
  # the default summary is kept: a later call reads it
  s1 <- fit$summary()
  expect_false(is.null(fit$.__enclos_env__$private$summary_cache_))
  expect_identical(fit$summary(), s1)
  expect_identical(fit$summary("mu", "rhat")$rhat, s1$rhat[s1$variable == "mu"])
  # the sampler's checks, as posterior and R count them
  sd <- fit$sampler_diagnostics()
  m <- function(v) unclass(posterior::extract_variable_matrix(sd, v))
  h <- fit$diagnostic_summary(quiet = TRUE)
  expect_identical(h$num_divergent, as.integer(colSums(m("divergent__") != 0)))
  expect_identical(h$num_max_treedepth, as.integer(colSums(m("treedepth__") >= 10)))
  expect_equal(h$ebfmi, unname(apply(m("energy__"), 2, ebfmi)), tolerance = 1e-14)
})

test_that("the draws stay in the chains' matrices until asked, and are built once", {
  ff <- fake_fit(save_warmup = TRUE)
  fit <- ff$fit
  priv <- fit$.__enclos_env__$private
  expect_null(priv$draws_cache_)
  # a subset copies only what it asks for, and is not kept
  th <- fit$draws("theta")
  expect_null(priv$draws_cache_)
  expect_identical(dim(th), c(30L, 2L, 2L))
  d <- fit$draws()
  expect_identical(priv$draws_cache_, d)
  expect_identical(fit$draws(), d)
  # posterior's own draws_array of the same numbers
  ref <- array(NA_real_, dim(d))
  for (j in 1:2) ref[, j, ] <- ff$raw$chains[[j]]$draws[21:50, priv$variables_]
  dimnames(ref) <- list(NULL, NULL, priv$variables_)
  expect_identical(d, posterior::as_draws_array(ref))
  w <- fit$draws(inc_warmup = TRUE)
  expect_identical(unclass(w)[1:20, 1, "mu"], ff$raw$chains[[1]]$draws[1:20, "mu"],
                   ignore_attr = TRUE)
})

test_that("a sampled fit: summary and warnings from C", {
  skip_on_cran()
  code <- "data { int J; array[J] real y; array[J] real<lower=0> sigma; }
    parameters { real mu; real<lower=0> tau; vector[J] theta; }
    model { mu ~ normal(0, 5); tau ~ cauchy(0, 5); theta ~ normal(mu, tau); y ~ normal(theta, sigma); }"
  schools_data <- list(J = 8, y = c(28, 8, -3, 7, -1, 1, 18, 12),
                       sigma = c(15, 10, 16, 11, 9, 11, 10, 18))
  mod <- tapestry_model(code = code)
  fit <- suppressMessages(mod$sample(data = schools_data, seed = 3, chains = 2, refresh = 0,
                                     iter_warmup = 200, iter_sampling = 150, show_messages = FALSE))
  expect_false(is.null(fit$.__enclos_env__$private$summary_cache_))
  expect_equal(fit$summary(), posterior::summarise_draws(fit$draws()), tolerance = 1e-10)
  expect_equal(fit$summary(NULL, posterior::default_mcse_measures()),
               posterior::summarise_draws(fit$draws(), posterior::default_mcse_measures()),
               tolerance = 1e-10)
  fit2 <- mod$sample(data = schools_data, seed = 3, chains = 2, refresh = 0,
                     iter_warmup = 200, iter_sampling = 150, diagnostics = NULL,
                     show_messages = FALSE)
  expect_null(fit2$.__enclos_env__$private$summary_cache_)
  expect_identical(fit2$summary(), fit$summary())
})
