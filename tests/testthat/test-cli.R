# The command-line driver of the C core (tools/cli, issue 32): built from the
# package's sources with no R, into a temporary folder, its log density and
# gradient at a point against $log_prob() and $grad_log_prob(), and its
# --sample output against $sample()'s draws and CmdStan's CSV layout.

# The package's sources: the repository (devtools::test()), the unpacked
# tarball beside R CMD check's tests, or TAPESTRY_SOURCE.
cli_source_dir <- function() {
  cand <- c(Sys.getenv("TAPESTRY_SOURCE"), test_path("..", ".."),
            test_path("..", "..", "00_pkg_src", "tapestry"),
            test_path("..", "..", "..", "00_pkg_src", "tapestry"))
  for (d in cand[nzchar(cand)]) {
    if (file.exists(file.path(d, "tools", "cli", "GNUmakefile")) && file.exists(file.path(d, "src", "ad", "ad.h")))
      return(normalizePath(d))
  }
  NULL
}

# R's C compiler (the first word of `R CMD config CC`), or "" when absent.
cli_compiler <- function() {
  cc <- tryCatch(suppressWarnings(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CC"),
                                          stdout = TRUE, stderr = FALSE)),
                 error = function(e) character())
  cc <- trimws(paste(cc, collapse = " "))
  if (!nzchar(cc) || !nzchar(Sys.which(strsplit(cc, " +")[[1]][1]))) return("")
  cc
}

# Builds the driver once per test run (FAST=1: -O0 but the SIMD kernels, so
# the same bits as the package's -O2 build), or skips saying why.  Under the
# sanitizer pass (tools/asan.sh builds the package at -O1, where gcc forms
# no fused multiply-adds) the SIMD kernels are built at -O1 too.
cli_binary <- local({
  bin <- NULL
  function() {
    if (!is.null(bin)) return(bin)
    skip_on_os("windows")   # the driver is for POSIX systems (pthreads, sigaction)
    cc <- cli_compiler()
    if (!nzchar(cc) || !nzchar(Sys.which("make")))
      skip("no C compiler (R CMD config CC) or no make on the PATH: the command-line driver cannot be built")
    src <- cli_source_dir()
    if (is.null(src)) skip("the package's sources (tools/cli, src/) are not at hand")
    out <- file.path(tempdir(), "tapestry-cli-build")
    dir.create(out, showWarnings = FALSE)
    b <- file.path(out, "tapestry-cli")
    jobs <- if (nzchar(Sys.getenv("_R_CHECK_LIMIT_CORES_"))) 2L else max(1L, min(4L, parallel::detectCores()))
    simd <- if (nzchar(Sys.getenv("TAPESTRY_SANITIZER"))) "SIMD_CFLAGS=-O1" else "SIMD_CFLAGS=-O2"
    log <- suppressWarnings(system2("make", c("-C", shQuote(file.path(src, "tools", "cli")), paste0("-j", jobs),
      "FAST=1", simd, shQuote(paste0("CC=", cc)), shQuote(paste0("BUILD=", file.path(out, "obj"))),
      shQuote(paste0("BIN=", b))), stdout = TRUE, stderr = TRUE))
    if (!file.exists(b)) fail(paste(c("make -C tools/cli failed:", utils::tail(log, 30)), collapse = "\n"))
    bin <<- b
    b
  }
})

cli_run <- function(args) {
  out <- suppressWarnings(system2(cli_binary(), args, stdout = TRUE, stderr = TRUE))
  status <- attr(out, "status")
  list(out = out, status = if (is.null(status)) 0L else status)
}

cli_field <- function(out, key) {
  line <- grep(paste0("^", key, " "), out, value = TRUE)
  if (!length(line)) return(NA_character_)
  sub(paste0("^", key, " +"), "", line[1L])
}

# hier_poisson_reduce in small: reduce_sum over counts in groups, a bounded
# parameter, transformed parameters and a generated quantity
cli_program <- "
functions {
  real partial_sum(array[] int y_slice, int start, int end, vector log_lambda, array[] int g) {
    return poisson_log_lpmf(y_slice | log_lambda[g[start:end]]);
  }
}
data {
  int<lower=1> N;
  int<lower=1> G;
  array[N] int<lower=0> y;
  array[N] int<lower=1, upper=G> g;
  int<lower=1> grainsize;
}
parameters {
  real mu;
  real<lower=0> tau;
  vector[G] z;
}
transformed parameters {
  vector[G] log_lambda = mu + tau * z;
}
model {
  mu ~ normal(1, 2);
  tau ~ normal(0, 1);
  z ~ std_normal();
  target += reduce_sum(partial_sum, y, grainsize, log_lambda, g);
}
generated quantities {
  real lambda1 = exp(log_lambda[1]);
}
"

