# The report of $plan(): how a context's gradient runs, loop by loop.

new_plan_report <- function(loops, stats, model_name) {
  df <- data.frame(line = loops$line, col = loops$col, loop = loops$loop,
                   where = loops$where, runs = loops$runs,
                   vectorized = loops$vectorized, iterations = loops$iterations,
                   reason = loops$reason, stringsAsFactors = FALSE)
  on_tree <- stats$instructions == 0 || nzchar(stats$why)
  structure(df, class = c("tapestry_plan", "data.frame"),
            path = if (on_tree) "tree" else "plan",
            why = stats$why, instructions = stats$instructions,
            model_name = model_name)
}

#' @export
format.tapestry_plan <- function(x, ...) {
  head <- if (attr(x, "path") == "tree") {
    why <- attr(x, "why")
    sprintf("Model '%s': gradients run on the tree interpreter%s.",
            attr(x, "model_name"), if (nzchar(why)) paste0(" (", why, ")") else "")
  } else {
    sprintf("Model '%s': gradients replay a recorded plan of %s instructions.",
            attr(x, "model_name"), format(attr(x, "instructions"), big.mark = ","))
  }
  n <- nrow(x)
  if (n == 0L) return(c(head, "No for loop with bounds from data."))
  full <- x$vectorized == x$runs
  head <- c(head, sprintf("%d of %d for loop%s vectorized%s.", sum(full), n,
                          if (n == 1L) "" else "s",
                          if (any(x$vectorized > 0 & !full)) paste0(", ", sum(x$vectorized > 0 & !full), " in part") else ""))
  place <- sprintf("line %d:%d", x$line, x$col)
  what <- ifelse(x$where == "model", sprintf("for (%s in ...)", x$loop),
                 sprintf("for (%s in ...) in %s", x$loop, x$where))
  count <- function(v) prettyNum(v, big.mark = ",", scientific = FALSE)
  runs <- ifelse(x$runs == 1, sprintf("%s iterations", count(x$iterations)),
                 sprintf("%s runs, %s iterations", count(x$runs), count(x$iterations)))
  reason <- ifelse(x$vectorized > 0 & !full,
                   sprintf("vectorized in %s of %s runs; the others %s", count(x$vectorized),
                           count(x$runs), x$reason),
                   x$reason)
  c(head, sprintf("  %s  %s  [%s]: %s", format(place), format(what), runs, reason))
}

#' @export
print.tapestry_plan <- function(x, ...) {
  cat(format(x, ...), sep = "\n")
  invisible(x)
}
