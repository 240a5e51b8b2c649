# Initial values of the chains: the forms of `$sample(init = )`, resolved to
# points of the unconstrained space before any chain starts.

#' Resolve the `init` argument of `$sample()` to one start per chain
#'
#' Every form of `init` that 'cmdstanr' accepts ends here as, per chain, the
#' unconstrained values the user gave and a radius for the rest, which the
#' sampler draws uniformly from `(-radius, radius)` (all zeros for radius 0).
#' All errors are raised here, before any chain starts.
#'
#' Forms of `init`:
#' * `NULL`: radius 2;
#' * a number `>= 0`: the radius;
#' * a named list of parameter values, used by every chain;
#' * an unnamed list of `chains` such lists, one per chain;
#' * a function returning such a list, called with argument `chain_id` when
#'   it has a formal argument of that name, else with none;
#' * the path of a CmdStan JSON file. With several chains, `inits.json`
#'   stands for `inits_<id>.json` per chain id when the file of the first
#'   chain id exists (then every chain needs its file), and for itself in
#'   every chain when it does not;
#' * `chains` paths, one per chain;
#' * a fit of `$optimize()` (its mode for every chain), `$laplace()` or
#'   `$pathfinder()` (a random draw per chain, distinct when there are
#'   enough), as 'cmdstanr' does.
#'
#' A list or file may leave parameters out (they are drawn at random) and
#' may hold other names (ignored, as CmdStan does).
#'
#' @param init The user's `init` argument.
#' @param chains Number of chains (validated).
#' @param chain_ids Integer chain ids (validated), `chains` of them.
#' @param context The [TapestryContext] the chains sample from.
#' @return A list with one element per chain, in the order of `chain_ids`,
#'   each `list(radius = <double>, values = <double>, given = <logical>)`
#'   with `values` and `given` of length `context$num_upars()`:
#'   `values[given]` are the user's unconstrained values, the others are 0.
#' @noRd
process_init <- function(init, chains, chain_ids, context) {
  n <- context$num_upars()
  random <- function(radius) list(radius = radius, values = rep(0, n), given = rep(FALSE, n))
  if (is.null(init)) {
    return(rep(list(random(2)), chains))
  }
  if (inherits(init, "TapestryPointFit")) {
    # a fit of $optimize(), $laplace() or $pathfinder(): its (random) draws
    return(point_fit_inits(init, chains, context))
  }
  if (is.numeric(init) && is.null(dim(init))) {
    if (length(init) != 1L || is.na(init) || !is.finite(init) || init < 0) {
      abort_arg(sprintf(paste0("A numeric `init` must be one finite number >= 0 (the radius ",
                               "of the random inits), not %s."), show_value(init)))
    }
    return(rep(list(random(as.double(init))), chains))
  }
  ptr <- context$.__enclos_env__$private$ctx()
  vars <- .Call(C_tp_ctx_vars, ptr)
  params <- vars$name[vars$block == "parameters"]
  # a tuple parameter's elements are "p:1", "p:2"...: its value comes as "p" (start() splits it)
  params <- c(params, unique(sub(":.*$", "", params[grepl(":", params, fixed = TRUE)])))
  names_ <- context$upar_names()
  # where: the chain, or "init" when all chains share the values; file: the
  # path, named unless the reader's message already starts with it.
  start <- function(values, where, file = NULL) {
    label <- if (is.null(file)) where else sprintf("%s (file '%s')", where, file)
    for (nm in if (is.list(values)) names(values)) {
      if (has_na(values[[nm]])) {
        tapestry_raise(sprintf("%s: parameter '%s' has missing values (NA).", label, nm),
                       "tapestry_data_error")
      }
    }
    u <- tryCatch(
      .Call(C_tp_unconstrain, ptr, split_tuples(values, ptr, "parameter"), TRUE),
      tapestry_data_error = function(e) {
        msg <- conditionMessage(e)
        if (!is.null(file) && startsWith(msg, file)) label <- where
        tapestry_raise(paste0(label, ": ", msg), "tapestry_data_error")
      }
    )
    given <- attr(u, "given")
    bad <- which(given & !is.finite(u))
    if (length(bad)) {
      tapestry_raise(sprintf(paste0(
        "%s: '%s' is %s on the unconstrained scale: its value is not finite or lies ",
        "on the boundary of its constraint, and the sampler must start strictly ",
        "inside the constraints."), label, names_[bad[1L]], format(u[bad[1L]])),
        "tapestry_data_error")
    }
    attributes(u) <- NULL
    list(radius = 2, values = u, given = given)
  }
  chain_label <- function(i) sprintf("init for chain %d", chain_ids[i])

  if (is.function(init)) {
    return(lapply(seq_len(chains), function(i) {
      x <- call_init_function(init, chain_ids[i])
      where <- chain_label(i)
      what <- sprintf("The value of the `init` function for chain %d", chain_ids[i])
      start(init_list(x, params, what), where)
    }))
  }
  if (is.character(init)) {
    paths <- init_files(init, chains, chain_ids)
    if (length(unique(paths)) == 1L) {
      s <- start(paths[1L], "init", paths[1L])
      return(rep(list(s), chains))
    }
    return(lapply(seq_len(chains), function(i) start(paths[i], chain_label(i), paths[i])))
  }
  if (is.list(init) && !is.data.frame(init)) {
    if (length(init) == 0L || all_named(init)) {
      s <- start(init_list(init, params, "`init`"), "init")
      return(rep(list(s), chains))
    }
    if (!is.null(names(init)) && any(nzchar(names(init)) & !is.na(names(init)))) {
      abort_arg(paste0("`init` must be a named list of parameter values (every element ",
                       "named) or an unnamed list with one such list per chain."))
    }
    if (length(init) != chains) {
      abort_arg(sprintf(paste0("`init` is an unnamed list of %d element%s, but there %s %d ",
                               "chain%s: give one list of parameter values per chain, or ",
                               "one named list for all chains."),
                        length(init), if (length(init) == 1L) "" else "s",
                        if (chains == 1L) "is" else "are", chains,
                        if (chains == 1L) "" else "s"))
    }
    return(lapply(seq_len(chains), function(i) {
      x <- init[[i]]
      where <- chain_label(i)
      if (!is.list(x) || is.data.frame(x)) {
        abort_arg(sprintf(paste0("Element %d of `init` (chain %d) must be a named list of ",
                                 "parameter values, not %s."), i, chain_ids[i], describe(x)))
      }
      start(init_list(x, params, sprintf("Element %d of `init` (chain %d)", i, chain_ids[i])),
            where)
    }))
  }
  abort_arg(sprintf(paste0("`init` must be NULL, a number >= 0, a named list, a list of ",
                           "lists (one per chain), a function or the path of a JSON ",
                           "file, not %s."),
                    if (is.data.frame(init)) "a data frame" else describe(init)))
}

