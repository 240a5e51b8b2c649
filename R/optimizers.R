# Stan's optimizers, written in R over a context's gradient (each gradient
# is one .Call into the C core): the objective, the Wolfe line search,
# L-BFGS and BFGS (opt_bfgs()), and Newton's method with a finite-difference
# Hessian (opt_newton()).  $optimize() (R/verb-optimize.R), $laplace() and
# $pathfinder() run them.

# ---------------------------------------------------------------------------
# The objective: Stan minimizes f(x) = -log p(x); a failed evaluation (a
# rejection, a domain error, a non-finite value or gradient) is a failure
# the line search steps back from, as Stan's ModelAdaptor reports it.

opt_objective <- function(context, jacobian) {
  grad <- context$grad_log_prob
  counter <- new.env(parent = emptyenv())
  counter$n <- 0L
  fn <- function(x) {
    counter$n <- counter$n + 1L
    g <- tryCatch(grad(x, jacobian), error = function(e) NULL)
    if (is.null(g)) return(NULL)
    lp <- attr(g, "log_prob")
    if (!is.finite(lp) || !all(is.finite(g))) return(NULL)
    attributes(g) <- NULL
    list(f = -lp, g = -g)
  }
  list(fn = fn, counter = counter)
}

# The log density at many points, -Inf where it fails: through the
# gradient, whose recorded plan makes it several times faster than
# $log_prob() (which walks the program's tree).
opt_lp_fn <- function(context, jacobian) {
  grad <- context$grad_log_prob
  function(u) {
    lp <- tryCatch(attr(grad(u, jacobian), "log_prob"), error = function(e) -Inf)
    if (is.null(lp) || is.na(lp)) -Inf else lp
  }
}

# Stan's CubicInterp: the minimum on [lo, hi] of the cubic through
# (0, 0) with slope df0 and (x1, f1) with slope df1.
opt_cubic_interp <- function(df0, x1, f1, df1, lo, hi) {
  c3 <- (-12 * f1 + 6 * x1 * (df0 + df1)) / (x1 * x1 * x1)
  c2 <- -(4 * df0 + 2 * df1) / x1 + 6 * f1 / (x1 * x1)
  c1 <- df0
  ts <- suppressWarnings(sqrt(c2 * c2 - 2 * c1 * c3))
  s1 <- -(c2 + ts) / c3
  s2 <- -(c2 - ts) / c3
  val <- function(x) x * (x * (x * c3 / 3 + c2) / 2 + c1)
  minf <- val(lo)
  minx <- lo
  t <- val(hi)
  if (isTRUE(t < minf)) { minf <- t; minx <- hi }
  if (isTRUE(lo < s1 && s1 < hi)) { t <- val(s1); if (isTRUE(t < minf)) { minf <- t; minx <- s1 } }
  if (isTRUE(lo < s2 && s2 < hi)) { t <- val(s2); if (isTRUE(t < minf)) { minf <- t; minx <- s2 } }
  minx
}

