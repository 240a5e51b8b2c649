# Profiles without the C side: the `profiles` and `trace` elements of a
# chain of the sampler's raw result (and profile_log_prob's result) built as
# the contract between src/r and R/profiles.R shapes them, with round
# numbers, so that the R side's sums, nesting, files and JSON can be checked
# against values worked out by hand. Uses helper-fit.R's fake_fit().

# One chain's profiles: gp > cholesky, priors, likelihood > partial, where
# partial also ran on a helper thread (3) at its top level, as a profile in
# a reduce_sum partial sum does. A row per (name, thread, phase), in no
# particular order. Times scale with the chain (k) so chains differ.
fake_profiles <- function(k = 1L, thread = k) {
  rows <- list(
    # name,      thread,  phase,     parent,      fwd,  rev,  chain, nochain, ad, noad
    list("likelihood", thread, "sampling", NA,        0.30, 0.10, 300, 600, 100, 0),
    list("gp",         thread, "warmup",   NA,        0.80, 0.40, 400, 900, 150, 0),
    list("cholesky",   thread, "warmup",   "gp",      0.50, 0.30, 150, 150, 150, 0),
    list("gp",         thread, "sampling", NA,        0.60, 0.20, 300, 600, 100, 0),
    list("cholesky",   thread, "sampling", "gp",      0.40, 0.10, 100, 100, 100, 0),
    list("priors",     thread, "warmup",   NA,        0.02, 0.01, 450, 450, 150, 0),
    list("priors",     thread, "sampling", NA,        0.01, 0.01, 300, 300, 100, 0),
    list("likelihood", thread, "warmup",   NA,        0.45, 0.15, 450, 900, 150, 0),
    list("partial",    thread, "sampling", "likelihood", 0.10, 0.05, 100, 200, 100, 0),
    list("partial",    3L,     "sampling", NA,        0.12, 0.04, 100, 200, 100, 0)
  )
  col <- function(j) lapply(rows, `[[`, j)
  list(name = unlist(col(1)), thread_id = as.integer(unlist(col(2))),
       phase = unlist(col(3)), parent = as.character(unlist(col(4))),
       forward_time = k * unlist(col(5)), reverse_time = k * unlist(col(6)),
       chain_stack = unlist(col(7)), no_chain_stack = unlist(col(8)),
       autodiff_calls = unlist(col(9)), no_autodiff_calls = unlist(col(10)))
}

# Profiles with no rows: a program without profile statements.
empty_profiles <- function() {
  list(name = character(), thread_id = integer(), phase = character(),
       parent = character(), forward_time = double(), reverse_time = double(),
       chain_stack = double(), no_chain_stack = double(), autodiff_calls = double(),
       no_autodiff_calls = double())
}

# A trace: `n` evaluations, each with intervals of gp, cholesky (inside gp)
# and likelihood on the chain's thread; ts and dur in microseconds.
fake_trace <- function(k = 1L, n = 3L, dropped = 0, thread = k) {
  start <- (seq_len(n) - 1) * 1000 + 10 * k
  name <- rep(c("gp", "cholesky", "likelihood"), n)
  ts <- as.vector(rbind(start, start + 100.5, start + 600.25))
  dur <- rep(c(500.125, 300, 250.001), n)
  out <- list(name = name, ts = ts, dur = dur, tid = rep(as.integer(thread), 3L * n))
  attr(out, "dropped") <- dropped
  out
}

# A fit (helper-fit.R's fake_fit()) whose chains carry profiles and traces;
# `profiles` and `trace` are functions of the chain index (NULL for none).
profiled_fit <- function(chains = 2L, profiles = fake_profiles, trace = fake_trace) {
  ff <- fake_fit(chains = chains)
  raw <- ff$raw
  for (k in seq_along(raw$chains)) {
    raw$chains[[k]]["profiles"] <- list(if (!is.null(profiles)) profiles(k))
    raw$chains[[k]]["trace"] <- list(if (!is.null(trace)) trace(k))
  }
  fit <- TapestryFit$new(raw, ff$model, ff$ctx, fake_args(chains))
  list(fit = fit, raw = raw)
}

# What tp_profile_log_prob returns (see the contract), for a stand-in of
# the C entry.
fake_profile_run_raw <- function(trace_every = 0L) {
  p <- fake_profiles(1L, thread = 0L)
  keep <- p$phase == "sampling"
  p <- lapply(p, `[`, keep)
  list(profiles = p, trace = if (trace_every > 0L) fake_trace(1L, thread = 0L),
       seconds = 0.25)
}

# Is the C side of profiling (src/prof, tp_profile_log_prob) in this build?
has_profiling_c <- function() {
  exists("C_tp_profile_log_prob", envir = asNamespace("tapestry"), inherits = FALSE)
}

# Replaces a function of the package's namespace until the calling test
# ends (testthat's local_mocked_bindings() needs testthat >= 3.1.7).
local_stand_in <- function(name, value, env = parent.frame()) {
  ns <- asNamespace("tapestry")
  old <- get(name, envir = ns)
  unlockBinding(name, ns)
  assign(name, value, envir = ns)
  do.call(on.exit, list(substitute({
    assign(name, old, envir = ns)
    lockBinding(name, ns)
  }, list(name = name, old = old, ns = ns)), add = TRUE), envir = env)
  invisible(old)
}
