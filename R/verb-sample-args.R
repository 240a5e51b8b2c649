# The arguments of `$sample()`: checked and normalized before any chain
# starts.  The sampler's own settings (validate_sample_args(), then
# check_sample_args_model() once the model's size is known); cmdstanr's
# other arguments (where its CSV files go, how many digits they keep,
# metric files, the arguments that cannot apply here, the deprecated
# names); `mpi`; `iter_warmup = "auto"` and `target_ess` (R/verb-sample-auto.R).

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

#' The arguments of cmdstanr's `$sample()` in tapestry
#'
#' @description
#' A model's `$sample()` takes every argument of 'cmdstanr''s `$sample()`.
#' Those about the sampler (`iter_warmup`, `adapt_delta`, `metric`,
#' `inv_metric`, `step_size`, `init_buffer`, ...) are described there; the
#' others work as follows.
#'
#' * `output_dir`: when given (or set with `options(cmdstanr_output_dir =)`),
#'   one 'CmdStan' CSV file per chain is written there after sampling,
#'   named as 'cmdstanr' names them:
#'   `<model>-<YYYYmmddHHMM>-<chain_id>-<random>.csv`, or
#'   `<output_basename>-<chain_id>.csv` when `output_basename` is given.
#'   The folder must exist and be writable: as in 'cmdstanr', anything else
#'   is an error before sampling starts. Without `output_dir` the files of
#'   `output_basename`, `save_metric` or `save_cmdstan_config` go to
#'   [tempdir()]; otherwise the fit's `$output_files()` writes them there
#'   when first asked for, so they are always available (to
#'   `rstan::read_stan_csv()`, for instance) and sampling does not pay for
#'   them.
#' * `sig_figs`: significant digits kept (1 to 18), as 'CmdStan' rounds
#'   what it writes: the draws of the fit and of its CSV files are rounded to
#'   them. `NULL` keeps full precision.
#' * `metric_file`: a JSON or R dump file (or one per chain) holding
#'   `inv_metric` (a vector for a diagonal metric, a matrix for a dense one),
#'   as 'CmdStan' reads it; the metric becomes `"dense_e"` for a matrix when
#'   `metric` is not given. It cannot be given with `inv_metric`.
#' * `save_metric`: writes each chain's adapted step size and inverse metric
#'   as `<csv file>_metric.json` (`$metric_files()`).
#' * `save_cmdstan_config`: writes each chain's settings (the fit's
#'   `$metadata()`) as `<csv file>_config.json` (`$config_files()`).
#' * `diagnostics`: which of `"divergences"`, `"treedepth"`, `"ebfmi"` the
#'   run checks after sampling, as `$diagnostic_summary()` does; `NULL` or
#'   `character(0)` checks none. Kept in the fit's `$metadata()`.
#' * `show_exceptions`: accepted for compatibility; the chains' messages
#'   (rejections) follow `show_messages`.
#' * `fixed_param`: `TRUE` runs the fixed_param sampler (draws that do not
#'   move, generated quantities drawn anew at each iteration); `save_warmup`
#'   is then `FALSE`, as in 'cmdstanr'.
#' * `opencl_ids`: refused with a message: tapestry runs on the CPU, with
#'   no OpenCL.
#' * `save_latent_dynamics = TRUE`: a warning says that tapestry does not
#'   record the latent dynamics (momenta and gradients of each iteration),
#'   and the run goes on without them.
#'
#' @name sample_cmdstanr_arguments
#' @md
NULL

# cmdstanr's deprecated arguments of $sample() (removed in cmdstanr 1.0),
# with its own warnings: the new values, named as the arguments they set,
# read from the method's frame `env`.
deprecated_sample_args <- function(env) {
  renamed <- c(cores = "parallel_chains", num_cores = "parallel_chains", num_chains = "chains",
               num_warmup = "iter_warmup", num_samples = "iter_sampling",
               max_depth = "max_treedepth", stepsize = "step_size",
               save_extra_diagnostics = "save_latent_dynamics")
  out <- list()
  for (old in names(renamed)) {
    v <- get(old, envir = env)
    if (is.null(v)) next
    warning(warningCondition(sprintf("'%s' is deprecated. Please use '%s' instead.", old,
                                     renamed[[old]]), class = "tapestry_warning"))
    out[renamed[[old]]] <- list(v)
  }
  v <- get("validate_csv", envir = env)
  if (!is.null(v)) {
    warning(warningCondition("'validate_csv' is deprecated. Please use 'diagnostics' instead.",
                             class = "tapestry_warning"))
    if (is.logical(v)) {
      out["diagnostics"] <- list(if (isTRUE(v)) c("divergences", "treedepth", "ebfmi") else NULL)
    }
  }
  out
}

