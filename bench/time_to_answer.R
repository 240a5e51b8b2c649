# Time to a trustworthy answer: how long a user waits from $sample() to a
# summary, next to how long the chains themselves take, for every shared
# model (/work/shared/models: NAME.stan with NAME.data.json) and a program
# with 2,250 transformed parameters; side by side with rstan 2.21 (sampling()
# and summary() of the same program and data) and with posterior's
# summarise_draws() on the same draws.  4 chains of 1000 + 1000 iterations,
# 2 at a time, medians of interleaved repetitions.  Then eight_schools from
# tapestry_model() to a printed summary, and tapestry_brm() on brms's
# epilepsy example (formula to brmsfit) with where its time goes.
#
# Run by hand from the repository root, after installing tapestry:
#   Rscript bench/time_to_answer.R [--reps=3] [--only=regex] [--lib=path]
#                                  [--no-rstan] [--no-posterior] [--no-extras]
# rstan compiles each program once (about a minute each) from
# /work/shared/models/stan221 (Stan 2.21's syntax; the *_reduce programs as
# their serial forms), cached in bench/.cache.  Times in seconds.
#
# Columns: chains = the chains' own wall time (from the first chain's start
# to the last one's end, measured in C); sample = $sample()'s return;
# over = sample - chains; summary = $summary() after $sample() (the default
# summary is computed after sampling, for the warnings, and kept); fresh =
# $summary() computed anew (C, all variables); posterior =
# posterior::summarise_draws() of fit$draws(); rstan_sampling, rstan_summary
# = rstan's sampling() and summary(); ess_s = median bulk ESS over the
# variables (lp__ and constants left out) per second of $sample() (rstan:
# of sampling()), ess_ratio its ratio to rstan's; rstan_chains = rstan's
# chains' own time (get_elapsed_time(): the chains of each of the two
# workers one after the other), ess_chains_ratio the ratio of ESS per
# second of the chains' own time.
args <- commandArgs(TRUE)
opt <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default
}
flag <- function(name) any(args == paste0("--", name))
reps <- as.integer(opt("reps", "3"))
only <- opt("only", "")
lib <- opt("lib", NULL)
use_rstan <- !flag("no-rstan") && requireNamespace("rstan", quietly = TRUE)
use_posterior <- !flag("no-posterior")
shared <- "/work/shared/models"
suppressMessages(library(tapestry, lib.loc = lib))
if (use_rstan) {
  suppressMessages(library(rstan))
  rstan_options(boost_lib = "/usr/include",
                eigen_lib = system.file("include", package = "RcppEigen"), auto_write = TRUE)
}
# wall time in seconds with microseconds (proc.time() counts whole
# milliseconds, as long as a cached $summary() of a small model)
now <- function() as.double(Sys.time())
cache <- file.path("bench", ".cache")
dir.create(cache, showWarnings = FALSE)
cat(sprintf("tapestry %s from %s; %d cores; load average %s\n",
            as.character(packageVersion("tapestry", lib.loc = lib)),
            dirname(find.package("tapestry", lib.loc = lib)), parallel::detectCores(),
            paste(readLines("/proc/loadavg", warn = FALSE), collapse = " ")))

# The program with 2,250 transformed parameters (three 30 x 25 matrices
# filled element by element) and 3 parameters; no arrays, so Stan 2.21
# reads it as it is.
wide_code <- "
data { int<lower=1> R; int<lower=1> C; matrix[R, C] y; }
parameters { real a; real<lower=0> b; real<lower=0> sigma; }
transformed parameters {
  matrix[R, C] m1;
  matrix[R, C] m2;
  matrix[R, C] m3;
  for (i in 1:R) {
    for (j in 1:C) {
      m1[i, j] = a + b * (i - 0.5 * j) / R;
      m2[i, j] = m1[i, j] * exp(-b * j / C);
      m3[i, j] = m2[i, j] + 0.1 * a * (i % 3);
    }
  }
}
model {
  a ~ normal(0, 1);
  b ~ normal(0, 1);
  sigma ~ normal(0, 1);
  to_vector(y) ~ normal(to_vector(m3), sigma);
}
"
wide_data <- function() {
  set.seed(2250)
  R <- 30; C <- 25
  i <- matrix(rep(1:R, C), R); j <- matrix(rep(1:C, each = R), R)
  m1 <- 0.3 + 0.7 * (i - 0.5 * j) / R
  m3 <- m1 * exp(-0.7 * j / C) + 0.1 * 0.3 * (i %% 3)
  list(R = R, C = C, y = m3 + matrix(rnorm(R * C, 0, 0.5), R))
}

