# Standalone generated quantities: $generate_quantities() on the model and
# the TapestryGQ fit it returns (cmdstanr's CmdStanGQ).
#
# The sampler draws the generated quantities of each saved draw from a
# generator of their own, seeded with (seed, chain id, index of the draw)
# (nuts_run_gq_rng in src/nuts/nuts_run.c); src/r/r_gq.c seeds the same way.
# Given a TapestryFit, the draws' own unconstrained points are used (the fit
# keeps them), so with the fit's seed the generated quantities are the fit's,
# bit for bit.  Given draws (or another fit's draws), the parameters are
# unconstrained first, as CmdStan does from its CSV files.

TapestryModel$set("public", "generate_quantities", function(fitted_params, data = NULL, seed = NULL,
                                                            output_dir = NULL, output_basename = NULL,
                                                            sig_figs = NULL,
                                                            parallel_chains = getOption("mc.cores", 1),
                                                            threads_per_chain = NULL,
                                                            opencl_ids = NULL, show_messages = TRUE,
                                                            show_exceptions = TRUE, compress = NULL) {
  generate_quantities_model(self, fitted_params, data = data, seed = seed,
                            parallel_chains = parallel_chains,
                            threads_per_chain = threads_per_chain,
                            show_messages = show_messages,
                            ignored = list(output_dir = output_dir,
                                           output_basename = output_basename,
                                           sig_figs = sig_figs, opencl_ids = opencl_ids,
                                           compress = compress))
})

generate_quantities_model <- function(model, fitted_params, data, seed, parallel_chains,
                                      threads_per_chain, show_messages, ignored) {
  if (missing(fitted_params) || is.null(fitted_params)) {
    abort_arg("`fitted_params` is missing: give a fit, a draws object or CSV files of draws.")
  }
  check_flag(show_messages, "show_messages")
  for (nm in names(ignored)) {
    if (!is.null(ignored[[nm]])) {
      abort_arg(sprintf(paste0("`%s` does not apply: tapestry keeps the generated quantities ",
                               "in memory and writes no CSV files (use the fit's ",
                               "`$draws()`)."), nm))
    }
  }
  seed <- arg_seed(seed)
  # cmdstanr's default: a seed drawn at random; a fit passed as fitted_params
  # does not give its own (pass seed = the fit's seed to reproduce it)
  context <- model$bind(data, seed)
  start <- Sys.time()
  pts <- gq_points(fitted_params, context)
  out <- lapply(seq_along(pts$chains), function(k) {
    ch <- pts$chains[[k]]
    w <- if (nrow(ch$warmup)) gq_call(context, ch$warmup, ch$chain_id, seed, TRUE) else NULL
    s <- gq_call(context, ch$sampling, ch$chain_id, seed, FALSE)
    list(chain_id = ch$chain_id, warmup = w, sampling = s,
         messages = c(attr(w, "messages"), attr(s, "messages")))
  })
  msgs <- unlist(lapply(out, `[[`, "messages"))
  if (show_messages && length(msgs)) {
    message(paste(unique(msgs), collapse = "\n"))
  }
  elapsed <- as.double(difftime(Sys.time(), start, units = "secs"))
  TapestryGQ$new(out, model, context, list(seed = seed, time_total = elapsed,
                                           has_warmup = pts$has_warmup,
                                           model_name = model$model_name()))
}

gq_call <- function(context, upars, chain_id, seed, warmup) {
  m <- .Call(C_tp_gq, context_ptr(context), upars, as.integer(chain_id), as.double(seed),
             warmup)
  colnames(m) <- context$variable_names()
  m
}

