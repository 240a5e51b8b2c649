# What the interrupt checks cost (issue 33): the tree interpreter reads the
# interrupt flag at every loop iteration and user function call, replayed
# plans at every loop, call and parallel map.  Times the gradient of shared
# models that loop (on the tree, plans off, and replayed), in C with no R
# call between evaluations (tapestry:::plan_time), for two installations
# of the package: one without the checks, one with them.
#
#   Rscript bench/interrupt_overhead.R LIB_BEFORE LIB_AFTER [rounds]
#
# Each round runs a fresh R process per installation, one after the other,
# so a busy machine's drift falls on both; the table gives each model's
# median time per gradient over the rounds and the ratio after / before.
args <- commandArgs(TRUE)
if (length(args) == 1L && args[1L] == "--one") {
  # a child: times the models with the package found first on .libPaths()
  library(tapestry)
  models <- strsplit(Sys.getenv("BENCH_MODELS"), ",")[[1]]
  dir <- Sys.getenv("BENCH_DIR")
  out <- list()
  for (m in models) {
    mod <- tapestry_model(file.path(dir, paste0(m, ".stan")))
    ctx <- mod$bind(file.path(dir, paste0(m, ".data.json")))
    u <- rep(0.1, ctx$num_upars())
    for (plans in c(FALSE, TRUE)) {
      tapestry:::plans_enabled(plans)
      tapestry:::plan_time(ctx, u, 50L)                       # warm: records the plan
      reps <- max(20L, as.integer(0.3e9 / tapestry:::plan_time(ctx, u, 20L)))
      ns <- median(replicate(5, tapestry:::plan_time(ctx, u, reps)))
      out[[length(out) + 1L]] <- data.frame(model = m, path = if (plans) "plan" else "tree", ns = ns)
    }
  }
  tapestry:::plans_enabled(TRUE)
  saveRDS(do.call(rbind, out), Sys.getenv("BENCH_OUT"))
  quit(save = "no")
}
libs <- args[1:2]
rounds <- if (length(args) >= 3L) as.integer(args[3L]) else 3L
models <- c("garch_loop", "ar3_loop", "county_loop", "hmm_forward", "gp_loop")
dir <- if (dir.exists("/work/shared/models")) "/work/shared/models" else "inst/extdata"
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
res <- list()
for (r in seq_len(rounds)) for (k in 1:2) {
  f <- tempfile(fileext = ".rds")
  system2(file.path(R.home("bin"), "Rscript"), c(script, "--one"),
          env = c(paste0("R_LIBS=", libs[k]), paste0("BENCH_MODELS=", paste(models, collapse = ",")),
                  paste0("BENCH_DIR=", dir), paste0("BENCH_OUT=", f)))
  d <- readRDS(f)
  d$build <- c("before", "after")[k]
  d$round <- r
  res[[length(res) + 1L]] <- d
}
all <- do.call(rbind, res)
agg <- aggregate(ns ~ model + path + build, all, median)
w <- reshape(agg, idvar = c("model", "path"), timevar = "build", direction = "wide")
w$ratio <- w$ns.after / w$ns.before
w <- w[order(w$model, w$path), c("model", "path", "ns.before", "ns.after", "ratio")]
names(w) <- c("model", "path", "ns_before", "ns_after", "after/before")
w$ns_before <- round(w$ns_before)
w$ns_after <- round(w$ns_after)
w$`after/before` <- round(w$`after/before`, 3)
print(w, row.names = FALSE)
