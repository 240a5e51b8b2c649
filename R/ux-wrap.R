# Messages and warnings that fit the console: the sampler's warnings ran to
# 150 characters on one line.  Each line of a message is broken at spaces
# to at most getOption("width") - 1 characters, its continuation lines
# indented as the line was; a word longer than that (a URL) stays whole.
wrap_text <- function(text, width = getOption("width", 80L)) {
  width <- max(as.integer(width), 20L)
  lines <- strsplit(paste(text, collapse = "\n"), "\n", fixed = TRUE)[[1L]]
  out <- unlist(lapply(lines, function(l) {
    if (nchar(l) < width) return(l)
    ind <- nchar(sub("^( *).*$", "\\1", l))
    strwrap(l, width = width, indent = ind, exdent = ind)
  }))
  paste(out, collapse = "\n")
}

# A warning of class tapestry_warning, wrapped to the console's width.
tapestry_warn <- function(msg) {
  warning(warningCondition(wrap_text(msg), class = "tapestry_warning"))
}