# The unconstrained points of fitted_params, one list per chain with its id
# and matrices (draws x num_upars) of warmup and sampling points.
gq_points <- function(fitted_params, context) {
  n <- context$num_upars()
  p <- if (inherits(fitted_params, "TapestryFit")) fitted_params$.__enclos_env__$private
  has_points <- !is.null(p) && length(p$used_) &&
    all(vapply(p$chains_[p$used_], function(ch) is.matrix(ch$upars), TRUE))
  if (!is.null(p)) p$need_draws("generate quantities")
  if (has_points) {
    warm <- isTRUE(p$args_$save_warmup)
    chains <- lapply(p$used_, function(i) {
      ch <- p$chains_[[i]]
      u <- ch$upars
      if (ncol(u) != n) {
        abort_arg("`fitted_params` is a fit of a program with other parameters than this one.")
      }
      nw <- if (warm) p$n_warmup_ else 0L
      list(chain_id = ch$chain_id,
           warmup = u[seq_len(nw), , drop = FALSE],
           sampling = u[ch$num_warmup_draws + seq_len(p$n_sampling_), , drop = FALSE])
    })
    return(list(chains = chains, has_warmup = warm))
  }
  if (inherits(fitted_params, "TapestryVB")) {
    # the approximation's own points: one chain, as CmdStan's output
    u <- fitted_params$unconstrained_draws()
    if (ncol(u) != n) {
      abort_arg("`fitted_params` is a fit of a program with other parameters than this one.")
    }
    return(list(chains = list(list(chain_id = 1L, warmup = matrix(0, 0, n),
                                   sampling = unname(u))), has_warmup = FALSE))
  }
  draws <- if (is.character(fitted_params)) {
    gq_read_csv(fitted_params)
  } else if (posterior::is_draws(fitted_params)) {
    fitted_params
  } else if (is.environment(fitted_params) && is.function(fitted_params$draws)) {
    # another fit of this package (or one like it): its draws
    fitted_params$draws()
  } else {
    abort_arg(sprintf(paste0("`fitted_params` must be a fit, a draws object of the posterior ",
                             "package or paths of CmdStan CSV files, not %s."),
                      describe(fitted_params)))
  }
  arr <- posterior::as_draws_array(draws)
  u <- unconstrain_draw_array(
    arr, context, context$variable_names(transformed_parameters = FALSE, generated_quantities = FALSE),
    "`fitted_params` lacks %s, which the generated quantities need.")
  # a fit's chains keep their ids; a draws object's chains are 1, 2, ...
  ids <- if (!is.null(p)) p$chain_ids()[p$used_] else seq_len(dim(arr)[2])
  chains <- lapply(seq_len(dim(u)[2]), function(j) {
    list(chain_id = ids[j], warmup = matrix(0, 0, n),
         sampling = matrix(u[, j, ], dim(u)[1], n))
  })
  list(chains = chains, has_warmup = FALSE)
}

# CmdStan CSV files, one per chain: the post-warmup draws (comment lines
# skipped; warmup draws, when saved, come before the adaptation comment).
gq_read_csv <- function(files) {
  missing <- files[!file.exists(files)]
  if (length(missing)) abort_arg(sprintf("CSV file '%s' does not exist.", missing[1L]))
  per <- lapply(files, function(f) {
    lines <- readLines(f, warn = FALSE)
    header <- which(!startsWith(lines, "#") & nzchar(lines))[1L]
    adapt <- grep("^# Adaptation terminated", lines)
    body <- lines[seq.int(header + 1L, length(lines))]
    keep <- !startsWith(body, "#") & nzchar(body)
    if (length(adapt)) keep <- keep & (seq.int(header + 1L, length(lines)) > adapt[1L])
    m <- utils::read.csv(text = c(lines[header], body[keep]), check.names = FALSE)
    names(m) <- cmdstan_names(names(m))
    as.matrix(m)
  })
  nd <- min(vapply(per, nrow, 0L))
  arr <- array(NA_real_, c(nd, length(per), ncol(per[[1L]])),
               dimnames = list(NULL, NULL, colnames(per[[1L]])))
  for (j in seq_along(per)) arr[, j, ] <- per[[j]][seq_len(nd), , drop = FALSE]
  posterior::as_draws_array(arr)
}

