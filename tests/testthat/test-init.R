es_ctx <- function() {
  tapestry_model(ext("eight_schools.stan"))$bind(ext("eight_schools.data.json"))
}

# A directory of init files, and a transform hiding its path in snapshots.
init_dir <- function() {
  dir <- tempfile("tp-init-")
  dir.create(dir)
  dir
}
write_json <- function(dir, file, text) {
  path <- file.path(dir, file)
  writeLines(text, path)
  path
}
hide_dir <- function(dir) function(x) gsub(dir, "<dir>", x, fixed = TRUE)

random_start <- function(radius, n) {
  list(radius = radius, values = rep(0, n), given = rep(FALSE, n))
}

test_that("NULL and a number give random starts of that radius", {
  ctx <- es_ctx()
  expect_identical(process_init(NULL, 2L, 1:2, ctx), rep(list(random_start(2, 10)), 2))
  expect_identical(process_init(0.5, 3L, 1:3, ctx), rep(list(random_start(0.5, 10)), 3))
  expect_identical(process_init(0L, 1L, 1L, ctx), list(random_start(0, 10)))
})

test_that("a named list is unconstrained and used by every chain", {
  ctx <- es_ctx()
  v <- list(mu = 1, tau = 2, theta_tilde = seq(-1, 1, length.out = 8))
  s <- process_init(v, 3L, 1:3, ctx)
  expect_length(s, 3L)
  u <- ctx$unconstrain_variables(v)
  for (x in s) {
    expect_identical(x$radius, 2)
    expect_equal(x$values, u)
    expect_identical(x$given, rep(TRUE, 10))
    expect_null(attributes(x$values))
  }
})

test_that("partial inits mark the given elements; other names are ignored", {
  ctx <- es_ctx()
  s <- process_init(list(tau = exp(1), foo = "not a parameter", bar = list(1, "a")),
                    2L, 1:2, ctx)
  expect_identical(s[[1]]$given, c(FALSE, TRUE, rep(FALSE, 8)))
  expect_equal(s[[1]]$values, c(0, 1, rep(0, 8)))
  s <- process_init(list(theta_tilde = 1:8), 1L, 1L, ctx)
  expect_identical(s[[1]]$given, c(FALSE, FALSE, rep(TRUE, 8)))
  expect_equal(s[[1]]$values, c(0, 0, 1:8))
  # an empty list: every value random
  expect_identical(process_init(list(), 2L, 1:2, ctx), rep(list(random_start(2, 10)), 2))
})

test_that("a list of lists gives one start per chain", {
  ctx <- es_ctx()
  s <- process_init(list(list(mu = 1), list(mu = 2, tau = 1), list()), 3L, c(5L, 6L, 7L), ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(1, 2, 0))
  expect_identical(vapply(s, function(x) sum(x$given), 0L), c(1L, 2L, 0L))
})

test_that("a function is called per chain, with chain_id when it takes it", {
  ctx <- es_ctx()
  s <- process_init(function(chain_id) list(mu = chain_id), 2L, c(3L, 8L), ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(3, 8))
  calls <- 0
  s <- process_init(function() {
    calls <<- calls + 1
    list(mu = calls)
  }, 3L, 1:3, ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(1, 2, 3))
})

test_that("a JSON file gives the values of every chain", {
  ctx <- es_ctx()
  dir <- init_dir()
  f <- write_json(dir, "inits.json", '{"mu": 1.5, "tau": 1, "unused": [1, 2]}')
  s <- process_init(f, 2L, 1:2, ctx)
  expect_identical(s[[1]], s[[2]])
  expect_equal(s[[1]]$values, c(1.5, 0, rep(0, 8)))
  expect_identical(s[[1]]$given, c(TRUE, TRUE, rep(FALSE, 8)))
  unlink(dir, recursive = TRUE)
})

