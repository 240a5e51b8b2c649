# $laplace(): the normal approximation at the mode on the unconstrained
# scale, its covariance the inverse of the negative Hessian (finite
# differences of gradients, as Stan), draws mapped to the constrained scale.

#' Laplace approximation: the model's `$laplace()` method
#'
#' @description
#' `model$laplace()` draws from the normal approximation to the posterior
#' at its mode on the unconstrained scale, as 'cmdstanr''s `$laplace()`:
#' the covariance is the inverse of the negative Hessian of the log density
#' at the mode, computed (as Stan does) by central finite differences of
#' gradients; the draws are mapped to the constrained scale. The mode is
#' found with `$optimize(jacobian = jacobian)` unless given.
#'
#' @section Usage:
#' ```
#' model$laplace(data = NULL, seed = NULL, init = NULL, mode = NULL,
#'   opt_args = NULL, jacobian = TRUE, draws = NULL, refresh = NULL,
#'   show_messages = TRUE, threads = NULL, ...)
#' ```
#'
#' @section Arguments:
#' \describe{
#'   \item{`data`, `seed`, `init`}{As for `$optimize()`; `seed` also
#'     seeds the draws.}
#'   \item{`mode`}{A fit of `$optimize()` made with the same `jacobian`,
#'     or `NULL` (default) to optimize first.}
#'   \item{`opt_args`}{A named list of further arguments of `$optimize()`
#'     when `mode` is `NULL`.}
#'   \item{`jacobian`}{Approximate the density of the unconstrained
#'     parameters, Jacobian included (default `TRUE`, the usual choice).}
#'   \item{`draws`}{Number of draws (default 1000).}
#'   \item{`refresh`, `show_messages`, `threads`, `...`}{As for
#'     `$optimize()`.}
#' }
#'
#' @return A [TapestryLaplaceFit]. An error when the negative Hessian at
#'   the mode is not positive definite.
#' @examples
#' file <- system.file("extdata", "conjugate_normal.stan", package = "tapestry")
#' data <- system.file("extdata", "conjugate_normal.data.json", package = "tapestry")
#' fit <- tapestry_model(file)$laplace(data = data, seed = 1)
#' fit$summary("mu")
#' @name model-method-laplace
#' @md
NULL

laplace_model <- function(model, data = NULL, seed = NULL, init = NULL, mode = NULL,
                          opt_args = NULL, jacobian = TRUE, draws = NULL, refresh = NULL,
                          show_messages = TRUE, threads = NULL, ...) {
  opt_no_args("laplace", threads = threads, ...)
  check_flag(jacobian, "jacobian")
  check_flag(show_messages, "show_messages")
  draws <- arg_count(draws, "draws", 1L, 1000L)
  seed <- arg_seed(seed, integer = TRUE)
  start <- Sys.time()
  if (is.null(mode)) {
    if (!is.null(opt_args) && !is.list(opt_args)) abort_arg("`opt_args` must be a named list.")
    if ("jacobian" %in% names(opt_args)) {
      abort_arg("`opt_args` must not set `jacobian`: `$laplace()`'s own `jacobian` is used.")
    }
    args <- c(list(data = data, seed = seed, init = init, jacobian = jacobian,
                   show_messages = show_messages, refresh = refresh), opt_args)
    mode <- do.call(model$optimize, args)
  } else {
    if (!inherits(mode, "TapestryOptimizeFit")) {
      abort_arg(sprintf("`mode` must be NULL or a fit made by `$optimize()`, not %s.",
                        describe(mode)))
    }
    if (!is.null(opt_args)) abort_arg("`opt_args` applies only when `mode` is NULL.")
    if (!identical(mode$metadata()$jacobian, jacobian)) {
      abort_arg(sprintf(paste0("The mode was found with jacobian = %s, but `$laplace()` has ",
                               "jacobian = %s: they must agree."), mode$metadata()$jacobian,
                        jacobian))
    }
  }
  if (mode$return_codes() != 0L) {
    abort_arg("The optimization that found the mode failed: no Laplace approximation.")
  }
  context <- mode$.__enclos_env__$private$context_
  u_hat <- drop(mode$unconstrained_draws())
  n <- length(u_hat)
  grad <- function(u) {
    g <- context$grad_log_prob(u, jacobian)
    attributes(g) <- NULL
    g
  }
  H <- opt_fd_hessian(grad, u_hat)
  # -H must be positive definite, and not numerically singular (a flat
  # direction gives an improper approximation)
  ev <- eigen(-H, symmetric = TRUE, only.values = TRUE)$values
  L <- if (all(is.finite(ev)) && min(ev) > 1e-8 * max(abs(ev), 1e-300)) {
    tryCatch(t(chol(solve(-H))), error = function(e) NULL)
  }
  if (is.null(L) || anyNA(L)) {
    tapestry_raise(paste0("The negative Hessian at the mode is not positive definite: ",
                          "no Laplace approximation (is the mode a maximum?)."),
                   "tapestry_error")
  }
  Z <- with_r_seed(seed, matrix(stats::rnorm(draws * n), draws, n))
  U <- sweep(Z %*% t(L), 2L, u_hat, "+")
  colnames(U) <- context$upar_names()
  log_p <- apply(U, 1L, opt_lp_fn(context, jacobian))
  log_g <- -0.5 * rowSums(Z * Z)
  vals <- opt_outputs(context, U, seed)
  out <- cbind(lp__ = 0, log_p__ = log_p, log_g__ = log_g, vals)
  elapsed <- as.double(difftime(Sys.time(), start, units = "secs"))
  a <- list(seed = seed, draws = draws, jacobian = jacobian, data = data)
  lines <- sprintf("Laplace approximation: %d draws at the mode (%d unconstrained parameters)",
                   draws, n)
  TapestryLaplaceFit$new(model, context, out, U, a, lines, elapsed, 0L, mode, -H)
}

