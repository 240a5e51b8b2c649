# Summaries of draws in C (src/nuts/nuts_sum*.c, src/r/r_summary.c):
# posterior::summarise_draws() for the measures posterior names, computed
# over variables in parallel on the pool from the draws where they are.
# Anything else (a formula, a function of the user's, an argument the C
# code does not take) goes to posterior as it is: summary_plan() returns
# NULL and the caller calls posterior.

# The kinds of src/nuts/nuts_sum.h, in its order.
summary_kinds <- c(mean = 0L, median = 1L, sd = 2L, var = 3L, mad = 4L, quantile = 5L,
                   rhat = 6L, rhat_basic = 7L, ess_bulk = 8L, ess_tail = 9L, ess_mean = 10L,
                   ess_sd = 11L, ess_quantile = 12L, mcse_mean = 13L, mcse_sd = 14L,
                   order_halfdiff = 15L)

# The measure a function is, when it is one the C code computes as
# posterior would call it on an iterations x chains matrix; NULL otherwise.
# (stats::var is not one: on a matrix it is the chains' covariance matrix.)
summary_measure <- function(f) {
  if (!is.function(f)) return(NULL)
  known <- list(
    mean = base::mean, median = stats::median, sd = stats::sd, sd = posterior::sd,
    mad = stats::mad, mad = posterior::mad, quantile2 = posterior::quantile2,
    rhat = posterior::rhat, rhat_basic = posterior::rhat_basic,
    ess_bulk = posterior::ess_bulk, ess_tail = posterior::ess_tail,
    ess_basic = posterior::ess_basic, ess_mean = posterior::ess_mean,
    ess_sd = posterior::ess_sd, ess_median = posterior::ess_median,
    ess_quantile = posterior::ess_quantile, mcse_mean = posterior::mcse_mean,
    mcse_median = posterior::mcse_median, mcse_sd = posterior::mcse_sd,
    mcse_quantile = posterior::mcse_quantile)
  for (i in seq_along(known)) if (identical(f, known[[i]])) return(names(known)[i])
  NULL
}

# Measures that take `probs` (from .args) and those that pass `...` on
# without it; any other takes no `.args` at all in posterior's call.
summary_probs_measures <- c("quantile2", "ess_quantile", "mcse_quantile")
summary_dots_measures <- c("mean", "median", "rhat", "rhat_basic", "ess_bulk", "ess_tail",
                           "ess_basic", "ess_mean", "ess_sd", "mcse_mean", "mcse_sd")