test_that("inits.json stands for inits_<id>.json when the first chain's file exists", {
  ctx <- es_ctx()
  dir <- init_dir()
  f <- write_json(dir, "inits.json", '{"mu": 0}')
  # no numbered file: inits.json for all chains
  s <- process_init(f, 2L, 3:4, ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(0, 0))
  # numbered by chain id
  write_json(dir, "inits_3.json", '{"mu": 3}')
  write_json(dir, "inits_4.json", '{"mu": 4}')
  s <- process_init(f, 2L, 3:4, ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(3, 4))
  # the base file need not exist when the numbered ones do
  unlink(f)
  s <- process_init(f, 2L, 3:4, ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(3, 4))
  # one chain: the file itself
  expect_error(process_init(f, 1L, 3L, ctx), class = "tapestry_argument_error")
  # a later numbered file missing
  expect_snapshot(error = TRUE, transform = hide_dir(dir), {
    process_init(f, 3L, 3:5, ctx)
  })
  # the first chain's file missing and no base file
  expect_snapshot(error = TRUE, transform = hide_dir(dir), {
    process_init(f, 2L, 1:2, ctx)
  })
  unlink(dir, recursive = TRUE)
})

test_that("one path per chain", {
  ctx <- es_ctx()
  dir <- init_dir()
  a <- write_json(dir, "a.json", '{"mu": -1}')
  b <- write_json(dir, "b.json", '{"mu": 1, "tau": 2}')
  s <- process_init(c(a, b), 2L, 1:2, ctx)
  expect_identical(vapply(s, function(x) x$values[1], 0), c(-1, 1))
  expect_identical(vapply(s, function(x) sum(x$given), 0L), c(1L, 2L))
  expect_snapshot(error = TRUE, transform = hide_dir(dir), {
    process_init(c(a, file.path(dir, "nope.json")), 2L, 1:2, ctx)
    process_init(c(a, b, a), 2L, 1:2, ctx)
  })
  unlink(dir, recursive = TRUE)
})

test_that("bad files are errors naming the file", {
  ctx <- es_ctx()
  dir <- init_dir()
  bad <- write_json(dir, "bad.json", '{"mu": [1, 2}')
  wrong <- write_json(dir, "wrong.json", '{"theta_tilde": [1, 2, 3]}')
  good <- write_json(dir, "good.json", '{"mu": 1}')
  zero <- write_json(dir, "zero.json", '{"tau": 0}')
  expect_snapshot(error = TRUE, transform = hide_dir(dir), {
    process_init(file.path(dir, "missing.json"), 1L, 1L, ctx)
    process_init(bad, 1L, 1L, ctx)
    process_init(c(good, wrong), 2L, 1:2, ctx)
    process_init(wrong, 2L, 1:2, ctx)
    process_init(c(good, zero), 2L, 1:2, ctx)
    process_init(NA_character_, 1L, 1L, ctx)
  })
  expect_error(process_init(file.path(dir, "missing.json"), 2L, 1:2, ctx),
               class = "tapestry_argument_error")
  expect_error(process_init(wrong, 2L, 1:2, ctx), class = "tapestry_data_error")
  unlink(dir, recursive = TRUE)
})

test_that("values that do not fit the declarations are data errors naming the chain", {
  ctx <- es_ctx()
  expect_snapshot(error = TRUE, {
    process_init(list(list(mu = 1), list(theta_tilde = 1:3)), 2L, 1:2, ctx)
    process_init(list(theta_tilde = matrix(0, 2, 4)), 2L, 1:2, ctx)
    process_init(function(chain_id) list(mu = rep(chain_id, chain_id)), 2L, 1:2, ctx)
    process_init(list(mu = NA), 1L, 1L, ctx)
    process_init(list(list(), list(theta_tilde = c(1, NA, 3:8))), 2L, 1:2, ctx)
    process_init(list(mu = "a"), 1L, 1L, ctx)
  })
  expect_error(process_init(list(theta_tilde = 1:3), 1L, 1L, ctx),
               class = "tapestry_data_error")
  expect_error(process_init(list(mu = NA), 1L, 1L, ctx), class = "tapestry_data_error")
})