# Checked before the data are bound.  Returns the list with normalized
# values; a metric file becomes inv_metric (and metric).
check_extra_sample_args <- function(extra, metric, inv_metric) {
  e <- list(
    save_latent_dynamics = arg_flag(extra$save_latent_dynamics, "save_latent_dynamics", FALSE),
    output_dir = extra$output_dir,
    output_basename = extra$output_basename,
    sig_figs = extra$sig_figs,
    fixed_param = arg_flag(extra$fixed_param, "fixed_param", FALSE),
    show_exceptions = arg_flag(extra$show_exceptions, "show_exceptions", TRUE),
    diagnostics = extra$diagnostics,
    save_metric = arg_flag(extra$save_metric, "save_metric", FALSE),
    save_cmdstan_config = arg_flag(extra$save_cmdstan_config, "save_cmdstan_config", FALSE),
    show_progress_bar = arg_flag(extra$show_progress_bar, "show_progress_bar", FALSE)
  )
  if (!is.null(extra$opencl_ids)) {
    abort_arg(paste0("`opencl_ids` can't be used: tapestry runs Stan programs on the CPU, ",
                     "without OpenCL. Leave `opencl_ids = NULL`."))
  }
  if (e$save_latent_dynamics) {
    warning(warningCondition(paste0(
      "`save_latent_dynamics = TRUE` is ignored: tapestry does not record the latent ",
      "dynamics (momenta and gradients of each iteration)."), class = "tapestry_warning"))
  }
  if (!is.null(e$output_dir)) {
    # as cmdstanr (checkmate's assert_directory_exists), before any work
    check_string(e$output_dir, "output_dir")
    if (file.exists(e$output_dir) && !dir.exists(e$output_dir)) {
      abort_arg(sprintf("`output_dir` '%s' is a file, not a folder.", e$output_dir))
    }
    if (!dir.exists(e$output_dir)) {
      abort_arg(sprintf("Assertion on 'output_dir' failed: Directory '%s' does not exist.",
                        e$output_dir))
    }
    if (file.access(e$output_dir, 2L) != 0L) {
      abort_arg(sprintf("Assertion on 'output_dir' failed: Directory '%s' not writeable.",
                        e$output_dir))
    }
  }
  if (!is.null(e$output_basename)) check_string(e$output_basename, "output_basename")
  if (!is.null(e$sig_figs)) {
    s <- e$sig_figs
    if (!is.numeric(s) || length(s) != 1L || is.na(s) || s != round(s) || s < 1 || s > 18) {
      abort_arg(sprintf("`sig_figs` must be a whole number from 1 to 18, not %s.",
                        show_value(s)))
    }
    e$sig_figs <- as.integer(s)
  }
  known <- c("divergences", "treedepth", "ebfmi")
  d <- e$diagnostics
  if (!is.null(d)) {
    if (!is.character(d) || anyNA(d) || !all(d %in% known)) {
      abort_arg(sprintf("`diagnostics` must be NULL or name some of %s, not %s.",
                        paste0("\"", known, "\"", collapse = ", "), show_value(d)))
    }
    e$diagnostics <- unique(d)
  } else {
    e$diagnostics <- character()
  }
  if (!is.null(extra$metric_file)) {
    if (!is.null(inv_metric)) {
      abort_arg("Give `metric_file` or `inv_metric`, not both.")
    }
    m <- read_metric_files(extra$metric_file)
    is_dense <- is.matrix(m[[1L]])
    if (is.null(metric)) metric <- if (is_dense) "dense_e" else "diag_e"
    e$inv_metric <- if (length(m) == 1L) m[[1L]] else m
    e$metric <- metric
    e$metric_file <- normalizePath(extra$metric_file)
  }
  e
}

