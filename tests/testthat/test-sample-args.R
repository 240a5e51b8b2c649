sa <- function(..., num_upars = 3L) validate_sample_args(..., num_upars = num_upars)

test_that("the defaults are cmdstanr's", {
  a <- sa(parallel_chains = NULL)
  expect_named(a, c("data", "seed", "chains", "chain_ids", "parallel_chains",
                    "threads_per_chain", "iter_warmup", "iter_sampling", "save_warmup", "thin",
                    "refresh", "init", "adapt_delta", "max_treedepth", "metric", "inv_metric",
                    "step_size", "adapt_engaged", "show_messages", "init_buffer", "term_buffer",
                    "window"))
  expect_identical(a$data, list())
  expect_true(is.double(a$seed) && a$seed >= 1 && a$seed == round(a$seed))
  expect_identical(a$chains, 4L)
  expect_identical(a$chain_ids, 1:4)
  expect_identical(a$parallel_chains, min(4L, as.integer(getOption("mc.cores", 1L))))
  expect_identical(a$threads_per_chain, 1L)
  expect_identical(a$iter_warmup, 1000L)
  expect_identical(a$iter_sampling, 1000L)
  expect_false(a$save_warmup)
  expect_identical(a$thin, 1L)
  expect_identical(a$refresh, 100L)
  expect_null(a$init)
  expect_identical(a$adapt_delta, 0.8)
  expect_identical(a$max_treedepth, 10L)
  expect_identical(a$metric, "diag_e")
  expect_null(a$inv_metric)
  expect_identical(a$step_size, rep(1, 4))
  expect_true(a$adapt_engaged)
  expect_true(a$show_messages)
  expect_identical(c(a$init_buffer, a$term_buffer, a$window), c(75L, 50L, 25L))
})

test_that("NULL stands for the default of every argument", {
  a <- sa(seed = 1, chains = NULL, chain_ids = NULL, parallel_chains = NULL,
          threads_per_chain = NULL, iter_warmup = NULL, iter_sampling = NULL,
          save_warmup = NULL, thin = NULL, refresh = NULL, adapt_delta = NULL,
          max_treedepth = NULL, metric = NULL, step_size = NULL, adapt_engaged = NULL,
          show_messages = NULL, init_buffer = NULL, term_buffer = NULL, window = NULL)
  b <- sa(seed = 1, parallel_chains = getOption("mc.cores", 1L))
  expect_identical(a, b)
})

test_that("arguments are normalized", {
  a <- sa(data = list(N = 1), seed = 12, chains = 2, chain_ids = c(7, 3), parallel_chains = 8,
          threads_per_chain = 2, iter_warmup = 10, iter_sampling = 0, save_warmup = TRUE,
          thin = 3, refresh = 0, init = 0.5, adapt_delta = 0.95, max_treedepth = 12,
          step_size = c(0.1, 0.2), adapt_engaged = FALSE, show_messages = FALSE,
          init_buffer = 0, term_buffer = 0, window = 0)
  expect_identical(a$data, list(N = 1))
  expect_identical(a$seed, 12)
  expect_identical(a$chains, 2L)
  expect_identical(a$chain_ids, c(7L, 3L))
  expect_identical(a$parallel_chains, 2L)   # capped at chains
  expect_identical(a$threads_per_chain, 2L)
  expect_identical(c(a$iter_warmup, a$iter_sampling, a$thin, a$refresh), c(10L, 0L, 3L, 0L))
  expect_identical(a$init, 0.5)
  expect_identical(a$step_size, c(0.1, 0.2))
  expect_identical(sa(chains = 3, step_size = 0.5)$step_size, rep(0.5, 3))
  expect_identical(sa(seed = 0)$seed, 0)
  expect_identical(sa(seed = 2^40)$seed, 2^40)
  # a data file is checked to exist and kept as its path
  f <- ext("eight_schools.data.json")
  expect_identical(sa(data = f)$data, normalizePath(f))
})

test_that("a seed is drawn from R's generator when not given", {
  set.seed(42)
  a <- sa()$seed
  set.seed(42)
  expect_identical(sa()$seed, a)
})

test_that("inverse metrics are checked and given per chain", {
  a <- sa(chains = 2, inv_metric = c(1, 2, 3))
  expect_identical(a$inv_metric, list(c(1, 2, 3), c(1, 2, 3)))
  a <- sa(chains = 2, inv_metric = list(1:3, c(3, 2, 1)))
  expect_identical(a$inv_metric, list(c(1, 2, 3), c(3, 2, 1)))
  m <- matrix(c(2, 0.5, 0, 0.5, 1, 0, 0, 0, 3), 3, 3)
  a <- sa(chains = 2, metric = "dense_e", inv_metric = m)
  expect_identical(a$inv_metric, list(m, m))
  a <- sa(chains = 1, metric = "dense_e", inv_metric = list(c(1, 2, 3)))
  expect_identical(a$inv_metric, list(diag(c(1, 2, 3))))
  # one parameter: a 1 x 1 matrix, not diag(2)
  a <- sa(chains = 1, metric = "dense_e", inv_metric = 2, num_upars = 1L)
  expect_identical(a$inv_metric, list(matrix(2, 1, 1)))
  # no parameters
  expect_identical(sa(chains = 1, inv_metric = numeric(), num_upars = 0L)$inv_metric,
                   list(numeric()))
  expect_null(sa(metric = "unit_e")$inv_metric)
})

