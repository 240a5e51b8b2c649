# cmdstanr's getting-started vignette (vignettes/cmdstanr.Rmd), its code as
# written there, with cmdstan_model() renamed tapestry_model() and the
# CmdStan-specific set-up left out (installing CmdStan, cmdstan_path(): the
# bernoulli example is written here; cmdstanr_example("schools") is the
# bundled centred eight schools).

test_that("cmdstanr's getting-started vignette runs to the end", {
  skip_if_not_installed("bayesplot")
  dir <- withr_tempdir()
  file <- file.path(dir, "bernoulli.stan")
  writeLines(c("data {", "  int<lower=0> N;", "  array[N] int<lower=0, upper=1> y;", "}",
               "parameters {", "  real<lower=0, upper=1> theta;", "}",
               "model {", "  theta ~ beta(1, 1); // uniform prior on interval 0,1",
               "  y ~ bernoulli(theta);", "}"), file)
  library(posterior)
  library(bayesplot)
  color_scheme_set("brightblue")
  mod <- tapestry_model(file)
  expect_output(mod$print(), "bernoulli\\(theta\\)")
  expect_message(mod$exe_file())
  data_list <- list(N = 10, y = c(0,1,0,0,0,0,0,0,0,1))
  expect_output(fit <- mod$sample(
    data = data_list,
    seed = 123,
    chains = 4,
    parallel_chains = 4,
    refresh = 500 # print update every 500 iters
  ))
  s <- fit$summary()
  expect_equal(as.double(s$mean[s$variable == "theta"]), 1 / 4, tolerance = 0.05)
  s2 <- fit$summary(variables = c("theta", "lp__"), "mean", "sd")
  expect_named(s2, c("variable", "mean", "sd"))
  s3 <- fit$summary("theta", pr_lt_half = ~ mean(. <= 0.5))
  expect_gt(s3$pr_lt_half, 0.9)
  s4 <- fit$summary(
    variables = NULL,
    posterior::default_summary_measures(),
    extra_quantiles = ~posterior::quantile2(., probs = c(0.025, 0.975))
  )
  expect_true(all(c("q2.5", "q97.5") %in% names(s4)))
  draws_arr <- fit$draws() # or format="array"
  expect_equal(dim(draws_arr), c(1000, 4, 2))
  draws_df <- fit$draws(format = "df")
  draws_df_2 <- as_draws_df(draws_arr)
  expect_true(identical(draws_df, draws_df_2))
  expect_s3_class(mcmc_hist(fit$draws("theta")), "ggplot")
  expect_s3_class(fit$sampler_diagnostics(), "draws_array")
  expect_s3_class(fit$sampler_diagnostics(format = "df"), "draws_df")
  expect_named(fit$diagnostic_summary(), c("num_divergent", "num_max_treedepth", "ebfmi"))
  schools <- "
    data { int<lower=0> J; array[J] real y; array[J] real<lower=0> sigma; }
    parameters { real mu; real<lower=0> tau; array[J] real theta; }
    model { mu ~ normal(0, 10); tau ~ cauchy(0, 10); theta ~ normal(mu, tau); y ~ normal(theta, sigma); }"
  expect_message(fit_with_warning <- tapestry_model(code = schools)$sample(
    data = list(J = 8, y = c(28, 8, -3, 7, -1, 1, 18, 12), sigma = c(15, 10, 16, 11, 9, 11, 10, 18)),
    seed = 1, refresh = 0), "divergence")
  diagnostics <- fit_with_warning$diagnostic_summary()
  expect_gt(sum(diagnostics$num_divergent), 0)
  fit_optim <- mod$optimize(data = data_list, seed = 123)
  expect_output(fit_optim$print(), "theta")
  expect_equal(fit_optim$mle("theta"), c(theta = 0.2), tolerance = 1e-4)
  expect_s3_class(mcmc_hist(fit$draws("theta")) + vline_at(fit_optim$mle("theta"), size = 1.5), "ggplot")
  fit_optim_jacobian <- mod$optimize(data = data_list, jacobian = TRUE, seed = 123)
  fit_laplace <- mod$laplace(mode = fit_optim_jacobian, draws = 4000, data = data_list,
                             seed = 123, refresh = 1000)
  expect_output(fit_laplace$print("theta"), "theta")
  fit_vb <- mod$variational(data = data_list, seed = 123, draws = 4000)
  expect_output(fit_vb$print("theta"), "theta")
  fit_pf <- mod$pathfinder(data = data_list, seed = 123, draws = 4000)
  expect_output(fit_pf$print("theta"), "theta")
  for (f in list(fit_pf, fit_vb, fit_laplace, fit)) {
    expect_s3_class(mcmc_hist(f$draws("theta"), binwidth = 0.025), "ggplot")
    expect_equal(mean(f$draws("theta")), 0.25, tolerance = 0.2)
  }
})
