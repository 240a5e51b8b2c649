# Builders from sizes, reverse and append_array (src/math/container/tm_build.c), and
# sorting (src/math/container/tm_sort.c).

test_that("identity, zeros, ones, uniform_simplex, one_hot", {
  expect_identical(tval("identity_matrix", list(3L), "int"), diag(3))
  expect_identical(dim(tval("identity_matrix", list(0L), "int")), c(0L, 0L))
  expect_identical(tval("zeros_vector", list(3L), "int"), c(0, 0, 0))
  expect_identical(tval("zeros_row_vector", list(2L), "int"), c(0, 0))
  expect_identical(tval("zeros_array", list(2L), "int"), c(0, 0))
  expect_identical(tval("zeros_int_array", list(2L), "int"), c(0L, 0L))
  expect_identical(tval("ones_vector", list(2L), "int"), c(1, 1))
  expect_identical(tval("ones_row_vector", list(1L), "int"), 1)
  expect_identical(tval("ones_array", list(3L), "int"), c(1, 1, 1))
  expect_identical(tval("ones_int_array", list(3L), "int"), c(1L, 1L, 1L))
  expect_length(tval("ones_vector", list(0L), "int"), 0)
  expect_equal(tval("uniform_simplex", list(4L), "int"), rep(0.25, 4))
  expect_identical(tval("one_hot_vector", list(4L, 2L), c("int", "int")), c(0, 1, 0, 0))
  expect_identical(tval("one_hot_row_vector", list(2L, 2L), c("int", "int")), c(0, 1))
  expect_identical(tval("one_hot_array", list(3L, 1L), c("int", "int")), c(1, 0, 0))
  expect_identical(tval("one_hot_int_array", list(3L, 3L), c("int", "int")), c(0L, 0L, 1L))
  expect_error(tp_call("one_hot_vector", list(3L, 4L), c("int", "int")),
               "one_hot_vector: k is 4, but must be in the interval \\[1, 3\\]")
  expect_error(tp_call("one_hot_array", list(0L, 1L), c("int", "int")), "one_hot_array: size is 0, but must be positive!")
  expect_error(tp_call("uniform_simplex", list(0L), "int"), "uniform_simplex: size is 0, but must be positive!")
  expect_error(tp_call("zeros_vector", list(-1L), "int"), "zeros_vector: size is -1, but must be nonnegative!")
  expect_error(tp_call("zeros_vector", list(2), "real"), "zeros_vector: no signature accepts")
})

test_that("linspaced_* follow Stan (Eigen's LinSpaced)", {
  expect_equal(tval("linspaced_vector", list(5L, 0, 1), c("int", "real", "real")), seq(0, 1, length.out = 5),
               tolerance = 1e-15)
  x <- tval("linspaced_array", list(7L, -1.3, 2.9), c("int", "real", "real"))
  expect_equal(x, seq(-1.3, 2.9, length.out = 7), tolerance = 1e-15)
  expect_identical(x[c(1, 7)], c(-1.3, 2.9))
  expect_identical(tval("linspaced_row_vector", list(1L, 0, 3), c("int", "real", "real")), 3)
  expect_length(tval("linspaced_vector", list(0L, 0, 3), c("int", "real", "real")), 0)
  li <- function(n, lo, hi) tval("linspaced_int_array", list(n, lo, hi), c("int", "int", "int"))
  expect_identical(li(5L, 1L, 5L), 1:5)
  expect_identical(li(5L, 0L, 8L), c(0L, 2L, 4L, 6L, 8L))
  expect_identical(li(6L, 1L, 3L), c(1L, 1L, 2L, 2L, 3L, 3L))
  expect_identical(li(3L, 0L, 7L), c(0L, 3L, 6L))
  expect_identical(li(1L, 2L, 9L), 9L)
  expect_error(tp_call("linspaced_vector", list(3L, 1, 0), c("int", "real", "real")),
               "linspaced_vector: high is 0, but must be greater than or equal to 1")
  expect_error(tp_call("linspaced_array", list(3L, -Inf, 0), c("int", "real", "real")),
               "linspaced_array: low is -inf, but must be finite!")
})