# Stan's WolfLSZoom. Returns list(ok, alpha, x, f, g).
opt_zoom <- function(fn, x, f, dfp, c1dfp, c2dfp, p, alo, aloF, aloDFp, ahi, ahiF, ahiDFp,
                     min_range = 1e-16) {
  it <- 0L
  repeat {
    it <- it + 1L
    if (abs(alo - ahi) < min_range || alo == ahi) return(list(ok = FALSE))
    if (it %% 5L == 0L) {
      alpha <- 0.5 * (alo + ahi)
    } else {
      d1 <- aloDFp + ahiDFp - 3 * (aloF - ahiF) / (alo - ahi)
      d2 <- suppressWarnings(sqrt(d1 * d1 - aloDFp * ahiDFp))
      if (ahi < alo) d2 <- -d2
      alpha <- ahi - (ahi - alo) * (ahiDFp + d2 - d1) / (ahiDFp - aloDFp + 2 * d2)
      if (!is.finite(alpha) || alpha < min(alo, ahi) + 0.01 * abs(alo - ahi) ||
          alpha > max(alo, ahi) - 0.01 * abs(alo - ahi)) {
        alpha <- 0.5 * (alo + ahi)
      }
    }
    r <- fn(x + alpha * p)
    while (is.null(r)) {
      prev <- alpha
      alpha <- 0.5 * (alpha + min(alo, ahi))
      if (abs(min(alo, ahi) - alpha) < min_range || alpha == prev) return(list(ok = FALSE))
      r <- fn(x + alpha * p)
    }
    newDFp <- sum(r$g * p)
    if (r$f > f + alpha * c1dfp || r$f >= aloF) {
      ahi <- alpha; ahiF <- r$f; ahiDFp <- newDFp
    } else {
      if (abs(newDFp) <= -c2dfp) {
        return(list(ok = TRUE, alpha = alpha, x = x + alpha * p, f = r$f, g = r$g))
      }
      if (newDFp * (ahi - alo) >= 0) {
        ahi <- alo; ahiF <- aloF; ahiDFp <- aloDFp
      }
      alo <- alpha; aloF <- r$f; aloDFp <- newDFp
    }
  }
}

# Stan's WolfeLineSearch (strong Wolfe conditions, c1 = 1e-4, c2 = 0.9; at most
# 20 expansions and 10 step-backs from failed evaluations, as its LSOptions).
opt_wolfe <- function(fn, alpha, p, x0, f0, g0, c1 = 1e-4, c2 = 0.9, min_alpha = 1e-12,
                      max_its = 20L, max_restarts = 10L) {
  dfp <- sum(g0 * p)
  c1dfp <- c1 * dfp
  c2dfp <- c2 * dfp
  alpha0 <- min_alpha
  alpha1 <- alpha
  prevF <- f0
  prevDFp <- dfp
  nits <- 0L
  restarts <- 0L
  repeat {
    if (nits >= max_its) return(list(ok = FALSE))
    r <- fn(x0 + alpha1 * p)
    if (is.null(r)) {
      if (restarts >= max_restarts) return(list(ok = FALSE))
      alpha1 <- 0.5 * (alpha0 + alpha1)
      restarts <- restarts + 1L
      if (alpha1 - alpha0 < 1e-300) return(list(ok = FALSE))
      next
    }
    restarts <- 0L
    newDFp <- sum(r$g * p)
    if (r$f > f0 + alpha * c1dfp || (r$f >= prevF && nits > 0L)) {
      return(opt_zoom(fn, x0, f0, dfp, c1dfp, c2dfp, p, alpha0, prevF, prevDFp,
                      alpha1, r$f, newDFp))
    }
    if (abs(newDFp) <= -c2dfp) {
      return(list(ok = TRUE, alpha = alpha1, x = x0 + alpha1 * p, f = r$f, g = r$g))
    }
    if (newDFp >= 0) {
      return(opt_zoom(fn, x0, f0, dfp, c1dfp, c2dfp, p, alpha1, r$f, newDFp,
                      alpha0, prevF, prevDFp))
    }
    alpha0 <- alpha1
    prevF <- r$f
    prevDFp <- newDFp
    alpha1 <- alpha1 * 10
    nits <- nits + 1L
  }
}

# Stan's termination messages (BFGSMinimizer::get_code_string).
opt_code_string <- function(code) {
  switch(as.character(code),
    "0" = "Successful step completed",
    "10" = "Convergence detected: absolute change in objective function was below tolerance",
    "20" = "Convergence detected: relative change in objective function was below tolerance",
    "30" = "Convergence detected: gradient norm is below tolerance",
    "40" = "Convergence detected: relative gradient magnitude is below tolerance",
    "50" = "Convergence detected: absolute parameter change was below tolerance",
    "60" = "Maximum number of iterations hit, may not be at an optima",
    "-1" = "Line search failed to achieve a sufficient decrease, no more progress can be made",
    "Unknown termination code")
}

