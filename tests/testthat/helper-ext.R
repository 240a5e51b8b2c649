# Bundled files: inst/extdata, except the logistic models' data (1.8 MB of
# JSON), which stays with the tests (tests/testthat/fixtures) so that the
# installed package stays small.  "" when the file is in neither place.
ext <- function(f) {
  p <- system.file("extdata", f, package = "tapestry")
  if (nzchar(p)) return(p)
  p <- test_path("fixtures", f)
  if (file.exists(p)) normalizePath(p) else ""
}
ext_files <- function(pattern) {
  c(list.files(system.file("extdata", package = "tapestry"), pattern, full.names = TRUE),
    list.files(test_path("fixtures"), pattern, full.names = TRUE))
}

# A temporary directory removed when the calling test ends.
withr_tempdir <- function(env = parent.frame()) {
  d <- tempfile("tapestry")
  dir.create(d)
  do.call(on.exit, list(substitute(unlink(d, recursive = TRUE), list(d = d)), TRUE),
          envir = env)
  d
}
