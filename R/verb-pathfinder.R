# $pathfinder(): Zhang, Carpenter, Gelman and Vehtari (2022), as Stan runs
# it. Each path is an L-BFGS run on the unconstrained log density (Jacobian
# included); at every iterate the L-BFGS inverse Hessian (a diagonal plus a
# low-rank update from the last `history_size` steps) with the local
# gradient defines a normal approximation; the one with the largest ELBO
# (Monte Carlo estimate from `num_elbo_draws` draws) gives the path's draws.
# Several paths are pooled by Pareto-smoothed importance resampling.
# The paths run one after another on R's thread (the gradients are the C
# core's).

# Pareto smoothed importance sampling (Vehtari, Simpson, Gelman, Yao and
# Gabry 2024): smoothed log weights and the Pareto k diagnostic. The
# generalized Pareto fit is Zhang and Stephens' (2009) with the weakly
# informative prior of the 'loo' package.
psis_smooth <- function(log_ratios) {
  lw <- log_ratios
  ok <- is.finite(lw)
  lw[!ok] <- -Inf
  S <- sum(ok)
  lw <- lw - max(lw[ok])
  tail_len <- ceiling(min(0.2 * S, 3 * sqrt(S)))
  k <- NA_real_
  if (tail_len >= 5L) {
    ord <- order(lw, decreasing = TRUE)
    tail <- ord[seq_len(tail_len)]
    cutoff <- lw[ord[tail_len + 1L]]
    # (a tail no wider than rounding: equal weights, nothing to smooth or fit)
    if (max(lw[tail]) - cutoff > 1e-12) {
      ecut <- exp(cutoff)
      fit <- gpd_fit(exp(lw[tail]) - ecut)
      k <- if (is.finite(fit$k)) fit$k else NA_real_
      if (is.finite(k)) {
        p <- (seq_len(tail_len) - 0.5) / tail_len
        qq <- gpd_quantile(p, k, fit$sigma) + ecut
        # the smallest tail weight gets the smallest quantile
        lw[rev(tail)] <- log(qq)
        lw[lw > 0] <- 0
      }
    }
  }
  list(log_weights = lw, pareto_k = k)
}

gpd_quantile <- function(p, k, sigma) {
  if (abs(k) < 1e-12) return(-sigma * log1p(-p))
  sigma * expm1(-k * log1p(-p)) / k
}

gpd_fit <- function(x) {
  x <- sort(x)
  N <- length(x)
  prior <- 3
  M <- 30 + floor(sqrt(N))
  jj <- seq_len(M)
  xstar <- x[floor(N / 4 + 0.5)]
  theta <- 1 / x[N] + (1 - sqrt(M / (jj - 0.5))) / prior / xstar
  l_theta <- N * vapply(theta, function(t) {
    a <- -t
    kk <- mean(log1p(a * x))
    log(a / kk) - kk - 1
  }, 0)
  w <- exp(l_theta - (max(l_theta) + log(sum(exp(l_theta - max(l_theta))))))
  theta_hat <- sum(theta * w)
  k <- mean(log1p(-theta_hat * x))
  sigma <- -k / theta_hat
  k <- (k * N + 0.5 * 10) / (N + 10)
  list(k = k, sigma = sigma)
}

# Stan's update of the diagonal of the initial inverse Hessian (form_diag).
pf_form_diag <- function(alpha, y, s) {
  yay <- sum(y * y * alpha)
  ys <- sum(y * s)
  sas <- sum(s * s / alpha)
  ys / (yay / alpha + y * y - (yay / sas) * (s / alpha)^2)
}

