# Model objects: a parsed and checked Stan program held in C memory.

#' Create a Stan model object
#'
#' Parses and checks a Stan program. No C++ compiler is involved: the program
#' is held in memory as a checked syntax tree, and the model's log density and
#' its gradient are computed by an interpreter once data are bound to it with
#' the model's `$bind()` method. The interface follows 'cmdstanr'.
#'
#' Syntax errors signal a condition of class `tapestry_syntax_error`, other
#' errors in the program (an undeclared variable, a type mismatch) one of
#' class `tapestry_semantic_error`; both also have class `tapestry_error`.
#' The message gives the file, line and column, and quotes the line. Warnings
#' of the checker (deprecated syntax, for instance) are R warnings of class
#' `tapestry_warning`.
#'
#' @param file Path to a Stan program (a `.stan` file).
#' @param code The Stan program as a string (or a character vector of lines),
#'   instead of `file`.
#' @param include_paths Folders in which `#include` directives look for
#'   the files they name, in order, as stanc's `--include-paths`. The folder
#'   of `file` is searched after them. A message about code that came from an
#'   included file names that file and its line.
#' @param stan_file 'cmdstanr''s name for `file` (`cmdstan_model(stan_file =
#'   )`); give one of the two.
#' @param exe_file,compile,quiet,dir,pedantic,user_header,cpp_options,stanc_options,force_recompile,compile_model_methods,compile_standalone,dry_run,threads,compile_hessian_method
#'   The other arguments of 'cmdstanr''s `cmdstan_model()` (and of its
#'   `$compile()`), so that a 'cmdstanr' script runs unchanged. Nothing is
#'   compiled: those that only steer a compilation (`exe_file`,
#'   `cpp_options`, `stanc_options`, `force_recompile`, `user_header`,
#'   `dir`, `dry_run`, `compile_model_methods`) are ignored, and when any
#'   is given a message says so, once per call (not with `quiet = TRUE` and
#'   `compile = FALSE`, which ask for silence and no compilation).
#'   `pedantic = TRUE` shows the pedantic warnings (as
#'   `$check_syntax(pedantic = TRUE)`), `compile_standalone = TRUE` exposes
#'   the program's functions (`$expose_functions()`). `threads` and
#'   `compile_hessian_method` give 'cmdstanr''s deprecation warnings. A
#'   model needs its Stan program: `exe_file` alone is an error.
#' @return A [TapestryModel] object.
#' @seealso [TapestryModel] for the methods of the model object,
#'   [TapestryContext] for those of the data context made by `$bind()`.
#' @examples
#' file <- system.file("extdata", "eight_schools.stan", package = "tapestry")
#' mod <- tapestry_model(file)
#' mod
#' str(mod$variables()$parameters)
#'
#' mod2 <- tapestry_model(code = "
#'   parameters { real y; }
#'   model { y ~ normal(0, 1); }
#' ")
#' mod2$check_syntax()
#' @importFrom R6 R6Class
#' @md
#' @export
tapestry_model <- function(file = NULL, code = NULL, include_paths = NULL, stan_file = NULL,
                           exe_file = NULL, compile = TRUE, quiet = TRUE, dir = NULL,
                           pedantic = FALSE, user_header = NULL, cpp_options = list(),
                           stanc_options = list(), force_recompile = FALSE,
                           compile_model_methods = FALSE, compile_standalone = FALSE,
                           dry_run = FALSE, threads = FALSE, compile_hessian_method = FALSE) {
  if (!is.null(stan_file)) {
    if (!is.null(file)) abort_arg("Give the Stan program as `file` or as `stan_file`, not both.")
    file <- stan_file
  }
  if (is.null(file) && is.null(code) && !is.null(exe_file)) {
    abort_arg(paste0("tapestry runs the Stan program itself, not a compiled executable: give ",
                     "the program as `stan_file` (or `file`, or `code`), not only `exe_file`."))
  }
  if (is.null(file) && is.null(code)) {
    abort_arg("Give the Stan program as `file` (a path) or as `code` (a string).")
  }
  check_flag(compile, "compile")
  check_flag(quiet, "quiet")
  check_flag(pedantic, "pedantic")
  check_flag(compile_standalone, "compile_standalone")
  compile_args_said(list(exe_file = exe_file, cpp_options = cpp_options,
                         stanc_options = stanc_options, force_recompile = force_recompile,
                         user_header = user_header, dir = dir, dry_run = dry_run,
                         compile_model_methods = compile_model_methods,
                         threads = threads, compile_hessian_method = compile_hessian_method),
                    quiet = quiet && !compile)
  if (!is.null(file) && !is.null(code)) {
    abort_arg("Give the Stan program as `file` or as `code`, not both.")
  }
  if (!is.null(file)) {
    check_string(file, "file")
    if (!file.exists(file) || dir.exists(file)) {
      abort_arg(sprintf("Stan file '%s' does not exist.", file))
    }
    code <- read_program(file)
  } else {
    if (!is.character(code) || length(code) == 0L || anyNA(code)) {
      abort_arg("`code` must be a character string holding a Stan program.")
    }
    code <- paste(code, collapse = "\n")
  }
  if (!is.null(include_paths)) {
    if (!is.character(include_paths) || anyNA(include_paths)) {
      abort_arg("`include_paths` must be a character vector of folders.")
    }
    missing <- include_paths[!dir.exists(include_paths)]
    if (length(missing) > 0L) {
      abort_arg(sprintf("Include path '%s' is not a folder.", missing[1L]))
    }
    include_paths <- normalizePath(include_paths)
  }
  if (!is.null(file)) include_paths <- unique(c(include_paths, dirname(normalizePath(file))))
  mod <- TapestryModel$new(file, code, include_paths)
  if (pedantic) mod$check_syntax(pedantic = TRUE, quiet = TRUE)
  if (compile_standalone) mod$expose_functions()
  mod
}

