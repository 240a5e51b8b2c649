# gp_loop at a size where the Cholesky factor dominates (issue 14: N = 500,
# gradient at most 0.5x rstan's): data simulated here, rstan 2.21 and
# tapestry side by side in one R process, interleaved.  Run by hand from the
# repository root after installing tapestry:
#   Rscript bench/gp_large.R [N] [reps]
suppressMessages({ library(rstan); library(tapestry) })
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"),
              auto_write = TRUE)
args <- commandArgs(TRUE)
N <- if (length(args) >= 1) as.integer(args[1]) else 500L
reps <- if (length(args) >= 2) as.integer(args[2]) else 7L
set.seed(5)
x <- sort(runif(N, 0, 10))
data <- list(N = N, x = x, y = sin(x) + rnorm(N, 0, 0.3))
sm <- suppressMessages(stan_model("bench/stan221/gp_loop.stan", model_name = "gp_loop"))
fit <- suppressMessages(suppressWarnings(
  sampling(sm, data = data, chains = 1, iter = 1, algorithm = "Fixed_param", refresh = 0)))
ctx <- tapestry_model(system.file("extdata", "gp_loop.stan", package = "tapestry"))$bind(data)
u <- c(0.3, 0.1, -1.2)
ga <- grad_log_prob(fit, u)
gb <- ctx$grad_log_prob(u)
cat(sprintf("agree: gradient %s, log density %s\n",
            isTRUE(all.equal(as.vector(ga), as.vector(gb), tolerance = 1e-7)),
            isTRUE(all.equal(attr(ga, "log_prob"), attr(gb, "log_prob"), tolerance = 1e-9))))
per_call <- function(f, n) { t0 <- Sys.time(); for (i in seq_len(n)) f(); as.double(Sys.time() - t0, units = "secs") / n }
fa <- function() grad_log_prob(fit, u)
fb <- function() ctx$grad_log_prob(u)
calls <- max(3L, as.integer(0.3 / per_call(fa, 3)))
ta <- tb <- numeric(reps)
for (r in seq_len(reps)) { ta[r] <- per_call(fa, calls); tb[r] <- per_call(fb, calls) }
cat(sprintf("gp_loop N = %d: rstan %.2f ms, tapestry %.2f ms, ratio %.3f (median of %d)\n",
            N, 1e3 * median(ta), 1e3 * median(tb), median(tb) / median(ta), reps))
