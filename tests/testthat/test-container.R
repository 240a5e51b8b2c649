# Container functions (src/math/container/tm_container.c): reductions, dot products,
# cumulative_sum, softmax, builders, slices, transpose and size queries.

v5 <- c(0.3, -1.2, 2.5, 0.7, -0.4)
m23 <- matrix(c(0.5, -1.5, 2.0, 0.25, -0.75, 3.0), 2, 3)
chain_nodes <- function(fn, args, types, ad = !grepl("int", types)) {
  tp_call(fn, args, types, ad)$nodes[1]
}
val <- function(fn, args, types) tval(fn, args, types)

test_that("reductions equal R on every container type", {
  x <- c(1.5, -2.25, 3.0, 0.5)
  for (ty in c("vector", "row_vector", "array[] real")) {
    expect_equal(val("sum", list(x), ty), sum(x), tolerance = 1e-14)
    expect_equal(val("prod", list(x), ty), prod(x), tolerance = 1e-14)
    expect_equal(val("mean", list(x), ty), mean(x), tolerance = 1e-14)
    expect_equal(val("variance", list(x), ty), var(x), tolerance = 1e-14)
    expect_equal(val("sd", list(x), ty), sd(x), tolerance = 1e-14)
    expect_equal(val("min", list(x), ty), min(x))
    expect_equal(val("max", list(x), ty), max(x))
  }
  expect_equal(val("sum", list(m23), "matrix"), sum(m23), tolerance = 1e-14)
  expect_equal(val("prod", list(m23), "matrix"), prod(m23), tolerance = 1e-14)
  expect_equal(val("mean", list(m23), "matrix"), mean(m23), tolerance = 1e-14)
  expect_equal(val("variance", list(m23), "matrix"), var(as.vector(m23)), tolerance = 1e-14)
  expect_equal(val("sd", list(m23), "matrix"), sd(m23), tolerance = 1e-14)
  expect_equal(val("min", list(m23), "matrix"), min(m23))
  expect_equal(val("max", list(m23), "matrix"), max(m23))
  # variance of large values with a small spread: two passes keep accuracy
  y <- 1e9 + c(1, 2, 3, 4)
  expect_equal(val("variance", list(y), "vector"), var(y), tolerance = 1e-12)
})

test_that("reductions of int arrays: sum, prod, min, max are ints", {
  k <- c(3L, -2L, 7L, 1L)
  for (f in c("sum", "prod", "min", "max")) {
    r <- val(f, list(k), "array[] int")
    expect_type(r, "integer")
    expect_identical(r, as.integer(get(f)(k)))
  }
  expect_equal(val("mean", list(k), "array[] int"), mean(k))
  expect_equal(val("variance", list(k), "array[] int"), var(k))
  expect_equal(val("sd", list(k), "array[] int"), sd(k))
  expect_identical(val("sum", list(integer(0)), "array[] int"), 0L)
  expect_error(val("sum", list(c(.Machine$integer.max, 1L)), "array[] int"), "sum: integer overflow")
  expect_error(val("prod", list(c(65536L, 65536L)), "array[] int"), "prod: integer overflow")
})

test_that("reduction edge cases follow Stan", {
  expect_equal(val("min", list(numeric(0)), "vector"), Inf)
  expect_equal(val("max", list(numeric(0)), "array[] real"), -Inf)
  expect_equal(val("sum", list(numeric(0)), "vector"), 0)
  expect_equal(val("prod", list(numeric(0)), "row_vector"), 1)
  expect_error(val("min", list(integer(0)), "array[] int"), "min: int vector has size 0")
  expect_error(val("max", list(integer(0)), "array[] int"), "max: int vector has size 0")
  expect_equal(val("variance", list(4.2), "vector"), 0)
  expect_equal(val("sd", list(4.2), "array[] real"), 0)
  expect_error(val("mean", list(numeric(0)), "vector"), "mean: x has size 0")
  expect_error(val("variance", list(numeric(0)), "vector"), "variance: x has size 0")
  expect_error(val("sd", list(numeric(0)), "row_vector"), "sd: x has size 0")
  expect_true(is.nan(val("min", list(c(1, NaN, -3)), "vector")))
  expect_true(is.nan(val("max", list(c(1, NaN, -3)), "vector")))
  expect_equal(val("max", list(c(1, Inf, -3)), "vector"), Inf)
  # binary min and max
  expect_identical(val("min", list(3L, -2L), c("int", "int")), -2L)
  expect_identical(val("max", list(3L, -2L), c("int", "int")), 3L)
  expect_equal(val("min", list(3L, -2.5), c("int", "real")), -2.5)
  expect_equal(val("max", list(3L, -2.5), c("int", "real")), 3)
})