# The plan of a summary: the ops for the C code and the names of the
# result's columns, or NULL when posterior must compute it.  `funs`,
# `calls` and `env` are as summarise_draws.draws() has them: as.list(c(...)),
# the deparsed expressions of `...`, and the frame it was called from.
summary_plan <- function(funs = NULL, calls = character(), env = parent.frame(),
                         .args = list()) {
  # the default plan, made once a session
  if (!length(funs) && !length(.args) && !is.null(summary_memo$default)) return(summary_memo$default)
  if (!length(funs)) {
    measures <- c("mean", "median", "sd", "mad", "quantile2", "rhat", "ess_bulk", "ess_tail")
    names(measures) <- c("mean", "median", "sd", "mad", "quantile", "rhat", "ess_bulk", "ess_tail")
  } else {
    if (is.null(names(funs))) names(funs) <- rep("", length(funs))
    measures <- character(length(funs))
    for (i in seq_along(funs)) {
      f <- funs[[i]]
      fname <- NULL
      if (is.character(f)) {
        if (length(f) != 1L || is.na(f)) return(NULL)
        fname <- f
        # looked up as posterior looks names up
        f <- if (exists(fname, envir = env)) get0(fname, envir = env, mode = "function")
             else if (fname %in% getNamespaceExports("posterior"))
               get0(fname, envir = asNamespace("posterior"), mode = "function")
        if (is.null(f)) return(NULL)
      }
      m <- summary_measure(f)
      if (is.null(m)) return(NULL)
      if (!nzchar(names(funs)[i])) {
        names(funs)[i] <- if (!is.null(fname)) fname else calls[i]
      }
      measures[i] <- m
    }
    names(measures) <- names(funs)
  }
  probs <- c(0.05, 0.95)
  if (length(.args)) {
    if (!is.list(.args) || !identical(names(.args), "probs")) return(NULL)
    if (!all(measures %in% c(summary_probs_measures, summary_dots_measures))) return(NULL)
    probs <- .args$probs
  }
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(probs < 0 | probs > 1)) {
    if (any(measures %in% summary_probs_measures)) return(NULL)
  }
  kinds <- integer()
  prob <- double()
  cols <- character()
  group <- integer()          # which measure each op belongs to
  mcse <- logical()           # ops whose result is an ESS to turn into an MCSE of a quantile
  add <- function(kind, p = 0, mc = FALSE) {
    kinds <<- c(kinds, summary_kinds[[kind]])
    prob <<- c(prob, as.double(p))
    mcse <<- c(mcse, mc)
  }
  for (i in seq_along(measures)) {
    nm <- names(measures)[i]
    m <- measures[[i]]
    one <- function(kind, p = 0, mc = FALSE) {
      add(kind, p, mc)
      cols <<- c(cols, nm)
      group <<- c(group, i)
    }
    several <- function(kind, prefix, mc = FALSE) {
      for (p in probs) add(kind, p, mc)
      cols <<- c(cols, paste0(prefix, probs * 100))
      group <<- c(group, rep(i, length(probs)))
    }
    switch(m,
      quantile2 = several("quantile", "q"),
      ess_quantile = several("ess_quantile", "ess_q"),
      mcse_quantile = several("ess_quantile", "mcse_q", mc = TRUE),
      ess_median = one("ess_quantile", 0.5),
      mcse_median = one("ess_quantile", 0.5, mc = TRUE),
      ess_basic = one("ess_mean"),
      one(m))
  }
  if (anyDuplicated(cols) || "variable" %in% cols || anyNA(cols)) return(NULL)
  plan <- list(kinds = unname(kinds), probs = prob, cols = cols, mcse = mcse)
  if (!length(funs) && !length(.args)) summary_memo$default <- plan
  plan
}

# What a session computes once: the default plan, and the attributes
# tibble::num() gives a column (with no .num_args).
summary_memo <- new.env(parent = emptyenv())

# An op's identity, to find it among a kept summary's.
summary_keys <- function(plan) paste(plan$kinds, plan$probs, plan$mcse)

# The ops that compute an ESS, which posterior may cap (with a warning).
summary_can_cap <- function(plan) {
  plan$mcse | plan$kinds %in% summary_kinds[c("ess_bulk", "ess_tail", "ess_mean", "ess_sd",
                                                "ess_quantile", "mcse_mean", "mcse_sd")]
}

# The deparsed expressions of `...` (substitute(list(...))), as
# summarise_draws() names unnamed functions.
summary_calls <- function(call) {
  vapply(as.list(call)[-1L], function(e) {
    gsub("[ \t\r\n]+", " ", paste(deparse(e), collapse = ""), perl = TRUE)
  }, "")
}

