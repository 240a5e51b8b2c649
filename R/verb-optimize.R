# $optimize(): Stan's L-BFGS, BFGS and Newton optimizers, written in R over
# the context's gradient (each gradient is one .Call into the C core), and
# the fit they return (TapestryOptimizeFit, the shape of cmdstanr's
# CmdStanMLE). Also the pieces shared with $laplace() and $pathfinder():
# the objective, the starting point, the draws of a point.

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

# ---------------------------------------------------------------------------
# Starting points: the user's init (every form $sample() takes, and fits
# of $optimize(), $laplace(), $pathfinder() and $sample()) with the rest
# drawn uniformly in (-radius, radius); like Stan, up to 100 tries for a
# point where the density and its gradient are finite.

opt_start <- function(context, init, seed, jacobian, what = "optimization") {
  n <- context$num_upars()
  s <- process_init(init, 1L, 1L, context)[[1L]]
  fn <- opt_objective(context, jacobian)$fn
  with_local_seed(seed, {
    for (k in seq_len(100L)) {
      u <- s$values
      free <- !s$given
      if (any(free)) u[free] <- if (s$radius > 0) stats::runif(sum(free), -s$radius, s$radius) else 0
      if (!is.null(fn(u))) return(u)
      if (!any(free) || s$radius == 0) break
    }
    tapestry_raise(sprintf(paste0("Initialization of %s failed: the log density or its ",
                                  "gradient is not finite at the initial values."), what),
                   "tapestry_error")
  })
}

# Runs code with R's generator seeded, leaving the caller's stream as it was.
with_local_seed <- function(seed, code) {
  env <- globalenv()
  old <- if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = env) else assign(".Random.seed", old, envir = env))
  set.seed(seed)
  code
}

# A seed for a run: the user's, or one drawn from R's generator.
opt_seed <- function(seed) {
  if (is.null(seed)) return(sample.int(.Machine$integer.max, 1L))
  check_seed(seed)
  as.integer(seed %% .Machine$integer.max)
}

# Rows of constrained values (parameters, transformed parameters, generated
# quantities) for the unconstrained points in the rows of U.
opt_outputs <- function(context, U, seed) {
  nm <- context$variable_names()
  out <- matrix(NA_real_, nrow(U), length(nm), dimnames = list(NULL, nm))
  for (i in seq_len(nrow(U))) {
    v <- tryCatch(unlist(context$constrain_variables(U[i, ], seed = seed), use.names = FALSE),
                  error = function(e) NULL)
    if (length(v) == length(nm)) out[i, ] <- v
  }
  out
}

# Arguments of cmdstanr that have no meaning here: a clear message, not
# "unused argument".
opt_no_args <- function(method, ...) {
  dots <- list(...)
  if (length(dots) == 0L) return(invisible())
  nm <- names(dots)
  if (is.null(nm) || any(!nzchar(nm))) {
    abort_arg(sprintf("`$%s()` takes named arguments only.", method))
  }
  known <- c("output_dir", "output_basename", "sig_figs", "save_cmdstan_config",
             "opencl_ids", "save_latent_dynamics", "save_single_paths", "threads",
             "show_exceptions")
  unknown <- setdiff(nm, known)
  if (length(unknown)) {
    abort_arg(sprintf("`$%s()` has no argument `%s`.", method, unknown[1L]))
  }
  for (a in nm) {
    if (is.null(dots[[a]])) next
    if (a %in% c("output_dir", "output_basename")) {
      message(sprintf(paste0("`%s` is ignored: tapestry writes no CSV files while it runs ",
                             "(the fit keeps the results in memory)."), a))
    } else if (a == "sig_figs") {
      message("`sig_figs` is ignored: the fit keeps full double precision.")
    } else if (a == "threads") {
      message("`threads` is ignored: use `num_threads` or tapestry_set_num_threads().")
    } else {
      message(sprintf("`%s` is ignored: it has no meaning without CmdStan.", a))
    }
  }
  invisible()
}

opt_number <- function(x, arg, default, lower = 0, strict = TRUE) {
  if (is.null(x)) return(default)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) ||
      (if (strict) x <= lower else x < lower)) {
    abort_arg(sprintf("`%s` must be a finite number %s %s, not %s.", arg,
                      if (strict) ">" else ">=", format(lower), show_value(x)))
  }
  as.double(x)
}