test_that("reduction gradients match finite differences", {
  x <- c(1.5, -2.25, 3.0, 0.5)
  for (f in c("sum", "prod", "mean", "variance", "sd", "min", "max")) {
    for (ty in c("vector", "row_vector", "array[] real"))
      expect_gradient_fd(f, list(x), ty)
    expect_gradient_fd(f, list(m23), "matrix")
    expect_gradient_fd(f, list(c(1e6, -2e6, 3.5e6)), "vector")
  }
  # At tiny scales finite differences cannot resolve the function; use
  # homogeneity instead: f(s x) = s^k f(x) gives J(s x) = s^(k-1) J(x).
  y <- c(1, 2, -3, 0.5)
  jac <- function(f, x) tp_call(f, list(x), "vector", TRUE)$jacobian[[1]]
  degree <- c(sum = 1, prod = 4, mean = 1, variance = 2, sd = 1, min = 1, max = 1)
  for (f in names(degree)) {
    s <- 1e-8
    expect_equal(jac(f, s * y), s^(degree[[f]] - 1) * jac(f, y), tolerance = 1e-12,
                 label = paste(f, "Jacobian at a tiny scale"))
  }
  # prod with a zero and with two zeros: products of the others, no NaN
  r <- expect_gradient_fd("prod", list(c(2, 0, 3)), "vector")
  expect_equal(as.vector(r$jacobian[[1]]), c(0, 6, 0))
  r <- tp_call("prod", list(c(2, 0, 0)), "vector", TRUE)
  expect_equal(as.vector(r$jacobian[[1]]), c(0, 0, 0))
  # sd of equal values: Stan's limit 1/sqrt(n) instead of NaN
  r <- tp_call("sd", list(c(2, 2, 2, 2)), "vector", TRUE)
  expect_equal(as.vector(r$jacobian[[1]]), rep(0.5, 4))
  # size 1: variance and sd are constant 0
  r <- tp_call("sd", list(7), "vector", TRUE)
  expect_equal(r$value, 0)
  expect_equal(as.vector(r$jacobian[[1]]), 0)
  # min / max of two scalars, autodiff and data mixes
  for (f in c("min", "max")) {
    expect_gradient_fd(f, list(1.5, -0.5), c("real", "real"))
    expect_gradient_fd(f, list(1.5, -0.5), c("real", "real"), ad = c(TRUE, FALSE))
    expect_gradient_fd(f, list(1.5, -0.5), c("real", "real"), ad = c(FALSE, TRUE))
    expect_gradient_fd(f, list(2L, -0.5), c("int", "real"))
  }
})

