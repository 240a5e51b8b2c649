#' MPI: map_rect's jobs over the ranks of an MPI job
#'
#' When R runs under `mpirun` (`mpirun -np 4 Rscript fit.R`) and tapestry was
#' built with MPI (configure finds OpenMPI or MPICH), every rank runs the
#' same script. Rank 0 evaluates the model and samples; the `map_rect` calls
#' of its evaluations send their jobs, split evenly over all the ranks, to
#' the others. Each call's `x_r` and `x_i` reach the other ranks once, at its
#' first evaluation; afterwards an evaluation moves only the parameters out
#' and the values with their gradients back.
#'
#' The context's evaluating methods (`$log_prob()`, `$grad_log_prob()`,
#' `$sample()`) are collective: every rank calls them in the same order. On
#' the other ranks `$log_prob()` and `$grad_log_prob()` return rank 0's
#' result and `$sample()` returns `NULL`, so a script writes its output under
#' `if (tapestry_mpi_rank() == 0)`. Outside `mpirun` everything runs in one
#' process as without MPI: rank 0 of 1.
#'
#' @return `tapestry_mpi_available()`: whether this build of tapestry has
#'   the MPI backend. `tapestry_mpi_rank()`: this process's rank (0 outside
#'   MPI). `tapestry_mpi_size()`: the number of ranks (1 outside MPI).
#' @examples
#' tapestry_mpi_available()
#' tapestry_mpi_rank()
#' tapestry_mpi_size()
#' @export
tapestry_mpi_available <- function() .Call(C_tp_mpi_info)$built

#' @rdname tapestry_mpi_available
#' @export
tapestry_mpi_rank <- function() .Call(C_tp_mpi_info)$rank

#' @rdname tapestry_mpi_available
#' @export
tapestry_mpi_size <- function() .Call(C_tp_mpi_info)$size

# Bytes this process sent and received through the MPI backend (tests).
mpi_bytes <- function() .Call(C_tp_mpi_info)$bytes

# Started when the package loads under mpirun; ended when R exits (MPI's
# finalization is collective: every rank ends its script).
mpi_start <- function() {
  running <- .Call(C_tp_mpi_start)
  if (running) reg.finalizer(mpi_finalizer_env, function(e) .Call(C_tp_mpi_stop), onexit = TRUE)
  invisible(running)
}
mpi_finalizer_env <- new.env()
