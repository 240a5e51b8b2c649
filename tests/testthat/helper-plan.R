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

# Plans give the tree's gradients bit for bit at pts (the tree failing at
# none of them), and the gradient at pts[[at]] agrees with central
# differences.
expect_paths_and_fd <- function(ctx, pts, at = 2L, tolerance = 1e-6) {
  r <- both_paths(ctx, pts)
  expect_false(any(vapply(r$tree, is.character, TRUE)))
  expect_identical(r$plan, r$tree)
  u <- pts[[at]]
  expect_equal(as.numeric(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = tolerance)
  invisible(r)
}

points_for <- function(ctx, k = 5, sd = 0.7) {
  n <- ctx$num_upars()
  c(list(rep(0, n)), lapply(seq_len(k), function(i) stats::rnorm(n, sd = sd)))
}
