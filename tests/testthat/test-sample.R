# $sample(): the sampler end to end, on the bundled models.

quiet_sample <- function(mod, ...) {
  mod$sample(..., refresh = 0, show_messages = FALSE)
}

test_that("conjugate_normal: posterior mean and sd match the closed form", {
  mod <- tapestry_model(ext("conjugate_normal.stan"))
  data <- jsonlite::read_json(ext("conjugate_normal.data.json"), simplifyVector = TRUE)
  fit <- quiet_sample(mod, data = data, seed = 11, chains = 4, parallel_chains = 2)
  prec <- 1 / data$tau0^2 + data$N / data$sigma^2
  mean_true <- (data$mu0 / data$tau0^2 + sum(data$y) / data$sigma^2) / prec
  sd_true <- 1 / sqrt(prec)
  mu <- fit$draws("mu")
  expect_lt(abs(mean(mu) - mean_true), 4 * posterior::mcse_mean(mu))
  expect_lt(abs(sd(mu) - sd_true), 4 * posterior::mcse_sd(mu))
  # the generated quantity is the posterior predictive: sd^2 = sigma^2 + sd_true^2
  yrep <- fit$draws("y_rep")
  expect_lt(abs(mean(yrep) - mean_true), 4 * posterior::mcse_mean(yrep))
  expect_lt(posterior::rhat(mu), 1.01)
  expect_equal(posterior::niterations(mu), 1000)
  expect_equal(posterior::nchains(mu), 4)
})

test_that("four chains at once give what four one-chain runs give, bit for bit", {
  mod <- tapestry_model(ext("eight_schools.stan"))
  data <- ext("eight_schools.data.json")
  args <- list(data = data, seed = 123, iter_warmup = 150, iter_sampling = 100)
  all4 <- do.call(quiet_sample, c(list(mod), args, list(chains = 4, parallel_chains = 4)))
  d4 <- all4$draws(format = "draws_array")
  s4 <- all4$sampler_diagnostics()
  for (k in 1:4) {
    one <- do.call(quiet_sample, c(list(mod), args, list(chains = 1, chain_ids = k)))
    expect_identical(unclass(one$draws())[, 1, , drop = TRUE],
                     unclass(d4)[, k, , drop = TRUE])
    expect_identical(unclass(one$sampler_diagnostics())[, 1, , drop = TRUE],
                     unclass(s4)[, k, , drop = TRUE])
  }
  # and the same seed twice: the same draws; another seed: others
  again <- do.call(quiet_sample, c(list(mod), args, list(chains = 4, parallel_chains = 1)))
  expect_identical(unclass(again$draws()), unclass(d4))
  other <- do.call(quiet_sample, c(list(mod), modifyList(args, list(seed = 124)),
                                   list(chains = 4, parallel_chains = 4)))
  expect_false(identical(unclass(other$draws()), unclass(d4)))
})

test_that("sampler diagnostics have Stan's columns and values in range", {
  mod <- tapestry_model(ext("eight_schools.stan"))
  fit <- quiet_sample(mod, data = ext("eight_schools.data.json"), seed = 5, chains = 2,
                      iter_warmup = 300, iter_sampling = 200, adapt_delta = 0.95)
  sd <- posterior::as_draws_df(fit$sampler_diagnostics())
  expect_named(sd, c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                     "divergent__", "energy__", ".chain", ".iteration", ".draw"))
  expect_true(all(sd$accept_stat__ >= 0 & sd$accept_stat__ <= 1))
  expect_true(all(sd$treedepth__ >= 0 & sd$treedepth__ <= 10))
  expect_true(all(sd$n_leapfrog__ >= 1 & sd$n_leapfrog__ <= 1023))
  expect_true(all(sd$n_leapfrog__ < 2^(sd$treedepth__ + 1)))
  expect_true(all(sd$divergent__ %in% c(0, 1)))
  # one step size per chain after warmup, as Stan reports it
  expect_equal(nrow(unique(as.data.frame(sd)[, c(".chain", "stepsize__")])), 2)
  expect_equal(posterior::variables(fit$draws())[1:3], c("lp__", "mu", "tau"))
  expect_equal(tail(posterior::variables(fit$draws()), 1), "theta[8]")
})

