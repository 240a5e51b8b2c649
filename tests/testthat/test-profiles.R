# Profiles on the R side: the data frames of $profiles(), profiles_summary()
# with its print() and plot(), CmdStan's profile CSV files, the Chrome trace
# JSON, and $profile_log_prob() -- first on synthetic results shaped as the
# C side returns them (helper-profiles.R), then end to end on gp_profile
# once the C side is built in.

test_that("$profiles() has cmdstanr's columns, then phase and parent, per chain", {
  pf <- profiled_fit(chains = 2L)
  p <- pf$fit$profiles()
  expect_length(p, 2L)
  for (k in 1:2) {
    d <- p[[k]]
    expect_identical(names(d), c("name", "thread_id", "total_time", "forward_time",
                                 "reverse_time", "chain_stack", "no_chain_stack",
                                 "autodiff_calls", "no_autodiff_calls", "phase", "parent"))
    expect_identical(nrow(d), 10L)
    expect_type(d$thread_id, "integer")
    expect_type(d$parent, "character")
    expect_identical(d$total_time, d$forward_time + d$reverse_time)
    # sorted by name, thread and phase (warmup first)
    expect_identical(d$name, c("cholesky", "cholesky", "gp", "gp", "likelihood", "likelihood",
                               "partial", "partial", "priors", "priors"))
    expect_identical(d$phase[1:2], c("warmup", "sampling"))
    expect_identical(d$thread_id[d$name == "partial"], c(k, 3L))
    # every number is the raw one, row for row
    raw <- pf$raw$chains[[k]]$profiles
    key <- paste(raw$name, raw$thread_id, raw$phase)
    i <- match(paste(d$name, d$thread_id, d$phase), key)
    expect_identical(d$forward_time, raw$forward_time[i])
    expect_identical(d$reverse_time, raw$reverse_time[i])
    expect_identical(d$chain_stack, raw$chain_stack[i])
    expect_identical(d$autodiff_calls, raw$autodiff_calls[i])
    expect_identical(d$parent, raw$parent[i])
  }
  expect_identical(p[[2]]$forward_time, 2 * p[[1]]$forward_time)
})

test_that("$profiles() of a program without profiles, or a fit made before them, has no rows", {
  pf <- profiled_fit(chains = 2L, profiles = function(k) empty_profiles(), trace = NULL)
  p <- pf$fit$profiles()
  expect_length(p, 2L)
  expect_identical(vapply(p, nrow, 0L), c(0L, 0L))
  expect_identical(names(p[[1]]), names(profiled_fit(1L)$fit$profiles()[[1]]))
  old <- fake_fit(chains = 3L)$fit
  expect_identical(vapply(old$profiles(), nrow, 0L), c(0L, 0L, 0L))
  s <- profiles_summary(old)
  expect_identical(nrow(s), 0L)
  expect_snapshot(print(s))
  expect_snapshot(profiles_summary(old, phase = "warmup"))
})

test_that("profiles_summary() adds up chains, threads and phases and nests the rows", {
  fit <- profiled_fit(chains = 2L)$fit
  s <- profiles_summary(fit)
  expect_s3_class(s, c("tapestry_profiles_summary", "data.frame"))
  expect_identical(names(s), c("name", "parent", "depth", "total_time", "forward_time",
                               "reverse_time", "share", "threads", "chain_stack",
                               "no_chain_stack", "autodiff_calls", "no_autodiff_calls"))
  # children follow their parent; siblings by decreasing total time
  expect_identical(s$name, c("gp", "cholesky", "likelihood", "partial", "priors"))
  expect_identical(s$depth, c(0L, 1L, 0L, 1L, 0L))
  # partial's parent on the chain's thread wins over NA on the helper thread
  expect_identical(s$parent, c(NA, "gp", NA, "likelihood", NA))
  expect_identical(s$threads, c(1L, 1L, 1L, 2L, 1L))
  # by hand: chain k has k times the figures of fake_profiles(1)
  expect_equal(s$forward_time, 3 * c(1.4, 0.9, 0.75, 0.22, 0.03))
  expect_equal(s$reverse_time, 3 * c(0.6, 0.4, 0.25, 0.09, 0.02))
  expect_equal(s$total_time, 3 * c(2.0, 1.3, 1.0, 0.31, 0.05))
  expect_equal(s$share, s$total_time / (3 * (2.0 + 1.0 + 0.05)))
  expect_equal(sum(s$share[s$depth == 0L]), 1)
  expect_identical(s$autodiff_calls, c(500, 500, 500, 400, 500))
  expect_identical(s$chain_stack, c(1400, 500, 1500, 400, 1500))
  expect_identical(s$no_chain_stack, c(3000, 500, 3000, 800, 1500))
  # the same from the data frames themselves
  expect_identical(profiles_summary(fit$profiles()), s)
})

