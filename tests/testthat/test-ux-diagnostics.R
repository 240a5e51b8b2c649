# The warnings after sampling (R/ux-diagnostics.R): cmdstanr's divergence,
# tree depth and E-BFMI warnings with each chain's count, R-hat and ESS,
# selected by $sample(diagnostics = ) and silenced by diagnostics = NULL.

schools_code <- "
data { int<lower=0> J; array[J] real y; array[J] real<lower=0> sigma; }
parameters { real mu; real<lower=0> tau; vector[J] theta; }
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  theta ~ normal(mu, tau);
  y ~ normal(theta, sigma);
}
"
schools_data <- list(J = 8, y = c(28, 8, -3, 7, -1, 1, 18, 12),
                     sigma = c(15, 10, 16, 11, 9, 11, 10, 18))

# messages and printed output of an expression, and its value
run_collecting <- function(expr) {
  msgs <- character()
  out <- utils::capture.output(
    value <- withCallingHandlers(expr, message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    }))
  list(value = value, messages = msgs, output = out)
}

test_that("centred eight schools: the run warns of its divergences and low E-BFMI with each chain's count", {
  mod <- tapestry_model(code = schools_code)
  r <- run_collecting(mod$sample(data = schools_data, seed = 1, chains = 4, refresh = 0))
  fit <- r$value
  s <- fit$diagnostic_summary(quiet = TRUE)
  nd <- s$num_divergent
  expect_gt(sum(nd), 0)    # the centred parameterisation diverges
  div <- grep("transitions ended with a divergence", r$messages, value = TRUE)
  expect_length(div, 1L)
  expect_match(div, sprintf("Warning: %d of 4000 (%.1f%%) transitions ended with a divergence.",
                            sum(nd), 100 * sum(nd) / 4000), fixed = TRUE)
  per <- sprintf("chain %d: %d (%.1f%%)", which(nd > 0), nd[nd > 0], 100 * nd[nd > 0] / 1000)
  for (p in per) expect_match(div, p, fixed = TRUE)
  expect_match(div, "See https://mc-stan.org/misc/warnings for details.", fixed = TRUE)
  # E-BFMI: the message counts the chains below 0.3 and names them
  low <- which(s$ebfmi < 0.3)
  eb <- grep("E-BFMI", r$messages, value = TRUE)
  if (length(low)) {
    expect_match(eb, sprintf("Warning: %d of 4 chains had an E-BFMI less than 0.3.", length(low)),
                 fixed = TRUE)
    for (k in low) expect_match(eb, sprintf("chain %d: %.2f", k, s$ebfmi[k]), fixed = TRUE)
  } else {
    expect_length(eb, 0L)
  }
  # the closing lines come first, the warnings after them (as cmdstanr)
  expect_true(any(grepl("All 4 chains finished successfully.", r$output, fixed = TRUE)))
  # no transition reached the maximum depth: no such warning
  expect_identical(sum(s$num_max_treedepth), 0L)
  expect_false(any(grepl("treedepth", r$messages)))
})

test_that("diagnostics = NULL silences the warnings; a subset selects them", {
  mod <- tapestry_model(code = schools_code)
  r <- run_collecting(mod$sample(data = schools_data, seed = 1, chains = 4, refresh = 0,
                                 diagnostics = NULL))
  expect_length(r$messages, 0L)
  expect_gt(sum(r$value$diagnostic_summary(quiet = TRUE)$num_divergent), 0)
  r <- run_collecting(mod$sample(data = schools_data, seed = 1, chains = 4, refresh = 0,
                                 diagnostics = "ebfmi"))
  expect_false(any(grepl("divergence", r$messages)))
  r <- run_collecting(mod$sample(data = schools_data, seed = 1, chains = 4, refresh = 0,
                                 max_treedepth = 2, diagnostics = "treedepth"))
  n <- r$value$diagnostic_summary(quiet = TRUE)$num_max_treedepth
  expect_gt(sum(n), 0)
  td <- grep("treedepth", r$messages, value = TRUE)
  expect_match(td, sprintf("Warning: %d of 4000 (%.1f%%) transitions hit the maximum treedepth limit of 2.",
                           sum(n), 100 * sum(n) / 4000), fixed = TRUE)
  expect_false(any(grepl("divergence", r$messages)))
  expect_snapshot(error = TRUE, mod$sample(data = schools_data, diagnostics = "rhat"))
  expect_error(mod$sample(data = schools_data, diagnostics = 1), class = "tapestry_argument_error")
})

