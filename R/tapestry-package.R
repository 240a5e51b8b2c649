#' tapestry: Stan programs from R without a C++ compiler
#'
#' @description
#' tapestry runs Stan programs from R with no C++ compiler and no 'CmdStan'.
#' A parser and checker written in C read the program (with 'stanc''s
#' messages: file, line and column), and an interpreter evaluates it,
#' recording every operation on a reverse-mode automatic differentiation
#' tape; the first gradient evaluation walks the program, later ones replay
#' the plan recorded then, with loops vectorized where they can be.
#'
#' @details
#' Start with [tapestry_model()], which makes a [TapestryModel]: its verbs
#' and arguments are those of 'cmdstanr''s `cmdstan_model()` objects, so a
#' 'cmdstanr' script runs with `cmdstan_model()` replaced by
#' `tapestry_model()`.
#'
#' * `$sample()` runs the No-U-Turn sampler with Stan's adaptation; the
#'   chains are threads of the R session sharing one read-only copy of the
#'   program and data, each with `threads_per_chain` threads for
#'   `reduce_sum()`, `parallel_map()` and `map_rect()`, and `map_rect()` or
#'   whole chains can run over the ranks of an MPI job
#'   ([tapestry_mpi_rank()]). Progress fits the console, the warnings
#'   'cmdstanr' prints follow the run (divergences, tree depth, E-BFMI,
#'   R-hat and effective sample size), and Ctrl-C keeps every finished
#'   chain.
#' * The result is a [TapestryFit] with 'cmdstanr''s methods; its draws are
#'   'posterior' objects, and the fit works with 'posterior''s
#'   `as_draws_*()` and 'bayesplot''s `nuts_params()`, `log_posterior()`,
#'   `rhat()` and `neff_ratio()` ([tapestry-generics]). Profiles of
#'   `profile()` blocks come with it ([profiles_summary()], [save_trace()]).
#' * `$bind()` gives a [TapestryContext], the model with its data, whose
#'   `$log_prob()`, `$grad_log_prob()` and transforms evaluate the model from
#'   R with no sampling.
#'
#' The vignette (`vignette("tapestry", package = "tapestry")`) is a tour,
#' with a section "Coming from cmdstanr" on what differs.
#'
#' @section Options:
#' \describe{
#'   \item{`tapestry.verbose`}{`TRUE`: after `$sample()`, a line on how the
#'     chains evaluated the log density (gradients replayed from recorded
#'     plans, evaluated on the tree interpreter, plans recorded, replays that
#'     fell back), and why, when the program stays on the tree interpreter.}
#'   \item{`tapestry.chain_turns`}{`TRUE` (the default): when `$sample()` runs
#'     more chains than `parallel_chains`, the chains take turns on the
#'     cores, a piece (a 64th of the chain) at a time, so they end together
#'     and no core idles while the last chain runs alone. The draws are the
#'     same bits either way. `FALSE` runs them in order, as CmdStan does:
#'     the first `parallel_chains` chains to their end, then the next.}
#' }
#'
#' @keywords internal
#' @md
#' @useDynLib tapestry, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
