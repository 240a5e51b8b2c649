# tapestry's main job on a bundled example: the eight schools model sampled
# with NUTS, 4 chains as threads of this R process sharing one data context,
# no compiler involved; the posterior summary is compared with Stan's own
# (rstan 2.21, 4 x 5000 draws: inst/extdata/eight_schools.reference.json).
library(tapestry)

ext <- function(f) system.file("extdata", f, package = "tapestry", mustWork = TRUE)
t0 <- proc.time()[[3]]
mod <- tapestry_model(ext("eight_schools.stan"))
fit <- mod$sample(data = ext("eight_schools.data.json"), seed = 2026, chains = 4,
                  parallel_chains = 4, adapt_delta = 0.95, refresh = 500)
s <- fit$summary(c("mu", "tau", "theta"))
secs <- proc.time()[[3]] - t0
print(s, n = Inf)
fit$diagnostic_summary()

ref <- jsonlite::fromJSON(ext("eight_schools.reference.json"), simplifyVector = FALSE)
vars <- names(ref$summary)
vars <- vars[vars != "lp__"]
d <- fit$draws(vars)
z <- vapply(vars, function(v) {
  x <- posterior::extract_variable_matrix(d, v)
  abs(mean(x) - ref$summary[[v]]$mean) /
    sqrt(posterior::mcse_mean(x)^2 + ref$summary[[v]]$se_mean^2)
}, 0)
cat(sprintf("\nfrom tapestry_model() to fit$summary(): %.2f s\n", secs))
cat(sprintf("largest difference from Stan's posterior means: %.2f Monte Carlo standard errors\n",
            max(z)))
if (max(z) > 4.5) stop("tapestry's posterior means disagree with Stan's")
