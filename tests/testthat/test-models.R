# Models of ../shared/models written as library calls, checked against the
# log density and gradient Stan computed at its reference points.  `~`
# statements drop constants (propto = TRUE) exactly as Stan does.

read_ref <- function(name) {
  list(data = jsonlite::fromJSON(ext(paste0(name, ".data.json"))),
       ref = jsonlite::fromJSON(ext(paste0(name, ".reference.json")), simplifyVector = FALSE))
}

test_that("conjugate_normal matches Stan's log density and gradient", {
  m <- read_ref("conjugate_normal")
  d <- m$data
  for (p in m$ref$points) {
    mu <- p$upars
    prior <- tp_call("normal_lpdf", list(mu, d$mu0, d$tau0), c("real", "real", "real"),
                     c(TRUE, FALSE, FALSE), propto = TRUE)
    lik <- tp_call("normal_lpdf", list(d$y, mu, d$sigma), c("vector", "real", "real"),
                   c(FALSE, TRUE, FALSE), propto = TRUE)
    expect_equal(prior$value + lik$value, p$log_prob, tolerance = 1e-12)
    expect_equal(prior$jacobian[[1]][1, 1] + lik$jacobian[[2]][1, 1], p$gradient, tolerance = 1e-12)
  }
})

test_that("eight_schools matches Stan's log density and gradient", {
  m <- read_ref("eight_schools")
  d <- m$data
  for (p in m$ref$points) {
    u <- unlist(p$upars)
    mu <- u[1]
    tt <- u[3:10]
    # tau = lower-bound transform of u[2] with its log Jacobian
    tr <- tp_transform("lower", u[2], params = list(0), shape = "real", ad = c(TRUE, FALSE))
    tau <- tr$value
    theta <- mu + tau * tt
    a <- tp_call("normal_lpdf", list(mu, 0, 5), c("real", "real", "real"), c(TRUE, FALSE, FALSE), TRUE)
    b <- tp_call("cauchy_lpdf", list(tau, 0, 5), c("real", "real", "real"), c(TRUE, FALSE, FALSE), TRUE)
    cc <- tp_call("std_normal_lpdf", list(tt), "vector", TRUE, TRUE)
    l <- tp_call("normal_lpdf", list(d$y, theta, d$sigma), c("array[] real", "vector", "array[] real"),
                 c(FALSE, TRUE, FALSE), TRUE)
    lp <- a$value + b$value + cc$value + l$value + tr$lp
    expect_equal(lp, p$log_prob, tolerance = 1e-12)
    expect_equal(lp - tr$lp, p$log_prob_nojac, tolerance = 1e-12)
    dtheta <- as.vector(l$jacobian[[2]])
    dtau <- b$jacobian[[1]][1, 1] + sum(dtheta * tt)
    grad <- c(a$jacobian[[1]][1, 1] + sum(dtheta),
              dtau * tr$jacobian[[1]][1, 1] + tr$jacobian[[1]][2, 1],
              as.vector(cc$jacobian[[1]]) + dtheta * tau)
    expect_equal(grad, unlist(p$gradient), tolerance = 1e-10)
  }
})
