# $sample(): chains of NUTS as tasks of the package's thread pool, all
# reading one data context (src/r/r_sample.c runs them and shows progress).

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
                         diagnostics = hmc_diagnostics, extra = list()) {
  mpi <- arg_mpi_mode(mpi)
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
  context <- model$bind(a$data, a$seed)
  # CmdStan's fixed_param sampler, chosen for a program without parameters
  # as cmdstanr chooses it (R/verb-fixed-param.R)
  a$fixed_param <- isTRUE(a$fixed_param) || context$num_upars() == 0L
  if (a$fixed_param) a <- fixed_param_args(a)
  a <- check_sample_args_model(a, context$num_upars())
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
    profile_trace_every = a$profile_trace_every, fixed_param = as.integer(a$fixed_param))
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
  config$progress <- progress_display(a$chain_ids, a$iter_warmup, a$iter_sampling, a$refresh,
                                      interactive())
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
                 a$parallel_chains, pool, a$refresh,
                 a$show_messages, interactive())
  }
  elapsed <- as.double(difftime(Sys.time(), start, units = "secs"))
  if (a$fixed_param) raw <- fixed_param_raw(raw)
  report_chains(raw, elapsed, a$show_messages)
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
    warning(warningCondition(sprintf("Chain %d finished unexpectedly: %s", ids[k],
                                     raw$chains[[k]]$message),
                             class = "tapestry_warning"))
  }
  if (isTRUE(raw$interrupted)) {
    if (sum(rows) == 0L) {
      tapestry_raise("Sampling was interrupted before any draw was made.",
                     "tapestry_interrupt")
    }
    warning(warningCondition(sprintf(
      "Sampling was interrupted: %d of %d chains had finished, %d draw%s made in all.",
      sum(codes == 0L), length(codes),
      sum(rows), if (sum(rows) == 1L) "" else "s"), class = "tapestry_warning"))
  }
  if (all(codes != 0L) && !isTRUE(raw$interrupted)) {
    tapestry_raise(paste0("All chains failed. The first error:\n",
                          raw$chains[[which(codes == 1L)[1]]]$message), "tapestry_error")
  }
  if (show) {
    ok <- codes == 0L
    times <- vapply(raw$chains, function(ch) ch$time[["total"]], double(1))
    if (all(ok)) {
      cat(if (length(ok) == 1L) "\nChain finished successfully.\n" else
        sprintf("\nAll %d chains finished successfully.\n", length(ok)))
    } else {
      cat(sprintf("\n%d chain%s finished unexpectedly!\n", sum(!ok),
                  if (sum(!ok) == 1L) "" else "s"))
    }
    if (length(ok) > 1L && any(ok)) {
      cat(sprintf("Mean chain execution time: %.1f seconds.\n", mean(times[ok])))
    }
    cat(sprintf("Total execution time: %.1f seconds.\n\n", elapsed))
  }
  invisible(NULL)
}

arg_mpi_mode <- function(mpi) {
  if (is.character(mpi) && length(mpi) > 1L) mpi <- mpi[1L]
  if (!is.character(mpi) || length(mpi) != 1L || !(mpi %in% c("map_rect", "chains")))
    abort_arg(paste0("`mpi` must be \"map_rect\" or \"chains\", not ", show_value(mpi)))
  mpi
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
    cfg$progress <- progress_display(a$chain_ids[mine], a$iter_warmup, a$iter_sampling,
                                     a$refresh, interactive())
    show <- a$show_messages && rank == 0
    raw <- .Call(C_tp_sample, context_ptr(context), cfg, inits[mine], a$chain_ids[mine], a$seed,
                 min(a$parallel_chains, length(mine)), pool, if (rank == 0) a$refresh else 0L,
                 show, interactive())
  }
  parts <- .Call(C_tp_mpi_gather_raw, serialize(raw, NULL))
  if (rank > 0) return(NULL)
  parts <- lapply(parts, unserialize)
  raw$chains <- do.call(c, lapply(parts, `[[`, "chains"))
  raw$interrupted <- any(vapply(parts, function(p) isTRUE(p$interrupted), TRUE))
  raw
}
