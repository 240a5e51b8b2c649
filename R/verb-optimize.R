# $optimize(): Stan's L-BFGS, BFGS and Newton optimizers (R/optimizers.R)
# from a starting point, and the fit they return (TapestryOptimizeFit, the
# shape of cmdstanr's CmdStanMLE, on TapestryPointFit of R/fit-point.R).

# ---------------------------------------------------------------------------
# Starting points: the user's init (every form $sample() takes, and fits
# of $optimize(), $laplace(), $pathfinder() and $sample()) with the rest
# drawn uniformly in (-radius, radius); like Stan, up to 100 tries for a
# point where the density and its gradient are finite.

opt_start <- function(context, init, seed, jacobian, what = "optimization") {
  n <- context$num_upars()
  s <- process_init(init, 1L, 1L, context)[[1L]]
  fn <- opt_objective(context, jacobian)$fn
  with_r_seed(seed, {
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
  a <- c(bfgs_settings(init_alpha, tol_obj, tol_rel_obj, tol_grad, tol_rel_grad, tol_param),
         list(history_size = arg_count(history_size, "history_size", 1L, 5L),
              iter = arg_count(iter, "iter", 1L, 2000L),
              refresh = if (is.null(refresh)) 100L else arg_count(refresh, "refresh", 0L, 100L)))
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
  seed <- arg_seed(seed, integer = TRUE)
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