test_that("dot_product and dot_self", {
  a <- c(1.5, -2, 0.25); b <- c(3, 0.5, -4)
  expect_equal(val("dot_product", list(a, b), c("vector", "vector")), sum(a * b))
  expect_equal(val("dot_product", list(a, b), c("row_vector", "vector")), sum(a * b))
  expect_equal(val("dot_product", list(a, b), c("array[] real", "array[] real")), sum(a * b))
  expect_equal(val("dot_self", list(a), "row_vector"), sum(a^2))
  for (ty in list(c("vector", "vector"), c("vector", "row_vector"), c("row_vector", "vector"),
                  c("row_vector", "row_vector"), c("array[] real", "array[] real"))) {
    expect_gradient_fd("dot_product", list(a, b), ty)
    expect_gradient_fd("dot_product", list(a, b), ty, ad = c(TRUE, FALSE))
    expect_gradient_fd("dot_product", list(a, b), ty, ad = c(FALSE, TRUE))
  }
  expect_gradient_fd("dot_product", list(a, a), c("vector", "vector"))
  expect_gradient_fd("dot_self", list(a), "vector")
  expect_gradient_fd("dot_self", list(c(1e-9, -3e-9)), "row_vector")
  expect_gradient_fd("dot_self", list(c(2e7, -3e7)), "row_vector")
  expect_equal(val("dot_product", list(numeric(0), numeric(0)), c("vector", "vector")), 0)
  expect_error(val("dot_product", list(a, c(1, 2)), c("vector", "vector")),
               "dot_product: Size of v1 \\(3\\) and size of v2 \\(2\\) must match")
  err <- tryCatch(val("dot_product", list(a, c(1, 2)), c("vector", "vector")), error = identity)
  expect_s3_class(err, "tapestry_invalid_argument")
})

test_that("cumulative_sum", {
  x <- c(0.5, -1.25, 2, 3.5)
  for (ty in c("vector", "row_vector", "array[] real")) {
    expect_equal(val("cumulative_sum", list(x), ty), cumsum(x))
    expect_gradient_fd("cumulative_sum", list(x), ty)
  }
  expect_identical(val("cumulative_sum", list(c(1L, 2L, -5L)), "array[] int"), cumsum(c(1L, 2L, -5L)))
  expect_equal(length(val("cumulative_sum", list(numeric(0)), "vector")), 0)
  expect_error(val("cumulative_sum", list(c(.Machine$integer.max, 1L)), "array[] int"),
               "cumulative_sum: integer overflow")
})

test_that("softmax and log_softmax", {
  x <- c(0.5, -1.25, 2, 0)
  sm <- exp(x) / sum(exp(x))
  expect_equal(val("softmax", list(x), "vector"), sm, tolerance = 1e-14)
  expect_equal(val("log_softmax", list(x), "vector"), log(sm), tolerance = 1e-14)
  # large inputs: no overflow
  expect_equal(val("softmax", list(x + 1000), "vector"), sm, tolerance = 1e-14)
  expect_equal(val("log_softmax", list(x - 1000), "vector"), log(sm), tolerance = 1e-12)
  expect_equal(val("softmax", list(3), "vector"), 1)
  for (f in c("softmax", "log_softmax")) {
    expect_gradient_fd(f, list(x), "vector")
    expect_gradient_fd(f, list(c(7.5)), "vector")
    expect_gradient_fd(f, list(c(-8, 4, 0.001, 9)), "vector")
    expect_error(val(f, list(numeric(0)), "vector"), paste0(f, ": v has size 0"))
  }
  # Jacobian of softmax at large inputs equals the one at shifted inputs
  j1 <- tp_call("softmax", list(x + 1000), "vector", TRUE)$jacobian[[1]]
  j0 <- tp_call("softmax", list(x), "vector", TRUE)$jacobian[[1]]
  expect_equal(j1, j0, tolerance = 1e-12)
  expect_equal(j0, diag(sm) - sm %o% sm, tolerance = 1e-14)
})

