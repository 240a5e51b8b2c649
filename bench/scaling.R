# Thread scaling of the shared programs (issue 32, item 5), measured through
# the command-line driver (tools/cli), so the same figures come from a
# machine with many cores and no R (tools/cli/scaling.sh prints the same
# table there).  ns per gradient at 1, 2, 4, 8 and 16 threads of the
# evaluation (reduce_sum, parallel_map, map_rect, kernels' blocks), the
# median of interleaved rounds, and the speed-up over one thread; with
# --chains, the throughput of 1, 2, 4... chains at once (gradients per second
# of all of them) instead.  With --check (tapestry installed), the driver's
# log density and gradient at the program's reference point are compared
# with $log_prob() and $grad_log_prob(), bit for bit.
#
# Run from the repository root:
#   Rscript bench/scaling.R [--threads 1,2,4,8,16] [--rounds 3] [--evals 350]
#                           [--models DIR] [--chains] [--check] [program ...]
# The driver is built (make -C tools/cli) when tools/cli/tapestry-cli is
# missing.  MODELS defaults to ../shared/models beside the repository, else
# inst/extdata.
args <- commandArgs(TRUE)
opt <- function(name, default) {
  i <- match(name, args)
  if (is.na(i)) return(default)
  v <- args[i + 1L]
  args <<- args[-c(i, i + 1L)]
  v
}
flag <- function(name) {
  i <- match(name, args)
  if (is.na(i)) return(FALSE)
  args <<- args[-i]
  TRUE
}
threads <- as.integer(strsplit(opt("--threads", "1,2,4,8,16"), ",")[[1]])
rounds <- as.integer(opt("--rounds", "3"))
evals <- as.integer(opt("--evals", "350"))
models <- opt("--models", NA)
chains <- flag("--chains")
check <- flag("--check")
programs <- if (length(args)) args else
  c("hier_poisson_reduce", "lbeta_map", "map_rect_hier", "hier_poisson", "logistic",
    "logistic_reduce", "gp_profile")

root <- normalizePath(".")
if (!file.exists(file.path(root, "tools", "cli", "GNUmakefile")))
  stop("run from the repository root (tools/cli/GNUmakefile not found)")
if (is.na(models)) {
  models <- file.path(dirname(root), "shared", "models")
  if (!dir.exists(models)) models <- file.path(root, "inst", "extdata")
}
cli <- Sys.getenv("CLI", file.path(root, "tools", "cli", "tapestry-cli"))
if (!file.exists(cli)) {
  message("building ", cli)
  st <- system2("make", c("-C", file.path(root, "tools", "cli"), "-j2"), stdout = FALSE)
  if (st != 0 || !file.exists(cli)) stop("make -C tools/cli failed")
}
cores <- parallel::detectCores()
if (any(threads > cores))
  message("note: more threads than the ", cores, " cores: those columns measure oversubscription")

files <- function(p) {
  f <- file.path(models, paste0(p, c(".stan", ".data.json", ".reference.json")))
  names(f) <- c("stan", "data", "ref")
  f
}
field <- function(out, key) {
  line <- grep(paste0("^", key, " "), out, value = TRUE)
  if (!length(line)) return(NA_character_)
  sub(paste0("^", key, " +"), "", line[1L])
}
run <- function(p, t) {
  f <- files(p)
  if (chains) {
    csv <- tempfile(fileext = ".csv")
    on.exit(unlink(list.files(dirname(csv), paste0("^", sub("\\.csv$", "", basename(csv))), full.names = TRUE)))
    out <- suppressWarnings(system2(cli, c(f[["stan"]], f[["data"]], "--sample", "--chains", t,
      "--parallel-chains", t, "--threads", 1, "--warmup", 200, "--samples", 200, "--seed", 1,
      "--refresh", 0, "--output", csv), stdout = TRUE, stderr = FALSE))
    as.numeric(field(out, "gradients")) / as.numeric(field(out, "wall_seconds"))
  } else {
    a <- c(f[["stan"]], f[["data"]], "--threads", t, "--evals", evals)
    if (file.exists(f[["ref"]])) a <- c(a, "--upars", f[["ref"]])
    out <- suppressWarnings(system2(cli, a, stdout = TRUE, stderr = FALSE))
    as.numeric(field(out, "ns_per_gradient"))
  }
}

programs <- programs[file.exists(file.path(models, paste0(programs, ".stan")))]
res <- expand.grid(t = threads, program = programs, round = seq_len(rounds), stringsAsFactors = FALSE)
res$value <- NA_real_
for (r in seq_len(rounds)) for (p in programs) for (t in threads) {
  i <- which(res$round == r & res$program == p & res$t == t)
  res$value[i] <- run(p, t)
}
med <- tapply(res$value, list(res$program, res$t), median, na.rm = TRUE)
med <- med[programs, as.character(threads), drop = FALSE]

fmt <- function(x) {
  if (chains) return(ifelse(is.na(x), "NA", sprintf("%.0f", x)))
  ifelse(is.na(x), "NA", ifelse(x >= 1e6, sprintf("%.2fM", x / 1e6),
    ifelse(x >= 1e4, sprintf("%.0fk", x / 1e3), ifelse(x >= 1e3, sprintf("%.1fk", x / 1e3), sprintf("%.0f", x)))))
}
cpu <- tryCatch(sub(".*: ", "", grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1L]),
                error = function(e) NA)
cat(if (chains) "Chains at once (one thread each), gradients per second of all chains" else
      sprintf("ns per gradient (median of 7 blocks, %d evaluations in all)", evals),
    sprintf(", median of %d interleaved rounds; %d cores%s\n\n", rounds, cores,
            if (is.na(cpu)) "" else paste0(", ", cpu)), sep = "")
unit <- if (chains) " chains" else " threads"
cat("| program | ", paste0(threads, c(rep("", length(threads) - 1L), unit), collapse = " | "),
    " | best speed-up |\n", sep = "")
cat("|---|", strrep("---|", length(threads)), "---|\n", sep = "")
for (p in programs) {
  v <- med[p, ]
  s <- if (chains) v / v[1] else v[1] / v
  best <- if (all(is.na(s))) NA else max(s, na.rm = TRUE)
  b <- if (is.na(best)) "NA" else if (best <= 1.0001) "none" else
    sprintf("%.2fx at %s", best, threads[which.max(s)])
  cat("| ", p, " | ", paste(fmt(v), collapse = " | "), " | ", b, " |\n", sep = "")
}

if (check) {
  if (!requireNamespace("tapestry", quietly = TRUE)) stop("--check needs tapestry installed")
  cat("\nThe driver against $log_prob() and $grad_log_prob() at the reference point:\n")
  for (p in programs) {
    f <- files(p)
    if (!file.exists(f[["ref"]])) next
    ref <- jsonlite::fromJSON(f[["ref"]], simplifyVector = FALSE)
    u <- as.numeric(unlist(ref$points[[1]]$upars))
    ctx <- tapestry::tapestry_model(f[["stan"]])$bind(f[["data"]])
    out <- system2(cli, c(f[["stan"]], f[["data"]], "--upars", f[["ref"]], "--evals", 1, "--grad"),
                   stdout = TRUE, stderr = FALSE)
    lp <- as.numeric(field(out, "log_density"))
    g <- as.numeric(strsplit(field(out, "gradient"), " +")[[1]])
    cat(sprintf("  %-22s log density %.17g: %s; gradient: %s\n", p, lp,
                if (identical(lp, ctx$log_prob(u))) "identical" else "DIFFERS",
                if (identical(g, as.numeric(ctx$grad_log_prob(u)))) "identical" else "DIFFERS"))
  }
}