test_that("save_warmup and thin keep the draws Stan keeps", {
  mod <- tapestry_model(ext("conjugate_normal.stan"))
  fit <- quiet_sample(mod, data = ext("conjugate_normal.data.json"), seed = 3, chains = 1,
                      iter_warmup = 101, iter_sampling = 50, save_warmup = TRUE, thin = 3)
  expect_equal(posterior::niterations(fit$draws(inc_warmup = TRUE)), 34 + 17)
  expect_equal(posterior::niterations(fit$draws()), 17)
})

test_that("dense_e and unit_e metrics sample correctly; a given inv_metric is used", {
  mod <- tapestry_model(ext("conjugate_normal.stan"))
  data <- ext("conjugate_normal.data.json")
  dense <- quiet_sample(mod, data = data, seed = 2, chains = 2, metric = "dense_e")
  unit <- quiet_sample(mod, data = data, seed = 2, chains = 2, metric = "unit_e")
  for (fit in list(dense, unit)) {
    mu <- fit$draws("mu")
    expect_lt(abs(mean(mu) - 2.01973716399365), 4.5 * posterior::mcse_mean(mu))
  }
  expect_true(is.matrix(dense$inv_metric(matrix = FALSE)[[1]]))
  expect_equal(unname(unit$inv_metric(matrix = FALSE)[[1]]), 1)
  fixed <- quiet_sample(mod, data = data, seed = 2, chains = 1, adapt_engaged = FALSE,
                        iter_warmup = 0, iter_sampling = 200, inv_metric = 0.04,
                        step_size = 0.9)
  expect_equal(unname(fixed$inv_metric(matrix = FALSE)[[1]]), 0.04)
  expect_true(all(fixed$sampler_diagnostics()[, , "stepsize__"] == 0.9))
})

test_that("user inits are used, whole or in part", {
  mod <- tapestry_model(ext("eight_schools.stan"))
  data <- ext("eight_schools.data.json")
  fit <- quiet_sample(mod, data = data, seed = 1, chains = 2, iter_warmup = 20,
                      iter_sampling = 10, init = list(list(mu = 1, tau = 2), list(mu = -3)))
  inits <- fit$init()
  expect_equal(inits[[1]]$mu, 1)
  expect_equal(inits[[1]]$tau, 2)
  expect_equal(inits[[2]]$mu, -3)
  expect_true(inits[[2]]$tau > exp(-2) && inits[[2]]$tau < exp(2))
  zero <- quiet_sample(mod, data = data, seed = 1, chains = 1, iter_warmup = 20,
                       iter_sampling = 10, init = 0)
  expect_equal(zero$init()[[1]]$tau, 1)
  expect_equal(zero$init()[[1]]$theta_tilde, rep(0, 8))
})

test_that("bad arguments are errors before any chain starts", {
  mod <- tapestry_model(ext("eight_schools.stan"))
  data <- ext("eight_schools.data.json")
  expect_snapshot(error = TRUE, {
    mod$sample(data = data, chains = 0)
    mod$sample(data = data, seed = -1)
    mod$sample(data = data, adapt_delta = 1)
    mod$sample(data = data, adapt_delta = 0)
    mod$sample(data = data, init = "no/such/inits.json")
    mod$sample(data = data, init = list(theta_tilde = c(1, 2, 3)))
  })
})

test_that("a chain that cannot start reports why", {
  mod <- tapestry_model(code = "parameters { real x; } model { target += log(-1.0); }")
  expect_snapshot(error = TRUE, quiet_sample(mod, chains = 2, seed = 1))
  bad <- tapestry_model(code = "parameters { real x; } model { reject(\"always\"); }")
  expect_snapshot(error = TRUE, quiet_sample(bad, chains = 1, seed = 1, init = 0))
})

