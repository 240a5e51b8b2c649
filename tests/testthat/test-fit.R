# The fit object (TapestryFit) on results made without the sampler
# (helper-fit.R): draws and their formats, summaries, diagnostics, metadata,
# the model's functions, chains that failed or were interrupted, CmdStan CSV
# files read back three ways, and a fit saved and loaded.

# the sampling rows of a raw chain's draws, for the given columns
sampling_rows <- function(chain, cols) {
  d <- chain$draws
  d[seq(chain$num_warmup_draws + 1L, nrow(d)), cols, drop = FALSE]
}

test_that("draws() has lp__ and every output, iterations x chains x variables", {
  ff <- fake_fit(chains = 3L)
  d <- ff$fit$draws()
  expect_s3_class(d, "draws_array")
  outs <- c("lp__", "mu", "theta[1]", "theta[2]", "sigma", "M[1,1]", "M[2,1]", "M[1,2]",
            "M[2,2]", "y", "k")
  expect_identical(posterior::variables(d), outs)
  expect_identical(dim(d), c(30L, 3L, length(outs)))
  for (k in 1:3) {
    expect_identical(unname(unclass(d)[, k, ]), unname(sampling_rows(ff$raw$chains[[k]], outs)))
  }
  # the generated quantity is what the context computes from mu
  expect_equal(posterior::extract_variable(d, "y"), posterior::extract_variable(d, "mu") + 1)
})

test_that("draws() selects whole variables or elements, in the order asked", {
  fit <- fake_fit()$fit
  expect_identical(posterior::variables(fit$draws("theta")), c("theta[1]", "theta[2]"))
  expect_identical(posterior::variables(fit$draws(c("y", "M[2,1]", "mu"))),
                   c("y", "M[2,1]", "mu"))
  expect_identical(posterior::variables(fit$draws(c("M", "M[1,1]", "lp__"))),
                   c("M[1,1]", "M[2,1]", "M[1,2]", "M[2,2]", "lp__"))
  expect_identical(unclass(fit$draws("theta[2]"))[, , 1],
                   unclass(fit$draws())[, , "theta[2]"])
})

test_that("draws() gives each posterior format", {
  fit <- fake_fit()$fit
  arr <- fit$draws()
  for (f in c("draws_matrix", "matrix")) {
    m <- fit$draws(format = f)
    expect_s3_class(m, "draws_matrix")
    expect_identical(unclass(m)[31:60, "sigma"], unclass(arr)[, 2, "sigma"], ignore_attr = TRUE)
  }
  for (f in c("draws_df", "df", "data.frame")) {
    df <- fit$draws("mu", format = f)
    expect_s3_class(df, "draws_df")
    expect_identical(df$.chain, rep(1:2, each = 30L))
    expect_identical(df$mu, as.vector(unclass(arr)[, , "mu"]))
  }
  l <- fit$draws(format = "list")
  expect_s3_class(l, "draws_list")
  expect_identical(l[[2]]$y, unclass(arr)[, 2, "y"], ignore_attr = TRUE)
  r <- fit$draws(c("theta", "M"), format = "rvars")
  expect_s3_class(r, "draws_rvars")
  expect_identical(dim(r$M), c(2L, 2L))
  expect_equal(mean(r$M[2, 1]), mean(unclass(arr)[, , "M[2,1]"]), ignore_attr = TRUE)
})

test_that("draws() includes warmup when it was saved, and says when it was not", {
  ff <- fake_fit(save_warmup = TRUE, n_warmup = 20L, n_sampling = 30L)
  w <- ff$fit$draws(c("mu", "lp__"), inc_warmup = TRUE)
  expect_identical(dim(w), c(50L, 2L, 2L))
  expect_identical(unclass(w)[, 2, "mu"], unname(ff$raw$chains[[2]]$draws[, "mu"]),
                   ignore_attr = TRUE)
  expect_identical(dim(ff$fit$draws()), c(30L, 2L, 11L))
  expect_identical(unclass(ff$fit$draws("mu"))[, 1, 1], unclass(w)[21:50, 1, "mu"],
                   ignore_attr = TRUE)
  sd <- ff$fit$sampler_diagnostics(inc_warmup = TRUE)
  expect_identical(dim(sd), c(50L, 2L, 6L))

  fit <- fake_fit()$fit
  expect_error(fit$draws(inc_warmup = TRUE), class = "tapestry_argument_error")
  expect_error(fit$sampler_diagnostics(inc_warmup = TRUE), class = "tapestry_argument_error")
})