test_that("append_row and append_col equal rbind / cbind", {
  a <- matrix(c(1, 2, 3, 4, 5, 6), 2); b <- matrix(c(7, 8, 9), 1); rv <- c(-1, -2, -3)
  expect_equal(val("append_row", list(a, b), c("matrix", "matrix")), rbind(a, b))
  expect_equal(val("append_row", list(a, rv), c("matrix", "row_vector")), rbind(a, rv, deparse.level = 0))
  expect_equal(val("append_row", list(rv, a), c("row_vector", "matrix")), rbind(rv, a, deparse.level = 0))
  expect_equal(val("append_row", list(rv, c(4, 5, 6)), c("row_vector", "row_vector")),
               rbind(rv, c(4, 5, 6), deparse.level = 0))
  expect_equal(val("append_row", list(c(1, 2), c(3, 4, 5)), c("vector", "vector")), c(1, 2, 3, 4, 5))
  expect_equal(val("append_row", list(9, c(3, 4)), c("real", "vector")), c(9, 3, 4))
  expect_equal(val("append_row", list(c(3, 4), 9L), c("vector", "int")), c(3, 4, 9))
  expect_equal(val("append_col", list(a, a), c("matrix", "matrix")), cbind(a, a))
  expect_equal(val("append_col", list(c(1, 2), a), c("vector", "matrix")), cbind(c(1, 2), a, deparse.level = 0))
  expect_equal(val("append_col", list(a, c(1, 2)), c("matrix", "vector")), cbind(a, c(1, 2), deparse.level = 0))
  expect_equal(val("append_col", list(c(1, 2), c(3, 4)), c("vector", "vector")), cbind(c(1, 2), c(3, 4), deparse.level = 0))
  expect_equal(val("append_col", list(rv, c(4, 5)), c("row_vector", "row_vector")), c(rv, 4, 5))
  expect_equal(val("append_col", list(0.5, rv), c("real", "row_vector")), c(0.5, rv))
  expect_equal(val("append_col", list(rv, 0.5), c("row_vector", "real")), c(rv, 0.5))
  for (ty in list(c("matrix", "matrix"), c("matrix", "row_vector"), c("row_vector", "matrix"))) {
    args <- list(if (ty[1] == "matrix") a else rv, if (ty[2] == "matrix") b else rv)
    expect_gradient_fd("append_row", args, ty)
    expect_gradient_fd("append_row", args, ty, ad = c(TRUE, FALSE))
    expect_gradient_fd("append_row", args, ty, ad = c(FALSE, TRUE))
  }
  expect_gradient_fd("append_row", list(1.5, c(3, 4)), c("real", "vector"))
  expect_gradient_fd("append_row", list(c(3, 4), 1.5), c("vector", "real"), ad = c(FALSE, TRUE))
  expect_gradient_fd("append_col", list(a, c(1, 2)), c("matrix", "vector"))
  expect_gradient_fd("append_col", list(c(1, 2), a), c("vector", "matrix"), ad = c(TRUE, FALSE))
  expect_gradient_fd("append_col", list(c(1, 2), c(3, 4)), c("vector", "vector"))
  expect_gradient_fd("append_col", list(1.5, rv), c("real", "row_vector"))
  expect_error(val("append_row", list(a, c(1, 2)), c("matrix", "row_vector")),
               "append_row: columns of A \\(3\\) and columns of B \\(2\\) must match in size")
  expect_error(val("append_col", list(a, c(1, 2, 3)), c("matrix", "vector")),
               "append_col: rows of A \\(2\\) and rows of B \\(3\\) must match in size")
  expect_error(val("append_row", list(c(1, 2), c(1, 2)), c("vector", "row_vector")), "append_row: no signature")
})

