# The arguments of `$sample()`: checked and normalized before any chain starts.

#' Check and normalize the arguments of `$sample()`
#'
#' Takes every argument of `$sample()` under 'cmdstanr''s names and defaults
#' (`NULL` stands for the default of any argument) and returns them checked,
#' in the forms the sampler takes. Every problem is an error of class
#' `tapestry_argument_error` naming the argument, what it must be and what
#' was given.
#'
#' @param data `NULL`, a named list or the path of a JSON file.
#' @param seed A non-negative whole number; `NULL` draws one from R's
#'   generator (so `set.seed()` makes runs reproducible).
#' @param chains,chain_ids Number of chains (at least 1) and their distinct
#'   positive ids.
#' @param parallel_chains Chains run at once; capped at `chains`.
#' @param threads_per_chain Threads of a chain's parallel regions; `NULL`
#'   is 1.
#' @param iter_warmup,iter_sampling Iterations (>= 0).
#' @param save_warmup,adapt_engaged,show_messages Flags.
#' @param thin Keep every `thin`-th draw (>= 1).
#' @param refresh Progress every `refresh` iterations; 0 shows none.
#' @param init Kept as given; [process_init()] resolves it.
#' @param adapt_delta Target acceptance statistic, in (0, 1).
#' @param max_treedepth Maximum tree depth (>= 1).
#' @param metric `"diag_e"`, `"dense_e"` or `"unit_e"`.
#' @param inv_metric `NULL`, or the inverse metric: a positive vector of
#'   length `num_upars` (`"diag_e"`) or a symmetric positive definite
#'   `num_upars` x `num_upars` matrix (`"dense_e"`; a vector stands for
#'   its diagonal matrix); or a list of one such value per chain.
#' @param step_size `NULL` (1), a positive number, or one per chain.
#' @param init_buffer,term_buffer,window Adaptation windows (>= 0).
#' @param num_upars Number of unconstrained parameters of the model, or
#'   `NULL` when the data are not bound yet (the seed drawn here seeds
#'   transformed data too): then call [check_sample_args_model()] on the
#'   result once it is known.
#' @return A named list of the arguments, in the order above (without
#'   `num_upars`): counts as integers, `data` as [check_data()] leaves it,
#'   `seed` a double, `step_size` a double vector of length `chains`,
#'   `inv_metric` `NULL` or a list of `chains` numeric vectors (`"diag_e"`)
#'   or matrices (`"dense_e"`).
#' @noRd
validate_sample_args <- function(data = NULL, seed = NULL, chains = 4, chain_ids = seq_len(chains),
                                 parallel_chains = getOption("mc.cores", 1),
                                 threads_per_chain = NULL, iter_warmup = 1000,
                                 iter_sampling = 1000, save_warmup = FALSE, thin = 1,
                                 refresh = 100, init = NULL, adapt_delta = 0.8,
                                 max_treedepth = 10, metric = "diag_e", inv_metric = NULL,
                                 step_size = NULL, adapt_engaged = TRUE, show_messages = TRUE,
                                 init_buffer = 75, term_buffer = 50, window = 25,
                                 num_upars = NULL) {
  chains <- arg_count(chains, "chains", 1L, 4L)
  chain_ids <- arg_chain_ids(if (is.null(chain_ids)) seq_len(chains) else chain_ids, chains)
  parallel_chains <- arg_count(parallel_chains, "parallel_chains", 1L,
                               getOption("mc.cores", 1L))
  metric <- arg_metric(metric)
  args <- list(
    data = check_data(data),
    seed = arg_seed(seed),
    chains = chains,
    chain_ids = chain_ids,
    parallel_chains = min(parallel_chains, chains),
    threads_per_chain = arg_count(threads_per_chain, "threads_per_chain", 1L, 1L),
    iter_warmup = arg_count(iter_warmup, "iter_warmup", 0L, 1000L),
    iter_sampling = arg_count(iter_sampling, "iter_sampling", 0L, 1000L),
    save_warmup = arg_flag(save_warmup, "save_warmup", FALSE),
    thin = arg_count(thin, "thin", 1L, 1L),
    refresh = arg_count(refresh, "refresh", 0L, 100L),
    init = init,
    adapt_delta = arg_adapt_delta(adapt_delta),
    max_treedepth = arg_count(max_treedepth, "max_treedepth", 1L, 10L),
    metric = metric,
    inv_metric = arg_inv_metric(inv_metric, metric, chains, chain_ids),
    step_size = arg_step_size(step_size, chains),
    adapt_engaged = arg_flag(adapt_engaged, "adapt_engaged", TRUE),
    show_messages = arg_flag(show_messages, "show_messages", TRUE),
    init_buffer = arg_count(init_buffer, "init_buffer", 0L, 75L),
    term_buffer = arg_count(term_buffer, "term_buffer", 0L, 50L),
    window = arg_count(window, "window", 0L, 25L)
  )
  if (is.null(num_upars)) args else check_sample_args_model(args, num_upars)
}