#' Optimization: the model's `$optimize()` method
#'
#' @description
#' `model$optimize()` finds a mode of the posterior (a penalized maximum
#' likelihood estimate) with Stan's optimizers, as 'cmdstanr''s
#' `$optimize()` does: L-BFGS (the default) or BFGS with Stan's Wolfe line
#' search and convergence tests, or Newton's method with a Hessian from
#' finite differences of gradients. The optimizer runs in R over the
#' model's gradient (computed by the C core); the shared example models
#' take from a few milliseconds to a tenth of a second.
#'
#' With `jacobian = FALSE` (the default) the log density is optimized
#' without the Jacobian of the constraining transforms: the mode of the
#' posterior density of the constrained parameters (Stan's MLE). With
#' `jacobian = TRUE` the Jacobian is included: the mode of the density of
#' the unconstrained parameters (the MAP that `$laplace()` uses).
#'
#' @section Usage:
#' ```
#' model$optimize(data = NULL, seed = NULL, refresh = NULL, init = NULL,
#'   algorithm = NULL, jacobian = FALSE, init_alpha = NULL, iter = NULL,
#'   tol_obj = NULL, tol_rel_obj = NULL, tol_grad = NULL,
#'   tol_rel_grad = NULL, tol_param = NULL, history_size = NULL,
#'   show_messages = TRUE, threads = NULL, ...)
#' ```
#'
#' @section Arguments:
#' \describe{
#'   \item{`data`}{A named list or the path of a CmdStan JSON data file.}
#'   \item{`seed`}{Seed of the random initial values and of the generated
#'     quantities; `NULL` draws one from R's generator.}
#'   \item{`refresh`}{Log every `refresh` iterations in `$output()`
#'     (default 100; 0 logs none).}
#'   \item{`init`}{Initial values, in any form `$sample()` takes (default:
#'     uniform(-2, 2) on the unconstrained scale; up to 100 tries for a
#'     point where the density is finite), or a fit of `$optimize()`,
#'     `$laplace()` or `$pathfinder()`.}
#'   \item{`algorithm`}{`"lbfgs"` (default), `"bfgs"` or `"newton"`.}
#'   \item{`jacobian`}{Include the Jacobian adjustment (default `FALSE`).}
#'   \item{`init_alpha`}{First step size of the line search (default
#'     0.001).}
#'   \item{`iter`}{Maximum number of iterations (default 2000).}
#'   \item{`tol_obj`, `tol_rel_obj`, `tol_grad`, `tol_rel_grad`,
#'     `tol_param`}{Stan's convergence tolerances (defaults 1e-12, 1e4,
#'     1e-8, 1e7, 1e-8): absolute and relative change of the objective,
#'     gradient norm and relative gradient (the relative ones in units of
#'     the machine epsilon), parameter change. Not for `"newton"`, which
#'     stops when the log density improves by less than 1e-8.}
#'   \item{`history_size`}{Number of updates L-BFGS keeps (default 5).}
#'   \item{`show_messages`}{Show the closing message (default `TRUE`).}
#'   \item{`threads`, `...`}{'cmdstanr' arguments that have no meaning
#'     here (`threads`, `output_dir`, `output_basename`, `sig_figs`,
#'     `save_cmdstan_config`, `opencl_ids`, `show_exceptions`): a message
#'     says they are ignored. Any other name is an error.}
#' }
#'
#' @return A [TapestryOptimizeFit]. When the line search fails (no
#'   progress is possible, as for an unbounded density) it warns, and the
#'   fit's `$return_codes()` is 1.
#'
#' @examples
#' file <- system.file("extdata", "eight_schools.stan", package = "tapestry")
#' data <- system.file("extdata", "eight_schools.data.json", package = "tapestry")
#' mod <- tapestry_model(file)
#' fit <- mod$optimize(data = data, jacobian = TRUE, seed = 1)
#' fit$mle()
#' fit$lp()
#' @name model-method-optimize
#' @md
NULL

# ---------------------------------------------------------------------------
# $optimize()

