# tapestry_brm(): brms's programs sampled by tapestry become a brmsfit on
# which brms's post-processing runs.  Five models on simulated data; each
# fixef() is checked against the simulation's truth, and summary(), fixef(),
# ranef(), conditional_effects(), posterior_predict(), posterior_epred(),
# pp_check(), loo(), bayes_R2(), hypothesis() and update() run on the fits.
# (bench/brm_compare.R compares the fits with brm()'s, by hand: brm()
# compiles each model for 80-100 s.)

skip_if_no_brms <- function() {
  skip_if_not_installed("brms")
  skip_if_not_installed("rstan")
}

brm_sim <- function() {
  set.seed(20261126)
  n <- 300
  x1 <- rnorm(n)
  x2 <- rnorm(n)
  out <- list()
  out$gaussian <- list(formula = y ~ x1 + x2, family = "gaussian",
                       data = data.frame(x1, x2, y = 1 + 0.5 * x1 - 0.8 * x2 + rnorm(n, 0, 1.5)),
                       truth = c(Intercept = 1, x1 = 0.5, x2 = -0.8))
  G <- 20
  g <- rep(seq_len(G), length.out = n)
  L <- chol(matrix(c(0.25, 0.06, 0.06, 0.09), 2))
  u <- matrix(rnorm(2 * G), G) %*% L
  out$poisson <- list(formula = y ~ x1 + (1 + x1 | g), family = "poisson",
                      data = data.frame(x1, g = factor(g),
                                        y = rpois(n, exp(0.5 + u[g, 1] + (0.3 + u[g, 2]) * x1))),
                      truth = c(Intercept = 0.5, x1 = 0.3))
  out$bernoulli <- list(formula = y ~ x1 + x2, family = "bernoulli",
                        data = data.frame(x1, x2, y = rbinom(n, 1, plogis(-0.3 + x1 - 0.5 * x2))),
                        truth = c(Intercept = -0.3, x1 = 1, x2 = -0.5))
  lat <- 0.8 * x1 + rlogis(n)
  out$cumulative <- list(formula = y ~ x1, family = "cumulative",
                         data = data.frame(x1, y = ordered(cut(lat, c(-Inf, -1, 0.5, 2, Inf),
                                                               labels = FALSE))),
                         truth = c("Intercept[1]" = -1, "Intercept[2]" = 0.5,
                                   "Intercept[3]" = 2, x1 = 0.8))
  mu <- exp(1 + 0.4 * x1)
  y <- ifelse(runif(n) < 0.3, 0, rnbinom(n, mu = mu, size = 2))
  out$zinb <- list(formula = y ~ x1, family = "zero_inflated_negbinomial",
                   data = data.frame(x1, y = y), truth = c(Intercept = 1, x1 = 0.4))
  out
}

brm_fits <- new.env()
brm_fit <- function(nm) {
  if (is.null(brm_fits[[nm]])) {
    m <- brm_sim()[[nm]]
    brm_fits[[nm]] <- tapestry_brm(m$formula, data = m$data, family = m$family, chains = 2,
                                   cores = 2, iter = 1000, seed = 7, refresh = 0, silent = 2)
    brm_fits[[paste0(nm, "_sim")]] <- m
  }
  brm_fits[[nm]]
}

test_that("tapestry_brm() says what to install when brms or rstan is missing", {
  expect_error(tapestry:::brm_need_packages(c("brms", "rstanNotThere")),
               "needs the 'rstanNotThere' package.*install.packages\\(c\\(\"rstanNotThere\"\\)\\)")
  expect_error(tapestry:::brm_need_packages(c("brmsNotThere", "rstanNotThere")),
               "needs the 'brmsNotThere' and 'rstanNotThere' packages")
})