test_that("bad counts and flags are argument errors", {
  expect_snapshot(error = TRUE, {
    sa(chains = 0)
    sa(chains = -1)
    sa(chains = 1.5)
    sa(chains = NA)
    sa(chains = "4")
    sa(chains = c(1, 2))
    sa(chain_ids = 1:3)
    sa(chains = 2, chain_ids = c(1, 1))
    sa(chains = 2, chain_ids = c(0, 1))
    sa(chains = 2, chain_ids = c(1.5, 2))
    sa(parallel_chains = 0)
    sa(threads_per_chain = 0)
    sa(iter_warmup = -1)
    sa(iter_sampling = 1e10)
    sa(thin = 0)
    sa(refresh = -1)
    sa(max_treedepth = 0)
    sa(init_buffer = -1)
    sa(term_buffer = 0.5)
    sa(window = NA)
    sa(save_warmup = "yes")
    sa(adapt_engaged = NA)
    sa(show_messages = 1)
  })
  expect_error(sa(chains = 0), class = "tapestry_argument_error")
})

test_that("bad seeds are argument errors", {
  expect_snapshot(error = TRUE, {
    sa(seed = -1)
    sa(seed = NA)
    sa(seed = 1.5)
    sa(seed = "1")
    sa(seed = c(1, 2))
    sa(seed = Inf)
  })
  expect_error(sa(seed = -1), class = "tapestry_argument_error")
})

test_that("adapt_delta must lie in (0, 1)", {
  expect_snapshot(error = TRUE, {
    sa(adapt_delta = 0)
    sa(adapt_delta = 1)
    sa(adapt_delta = 1.2)
    sa(adapt_delta = -0.5)
    sa(adapt_delta = NA)
    sa(adapt_delta = c(0.8, 0.9))
  })
  expect_error(sa(adapt_delta = 1), class = "tapestry_argument_error")
  expect_identical(sa(adapt_delta = 0.999)$adapt_delta, 0.999)
})

test_that("adaptation needs warmup, as in CmdStan", {
  expect_snapshot(error = TRUE, {
    sa(iter_warmup = 0)
  })
  a <- sa(iter_warmup = 0, adapt_engaged = FALSE)
  expect_identical(a$iter_warmup, 0L)
  # nothing to adapt in a model without parameters
  expect_true(sa(iter_warmup = 0, num_upars = 0L)$adapt_engaged)
})

test_that("bad metrics, inverse metrics and step sizes are argument errors", {
  not_pd <- matrix(c(1, 2, 0, 2, 1, 0, 0, 0, 1), 3, 3)
  expect_snapshot(error = TRUE, {
    sa(metric = "dense")
    sa(metric = c("diag_e", "dense_e"))
    sa(metric = "unit_e", inv_metric = c(1, 1, 1))
    sa(inv_metric = c(1, 2))
    sa(inv_metric = c(1, 0, 2))
    sa(inv_metric = c(1, NA, 2))
    sa(inv_metric = c(1, Inf, 2))
    sa(inv_metric = "a")
    sa(inv_metric = diag(3))
    sa(chains = 2, inv_metric = list(1:3, 1:3, 1:3))
    sa(chains = 2, inv_metric = list(1:3, 1:2))
    sa(metric = "dense_e", inv_metric = diag(2))
    sa(metric = "dense_e", inv_metric = matrix(1, 3, 2))
    sa(metric = "dense_e", inv_metric = c(1, 2))
    sa(metric = "dense_e", inv_metric = c(1, -2, 3))
    sa(metric = "dense_e", inv_metric = matrix(c(1, 0, 0, 0.5, 1, 0, 0, 0, 1), 3, 3))
    sa(metric = "dense_e", inv_metric = not_pd)
    sa(metric = "dense_e", chains = 2, inv_metric = list(diag(3), not_pd))
    sa(step_size = 0)
    sa(step_size = -1)
    sa(step_size = NA)
    sa(step_size = "1")
    sa(chains = 4, step_size = c(1, 2))
  })
  expect_error(sa(metric = "dense_e", inv_metric = not_pd), class = "tapestry_argument_error")
})

test_that("bad data are argument errors", {
  expect_snapshot(error = TRUE, {
    sa(data = 1)
    sa(data = list(1))
    sa(data = file.path(tempdir(), "no-such-data.json"))
  }, transform = function(x) gsub(tempdir(), "<tmp>", x, fixed = TRUE))
})

test_that("the checks that need the model's size can come after binding", {
  a <- validate_sample_args(seed = 1, chains = 2, iter_warmup = 0, metric = "dense_e",
                            inv_metric = c(1, 2))
  expect_identical(a$inv_metric, list(c(1, 2), c(1, 2)))
  # no parameters, nothing to adapt: no warmup is fine
  expect_identical(check_sample_args_model(a[names(a) != "inv_metric"], 0L)$iter_warmup, 0L)
  a$adapt_engaged <- FALSE
  expect_identical(check_sample_args_model(a, 2L)$inv_metric, rep(list(diag(c(1, 2))), 2))
  b <- validate_sample_args(seed = 1, chains = 2, metric = "dense_e",
                            inv_metric = list(diag(2), diag(3)))
  expect_snapshot(error = TRUE, {
    check_sample_args_model(a, 3L)
    check_sample_args_model(b, 2L)
    validate_sample_args(metric = "dense_e", inv_metric = matrix(1, 2, 3))
    validate_sample_args(metric = "dense_e", inv_metric = array(1, c(2, 2, 2)))
  })
  a$adapt_engaged <- TRUE
  expect_error(check_sample_args_model(a, 2L), class = "tapestry_argument_error")
})
