# Run by tests/testthat/test-mpi.R under mpirun: $sample(mpi = "chains")
# spreads 4 chains over the ranks; rank 0 saves the fit's draws and the
# chains' return codes, the other ranks what $sample() returned.
#   mpirun -np 2 Rscript chains.R <out-dir>
suppressMessages(library(tapestry))
out <- commandArgs(TRUE)[1]
rank <- tapestry_mpi_rank()
ext <- system.file("extdata", package = "tapestry")
m <- tapestry_model(file.path(ext, "eight_schools.stan"))
fit <- m$sample(data = file.path(ext, "eight_schools.data.json"), chains = 4, parallel_chains = 2,
                iter_warmup = 200, iter_sampling = 100, seed = 5, refresh = 0, show_messages = FALSE,
                mpi = "chains")
res <- list(rank = rank, null = is.null(fit))
if (!is.null(fit)) {
  res$draws <- posterior::as_draws_array(fit$draws())
  res$codes <- fit$return_codes()
  res$diag <- fit$sampler_diagnostics()
}
saveRDS(res, file.path(out, sprintf("rank%d.rds", rank)))
