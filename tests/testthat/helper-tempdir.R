# A temporary folder removed when the calling test ends.
withr_tempdir <- function(env = parent.frame()) {
  d <- tempfile("tp17-")
  dir.create(d)
  do.call(on.exit, list(substitute(unlink(d, recursive = TRUE), list(d = d)), add = TRUE),
          envir = env)
  d
}