test_that("a run of warmup only has draws of no iterations, and its warmup", {
  ff <- expect_silent(fake_fit(n_warmup = 20L, n_sampling = 0L, save_warmup = TRUE))
  expect_identical(dim(ff$fit$draws()), c(0L, 2L, 11L))
  expect_identical(dim(ff$fit$draws(inc_warmup = TRUE)), c(20L, 2L, 11L))
  expect_identical(names(ff$fit$inv_metric()), c("1", "2"))
  paths <- ff$fit$save_output_files(local_dir())
  expect_identical(unname(as.matrix(utils::read.csv(paths[2], comment.char = "#"))),
                   unname(ff$raw$chains[[2]]$draws))
})

test_that("draws() explains wrong arguments", {
  fit <- fake_fit()$fit
  expect_snapshot(error = TRUE, {
    fit$draws("nu")
    fit$draws(c("theta", "tau[1]", "theta[3]"))
    fit$draws(3)
    fit$draws(character())
    fit$draws(format = "tibble")
    fit$draws(inc_warmup = NA)
    fit$draws(inc_warmup = TRUE)
  })
  expect_error(fit$draws("nu"), class = "tapestry_argument_error")
})

test_that("summary() is posterior's summarise_draws() and passes its arguments", {
  fit <- fake_fit()$fit
  # computed in C: posterior's tibble, its numbers to rounding
  s0 <- fit$summary()
  p0 <- posterior::summarise_draws(fit$draws())
  expect_identical(attributes(s0), attributes(p0))
  expect_identical(lapply(s0, class), lapply(p0, class))
  expect_equal(s0, p0, tolerance = 1e-10)
  s <- fit$summary("theta", "mean", "sd")
  expect_identical(names(s), c("variable", "mean", "sd"))
  expect_identical(s$variable, c("theta[1]", "theta[2]"))
  expect_equal(as.numeric(s$mean), unname(colMeans(fit$draws("theta", format = "matrix"))))
  s2 <- fit$summary("mu", p_pos = function(x) mean(x > 0))
  expect_equal(as.numeric(s2$p_pos), mean(fit$draws("mu", format = "matrix") > 0))
})

test_that("print() shows the summary of the first max_rows variables", {
  fit <- fake_fit()$fit
  expect_snapshot({
    fit$print(max_rows = 4)
    fit$print("M", digits = 1)
  })
  out <- capture.output(r <- withVisible(print(fit)))
  expect_false(r$visible)
  expect_identical(r$value, fit)
  expect_length(out, 1L + 10L + 2L)
  expect_match(out[13], "showing 10 of 11 rows", fixed = TRUE)
  expect_error(fit$print(max_rows = -1), class = "tapestry_argument_error")
})

test_that("sampler_diagnostics() has the six columns of the sampler", {
  ff <- fake_fit()
  sd <- ff$fit$sampler_diagnostics()
  names6 <- c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__",
              "energy__")
  expect_s3_class(sd, "draws_array")
  expect_identical(posterior::variables(sd), names6)
  expect_identical(unname(unclass(sd)[, 2, ]), unname(sampling_rows(ff$raw$chains[[2]], names6)))
  expect_s3_class(ff$fit$sampler_diagnostics(format = "df"), "draws_df")
})

test_that("diagnostic_summary() counts per chain and warns as cmdstanr does", {
  ff <- fake_fit(chains = 2L, chain_args = list(list(n_divergent = 3L),
                                                list(n_max_depth = 2L)))
  fit <- ff$fit
  expect_snapshot(d <- fit$diagnostic_summary())
  expect_identical(d$num_divergent, c(3L, 0L))
  expect_identical(d$num_max_treedepth, c(0L, 2L))
  energy <- posterior::extract_variable_matrix(fit$sampler_diagnostics(), "energy__")
  expect_equal(d$ebfmi, unname(apply(energy, 2, function(x) {
    (sum(diff(x)^2) / length(x)) / stats::var(x)
  })))
  expect_silent(q <- fit$diagnostic_summary(quiet = TRUE))
  expect_identical(q, d)
  expect_identical(names(fit$diagnostic_summary("divergences", quiet = TRUE)), "num_divergent")
  expect_identical(fit$diagnostic_summary(character()), list())

  # the limit is the run's max_treedepth
  ff5 <- fake_fit(chain_args = list(list(n_max_depth = 4L, max_depth = 5L)), max_treedepth = 5L)
  expect_message(d5 <- ff5$fit$diagnostic_summary(c("treedepth", "ebfmi")),
                 "4 of 60 (6.7%) transitions hit the maximum treedepth limit of 5.",
                 fixed = TRUE)
  expect_identical(d5$num_max_treedepth, c(4L, 0L))

  expect_snapshot(error = TRUE, fit$diagnostic_summary("rhat"))
})

