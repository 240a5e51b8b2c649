# Shared by the tests of the parallel builtins and of threads.

# Runs code with the main thread's evaluations using n threads (not capped
# at the cores: results that must not depend on the thread count are
# checked with more threads than this machine has), then restores the
# budget it found.
with_threads <- function(n, code, gate = "always") {
  old <- .Call(C_tp_threads, NULL)
  on.exit(.Call(C_tp_threads, old), add = TRUE)
  .Call(C_tp_threads, as.integer(n))
  # the threads taken whether they pay or not (src/par/pp_gate.c), so the
  # bits of every thread count are compared; gate = "measure" as users run
  old_gate <- .Call(C_tp_gate, c(measure = 0L, always = 1L, never = 2L)[[gate]])
  on.exit(.Call(C_tp_gate, old_gate), add = TRUE)
  force(code)
}

# The gradient of ctx's log density at u by Richardson's differences
# (fd_jac in helper-math.R); h, the first step (one, or one per
# coordinate), is raised to at least 1e-4 of the coordinate's size, which
# the extrapolation makes accurate and keeps rounding small; without the
# extrapolation (extrapolate = FALSE) h is the step as given.
fd_grad <- function(ctx, u, h = 1e-4, extrapolate = TRUE) {
  if (extrapolate) h <- pmax(rep_len(h, length(u)), 1e-4 * pmax(1, abs(u)))
  as.numeric(fd_jac(function(x) ctx$log_prob(x), u, h, extrapolate))
}
