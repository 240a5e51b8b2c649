# The model's and the fit's cmdstanr methods (R/verb-model-methods.R,
# R/verb-diagnose.R, R/verb-expose-functions.R, R/verb-fit-methods.R) and R
# dump data files (R/rdump.R).

code17 <- "
functions {
  real twice(real x) { return 2 * x; }
  vector scale(vector v, real a) { return a * v; }
  matrix outer_self(vector v) { return v * v'; }
  real my_rng(real mu) { return normal_rng(mu, 1); }
  real foo_lpdf(real y, real mu) { return -square(y - mu); }
  int count_pos(array[] real x) { int n = 0; for (i in 1:size(x)) n += x[i] > 0; return n; }
}
data { int N; vector[N] y; }
parameters { real mu; }
model { y ~ normal(mu, 1); mu ~ normal(0, 5); }
generated quantities {
  vector[N] log_lik;
  for (n in 1:N) log_lik[n] = normal_lpdf(y[n] | mu, 1);
}"
data17 <- list(N = 3, y = c(1, 2, 3))

fit17 <- local({
  mod <- tapestry_model(code = code17)
  mod$sample(data = data17, seed = 1, chains = 2, iter_warmup = 300, iter_sampling = 300,
             refresh = 0, show_messages = FALSE)
})

test_that("expose_functions() makes the program's functions callable from R", {
  mod <- tapestry_model(code = code17)
  mod$expose_functions()
  f <- mod$functions
  expect_equal(f$twice(3.5), 7)
  expect_equal(f$scale(c(1, 2, 3), 2), c(2, 4, 6))
  expect_equal(f$outer_self(c(1, 2)), matrix(c(1, 2, 2, 4), 2))
  expect_equal(f$foo_lpdf(1, 0.5), -0.25)
  expect_identical(f$count_pos(c(-1, 2, 3)), 2L)
  expect_named(formals(f$twice), "x")
  expect_named(formals(f$my_rng), c("mu", "seed"))
  # _rng: reproducible with the seed, different across seeds
  expect_identical(f$my_rng(0, seed = 3), f$my_rng(0, seed = 3))
  expect_false(identical(f$my_rng(0, seed = 3), f$my_rng(0, seed = 4)))
  draws <- vapply(1:400, function(s) f$my_rng(10, seed = s), 0)
  expect_lt(abs(mean(draws) - 10), 4 / sqrt(400) * 1.5)
  expect_error(f$twice(1, 2), "unused argument")
  # the fit exposes the model's functions
  fit17$expose_functions()
  expect_equal(fit17$functions$twice(1), 2)
})

test_that("expose_functions() on a program without functions says so", {
  mod <- tapestry_model(code = "parameters { real y; } model { y ~ std_normal(); }")
  expect_error(mod$expose_functions(), "no user-defined functions")
})

test_that("compile() is an invisible no-op, exe_file() is NA, stan_file() a file", {
  mod <- tapestry_model(code = code17)
  expect_invisible(mod$compile())
  expect_identical(mod$compile(cpp_options = list(stan_threads = TRUE), force_recompile = TRUE), mod)
  expect_silent(mod$compile(quiet = TRUE))
  expect_message(mod$compile(quiet = FALSE), "nothing to compile")
  expect_message(x <- mod$exe_file(), "no executable")
  expect_identical(x, NA_character_)
  f <- mod$stan_file()
  expect_true(file.exists(f))
  expect_identical(readLines(f), mod$code())
  expect_false(mod$has_stan_file())
  file <- system.file("extdata", "eight_schools.stan", package = "tapestry")
  m2 <- tapestry_model(file)
  expect_identical(m2$stan_file(), normalizePath(file))
  expect_true(m2$has_stan_file())
  expect_output(m2$print(line_numbers = TRUE), "^ ?1: ")
  expect_error(mod$hpp_file(), "not available in tapestry")
})

test_that("diagnose() compares the gradient with finite differences as CmdStan does", {
  mod <- tapestry_model(code = "
    data { int N; vector[N] y; }
    parameters { real mu; real<lower=0> sigma; }
    model { y ~ normal(mu, sigma); mu ~ normal(0, 5); sigma ~ lognormal(0, 1); }")
  d <- mod$diagnose(data = data17, seed = 3)
  g <- d$gradients()
  expect_named(g, c("param_idx", "value", "model", "finite_diff", "error"))
  expect_identical(g$param_idx, 0:1)
  ctx <- mod$bind(data17)
  expect_equal(g$model, as.vector(ctx$grad_log_prob(g$value)))
  expect_equal(d$lp(), ctx$log_prob(g$value))
  expect_true(all(abs(g$error) < 1e-5))
  expect_true(all(abs(g$value) <= 2))
  expect_identical(mod$diagnose(data = data17, seed = 3)$gradients(), g)
  # given inits
  d2 <- mod$diagnose(data = data17, init = list(list(mu = 1, sigma = 1)))
  expect_equal(d2$gradients()$value, c(1, 0))
  expect_equal(d2$init()$mu, 1)
  expect_error(mod$diagnose(data = data17, epsilon = -1), "epsilon")
})

test_that("loo() uses log_lik and loo's relative efficiency", {
  skip_if_not_installed("loo")
  l <- suppressWarnings(fit17$loo())
  expect_s3_class(l, "psis_loo")
  ll <- unclass(fit17$draws("log_lik"))
  ref <- suppressWarnings(loo::loo(ll, r_eff = loo::relative_eff(exp(ll))))
  expect_equal(l$estimates, ref$estimates)
  expect_error(fit17$loo(variables = "nope"), "named 'nope'")
  expect_error(fit17$loo(moment_match = TRUE), "not available in tapestry")
})

test_that("cmdstan_summary() prints stansummary's table", {
  out <- capture.output(fit17$cmdstan_summary())
  expect_match(out[1], "Inference for Stan model: string_model")
  hdr <- grep("Mean", out, value = TRUE)
  expect_match(hdr, "Mean +MCSE +StdDev +MAD +5% +50% +95% +ESS_bulk +ESS_tail +R_hat")
  row <- grep("^mu ", out, value = TRUE)
  m <- mean(fit17$draws("mu"))
  expect_equal(as.numeric(strsplit(trimws(row), " +")[[1]][2]), signif(m, 2))
  expect_true(any(grepl("^lp__", out)))
  expect_true(any(grepl("^accept_stat__", out)))
  expect_match(out[length(out)], "R_hat will be very close to 1.00")
})

test_that("cmdstan_diagnose() prints diagnose's report", {
  out <- capture.output(fit17$cmdstan_diagnose())
  expect_true("Treedepth satisfactory for all transitions." %in% out)
  expect_true("No divergent transitions found." %in% out)
  expect_true("E-BFMI satisfactory." %in% out)
  ok <- all(c("Effective sample size satisfactory.",
              "Split R-hat values satisfactory all parameters.") %in% out)
  expect_identical(out[length(out)], if (ok) "Processing complete, no problems detected." else
    "Processing complete.")
  rhat <- posterior::summarise_draws(fit17$draws(), rhat = posterior::rhat)
  high <- rhat$variable[rhat$rhat > 1.01]
  expect_identical(any(grepl("split R-hat greater than 1.01", out)), length(high) > 0)
  # a run with divergences
  mod <- tapestry_model(code = "parameters { real<lower=0> tau; real x; }
    model { tau ~ cauchy(0, 1); x ~ normal(0, tau); }")
  fit <- suppressWarnings(mod$sample(seed = 2, chains = 1, iter_warmup = 200, iter_sampling = 300,
                                     refresh = 0, show_messages = FALSE, adapt_delta = 0.6))
  nd <- sum(fit$sampler_diagnostics()[, , "divergent__"])
  out <- capture.output(fit$cmdstan_diagnose())
  if (nd > 0) {
    expect_true(any(grepl(sprintf("^%d of 300 .* transitions ended with a divergence", nd), out)))
    expect_identical(out[length(out)], "Processing complete.")
  } else {
    expect_true("No divergent transitions found." %in% out)
  }
})

test_that("output(), num_procs(), code(), data_file(), save_data_file(), save_object()", {
  o <- fit17$output()
  expect_length(o, 2L)
  expect_match(o[[1]][1], "Chain 1")
  expect_output(fit17$output(2), "Elapsed Time")
  expect_error(fit17$output(7), "chain ids")
  expect_identical(fit17$num_procs(), 2L)
  expect_identical(fit17$code(), strsplit(code17, "\n")[[1]])
  # data given as a list: written to a JSON file, as cmdstanr does
  tf <- fit17$data_file()
  expect_identical(dirname(tf), normalizePath(tempdir()))
  expect_identical(tp_data_read(tf)$y$values, c(1, 2, 3))
  expect_identical(fit17$data_file(), tf)
  dir <- withr_tempdir()
  p <- fit17$save_data_file(dir)
  expect_identical(fit17$data_file(), p)
  expect_identical(tp_data_read(p)$y$values, c(1, 2, 3))
  f <- file.path(dir, "fit.rds")
  fit17$save_object(f)
  expect_equal(readRDS(f)$draws(), fit17$draws())
})

test_that("save_data_file() writes matrices and arrays in CmdStan's JSON order", {
  mod <- tapestry_model(code = "data { matrix[2, 3] m; array[2, 2, 2] int a; }
    parameters { real x; } model { x ~ std_normal(); }")
  m <- matrix(1:6 + 0.5, 2, 3)
  a <- array(1:8, c(2, 2, 2))
  fit <- mod$sample(data = list(m = m, a = a), seed = 1, chains = 1, iter_warmup = 20,
                    iter_sampling = 20, refresh = 0, show_messages = FALSE)
  p <- fit$save_data_file(withr_tempdir())
  ctx <- mod$bind(p)
  ctx2 <- mod$bind(list(m = m, a = a))
  expect_identical(tp_data_read(p), tp_data_read(list(m = m, a = a)))
})

test_that("metric, config and profile files; methods that cannot apply say why", {
  dir <- withr_tempdir()
  p <- fit17$save_metric_files(dir)
  expect_identical(fit17$metric_files(), p)
  im <- fit17$inv_metric(matrix = FALSE)
  skip_if_not_installed("jsonlite")
  j <- jsonlite::fromJSON(p[1])
  expect_equal(j$inv_metric, unname(im[[1]]))
  expect_identical(j$metric_type, "diag_e")
  c <- fit17$save_config_files(dir)
  expect_identical(fit17$config_files(), c)
  expect_equal(jsonlite::fromJSON(c[2])$chain_id, 2)
  expect_error(fit17$latent_dynamics_files(), "not available in tapestry because")
  expect_error(fit17$save_latent_dynamics_files(), "not available in tapestry because")
  expect_null(fit17$profile_files())
  expect_invisible(fit17$init_model_methods())
  expect_identical(fit17$materialize(), fit17)
})

test_that("hessian() and variable_skeleton()", {
  h <- fit17$hessian(0.5)
  # d2/dmu2 of normal(y | mu, 1) x3 and normal(mu | 0, 5)
  expect_equal(h$hessian, matrix(-3 - 1 / 25), tolerance = 1e-6)
  expect_equal(h$grad_log_prob, as.vector(fit17$grad_log_prob(0.5)))
  sk <- fit17$variable_skeleton()
  expect_named(sk, c("mu", "log_lik"))
  expect_equal(sk$log_lik, c(0, 0, 0))
})

test_that("R dump data files are read as CmdStan reads them, without running them", {
  dir <- withr_tempdir()
  f <- file.path(dir, "d.data.R")
  writeLines(c("N <- 3", "y <- c(1.5, -2, 3e-1)", "\"k\" <- c(1L, -2L, 3L)",
               "m <- structure(c(1, 2, 3, 4, 5, 6), .Dim = c(2, 3))",
               "s = -1", "r <- 1:3", "e <- integer(0)"), f)
  mod <- tapestry_model(code = "data { int N; vector[N] y; array[3] int k; matrix[2, 3] m;
      real s; array[3] int r; array[0] int e; }
    parameters { real x; } model { x ~ std_normal(); }
    generated quantities { real t = sum(y) + sum(k) + m[2, 3] + s + sum(r); }")
  ctx <- mod$bind(f)
  expect_equal(ctx$constrain_variables(0)$t, 1.5 - 2 + 0.3 + 2 + 6 - 1 + 6)
  # the same values as the list the R code would make, in the data layer's form
  expect_identical(tp_data_read(f)$m, tp_data_read(list(m = matrix(1:6 + 0, 2, 3)))$m)
  expect_identical(tp_data_read(f)$k$all_int, TRUE)
  expect_identical(tp_data_read(f)$y$values, c(1.5, -2, 0.3))
  fit <- mod$sample(data = f, seed = 1, chains = 1, iter_warmup = 20, iter_sampling = 20,
                    refresh = 0, show_messages = FALSE)
  expect_identical(fit$data_file(), normalizePath(f))
  expect_identical(fit$metadata()$data_file, normalizePath(f))
  # a file that is not a dump: nothing is run
  bad <- file.path(dir, "bad.R")
  writeLines("N <- system('touch SHOULD_NOT_EXIST')", bad)
  expect_error(mod$bind(bad), "not a value CmdStan's R dump format allows",
               class = "tapestry_data_error")
  expect_false(file.exists("SHOULD_NOT_EXIST"))
  writeLines("print(1)", bad)
  expect_error(mod$bind(bad), "must be an assignment")
  writeLines("m <- structure(c(1, 2, 3), .Dim = c(2, 2))", bad)
  expect_error(mod$bind(bad), "does not match")
})

pedantic17 <- function(code) {
  mod <- suppressWarnings(tapestry_model(code = code))
  w <- NULL
  withCallingHandlers(mod$check_syntax(pedantic = TRUE, quiet = TRUE),
                      warning = function(c) {
                        if (inherits(c, "tapestry_pedantic_warning")) w <<- conditionMessage(c)
                        invokeRestart("muffleWarning")
                      })
  if (is.null(w)) character() else strsplit(w, "\n", fixed = TRUE)[[1]]
}

test_that("check_syntax(pedantic = TRUE): unused parameters and priors", {
  w <- pedantic17("data { int N; vector[N] y; }
    parameters { real mu; real<lower=0> sigma; real unused; real<lower=0> g; }
    model { y ~ normal(mu, sigma); sigma ~ exponential(1); g ~ exponential(1);
            target += normal_lpdf(g | 0, 1); }")
  expect_true(any(grepl(paste0("^Warning in 'string', line 2, column [0-9]+: The parameter ",
                               "unused was declared but was not used in the density ",
                               "calculation\\.$"), w)))
  expect_true(any(grepl("The parameter mu has no priors. This means either no prior is provided",
                        w, fixed = TRUE)))
  expect_true(any(grepl("The parameter g has 2 priors.", w, fixed = TRUE)))
  expect_false(any(grepl("parameter sigma has", w)))
  # a clean program has none
  expect_identical(pedantic17("data { int N; vector[N] y; }
    parameters { real mu; real<lower=0> sigma; }
    model { y ~ normal(mu, sigma); mu ~ normal(0, 1); sigma ~ exponential(1); }"), character())
  # a prior through a transformed parameter counts
  expect_identical(pedantic17("parameters { real z; }
    transformed parameters { real t = 2 * z; }
    model { t ~ normal(0, 1); }"), character())
  # without pedantic: no pedantic warning
  mod <- tapestry_model(code = "parameters { real a; real b; } model { a ~ normal(0, 1); }")
  expect_silent(mod$check_syntax(quiet = TRUE))
  expect_warning(mod$check_syntax(pedantic = TRUE, quiet = TRUE), "parameter b was declared",
                 class = "tapestry_pedantic_warning")
  expect_warning(mod$compile(pedantic = TRUE), "parameter b was declared")
})

test_that("check_syntax(pedantic = TRUE): bounds, supports and distributions", {
  w <- pedantic17("parameters { real<lower=-5, upper=5> b; real<lower=3, upper=1> bad;
      real s; real<lower=0> u; cov_matrix[2] S; real<lower=0> g; real<lower=0, upper=1> p; }
    model { b ~ uniform(-4, 5); bad ~ normal(2, 1); u ~ uniform(0, 1);
            S ~ lkj_corr(2); g ~ gamma(0.1, 0.1); p ~ uniform(0, 1); s ~ lognormal(0, 1);
            target += normal_lpdf(p | 0, s); b ~ normal(0, -1); }")
  has <- function(x) any(grepl(x, w, fixed = TRUE))
  expect_true(has("Your Stan program has a parameter b with a lower and upper bound in its declaration."))
  expect_false(has("Your Stan program has a parameter p with"))
  expect_true(has("Parameter bad has constraints that don't make sense. The lower bound should be strictly less than the upper bound."))
  expect_true(has("Parameter b is given a uniform distribution. The uniform distribution is not recommended"))
  expect_true(has("Parameter u is given a uniform distribution."))
  expect_false(has("Parameter p is given a uniform distribution."))
  expect_true(has("It is suggested to reparameterize your model to replace lkj_corr with lkj_corr_cholesky"))
  expect_true(has("There is a gamma or inverse-gamma distribution with parameters that are equal to each other and set to values less than 1."))
  expect_true(has("Parameter s is given a lognormal distribution, which has strictly positive support, but s was not constrained to be strictly positive."))
  expect_true(has("A normal distribution is given parameter s as a scale parameter (argument 2), but s was not constrained to be strictly positive."))
  expect_true(has("A normal distribution is given value -1 as a scale parameter (argument 2), but a scale parameter is not strictly positive."))
  expect_true(has("The parameter b is on the left-hand side of more than one tilde statement."))
  expect_false(has("Argument 0.1 suggests"))  # stanc: |x| < 0.1 or > 10
  expect_false(has("Argument 5 suggests"))
  expect_false(has("Argument 0 suggests"))
  w2 <- pedantic17("parameters { real a; } model { a ~ normal(100, 1); }")
  w3 <- pedantic17("parameters { real a; } model { a ~ normal(0, 0.01); }")
  expect_match(w3, "^Warning: Argument 0.01 suggests there may be parameters that are not unit scale")
  expect_identical(w2, paste0("Warning: Argument 100 suggests there may be parameters that are ",
                              "not unit scale; consider rescaling with a multiplier, see: ",
                              "https://mc-stan.org/docs/stan-users-guide/efficiency-tuning.html",
                              "#standardizing-predictors"))
})

test_that("check_syntax(pedantic = TRUE): control flow on parameters, int division", {
  w <- pedantic17("data { int N; } parameters { real mu; }
    transformed parameters { real t = mu * 2; }
    model { mu ~ normal(0, 1); if (t > 0) target += 1; for (i in 1:N) target += 0; }
    generated quantities { int k = N / 2; }")
  expect_true(any(w == "Warning: A control flow statement depends on parameter(s): mu."))
  expect_identical(sum(grepl("control flow", w)), 1L)
  mod <- suppressWarnings(tapestry_model(code = "data { int N; } generated quantities { int k = N / 2; }"))
  expect_warning(mod$check_syntax(pedantic = TRUE, quiet = TRUE), "found int division")
})

test_that("format() prints the program canonically, reading back to the same tree", {
  code <- "functions { real f(real x, data int n) { return x * n; } }
data { int N; real y[N]; matrix[2, 2] M; }
transformed data { real s = -(1 - 2) ^ 2; complex z = 3 + 2i; }
parameters { real<lower=0> sigma; vector<offset=1, multiplier=2>[2] om; simplex[3] th; }
model { for (i in 1:N) y[i] ~ normal(f(om[1], 2), sigma) T[-10, ];
  if (sigma > 1) target += 1; else if (sigma > 0) target += (2 - 3) - (4 - 5); else { target += 3; }
  th ~ dirichlet(rep_vector(1, 3)); target += M[1, :][2] + 2 ^ 3 ^ 2 + (2 ^ 3) ^ 2; }"
  mod <- suppressWarnings(tapestry_model(code = code))
  out <- capture.output(mod$format())
  expect_true("  array[N] real y;" %in% out)
  expect_true("  vector<offset=1, multiplier=2>[2] om;" %in% out)
  expect_true("  simplex[3] th;" %in% out)
  expect_true("  real s = -(1 - 2) ^ 2;" %in% out)
  expect_true("  complex z = 3 + 2i;" %in% out)
  expect_true("transformed data {" %in% out)
  expect_true("  real f(real x, data int n) {" %in% out)
  expect_true("    y[i] ~ normal(f(om[1], 2), sigma) T[-10, ];" %in% out)
  expect_true("  } else if (sigma > 0) {" %in% out || "  else if (sigma > 0)" %in% out)
  expect_true(any(grepl("target += 2 - 3 - (4 - 5);", out, fixed = TRUE)))
  expect_true(any(grepl("2 ^ 3 ^ 2 + (2 ^ 3) ^ 2", out, fixed = TRUE)))
  # same tree, new array syntax, no deprecation warning
  expect_identical(tp_parse(out)$dump, gsub(" old-syntax", "", tp_parse(code)$dump))
  expect_length(tp_parse(out)$warnings, 0L)
  # stable: formatting the formatted program changes nothing
  expect_identical(capture.output(tapestry_model(code = out)$format()), out)
  expect_silent(mod$format(quiet = TRUE))
  b <- capture.output(mod$format(canonicalize = "braces"))
  expect_true("    for (i in 1:N) {" %in% b || "  for (i in 1:N) {" %in% b)
  expect_error(mod$format(canonicalize = "nope"), "canonicalize")
  expect_error(mod$format(overwrite_file = TRUE), "needs a model made from a file")
})

test_that("format() round-trips the shared models", {
  files <- c(Sys.glob("/work/shared/models/*.stan"), Sys.glob("/work/shared/models/stan221/*.stan"))
  skip_if(length(files) == 0L, "shared models not on this machine")
  for (f in files) {
    code <- readLines(f)
    out <- capture.output(suppressWarnings(tapestry_model(code = code))$format())
    expect_identical(tp_parse(out)$dump, gsub(" old-syntax", "", tp_parse(code)$dump), label = f)
  }
})

test_that("format(overwrite_file = TRUE) rewrites the file, with a backup", {
  dir <- withr_tempdir()
  f <- file.path(dir, "m.stan")
  writeLines("parameters { real y; } model { y ~ normal(0,1); }", f)
  mod <- tapestry_model(f)
  mod$format(overwrite_file = TRUE)
  expect_identical(readLines(f), c("parameters {", "  real y;", "}", "", "model {",
                                   "  y ~ normal(0, 1);", "}"))
  expect_length(Sys.glob(paste0(f, ".bak-*")), 1L)
  expect_identical(mod$code(), readLines(f))
  g <- file.path(dir, "c.stan")
  writeLines("parameters { real y; } // a comment\nmodel { y ~ normal(0,1); }", g)
  expect_error(tapestry_model(g)$format(overwrite_file = TRUE), "comments")
  expect_identical(readLines(g)[1], "parameters { real y; } // a comment")
})

test_that("every method of cmdstanr's CmdStanMCMC and CmdStanModel is a method here", {
  mcmc <- c("num_procs", "print", "expose_functions", "materialize", "save_object", "draws",
            "init", "init_model_methods", "log_prob", "grad_log_prob", "hessian",
            "unconstrain_variables", "unconstrain_draws", "variable_skeleton",
            "constrain_variables", "lp", "summary", "cmdstan_summary", "cmdstan_diagnose",
            "save_output_files", "save_latent_dynamics_files", "save_profile_files",
            "save_data_file", "save_config_files", "save_metric_files", "output_files",
            "profile_files", "latent_dynamics_files", "data_file", "config_files",
            "metric_files", "time", "output", "metadata", "return_codes", "profiles", "code",
            "loo", "sampler_diagnostics", "diagnostic_summary", "inv_metric", "num_chains")
  for (m in mcmc) expect_true(is.function(fit17[[m]]), label = m)
  expect_true(is.environment(fit17$functions))
  # CSV files always, as cmdstanr has them (written when first asked for)
  files17 <- fit17$output_files(include_failed = TRUE)
  expect_length(files17, fit17$num_chains())
  expect_true(all(file.exists(files17)))
  mod <- tapestry_model(code = code17)
  model <- c("include_paths", "code", "print", "stan_file", "has_stan_file", "model_name",
             "exe_file", "cmdstan_version", "cpp_options", "hpp_file", "save_hpp_file",
             "compile", "variables", "check_syntax", "format", "sample", "sample_mpi",
             "diagnose", "expose_functions")
  for (m in model) expect_true(is.function(mod[[m]]), label = m)
  expect_true(is.environment(mod$functions))
  expect_error(mod$sample_mpi(), "not available in tapestry because")
  expect_identical(mod$cmdstan_version(), "2.33.0")
})

test_that("exposed void functions run; unsupported argument types say so", {
  mod <- tapestry_model(code = "functions {
      void say(real x) { print(\"x=\", x); }
      real re_of(complex z) { return get_real(z); }
      array[] real halves(array[] int n) { return to_array_1d(to_vector(n) / 2.0); }
      matrix ident(int n) { return identity_matrix(n); }
    }
    parameters { real y; } model { y ~ std_normal(); }")
  mod$expose_functions()
  out <- capture.output(r <- mod$functions$say(2), type = "output")
  expect_null(r)
  expect_identical(mod$functions$halves(c(1L, 3L)), c(0.5, 1.5))
  expect_equal(mod$functions$ident(2), diag(2))
  expect_error(mod$functions$re_of(1 + 2i), "can't take arguments of type complex")
})

test_that("check_syntax(pedantic = TRUE): non-linear left-hand sides, uninitialized variables", {
  w <- pedantic17("data { int N; vector[N] y; } parameters { real mu; real<lower=0> s; }
    model { real q; real r; r = 1;
      log(y) ~ normal(mu, s); 2 * y - 1 ~ normal(mu, s); exp(mu) ~ normal(0, 1);
      mu ~ normal(q, r); s ~ exponential(1); }")
  jac <- grepl("^Warning: Left-hand side of distribution statement \\(~\\) may contain a non-linear transform", w)
  expect_identical(sum(jac), 2L)
  expect_true("Warning: The variable q may not have been assigned a value before its first use." %in% w)
  expect_false(any(grepl("variable r may not", w)))
  # indexed assignment in a loop counts as assigning
  w2 <- pedantic17("data { int N; } parameters { real mu; }
    model { vector[N] z; for (n in 1:N) z[n] = n; mu ~ normal(sum(z), 1); }")
  expect_false(any(grepl("may not have been assigned", w2)))
  expect_false(any(grepl("non-linear", w2)))
})

test_that("check_syntax(pedantic = TRUE) follows stanc's factor graph: int data are sizes", {
  # stanc drops int data from the graph, so a Poisson likelihood is a 'prior'
  w <- pedantic17("data { int N; array[N] int y; } parameters { real<lower=0> lam; }
    model { lam ~ exponential(1); y ~ poisson(lam); }")
  expect_true(any(grepl("The parameter lam has 2 priors.", w, fixed = TRUE)))
  w <- pedantic17("data { int N; vector[N] y; } parameters { real mu; }
    model { mu ~ normal(0, 1); y ~ normal(mu, 1); }")
  expect_identical(w, character())
})
