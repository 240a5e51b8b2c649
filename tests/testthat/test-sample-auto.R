# $sample(iter_warmup = "auto") and $sample(target_ess = ): R/verb-sample-auto.R,
# src/nuts/nuts_cross.c and the pieces of src/r/r_sample.c.

auto_normal <- tapestry_model(code = "
parameters { vector[3] z; real<lower=0> s; }
model { z ~ normal(0, 1); s ~ lognormal(0, 0.5); }")

auto_centered <- tapestry_model(code = "
data { int<lower=0> J; array[J] real y; array[J] real<lower=0> sigma; }
parameters { real mu; real<lower=0> tau; array[J] real theta; }
model { mu ~ normal(0, 5); tau ~ cauchy(0, 5); theta ~ normal(mu, tau); y ~ normal(theta, sigma); }")
auto_schools <- list(J = 8, y = c(28, 8, -3, 7, -1, 1, 18, 12),
                     sigma = c(15, 10, 16, 11, 9, 11, 10, 18))

# two modes far apart: a chain started in one never reaches the other
auto_two_modes <- tapestry_model(code = "
parameters { real mu; }
model { target += log_sum_exp(normal_lpdf(mu | -10, 1), normal_lpdf(mu | 10, 1)); }")

quiet_sample <- function(mod, ...) {
  suppressMessages(mod$sample(refresh = 0, show_messages = FALSE, ...))
}

test_that("a numeric iter_warmup run makes the same draws when it runs in pieces", {
  # target_ess that cannot be reached: the chains pause every 100 sampling
  # iterations for the checks, and must make the draws of a run that never pauses
  plain <- quiet_sample(auto_normal, chains = 2, parallel_chains = 2, iter_warmup = 200,
                        iter_sampling = 300, seed = 5)
  pieces <- suppressWarnings(quiet_sample(auto_normal, chains = 2, parallel_chains = 2,
                                          iter_warmup = 200, iter_sampling = 300, seed = 5,
                                          target_ess = 1e9))
  expect_identical(unclass(plain$draws()), unclass(pieces$draws()))
  expect_identical(plain$metadata()$iter_sampling, 300L)
  expect_false(pieces$metadata()$target_reached)
  expect_null(plain$metadata()$decisions)
})

test_that("iter_warmup = 'auto' ends warmup when the chains agree, and says so", {
  fit <- quiet_sample(auto_normal, chains = 4, parallel_chains = 2, iter_warmup = "auto",
                      iter_sampling = 200, seed = 1)
  meta <- fit$metadata()
  expect_true(meta$warmup_auto)
  expect_true(meta$warmup_agreed)
  expect_identical(meta$iter_warmup_max, 1000L)
  expect_lt(meta$iter_warmup, 1000L)
  # the initial buffer, whole windows of 100, the final buffer
  expect_equal((meta$iter_warmup - 75L - 50L) %% 100L, 0L)
  d <- meta$decisions
  expect_s3_class(d, "data.frame")
  expect_true(all(d$phase == "warmup"))
  expect_true(d$passed[nrow(d)])
  expect_false(any(d$passed[-nrow(d)]))
  expect_identical(d$iteration[nrow(d)] + 50L, meta$iter_warmup)
  expect_identical(dim(fit$draws())[1:2], c(200L, 4L))
  # warmup draws, when kept, are the warmup actually run
  fw <- quiet_sample(auto_normal, chains = 4, parallel_chains = 2, iter_warmup = "auto",
                     iter_sampling = 200, seed = 1, save_warmup = TRUE)
  expect_identical(dim(fw$draws(inc_warmup = TRUE))[1], meta$iter_warmup + 200L)
  expect_identical(unclass(fw$draws()), unclass(fit$draws()))
  expect_true(all(fw$sampler_diagnostics(inc_warmup = TRUE)[, , "n_leapfrog__"] > 0))
})

test_that("auto warmup and target ESS: same seed, same draws, however many chains run at once", {
  a <- quiet_sample(auto_normal, chains = 4, parallel_chains = 4, iter_warmup = "auto",
                    target_ess = 400, seed = 9)
  b <- quiet_sample(auto_normal, chains = 4, parallel_chains = 1, iter_warmup = "auto",
                    target_ess = 400, seed = 9)
  expect_identical(unclass(a$draws()), unclass(b$draws()))
  expect_identical(a$metadata()$decisions, b$metadata()$decisions)
})

test_that("target_ess stops every chain at the same iteration once the ESS is reached", {
  fit <- quiet_sample(auto_normal, chains = 4, parallel_chains = 2, iter_warmup = 300,
                      target_ess = 400, seed = 3)
  meta <- fit$metadata()
  expect_true(meta$target_reached)
  expect_lt(meta$iter_sampling, 1000L)
  expect_equal(meta$iter_sampling %% 100L, 0L)
  expect_identical(dim(fit$draws())[1:2], c(meta$iter_sampling, 4L))
  s <- fit$summary(variables = c("z", "s"))
  expect_true(all(s$ess_bulk >= 400 & s$ess_tail >= 400 & s$rhat <= 1.01))
  # the check before the last did not pass
  d <- meta$decisions
  expect_true(all(d$phase == "sampling"))
  expect_identical(d$passed, c(rep(FALSE, nrow(d) - 1L), TRUE))
  # target_variables: only lp__
  lp <- quiet_sample(auto_normal, chains = 4, parallel_chains = 2, iter_warmup = 300,
                     target_ess = 300, target_variables = "lp__", seed = 3)
  expect_true(all(lp$metadata()$decisions$ess_variable == "lp__"))
})

test_that("the centered eight schools never agree: warmup runs to its maximum, with a warning", {
  expect_warning(
    fit <- quiet_sample(auto_centered, data = auto_schools, chains = 4, parallel_chains = 2,
                        iter_warmup = "auto", iter_warmup_max = 600, iter_sampling = 200,
                        seed = 2),
    "Warmup ran to iter_warmup_max \\(600\\) without the chains agreeing")
  meta <- fit$metadata()
  expect_false(meta$warmup_agreed)
  expect_identical(meta$iter_warmup, 600L)
  expect_false(any(meta$decisions$passed))
  # the last window was stretched to leave the final buffer
  expect_identical(max(meta$decisions$iteration), 550L)
})

test_that("a two-mode posterior started in both modes is not taken for agreement", {
  init <- function(chain_id) list(mu = if (chain_id %% 2 == 0) 10 else -10)
  w <- character()
  fit <- withCallingHandlers(
    quiet_sample(auto_two_modes, chains = 4, parallel_chains = 2, iter_warmup = "auto",
                 iter_warmup_max = 400, target_ess = 400, iter_sampling = 300,
                 init = init, seed = 4),
    warning = function(e) { w <<- c(w, conditionMessage(e)); invokeRestart("muffleWarning") })
  meta <- fit$metadata()
  expect_identical(meta$iter_warmup, 400L)
  expect_false(meta$warmup_agreed)
  expect_false(meta$target_reached)
  expect_identical(meta$iter_sampling, 300L)
  expect_true(any(grepl("without the chains agreeing", w)))
  expect_true(any(grepl("target ESS \\(400\\) was not reached", w)))
  expect_true(any(grepl("R-hat", w)))
  expect_true(all(meta$decisions$rhat_lp > 1.5 | meta$decisions$rhat_max > 1.5))
})

test_that("the arguments of auto warmup and target ESS are checked", {
  expect_error(quiet_sample(auto_normal, iter_warmup = "fast"),
               class = "tapestry_argument_error")
  expect_error(quiet_sample(auto_normal, iter_warmup = 100, iter_warmup_max = 500),
               "applies only with `iter_warmup = \"auto\"`")
  expect_error(quiet_sample(auto_normal, iter_warmup = "auto", iter_warmup_max = 200),
               "at least 225")
  expect_error(quiet_sample(auto_normal, iter_warmup = "auto", adapt_engaged = FALSE),
               "adapt_engaged = FALSE")
  expect_error(quiet_sample(auto_normal, target_ess = -1), "positive number")
  expect_error(quiet_sample(auto_normal, target_variables = "z"), "only with `target_ess`")
  expect_error(quiet_sample(auto_normal, target_ess = 100, target_variables = "nope"),
               "no variable")
})
