# The fits of the methods other than $sample() ($optimize(), $laplace(),
# $pathfinder()): one class for the shared methods (draws as a posterior
# draws_matrix, summary, print, metadata, the model's functions at the data),
# one subclass per method in its verb's file; the constrained values of
# points; a fit as the `init` of another run.

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
