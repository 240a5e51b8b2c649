# The memory budget (src/ad/ad_mem.c): how much memory tapestry may take for
# autodiff tapes and draws before an evaluation fails with a message rather
# than the operating system killing R.

#' Memory limit of tapestry
#'
#' Every large block of memory tapestry takes (the autodiff memory of every
#' evaluation, chain and thread, and the draws a sampler keeps) is counted
#' against one limit before it is asked for. A program that would need more,
#' such as `vector[N] x;` with `N = 2e9`, stops with an error of class
#' `tapestry_memory_error` naming the variable or the statement, and the R
#' session carries on. Without such a limit the operating system would kill
#' R when the memory is touched.
#'
#' The default is half the machine's physical memory (R and the data need
#' the rest). The option `tapestry.memory_limit`, read when the package is
#' loaded, sets it too.
#'
#' @param limit `NULL` to leave the limit as it is, or the new limit: a
#'   number of bytes, or a string such as `"4GB"`, `"512 MB"` or `"2G"`
#'   (units kB, MB, GB, TB in powers of 1024).
#' @return The limit and the memory counted against it now, in bytes, as a
#'   named numeric vector `c(limit = , used = )`; invisibly when `limit` was
#'   given.
#' @md
#' @examples
#' tapestry_memory_limit()
#' old <- tapestry_memory_limit()[["limit"]]
#' tapestry_memory_limit("2GB")
#' tapestry_memory_limit(old)
#' @export
tapestry_memory_limit <- function(limit = NULL) {
  if (is.null(limit)) return(.Call(C_tp_memory_limit, NULL))
  invisible(.Call(C_tp_memory_limit, parse_bytes(limit, "limit")))
}

parse_bytes <- function(x, what) {
  bad <- function() {
    abort_arg(sprintf("`%s` must be a positive number of bytes or a string such as \"4GB\", not %s.",
                      what, show_value(x)))
  }
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x >= 1) return(as.double(x))
  if (!is.character(x) || length(x) != 1L || is.na(x)) bad()
  m <- regmatches(x, regexec("^\\s*([0-9]+(\\.[0-9]+)?)\\s*([kKmMgGtT]?)[iI]?[bB]?\\s*$", x))[[1]]
  if (length(m) == 0L) bad()
  pow <- match(toupper(m[4L]), c("", "K", "M", "G", "T")) - 1
  b <- as.numeric(m[2L]) * 1024^pow
  if (!(b >= 1)) bad()
  b
}

.onLoad <- function(libname, pkgname) {
  lim <- getOption("tapestry.memory_limit")
  if (!is.null(lim)) {
    tryCatch(tapestry_memory_limit(lim), error = function(e) {
      warning("option tapestry.memory_limit ignored: ", conditionMessage(e), call. = FALSE)
    })
  }
  tryCatch(mpi_start(), error = function(e) {
    warning("MPI did not start, map_rect runs on threads: ", conditionMessage(e), call. = FALSE)
  })
  tryCatch(tapestry_blas(), error = function(e) {
    warning("option tapestry.blas ignored: ", conditionMessage(e), call. = FALSE)
  })
}
