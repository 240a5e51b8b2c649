# Ctrl-C reaches every evaluation.  A child R process runs, one
# after the other, evaluations that never end (`while (1) { }`, which
# allocates nothing however long it runs, in the model block, in a function
# the model calls and in transformed data), each after writing that it is
# about to start; the test sends it SIGINT, as a terminal's Ctrl-C does, and
# measures how long it takes to come back to R with the interrupt
# condition.  The child then goes on to the next one: R carries on.

test_that("SIGINT stops an endless evaluation within a second, and R carries on", {
  skip_on_os("windows")   # no SIGINT there: the console's Ctrl-C handler (src/r/r_interrupt.c)
  skip_on_cran()
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  dir <- withr_tempdir()
  script <- file.path(dir, "run.R")
  log <- file.path(dir, "log.txt")
  state <- file.path(dir, "state.txt")
  writeLines(c(
    "library(tapestry)",
    sprintf("state <- %s", deparse(state)),
    "say <- function(...) cat(..., '\\n', file = state, append = TRUE, sep = '')",
    "say('pid ', Sys.getpid())",
    "endless <- tapestry_model(code = '",
    "  functions { real spin(real x) { while (1) { } return x; } }",
    "  data { int K; }",
    "  transformed data { if (K > 10) { while (1) { } } }",
    "  parameters { real x; }",
    "  model { if (K == 1) { while (1) { } } if (K == 2) { target += spin(x); } x ~ normal(0, 1); }')",
    "ctx <- endless$bind(list(K = 1))",
    "steps <- list(",
    "  log_prob = function() ctx$log_prob(0),",
    "  gradient = function() ctx$grad_log_prob(0),",
    "  in_function = function() endless$bind(list(K = 2))$log_prob(0),",
    "  transformed_data = function() endless$bind(list(K = 11)),",
    "  optimize = function() endless$optimize(data = list(K = 1), seed = 1, show_messages = FALSE),",
    "  sample = function() endless$sample(data = list(K = 1), chains = 2, seed = 1, refresh = 0,",
    "                                     show_messages = FALSE))",
    "for (s in names(steps)) {",
    "  say('start ', s)",
    "  r <- tryCatch(steps[[s]](), interrupt = function(e) e, error = function(e) e)",
    "  say('done ', s, ' ', paste(class(r), collapse = ','), ' ', gsub('\\n', ' ', conditionMessage(r)))",
    "}",
    # R carries on: the same context evaluates a program that ends
    "ok <- tapestry_model(code = 'parameters { real x; } model { x ~ normal(0, 1); }')",
    "say('after ', ok$bind()$log_prob(0.5))"
  ), script)
  system2(file.path(R.home("bin"), "Rscript"), script, wait = FALSE, stdout = log, stderr = log,
          env = paste0("R_LIBS=", lib))
  read_state <- function() if (file.exists(state)) readLines(state, warn = FALSE) else character()
  wait_for <- function(pattern, seconds) {
    t_end <- Sys.time() + seconds
    while (Sys.time() < t_end) {
      hit <- grep(pattern, read_state(), value = TRUE)
      if (length(hit)) return(hit[1])
      Sys.sleep(0.01)
    }
    NA_character_
  }
  pid_line <- wait_for("^pid ", 60)
  expect_false(is.na(pid_line))
  pid <- as.integer(sub("^pid ", "", pid_line))
  on.exit(tools::pskill(pid, tools::SIGKILL), add = TRUE)
  steps <- c("log_prob", "gradient", "in_function", "transformed_data", "optimize", "sample")
  took <- c()
  for (s in steps) {
    expect_false(is.na(wait_for(paste0("^start ", s, "$"), 60)), label = paste("the child starts", s))
    Sys.sleep(0.5)                         # well inside the evaluation by now
    expect_true(is.na(wait_for(paste0("^done ", s, " "), 0)),
                label = paste(s, "is still running before the interrupt"))
    sent <- Sys.time()
    tools::pskill(pid, tools::SIGINT)
    done <- wait_for(paste0("^done ", s, " "), 10)
    took[s] <- as.double(difftime(Sys.time(), sent, units = "secs"))
    expect_false(is.na(done), label = paste(s, "returns after SIGINT"))
    expect_match(done, "tapestry_interrupt,interrupt,condition", fixed = TRUE, label = s)
    expect_match(done, "interrupted (Ctrl-C)", fixed = TRUE, label = s)
  }
  expect_true(all(took < 1), label = paste(names(took), round(took, 3), collapse = ", "))
  after <- wait_for("^after ", 20)
  expect_identical(after, paste("after", tapestry_model(
    code = "parameters { real x; } model { x ~ normal(0, 1); }")$bind()$log_prob(0.5)))
  if (any(is.na(c(after, took)))) cat(readLines(log, warn = FALSE), sep = "\n")
})
