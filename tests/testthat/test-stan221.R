# Every signature of rstan 2.21's Stan, evaluated by tapestry where Stan 2.21
# evaluated it, against Stan's own values and gradients (the fixtures that
# tools/stan221/run.R records with rstan): each call's value and its
# gradient by every real argument, at three points of its domain, to 1e-8
# relative.  Where Stan's own algorithm is iterative the tolerance is
# looser, and where Stan is the one that is wrong (shown against a
# high-precision reference, see tools/stan221/README.md) the reference's
# values stand in for Stan's; both lists are below, by function.

# relative tolerance by family (Stan's algorithm iterates or truncates a
# series; ours differs in where it stops)
stan221_tol <- c(
  # Eigen's symmetric eigensolver iterates (QR sweeps to a tolerance); at the
  # hard cases' gap of 1e-6 the eigenvectors are determined only to about
  # eps / gap = 1e-10, and the gradient of a weighted sum of eigenvalues
  # (sum w_i v_i v_i') to a few 1e-8
  eigenvalues_sym = 1e-7, eigenvectors_sym = 1e-7)

# |a - b| <= tol |b| + floor, the floor for values that cancel to nothing
stan221_close <- function(a, b, tol, floor = 1e-14) {
  both_na <- is.na(a) & is.na(b)
  same <- !is.na(a) & !is.na(b) & (a == b | abs(a - b) <= tol * abs(b) + floor)
  both_na | same
}

stan221_check <- function(fx) {
  m <- tapestry_model(code = fx$program)
  tol <- ifelse(fx$fam %in% names(stan221_tol), stan221_tol[fx$fam], 1e-8)
  bad <- character()
  ref <- fx$ref %||% list()
  for (p in 1:3) {
    ctx <- m$bind(list(NI = length(fx$ii[[p]]), ii = fx$ii[[p]]))
    th <- fx$th[[p]]
    if (!length(th)) th <- 0
    g <- ctx$grad_log_prob(th, jacobian = FALSE)
    r <- ctx$constrain_variables(th)$r
    want_r <- fx$r[[p]]
    want_g <- fx$grad[[p]]
    # reference values where Stan is shown wrong
    for (k in seq_along(ref)) if (!is.null(ref[[k]])) {
      want_r[ref[[k]]$call] <- ref[[k]]$r[p]
      sl <- fx$slices[ref[[k]]$call, ]
      want_g[sl[1]:sl[2]] <- ref[[k]]$grad[[p]]
    }
    okr <- stan221_close(r, want_r, tol)
    for (k in which(!okr))
      bad <- c(bad, sprintf("point %d, %s [%s]: value %.17g, Stan %.17g", p, fx$sig[k], fx$tag[k], r[k], want_r[k]))
    # a gradient that cancels to zero is compared at the scale of the call's
    # other partials (qr_Q of a square matrix does not depend on its last
    # column: Stan's 0 is ours of 1e-14)
    call <- findInterval(seq_along(g), fx$slices[, 1])
    scale <- vapply(seq_len(nrow(fx$slices)), function(k) {
      sl <- fx$slices[k, ]
      if (sl[2] < sl[1]) 1 else max(1, abs(want_g[sl[1]:sl[2]]), na.rm = TRUE)
    }, 0)
    okg <- stan221_close(as.numeric(g), want_g, rep(tol, nrow(fx$slices))[call],
                         floor = 1e-13 * scale[pmax(call, 1)])
    for (k in seq_len(nrow(fx$slices))) {
      sl <- fx$slices[k, ]
      if (sl[2] < sl[1]) next
      i <- sl[1]:sl[2]
      if (!all(okg[i]))
        bad <- c(bad, sprintf("point %d, %s [%s]: gradient %s, Stan %s", p, fx$sig[k], fx$tag[k],
                              paste(signif(g[i], 12), collapse = " "), paste(signif(want_g[i], 12), collapse = " ")))
    }
  }
  bad
}

# Runs `check` on every fixture whose name matches `pattern`, one
# expectation per fixture naming its first disagreements (`what`); returns
# how many signatures the fixtures hold.
stan221_each <- function(pattern, check, what) {
  files <- list.files(test_path("fixtures", "stan221"), pattern, full.names = TRUE)
  expect_gt(length(files), 0)
  n <- 0
  for (f in files) {
    fx <- readRDS(f)
    n <- n + length(fx$sig)
    bad <- tryCatch(check(fx), error = function(e) paste("error:", conditionMessage(e)))
    expect(length(bad) == 0,
           sprintf("%s: %d %s, the first:\n%s", basename(f), length(bad), what,
                   paste(utils::head(bad, 8), collapse = "\n")))
  }
  n
}

