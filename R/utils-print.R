# Printing helpers shared by the fits' print() methods.

# The rows of a fit's summary as the variational and generated-quantities
# fits print them: posterior's pillar_num columns as plain doubles (round()
# on them keeps pillar's own digits), at most max_rows rows.
print_summary_rows <- function(s, digits, max_rows) {
  shown <- utils::head(s, max_rows)
  num <- vapply(shown, is.numeric, TRUE)
  shown[num] <- lapply(shown[num], function(x) round(as.double(unclass(x)), digits))
  base::print(as.data.frame(shown), row.names = FALSE)
  if (nrow(s) > max_rows) {
    cat("\n # showing", max_rows, "of", nrow(s), "rows (change via 'max_rows' argument)\n")
  }
}
