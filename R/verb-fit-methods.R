# The rest of cmdstanr's CmdStanMCMC methods on a TapestryFit: loo, the
# chains' output, CmdStan's stansummary and diagnose reports, data, config
# and metric files, and clear refusals for what cannot apply.

TapestryFit$set("private", "metric_files_", NULL)
TapestryFit$set("private", "config_files_", NULL)
TapestryFit$set("private", "data_file_", NULL)
TapestryFit$set("private", "profile_files_", NULL)

not_in_tapestry <- function(what, why) {
  tapestry_raise(sprintf("%s is not available in tapestry because %s.", what, why),
                 "tapestry_unsupported")
}

# loo::loo() on the fit's pointwise log-likelihood, as cmdstanr's $loo().
TapestryFit$set("public", "loo", function(variables = "log_lik", r_eff = TRUE,
                                          moment_match = FALSE, ...) {
  if (!requireNamespace("loo", quietly = TRUE)) {
    abort_arg("$loo() needs the 'loo' package: install it with install.packages(\"loo\").")
  }
  check_flag(moment_match, "moment_match")
  if (moment_match) {
    not_in_tapestry("`moment_match = TRUE`",
                    "loo's moment matching is not wired to tapestry's model methods yet")
  }
  check_string(variables, "variables")
  if (!variables %in% base_names(private$variables_)) {
    abort_arg(sprintf(paste0("$loo() needs the pointwise log-likelihood as a generated ",
                             "quantity named '%s', which the program does not have."),
                      variables))
  }
  ll <- self$draws(variables, format = "draws_array")
  if (isTRUE(r_eff)) {
    r_eff <- loo::relative_eff(exp(unclass(ll)), cores = 1L)
  } else if (isFALSE(r_eff)) {
    r_eff <- NULL
  }
  loo::loo(unclass(ll), r_eff = r_eff, ...)
})

# The console output of each chain: its messages and timing, as CmdStan's.
TapestryFit$set("public", "output", function(id = NULL) {
  out <- lapply(private$chains_, function(ch) {
    t <- ch$time
    c(sprintf("Chain %d", ch$chain_id),
      as.character(ch$messages %||% character()),
      if (nzchar(ch$message %||% "")) ch$message,
      "",
      sprintf(" Elapsed Time: %.3f seconds (Warm-up)", t[["warmup"]]),
      sprintf("               %.3f seconds (Sampling)", t[["sampling"]]),
      sprintf("               %.3f seconds (Total)", t[["total"]]))
  })
  if (is.null(id)) return(out)
  ids <- private$chain_ids()
  k <- match(id, ids)
  if (length(id) != 1L || is.na(k)) {
    abort_arg(sprintf("`id` must be one of the chain ids %s, not %s.",
                      paste(ids, collapse = ", "), show_value(id)))
  }
  cat(out[[k]], sep = "\n")
  invisible(out[[k]])
})

TapestryFit$set("public", "num_procs", function() self$num_chains())

# CmdStan's stansummary, computed with posterior.
TapestryFit$set("public", "cmdstan_summary", function(flags = NULL) {
  private$need_draws("summarize the fit")
  sig <- 2L
  if (!is.null(flags)) {
    m <- regmatches(flags, regexpr("--sig_figs[= ]?[0-9]+", flags))
    if (length(m)) sig <- as.integer(sub(".*?([0-9]+)$", "\\1", m))
  }
  cat(cmdstan_summary_text(self, private, sig), sep = "\n")
  invisible(self)
})

