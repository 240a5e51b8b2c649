# tools/stan221/refs.R -- where tapestry and Stan 2.21 disagree, which is
# right: each disagreeing call of a family with a reference in reference.R
# is evaluated at high precision.  Where tapestry agrees with the reference
# (to 1e-8) and Stan does not, the reference joins the fixture (its `ref`,
# which test-stan221.R compares with instead of Stan's values) and the case
# is written to tools/stan221/stan-wrong.md as evidence; where tapestry is
# the one that is wrong, the call is listed on the console to be fixed.
# Usage, from the package root with tapestry installed: Rscript tools/stan221/refs.R [pattern]
args <- commandArgs(TRUE)
here <- "tools/stan221"
source(file.path(here, "reference.R"))
suppressMessages(library(tapestry))
`%||%` <- function(a, b) if (is.null(a)) b else a
close <- function(a, b, tol = 1e-8) (is.na(a) & is.na(b)) | (!is.na(a) & !is.na(b) & (a == b | abs(a - b) <= tol * abs(b) + 1e-14))

files <- list.files("tests/testthat/fixtures/stan221", "^b[0-9].*\\.rds$", full.names = TRUE)
if (length(args)) files <- files[grepl(args[1], basename(files))]
evidence <- character()
for (f in files) {
  fx <- readRDS(f)
  m <- tapestry_model(code = fx$program)
  tap <- lapply(1:3, function(p) {
    ctx <- m$bind(list(NI = length(fx$ii[[p]]), ii = fx$ii[[p]]))
    th <- fx$th[[p]]; if (!length(th)) th <- 0
    list(g = as.numeric(ctx$grad_log_prob(th, jacobian = FALSE)), r = ctx$constrain_variables(th)$r)
  })
  fx$ref <- list()
  for (k in seq_along(fx$sig)) {
    sl <- fx$slices[k, ]; i <- if (sl[2] >= sl[1]) sl[1]:sl[2] else integer()
    # gradients that cancel to zero at the scale of the call's partials, as the test
    gclose <- function(a, b) close(a, b) | (!is.na(a) & !is.na(b) & abs(a - b) <= 1e-13 * max(1, abs(b), na.rm = TRUE))
    ok <- vapply(1:3, function(p) close(tap[[p]]$r[k], fx$r[[p]][k]) && all(gclose(tap[[p]]$g[i], fx$grad[[p]][i])), NA)
    if (all(ok)) next
    fns <- refs[[fx$fam[k]]]
    if (is.null(fns)) { cat("no reference:", fx$sig[k], fx$tag[k], "\n"); next }
    rf <- tryCatch(lapply(1:3, function(p) reference(fx, k, p, fns)), error = function(e) paste(conditionMessage(e), deparse(conditionCall(e))[1]))
    if (is.character(rf)) { cat("reference failed:", fx$sig[k], rf, "\n"); next }
    tap_ok <- vapply(1:3, function(p) close(tap[[p]]$r[k], rf[[p]]$r) && all(gclose(tap[[p]]$g[i], rf[[p]]$grad)), NA)
    if (!all(tap_ok)) {
      p <- which(!tap_ok)[1]
      cat(sprintf("TAPESTRY WRONG %s [%s] point %d: value %.16g ref %.16g stan %.16g\n   grad %s\n   ref  %s\n", fx$sig[k], fx$tag[k], p,
                  tap[[p]]$r[k], rf[[p]]$r, fx$r[[p]][k], paste(signif(tap[[p]]$g[i], 12), collapse = " "),
                  paste(signif(rf[[p]]$grad, 12), collapse = " ")))
      next
    }
    fx$ref[[length(fx$ref) + 1L]] <- list(call = k, r = vapply(rf, `[[`, 0, "r"), grad = lapply(rf, `[[`, "grad"))
    p <- which(!ok)[1]
    evidence <- c(evidence, sprintf("| %s | %d | %.12g | %.12g | %.12g | %s | %s |", fx$sig[k], p, fx$r[[p]][k], rf[[p]]$r,
                                    tap[[p]]$r[k], paste(signif(fx$grad[[p]][i], 9), collapse = ", "),
                                    paste(signif(rf[[p]]$grad, 9), collapse = ", ")))
  }
  saveRDS(fx, f, compress = "xz")
  cat(basename(f), ":", length(fx$ref), "calls where Stan is wrong\n")
}
if (length(evidence)) {
  out <- file.path(here, "work", "stan-wrong.md")
  cat("| signature | point | Stan | reference | tapestry | Stan's gradient | reference gradient |\n|---|---|---|---|---|---|---|\n",
      paste(evidence, collapse = "\n"), "\n", file = out, append = file.exists(out))
}
