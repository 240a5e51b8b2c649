# Container forms (src/math/container/tm_vecfn.c and the deeper array signatures of
# tm_container.c, tm_build.c): fma, divide(real, container), softmax of row
# vectors and arrays, to_array_2d, quantile, trace_dot, squared_distance of
# reals, plus and logical_* by name, size/dims/num_elements/reverse/
# append_array/to_array_1d on arrays of up to 8 dimensions.

arr4 <- function(v) { # array[2, 1, 1, 2] from 4 numbers
  list(list(list(v[1:2])), list(list(v[3:4])))
}

test_that("fma with containers: values and gradients of every argument", {
  x <- c(1.5, -2, 0.3); y <- c(2, 0.5, -1); z <- c(0.1, 0.2, 0.3)
  expect_equal(tval("fma", list(x, y, z), c("vector", "vector", "vector")), x * y + z, tolerance = 1e-15)
  expect_equal(tval("fma", list(2, y, 1), c("real", "vector", "real")), 2 * y + 1, tolerance = 1e-15)
  expect_equal(tval("fma", list(2, 3, matrix(1:4, 2) + 0), c("real", "real", "matrix")), 6 + matrix(1:4, 2),
               tolerance = 1e-15)
  r <- expect_gradient_fd("fma", list(x, 0.7, z), c("row_vector", "real", "row_vector"))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("fma", list(matrix(c(1, 2, 3, 4), 2), matrix(c(-1, 0.5, 2, 1), 2), 0.3), c("matrix", "matrix", "real"))
  expect_error(tp_call("fma", list(x, c(1, 2), 1), c("vector", "vector", "real")), "fma: x \\(3 x 1\\) and y \\(2 x 1\\)")
})

test_that("divide(real, container), squared_distance(real, real), plus", {
  v <- c(1, 4, -0.5)
  expect_equal(tval("divide", list(2, v), c("real", "vector")), 2 / v)
  expect_equal(tval("divide", list(2, matrix(v[1:2], 1)), c("real", "matrix")), matrix(2 / v[1:2], 1))
  expect_gradient_fd("divide", list(2, v), c("real", "row_vector"))
  expect_identical(tval("squared_distance", list(2, 5), c("real", "real")), 9)
  expect_gradient_fd("squared_distance", list(2, 5.5), c("real", "real"))
  expect_error(tp_call("squared_distance", list(Inf, 5), c("real", "real")), "squared_distance: x1 is inf, but must be finite!")
  expect_identical(tval("plus", list(3L), "int"), 3L)
  expect_identical(tval("plus", list(v), "vector"), v)
  expect_gradient_fd("plus", list(v), "vector")
})

test_that("logical_* by name give ints", {
  expect_identical(tval("logical_eq", list(1L, 1), c("int", "real")), 1L)
  expect_identical(tval("logical_eq", list(NaN, NaN), c("real", "real")), 0L)
  expect_identical(tval("logical_neq", list(NaN, NaN), c("real", "real")), 1L)
  expect_identical(tval("logical_lt", list(1.5, 2L), c("real", "int")), 1L)
  expect_identical(tval("logical_lte", list(2, 2), c("real", "real")), 1L)
  expect_identical(tval("logical_gt", list(2L, 2L), c("int", "int")), 0L)
  expect_identical(tval("logical_gte", list(2L, 2L), c("int", "int")), 1L)
  expect_identical(tval("logical_and", list(2L, 0L), c("int", "int")), 0L)
  expect_identical(tval("logical_or", list(2L, 0L), c("int", "int")), 1L)
  expect_identical(tval("logical_negation", list(0L), "int"), 1L)
  expect_identical(tval("logical_negation", list(-3L), "int"), 0L)
})

test_that("softmax and log_softmax of row vectors and arrays", {
  sm <- function(x) exp(x - max(x)) / sum(exp(x - max(x)))
  x <- c(1, -2, 0.5)
  expect_equal(tval("softmax", list(x), "row_vector"), sm(x), tolerance = 1e-15)
  expect_equal(tval("log_softmax", list(x), "row_vector"), log(sm(x)), tolerance = 1e-15)
  got <- tval("softmax", list(list(x, c(0, 0, 3))), "array[] vector")
  expect_equal(got, list(sm(x), sm(c(0, 0, 3))), tolerance = 1e-15)
  got <- tval("log_softmax", list(list(x, c(0, 0, 3))), "array[] row_vector")
  expect_equal(got, list(log(sm(x)), log(sm(c(0, 0, 3)))), tolerance = 1e-14)
  r <- expect_gradient_fd("softmax", list(list(x, c(0, 0, 3))), "array[] vector")
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("log_softmax", list(list(x, c(0.3, 0, 3))), "array[] row_vector")
  expect_gradient_fd("log_softmax", list(x), "row_vector")
  expect_error(tp_call("softmax", list(numeric(0)), "row_vector"), "softmax: v has size 0")
})

