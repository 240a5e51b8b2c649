# Cost of one replayed node (src/plan), in ns, forward plus reverse: the
# same loop over N = 20000 observations with k and k + 8 nodes per
# iteration, the difference divided by 8 N.  With rstan installed
# (and RcppEigen), the same two programs compiled by Stan 2.21 are timed
# alongside, interleaved, for the same difference per node.  Run by hand
# from the repository root after installing tapestry:
#   Rscript bench/plan_nodes.R [rstan]
# Two shapes: "chained" nodes each use the previous one's result (the
# adjoint then passes through every node in turn, so the time is the
# latency of a load, a multiply and an add per node), "independent" ones
# do not (the time is their throughput).
suppressMessages(library(tapestry))
with_rstan <- identical(commandArgs(TRUE)[1], "rstan") && requireNamespace("rstan", quietly = TRUE)
if (with_rstan) {
  suppressMessages(library(rstan))
  rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"))
}
N <- 20000L
set.seed(1)
d <- list(N = N, y = rnorm(N))
prog <- function(body) sprintf("data { int N; vector[N] y; }
  parameters { real a; real<lower=0> s; }
  model { real t = 0; for (n in 1:N) { real u = y[n]; %s } target += t; }", body)
cases <- list(
  "chained arithmetic (((a * u) + a) * a ...)" = c("t += a * u;",
    "t += ((((((((a * u) + a) * a) - u) * a) + u) * a) - a) * a;"),
  "independent arithmetic (a * u, s * u ...)" = c("t += a * u;",
    "t += a * u; { real v1 = a * u; real v2 = s * u; real v3 = a + u; real v4 = s - u; real v5 = a * s; real v6 = s + a; real v7 = a - s; real v8 = u * s; }"),
  "scalar normal_lpdf (and a +=)" = c("t += normal_lpdf(u | a, s);",
    paste(rep("t += normal_lpdf(u | a, s);", 9), collapse = " ")),
  "scalar exp (chained)" = c("t += exp(a * u);", "t += exp(exp(exp(exp(exp(exp(exp(exp(exp(a * u * 0.001)))))))));")
)
u <- c(0.1, -0.2)
# rstan's compiled models stay referenced to the end: a fit whose model was
# collected crashes R in a finalizer (the model's shared object is gone)
keep_alive <- list()
one <- function(f, reps = 20) system.time(for (j in seq_len(reps)) f())[[3]] / reps
for (nm in names(cases)) {
  c1 <- tapestry_model(code = prog(cases[[nm]][1]))$bind(d)
  c2 <- tapestry_model(code = prog(cases[[nm]][2]))$bind(d)
  c1$grad_log_prob(u); c2$grad_log_prob(u)     # record the plans
  stopifnot(tapestry:::plan_stats(c2)$replays > 0 || { c2$grad_log_prob(u); TRUE })
  fs <- list(function() c1$grad_log_prob(u), function() c2$grad_log_prob(u))
  if (with_rstan) {
    sms <- lapply(cases[[nm]], function(b) suppressMessages(stan_model(model_code = prog(b))))
    keep_alive <- c(keep_alive, sms)
    r <- lapply(sms, function(sm) suppressMessages(suppressWarnings(
      sampling(sm, data = d, chains = 1, iter = 1, algorithm = "Fixed_param", refresh = 0,
               init = function() list(a = 0.1, s = 1)))))
    keep_alive <- c(keep_alive, r)
    fs <- c(fs, list(function() grad_log_prob(r[[1]], u), function() grad_log_prob(r[[2]], u)))
  }
  t <- replicate(15, vapply(fs, one, 0))
  m <- apply(t, 1, stats::median)
  line <- sprintf("%-44s tapestry %5.1f ns per node", nm, 1e9 * (m[2] - m[1]) / (8 * N))
  if (with_rstan) line <- paste0(line, sprintf("   rstan %5.1f", 1e9 * (m[4] - m[3]) / (8 * N)))
  cat(line, "\n")
}
