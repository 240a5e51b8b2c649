# What brms writes: for every brms family and every kind of term, the
# program and data brms 2.18 made for simulated data, against rstan 2.21's
# log density and gradient at three points (tools/brms/make-fixtures.R wrote
# the fixtures; neither brms nor rstan is needed here).

fixture_dir <- test_path("fixtures", "brms")
fixtures <- sub("\\.reference\\.json$", "", list.files(fixture_dir, pattern = "\\.reference\\.json$"))

test_that("the brms fixtures are all there", {
  expect_gte(length(fixtures), 50)
})

# Programs whose gradient two correct implementations cannot agree on to
# 1e-8: brms's exact gp() adds only 1e-12 to the covariance's diagonal, and
# at the fixture's points its condition number is 1e13 to 1e14 (computed in
# R from the points' constrained values), so rounding differences in the
# Cholesky factor and its reverse pass are amplified to ~1e-8.  The log
# density itself still agrees to 1e-8.
gradient_tolerance <- c(gp = 1e-6)

# Programs where Stan 2.21's gradient is the less accurate one: the partials
# of gamma_lcdf and gamma_lccdf in the shape come from grad_reg_inc_gamma at
# its default precision of 1e-6, and differ from central differences by
# 2e-5 at the fixture's points, where tapestry's agree with them to 1e-10.
# There the gradient is checked against central differences, and against
# Stan's to 1e-4.
gradient_by_fd <- c("cens_gamma")

read_reference <- function(nm) {
  jsonlite::fromJSON(file.path(fixture_dir, paste0(nm, ".reference.json")),
                     simplifyVector = TRUE, simplifyDataFrame = FALSE, simplifyMatrix = TRUE)
}

for (nm in fixtures) {
  test_that(sprintf("brms fixture '%s' loads and agrees with rstan", nm), {
    ref <- read_reference(nm)
    # brms 2.18 writes Stan 2.21's array syntax, which tapestry reads with a
    # deprecation warning
    mod <- suppressWarnings(tapestry_model(file.path(fixture_dir, paste0(nm, ".stan"))))
    ctx <- mod$bind(file.path(fixture_dir, paste0(nm, ".data.json")))
    expect_equal(ctx$num_upars(), ref$num_upars)
    for (p in ref$points) {
      if (!isTRUE(ref$simplex)) {
        expect_equal(ctx$log_prob(p$upars), p$log_prob, tolerance = 1e-8)
        expect_equal(ctx$log_prob(p$upars, jacobian = FALSE), p$log_prob_nojac, tolerance = 1e-8)
        tol <- if (nm %in% names(gradient_tolerance)) gradient_tolerance[[nm]] else 1e-8
        g <- as.vector(ctx$grad_log_prob(p$upars))
        if (nm %in% gradient_by_fd || !all(is.finite(p$gradient))) {
          # (and wherever Stan 2.21's gradient is not finite: its
          # exp_mod_normal_lcdf partials overflow far in the tail)
          expect_equal(g, fd_grad(ctx, p$upars, h = 1e-5), tolerance = 1e-8)
          if (all(is.finite(p$gradient))) expect_equal(g, as.vector(p$gradient), tolerance = 1e-4)
        } else {
          expect_equal(g, as.vector(p$gradient), tolerance = tol)
        }
      } else {
        # a simplex parameter: Stan 2.21's stick-breaking and today's
        # transform give different unconstrained coordinates, so compare the
        # log density at the same constrained values, and the gradient with
        # finite differences
        u <- ctx$unconstrain_variables(p$constrained)
        expect_equal(ctx$log_prob(u, jacobian = FALSE), p$log_prob_nojac, tolerance = 1e-8)
        expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
      }
    }
  })
}
