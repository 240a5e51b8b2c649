# Within-chain parallelism (run by hand from the repository root:
# Rscript bench/parallel.R [lib]).
#
# For hier_poisson_reduce, logistic_reduce and lbeta_map (../shared/models,
# or TAPESTRY_MODELS), at the reference's first point:
# - gradient time with 1 thread over 2 threads (the speed-up; target >= 1.85)
# - gradient time with 1 thread over the serial program (the cost of the
#   parallel form; target <= 1.05): hier_poisson, logistic, and for lbeta_map
#   the same program with parallel_map written as a loop
# - for the two reduce_sum models, 2 threads: grainsize 1 (the automatic
#   chunking) against fixed grainsizes N/64 .. N/2 (target: within 10% of
#   the best fixed one)
# - the scheduling overhead of the pool: an empty region and an empty chunk
#   (targets 5 us and 0.5 us).
# Every ratio is measured in this one run: the variants take turns (in a
# shuffled order) over many repetitions, each a batch of evaluations of about
# 50 ms, and a ratio is the median of the per-repetition ratios.  Only the
# repetitions during which other processes left the second core free count
# (column reps: counted/tried; see race()).  TAPESTRY_REPS sets the
# repetitions wanted (default 25), TAPESTRY_QUIET the cores other processes
# may keep busy during one (default 0.15).
args <- commandArgs(TRUE)
lib <- if (length(args) && dir.exists(args[1])) args[1] else NULL
suppressMessages(library(tapestry, lib.loc = lib))
models_dir <- Sys.getenv("TAPESTRY_MODELS", "../shared/models")
reps <- as.integer(Sys.getenv("TAPESTRY_REPS", "25"))
set.seed(2026)

path <- function(f) file.path(models_dir, f)
read_data <- function(m) jsonlite::read_json(path(paste0(m, ".data.json")), simplifyVector = TRUE)
first_point <- function(m) {
  jsonlite::read_json(path(paste0(m, ".reference.json")), simplifyVector = TRUE)$points$upars[[1L]]
}

# CPU seconds used by every process of the machine (NA where /proc/stat is
# missing): with this process's own, how busy the others kept the cores.
machine_cpu <- function() {
  x <- tryCatch(scan("/proc/stat", what = "", nlines = 1L, quiet = TRUE), error = function(e) NA)
  if (anyNA(x)) return(NA_real_)
  j <- as.numeric(x[-1L])
  sum(j[c(1:3, 6:8)]) / 100                      # user nice system irq softirq steal
}
own_cpu <- function() sum(proc.time()[c(1L, 2L)])

# Seconds per gradient, one batch of k evaluations with `threads` threads.
batch <- function(v, k) {
  tapestry_set_num_threads(v$threads)
  t0 <- Sys.time()
  for (i in seq_len(k)) v$ctx$grad_log_prob(v$u)
  as.double(difftime(Sys.time(), t0, units = "secs")) / k
}

# Times the named variants (list(ctx, u, threads)) in turns: repetitions of
# one batch per variant, in a shuffled order.  Other processes on this shared
# machine take the second core now and then, which a 2-thread evaluation
# feels at once: a repetition counts only when the others kept less than
# QUIET cores busy during it, and the race goes on (up to 4 * reps) until
# `reps` repetitions counted.  Returns a matrix (repetitions x variants) of
# seconds per gradient, with the repetitions tried as attribute "tried".
QUIET <- as.numeric(Sys.getenv("TAPESTRY_QUIET", "0.15"))
race <- function(variants) {
  # a batch of ~50 ms for the slowest variant at one thread
  one <- max(vapply(variants, function(v) batch(v, 3L), 0))
  k <- max(1L, as.integer(ceiling(0.05 / one)))
  for (v in variants) batch(v, k)                    # warm up tapes and workers
  kept <- list()
  tried <- 0L
  while (length(kept) < reps && tried < 4L * reps) {
    tried <- tried + 1L
    m0 <- machine_cpu(); o0 <- own_cpu(); w0 <- proc.time()[[3L]]
    t <- rep(NA_real_, length(variants))
    for (j in sample(length(variants))) t[j] <- batch(variants[[j]], k)
    others <- (machine_cpu() - m0 - (own_cpu() - o0)) / (proc.time()[[3L]] - w0)
    if (is.na(others) || others < QUIET) kept[[length(kept) + 1L]] <- t
  }
  if (length(kept) == 0L) kept <- list(t)
  t <- do.call(rbind, kept)
  colnames(t) <- names(variants)
  attr(t, "tried") <- tried
  t
}
ratio <- function(t, a, b) stats::median(t[, a] / t[, b])

bind <- function(code_or_file, data, is_code = FALSE) {
  mod <- if (is_code) tapestry_model(code = code_or_file) else tapestry_model(path(code_or_file))
  mod$bind(data)
}

lbeta_serial_code <- function() {
  code <- paste(readLines(path("lbeta_map.stan")), collapse = "\n")
  call <- "vector[N] mu = parallel_map(lbeta_fn, 100, x, alpha, beta);"
  stopifnot(grepl(call, code, fixed = TRUE))
  sub(call, "vector[N] mu;\n  for (i in 1:N) mu[i] = lbeta_fn(x[i], alpha, beta);", code,
      fixed = TRUE)
}