test_that("diagnostic_summary() reports a low E-BFMI", {
  ff <- fake_fit()
  # energies of a slow random walk: E-BFMI far below 0.3
  ch <- ff$raw$chains
  ch[[1]]$draws[, "energy__"] <- cumsum(rep(c(1, -1), each = 10L, length.out = 30L))
  fit <- TapestryFit$new(list(chains = ch), ff$model, ff$ctx, fake_args(2L))
  expect_message(e <- fit$diagnostic_summary("ebfmi")$ebfmi,
                 "1 of 2 chains had an E-BFMI less than 0.3.", fixed = TRUE)
  expect_lt(e[1], 0.3)
})

test_that("inv_metric() per chain, named by chain id, as matrix or diagonal", {
  ff <- fake_fit(chains = 2L)
  ch <- ff$raw$chains
  ch[[1]]$chain_id <- 5L
  ch[[2]]$chain_id <- 7L
  fit <- TapestryFit$new(list(chains = ch), ff$model, ff$ctx, fake_args(2L, chain_ids = c(5L, 7L)))
  m <- fit$inv_metric()
  expect_identical(names(m), c("5", "7"))
  expect_identical(m[["7"]], diag(ch[[2]]$inv_metric))
  expect_identical(fit$inv_metric(matrix = FALSE)[["5"]], ch[[1]]$inv_metric)

  dense <- fake_fit(metric = "dense_e")
  m <- dense$fit$inv_metric(matrix = FALSE)
  expect_identical(m[["2"]], dense$raw$chains[[2]]$inv_metric)
  expect_true(is.matrix(m[["1"]]))

  # one parameter: a 1 x 1 matrix, not diag()'s identity of that size
  mod1 <- tapestry_model(code = "parameters { real a; } model { a ~ normal(0, 1); }")
  ctx1 <- mod1$bind(list())
  raw1 <- with_seed(2, list(chains = list(fake_chain(ctx1, 1L))))
  raw1$chains[[1]]$inv_metric <- 2.5
  fit1 <- TapestryFit$new(raw1, mod1, ctx1, fake_args(1L))
  expect_identical(fit1$inv_metric()[["1"]], matrix(2.5))
})

test_that("init() gives each chain's initial values on the constrained scale", {
  ff <- fake_fit()
  inits <- ff$fit$init()
  expect_length(inits, 2L)
  for (k in 1:2) {
    u <- ff$raw$chains[[k]]$init
    expect_identical(inits[[k]], ff$ctx$constrain_variables(u, FALSE, FALSE))
    expect_identical(names(inits[[k]]), c("mu", "theta", "sigma", "M"))
    expect_equal(inits[[k]]$sigma, exp(u[4]))
    expect_identical(dim(inits[[k]]$M), c(2L, 2L))
  }
})

test_that("metadata() has the arguments, chain ids, step sizes, variables, versions", {
  ff <- fake_fit(chains = 2L)
  meta <- ff$fit$metadata()
  for (a in setdiff(names(fake_args(2L)), c("data", "stan_variables", "time_total"))) {
    expect_true(a %in% names(meta), info = a)
  }
  expect_identical(meta$method, "sample")
  expect_identical(meta$seed, 123)
  expect_identical(meta$chain_ids, 1:2)
  expect_identical(meta$step_size_adaptation, c(0.6, 0.7))
  expect_identical(meta$variables, posterior::variables(ff$fit$draws()))
  expect_identical(meta$stan_variables, c("lp__", "mu", "theta", "sigma", "M", "y", "k"))
  expect_identical(meta$stan_variable_sizes$M, c(2, 2))
  expect_identical(meta$stan_variable_sizes$theta, 2)
  expect_identical(meta$stan_variable_sizes$mu, 1)
  expect_identical(meta$sampler_diagnostics, posterior::variables(ff$fit$sampler_diagnostics()))
  expect_identical(meta$model_name, "fitmodel")
  expect_identical(c(meta$stan_version_major, meta$stan_version_minor), c(2L, 33L))
  expect_identical(meta$tapestry_version, as.character(utils::packageVersion("tapestry")))
  expect_null(meta$data_file)
  expect_null(meta$data)
  expect_identical(meta$time, ff$fit$time()$chains)
})

