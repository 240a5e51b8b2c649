# What a cmdstanr or brms user may hit, one test per edge
# (constructor arguments, CSV files, output_dir, show_messages, deprecated
# names, cmdstan_diagnose, interrupted fits, init errors, exe_info, brms's
# adapt_delta hint, progress and warnings, impossible requests).

code33 <- "
parameters { real mu; real<lower=0> sigma; }
model { mu ~ normal(0, 1); sigma ~ lognormal(0, 1); }
generated quantities { int k = 3; int b = bernoulli_rng(0.5); }"
mod33 <- tapestry_model(code = code33)
run33 <- function(...) {
  mod33$sample(seed = 3, chains = 2, iter_warmup = 150, iter_sampling = 100, refresh = 0,
               show_messages = FALSE, diagnostics = NULL, ...)
}

test_that("cmdstan_model()'s arguments: accepted; those that only steer a compilation say so once", {
  file <- file.path(withr_tempdir(), "m33.stan")
  writeLines(code33, file)
  msgs <- character()
  mod <- withCallingHandlers(
    tapestry_model(stan_file = file, cpp_options = list(stan_threads = TRUE),
                   stanc_options = list("O1"), force_recompile = TRUE, exe_file = "m33.exe",
                   compile = TRUE, quiet = FALSE, dir = tempdir(), user_header = NULL),
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
  # one message for all of them, naming each
  expect_length(msgs, 1L)
  expect_match(msgs, "nothing is compiled", fixed = TRUE)
  for (a in c("exe_file", "cpp_options", "stanc_options", "force_recompile", "dir")) {
    expect_match(msgs, sprintf("`%s`", a), fixed = TRUE)
  }
  expect_match(msgs, "threads_per_chain", fixed = TRUE)
  expect_identical(mod$stan_file(), normalizePath(file))
  # the model works
  expect_equal(mod$bind()$log_prob(c(0, 0)), mod33$bind()$log_prob(c(0, 0)))
  # nothing meaningless given, or compile = FALSE with quiet: no message
  expect_silent(tapestry_model(file, compile = FALSE))
  expect_silent(tapestry_model(file, compile = FALSE, cpp_options = list(stan_threads = TRUE)))
  expect_silent(tapestry_model(file, compile = TRUE, include_paths = dirname(file)))
  # pedantic = TRUE shows stanc's pedantic warnings; compile_standalone exposes the functions
  expect_warning(tapestry_model(code = "parameters { real x; } model { }", pedantic = TRUE),
                 class = "tapestry_pedantic_warning")
  fm <- tapestry_model(code = "functions { real twice(real x) { return 2 * x; } }",
                       compile_standalone = TRUE)
  expect_identical(fm$functions$twice(1.5), 3)
  # cmdstanr's deprecated ones, with its warnings
  expect_warning(tapestry_model(file, threads = TRUE),
                 "'threads' is deprecated. Please use 'cpp_options = list(stan_threads = TRUE)' instead.",
                 fixed = TRUE)
  expect_warning(tapestry_model(file, compile_hessian_method = TRUE),
                 "'compile_hessian_method' is deprecated.", fixed = TRUE)
  # a program is needed: an executable alone cannot run here
  expect_error(tapestry_model(exe_file = "m33.exe"), "not a compiled executable",
               class = "tapestry_argument_error")
  expect_error(tapestry_model(file, stan_file = file), "not both")
  expect_error(tapestry_model(file, compile = "yes"), "`compile`")
})

test_that("$output_files() always has the CSV files: written when first asked for", {
  fit <- run33()
  files <- fit$output_files()
  expect_length(files, 2L)
  expect_true(all(file.exists(files)))
  expect_identical(dirname(files), rep(normalizePath(tempdir()), 2L))
  # asked again: the same files, not written again
  mtime <- file.mtime(files)
  Sys.sleep(1.1)
  expect_identical(fit$output_files(), files)
  expect_identical(file.mtime(files), mtime)
  csv <- utils::read.csv(files[2], comment.char = "#")
  expect_equal(csv$mu, as.vector(fit$draws("mu")[, 2, 1]))
  # a file gone (a new session's tempdir()): written again
  unlink(files)
  again <- fit$output_files()
  expect_true(all(file.exists(again)))
  skip_if_not_installed("rstan")
  sf <- suppressMessages(rstan::read_stan_csv(again))
  expect_equal(as.vector(rstan::extract(sf, "mu", permuted = FALSE)[, 1, 1]),
               as.vector(fit$draws("mu")[, 1, 1]))
  unlink(again)
})

test_that("output_dir must exist: an error like cmdstanr's before any work", {
  out <- capture.output(
    e <- expect_error(run33(output_dir = file.path(tempdir(), "no", "such", "dir")),
                      class = "tapestry_argument_error"))
  expect_match(conditionMessage(e),
               "Assertion on 'output_dir' failed: Directory '.*no/such/dir' does not exist.")
  expect_length(out, 0L)
  expect_false(dir.exists(file.path(tempdir(), "no")))
  # a folder that exists gets the files
  dir <- withr_tempdir()
  fit <- run33(output_dir = dir)
  expect_identical(dirname(fit$output_files()), rep(normalizePath(dir), 2L))
})

test_that("show_messages = FALSE prints nothing, progress included, outside an interactive session", {
  expect_false(interactive())
  out <- capture.output(type = "output", msgs <- capture.output(type = "message",
    fit <- mod33$sample(seed = 3, chains = 2, iter_warmup = 150, iter_sampling = 100,
                        refresh = 10, show_messages = FALSE, diagnostics = NULL)))
  expect_identical(out, character())
  expect_identical(msgs, character())
  # the run is the same as with messages
  shown <- capture.output(fit2 <- mod33$sample(seed = 3, chains = 2, iter_warmup = 150,
                                               iter_sampling = 100, refresh = 10,
                                               diagnostics = NULL))
  expect_true(any(grepl("^Chain 1 Iteration:", shown)))
  expect_identical(fit$draws(), fit2$draws())
  expect_identical(fit$metadata()$refresh, 10L)
})

test_that("cmdstanr's deprecated names of $sample() work, with its warnings", {
  w <- character()
  fit <- withCallingHandlers(
    mod33$sample(seed = 3, num_chains = 3, cores = 1, num_warmup = 120, num_samples = 80,
                 max_depth = 7, stepsize = 0.3, validate_csv = FALSE, refresh = 0,
                 show_messages = FALSE),
    warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart("muffleWarning") })
  expect_identical(w, c(
    "'cores' is deprecated. Please use 'parallel_chains' instead.",
    "'num_chains' is deprecated. Please use 'chains' instead.",
    "'num_warmup' is deprecated. Please use 'iter_warmup' instead.",
    "'num_samples' is deprecated. Please use 'iter_sampling' instead.",
    "'max_depth' is deprecated. Please use 'max_treedepth' instead.",
    "'stepsize' is deprecated. Please use 'step_size' instead.",
    "'validate_csv' is deprecated. Please use 'diagnostics' instead."))
  expect_identical(fit$num_chains(), 3L)
  expect_identical(fit$metadata()$chain_ids, 1:3)
  expect_identical(dim(fit$draws()), c(80L, 3L, 5L))
  m <- fit$metadata()
  expect_identical(c(m$iter_warmup, m$max_treedepth, m$parallel_chains), c(120L, 7L, 1L))
  expect_identical(m$step_size, rep(0.3, 3))
  expect_identical(m$diagnostics, character())
  expect_warning(f2 <- run33(num_cores = 2), "'num_cores' is deprecated")
  expect_identical(f2$metadata()$parallel_chains, 2L)
  # cmdstanr's progress bar argument (its newer versions)
  expect_silent(run33(show_progress_bar = TRUE))
  expect_error(run33(show_progress_bar = NA), "`show_progress_bar`")
  # $variational(output_samples =): cmdstanr's older name of draws, no warning
  vb <- mod33$variational(seed = 1, output_samples = 37, show_messages = FALSE, refresh = 0)
  expect_identical(posterior::ndraws(vb$draws()), 37L)
})