test_that("profiles_summary(phase =) keeps one phase", {
  fit <- profiled_fit(chains = 2L)$fit
  w <- profiles_summary(fit, phase = "warmup")
  expect_identical(attr(w, "phase"), "warmup")
  expect_identical(w$name, c("gp", "cholesky", "likelihood", "priors"))
  expect_equal(w$forward_time, 3 * c(0.8, 0.5, 0.45, 0.02))
  expect_identical(w$autodiff_calls, rep(300, 4))
  s <- profiles_summary(fit, phase = "sampling")
  expect_identical(s$name, c("gp", "cholesky", "likelihood", "partial", "priors"))
  expect_equal(s$forward_time, 3 * c(0.6, 0.4, 0.3, 0.22, 0.01))
  all <- profiles_summary(fit)
  for (v in c("total_time", "chain_stack", "autodiff_calls")) {
    both <- s[[v]] + c(w[[v]], 0)[match(s$name, c(w$name, "partial"))]
    expect_equal(both, all[[v]][match(s$name, all$name)], info = v)
  }
})

test_that("profiles_summary() survives parents that form a cycle or are missing", {
  d <- profile_frame(list(
    name = c("a", "b", "a", "c"), thread_id = c(1L, 1L, 2L, 1L),
    phase = rep("sampling", 4), parent = c(NA, "a", "b", "zz"),
    forward_time = c(1, 2, 3, 0.5), reverse_time = c(0, 0, 0, 0),
    chain_stack = c(0, 0, 0, 0), no_chain_stack = c(0, 0, 0, 0),
    autodiff_calls = c(1, 1, 1, 1), no_autodiff_calls = c(0, 0, 0, 0)))
  # a: parent "b" (thread 2) and b: parent "a": a cycle, broken at the first
  s <- profiles_summary(d)
  expect_setequal(s$name, c("a", "b", "c"))
  expect_identical(sum(s$depth == 0L) >= 1L, TRUE)
  expect_identical(s$name[s$depth == 0L][1], "a")
  expect_identical(s$depth[s$name == "b"], 1L)
  expect_identical(s$depth[s$name == "c"], 0L)
  expect_identical(s$parent[s$name == "c"], "zz")
})

test_that("print() of a summary shows the nesting and the shares", {
  fit <- profiled_fit(chains = 2L)$fit
  expect_snapshot(print(profiles_summary(fit)))
  expect_snapshot(print(profiles_summary(fit, phase = "warmup"), digits = 2))
  out <- capture.output(r <- print(profiles_summary(fit)))
  expect_s3_class(r, "tapestry_profiles_summary")
  expect_match(out[4], "^   cholesky")
  expect_match(out[3], "65.6%", fixed = TRUE)
})

test_that("plot() of a summary draws forward and reverse time per profile", {
  s <- profiles_summary(profiled_fit(chains = 1L)$fit)
  f <- tempfile(fileext = ".pdf")
  on.exit(unlink(f), add = TRUE)
  grDevices::pdf(f)
  r <- withVisible(plot(s))
  grDevices::dev.off()
  expect_false(r$visible)
  expect_identical(r$value, s)
  expect_gt(file.size(f), 1000)
  empty <- profiles_summary(fake_fit(chains = 1L)$fit)
  expect_snapshot(plot(empty), error = TRUE)
})

