library(testthat)
library(tapestry)

test_check("tapestry")