test_that("cmdstan_diagnose() lists no NA when a generated quantity is an integer", {
  fit <- run33()
  # posterior has no tail ESS for the 0/1 quantity: it was listed as NA
  s <- posterior::summarise_draws(fit$draws("b"), ess_tail = posterior::ess_tail)
  expect_true(is.na(s$ess_tail))
  out <- capture.output(fit$cmdstan_diagnose())
  expect_false(any(grepl("\\bNA\\b", out)))
  expect_true("Effective sample size satisfactory." %in% out)
  expect_identical(out[1], "Processing csv files: ")
})

test_that("an interrupted fit: num_chains() is the chains of its draws, and the run says it was interrupted", {
  ff <- fake_fit(chains = 4L)
  raw <- interrupted_raw(ff)
  ch <- raw$chains
  out <- character()
  w <- character()
  out <- capture.output(withCallingHandlers(report_chains(raw, 2, TRUE),
    warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart("muffleWarning") }))
  expect_false(any(grepl("unexpectedly", c(out, w))))
  expect_true(any(grepl("Chains 3 and 4 were interrupted (Ctrl-C) before they finished.", out,
                        fixed = TRUE)))
  expect_match(w, "Sampling was interrupted (Ctrl-C): 2 of 4 chains had finished", fixed = TRUE)
  fit <- suppressWarnings(TapestryFit$new(raw, ff$model, ff$ctx, fake_args(4L)))
  expect_identical(fit$num_chains(), 2L)
  expect_identical(fit$num_chains(), posterior::nchains(fit$draws()))
  expect_identical(fit$return_codes(), c(0L, 0L, 2L, 2L))
  # no draw at all: an interrupt condition (not an error)
  none <- raw
  none$chains <- lapply(ch, function(c) { c$draws <- c$draws[0, , drop = FALSE]; c })
  cnd <- tryCatch(report_chains(none, 1, FALSE), interrupt = function(e) e)
  expect_s3_class(cnd, "tapestry_interrupt")
  expect_match(conditionMessage(cnd), "before any draw was made")
})