test_that("time(), num_chains(), code(), return_codes(), output_files()", {
  ff <- fake_fit(chains = 3L)
  fit <- ff$fit
  t <- fit$time()
  expect_identical(t$total, 1.5)
  expect_identical(t$chains, data.frame(chain_id = 1:3, warmup = c(0.25, 0.5, 0.75),
                                        sampling = c(0.5, 0.5, 0.5),
                                        total = c(0.75, 1, 1.25)))
  expect_identical(fit$num_chains(), 3L)
  expect_identical(fit$code(), ff$model$code())
  expect_identical(fit$return_codes(), c(0L, 0L, 0L))
  # no file was asked for: written into tempdir() when first listed (issue 33)
  files <- fit$output_files()
  expect_length(files, 3L)
  expect_true(all(file.exists(files)))
  unlink(files)
  expect_identical(fit$lp(), as.vector(unclass(fit$draws("lp__"))))
})

test_that("the model's functions work through the shared data context", {
  ff <- fake_fit()
  fit <- ff$fit
  ctx <- ff$ctx
  u <- c(0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, -0.8)
  expect_identical(fit$log_prob(u), as.vector(ctx$log_prob(u)))
  expect_identical(fit$log_prob(u, jacobian = FALSE), as.vector(ctx$log_prob(u, FALSE)))
  expect_identical(fit$grad_log_prob(u), ctx$grad_log_prob(u))
  v <- fit$constrain_variables(u)
  expect_identical(v, ctx$constrain_variables(u))
  expect_identical(names(fit$constrain_variables(u, FALSE, FALSE)), c("mu", "theta", "sigma", "M"))
  expect_equal(fit$unconstrain_variables(v), u)
  expect_snapshot(error = TRUE, {
    fit$log_prob(1:3)
    fit$grad_log_prob("a")
    fit$constrain_variables(matrix(0, 2, 4))
  })
})

test_that("unconstrain_draws() recovers the unconstrained points", {
  ff <- fake_fit(save_warmup = TRUE)
  u <- ff$fit$unconstrain_draws()
  expect_s3_class(u, "draws_array")
  expect_identical(posterior::variables(u), ff$ctx$upar_names())
  for (k in 1:2) {
    expect_equal(unname(unclass(u)[, k, ]), ff$raw$chains[[k]]$upars_[21:50, ], tolerance = 1e-12)
  }
  uw <- ff$fit$unconstrain_draws(inc_warmup = TRUE, format = "matrix")
  expect_s3_class(uw, "draws_matrix")
  expect_identical(dim(uw), c(100L, 8L))
  # draws given by the user: a subset of iterations
  d <- posterior::subset_draws(ff$fit$draws(), iteration = 1:3)
  expect_equal(unname(unclass(ff$fit$unconstrain_draws(d))[, 1, ]),
               ff$raw$chains[[1]]$upars_[21:23, ], tolerance = 1e-12)
  expect_error(ff$fit$unconstrain_draws(ff$fit$draws("theta")), "lacks 'mu'")
  expect_error(ff$fit$unconstrain_draws(list(1)), class = "tapestry_argument_error")
})

test_that("a chain that failed is left out of the draws", {
  ff <- fake_fit(chains = 3L)
  ch <- ff$raw$chains
  ch[[2]]$return_code <- 1L
  ch[[2]]$message <- "fatal_error: something broke"
  ch[[2]]$draws <- ch[[2]]$draws[1:5, ]
  # $sample() says that the chain failed; the fit has nothing to add
  expect_silent(fit <- TapestryFit$new(list(chains = ch), ff$model, ff$ctx, fake_args(3L)))
  expect_identical(fit$return_codes(), c(0L, 1L, 0L))
  # the chains of the draws (issue 33): return_codes() has every chain run
  expect_identical(fit$num_chains(), 2L)
  d <- fit$draws("mu")
  expect_identical(dim(d), c(30L, 2L, 1L))
  expect_identical(unclass(d)[, 2, 1], unname(ff$raw$chains[[3]]$draws[, "mu"]), ignore_attr = TRUE)
  expect_identical(names(fit$inv_metric()), c("1", "3"))
  expect_length(fit$diagnostic_summary(quiet = TRUE)$ebfmi, 2L)
})