#' The checks of `$sample()`'s arguments that need the model's size
#'
#' @param args The value of [validate_sample_args()].
#' @param num_upars Number of unconstrained parameters.
#' @return `args`, with `inv_metric` checked against `num_upars` (a vector
#'   for `"dense_e"` becomes its diagonal matrix).
#' @noRd
check_sample_args_model <- function(args, num_upars) {
  # CmdStan refuses adaptation without warmup ("The number of warmup samples
  # (num_warmup) must be greater than zero if adaptation is enabled"), and
  # cmdstanr passes that on; since 2.36 it lets a model without parameters
  # through, as there is nothing to adapt.  We do the same, before any chain
  # starts.
  if (args$adapt_engaged && args$iter_warmup == 0L && num_upars > 0) {
    abort_arg(paste0("`iter_warmup` is 0, but `adapt_engaged` is TRUE: adaptation needs ",
                     "warmup iterations. Set `adapt_engaged = FALSE` to sample without ",
                     "warmup (giving `step_size` and `inv_metric`), or give `iter_warmup` > 0."))
  }
  m <- args$inv_metric
  if (!is.null(m)) {
    shared <- all(vapply(m, identical, TRUE, m[[1L]]))
    args$inv_metric <- lapply(seq_along(m), function(i) {
      what <- if (shared) {
        "`inv_metric`"
      } else {
        sprintf("`inv_metric` for chain %d", args$chain_ids[i])
      }
      one_inv_metric(m[[i]], args$metric, num_upars, what)
    })
  }
  args
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

arg_chain_ids <- function(x, chains) {
  if (!is.numeric(x) || !is.null(dim(x))) {
    abort_arg(sprintf("`chain_ids` must be positive whole numbers, not %s.", show_value(x)))
  }
  bad <- which(is.na(x) | !is.finite(x) | x != round(x) | x < 1 | x > .Machine$integer.max)
  if (length(bad)) {
    abort_arg(sprintf("`chain_ids` must be positive whole numbers, but element %d is %s.",
                      bad[1L], format(x[bad[1L]])))
  }
  if (length(x) != chains) {
    abort_arg(sprintf("`chain_ids` has %d element%s, but `chains` is %d: give one id per chain.",
                      length(x), if (length(x) == 1L) "" else "s", chains))
  }
  if (anyDuplicated(x)) {
    abort_arg(sprintf("`chain_ids` must be distinct, but %s appears more than once.",
                      format(x[anyDuplicated(x)])))
  }
  as.integer(x)
}

# NULL draws from R's generator, so set.seed() fixes the run.
arg_seed <- function(x) {
  if (is.null(x)) return(as.double(sample.int(.Machine$integer.max, 1L)))
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x < 0 ||
      x != round(x) || x > 2^53) {
    abort_arg(sprintf("`seed` must be a non-negative whole number, not %s.", show_value(x)))
  }
  as.double(x)
}

arg_adapt_delta <- function(x) {
  if (is.null(x)) return(0.8)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !(x > 0 && x < 1)) {
    abort_arg(sprintf("`adapt_delta` must be a number strictly between 0 and 1, not %s.",
                      show_value(x)))
  }
  as.double(x)
}

metrics <- c("diag_e", "dense_e", "unit_e")

arg_metric <- function(x) {
  if (is.null(x)) return("diag_e")
  if (!is.character(x) || length(x) != 1L || is.na(x) || !x %in% metrics) {
    abort_arg(sprintf("`metric` must be one of %s, not %s.",
                      paste0("\"", metrics, "\"", collapse = ", "), show_value(x)))
  }
  x
}

