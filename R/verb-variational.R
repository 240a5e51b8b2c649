# $variational(): ADVI (Kucukelbir et al. 2017) as Stan implements it in
# stan/variational (advi.hpp, families/normal_meanfield.hpp,
# normal_fullrank.hpp), in R around the context's log density and gradient.
#
# - The approximation is a normal on the unconstrained scale: mean-field
#   (mu, omega = log sd) or full-rank (mu, L lower triangular), starting at
#   mu = the initial point, omega = 0 / L = I.
# - The ELBO gradient by the reparameterization trick with grad_samples
#   draws: d/dmu = mean of grad log p(zeta), d/domega = mean of grad * eta *
#   exp(omega) + 1 (full-rank: d/dL_ij = mean of grad_i eta_j for j <= i,
#   plus 1 / L_ii on the diagonal).
# - The step size sequence eta / sqrt(t) / (1 + sqrt(s_t)), s_1 = g_1^2,
#   s_t = 0.9 s_{t-1} + 0.1 g_t^2, elementwise.
# - eta adapted (adapt_iter iterations for each of 100, 10, 1, 0.1, 0.01 from
#   the initial approximation, keeping the first whose successor does worse
#   while the best beats the initial ELBO), as advi::adapt_eta.
# - The ELBO every eval_elbo iterations from elbo_samples draws (draws
#   where the density cannot be evaluated are dropped, at most elbo_samples
#   of them), its relative change pushed into a circular buffer of
#   max(0.1 iter / eval_elbo, 2) values; converged when the buffer's mean or
#   median is below tol_rel_obj.
# - Output: the mean of the approximation (kept as `$metadata()$mean`, as
#   CmdStan's first row, which cmdstanr drops from the draws), then `draws`
#   draws with lp__ (Stan's log_p__: the log density with the Jacobian) and
#   lp_approx__ (Stan's log_g__: -0.5 |eta|^2, the approximation's log density
#   up to a constant), as cmdstanr shows them.
# Differences: random numbers come from R's generator seeded with `seed`
# (CmdStan's boost generator is not reproduced); the log density drops the
# constants of `~` statements (Stan's ELBO keeps them: this shifts the ELBO
# by a constant, which changes its relative changes a little); the
# generated quantities of draw i draw from the generator $sample() gives
# chain 1's i-th draw, so $generate_quantities() reproduces them.

TapestryModel$set("public", "variational", function(data = NULL, seed = NULL, refresh = NULL,
                                                    init = NULL, save_latent_dynamics = FALSE,
                                                    output_dir = NULL, output_basename = NULL,
                                                    sig_figs = NULL, threads = NULL,
                                                    opencl_ids = NULL, algorithm = NULL,
                                                    iter = NULL, grad_samples = NULL,
                                                    elbo_samples = NULL, eta = NULL,
                                                    adapt_engaged = NULL, adapt_iter = NULL,
                                                    tol_rel_obj = NULL, eval_elbo = NULL,
                                                    draws = NULL, show_messages = TRUE,
                                                    show_exceptions = TRUE,
                                                    save_cmdstan_config = NULL,
                                                    output_samples = NULL) {
  # cmdstanr's older name of `draws`, which it takes without a warning
  if (is.null(draws)) draws <- output_samples
  for (nm in c("output_dir", "output_basename", "sig_figs", "opencl_ids", "save_cmdstan_config")) {
    v <- get(nm)
    if (!is.null(v) && !identical(v, FALSE)) {
      abort_arg(sprintf("`%s` does not apply: tapestry keeps the draws in memory and writes no CmdStan files.", nm))
    }
  }
  if (!identical(save_latent_dynamics, FALSE)) {
    abort_arg("`save_latent_dynamics` does not apply: tapestry writes no diagnostic files.")
  }
  check_flag(show_messages, "show_messages")
  check_flag(show_exceptions, "show_exceptions")
  a <- vb_args(algorithm = algorithm, iter = iter, grad_samples = grad_samples,
               elbo_samples = elbo_samples, eta = eta, adapt_engaged = adapt_engaged,
               adapt_iter = adapt_iter, tol_rel_obj = tol_rel_obj, eval_elbo = eval_elbo,
               draws = draws, refresh = refresh, threads = threads)
  a$seed <- arg_seed(seed)
  context <- self$bind(data, a$seed)
  inits <- process_init(init, 1L, 1L, context)[[1L]]
  start <- Sys.time()
  res <- with_r_seed(a$seed %% .Machine$integer.max,
                     advi_run(context, a, inits, show_messages, show_exceptions))
  a$time_total <- as.double(difftime(Sys.time(), start, units = "secs"))
  a$model_name <- self$model_name()
  a$init_arg <- init
  TapestryVB$new(res, self, context, a)
})