cmdstan_summary_text <- function(fit, priv, sig = 2L) {
  a <- priv$args_
  draws <- posterior::bind_draws(fit$draws(), fit$sampler_diagnostics(), along = "variable")
  vars <- c("lp__", sampler_diagnostic_names, priv$variables_[-1L])
  vars <- intersect(vars, posterior::variables(draws))
  s <- posterior::summarise_draws(
    posterior::subset_draws(draws, variable = vars),
    mean = mean, mcse = posterior::mcse_mean, sd = stats::sd, mad = stats::mad,
    q5 = function(x) stats::quantile(x, 0.05, names = FALSE),
    q50 = function(x) stats::quantile(x, 0.5, names = FALSE),
    q95 = function(x) stats::quantile(x, 0.95, names = FALSE),
    ess_bulk = posterior::ess_bulk, ess_tail = posterior::ess_tail, rhat = posterior::rhat)
  t <- fit$time()$chains
  nchain <- posterior::nchains(draws)
  niter <- posterior::niterations(draws)
  num <- function(x) formatC(signif(as.double(x), sig), digits = sig, format = "g", flag = "#")
  cols <- data.frame(
    check.names = FALSE,
    Mean = num(s$mean), MCSE = num(s$mcse), StdDev = num(s$sd), MAD = num(s$mad),
    `5%` = num(s$q5), `50%` = num(s$q50), `95%` = num(s$q95),
    ESS_bulk = format(round(s$ess_bulk)), ESS_tail = format(round(s$ess_tail)),
    R_hat = formatC(s$rhat, digits = 2, format = "f"))
  for (n in c("MCSE", "ESS_bulk", "ESS_tail", "R_hat")) cols[[n]][grepl("NA", cols[[n]])] <- "nan"
  flat <- is.na(s$sd) | s$sd == 0 | s$variable == "stepsize__"
  cols[flat, c("MCSE", "ESS_bulk", "ESS_tail", "R_hat")] <- "nan"
  names_col <- format(c("", s$variable))
  body <- vapply(names(cols), function(n) format(c(n, cols[[n]]), justify = "right"),
                 character(nrow(cols) + 1L))
  if (is.null(dim(body))) body <- matrix(body, nrow = 1L)
  table <- apply(cbind(names_col, body), 1L, paste, collapse = "  ")
  c(sprintf("Inference for Stan model: %s_model", fit$metadata()$model_name),
    sprintf("%d chains: each with iter=%d; warmup=%d; thin=%d; %d iterations saved.",
            nchain, a$iter_sampling %||% 1000L, a$iter_warmup %||% 1000L, a$thin %||% 1L,
            nchain * niter),
    "",
    sprintf("Warmup took (%s) seconds, %s seconds total",
            paste(formatC(t$warmup, digits = 2, format = "f"), collapse = ", "),
            formatC(sum(t$warmup), digits = 2, format = "f")),
    sprintf("Sampling took (%s) seconds, %s seconds total",
            paste(formatC(t$sampling, digits = 2, format = "f"), collapse = ", "),
            formatC(sum(t$sampling), digits = 2, format = "f")),
    "",
    table[1L], "", table[-1L][seq_len(1L + length(sampler_diagnostic_names))], "",
    table[-seq_len(2L + length(sampler_diagnostic_names))],
    "",
    "Samples were drawn using hmc with nuts.",
    "For each parameter, ESS_bulk and ESS_tail measure the effective sample size for the entire sample (bulk) and for the .05 and .95 tails (tail), ",
    "and R_hat measures the potential scale reduction on split chains. At convergence R_hat will be very close to 1.00.")
}

# CmdStan's diagnose tool, computed with posterior.
TapestryFit$set("public", "cmdstan_diagnose", function() {
  private$need_draws("diagnose the fit")
  cat(cmdstan_diagnose_text(self, private), sep = "\n")
  invisible(self)
})

cmdstan_diagnose_text <- function(fit, priv) {
  sd <- fit$sampler_diagnostics()
  col <- function(n) as.vector(unclass(posterior::extract_variable_matrix(sd, n)))
  max_depth <- priv$args_$max_treedepth %||% 10L
  pct <- function(n, tot) sprintf("%.2f%%", 100 * n / tot)
  out <- c("Processing csv files: ", "")
  problems <- FALSE
  depth <- col("treedepth__")
  out <- c(out, "Checking sampler transitions treedepth.")
  n <- sum(depth >= max_depth)
  if (n > 0) {
    problems <- TRUE
    out <- c(out, sprintf("%d of %d (%s) transitions hit the maximum treedepth limit of %d, or 2^%d leapfrog steps.",
                          n, length(depth), pct(n, length(depth)), max_depth, max_depth),
             "Trajectories that are prematurely terminated due to this limit will result in slow exploration.",
             "For optimal performance, increase this limit.", "")
  } else {
    out <- c(out, "Treedepth satisfactory for all transitions.", "")
  }
  div <- col("divergent__")
  out <- c(out, "Checking sampler transitions for divergences.")
  n <- sum(div != 0)
  if (n > 0) {
    problems <- TRUE
    out <- c(out, sprintf("%d of %d (%s) transitions ended with a divergence.", n, length(div),
                          pct(n, length(div))),
             "These divergent transitions indicate that HMC is not fully able to explore the posterior distribution.",
             "Try increasing adapt delta closer to 1.",
             "If this doesn't remove all divergences, try to reparameterize the model.", "")
  } else {
    out <- c(out, "No divergent transitions found.", "")
  }
  out <- c(out, "Checking E-BFMI - sampler transitions HMC potential energy.")
  energy <- unclass(posterior::extract_variable_matrix(sd, "energy__"))
  e <- if (nrow(energy) >= 3L) apply(energy, 2L, ebfmi) else rep(NA_real_, ncol(energy))
  low <- which(e < 0.3)
  if (length(low)) {
    problems <- TRUE
    out <- c(out, sprintf("The E-BFMI, %.2f, is below the nominal threshold of 0.30 which suggests that HMC may have trouble exploring the target distribution.", min(e[low])),
             "If possible, try to reparameterize the model.", "")
  } else {
    out <- c(out, "E-BFMI satisfactory.", "")
  }
  draws <- fit$draws()
  vars <- setdiff(posterior::variables(draws), "lp__")
  if (length(vars)) {
    s <- posterior::summarise_draws(draws, sd = stats::sd, ess_bulk = posterior::ess_bulk,
                                    ess_tail = posterior::ess_tail, rhat = posterior::rhat)
    s <- s[s$variable != "lp__" & !is.na(s$sd) & s$sd > 0, ]
    total <- posterior::ndraws(draws)
    # an ESS posterior cannot estimate (NA: a discrete generated quantity
    # whose tails are ties) is not a low one
    ratio <- pmin(s$ess_bulk, s$ess_tail) / total
    low_ess <- s$variable[!is.na(ratio) & ratio < 0.001]
    if (length(low_ess)) {
      problems <- TRUE
      out <- c(out, "The following parameters had fewer than 0.001 effective draws per transition:",
               paste0("  ", paste(low_ess, collapse = ", ")),
               "Such low values indicate that the effective sample size estimators may be biased high and actual performance may be substantially lower than quoted.", "")
    } else {
      out <- c(out, "Effective sample size satisfactory.", "")
    }
    high <- s$variable[!is.na(s$rhat) & s$rhat > 1.01]
    if (length(high)) {
      problems <- TRUE
      out <- c(out, "The following parameters had split R-hat greater than 1.01:",
               paste0("  ", paste(high, collapse = ", ")),
               "Such high values indicate incomplete mixing and biased estimation.",
               "You should consider regularizating your model with additional prior information or a more effective parameterization.", "")
    } else {
      out <- c(out, "Split R-hat values satisfactory all parameters.", "")
    }
  }
  c(out, if (problems) "Processing complete." else "Processing complete, no problems detected.")
}