test_that("reverse: vectors and arrays of anything, one node", {
  expect_identical(tval("reverse", list(c(1, 2, 3)), "vector"), c(3, 2, 1))
  expect_identical(tval("reverse", list(3:1), "array[] int"), 1:3)
  expect_identical(tval("reverse", list(list(c(1, 2), c(3, 4), c(5, 6))), "array[] vector"),
                   list(c(5, 6), c(3, 4), c(1, 2)))
  expect_identical(tval("reverse", list(numeric(0)), "row_vector"), numeric(0))
  r <- expect_gradient_fd("reverse", list(c(0.5, -1, 2)), "row_vector")
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("reverse", list(list(c(1, 2), c(3, 4))), "array[] vector")
})

test_that("append_array concatenates, promotes ints, checks element shapes", {
  expect_identical(tval("append_array", list(c(1, 2), c(3)), c("array[] real", "array[] real")), c(1, 2, 3))
  expect_identical(tval("append_array", list(1:2, 3:4), c("array[] int", "array[] int")), 1:4)
  expect_identical(tval("append_array", list(1:2, 0.5), c("array[] int", "array[] real")), c(1, 2, 0.5))
  expect_identical(tval("append_array", list(list(c(1, 2)), list(c(3, 4), c(5, 6))),
                        c("array[] vector", "array[] vector")), list(c(1, 2), c(3, 4), c(5, 6)))
  expect_identical(tval("append_array", list(numeric(0), c(7, 8)), c("array[] real", "array[] real")), c(7, 8))
  for (ad in list(c(TRUE, TRUE), c(TRUE, FALSE), c(FALSE, TRUE))) {
    r <- expect_gradient_fd("append_array", list(c(1, 2), c(3, 4, 5)), c("array[] real", "array[] real"), ad)
    expect_equal(r$nodes[1], 1)
  }
  expect_error(tp_call("append_array", list(list(c(1, 2)), list(c(3, 4, 5))), c("array[] vector", "array[] vector")),
               "append_array: size of x\\[1\\] \\(2 x 1\\) and size of y\\[1\\] \\(3 x 1\\) must match in size")
  expect_error(tp_call("append_array", list(c(1, 2), list(c(3, 4))), c("array[] real", "array[] vector")),
               "append_array: no signature accepts")
})

test_that("sort_asc, sort_desc, sort_indices_*, rank", {
  x <- c(0.3, -1, 2.5, 0.3, -7)
  expect_identical(tval("sort_asc", list(x), "vector"), sort(x))
  expect_identical(tval("sort_desc", list(x), "row_vector"), sort(x, decreasing = TRUE))
  expect_identical(tval("sort_asc", list(c(3L, 1L, 2L)), "array[] int"), 1:3)
  expect_identical(tval("sort_indices_asc", list(x), "vector"), order(x))
  expect_identical(tval("sort_indices_desc", list(x), "array[] real"), order(-x))   # ties keep their order
  expect_identical(tval("sort_indices_asc", list(c(3L, 1L, 2L)), "array[] int"), c(2L, 3L, 1L))
  expect_identical(tval("sort_indices_asc", list(numeric(0)), "vector"), integer(0))
  expect_identical(tval("rank", list(x, 3L), c("vector", "int")), 4L)
  expect_identical(tval("rank", list(c(5L, 1L, 5L), 1L), c("array[] int", "int")), 1L)
  r <- expect_gradient_fd("sort_desc", list(c(0.3, -1, 2.5)), "vector")
  expect_equal(r$nodes[1], 1)
  J <- r$jacobian[[1]]
  expect_equal(J, matrix(c(0, 1, 0, 0, 0, 1, 1, 0, 0), 3))
  expect_error(tp_call("sort_asc", list(c(1, NaN)), "vector"),
               "sort_asc: container argument\\[2\\] is nan, but must not be nan!")
  expect_error(tp_call("rank", list(x, 6L), c("vector", "int")),
               "rank: index 6 out of range; expecting index to be between 1 and 5")
})
