# The arguments of cmdstanr's $sample() beyond the sampler's own settings
# (R/sample_args.R checks those): where its CSV files go, how many digits
# they keep, metric files, and the arguments that cannot apply here.

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

# One variable of a CmdStan JSON file, as an R value (dims row-major in the
# file; R arrays are column-major).
read_json_variable <- function(file, name) {
  d <- tp_data_read(file)[[name]]
  if (is.null(d)) return(NULL)
  dims <- d$dims
  v <- d$values
  if (length(dims) <= 1L) return(v)
  a <- array(v, dim = rev(dims))
  aperm(a, rev(seq_along(dims)))
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

# Draws rounded to sig_figs significant digits, as CmdStan writes them.
round_sig_figs <- function(raw, sig_figs) {
  if (is.null(sig_figs)) return(raw)
  raw$chains <- lapply(raw$chains, function(ch) {
    if (!is.null(ch$draws) && length(ch$draws)) {
      keep <- ch$draws
      ch$draws[] <- signif(keep, sig_figs)
    }
    ch
  })
  raw
}

# After sampling: the CSV, metric and config files asked for.
save_sample_files <- function(fit, a) {
  want <- !is.null(a$output_dir) || !is.null(a$output_basename) || isTRUE(a$save_metric) ||
    isTRUE(a$save_cmdstan_config)
  if (!want || fit$num_chains() == 0L) return(fit)
  dir <- a$output_dir %||% tempdir()
  named <- !is.null(a$output_basename)
  files <- tryCatch(
    fit$save_output_files(dir, basename = a$output_basename, timestamp = !named,
                          random = !named),
    error = function(e) NULL)
  if (is.null(files)) return(fit)
  priv <- fit$.__enclos_env__$private
  stem <- sub("\\.csv$", "", files)
  used <- priv$used_
  if (isTRUE(a$save_metric)) {
    priv$metric_files_ <- paste0(stem, "_metric.json")
    for (i in seq_along(used)) {
      ch <- priv$chains_[[used[i]]]
      write_json_text(list(stepsize = ch$step_size, metric_type = a$metric,
                           inv_metric = ch$inv_metric), priv$metric_files_[i])
    }
  }
  if (isTRUE(a$save_cmdstan_config)) {
    priv$config_files_ <- paste0(stem, "_config.json")
    meta <- fit$metadata()
    meta$time <- NULL
    meta$start_datetime <- format(meta$start_datetime)
    for (i in seq_along(used)) {
      m <- meta
      m$chain_id <- priv$chain_ids()[used[i]]
      m$init <- if (is.numeric(m$init) || is.character(m$init)) m$init else NULL
      write_json_text(m, priv$config_files_[i])
    }
  }
  fit
}

# A small JSON writer for the metric and config files (numbers at full
# precision, matrices as arrays of rows, NULL as null); jsonlite is not a
# dependency.
json_text <- function(x) {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    if (length(x) && !is.null(names(x)) && all(nzchar(names(x)))) {
      items <- vapply(names(x), function(n) paste0(json_string(n), ": ", json_text(x[[n]])), "")
      return(paste0("{", paste(items, collapse = ", "), "}"))
    }
    return(paste0("[", paste(vapply(x, json_text, ""), collapse = ", "), "]"))
  }
  if (is.matrix(x)) {
    rows <- vapply(seq_len(nrow(x)), function(i) json_text(as.vector(x[i, ])), "")
    return(paste0("[", paste(rows, collapse = ", "), "]"))
  }
  atom <- if (is.character(x)) json_string(x) else if (is.logical(x)) {
    ifelse(is.na(x), "null", ifelse(x, "true", "false"))
  } else if (is.numeric(x)) {
    out <- csv_numbers(x)
    out[is.na(x)] <- "null"
    out[x == Inf] <- "Infinity"
    out[x == -Inf] <- "-Infinity"
    out
  } else {
    json_string(as.character(x))
  }
  if (length(x) == 1L) atom else paste0("[", paste(atom, collapse = ", "), "]")
}

# (json_string() is R/profiles.R's.)

write_json_text <- function(x, file) {
  writeLines(json_text(x), file)
  invisible(file)
}