optimize_model <- function(model, data = NULL, seed = NULL, refresh = NULL, init = NULL,
                           algorithm = NULL, jacobian = FALSE, init_alpha = NULL,
                           iter = NULL, tol_obj = NULL, tol_rel_obj = NULL, tol_grad = NULL,
                           tol_rel_grad = NULL, tol_param = NULL, history_size = NULL,
                           show_messages = TRUE, threads = NULL, ...) {
  opt_no_args("optimize", threads = threads, ...)
  algorithm <- if (is.null(algorithm)) "lbfgs" else algorithm
  if (!is.character(algorithm) || length(algorithm) != 1L ||
      !(tolower(algorithm) %in% c("lbfgs", "bfgs", "newton"))) {
    abort_arg(sprintf("`algorithm` must be \"lbfgs\", \"bfgs\" or \"newton\", not %s.",
                      show_value(algorithm)))
  }
  algorithm <- tolower(algorithm)
  check_flag(jacobian, "jacobian")
  check_flag(show_messages, "show_messages")
  a <- list(
    init_alpha = opt_number(init_alpha, "init_alpha", 1e-3),
    tol_obj = opt_number(tol_obj, "tol_obj", 1e-12, strict = FALSE),
    tol_rel_obj = opt_number(tol_rel_obj, "tol_rel_obj", 1e4, strict = FALSE),
    tol_grad = opt_number(tol_grad, "tol_grad", 1e-8, strict = FALSE),
    tol_rel_grad = opt_number(tol_rel_grad, "tol_rel_grad", 1e7, strict = FALSE),
    tol_param = opt_number(tol_param, "tol_param", 1e-8, strict = FALSE),
    history_size = arg_count(history_size, "history_size", 1L, 5L),
    iter = arg_count(iter, "iter", 1L, 2000L),
    refresh = if (is.null(refresh)) 100L else arg_count(refresh, "refresh", 0L, 100L))
  if (algorithm == "newton") {
    bad <- c("init_alpha", "tol_obj", "tol_rel_obj", "tol_grad", "tol_rel_grad", "tol_param",
             "history_size")[c(!is.null(init_alpha), !is.null(tol_obj), !is.null(tol_rel_obj),
                               !is.null(tol_grad), !is.null(tol_rel_grad), !is.null(tol_param),
                               !is.null(history_size))]
    if (length(bad)) {
      abort_arg(sprintf("`%s` applies to algorithm \"lbfgs\" or \"bfgs\", not \"newton\".",
                        bad[1L]))
    }
  }
  if (algorithm == "bfgs" && !is.null(history_size)) {
    abort_arg("`history_size` applies to algorithm \"lbfgs\", not \"bfgs\".")
  }
  seed <- opt_seed(seed)
  context <- model$bind(data, seed)
  start <- Sys.time()
  u0 <- opt_start(context, init, seed, jacobian)
  obj <- opt_objective(context, jacobian)
  lines <- character()
  log <- function(s) lines <<- c(lines, s)
  res <- if (algorithm == "newton") {
    opt_newton(obj$fn, u0, a$iter)
  } else {
    opt_bfgs(obj$fn, u0, lbfgs = algorithm == "lbfgs", history = a$history_size,
             init_alpha = a$init_alpha, tol_obj = a$tol_obj, tol_rel_obj = a$tol_rel_obj,
             tol_grad = a$tol_grad, tol_rel_grad = a$tol_rel_grad, tol_param = a$tol_param,
             iter = a$iter, log = log, refresh = a$refresh)
  }
  elapsed <- as.double(difftime(Sys.time(), start, units = "secs"))
  ok <- res$code >= 0L
  lines <- c(sprintf("Optimization (%s), jacobian = %s", algorithm, jacobian), lines,
             if (ok) paste0("Optimization terminated normally: ", res$message)
             else paste0("Optimization terminated with error: ", res$message))
  if (show_messages) {
    if (ok) message(lines[length(lines)], sprintf(" (%d iterations, %.3f seconds)",
                                                    res$iterations, elapsed))
  }
  if (!ok) {
    warning(warningCondition(paste0("Optimization failed: ", res$message),
                             class = "tapestry_warning"))
  }
  a$algorithm <- algorithm
  a$jacobian <- jacobian
  a$seed <- seed
  a$init <- init
  a$data <- data
  TapestryOptimizeFit$new(model, context, res$x, -res$f, u0,
                          code = if (ok) 0L else 1L, message = res$message,
                          iterations = res$iterations, evals = obj$counter$n, time = elapsed,
                          args = a, output = lines)
}

TapestryModel$set("public", "optimize", function(data = NULL, seed = NULL, refresh = NULL,
                                                  init = NULL, algorithm = NULL,
                                                  jacobian = FALSE, init_alpha = NULL,
                                                  iter = NULL, tol_obj = NULL,
                                                  tol_rel_obj = NULL, tol_grad = NULL,
                                                  tol_rel_grad = NULL, tol_param = NULL,
                                                  history_size = NULL, show_messages = TRUE,
                                                  threads = NULL, ...) {
  optimize_model(self, data = data, seed = seed, refresh = refresh, init = init,
                 algorithm = algorithm, jacobian = jacobian, init_alpha = init_alpha,
                 iter = iter, tol_obj = tol_obj, tol_rel_obj = tol_rel_obj,
                 tol_grad = tol_grad, tol_rel_grad = tol_rel_grad, tol_param = tol_param,
                 history_size = history_size, show_messages = show_messages,
                 threads = threads, ...)
})