test_that("profiles_summary() explains wrong arguments", {
  fit <- profiled_fit(chains = 1L)$fit
  expect_snapshot(error = TRUE, {
    profiles_summary(1)
    profiles_summary(list())
    profiles_summary(data.frame(name = "a"))
    profiles_summary(fit, phase = "burnin")
    profiles_summary(fit, phase = c("warmup", "sampling"))
    profiles_summary(fit, phase = NA)
  })
})

test_that("$save_profile_files() writes CmdStan's profile CSV, one file per chain", {
  pf <- profiled_fit(chains = 2L)
  d <- local_dir()
  paths <- pf$fit$save_profile_files(d, basename = "gp", timestamp = FALSE, random = FALSE)
  expect_identical(basename(paths), c("gp-1.csv", "gp-2.csv"))
  for (k in 1:2) {
    lines <- readLines(paths[k])
    expect_identical(lines[1], paste0("name,thread_id,total_time,forward_time,reverse_time,",
                                      "chain_stack,no_chain_stack,autodiff_calls,",
                                      "no_autodiff_calls"))
    x <- utils::read.csv(paths[k], stringsAsFactors = FALSE)
    # a row per name and thread, the phases added as CmdStan counts them
    expect_identical(x$name, c("cholesky", "gp", "likelihood", "partial", "partial", "priors"))
    expect_identical(x$thread_id, c(k, k, k, k, 3L, k))
    p <- pf$fit$profiles()[[k]]
    for (j in seq_len(nrow(x))) {
      rows <- p[p$name == x$name[j] & p$thread_id == x$thread_id[j], ]
      for (v in c("total_time", "forward_time", "reverse_time", "chain_stack",
                  "no_chain_stack", "autodiff_calls", "no_autodiff_calls")) {
        expect_identical(as.double(x[[v]][j]), sum(rows[[v]]), info = paste(x$name[j], v))
      }
    }
    # names bare, as CmdStan writes them
    expect_match(lines[2], "^cholesky,")
  }
  default <- pf$fit$save_profile_files(d)
  expect_match(basename(default), "^string-profile-[0-9]{12}-[12]-[0-9a-f]+\\.csv$")
})

test_that("$save_profile_files() quotes only names CSV needs quoted", {
  odd <- function(k) {
    p <- fake_profiles(k)
    p$name[p$name == "gp"] <- "gp, \"big\""
    p$parent[p$parent %in% "gp"] <- "gp, \"big\""
    p
  }
  pf <- profiled_fit(chains = 1L, profiles = odd)
  d <- local_dir()
  path <- pf$fit$save_profile_files(d, timestamp = FALSE, random = FALSE)
  expect_true(any(startsWith(readLines(path), "\"gp, \"\"big\"\"\",1,")))
  x <- utils::read.csv(path, stringsAsFactors = FALSE)
  expect_true("gp, \"big\"" %in% x$name)
  expect_identical(nrow(x), 6L)
})

test_that("$save_profile_files() explains what it can't do", {
  fit <- profiled_fit(chains = 1L)$fit
  none <- fake_fit(chains = 1L)$fit
  d <- local_dir()
  expect_snapshot(error = TRUE, {
    none$save_profile_files(d)
    fit$save_profile_files("no/such/dir")
    fit$save_profile_files(d, basename = 1)
    fit$save_profile_files(d, timestamp = NA)
  })
})

# The trace file parsed back: every event with the fields the format needs.
read_trace <- function(path) {
  j <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  expect_identical(j$displayTimeUnit, "ms")
  ev <- j$traceEvents
  fields <- c("name", "ph", "ts", "dur", "pid", "tid")
  complete <- vapply(ev, function(e) all(fields %in% names(e)), TRUE)
  expect_true(length(ev) > 0L && all(complete))
  j
}

