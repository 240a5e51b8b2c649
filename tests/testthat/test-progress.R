# $sample()'s progress display (R/ux-progress.R): one line redrawn in place
# that fits getOption("width") when interactive, CmdStan's lines otherwise,
# and a header that says how many chains run at once.

# A display driven by hand: returns the function r_sample.c would call and
# an accessor of everything it wrote.
drive <- function(ids, interactive, refresh = 100L, width = 80L,
                  num_warmup = 1000L, num_samples = 1000L) {
  text <- character()
  f <- progress_display(ids, num_warmup, num_samples, refresh, interactive, width = width,
                        out = function(x) text <<- c(text, x))
  list(call = f, text = function() paste(text, collapse = ""))
}

# States of a 4-chain run with 2 chains at once: chains 1-2 running, then
# chain 1 done and 3 started, then 2 stopped, then all done.
states <- list(
  list(it = c(150L, 120L, 0L, 0L), ph = c(1L, 1L, 0L, 0L), el = c(1.5, 1.4, 0, 0)),
  list(it = c(2000L, 1500L, 10L, 0L), ph = c(3L, 2L, 1L, 0L), el = c(20.1, 19.9, 0.1, 0)),
  list(it = c(2000L, 1700L, 1200L, 300L), ph = c(3L, 4L, 2L, 1L), el = c(20.1, 22, 12, 3)),
  list(it = c(2000L, 1700L, 2000L, 2000L), ph = c(3L, 4L, 3L, 3L), el = c(20.1, 22, 20.5, 19.8))
)

status_lines <- function(width) {
  vapply(states, function(s) progress_status_line(1:4, s$it, s$ph, s$el, 2000L, width), "")
}

test_that("the one-line display at widths 60 and 200 (snapshots), never wider than the width", {
  for (w in c(60L, 200L)) {
    withr_width <- options(width = w)
    on.exit(options(withr_width), add = TRUE)
    lines <- status_lines(getOption("width") - 1L)
    expect_true(all(nchar(lines) <= w - 1L))
    expect_snapshot(cat(lines, sep = "\n"), variant = paste0("width", w))
  }
  # a wide console shows every chain in full; a narrow one a compact form
  wide <- status_lines(199L)
  expect_match(wide[2], "Chain 1 100% done 20.1s | Chain 2  75% Sampling 19.9s | Chain 3   0% Warmup 0.1s | 1 waiting",
               fixed = TRUE)
  narrow <- status_lines(59L)
  expect_identical(narrow[3], "#1 done | #2 stopped | #3 60% sampling | #4 15% warmup")
  s3 <- states[[3]]
  expect_identical(progress_status_line(1:4, s3$it, s3$ph, s3$el, 2000L, 30L),
                   "1:done 2:stop 3:60%S 4:15%W")
  # too narrow for the chains one by one: the whole run in one summary
  tiny <- progress_status_line(1:16, rep(100L, 16), rep(1L, 16), rep(1, 16), 2000L, 40L)
  expect_identical(tiny, "MCMC 5%: 16 running, 1s")
  expect_lte(nchar(progress_status_line(1:64, rep(100L, 64), rep(1L, 64), rep(1, 64), 2000L, 12L)), 12L)
})

test_that("interactive redraws stay on one line: no newline until the end, none wider than the width", {
  for (w in c(60L, 200L)) {
    d <- drive(1:4, interactive = TRUE, width = w)
    for (s in states) for (i in 1:25) d$call(s$it, s$ph, s$el, FALSE)
    d$call(states[[4]]$it, states[[4]]$ph, states[[4]]$el, TRUE)
    txt <- d$text()
    # the only newline is the last character: 100 redraws add one line of scrollback
    expect_identical(gregexpr("\n", txt, fixed = TRUE)[[1]][1], nchar(txt))
    draws <- strsplit(sub("\n$", "", txt), "\r", fixed = TRUE)[[1]][-1]
    expect_length(draws, 101L)
    expect_true(all(nchar(draws) <= w - 1L))
    # a shorter line after a longer one is padded over the old text
    expect_identical(length(unique(nchar(draws[26:50]))), 1L)
  }
  # messages: the line is cleared first (final = NA), so the message starts a line
  d <- drive(1:2, interactive = TRUE, width = 60L)
  d$call(c(5L, 5L), c(1L, 1L), c(0.1, 0.1), FALSE)
  d$call(c(5L, 5L), c(1L, 1L), c(0.1, 0.1), NA)
  txt <- d$text()
  n <- nchar(progress_status_line(1:2, c(5L, 5L), c(1L, 1L), c(0.1, 0.1), 2000L, 59L))
  expect_true(endsWith(txt, paste0("\r", strrep(" ", n), "\r")))
})