# The quasi-Newton state: L-BFGS keeps the last `history` (s, y) pairs;
# BFGS keeps a dense inverse Hessian approximation.
qn_new <- function(lbfgs, history) {
  st <- new.env(parent = emptyenv())
  st$lbfgs <- lbfgs
  st$history <- history
  st$s <- list(); st$y <- list(); st$rho <- numeric()
  st$gamma <- 1
  st$H <- NULL
  st
}

qn_update <- function(st, y, s, reset) {
  sy <- sum(y * s)
  yy <- sum(y * y)
  b0 <- if (reset) yy / sy else 1
  if (st$lbfgs) {
    if (reset) { st$s <- list(); st$y <- list(); st$rho <- numeric() }
    st$s <- c(st$s, list(s)); st$y <- c(st$y, list(y)); st$rho <- c(st$rho, 1 / sy)
    k <- length(st$s)
    if (k > st$history) {
      drop <- seq_len(k - st$history)
      st$s <- st$s[-drop]; st$y <- st$y[-drop]; st$rho <- st$rho[-drop]
    }
    st$gamma <- sy / yy
  } else {
    # Stan's BFGSUpdate: the inverse Hessian, rescaled at a reset
    n <- length(s)
    if (reset) st$H <- diag(sy / yy, n)
    rho <- 1 / sy
    Hy <- drop(st$H %*% y)
    st$H <- st$H + outer(s, s) * (rho * rho * sum(y * Hy) + rho) -
      rho * (outer(Hy, s) + outer(s, Hy))
  }
  b0
}

qn_direction <- function(st, g) {
  if (!st$lbfgs) return(-drop(st$H %*% g))
  p <- -g
  k <- length(st$s)
  a <- numeric(k)
  for (i in rev(seq_len(k))) {
    a[i] <- st$rho[i] * sum(st$s[[i]] * p)
    p <- p - a[i] * st$y[[i]]
  }
  p <- p * st$gamma
  for (i in seq_len(k)) {
    b <- st$rho[i] * sum(st$y[[i]] * p)
    p <- p + (a[i] - b) * st$s[[i]]
  }
  p
}

# Stan's BFGSMinimizer (L-BFGS or BFGS update) from x0. `trace` receives
# (iteration, x, f, g) after every accepted step (pathfinder keeps the path).
# Returns list(x, f, g, iterations, code, message, evals).
opt_bfgs <- function(fn, x0, lbfgs = TRUE, history = 5L, init_alpha = 1e-3,
                     tol_obj = 1e-12, tol_rel_obj = 1e4, tol_grad = 1e-8,
                     tol_rel_grad = 1e7, tol_param = 1e-8, iter = 2000L,
                     trace = NULL, log = NULL, refresh = 0L) {
  eps <- .Machine$double.eps
  r <- fn(x0)
  if (is.null(r)) return(list(x = x0, f = NA_real_, g = NULL, iterations = 0L, code = -2L,
                              message = "Error evaluating the initial point"))
  xk <- x0; fk <- r$f; gk <- r$g
  pk <- -gk
  qn <- qn_new(lbfgs, history)
  if (!is.null(trace)) trace(0L, xk, fk, gk)
  it <- 0L
  gk1 <- pk1 <- NULL; fk1 <- NA_real_; alphak1 <- NA_real_
  repeat {
    it <- it + 1L
    reset <- if (it == 1L) 1L else 0L
    repeat {
      if (reset) pk <- -gk
      alpha <- if (it > 1L && reset != 2L) {
        min(1, 1.01 * opt_cubic_interp(sum(gk1 * pk1), alphak1, fk - fk1, sum(gk * pk1),
                                       1e-12, 1))
      } else {
        init_alpha
      }
      if (is.nan(alpha)) alpha <- 1  # std::min(1.0, NaN) is 1.0 in Stan
      ls <- opt_wolfe(fn, alpha, pk, xk, fk, gk)
      if (!ls$ok) {
        if (reset) {
          return(list(x = xk, f = fk, g = gk, iterations = it, code = -1L,
                      message = opt_code_string(-1L)))
        }
        reset <- 2L
        next
      }
      break
    }
    alpha <- ls$alpha
    sk <- ls$x - xk
    yk <- ls$g - gk
    fk1 <- fk; gk1 <- gk; pk1 <- pk
    xk <- ls$x; fk <- ls$f; gk <- ls$g
    gnorm <- sqrt(sum(gk * gk))
    snorm <- sqrt(sum(sk * sk))
    if (reset) {
      b0 <- qn_update(qn, yk, sk, TRUE)
      pk1 <- pk1 / b0
      alphak1 <- alpha * b0
    } else {
      qn_update(qn, yk, sk, FALSE)
      alphak1 <- alpha
    }
    pk <- qn_direction(qn, gk)
    if (!is.null(trace)) trace(it, xk, fk, gk)
    if (!is.null(log) && refresh > 0L && (it %% refresh == 0L || it == 1L)) {
      log(sprintf("%7d %14.6g %12.6g %12.6g %10.4g %10.4g", it, -fk, snorm, gnorm, alpha,
                  alpha))
    }
    code <- if (abs(fk1 - fk) < tol_obj) {
      10L
    } else if (gnorm < tol_grad) {
      30L
    } else if (snorm < tol_param) {
      50L
    } else if (it >= iter) {
      60L
    } else if (abs(fk1 - fk) / max(abs(fk1), abs(fk), 1) < tol_rel_obj * eps) {
      20L
    } else if (-sum(pk * gk) / max(abs(fk), 1) < tol_rel_grad * eps) {
      40L
    } else {
      0L
    }
    if (code != 0L) {
      return(list(x = xk, f = fk, g = gk, iterations = it, code = code,
                  message = opt_code_string(code)))
    }
  }
}