test_that("the report reads the chains' own diagnostics", {
  ff <- fake_fit(chains = 3L, save_warmup = TRUE,
                 chain_args = list(list(n_divergent = 2L), list(), list(n_divergent = 5L, n_max_depth = 4L)))
  msgs <- character()
  lines <- withCallingHandlers(report_diagnostics(ff$fit, hmc_diagnostics, rhat_ess = FALSE),
                               message = function(m) { msgs <<- c(msgs, m$message); invokeRestart("muffleMessage") })
  s <- ff$fit$diagnostic_summary(quiet = TRUE)
  expect_identical(s$num_divergent, c(2L, 0L, 5L))
  expect_identical(lines, diagnostics_report(
    list(divergent__ = unclass(posterior::extract_variable_matrix(ff$fit$sampler_diagnostics(), "divergent__")),
         treedepth__ = unclass(posterior::extract_variable_matrix(ff$fit$sampler_diagnostics(), "treedepth__")),
         energy__ = unclass(posterior::extract_variable_matrix(ff$fit$sampler_diagnostics(), "energy__"))),
    1:3, 10, hmc_diagnostics))
  expect_match(lines[1], "Warning: 7 of 90 (7.8%) transitions ended with a divergence.\n  chain 1: 2 (6.7%), chain 3: 5 (16.7%).",
               fixed = TRUE)
  expect_match(lines[2], "Warning: 4 of 90 (4.4%) transitions hit the maximum treedepth limit of 10.", fixed = TRUE)
  expect_identical(msgs, paste0(lines, "\n\n"))   # a blank line after each, as cmdstanr
  expect_length(report_diagnostics(ff$fit, NULL), 0L)
  # a fixed_param run: nothing to diagnose
  fp <- fake_fit(chains = 2L, chain_args = list(list(n_divergent = 2L)), fixed_param = TRUE)
  expect_length(report_diagnostics(fp$fit, hmc_diagnostics), 0L)
})

test_that("a well-behaved run prints no warning", {
  mod <- tapestry_model(code = "parameters { real x; } model { x ~ normal(0, 1); }")
  r <- run_collecting(mod$sample(seed = 2, chains = 2, refresh = 0))
  expect_length(r$messages, 0L)
})