test_that("rep_vector, rep_row_vector, rep_matrix, rep_array equal rep / matrix", {
  expect_equal(val("rep_vector", list(2.5, 3L), c("real", "int")), rep(2.5, 3))
  expect_equal(val("rep_vector", list(2L, 2L), c("int", "int")), c(2, 2))
  expect_equal(val("rep_row_vector", list(-1, 4L), c("real", "int")), rep(-1, 4))
  expect_equal(length(val("rep_vector", list(1, 0L), c("real", "int"))), 0)
  expect_equal(val("rep_matrix", list(1.5, 2L, 3L), c("real", "int", "int")), matrix(1.5, 2, 3))
  expect_equal(val("rep_matrix", list(c(1, 2), 3L), c("vector", "int")), matrix(c(1, 2), 2, 3))
  expect_equal(val("rep_matrix", list(c(1, 2, 3), 2L), c("row_vector", "int")),
               matrix(c(1, 2, 3), 2, 3, byrow = TRUE))
  expect_equal(val("rep_array", list(1.5, 3L), c("real", "int")), rep(1.5, 3))
  expect_identical(val("rep_array", list(4L, 2L), c("int", "int")), c(4L, 4L))
  expect_equal(val("rep_array", list(1.5, 2L, 3L), c("real", "int", "int")), rep(list(rep(1.5, 3)), 2))
  expect_equal(val("rep_array", list(c(1, 2), 2L), c("vector", "int")), list(c(1, 2), c(1, 2)))
  r3 <- val("rep_array", list(m23, 2L, 1L, 2L), c("matrix", "int", "int", "int"))
  expect_equal(r3, rep(list(list(list(m23, m23))), 2))
  expect_equal(val("rep_array", list(c(1, 2), 2L), c("array[] real", "int")), list(c(1, 2), c(1, 2)))
  expect_gradient_fd("rep_vector", list(2.5, 3L), c("real", "int"))
  expect_gradient_fd("rep_row_vector", list(2.5, 3L), c("real", "int"))
  expect_gradient_fd("rep_matrix", list(2.5, 2L, 2L), c("real", "int", "int"))
  expect_gradient_fd("rep_matrix", list(c(1, 2), 3L), c("vector", "int"))
  expect_gradient_fd("rep_matrix", list(c(1, 2, 3), 2L), c("row_vector", "int"))
  expect_gradient_fd("rep_array", list(2.5, 2L, 2L), c("real", "int", "int"))
  expect_gradient_fd("rep_array", list(c(1, -2), 3L), c("vector", "int"))
  expect_gradient_fd("rep_array", list(c(1, -2), 2L, 1L, 2L), c("row_vector", "int", "int", "int"))
  expect_error(val("rep_vector", list(1, -1L), c("real", "int")), "rep_vector: n is -1, but must be nonnegative")
  expect_error(val("rep_matrix", list(1, 2L, -3L), c("real", "int", "int")), "rep_matrix: n is -3")
  expect_error(val("rep_matrix", list(c(1, 2), -3L), c("vector", "int")), "rep_matrix: n is -3")
  expect_error(val("rep_array", list(1, 2L, -1L), c("real", "int", "int")), "rep_array: n is -1")
  expect_error(val("rep_array", list(1, -2L, 1L, 1L), c("real", "int", "int", "int")), "rep_array: k is -2")
})

test_that("to_vector, to_row_vector, to_array_1d, to_matrix follow Stan's orders", {
  expect_equal(val("to_vector", list(m23), "matrix"), as.vector(m23))
  expect_equal(val("to_row_vector", list(m23), "matrix"), as.vector(m23))
  expect_equal(val("to_vector", list(1:3), "array[] int"), c(1, 2, 3))
  expect_equal(val("to_vector", list(c(1, 2)), "row_vector"), c(1, 2))
  expect_equal(val("to_array_1d", list(m23), "matrix"), as.vector(m23))
  expect_equal(val("to_array_1d", list(list(c(1, 2, 3), c(4, 5, 6))), "array[,] real"), 1:6 + 0)
  expect_identical(val("to_array_1d", list(list(1:2, 3:4)), "array[,] int"), 1:4)
  x <- c(1, 2, 3, 4, 5, 6)
  expect_equal(val("to_matrix", list(x, 2L, 3L), c("vector", "int", "int")), matrix(x, 2, 3))
  expect_equal(val("to_matrix", list(x, 2L, 3L, 1L), c("row_vector", "int", "int", "int")), matrix(x, 2, 3))
  expect_equal(val("to_matrix", list(x, 2L, 3L, 0L), c("array[] real", "int", "int", "int")),
               matrix(x, 2, 3, byrow = TRUE))
  expect_equal(val("to_matrix", list(1:6, 3L, 2L), c("array[] int", "int", "int")), matrix(1:6 + 0, 3, 2))
  expect_equal(val("to_matrix", list(m23, 3L, 2L), c("matrix", "int", "int")), matrix(as.vector(m23), 3, 2))
  expect_equal(val("to_matrix", list(m23), "matrix"), m23)
  expect_equal(val("to_matrix", list(c(1, 2)), "vector"), matrix(c(1, 2), 2, 1))
  expect_equal(val("to_matrix", list(c(1, 2)), "row_vector"), matrix(c(1, 2), 1, 2))
  expect_equal(val("to_matrix", list(list(c(1, 2, 3), c(4, 5, 6))), "array[,] real"),
               matrix(1:6 + 0, 2, 3, byrow = TRUE))
  expect_equal(val("to_matrix", list(list(c(1, 2, 3), c(4, 5, 6))), "array[] row_vector"),
               matrix(1:6 + 0, 2, 3, byrow = TRUE))
  expect_gradient_fd("to_vector", list(m23), "matrix")
  expect_gradient_fd("to_row_vector", list(c(1, 2)), "array[] real")
  expect_gradient_fd("to_array_1d", list(list(c(1, 2, 3), c(4, 5, 6))), "array[,] real")
  expect_gradient_fd("to_array_1d", list(c(1, 2)), "row_vector")
  expect_gradient_fd("to_matrix", list(x, 2L, 3L, 0L), c("vector", "int", "int", "int"))
  expect_gradient_fd("to_matrix", list(x, 3L, 2L), c("array[] real", "int", "int"))
  expect_gradient_fd("to_matrix", list(list(c(1, 2, 3), c(4, 5, 6))), "array[,] real")
  expect_gradient_fd("to_matrix", list(list(c(1, 2, 3), c(4, 5, 6))), "array[] row_vector")
  expect_gradient_fd("to_matrix", list(m23, 1L, 6L), c("matrix", "int", "int"))
  expect_error(val("to_matrix", list(x, 4L, 2L), c("vector", "int", "int")),
               "to_matrix: rows \\* columns \\(8\\) and size of x \\(6\\) must match in size")
  expect_error(val("to_matrix", list(x, -2L, -3L), c("vector", "int", "int")), "to_matrix: m is -2")
})