test_that("rejections inside the model are kept as messages and sampling goes on", {
  mod <- tapestry_model(code = "
    parameters { real x; }
    model {
      if (x > 3) reject(\"x is too big: \", x);
      x ~ normal(0, 1);
    }")
  fit <- mod$sample(seed = 4, chains = 1, refresh = 0, show_messages = FALSE,
                    iter_warmup = 200, iter_sampling = 400)
  x <- fit$draws("x")
  expect_true(all(x <= 3))
  expect_equal(fit$return_codes(), 0L)
})

test_that("Ctrl-C from another process stops every chain within a second with partial draws", {
  skip_on_os("windows")
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  dir <- withr_tempdir()
  script <- file.path(dir, "run.R")
  out <- file.path(dir, "out.rds")
  pidfile <- file.path(dir, "pid")
  writeLines(c(
    "library(tapestry)",
    "mod <- tapestry_model(code = 'parameters { real x; } model {",
    "  for (i in 1:20000) target += normal_lpdf(x | 0, 1); }')",
    sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(pidfile)),
    "w <- NULL",
    "fit <- withCallingHandlers(mod$sample(chains = 4, parallel_chains = 2,",
    "  iter_warmup = 100, iter_sampling = 2e5, refresh = 0, show_messages = FALSE, seed = 1),",
    "  warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart('muffleWarning') })",
    sprintf("saveRDS(list(t = Sys.time(), w = w, n = posterior::ndraws(fit$draws()),
      codes = fit$return_codes()), %s)", deparse(out))
  ), script)
  system2(file.path(R.home("bin"), "Rscript"), script, wait = FALSE,
          env = paste0("R_LIBS=", lib))
  for (i in 1:200) if (file.exists(pidfile) && length(readLines(pidfile)) == 1L) break else
    Sys.sleep(0.05)
  Sys.sleep(2)   # sampling is under way, past the short warmup (each chain needs minutes: 20000 terms a gradient)
  pid <- as.integer(readLines(pidfile))
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  for (i in 1:200) if (file.exists(out)) break else Sys.sleep(0.05)
  expect_true(file.exists(out))
  Sys.sleep(0.2)
  res <- readRDS(out)
  expect_lt(as.double(difftime(res$t, sent, units = "secs")), 1)
  expect_gt(res$n, 0)
  expect_match(res$w, "interrupted", all = FALSE)
  expect_true(all(res$codes == 2L))
})

test_that("fatal_error() stops its chain and is reported; the other chains go on", {
  mod <- tapestry_model(code = "
    parameters { real x; }
    model {
      x ~ normal(0, 1);
      if (x < -1e8) fatal_error(\"x went below -1e8\");
    }")
  # chain 1 starts where the program gives up at once; chain 2 never gets there
  expect_warning(
    fit <- mod$sample(seed = 9, chains = 2, refresh = 0, show_messages = FALSE,
                      iter_warmup = 200, iter_sampling = 200,
                      init = list(list(x = -1e9), list(x = 0))),
    "Chain 1 finished unexpectedly: x went below -1e8", class = "tapestry_warning")
  expect_equal(fit$return_codes(), c(1L, 0L))
  expect_equal(posterior::nchains(fit$draws()), 1)
  # a fatal error in the middle of a run stops the chain there
  mid <- tapestry_model(code = "
    parameters { real x; }
    model {
      x ~ normal(0, 1);
      if (x > 1.5) fatal_error(\"x went past 1.5\");
    }")
  warned <- character()
  err <- tryCatch(withCallingHandlers(
    mid$sample(seed = 9, chains = 1, refresh = 0, show_messages = FALSE,
               iter_warmup = 100, iter_sampling = 100, init = 0),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    }), tapestry_error = function(e) e)
  expect_s3_class(err, "tapestry_error")
  expect_match(conditionMessage(err), "x went past 1.5")
  expect_length(warned, 1)
})
