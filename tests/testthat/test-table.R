test_that("the function table lists functions with signatures", {
  f <- tp_functions()
  expect_s3_class(f, "data.frame")
  expect_named(f, c("name", "signatures"))
})
test_that("an unknown function is an R error naming it", {
  expect_error(tp_call("no_such_fn", list(1), "real"), "no_such_fn")
})