test_that("$save_trace() writes Chrome trace JSON that validates", {
  skip_if_not_installed("jsonlite")
  pf <- profiled_fit(chains = 2L, trace = function(k) fake_trace(k, n = 4L))
  f <- tempfile(fileext = ".json")
  on.exit(unlink(f), add = TRUE)
  expect_identical(pf$fit$save_trace(f), normalizePath(f))
  j <- read_trace(f)
  ev <- j$traceEvents
  ph <- vapply(ev, `[[`, "", "ph")
  expect_setequal(unique(ph), c("M", "X"))
  x <- ev[ph == "X"]
  expect_length(x, 2L * 12L)
  pid <- vapply(x, `[[`, 0L, "pid")
  tid <- vapply(x, `[[`, 0L, "tid")
  expect_identical(pid, rep(1:2, each = 12L))
  expect_identical(tid, rep(1:2, each = 12L))
  tr <- fake_trace(2L, n = 4L)
  x2 <- x[pid == 2L]
  expect_identical(vapply(x2, `[[`, "", "name"), tr$name)
  expect_equal(vapply(x2, `[[`, 0, "ts"), tr$ts, tolerance = 1e-12)
  expect_equal(vapply(x2, `[[`, 0, "dur"), tr$dur, tolerance = 1e-12)
  m <- ev[ph == "M"]
  pn <- Filter(function(e) e$name == "process_name", m)
  expect_identical(vapply(pn, function(e) e$args$name, ""), c("chain 1", "chain 2"))
  expect_identical(j$otherData$dropped_events, 0L)
})

test_that("save_trace() escapes names and reports dropped events", {
  skip_if_not_installed("jsonlite")
  odd <- "a \"b\" \\ c\td\001e é"
  tr <- function(k) {
    t <- fake_trace(k, dropped = 7)
    t$name[1] <- odd
    t
  }
  pf <- profiled_fit(chains = 1L, trace = tr)
  f <- tempfile(fileext = ".json")
  on.exit(unlink(f), add = TRUE)
  expect_snapshot(p <- pf$fit$save_trace(f))
  j <- read_trace(f)
  names <- vapply(j$traceEvents, `[[`, "", "name")
  expect_true(odd %in% names)
  expect_identical(j$otherData$dropped_events, 7L)
})

test_that("save_trace() and $save_trace() explain what they can't do", {
  fit <- profiled_fit(chains = 2L, trace = NULL)$fit
  expect_snapshot(error = TRUE, {
    fit$save_trace(tempfile())
    save_trace(fit, tempfile())
    save_trace(list(), tempfile())
    fit$save_trace(NA)
  })
})

test_that("a chain without a trace is left out of the trace file", {
  skip_if_not_installed("jsonlite")
  pf <- profiled_fit(chains = 3L, trace = function(k) if (k != 2L) fake_trace(k))
  f <- tempfile(fileext = ".json")
  on.exit(unlink(f), add = TRUE)
  pf$fit$save_trace(f)
  ev <- read_trace(f)$traceEvents
  expect_identical(sort(unique(vapply(ev, `[[`, 0L, "pid"))), c(1L, 3L))
})

test_that("the profile data survive saving the fit", {
  fit <- profiled_fit(chains = 2L)$fit
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f), add = TRUE)
  fit$save_object(f)
  fit2 <- readRDS(f)
  expect_identical(fit2$profiles(), fit$profiles())
  expect_identical(profiles_summary(fit2), profiles_summary(fit))
})

test_that("$profile_log_prob() returns profiles, seconds and trace (C entry stood in for)", {
  skip_if_not_installed("jsonlite")
  seen <- NULL
  local_stand_in("profile_log_prob_call", function(ptr, upars, n, trace_every) {
    seen <<- list(upars = upars, n = n, trace_every = trace_every)
    fake_profile_run_raw(trace_every)
  })
  mod <- tapestry_model(code = "parameters { real y; } model { profile(\"p\") { y ~ normal(0, 1); } }")
  ctx <- mod$bind()
  run <- ctx$profile_log_prob(0.5, n = 7, trace_every = 2)
  expect_identical(seen, list(upars = 0.5, n = 7L, trace_every = 2L))
  expect_s3_class(run, "tapestry_profile_run")
  expect_identical(names(run$profiles), names(profiled_fit(1L)$fit$profiles()[[1]]))
  expect_identical(unique(run$profiles$phase), "sampling")
  expect_identical(run$seconds, 0.25)
  expect_identical(run$n, 7L)
  s <- profiles_summary(run)
  expect_identical(s$name, c("gp", "cholesky", "likelihood", "partial", "priors"))
  expect_equal(s$total_time, c(0.8, 0.5, 0.4, 0.31, 0.02))
  expect_identical(attr(s, "chains"), 1L)
  expect_snapshot(print(run))
  f <- tempfile(fileext = ".json")
  on.exit(unlink(f), add = TRUE)
  expect_identical(save_trace(run, f), normalizePath(f))
  j <- read_trace(f)
  x <- Filter(function(e) e$ph == "X", j$traceEvents)
  expect_length(x, 9L)
  expect_identical(unique(vapply(x, `[[`, 0L, "tid")), 0L)

  run2 <- mod$profile_log_prob(upars = -1, n = 3)
  expect_identical(seen, list(upars = -1, n = 3L, trace_every = 0L))
  expect_null(run2$trace)
  expect_snapshot(save_trace(run2, f), error = TRUE)
})