#' Standalone generated quantities
#'
#' @description
#' What a model's `$generate_quantities()` returns, as 'cmdstanr''s
#' `CmdStanGQ`: the generated quantities of a program computed at the draws
#' of an earlier fit. With a [TapestryFit] of `$sample()` and that run's seed,
#' they are the fit's own generated quantities, bit for bit: the sampler
#' draws the generated quantities of each draw from a generator seeded with
#' the seed, the chain's id and the draw's index, and so does
#' `$generate_quantities()`.
#' @md
#' @noRd
TapestryGQ <- R6::R6Class("TapestryGQ",
  cloneable = FALSE,
  public = list(
    #' @description Use a model's `$generate_quantities()`.
    #' @param chains List of the chains' results.
    #' @param model The [TapestryModel].
    #' @param context The [TapestryContext] the quantities were computed in.
    #' @param args Named list of the run's settings.
    initialize = function(chains, model, context, args) {
      private$chains_ <- chains
      private$model_ <- model
      private$context_ <- context
      private$args_ <- args
      all <- context$variable_names()
      gq <- names(model$variables()$generated_quantities)
      private$gq_ <- all[output_var_names(all) %in% gq]
      private$all_ <- all
      invisible(self)
    },

    #' @description The generated quantities.
    #' @param variables Names of variables or elements; `NULL` for every
    #'   generated quantity. Parameters and transformed parameters may be
    #'   named too (their values at the fitted draws).
    #' @param inc_warmup Include the warmup draws (when the fitted
    #'   parameters had them).
    #' @param format As for a [TapestryFit]'s `$draws()`.
    #' @return A draws object of the 'posterior' package.
    draws = function(variables = NULL, inc_warmup = FALSE, format = "draws_array") {
      check_flag(inc_warmup, "inc_warmup")
      format <- check_draws_format(format)
      if (inc_warmup && !isTRUE(private$args_$has_warmup)) {
        abort_arg(paste("Warmup draws were requested, but the fitted parameters had none",
                        "(sample with `save_warmup = TRUE`)."))
      }
      cols <- select_elements(variables, private$all_, private$gq_)
      ch <- private$chains_
      rows <- function(c) if (inc_warmup && !is.null(c$warmup)) rbind(c$warmup, c$sampling) else c$sampling
      nd <- nrow(rows(ch[[1L]]))
      arr <- array(NA_real_, c(nd, length(ch), length(cols)),
                   dimnames = list(iteration = as.character(seq_len(nd)),
                                   chain = as.character(seq_along(ch)),
                                   variable = cols))
      for (j in seq_along(ch)) arr[, j, ] <- rows(ch[[j]])[, cols, drop = FALSE]
      convert_draws(posterior::as_draws_array(arr), format)
    },

    #' @description Summary statistics by [posterior::summarise_draws()].
    #' @param variables As for `$draws()`.
    #' @param ... Passed to [posterior::summarise_draws()].
    #' @return A `draws_summary` data frame.
    summary = function(variables = NULL, ...) {
      posterior::summarise_draws(self$draws(variables), ...)
    },

    #' @description Prints the summary of the generated quantities.
    #' @param variables As for `$draws()`.
    #' @param ... Passed to `$summary()`.
    #' @param digits Number of decimal places shown.
    #' @param max_rows Largest number of rows shown.
    print = function(variables = NULL, ..., digits = 2, max_rows = 10) {
      print_summary_rows(self$summary(variables, ...), digits, max_rows)
      invisible(self)
    },

    #' @description Settings of the run and the variables' sizes.
    #' @return A named list.
    metadata = function() {
      list(model_name = private$args_$model_name, method = "generate_quantities",
           seed = private$args_$seed,
           chain_ids = vapply(private$chains_, function(c) as.integer(c$chain_id), 0L),
           variables = private$gq_,
           stan_variables = names(private$model_$variables()$generated_quantities),
           stan_variable_sizes = variable_sizes(private$gq_, names(
             private$model_$variables()$generated_quantities)))
    },

    #' @description The number of chains.
    #' @return An integer.
    num_chains = function() length(private$chains_),

    #' @description The Stan program.
    #' @return A character vector of lines.
    code = function() private$model_$code(),

    #' @description The return code of each chain: 0 (the quantities of
    #'   some draws may be `NaN` where the program rejected; see the messages).
    #' @return An integer vector.
    return_codes = function() rep(0L, length(private$chains_)),

    #' @description Run time.
    #' @return A list with `total`.
    time = function() list(total = private$args_$time_total),

    #' @description Saves the object with [saveRDS()].
    #' @param file Path of the file.
    #' @param ... Passed to [saveRDS()].
    save_object = function(file, ...) {
      saveRDS(self, file = file, ...)
      invisible(self)
    }
  ),
  private = list(
    chains_ = NULL, model_ = NULL, context_ = NULL, args_ = NULL, gq_ = NULL, all_ = NULL
  )
)
