test_that("execute records on the scoped stack and restores the active one", {
  r <- tp_ad_selftest("execute")
  expect_equal(r[["status"]], 0)
  expect_equal(r[["restored"]], 1)
  expect_equal(r[["main_chain"]], 0)
  expect_equal(r[["scoped_chain"]], 1)
  expect_equal(r[["value"]], 9)
  expect_equal(r[["gradient"]], 6)
})

test_that("append_to_parent lets one sweep cover both tapes", {
  r <- tp_ad_selftest("append")
  expect_equal(r[["main_chain_before"]], 1)
  expect_equal(r[["main_chain_after"]], 2)
  expect_equal(r[["scoped_chain_after"]], 0)
  x <- 2
  expect_equal(r[["value"]], 9 * x^2 + x)
  expect_equal(r[["gradient"]], 18 * x + 1)
})

test_that("recover drops the nodes and keeps the memory", {
  r <- tp_ad_selftest("recover")
  expect_equal(r[["nodes_recorded"]], 20000)
  expect_equal(r[["nodes_after_recover"]], 0)
  expect_gt(r[["bytes_1"]], 0)
  expect_equal(r[["bytes_2"]], r[["bytes_1"]])
  expect_equal(r[["bytes_3"]], r[["bytes_1"]])
})

test_that("a scoped stack refuses to be re-entered", {
  r <- tp_ad_selftest("reenter")
  expect_equal(r[["is_reenter"]], 1)
  expect_equal(r[["restored"]], 1)
  expect_equal(r[["still_executing"]], 0)
  expect_match(attr(r, "message"), "already executing")
})

test_that("a failure inside execute restores the previous stack", {
  r <- tp_ad_selftest("failure")
  expect_equal(r[["status"]], 1)          # AD_EDOMAIN: a rejection
  expect_equal(r[["restored"]], 1)
  expect_equal(r[["still_executing"]], 0)
  expect_match(attr(r, "message"), "normal_lpdf: Scale parameter")
  expect_equal(attr(r, "after"), 4)       # the stack works afterwards
})

test_that("a nested gradient inside an outer recording", {
  r <- tp_ad_selftest("nested")
  x <- 1.7
  expect_equal(r[["outer_chain_before"]], 0)
  expect_equal(r[["outer_chain_after_inner"]], 0)  # the inner work stayed on its own tape
  expect_equal(r[["value"]], x^4)
  expect_equal(r[["gradient"]], 4 * x^3)
})

test_that("scoped stacks record on two threads at once and append", {
  r <- tp_ad_selftest("threads")
  expect_equal(r[["value"]], 1.25^2 + 0.5^2)
  expect_equal(r[["gradient_1"]], 2 * 1.25)
  expect_equal(r[["gradient_2"]], 2 * -0.5)
  expect_equal(r[["main_chain"]], 3)
})

test_that("the gradient loop allocates nothing in the steady state", {
  m <- tp_ad_memory(10000)
  expect_gt(m[["tape_bytes_10"]], 0)
  expect_equal(m[["tape_bytes_n"]], m[["tape_bytes_10"]])
  # the heap's bytes come from glibc's mallinfo2(); other C libraries lack it
  skip_if(is.na(m[["heap_bytes_n"]]), "no mallinfo2() in this C library")
  expect_equal(m[["heap_bytes_n"]], m[["heap_bytes_10"]])
})