# ---------------------------------------------------------------------------
# The fits of the methods other than $sample(): one class for the shared
# methods (draws as a posterior draws_matrix, summary, print, metadata, the
# model's functions at the data), one subclass per method.

TapestryPointFit <- R6::R6Class("TapestryPointFit",
  cloneable = FALSE,
  public = list(
    initialize = function(model, context, draws, upars, args, output = character(),
                          time = NA_real_, return_code = 0L) {
      private$model_ <- model
      private$context_ <- context
      private$draws_ <- draws
      private$upars_ <- upars
      private$args_ <- args
      private$output_ <- output
      private$time_ <- time
      private$return_code_ <- as.integer(return_code)
    },
    draws = function(variables = NULL, format = "draws_matrix") {
      d <- private$draws_
      if (!is.null(variables)) d <- d[, private$select(variables), drop = FALSE]
      d <- posterior::as_draws_matrix(d)
      fmt <- match.arg(format, c("draws_matrix", "matrix", "draws_array", "array",
                                 "draws_df", "df", "data.frame", "draws_list", "list",
                                 "draws_rvars", "rvars"))
      switch(sub("^draws_", "", fmt),
             matrix = d,
             array = posterior::as_draws_array(d),
             df = , data.frame = posterior::as_draws_df(d),
             list = posterior::as_draws_list(d),
             rvars = posterior::as_draws_rvars(d))
    },
    summary = function(variables = NULL, ...) {
      posterior::summarise_draws(self$draws(variables), ...)
    },
    print = function(variables = NULL, ..., digits = 2, max_rows = 10) {
      s <- as.data.frame(self$summary(variables, ...))
      shown <- s[seq_len(min(max_rows, nrow(s))), , drop = FALSE]
      for (j in seq_along(shown)[-1]) {
        x <- as.double(shown[[j]])
        shown[[j]] <- if (startsWith(names(shown)[j], "ess_")) format(round(x))
                      else format(round(x, digits), nsmall = digits)
      }
      base::print(shown, row.names = FALSE)
      if (nrow(s) > nrow(shown)) {
        cat("\n # showing", nrow(shown), "of", nrow(s), "rows (change via 'max_rows' argument)\n")
      }
      invisible(self)
    },
    lp = function() {
      unname(private$draws_[, "lp__"])
    },
    metadata = function() {
      c(private$args_, list(model_name = private$model_$model_name(),
                            variables = colnames(private$draws_),
                            stan_variables = unique(sub("\\[.*$", "",
                                                        colnames(private$draws_)))))
    },
    output = function() {
      cat(private$output_, sep = "\n")
      invisible(private$output_)
    },
    return_codes = function() private$return_code_,
    time = function() list(total = private$time_),
    code = function() strsplit(private$model_$code(), "\n", fixed = TRUE)[[1L]],
    num_chains = function() 1L,
    unconstrained_draws = function() private$upars_,
    log_prob = function(unconstrained_variables, jacobian = TRUE) {
      private$context_$log_prob(unconstrained_variables, jacobian = jacobian)
    },
    grad_log_prob = function(unconstrained_variables, jacobian = TRUE) {
      private$context_$grad_log_prob(unconstrained_variables, jacobian = jacobian)
    },
    unconstrain_variables = function(variables) private$context_$unconstrain_variables(variables),
    constrain_variables = function(unconstrained_variables, transformed_parameters = TRUE,
                                   generated_quantities = TRUE) {
      private$context_$constrain_variables(unconstrained_variables, transformed_parameters,
                                           generated_quantities)
    },
    # points for $sample(init = fit): one set of unconstrained values per chain
    init_points = function(chains) {
      U <- private$upars_
      ok <- which(apply(is.finite(U), 1L, all))
      if (!length(ok)) abort_arg("The fit given as `init` has no finite draws.")
      pick <- if (length(ok) == 1L) rep(ok, chains)
              else ok[sample.int(length(ok), chains, replace = length(ok) < chains)]
      lapply(pick, function(i) U[i, ])
    }
  ),
  private = list(
    model_ = NULL, context_ = NULL, draws_ = NULL, upars_ = NULL, args_ = NULL,
    output_ = character(), time_ = NA_real_, return_code_ = 0L,
    select = function(variables) {
      if (!is.character(variables) || anyNA(variables)) {
        abort_arg("`variables` must be a character vector of variable names.")
      }
      nm <- colnames(private$draws_)
      base <- sub("\\[.*$", "", nm)
      out <- integer()
      for (v in variables) {
        i <- if (grepl("[", v, fixed = TRUE)) which(nm == v) else which(base == v)
        if (!length(i)) abort_arg(sprintf("Can't find the following variable(s) in the output: %s", v))
        out <- c(out, i)
      }
      out
    }
  )
)