test_that("$profile_log_prob() and $sample() explain wrong arguments", {
  mod <- tapestry_model(code = "data { int N; } parameters { real y; } model { y ~ normal(0, 1); }")
  ctx <- mod$bind(list(N = 1))
  expect_snapshot(error = TRUE, {
    ctx$profile_log_prob(c(1, 2))
    ctx$profile_log_prob(1, n = 0)
    ctx$profile_log_prob(1, n = 2.5)
    ctx$profile_log_prob(1, trace_every = -1)
    ctx$profile_log_prob(1, trace_every = "often")
    # checked before the data are bound (N is missing)
    mod$profile_log_prob(list(), 1, n = NA)
    mod$profile_log_prob(list(), 1, trace_every = c(1, 2))
    mod$sample(list(), profile_trace_every = -1)
    mod$sample(list(), profile_trace_every = 1.5)
  })
})

test_that("arg_trace_every() takes NULL, 0 and whole numbers", {
  expect_identical(arg_trace_every(NULL, "x"), 0L)
  expect_identical(arg_trace_every(0, "x"), 0L)
  expect_identical(arg_trace_every(25, "x"), 25L)
  expect_error(arg_trace_every(Inf, "x"), class = "tapestry_argument_error")
  expect_error(arg_trace_every(TRUE, "x"), class = "tapestry_argument_error")
})

# ---- end to end: the C side (src/prof, tp_profile_log_prob, the chains'
# profiles and trace) built in ----

gp_files <- function() {
  list(stan = system.file("extdata", "gp_profile.stan", package = "tapestry"),
       data = system.file("extdata", "gp_profile.data.json", package = "tapestry"))
}

# The number of gradient evaluations each chain made (the sampler's count:
# initialisation, warmup and sampling).
chain_n_grad <- function(fit) {
  vapply(fit$.__enclos_env__$private$chains_, function(ch) as.double(ch$n_grad), 0)
}

# Per name: a profile's figures of one chain over both phases.
per_name <- function(d, v) tapply(d[[v]], d$name, sum)