# The programs: name, tapestry's file and data, rstan's file.
programs <- list()
for (f in sort(list.files(shared, "\\.stan$"))) {
  m <- sub("\\.stan$", "", f)
  d <- file.path(shared, paste0(m, ".data.json"))
  if (!file.exists(d)) next
  old <- file.path(shared, "stan221", f)
  if (!file.exists(old)) old <- file.path(shared, "stan221", paste0(sub("_reduce$", "", m), ".stan"))
  programs[[m]] <- list(file = file.path(shared, f), data = d,
                        rstan_data = jsonlite::fromJSON(d), rstan_file = old)
}
wide_file <- file.path(cache, "wide_tp.stan")
writeLines(wide_code, wide_file)
programs$wide_tp <- list(file = wide_file, data = wide_data(), rstan_data = wide_data(),
                         rstan_file = wide_file)
if (nzchar(only)) programs <- programs[grepl(only, names(programs))]

rstan_model <- function(p, name) {
  # a copy in the cache folder, where rstan keeps the compiled program (.rds)
  f <- file.path(cache, paste0(name, ".stan"))
  if (!file.exists(f) || !identical(readLines(f, warn = FALSE), readLines(p$rstan_file, warn = FALSE))) {
    file.copy(p$rstan_file, f, overwrite = TRUE)
  }
  suppressMessages(stan_model(f, model_name = name))
}

# (the C summaries where this tapestry has them, posterior's otherwise)
ess_per_s <- function(draws, secs) {
  summ <- if (exists("summarise_draws_c", asNamespace("tapestry"))) {
    get("summarise_draws_c", asNamespace("tapestry"))
  } else {
    posterior::summarise_draws
  }
  s <- suppressWarnings(summ(draws, "ess_bulk"))
  median(as.double(s$ess_bulk[s$variable != "lp__"]), na.rm = TRUE) / secs
}

# rows with the columns of both (NA where one lacks a column)
bind_rows <- function(a, b) {
  if (is.null(a)) return(b)
  for (n in setdiff(names(b), names(a))) a[[n]] <- NA
  for (n in setdiff(names(a), names(b))) b[[n]] <- NA
  rbind(a, b[names(a)])
}

elapsed <- function(expr) {
  t0 <- now()
  force(expr)
  now() - t0
}

rows <- NULL
for (name in names(programs)) {
  p <- programs[[name]]
  tm <- suppressWarnings(tapestry_model(p$file))
  sm <- if (use_rstan) tryCatch(rstan_model(p, name), error = function(e) {
    message(name, ": rstan could not compile it: ", conditionMessage(e)); NULL
  })
  cat(sprintf("\n%s\n", name))
  for (k in seq_len(reps)) {
    r <- list(model = name, rep = k)
    if (!is.null(sm)) {
      f <- NULL
      r$rstan_sampling <- elapsed(f <- suppressMessages(suppressWarnings(
        sampling(sm, data = p$rstan_data, chains = 4, cores = 2, iter = 2000, warmup = 1000,
                 seed = 100 + k, refresh = 0))))
      # rstan's chains' own time: each chain's warmup + sampling, two chains
      # per worker one after the other (4 chains, cores = 2)
      et <- rowSums(rstan::get_elapsed_time(f))
      r$rstan_chains <- max(et[1] + et[3], et[2] + et[4])
      r$rstan_summary <- elapsed(rstan::summary(f)$summary)
      r$rstan_ess_s <- ess_per_s(posterior::as_draws_array(f), r$rstan_sampling)
      rm(f)
    }
    fit <- NULL
    r$sample <- elapsed(fit <- tm$sample(data = p$data, chains = 4, parallel_chains = 2,
                                         seed = 100 + k, refresh = 0, show_messages = FALSE))
    priv <- fit$.__enclos_env__$private
    r$chains <- if (is.null(priv$chains_time_)) NA_real_ else priv$chains_time_
    r$over <- r$sample - r$chains
    r$summary <- elapsed(s <- fit$summary())
    # (a tapestry without a kept summary computes it at every call)
    if (exists("summary_cache_", envir = priv, inherits = FALSE)) priv$summary_cache_ <- NULL
    r$fresh <- elapsed(s <- fit$summary())
    r$variables <- nrow(s)
    r$ess_s <- ess_per_s(fit$draws(), r$sample)
    if (use_posterior) {
      d <- fit$draws()
      r$posterior <- elapsed(suppressWarnings(posterior::summarise_draws(d)))
    }
    rm(fit, priv)
    gc(FALSE)
    row <- as.data.frame(r)
    print(row, row.names = FALSE, digits = 3)
    rows <- bind_rows(rows, row)
  }
}