# The normal approximation at x (gradient g of the log density): its mean
# and a map from standard normal draws, with the covariance the L-BFGS
# inverse Hessian from the diagonal alpha and the columns of S and Y (the
# compact representation of Byrd, Nocedal and Schnabel 1994):
#   H = diag(alpha) + [alpha Y, -S R^-T] M [alpha Y, -S R^-T]',
#   M = [0 I; I D + Y' diag(alpha) Y], R the upper triangle of S'Y, D its
# diagonal. When 2m >= n the n x n matrix is formed and factored; else, as
# Stan does, a thin QR of the n x 2m factor keeps the cost O(n m^2).
pf_approx <- function(x, g, alpha, S, Y) {
  m <- ncol(S)
  n <- length(x)
  SY <- crossprod(S, Y)
  R <- SY
  R[lower.tri(R)] <- 0
  Rinv <- tryCatch(backsolve(R, diag(m)), error = function(e) NULL)
  if (is.null(Rinv) || !all(is.finite(Rinv))) return(NULL)
  D <- diag(diag(SY), m)
  H0Y <- alpha * Y
  B <- D + crossprod(Y, H0Y)
  nSRt <- -S %*% t(Rinv)                      # -S R^-T, n x m
  if (2L * m >= n) {
    H <- diag(alpha, n) + nSRt %*% t(H0Y) + H0Y %*% t(nSRt) + nSRt %*% B %*% t(nSRt)
    H <- (H + t(H)) / 2
    L <- tryCatch(t(chol(H)), error = function(e) NULL)
    if (is.null(L)) return(NULL)
    return(list(mu = x + drop(H %*% g), logdet_half = sum(log(diag(L))),
                draw = function(Z) Z %*% t(L)))
  }
  sa <- sqrt(alpha)
  Wt <- cbind(sa * Y, nSRt / sa)              # n x 2m
  M <- rbind(cbind(matrix(0, m, m), diag(m)), cbind(diag(m), B))
  # Householder QR with column pivoting (LINPACK's default tolerance would
  # call the columns, scaled by alpha and 1 / alpha, rank deficient)
  q <- qr(Wt, LAPACK = TRUE)
  Q <- qr.Q(q)
  Rq <- qr.R(q)
  Mp <- M[q$pivot, q$pivot]
  K <- diag(2L * m) + Rq %*% Mp %*% t(Rq)
  K <- (K + t(K)) / 2
  L <- tryCatch(t(chol(K)), error = function(e) NULL)
  if (is.null(L)) return(NULL)
  Hg <- alpha * g + sa * drop(Wt %*% (M %*% crossprod(Wt, sa * g)))
  LmI <- L - diag(2L * m)
  list(mu = x + Hg, logdet_half = sum(log(diag(L))) + 0.5 * sum(log(alpha)),
       draw = function(Z) {
         # rows of Z are draws: u = sa * (z + Q (L - I) Q' z)
         A <- Z + (Z %*% Q) %*% t(LmI) %*% t(Q)
         A * rep(sa, each = nrow(Z))
       })
}

pf_draws <- function(a, n, lp_fn) {
  d <- length(a$mu)
  Z <- matrix(stats::rnorm(n * d), n, d)
  U <- sweep(a$draw(Z), 2L, a$mu, "+")
  lq <- -0.5 * d * log(2 * pi) - a$logdet_half - 0.5 * rowSums(Z * Z)
  lp <- if (is.null(lp_fn)) rep(NA_real_, n) else apply(U, 1L, lp_fn)
  list(U = U, lq = lq, lp = lp)
}

# One path from u0: list(U, lp, lq, elbo, iterations, ok, message).
pf_single <- function(context, u0, a, ndraws, calculate_lp) {
  xs <- list(); gs <- list()
  obj <- opt_objective(context, TRUE)
  trace <- function(it, x, f, g) {
    xs[[length(xs) + 1L]] <<- x
    gs[[length(gs) + 1L]] <<- -g
  }
  res <- opt_bfgs(obj$fn, u0, lbfgs = TRUE, history = a$history_size,
                  init_alpha = a$init_alpha, tol_obj = a$tol_obj,
                  tol_rel_obj = a$tol_rel_obj, tol_grad = a$tol_grad,
                  tol_rel_grad = a$tol_rel_grad, tol_param = a$tol_param,
                  iter = a$max_lbfgs_iters, trace = trace)
  lp_fn <- opt_lp_fn(context, TRUE)
  n <- length(u0)
  alpha <- rep(1, n)
  Sbuf <- list(); Ybuf <- list()
  best <- NULL
  best_elbo <- -Inf
  for (i in seq_along(xs)[-1L]) {
    s <- xs[[i]] - xs[[i - 1L]]
    y <- gs[[i - 1L]] - gs[[i]]          # change in the gradient of -log p
    sy <- sum(s * y)
    if (sy > 0 && sum(y * y) / sy <= 1e12) {
      alpha <- pf_form_diag(alpha, y, s)
      Sbuf <- c(Sbuf, list(s)); Ybuf <- c(Ybuf, list(y))
      if (length(Sbuf) > a$history_size) { Sbuf <- Sbuf[-1L]; Ybuf <- Ybuf[-1L] }
    }
    if (!length(Sbuf)) next
    ap <- pf_approx(xs[[i]], gs[[i]], alpha, do.call(cbind, Sbuf), do.call(cbind, Ybuf))
    if (is.null(ap)) next
    e <- pf_draws(ap, a$num_elbo_draws, lp_fn)
    r <- e$lp - e$lq
    elbo <- if (all(is.finite(r))) mean(r) else -Inf
    if (elbo > best_elbo || is.null(best)) { best_elbo <- elbo; best <- ap; best_it <- i - 1L }
  }
  if (is.null(best)) {
    return(list(ok = FALSE, message = paste0("no usable normal approximation along the path (",
                                             res$message, ")")))
  }
  d <- pf_draws(best, ndraws, if (calculate_lp) lp_fn)
  list(ok = TRUE, U = d$U, lp = d$lp, lq = d$lq, elbo = best_elbo, best_iteration = best_it,
       iterations = res$iterations, message = res$message, evals = obj$counter$n)
}

