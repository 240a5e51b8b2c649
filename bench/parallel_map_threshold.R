# parallel_map's choice between its two strategies (src/par/pp_map.c), run
# by hand from the repository root: Rscript bench/parallel_map_threshold.R [lib]
#
# An element of parallel_map(f, 1, x, j, theta) with theta a broadcast
# parameter vector of M reals costs the eager strategy M partials (stored,
# zeroed, scattered back) whether f reads one entry of theta or all of them;
# the append strategy keeps each element's tape instead, but its reverse
# pass is the caller's (serial).  For M = 4 .. 4096 and N = 2000 elements
# (TAPESTRY_PM_N), each strategy (forced with the internal tp_pmap_threshold)
# and 1 or 2 threads, a fresh R process measures the gradient time (median
# of batches) and the growth of its peak resident memory over the first
# gradients (the tapes reach their size in the first).  f reads one entry of
# theta ("one", the case the threshold is for: a group effect per element)
# or all of it ("all", where both strategies do O(M) work anyway).
#
# The figures and the threshold chosen from them (64 reals): the comment at
# TM_PM_APPEND_ABOVE in src/par/pp_map.h.
args <- commandArgs(TRUE)
lib <- if (length(args) && dir.exists(args[1])) args[1] else ""
N <- as.integer(Sys.getenv("TAPESTRY_PM_N", "2000"))
Ms <- c(4L, 16L, 32L, 64L, 128L, 256L, 1024L, 4096L)

child <- function(M, strategy, threads, reads, lib) {
  code <- sprintf('
    suppressMessages(library(tapestry, lib.loc = %s))
    hwm <- function() {
      l <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
      as.numeric(gsub("[^0-9]", "", l)) / 1024
    }
    N <- %d; M <- %d
    body <- if ("%s" == "one") "return x * th[j];" else "return x * dot_self(th) / j;"
    code <- paste0("functions { real f(real x, int j, vector th) { ", body, " } }
      data { int N; int M; vector[N] x; array[N] int j; }
      parameters { vector[M] th; }
      model { target += sum(parallel_map(f, 1, x, j, th)); th ~ std_normal(); }")
    set.seed(1)
    ctx <- tapestry_model(code = code)$bind(list(N = N, M = M, x = rnorm(N),
                                                 j = sample.int(M, N, replace = TRUE)))
    u <- rnorm(M)
    invisible(.Call(tapestry:::C_tp_threads, %dL))
    invisible(.Call(tapestry:::C_tp_pmap_threshold, %s))
    invisible(gc())
    before <- hwm()
    for (i in 1:3) ctx$grad_log_prob(u)
    mb <- hwm() - before          # the tapes reach their size in the first gradient
    k <- 1L
    repeat { t <- system.time(for (i in 1:k) ctx$grad_log_prob(u))[["elapsed"]]; if (t > 0.05) break; k <- k * 2L }
    ts <- replicate(9, system.time(for (i in 1:k) ctx$grad_log_prob(u))[["elapsed"]] / k)
    cat(sprintf("%%.3f %%.2f\\n", 1e6 * median(ts), mb))',
    if (nzchar(lib)) deparse(normalizePath(lib)) else "NULL", N, M, reads, threads,
    if (strategy == "eager") "1e15" else "0")
  f <- tempfile(fileext = ".R")
  writeLines(code, f)
  on.exit(unlink(f))
  out <- system2(file.path(R.home("bin"), "Rscript"), f, stdout = TRUE,
                 env = "_R_CHECK_LIMIT_CORES_=")
  as.numeric(strsplit(tail(out, 1), " ")[[1]])
}

res <- expand.grid(M = Ms, strategy = c("eager", "append"), threads = 1:2, reads = c("one", "all"),
                   stringsAsFactors = FALSE)
r <- t(mapply(child, res$M, res$strategy, res$threads, res$reads, MoreArgs = list(lib = lib)))
res$us <- r[, 1]
res$mb <- r[, 2]
w <- reshape(res, idvar = c("M", "threads", "reads"), timevar = "strategy", direction = "wide")
w$time_eager_over_append <- w$us.eager / w$us.append
w <- w[order(w$reads, w$threads, w$M), ]
print(w, row.names = FALSE, digits = 3)
