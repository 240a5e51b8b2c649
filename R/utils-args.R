# Checks of user arguments that many methods share.  Every problem is an
# error of class tapestry_argument_error (abort_arg()) that names the
# argument, says what it must be and, through show_value(), what was given.

abort_arg <- function(message) {
  tapestry_raise(message, "tapestry_argument_error")
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_arg(sprintf("`%s` must be TRUE or FALSE.", arg))
  }
}

check_string <- function(x, arg) {
  if (!is.character(x) || length(x) != 1L || is.na(x)) {
    abort_arg(sprintf("`%s` must be a string.", arg))
  }
}

all_named <- function(x) {
  nm <- names(x)
  !is.null(nm) && !anyNA(nm) && all(nzchar(nm))
}

describe <- function(x) {
  if (is.null(x)) return("NULL")
  cls <- if (is.list(x)) "a list" else paste0("a ", class(x)[1L], " value")
  cls
}

# A short rendering of a user's value for messages: 2, "a", NA, or its kind.
show_value <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.atomic(x) && length(x) == 1L && is.null(dim(x))) {
    if (is.character(x) && !is.na(x)) return(sprintf("\"%s\"", x))
    return(format(x))
  }
  if (is.atomic(x) && is.null(dim(x))) {
    return(sprintf("a %s vector of length %d", class(x)[1L], length(x)))
  }
  if (is.atomic(x)) {
    return(sprintf("a %s %s", paste(dim(x), collapse = " x "),
                   if (length(dim(x)) == 2L) "matrix" else "array"))
  }
  describe(x)
}

# A whole number >= min as an integer; NULL is the default.
arg_count <- function(x, arg, min, default) {
  if (is.null(x)) return(as.integer(default))
  if (!is.numeric(x) || length(x) != 1L || !is.null(dim(x)) || is.na(x) || !is.finite(x) ||
      x != round(x) || x < min || x > .Machine$integer.max) {
    abort_arg(sprintf("`%s` must be a whole number >= %d, not %s.", arg, min, show_value(x)))
  }
  as.integer(x)
}

arg_flag <- function(x, arg, default) {
  if (is.null(x)) return(default)
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_arg(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, show_value(x)))
  }
  x
}

# How often a trace records the profiled intervals: every k-th evaluation;
# NULL or 0 records none.
arg_trace_every <- function(x, arg) {
  if (is.null(x)) return(0L)
  if (!is.numeric(x) || length(x) != 1L || !is.null(dim(x)) || is.na(x) || !is.finite(x) ||
      x != round(x) || x < 0 || x > .Machine$integer.max) {
    abort_arg(sprintf(paste0("`%s` must be NULL or a non-negative whole number (record ",
                             "every k-th evaluation; 0 records none), not %s."),
                      arg, show_value(x)))
  }
  as.integer(x)
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

# The line search's first step and the convergence tests of L-BFGS and BFGS
# ($optimize() and $pathfinder()), with Stan's defaults for NULL.
bfgs_settings <- function(init_alpha, tol_obj, tol_rel_obj, tol_grad, tol_rel_grad, tol_param) {
  list(
    init_alpha = opt_number(init_alpha, "init_alpha", 1e-3),
    tol_obj = opt_number(tol_obj, "tol_obj", 1e-12, strict = FALSE),
    tol_rel_obj = opt_number(tol_rel_obj, "tol_rel_obj", 1e4, strict = FALSE),
    tol_grad = opt_number(tol_grad, "tol_grad", 1e-8, strict = FALSE),
    tol_rel_grad = opt_number(tol_rel_grad, "tol_rel_grad", 1e7, strict = FALSE),
    tol_param = opt_number(tol_param, "tol_param", 1e-8, strict = FALSE))
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

# The elements named by `variables` among `all`: an element's full name, or
# a variable's name (`base`, the names without their indices) for all its
# elements; NULL gives `default`.  `none` words the error for names not
# found (the sampler's fit keeps its own wording).
select_elements <- function(variables, all, default, base = output_var_names(all),
                            none = "No variable%s %s. The variables are %s.") {
  if (is.null(variables)) return(default)
  if (!is.character(variables) || length(variables) == 0L || anyNA(variables)) {
    abort_arg(sprintf(paste0("`variables` must be a character vector of variable names, ",
                             "or NULL for all, not %s."), show_value(variables)))
  }
  hits <- lapply(variables, function(v) {
    i <- which(all == v)
    if (length(i)) i else which(base == v)
  })
  missing <- variables[lengths(hits) == 0L]
  if (length(missing)) {
    abort_arg(sprintf(none,
                      if (length(missing) > 1L) "s" else "",
                      paste0("'", missing, "'", collapse = ", "),
                      paste0("'", unique(base), "'", collapse = ", ")))
  }
  all[unique(unlist(hits))]
}
