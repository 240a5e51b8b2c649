# tapestry's bundled example: the Stan program inst/extdata/conjugate_normal.stan,
# parsed and bound to its data with no compiler, evaluated at the points where
# Stan itself computed its log density and gradient.
#
#   model { mu ~ normal(mu0, tau0); y ~ normal(mu, sigma); }
#
# `~` drops constant terms, as in Stan; mu is the only parameter and is
# unconstrained, so the unconstrained vector is mu itself.
library(tapestry)

ext <- function(f) system.file("extdata", f, package = "tapestry", mustWork = TRUE)
mod <- tapestry_model(ext("conjugate_normal.stan"))
ctx <- mod$bind(ext("conjugate_normal.data.json"), seed = 1)
print(ctx)
ref <- jsonlite::fromJSON(ext("conjugate_normal.reference.json"), simplifyVector = FALSE)

rows <- lapply(ref$points, function(p) {
  g <- ctx$grad_log_prob(p$upars)
  data.frame(mu = p$upars,
             log_prob = attr(g, "log_prob"), stan_log_prob = p$log_prob,
             gradient = as.vector(g), stan_gradient = p$gradient,
             y_rep = ctx$constrain_variables(p$upars)$y_rep)
})
result <- do.call(rbind, rows)
print(result, digits = 15, row.names = FALSE)
err <- max(abs(result$log_prob - result$stan_log_prob) / abs(result$stan_log_prob),
           abs(result$gradient - result$stan_gradient) / pmax(abs(result$stan_gradient), 1))
cat(sprintf("max relative difference from Stan: %.3g\n", err))
if (err > 1e-8) stop("tapestry disagrees with Stan's reference values")
