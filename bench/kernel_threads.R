# Threads without reduce_sum (issue 14): the gradient of a program with big
# kernels (logistic: y ~ bernoulli_logit(alpha + X * beta), which runs as
# its GLM) on 1 and 2 threads of the evaluation, interleaved, and whether
# the results are the same bits.  Run by hand from the repository root after
# installing tapestry:
#   Rscript bench/kernel_threads.R [model] [reps]
suppressMessages(library(tapestry))
args <- commandArgs(TRUE)
m <- if (length(args) >= 1) args[1] else "logistic"
reps <- if (length(args) >= 2) as.integer(args[2]) else 7L
ext <- system.file("extdata", package = "tapestry")
data <- file.path(ext, paste0(m, ".data.json"))
if (!file.exists(data)) data <- file.path("tests", "testthat", "fixtures", paste0(m, ".data.json"))
ctx <- tapestry_model(file.path(ext, paste0(m, ".stan")))$bind(data)
set.seed(1)
u <- rnorm(ctx$num_upars()) * 0.1
tapestry_set_num_threads(1); g1 <- ctx$grad_log_prob(u)
tapestry_set_num_threads(2); g2 <- ctx$grad_log_prob(u)
cat(sprintf("%s: 1 and 2 threads give the same bits: %s\n", m, identical(g1, g2)))
t1 <- t2 <- numeric(reps)
for (r in seq_len(reps)) {
  tapestry_set_num_threads(1); t1[r] <- tapestry:::plan_time(ctx, u, 3000L)
  tapestry_set_num_threads(2); t2[r] <- tapestry:::plan_time(ctx, u, 3000L)
}
cat(sprintf("%s: 1 thread %.1f us, 2 threads %.1f us per gradient: %.2fx (median of %d)\n",
            m, median(t1) / 1e3, median(t2) / 1e3, median(t1) / median(t2), reps))