TapestryModel$set("public", "laplace", function(data = NULL, seed = NULL, init = NULL,
                                                 mode = NULL, opt_args = NULL,
                                                 jacobian = TRUE, draws = NULL,
                                                 refresh = NULL, show_messages = TRUE,
                                                 threads = NULL, ...) {
  laplace_model(self, data = data, seed = seed, init = init, mode = mode,
                opt_args = opt_args, jacobian = jacobian, draws = draws, refresh = refresh,
                show_messages = show_messages, threads = threads, ...)
})

#' The fit of `$laplace()`
#'
#' @description
#' What a model's `$laplace()` returns (see [model-method-laplace]): draws
#' from the normal approximation at the mode, with the methods of
#' 'cmdstanr''s `CmdStanLaplace`.
#'
#' @section Methods:
#' \describe{
#'   \item{`$draws(variables = NULL, format = "draws_matrix")`}{The draws:
#'     `lp__` (0, as 'CmdStan' writes it), `log_p__` (the model's log
#'     density at the draw, with the Jacobian when `jacobian = TRUE`),
#'     `log_g__` (the approximation's log density up to a constant,
#'     \eqn{-z^\top z / 2}), then the variables.}
#'   \item{`$summary(variables = NULL, ...)`, `$print()`}{The summary of the
#'     draws.}
#'   \item{`$lp()`}{`log_p__`.}
#'   \item{`$mode()`}{The [TapestryOptimizeFit] of the mode.}
#'   \item{`$hessian()`}{The negative Hessian of the log density at the
#'     mode on the unconstrained scale (the approximation's precision).}
#'   \item{`$metadata()`, `$output()`, `$return_codes()`, `$time()`,
#'     `$code()`}{As for [TapestryOptimizeFit].}
#'   \item{`$log_prob()`, `$grad_log_prob()`, `$constrain_variables()`,
#'     `$unconstrain_variables()`}{The model's functions at the data.}
#'   \item{`$unconstrained_draws()`}{The draws on the unconstrained scale.}
#' }
#' The fit can be the `init` of `$sample()` (a random draw per chain).
#' @name TapestryLaplaceFit
#' @md
NULL
TapestryLaplaceFit <- R6::R6Class("TapestryLaplaceFit",
  inherit = TapestryPointFit,
  cloneable = FALSE,
  public = list(
    initialize = function(model, context, draws, upars, args, output, time, code, mode,
                          neg_hessian) {
      private$mode_ <- mode
      private$neg_hessian_ <- neg_hessian
      super$initialize(model, context, draws, upars, args, output, time, code)
    },
    mode = function() private$mode_,
    hessian = function() private$neg_hessian_,
    lp = function() unname(private$draws_[, "log_p__"])
  ),
  private = list(mode_ = NULL, neg_hessian_ = NULL)
)

