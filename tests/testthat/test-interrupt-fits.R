# The interrupt rule (?TapestryFit, "Chains that did not finish"): every
# chain that finished is kept whole; the interrupted chains' partial draws
# are left out when any chain finished, and are the draws (cut to the
# shortest) when none did.

test_that("finished chains are kept whole; interrupted chains' partial draws are left out", {
  ff <- fake_fit(chains = 4L)
  raw <- interrupted_raw(ff)
  ch <- raw$chains
  expect_snapshot(fit <- TapestryFit$new(raw, ff$model, ff$ctx, fake_args(4L)))
  d <- fit$draws()
  # the two finished chains, all 30 draws each: nothing of them is cut
  expect_identical(dim(d), c(30L, 2L, 11L))
  for (k in 1:2) {
    expect_identical(unname(unclass(d)[, k, ]), unname(ch[[k]]$draws[, posterior::variables(d)]))
  }
  expect_identical(dim(fit$sampler_diagnostics()), c(30L, 2L, 6L))
  expect_identical(names(fit$inv_metric()), c("1", "2"))
  expect_identical(fit$return_codes(), c(0L, 0L, 2L, 2L))
  expect_length(fit$diagnostic_summary(quiet = TRUE)$num_divergent, 2L)
  # the summary is that of the finished chains
  expect_equal(as.double(fit$summary("mu")$mean),
               mean(c(ch[[1]]$draws[, "mu"], ch[[2]]$draws[, "mu"])))
})

test_that("one finished chain is enough; warmup draws of the kept chains stay whole too", {
  ff <- fake_fit(chains = 3L, save_warmup = TRUE)
  ch <- ff$raw$chains
  ch[[1]]$draws <- ch[[1]]$draws[1:45, ]   # interrupted after 25 sampling draws
  ch[[1]]$return_code <- 2L
  ch[[3]]$draws <- ch[[3]]$draws[1:12, ]   # interrupted in warmup
  ch[[3]]$num_warmup_draws <- 12L
  ch[[3]]$return_code <- 2L
  raw <- list(chains = ch, interrupted = TRUE)
  w <- character()
  fit <- withCallingHandlers(
    TapestryFit$new(raw, ff$model, ff$ctx, fake_args(3L, save_warmup = TRUE)),
    warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart("muffleWarning") })
  expect_identical(w, c("Chain 3 made no post-warmup draws and is left out of the draws.",
                        paste("Chain 1, interrupted, is left out of the draws (25 post-warmup",
                              "draws); the 1 chain that finished is kept whole.")))
  expect_identical(dim(fit$draws(inc_warmup = TRUE)), c(50L, 1L, 11L))
  expect_identical(unname(unclass(fit$draws(inc_warmup = TRUE))[, 1, ]),
                   unname(ch[[2]]$draws[, posterior::variables(fit$draws())]))
})

test_that("no chain finished: the interrupted chains are the draws, cut to the shortest", {
  ff <- fake_fit(chains = 2L)
  ch <- ff$raw$chains
  ch[[1]]$draws <- ch[[1]]$draws[1:17, ]
  for (k in 1:2) ch[[k]]$return_code <- 2L
  expect_warning(fit <- TapestryFit$new(list(chains = ch, interrupted = TRUE), ff$model, ff$ctx,
                                        fake_args(2L)),
                 "No chain finished, and the interrupted chains made different numbers",
                 class = "tapestry_warning")
  expect_identical(dim(fit$draws()), c(17L, 2L, 11L))
  expect_identical(unname(unclass(fit$draws())[, 2, ]),
                   unname(ch[[2]]$draws[1:17, posterior::variables(fit$draws())]))
})

test_that("Ctrl-C after two of four chains finished keeps those two whole", {
  skip_on_os("windows")
  skip_on_cran()
  # two chains at a time in CmdStan's order (not taking turns, which ends
  # them together), the next one starting as soon as any ends: which two
  # finish first depends on their step sizes and the machine, so the test
  # reads the progress lines until two chains have finished and the other two
  # are sampling, then interrupts
  f <- start_interruptible_run(turns = FALSE)
  txt <- wait_for_progress(f, function(txt) {
    done <- finished_chains(txt)
    length(done) %in% 2:3 && all(sampling_chains(txt)[-done])
  })
  expect_true(!is.null(txt))
  finished <- finished_chains(txt)
  interrupt_run(f)
  expect_true(file.exists(f$out))
  res <- readRDS(f$out)
  # the chains that had finished are kept whole, 40000 draws each, nothing
  # cut; the others were sampling (one may have finished since the test looked)
  expect_identical(res$codes[finished], rep(0L, length(finished)))
  expect_true(any(res$codes == 2L))
  done <- which(res$codes == 0L)
  expect_identical(res$dim, c(40000L, length(done), 2L))
  expect_true(all(res$rows[done] == 40000L))
  expect_true(all(res$rows[res$codes == 2L] < 40000L))
  expect_true(any(grepl("Sampling was interrupted", res$w)))
  cut <- which(res$codes == 2L)
  expect_true(any(grepl(sprintf("%s %s, interrupted, %s left out of the draws",
                                if (length(cut) == 1L) "Chain" else "Chains",
                                paste(cut, collapse = ", "), if (length(cut) == 1L) "is" else "are"),
                        res$w, fixed = TRUE)))
  expect_false(anyNA(res$x))
})