test_that("chains of an interrupted run are cut to the draws all of them have", {
  ff <- fake_fit(chains = 3L, save_warmup = TRUE)
  ch <- ff$raw$chains
  ch[[1]]$draws <- ch[[1]]$draws[1:45, ]   # 25 sampling draws
  ch[[3]]$draws <- ch[[3]]$draws[1:12, ]   # still in warmup
  ch[[3]]$num_warmup_draws <- 12L
  for (k in 1:3) ch[[k]]$return_code <- 2L
  raw <- list(chains = ch, interrupted = TRUE)
  expect_snapshot(fit <- TapestryFit$new(raw, ff$model, ff$ctx, fake_args(3L, save_warmup = TRUE)))
  d <- fit$draws()
  expect_identical(dim(d), c(25L, 2L, 11L))
  expect_identical(unname(unclass(d)[, 2, ]), unname(ch[[2]]$draws[21:45, posterior::variables(d)]))
  expect_identical(dim(fit$draws(inc_warmup = TRUE)), c(45L, 2L, 11L))
  expect_identical(dim(fit$sampler_diagnostics()), c(25L, 2L, 6L))
  expect_identical(fit$return_codes(), c(2L, 2L, 2L))
})

test_that("a fit with no post-warmup draws says so when asked for them", {
  ff <- fake_fit(chains = 2L)
  ch <- ff$raw$chains
  for (k in 1:2) {
    ch[[k]]$draws <- ch[[k]]$draws[0, ]
    ch[[k]]$return_code <- 2L
  }
  expect_warning(fit <- TapestryFit$new(list(chains = ch, interrupted = TRUE), ff$model, ff$ctx,
                                        fake_args(2L)),
                 "No chain made post-warmup draws", class = "tapestry_warning")
  expect_snapshot(error = TRUE, fit$draws())
  expect_error(fit$summary(), class = "tapestry_fit_error")
  expect_error(fit$print(), class = "tapestry_fit_error")
  expect_error(fit$save_output_files(tempdir()), class = "tapestry_fit_error")
  expect_identical(fit$return_codes(), c(2L, 2L))
  expect_identical(fit$metadata()$variables, posterior::variables(fake_fit()$fit$draws()))
})

# CmdStan CSV files ----------------------------------------------------------

read_csv_draws <- function(path) {
  utils::read.csv(path, comment.char = "#", check.names = FALSE)
}

test_that("save_output_files() writes CmdStan CSV that read.csv() reads to full precision", {
  ff <- fake_fit(chains = 2L, save_warmup = TRUE)
  fit <- ff$fit
  dir <- local_dir()
  paths <- fit$save_output_files(dir, basename = "demo", timestamp = FALSE, random = FALSE)
  expect_identical(basename(paths), c("demo-1.csv", "demo-2.csv"))
  expect_identical(fit$output_files(), paths)

  both <- posterior::bind_draws(fit$draws(inc_warmup = TRUE),
                                fit$sampler_diagnostics(inc_warmup = TRUE), along = "variable")
  for (k in 1:2) {
    x <- read_csv_draws(paths[k])
    expect_identical(names(x), c("lp__", "accept_stat__", "stepsize__", "treedepth__",
                                 "n_leapfrog__", "divergent__", "energy__", "mu", "theta.1",
                                 "theta.2", "sigma", "M.1.1", "M.2.1", "M.1.2", "M.2.2", "y",
                                 "k"))
    expect_identical(nrow(x), 50L)
    # every number reads back to the same double
    expect_identical(unname(as.matrix(x)), unname(ff$raw$chains[[k]]$draws))
    names(x) <- colnames(ff$raw$chains[[k]]$draws)
    expect_identical(unname(as.matrix(x[, posterior::variables(both)])),
                     unname(unclass(both)[, k, ]))
  }

  lines <- readLines(paths[2])
  expect_identical(lines[1:3], c("# stan_version_major = 2", "# stan_version_minor = 33",
                                 "# stan_version_patch = 0"))
  expect_true("# model = fitmodel_model" %in% lines)
  expect_true("#     num_samples = 30" %in% lines)
  expect_true("#     save_warmup = 1" %in% lines)
  expect_true("#             max_depth = 10 (Default)" %in% lines)
  expect_true("# id = 2" %in% lines)
  expect_true("#   seed = 123" %in% lines)
  header <- grep("^lp__,", lines)
  adapt <- grep("# Adaptation terminated", lines, fixed = TRUE)
  expect_identical(adapt, header + 21L)   # after the 20 warmup draws
  expect_identical(lines[adapt + 1L], "# Step size = 0.7")
  expect_identical(lines[adapt + 2L], "# Diagonal elements of inverse mass matrix:")
  im <- as.numeric(strsplit(sub("^# ", "", lines[adapt + 3L]), ", ")[[1]])
  expect_identical(im, ff$raw$chains[[2]]$inv_metric)
  expect_identical(tail(lines, 5L), c("# ", "#  Elapsed Time: 0.5 seconds (Warm-up)",
                                      "#                0.5 seconds (Sampling)",
                                      "#                1 seconds (Total)", "# "))
})