#' Pathfinder: the model's `$pathfinder()` method
#'
#' @description
#' `model$pathfinder()` runs Pathfinder (Zhang, Carpenter, Gelman and
#' Vehtari 2022) with Stan's algorithm and defaults, as 'cmdstanr''s
#' `$pathfinder()`. Each path runs L-BFGS on the unconstrained log density
#' (Jacobian included) from its own initial values; at every iterate the
#' L-BFGS inverse Hessian (a diagonal, updated along the path, plus a
#' low-rank update from the last `history_size` steps) and the local
#' gradient define a normal approximation, whose ELBO is estimated from
#' `num_elbo_draws` draws; the approximation with the largest ELBO gives the
#' path's `single_path_draws` draws. With several paths, `draws` draws are
#' resampled from all the paths' draws with Pareto-smoothed importance
#' weights (PSIS, implemented in the package; 'loo' is not needed).
#'
#' The paths run one after another on R's thread (their gradients are the
#' C core's); `num_threads` is accepted and has no effect.
#'
#' @section Usage:
#' ```
#' model$pathfinder(data = NULL, seed = NULL, refresh = NULL, init = NULL,
#'   num_paths = 4, draws = NULL, single_path_draws = NULL,
#'   max_lbfgs_iters = NULL, num_elbo_draws = NULL, history_size = NULL,
#'   init_alpha = NULL, tol_obj = NULL, tol_rel_obj = NULL,
#'   tol_grad = NULL, tol_rel_grad = NULL, tol_param = NULL,
#'   psis_resample = TRUE, calculate_lp = TRUE, show_messages = TRUE,
#'   num_threads = NULL, threads = NULL, ...)
#' ```
#'
#' @section Arguments:
#' \describe{
#'   \item{`data`, `seed`}{As for `$optimize()`; each path draws from R's
#'     generator with its own seed, drawn from `seed`.}
#'   \item{`init`}{Initial values in any form `$sample()` takes, one per
#'     path (default uniform(-2, 2) on the unconstrained scale).}
#'   \item{`num_paths`}{Number of paths (default 4).}
#'   \item{`draws`}{Draws resampled from the paths (default 1000).}
#'   \item{`single_path_draws`}{Draws per path (default 1000; with one
#'     path, the fit's draws).}
#'   \item{`max_lbfgs_iters`}{L-BFGS iterations per path (default 1000).}
#'   \item{`num_elbo_draws`}{Draws per ELBO estimate (default 25).}
#'   \item{`history_size`, `init_alpha`, `tol_obj`, `tol_rel_obj`,
#'     `tol_grad`, `tol_rel_grad`, `tol_param`}{L-BFGS's settings, as for
#'     `$optimize()` (defaults 5, 0.001, 1e-12, 1e4, 1e-8, 1e7, 1e-8).}
#'   \item{`psis_resample`}{Resample with PSIS weights (default `TRUE`);
#'     `FALSE` returns every path's draws.}
#'   \item{`calculate_lp`}{Compute the log density at the draws (default
#'     `TRUE`); without it `lp__` is `NA` and there is no resampling.}
#'   \item{`refresh`, `show_messages`, `num_threads`, `threads`, `...`}{As
#'     for `$optimize()`; see above for `num_threads`.}
#' }
#'
#' @return A [TapestryPathfinderFit]. A message reports a Pareto k above 0.7
#'   (unreliable resampling); an error when every path fails.
#' @examples
#' file <- system.file("extdata", "eight_schools.stan", package = "tapestry")
#' data <- system.file("extdata", "eight_schools.data.json", package = "tapestry")
#' mod <- tapestry_model(file)
#' pf <- mod$pathfinder(data = data, seed = 1)
#' pf$summary(c("mu", "tau"))
#' fit <- mod$sample(data = data, init = pf, chains = 2, refresh = 0, seed = 1)
#' @name model-method-pathfinder
#' @md
NULL

