# After sampling: the warnings 'cmdstanr' prints (divergences, transitions
# at the maximum tree depth, chains with a low E-BFMI), with the count of
# each chain, and R-hat and ESS when they are poor (rstan's rule and
# wording).  $sample(diagnostics = ) selects the first three; any of them
# selected also checks R-hat and ESS; diagnostics = NULL silences all.

hmc_diagnostics <- c("divergences", "treedepth", "ebfmi")

# $sample()'s `diagnostics`: NULL (none) or some of hmc_diagnostics.
arg_diagnostics <- function(diagnostics) {
  if (is.null(diagnostics)) return(character())
  if (!is.character(diagnostics) || anyNA(diagnostics) || !all(diagnostics %in% hmc_diagnostics)) {
    abort_arg(sprintf("`diagnostics` must be NULL or some of %s, not %s.",
                      paste0("\"", hmc_diagnostics, "\"", collapse = ", "),
                      show_value(diagnostics)))
  }
  unique(diagnostics)
}

# The lines of the warnings, from the post-warmup sampler diagnostics
# (`sd`: a list of iterations x chains matrices named divergent__,
# treedepth__ and energy__), the chain ids of its chains, the maximum tree depth and
# (for R-hat and ESS) the summary of the draws (a data frame with columns
# variable, rhat, ess_bulk, ess_tail; NULL to skip).  Pure: the tests call
# it on made-up diagnostics.  A character vector, one element per message.
diagnostics_report <- function(sd, chain_ids, max_depth, diagnostics, summary = NULL) {
  out <- character()
  see <- "See https://mc-stan.org/misc/warnings for details."
  pct <- function(n, total) sprintf("%.1f%%", 100 * n / total)
  column <- function(name) sd[[name]]
  per_chain <- function(n, per) {
    hit <- which(n > 0)
    if (length(chain_ids) < 2L) return(NULL)
    paste0("  ", paste0("chain ", chain_ids[hit], ": ", n[hit], " (", pct(n[hit], per), ")",
                        collapse = ", "), ".")
  }
  if ("divergences" %in% diagnostics) {
    d <- column("divergent__")
    n <- as.integer(colSums(d != 0))
    if (sum(n) > 0) {
      out <- c(out, paste(c(
        sprintf("Warning: %d of %d (%s) transitions ended with a divergence.", sum(n), length(d),
                pct(sum(n), length(d))),
        per_chain(n, nrow(d)), see), collapse = "\n"))
    }
  }
  if ("treedepth" %in% diagnostics) {
    d <- column("treedepth__")
    n <- as.integer(colSums(d >= max_depth))
    if (sum(n) > 0) {
      out <- c(out, paste(c(
        sprintf("Warning: %d of %d (%s) transitions hit the maximum treedepth limit of %d.",
                sum(n), length(d), pct(sum(n), length(d)), as.integer(max_depth)),
        per_chain(n, nrow(d)), see), collapse = "\n"))
    }
  }
  if ("ebfmi" %in% diagnostics) {
    energy <- column("energy__")
    if (nrow(energy) >= 3L && !anyNA(energy)) {
      e <- apply(energy, 2L, ebfmi)
      nan <- is.nan(e)
      low <- !nan & e < 0.3
      if (any(nan)) {
        out <- c(out, paste(c(sprintf("Warning: %d of %d chains have a NaN E-BFMI.",
                                      sum(nan), length(e)), see), collapse = "\n"))
      } else if (any(low)) {
        out <- c(out, paste(c(
          sprintf("Warning: %d of %d chains had an E-BFMI less than 0.3.", sum(low), length(e)),
          paste0("  ", paste0("chain ", chain_ids[low], ": ", format(round(e[low], 2), nsmall = 2),
                              collapse = ", "), "."),
          see), collapse = "\n"))
      }
    }
  }
  if (length(diagnostics) && !is.null(summary) && nrow(summary)) {
    nchains <- length(chain_ids)
    rhat <- as.double(unclass(summary$rhat))   # posterior's pillar_num rounds with its own digits
    if (any(rhat > 1.05, na.rm = TRUE)) {
      worst <- which.max(rhat)
      out <- c(out, paste0(
        sprintf("Warning: The largest R-hat is %s (%s), indicating chains have not mixed.\n",
                format(round(rhat[worst], 2), nsmall = 2), summary$variable[worst]),
        "Running the chains for more iterations may help. See\n",
        "https://mc-stan.org/misc/warnings.html#r-hat"))
    }
    low_bulk <- sum(summary$ess_bulk < 100 * nchains, na.rm = TRUE)
    if (low_bulk > 0) {
      out <- c(out, paste0(
        sprintf(paste0("Warning: Bulk Effective Samples Size (ESS) is too low (below %d for %d ",
                       "of %d variables), indicating posterior means and medians may be ",
                       "unreliable.\n"), 100L * nchains, low_bulk, nrow(summary)),
        "Running the chains for more iterations may help. See\n",
        "https://mc-stan.org/misc/warnings.html#bulk-ess"))
    }
    low_tail <- sum(summary$ess_tail < 100 * nchains, na.rm = TRUE)
    if (low_tail > 0) {
      out <- c(out, paste0(
        sprintf(paste0("Warning: Tail Effective Samples Size (ESS) is too low (below %d for %d ",
                       "of %d variables), indicating posterior variances and tail quantiles ",
                       "may be unreliable.\n"), 100L * nchains, low_tail, nrow(summary)),
        "Running the chains for more iterations may help. See\n",
        "https://mc-stan.org/misc/warnings.html#tail-ess"))
    }
  }
  out
}

# Called by $sample() on the new fit: prints the warnings as messages.
# After an interrupt R-hat and ESS are not computed: the chains are partial,
# and the session should get control back at once.
report_diagnostics <- function(fit, diagnostics, rhat_ess = TRUE) {
  priv <- fit$.__enclos_env__$private
  # a fixed_param run has no sampler to diagnose (cmdstanr checks nothing)
  if (!length(diagnostics) || !length(priv$used_) || priv$n_sampling_ < 1L ||
      isTRUE(priv$args_$fixed_param)) return(invisible(character()))
  need <- c("divergent__", "treedepth__", "energy__")
  if (!all(vapply(priv$chains_[priv$used_], function(ch) all(need %in% colnames(ch$draws)), TRUE))) {
    return(invisible(character()))
  }
  # the matrices straight from the chains (posterior is not loaded for this:
  # loading it takes a second, and an interrupted run must return at once)
  used <- priv$used_
  rows <- function(ch) ch$num_warmup_draws + seq_len(priv$n_sampling_)
  sd <- lapply(c(divergent__ = "divergent__", treedepth__ = "treedepth__", energy__ = "energy__"),
               function(v) vapply(priv$chains_[used], function(ch) as.double(ch$draws[rows(ch), v]),
                                  double(priv$n_sampling_)))
  sd <- lapply(sd, function(m) matrix(m, nrow = priv$n_sampling_))
  ids <- priv$chain_ids()[used]
  summary <- NULL
  if (rhat_ess && priv$n_sampling_ >= 4L) {
    d <- fit$draws()
    summary <- suppressWarnings(as.data.frame(posterior::summarise_draws(
      d, rhat = posterior::rhat, ess_bulk = posterior::ess_bulk, ess_tail = posterior::ess_tail)))
  }
  lines <- diagnostics_report(sd, ids, priv$args_$max_treedepth %||% 10, diagnostics, summary)
  for (m in lines) message(wrap_text(m), "\n")   # R/ux-wrap.R
  invisible(lines)
}
