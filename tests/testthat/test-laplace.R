# $laplace(): the normal approximation at the mode, against the exact
# posterior of conjugate_normal and the NUTS posterior of logistic (whose
# 5,000 observations make the posterior close to normal).

lap_model <- function(name) tapestry_model(ext(paste0(name, ".stan")))
lap_data <- function(name) ext(paste0(name, ".data.json"))
lap_ref <- function(name) jsonlite::fromJSON(ext(paste0(name, ".reference.json")))$summary

test_that("conjugate_normal: the Laplace approximation is the exact posterior", {
  d <- jsonlite::fromJSON(lap_data("conjugate_normal"))
  prec <- 1 / d$tau0^2 + d$N / d$sigma^2
  mean_ <- (d$mu0 / d$tau0^2 + sum(d$y) / d$sigma^2) / prec
  sd_ <- 1 / sqrt(prec)
  fit <- lap_model("conjugate_normal")$laplace(data = d, seed = 1, draws = 4000,
                                                show_messages = FALSE)
  expect_equal(unname(fit$hessian()[1, 1]), prec, tolerance = 1e-7)
  expect_equal(fit$mode()$mle()[["mu"]], mean_, tolerance = 1e-8)
  mu <- as.vector(fit$draws("mu"))
  expect_length(mu, 4000)
  # 4.5 Monte Carlo standard errors
  expect_lt(abs(mean(mu) - mean_), 4.5 * sd_ / sqrt(4000))
  expect_lt(abs(sd(mu) / sd_ - 1), 4.5 / sqrt(2 * 4000))
})

test_that("logistic: means within a fifth of a posterior sd of NUTS", {
  skip_if(!nzchar(lap_data("logistic")), "logistic data not available")
  ref <- lap_ref("logistic")
  t0 <- Sys.time()
  fit <- lap_model("logistic")$laplace(data = lap_data("logistic"), seed = 2,
                                        show_messages = FALSE)
  vars <- c("alpha", paste0("beta[", 1:20, "]"))
  s <- fit$summary(vars)
  nuts_mean <- vapply(vars, function(v) ref[[v]]$mean, 0)
  nuts_sd <- vapply(vars, function(v) ref[[v]]$sd, 0)
  # Monte Carlo error of 1000 draws is 0.03 sd; the approximation's bias is smaller still
  expect_true(all(abs(as.numeric(s$mean) - nuts_mean) < 0.2 * nuts_sd))
  expect_true(all(abs(as.numeric(s$sd) / nuts_sd - 1) < 0.15))
})

test_that("the fit has CmdStanLaplace's columns, and log_p__ and log_g__ are right", {
  mod <- lap_model("eight_schools")
  fit <- mod$laplace(data = lap_data("eight_schools"), seed = 3, draws = 50,
                     show_messages = FALSE)
  d <- fit$draws()
  expect_s3_class(d, "draws_matrix")
  expect_equal(posterior::ndraws(d), 50L)
  expect_equal(posterior::variables(d)[1:4], c("lp__", "log_p__", "log_g__", "mu"))
  expect_true(all(d[, "lp__"] == 0))
  U <- fit$unconstrained_draws()
  u_hat <- drop(fit$mode()$unconstrained_draws())
  for (i in c(1, 17, 50)) {
    expect_equal(as.vector(d[i, "log_p__"]), fit$log_prob(U[i, ], jacobian = TRUE))
    z <- U[i, ] - u_hat
    expect_equal(as.vector(d[i, "log_g__"]), -0.5 * sum(z * (fit$hessian() %*% z)),
                 tolerance = 1e-8)
    v <- fit$constrain_variables(U[i, ])
    expect_equal(as.vector(d[i, "tau"]), v$tau)
    expect_equal(as.vector(d[i, "theta[2]"]), v$theta[2])
  }
  expect_equal(fit$lp(), as.vector(d[, "log_p__"]))
  # the Hessian by finite differences matches the gradient's change
  H <- fit$hessian()
  e <- c(1e-4, rep(0, 9))
  gdiff <- (fit$grad_log_prob(u_hat + e) - fit$grad_log_prob(u_hat - e)) / 2e-4
  expect_equal(-as.vector(gdiff), unname(H[, 1]), tolerance = 1e-5)
  expect_s3_class(fit$mode(), "TapestryOptimizeFit")
  expect_true(fit$mode()$metadata()$jacobian)
  expect_output(print(fit), "log_p__")
  # same seed, same draws
  fit2 <- mod$laplace(data = lap_data("eight_schools"), seed = 3, draws = 50,
                      show_messages = FALSE)
  expect_identical(fit2$draws(), d)
})

test_that("mode: a fit of $optimize(), with the same jacobian", {
  mod <- lap_model("eight_schools")
  dat <- lap_data("eight_schools")
  m1 <- mod$optimize(data = dat, seed = 4, jacobian = TRUE, show_messages = FALSE)
  fit <- mod$laplace(data = dat, mode = m1, seed = 4, draws = 20)
  expect_identical(fit$mode(), m1)
  m0 <- mod$optimize(data = dat, seed = 4, show_messages = FALSE, iter = 5)
  expect_error(mod$laplace(data = dat, mode = m0), "must agree")
  expect_error(mod$laplace(data = dat, mode = list()), "fit made by `\\$optimize\\(\\)`")
  expect_error(mod$laplace(data = dat, mode = m1, opt_args = list(iter = 3)),
               "only when `mode` is NULL")
  expect_error(mod$laplace(data = dat, draws = 0), "`draws`")
  # opt_args reach the optimizer
  f <- mod$laplace(data = dat, seed = 4, draws = 10, opt_args = list(algorithm = "bfgs"),
                   show_messages = FALSE)
  expect_equal(f$mode()$metadata()$algorithm, "bfgs")
  # a mode that is not a strict maximum: no approximation
  flat <- tapestry_model(code = "parameters { real x; real y; } model { target += -square(x - y); }")
  expect_error(flat$laplace(seed = 1, init = 0, draws = 10, show_messages = FALSE),
               "not positive definite")
})

test_that("$sample(init = laplace fit) starts each chain at one of its draws", {
  mod <- lap_model("conjugate_normal")
  dat <- lap_data("conjugate_normal")
  lap <- mod$laplace(data = dat, seed = 5, draws = 30, show_messages = FALSE)
  fit <- mod$sample(data = dat, init = lap, chains = 2, iter_warmup = 50, iter_sampling = 50,
                    seed = 5, refresh = 0, show_messages = FALSE)
  inits <- vapply(fit$init(), function(i) i$mu, 0)
  expect_true(all(inits %in% as.vector(lap$draws("mu"))))
})
