# Complex data: an R complex value becomes what CmdStan's JSON gives for it,
# each complex number a pair (re, im) in one more, last dimension; so a
# complex scalar is c(re, im), a complex vector an n x 2 matrix, a complex
# matrix an r x c x 2 array.  Lists (arrays given as lists) are converted
# element by element.
complex_as_pairs <- function(x) {
  if (is.complex(x)) {
    d <- dim(x)
    if (is.null(d)) d <- if (length(x) == 1L) integer() else length(x)
    return(array(c(Re(x), Im(x)), dim = c(d, 2L)))
  }
  if (is.list(x) && !is.data.frame(x)) {
    x[] <- lapply(x, complex_as_pairs)
  }
  x
}