for (nm in c("gaussian", "poisson", "bernoulli", "cumulative", "zinb")) {
  test_that(sprintf("tapestry_brm(): %s model, fixef() near the truth, brms's post-processing runs", nm), {
    skip_if_no_brms()
    fit <- brm_fit(nm)
    m <- brm_fits[[paste0(nm, "_sim")]]
    expect_s3_class(fit, "brmsfit")
    expect_s3_class(fit, "tapestry_brmsfit")
    expect_s4_class(fit$fit, "stanfit")
    expect_equal(brms::nchains(fit), 2)
    expect_equal(brms::ndraws(fit), 1000)
    # as brm() keeps them: no z_1, L_1 (save_pars(all = FALSE))
    expect_false(any(grepl("^(z|L)_[0-9]", brms::variables(fit))))

    fe <- brms::fixef(fit)
    expect_setequal(rownames(fe), names(m$truth))
    est <- fe[names(m$truth), "Estimate"]
    err <- fe[names(m$truth), "Est.Error"]
    expect_true(all(abs(est - m$truth) < 3.5 * err),
                info = paste(names(m$truth), round(est, 3), collapse = "; "))

    s <- summary(fit)
    expect_equal(rownames(s$fixed), rownames(fe))
    expect_true(all(s$fixed$Rhat < 1.05))
    expect_true(all(s$fixed$Bulk_ESS > 100))

    pp <- brms::posterior_predict(fit, ndraws = 50)
    expect_equal(dim(pp), c(50, nrow(m$data)))
    ep <- brms::posterior_epred(fit, ndraws = 50)
    expect_equal(dim(ep)[1:2], c(50, nrow(m$data)))

    ce <- brms::conditional_effects(fit, effects = "x1", categorical = nm == "cumulative")
    expect_s3_class(ce, "brms_conditional_effects")
    expect_true(all(is.finite(ce[[1]]$estimate__)))

    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off(), add = TRUE)
    p <- brms::pp_check(fit, ndraws = 10, type = if (nm == "cumulative") "bars" else "dens_overlay")
    expect_s3_class(p, "ggplot")
    print(p)

    l <- suppressWarnings(brms::loo(fit))
    expect_s3_class(l, "loo")
    expect_true(is.finite(l$estimates["elpd_loo", "Estimate"]))

    # (brms warns that R2 treats an ordinal outcome as continuous)
    if (nm == "cumulative") {
      expect_warning(r2 <- brms::bayes_R2(fit), "ordinal")
    } else {
      r2 <- brms::bayes_R2(fit)
    }
    expect_true(r2[1, "Estimate"] > 0 && r2[1, "Estimate"] < 1)

    h <- brms::hypothesis(fit, "x1 > 0")
    expect_s3_class(h, "brmshypothesis")
    expect_equal(h$hypothesis$Estimate, fe["x1", "Estimate"], tolerance = 1e-8)

    if (nm == "poisson") {
      re <- brms::ranef(fit)
      expect_equal(dim(re$g), c(20, 4, 2))
      vc <- brms::VarCorr(fit)
      expect_true(all(is.finite(vc$g$sd[, "Estimate"])))
    }
  })
}

test_that("update() of a tapestry_brm fit re-samples through tapestry: new data, formula, settings", {
  skip_if_no_brms()
  fit <- brm_fit("poisson")
  m <- brm_fits$poisson_sim
  half <- m$data[1:150, ]
  f2 <- update(fit, newdata = half, seed = 3)
  expect_s3_class(f2, "tapestry_brmsfit")
  expect_equal(stats::nobs(f2), 150)
  expect_equal(brms::nchains(f2), 2)
  expect_equal(brms::ndraws(f2), 1000)
  expect_equal(attr(f2$data, "data_name"), "half")
  expect_false(identical(brms::fixef(f2), brms::fixef(fit)))
  expect_true(abs(brms::fixef(f2)["x1", "Estimate"] - 0.3) < 4 * brms::fixef(f2)["x1", "Est.Error"])

  # a changed model: brms writes a new program, nothing is compiled
  f3 <- update(fit, formula. = ~ . - (1 + x1 | g) + (1 | g), iter = 600, chains = 1)
  expect_equal(brms::nchains(f3), 1)
  expect_equal(brms::ndraws(f3), 300)
  expect_false(any(grepl("cor_g", brms::variables(f3))))
  expect_true(any(grepl("sd_g__Intercept", brms::variables(f3))))
  expect_match(brms::stancode(f3), "r_1_1")

  # priors the user set are kept, new ones added
  fb <- tapestry_brm(y ~ x1 + x2, data = brm_sim()$bernoulli$data, family = "bernoulli",
                     prior = brms::prior(normal(0, 2), class = b), chains = 1, iter = 400,
                     seed = 2, refresh = 0, silent = 2, sample_prior = "yes")
  expect_true("prior_b" %in% brms::variables(fb))
  fb2 <- update(fb, prior = brms::prior(normal(0, 5), class = Intercept))
  ps <- brms::prior_summary(fb2)
  expect_true(any(ps$prior == "normal(0, 2)" & ps$class == "b"))
  expect_true(any(ps$prior == "normal(0, 5)" & ps$class == "Intercept"))
  expect_true("prior_b" %in% brms::variables(fb2))
  expect_equal(brms::ndraws(fb2), 200)

  # kfold() refits through update(), so through tapestry
  kf <- brms::kfold(fb, K = 2, silent = 2)
  expect_s3_class(kf, "kfold")
  expect_true(is.finite(kf$estimates["elpd_kfold", "Estimate"]))
})

