# $sample(): chains of NUTS as tasks of the package's thread pool, all
# reading one data context (src/r/r_sample.c runs them and shows progress).
# Its arguments are checked in R/verb-sample-args.R; after the run the draws
# are rounded to `sig_figs` and the files asked for are written (the end of
# this file).

# The context's external pointer (rebound if it was saved and loaded).
context_ptr <- function(context) {
  context$.__enclos_env__$private$ctx()
}

metric_code <- function(metric) {
  match(metric, c("unit_e", "diag_e", "dense_e")) - 1L
}

sample_model <- function(model, data, seed, refresh, init, chains, parallel_chains,
                         chain_ids, threads_per_chain, iter_warmup, iter_sampling,
                         save_warmup, thin, max_treedepth, adapt_engaged, adapt_delta,
                         step_size, metric, inv_metric, init_buffer, term_buffer, window,
                         show_messages, profile_trace_every = NULL, mpi = "map_rect",
                         diagnostics = hmc_diagnostics, extra = list(),
                         iter_warmup_max = NULL, target_ess = NULL, target_variables = NULL) {
  mpi <- arg_mpi_mode(mpi)
  # iter_warmup = "auto" (R/verb-sample-auto.R): the schedule is sized for its maximum
  auto <- arg_warmup_auto(iter_warmup, iter_warmup_max)
  iter_warmup <- auto$iter_warmup
  target <- arg_target_ess(target_ess, target_variables)
  diagnostics <- arg_diagnostics(diagnostics)
  # cmdstanr's other arguments (R/verb-sample-args.R): checked first; a
  # metric_file becomes inv_metric (and metric)
  extra <- check_extra_sample_args(extra, metric, inv_metric)
  if (!is.null(extra$inv_metric)) {
    inv_metric <- extra$inv_metric
    metric <- extra$metric
  }
  # cheap checks first, so a typo fails before the data are bound
  a <- validate_sample_args(
    data = data, seed = seed, chains = chains, chain_ids = chain_ids,
    parallel_chains = parallel_chains, threads_per_chain = threads_per_chain,
    iter_warmup = iter_warmup, iter_sampling = iter_sampling, save_warmup = save_warmup,
    thin = thin, refresh = refresh, init = init, adapt_delta = adapt_delta,
    max_treedepth = max_treedepth, metric = metric, inv_metric = inv_metric,
    step_size = step_size, adapt_engaged = adapt_engaged, show_messages = show_messages,
    init_buffer = init_buffer, term_buffer = term_buffer, window = window,
    num_upars = NULL)
  a$profile_trace_every <- arg_trace_every(profile_trace_every, "profile_trace_every")
  a <- add_extra_sample_args(a, extra)
  a$warmup_auto <- auto$auto
  a$target_ess <- target$target_ess
  a$target_variables <- target$target_variables
  if (!a$fixed_param) check_auto_args(a, mpi)
  # a run that cannot fit in memory is refused before the data are bound
  # (the outputs are known after: checked again then)
  check_run_fits(a, ncol = 7, nupars = 0)
  context <- model$bind(a$data, a$seed)
  # CmdStan's fixed_param sampler, chosen for a program without parameters
  # as cmdstanr chooses it (R/verb-fixed-param.R)
  a$fixed_param <- isTRUE(a$fixed_param) || context$num_upars() == 0L
  if (a$fixed_param) a <- fixed_param_args(a)
  a <- check_sample_args_model(a, context$num_upars())
  check_run_fits(a, ncol = 7 + length(.Call(C_tp_output_names, context_ptr(context), TRUE, TRUE)),
                 nupars = context$num_upars())
  inits <- process_init(a$init, a$chains, a$chain_ids, context)
  # Stan's dual averaging constants and no step size jitter: not arguments
  # of cmdstanr's $sample(), but part of the run's metadata
  a$gamma <- 0.05
  a$kappa <- 0.75
  a$t0 <- 10
  a$stepsize_jitter <- 0
  config <- list(
    num_warmup = a$iter_warmup, num_samples = a$iter_sampling, thin = a$thin,
    save_warmup = as.integer(a$save_warmup), adapt_engaged = as.integer(a$adapt_engaged),
    delta = a$adapt_delta, gamma = a$gamma, kappa = a$kappa, t0 = a$t0,
    init_buffer = a$init_buffer, term_buffer = a$term_buffer, window = a$window,
    max_depth = a$max_treedepth, metric = metric_code(a$metric),
    stepsize_jitter = a$stepsize_jitter,
    stepsize = as.double(a$step_size), inv_metric = a$inv_metric,
    threads_per_chain = a$threads_per_chain,
    profile_trace_every = a$profile_trace_every, fixed_param = as.integer(a$fixed_param),
    turns = as.integer(!isFALSE(getOption("tapestry.chain_turns"))))
  if ((a$warmup_auto || !is.null(a$target_ess)) && !a$fixed_param) {
    # a run in pieces (R/verb-sample-auto.R, src/r/r_sample.c's cross_step)
    config$warmup_auto <- as.integer(a$warmup_auto)
    config$warmup_window <- auto_window
    config$check_every <- auto_check_every
    config$upar_names <- context$upar_names()
    if (!is.null(a$target_ess)) {
      config$target_ess <- a$target_ess
      config$target_cols <- target_columns(context, a$target_variables)
    }
  }
  chains_mode <- mpi == "chains" && tapestry_mpi_size() > 1L
  if (tapestry_mpi_rank() > 0 && !chains_mode) {
    # another rank of an MPI job: serve rank 0's map_rect jobs until its run ends
    .Call(C_tp_mpi_serve, context_ptr(context))
    return(invisible(NULL))
  }
  # the chains that run at once: parallel_chains, at most the cores (the C
  # side caps the pool there), so the header says what really happens
  at_once <- min(a$parallel_chains, .Call(C_tp_cores))
  if (a$show_messages && tapestry_mpi_rank() == 0) {
    cat(running_header(a$chains, at_once, a$parallel_chains))
  }
  # show_messages = FALSE is silent, progress included (as cmdstanr); the
  # one-line display where the console is interactive, or when asked for
  shown_refresh <- if (a$show_messages) a$refresh else 0L
  config$progress <- progress_display(a$chain_ids, a$iter_warmup, a$iter_sampling, shown_refresh,
                                      interactive() || isTRUE(a$show_progress_bar))
  start <- Sys.time()
  # the pool: parallel_chains * threads_per_chain threads, at most the cores
  # (the C side caps it); a chain's regions take helpers only from idle workers
  pool <- as.integer(min(as.double(a$parallel_chains) * a$threads_per_chain,
                         .Machine$integer.max))
  if (chains_mode) {
    raw <- sample_chains_over_ranks(context, config, inits, a, pool)
    if (is.null(raw)) return(invisible(NULL))
  } else {
    config$mpi_session <- 1L
    raw <- .Call(C_tp_sample, context_ptr(context), config, inits, a$chain_ids, a$seed,
                 a$parallel_chains, pool, shown_refresh,
                 a$show_messages, interactive() || isTRUE(a$show_progress_bar))
  }
  elapsed <- as.double(difftime(Sys.time(), start, units = "secs"))
  if (a$fixed_param) raw <- fixed_param_raw(raw)
  report_chains(raw, elapsed, a$show_messages)
  # the warmup and sampling lengths the decisions chose, and their warnings
  a <- apply_cross(a, raw)
  if (a$show_messages && isTRUE(getOption("tapestry.verbose"))) report_plans(context)
  a$time_total <- elapsed
  a$model_name <- model$model_name()
  raw <- round_sig_figs(raw, a$sig_figs)
  # each chain of raw carries its profiles and trace (when one was asked
  # for); the fit keeps the chains as they are
  fit <- TapestryFit$new(raw, model, context, a)
  save_sample_files(fit, a)
  # cmdstanr's warnings after the run (R/ux-diagnostics.R)
  report_diagnostics(fit, diagnostics, rhat_ess = !isTRUE(raw$interrupted))
  fit
}

