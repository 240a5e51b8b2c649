# Data contexts: a model with its data bound, evaluating the log density.

#' A model bound to its data
#'
#' @description
#' A data context is a [TapestryModel] with its data checked and its
#' transformed data computed, made by the model's `$bind()` method. It
#' evaluates the log density and its gradient at points of the unconstrained
#' parameter space, and converts parameter values between the constrained and
#' the unconstrained scale, with the verbs of 'cmdstanr''s fitted models.
#'
#' The unconstrained vector lists the parameters in their order of
#' declaration, each flattened with its first index fastest (Stan's order);
#' `$upar_names()` names its elements.
#'
#' Output of the program's `print()` statements is shown after each call.
#' A rejection (`reject()`, or an argument outside a function's domain, such
#' as a negative scale) signals a condition of class
#' `tapestry_domain_error`; other failures signal `tapestry_error`.
#'
#' @examples
#' file <- system.file("extdata", "eight_schools.stan", package = "tapestry")
#' data <- system.file("extdata", "eight_schools.data.json", package = "tapestry")
#' ctx <- tapestry_model(file)$bind(data)
#' ctx
#' u <- seq(-1, 1, length.out = ctx$num_upars())
#' ctx$log_prob(u)
#' ctx$grad_log_prob(u)
#' v <- ctx$constrain_variables(u)
#' v$tau
#' all.equal(ctx$unconstrain_variables(v), u)
#' @md
TapestryContext <- R6::R6Class("TapestryContext",
  cloneable = FALSE,
  public = list(
    #' @description Use the `$bind()` method of a [TapestryModel].
    #' @param model The model object.
    #' @param program The model's program (an external pointer).
    #' @param data,seed As for `$bind()`.
    initialize = function(model, program, data, seed) {
      private$model_ <- model
      private$data_ <- split_tuples(check_data(data), program)
      private$seed_ <- check_seed(seed)
      private$ptr_ <- .Call(C_tp_ctx_new, program, private$data_, private$seed_)
      private$vars_ <- .Call(C_tp_ctx_vars, private$ptr_)
      private$nfree_ <- sum(private$vars_$nfree)
      self$grad_log_prob <- grad_log_prob_fn(private)
    },

    #' @description The log density at a point of the unconstrained space.
    #'   As in Stan, `~` statements drop constant terms and `target +=` keeps
    #'   them.
    #' @param upars Numeric vector of the unconstrained parameters, of length
    #'   `$num_upars()`.
    #' @param jacobian Include the log absolute Jacobian determinants of the
    #'   constraining transforms (Stan's sampling target). `FALSE` gives
    #'   Stan's `lp__`.
    #' @param gradient Also compute the gradient, returned as attribute
    #'   `"gradient"` (as 'rstan''s `log_prob()`).
    #' @return A number.
    log_prob = function(upars, jacobian = TRUE, gradient = FALSE) {
      upars <- private$check_upars(upars)
      check_flag(jacobian, "jacobian")
      check_flag(gradient, "gradient")
      .Call(C_tp_log_prob, private$ctx(), upars, jacobian, gradient)
    },

    #' @field grad_log_prob `function(upars, jacobian = TRUE)`: the gradient
    #'   of the log density at a point of the unconstrained space (`upars`
    #'   and `jacobian` as for `$log_prob()`), a numeric vector of length
    #'   `$num_upars()` with the log density as attribute `"log_prob"` (as
    #'   'cmdstanr' and 'rstan' return it). A field holding a function rather
    #'   than a method so that it stays byte-compiled: a sampler or optimizer
    #'   in R calls it in a loop, and for a small model the R call costs more
    #'   than the gradient.
    grad_log_prob = NULL,

    #' @description Times `n` evaluations of the log density (with the
    #'   Jacobian, as the sampler evaluates it) and its gradient at one
    #'   point, recording what the program's `profile("name") { ... }`
    #'   blocks cost. The evaluations run on R's thread, with the threads
    #'   [tapestry_set_num_threads()] allows for the parallel functions.
    #' @param upars As for `$log_prob()`.
    #' @param n Number of gradient evaluations (default 100).
    #' @param trace_every Record a trace of the profiled intervals at every
    #'   k-th evaluation, for [save_trace()]; `NULL` or 0 records none.
    #' @return An object of class `tapestry_profile_run`, as the model's
    #'   `$profile_log_prob()` returns.
    profile_log_prob = function(upars, n = 100, trace_every = NULL) {
      upars <- private$check_upars(upars)
      n <- arg_count(n, "n", 1L, 100L)
      trace_every <- arg_trace_every(trace_every, "trace_every")
      raw <- profile_log_prob_call(private$ctx(), upars, n, trace_every)
      new_profile_run(raw, n, trace_every)
    },

    #' @description How the gradient runs: whether it replays a recorded
    #'   plan or walks the program's tree (and why), and for each `for` loop
    #'   whether it is vectorized (its body run as vector operations over
    #'   all iterations, "lane by lane") or unrolled, and why. Use it to see
    #'   why a program written as loops is slow: a loop stays unrolled when
    #'   an iteration uses the result of an earlier one (a recurrence), when
    #'   its iterations take different branches, or when its body calls a
    #'   function that has no vector kernel in plans.
    #' @param upars Where to evaluate the gradient when none has been
    #'   evaluated yet (the plan is recorded by the first evaluation);
    #'   default all zeros.
    #' @return A data frame of class `tapestry_plan`, one row per `for`
    #'   statement of the program with bounds from data, in the order first
    #'   met: `line`, `col`, `loop` (its variable), `where` (`"model"`, or
    #'   the `reduce_sum`, `parallel_map` or `map_rect` whose function it is
    #'   in), `runs` (times one evaluation runs it), `vectorized` (of those
    #'   runs), `iterations` (over all runs) and `reason`. Attributes `path`
    #'   (`"plan"` or `"tree"`), `why` (why the tree, else `""`) and
    #'   `instructions` (the plan's length).
    plan = function(upars = NULL) {
      s <- plan_stats_ptr(private$ctx())
      if (s$evaluations == 0) {
        if (is.null(upars)) upars <- rep(0, private$nfree_)
        upars <- private$check_upars(upars)
        .Call(C_tp_grad_log_prob, private$ctx(), upars, TRUE)
        s <- plan_stats_ptr(private$ctx())
      }
      new_plan_report(.Call(C_tp_plan_loops, private$ctx()), s, private$model_$model_name())
    },

    #' @description The unconstrained vector of parameter values.
    #' @param variables A named list with a value for every parameter, of
    #'   its declared shape (as `$constrain_variables()` returns them); other
    #'   elements are ignored.
    #' @return A numeric vector of length `$num_upars()`. Values of the
    #'   wrong shape or outside their constraints signal an error of class
    #'   `tapestry_data_error`.
    unconstrain_variables = function(variables) {
      if (!is.list(variables) || (length(variables) > 0L && !all_named(variables))) {
        abort_arg("`variables` must be a named list with the value of each parameter.")
      }
      ptr <- private$ctx()
      .Call(C_tp_unconstrain, ptr, split_tuples(variables, ptr, "parameter"), FALSE)
    },

    #' @description Constrained parameter values from a point of the
    #'   unconstrained space, with the transformed parameters and generated
    #'   quantities computed there.
    #' @param unconstrained_variables Numeric vector of length
    #'   `$num_upars()`.
    #' @param transformed_parameters Include the transformed parameters.
    #' @param generated_quantities Include the generated quantities.
    #' @param seed Seed of the random numbers of generated quantities; by
    #'   default the seed given to `$bind()`. The generator is that of chain
    #'   1 of a run with this seed.
    #' @return A named list with one element per variable, of its declared
    #'   shape: a number, a numeric vector (vector, row vector, array of
    #'   reals), a matrix, or an array whose dimensions are the array
    #'   dimensions followed by those of the element (an `array[J] vector[K]`
    #'   is a J x K matrix). Integer variables are integer vectors.
    constrain_variables = function(unconstrained_variables, transformed_parameters = TRUE,
                                   generated_quantities = TRUE, seed = NULL) {
      u <- private$check_upars(unconstrained_variables, "unconstrained_variables")
      check_flag(transformed_parameters, "transformed_parameters")
      check_flag(generated_quantities, "generated_quantities")
      seed <- if (is.null(seed)) private$seed_ else check_seed(seed)
      .Call(C_tp_write_array, private$ctx(), u, transformed_parameters,
            generated_quantities, seed)
    },

    #' @description The number of unconstrained parameters.
    #' @return An integer.
    num_upars = function() {
      .Call(C_tp_num_upars, private$ctx())
    },

    #' @description Names of the unconstrained parameters: `"theta[2]"`,
    #'   `"L[1]"`; a constrained variable's elements are counted on the
    #'   unconstrained scale (a `simplex[K]` has K - 1).
    #' @return A character vector of length `$num_upars()`.
    upar_names = function() {
      .Call(C_tp_upar_names, private$ctx())
    },

    #' @description Names of the elements `$constrain_variables()` computes,
    #'   as in Stan's output: `"theta[2]"`, `"L[2,1]"`.
    #' @param transformed_parameters,generated_quantities As for
    #'   `$constrain_variables()`.
    #' @return A character vector.
    variable_names = function(transformed_parameters = TRUE, generated_quantities = TRUE) {
      check_flag(transformed_parameters, "transformed_parameters")
      check_flag(generated_quantities, "generated_quantities")
      nm <- .Call(C_tp_output_names, private$ctx(), transformed_parameters, generated_quantities)
      nm[tuple_column_order(nm)]
    },

    #' @description The model this context was made from.
    #' @return A [TapestryModel].
    model = function() {
      private$model_
    },

    #' @description Prints the model's name and its variables with their
    #'   sizes.
    #' @param ... Ignored.
    print = function(...) {
      v <- private$vars_
      n <- sum(v$nfree)
      cat(sprintf("tapestry data context of model '%s': %s unconstrained parameter%s\n",
                  private$model_$model_name(), format(n), if (n == 1) "" else "s"))
      if (length(v$name) == 0L) return(invisible(self))
      types <- vapply(seq_along(v$name), function(i) {
        sized_type(v$type[i], v$constraint[i], v$dims[[i]])
      }, "")
      names <- format(v$name)
      for (b in unique(v$block)) {
        cat(" ", b, ":\n", sep = "")
        i <- v$block == b
        cat(paste0("    ", names[i], "  ", types[i], "\n"), sep = "")
      }
      invisible(self)
    }
  ),
  private = list(
    model_ = NULL,
    data_ = NULL,
    seed_ = NULL,
    ptr_ = NULL,
    vars_ = NULL,
    nfree_ = 0,

    # A context saved and loaded in a new session has lost its C memory:
    # bind its data again.
    ctx = function() {
      if (!.Call(C_tp_ptr_ok, private$ptr_)) {
        prog <- private$model_$.__enclos_env__$private$program()
        private$ptr_ <- .Call(C_tp_ctx_new, prog, private$data_, private$seed_)
      }
      private$ptr_
    },

    check_upars = function(upars, arg = "upars") {
      # the common case first, cheaply: a plain double vector of the right length
      if (is.double(upars) && is.null(attributes(upars)) && length(upars) == private$nfree_) return(upars)
      if (!is.numeric(upars) || !is.null(dim(upars)) && length(dim(upars)) > 1L) {
        abort_arg(sprintf("`%s` must be a numeric vector, not %s.", arg, describe(upars)))
      }
      n <- private$nfree_
      if (length(upars) != n) {
        abort_arg(sprintf("%s has length %d, but the model has %s unconstrained parameter%s",
                          arg, length(upars), format(n), if (n == 1) "" else "s"))
      }
      upars <- as.double(upars)
      attributes(upars) <- NULL
      upars
    }
  )
)