# The Hessian of the log density (the negative of fn's) at x by central
# finite differences of gradients, Stan's six-point stencil
# (stan::model::grad_hess_log_prob), symmetrized.
opt_fd_hessian <- function(grad, x) {
  n <- length(x)
  H <- matrix(0, n, n)
  h <- 1e-3
  off <- c(-3, -2, -1, 1, 2, 3)
  w <- c(-1 / 60, 3 / 20, -3 / 4, 3 / 4, -3 / 20, 1 / 60)
  for (i in seq_len(n)) {
    hi <- h * max(1, abs(x[i]))
    col <- numeric(n)
    for (k in seq_along(off)) {
      xx <- x
      xx[i] <- xx[i] + off[k] * hi
      col <- col + w[k] * grad(xx)
    }
    H[, i] <- col / hi
  }
  (H + t(H)) / 2
}

# Stan's Newton optimizer (stan::optimization::newton_step, do_newton): the
# finite-difference Hessian made negative definite by flipping the signs
# of its positive eigenvalues, a step halved until the density increases.
opt_newton <- function(fn, x0, iter) {
  r <- fn(x0)
  if (is.null(r)) return(list(x = x0, f = NA_real_, iterations = 0L, code = -2L,
                              message = "Error evaluating the initial point"))
  x <- x0
  lp <- -r$f
  grad <- function(u) { rr <- fn(u); if (is.null(rr)) rep(NA_real_, length(u)) else -rr$g }
  last <- -Inf
  it <- 0L
  while (lp - last > 1e-8 && it < iter) {
    last <- lp
    g <- grad(x)
    H <- opt_fd_hessian(grad, x)
    if (anyNA(H)) break
    e <- eigen(H, symmetric = TRUE)
    d <- -drop(e$vectors %*% (crossprod(e$vectors, g) / abs(e$values)))
    step <- 2
    f1 <- -Inf
    xn <- x
    while (f1 < lp) {
      step <- step * 0.5
      if (step < 1e-50) { xn <- x; f1 <- lp; break }
      xn <- x - step * d
      rr <- fn(xn)
      f1 <- if (is.null(rr)) -1e100 else -rr$f
    }
    x <- xn
    lp <- f1
    it <- it + 1L
  }
  list(x = x, f = -lp, iterations = it, code = 0L,
       message = if (it >= iter) opt_code_string(60L) else "Convergence detected")
}
