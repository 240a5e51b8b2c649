# Internal calls into the C math library. They serve the tests, benchmarks
# and the bundled example; the user-facing API comes with the Stan language.

# Signal a classed error from C (called by src/r/r_convert.c:rc_raise), so that
# callers can tell a domain error (a rejected proposal) from a program error.
tapestry_raise <- function(message, class) {
  stop(structure(
    class = unique(c(class, "tapestry_error", "error", "condition")),
    list(message = message, call = NULL)
  ))
}

# Ctrl-C stopped an evaluation (src/r/r_interrupt.c) or a run: a condition
# of classes "tapestry_interrupt" and R's "interrupt", and not an error, so
# that tryCatch(error = ) around an evaluation (an optimizer's objective)
# does not swallow it: as R's own interrupts, it ends the computation
# unless a handler for "interrupt" takes it.
tapestry_interrupt <- function(message) {
  stop(structure(class = c("tapestry_interrupt", "interrupt", "condition"),
                 list(message = message, call = NULL)))
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
tp_rng <- function(fn, args, types, n = 1L, seed = 1) {
  .Call(C_tp_rng, fn, args, as.character(types), as.integer(n), as.numeric(seed))
}

#' Functions of the math library and their signatures (internal)
#'
#' @return A data frame with columns `name` and `signatures`.
#' @keywords internal
tp_functions <- function() {
  x <- .Call(C_tp_functions)
  data.frame(name = x[[1]], signatures = x[[2]], stringsAsFactors = FALSE)
}

#' Run a scenario on the autodiff tape (internal)
#'
#' Scenarios: `"execute"`, `"append"`, `"recover"`, `"reenter"`, `"failure"`,
#' `"nested"`, `"threads"`. Each runs in C and returns what it observed.
#'
#' @param which Scenario name.
#' @return A named numeric vector (some scenarios attach a `message`).
#' @keywords internal
tp_ad_selftest <- function(which) {
  .Call(C_tp_ad_selftest, as.character(which))
}

#' Memory of the tape in the steady state (internal)
#'
#' Runs `n` gradient evaluations of one fixed function (scalar nodes, a
#' vectorized density, a scoped stack appended to its parent) and reports the
#' bytes held by the tapes and the heap in use after 10 and after `n`.
#'
#' @param n Number of gradient evaluations (at least 10).
#' @return A named numeric vector.
#' @keywords internal
tp_ad_memory <- function(n) {
  stopifnot(n >= 10)
  .Call(C_tp_ad_memory, as.integer(n))
}

#' Timing loops of the tape and the math library (internal)
#'
#' @param which `"normal_vec"` (gradient of `normal_lpdf` over an autodiff
#'   vector of `n` elements), `"chain_tape"` or `"chain_kernels"` (`n` scalar
#'   operations cycling add, multiply, exp and log, recorded directly on the
#'   tape or through the library's kernels); `"region"`, `"join"`, `"chunk"`:
#'   scheduling of parallel regions with `n` threads (ns per empty region, per
#'   region whose helpers must join, per empty chunk of a region of 10^5
#'   chunks; the check value is the number of threads that took part).
#' @param n Work size.
#' @param reps Repetitions; the best is reported.
#' @return Nanoseconds per element or operation (forward plus reverse), and a
#'   check value.
#' @keywords internal
tp_bench <- function(which, n, reps = 5L) {
  r <- .Call(C_tp_bench, as.character(which), as.integer(n), as.integer(reps))
  c(ns_per_unit = r[1], check = r[2])
}

# Caps the instruction set of the C kernels (0 the baseline, 1 AVX2, -1 none)
# and returns the one now in use (0, 1, 2 for AVX-512), so the tests run every
# variant this machine has.
simd_cap <- function(cap) .Call(C_tp_simd_cap, as.integer(cap))

# Recorded plans (src/plan): a context's counters, and the switch the tests
# use to run the tree interpreter alone (NA: just ask).
plan_stats <- function(ctx) .Call(C_tp_plan_stats, ctx$.__enclos_env__$private$ptr_)
plan_stats_ptr <- function(ptr) .Call(C_tp_plan_stats, ptr)
plans_enabled <- function(on = NA) .Call(C_tp_plan_enable, as.logical(on))
plan_lanes <- function(on = NA) .Call(C_tp_plan_lanes, as.logical(on))
plan_time <- function(ctx, upars, reps = 1000L) {
  .Call(C_tp_plan_time, ctx$.__enclos_env__$private$ptr_, as.double(upars), as.integer(reps))
}
