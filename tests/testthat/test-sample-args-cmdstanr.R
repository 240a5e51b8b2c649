# Every argument of cmdstanr's $sample() works or says why not
# (R/verb-sample-args.R).

mod_sa17 <- tapestry_model(code = "
  data { int N; vector[N] y; }
  parameters { real mu; real<lower=0> sigma; }
  model { y ~ normal(mu, sigma); mu ~ normal(0, 5); sigma ~ lognormal(0, 1); }")
data_sa17 <- list(N = 4, y = c(0.5, 1.5, -0.2, 1))
run_sa17 <- function(..., iter_warmup = 150) {
  mod_sa17$sample(data = data_sa17, seed = 11, chains = 2, iter_warmup = iter_warmup,
                  iter_sampling = 100, refresh = 0, show_messages = FALSE, ...)
}

test_that("every argument of cmdstanr's $sample() is an argument", {
  cmdstanr_args <- c("data", "seed", "refresh", "init", "save_latent_dynamics", "output_dir",
    "output_basename", "sig_figs", "chains", "parallel_chains", "chain_ids",
    "threads_per_chain", "opencl_ids", "iter_warmup", "iter_sampling", "save_warmup", "thin",
    "max_treedepth", "adapt_engaged", "adapt_delta", "step_size", "metric", "metric_file",
    "inv_metric", "init_buffer", "term_buffer", "window", "fixed_param", "show_messages",
    "show_exceptions", "diagnostics", "save_metric", "save_cmdstan_config")
  expect_true(all(cmdstanr_args %in% names(formals(mod_sa17$sample))))
  expect_identical(formals(mod_sa17$sample)$diagnostics,
                   quote(c("divergences", "treedepth", "ebfmi")))
})

test_that("output_dir and output_basename write CmdStan CSV files named as cmdstanr does", {
  dir <- file.path(withr_tempdir(), "out")
  dir.create(dir)
  fit <- run_sa17(output_dir = dir)
  files <- fit$output_files()
  expect_length(files, 2L)
  expect_true(all(file.exists(files)))
  expect_match(basename(files), "^string-[0-9]{12}-[12]-[0-9a-f]{6}\\.csv$")
  csv <- utils::read.csv(files[2], comment.char = "#")
  expect_equal(csv$mu, as.vector(fit$draws("mu")[, 2, 1]))
  fit2 <- run_sa17(output_dir = dir, output_basename = "run")
  expect_identical(basename(fit2$output_files()), c("run-1.csv", "run-2.csv"))
  # basename alone: tempdir()
  fit3 <- run_sa17(output_basename = "only")
  expect_identical(dirname(fit3$output_files()[1]), normalizePath(tempdir()))
  unlink(fit3$output_files())
  # no output_dir: no file until $output_files() asks (then in tempdir(): issue 33)
  f0 <- run_sa17()
  expect_null(f0$.__enclos_env__$private$output_files_)
  expect_identical(dirname(f0$output_files()), rep(normalizePath(tempdir()), 2L))
  unlink(f0$output_files())
  f <- tempfile()
  writeLines("x", f)
  expect_error(run_sa17(output_dir = f), "is a file")
})

test_that("sig_figs rounds the draws and the CSV files", {
  fit <- run_sa17(sig_figs = 3, output_dir = withr_tempdir())
  full <- run_sa17()
  d <- as.vector(fit$draws("mu"))
  expect_equal(d, signif(as.vector(full$draws("mu")), 3))
  expect_identical(d, signif(d, 3))
  expect_true(any(grepl("sig_figs = 3", readLines(fit$output_files()[1]))))
  expect_error(run_sa17(sig_figs = 0), "`sig_figs` must be a whole number from 1 to 18")
  expect_error(run_sa17(sig_figs = 19), "sig_figs")
})

test_that("metric_file (JSON and R dump) sets the inverse metric", {
  dir <- withr_tempdir()
  j <- file.path(dir, "m.json")
  writeLines('{"inv_metric": [0.5, 2]}', j)
  fit <- run_sa17(metric_file = j, adapt_engaged = FALSE, iter_warmup = 0, step_size = 0.3)
  expect_equal(fit$inv_metric(matrix = FALSE)[[1]], c(0.5, 2))
  expect_identical(fit$metadata()$metric, "diag_e")
  r <- file.path(dir, "m.R")
  writeLines("inv_metric <- structure(c(1, 0.1, 0.1, 2), .Dim = c(2, 2))", r)
  fit <- run_sa17(metric_file = r, adapt_engaged = FALSE, iter_warmup = 0, step_size = 0.3)
  expect_equal(fit$inv_metric()[[1]], matrix(c(1, 0.1, 0.1, 2), 2))
  expect_identical(fit$metadata()$metric, "dense_e")
  # one per chain
  j2 <- file.path(dir, "m2.json")
  writeLines('{"inv_metric": [3, 4]}', j2)
  fit <- run_sa17(metric_file = c(j, j2), adapt_engaged = FALSE, iter_warmup = 0, step_size = 0.3)
  expect_equal(unname(fit$inv_metric(matrix = FALSE)), list(c(0.5, 2), c(3, 4)))
  expect_error(run_sa17(metric_file = j, inv_metric = c(1, 1)), "not both")
  expect_error(run_sa17(metric_file = file.path(dir, "none.json")), "does not exist")
  writeLines('{"x": [1]}', j2)
  expect_error(run_sa17(metric_file = j2), "no variable `inv_metric`")
})

test_that("save_metric and save_cmdstan_config write JSON files beside the CSV files", {
  skip_if_not_installed("jsonlite")
  dir <- withr_tempdir()
  fit <- run_sa17(output_dir = dir, save_metric = TRUE, save_cmdstan_config = TRUE)
  m <- fit$metric_files()
  expect_identical(sub("_metric.json$", ".csv", m), fit$output_files())
  j <- jsonlite::fromJSON(m[2])
  expect_equal(j$inv_metric, unname(fit$inv_metric(matrix = FALSE)[[2]]))
  expect_equal(j$stepsize, fit$metadata()$step_size_adaptation[2])
  cfg <- jsonlite::fromJSON(fit$config_files()[1])
  expect_equal(cfg$seed, 11)
  expect_equal(cfg$iter_sampling, 100)
  expect_identical(cfg$method, "sample")
  expect_null(run_sa17()$metric_files())
})

test_that("diagnostics, show_exceptions are accepted and checked", {
  fit <- run_sa17(diagnostics = NULL, show_exceptions = FALSE)
  expect_identical(fit$metadata()$diagnostics, character())
  expect_false(fit$metadata()$show_exceptions)
  fit <- run_sa17(diagnostics = "divergences")
  expect_identical(fit$metadata()$diagnostics, "divergences")
  expect_identical(run_sa17()$metadata()$diagnostics, c("divergences", "treedepth", "ebfmi"))
  expect_error(run_sa17(diagnostics = "rhat"), "`diagnostics` must be NULL or some of")
  expect_error(run_sa17(show_exceptions = NA), "show_exceptions")
})

test_that("opencl_ids and save_latent_dynamics say why they can't apply", {
  expect_error(run_sa17(opencl_ids = c(0, 0)), "without OpenCL", class = "tapestry_argument_error")
  expect_warning(fit <- run_sa17(save_latent_dynamics = TRUE), "latent dynamics",
                 class = "tapestry_warning")
  expect_s3_class(fit, "TapestryFit")
  expect_silent(run_sa17(save_latent_dynamics = FALSE, opencl_ids = NULL, diagnostics = NULL))
})

test_that("fixed_param is accepted and passed on to the sampler", {
  expect_error(run_sa17(fixed_param = "yes"), "`fixed_param` must be TRUE or FALSE")
  fit <- run_sa17(fixed_param = FALSE)
  expect_false(fit$metadata()$fixed_param)
  fit <- run_sa17(fixed_param = TRUE, save_warmup = TRUE)
  expect_true(fit$metadata()$fixed_param)
  expect_false(fit$metadata()$save_warmup)
})

test_that("the sampler's own cmdstanr arguments still work", {
  fit <- run_sa17(inv_metric = c(1, 2), step_size = 0.5, adapt_engaged = FALSE,
                  iter_warmup = 0)
  expect_equal(fit$inv_metric(matrix = FALSE)[[1]], c(1, 2))
  expect_equal(unique(as.vector(fit$sampler_diagnostics()[, , "stepsize__"])), 0.5)
  fit <- run_sa17(init_buffer = 20, term_buffer = 20, window = 10)
  expect_identical(fit$metadata()$window, 10L)
})
