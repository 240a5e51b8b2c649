# Threads from R: the main thread's budget (tapestry_set_num_threads()) and
# $sample()'s threads_per_chain.

hp_data <- function(grainsize = 1L) {
  d <- jsonlite::read_json(ext("hier_poisson_reduce.data.json"), simplifyVector = TRUE)
  d$grainsize <- as.integer(grainsize)
  d
}

# hier_poisson_reduce with reduce_sum_static: the same draws for any number
# of threads.
hp_static_code <- function() {
  code <- paste(readLines(ext("hier_poisson_reduce.stan")), collapse = "\n")
  sub("reduce_sum(", "reduce_sum_static(", code, fixed = TRUE)
}

test_that("tapestry_set_num_threads() sets what tapestry_get_num_threads() reads", {
  old <- tapestry_get_num_threads()
  on.exit(set_num_threads(old, cap = FALSE))
  cores <- .Call(C_tp_cores)
  expect_true(is.integer(cores) && cores >= 1L)

  expect_identical(withVisible(tapestry_set_num_threads(1))$visible, FALSE)
  expect_identical(tapestry_get_num_threads(), 1L)
  expect_identical(tapestry_set_num_threads(2L), min(2L, cores))
  expect_identical(tapestry_get_num_threads(), min(2L, cores))
  # the main thread is one of the threads: the pool has the others
  expect_gte(.Call(C_tp_pool_size), tapestry_get_num_threads() - 1L)

  # capped at the cores
  expect_identical(tapestry_set_num_threads(cores + 3), cores)
  expect_identical(tapestry_get_num_threads(), cores)

  # the tests' way past the cap
  expect_identical(set_num_threads(cores + 3, cap = FALSE), cores + 3L)
  expect_identical(tapestry_get_num_threads(), cores + 3L)
  expect_gte(.Call(C_tp_pool_size), cores + 2L)
})

test_that("tapestry_set_num_threads() wants a positive whole number", {
  old <- tapestry_get_num_threads()
  on.exit(set_num_threads(old, cap = FALSE))
  tapestry_set_num_threads(1)
  expect_snapshot(error = TRUE, {
    tapestry_set_num_threads(0)
    tapestry_set_num_threads(-2)
    tapestry_set_num_threads(1.5)
    tapestry_set_num_threads(NA)
    tapestry_set_num_threads(Inf)
    tapestry_set_num_threads("2")
    tapestry_set_num_threads(c(1, 2))
    tapestry_set_num_threads(NULL)
  })
  expect_error(tapestry_set_num_threads(0), class = "tapestry_argument_error")
  # a refused value changes nothing
  expect_identical(tapestry_get_num_threads(), 1L)
})

test_that("grad_log_prob of hier_poisson_reduce is the serial program's on 1 and 2 threads", {
  skip_if_not_installed("jsonlite")
  d <- hp_data()
  ctx <- tapestry_model(ext("hier_poisson_reduce.stan"))$bind(d)
  serial <- tapestry_model(ext("hier_poisson.stan"))$bind(d[c("N", "G", "y", "gidx")])
  ref <- jsonlite::read_json(ext("hier_poisson_reduce.reference.json"), simplifyVector = TRUE)
  u <- ref$points$upars[[1L]]
  expect_length(u, ctx$num_upars())
  g0 <- serial$grad_log_prob(u)
  g1 <- with_threads(1L, ctx$grad_log_prob(u))
  g2 <- with_threads(2L, ctx$grad_log_prob(u))
  rel <- function(a, b) max(abs(a - b)) / max(abs(b))
  expect_lt(rel(g1, g0), 1e-12)
  expect_lt(rel(g2, g0), 1e-12)
  expect_lt(rel(g2, g1), 1e-12)
  expect_lt(rel(g1, ref$points$gradient[[1L]]), 1e-8)
  # target += keeps the constant that `~` drops
  const <- -sum(lgamma(d$y + 1))
  expect_equal(attr(g2, "log_prob"), attr(g0, "log_prob") + const, tolerance = 1e-12)
  expect_equal(attr(g2, "log_prob"), ref$points$log_prob[1L], tolerance = 1e-10)
})

test_that("reduce_sum_static's gradient is bit-identical for 1, 2 and 8 threads", {
  skip_if_not_installed("jsonlite")
  ctx <- tapestry_model(code = hp_static_code())$bind(hp_data(700L))
  u <- seq(-1, 1, length.out = ctx$num_upars())
  g <- lapply(c(1L, 2L, 8L), function(n) with_threads(n, ctx$grad_log_prob(u)))
  expect_identical(g[[2L]], g[[1L]])
  expect_identical(g[[3L]], g[[1L]])
})

