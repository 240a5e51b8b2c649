# map_rect over MPI (R/mpi.R, src/par/pp_mpi.c, src/tree/li_mpi.c): scripts
# in inst/mpi run under mpirun and their results are compared with this
# process's (one process, map_rect on threads).  They need tapestry built
# with MPI and an mpirun; CI installs OpenMPI, so they run there.  The
# sanitizer pass cannot run them: its R preloads ASan, which mpirun's
# helpers and the ranks' R would inherit.

test_that("outside mpirun tapestry is rank 0 of 1", {
  expect_true(is.logical(tapestry_mpi_available()))
  expect_identical(tapestry_mpi_rank(), 0L)
  expect_identical(tapestry_mpi_size(), 1L)
  expect_identical(tapestry:::mpi_bytes(), 0)
})

mpirun <- function(np, script, dir, wait = TRUE, timeout = 300, flags = character()) {
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  args <- c("--allow-run-as-root", "--oversubscribe", flags, "-np", np, file.path(R.home("bin"), "Rscript"),
            system.file("mpi", script, package = "tapestry"), dir)
  system2(Sys.which("mpirun"), args, stdout = file.path(dir, "stdout"), stderr = file.path(dir, "stderr"),
          wait = wait, timeout = if (wait) timeout else 0,
          env = c(paste0("R_LIBS=", lib), "OMPI_MCA_btl_vader_single_copy_mechanism=none"))
}

skip_without_mpi <- function() {
  skip_if_not(tapestry_mpi_available(), "tapestry was built without MPI")
  skip_if(!nzchar(Sys.which("mpirun")), "no mpirun")
  skip_if(nzchar(Sys.getenv("TAPESTRY_SANITIZER")), "the sanitizer pass does not run mpirun")
}

test_that("map_rect over 3 ranks: the threaded values, bytes set by the parameters, the same draws, failures", {
  skip_without_mpi()
  dir <- withr_tempdir()
  status <- mpirun(3, "check.R", dir)
  log <- paste(c(readLines(file.path(dir, "stdout")), readLines(file.path(dir, "stderr"))), collapse = "\n")
  expect_identical(status, 0L, info = log)
  r <- lapply(0:2, function(k) readRDS(file.path(dir, sprintf("rank%d.rds", k))))
  expect_identical(vapply(r, `[[`, 0L, "size"), c(3L, 3L, 3L))

  # the same calls in this process, map_rect on threads
  ext <- system.file("extdata", package = "tapestry")
  m <- tapestry_model(file.path(ext, "map_rect_hier.stan"))
  sim <- function(J, n_per) {
    set.seed(3)
    list(J = J, n_per = n_per, y = matrix(rnorm(J * n_per, rep(rnorm(J), n_per), 1.5), J, n_per))
  }
  one <- function(d) {
    ctx <- m$bind(d)
    set.seed(1)
    u <- rnorm(ctx$num_upars(), sd = 0.3)
    list(g = list(ctx$grad_log_prob(u), ctx$grad_log_prob(u + 0.01), ctx$grad_log_prob(u + 0.02)),
         lp = ctx$log_prob(u))
  }
  for (size in c("small", "large")) {
    want <- one(sim(40, if (size == "small") 50 else 100))
    for (k in 1:3) {
      # every rank returns rank 0's result
      for (q in 1:3) expect_equal(r[[q]][[size]]$g[[k]], want$g[[k]], tolerance = 1e-12)
    }
    for (q in 1:3) expect_equal(r[[q]][[size]]$lp, want$lp, tolerance = 1e-12)
  }
  # after the first evaluation the bytes moved do not grow with the data
  b_small <- r[[1]]$small$bytes
  b_large <- r[[1]]$large$bytes
  expect_gt(b_large[1], b_small[1])
  expect_identical(b_large[2:3], b_small[2:3])
  expect_lt(b_small[2], b_small[1] / 4)

  # sampling: rank 0 has the one-process draws; the other ranks get NULL
  expect_false(r[[1]]$fit_null)
  expect_true(r[[2]]$fit_null && r[[3]]$fit_null)
  fit <- m$sample(data = sim(40, 50), chains = 2, parallel_chains = 2, iter_warmup = 100,
                  iter_sampling = 50, seed = 11, refresh = 0, show_messages = FALSE)
  expect_identical(unclass(r[[1]]$draws), unclass(posterior::as_draws_array(fit$draws())))

  # a job rejecting on rank 2: rank 0's evaluation fails with its message,
  # every rank says so, and the next evaluation works
  for (q in 1:3) expect_match(r[[q]]$reject, "job 6 got theta 9", fixed = TRUE)
  expect_true(is.finite(r[[1]]$after_reject))
  # with gradients, the workers' job plans (src/plan/pl_mpi.c) meet the
  # branch the other way: the tree rejects, and the next gradient is the first
  for (q in 1:3) expect_match(r[[q]]$reject_grad, "job 6 got theta 9", fixed = TRUE)
  expect_identical(r[[1]]$after_reject_grad[[2]], r[[1]]$after_reject_grad[[1]])
  # phi as data changing at one site: the one-process gradients
  source(system.file("mpi", "loop_phi.R", package = "tapestry"), local = TRUE)
  expect_equal(r[[1]]$loop_phi, loop_phi_grads(), tolerance = 1e-12)
  # a call site whose data change size
  for (q in 1:3) expect_match(r[[q]]$change, "map_rect over MPI: this call's data changed size", fixed = TRUE)
  expect_match(r[[1]]$change, "line", fixed = TRUE)
  expect_identical(r[[1]]$after_change, r[[1]]$after_reject)
  for (q in 1:3) expect_match(r[[q]]$change_values, "map_rect over MPI: this call's x_r or x_i changed", fixed = TRUE)
})

