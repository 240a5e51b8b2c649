# tapestry's bundled example: the log density and gradient of the
# conjugate normal model (inst/extdata/conjugate_normal.stan) at the points
# where Stan itself computed them, from the package's C math library.
#
#   model { mu ~ normal(mu0, tau0); y ~ normal(mu, sigma); }
#
# `~` drops constant terms, so both densities are evaluated with
# propto = TRUE; mu is the only parameter and is unconstrained.
library(tapestry)

ext <- function(f) system.file("extdata", f, package = "tapestry", mustWork = TRUE)
data <- jsonlite::fromJSON(ext("conjugate_normal.data.json"))
ref <- jsonlite::fromJSON(ext("conjugate_normal.reference.json"), simplifyVector = FALSE)

log_density <- function(mu) {
  prior <- tp_call("normal_lpdf", list(mu, data$mu0, data$tau0),
                   c("real", "real", "real"), ad = c(TRUE, FALSE, FALSE), propto = TRUE)
  lik <- tp_call("normal_lpdf", list(data$y, mu, data$sigma),
                 c("vector", "real", "real"), ad = c(FALSE, TRUE, FALSE), propto = TRUE)
  c(log_prob = prior$value + lik$value,
    gradient = prior$jacobian[[1]][1, 1] + lik$jacobian[[2]][1, 1])
}

rows <- lapply(ref$points, function(p) {
  got <- log_density(p$upars)
  data.frame(mu = p$upars,
             log_prob = got[["log_prob"]], stan_log_prob = p$log_prob,
             gradient = got[["gradient"]], stan_gradient = p$gradient)
})
result <- do.call(rbind, rows)
print(result, digits = 15, row.names = FALSE)
err <- max(abs(result$log_prob - result$stan_log_prob) / abs(result$stan_log_prob),
           abs(result$gradient - result$stan_gradient) / pmax(abs(result$stan_gradient), 1))
cat(sprintf("max relative difference from Stan: %.3g\n", err))
if (err > 1e-8) stop("tapestry disagrees with Stan's reference values")
