# Methods of posterior's and bayesplot's generics for a fit (R/ux-generics.R).

test_that("posterior's as_draws() and as_draws_*() give the fit's draws in their format", {
  ff <- fake_fit(chains = 3L, save_warmup = TRUE)
  fit <- ff$fit
  expect_identical(posterior::as_draws(fit), fit$draws())
  expect_identical(posterior::as_draws(fit, variables = "theta", inc_warmup = TRUE),
                   fit$draws("theta", inc_warmup = TRUE))
  expect_identical(posterior::as_draws(fit, format = "df"), fit$draws(format = "df"))
  cases <- list(array = posterior::as_draws_array, df = posterior::as_draws_df,
                list = posterior::as_draws_list, matrix = posterior::as_draws_matrix,
                rvars = posterior::as_draws_rvars)
  for (fmt in names(cases)) {
    d <- cases[[fmt]](fit)
    expect_s3_class(d, paste0("draws_", fmt))
    expect_identical(d, fit$draws(format = fmt))
    expect_identical(cases[[fmt]](fit, variables = "mu", inc_warmup = TRUE),
                     fit$draws("mu", inc_warmup = TRUE, format = fmt))
  }
  # the values are the chains' own
  m <- posterior::as_draws_matrix(fit, "mu")
  expect_identical(as.double(m), as.double(unlist(lapply(ff$raw$chains, function(ch) ch$draws[21:50, "mu"]))))
  # functions of posterior that take any draws take the fit
  expect_identical(posterior::ndraws(posterior::as_draws(fit)), 90L)
  expect_equal(posterior::summarise_draws(fit), fit$summary())
})

test_that("bayesplot's nuts_params(), log_posterior(), rhat() and neff_ratio() as for cmdstanr's fits", {
  skip_if_not_installed("bayesplot")
  grDevices::pdf(NULL)   # the grid of mcmc_nuts_divergence() measures text on the open device
  dev <- grDevices::dev.cur()
  ff <- fake_fit(chains = 2L, chain_args = list(list(n_divergent = 3L), list()))
  fit <- ff$fit
  np <- bayesplot::nuts_params(fit)
  expect_identical(names(np), c("Iteration", "Chain", "Parameter", "Value"))
  expect_identical(levels(np$Parameter), c("accept_stat__", "stepsize__", "treedepth__",
                                           "n_leapfrog__", "divergent__", "energy__"))
  expect_type(np$Iteration, "integer")
  expect_type(np$Chain, "integer")
  expect_identical(nrow(np), 30L * 2L * 6L)
  div <- np[np$Parameter == "divergent__", ]
  expect_identical(as.integer(tapply(div$Value, div$Chain, sum)), c(3L, 0L))
  e <- np[np$Parameter == "energy__" & np$Chain == 2L, ]
  expect_identical(e$Value, unname(ff$raw$chains[[2]]$draws[, "energy__"]))
  expect_identical(e$Iteration, 1:30)
  expect_identical(levels(bayesplot::nuts_params(fit, pars = "divergent__")$Parameter), "divergent__")
  lp <- bayesplot::log_posterior(fit)
  expect_identical(names(lp), c("Iteration", "Chain", "Value"))
  expect_identical(lp$Value[lp$Chain == 1L], unname(ff$raw$chains[[1]]$draws[, "lp__"]))
  r <- bayesplot::rhat(fit)
  s <- posterior::summarise_draws(fit$draws(), "rhat", "ess_basic")
  expect_identical(names(r), s$variable[s$variable != "lp__"])
  expect_equal(unname(r), as.double(s$rhat[s$variable != "lp__"]))
  n <- bayesplot::neff_ratio(fit)
  expect_equal(unname(n), as.double(s$ess_basic[s$variable != "lp__"]) / 60)
  expect_identical(names(bayesplot::rhat(fit, pars = "theta")), c("theta[1]", "theta[2]"))
  # the plots take them: ggplot objects are made without error
  expect_s3_class(bayesplot::mcmc_nuts_divergence(np, lp), "bayesplot_grid")
  # (the constant generated quantity k has no R-hat: NA, which the plots drop)
  expect_identical(names(r)[is.na(r)], "k")
  expect_s3_class(bayesplot::mcmc_rhat(r[!is.na(r)]), "ggplot")
  expect_s3_class(bayesplot::mcmc_neff(n[!is.na(n)]), "ggplot")
  grDevices::dev.off(dev)
})

test_that("a real run through bayesplot's NUTS plots", {
  skip_if_not_installed("bayesplot")
  grDevices::pdf(NULL)
  dev <- grDevices::dev.cur()
  mod <- tapestry_model(code = "parameters { real mu; vector[2] z; } model { mu ~ normal(0, 1); z ~ normal(mu, 1); }")
  fit <- mod$sample(seed = 3, chains = 2, iter_warmup = 200, iter_sampling = 200, refresh = 0,
                    show_messages = FALSE, diagnostics = NULL)
  np <- bayesplot::nuts_params(fit)
  expect_identical(nrow(np), 200L * 2L * 6L)
  expect_equal(sum(np$Value[np$Parameter == "divergent__"]),
               sum(fit$diagnostic_summary(quiet = TRUE)$num_divergent))
  expect_s3_class(bayesplot::mcmc_nuts_energy(np), "ggplot")
  expect_true(all(bayesplot::rhat(fit) < 1.1))
  expect_s3_class(bayesplot::mcmc_trace(posterior::as_draws_array(fit), pars = "mu", np = np), "ggplot")
  grDevices::dev.off(dev)
})

test_that("the help index holds no test helpers: tp_* are unexported and internal", {
  ex <- getNamespaceExports("tapestry")
  expect_identical(grep("^tp_", ex, value = TRUE), character())
  for (f in c("tp_call", "tp_rng", "tp_functions", "tp_parse", "tp_check", "tp_data_read", "tp_bench")) {
    expect_true(exists(f, envir = asNamespace("tapestry"), inherits = FALSE))
  }
  db <- tryCatch(tools::Rd_db("tapestry"), error = function(e) list())
  skip_if(length(db) == 0L, "the package was installed without its help pages")
  kw <- function(rd) {
    tags <- vapply(rd, function(x) attr(x, "Rd_tag"), "")
    unlist(lapply(rd[tags == "\\keyword"], as.character))
  }
  tp <- grep("^tp_", names(db), value = TRUE)
  expect_gt(length(tp), 5L)
  for (f in tp) expect_true("internal" %in% kw(db[[f]]), info = f)
  # what the index lists: the pages without the internal keyword
  listed <- names(db)[!vapply(db, function(rd) "internal" %in% kw(rd), TRUE)]
  expect_false(any(grepl("^tp_", listed)))
  expect_true("tapestry-generics.Rd" %in% listed)
})