test_that("$sample(mpi = \"chains\"): 4 chains over 2 ranks are the one-process fit, bit for bit", {
  skip_without_mpi()
  dir <- withr_tempdir()
  status <- mpirun(2, "chains.R", dir)
  log <- paste(c(readLines(file.path(dir, "stdout")), readLines(file.path(dir, "stderr"))), collapse = "\n")
  expect_identical(status, 0L, info = log)
  r0 <- readRDS(file.path(dir, "rank0.rds"))
  r1 <- readRDS(file.path(dir, "rank1.rds"))
  expect_false(r0$null)
  expect_true(r1$null)
  ext <- system.file("extdata", package = "tapestry")
  m <- tapestry_model(file.path(ext, "eight_schools.stan"))
  fit <- m$sample(data = file.path(ext, "eight_schools.data.json"), chains = 4, parallel_chains = 2,
                  iter_warmup = 200, iter_sampling = 100, seed = 5, refresh = 0, show_messages = FALSE)
  expect_identical(unclass(r0$draws), unclass(posterior::as_draws_array(fit$draws())))
  expect_identical(unclass(r0$diag), unclass(fit$sampler_diagnostics()))
  expect_identical(r0$codes, fit$return_codes())
  # outside mpirun the argument changes nothing
  fit2 <- m$sample(data = file.path(ext, "eight_schools.data.json"), chains = 4, parallel_chains = 2,
                   iter_warmup = 200, iter_sampling = 100, seed = 5, refresh = 0, show_messages = FALSE,
                   mpi = "chains")
  expect_identical(fit2$draws(), fit$draws())
  expect_error(m$sample(data = file.path(ext, "eight_schools.data.json"), mpi = "ranks"),
               "`mpi` must be \"map_rect\" or \"chains\"", class = "tapestry_argument_error")
})

test_that("a rank killed mid-run stops rank 0 within 10 seconds with a clear error", {
  skip_without_mpi()
  skip_on_os("windows")
  dir <- withr_tempdir()
  # --enable-recovery: mpirun lets the other ranks run on when one dies, so
  # rank 0 itself must notice (without it, mpirun ends them all at once)
  mpirun(3, "kill.R", dir, wait = FALSE, flags = "--enable-recovery")
  pid1 <- file.path(dir, "pid1")
  for (i in 1:1200) if (file.exists(pid1) && length(readLines(pid1)) == 1L) break else Sys.sleep(0.05)
  expect_true(file.exists(pid1))
  Sys.sleep(3)   # sampling is under way: 10^5 iterations take minutes
  sent <- Sys.time()
  tools::pskill(as.integer(readLines(pid1)), tools::SIGKILL)
  out <- file.path(dir, "rank0.rds")
  for (i in 1:600) if (file.exists(out)) break else Sys.sleep(0.05)
  expect_true(file.exists(out))
  Sys.sleep(0.2)
  res <- readRDS(out)
  expect_lt(as.double(difftime(res$t, sent, units = "secs")), 10)
  expect_match(res$msg, "MPI rank 1 \\(process [0-9]+ on .*\\) has died")
})
