# Internal calls into the C math library. They serve the tests, benchmarks
# and the bundled example; the user-facing API comes with the Stan language.

# Signal a classed error from C (called by src/r/r_convert.c:rc_raise), so that
# callers can tell a domain error (a rejected proposal) from a program error.
tapestry_raise <- function(message, class) {
  stop(structure(
    class = c(class, "tapestry_error", "error", "condition"),
    list(message = message, call = NULL)
  ))
}

#' Call a function of the math library (internal)
#'
#' Evaluates a Stan library function on R values and returns its value, the
#' Jacobian with respect to each autodiff argument, and the number of chain
#' and no-chain nodes its evaluation recorded.
#'
#' @param fn Stan function name, e.g. `"normal_lpdf"`.
#' @param args List of argument values. Arrays are lists (one element per
#'   leading index) or, for one-dimensional arrays of scalars, atomic vectors.
#' @param types Character vector of Stan types, one per argument
#'   (`"real"`, `"vector"`, `"array[] int"`, ...).
#' @param ad Logical vector: which arguments are autodiff variables.
#' @param propto Drop constant terms as Stan's `~` does.
#' @param seed Seed of the generator for `_rng` functions.
#' @return A list with `value`, `jacobian` (a list with one matrix per
#'   argument, rows for output elements, `NULL` for data arguments) and
#'   `nodes` (chain and no-chain node counts).
#' @keywords internal
#' @export
tp_call <- function(fn, args, types, ad = rep(FALSE, length(args)),
                    propto = FALSE, seed = 1) {
  stopifnot(is.character(fn), length(fn) == 1L, is.list(args),
            length(types) == length(args), length(ad) == length(args))
  .Call(C_tp_call, fn, args, as.character(types), as.logical(ad),
        as.logical(propto), as.numeric(seed))
}

#' Draw from an `_rng` function of the math library (internal)
#'
#' @inheritParams tp_call
#' @param n Number of draws, all from one generator seeded by `seed`.
#' @return A list of `n` draws.
#' @keywords internal
#' @export
tp_rng <- function(fn, args, types, n = 1L, seed = 1) {
  .Call(C_tp_rng, fn, args, as.character(types), as.integer(n), as.numeric(seed))
}

#' Functions of the math library and their signatures (internal)
#'
#' @return A data frame with columns `name` and `signatures`.
#' @keywords internal
#' @export
tp_functions <- function() {
  x <- .Call(C_tp_functions)
  data.frame(name = x[[1]], signatures = x[[2]], stringsAsFactors = FALSE)
}
