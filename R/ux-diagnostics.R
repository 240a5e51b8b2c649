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
  n <- nrow(sd$divergent__)
  chains <- lapply(seq_len(ncol(sd$divergent__)), function(j) {
    cbind(as.double(sd$divergent__[, j]), as.double(sd$treedepth__[, j]), as.double(sd$energy__[, j]))
  })
  counts <- .Call(C_tp_hmc_diag, chains, integer(length(chains)), as.integer(n), 1:3,
                  as.integer(max_depth))
  diagnostics_lines(counts, n, chain_ids, max_depth, diagnostics, summary)
}

# The same from the counts of each chain (tp_hmc_diag: num_divergent,
# num_max_treedepth, ebfmi; energy_na, whether a chain's energies have NA)
# over n post-warmup iterations.
diagnostics_lines <- function(counts, n, chain_ids, max_depth, diagnostics, summary = NULL) {
  out <- character()
  see <- "See https://mc-stan.org/misc/warnings for details."
  pct <- function(n, total) sprintf("%.1f%%", 100 * n / total)
  total <- n * length(chain_ids)
  per_chain <- function(k) {
    hit <- which(k > 0)
    if (length(chain_ids) < 2L) return(NULL)
    paste0("  ", paste0("chain ", chain_ids[hit], ": ", k[hit], " (", pct(k[hit], n), ")",
                        collapse = ", "), ".")
  }
  if ("divergences" %in% diagnostics) {
    k <- counts$num_divergent
    if (sum(k) > 0) {
      out <- c(out, paste(c(
        sprintf("Warning: %d of %d (%s) transitions ended with a divergence.", sum(k), total,
                pct(sum(k), total)),
        per_chain(k), see), collapse = "\n"))
    }
  }
  if ("treedepth" %in% diagnostics) {
    k <- counts$num_max_treedepth
    if (sum(k) > 0) {
      out <- c(out, paste(c(
        sprintf("Warning: %d of %d (%s) transitions hit the maximum treedepth limit of %d.",
                sum(k), total, pct(sum(k), total), as.integer(max_depth)),
        per_chain(k), see), collapse = "\n"))
    }
  }
  if ("ebfmi" %in% diagnostics) {
    if (n >= 3L && !any(counts$energy_na)) {
      e <- counts$ebfmi
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
    # cmdstanr's two ESS warnings: below 100 per chain, bulk then tail
    low_ess <- function(ess, kind, estimates, anchor) {
      low <- sum(ess < 100 * nchains, na.rm = TRUE)
      if (low == 0) return(NULL)
      paste0(
        sprintf(paste0("Warning: %s Effective Samples Size (ESS) is too low (below %d for %d ",
                       "of %d variables), indicating %s may be unreliable.\n"),
                kind, 100L * nchains, low, nrow(summary), estimates),
        "Running the chains for more iterations may help. See\n",
        "https://mc-stan.org/misc/warnings.html#", anchor)
    }
    out <- c(out, low_ess(summary$ess_bulk, "Bulk", "posterior means and medians", "bulk-ess"),
             low_ess(summary$ess_tail, "Tail", "posterior variances and tail quantiles", "tail-ess"))
  }
  out
}

# Called by $sample() on the new fit: prints the warnings as messages.
# Everything comes from C (src/nuts/nuts_sum*.c): the counts of each
# chain, and R-hat and ESS from the default summary of every variable,
# which the fit keeps for $summary().  After an interrupt R-hat and ESS
# are not computed: the chains are partial, and the session should get
# control back at once.
report_diagnostics <- function(fit, diagnostics, rhat_ess = TRUE) {
  priv <- fit$.__enclos_env__$private
  # a fixed_param run has no sampler to diagnose (cmdstanr checks nothing)
  if (!length(diagnostics) || !length(priv$used_) || priv$n_sampling_ < 1L ||
      isTRUE(priv$args_$fixed_param)) return(invisible(character()))
  need <- c("divergent__", "treedepth__", "energy__")
  if (!all(vapply(priv$chains_[priv$used_], function(ch) all(need %in% colnames(ch$draws)), TRUE))) {
    return(invisible(character()))
  }
  counts <- priv$hmc_counts()
  ids <- priv$chain_ids()[priv$used_]
  summary <- NULL
  if (rhat_ess && priv$n_sampling_ >= 4L) {
    s <- priv$default_summary()
    col <- function(kind) s$values[, match(summary_kinds[[kind]], summary_plan()$kinds)]
    summary <- data.frame(variable = priv$variables_, rhat = col("rhat"),
                          ess_bulk = col("ess_bulk"), ess_tail = col("ess_tail"))
  }
  lines <- diagnostics_lines(counts, priv$n_sampling_, ids, priv$args_$max_treedepth %||% 10,
                             diagnostics, summary)
  for (m in lines) message(wrap_text(m), "\n")   # R/ux-wrap.R
  invisible(lines)
}
