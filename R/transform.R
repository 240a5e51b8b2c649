#' Run a constraint transform of the math library (internal)
#'
#' Maps unconstrained values to a constrained value of a declared shape (and
#' back) with Stan's constraint transforms, and returns the log absolute
#' Jacobian determinant with its gradient. Serves the tests.
#'
#' @param name Transform: `"identity"`, `"lower"`, `"upper"`,
#'   `"lower_upper"`, `"offset_multiplier"`, `"simplex"`, `"ordered"`,
#'   `"positive_ordered"`, `"unit_vector"`, `"sum_to_zero_vector"`,
#'   `"cholesky_factor_corr"`, `"cholesky_factor_cov"`, `"corr_matrix"`,
#'   `"cov_matrix"`.
#' @param x For `"constrain"` and `"value"`: the unconstrained values (a
#'   numeric vector). For `"free"`: the constrained value (an R value of the
#'   declared shape). Ignored for `"size"`.
#' @param params List of bound parameters (lower, upper, offset, multiplier),
#'   scalars or containers with one element per constrained element.
#' @param shape Declared Stan type with sizes, e.g. `"real"`, `"vector[3]"`,
#'   `"matrix[3,2]"`, `"array[2] vector[3]"`.
#' @param ad Logical, recycled to one element for `x` and one per parameter:
#'   which inputs are autodiff variables.
#' @param direction `"constrain"`, `"value"` (constrain without the
#'   Jacobian term), `"free"` or `"size"`.
#' @param types Stan types of the parameters; guessed from the values
#'   (`"real"`, `"vector"`, `"matrix"`) when `NULL`.
#' @return For `"constrain"` and `"value"`: a list with `value`, `lp` (log
#'   |J|, `NA` for `"value"`), `jacobian` (one matrix per input, rows for the
#'   elements of the value followed by `lp`; `NULL` for data inputs) and
#'   `nodes` (chain and no-chain node counts). For `"free"`: the
#'   unconstrained vector. For `"size"`: the number of unconstrained values.
#' @keywords internal
tp_transform <- function(name, x = numeric(), params = list(), shape = "real",
                         ad = FALSE, direction = "constrain", types = NULL) {
  stopifnot(is.character(name), length(name) == 1L, is.list(params))
  if (is.null(types)) {
    types <- vapply(params, function(p) {
      if (is.matrix(p)) "matrix" else if (length(p) == 1L) "real" else "vector"
    }, "")
  }
  params <- lapply(params, function(p) if (is.integer(p)) as.double(p) else p)
  attr(params, "types") <- as.character(types)
  ad <- rep_len(as.logical(ad), 1L + length(params))
  if (direction %in% c("constrain", "value")) x <- as.double(x)
  .Call(C_tp_transform, name, x, params, as.character(shape), ad,
        as.character(direction))
}
