# More chains than parallel_chains take turns on the cores (a piece at a
# time, src/r/r_sample.c's turns_task) unless options(tapestry.chain_turns =
# FALSE) runs them in CmdStan's order.  A chain's draws must not depend on
# which: it keeps its generator and adaptation state between pieces.

turns_fit <- function(mod, turns, ...) {
  old <- options(tapestry.chain_turns = turns)
  on.exit(options(old))
  mod$sample(chains = 4, parallel_chains = 2, refresh = 0, show_messages = FALSE, ...)
}

test_that("chains taking turns make the same draws, bit for bit, as chains run in order", {
  mod <- tapestry_model(code = "
    data { int N; vector[N] y; }
    parameters { real mu; real<lower=0> sigma; vector[3] z; }
    model { mu ~ normal(0, 5); sigma ~ exponential(1); z ~ normal(mu, sigma); y ~ normal(mu, sigma); }
    generated quantities { real y_rep = normal_rng(mu, sigma); }")
  data <- list(N = 5, y = c(0.3, -1.2, 2.1, 0.8, 1.4))
  for (args in list(list(iter_warmup = 150, iter_sampling = 100, seed = 7),
                    list(iter_warmup = 90, iter_sampling = 61, seed = 8, save_warmup = TRUE, thin = 2),
                    list(iter_warmup = 50, iter_sampling = 3, seed = 9, metric = "dense_e"))) {
    a <- do.call(turns_fit, c(list(mod, TRUE, data = data), args))
    b <- do.call(turns_fit, c(list(mod, FALSE, data = data), args))
    expect_identical(unclass(a$draws(inc_warmup = isTRUE(args$save_warmup))),
                     unclass(b$draws(inc_warmup = isTRUE(args$save_warmup))))
    expect_identical(a$sampler_diagnostics(), b$sampler_diagnostics())
    expect_identical(a$inv_metric(), b$inv_metric())
    expect_identical(a$metadata()$step_size_adaptation, b$metadata()$step_size_adaptation)
    expect_identical(a$return_codes(), rep(0L, 4))
  }
})

test_that("a chain that fails while taking turns stops alone; the others finish as in order", {
  mod <- tapestry_model(code = "
    parameters { real x; }
    model {
      x ~ normal(0, 1);
      if (x < -1e8) fatal_error(\"x went below -1e8\");
    }")
  inits <- list(list(x = 0), list(x = -1e9), list(x = 0.5), list(x = -0.5))
  run <- function(turns) {
    expect_warning(fit <- turns_fit(mod, turns, seed = 5, iter_warmup = 100, iter_sampling = 100,
                                    init = inits),
                   "Chain 2 finished unexpectedly: x went below -1e8", class = "tapestry_warning")
    fit
  }
  a <- run(TRUE)
  b <- run(FALSE)
  expect_identical(a$return_codes(), c(0L, 1L, 0L, 0L))
  expect_identical(a$return_codes(), b$return_codes())
  expect_identical(unclass(a$draws()), unclass(b$draws()))
})

test_that("Ctrl-C while chains take turns keeps every chain's draws so far", {
  skip_on_os("windows")
  skip_on_cran()
  skip_if(.Call(tapestry:::C_tp_cores) < 2, "one core: one chain at a time, no turns")
  f <- start_interruptible_run(turns = TRUE)
  # taking turns, every chain is sampling long before any ends
  txt <- wait_for_progress(f, function(txt) all(sampling_chains(txt)))
  expect_true(!is.null(txt))
  expect_false(any(grepl("finished in", txt)))
  interrupt_run(f)
  expect_true(file.exists(f$out))
  res <- readRDS(f$out)
  # no chain had finished: each keeps what it made, the draws cut to the
  # shortest chain (?TapestryFit, "Chains that did not finish")
  expect_identical(res$codes, rep(2L, 4))
  expect_true(all(res$rows > 0 & res$rows < 40000L))
  expect_identical(res$dim, c(min(res$rows), 4L, 2L))
  expect_false(anyNA(res$x))
  expect_true(any(grepl("Sampling was interrupted", res$w)))
})
