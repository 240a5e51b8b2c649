# The parser's tree (tp_parse()'s `dump`, an S-expression) as nested R lists,
# and the accessors that walk it, for $format() (R/verb-format.R) and the
# pedantic checks (R/verb-pedantic.R).

# The S-expression as nested lists: a node is a list whose first element is
# its head (a string); atoms are strings.
sexp_read <- function(text) {
  toks <- regmatches(text, gregexpr("\\(|\\)|\"(?:[^\"\\\\]|\\\\.)*\"|[^[:space:]()]+", text,
                                    perl = TRUE))[[1L]]
  pos <- 1L
  read <- function() {
    t <- toks[pos]
    pos <<- pos + 1L
    if (t != "(") return(t)
    out <- list()
    while (toks[pos] != ")") out[[length(out) + 1L]] <- read()
    pos <<- pos + 1L
    out
  }
  read()
}

sx_head <- function(x) if (is.list(x) && length(x) && is.character(x[[1L]])) x[[1L]] else ""

sx_block <- function(prog, name) {
  for (b in prog[-1L]) if (sx_head(b) == name) return(b[-1L])
  list()
}

unquote <- function(s) gsub("^\"|\"$", "", s)

# Variable names referenced anywhere in a subtree.
sx_vars <- function(x) {
  if (!is.list(x)) return(character())
  if (sx_head(x) == "var" && length(x) == 2L) return(x[[2L]])
  unique(unlist(lapply(x, sx_vars), use.names = FALSE))
}

# Every node of a subtree satisfying pred, in preorder.
sx_find <- function(x, pred) {
  if (!is.list(x)) return(list())
  here <- if (pred(x)) list(x) else list()
  c(here, do.call(c, lapply(x[-1L], sx_find, pred = pred)))
}
