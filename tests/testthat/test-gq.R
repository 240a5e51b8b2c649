# Standalone generated quantities ($generate_quantities()) and the
# fixed_param sampler.

gq_sample <- function(mod, ...) {
  mod$sample(..., refresh = 0, show_messages = FALSE)
}

gq_code <- "
data { int N; vector[N] y; }
parameters { real mu; real<lower=0> sigma; }
model { y ~ normal(mu, sigma); mu ~ normal(0, 10); sigma ~ exponential(1); }
generated quantities {
  real y_rep = normal_rng(mu, sigma);
  array[2] int k = { poisson_rng(sigma), bernoulli_rng(0.5) };
  real s2 = sigma^2;
}
"
gq_data <- list(N = 5, y = c(1, 2, 0.5, 1.5, 3))

test_that("generate_quantities reproduces a fit's generated quantities bit for bit", {
  mod <- tapestry_model(code = gq_code)
  fit <- gq_sample(mod, data = gq_data, seed = 42, chains = 3, parallel_chains = 2,
                   chain_ids = c(2, 5, 7), iter_warmup = 150, iter_sampling = 120,
                   thin = 2, save_warmup = TRUE)
  gq <- mod$generate_quantities(fit, data = gq_data, seed = 42)
  expect_s3_class(gq$draws(), "draws_array")
  expect_identical(posterior::variables(gq$draws()), c("y_rep", "k[1]", "k[2]", "s2"))
  expect_identical(unclass(gq$draws()), unclass(fit$draws(c("y_rep", "k", "s2"))))
  # warmup draws too, with their own streams
  expect_identical(unclass(gq$draws(inc_warmup = TRUE)),
                   unclass(fit$draws(c("y_rep", "k", "s2"), inc_warmup = TRUE)))
  # parameters on request, the fitted values
  expect_identical(unclass(gq$draws(c("mu", "y_rep"))), unclass(fit$draws(c("mu", "y_rep"))))
  # another seed: other draws, same deterministic quantities
  other <- mod$generate_quantities(fit, data = gq_data, seed = 43)
  expect_false(identical(other$draws("y_rep"), gq$draws("y_rep")))
  expect_identical(unclass(other$draws("s2")), unclass(gq$draws("s2")))
  # from a draws object: the parameters go through the unconstrained scale,
  # and its chains are chains 1, 2, 3 (the ids are not in the draws)
  d <- mod$generate_quantities(fit$draws(), data = gq_data, seed = 42)
  expect_equal(unclass(d$draws("s2")), unclass(fit$draws("s2")), tolerance = 1e-12)
  expect_false(isTRUE(all.equal(unclass(d$draws("y_rep")), unclass(fit$draws("y_rep")))))
  expect_identical(gq$num_chains(), 3L)
  expect_identical(gq$return_codes(), c(0L, 0L, 0L))
  expect_identical(gq$metadata()$chain_ids, c(2L, 5L, 7L))
  expect_identical(gq$metadata()$stan_variables, c("y_rep", "k", "s2"))
  s <- gq$summary()
  expect_identical(s$variable, c("y_rep", "k[1]", "k[2]", "s2"))
  expect_output(print(gq), "y_rep")
  # the printed mean is the summary's, rounded as a double
  expect_output(print(gq), sprintf("s2 +%s ", format(round(as.double(s$mean[4]), 2), nsmall = 2)))
})

test_that("the fit's parameters are independent of its generated quantities' draws", {
  # the generated quantities have a generator of their own: adding one does
  # not change the parameters' draws
  a <- tapestry_model(code = gq_code)
  b <- tapestry_model(code = sub("real s2 = sigma^2;", "real s2 = sigma^2; real e = exponential_rng(1);",
                                 gq_code, fixed = TRUE))
  fa <- gq_sample(a, data = gq_data, seed = 3, chains = 1, iter_warmup = 50, iter_sampling = 50)
  fb <- gq_sample(b, data = gq_data, seed = 3, chains = 1, iter_warmup = 50, iter_sampling = 50)
  expect_identical(unclass(fa$draws(c("mu", "sigma", "y_rep"))),
                   unclass(fb$draws(c("mu", "sigma", "y_rep"))))
})

test_that("generate_quantities with the shared conjugate model and CSV files", {
  mod <- tapestry_model(ext("conjugate_normal.stan"))
  data <- ext("conjugate_normal.data.json")
  fit <- gq_sample(mod, data = data, seed = 9, chains = 2, iter_warmup = 200, iter_sampling = 200)
  gq <- mod$generate_quantities(fit, data = data, seed = 9)
  expect_identical(unclass(gq$draws()), unclass(fit$draws("y_rep")))
  # from the draws (chains 1 and 2, as the fit's): mu goes through the
  # unconstrained scale, exactly for an unbounded parameter
  d <- mod$generate_quantities(fit$draws(), data = data, seed = 9)
  expect_identical(unclass(d$draws()), unclass(fit$draws("y_rep")))
  dir <- tempfile("gq"); dir.create(dir); on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  files <- fit$save_output_files(dir, basename = "cn", timestamp = FALSE, random = FALSE)
  csv <- mod$generate_quantities(files, data = data, seed = 9)
  # the CSV files hold 6 significant digits, as CmdStan writes them
  expect_equal(unclass(csv$draws()), unclass(fit$draws("y_rep")), tolerance = 1e-4,
               ignore_attr = TRUE)
})

