# Shared by the tests of the parallel builtins and of threads.

# Runs code with the main thread's evaluations using n threads (not capped
# at the cores: results that must not depend on the thread count are
# checked with more threads than this machine has), then restores the
# budget it found.
with_threads <- function(n, code) {
  old <- .Call(C_tp_threads, NULL)
  on.exit(.Call(C_tp_threads, old), add = TRUE)
  .Call(C_tp_threads, as.integer(n))
  force(code)
}

# Central finite differences of ctx's log density at u; h is one step or a
# step per coordinate.
fd_grad <- function(ctx, u, h = 1e-6) {
  h <- rep_len(h, length(u))
  vapply(seq_along(u), function(i) {
    up <- u
    dn <- u
    up[i] <- u[i] + h[i]
    dn[i] <- u[i] - h[i]
    (ctx$log_prob(up) - ctx$log_prob(dn)) / (2 * h[i])
  }, 0)
}