test_that("a failed initialization says why on the line that announces it", {
  inf <- tapestry_model(code = "parameters { real x; } model { target += negative_infinity(); }")
  e <- expect_error(suppressWarnings(inf$sample(chains = 1, seed = 1, refresh = 0,
                                                show_messages = FALSE)), "All chains failed")
  lines <- strsplit(conditionMessage(e), "\n")[[1]]
  at <- grep("The last attempt:", lines)
  expect_length(at, 1L)
  # the reason follows on the same line (wrapped, it continues on the next)
  expect_match(paste(lines[at:length(lines)], collapse = " "),
               "The last attempt: Log probability evaluates to log(0), i.e. negative infinity. Stan can't start sampling from this initial value. Try specifying initial values",
               fixed = TRUE)
  bad <- tapestry_model(code = "parameters { real x; } model { x ~ normal(0, -1); }")
  e2 <- expect_error(suppressWarnings(bad$sample(chains = 1, seed = 1, refresh = 0,
                                                 show_messages = FALSE)))
  msg <- gsub("\n", " ", conditionMessage(e2))
  expect_match(msg, "The last attempt: Error evaluating the log probability at the initial value. normal_lpdf: Scale parameter is -1, but must be positive!",
               fixed = TRUE)
  e3 <- expect_error(suppressWarnings(bad$sample(chains = 1, seed = 1, refresh = 0, init = 0,
                                                 show_messages = FALSE)))
  expect_match(gsub("\n", " ", conditionMessage(e3)),
               "initial values (zeros where none were given). The attempt: Error evaluating",
               fixed = TRUE)
})

test_that("$exe_info() is a classed 'unsupported' error", {
  expect_error(mod33$exe_info(), "no executable", class = "tapestry_unsupported")
})