# One step size per chain.
arg_step_size <- function(x, chains) {
  if (is.null(x)) return(rep(1, chains))
  if (!is.numeric(x) || !is.null(dim(x)) || length(x) == 0L) {
    abort_arg(sprintf("`step_size` must be a positive number, or one per chain, not %s.",
                      show_value(x)))
  }
  bad <- which(is.na(x) | !is.finite(x) | x <= 0)
  if (length(bad)) {
    if (length(x) == 1L) {
      abort_arg(sprintf("`step_size` must be a positive number, not %s.", format(x)))
    }
    abort_arg(sprintf("`step_size` must be positive numbers, but element %d is %s.",
                      bad[1L], format(x[bad[1L]])))
  }
  if (length(x) != 1L && length(x) != chains) {
    abort_arg(sprintf(paste0("`step_size` has %d elements, but `chains` is %d: give one ",
                             "step size, or one per chain."), length(x), chains))
  }
  rep_len(as.double(x), chains)
}

# A list of one inverse metric per chain, or NULL for the sampler's default.
# Sizes are checked by check_sample_args_model(), which calls one_inv_metric()
# again with the model's size.
arg_inv_metric <- function(x, metric, chains, chain_ids) {
  if (is.null(x)) return(NULL)
  if (metric == "unit_e") {
    abort_arg(paste0("`inv_metric` can't be given with `metric = \"unit_e\"`, whose metric ",
                     "is the identity: use \"diag_e\" or \"dense_e\"."))
  }
  per_chain <- is.list(x) && !is.data.frame(x)
  if (per_chain) {
    if (length(x) != 1L && length(x) != chains) {
      abort_arg(sprintf(paste0("`inv_metric` is a list of %d element%s, but `chains` is %d: ",
                               "give one inverse metric, or a list of one per chain."),
                        length(x), if (length(x) == 1L) "" else "s", chains))
    }
    if (length(x) == 1L) {
      per_chain <- FALSE
      x <- x[[1L]]
    }
  }
  if (!per_chain) {
    m <- one_inv_metric(x, metric, NULL, "`inv_metric`")
    return(rep(list(m), chains))
  }
  lapply(seq_len(chains), function(i) {
    one_inv_metric(x[[i]], metric, NULL, sprintf("`inv_metric` for chain %d", chain_ids[i]))
  })
}

# One inverse metric: a positive vector (diag_e; also dense_e, for its
# diagonal matrix) or a symmetric positive definite matrix (dense_e).  With
# n NULL (size not known yet) the shape is checked but not the size.
one_inv_metric <- function(x, metric, n, what) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.numeric(x)) {
    abort_arg(sprintf("%s must be numeric, not %s.", what, show_value(x)))
  }
  bad <- which(is.na(x) | !is.finite(x))
  if (length(bad)) {
    abort_arg(sprintf("%s must hold finite numbers, but element %d is %s.", what, bad[1L],
                      format(x[bad[1L]])))
  }
  d <- dim(x)
  plural <- function(k) if (k == 1L) "" else "s"
  if (is.null(d) || length(d) == 1L) {
    if (!is.null(n) && length(x) != n) {
      abort_arg(sprintf("%s has %d element%s, but the model has %d unconstrained parameter%s%s.",
                        what, length(x), plural(length(x)), n, plural(n),
                        if (metric == "dense_e") {
                          sprintf(": give a %d x %d matrix (or its diagonal)", n, n)
                        } else {
                          ""
                        }))
    }
    if (any(x <= 0)) {
      i <- which(x <= 0)[1L]
      abort_arg(sprintf("%s must be positive, but element %d is %s.", what, i, format(x[i])))
    }
    x <- as.double(x)
    return(if (metric == "dense_e" && !is.null(n)) diag(x, nrow = n) else x)
  }
  if (metric == "diag_e") {
    abort_arg(sprintf(paste0("%s must be a vector for `metric = \"diag_e\"`, not %s: use ",
                             "`metric = \"dense_e\"` for a dense matrix."), what, show_value(x)))
  }
  if (length(d) != 2L || d[1L] != d[2L] || (!is.null(n) && d[1L] != n)) {
    if (is.null(n)) {
      abort_arg(sprintf("%s must be a square matrix, not %s.", what, show_value(x)))
    }
    abort_arg(sprintf(paste0("%s must be a %d x %d matrix (the model has %d unconstrained ",
                             "parameter%s), not %s."), what, n, n, n, plural(n), show_value(x)))
  }
  k <- d[1L]
  m <- matrix(as.double(x), k, k)
  if (k > 0L && max(abs(m - t(m))) > 1e-8 * max(abs(m))) {
    abort_arg(sprintf("%s must be a symmetric matrix.", what))
  }
  m <- (m + t(m)) / 2
  if (k > 0L && inherits(tryCatch(chol(m), error = function(e) e), "error")) {
    abort_arg(sprintf("%s must be positive definite (its Cholesky factorization failed).", what))
  }
  m
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