# Refuses, before any work, a run whose draws cannot be held within
# tapestry_memory_limit(): each chain keeps every saved draw (ncol numbers:
# the sampler's columns and the outputs) with its unconstrained point, plus
# a fixed record (C_tp_chain_bytes).  A million chains of 1000 draws would
# otherwise allocate until the machine gave out.
check_run_fits <- function(a, ncol, nupars) {
  per <- function(n) if (n <= 0) 0 else ceiling(n / a$thin)
  rows <- per(a$iter_sampling) + if (isTRUE(a$save_warmup)) per(a$iter_warmup) else 0
  bytes <- as.double(a$chains) *
    (rows * (ncol + max(nupars, 1)) * 8 + .Call(C_tp_chain_bytes))
  limit <- tapestry_memory_limit()[["limit"]]
  if (bytes <= limit) return(invisible(bytes))
  size <- function(b) format(structure(b, class = "object_size"), units = "auto")
  tapestry_raise(sprintf(paste0(
    "This run can't fit in memory: %s chain%s of %s saved draw%s, each of %s%s numbers, ",
    "need %s%s, more than tapestry_memory_limit() allows (%s). Run fewer chains or ",
    "iterations (or thin them), or raise the limit with tapestry_memory_limit()."),
    format(a$chains, big.mark = ","), if (a$chains == 1L) "" else "s",
    format(rows, big.mark = ","), if (rows == 1) "" else "s",
    if (nupars == 0) "at least " else "", format(ncol + max(nupars, 1), big.mark = ","),
    if (nupars == 0) "at least " else "", size(bytes), size(limit)),
    "tapestry_memory_error")
}