test_that("tapestry_brm(): threads, init, control, empty and file", {
  skip_if_no_brms()
  d <- brm_sim()$zinb$data
  ft <- tapestry_brm(y ~ x1, data = d, family = "negbinomial", chains = 1, iter = 400,
                     threads = brms::threading(2), init = 0,
                     control = list(adapt_delta = 0.95, max_treedepth = 8),
                     seed = 4, refresh = 0, silent = 2)
  expect_match(brms::stancode(ft), "reduce_sum")
  expect_equal(ft$fit@stan_args[[1]]$delta, 0.95)
  expect_equal(ft$fit@stan_args[[1]]$max_depth, 8)
  expect_true(all(is.finite(brms::fixef(ft))))

  # save_pars(all = TRUE) keeps what brm() would drop (z_1, L_1)
  dp <- brm_sim()$poisson$data
  fa <- tapestry_brm(y ~ x1 + (1 + x1 | g), data = dp, family = "poisson", chains = 1,
                     iter = 300, seed = 6, refresh = 0, silent = 2,
                     save_pars = brms::save_pars(all = TRUE))
  expect_true(any(grepl("^z_1\\[", brms::variables(fa))))
  expect_true(any(grepl("^L_1\\[", brms::variables(fa))))
  expect_equal(dim(brms::ranef(fa)$g), c(20, 4, 2))

  e <- tapestry_brm(y ~ x1, data = d, family = "poisson", empty = TRUE)
  expect_s3_class(e, "brmsfit")
  expect_null(e$fit)

  path <- tempfile(fileext = ".rds")
  f1 <- tapestry_brm(y ~ x1, data = d, family = "poisson", chains = 1, iter = 300,
                     seed = 5, refresh = 0, silent = 2, file = path)
  expect_true(file.exists(path))
  f2 <- tapestry_brm(y ~ x1, data = d, family = "poisson", file = path)
  expect_identical(brms::fixef(f2), brms::fixef(f1))
  # "on_change": the same program and data give the saved fit, other data a new one
  f3 <- tapestry_brm(y ~ x1, data = d, family = "poisson", chains = 1, iter = 300,
                     refresh = 0, silent = 2, file = path, file_refit = "on_change")
  expect_identical(brms::fixef(f3), brms::fixef(f1))
  f4 <- tapestry_brm(y ~ x1, data = d[1:200, ], family = "poisson", chains = 1, iter = 300,
                     refresh = 0, silent = 2, file = path, file_refit = "on_change")
  expect_equal(stats::nobs(f4), 200)
  expect_equal(stats::nobs(readRDS(path)), 200)
})

test_that("tapestry_brm() refuses what it cannot do, with a clear message", {
  skip_if_no_brms()
  d <- brm_sim()$gaussian$data
  expect_error(tapestry_brm(y ~ x1, data = d, algorithm = "meanfield"),
               "NUTS only")
  expect_error(tapestry_brm(y ~ x1, data = d, opencl = brms::opencl(c(0, 0))),
               "no OpenCL")
  expect_error(tapestry_brm(y ~ x1, data = d, future = TRUE), "`cores`")
  expect_error(tapestry_brm(y ~ x1, data = d, control = list(adapt_whatever = 1)),
               "'adapt_whatever'")
  expect_error(tapestry_brm(y ~ x1, data = d, iter = 100, warmup = 100), "`warmup`")
  expect_message(tapestry_brm(y ~ x1, data = d, backend = "cmdstanr", empty = TRUE),
                 "ignored")
  expect_error(update(brm_fit("gaussian"), data = d), "newdata")
})

test_that("the stanfit built from the draws in memory is read_stan_csv()'s of the fit's CSV files", {
  skip_if_no_brms()
  mod <- tapestry_model(code = "
    parameters { real mu; vector<lower=0>[2] s; array[2, 3] real z; }
    model { mu ~ normal(0, 1); s ~ lognormal(0, 1); to_array_1d(z) ~ normal(mu, 1); }
    generated quantities { real y = mu + s[1]; }")
  for (save_warmup in c(FALSE, TRUE)) {
    fit <- mod$sample(seed = 3, chains = 2, iter_warmup = 150, iter_sampling = 100, thin = 2,
                      save_warmup = save_warmup, refresh = 0, show_messages = FALSE)
    dir <- tempfile()
    dir.create(dir)
    on.exit(unlink(dir, recursive = TRUE), add = TRUE)
    files <- fit$save_output_files(dir, basename = "tapestry_brm")
    set.seed(5)
    from_csv <- suppressMessages(rstan::read_stan_csv(files))
    set.seed(5)
    direct <- brm_stanfit(fit)
    expect_s4_class(direct, "stanfit")
    # the same draws, bit for bit, with the same attributes
    expect_identical(direct@sim, from_csv@sim)
    expect_identical(direct@model_pars, from_csv@model_pars)
    expect_identical(direct@par_dims, from_csv@par_dims)
    expect_identical(direct@mode, from_csv@mode)
    # the arguments, but for the name of the output file
    strip <- function(a) a[names(a) != "file"]
    expect_identical(lapply(direct@stan_args, strip), lapply(from_csv@stan_args, strip))
    expect_identical(rstan::get_sampler_params(direct, inc_warmup = save_warmup),
                     rstan::get_sampler_params(from_csv, inc_warmup = save_warmup))
    expect_identical(rstan::extract(direct, permuted = FALSE), rstan::extract(from_csv, permuted = FALSE))
  }
})
