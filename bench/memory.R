# Resident memory of chains sharing one data context: a model with 100 MB of
# data (12.5 million doubles), sampled with 1 chain and with 4 chains at
# once, each in a fresh R process (run by hand from the repository root:
# Rscript bench/memory.R [lib]).  The target: 4 chains stay under the memory
# of 1 chain plus 10%, as nothing about the data is copied per chain.
args <- commandArgs(TRUE)
lib <- if (length(args) && nzchar(args[1])) args[1] else ""
child <- function(chains, lib) {
  code <- sprintf('
    suppressMessages(library(tapestry, lib.loc = %s))
    rss <- function() {
      l <- grep("^VmRSS|^VmHWM", readLines("/proc/self/status"), value = TRUE)
      setNames(as.numeric(gsub("[^0-9]", "", l)) / 1024, sub(":.*", "", l))
    }
    N <- 12.5e6
    mod <- tapestry_model(code = "data { int N; vector[N] y; }
      parameters { real mu; real<lower=0> sigma; }
      model { mu ~ normal(0, 10); sigma ~ normal(0, 10); y ~ normal(mu, sigma); }")
    set.seed(1)
    ctx_data <- list(N = N, y = rnorm(N, 1, 2))
    fit <- mod$sample(data = ctx_data, chains = %d, parallel_chains = %d, seed = 1,
                      iter_warmup = 40, iter_sampling = 40, refresh = 0,
                      show_messages = FALSE)
    r <- rss()
    cat(sprintf("%%d %%.1f %%.1f\\n", %d, r[["VmRSS"]], r[["VmHWM"]]))',
    if (nzchar(lib)) deparse(lib) else "NULL", chains, chains, chains)
  f <- tempfile(fileext = ".R")
  writeLines(code, f)
  out <- system2(file.path(R.home("bin"), "Rscript"), f, stdout = TRUE,
                 env = "_R_CHECK_LIMIT_CORES_=")
  as.numeric(strsplit(tail(out, 1), " ")[[1]])
}
one <- child(1, lib)
four <- child(4, lib)
cat(sprintf("1 chain:  RSS %.1f MB, peak %.1f MB\n", one[2], one[3]))
cat(sprintf("4 chains: RSS %.1f MB, peak %.1f MB\n", four[2], four[3]))
cat(sprintf("ratio 4 chains / 1 chain: RSS %.3f, peak %.3f (target < 1.10)\n",
            four[2] / one[2], four[3] / one[3]))