start <- c(machine = machine_cpu(), own = own_cpu(), wall = proc.time()[[3L]])

cat(sprintf("tapestry %s, %d cores, load average %s, %d repetitions\n\n",
            as.character(packageVersion("tapestry", lib.loc = lib)),
            .Call(tapestry:::C_tp_cores),
            paste(tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3],
                           error = function(e) "?"), collapse = " "),
            reps))

models <- list(
  hier_poisson_reduce = list(serial = "hier_poisson.stan", drop = "grainsize"),
  logistic_reduce = list(serial = "logistic.stan", drop = "grainsize"),
  lbeta_map = list(serial = NULL, drop = character())
)
old_threads <- tapestry_get_num_threads()
rows <- list()
sweeps <- list()
for (m in names(models)) {
  d <- read_data(m)
  u <- first_point(m)
  par <- bind(paste0(m, ".stan"), d)
  sd <- d[setdiff(names(d), models[[m]]$drop)]
  ser <- if (is.null(models[[m]]$serial)) bind(lbeta_serial_code(), sd, is_code = TRUE)
         else bind(models[[m]]$serial, sd)
  # the parallel form computes what the serial one does (up to the constant
  # that target += keeps and ~ drops)
  g0 <- ser$grad_log_prob(u)
  tapestry_set_num_threads(2)
  g2 <- par$grad_log_prob(u)
  rel <- max(abs(g2 - g0)) / max(abs(g0))
  t <- race(list(serial = list(ctx = ser, u = u, threads = 1L),
                 one = list(ctx = par, u = u, threads = 1L),
                 two = list(ctx = par, u = u, threads = 2L)))
  rows[[m]] <- data.frame(
    model = m,
    serial_us = 1e6 * stats::median(t[, "serial"]),
    one_thread_us = 1e6 * stats::median(t[, "one"]),
    two_threads_us = 1e6 * stats::median(t[, "two"]),
    speedup_2_over_1 = ratio(t, "one", "two"),
    one_over_serial = ratio(t, "one", "serial"),
    grad_rel_diff = rel,
    reps = sprintf("%d/%d", nrow(t), attr(t, "tried")))

  if (!is.null(d$grainsize)) {
    n <- d$N
    fixed <- c(64L, 32L, 16L, 8L, 4L, 2L)
    grains <- c(auto = 1L, stats::setNames(as.integer(n %/% fixed), paste0("N/", fixed)))
    vs <- lapply(grains, function(gs) {
      dd <- d
      dd$grainsize <- gs
      list(ctx = bind(paste0(m, ".stan"), dd), u = u, threads = 2L)
    })
    ts <- race(vs)
    med <- apply(ts, 2, stats::median)
    best <- names(which.min(med[-1L]))
    sweeps[[m]] <- data.frame(
      model = m, grainsize = names(grains), value = unname(grains),
      two_threads_us = 1e6 * unname(med),
      over_best_fixed = vapply(names(grains), function(g) ratio(ts, g, best), 0),
      reps = sprintf("%d/%d", nrow(ts), attr(ts, "tried")), row.names = NULL)
  }
}
tapestry_set_num_threads(old_threads)

overhead <- do.call(rbind, lapply(1:2, function(n) {
  reg <- tapestry:::tp_bench("region", n, reps = 20)
  chk <- tapestry:::tp_bench("chunk", n, reps = 20)
  join <- tapestry:::tp_bench("join", n, reps = 20)
  data.frame(threads = n, empty_region_ns = reg[["ns_per_unit"]],
             region_threads_used = reg[["check"]], joined_region_ns = join[["ns_per_unit"]],
             empty_chunk_ns = chk[["ns_per_unit"]], chunk_threads_used = chk[["check"]])
}))

wall <- proc.time()[[3L]] - start[["wall"]]
others <- (machine_cpu() - start[["machine"]] - (own_cpu() - start[["own"]])) / wall
op <- options(width = 120, digits = 4)
cat(sprintf(paste0("Run: %.0f s; other processes kept %.2f cores busy on average ",
                   "(the speed-ups need a second core free)\n\n"), wall, others))
cat("Gradient time (medians over the quiet repetitions; ratios: median of per-repetition ratios)\n")
cat("  targets: speedup_2_over_1 >= 1.85, one_over_serial <= 1.05\n")
print(do.call(rbind, rows), row.names = FALSE)
cat("\nGrainsize sweep, 2 threads (auto = grainsize 1; target: auto within 1.10 of the best fixed)\n")
print(do.call(rbind, sweeps), row.names = FALSE)
cat("\nScheduling overhead on the main thread (best of 20; targets: region < 5000 ns,",
    "chunk < 500 ns)\n")
cat("  region: an empty region of `threads` empty chunks (with 2, a helper is queued and",
    "taken back when unused)\n  joined: the same, but each chunk waits until all have",
    "started, so every helper joins\n  chunk: per chunk of one region of 10^5 empty chunks;",
    "*_threads_used: participants per region\n")
print(overhead, row.names = FALSE)
options(op)
