#' Parse and check a Stan program (internal)
#'
#' Runs the parser and the semantic checker on `code`: every identifier is
#' resolved to a slot, every call and operator to one function, and every
#' expression gets a type. For tests and debugging. A syntax error is
#' signalled as an error of class `tapestry_syntax_error`, a semantic error
#' as one of class `tapestry_semantic_error`; both point at the line and
#' column.
#'
#' @param code The Stan program: a character vector, joined with newlines.
#' @param filename Name of the program in messages.
#' @return A list with `dump` (the tree, one string), `warnings` (a character
#'   vector, one warning per element) and what the checker decided, as data
#'   frames: `exprs` (every expression: position, kind, name, type, `dep`
#'   and the resolution, such as `fn:add` or `var:global:3`), `decls` (every
#'   variable: type, block, scope, slot, `dep`), `stmts` (statements that
#'   resolved a function: `~` and compound assignments), `funcs` (user
#'   functions and their frame sizes) and `program` (the number of globals
#'   and the local frame size of each block).
#' @keywords internal
tp_check <- function(code, filename = "string") {
  stopifnot(is.character(code), is.character(filename), length(filename) == 1L)
  code <- paste(code, collapse = "\n")
  r <- .Call(C_tp_check, code, filename)
  rows <- strsplit(r$checked, "\t", fixed = TRUE)
  tag <- vapply(rows, function(x) x[1], "")
  frame <- function(t, cols, ints) {
    x <- rows[tag == t]
    df <- as.data.frame(
      matrix(as.character(unlist(lapply(x, function(v) c(v[-1], rep("", length(cols)))[seq_along(cols)]))),
             ncol = length(cols), byrow = TRUE, dimnames = list(NULL, cols)),
      stringsAsFactors = FALSE
    )
    for (i in ints) df[[i]] <- as.integer(df[[i]])
    df
  }
  p <- as.integer(rows[tag == "P"][[1]][-1])
  nlocals <- p[-1]
  names(nlocals) <- c("data", "transformed data", "parameters", "transformed parameters",
                      "model", "generated quantities")
  list(
    dump = r$dump,
    warnings = r$warnings,
    exprs = frame("E", c("line", "col", "kind", "name", "type", "dep", "resolved"),
                  c("line", "col", "dep")),
    decls = frame("D", c("line", "col", "name", "type", "block", "scope", "slot", "dep"),
                  c("line", "col", "slot", "dep")),
    stmts = frame("S", c("line", "col", "kind", "fn", "ufn", "cdf", "ccdf", "discrete"),
                  c("line", "col", "discrete")),
    funcs = frame("F", c("name", "nparams", "nslots", "defined_at"),
                  c("nparams", "nslots", "defined_at")),
    program = list(nglobals = p[1], nlocals = nlocals)
  )
}
