# ESS per second of sampling, tapestry against rstan 2.21, side by side in one
# R process: for each program, the same number of chains (run one after the
# other, one thread each) with the same warmup and sampling lengths, several
# rounds alternating the two.  ESS is posterior's bulk ESS of every
# parameter; the figure is the median over parameters of ESS / sampling
# seconds (warmup included in the seconds, as a user waits for it).  Run by
# hand from the repository root (needs r-cran-rstan and RcppEigen; the
# compiled programs are cached in bench/stan221/*.rds):
#   Rscript bench/ess_per_second.R [rounds] [model ...]
suppressMessages({ library(rstan); library(tapestry); library(posterior) })
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"),
              auto_write = TRUE)
args <- commandArgs(TRUE)
rounds <- if (length(args) >= 1) as.integer(args[1]) else 3L
models <- if (length(args) >= 2) args[-1] else c("garch_loop", "hmm_forward")
ext <- system.file("extdata", package = "tapestry")
# the bundled data, or the tests' fixtures (as bench/vs_rstan.R finds them)
data_file <- function(m) {
  f <- file.path(ext, paste0(m, ".data.json"))
  if (file.exists(f)) f else file.path("tests", "testthat", "fixtures", paste0(m, ".data.json"))
}
per_sec <- function(draws, secs) {
  pars <- setdiff(variables(draws), "lp__")
  pars <- pars[!grepl("^(log_lik|y_rep|yrep)", pars)]
  # constants (a Cholesky factor's fixed elements) have no ESS
  median(vapply(pars, function(p) ess_bulk(extract_variable_matrix(draws, p)), 0), na.rm = TRUE) / secs
}
res <- NULL
for (m in models) {
  data <- jsonlite::fromJSON(data_file(m))
  sm <- suppressMessages(stan_model(file.path("bench/stan221", paste0(m, ".stan")), model_name = m))
  tm <- tapestry_model(file.path(ext, paste0(m, ".stan")))
  for (k in seq_len(rounds)) {
    t0 <- proc.time()[[3]]
    f <- suppressMessages(suppressWarnings(sampling(sm, data = data, chains = 4, cores = 1, iter = 2000,
                                                    seed = 100 + k, refresh = 0)))
    ta <- proc.time()[[3]] - t0
    a <- per_sec(as_draws_array(f), ta)
    t0 <- proc.time()[[3]]
    g <- tm$sample(data = data, chains = 4, parallel_chains = 1, iter_warmup = 1000, iter_sampling = 1000,
                   seed = 100 + k, refresh = 0, show_messages = FALSE)
    tb <- proc.time()[[3]] - t0
    b <- per_sec(g$draws(), tb)
    res <- rbind(res, data.frame(model = m, round = k, rstan_s = ta, tapestry_s = tb,
                                 rstan_ess_s = a, tapestry_ess_s = b, ratio = b / a))
    print(tail(res, 1), row.names = FALSE)
  }
}
cat("\nESS per second, tapestry / rstan (median over rounds)\n")
print(aggregate(ratio ~ model, res, median), row.names = FALSE)