test_that("to_array_2d, trace_dot", {
  m <- matrix(c(1.5, 2.5, 3.5, 4.5, 5.5, 6.5), 2)
  expect_identical(tval("to_array_2d", list(m), "matrix"), list(m[1, ], m[2, ]))
  expect_gradient_fd("to_array_2d", list(m), "matrix")
  A <- matrix(c(1, 2, 3, 4, 5, 6), 2); B <- matrix(c(0.5, -1, 2, 1, 3, -2), 3)
  expect_equal(tval("trace_dot", list(A, B), c("matrix", "matrix")), sum(diag(A %*% B)), tolerance = 1e-15)
  expect_gradient_fd("trace_dot", list(A, B), c("matrix", "matrix"))
  expect_error(tp_call("trace_dot", list(A, A), c("matrix", "matrix")), "trace_dot: Size of A.cols\\(\\) \\(3\\) and size of B.rows\\(\\) \\(2\\)")
})

test_that("quantile is R's type 7, with partials in the samples and p", {
  set.seed(3)
  x <- rnorm(11)
  p <- c(0, 0.1, 0.25, 0.5, 0.77, 1)
  expect_equal(tval("quantile", list(x, p), c("vector", "array[] real")), unname(quantile(x, p, type = 7)),
               tolerance = 1e-15)
  expect_equal(tval("quantile", list(x, 0.33), c("array[] real", "real")), unname(quantile(x, 0.33)), tolerance = 1e-15)
  expect_equal(tval("quantile", list(x[1:4], 0.33), c("row_vector", "real")), unname(quantile(x[1:4], 0.33)),
               tolerance = 1e-15)
  expect_gradient_fd("quantile", list(x, 0.33), c("vector", "real"))
  expect_gradient_fd("quantile", list(x, c(0.12, 0.63)), c("vector", "array[] real"))
  expect_error(tp_call("quantile", list(x, 1.2), c("vector", "real")), "quantile: p is 1.2, but must be in the interval \\[0, 1\\]")
  expect_error(tp_call("quantile", list(c(1, NaN), 0.5), c("vector", "real")), "quantile: samples_i\\[2\\] is nan")
  expect_error(tp_call("quantile", list(numeric(0), 0.5), c("vector", "real")), "quantile: samples_i has size 0")
})

test_that("size, dims, num_elements, reverse, append_array, to_array_1d on deep arrays", {
  a4 <- arr4(c(1, 2, 3, 4))
  expect_identical(tval("size", list(a4), "array[,,,] real"), 2L)
  expect_identical(tval("dims", list(a4), "array[,,,] real"), c(2L, 1L, 1L, 2L))
  expect_identical(tval("num_elements", list(a4), "array[,,,] real"), 4L)
  expect_identical(tval("to_array_1d", list(a4), "array[,,,] real"), c(1, 2, 3, 4))
  expect_identical(tval("reverse", list(a4), "array[,,,] real"), arr4(c(3, 4, 1, 2)))
  expect_identical(tval("append_array", list(a4, a4), c("array[,,,] real", "array[,,,] real")), c(a4, a4))
  a6 <- list(list(list(list(list(c(1L, 2L, 3L))))))
  expect_identical(tval("dims", list(a6), "array[,,,,,] int"), c(1L, 1L, 1L, 1L, 1L, 3L))
  expect_identical(tval("to_array_1d", list(a6), "array[,,,,,] int"), 1:3)
  expect_identical(tval("num_elements", list(list(list(list(list(list(list(list(c(1, 2))))))))), "array[,,,,,,,] real"), 2L)
  r <- expect_gradient_fd("reverse", list(a4), "array[,,,] real")
  expect_gradient_fd("to_array_1d", list(a4), "array[,,,] real")
})

test_that("a model of the container forms: tree and plan gradients agree", {
  code <- "
    data { int N; vector[N] y; }
    parameters { vector[N] x; real<lower=0> s; row_vector[3] r; }
    model {
      array[2] vector[N] xs = {x, 2 * x};
      array[2] vector[N] sm = log_softmax(xs);
      target += sum(sm[1]) + sum(softmax(r));
      target += sum(fma(x, s, y)) + sum(2 / (1 + exp(x)));
      target += quantile(x, 0.4) + sum(quantile(y + x, {0.2, 0.9}));
      target += trace_dot(to_matrix(x, 2, 2), to_matrix(y, 2, 2)) + squared_distance(s, 1.5);
      array[2, 2] real a = to_array_2d(to_matrix(x, 2, 2));
      target += a[1, 2] * logical_lt(s, 2) + plus(r[1]);
      x ~ normal(0, 1); s ~ gamma(2, 2); r ~ normal(0, 1);
    }"
  ctx <- tapestry_model(code = code)$bind(list(N = 4, y = c(0.5, -1, 2, 0.1)))
  set.seed(11)
  pts <- c(list(rep(0.1, 8)), lapply(1:3, function(i) rnorm(8, sd = 0.5)))
  expect_paths_and_fd(ctx, pts)
})
