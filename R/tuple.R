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

# Output columns of tuples in CmdStan's order. tapestry writes each element
# of a tuple as its own variable ("q:1" for every q[i], then "q:2"...), so an
# array of tuples comes out element by element; CmdStan writes the array's
# entries one after the other (first index fastest), each entry's tuple
# elements together: q[1]:1, q[1]:2[1], q[1]:2[2], q[2]:1, ... The names
# ("q[1]:2[1]": the array index of each tuple level after its part of the
# name) carry everything the order needs. Returns the permutation of nm.
tuple_column_order <- function(nm) {
  perm <- seq_along(nm)
  is_t <- grepl(":", nm, fixed = TRUE)
  if (!any(is_t)) return(perm)
  root <- sub("[:[].*$", "", nm)
  key <- vapply(nm, tuple_sort_key, "", USE.NAMES = FALSE)
  r <- rle(paste(is_t, root))
  end <- cumsum(r$lengths)
  start <- end - r$lengths + 1L
  for (g in seq_along(end)) {
    idx <- start[g]:end[g]
    if (!is_t[idx[1L]]) next
    perm[idx] <- idx[order(key[idx], method = "radix")]
  }
  perm
}

# "q[1,2]:2[3]" -> a string that sorts as CmdStan orders: per level the
# element number, then the indexes with the first one fastest.
tuple_sort_key <- function(x) {
  parts <- strsplit(x, ":", fixed = TRUE)[[1]]
  pad <- function(v) paste(sprintf("%09d", v), collapse = ".")
  out <- character(length(parts))
  for (l in seq_along(parts)) {
    p <- parts[l]
    elem <- if (l == 1L) 0L else as.integer(sub("\\[.*$", "", p))
    idx <- if (grepl("[", p, fixed = TRUE)) {
      as.integer(strsplit(sub("^[^[]*\\[(.*)\\]$", "\\1", p), ",", fixed = TRUE)[[1]])
    } else integer()
    out[l] <- paste0(pad(elem), "/", pad(rev(idx)))
  }
  paste(out, collapse = "|")
}

# The variable of an output element as the program's lowering names it:
# "q[1]:2[2]" -> "q:2", "theta[3]" -> "theta".
output_var_names <- function(x) gsub("\\[[^]]*\\]", "", x)

# The elements' order within one variable as tapestry stores them (all the
# indexes, first fastest): for putting a tuple element's columns back.
storage_order <- function(x) {
  idx <- lapply(regmatches(x, gregexpr("\\[[^]]*\\]", x)), function(b) {
    as.integer(unlist(strsplit(gsub("[][]", "", b), ",", fixed = TRUE)))
  })
  key <- vapply(idx, function(v) paste(sprintf("%09d", rev(v)), collapse = "."), "")
  order(key, method = "radix")
}