# The data file of the run: the JSON or R dump file given, or (as cmdstanr
# writes one for data given as a list) a JSON file written to tempdir() on
# first call; NULL for a program run without data.
TapestryFit$set("public", "data_file", function() {
  d <- private$args_$data
  f <- private$data_file_ %||% (if (is.character(d)) d else attr(d, "data_file"))
  if (is.null(f) && is.list(d) && length(d)) {
    f <- self$save_data_file(tempdir(), timestamp = TRUE, random = TRUE)
  }
  f
})

# The data as a CmdStan JSON file (a data file given as a path is copied).
TapestryFit$set("public", "save_data_file", function(dir = ".", basename = NULL,
                                                     timestamp = TRUE, random = TRUE) {
  check_string(dir, "dir")
  if (!dir.exists(dir)) abort_arg(sprintf("Directory '%s' does not exist.", dir))
  basename <- basename %||% private$model_$model_name()
  check_string(basename, "basename")
  path <- sub("\\.csv$", ".json", csv_file_names(normalizePath(dir), basename, "data",
                                                 timestamp, random))
  d <- private$args_$data
  src <- if (is.character(d)) d else attr(d, "data_file")
  if (!is.null(src) && !is_rdump_file(src)) {
    file.copy(src, path, overwrite = TRUE)
  } else {
    writeLines(data_json_text(if (is.character(d)) read_rdump(d) else d), path)
  }
  private$data_file_ <- path
  invisible(path)
})

# Data as CmdStan JSON: arrays nested by their first index, matrices as
# arrays of rows (R arrays are column-major: element [i, j, k] goes to
# x[i][j][k]).
data_json_text <- function(d) {
  d <- d[names(d) != ""]
  attributes(d) <- list(names = names(d))
  json_text(lapply(d, data_json_value))
}

data_json_value <- function(x) {
  if (is.list(x) && !is.data.frame(x)) return(lapply(unname(x), data_json_value))
  if (is.logical(x)) x <- as.integer(x)
  dims <- dim(x)
  if (is.null(dims) || length(dims) == 1L) {
    v <- as.vector(x)
    return(if (length(v) == 1L && is.null(dims)) v else as.list(v))
  }
  lapply(seq_len(dims[1L]), function(i) {
    sub <- asub_first(x, i)
    if (length(dims) == 2L) as.list(as.vector(sub)) else data_json_value(sub)
  })
}

asub_first <- function(x, i) {
  d <- dim(x)
  idx <- c(list(i), rep(list(TRUE), length(d) - 1L))
  r <- do.call(`[`, c(list(x), idx, drop = FALSE))
  array(r, dim = d[-1L])
}