# The parameters' values in x, checked to be a named list; elements that are
# not parameters are dropped here so that they need not be numeric.
init_list <- function(x, params, what) {
  if (!is.list(x) || is.data.frame(x)) {
    abort_arg(sprintf("%s must be a named list of parameter values, not %s.", what, describe(x)))
  }
  if (length(x) == 0L) return(list())
  if (!all_named(x)) {
    abort_arg(sprintf("%s must be a named list of parameter values: every element needs a name.",
                      what))
  }
  dup <- anyDuplicated(names(x))
  if (dup) {
    abort_arg(sprintf("%s has more than one element named '%s'.", what, names(x)[dup]))
  }
  x[names(x) %in% params]
}

# NA (not NaN) anywhere in a value, lists of values included.
has_na <- function(x) {
  if (is.list(x)) return(any(vapply(x, has_na, logical(1))))
  if (is.numeric(x)) any(is.na(x) & !is.nan(x)) else is.atomic(x) && anyNA(x)
}

# cmdstanr's convention: the chain id goes to a formal named chain_id.
call_init_function <- function(f, chain_id) {
  takes_id <- "chain_id" %in% names(formals(f))
  tryCatch(
    if (takes_id) f(chain_id = chain_id) else f(),
    error = function(e) {
      abort_arg(sprintf("The `init` function failed for chain %d: %s", chain_id,
                        conditionMessage(e)))
    }
  )
}

# One path per chain.  A single path with several chains follows CmdStan's
# numbering: inits.json -> inits_<id>.json for each chain id, when the file
# of the first chain exists; otherwise inits.json serves every chain.
init_files <- function(init, chains, chain_ids) {
  if (anyNA(init) || !all(nzchar(init))) {
    abort_arg("`init` paths must be non-empty strings.")
  }
  exists_ <- function(p) file.exists(p) & !dir.exists(p)
  if (length(init) == chains && !(chains > 1L && length(init) == 1L)) {
    missing <- which(!exists_(init))
    if (length(missing)) {
      i <- missing[1L]
      abort_arg(sprintf("Init file '%s' for chain %d does not exist.", init[i], chain_ids[i]))
    }
    return(init)
  }
  if (length(init) != 1L) {
    abort_arg(sprintf(paste0("`init` has %d paths, but there %s %d chain%s: give one path ",
                             "per chain, or one path for all chains."),
                      length(init), if (chains == 1L) "is" else "are", chains,
                      if (chains == 1L) "" else "s"))
  }
  ext <- regmatches(init, regexpr("\\.[^./\\\\]*$", init))
  stem <- if (length(ext)) substr(init, 1L, nchar(init) - nchar(ext)) else init
  numbered <- paste0(stem, "_", chain_ids, ext)
  if (!exists_(numbered[1L])) {
    if (!exists_(init)) {
      abort_arg(sprintf("Init file '%s' does not exist.", init))
    }
    return(rep(init, chains))
  }
  missing <- which(!exists_(numbered))
  if (length(missing)) {
    i <- missing[1L]
    abort_arg(sprintf(paste0("Init file '%s' for chain %d does not exist: as '%s' exists, ",
                             "each chain reads its own numbered file."),
                      numbered[i], chain_ids[i], numbered[1L]))
  }
  numbered
}