test_that("brms's control_params() finds adapt_delta in a tapestry_brm fit", {
  skip_if_not_installed("rstan")
  skip_if_not_installed("brms")
  fit <- run33(adapt_delta = 0.93, max_treedepth = 9)
  sf <- suppressMessages(rstan::read_stan_csv(fit$output_files()))
  expect_null(attr(sf@sim$samples[[1]], "args")$control$adapt_delta)
  sf <- brm_control(sf, fit$metadata())
  for (i in 1:2) {
    ctl <- attr(sf@sim$samples[[i]], "args")$control
    expect_identical(ctl$adapt_delta, 0.93)
    expect_identical(ctl$max_treedepth, 9L)
    expect_identical(ctl$stepsize, fit$metadata()$step_size[i])
  }
  bf <- structure(list(fit = sf, backend = "rstan"), class = "brmsfit")
  expect_identical(utils::getFromNamespace("control_params", "brms")(bf)$adapt_delta, 0.93)
})

test_that("brms's summary() of a fit with divergences names the adapt_delta to raise", {
  skip_if_not_installed("rstan")
  skip_if_not_installed("brms")
  skip_on_cran()
  set.seed(33)
  d <- data.frame(x = rnorm(40))
  d$y <- rpois(40, exp(0.3 + 0.5 * d$x))
  fit <- suppressMessages(suppressWarnings(
    tapestry_brm(y ~ x, data = d, family = "poisson", chains = 1, iter = 300, seed = 2,
                 refresh = 0, silent = 2, control = list(adapt_delta = 0.85))))
  # one divergent transition, as brms counts them
  sp <- attr(fit$fit@sim$samples[[1]], "sampler_params")
  sp$divergent__[length(sp$divergent__)] <- 1
  attr(fit$fit@sim$samples[[1]], "sampler_params") <- sp
  w <- character()
  withCallingHandlers(summary(fit), warning = function(c) {
    w <<- c(w, conditionMessage(c))
    invokeRestart("muffleWarning")
  })
  expect_true(any(grepl("Increasing adapt_delta above 0.85 may help", w, fixed = TRUE)))
})