pathfinder_model <- function(model, data = NULL, seed = NULL, refresh = NULL, init = NULL,
                             num_paths = 4, draws = NULL, single_path_draws = NULL,
                             max_lbfgs_iters = NULL, num_elbo_draws = NULL,
                             history_size = NULL, init_alpha = NULL, tol_obj = NULL,
                             tol_rel_obj = NULL, tol_grad = NULL, tol_rel_grad = NULL,
                             tol_param = NULL, psis_resample = TRUE, calculate_lp = TRUE,
                             show_messages = TRUE, num_threads = NULL, threads = NULL,
                             ...) {
  opt_no_args("pathfinder", threads = threads, ...)
  check_flag(psis_resample, "psis_resample")
  check_flag(calculate_lp, "calculate_lp")
  check_flag(show_messages, "show_messages")
  if (!is.null(num_threads)) arg_count(num_threads, "num_threads", 1L, 1L)
  a <- c(list(
    num_paths = arg_count(num_paths, "num_paths", 1L, 4L),
    draws = arg_count(draws, "draws", 1L, 1000L),
    single_path_draws = arg_count(single_path_draws, "single_path_draws", 1L, 1000L),
    max_lbfgs_iters = arg_count(max_lbfgs_iters, "max_lbfgs_iters", 1L, 1000L),
    num_elbo_draws = arg_count(num_elbo_draws, "num_elbo_draws", 1L, 25L),
    history_size = arg_count(history_size, "history_size", 1L, 5L)),
    bfgs_settings(init_alpha, tol_obj, tol_rel_obj, tol_grad, tol_rel_grad, tol_param),
    list(psis_resample = psis_resample, calculate_lp = calculate_lp))
  seed <- arg_seed(seed, integer = TRUE)
  context <- model$bind(data, seed)
  start <- Sys.time()
  n <- context$num_upars()
  inits <- process_init(init, a$num_paths, seq_len(a$num_paths), context)
  fn0 <- opt_objective(context, TRUE)$fn
  # one seed per path from the run's seed (seed + k would share paths
  # between runs with neighbouring seeds)
  path_seeds <- with_r_seed(seed, sample.int(.Machine$integer.max, a$num_paths))
  paths <- lapply(seq_len(a$num_paths), function(k) {
    with_r_seed(path_seeds[k], {
      s <- inits[[k]]
      u0 <- NULL
      for (t in seq_len(100L)) {
        u <- s$values
        free <- !s$given
        if (any(free)) u[free] <- if (s$radius > 0) stats::runif(sum(free), -s$radius, s$radius) else 0
        if (!is.null(fn0(u))) { u0 <- u; break }
        if (!any(free) || s$radius == 0) break
      }
      if (is.null(u0)) return(list(ok = FALSE, message = "initialization failed"))
      ndraws <- if (a$num_paths == 1L) a$single_path_draws else a$single_path_draws
      pf_single(context, u0, a, ndraws, calculate_lp)
    })
  })
  ok <- vapply(paths, function(p) isTRUE(p$ok), NA)
  lines <- vapply(seq_along(paths), function(k) {
    p <- paths[[k]]
    if (isTRUE(p$ok)) {
      sprintf("Path [%d]: best ELBO %.3f at iteration %d of %d (%s)", k, p$elbo,
              p$best_iteration, p$iterations, p$message)
    } else sprintf("Path [%d] failed: %s", k, p$message)
  }, "")
  if (!any(ok)) {
    tapestry_raise(paste0("Pathfinder failed: every path failed.\n",
                          paste(lines, collapse = "\n")), "tapestry_error")
  }
  U <- do.call(rbind, lapply(paths[ok], `[[`, "U"))
  lp <- unlist(lapply(paths[ok], `[[`, "lp"))
  lq <- unlist(lapply(paths[ok], `[[`, "lq"))
  pareto_k <- NA_real_
  if (a$num_paths > 1L && psis_resample && calculate_lp) {
    ps <- psis_smooth(lp - lq)
    pareto_k <- ps$pareto_k
    w <- exp(ps$log_weights)
    pick <- with_r_seed(seed, sample.int(nrow(U), a$draws, replace = TRUE, prob = w))
    U <- U[pick, , drop = FALSE]; lp <- lp[pick]; lq <- lq[pick]
    lines <- c(lines, sprintf("PSIS resampling: %d draws, Pareto k = %.2f", a$draws, pareto_k))
  }
  colnames(U) <- context$upar_names()
  vals <- opt_outputs(context, U, seed)
  out <- cbind(lp_approx__ = lq, lp__ = lp, vals)
  elapsed <- as.double(difftime(Sys.time(), start, units = "secs"))
  if (show_messages) message(sprintf("Pathfinder: %d of %d paths finished in %.2f seconds.",
                                     sum(ok), a$num_paths, elapsed))
  if (show_messages && is.finite(pareto_k) && pareto_k > 0.7) {
    message(sprintf(paste0("Pareto k value (%.2f) is greater than 0.7: the importance ",
                           "resampling may be unreliable."), pareto_k))
  }
  a$seed <- seed
  a$data <- data
  a$init <- init
  a$pareto_k <- pareto_k
  a$paths_ok <- ok
  TapestryPathfinderFit$new(model, context, out, U, a, lines, elapsed, 0L)
}