# Stan's type with sizes for print(): "array[8] real", "vector[3]",
# "cholesky_factor_corr[2]", "real (lower bound)".
sized_type <- function(type, constraint, dims) {
  narr <- if (startsWith(type, "array[")) {
    nchar(gsub("[^,]", "", sub("\\].*$", "", type))) + 1L
  } else {
    0L
  }
  base <- sub("^array\\[[^]]*\\] *", "", type)
  inner <- if (length(dims) > narr) dims[(narr + 1L):length(dims)] else integer()
  bracket <- function(d) if (length(d)) paste0("[", paste(d, collapse = ", "), "]") else ""
  words <- c(lower = "lower bound", upper = "upper bound", lower_upper = "bounds",
             offset_multiplier = "offset, multiplier")
  suffix <- ""
  if (!is.na(constraint) && constraint %in% names(words)) {
    suffix <- paste0(" (", words[[constraint]], ")")
  } else if (!is.na(constraint)) {
    base <- constraint
    if (constraint != "cholesky_factor_cov") inner <- inner[1L]
  }
  prefix <- if (narr > 0L) paste0("array", bracket(dims[seq_len(narr)]), " ") else ""
  paste0(prefix, base, bracket(inner), suffix)
}

check_data <- function(data) {
  if (is.null(data)) return(list())
  if (is.character(data)) {
    if (length(data) != 1L || is.na(data)) {
      abort_arg("`data` must be a named list or the path of a JSON file.")
    }
    if (!file.exists(data) || dir.exists(data)) {
      abort_arg(sprintf("Data file '%s' does not exist.", data))
    }
    # an R dump file (R/rdump.R) is read here; the list keeps its path
    if (is_rdump_file(data)) {
      path <- normalizePath(data)
      data <- read_rdump(path)
      attr(data, "data_file") <- path
    } else {
      return(normalizePath(data))
    }
  }
  if (!is.list(data)) {
    abort_arg(sprintf("`data` must be a named list or the path of a JSON file, not %s.",
                      describe(data)))
  }
  if (length(data) > 0L && !all_named(data)) {
    abort_arg("Every element of `data` must have a name.")
  }
  if (anyDuplicated(names(data))) {
    abort_arg(sprintf("`data` has more than one element named '%s'.",
                      names(data)[anyDuplicated(names(data))]))
  }
  file <- attr(data, "data_file")
  data <- complex_as_pairs(data)
  if (!is.null(file)) attr(data, "data_file") <- file
  data
}

# The context's $grad_log_prob: made here, in the package's compiled code, so
# the closure is byte-compiled (an R6 method's copy in the object is not).
# The common case is one call: a live context, a plain double vector of the
# right length and a flag; anything else comes back NULL and is checked here.
grad_log_prob_fn <- function(private) {
  function(upars, jacobian = TRUE) {
    g <- .Call(C_tp_grad_fast, private$ptr_, upars, jacobian)
    if (!is.null(g)) return(g)
    upars <- private$check_upars(upars)
    check_flag(jacobian, "jacobian")
    .Call(C_tp_grad_log_prob, private$ctx(), upars, jacobian)
  }
}
