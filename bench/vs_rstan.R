# Gradient time per call, tapestry / rstan 2.21, for every bundled program
# that Stan 2.21 reads (bench/stan221/ holds them in its old array syntax),
# side by side in one R process: interleaved repetitions, medians.  Run by
# hand from the repository root after installing tapestry:
#   Rscript bench/vs_rstan.R [reps] [model-regex]
# Needs Debian's r-cran-rstan and RcppEigen; compiles each program once
# (rstan's auto_write keeps the compiled models in bench/stan221/*.rds).
suppressMessages({ library(rstan); library(tapestry) })
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"),
              auto_write = TRUE)
args <- commandArgs(TRUE)
reps <- if (length(args) >= 1) as.integer(args[1]) else 15L
only <- if (length(args) >= 2) args[2] else ""
ext <- system.file("extdata", package = "tapestry")
data_file <- function(m) {
  f <- file.path(ext, paste0(m, ".data.json"))
  if (file.exists(f)) f else file.path("tests", "testthat", "fixtures", paste0(m, ".data.json"))
}
# the time of one call of f, from a batch long enough for the clock
per_call <- function(f, n) { t0 <- Sys.time(); for (i in seq_len(n)) f(); as.double(Sys.time() - t0, units = "secs") / n }
res <- NULL
for (s in list.files("bench/stan221", "\\.stan$", full.names = TRUE)) {
  m <- sub("\\.stan$", "", basename(s))
  if (nzchar(only) && !grepl(only, m)) next
  data <- jsonlite::fromJSON(data_file(m))
  sm <- suppressMessages(stan_model(s, model_name = m))
  fit <- suppressMessages(suppressWarnings(
    sampling(sm, data = data, chains = 1, iter = 1, algorithm = "Fixed_param", refresh = 0)))
  ctx <- suppressWarnings(tapestry_model(file.path(ext, paste0(m, ".stan"))))$bind(data_file(m))
  n <- ctx$num_upars()
  stopifnot(n == get_num_upars(fit))
  set.seed(2)
  u <- runif(n, -0.5, 0.5)
  ga <- grad_log_prob(fit, u); gb <- ctx$grad_log_prob(u)
  agree <- isTRUE(all.equal(as.vector(ga), as.vector(gb), tolerance = 1e-7)) &&
           isTRUE(all.equal(attr(ga, "log_prob"), attr(gb, "log_prob"), tolerance = 1e-9))
  fa <- function() grad_log_prob(fit, u)
  fb <- function() ctx$grad_log_prob(u)
  calls <- max(5L, as.integer(0.02 / per_call(fa, 20)))
  ta <- tb <- numeric(reps)
  for (r in seq_len(reps)) { ta[r] <- per_call(fa, calls); tb[r] <- per_call(fb, calls) }
  st <- tapestry:::plan_stats(ctx)
  row <- data.frame(model = m, rstan_us = 1e6 * median(ta), tapestry_us = 1e6 * median(tb),
                    ratio = median(tb) / median(ta), agree = agree,
                    path = if (st$replays > 0) "plan" else "tree")
  print(row, row.names = FALSE, digits = 3)
  res <- rbind(res, row)
}
cat(sprintf("\ngradient time per call, median of %d interleaved repetitions\n", reps))
print(res, row.names = FALSE, digits = 3)
