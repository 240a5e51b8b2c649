# eight_schools, 4 chains of 1000 warmup + 1000 sampling draws, from the
# program text to the summary table; tapestry against rstan when it is
# installed (run by hand from the repository root:
# Rscript bench/eight_schools.R [lib]).  Times in seconds; the ratios are
# what to compare, as the machine is shared and noisy.
args <- commandArgs(TRUE)
lib <- if (length(args)) args[1] else NULL
suppressMessages(library(tapestry, lib.loc = lib))
stan <- system.file("extdata", "eight_schools.stan", package = "tapestry")
data_file <- system.file("extdata", "eight_schools.data.json", package = "tapestry")
data <- jsonlite::read_json(data_file, simplifyVector = TRUE)
cores <- min(4L, parallel::detectCores())

once <- function() {
  t <- c(model = 0, sample = 0, summary = 0)
  t0 <- proc.time()[[3]]
  mod <- tapestry_model(stan)
  t[["model"]] <- proc.time()[[3]] - t0
  fit <- mod$sample(data = data, seed = 1, chains = 4, parallel_chains = cores,
                    refresh = 0, show_messages = FALSE)
  t[["sample"]] <- proc.time()[[3]] - t0 - sum(t)
  s <- fit$summary()
  t[["summary"]] <- proc.time()[[3]] - t0 - sum(t)
  c(t, total = sum(t))
}
once()   # warm up the pool and posterior's code
reps <- t(replicate(7, once()))
tap <- apply(reps, 2, stats::median)
cat(sprintf("tapestry (median of 7, %d chains at once): model %.3f, sample %.3f, summary %.3f, total %.3f s\n",
            cores, tap[["model"]], tap[["sample"]], tap[["summary"]], tap[["total"]]))

ref <- jsonlite::read_json(system.file("extdata", "eight_schools.reference.json",
                                       package = "tapestry"))
# rstan's recorded run (another machine): 4 x (5000 + 5000) draws
cat(sprintf("rstan as recorded in the reference: compile %.1f s, sampling %.2f s for 4 x (%d + %d) draws (%.2f s scaled to 1000 + 1000)\n",
            ref$rstan_compile_seconds, ref$rstan_sampling_seconds, ref$iter_warmup,
            ref$iter_sampling, ref$rstan_sampling_seconds * 2000 / (ref$iter_warmup + ref$iter_sampling)))
if (requireNamespace("rstan", quietly = TRUE)) try({
  suppressMessages(library(rstan))
  t0 <- proc.time()[[3]]
  # rstan 2.21 reads only the old array syntax
  old <- gsub("array\\[J\\] real(<lower=0>)? (\\w+);", "real\\1 \\2[J];", readLines(stan))
  stan_old <- tempfile(fileext = ".stan")
  writeLines(old, stan_old)
  sm <- rstan::stan_model(stan_old)
  compile <- proc.time()[[3]] - t0
  t0 <- proc.time()[[3]]
  f <- rstan::sampling(sm, data = data, chains = 4, cores = cores, iter = 2000,
                       warmup = 1000, seed = 1, refresh = 0)
  samp <- proc.time()[[3]] - t0
  t0 <- proc.time()[[3]]
  s <- rstan::summary(f)$summary
  summ <- proc.time()[[3]] - t0
  cat(sprintf("rstan: compile %.1f, sample %.3f, summary %.3f, total %.1f s\n",
              compile, samp, summ, compile + samp + summ))
  cat(sprintf("ratios tapestry / rstan: total %.4f, sampling %.2f (tapestry sample vs rstan sampling)\n",
              tap[["total"]] / (compile + samp + summ), tap[["sample"]] / samp))
})
