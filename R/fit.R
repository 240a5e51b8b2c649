# The fit object of $sample(): draws, summaries, sampler diagnostics and the
# model's functions at the data the chains shared, with cmdstanr's verbs.

#' A fitted model: the result of sampling
#'
#' @description
#' A fit holds the draws of the chains a model's `$sample()` method ran,
#' with the sampler's diagnostics, the adapted step sizes and inverse
#' metrics, the initial values, run times and the arguments of the run. Its
#' methods have the names and arguments of 'cmdstanr''s `CmdStanMCMC`
#' objects, and its draws are objects of the 'posterior' package
#' ([posterior::draws_array] by default), which 'bayesplot''s `mcmc_*()`
#' functions plot directly.
#'
#' @details
#' **Variables.** The draws hold `lp__` and every parameter, transformed
#' parameter and generated quantity, named as in Stan's output: `"mu"`,
#' `"theta[2]"`, `"L[2,1]"` (each variable flattened with its first index
#' fastest). Where a method takes `variables`, a name without brackets
#' selects every element of the variable (`"theta"` selects `theta[1]`,
#' `theta[2]`, ...), a name with brackets one element. The sampler's
#' diagnostics (`accept_stat__`, `stepsize__`, `treedepth__`,
#' `n_leapfrog__`, `divergent__`, `energy__`) come from
#' `$sampler_diagnostics()`.
#'
#' **Chains that did not finish.** A chain that stopped with an error
#' (return code 1) is left out of the draws (`$sample()` warns that it
#' finished unexpectedly); `$return_codes()` reports every chain. After an
#' interrupted run (Ctrl-C; the chains it stopped have return code 2),
#' every chain that had finished is kept whole. The partial draws of the
#' interrupted chains are left out of the draws when at least one chain
#' finished, with a warning naming them and their number of draws: the
#' draws of 'posterior' hold chains of one length, and cutting the finished
#' chains to an interrupted chain's length would throw away finished work.
#' When no chain finished, the interrupted chains that made post-warmup
#' draws are the draws, each cut to the number all of them have (with a
#' warning when they differ), so that the draws form an array of
#' iterations x chains x variables. Chains interrupted during warmup have
#' no post-warmup draws and are left out.
#'
#' **Saving.** `$save_object()` saves the whole fit with [saveRDS()]. The
#' methods that evaluate the model (`$log_prob()` and the others) work on a
#' loaded fit too: the program is parsed and the data bound again when first
#' needed. `$save_output_files()` writes 'CmdStan' CSV files.
#'
#' **Profiles.** A program's `profile("name") { ... }` blocks time the
#' forward and the reverse pass of what they enclose: `$profiles()` gives
#' the figures of each chain with 'cmdstanr''s columns, split into warmup
#' and sampling and with each profile's parent, [profiles_summary()] adds
#' them up and shows how they nest, `$save_profile_files()` writes
#' 'CmdStan''s profile CSV files and `$save_trace()` a trace of the
#' profiled intervals (when the run recorded one) for the Perfetto UI or
#' `chrome://tracing`.
#'
#' **Stan version.** The CSV files and `$metadata()` state Stan version
#' 2.33.0: the version of the Stan language and output format tapestry
#' follows. No 'CmdStan' or Stan C++ code is involved.
#'
#' @examples
#' mod <- tapestry_model(code = "
#'   parameters { real mu; vector[2] theta; }
#'   model { mu ~ normal(0, 1); theta ~ normal(mu, 1); }
#' ")
#' fit <- mod$sample(chains = 2, iter_warmup = 200, iter_sampling = 200,
#'                   seed = 1, refresh = 0)
#' fit
#' fit$summary("theta")
#' draws <- fit$draws(format = "df")
#' head(draws)
#' fit$diagnostic_summary()
#' str(fit$metadata()$step_size_adaptation)
#' @md
TapestryFit <- R6::R6Class("TapestryFit",
  cloneable = FALSE,
  public = list(
    #' @description Use a model's `$sample()` method to make a fit.
    #' @param raw The result of the sampler (a list with one element per
    #'   chain).
    #' @param model The [TapestryModel] that was sampled.
    #' @param context The [TapestryContext] the chains shared.
    #' @param args Named list of the arguments of the run.
    initialize = function(raw, model, context, args) {
      private$chains_ <- lapply(raw$chains, function(ch) {
        # tuples in CmdStan's column order (R/tuple.R)
        nm <- colnames(ch$draws)
        if (length(nm) && any(grepl(":", nm, fixed = TRUE))) ch$draws <- ch$draws[, tuple_column_order(nm), drop = FALSE]
        ch
      })
      total <- if (is.null(raw$time_total)) args$time_total else raw$time_total
      private$time_total_ <- if (is.null(total)) NA_real_ else as.double(total)
      private$chains_time_ <- if (is.null(raw$chains_time)) NA_real_ else as.double(raw$chains_time)
      private$model_ <- model
      private$context_ <- context
      private$args_ <- args
      private$created_ <- Sys.time()
      private$variables_ <- fit_variable_names(private$chains_, context)
      private$choose_chains()
      invisible(self)
    },

    #' @description The posterior draws.
    #' @param variables Names of variables or elements to include (see
    #'   Details); `NULL` for `lp__` and every variable.
    #' @param inc_warmup Include the warmup draws (the run must have
    #'   `save_warmup = TRUE`); they come first.
    #' @param format The 'posterior' format of the result: `"draws_array"`
    #'   (iterations x chains x variables), `"draws_matrix"`, `"draws_df"`,
    #'   `"draws_list"` or `"draws_rvars"`, or the same without `"draws_"`
    #'   (`"df"` or `"data.frame"` for a data frame).
    #' @return A draws object of the 'posterior' package.
    draws = function(variables = NULL, inc_warmup = FALSE, format = "draws_array") {
      check_flag(inc_warmup, "inc_warmup")
      format <- check_draws_format(format)
      cols <- private$select_variables(variables)
      private$build_draws(cols, inc_warmup, format)
    },

    #' @description Summary statistics of the post-warmup draws, as
    #'   [posterior::summarise_draws()] computes them.
    #' @details The measures posterior names (`"mean"`, `"median"`,
    #'   `"sd"`, `"mad"`, `"quantile2"`, `"rhat"`, `"rhat_basic"`,
    #'   `"ess_bulk"`, `"ess_tail"`, `"ess_basic"`, `"ess_mean"`,
    #'   `"ess_sd"`, `"ess_median"`, `"ess_quantile"`, `"mcse_mean"`,
    #'   `"mcse_median"`, `"mcse_sd"`, `"mcse_quantile"`, as names or as the
    #'   functions themselves, and `quantile2`'s `probs` through `.args`)
    #'   are computed in C, over the variables in parallel on tapestry's
    #'   threads, from the draws where the chains left them; the result is
    #'   posterior's, column for column, and its numbers posterior's to
    #'   rounding. The default summary of every variable is computed once,
    #'   after sampling (for the R-hat and ESS warnings) or at the first
    #'   call, and kept. Any other summary function (a formula, a function
    #'   of your own) goes to posterior as it is.
    #' @param variables As for `$draws()`.
    #' @param ... Summary functions or their names, as for
    #'   [posterior::summarise_draws()]. By default the mean, median,
    #'   standard deviation, MAD, 5% and 95% quantiles, R-hat, and bulk and
    #'   tail effective sample sizes.
    #' @param .args,.num_args,.cores As for [posterior::summarise_draws()].
    #' @return A `draws_summary` data frame (a tibble), one row per
    #'   variable element.
    summary = function(variables = NULL, ..., .args = list(),
                       .num_args = getOption("posterior.num_args", list()), .cores = 1) {
      plan <- summary_plan(as.list(c(...)), summary_calls(substitute(list(...))), environment(),
                           .args)
      if (is.null(plan) || private$n_sampling_ < 1L || !length(private$used_)) {
        return(posterior::summarise_draws(self$draws(variables), ..., .args = .args,
                                          .num_args = .num_args, .cores = .cores))
      }
      cols <- private$select_variables(variables)
      values <- private$summary_values(cols, plan)
      warn_capped(attr(values, "capped"))
      draws_summary_frame(cols, values, plan$cols, .num_args)
    },

    #' @description Prints the summary of the first `max_rows` variable
    #'   elements, as 'cmdstanr' does.
    #' @param variables As for `$draws()`.
    #' @param ... Passed to `$summary()`.
    #' @param digits Number of decimal places shown.
    #' @param max_rows Largest number of rows shown.
    print = function(variables = NULL, ..., digits = 2, max_rows = 10) {
      check_count(digits, "digits")
      check_count(max_rows, "max_rows")
      private$need_draws("print the fit")
      all <- if (is.null(variables)) private$variables_ else private$select_variables(variables)
      shown <- all[seq_len(min(max_rows, length(all)))]
      out <- as.data.frame(self$summary(shown, ...))
      out[[1]] <- format(out[[1]], justify = "left")
      for (j in seq_along(out)[-1]) {
        x <- out[[j]]
        if (!is.numeric(x)) next
        # posterior's columns carry 'pillar' attributes that change format()
        x <- as.double(x)
        attributes(x) <- NULL
        out[[j]] <- if (startsWith(names(out)[j], "ess_")) {
          format(round(x))
        } else {
          format(round(x, digits), nsmall = digits)
        }
      }
      old <- options(max.print = max(prod(dim(out)), 100L))
      on.exit(options(old), add = TRUE)
      base::print(out, row.names = FALSE)
      if (length(all) > length(shown)) {
        cat("\n # showing", length(shown), "of", length(all),
            "rows (change via 'max_rows' argument)\n")
      }
      invisible(self)
    },

    #' @description The sampler's diagnostics at each draw.
    #' @param inc_warmup,format As for `$draws()`.
    #' @return A draws object with the variables `accept_stat__`,
    #'   `stepsize__`, `treedepth__`, `n_leapfrog__`, `divergent__` and
    #'   `energy__`.
    sampler_diagnostics = function(inc_warmup = FALSE, format = "draws_array") {
      check_flag(inc_warmup, "inc_warmup")
      format <- check_draws_format(format)
      # the columns the run has (a fixed_param run has accept_stat__ only)
      have <- if (length(private$used_)) colnames(private$chains_[[private$used_[1L]]]$draws)
      cols <- if (is.null(have)) sampler_diagnostic_names else intersect(sampler_diagnostic_names, have)
      private$build_draws(cols, inc_warmup, format)
    },

    #' @description Counts of divergent transitions and of transitions at
    #'   the maximum tree depth, and the E-BFMI of each chain, over the
    #'   post-warmup draws. Unless `quiet`, problems are reported as
    #'   'cmdstanr' reports them: any divergence, any transition at the
    #'   maximum tree depth, an E-BFMI below 0.3.
    #' @param diagnostics Which of `"divergences"`, `"treedepth"` and
    #'   `"ebfmi"` to compute.
    #' @param quiet Compute without messages.
    #' @return A list with, for the diagnostics asked for, `num_divergent`
    #'   and `num_max_treedepth` (integer vectors, one element per chain) and
    #'   `ebfmi` (a numeric vector, one element per chain).
    diagnostic_summary = function(diagnostics = c("divergences", "treedepth", "ebfmi"),
                                  quiet = FALSE) {
      known <- c("divergences", "treedepth", "ebfmi")
      if (!is.character(diagnostics) || anyNA(diagnostics) || !all(diagnostics %in% known)) {
        abort_arg(sprintf("`diagnostics` must name some of %s; %s is not one of them.",
                          paste0("\"", known, "\"", collapse = ", "),
                          show_value(setdiff(diagnostics, known)[1L])))
      }
      check_flag(quiet, "quiet")
      out <- list()
      if (length(diagnostics) == 0L || isTRUE(private$args_$fixed_param)) return(out)
      # the counts and E-BFMI of each chain, in C from the chains' columns
      h <- private$hmc_counts(inc_warmup = FALSE)
      ntrans <- private$n_sampling_ * length(private$used_)
      say <- function(...) if (!quiet) message(...)
      see <- "See https://mc-stan.org/misc/warnings for details.\n"
      percent <- function(n, total) format(round(100 * n / total, 1), nsmall = 1)
      if ("divergences" %in% diagnostics) {
        n <- h$num_divergent
        if (sum(n) > 0) {
          say("Warning: ", sum(n), " of ", ntrans, " (", percent(sum(n), ntrans), "%)",
              " transitions ended with a divergence.\n", see)
        }
        out$num_divergent <- n
      }
      if ("treedepth" %in% diagnostics) {
        max_depth <- private$args_$max_treedepth %||% 10
        n <- h$num_max_treedepth
        if (sum(n) > 0) {
          say("Warning: ", sum(n), " of ", ntrans, " (", percent(sum(n), ntrans), "%)",
              " transitions hit the maximum treedepth limit of ", max_depth, ".\n", see)
        }
        out$num_max_treedepth <- n
      }
      if ("ebfmi" %in% diagnostics) {
        e <- h$ebfmi
        if (private$n_sampling_ < 3L) {
          if (!quiet) {
            warning(warningCondition(
              "E-BFMI not computed: it is undefined for chains of fewer than 3 draws.",
              class = "tapestry_warning"))
          }
          e <- rep(NA_real_, length(e))
        } else {
          nan <- sum(is.nan(e))
          low <- sum(e < 0.3, na.rm = TRUE)
          if (nan > 0) {
            say("Warning: ", nan, " of ", length(e), " chains have a NaN E-BFMI.\n", see)
          } else if (low > 0) {
            say("Warning: ", low, " of ", length(e),
                " chains had an E-BFMI less than 0.3.\n", see)
          }
        }
        out$ebfmi <- unname(e)
      }
      out
    },

    #' @description The inverse metric (inverse mass matrix) each chain
    #'   adapted, or was given.
    #' @param matrix For a diagonal metric (`"diag_e"`, `"unit_e"`), return
    #'   it as a diagonal matrix; `FALSE` returns the diagonal. A dense
    #'   metric is always a matrix.
    #' @return A list named by chain id, one element per chain of the
    #'   draws.
    inv_metric = function(matrix = TRUE) {
      check_flag(matrix, "matrix")
      private$need_draws("get the inverse metrics")
      out <- lapply(private$chains_[private$used_], function(ch) {
        m <- ch$inv_metric
        if (matrix && !is.null(m) && !is.matrix(m)) m <- diag(m, nrow = length(m))
        m
      })
      names(out) <- as.character(private$chain_ids()[private$used_])
      out
    },

    #' @description The initial values the chains started from.
    #' @return A list with one element per chain run: a named list of the
    #'   parameters' constrained values (as the context's
    #'   `$constrain_variables()` gives them), or `NULL` for a chain whose
    #'   initialisation failed.
    init = function() {
      lapply(private$chains_, function(ch) {
        if (is.null(ch$init)) return(NULL)
        private$context_$constrain_variables(ch$init, transformed_parameters = FALSE,
                                             generated_quantities = FALSE)
      })
    },

    #' @description The settings and facts of the run.
    #' @return A named list: every argument of `$sample()` (except the data
    #'   themselves: `data_file` is the path of a data file, or `NULL`),
    #'   `method`, `algorithm`, `engine`, `seed`, `chain_ids`,
    #'   `step_size_adaptation` (the step size of each chain after
    #'   adaptation), `variables` (`lp__` and the variable elements of the
    #'   draws), `stan_variables` (`lp__` and the names of the parameters,
    #'   transformed parameters and generated quantities), `stan_variable_sizes`
    #'   (the dimensions of each, 1 for a scalar),
    #'   `sampler_diagnostics` (their names), `model_name`,
    #'   `stan_version_major`, `stan_version_minor`, `stan_version_patch`
    #'   (2.33.0: the version of the Stan language tapestry follows),
    #'   `tapestry_version`, `start_datetime` and `time` (as `$time()$chains`).
    metadata = function() {
      a <- private$args_
      meta <- if (isTRUE(a$fixed_param)) list(method = "sample", algorithm = "fixed_param")
              else list(method = "sample", algorithm = "hmc", engine = "nuts")
      for (name in setdiff(names(a), c("data", "time_total"))) meta[name] <- list(a[[name]])
      meta$data_file <- if (is.character(a$data)) a$data else attr(a$data, "data_file")
      meta$chain_ids <- meta$chain_ids %||% private$chain_ids()
      meta$model_name <- meta$model_name %||% private$model_$model_name()
      meta$step_size_adaptation <- vapply(private$chains_, function(ch) {
        if (length(ch$step_size) == 1L) as.double(ch$step_size) else NA_real_
      }, 0)
      meta$variables <- private$variables_
      stan_variables <- meta$stan_variables %||% unique(base_names(private$variables_[-1L]))
      meta$stan_variables <- c("lp__", setdiff(stan_variables, "lp__"))
      meta$stan_variable_sizes <- variable_sizes(private$variables_, meta$stan_variables)
      meta$sampler_diagnostics <- if (isTRUE(a$fixed_param)) "accept_stat__" else sampler_diagnostic_names
      meta$stan_version_major <- stan_language_version[["major"]]
      meta$stan_version_minor <- stan_language_version[["minor"]]
      meta$stan_version_patch <- stan_language_version[["patch"]]
      meta$tapestry_version <- as.character(getNamespaceVersion("tapestry"))
      meta$start_datetime <- private$created_
      meta$time <- self$time()$chains
      meta
    },

    #' @description Run times.
    #' @return A list: `total`, the elapsed seconds of the whole run (`NA`
    #'   when unknown), and `chains`, a data frame with columns `chain_id`,
    #'   `warmup`, `sampling` and `total` (seconds), one row per chain.
    time = function() {
      t <- function(what) vapply(private$chains_, function(ch) {
        v <- ch$time[what]
        if (length(v) == 1L) as.double(v) else NA_real_
      }, 0)
      chains <- data.frame(chain_id = private$chain_ids(), warmup = t("warmup"),
                           sampling = t("sampling"), total = t("total"))
      list(total = private$time_total_, chains = chains)
    },

    #' @description The number of chains in the draws: after a chain
    #'   failed or an interrupt, fewer than were run (see "Chains that did
    #'   not finish"; `$return_codes()` has one code per chain run).
    #' @return An integer.
    num_chains = function() {
      length(private$used_)
    },

    #' @description The Stan program.
    #' @return A character vector, one element per line.
    code = function() {
      private$model_$code()
    },

    #' @description How each chain ended: 0 finished, 1 stopped by an
    #'   error, 2 interrupted by the user.
    #' @return An integer vector, one element per chain run.
    return_codes = function() {
      vapply(private$chains_, function(ch) as.integer(ch$return_code), 0L)
    },

    #' @description The 'CmdStan' CSV files of the chains of the draws, as
    #'   'cmdstanr' always has them: those `$save_output_files()` (or
    #'   `$sample()`'s `output_dir`) wrote, else written now into
    #'   [tempdir()] (once: sampling does not pay for files nobody reads).
    #' @param include_failed Accepted for 'cmdstanr''s interface: files are
    #'   written only for the chains of the draws.
    #' @return Their paths; `NULL` when no chain made draws.
    output_files = function(include_failed = FALSE) {
      if ((is.null(private$output_files_) || !all(file.exists(private$output_files_))) &&
          length(private$used_)) {
        self$save_output_files(tempdir())
      }
      private$output_files_
    },

    #' @description The log density at a point of the unconstrained space,
    #'   with the data the chains used.
    #' @param unconstrained_variables Numeric vector of the unconstrained
    #'   parameters (as the model's data context has them).
    #' @param jacobian Include the log absolute Jacobian determinants of the
    #'   constraining transforms, as the sampler's target does.
    #' @return A number.
    log_prob = function(unconstrained_variables, jacobian = TRUE) {
      u <- private$check_unconstrained(unconstrained_variables)
      as.vector(private$context_$log_prob(u, jacobian = jacobian))
    },

    #' @description The gradient of the log density at a point of the
    #'   unconstrained space.
    #' @param unconstrained_variables,jacobian As for `$log_prob()`.
    #' @return A numeric vector with the log density as attribute
    #'   `"log_prob"`.
    grad_log_prob = function(unconstrained_variables, jacobian = TRUE) {
      u <- private$check_unconstrained(unconstrained_variables)
      private$context_$grad_log_prob(u, jacobian = jacobian)
    },

    #' @description The unconstrained vector of parameter values.
    #' @param variables A named list with a value for every parameter, of its
    #'   declared shape.
    #' @return A numeric vector.
    unconstrain_variables = function(variables) {
      private$context_$unconstrain_variables(variables)
    },

    #' @description Constrained parameter values from a point of the
    #'   unconstrained space, with the transformed parameters and generated
    #'   quantities computed there.
    #' @param unconstrained_variables As for `$log_prob()`.
    #' @param transformed_parameters Include the transformed parameters.
    #' @param generated_quantities Include the generated quantities.
    #' @return A named list, one element per variable, of its declared
    #'   shape.
    constrain_variables = function(unconstrained_variables, transformed_parameters = TRUE,
                                   generated_quantities = TRUE) {
      u <- private$check_unconstrained(unconstrained_variables)
      private$context_$constrain_variables(u, transformed_parameters = transformed_parameters,
                                           generated_quantities = generated_quantities)
    },

    #' @description Draws on the unconstrained scale.
    #' @param draws A draws object of the 'posterior' package holding every
    #'   parameter of the model; `NULL` for the fit's own draws.
    #' @param format,inc_warmup As for `$draws()`; `inc_warmup` applies to
    #'   the fit's own draws.
    #' @return A draws object whose variables are the unconstrained
    #'   parameters, named as the context's `$upar_names()`.
    unconstrain_draws = function(draws = NULL, format = "draws_array", inc_warmup = FALSE) {
      format <- check_draws_format(format)
      if (is.null(draws)) {
        draws <- self$draws(inc_warmup = inc_warmup)
      } else if (!posterior::is_draws(draws)) {
        abort_arg(sprintf("`draws` must be a draws object of the posterior package, not %s.",
                          describe(draws)))
      }
      arr <- posterior::as_draws_array(draws)
      out <- unconstrain_draw_array(arr, private$context_, private$variables_,
                                    "`draws` lacks %s, which the unconstrained scale needs.")
      dimnames(out) <- list(iteration = dimnames(arr)[[1]], chain = dimnames(arr)[[2]],
                            variable = private$context_$upar_names())
      convert_draws(posterior::as_draws_array(out), format)
    },

    #' @description The `lp__` of the post-warmup draws.
    #' @return A numeric vector, the chains one after the other.
    lp = function() {
      as.vector(unclass(self$draws("lp__", format = "draws_matrix")))
    },

    #' @description Writes the draws as 'CmdStan' CSV files, one per chain
    #'   of the draws, which 'cmdstanr''s `read_cmdstan_csv()`,
    #'   `rstan::read_stan_csv()` and `read.csv(comment.char = "#")` read.
    #'   Each file holds, as 'CmdStan' writes it, a comment block with the
    #'   run's configuration, the column names (`theta.1`, `L.2.1`), the
    #'   warmup draws if they were saved, the adapted step size and inverse
    #'   metric, the sampling draws and the elapsed times. A chain's file has
    #'   all the draws the chain made. Numbers are written with the fewest
    #'   of 15, 16 or 17 significant digits that read back to the same
    #'   double.
    #' @param dir Directory to write to; it must exist.
    #' @param basename Start of the file names; by default the model's name.
    #' @param timestamp Put the date and time in the file names.
    #' @param random Put a random suffix in the file names (drawn without
    #'   touching R's random number stream).
    #' @return The paths of the files, invisibly; `$output_files()` returns
    #'   them afterwards.
    save_output_files = function(dir = ".", basename = NULL, timestamp = TRUE, random = TRUE) {
      check_string(dir, "dir")
      if (!dir.exists(dir)) abort_arg(sprintf("Directory '%s' does not exist.", dir))
      if (is.null(basename)) basename <- private$model_$model_name()
      check_string(basename, "basename")
      check_flag(timestamp, "timestamp")
      check_flag(random, "random")
      private$need_draws("save output files")
      used <- private$used_
      meta <- self$metadata()
      paths <- csv_file_names(normalizePath(dir), basename, private$chain_ids()[used],
                              timestamp, random)
      for (i in seq_along(used)) write_cmdstan_csv(paths[i], meta, private$chains_[[used[i]]])
      private$output_files_ <- paths
      invisible(paths)
    },

    #' @description What the program's `profile("name") { ... }` blocks
    #'   recorded, per chain: for each profile name, thread and phase, the
    #'   time spent in the block in the forward pass and in the reverse pass
    #'   of the gradient, the autodiff nodes recorded inside and the number
    #'   of evaluations. A name used in several places of the program is one
    #'   entry; a profile in the partial sum function of `reduce_sum()` (or
    #'   another parallel function) has a row for each thread that ran it.
    #' @return A list with one data frame per chain run (in the order of
    #'   `$metadata()$chain_ids`), with 'cmdstanr''s columns `name`,
    #'   `thread_id` (0 for R's main thread, 1, 2, ... for the threads of the
    #'   package's pool), `total_time` (seconds: `forward_time` +
    #'   `reverse_time`), `forward_time`, `reverse_time`, `chain_stack` and
    #'   `no_chain_stack` (autodiff nodes recorded inside the block, with and
    #'   without reverse work), `autodiff_calls` and `no_autodiff_calls`
    #'   (evaluations of the block with and without autodiff: generated
    #'   quantities run without), and two more: `phase` (`"warmup"` or
    #'   `"sampling"`: each name and thread has a row per phase in which it
    #'   ran) and `parent` (the profile that was active on the thread when
    #'   the block was first entered, `NA` at the top level). A program
    #'   without profiles gives frames of no rows. [profiles_summary()] adds
    #'   them up.
    profiles = function() {
      lapply(private$chains_, function(ch) profile_frame(ch$profiles))
    },

    #' @description How the chains' gradients ran: the plan report of the
    #'   model's data context (see [TapestryContext]'s `$plan()`), which
    #'   tells which `for` loops were vectorized and why the others were not.
    #' @return A data frame of class `tapestry_plan`.
    plan = function() {
      private$context_$plan()
    },

    #' @description Writes the profiles as 'CmdStan' profile CSV files, one
    #'   per chain run, which 'cmdstanr' and `read.csv()` read: a header line
    #'   `name,thread_id,total_time,forward_time,reverse_time,chain_stack,
    #'   no_chain_stack,autodiff_calls,no_autodiff_calls` and one row per
    #'   profile name and thread, the warmup and sampling phases added
    #'   together (as 'CmdStan' counts them).
    #' @param dir Directory to write to; it must exist.
    #' @param basename Start of the file names; by default the model's name
    #'   followed by `-profile`.
    #' @param timestamp,random As for `$save_output_files()`.
    #' @return The paths of the files, invisibly.
    save_profile_files = function(dir = ".", basename = NULL, timestamp = TRUE,
                                  random = TRUE) {
      check_string(dir, "dir")
      if (!dir.exists(dir)) abort_arg(sprintf("Directory '%s' does not exist.", dir))
      if (is.null(basename)) basename <- paste0(private$model_$model_name(), "-profile")
      check_string(basename, "basename")
      check_flag(timestamp, "timestamp")
      check_flag(random, "random")
      frames <- self$profiles()
      if (all(vapply(frames, nrow, 0L) == 0L)) {
        tapestry_raise(paste0("Can't save profile files: no profiles were recorded (the ",
                              "program has no profile(\"name\") { ... } blocks)."),
                       "tapestry_fit_error")
      }
      paths <- csv_file_names(normalizePath(dir), basename, private$chain_ids(),
                              timestamp, random)
      for (i in seq_along(frames)) write_profile_csv(paths[i], frames[[i]])
      private$profile_files_ <- paths
      invisible(paths)
    },

    #' @description Writes the trace the run recorded (sample with
    #'   `profile_trace_every = k`) in the Chrome trace event format, with
    #'   each chain as a process; see [save_trace()].
    #' @param file Path of the file to write.
    #' @return The normalized path of the file, invisibly.
    save_trace = function(file) {
      check_string(file, "file")
      parts <- list()
      for (ch in private$chains_) {
        if (is.null(ch$trace)) next
        parts[[length(parts) + 1L]] <- list(pid = as.integer(ch$chain_id),
                                            label = sprintf("chain %d", ch$chain_id),
                                            trace = trace_frame(ch$trace))
      }
      if (!length(parts)) {
        tapestry_raise(paste0("The run recorded no trace: sample with ",
                              "`profile_trace_every` = k to trace every k-th evaluation."),
                       "tapestry_fit_error")
      }
      write_trace(parts, file)
    },

    #' @description Saves the fit with [saveRDS()]; [readRDS()] loads it.
    #' @param file Path of the file.
    #' @param ... Passed to [saveRDS()].
    #' @return The fit, invisibly.
    save_object = function(file, ...) {
      check_string(file, "file")
      saveRDS(self, file = file, ...)
      invisible(self)
    }
  ),
  private = list(
    chains_ = NULL,
    time_total_ = NA_real_,
    model_ = NULL,
    context_ = NULL,
    args_ = NULL,
    created_ = NULL,
    variables_ = NULL,
    output_files_ = NULL,
    # the chains of the draws (indices into chains_), and how many warmup
    # and sampling draws each contributes
    used_ = integer(),
    n_warmup_ = 0L,
    n_sampling_ = 0L,
    # the wall time of the chains themselves (tp_sample), NA when unknown
    chains_time_ = NA_real_,
    # posterior's draws_array of every variable's post-warmup draws, built
    # at the first $draws() that asks for all of them
    draws_cache_ = NULL,
    # the default summary of every variable (summary_plan()): list(keys,
    # values, capped), from report_diagnostics() or the first $summary()
    summary_cache_ = NULL,

    chain_ids = function() {
      vapply(private$chains_, function(ch) as.integer(ch$chain_id), 0L)
    },

    # Decides which chains form the draws and how many iterations they
    # share, and says what it left out.
    choose_chains = function() {
      ch <- private$chains_
      ids <- private$chain_ids()
      rc <- vapply(ch, function(c) as.integer(c$return_code), 0L)
      nw <- vapply(ch, function(c) as.integer(c$num_warmup_draws), 0L)
      ns <- vapply(ch, function(c) NROW(c$draws), 0L) - nw
      failed <- rc == 1L
      # a run of warmup only (iter_sampling = 0) keeps every chain that ran
      warmup_only <- identical(as.integer(private$args_$iter_sampling), 0L)
      used <- which(!failed & (ns > 0L | warmup_only))
      # an interrupted run keeps every chain that finished whole; the
      # partial draws of the interrupted chains are left out when any chain
      # finished (a draws_array holds chains of one length), and are the
      # draws, cut to the shortest, when none did
      cut <- integer()
      if (any(rc[used] == 0L) && any(rc[used] == 2L)) {
        cut <- used[rc[used] == 2L]
        used <- used[rc[used] == 0L]
      }
      private$used_ <- used
      if (length(used)) {
        private$n_warmup_ <- min(nw[used])
        private$n_sampling_ <- min(ns[used])
      }
      # $sample() has already said which chains failed ("Chain 2 finished
      # unexpectedly"); what is said here is what the fit makes of them.
      warn <- function(msg) warning(warningCondition(msg, class = "tapestry_warning"))
      empty <- if (warmup_only) integer() else which(!failed & ns <= 0L)
      if (length(empty) && length(used)) {
        warn(sprintf("%s %s made no post-warmup draws and %s left out of the draws.",
                     if (length(empty) == 1L) "Chain" else "Chains",
                     paste(ids[empty], collapse = ", "),
                     if (length(empty) == 1L) "is" else "are"))
      }
      if (length(cut)) {
        warn(sprintf(paste0("%s %s, interrupted, %s left out of the draws (%s); the %d ",
                            "chain%s that finished %s kept whole."),
                     if (length(cut) == 1L) "Chain" else "Chains",
                     paste(ids[cut], collapse = ", "),
                     if (length(cut) == 1L) "is" else "are",
                     paste0(ns[cut], " post-warmup draw", ifelse(ns[cut] == 1L, "", "s"),
                            collapse = ", "),
                     length(used), if (length(used) == 1L) "" else "s",
                     if (length(used) == 1L) "is" else "are"))
      }
      if (!length(used)) {
        warn("No chain made post-warmup draws: the fit has no draws.")
      } else if (length(unique(ns[used])) > 1L) {
        warn(sprintf(paste0("No chain finished, and the interrupted chains made different ",
                            "numbers of post-warmup draws (%s); each is cut to the first %d, ",
                            "which all of them have."),
                     paste0("chain ", ids[used], ": ", ns[used], collapse = ", "),
                     private$n_sampling_))
      }
    },

    need_draws = function(what) {
      if (!length(private$used_)) {
        tapestry_raise(sprintf("Can't %s: no chain made post-warmup draws (return codes %s).",
                               what, paste(self$return_codes(), collapse = ", ")),
                       "tapestry_fit_error")
      }
    },

    select_variables = function(variables) {
      all <- private$variables_
      select_elements(variables, all, all, base_names(all),
                      "The fit has no variable%s %s. Its variables are %s.")
    },

    # posterior's draws_array of the columns `cols` (iterations x chains x
    # cols), copied from the chains' matrices in C: only the columns asked
    # for, and the array of all the variables once (kept).
    build_draws = function(cols, inc_warmup, format) {
      if (inc_warmup && !isTRUE(private$args_$save_warmup)) {
        abort_arg(paste("Warmup draws were requested from a fit without them:",
                        "sample with `save_warmup = TRUE` to keep them."))
      }
      private$need_draws("get the draws")
      all <- !inc_warmup && identical(cols, private$variables_)
      if (all && !is.null(private$draws_cache_)) return(convert_draws(private$draws_cache_, format))
      src <- private$draws_source(cols)
      arr <- .Call(C_tp_draws_array, src[[1]], src[[2]],
                   if (inc_warmup) private$n_warmup_ else 0L, private$n_sampling_, src[[4]],
                   as.character(cols))
      if (all) private$draws_cache_ <- arr
      convert_draws(arr, format)
    },

    # The chains' matrices of the draws, their first post-warmup rows, the
    # number of post-warmup rows and the columns of `cols`: what the C
    # code reads in place (src/r/r_summary.c).
    draws_source = function(cols) {
      chains <- lapply(private$chains_[private$used_], function(ch) {
        d <- ch$draws
        if (!is.double(d)) storage.mode(d) <- "double"
        d
      })
      first <- vapply(private$chains_[private$used_], function(ch) as.integer(ch$num_warmup_draws), 0L)
      idx <- match(cols, colnames(chains[[1L]]))
      list(chains, first, as.integer(private$n_sampling_), as.integer(idx))
    },

    # Divergences, transitions at the maximum tree depth and E-BFMI of each
    # chain of the draws (post-warmup), in C.
    hmc_counts = function(inc_warmup = FALSE) {
      private$need_draws("compute the sampler's diagnostics")
      src <- private$draws_source(c("divergent__", "treedepth__", "energy__"))
      .Call(C_tp_hmc_diag, src[[1]], src[[2]], src[[3]], src[[4]],
            as.integer(private$args_$max_treedepth %||% 10L))
    },

    # The default summary of every variable, computed once and kept.
    default_summary = function() {
      if (is.null(private$summary_cache_)) {
        plan <- summary_plan()
        values <- summary_compute(private$draws_source(private$variables_), plan,
                                  private$n_sampling_ * length(private$used_))
        private$summary_cache_ <- list(keys = summary_keys(plan), values = values,
                                       capped = attr(values, "capped"))
      }
      private$summary_cache_
    },

    # The values of a plan for the variables `cols`: from the kept default
    # summary when it has them all, else computed for these variables.
    summary_values = function(cols, plan) {
      keys <- summary_keys(plan)
      cache <- private$summary_cache_
      if (is.null(cache) && identical(cols, private$variables_) &&
          all(keys %in% summary_keys(summary_plan()))) {
        cache <- private$default_summary()
      }
      # posterior warns for every ESS it caps: the kept counts are those of
      # the whole default summary, so a part of it with ESS is recomputed
      same <- identical(keys, cache$keys)
      if (!is.null(cache) && all(keys %in% cache$keys) && (same || !any(summary_can_cap(plan)))) {
        rows <- match(cols, private$variables_)
        out <- cache$values[rows, match(keys, cache$keys), drop = FALSE]
        attr(out, "capped") <- if (same) cache$capped[rows] else integer(length(rows))
        return(out)
      }
      summary_compute(private$draws_source(cols), plan,
                      private$n_sampling_ * length(private$used_))
    },

    check_unconstrained = function(u) {
      n <- private$context_$num_upars()
      if (!is.numeric(u) || (!is.null(dim(u)) && length(dim(u)) > 1L)) {
        abort_arg(sprintf("`unconstrained_variables` must be a numeric vector, not %s.",
                          describe(u)))
      }
      if (length(u) != n) {
        abort_arg(sprintf(paste0("`unconstrained_variables` has length %d, ",
                                 "but the model has %d unconstrained parameter%s."),
                          length(u), n, if (n == 1) "" else "s"))
      }
      u
    }
  )
)

