test_that("the function table lists functions with signatures", {
  f <- tp_functions()
  expect_s3_class(f, "data.frame")
  expect_named(f, c("name", "signatures"))
})
test_that("an unknown function is an R error naming it", {
  expect_error(tp_call("no_such_fn", list(1), "real"), "no_such_fn")
})

test_that("a Stan function tapestry lacks is named as such; a misspelt name is unknown", {
  expect_error(tp_check("parameters { real y; } model { target += laplace_marginal(y); }"),
               "'laplace_marginal' is a Stan function that is not supported by tapestry yet")
  expect_error(tp_check("parameters { real y; } model { target += nromal_lpdf(y | 0, 1); }"),
               "unknown function .nromal_lpdf.")
  # names spread over the sorted list the checker searches
  for (n in c("generate_laplace_options", "laplace_latent_solve", "laplace_marginal_tol"))
    expect_error(tp_check(sprintf("parameters { real y; } model { target += %s(y); }", n)),
                 "is a Stan function that is not supported by tapestry yet")
})
