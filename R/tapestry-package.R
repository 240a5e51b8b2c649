#' tapestry: Stan programs from R without a C++ compiler
#'
#' tapestry parses and checks Stan programs, binds their data, and samples
#' them with NUTS, every chain a thread of one process sharing one read-only
#' copy of the program and data, with no C++ compiler per model. The log
#' density and its gradient come from a reverse-mode automatic
#' differentiation tape written in C: the first gradient evaluation walks
#' the program, later ones replay the plan recorded then. Start with
#' [tapestry_model()]; its `$sample()` takes cmdstanr's arguments and
#' returns a fit with cmdstanr's methods and posterior's draws.
#'
#' @section Options:
#' \describe{
#'   \item{`tapestry.verbose`}{`TRUE`: after `$sample()`, a line on how the
#'     chains evaluated the log density (gradients replayed from recorded
#'     plans, evaluated on the tree interpreter, plans recorded, replays that
#'     fell back), and why, when the program stays on the tree interpreter.}
#' }
#'
#' @keywords internal
#' @useDynLib tapestry, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