test_that("gp_profile sampled: the four profiles, their nesting, times, counts and trace", {
  skip_if_not(has_profiling_c(), "the C side of profiling is not built in")
  skip_if_not_installed("jsonlite")
  g <- gp_files()
  fit <- tapestry_model(g$stan)$sample(
    data = g$data, seed = 11, chains = 2, parallel_chains = 2, iter_warmup = 150,
    iter_sampling = 150, refresh = 0, show_messages = FALSE, profile_trace_every = 10)
  n_grad <- chain_n_grad(fit)
  expect_true(all(n_grad >= 300))
  p <- fit$profiles()
  expect_length(p, 2L)
  for (k in 1:2) {
    d <- p[[k]]
    expect_setequal(unique(d$name), c("gp", "cholesky", "priors", "likelihood"))
    expect_setequal(unique(d$phase), c("warmup", "sampling"))
    expect_identical(unique(d$parent[d$name == "cholesky"]), "gp")
    expect_true(all(is.na(d$parent[d$name != "cholesky"])))
    # one chain, one thread: a worker of the pool
    expect_length(unique(d$thread_id), 1L)
    expect_true(d$thread_id[1] >= 1L)
    tot <- per_name(d, "total_time")
    expect_true(all(tot > 0))
    expect_lt(tot[["cholesky"]], tot[["gp"]])
    expect_equal(d$total_time, d$forward_time + d$reverse_time)
    expect_true(all(d$reverse_time[d$name %in% c("gp", "cholesky")] > 0))
    # gp opens every evaluation of the model block: one autodiff call per
    # gradient the sampler made. An evaluation that fails (a proposal whose
    # covariance is not positive definite, rejected) stops inside gp or
    # cholesky, so the later blocks may have a few fewer, never more; a
    # failure still counts its forward pass. No generated quantities here:
    # no evaluations without autodiff.
    ad <- per_name(d, "autodiff_calls")
    expect_identical(ad[["gp"]], n_grad[k])
    expect_lte(ad[["cholesky"]], ad[["gp"]])
    expect_identical(ad[["priors"]], ad[["likelihood"]])
    expect_lte(ad[["likelihood"]], ad[["cholesky"]])
    expect_gte(ad[["likelihood"]], 0.98 * n_grad[k])
    expect_identical(sum(d$no_autodiff_calls), 0)
    expect_true(all(d$chain_stack[d$name == "gp"] > 0))
    # every sampling iteration evaluates at least one gradient
    expect_gte(sum(d$autodiff_calls[d$name == "gp" & d$phase == "sampling"]), 150)
  }

  s <- profiles_summary(fit)
  expect_identical(s$name[1:2], c("gp", "cholesky"))
  expect_identical(s$depth, c(0L, 1L, 0L, 0L))
  expect_equal(sum(s$share[s$depth == 0L]), 1)
  expect_identical(s$autodiff_calls[1], sum(n_grad))
  w <- profiles_summary(fit, phase = "warmup")
  v <- profiles_summary(fit, phase = "sampling")
  expect_equal(w$total_time[match(s$name, w$name)] + v$total_time[match(s$name, v$name)],
               s$total_time)

  # the trace: every 10th evaluation, cholesky's intervals inside gp's
  f <- tempfile(fileext = ".json")
  on.exit(unlink(f), add = TRUE)
  fit$save_trace(f)
  ev <- read_trace(f)$traceEvents
  x <- Filter(function(e) e$ph == "X", ev)
  tr <- data.frame(name = vapply(x, `[[`, "", "name"), ts = vapply(x, `[[`, 0, "ts"),
                   dur = vapply(x, `[[`, 0, "dur"), pid = vapply(x, `[[`, 0L, "pid"),
                   tid = vapply(x, `[[`, 0L, "tid"))
  expect_setequal(unique(tr$name), c("gp", "cholesky", "priors", "likelihood"))
  expect_setequal(unique(tr$pid), 1:2)
  for (k in 1:2) {
    one <- tr[tr$pid == k, ]
    expect_identical(unique(one$tid), p[[k]]$thread_id[1])
    n_gp <- sum(one$name == "gp")
    expect_gte(n_gp, n_grad[k] %/% 10 - 1)
    expect_lte(n_gp, n_grad[k] %/% 10 + 1)
    expect_true(all(one$dur >= 0 & one$ts >= 0))
    gp <- one[one$name == "gp", ]
    ch <- one[one$name == "cholesky", ]
    inside <- vapply(seq_len(nrow(ch)), function(i) {
      any(gp$ts <= ch$ts[i] + 1e-3 & ch$ts[i] + ch$dur[i] <= gp$ts + gp$dur + 1e-3)
    }, TRUE)
    expect_true(all(inside))
  }

  # CmdStan's profile files: a row per name and thread, both phases
  d <- local_dir()
  paths <- fit$save_profile_files(d)
  for (k in 1:2) {
    x <- utils::read.csv(paths[k], stringsAsFactors = FALSE)
    expect_setequal(x$name, c("gp", "cholesky", "priors", "likelihood"))
    expect_identical(as.double(x$autodiff_calls[x$name == "gp"]), n_grad[k])
  }
})