test_that("save_output_files() writes a dense metric row by row, and names files as cmdstanr", {
  ff <- fake_fit(chains = 1L, metric = "dense_e")
  dir <- local_dir()
  path <- ff$fit$save_output_files(dir)
  expect_match(basename(path), "^string-[0-9]{12}-1-[0-9a-f]{6}\\.csv$")
  lines <- readLines(path)
  at <- grep("# Elements of inverse mass matrix:", lines, fixed = TRUE)
  m <- t(vapply(lines[at + 1:8], function(l) as.numeric(strsplit(sub("^# ", "", l), ", ")[[1]]),
                numeric(8)))
  expect_identical(unname(m), ff$raw$chains[[1]]$inv_metric)
  expect_identical(unname(as.matrix(read_csv_draws(path))), unname(ff$raw$chains[[1]]$draws))
  expect_snapshot(error = TRUE, ff$fit$save_output_files(file.path(dir, "nowhere")),
                  transform = function(x) gsub(dir, "<dir>", x, fixed = TRUE))
})

test_that("numbers in the CSV files are the shortest text that reads back exactly", {
  x <- c(0.1, 1 / 3, -2, 1e-300, 123456789.123, .Machine$double.xmax, 0, Inf, -Inf, NaN,
         0.1 + 0.2)
  s <- csv_numbers(x)
  expect_identical(s[c(1, 3, 7, 8, 9, 10)], c("0.1", "-2", "0", "Inf", "-Inf", "NaN"))
  expect_identical(as.numeric(s), x)
  expect_identical(cmdstan_names(c("lp__", "theta[1]", "L[2,1]", "a[1,2,3]")),
                   c("lp__", "theta.1", "L.2.1", "a.1.2.3"))
})

test_that("rstan reads the CSV files", {
  skip_if_not_installed("rstan")
  ff <- fake_fit(chains = 2L, save_warmup = TRUE)
  dir <- local_dir()
  paths <- ff$fit$save_output_files(dir, timestamp = FALSE, random = FALSE)
  sf <- suppressWarnings(suppressMessages(rstan::read_stan_csv(paths)))
  arr <- rstan::extract(sf, permuted = FALSE, inc_warmup = TRUE)
  expect_identical(dim(arr), c(50L, 2L, 11L))
  ours <- ff$fit$draws(inc_warmup = TRUE)
  expect_identical(unname(arr[, , "theta[2]"]), unname(unclass(ours)[, , "theta[2]"]))
  expect_identical(unname(arr[, , "M[2,1]"]), unname(unclass(ours)[, , "M[2,1]"]))
  expect_equal(sf@sim$warmup, 20)
  sp <- rstan::get_sampler_params(sf, inc_warmup = FALSE)
  expect_identical(unname(sp[[2]][, "energy__"]),
                   unname(unclass(ff$fit$sampler_diagnostics())[, 2, "energy__"]))
})

test_that("posterior reads the draws and bayesplot plots them", {
  skip_if_not_installed("bayesplot")
  fit <- fake_fit()$fit
  p <- bayesplot::mcmc_intervals(fit$draws(c("mu", "theta")))
  expect_s3_class(p, "ggplot")
})

# Saving the fit -----------------------------------------------------------

test_that("a saved and loaded fit has its draws and evaluates the model again", {
  ff <- fake_fit()
  fit <- ff$fit
  u <- seq(-0.5, 0.5, length.out = 8)
  lp <- fit$log_prob(u)
  file <- tempfile(fileext = ".rds")
  on.exit(unlink(file))
  expect_identical(fit$save_object(file), fit)
  rm(fit)
  fit2 <- readRDS(file)
  expect_identical(fit2$draws(), ff$fit$draws())
  expect_identical(fit2$summary(), ff$fit$summary())
  expect_identical(fit2$metadata()$step_size_adaptation, c(0.6, 0.7))
  expect_identical(fit2$log_prob(u), lp)
  expect_identical(fit2$grad_log_prob(u), ff$fit$grad_log_prob(u))
  expect_identical(fit2$constrain_variables(u), ff$fit$constrain_variables(u))
  expect_identical(fit2$init(), ff$fit$init())
})