# The inverse metric of each metric file (JSON or R dump, `inv_metric`).
read_metric_files <- function(files) {
  if (!is.character(files) || length(files) == 0L || anyNA(files)) {
    abort_arg(sprintf("`metric_file` must be the path of a JSON or R dump file, not %s.",
                      show_value(files)))
  }
  lapply(files, function(f) {
    if (!file.exists(f) || dir.exists(f)) {
      abort_arg(sprintf("Metric file '%s' does not exist.", f))
    }
    x <- if (is_rdump_file(f)) read_rdump(f)$inv_metric else read_json_variable(f, "inv_metric")
    if (is.null(x)) abort_arg(sprintf("Metric file '%s' has no variable `inv_metric`.", f))
    x
  })
}

add_extra_sample_args <- function(a, extra) {
  for (n in c("save_latent_dynamics", "output_dir", "output_basename", "sig_figs",
              "fixed_param", "show_exceptions", "diagnostics", "save_metric",
              "save_cmdstan_config", "metric_file", "show_progress_bar")) {
    a[n] <- list(extra[[n]])
  }
  if (a$fixed_param) a$save_warmup <- FALSE
  a
}

arg_mpi_mode <- function(mpi) {
  if (is.character(mpi) && length(mpi) > 1L) mpi <- mpi[1L]
  if (!is.character(mpi) || length(mpi) != 1L || !(mpi %in% c("map_rect", "chains")))
    abort_arg(paste0("`mpi` must be \"map_rect\" or \"chains\", not ", show_value(mpi)))
  mpi
}

# iter_warmup = "auto": list(auto, iter_warmup (the maximum when auto)).
arg_warmup_auto <- function(iter_warmup, iter_warmup_max) {
  if (is.character(iter_warmup)) {
    if (!identical(iter_warmup, "auto")) {
      abort_arg(sprintf("`iter_warmup` must be a whole number >= 0 or \"auto\", not %s.",
                        show_value(iter_warmup)))
    }
    return(list(auto = TRUE,
                iter_warmup = arg_count(iter_warmup_max, "iter_warmup_max", 1L, 1000L)))
  }
  if (!is.null(iter_warmup_max)) {
    abort_arg("`iter_warmup_max` applies only with `iter_warmup = \"auto\"`.")
  }
  list(auto = FALSE, iter_warmup = iter_warmup)
}

arg_target_ess <- function(target_ess, target_variables) {
  if (!is.null(target_ess)) {
    if (!is.numeric(target_ess) || length(target_ess) != 1L || is.na(target_ess) ||
        !is.finite(target_ess) || target_ess <= 0) {
      abort_arg(sprintf("`target_ess` must be NULL or a positive number, not %s.",
                        show_value(target_ess)))
    }
    target_ess <- as.double(target_ess)
  }
  if (!is.null(target_variables)) {
    if (is.null(target_ess)) abort_arg("`target_variables` applies only with `target_ess`.")
    if (!is.character(target_variables) || !length(target_variables) || anyNA(target_variables)) {
      abort_arg(sprintf("`target_variables` must be NULL or names of variables, not %s.",
                        show_value(target_variables)))
    }
  }
  list(target_ess = target_ess, target_variables = target_variables)
}

# Checks that need the other arguments (before the data are bound).
check_auto_args <- function(a, mpi) {
  if (!isTRUE(a$warmup_auto) && is.null(a$target_ess)) return(invisible(a))
  if (isTRUE(a$warmup_auto)) {
    if (!a$adapt_engaged) {
      abort_arg("`iter_warmup = \"auto\"` adapts the sampler: it can't be used with `adapt_engaged = FALSE`.")
    }
    least <- a$init_buffer + auto_window + a$term_buffer
    if (a$iter_warmup < least) {
      abort_arg(sprintf(paste0(
        "`iter_warmup_max` must be at least %d with `iter_warmup = \"auto\"`: the initial ",
        "buffer (%d), one window of %d and the final buffer (%d), not %d."),
        least, a$init_buffer, auto_window, a$term_buffer, a$iter_warmup))
    }
  }
  if (mpi == "chains" && tapestry_mpi_size() > 1L) {
    abort_arg(paste0("`iter_warmup = \"auto\"` and `target_ess` look at every chain's draws ",
                     "at once, which `mpi = \"chains\"` spreads over the ranks: use ",
                     "`mpi = \"map_rect\"` or a fixed schedule."))
  }
  invisible(a)
}