test_that("not interactive: CmdStan's lines every refresh iterations, and when a chain finishes", {
  d <- drive(c(1L, 2L), interactive = FALSE, refresh = 500L)
  d$call(c(1L, 0L), c(1L, 0L), c(0, 0), FALSE)
  d$call(c(1200L, 600L), c(2L, 1L), c(2, 1), FALSE)
  d$call(c(2000L, 1001L), c(3L, 2L), c(3.25, 1.5), FALSE)
  d$call(c(2000L, 1001L), c(3L, 2L), c(3.25, 1.5), NA)     # a clear: nothing when not interactive
  d$call(c(2000L, 2000L), c(3L, 3L), c(3.25, 3), TRUE)
  expect_snapshot(cat(d$text()))
  lines <- strsplit(d$text(), "\n")[[1]]
  # each chain: 1, 500, 1000, 1001 (first of sampling), 1500, 2000, then its closing line
  expect_identical(sum(startsWith(lines, "Chain 1 Iteration")), 6L)
  expect_identical(sum(startsWith(lines, "Chain 2 Iteration")), 6L)
  expect_identical(sum(lines == "Chain 1 finished in 3.2 seconds." |
                         lines == "Chain 1 finished in 3.3 seconds."), 1L)
  expect_identical(progress_cmdstan_line(1L, 100L, 2000L, 1000L),
                   "Chain 1 Iteration:  100 / 2000 [  5%]  (Warmup)")
  expect_identical(progress_marks(0L, 250L, 100L, 250L, 50L), c(1L, 51L, 100L, 200L, 250L))
  expect_identical(progress_marks(10L, 10L, 100L, 250L, 50L), integer())
})

test_that("a run not in an interactive session prints CmdStan's lines at the refresh rate", {
  mod <- tapestry_model(code = "parameters { real x; } model { x ~ normal(0, 1); }")
  out <- capture.output(fit <- mod$sample(seed = 1, chains = 2, parallel_chains = 1,
                                          refresh = 100, iter_warmup = 150, iter_sampling = 250,
                                          diagnostics = NULL))
  expect_false(interactive())
  expect_identical(out[1], "Running MCMC with 2 sequential chains...")
  for (k in 1:2) {
    its <- grep(sprintf("^Chain %d Iteration:", k), out, value = TRUE)
    expect_identical(its, vapply(c(1L, 100L, 151L, 200L, 300L, 400L), progress_cmdstan_line, "",
                                 id = k, total = 400L, num_warmup = 150L))
    expect_identical(sum(grepl(sprintf("^Chain %d finished in", k), out)), 1L)
  }
  # refresh = 0: no progress at all
  out <- capture.output(fit <- mod$sample(seed = 1, chains = 2, refresh = 0, diagnostics = NULL))
  expect_false(any(grepl("Iteration|finished in", out)))
})

test_that("the header says how many chains run at once: parallel_chains, at most the cores", {
  expect_identical(running_header(4L, 2L, 4L),
                   "Running MCMC with 4 chains, at most 2 in parallel (4 asked; this machine allows 2)...\n\n")
  expect_identical(running_header(4L, 4L, 4L), "Running MCMC with 4 parallel chains...\n\n")
  expect_identical(running_header(4L, 2L), "Running MCMC with 4 chains, at most 2 in parallel...\n\n")
  expect_identical(running_header(3L, 1L, 1L), "Running MCMC with 3 sequential chains...\n\n")
  cores <- .Call(tapestry:::C_tp_cores)
  mod <- tapestry_model(code = "parameters { real x; } model { x ~ normal(0, 1); }")
  out <- capture.output(mod$sample(seed = 1, chains = 4, parallel_chains = 4, refresh = 0,
                                   iter_warmup = 50, iter_sampling = 50, diagnostics = NULL))
  expect_identical(out[1], sub("\n\n$", "", running_header(4L, min(4L, cores), 4L)))
  if (cores < 4L) expect_match(out[1], sprintf("at most %d in parallel", cores), fixed = TRUE)
})