test_that("profile_log_prob: n evaluations of each profile at one point, on R's thread", {
  skip_if_not(has_profiling_c(), "the C side of profiling is not built in")
  skip_if_not_installed("jsonlite")
  g <- gp_files()
  mod <- tapestry_model(g$stan)
  ctx <- mod$bind(g$data)
  u <- c(0.2, 0.1, -1)
  run <- ctx$profile_log_prob(u, n = 20, trace_every = 4)
  d <- run$profiles
  expect_setequal(d$name, c("gp", "cholesky", "priors", "likelihood"))
  expect_identical(unique(d$phase), "sampling")
  expect_identical(unique(d$thread_id), 0L)
  expect_identical(d$autodiff_calls, rep(20, 4))
  expect_identical(d$parent[d$name == "cholesky"], "gp")
  expect_gt(run$seconds, 0)
  # the top-level blocks ran inside the timed evaluations, on one thread
  s <- profiles_summary(run)
  expect_lte(sum(s$total_time[s$depth == 0L]), run$seconds)
  expect_identical(nrow(run$trace), 4L * 5L)
  expect_identical(sum(run$trace$name == "gp"), 5L)
  # profiling leaves the gradient alone
  g1 <- ctx$grad_log_prob(u)
  expect_output(print(run), "20 gradient evaluations")
  expect_identical(ctx$grad_log_prob(u), g1)
  f <- tempfile(fileext = ".json")
  on.exit(unlink(f), add = TRUE)
  save_trace(run, f)
  ev <- read_trace(f)$traceEvents
  expect_length(Filter(function(e) e$ph == "X", ev), 20L)
  # the model's form binds the data first
  run2 <- mod$profile_log_prob(g$data, u, n = 3)
  expect_identical(run2$profiles$autodiff_calls, rep(3, 4))
  expect_null(run2$trace)
})

test_that("profiles in transformed parameters and generated quantities run on doubles too", {
  skip_if_not(has_profiling_c(), "the C side of profiling is not built in")
  mod <- tapestry_model(code = "
    parameters { real mu; }
    transformed parameters { real s; profile(\"tp\") { s = 2 * mu; } }
    model { profile(\"m\") { mu ~ normal(0, 1); } }
    generated quantities { real y; profile(\"gq\") { y = normal_rng(mu, 1); } }
  ")
  fit <- mod$sample(seed = 3, chains = 1, iter_warmup = 60, iter_sampling = 40,
                    refresh = 0, show_messages = FALSE)
  d <- fit$profiles()[[1]]
  n_grad <- chain_n_grad(fit)
  ad <- per_name(d, "autodiff_calls")
  noad <- per_name(d, "no_autodiff_calls")
  # transformed parameters run in every gradient and, on doubles, once per
  # saved draw to write it; generated quantities only for the draws
  expect_identical(ad[["tp"]], n_grad)
  expect_identical(ad[["m"]], n_grad)
  expect_identical(noad[["tp"]], 40)
  expect_identical(ad[["gq"]], 0)
  expect_identical(noad[["gq"]], 40)
  expect_identical(d$reverse_time[d$name == "gq"], 0)
  expect_identical(d$chain_stack[d$name == "gq"], 0)
  expect_identical(d$phase[d$name == "gq"], "sampling")
  # no trace was asked for
  expect_snapshot(fit$save_trace(tempfile()), error = TRUE)
})

test_that("a program without profiles has none; a profile entered twice is an error", {
  skip_if_not(has_profiling_c(), "the C side of profiling is not built in")
  mod <- tapestry_model(code = "parameters { real mu; } model { mu ~ normal(0, 1); }")
  fit <- mod$sample(seed = 1, chains = 1, iter_warmup = 20, iter_sampling = 10,
                    refresh = 0, show_messages = FALSE)
  expect_identical(nrow(fit$profiles()[[1]]), 0L)
  expect_output(print(profiles_summary(fit)), "No profiles were recorded")
  run <- mod$profile_log_prob(upars = 0, n = 2)
  expect_identical(nrow(run$profiles), 0L)
  twice <- tapestry_model(code = paste(
    "parameters { real mu; }",
    "model { profile(\"p\") { profile(\"p\") { mu ~ normal(0, 1); } } }", sep = "\n"))
  expect_snapshot(twice$profile_log_prob(upars = 0, n = 2), error = TRUE)
})