TapestryModel$set("public", "pathfinder", function(data = NULL, seed = NULL, refresh = NULL,
                                                    init = NULL, num_paths = 4, draws = NULL,
                                                    single_path_draws = NULL,
                                                    max_lbfgs_iters = NULL,
                                                    num_elbo_draws = NULL,
                                                    history_size = NULL, init_alpha = NULL,
                                                    tol_obj = NULL, tol_rel_obj = NULL,
                                                    tol_grad = NULL, tol_rel_grad = NULL,
                                                    tol_param = NULL, psis_resample = TRUE,
                                                    calculate_lp = TRUE, show_messages = TRUE,
                                                    num_threads = NULL, threads = NULL, ...) {
  pathfinder_model(self, data = data, seed = seed, refresh = refresh, init = init,
                   num_paths = num_paths, draws = draws, single_path_draws = single_path_draws,
                   max_lbfgs_iters = max_lbfgs_iters, num_elbo_draws = num_elbo_draws,
                   history_size = history_size, init_alpha = init_alpha, tol_obj = tol_obj,
                   tol_rel_obj = tol_rel_obj, tol_grad = tol_grad, tol_rel_grad = tol_rel_grad,
                   tol_param = tol_param, psis_resample = psis_resample,
                   calculate_lp = calculate_lp, show_messages = show_messages,
                   num_threads = num_threads, threads = threads, ...)
})

#' The fit of `$pathfinder()`
#'
#' @description
#' What a model's `$pathfinder()` returns (see [model-method-pathfinder]),
#' with the methods of 'cmdstanr''s `CmdStanPathfinder`.
#'
#' @section Methods:
#' \describe{
#'   \item{`$draws(variables = NULL, format = "draws_matrix")`}{The draws:
#'     `lp_approx__` (the approximation's normalized log density at the
#'     draw), `lp__` (the model's, Jacobian included, constant terms of `~`
#'     statements dropped; `NA` when `calculate_lp = FALSE`), then the
#'     variables.}
#'   \item{`$summary(variables = NULL, ...)`, `$print()`}{The summary of the
#'     draws.}
#'   \item{`$lp()`, `$lp_approx()`}{`lp__` and `lp_approx__`.}
#'   \item{`$metadata()`}{The arguments, with `pareto_k` (the Pareto k of
#'     the importance weights; `NA` when not resampled or when the weights
#'     are equal) and `paths_ok`.}
#'   \item{`$output()`}{One line per path (best ELBO, its iteration, the
#'     L-BFGS message) and the resampling's.}
#'   \item{`$return_codes()`, `$time()`, `$code()`}{As for
#'     [TapestryOptimizeFit].}
#'   \item{`$log_prob()`, `$grad_log_prob()`, `$constrain_variables()`,
#'     `$unconstrain_variables()`}{The model's functions at the data.}
#'   \item{`$unconstrained_draws()`}{The draws on the unconstrained scale.}
#' }
#' The fit can be the `init` of `$sample()`: each chain starts at a
#' different random draw (when there are enough), as in 'cmdstanr'.
#' @name TapestryPathfinderFit
#' @md
NULL
TapestryPathfinderFit <- R6::R6Class("TapestryPathfinderFit",
  inherit = TapestryPointFit,
  cloneable = FALSE,
  public = list(
    lp_approx = function() unname(private$draws_[, "lp_approx__"])
  )
)