# With options(tapestry.verbose = TRUE): which path the gradients took.
report_plans <- function(context) {
  s <- plan_stats(context)
  cat(sprintf("Gradients: %s replayed from recorded plans, %s on the tree interpreter (%s plan%s recorded, %s replay%s fell back).\n",
              format(s$replays, big.mark = ","), format(s$evaluations - s$replays, big.mark = ","),
              s$records, if (s$records == 1) "" else "s", s$fallbacks, if (s$fallbacks == 1) "" else "s"))
  if (nzchar(s$why)) cat(sprintf("The program stays on the tree interpreter: %s.\n", s$why))
  loops <- .Call(C_tp_plan_loops, context_ptr(context))
  if (length(loops$line)) {
    n <- length(loops$line)
    cat(sprintf("Loops: %d of %d vectorized (the fit's $plan() says which, and why not).\n",
                sum(loops$vectorized == loops$runs), n))
  }
  cat("\n")
  invisible(s)
}

# `parallel`: the chains that run at once; `asked`: parallel_chains, when
# the cores allow fewer.
running_header <- function(chains, parallel, asked = parallel) {
  cores <- if (asked > parallel) sprintf(" (%d asked; this machine allows %d)", asked, parallel) else ""
  if (chains == 1L) return("Running MCMC with 1 chain...\n\n")
  if (parallel == 1L) return(sprintf("Running MCMC with %d sequential chains%s...\n\n", chains, cores))
  if (parallel >= chains) return(sprintf("Running MCMC with %d parallel chains...\n\n", chains))
  sprintf("Running MCMC with %d chains, at most %d in parallel%s...\n\n", chains, parallel, cores)
}