med <- aggregate(. ~ model, rows[, setdiff(names(rows), "rep")], stats::median, na.action = na.pass)
med <- med[match(names(programs), med$model), ]
med$over_ok <- med$over <= pmax(0.1 * med$chains, 0.05)
med$summary_share <- med$summary / med$chains
med$fresh_share <- med$fresh / med$chains
if (!is.null(med$rstan_ess_s)) med$ess_ratio <- med$ess_s / med$rstan_ess_s
if (!is.null(med$rstan_chains)) {
  # ESS per second of the chains themselves, tapestry / rstan
  med$ess_chains_ratio <- (med$ess_s * med$sample / med$chains) /
                          (med$rstan_ess_s * med$rstan_sampling / med$rstan_chains)
}
cat(sprintf("\nmedians of %d interleaved repetitions (seconds)\n", reps))
print(med, row.names = FALSE, digits = 3)
saveRDS(list(rows = rows, medians = med), file.path(cache, "time_to_answer.rds"))

if (!flag("no-extras")) {
  # eight_schools: from the program text to a printed summary
  es <- file.path(shared, "eight_schools.stan")
  es_data <- file.path(shared, "eight_schools.data.json")
  once <- function(seed) {
    out <- c(model = 0, sample = 0, summary = 0, print = 0)
    t0 <- now()
    mod <- tapestry_model(es)
    out[["model"]] <- now() - t0
    fit <- mod$sample(data = es_data, chains = 4, parallel_chains = 2, seed = seed, refresh = 0,
                      show_messages = FALSE)
    out[["sample"]] <- now() - t0 - sum(out)
    s <- fit$summary()
    out[["summary"]] <- now() - t0 - sum(out)
    sink(nullfile())
    print(s)
    sink()
    out[["print"]] <- now() - t0 - sum(out)
    c(out, total = sum(out), chains = fit$.__enclos_env__$private$chains_time_)
  }
  once(1)
  es_rows <- t(sapply(seq_len(max(reps, 15L)), once))
  cat("\neight_schools, tapestry_model() to a printed fit$summary() (medians):\n")
  print(apply(es_rows, 2, stats::median), digits = 3)

  # tapestry_brm() on brms's epilepsy example: formula to brmsfit
  if (requireNamespace("brms", quietly = TRUE)) {
    suppressMessages(library(brms))
    brm_once <- function(seed) {
      t0 <- now()
      x <- tapestry_brm(count ~ zAge + zBase * Trt + (1 | patient), data = epilepsy,
                        family = poisson(), chains = 4, cores = 2, seed = seed, silent = 2,
                        refresh = 0)
      total <- now() - t0
      c(total = total, chains = x$tapestry_args$chains_time)
    }
    brm_once(1)
    b <- t(sapply(seq_len(reps), function(k) brm_once(100 + k)))
    bm <- apply(b, 2, stats::median)
    cat(sprintf(paste0("\ntapestry_brm(), epilepsy (Poisson, varying intercepts, 4 chains, 2 cores): ",
                       "formula to brmsfit %.2f s, chains %.2f s, ratio %.2f (medians of %d)\n"),
                bm[["total"]], bm[["chains"]], bm[["total"]] / bm[["chains"]], reps))
    # where the rest goes
    Rprof(tf <- tempfile(), interval = 0.01)
    invisible(brm_once(7))
    Rprof(NULL)
    pr <- summaryRprof(tf)$by.total
    cat("where a tapestry_brm() call spends its time (Rprof, total seconds by function):\n")
    print(head(pr[, "total.time", drop = FALSE], 30))
  }
}