test_that("diagnostics_report: counts per chain, NaN and low E-BFMI, R-hat and ESS", {
  n <- 100L
  mk <- function(div, depth, energy) {
    list(divergent__ = matrix(div, n, 2), treedepth__ = matrix(depth, n, 2),
         energy__ = matrix(energy, n, 2))
  }
  div <- matrix(0, n, 2)
  div[1:3, 2] <- 1
  depth <- matrix(3, n, 2)
  depth[1:10, 1] <- 10
  set.seed(1)
  good <- matrix(rnorm(2 * n), n, 2)
  sd <- mk(div, depth, good)
  rep <- diagnostics_report(sd, c(5L, 7L), 10, hmc_diagnostics)
  expect_length(rep, 2L)
  expect_match(rep[1], "Warning: 3 of 200 (1.5%) transitions ended with a divergence.", fixed = TRUE)
  expect_match(rep[1], "chain 7: 3 (3.0%).", fixed = TRUE)
  expect_false(grepl("chain 5", rep[1]))
  expect_match(rep[2], "Warning: 10 of 200 (5.0%) transitions hit the maximum treedepth limit of 10.",
               fixed = TRUE)
  expect_match(rep[2], "chain 5: 10 (10.0%).", fixed = TRUE)
  # E-BFMI: a slowly moving energy (a random walk) has a small one
  walk <- apply(matrix(rnorm(2 * n, sd = 0.05), n, 2), 2, cumsum)
  walk[, 2] <- good[, 2]
  rep <- diagnostics_report(mk(0, 3, walk), 1:2, 10, "ebfmi")
  e1 <- tapestry:::ebfmi(walk[, 1])
  expect_lt(e1, 0.3)
  expect_identical(rep, paste0("Warning: 1 of 2 chains had an E-BFMI less than 0.3.\n",
                               sprintf("  chain 1: %.2f.\n", e1),
                               "See https://mc-stan.org/misc/warnings for details."))
  const <- matrix(1, n, 2)
  rep <- diagnostics_report(mk(0, 3, const), 1:2, 10, "ebfmi")
  expect_match(rep, "Warning: 2 of 2 chains have a NaN E-BFMI.", fixed = TRUE)
  # a selection without ebfmi ignores the energies
  expect_length(diagnostics_report(mk(0, 3, walk), 1:2, 10, "divergences"), 0L)
  # R-hat and ESS from a summary
  summ <- data.frame(variable = c("a", "b[1]", "b[2]"), rhat = c(1.001, 1.2, NA),
                     ess_bulk = c(1000, 50, 120), ess_tail = c(1000, 500, 900))
  rep <- diagnostics_report(sd, 1:2, 10, "ebfmi", summ)
  expect_match(rep[1], "The largest R-hat is 1.20 (b[1]), indicating chains have not mixed.",
               fixed = TRUE)
  expect_match(rep[2], "Bulk Effective Samples Size (ESS) is too low (below 200 for 2 of 3 variables)",
               fixed = TRUE)
  expect_length(rep, 2L)
  summ$ess_tail[1] <- 10
  expect_match(diagnostics_report(sd, 1:2, 10, "ebfmi", summ)[3],
               "Tail Effective Samples Size (ESS) is too low (below 200 for 1 of 3 variables)",
               fixed = TRUE)
  # nothing selected: nothing reported, even with a poor summary
  expect_length(diagnostics_report(sd, 1:2, 10, character(), summ), 0L)
})

test_that("a short run with poor mixing warns about R-hat and ESS", {
  mod <- tapestry_model(code = schools_code)
  r <- run_collecting(mod$sample(data = schools_data, seed = 3, chains = 2, refresh = 0,
                                 iter_warmup = 30, iter_sampling = 30))
  s <- posterior::summarise_draws(r$value$draws(), "rhat", "ess_bulk")
  expect_identical(any(grepl("Bulk Effective Samples Size", r$messages)),
                   any(s$ess_bulk < 200, na.rm = TRUE))
  expect_identical(any(grepl("largest R-hat", r$messages)), any(s$rhat > 1.05, na.rm = TRUE))
  expect_true(any(s$ess_bulk < 200))
})

test_that("the R-hat warning prints the largest R-hat's value (posterior's summary columns as numbers)", {
  n <- 100
  mk <- function(div, depth, energy) list(divergent__ = div, treedepth__ = depth, energy__ = energy)
  set.seed(2)
  sd <- mk(matrix(0, n, 2), matrix(3, n, 2), matrix(rnorm(2 * n), n, 2))
  # two chains around different means: R-hat far above 1.05
  x <- posterior::as_draws_array(array(c(rnorm(n, 0), rnorm(n, 3)), c(n, 2, 1),
                                      dimnames = list(NULL, NULL, "mu")))
  summary <- as.data.frame(posterior::summarise_draws(x, rhat = posterior::rhat,
                                                      ess_bulk = posterior::ess_bulk,
                                                      ess_tail = posterior::ess_tail))
  worst <- round(as.double(summary$rhat), 2)
  expect_gt(worst, 1.5)
  rep <- diagnostics_report(sd, 1:2, 10, hmc_diagnostics, summary)
  expect_match(rep[1], sprintf("The largest R-hat is %s (mu)", format(worst, nsmall = 2)), fixed = TRUE)
})