# cmdstanr's closing lines; chains that failed or were cut short become
# warnings, and an interrupt with nothing to show an error.
report_chains <- function(raw, elapsed, show) {
  codes <- vapply(raw$chains, function(ch) ch$return_code, integer(1))
  ids <- vapply(raw$chains, function(ch) ch$chain_id, integer(1))
  rows <- vapply(raw$chains, function(ch) nrow(ch$draws), integer(1))
  for (k in which(codes == 1L)) {
    tapestry_warn(sprintf("Chain %d finished unexpectedly: %s", ids[k], raw$chains[[k]]$message))
  }
  if (isTRUE(raw$interrupted)) {
    if (sum(rows) == 0L) {
      tapestry_interrupt("Sampling was interrupted (Ctrl-C) before any draw was made.")
    }
    tapestry_warn(sprintf(
      "Sampling was interrupted (Ctrl-C): %d of %d chains had finished, %d draw%s made in all.",
      sum(codes == 0L), length(codes), sum(rows), if (sum(rows) == 1L) "" else "s"))
  }
  if (all(codes != 0L) && !isTRUE(raw$interrupted)) {
    tapestry_raise(wrap_text(paste0("All chains failed. The first error:\n",
                                    raw$chains[[which(codes == 1L)[1]]]$message)), "tapestry_error")
  }
  if (show) {
    ok <- codes == 0L
    times <- vapply(raw$chains, function(ch) ch$time[["total"]], double(1))
    if (all(ok)) {
      cat(if (length(ok) == 1L) "\nChain finished successfully.\n" else
        sprintf("\nAll %d chains finished successfully.\n", length(ok)))
    } else {
      # an interrupted chain did not fail: say which were stopped by Ctrl-C
      if (any(codes == 1L)) {
        cat(sprintf("\n%d chain%s finished unexpectedly!\n", sum(codes == 1L),
                    if (sum(codes == 1L) == 1L) "" else "s"))
      }
      if (any(codes == 2L)) {
        cut <- ids[codes == 2L]
        cat(sprintf("\n%s %s %s interrupted (Ctrl-C) before %s finished.\n",
                    if (length(cut) == 1L) "Chain" else "Chains", and_list(cut),
                    if (length(cut) == 1L) "was" else "were",
                    if (length(cut) == 1L) "it" else "they"))
      }
    }
    if (length(ok) > 1L && any(ok)) {
      cat(sprintf("Mean chain execution time: %.1f seconds.\n", mean(times[ok])))
    }
    cat(sprintf("Total execution time: %.1f seconds.\n\n", elapsed))
  }
  invisible(NULL)
}

# "1", "1 and 2", "1, 2 and 3"
and_list <- function(x) {
  x <- as.character(x)
  if (length(x) <= 1L) return(paste(x, collapse = ""))
  paste(paste(x[-length(x)], collapse = ", "), "and", x[length(x)])
}

# $sample(mpi = "chains") under mpirun: rank r runs chains k whose block
# (chains split evenly, in order) is r's, with the inits, step sizes and
# metrics the one-process run gives them; their raw results travel to rank
# 0 serialized and are put back in chain order, so the fit equals the
# one-process fit (a chain's generator depends on the seed and its id
# only).  NULL on the other ranks.
sample_chains_over_ranks <- function(context, config, inits, a, pool) {
  size <- tapestry_mpi_size()
  rank <- tapestry_mpi_rank()
  k <- length(a$chain_ids)
  mine <- which((seq_len(k) - 1L) * size %/% k == rank)
  raw <- list(chains = list(), interrupted = FALSE)
  if (length(mine)) {
    cfg <- config
    cfg$stepsize <- config$stepsize[mine]
    if (!is.null(config$inv_metric)) cfg$inv_metric <- config$inv_metric[mine]
    cfg$mpi_session <- 0L
    show <- a$show_messages && rank == 0
    cfg$progress <- progress_display(a$chain_ids[mine], a$iter_warmup, a$iter_sampling,
                                     if (show) a$refresh else 0L,
                                     interactive() || isTRUE(a$show_progress_bar))
    raw <- .Call(C_tp_sample, context_ptr(context), cfg, inits[mine], a$chain_ids[mine], a$seed,
                 min(a$parallel_chains, length(mine)), pool, if (show) a$refresh else 0L,
                 show, interactive() || isTRUE(a$show_progress_bar))
  }
  parts <- .Call(C_tp_mpi_gather_raw, serialize(raw, NULL))
  if (rank > 0) return(NULL)
  parts <- lapply(parts, unserialize)
  raw$chains <- do.call(c, lapply(parts, `[[`, "chains"))
  raw$interrupted <- any(vapply(parts, function(p) isTRUE(p$interrupted), TRUE))
  raw
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