#' The fit of `$optimize()`
#'
#' @description
#' What a model's `$optimize()` returns (see [model-method-optimize]): the
#' mode found by Stan's L-BFGS, BFGS or Newton optimizer, with the methods
#' of 'cmdstanr''s `CmdStanMLE`.
#'
#' @section Methods:
#' \describe{
#'   \item{`$mle(variables = NULL)`}{Named vector of the estimates (`lp__`
#'     left out).}
#'   \item{`$draws(variables = NULL, format = "draws_matrix")`}{One draw,
#'     `lp__` first, then the parameters, transformed parameters and
#'     generated quantities; `format` as 'cmdstanr' (`"draws_matrix"`,
#'     `"draws_array"`, `"draws_df"`, `"draws_list"`, `"draws_rvars"`).}
#'   \item{`$summary(variables = NULL, ...)`, `$print()`}{The summary of
#'     the draws ([posterior::summarise_draws()]).}
#'   \item{`$lp()`}{The log density at the mode: without the Jacobian
#'     unless `jacobian = TRUE` (constant terms of `~` statements dropped,
#'     as Stan).}
#'   \item{`$return_codes()`}{0 when the optimizer converged, 1 when it
#'     failed.}
#'   \item{`$metadata()`}{The arguments, with `iterations`,
#'     `gradient_evaluations` and `return_message` (Stan's termination
#'     message).}
#'   \item{`$init()`}{The starting point, constrained.}
#'   \item{`$output()`}{Prints (and returns invisibly) the run's log.}
#'   \item{`$time()`, `$code()`, `$num_chains()`}{Run time, the program,
#'     1.}
#'   \item{`$log_prob()`, `$grad_log_prob()`, `$constrain_variables()`,
#'     `$unconstrain_variables()`}{The model's functions at the data, as
#'     for [TapestryFit].}
#'   \item{`$unconstrained_draws()`}{The mode on the unconstrained scale (a
#'     one-row matrix).}
#' }
#' A fit can be the `mode` of `$laplace()` and the `init` of `$sample()`,
#' `$optimize()` and `$pathfinder()` (every chain starts at the mode).
#' @name TapestryOptimizeFit
#' @md
NULL
TapestryOptimizeFit <- R6::R6Class("TapestryOptimizeFit",
  inherit = TapestryPointFit,
  cloneable = FALSE,
  public = list(
    initialize = function(model, context, u, lp, u0, code, message, iterations, evals,
                          time, args, output) {
      U <- matrix(u, 1L)
      colnames(U) <- context$upar_names()
      vals <- opt_outputs(context, U, args$seed)
      draws <- cbind(lp__ = lp, vals)
      args$iterations <- iterations
      args$gradient_evaluations <- evals
      args$return_message <- message
      private$u0_ <- u0
      super$initialize(model, context, draws, U, args, output, time, code)
    },
    # as cmdstanr's CmdStanMLE: one column, the estimate, unless summary
    # functions are given
    summary = function(variables = NULL, ...) {
      if (...length()) return(super$summary(variables, ...))
      s <- posterior::summarise_draws(self$draws(variables), estimate = function(x) x[1])
      s$estimate <- as.double(s$estimate)
      s
    },
    mle = function(variables = NULL) {
      m <- unclass(self$draws(variables))
      # by column name: a one-column draws_matrix would lose its name to drop()
      v <- as.numeric(m[1L, ])
      names(v) <- colnames(m)
      v[names(v) != "lp__"]
    },
    init = function() {
      private$context_$constrain_variables(private$u0_, FALSE, FALSE)
    }
  ),
  private = list(u0_ = NULL)
)

# $sample(init = fit) (and $optimize(), $pathfinder()) with a fit of the
# methods above: one start per chain, all values given.
point_fit_inits <- function(fit, chains, context) {
  n <- context$num_upars()
  pts <- fit$init_points(chains)
  if (length(pts[[1L]]) != n) {
    abort_arg(sprintf(paste0("The fit given as `init` has %d unconstrained parameters, but ",
                             "the model has %d."), length(pts[[1L]]), n))
  }
  lapply(pts, function(u) list(radius = 2, values = as.double(u), given = rep(TRUE, n)))
}
