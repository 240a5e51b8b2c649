# Tuples in values given as R lists. The front end (src/front/lt_tuple.c)
# makes each tuple variable one variable per element, named "x:1", "x:2"
# (nested "x:2:1"); an array of tuples gives each element's variable the
# array's dimensions in front. A tuple given in R, as a list of its elements
# (unnamed, or named "1", "2", ...), or an array of tuples given as a list of
# such lists, is split here the same way before it reaches the data reader.
# (JSON files are split by the reader itself, src/data/ld_json.c.)

# "1(0,0(1,0))" -> list(narr = 1, el = list(0L, list(narr = 0, el = ...)))
tuple_shape <- function(s) {
  ch <- strsplit(s, "", fixed = TRUE)[[1]]
  pos <- 1L
  node <- function() {
    st <- pos
    while (pos <= length(ch) && ch[pos] %in% as.character(0:9)) pos <<- pos + 1L
    n <- as.integer(paste(ch[st:(pos - 1L)], collapse = ""))
    if (pos > length(ch) || ch[pos] != "(") return(n)
    pos <<- pos + 1L
    el <- list()
    repeat {
      el[[length(el) + 1L]] <- node()
      sep <- ch[pos]
      pos <<- pos + 1L
      if (sep != ",") break
    }
    list(narr = n, el = el)
  }
  node()
}

tuple_leaf_names <- function(name, node) {
  unlist(lapply(seq_along(node$el), function(k) {
    nm <- paste0(name, ":", k)
    if (is.list(node$el[[k]])) tuple_leaf_names(nm, node$el[[k]]) else nm
  }))
}

tuple_given <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.list(x)) return(sprintf("a list of length %d", length(x)))
  d <- dim(x)
  if (is.null(d)) sprintf("a %s vector of length %d", class(x)[1L], length(x))
  else sprintf("a %s array of dimensions [%s]", class(x)[1L], paste(d, collapse = ", "))
}

tuple_split <- function(x, name, node, what) {
  n <- length(node$el)
  if (node$narr == 0L) {
    if (!is.list(x) || is.data.frame(x) || length(x) != n) {
      tapestry_raise(sprintf("%s '%s': declared a tuple of %d elements, given %s (give a list of its elements)",
                             what, name, n, tuple_given(x)), "tapestry_data_error")
    }
    nm <- names(x)
    if (!is.null(nm) && !identical(nm, as.character(seq_len(n)))) {
      tapestry_raise(sprintf("%s '%s': the elements of a tuple are unnamed or named \"1\", \"2\", ... \"%d\"",
                             what, name, n), "tapestry_data_error")
    }
    out <- list()
    for (k in seq_len(n)) {
      sub <- paste0(name, ":", k)
      if (is.list(node$el[[k]])) out <- c(out, tuple_split(x[[k]], sub, node$el[[k]], what))
      else out[[sub]] <- x[[k]]
    }
    return(out)
  }
  if (!is.list(x) || is.data.frame(x)) {
    tapestry_raise(sprintf("%s '%s': declared an array of tuples, given %s (give a list of tuples)",
                           what, name, tuple_given(x)), "tapestry_data_error")
  }
  inner <- list(narr = node$narr - 1L, el = node$el)
  parts <- lapply(seq_along(x), function(i) {
    tuple_split(x[[i]], sprintf("%s[%d]", name, i), inner, what)
  })
  leaves <- tuple_leaf_names(name, node)
  out <- lapply(seq_along(leaves), function(j) lapply(parts, `[[`, j))
  names(out) <- leaves
  out
}

# The list with each tuple variable's value replaced by its elements'.
# `where` is a program or a data context (external pointer).
split_tuples <- function(values, where, what = "variable") {
  if (!is.list(values) || !length(values)) return(values)
  tv <- .Call(C_tp_tuples, where)
  for (i in seq_along(tv$name)) {
    nm <- tv$name[i]
    if (!nm %in% names(values)) next
    parts <- tuple_split(values[[nm]], nm, tuple_shape(tv$shape[i]), what)
    values[[nm]] <- NULL
    values[names(parts)] <- parts
  }
  values
}
