# Front end and interpreter figures for the shared models (run by hand from
# the repository root: Rscript bench/lang.R [lib]).
# - parse + check, and bind (data already read: an R list), in ms, median of reps
# - gradient time per call, tapestry vs rstan's recorded time (the ratio is
#   only indicative: rstan's figure was measured on another machine)
args <- commandArgs(TRUE)
lib <- if (length(args)) args[1] else NULL
suppressMessages(library(tapestry, lib.loc = lib))
ext <- system.file("extdata", package = "tapestry")
models <- c("conjugate_normal", "eight_schools", "gp_profile", "hier_poisson",
            "hier_poisson_reduce", "lbeta_map", "logistic", "logistic_reduce",
            "map_rect_hier", "varying_slopes")
med_ms <- function(f, reps) {
  t <- vapply(seq_len(reps), function(i) { t0 <- proc.time()[[3]]; f(); proc.time()[[3]] - t0 }, 0)
  1000 * stats::median(t)
}
rows <- list()
for (m in models) {
  stan <- file.path(ext, paste0(m, ".stan"))
  djson <- file.path(ext, paste0(m, ".data.json"))
  if (!file.exists(djson)) {
    # the logistic models' data live with the tests (package size)
    djson <- file.path("tests", "testthat", "fixtures", "logistic.data.json")
  }
  data <- tapestry:::tp_data_read(djson)
  data <- lapply(data, function(v) {
    x <- if (v$all_int) as.integer(v$values) else v$values
    d <- v$dims
    if (length(d) >= 2) aperm(array(x, rev(d)), rev(seq_along(d))) else x
  })
  if (m == "logistic_reduce" || m == "hier_poisson_reduce") data$grainsize <- 1L
  code <- paste(readLines(stan), collapse = "\n")
  # proc.time() ticks in ms: time batches and divide
  parse_ms <- med_ms(function() for (i in 1:50) tapestry_model(code = code), 5) / 50
  mod <- tapestry_model(code = code)
  bind_ms <- med_ms(function() for (i in 1:20) mod$bind(data), 5) / 20
  ctx <- mod$bind(data)
  ref <- jsonlite::fromJSON(file.path(ext, paste0(m, ".reference.json")))
  u <- ref$points$upars[[1]]
  if (is.null(u)) u <- unlist(ref$points$upars[1, ])
  n <- 200
  g_ms <- med_ms(function() for (i in seq_len(n)) ctx$grad_log_prob(u), 5) / n
  rows[[m]] <- data.frame(model = m, parse_check_ms = parse_ms, bind_ms = bind_ms,
                          grad_us = 1000 * g_ms, rstan_grad_us = 1e6 * ref$rstan_grad_seconds_per_call,
                          ratio = 1000 * g_ms / (1e6 * ref$rstan_grad_seconds_per_call))
}
out <- do.call(rbind, rows)
rownames(out) <- NULL
print(out, digits = 3)

# Interpreter dispatch: the same regression written as a loop over
# observations and vectorized, gradient time per call; and the cost per
# executed expression node of a scalar loop (4 nodes per iteration:
# index, multiply, add, and the accumulation).
set.seed(1)
N <- 5000
d <- list(N = N, x = rnorm(N), y = rnorm(N))
vec <- tapestry_model(code = "data { int N; vector[N] x; vector[N] y; }
  parameters { real a; real b; real<lower=0> s; }
  model { y ~ normal(a + b * x, s); }")$bind(d)
loop <- tapestry_model(code = "data { int N; vector[N] x; vector[N] y; }
  parameters { real a; real b; real<lower=0> s; }
  model { for (n in 1:N) y[n] ~ normal(a + b * x[n], s); }")$bind(d)
nodes <- tapestry_model(code = "data { int N; vector[N] x; }
  parameters { real a; real b; }
  model { real acc = 0; for (n in 1:N) acc = acc + (a * x[n] + b); target += -0.5 * square(acc); }")$bind(d)
u <- c(0.1, 0.2, 0.3)
per_call <- function(ctx, u, n = 100) med_ms(function() for (i in seq_len(n)) ctx$grad_log_prob(u), 5) / n
tv <- per_call(vec, u); tl <- per_call(loop, u)
tn <- per_call(nodes, u[1:2])
dn <- med_ms(function() for (i in 1:100) nodes$log_prob(u[1:2]), 5) / 100
cat(sprintf("\nregression, N = %d: vectorized %.0f us, loop %.0f us per gradient: loop / vectorized = %.1f\n",
            N, 1000 * tv, 1000 * tl, tl / tv))
cat(sprintf("scalar loop: %.1f ns per expression node with gradient, %.1f ns on doubles\n",
            1e6 * tn / (5 * N), 1e6 * dn / (5 * N)))