test_that("every signature of Stan 2.21 gives Stan's values and gradients", {
  n_calls <- stan221_each("^b[0-9].*\\.rds$", stan221_check, "disagreements with Stan 2.21")
  expect_gt(n_calls, 20000)
})

test_that("a GP through eigenvectors_sym and eigenvalues_sym has Stan's gradient (clustered spectra)", {
  fx <- readRDS(test_path("fixtures", "stan221", "prog_gp_eigen.rds"))
  m <- tapestry_model(code = fx$program)
  for (i in seq_along(fx$data)) {
    ctx <- m$bind(fx$data[[i]])
    for (pt in fx$results[[i]]) {
      g <- ctx$grad_log_prob(pt$u)
      expect_equal(attr(g, "log_prob"), pt$lp, tolerance = 1e-7,
                   label = sprintf("log density, n = %d at (%s)", fx$data[[i]]$n, toString(pt$u)))
      expect_equal(as.numeric(g), pt$grad, tolerance = 1e-7,
                   label = sprintf("gradient, n = %d at (%s)", fx$data[[i]]$n, toString(pt$u)))
    }
  }
})

# The _rng functions (tools/stan221/rng.R): Stan's draws and tapestry's come
# from different generators, so they are compared by distribution: at each
# of Stan's quantiles q (10%, 30%, ..., 90% of n draws at each of three
# points), tapestry's empirical cdf of as many draws (a fixed seed) is within
# 5 standard errors of Stan's, the standard error of the difference of two
# samples of n, plus a draw's worth for ties of discrete distributions.
# Where Stan's draws are wrong (beta_binomial_rng over an array of N with
# scalar alpha and beta shares one beta draw among the elements;
# tools/stan221/rng_refs.R) the exact cdf stands in for Stan's.
stan221_rng_check <- function(fx) {
  m <- tapestry_model(code = fx$program)
  bad <- character()
  for (p in 1:3) {
    data <- list(NI = length(fx$ii[[p]]), ii = fx$ii[[p]], NT = length(fx$th[[p]]), th = fx$th[[p]])
    fit <- m$sample(data = data, fixed_param = TRUE, chains = 1, iter_sampling = fx$n,
                    seed = 20261128 + p, show_messages = FALSE, refresh = 0)
    D <- posterior::as_draws_matrix(fit$draws("d"))
    q <- fx$q[[p]]
    Fs <- fx$F[[p]]
    Fref <- if (!is.null(fx$Fref)) fx$Fref[[p]] else NULL
    for (k in seq_along(fx$sig)) {
      Ft <- vapply(q[k, ], function(v) mean(D[, k] <= v), 0)
      pbar <- (Ft + Fs[k, ]) / 2
      lim <- 5 * sqrt(2 * pbar * (1 - pbar) / fx$n) + 2 / fx$n
      if (!is.null(Fref) && !anyNA(Fref[k, ])) {
        # Stan's draws are wrong here: the exact cdf (one sample against it)
        Fs[k, ] <- Fref[k, ]
        lim <- 5 * sqrt(Fref[k, ] * (1 - Fref[k, ]) / fx$n) + 1 / fx$n
      }
      if (anyNA(Ft) || any(abs(Ft - Fs[k, ]) > lim))
        bad <- c(bad, sprintf("point %d, %s: cdf at Stan's quantiles %s, Stan %s", p, fx$sig[k],
                              paste(format(Ft, digits = 3), collapse = " "),
                              paste(format(Fs[k, ], digits = 3), collapse = " ")))
    }
  }
  bad
}

test_that("every _rng of Stan 2.21 draws from Stan's distribution", {
  n_sigs <- stan221_each("^rng_.*\\.rds$", stan221_rng_check, "draws unlike Stan 2.21's")
  expect_gt(n_sigs, 1600)
})

test_that("hypergeometric_rng draws where Stan 2.21 cannot (N = 5 of 3 successes and 4 failures)", {
  # Stan 2.21 asks boost for the cdf below the support's least value
  # (max(0, N - b) = 1 here) and throws (tools/stan221/refused-rng.tsv);
  # the exact distribution is R's dhyper
  m <- tapestry_model(code = "generated quantities { int y = hypergeometric_rng(5, 3, 4); }")
  fit <- m$sample(fixed_param = TRUE, chains = 1, iter_sampling = 4000, seed = 3, show_messages = FALSE, refresh = 0)
  y <- as.vector(posterior::as_draws_matrix(fit$draws("y")))
  p <- stats::dhyper(1:3, 3, 4, 5)
  expect_setequal(unique(y), 1:3)
  expect_true(all(abs(tabulate(y, 3)[1:3] / 4000 - p) <= 5 * sqrt(p * (1 - p) / 4000)))
})