vb_args <- function(algorithm, iter, grad_samples, elbo_samples, eta, adapt_engaged,
                    adapt_iter, tol_rel_obj, eval_elbo, draws, refresh, threads) {
  algorithm <- algorithm %||% "meanfield"
  if (!is.character(algorithm) || length(algorithm) != 1L ||
      !algorithm %in% c("meanfield", "fullrank")) {
    abort_arg(sprintf("`algorithm` must be \"meanfield\" or \"fullrank\", not %s.",
                      show_value(algorithm)))
  }
  count <- function(x, name, default, min = 1L) {
    if (is.null(x)) return(default)
    if (!is.numeric(x) || length(x) != 1L || is.na(x) || x != floor(x) || x < min ||
        x > .Machine$integer.max) {
      abort_arg(sprintf("`%s` must be a whole number >= %d, not %s.", name, min, show_value(x)))
    }
    as.integer(x)
  }
  positive <- function(x, name, default) {
    if (is.null(x)) return(default)
    if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x <= 0) {
      abort_arg(sprintf("`%s` must be a positive number, not %s.", name, show_value(x)))
    }
    as.double(x)
  }
  adapt_engaged <- adapt_engaged %||% TRUE
  check_flag(adapt_engaged, "adapt_engaged")
  if (!is.null(threads)) count(threads, "threads", 1L)
  list(algorithm = algorithm,
       iter = count(iter, "iter", 10000L),
       grad_samples = count(grad_samples, "grad_samples", 1L),
       elbo_samples = count(elbo_samples, "elbo_samples", 100L),
       eta = positive(eta, "eta", 1),
       eta_given = !is.null(eta),
       adapt_engaged = adapt_engaged,
       adapt_iter = count(adapt_iter, "adapt_iter", 50L),
       tol_rel_obj = positive(tol_rel_obj, "tol_rel_obj", 0.01),
       eval_elbo = count(eval_elbo, "eval_elbo", 100L),
       output_samples = count(draws, "draws", 1000L),
       refresh = count(refresh, "refresh", 100L, min = 0L))
}

vb_fail <- function(msg) tapestry_raise(msg, "tapestry_error")

# The variational family: list(kind, mu, omega) or list(kind, mu, L).
vb_family <- function(kind, mu) {
  n <- length(mu)
  if (kind == "meanfield") list(mu = mu, omega = rep(0, n)) else list(mu = mu, L = diag(1, n))
}
vb_transform <- function(q, eta) {
  if (is.null(q$L)) eta * exp(q$omega) + q$mu else drop(q$L %*% eta) + q$mu
}
# the transform applied to each row of E (draws x n)
vb_zeta_rows <- function(q, E) {
  Z <- if (is.null(q$L)) E * rep(exp(q$omega), each = nrow(E)) else E %*% t(q$L)
  Z + rep(q$mu, each = nrow(E))
}
vb_entropy <- function(q) {
  n <- length(q$mu)
  0.5 * n * (1 + log(2 * pi)) + if (is.null(q$L)) sum(q$omega) else sum(log(abs(diag(q$L))))
}
vb_map <- function(q, f) lapply(q, f)
vb_map2 <- function(a, b, f) {
  out <- a
  for (k in names(a)) out[[k]] <- f(a[[k]], b[[k]])
  out
}

