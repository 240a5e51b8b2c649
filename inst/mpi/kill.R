# Run by tests/testthat/test-mpi.R under mpirun: every rank writes its pid
# and samples map_rect_hier for a long time; the test kills rank 1, and rank
# 0 saves how long it took to stop and why.
#   mpirun --enable-recovery -np 3 Rscript kill.R <out-dir>
# (without --enable-recovery mpirun itself ends every rank when one dies,
# naming it; with it rank 0 notices and says so.)
suppressMessages(library(tapestry))
out <- commandArgs(TRUE)[1]
rank <- tapestry_mpi_rank()
ext <- system.file("extdata", package = "tapestry")
m <- tapestry_model(file.path(ext, "map_rect_hier.stan"))
data <- file.path(ext, "map_rect_hier.data.json")
# a first collective evaluation: every rank is up and serving before the test kills one
invisible(m$bind(data)$grad_log_prob(rep(0.1, 42)))
writeLines(as.character(Sys.getpid()), file.path(out, sprintf("pid%d", rank)))
msg <- tryCatch({
  m$sample(data = data, chains = 1, iter_warmup = 1e5, iter_sampling = 1e5, refresh = 0,
           show_messages = FALSE, seed = 1)
  "finished"
}, error = function(e) conditionMessage(e), warning = function(w) conditionMessage(w))
if (rank == 0) saveRDS(list(t = Sys.time(), msg = msg), file.path(out, "rank0.rds"))