# Runs a plan on draws (an iterations x chains x variables double array,
# or list(chains, first, n, cols) of a fit's chains): a matrix of variables
# x columns, with attribute "capped" (per variable, how many ESS values
# posterior would have capped, with a warning each).  The MCSE of a
# quantile takes two passes: its ESS, then qbeta() (R's, here on the main
# thread) picks the order statistics whose half difference it is.
summary_compute <- function(draws, plan, ndraws, integer = FALSE, threads = NULL) {
  n <- length(plan$kinds)
  none <- vector("list", n)
  out <- .Call(C_tp_summary, draws, plan$kinds, plan$probs, none, none, threads, integer)
  capped <- attr(out, "capped")
  if (any(plan$mcse)) {
    p <- c(0.1586553, 0.8413447)
    lo <- hi <- none
    for (o in which(plan$mcse)) {
      ess <- out[, o]
      prob <- plan$probs[o]
      a1 <- suppressWarnings(stats::qbeta(p[1], ess * prob + 1, ess * (1 - prob) + 1))
      a2 <- suppressWarnings(stats::qbeta(p[2], ess * prob + 1, ess * (1 - prob) + 1))
      lo[[o]] <- as.double(pmax(floor(a1 * ndraws), 1))
      hi[[o]] <- as.double(pmin(ceiling(a2 * ndraws), ndraws))
    }
    k <- which(plan$mcse)
    second <- .Call(C_tp_summary, draws, rep(summary_kinds[["order_halfdiff"]], length(k)),
                    double(length(k)), lo[k], hi[k], threads, integer)
    out[, k] <- second
  }
  attr(out, "capped") <- capped
  out
}

# posterior's draws_summary: a tibble of the variable and the columns, each
# made a pillar number with .num_args, as summarise_draws() leaves it.
draws_summary_frame <- function(variables, values, cols,
                                .num_args = getOption("posterior.num_args", list())) {
  out <- vector("list", length(cols) + 1L)
  names(out) <- c("variable", cols)
  out[[1L]] <- variables
  # tibble::num() without arguments only sets attributes, the same for
  # every column: taken from one call and set directly (a summary of a few
  # variables should cost little beside the chains)
  proto <- if (!length(.num_args)) summary_memo$num_attr
  if (!length(.num_args) && is.null(proto)) {
    proto <- attributes(tibble::num(0.5))
    if (!identical(attributes(tibble::num(c(-1e300, NA, NaN, Inf))), proto)) proto <- NULL
    summary_memo$num_attr <- proto
  }
  for (j in seq_along(cols)) {
    x <- as.double(values[, j])
    if (!is.null(proto)) {
      attributes(x) <- proto
      out[[j + 1L]] <- x
    } else {
      out[[j + 1L]] <- do.call(tibble::num, c(list(x), .num_args))
    }
  }
  attr(out, "row.names") <- c(NA_integer_, -length(variables))
  class(out) <- c("draws_summary", "tbl_df", "tbl", "data.frame")
  out
}

# The warnings posterior gives for ESS values it capped, one each.
warn_capped <- function(capped) {
  for (i in seq_len(sum(capped, na.rm = TRUE))) {
    warning("The ESS has been capped to avoid unstable estimates.", call. = FALSE)
  }
}

# posterior::summarise_draws() on any draws, in C when the plan allows:
# the tests compare it with posterior on arbitrary arrays.
summarise_draws_c <- function(.x, ..., .args = list(),
                              .num_args = getOption("posterior.num_args", list()),
                              threads = NULL) {
  plan <- summary_plan(as.list(c(...)), summary_calls(substitute(list(...))), parent.frame(),
                       .args)
  if (is.null(plan)) {
    return(posterior::summarise_draws(.x, ..., .args = .args, .num_args = .num_args))
  }
  if (!posterior::is_draws(.x)) .x <- posterior::as_draws(.x)
  x <- posterior::as_draws_array(posterior::repair_draws(.x))
  vars <- posterior::variables(x)
  if (posterior::ndraws(x) == 0L || !length(vars)) {
    return(posterior::summarise_draws(.x, ..., .args = .args, .num_args = .num_args))
  }
  x <- unclass(x)[, , vars, drop = FALSE]
  integer <- is.integer(x) || is.logical(x)
  storage.mode(x) <- "double"
  values <- summary_compute(x, plan, dim(x)[1] * dim(x)[2], integer, threads)
  warn_capped(attr(values, "capped"))
  draws_summary_frame(vars, values, plan$cols, .num_args)
}