advi_run <- function(context, a, inits, show, show_exceptions) {
  ptr <- context_ptr(context)
  n <- context$num_upars()
  if (n == 0L) {
    abort_arg("Model contains no parameters: variational inference needs at least one.")
  }
  say <- function(...) if (show && a$refresh > 0) cat(..., sep = "")
  note <- function(msg) if (show && show_exceptions) message(msg)
  grad <- context$grad_log_prob
  # the log density with the Jacobian and every constant (Stan's
  # log_prob<false, true>) at the rows of U; NA where it cannot be evaluated
  logp_rows <- function(U) {
    lp <- .Call(C_tp_log_prob_full, ptr, U, TRUE)
    lp[!is.finite(lp)] <- NA_real_
    lp
  }
  logp <- function(u) {
    lp <- logp_rows(matrix(u, 1L))
    if (is.na(lp)) NULL else lp
  }
  gradient <- function(u) {
    g <- tryCatch(grad(u), tapestry_domain_error = function(e) e)
    if (inherits(g, "condition")) return(conditionMessage(g))
    g <- as.vector(g)
    if (!all(is.finite(g))) return("Gradient of mu is not finite")
    g
  }

  # the initial point, as Stan's services draw it (uniform(-r, r) where not given)
  u0 <- NULL
  tries <- if (inits$radius == 0 || all(inits$given)) 1L else 100L
  for (t in seq_len(tries)) {
    u <- ifelse(inits$given, inits$values, stats::runif(n, -inits$radius, inits$radius))
    g <- gradient(u)
    if (is.numeric(g) && !is.null(logp(u))) { u0 <- u; break }
  }
  if (is.null(u0)) {
    vb_fail(sprintf(if (tries == 1L) "Initialization failed at the initial values given." else
      "Initialization between (-%g, %g) failed after 100 attempts. Try specifying initial values, reducing ranges of constrained values, or reparameterizing the model.",
      inits$radius, inits$radius))
  }

  elbo_of <- function(q) {
    total <- 0
    done <- 0L
    dropped <- 0L
    while (done < a$elbo_samples) {
      k <- a$elbo_samples - done
      E <- matrix(stats::rnorm(k * n), k, n, byrow = TRUE)
      lp <- logp_rows(vb_zeta_rows(q, E))
      bad <- sum(is.na(lp))
      total <- total + sum(lp, na.rm = TRUE)
      done <- done + k - bad
      dropped <- dropped + bad
      if (dropped >= a$elbo_samples) {
        return(structure(NA_real_, msg = sprintf(paste0(
          "stan::variational::advi::calc_ELBO: The number of dropped evaluations has ",
          "reached its maximum amount (%d). Your model may be either severely ",
          "ill-conditioned or misspecified."), a$elbo_samples)))
      }
    }
    total / a$elbo_samples + vb_entropy(q)
  }
  elbo_grad <- function(q, quiet_grad = FALSE) {
    mu_g <- numeric(n)
    other <- if (is.null(q$L)) numeric(n) else matrix(0, n, n)
    # draws where the gradient fails are dropped, fewer than grad_samples
    # of them (normal_*::calc_grad)
    done <- 0L
    dropped <- 0L
    while (done < a$grad_samples) {
      eta <- stats::rnorm(n)
      g <- gradient(vb_transform(q, eta))
      if (is.character(g)) {
        if (!quiet_grad) note(g)
        dropped <- dropped + 1L
        if (dropped >= a$grad_samples) {
          return(sprintf(paste0("stan::variational::normal_%s::calc_grad: n_monte_carlo_drop ",
                                "is %d, but must be less than %d. Your model may be either ",
                                "severely ill-conditioned or misspecified. The last error: %s"),
                         a$algorithm, dropped, a$grad_samples, g))
        }
        next
      }
      done <- done + 1L
      mu_g <- mu_g + g
      if (is.null(q$L)) other <- other + g * eta
      else other <- other + outer(g, eta) * lower.tri(other, diag = TRUE)
    }
    mu_g <- mu_g / a$grad_samples
    other <- other / a$grad_samples
    if (is.null(q$L)) {
      list(mu = mu_g, omega = other * exp(q$omega) + 1)
    } else {
      diag(other) <- diag(other) + 1 / diag(q$L)
      list(mu = mu_g, L = other)
    }
  }
  zero_like <- function(q) vb_map(q, function(x) x * 0)
  step <- function(q, g, hist, t, eta) {
    hist <- if (t == 1L) vb_map2(hist, g, function(h, x) h + x^2)
            else vb_map2(hist, g, function(h, x) 0.9 * h + 0.1 * x^2)
    scaled <- eta / sqrt(t)
    upd <- vb_map2(g, hist, function(x, h) scaled * x / (1 + sqrt(h)))
    list(q = vb_map2(q, upd, `+`), hist = hist)
  }
  finite_q <- function(q) all(vapply(q, function(x) all(is.finite(x)), TRUE))

  say("------------------------------------------------------------\n",
      "EXPERIMENTAL ALGORITHM:\n",
      "  This procedure has not been thoroughly tested and may be unstable\n",
      "  or buggy. The interface is subject to change.\n",
      "------------------------------------------------------------\n\n")

  eta <- a$eta
  if (a$adapt_engaged) {
    say("Begin eta adaptation.\n")
    q0 <- vb_family(a$algorithm, u0)
    elbo_init <- elbo_of(q0)
    if (is.na(elbo_init)) {
      vb_fail(paste0("stan::variational::advi::adapt_eta: Cannot compute ELBO using the initial ",
                     "variational distribution. Your model may be either severely ",
                     "ill-conditioned or misspecified."))
    }
    seq_eta <- c(100, 10, 1, 0.1, 0.01)
    elbo_best <- -.Machine$double.xmax
    eta_best <- 0
    hist <- zero_like(q0)
    total <- length(seq_eta) * a$adapt_iter
    for (k in seq_along(seq_eta)) {
      q <- q0
      diverged <- FALSE
      for (t in seq_len(a$adapt_iter)) {
        m <- (k - 1L) * a$adapt_iter + t
        # Stan shows the adaptation's progress every adapt_iter iterations
        if (m == 1L || m %% a$adapt_iter == 0L || m == total) {
          say(sprintf("Iteration: %*d / %d [%3d%%]  (Adaptation)\n", nchar(total), m, total,
                      as.integer(100 * m / total)))
        }
        g <- if (diverged) NULL else elbo_grad(q, quiet_grad = TRUE)
        if (is.null(g) || is.character(g)) g <- zero_like(q)
        s <- step(q, g, hist, t, seq_eta[k])
        hist <- s$hist
        if (finite_q(s$q)) q <- s$q else diverged <- TRUE
      }
      elbo <- if (diverged) NA_real_ else elbo_of(q)
      if (is.na(elbo)) elbo <- -.Machine$double.xmax
      if (elbo < elbo_best && elbo_best > elbo_init) {
        say(sprintf("Success! Found best value [eta = %s]%s\n\n", format(eta_best),
                    if (k < length(seq_eta)) " earlier than expected." else "."))
        break
      }
      if (k < length(seq_eta)) {
        elbo_best <- elbo
        eta_best <- seq_eta[k]
      } else if (elbo > elbo_init) {
        say(sprintf("Success! Found best value [eta = %s].\n\n", format(eta_best)))
        eta_best <- seq_eta[k]
      } else {
        vb_fail(paste0("stan::variational::advi::adapt_eta: All proposed step-sizes failed. ",
                       "Your model may be either severely ill-conditioned or misspecified."))
      }
      hist <- zero_like(q0)
    }
    eta <- eta_best
  }

  # stochastic gradient ascent
  say("Begin stochastic gradient ascent.\n",
      "  iter             ELBO   delta_ELBO_mean   delta_ELBO_med   notes \n")
  q <- vb_family(a$algorithm, u0)
  hist <- zero_like(q)
  elbo <- 0
  elbo_best <- -.Machine$double.xmax
  cb_size <- as.integer(max(0.1 * a$iter / a$eval_elbo, 2))
  cb <- numeric(0)
  converged <- FALSE
  iterations <- 0L
  trace <- data.frame(iter = integer(), elbo = double(), delta_mean = double(),
                      delta_median = double())
  for (t in seq_len(a$iter)) {
    iterations <- t
    g <- elbo_grad(q)
    if (is.character(g)) vb_fail(g)
    s <- step(q, g, hist, t, eta)
    if (!finite_q(s$q)) {
      vb_fail(sprintf(paste0("stan::variational::normal_%s: the approximation's parameters ",
                             "are no longer finite at iteration %d. Your model may be either ",
                             "severely ill-conditioned or misspecified, or eta (%s) too large."),
                      a$algorithm, t, format(eta)))
    }
    q <- s$q
    hist <- s$hist
    if (t %% a$eval_elbo == 0L) {
      prev <- elbo
      elbo <- elbo_of(q)
      if (is.na(elbo)) vb_fail(attr(elbo, "msg"))
      if (elbo > elbo_best) elbo_best <- elbo
      delta <- abs((prev - elbo) / elbo)
      cb <- utils::tail(c(cb, delta), cb_size)
      d_mean <- mean(cb)
      d_med <- sort(cb)[length(cb) %/% 2L + 1L]
      notes <- ""
      if (d_mean < a$tol_rel_obj) { notes <- "   MEAN ELBO CONVERGED"; converged <- TRUE }
      if (d_med < a$tol_rel_obj) { notes <- paste0(notes, "   MEDIAN ELBO CONVERGED"); converged <- TRUE }
      if (t > 10L * a$eval_elbo && (d_med > 0.5 || d_mean > 0.5)) {
        notes <- paste0(notes, "   MAY BE DIVERGING... INSPECT ELBO")
      }
      trace[nrow(trace) + 1L, ] <- list(t, elbo, d_mean, d_med)
      say(sprintf("  %4d  %15.3f  %16.3f  %15.3f%s\n", t, elbo, d_mean, d_med, notes))
      if (converged) break
    }
  }
  if (converged && abs((elbo_best - elbo) / elbo) > 0.05) {
    say("Informational Message: The ELBO at a previous iteration is larger than the ELBO upon convergence!\n",
        "This variational approximation may not have converged to a good optimum.\n")
  }
  if (!converged) {
    note(paste0("Informational Message: The maximum number of iterations is reached! The ",
                "algorithm may not have converged.\nThis variational approximation is not ",
                "guaranteed to be meaningful."))
  }
  say("\n", "Drawing a sample of size ", a$output_samples,
                     " from the approximate posterior... \n")

  # the mean, then the draws
  ns <- a$output_samples
  eta_draws <- matrix(stats::rnorm(ns * n), ns, n, byrow = TRUE)
  up <- vb_zeta_rows(q, eta_draws)
  log_g <- -0.5 * rowSums(eta_draws^2)
  log_p <- logp_rows(up)
  say("COMPLETED.\n")
  list(mean = q$mu, q = q, eta = eta, upars = up, log_p = log_p, log_g = log_g,
       iterations = iterations, converged = converged, trace = trace, init = u0)
}