sampler_diagnostic_names <- c("accept_stat__", "stepsize__", "treedepth__",
                              "n_leapfrog__", "divergent__", "energy__")

# lp__ and the output elements, in the order of the draws' columns: from
# the chains' columns, or from the context when no chain has any.
fit_variable_names <- function(chains, context) {
  for (ch in chains) {
    nm <- colnames(ch$draws)
    if (length(nm)) return(nm[!nm %in% sampler_diagnostic_names])
  }
  c("lp__", context$variable_names())
}

# iterations x chains x num_upars from constrained draws of the parameters
# (a draws_array), for $generate_quantities() and the fit's
# $unconstrain_draws(): `elems` are names of elements among which each
# parameter's are found, `lacking_message` the error (a format for the
# names) when the draws lack some.
unconstrain_draw_array <- function(arr, context, elems, lacking_message) {
  n <- context$num_upars()
  shapes <- context$constrain_variables(rep(0, n), transformed_parameters = FALSE,
                                        generated_quantities = FALSE)
  have <- posterior::variables(arr)
  cols <- lapply(names(shapes), function(p) {
    e <- elems[output_var_names(elems) == p]
    if (grepl(":", p, fixed = TRUE)) e[storage_order(e)] else e
  })
  lacking <- setdiff(unlist(cols), have)
  if (length(lacking)) {
    abort_arg(sprintf(lacking_message, paste0("'", lacking, "'", collapse = ", ")))
  }
  x <- unclass(arr)
  out <- array(NA_real_, c(dim(x)[1:2], n))
  for (i in seq_len(dim(x)[1])) {
    for (j in seq_len(dim(x)[2])) {
      vals <- shapes
      for (k in seq_along(shapes)) {
        if (length(cols[[k]])) vals[[k]][] <- x[i, j, cols[[k]]]
      }
      out[i, j, ] <- context$unconstrain_variables(vals)
    }
  }
  out
}

