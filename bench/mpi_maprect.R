# map_rect over MPI (issue 15): the gradient of a program with 400 map_rect
# jobs of a heavier likelihood (student_t over 200 observations each) under
# mpirun -np 1 and -np 2, each rank on one thread, alternated; the speed-up
# and whether both give the same gradient.  Run by hand from the repository
# root after installing tapestry built with MPI:
#   Rscript bench/mpi_maprect.R [rounds] [reps]
args <- commandArgs(TRUE)
rounds <- if (length(args) >= 1) as.integer(args[1]) else 5L
reps <- if (length(args) >= 2) as.integer(args[2]) else 200L
rank_script <- file.path("bench", "mpi_maprect_rank.R")
run <- function(np) {
  out <- tempfile(fileext = ".rds")
  st <- system2("mpirun", c("--allow-run-as-root", "--oversubscribe", "-np", np, "Rscript", rank_script, reps, out))
  if (st != 0) stop("mpirun failed")
  readRDS(out)
}
t1 <- t2 <- numeric(rounds)
for (r in seq_len(rounds)) {
  a <- run(1); b <- run(2)
  t1[r] <- a$t; t2[r] <- b$t
  same <- identical(a$g, b$g)
}
cat(sprintf("map_rect, 400 jobs: -np 1 %.2f ms, -np 2 %.2f ms per gradient: %.2fx (median of %d); same gradient: %s\n",
            1e3 * median(t1), 1e3 * median(t2), median(t1) / median(t2), rounds, same))