#' A variational approximation
#'
#' @description
#' What a model's `$variational()` returns, as 'cmdstanr''s `CmdStanVB`:
#' draws from the normal approximation ADVI found on the unconstrained
#' scale, with `lp__` (the log density at each draw) and `lp_approx__`
#' (the approximation's log density, up to a constant).
#' @md
#' @noRd
TapestryVB <- R6::R6Class("TapestryVB",
  cloneable = FALSE,
  public = list(
    #' @description Use a model's `$variational()`.
    #' @param res The result of the algorithm.
    #' @param model The [TapestryModel].
    #' @param context The [TapestryContext].
    #' @param args The run's settings.
    initialize = function(res, model, context, args) {
      private$res_ <- res
      private$model_ <- model
      private$context_ <- context
      private$args_ <- args
      out <- .Call(C_tp_gq, context_ptr(context), res$upars, 1L, as.double(args$seed), FALSE)
      colnames(out) <- context$variable_names()
      msgs <- attr(out, "messages")
      if (length(msgs)) message(paste(unique(msgs), collapse = "\n"))
      private$draws_ <- cbind(lp__ = res$log_p, lp_approx__ = res$log_g, out)
      invisible(self)
    },

    #' @description The draws of the approximation (the mean, which CmdStan
    #'   writes first, is `$metadata()$mean`).
    #' @param variables Names of variables or elements; `NULL` for all.
    #' @param format As for a [TapestryFit]'s `$draws()`; default
    #'   `"draws_matrix"`, as 'cmdstanr'.
    #' @return A draws object of the 'posterior' package.
    draws = function(variables = NULL, format = "draws_matrix") {
      format <- check_draws_format(format)
      cols <- select_elements(variables, colnames(private$draws_), colnames(private$draws_))
      m <- posterior::as_draws_matrix(private$draws_[, cols, drop = FALSE])
      convert_draws(m, format)
    },

    #' @description Summary statistics by [posterior::summarise_draws()];
    #'   by default the mean, median, standard deviation, MAD and the 5% and
    #'   95% quantiles, as 'cmdstanr' for approximations.
    #' @param variables As for `$draws()`.
    #' @param ... Passed to [posterior::summarise_draws()].
    #' @return A `draws_summary` data frame.
    summary = function(variables = NULL, ...) {
      d <- self$draws(variables)
      if (...length() == 0L) {
        posterior::summarise_draws(d, "mean", "median", "sd", "mad", "quantile2")
      } else {
        posterior::summarise_draws(d, ...)
      }
    },

    #' @description Prints the summary.
    #' @param variables As for `$draws()`.
    #' @param ... Passed to `$summary()`.
    #' @param digits Number of decimal places shown.
    #' @param max_rows Largest number of rows shown.
    print = function(variables = NULL, ..., digits = 2, max_rows = 10) {
      print_summary_rows(self$summary(variables, ...), digits, max_rows)
      invisible(self)
    },

    #' @description `lp__` of the draws: the log density (with the Jacobian).
    #' @return A numeric vector.
    lp = function() as.numeric(private$draws_[, "lp__"]),

    #' @description `lp_approx__` of the draws: the approximation's log
    #'   density up to a constant (Stan's `log_g__`).
    #' @return A numeric vector.
    lp_approx = function() as.numeric(private$draws_[, "lp_approx__"]),

    #' @description The run's settings and results: the arguments, `eta`
    #'   (adapted or given), `mean` (the approximation's mean, constrained,
    #'   as CmdStan's first row), `mean_unconstrained`, `sd_unconstrained`
    #'   (the approximation's standard deviations), `cholesky_unconstrained`
    #'   (the Cholesky factor of its covariance, full-rank only), `iterations`,
    #'   `converged`, `elbo` (the trace of ELBO evaluations), the variable
    #'   names and sizes.
    #' @return A named list.
    metadata = function() {
      a <- private$args_
      r <- private$res_
      vars <- private$context_$variable_names()
      stan_vars <- unique(output_var_names(vars))
      list(method = "variational", algorithm = a$algorithm, iter = a$iter,
           grad_samples = a$grad_samples, elbo_samples = a$elbo_samples, eta = r$eta,
           adapt_engaged = a$adapt_engaged, adapt_iter = a$adapt_iter,
           tol_rel_obj = a$tol_rel_obj, eval_elbo = a$eval_elbo,
           output_samples = a$output_samples, seed = a$seed, refresh = a$refresh,
           model_name = a$model_name, init = r$init,
           mean = private$context_$constrain_variables(r$mean, seed = a$seed),
           mean_unconstrained = r$mean,
           sd_unconstrained = if (is.null(r$q$L)) exp(r$q$omega) else sqrt(rowSums(r$q$L^2)),
           cholesky_unconstrained = r$q$L, iterations = r$iterations, converged = r$converged,
           elbo = r$trace, variables = c("lp__", "lp_approx__", vars),
           stan_variables = c("lp__", "lp_approx__", stan_vars),
           stan_variable_sizes = variable_sizes(vars, stan_vars),
           time = a$time_total)
    },

    #' @description The initial values the run started from.
    #' @return A named list of the parameters' values.
    init = function() {
      private$context_$constrain_variables(private$res_$init, transformed_parameters = FALSE,
                                           generated_quantities = FALSE)
    },

    #' @description Return code of the run: 0 (a run that fails is an error).
    #' @return An integer.
    return_codes = function() 0L,

    #' @description Run time.
    #' @return A list with `total`.
    time = function() list(total = private$args_$time_total),

    #' @description The Stan program.
    #' @return A character vector of lines.
    code = function() private$model_$code(),

    #' @description The unconstrained points of the draws, one row each.
    #' @return A matrix, one column per unconstrained parameter.
    unconstrained_draws = function() {
      u <- private$res_$upars
      colnames(u) <- private$context_$upar_names()
      u
    },

    #' @description Saves the object with [saveRDS()].
    #' @param file Path of the file.
    #' @param ... Passed to [saveRDS()].
    save_object = function(file, ...) {
      saveRDS(self, file = file, ...)
      invisible(self)
    }
  ),
  private = list(res_ = NULL, model_ = NULL, context_ = NULL, args_ = NULL, draws_ = NULL)
)
