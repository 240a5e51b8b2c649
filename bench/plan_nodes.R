# Cost of one replayed node (src/plan), in ns, forward plus reverse: the
# same loop over N = 20000 observations with k and k + 8 nodes per
# iteration, the difference divided by 8 N.  Run by hand from the
# repository root after installing tapestry:  Rscript bench/plan_nodes.R
suppressMessages(library(tapestry))
N <- 20000L
set.seed(1)
d <- list(N = N, y = rnorm(N))
prog <- function(body) sprintf("data { int N; vector[N] y; }
  parameters { real a; real<lower=0> s; }
  model { real t = 0; for (n in 1:N) { real u = y[n]; %s } target += t; }", body)
time_per_call <- function(ctx, u, reps = 15) {
  ctx$grad_log_prob(u)   # records the plan
  stats::median(vapply(seq_len(reps), function(i) system.time(for (j in 1:20) ctx$grad_log_prob(u))[[3]] / 20, 0))
}
cases <- list(
  "scalar arithmetic (a * u, + a, ...)" = c("t += a * u;",
    "t += ((((((((a * u) + a) * a) - u) * a) + u) * a) - a) * a;"),
  "scalar normal_lpdf" = c("t += normal_lpdf(u | a, s);",
    paste(rep("t += normal_lpdf(u | a, s);", 9), collapse = " ")),
  "scalar exp" = c("t += exp(a * u);", "t += exp(exp(exp(exp(exp(exp(exp(exp(exp(a * u * 0.001)))))))));")
)
u <- c(0.1, -0.2)
for (nm in names(cases)) {
  c1 <- tapestry_model(code = prog(cases[[nm]][1]))$bind(d)
  c2 <- tapestry_model(code = prog(cases[[nm]][2]))$bind(d)
  t1 <- time_per_call(c1, u); t2 <- time_per_call(c2, u)
  stopifnot(tapestry:::plan_stats(c2)$replays > 0)
  cat(sprintf("%-40s %6.1f ns per node\n", nm, 1e9 * (t2 - t1) / (8 * N)))
}