# cmdstanr's compilation arguments, which nothing here uses: its deprecation
# warnings for `threads` and `compile_hessian_method`, then one message
# naming those given (unless `quiet`).
compile_args_said <- function(args, quiet) {
  if (!isFALSE(args$threads)) {
    warning(warningCondition(paste0("'threads' is deprecated. Please use 'cpp_options = ",
                                    "list(stan_threads = TRUE)' instead."),
                             class = "tapestry_warning"))
  }
  if (!isFALSE(args$compile_hessian_method)) {
    warning(warningCondition(paste0("'compile_hessian_method' is deprecated. The hessian ",
                                    "method is compiled with all models."),
                             class = "tapestry_warning"))
  }
  defaults <- list(exe_file = NULL, cpp_options = list(), stanc_options = list(),
                   force_recompile = FALSE, user_header = NULL, dir = NULL, dry_run = FALSE,
                   compile_model_methods = FALSE)
  given <- names(defaults)[!vapply(names(defaults), function(n) {
    v <- args[[n]]
    identical(v, defaults[[n]]) || (is.list(v) && length(v) == 0L)
  }, TRUE)]
  if (length(given) && !quiet) {
    hint <- if (isTRUE(args$cpp_options$stan_threads) || isTRUE(args$cpp_options$STAN_THREADS)) {
      " Threads need no option: give $sample() `threads_per_chain`."
    } else {
      ""
    }
    message(sprintf(paste0("tapestry interprets the Stan program: nothing is compiled, so %s ",
                           "%s ignored.%s"),
                    and_list(paste0("`", given, "`")),
                    if (length(given) == 1L) "is" else "are", hint))
  }
  invisible(given)
}

