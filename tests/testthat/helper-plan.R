# Recorded plans (src/plan) against the tree interpreter: test-plan.R and
# test-aliasing.R.

# The gradient and log density at each point, on the tree alone and then
# through plans (the first evaluation records, the others replay), and the
# counters after.
both_paths <- function(ctx, pts, jacobian = TRUE) {
  one <- function(u) tryCatch(ctx$grad_log_prob(u, jacobian = jacobian),
                              error = function(e) paste("error:", conditionMessage(e)))
  old <- tapestry:::plans_enabled(FALSE)
  on.exit(tapestry:::plans_enabled(old))
  tree <- lapply(pts, one)
  tapestry:::plans_enabled(TRUE)
  plan <- c(lapply(pts, one), lapply(rev(pts), one))
  list(tree = c(tree, rev(tree)), plan = plan, stats = tapestry:::plan_stats(ctx))
}

points_for <- function(ctx, k = 5, sd = 0.7) {
  n <- ctx$num_upars()
  c(list(rep(0, n)), lapply(seq_len(k), function(i) stats::rnorm(n, sd = sd)))
}
