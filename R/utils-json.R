# JSON without jsonlite (not a dependency): strings escaped; the writer of
# the metric and config files and of data files (R/verb-fit-methods.R); one
# variable of a CmdStan JSON file, read back through the data reader.

# JSON strings: quotes, backslashes and control characters escaped.
json_string <- function(s) {
  s <- enc2utf8(as.character(s))
  s <- gsub("\\", "\\\\", s, fixed = TRUE)
  s <- gsub("\"", "\\\"", s, fixed = TRUE)
  s <- gsub("\n", "\\n", s, fixed = TRUE)
  s <- gsub("\t", "\\t", s, fixed = TRUE)
  s <- gsub("\r", "\\r", s, fixed = TRUE)
  ctl <- grepl("[\001-\037]", s, useBytes = TRUE)
  if (any(ctl)) {
    s[ctl] <- vapply(s[ctl], function(one) {
      ch <- strsplit(one, "", fixed = TRUE)[[1]]
      code <- vapply(ch, utf8ToInt, 0L)
      bad <- code < 32L
      ch[bad] <- sprintf("\\u%04x", code[bad])
      paste(ch, collapse = "")
    }, "")
  }
  paste0("\"", s, "\"")
}

# A small JSON writer for the metric and config files (numbers at full
# precision, matrices as arrays of rows, NULL as null); jsonlite is not a
# dependency.
json_text <- function(x) {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    if (length(x) && !is.null(names(x)) && all(nzchar(names(x)))) {
      items <- vapply(names(x), function(n) paste0(json_string(n), ": ", json_text(x[[n]])), "")
      return(paste0("{", paste(items, collapse = ", "), "}"))
    }
    return(paste0("[", paste(vapply(x, json_text, ""), collapse = ", "), "]"))
  }
  if (is.matrix(x)) {
    rows <- vapply(seq_len(nrow(x)), function(i) json_text(as.vector(x[i, ])), "")
    return(paste0("[", paste(rows, collapse = ", "), "]"))
  }
  atom <- if (is.character(x)) json_string(x) else if (is.logical(x)) {
    ifelse(is.na(x), "null", ifelse(x, "true", "false"))
  } else if (is.numeric(x)) {
    out <- csv_numbers(x)
    out[is.na(x)] <- "null"
    out[x == Inf] <- "Infinity"
    out[x == -Inf] <- "-Infinity"
    out
  } else {
    json_string(as.character(x))
  }
  if (length(x) == 1L) atom else paste0("[", paste(atom, collapse = ", "), "]")
}

write_json_text <- function(x, file) {
  writeLines(json_text(x), file)
  invisible(file)
}

# One variable of a CmdStan JSON file, as an R value (dims row-major in the
# file; R arrays are column-major).
read_json_variable <- function(file, name) {
  d <- tp_data_read(file)[[name]]
  if (is.null(d)) return(NULL)
  dims <- d$dims
  v <- d$values
  if (length(dims) <= 1L) return(v)
  a <- array(v, dim = rev(dims))
  aperm(a, rev(seq_along(dims)))
}
