#' Parse a Stan program (internal)
#'
#' Runs the lexer and parser of the Stan language on `code` and returns the
#' syntax tree as an S-expression, for tests and debugging. Nothing is
#' type-checked. A syntax error is signalled as an error of class
#' `tapestry_syntax_error` whose message points at the line and column.
#'
#' @param code The Stan program: a character vector, joined with newlines.
#' @param filename Name of the program in messages.
#' @return A list with `dump` (the tree, one string) and `warnings` (a
#'   character vector of deprecation warnings, one per element).
#' @keywords internal
tp_parse <- function(code, filename = "string") {
  stopifnot(is.character(code), is.character(filename), length(filename) == 1L)
  code <- paste(code, collapse = "\n")
  .Call(C_tp_parse, code, filename)
}
