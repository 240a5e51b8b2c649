# Helpers shared by the math tests: evaluate a library function from R and
# compare its autodiff Jacobian with central finite differences.

# Rebuild a value of the same nesting as `template` from a flat vector.
rebuild <- function(template, flat) {
  pos <- 0L
  walk <- function(t) {
    if (is.list(t)) return(lapply(t, walk))
    n <- length(t)
    v <- flat[pos + seq_len(n)]
    pos <<- pos + n
    attributes(v) <- attributes(t)
    storage.mode(v) <- "double"
    v
  }
  walk(template)
}

# Value of fn with argument i replaced by the flat values x.
# The autodiff mask is kept so that propto drops the same terms as in the
# call being checked (on doubles alone every term would be constant).
value_at <- function(fn, args, types, i, x, propto = FALSE, ad = rep(FALSE, length(args))) {
  args[[i]] <- rebuild(args[[i]], x)
  unlist(tp_call(fn, args, types, ad, propto)$value)
}

# Richardson's extrapolation of central differences at steps h, h/2, h/4:
# error O(h^6), so the first step can be large enough that rounding stays
# far below the tests' tolerances (1e-3 of the coordinate's size unless h
# is given: one step, or one per coordinate).  f maps a numeric vector to a
# numeric vector; the result has one row per output.  Every finite
# difference of the suite goes through here (fd_grad for log densities).
# extrapolate = FALSE gives plain central differences at h, for functions
# smooth only piecewise (an adaptive ODE solver changes its steps with the
# parameters, and extrapolation amplifies those jumps).
fd_jac <- function(f, x0, h = NULL, extrapolate = TRUE) {
  f0 <- f(x0)
  J <- matrix(0, length(f0), length(x0))
  h <- if (is.null(h)) 1e-3 * pmax(abs(x0), 1e-2) else rep_len(h, length(x0))
  for (j in seq_along(x0)) {
    d <- function(h) {
      xp <- x0; xp[j] <- xp[j] + h
      xm <- x0; xm[j] <- xm[j] - h
      (f(xp) - f(xm)) / (2 * h)
    }
    d1 <- d(h[j])
    if (!extrapolate) {
      J[, j] <- d1
      next
    }
    d2 <- d(h[j] / 2); d4 <- d(h[j] / 4)
    r1 <- (4 * d2 - d1) / 3
    r2 <- (4 * d4 - d2) / 3
    J[, j] <- (16 * r2 - r1) / 15
  }
  J
}

# Finite-difference Jacobian of a library function in its argument i; h,
# when given, is a step relative to each element (near a boundary of the
# domain the default's floor of 1e-5 would step outside it).
fd_jacobian <- function(fn, args, types, i, propto = FALSE, ad = rep(FALSE, length(args)), h = NULL) {
  x0 <- as.numeric(unlist(args[[i]]))
  fd_jac(function(x) value_at(fn, args, types, i, x, propto, ad), x0,
         if (is.null(h)) NULL else h * ifelse(x0 == 0, 1, abs(x0)))
}

# Expect the autodiff Jacobian of every argument marked in `ad` to match
# finite differences to relative tolerance `tol` (floored at 1e-3 absolute
# scale so that zero derivatives compare sensibly), and the value computed
# with autodiff to equal the value computed on doubles.
expect_gradient_fd <- function(fn, args, types, ad = !grepl("int", types),
                               propto = FALSE, tol = 1e-6, h = NULL) {
  r <- tp_call(fn, args, types, ad, propto)
  if (!propto) {
    r0 <- tp_call(fn, args, types, rep(FALSE, length(args)), propto)
    expect_equal(unlist(r$value), unlist(r0$value), tolerance = 1e-14,
                 label = paste(fn, "value with autodiff"))
  }
  for (i in which(ad)) {
    J <- r$jacobian[[i]]
    fd <- fd_jacobian(fn, args, types, i, propto, ad, h)
    expect_true(!is.null(J), label = paste(fn, "has a Jacobian for argument", i))
    err <- abs(J - fd) / pmax(abs(fd), 1e-3)
    expect_true(all(err < tol),
                label = sprintf("%s: argument %d gradient %s vs finite differences %s (max rel err %.3g)",
                                fn, i, paste(signif(J, 10), collapse = " "),
                                paste(signif(fd, 10), collapse = " "), max(err)))
  }
  invisible(r)
}

# Value on doubles only.
tval <- function(fn, args, types, propto = FALSE) {
  tp_call(fn, args, types, rep(FALSE, length(args)), propto)$value
}