test_that("chains sample with threads_per_chain = 2, and reduce_sum_static's draws repeat", {
  skip_if_not_installed("jsonlite")
  old <- tapestry_get_num_threads()
  on.exit(set_num_threads(old, cap = FALSE))
  tapestry_set_num_threads(1)
  mod <- tapestry_model(code = hp_static_code())
  run <- function(parallel, per_chain) {
    mod$sample(data = hp_data(1000L), seed = 11, chains = 2, parallel_chains = parallel,
               threads_per_chain = per_chain, iter_warmup = 150, iter_sampling = 150,
               refresh = 0, show_messages = FALSE)
  }
  a <- run(2, 2)
  expect_identical(a$metadata()$threads_per_chain, 2L)
  expect_identical(a$return_codes(), c(0L, 0L))
  expect_identical(tapestry_get_num_threads(), 1L)
  expect_lte(.Call(C_tp_pool_size), .Call(C_tp_cores))
  d <- a$draws(format = "array")
  expect_identical(dim(d)[1:2], c(150L, 2L))
  # the same seed, twice; then one chain at a time, whose regions do get a
  # helper, and one thread per chain: the same draws every time
  expect_identical(run(2, 2)$draws(format = "array"), d)
  expect_identical(run(1, 2)$draws(format = "array"), d)
  expect_identical(run(2, 1)$draws(format = "array"), d)

  # a sane posterior: mu within 5 of its standard errors of Stan's mean
  ref <- jsonlite::read_json(ext("hier_poisson_reduce.reference.json"))$summary$mu
  mu <- posterior::subset_draws(a$draws("mu"))
  se <- posterior::mcse_mean(mu)
  expect_lt(abs(mean(mu) - ref$mean), 5 * sqrt(se^2 + ref$se_mean^2))
})

test_that("4 chains x 2 threads per chain run on this machine without oversubscription", {
  skip_if_not_installed("jsonlite")
  mod <- tapestry_model(ext("hier_poisson_reduce.stan"))
  with_threads(2L, {
    fit <- mod$sample(data = hp_data(), seed = 3, chains = 4, parallel_chains = 4,
                      threads_per_chain = 2, iter_warmup = 100, iter_sampling = 100,
                      refresh = 0, show_messages = FALSE)
    expect_identical(fit$return_codes(), rep(0L, 4))
    expect_identical(fit$metadata()$threads_per_chain, 2L)
    expect_identical(dim(fit$draws(format = "array"))[1:2], c(100L, 4L))
    # the pool holds at most the cores, and the main thread's setting is
    # as it was, with the workers it counts on
    expect_lte(.Call(C_tp_pool_size), max(.Call(C_tp_cores), 1L))
    expect_identical(tapestry_get_num_threads(), 2L)
    expect_gte(.Call(C_tp_pool_size), 1L)
  })
})

test_that("parallel work takes its threads only where they were measured to pay (pp_gate.c)", {
  old <- .Call(C_tp_gate, 0L)
  on.exit(.Call(C_tp_gate, old))
  # a site whose work takes ten times longer on the threads: after its first
  # six calls (three each way) it stays on one thread, trying the threads
  # for three calls in every 1024, as they were far slower (none of these
  # 300; every 64 while its averages are still near)
  .Call(C_tp_gate, "reset")
  expect_lte(.Call(C_tp_gate_probe, 20, 200, 300L), 3L + 4L * 3L + 3L)
  # and one whose threads pay takes them on all but a few calls
  .Call(C_tp_gate, "reset")
  expect_gte(.Call(C_tp_gate_probe, 200, 20, 300L), 300L - 3L - 4L * 3L - 3L)
  # never and always, as asked
  .Call(C_tp_gate, 2L)
  expect_identical(.Call(C_tp_gate_probe, 200, 20, 20L), 0L)
  .Call(C_tp_gate, 1L)
  expect_identical(.Call(C_tp_gate_probe, 20, 200, 20L), 20L)
})

test_that("threads taken as measured give the bits of one thread, evaluation after evaluation", {
  d <- list(N = 4096L, y = rep(0:7, 512L), x = seq(-1, 1, length.out = 4096L))
  ctx <- tapestry_model(code = "
    data { int N; array[N] int y; vector[N] x; }
    parameters { real a; real b; }
    model { y ~ poisson_log(a + b * x); }")$bind(d)
  u <- c(0.1, -0.2)
  one <- with_threads(1, ctx$grad_log_prob(u))
  .Call(C_tp_gate, "reset")
  many <- with_threads(2, lapply(1:200, function(i) ctx$grad_log_prob(u)), gate = "measure")
  for (g in many) expect_identical(g, one)
})