#' A Stan model
#'
#' @description
#' A model object holds a parsed and checked Stan program. Create it with
#' [tapestry_model()]; bind data to it with `$bind()` to get a
#' [TapestryContext], which evaluates the log density and its gradient.
#'
#' @examples
#' file <- system.file("extdata", "eight_schools.stan", package = "tapestry")
#' mod <- tapestry_model(file)
#' mod$variables()$parameters$tau
#' data <- list(J = 8, y = c(28, 8, -3, 7, -1, 1, 18, 12),
#'              sigma = c(15, 10, 16, 11, 9, 11, 10, 18))
#' ctx <- mod$bind(data)
#' ctx$log_prob(rep(0.1, ctx$num_upars()))
#' @md
TapestryModel <- R6::R6Class("TapestryModel",
  cloneable = FALSE,
  public = list(
    #' @description Use [tapestry_model()] to create a model object.
    #' @param file Path of the program, or `NULL`.
    #' @param code The program's text.
    #' @param include_paths Folders `#include` searches, in order.
    initialize = function(file, code, include_paths = NULL) {
      private$file_ <- if (is.null(file)) NULL else normalizePath(file)
      private$include_paths_ <- as.character(include_paths)
      private$code_ <- code
      private$name_ <- if (is.null(file)) "string" else basename(file)
      private$ptr_ <- private$parse(warn = TRUE)
    },

    #' @description The Stan program.
    #' @return A character vector with one element per line of the program.
    code = function() {
      strsplit(private$code_, "\n", fixed = TRUE)[[1]]
    },

    #' @description The path of the Stan file.
    #' @return The absolute path, or `NULL` for a model given as `code`.
    file = function() {
      private$file_
    },

    #' @description Name of the model, from its file name (without `.stan`),
    #'   or `"string"` for a model given as `code`.
    #' @return A string.
    model_name = function() {
      sub("\\.stan$", "", private$name_)
    },

    #' @description Prints the Stan program.
    #' @param line_numbers Number the lines (default
    #'   `getOption("cmdstanr_print_line_numbers", FALSE)`).
    #' @param ... Ignored.
    print = function(line_numbers = getOption("cmdstanr_print_line_numbers", FALSE), ...) {
      code <- self$code()
      if (isTRUE(line_numbers)) {
        code <- paste0(format(seq_along(code), width = nchar(length(code))), ": ", code)
      }
      cat(code, sep = "\n")
      invisible(self)
    },

    #' @description The variables the program declares, as 'cmdstanr'
    #'   reports them.
    #' @return A list with elements `data`, `parameters`,
    #'   `transformed_parameters` and `generated_quantities`, each a named
    #'   list with one element per variable: a list of `type` (the Stan type
    #'   without sizes, such as `"array[] real"` or `"vector"`), `dimensions`
    #'   (the number of dimensions: array dimensions plus one for a vector,
    #'   two for a matrix) and `constraint` (the constraint keyword, such as
    #'   `"lower"`, `"simplex"` or `"cholesky_factor_corr"`, or `NA`). Sizes
    #'   are known only once data are bound; see
    #'   [TapestryContext]'s `$print()`.
    variables = function() {
      .Call(C_tp_model_variables, private$program())
    },

    #' @description Parses and checks the program again, showing its
    #'   warnings.
    #' @param pedantic Also show the warnings of stanc's pedantic mode (one
    #'   warning of class `tapestry_pedantic_warning`, a line per problem):
    #'   unused parameters, parameters with no prior or several, bounds and
    #'   distributions whose supports do not match, uniform priors, `lkj_corr`,
    #'   control flow that depends on parameters...
    #' @param include_paths,stanc_options Accepted for 'cmdstanr''s
    #'   interface; the model's own include paths are used.
    #' @param quiet When `FALSE`, a message says that the program is
    #'   correct.
    #' @return `TRUE`, invisibly; an error of class `tapestry_syntax_error`
    #'   or `tapestry_semantic_error` when the program is not correct.
    check_syntax = function(pedantic = FALSE, include_paths = NULL, stanc_options = list(),
                            quiet = FALSE) {
      check_flag(quiet, "quiet")
      check_flag(pedantic, "pedantic")
      private$parse(warn = TRUE)
      if (pedantic) {
        w <- pedantic_warnings(private$code_, private$name_)
        if (length(w)) {
          warning(warningCondition(paste(w, collapse = "\n"),
                                   class = c("tapestry_pedantic_warning", "tapestry_warning")))
        }
      }
      if (!quiet) message("Stan program is syntactically correct")
      invisible(TRUE)
    },

    #' @description Binds data to the model: checks them against the data
    #'   block's declarations and runs the transformed data block once.
    #' @param data A named list (numbers, vectors, matrices and arrays; an
    #'   array of vectors may also be a list of vectors) or the path of a
    #'   JSON data file in 'CmdStan''s format. `NULL` or an empty list for a
    #'   program without data.
    #' @param seed Seed of the random numbers drawn in transformed data (and
    #'   the default for generated quantities), a non-negative whole number.
    #' @return A [TapestryContext] object. Errors in the data (a missing
    #'   variable, wrong dimensions, a violated bound, a non-integer value
    #'   for an `int`) signal a condition of class `tapestry_data_error`.
    bind = function(data = NULL, seed = 0) {
      TapestryContext$new(self, private$program(), data, seed)
    },

    #' @description Draw from the posterior with the No-U-Turn sampler, as
    #'   'cmdstanr''s `$sample()` does. The chains run as threads of this R
    #'   process and share one data context; chain `k` draws from the
    #'   generator seeded with `(seed, k)`, so a chain's draws do not depend
    #'   on which chains run beside it. Progress is shown every `refresh`
    #'   iterations: in interactive sessions one line redrawn in place, never
    #'   wider than `getOption("width")`; otherwise 'CmdStan''s lines
    #'   (`Chain 1 Iteration:  100 / 2000 [  5%]  (Warmup)`). Ctrl-C stops
    #'   every chain within a second and returns a fit, with a warning: the
    #'   chains that had finished are kept whole (see [TapestryFit], "Chains
    #'   that did not finish", for the interrupted chains' draws). After the
    #'   run, 'cmdstanr''s warnings are printed (see `diagnostics`).
    #'   Arguments left `NULL` take the defaults shown.
    #' @param data A named list or the path of a CmdStan JSON data file.
    #' @param seed Seed of the run (a non-negative whole number); `NULL`
    #'   draws one from R's generator.
    #' @param refresh Show progress every `refresh` iterations (default 100); 0 shows
    #'   none.
    #' @param init Initial values: a number `r` (uniform(-r, r) on the
    #'   unconstrained scale (default 2); 0 means zeros), a named list of values for
    #'   some or all parameters (the rest random) used by every chain, a list
    #'   of such lists (one per chain), a function of `chain_id` returning
    #'   one, or the path of a JSON file (with several chains, `inits_1.json`,
    #'   `inits_2.json`, ... next to `inits.json` are used per chain id when
    #'   they exist), or a character vector of one path per chain.
    #' @param chains Number of chains (default 4).
    #' @param parallel_chains Chains run at once (default `getOption("mc.cores", 1)`),
    #'   at most the number of cores.
    #' @param chain_ids Ids of the chains (default `1:chains`); they seed the chains'
    #'   generators.
    #' @param threads_per_chain Threads each chain may use for the parallel
    #'   parts of the program (`reduce_sum()`, `parallel_map()`, `map_rect()`;
    #'   default 1). The chains and their helpers share one pool of
    #'   `parallel_chains * threads_per_chain` threads, at most the number of
    #'   cores, so asking for more never runs more threads than cores. The
    #'   setting of [tapestry_set_num_threads()] is not used, and is the same
    #'   after sampling.
    #' @param iter_warmup,iter_sampling Warmup and sampling iterations per
    #'   chain (default 1000 each). `iter_warmup = "auto"` ends warmup when
    #'   the chains agree (see [sample_auto]); `iter_sampling` is the most
    #'   sampling iterations with `target_ess`.
    #' @param iter_warmup_max With `iter_warmup = "auto"`, the most warmup
    #'   iterations (default 1000).
    #' @param target_ess Stop sampling once the bulk and tail ESS of every
    #'   parameter (or of `target_variables`) reach this number, with R-hat
    #'   at most 1.01 (see [sample_auto]); `NULL` (the default) samples
    #'   `iter_sampling` iterations.
    #' @param target_variables With `target_ess`, the variables (or
    #'   elements) it applies to; `NULL`: every parameter.
    #' @param save_warmup Keep the warmup draws (default `FALSE`).
    #' @param thin Keep every `thin`-th draw (default 1).
    #' @param max_treedepth Maximum depth of the trajectory tree (default 10).
    #' @param adapt_engaged Adapt the step size and the metric during warmup
    #'   (default `TRUE`).
    #' @param adapt_delta Target average acceptance statistic (default 0.8).
    #' @param step_size Initial step size (default 1), one number or one per chain.
    #' @param metric `"diag_e"` (the default), `"dense_e"` or `"unit_e"`.
    #' @param inv_metric Initial inverse metric: a vector (diagonal) or a
    #'   matrix (dense), or a list of one per chain.
    #' @param init_buffer,term_buffer,window Stan's adaptation windows
    #'   (default 75, 50, 25).
    #' @param show_messages Show the chains' messages (rejections, `print()`
    #'   output) and the closing summary (default `TRUE`).
    #' @param profile_trace_every Record a trace of the program's profiled
    #'   intervals at every k-th gradient evaluation of each chain, for the
    #'   fit's `$save_trace()`; `NULL` or 0 (the default) records none. The
    #'   profiles themselves (`$profiles()`) are always recorded.
    #' @param save_latent_dynamics,output_dir,output_basename,sig_figs,opencl_ids,metric_file,fixed_param,show_exceptions,diagnostics,save_metric,save_cmdstan_config
    #'   'cmdstanr''s arguments of the same names; see
    #'   [sample_cmdstanr_arguments] for what each does here (CSV files
    #'   written to `output_dir` as CmdStan names them, draws rounded to
    #'   `sig_figs` significant digits, the inverse metric read from
    #'   `metric_file`...) and which cannot apply (`opencl_ids`,
    #'   `save_latent_dynamics`).
    #' @param mpi Under `mpirun` (see [tapestry_mpi_rank()]): `"map_rect"`
    #'   (the default) samples on rank 0 and spreads its `map_rect` jobs over
    #'   the ranks; `"chains"` runs each rank's share of the chains on its own
    #'   threads (any program, with or without `map_rect`) and gathers them
    #'   on rank 0 into one fit whose draws are those of a one-process run
    #'   with the same seed. Outside `mpirun` it changes nothing.
    #' @param diagnostics Which of 'cmdstanr''s warnings to print after the
    #'   run: some of `"divergences"`, `"treedepth"` and `"ebfmi"` (default
    #'   all three), each with the count of every chain. Any of them also
    #'   warns when the largest R-hat is above 1.05 or the bulk or tail
    #'   effective sample size of a variable is below 100 per chain. `NULL`
    #'   prints none. The counts are those of `$diagnostic_summary()`.
    #' @param fixed_param Run CmdStan's fixed_param sampler: every draw is
    #'   the initial point (`init`), only the transformed parameters and
    #'   generated quantities change; no warmup, and the sampler columns are
    #'   `lp__` and `accept_stat__`, both 0, as CmdStan writes them. Chosen
    #'   automatically for a program without parameters (default `FALSE`).
    #' @param cores,num_cores,num_chains,num_warmup,num_samples,save_extra_diagnostics,max_depth,stepsize,validate_csv
    #'   'cmdstanr''s deprecated names of `parallel_chains`, `chains`,
    #'   `iter_warmup`, `iter_sampling`, `save_latent_dynamics`,
    #'   `max_treedepth`, `step_size` and `diagnostics`: they work, with
    #'   'cmdstanr''s deprecation warning.
    #' @param show_progress_bar `TRUE` draws the one-line progress display
    #'   (as in interactive sessions) also where output is not a console: the
    #'   progress bar of 'cmdstanr''s newer versions. Nothing is drawn when
    #'   `show_messages = FALSE` or `refresh = 0`.
    #' @return A [TapestryFit] object (`NULL` on the ranks other than 0 of an
    #'   MPI job).
    sample = function(data = NULL, seed = NULL, refresh = NULL, init = NULL,
                      save_latent_dynamics = FALSE,
                      output_dir = getOption("cmdstanr_output_dir"), output_basename = NULL,
                      sig_figs = NULL, chains = 4,
                      parallel_chains = getOption("mc.cores", 1), chain_ids = seq_len(chains),
                      threads_per_chain = NULL, opencl_ids = NULL, iter_warmup = NULL,
                      iter_sampling = NULL,
                      save_warmup = FALSE, thin = NULL, max_treedepth = NULL,
                      adapt_engaged = TRUE, adapt_delta = NULL, step_size = NULL,
                      metric = NULL, metric_file = NULL, inv_metric = NULL, init_buffer = NULL,
                      term_buffer = NULL, window = NULL, fixed_param = FALSE,
                      show_messages = TRUE, show_exceptions = TRUE,
                      diagnostics = c("divergences", "treedepth", "ebfmi"),
                      save_metric = getOption("cmdstanr_save_metric", FALSE),
                      save_cmdstan_config = getOption("cmdstanr_save_config", FALSE),
                      profile_trace_every = NULL, mpi = c("map_rect", "chains"),
                      cores = NULL, num_cores = NULL, num_chains = NULL, num_warmup = NULL,
                      num_samples = NULL, validate_csv = NULL, save_extra_diagnostics = NULL,
                      max_depth = NULL, stepsize = NULL, show_progress_bar = FALSE,
                      iter_warmup_max = NULL, target_ess = NULL, target_variables = NULL) {
      # cmdstanr's deprecated names (R/verb-sample-args.R), before any
      # default below is forced: chain_ids follows num_chains
      old <- deprecated_sample_args(environment())
      for (nm in names(old)) assign(nm, old[[nm]])
      sample_model(self, data = data, seed = seed, refresh = refresh, init = init,
                   chains = chains, parallel_chains = parallel_chains,
                   chain_ids = chain_ids, threads_per_chain = threads_per_chain,
                   iter_warmup = iter_warmup, iter_sampling = iter_sampling,
                   save_warmup = save_warmup, thin = thin, max_treedepth = max_treedepth,
                   adapt_engaged = adapt_engaged, adapt_delta = adapt_delta,
                   step_size = step_size, metric = metric, inv_metric = inv_metric,
                   init_buffer = init_buffer, term_buffer = term_buffer, window = window,
                   show_messages = show_messages, profile_trace_every = profile_trace_every,
                   mpi = mpi, diagnostics = diagnostics,
                   extra = list(save_latent_dynamics = save_latent_dynamics,
                                output_dir = output_dir, output_basename = output_basename,
                                sig_figs = sig_figs, opencl_ids = opencl_ids,
                                metric_file = metric_file, fixed_param = fixed_param,
                                show_exceptions = show_exceptions, diagnostics = diagnostics,
                                save_metric = save_metric,
                                save_cmdstan_config = save_cmdstan_config,
                                show_progress_bar = show_progress_bar),
                   iter_warmup_max = iter_warmup_max, target_ess = target_ess,
                   target_variables = target_variables)
    },

    #' @description Times `n` evaluations of the log density and its
    #'   gradient at one point, without sampling, to see what the program's
    #'   `profile("name") { ... }` blocks cost: binds the data (as
    #'   `$bind()`) and calls the context's `$profile_log_prob()`.
    #' @param data As for `$bind()`.
    #' @param upars Numeric vector of the unconstrained parameters.
    #' @param n Number of gradient evaluations (default 100).
    #' @param trace_every Record a trace of the profiled intervals at every
    #'   k-th evaluation, for [save_trace()]; `NULL` or 0 records none.
    #' @return An object of class `tapestry_profile_run`: a list with
    #'   `profiles` (a data frame with the columns of a fit's
    #'   `$profiles()`, the phase being `"sampling"`), `seconds` (the wall
    #'   time of the `n` evaluations), `trace` (a data frame of the trace
    #'   events, or `NULL`), `n` and `trace_every`. [profiles_summary()] and
    #'   [save_trace()] take it; printing it shows the summary.
    profile_log_prob = function(data = NULL, upars, n = 100, trace_every = NULL) {
      n <- arg_count(n, "n", 1L, 100L)
      trace_every <- arg_trace_every(trace_every, "trace_every")
      self$bind(data)$profile_log_prob(upars, n = n, trace_every = trace_every)
    }
  ),
  private = list(
    file_ = NULL,
    code_ = NULL,
    include_paths_ = character(),
    name_ = NULL,
    ptr_ = NULL,

    parse = function(warn) {
      ptr <- .Call(C_tp_model_new, private$code_, private$name_, private$include_paths_)
      w <- attr(ptr, "warnings")
      if (warn && length(w) > 0L) {
        warning(warningCondition(paste(w, collapse = "\n"),
                                 class = "tapestry_warning"))
      }
      ptr
    },

    # A model saved and loaded in a new session has lost its C memory: parse
    # the program again (quietly: its warnings were shown when it was made).
    program = function() {
      if (!.Call(C_tp_ptr_ok, private$ptr_)) private$ptr_ <- private$parse(warn = FALSE)
      private$ptr_
    }
  )
)

read_program <- function(file) {
  text <- readLines(file, warn = FALSE, encoding = "UTF-8")
  paste0(paste(text, collapse = "\n"), "\n")
}