test_that("the progress line keeps one layout from start to end; warnings fit the width", {
  states <- list(
    list(it = c(5L, 3L, 0L, 0L), ph = c(1L, 1L, 0L, 0L), el = c(0.1, 0.1, 0, 0)),
    list(it = c(900L, 880L, 0L, 0L), ph = c(1L, 1L, 0L, 0L), el = c(9.9, 9.8, 0, 0)),
    list(it = c(2000L, 1500L, 10L, 0L), ph = c(3L, 2L, 1L, 0L), el = c(20.1, 19.9, 0.1, 0)),
    list(it = c(2000L, 1700L, 1200L, 300L), ph = c(3L, 4L, 2L, 1L), el = c(20.1, 22, 120, 3)),
    list(it = c(2000L, 1700L, 2000L, 2000L), ph = c(3L, 4L, 3L, 3L), el = c(20.1, 22, 200.5, 199.8)))
  for (w in c(60L, 80L, 120L)) {
    text <- character()
    f <- progress_display(1:4, 1000L, 1000L, 100L, TRUE, width = w,
                          out = function(x) text <<- c(text, x))
    for (s in states) f(s$it, s$ph, s$el, FALSE)
    draws <- strsplit(paste(text, collapse = ""), "\r", fixed = TRUE)[[1]][-1]
    draws <- sub(" +$", "", draws)
    expect_length(draws, length(states))
    expect_true(all(nchar(draws) <= w - 1L))
    # the same layout in every redraw: each starts as the first does
    first <- substr(draws[1], 1L, 2L)
    expect_true(all(substr(draws, 1L, 2L) == first), info = paste(draws, collapse = " / "))
    # and it is the widest layout whose longest line fits
    expect_identical(first, substr(progress_status_line(
      1:4, c(5L, 3L, 0L, 0L), c(1L, 1L, 0L, 0L), rep(0.1, 4), 2000L, w - 1L,
      progress_layout(1:4, 2000L, w - 1L)), 1L, 2L))
  }
  # a width at which the widest layout fits only early lines: the line does not jump
  expect_identical(progress_layout(1:2, 2000L, 200L), 1L)
  expect_gt(progress_layout(1:4, 2000L, 70L), 1L)

  long <- paste0("Warning: Bulk Effective Samples Size (ESS) is too low (below 400 for 2 of 3 ",
                 "variables), indicating posterior means and medians may be unreliable.\n",
                 "  chain 1: 3 (1.5%), chain 2: 4 (2.0%), chain 3: 5 (2.5%), chain 4: 6 (3.0%), chain 5: 7 (3.5%).\n",
                 "https://mc-stan.org/misc/warnings.html#bulk-ess")
  for (w in c(50L, 80L)) {
    wrapped <- strsplit(wrap_text(long, w), "\n")[[1]]
    expect_true(all(nchar(wrapped) < w))
    expect_identical(gsub("\\s+", " ", paste(wrapped, collapse = " ")),
                     gsub("\\s+", " ", paste(strsplit(long, "\n")[[1]], collapse = " ")))
    # a continuation line keeps the indentation of its line; the URL stays whole
    expect_true(any(startsWith(wrapped[-1], "  chain")))
    expect_true("https://mc-stan.org/misc/warnings.html#bulk-ess" %in% wrapped)
  }
  # the sampler's own warnings: each printed line within the width
  old <- options(width = 60)
  on.exit(options(old))
  ff <- fake_fit(chains = 3L, n_divergent = 5L)
  msgs <- character()
  withCallingHandlers(report_diagnostics(ff$fit, hmc_diagnostics, rhat_ess = TRUE),
                      message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
  lines <- unlist(strsplit(msgs, "\n"))
  expect_gt(length(lines), 2L)
  expect_true(all(nchar(lines) < 60L))
})

test_that("a run that cannot fit in memory is refused at once, saying why", {
  t0 <- Sys.time()
  e <- expect_error(mod33$sample(chains = 1e6, seed = 1, refresh = 0),
                    class = "tapestry_memory_error")
  expect_lt(as.double(difftime(Sys.time(), t0, units = "secs")), 5)
  expect_match(conditionMessage(e), "can't fit in memory: 1,000,000 chains of 1,000 saved draws")
  expect_match(conditionMessage(e), "tapestry_memory_limit()", fixed = TRUE)
  # after the data are bound, with the real number of columns
  big <- tapestry_model(code = "data { int N; } parameters { real x; } model { x ~ normal(0, 1); }
                         generated quantities { vector[N] z = rep_vector(x, N); }")
  e2 <- expect_error(big$sample(data = list(N = 5e5), chains = 4, iter_sampling = 2e4, seed = 1),
                     class = "tapestry_memory_error")
  expect_match(conditionMessage(e2), "each of 500,009 numbers")
  # what fits runs
  expect_s3_class(run33(), "TapestryFit")
})

test_that("Accelerate (vecLib) is an optimized BLAS, however R's library points at it", {
  expect_true(blas_is_optimized(
    "/System/Library/Frameworks/Accelerate.framework/Versions/A/Frameworks/vecLib.framework/Versions/A/libBLAS.dylib"))
  expect_true(blas_is_optimized(
    "/Library/Frameworks/R.framework/Versions/4.4-arm64/Resources/lib/libRblas.vecLib.dylib"))
  expect_false(blas_is_optimized(
    "/Library/Frameworks/R.framework/Versions/4.4-arm64/Resources/lib/libRblas.0.dylib"))
  # CRAN's macOS R switches to Accelerate by a link: libRblas.dylib -> libRblas.vecLib.dylib
  skip_on_os("windows")
  dir <- withr_tempdir()
  target <- file.path(dir, "libRblas.vecLib.dylib")
  writeLines("", target)
  link <- file.path(dir, "libRblas.dylib")
  file.symlink(target, link)
  expect_true(blas_is_optimized(resolve_library(link)))
  expect_false(blas_is_optimized(link))
})

test_that("expose_functions(global = TRUE) still puts the functions in the global environment", {
  fm <- tapestry_model(code = "functions { real thrice33(real x) { return 3 * x; } }")
  on.exit(if (exists("thrice33", envir = globalenv(), inherits = FALSE)) {
    rm("thrice33", envir = globalenv())
  })
  expect_false(exists("thrice33", envir = globalenv(), inherits = FALSE))
  fm$expose_functions(global = TRUE)
  expect_identical(get("thrice33", envir = globalenv(), inherits = FALSE)(2), 6)
  expect_identical(fm$functions$thrice33(2), 6)
})