test_that("generate_quantities refuses what it cannot use", {
  mod <- tapestry_model(code = gq_code)
  expect_error(mod$generate_quantities(data = gq_data), class = "tapestry_argument_error")
  expect_error(mod$generate_quantities(1:3, data = gq_data), "must be a fit")
  other <- tapestry_model(code = "parameters { real z; } model { z ~ normal(0, 1); }")
  fz <- gq_sample(other, seed = 1, chains = 1, iter_warmup = 20, iter_sampling = 20)
  expect_error(mod$generate_quantities(fz, data = gq_data, seed = 1), "other parameters")
  expect_error(mod$generate_quantities(fz$draws(), data = gq_data, seed = 1), "lacks 'mu'")
  expect_error(mod$generate_quantities(fz, data = gq_data, output_dir = "."), "does not apply")
})

test_that("a program with only generated quantities runs with fixed_param", {
  mod <- tapestry_model(code = "
    data { real m; }
    generated quantities {
      real z = normal_rng(m, 1);
      array[2] int b = { bernoulli_rng(0.25), 3 };
    }")
  fit <- gq_sample(mod, data = list(m = 5), seed = 1, chains = 2, iter_sampling = 2000)
  d <- fit$draws(format = "draws_matrix")
  expect_identical(posterior::variables(d), c("lp__", "z", "b[1]", "b[2]"))
  expect_identical(dim(d), c(4000L, 4L))
  expect_true(all(d[, "lp__"] == 0))
  expect_true(all(d[, "b[2]"] == 3))
  # z ~ normal(5, 1): mean within 4 standard errors, sd close
  expect_lt(abs(mean(d[, "z"]) - 5), 4 / sqrt(4000))
  expect_lt(abs(sd(d[, "z"]) - 1), 0.05)
  expect_lt(abs(mean(d[, "b[1]"]) - 0.25), 4 * sqrt(0.25 * 0.75 / 4000))
  # the sampler columns as CmdStan's fixed_param writes them
  sd <- fit$sampler_diagnostics(format = "draws_matrix")
  expect_identical(posterior::variables(sd), "accept_stat__")
  expect_true(all(sd == 0))
  m <- fit$metadata()
  expect_identical(m$algorithm, "fixed_param")
  expect_identical(m$iter_warmup, 0L)
  expect_identical(fit$diagnostic_summary(), list())
  # chains draw differently; the same seed gives the same draws
  expect_false(identical(d[1:2000, "z"], d[2001:4000, "z"]))
  again <- gq_sample(mod, data = list(m = 5), seed = 1, chains = 2, iter_sampling = 2000)
  expect_identical(unclass(again$draws()), unclass(fit$draws()))
  # and standalone generated quantities reproduce them
  gq <- mod$generate_quantities(fit, data = list(m = 5), seed = 1)
  expect_identical(unclass(gq$draws()), unclass(fit$draws(c("z", "b"))))
  # CmdStan's CSV of a fixed_param run
  dir <- tempfile("fp"); dir.create(dir); on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  files <- fit$save_output_files(dir, basename = "fp", timestamp = FALSE, random = FALSE)
  lines <- readLines(files[1])
  expect_true(any(lines == "#     algorithm = fixed_param"))
  expect_false(any(grepl("engine = nuts", lines, fixed = TRUE)))
  expect_true("lp__,accept_stat__,z,b.1,b.2" %in% lines)
})

test_that("fixed_param = TRUE keeps the initial values of a model with parameters", {
  mod <- tapestry_model(code = gq_code)
  fit <- gq_sample(mod, data = gq_data, seed = 4, chains = 2, fixed_param = TRUE,
                   init = list(mu = 1, sigma = 2), iter_sampling = 500, thin = 5)
  d <- fit$draws(format = "draws_matrix")
  expect_identical(nrow(d), 200L)
  expect_true(all(d[, "mu"] == 1) && all(d[, "sigma"] == 2) && all(d[, "s2"] == 4))
  expect_lt(abs(mean(d[, "y_rep"]) - 1), 4 * 2 / sqrt(200))
  expect_identical(posterior::variables(fit$sampler_diagnostics()), "accept_stat__")
  expect_error(mod$sample(data = gq_data, fixed_param = NA), class = "tapestry_argument_error")
})

test_that("a fit without its draws' unconstrained points goes through its draws", {
  # fake_fit() (helper-fit.R) makes chains as the sampler's contract has
  # them, without the unconstrained points: the parameters are unconstrained
  f <- fake_fit(chains = 2L)
  gq <- f$model$generate_quantities(f$fit, seed = 1)
  expect_identical(gq$metadata()$chain_ids, 1:2)
  expect_equal(unclass(gq$draws("y")), unclass(f$fit$draws("mu")) + 1, tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_true(all(gq$draws("k") == 3))
  # matrices in Stan's column-major order
  expect_equal(unclass(gq$draws("M")), unclass(f$fit$draws("M")), tolerance = 1e-12)
})