test_that("head, tail, segment follow R's head / tail and Stan's indices", {
  x <- c(10, 20, 30, 40, 50)
  expect_equal(val("head", list(x, 2L), c("vector", "int")), head(x, 2))
  expect_equal(val("tail", list(x, 2L), c("row_vector", "int")), tail(x, 2))
  expect_equal(val("head", list(x, 5L), c("array[] real", "int")), x)
  expect_equal(length(val("tail", list(x, 0L), c("vector", "int"))), 0)
  expect_identical(val("head", list(1:4, 3L), c("array[] int", "int")), 1:3)
  expect_equal(val("segment", list(x, 2L, 3L), c("vector", "int", "int")), x[2:4])
  expect_equal(val("segment", list(x, 5L, 1L), c("row_vector", "int", "int")), 50)
  av <- list(c(1, 2), c(3, 4), c(5, 6))
  expect_equal(val("head", list(av, 2L), c("array[] vector", "int")), av[1:2])
  expect_equal(val("tail", list(av, 1L), c("array[] row_vector", "int")), av[3])
  expect_equal(val("segment", list(av, 2L, 2L), c("array[] vector", "int", "int")), av[2:3])
  a2 <- list(c(1, 2, 3), c(4, 5, 6))
  expect_equal(val("tail", list(a2, 1L), c("array[,] real", "int")), a2[2])
  am <- list(m23, m23 * 2, m23 * 3)
  expect_equal(val("segment", list(am, 2L, 2L), c("array[] matrix", "int", "int")), am[2:3])
  expect_gradient_fd("head", list(x, 3L), c("vector", "int"))
  expect_gradient_fd("tail", list(x, 3L), c("row_vector", "int"))
  expect_gradient_fd("segment", list(x, 2L, 3L), c("array[] real", "int", "int"))
  expect_gradient_fd("head", list(av, 2L), c("array[] vector", "int"))
  expect_gradient_fd("tail", list(am, 2L), c("array[] matrix", "int"))
  expect_gradient_fd("segment", list(a2, 2L, 1L), c("array[,] real", "int", "int"))
  expect_error(val("head", list(x, 7L), c("vector", "int")), "head: n is 7, but must be in the interval \\[0, 5\\]")
  expect_error(val("head", list(x, -1L), c("vector", "int")), "head: n is -1, but must be in the interval \\[0, 5\\]")
  expect_error(val("tail", list(av, 4L), c("array[] vector", "int")), "tail: n is 4, but must be in the interval \\[0, 3\\]")
  expect_error(val("segment", list(x, 0L, 1L), c("vector", "int", "int")), "segment: i is 0, but must be in the interval \\[1, 5\\]")
  expect_error(val("segment", list(x, 6L, 0L), c("vector", "int", "int")), "segment: i is 6")
  expect_error(val("segment", list(x, 4L, 3L), c("vector", "int", "int")), "segment: n is 3, but must be in the interval \\[0, 2\\]")
  err <- tryCatch(val("head", list(x, 7L), c("vector", "int")), error = identity)
  expect_s3_class(err, "tapestry_invalid_argument")
})

