#' tapestry: Stan programs from R without a C++ compiler
#'
#' tapestry parses and checks Stan programs and evaluates their log density
#' and gradient with an interpreter that records on a reverse-mode automatic
#' differentiation tape written in C. This version provides the autodiff
#' tape and the math library; the language and the sampler build on them.
#'
#' @keywords internal
#' @useDynLib tapestry, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
