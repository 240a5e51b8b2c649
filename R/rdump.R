# R dump data files (the `.R` files CmdStan reads): parsed with R's parser
# and evaluated by a small walker that allows only the forms a dump holds.
# Nothing in the file is run: a call other than these is an error.
#
#   N <- 3                          numbers, with unary minus, 3L, Inf, NaN
#   y <- c(1, 2, 3)                 c() of numbers and of sequences
#   k <- 1:5                        integer sequences
#   m <- structure(c(...), .Dim = c(2, 3))   arrays, column-major as R's
#   "name" <- ..., name = ...       quoted names and `=`
#   integer(0), double(0), numeric(0), NA

#' Read an R dump data file as CmdStan does
#'
#' @param file Path of the file.
#' @return A named list of numbers, vectors and arrays.
#' @noRd
read_rdump <- function(file) {
  exprs <- tryCatch(parse(file = file, keep.source = FALSE),
                    error = function(e) {
                      abort_data(sprintf("R dump data file '%s' could not be parsed: %s",
                                         file, conditionMessage(e)))
                    })
  out <- list()
  for (e in as.list(exprs)) {
    if (!is.call(e) || !(identical(e[[1L]], as.name("<-")) || identical(e[[1L]], as.name("=")))
        || length(e) != 3L) {
      abort_data(sprintf(paste0("R dump data file '%s': every statement must be an ",
                                "assignment `name <- value`, not `%s`."),
                         file, rdump_deparse(e)))
    }
    name <- e[[2L]]
    name <- if (is.name(name)) as.character(name) else if (is.character(name) && length(name) == 1L) name else {
      abort_data(sprintf("R dump data file '%s': `%s` is not a variable name.", file,
                         rdump_deparse(name)))
    }
    out[[name]] <- rdump_value(e[[3L]], file, name)
  }
  out
}

rdump_deparse <- function(e) paste(deparse(e, width.cutoff = 60L)[1L], collapse = "")

abort_data <- function(msg) tapestry_raise(msg, c("tapestry_data_error", "tapestry_argument_error"))

rdump_value <- function(e, file, name) {
  bad <- function() {
    abort_data(sprintf(paste0("R dump data file '%s', variable '%s': `%s` is not a value ",
                              "CmdStan's R dump format allows (numbers, c(), m:n, ",
                              "structure(c(...), .Dim = c(...)))."),
                       file, name, rdump_deparse(e)))
  }
  if (is.numeric(e) || is.logical(e)) {
    if (length(e) != 1L) bad()
    return(if (is.logical(e)) as.double(e) else e)
  }
  if (is.name(e)) {
    nm <- as.character(e)
    if (nm %in% c("Inf", "NaN")) return(if (nm == "Inf") Inf else NaN)
    bad()
  }
  if (!is.call(e) || !is.name(e[[1L]])) bad()
  f <- as.character(e[[1L]])
  args <- as.list(e)[-1L]
  if (f == "(" && length(args) == 1L) return(rdump_value(args[[1L]], file, name))
  if (f %in% c("-", "+") && length(args) == 1L) {
    v <- rdump_value(args[[1L]], file, name)
    if (!is.null(dim(v))) bad()
    return(if (f == "-") -v else v)
  }
  if (f == ":" && length(args) == 2L) {
    a <- rdump_value(args[[1L]], file, name)
    b <- rdump_value(args[[2L]], file, name)
    if (length(a) != 1L || length(b) != 1L || !is.finite(a) || !is.finite(b)) bad()
    return(a:b)
  }
  if (f == "c") {
    if (!is.null(names(args)) && any(nzchar(names(args)))) bad()
    parts <- lapply(args, function(x) {
      v <- rdump_value(x, file, name)
      if (!is.null(dim(v))) bad()
      v
    })
    if (length(parts) == 0L) return(double())
    return(unlist(parts))
  }
  if (f %in% c("integer", "double", "numeric") && length(args) <= 1L) {
    n <- if (length(args)) rdump_value(args[[1L]], file, name) else 0
    if (length(n) != 1L || n != 0) bad()
    return(if (f == "integer") integer() else double())
  }
  if (f == "structure") {
    nms <- names(args) %||% rep("", length(args))
    if (length(args) < 2L || nzchar(nms[1L])) bad()
    v <- rdump_value(args[[1L]], file, name)
    dims <- NULL
    for (k in seq_along(args)[-1L]) {
      if (nms[k] %in% c(".Dim", "dim")) {
        dims <- rdump_value(args[[k]], file, name)
      } else if (!nms[k] %in% c(".Dimnames", "dimnames")) {
        bad()
      }
    }
    if (is.null(dims)) return(v)
    if (any(!is.finite(dims)) || any(dims < 0) || any(dims != round(dims)) ||
        prod(dims) != length(v)) {
      abort_data(sprintf(paste0("R dump data file '%s', variable '%s': .Dim = c(%s) does not ",
                                "match the %d values given."),
                         file, name, paste(dims, collapse = ", "), length(v)))
    }
    dim(v) <- as.integer(dims)
    return(v)
  }
  bad()
}

# Is this data file an R dump rather than JSON? By its extension (.R, .r,
# .Rdump, .data.R), else by its first non-blank character.
is_rdump_file <- function(file) {
  if (grepl("\\.(R|r|rdump|Rdump)$", file)) return(TRUE)
  if (grepl("\\.json$", file, ignore.case = TRUE)) return(FALSE)
  first <- tryCatch(readChar(file, 2000L, useBytes = TRUE), error = function(e) "")
  first <- sub("^[[:space:]]+", "", first %||% "")
  nzchar(first) && !startsWith(first, "{")
}