test_that("values outside a constraint are errors naming the parameter", {
  ctx <- es_ctx()
  expect_snapshot(error = TRUE, {
    process_init(list(tau = -1), 1L, 1L, ctx)
    process_init(list(list(), list(tau = -0.5)), 2L, 1:2, ctx)
    # on the boundary: the unconstrained value is -Inf
    process_init(list(tau = 0), 1L, 1L, ctx)
    process_init(list(mu = Inf), 1L, 1L, ctx)
  })
  expect_error(process_init(list(tau = -1), 1L, 1L, ctx), class = "tapestry_data_error")
})

test_that("a bound that reads a parameter left out is an error naming both", {
  code <- "
parameters {
  real<lower=0> sigma;
  vector<lower=-sigma, upper=sigma>[2] z;
  real mu;
  real<lower=mu> theta;
  real<offset=mu, multiplier=sigma> w;
  simplex[3] s;
}
model {
  sigma ~ exponential(1);
  mu ~ normal(0, 1);
  theta ~ normal(0, 1);
  w ~ normal(mu, sigma);
}
"
  ctx <- tapestry_model(code = code)$bind()
  expect_identical(ctx$num_upars(), 8L)
  s <- process_init(list(mu = 0, theta = 1), 1L, 1L, ctx)[[1]]
  expect_identical(s$given, c(FALSE, FALSE, FALSE, TRUE, TRUE, FALSE, FALSE, FALSE))
  expect_equal(s$values[4:5], c(0, log(1)))
  s <- process_init(list(sigma = 2, z = c(0, 1), s = c(0.2, 0.3, 0.5)), 1L, 1L, ctx)[[1]]
  expect_identical(s$given, c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, TRUE, TRUE))
  expect_equal(s$values[1:3], c(log(2), 0, qlogis(0.75)))
  expect_snapshot(error = TRUE, {
    process_init(list(theta = 1), 1L, 1L, ctx)
    process_init(list(list(), list(z = c(0, 0))), 2L, 1:2, ctx)
    process_init(list(mu = 1, w = 1), 1L, 1L, ctx)
    process_init(list(mu = 1, theta = 0), 1L, 1L, ctx)
    process_init(list(s = c(0.5, 0.6, 0.1)), 1L, 1L, ctx)
  })
  expect_error(process_init(list(theta = 1), 1L, 1L, ctx), class = "tapestry_data_error")
  # $unconstrain_variables() still needs every parameter
  expect_error(ctx$unconstrain_variables(list(mu = 0, theta = 1)), "not found",
               class = "tapestry_data_error")
})

test_that("arguments of the wrong type or shape are argument errors", {
  ctx <- es_ctx()
  expect_snapshot(error = TRUE, {
    process_init(-1, 2L, 1:2, ctx)
    process_init(c(1, 2), 2L, 1:2, ctx)
    process_init(NA_real_, 2L, 1:2, ctx)
    process_init(Inf, 2L, 1:2, ctx)
    process_init(TRUE, 2L, 1:2, ctx)
    process_init(list(list(mu = 1), list(mu = 2)), 3L, 1:3, ctx)
    process_init(list(mu = 1, 2), 2L, 1:2, ctx)
    process_init(list(list(mu = 1), 2), 2L, 1:2, ctx)
    process_init(list(list(mu = 1), list(1)), 2L, 1:2, ctx)
    process_init(list(mu = 1, mu = 2), 1L, 1L, ctx)
    process_init(function() 1, 2L, 1:2, ctx)
    process_init(function(chain_id) stop("no inits for chain ", chain_id), 2L, 4:5, ctx)
    process_init(data.frame(mu = 1), 1L, 1L, ctx)
  })
  expect_error(process_init(-1, 2L, 1:2, ctx), class = "tapestry_argument_error")
})

test_that("a model without parameters takes any init", {
  ctx <- tapestry_model(code = "generated quantities { real y = 1; }")$bind()
  expect_identical(process_init(list(y = 1), 2L, 1:2, ctx),
                   rep(list(list(radius = 2, values = numeric(), given = logical())), 2))
  expect_identical(process_init(NULL, 1L, 1L, ctx), list(random_start(2, 0)))
})
