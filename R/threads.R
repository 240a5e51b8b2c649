# The threads of evaluations outside sampling: the main thread's budget of
# threads for parallel regions (reduce_sum, parallel_map, map_rect), and the
# pool grown to match (src/r/r_threads.c).  $sample() sizes the pool itself,
# from parallel_chains * threads_per_chain.

#' Threads of evaluations outside sampling
#'
#' `tapestry_set_num_threads()` sets how many threads the parallel parts of a
#' Stan program (`reduce_sum()`, `reduce_sum_static()`, `parallel_map()`,
#' `map_rect()`) may use when it is evaluated from R: a context's
#' `$log_prob()` and `$grad_log_prob()`, and the fit's methods that
#' evaluate the model. The thread that calls is one of them; the others come
#' from the package's pool of worker threads, which grows to match.
#' `tapestry_get_num_threads()` reads the setting.
#'
#' Sampling does not use this setting: `$sample()` gives each chain
#' `threads_per_chain` threads and sizes the pool from
#' `parallel_chains * threads_per_chain` (at most the cores), and leaves
#' this setting as it was.
#'
#' @param n Number of threads, a positive whole number. It is capped at the
#'   number of cores of the machine (at most 2 when the environment variable
#'   `_R_CHECK_LIMIT_CORES_` is set, as under `R CMD check`): more threads
#'   than cores would only take turns.
#' @return `tapestry_set_num_threads()`: the number of threads now in use,
#'   invisibly. `tapestry_get_num_threads()`: the number of threads, 1 until
#'   it is set.
#' @md
#' @examples
#' old <- tapestry_get_num_threads()
#' tapestry_set_num_threads(2)
#' tapestry_get_num_threads()
#' tapestry_set_num_threads(old)
#' @export
tapestry_set_num_threads <- function(n) {
  invisible(set_num_threads(n, "tapestry_set_num_threads", cap = TRUE))
}

#' @rdname tapestry_set_num_threads
#' @export
tapestry_get_num_threads <- function() {
  .Call(C_tp_threads, NULL)
}

# cap = FALSE lets the tests ask for more threads than cores (results that
# must not depend on the number of threads are checked with 8).
set_num_threads <- function(n, fn = "set_num_threads", cap = TRUE) {
  if (!is.numeric(n) || length(n) != 1L || !is.null(dim(n)) || is.na(n) || !is.finite(n) ||
      n != round(n) || n < 1 || n > .Machine$integer.max) {
    abort_arg(sprintf("%s(): `n` must be a positive whole number, not %s.", fn, show_value(n)))
  }
  n <- as.integer(n)
  if (cap) n <- min(n, .Call(C_tp_cores))
  .Call(C_tp_threads, n)
}