# "theta[2]" -> "theta"
base_names <- function(x) sub("\\[.*$", "", x)

# Sizes of each variable, from the index of its last element ("L[3,2]" ->
# c(3, 2), "z[2,imag]" -> c(2, 2)); 1 for a scalar, as in cmdstanr's metadata.
variable_sizes <- function(elements, variables) {
  base <- base_names(elements)
  out <- lapply(variables, function(v) {
    e <- elements[base == v]
    if (!length(e)) return(0)
    last <- e[length(e)]
    if (grepl(":", last, fixed = TRUE)) return(length(e))   # a tuple: its number of elements
    if (!grepl("[", last, fixed = TRUE)) return(1)
    idx <- strsplit(sub("^[^[]*\\[(.*)\\]$", "\\1", last), ",", fixed = TRUE)[[1]]
    # a complex element ends in real or imag: one more dimension of 2, as CmdStan's metadata has it
    idx[idx == "imag"] <- "2"
    idx[idx == "real"] <- "1"
    as.numeric(idx)
  })
  names(out) <- variables
  out
}

# E-BFMI of one chain's energies, as Stan and 'cmdstanr' compute it.
ebfmi <- function(energy) {
  n <- length(energy)
  (sum(diff(energy)^2) / n) / (sum((energy - mean(energy))^2) / (n - 1))
}

draws_formats <- c("draws_array", "array", "draws_matrix", "matrix", "draws_df", "df",
                   "data.frame", "draws_list", "list", "draws_rvars", "rvars")

check_draws_format <- function(format) {
  if (!is.character(format) || length(format) != 1L || !format %in% draws_formats) {
    abort_arg(sprintf("`format` must be one of %s, not %s.",
                      paste0("\"", draws_formats, "\"", collapse = ", "), show_value(format)))
  }
  if (format == "data.frame") "df" else sub("^draws_", "", format)
}

convert_draws <- function(d, format) {
  switch(format,
         array = d,
         matrix = posterior::as_draws_matrix(d),
         df = posterior::as_draws_df(d),
         list = posterior::as_draws_list(d),
         rvars = posterior::as_draws_rvars(d))
}

check_count <- function(x, arg) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x < 0 || x != floor(x)) {
    abort_arg(sprintf("`%s` must be a non-negative whole number, not %s.", arg, show_value(x)))
  }
}
