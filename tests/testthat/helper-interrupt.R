# A run of 4 chains, 2 at a time, of a slow one-parameter model (40,000
# draws each, progress every 1000) in another R process, for the Ctrl-C
# tests of test-interrupt-fits.R and test-chain-turns.R.  `turns`: the
# tapestry.chain_turns option.  Returns the files: `log` (the progress
# lines), `pid` (the process to interrupt) and `out` (what the fit kept,
# saved when the run returns).
start_interruptible_run <- function(turns) {
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  dir <- withr_tempdir(env = parent.frame())
  f <- list(script = file.path(dir, "run.R"), out = file.path(dir, "out.rds"),
            log = file.path(dir, "log.txt"), pid = file.path(dir, "pid"))
  writeLines(c(
    "library(tapestry)",
    sprintf("options(tapestry.chain_turns = %s)", turns),
    sprintf("writeLines(as.character(Sys.getpid()), %s)", deparse(f$pid)),
    "mod <- tapestry_model(code = 'parameters { real x; } model {",
    "  for (i in 1:3000) target += normal_lpdf(x | 0, 1); }')",
    "w <- NULL",
    "fit <- withCallingHandlers(mod$sample(chains = 4, parallel_chains = 2,",
    "  iter_warmup = 100, iter_sampling = 40000, refresh = 1000, seed = 1, diagnostics = NULL),",
    "  warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart('muffleWarning') })",
    sprintf("saveRDS(list(w = w, dim = dim(fit$draws()), codes = fit$return_codes(),
      x = fit$draws('x'), rows = vapply(fit$.__enclos_env__$private$chains_,
      function(ch) nrow(ch$draws), 0L)), %s)", deparse(f$out))
  ), f$script)
  system2(file.path(R.home("bin"), "Rscript"), f$script, wait = FALSE, stdout = f$log,
          stderr = f$log, env = paste0("R_LIBS=", lib))
  f
}

# The run's progress lines, read every 50 ms until ready(lines) is TRUE (at
# most a minute): the lines then, or NULL if that never came.
wait_for_progress <- function(f, ready) {
  for (i in 1:1200) {
    txt <- if (file.exists(f$log)) readLines(f$log, warn = FALSE) else character()
    if (ready(txt)) return(txt)
    Sys.sleep(0.05)
  }
  NULL
}

# Ctrl-C to the run, then a wait (at most 20 s) for what it saved.
interrupt_run <- function(f) {
  tools::pskill(as.integer(readLines(f$pid)), tools::SIGINT)
  for (i in 1:400) if (file.exists(f$out)) break else Sys.sleep(0.05)
  Sys.sleep(0.2)
  invisible(file.exists(f$out))
}

# The chains whose "finished" line is among the progress lines.
finished_chains <- function(txt) {
  as.integer(sub("^Chain ([0-9]) finished in.*", "\\1",
                 grep("^Chain [0-9] finished in", txt, value = TRUE)))
}

# Which of chains 1..n have shown a sampling iteration.
sampling_chains <- function(txt, n = 4L) {
  vapply(seq_len(n), function(k) any(grepl(sprintf("^Chain %d Iteration: .*\\(Sampling\\)", k), txt)),
         TRUE)
}