cli_files <- function() {
  dir <- file.path(tempdir(), "tapestry-cli-model")
  dir.create(dir, showWarnings = FALSE)
  stan <- file.path(dir, "hp_small.stan")
  data <- file.path(dir, "hp_small.data.json")
  writeLines(cli_program, stan)
  N <- 300L; G <- 6L
  g <- rep_len(seq_len(G), N)
  y <- (seq_len(N) * 7L) %% 11L
  writeLines(sprintf('{"N": %d, "G": %d, "grainsize": 16, "y": [%s], "g": [%s]}', N, G,
                     paste(y, collapse = ", "), paste(g, collapse = ", ")), data)
  list(stan = stan, data = data, dir = dir, G = G)
}

test_that("the driver's log density and gradient are $log_prob()'s and $grad_log_prob()'s", {
  f <- cli_files()
  ctx <- tapestry_model(f$stan)$bind(f$data)
  u <- sin(seq_len(ctx$num_upars())) * 0.7
  point <- file.path(f$dir, "point.json")
  writeLines(sprintf('{"upars": [%s]}', paste(sprintf("%.17g", u), collapse = ", ")), point)
  for (threads in c(1L, 2L)) {
    r <- cli_run(c(f$stan, f$data, "--upars", point, "--evals", 20, "--blocks", 2, "--threads", threads, "--grad"))
    expect_identical(r$status, 0L, info = paste(r$out, collapse = "\n"))
    lp <- as.numeric(cli_field(r$out, "log_density"))
    g <- as.numeric(strsplit(cli_field(r$out, "gradient"), " +")[[1]])
    # the same sources and bits; a tolerance only for a compiler whose
    # flags differ from R's
    expect_equal(lp, ctx$log_prob(u), tolerance = 1e-12)
    expect_equal(g, as.numeric(ctx$grad_log_prob(u)), tolerance = 1e-12)
    expect_gt(as.numeric(cli_field(r$out, "ns_per_gradient")), 0)
    expect_identical(cli_field(r$out, "path"), "plan")
  }
  # without the Jacobian, at zeros (no --upars)
  r <- cli_run(c(f$stan, f$data, "--evals", 2, "--blocks", 1, "--jacobian", 0))
  expect_equal(as.numeric(cli_field(r$out, "log_density")),
               ctx$log_prob(rep(0, ctx$num_upars()), jacobian = FALSE), tolerance = 1e-12)
  # errors say what is wrong
  r <- cli_run(c(f$stan, f$data, "--upars", f$data))
  expect_false(r$status == 0L)
  expect_match(paste(r$out, collapse = "\n"), "unconstrained parameters")
  r <- cli_run(c(f$stan, f$data, "--no-such-option"))
  expect_match(paste(r$out, collapse = "\n"), "unknown option --no-such-option")
})

test_that("--sample writes CmdStan CSV with $sample()'s draws", {
  f <- cli_files()
  csv <- file.path(f$dir, "out.csv")
  r <- cli_run(c(f$stan, f$data, "--sample", "--chains", 2, "--threads", 1, "--warmup", 100,
                 "--samples", 50, "--seed", 7, "--refresh", 0, "--output", csv))
  expect_identical(r$status, 0L, info = paste(r$out, collapse = "\n"))
  files <- file.path(f$dir, c("out_1.csv", "out_2.csv"))
  expect_true(all(file.exists(files)))
  fit <- tapestry_model(f$stan)$sample(data = f$data, chains = 2, parallel_chains = 2, iter_warmup = 100,
                                       iter_sampling = 50, seed = 7, refresh = 0, show_messages = FALSE,
                                       diagnostics = NULL)
  vars <- c("lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__",
            "mu", "tau", paste0("z.", seq_len(f$G)), paste0("log_lambda.", seq_len(f$G)), "lambda1")
  for (k in 1:2) {
    lines <- readLines(files[k])
    expect_identical(lines[1], "# stan_version_major = 2")
    expect_true(any(lines == "# Adaptation terminated"))
    expect_true(any(grepl("^#   seed = 7$", lines)))
    d <- utils::read.csv(files[k], comment.char = "#")
    expect_identical(names(d), vars)
    expect_identical(nrow(d), 50L)
    # the draws of $sample() with the same seed and chain id (to the last
    # digits: the CSV's decimals are read back by R's parser)
    own <- utils::read.csv(fit$output_files()[k], comment.char = "#")
    expect_identical(names(own), vars)
    expect_equal(as.matrix(d), as.matrix(own), tolerance = 1e-13)
  }
})
