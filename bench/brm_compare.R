# tapestry_brm() against brms::brm() (rstan backend), run by hand:
#   R_LIBS=<lib with tapestry> Rscript bench/brm_compare.R > brm.log 2>&1
# For five models on simulated data (gaussian; poisson with correlated
# varying intercepts and slopes; bernoulli; cumulative; zero-inflated
# negative binomial) both fit the same brms program with the same chains and
# iterations; fixef() is compared in combined Monte Carlo standard errors,
# |mean_t - mean_b| / sqrt(mcse_t^2 + mcse_b^2) (posterior's mcse_mean), and
# the poisson model is timed from formula to summary() for both.  brm()
# compiles each model (80-100 s with rstan 2.21 here); expect ~10 minutes.

suppressPackageStartupMessages({
  library(tapestry)
  library(brms)
  library(rstan)
})
rstan_options(boost_lib = "/usr/include",
              eigen_lib = system.file("include", package = "RcppEigen"))
chains <- 4
cores <- 2
iter <- 2000

sim_data <- function() {
  set.seed(20261126)
  n <- 300
  x1 <- rnorm(n)
  x2 <- rnorm(n)
  out <- list()
  out$gaussian <- list(formula = y ~ x1 + x2, family = gaussian(),
                       data = data.frame(x1, x2, y = 1 + 0.5 * x1 - 0.8 * x2 + rnorm(n, 0, 1.5)))
  G <- 20
  g <- rep(seq_len(G), length.out = n)
  L <- chol(matrix(c(0.25, 0.06, 0.06, 0.09), 2))
  u <- matrix(rnorm(2 * G), G) %*% L
  out$poisson <- list(formula = y ~ x1 + (1 + x1 | g), family = poisson(),
                      data = data.frame(x1, g = factor(g),
                                        y = rpois(n, exp(0.5 + u[g, 1] + (0.3 + u[g, 2]) * x1))))
  out$bernoulli <- list(formula = y ~ x1 + x2, family = bernoulli(),
                        data = data.frame(x1, x2, y = rbinom(n, 1, plogis(-0.3 + x1 - 0.5 * x2))))
  lat <- 0.8 * x1 + rlogis(n)
  out$cumulative <- list(formula = y ~ x1, family = cumulative(),
                         data = data.frame(x1, y = ordered(cut(lat, c(-Inf, -1, 0.5, 2, Inf),
                                                               labels = FALSE))))
  mu <- exp(1 + 0.4 * x1)
  y <- ifelse(runif(n) < 0.3, 0, rnbinom(n, mu = mu, size = 2))
  out$zinb <- list(formula = y ~ x1, family = zero_inflated_negbinomial(),
                   data = data.frame(x1, y = y))
  out
}

# fixef's rows as draws' variables: b_x1, b_Intercept[1]
fixef_draws <- function(fit) {
  nm <- rownames(fixef(fit))
  v <- paste0("b_", nm)
  d <- posterior::subset_draws(posterior::as_draws_df(fit), variable = v)
  s <- posterior::summarise_draws(d, "mean", "mcse_mean")
  s[match(v, s$variable), ]
}

models <- sim_data()
rows <- list()
timing <- NULL
for (nm in names(models)) {
  m <- models[[nm]]
  cat("\n=====", nm, "=====\n")
  t0 <- Sys.time()
  ft <- tapestry_brm(m$formula, data = m$data, family = m$family, chains = chains,
                     cores = cores, iter = iter, seed = 1, refresh = 0, silent = 2)
  st <- summary(ft)
  tt <- as.double(difftime(Sys.time(), t0, units = "secs"))
  t0 <- Sys.time()
  fb <- brm(m$formula, data = m$data, family = m$family, chains = chains, cores = cores,
            iter = iter, seed = 1, refresh = 0, silent = 2, backend = "rstan")
  sb <- summary(fb)
  tb <- as.double(difftime(Sys.time(), t0, units = "secs"))
  print(st)
  a <- fixef_draws(ft)
  b <- fixef_draws(fb)
  z <- abs(a$mean - b$mean) / sqrt(a$mcse_mean^2 + b$mcse_mean^2)
  r <- data.frame(model = nm, coef = a$variable, tapestry = a$mean, brm = b$mean,
                  mcse_t = a$mcse_mean, mcse_b = b$mcse_mean, z = z)
  print(r, digits = 3)
  rows[[nm]] <- r
  # the chains' own warmup + sampling times, added over chains (4 chains on
  # 2 cores: the wall time of sampling is about half)
  chain_s <- function(fit) sum(rstan::get_elapsed_time(fit$fit))
  timing <- rbind(timing, data.frame(model = nm, tapestry_brm_s = tt, brm_s = tb,
                                     tapestry_chains_s = chain_s(ft),
                                     rstan_chains_s = chain_s(fb)))
}
res <- do.call(rbind, rows)
rownames(res) <- NULL
cat("\n===== fixef differences in combined MCSE =====\n")
print(res, digits = 3)
cat(sprintf("\nlargest: %.2f combined MCSE (acceptance: 4.5)\n", max(res$z)))
cat("\n===== formula to summary(), seconds (chains = 4, cores = 2, iter = 2000);",
    "chains_s: the chains' warmup + sampling, added over chains =====\n")
print(timing, digits = 3)
cat(sprintf("\nbrms %s, rstan %s, tapestry %s\n", packageVersion("brms"),
            packageVersion("rstan"), packageVersion("tapestry")))
