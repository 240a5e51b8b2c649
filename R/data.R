# Internal calls into the data layer (src/data/ld_*.c, src/r/r_data.c). They
# serve the tests; users give data to a model's bind() and sample().

# A list stays a list; one string is the path of a JSON file.
data_arg <- function(x) {
  if (is.character(x)) {
    if (length(x) != 1L || is.na(x)) {
      stop("data must be a named list or the path of a JSON file", call. = FALSE)
    }
    x <- path.expand(x)
    return(if (file.exists(x) && is_rdump_file(x)) read_rdump(x) else x)
  }
  x
}

#' Read data into tapestry's neutral form (internal)
#'
#' Converts a named R list, or reads a CmdStan JSON data file, into the form
#' every data source takes before it meets a program: per variable, its
#' dimensions and its values in row-major order (the last index fastest, as
#' JSON nests them; R arrays are reordered).
#'
#' @param x A named list of numeric, integer or logical vectors, matrices,
#'   arrays and lists of these, or the path of a CmdStan JSON data file.
#' @return A named list with one element per variable, in order, each a list
#'   of `dims` (integer; empty for a scalar), `values` (numeric, row-major)
#'   and `all_int` (logical: every value was written as an integer in JSON,
#'   or came from an R integer or logical vector).
#' @keywords internal
tp_data_read <- function(x) {
  .Call(C_tp_data_read, data_arg(x))
}

#' Bind one data variable to a declared shape (internal)
#'
#' Reads `x` as [tp_data_read()] does, converts variable `name` to the
#' declared type and checks its bounds, as binding data to a program does.
#'
#' @inheritParams tp_data_read
#' @param name Variable name.
#' @param decl The declaration's type as messages show it, e.g.
#'   `"array[3] vector[2]"`.
#' @param base One of `"int"`, `"real"`, `"vector"`, `"row_vector"`,
#'   `"matrix"`.
#' @param dims Integer array dimensions (empty when not an array).
#' @param rows,cols Sizes: `rows` for a vector, `cols` for a row vector, both
#'   for a matrix.
#' @param lower,upper `NULL`, one number for every element, or one number per
#'   element in Stan's storage order (arrays by leading index, matrices
#'   column-major).
#' @return The value as [tp_call()] returns values: arrays as lists (or atomic
#'   vectors for arrays of scalars), matrices as matrices.
#' @keywords internal
tp_data_bind <- function(x, name, decl, base, dims = integer(), rows = 1L, cols = 1L,
                         lower = NULL, upper = NULL) {
  bound <- function(b) {
    if (is.null(b) || is.integer(b)) b else as.numeric(b)
  }
  .Call(C_tp_data_bind, data_arg(x), as.character(name), as.character(decl),
        as.character(base), length(dims), as.integer(dims), as.integer(rows),
        as.integer(cols), bound(lower), bound(upper))
}