test_that("block, col, row, diag_matrix, transpose", {
  m <- matrix(as.numeric(1:12), 3, 4)
  expect_equal(val("block", list(m, 2L, 2L, 2L, 3L), c("matrix", rep("int", 4))), m[2:3, 2:4])
  expect_equal(val("block", list(m, 1L, 1L, 3L, 4L), c("matrix", rep("int", 4))), m)
  expect_equal(dim(val("block", list(m, 2L, 3L, 0L, 2L), c("matrix", rep("int", 4)))), c(0L, 2L))
  expect_equal(val("col", list(m, 3L), c("matrix", "int")), m[, 3])
  expect_equal(val("row", list(m, 2L), c("matrix", "int")), m[2, ])
  expect_equal(val("diag_matrix", list(c(1, 2, 3)), "vector"), diag(c(1, 2, 3)))
  expect_equal(dim(val("diag_matrix", list(numeric(0)), "vector")), c(0L, 0L))
  expect_equal(val("transpose", list(m), "matrix"), t(m))
  expect_equal(val("transpose", list(t(m)), "matrix"), m)
  expect_equal(val("transpose", list(c(1, 2)), "vector"), c(1, 2))
  mm <- matrix(rnorm(6), 2, 3)
  expect_gradient_fd("block", list(m, 2L, 2L, 2L, 3L), c("matrix", rep("int", 4)))
  expect_gradient_fd("col", list(m23, 2L), c("matrix", "int"))
  expect_gradient_fd("row", list(m23, 2L), c("matrix", "int"))
  expect_gradient_fd("diag_matrix", list(c(1, -2, 3)), "vector")
  expect_gradient_fd("transpose", list(mm), "matrix")
  expect_gradient_fd("transpose", list(t(mm)), "matrix")
  expect_gradient_fd("transpose", list(c(1, 2, 3)), "vector")
  expect_gradient_fd("transpose", list(c(1, 2, 3)), "row_vector")
  expect_error(val("col", list(m, 5L), c("matrix", "int")), "col: j is 5, but must be in the interval \\[1, 4\\]")
  expect_error(val("row", list(m, 0L), c("matrix", "int")), "row: i is 0, but must be in the interval \\[1, 3\\]")
  expect_error(val("block", list(m, 4L, 1L, 1L, 1L), c("matrix", rep("int", 4))), "block: i is 4")
  expect_error(val("block", list(m, 1L, 0L, 1L, 1L), c("matrix", rep("int", 4))), "block: j is 0")
  expect_error(val("block", list(m, 2L, 1L, 3L, 1L), c("matrix", rep("int", 4))),
               "block: n_rows is 3, but must be in the interval \\[0, 2\\]")
  expect_error(val("block", list(m, 1L, 2L, 1L, 4L), c("matrix", rep("int", 4))),
               "block: n_cols is 4, but must be in the interval \\[0, 3\\]")
})