TapestryFit$set("public", "metric_files", function() private$metric_files_)
TapestryFit$set("public", "config_files", function() private$config_files_)

# The paths of the files beside each used chain's CSV file, named as
# cmdstanr names them (csv_file_names()) with `suffix` in place of ".csv",
# in `dir`.
side_file_paths <- function(private, dir, basename, timestamp, random, suffix) {
  check_string(dir, "dir")
  if (!dir.exists(dir)) abort_arg(sprintf("Directory '%s' does not exist.", dir))
  basename <- basename %||% private$model_$model_name()
  sub("\\.csv$", suffix,
      csv_file_names(normalizePath(dir), basename, private$chain_ids()[private$used_],
                     timestamp, random))
}

TapestryFit$set("public", "save_metric_files", function(dir = ".", basename = NULL,
                                                        timestamp = TRUE, random = TRUE) {
  used <- private$used_
  paths <- side_file_paths(private, dir, basename, timestamp, random, "_metric.json")
  for (i in seq_along(used)) {
    ch <- private$chains_[[used[i]]]
    write_json_text(list(stepsize = ch$step_size, metric_type = private$args_$metric %||% "diag_e",
                         inv_metric = ch$inv_metric), paths[i])
  }
  private$metric_files_ <- paths
  invisible(paths)
})

TapestryFit$set("public", "save_config_files", function(dir = ".", basename = NULL,
                                                        timestamp = TRUE, random = TRUE) {
  used <- private$used_
  paths <- side_file_paths(private, dir, basename, timestamp, random, "_config.json")
  meta <- self$metadata()
  meta$time <- NULL
  meta$start_datetime <- format(meta$start_datetime)
  meta$init <- if (is.numeric(meta$init) || is.character(meta$init)) meta$init else NULL
  for (i in seq_along(used)) {
    m <- meta
    m$chain_id <- private$chain_ids()[used[i]]
    write_json_text(m, paths[i])
  }
  private$config_files_ <- paths
  invisible(paths)
})

TapestryFit$set("public", "latent_dynamics_files", function(include_failed = FALSE) {
  not_in_tapestry("$latent_dynamics_files()",
                  "its sampler does not record the latent dynamics (momenta and gradients)")
})
TapestryFit$set("public", "save_latent_dynamics_files", function(dir = ".", basename = NULL,
                                                                 timestamp = TRUE, random = TRUE) {
  not_in_tapestry("$save_latent_dynamics_files()",
                  "its sampler does not record the latent dynamics (momenta and gradients)")
})
TapestryFit$set("public", "profile_files", function(include_failed = FALSE) {
  private$profile_files_
})

# No model methods to compile: the fit evaluates the model directly.
TapestryFit$set("public", "init_model_methods", function(seed = 1, verbose = FALSE,
                                                         hessian = FALSE) {
  if (isTRUE(verbose)) message("tapestry's fits have their model methods without compiling.")
  invisible(self)
})

TapestryFit$set("public", "materialize", function() invisible(self))

# The Hessian of the log density at an unconstrained point, by central
# differences of the gradient (symmetrized).
TapestryFit$set("public", "hessian", function(unconstrained_variables, jacobian = TRUE) {
  u <- private$check_unconstrained(unconstrained_variables)
  g <- function(x) as.vector(private$context_$grad_log_prob(x, jacobian = jacobian))
  n <- length(u)
  h <- matrix(0, n, n)
  for (k in seq_len(n)) {
    e <- 6.055454e-6 * max(1, abs(u[k]))
    up <- u
    up[k] <- u[k] + e
    dn <- u
    dn[k] <- u[k] - e
    h[, k] <- (g(up) - g(dn)) / (2 * e)
  }
  h <- (h + t(h)) / 2
  gr <- private$context_$grad_log_prob(u, jacobian = jacobian)
  list(log_prob = attr(gr, "log_prob"), grad_log_prob = as.vector(gr), hessian = h)
})

# Zero values of every variable's shape, as cmdstanr's $variable_skeleton().
TapestryFit$set("public", "variable_skeleton", function(transformed_parameters = TRUE,
                                                        generated_quantities = TRUE) {
  v <- private$context_$constrain_variables(rep(0, private$context_$num_upars()),
                                            transformed_parameters = transformed_parameters,
                                            generated_quantities = generated_quantities)
  lapply(v, function(x) {
    if (is.list(x)) return(x)
    x[] <- 0
    x
  })
})

TapestryFit$set("public", "expose_functions", function(global = FALSE, verbose = FALSE) {
  private$model_$expose_functions(global = global, verbose = verbose)
  invisible(self)
})

TapestryFit$set("active", "functions", function(value) {
  if (!missing(value)) abort_arg("`functions` is read-only.")
  private$model_$functions
})