test_that("rows, cols, size, num_elements", {
  expect_identical(val("rows", list(m23), "matrix"), 2L)
  expect_identical(val("cols", list(m23), "matrix"), 3L)
  expect_identical(val("rows", list(c(1, 2, 3)), "vector"), 3L)
  expect_identical(val("cols", list(c(1, 2, 3)), "vector"), 1L)
  expect_identical(val("rows", list(c(1, 2, 3)), "row_vector"), 1L)
  expect_identical(val("cols", list(c(1, 2, 3)), "row_vector"), 3L)
  expect_identical(val("size", list(m23), "matrix"), 6L)
  expect_identical(val("size", list(list(c(1, 2), c(3, 4), c(5, 6))), "array[] vector"), 3L)
  expect_identical(val("size", list(1:4), "array[] int"), 4L)
  expect_identical(val("size", list(2.5), "real"), 1L)
  expect_identical(val("num_elements", list(list(c(1, 2), c(3, 4), c(5, 6))), "array[] vector"), 6L)
  expect_identical(val("num_elements", list(list(m23, m23)), "array[] matrix"), 12L)
  expect_identical(val("num_elements", list(c(1, 2)), "row_vector"), 2L)
  # int results record nothing even on autodiff arguments
  expect_equal(chain_nodes("rows", list(m23), "matrix"), 0)
})

test_that("one chain node per call on autodiff input, none on data", {
  x <- c(1.5, -2.25, 3.0, 0.5)
  calls <- list(
    list("sum", list(x), "vector"), list("prod", list(m23), "matrix"),
    list("mean", list(x), "array[] real"), list("variance", list(x), "row_vector"),
    list("sd", list(x), "vector"), list("min", list(x), "vector"), list("max", list(m23), "matrix"),
    list("min", list(numeric(0)), "vector"), list("max", list(1, 2), c("real", "real")),
    list("dot_product", list(x, x), c("vector", "row_vector")), list("dot_self", list(x), "vector"),
    list("cumulative_sum", list(x), "vector"), list("softmax", list(x), "vector"),
    list("log_softmax", list(x), "vector"),
    list("append_row", list(m23, c(1, 2, 3)), c("matrix", "row_vector")),
    list("append_col", list(1, x), c("real", "row_vector")),
    list("rep_vector", list(1, 3L), c("real", "int")), list("rep_matrix", list(x, 2L), c("vector", "int")),
    list("rep_array", list(m23, 2L, 2L), c("matrix", "int", "int")),
    list("to_vector", list(m23), "matrix"), list("to_row_vector", list(x), "array[] real"),
    list("to_matrix", list(x, 2L, 2L, 0L), c("vector", "int", "int", "int")),
    list("to_matrix", list(list(x, x)), "array[,] real"),
    list("to_array_1d", list(m23), "matrix"), list("head", list(x, 2L), c("vector", "int")),
    list("tail", list(list(x, x, x), 2L), c("array[] row_vector", "int")),
    list("segment", list(x, 2L, 2L), c("row_vector", "int", "int")),
    list("block", list(m23, 1L, 2L, 2L, 2L), c("matrix", rep("int", 4))),
    list("col", list(m23, 1L), c("matrix", "int")), list("row", list(m23, 2L), c("matrix", "int")),
    list("diag_matrix", list(x), "vector"), list("transpose", list(m23), "matrix"))
  for (cl in calls) {
    ad <- !grepl("int", cl[[3]])
    expect_equal(chain_nodes(cl[[1]], cl[[2]], cl[[3]], ad), 1, label = paste(cl[[1]], "nodes (autodiff)"))
    expect_equal(chain_nodes(cl[[1]], cl[[2]], cl[[3]], rep(FALSE, length(ad))), 0,
                 label = paste(cl[[1]], "nodes (data)"))
  }
  # data mixes still record one node
  expect_equal(chain_nodes("append_row", list(x, x), c("vector", "vector"), c(FALSE, TRUE)), 1)
  expect_equal(chain_nodes("dot_product", list(x, x), c("vector", "vector"), c(TRUE, FALSE)), 1)
  expect_equal(chain_nodes("min", list(1, 2), c("real", "real"), c(FALSE, TRUE)), 1)
})

test_that("bad argument types fail with a message naming the function", {
  expect_error(val("sum", list(list(c(1, 2))), "array[] vector"), "sum: no signature")
  expect_error(val("head", list(m23, 1L), c("matrix", "int")), "head: no signature")
  expect_error(val("softmax", list(matrix(c(1, 2), 1)), "matrix"), "softmax: no signature")
  expect_error(val("col", list(m23, 1.0), c("matrix", "real")), "col: no signature")
})
