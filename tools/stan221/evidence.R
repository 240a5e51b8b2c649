# tools/stan221/evidence.R -- the README's list of the places where Stan 2.21
# is wrong: every fixture call whose values refs.R replaced by a
# high-precision reference, grouped by function, with Stan's largest
# relative error against the reference and one example (point, Stan's
# value or partial, the reference's).  Also the counts of signatures
# checked.  Writes README.md between <!-- stan221:start --> and
# <!-- stan221:end -->.
# Usage, from the package root: Rscript tools/stan221/evidence.R
here <- "tools/stan221"
dir <- "tests/testthat/fixtures/stan221"
source(file.path(here, "gen.R"))
all_sigs <- load_signatures(file.path(here, "signatures.tsv.gz"))
n_all <- length(all_sigs)
n_rng <- sum(vapply(all_sigs, function(s) grepl("_rng$", s$name), NA))
rel <- function(a, b) ifelse(a == b, 0, abs(a - b) / pmax(abs(b), 1e-300))
rows <- list(); sigs_b <- character(); sigs_r <- character()
for (f in list.files(dir, "^b[0-9].*\\.rds$", full.names = TRUE)) {
  fx <- readRDS(f)
  sigs_b <- c(sigs_b, fx$sig)
  for (rf in fx$ref %||% list()) {
    k <- rf$call; sl <- fx$slices[k, ]; i <- if (sl[2] >= sl[1]) sl[1]:sl[2] else integer()
    worst <- 0; ex <- NULL
    for (p in 1:3) {
      ev <- rel(fx$r[[p]][k], rf$r[p])
      # a partial's error relative to the call's largest partial (a partial
      # of 1e-48 that Stan gives as 1e-11 is an error of 1e-11, not 1e37)
      eg <- if (length(i)) abs(fx$grad[[p]][i] - rf$grad[[p]]) / max(abs(rf$grad[[p]]), 1e-300) else 0
      ev[is.na(ev)] <- Inf; eg[is.na(eg)] <- Inf
      if (max(ev, eg) > worst) {
        worst <- max(ev, eg)
        ex <- if (ev >= max(eg)) sprintf("point %d: value %.10g, reference %.10g", p, fx$r[[p]][k], rf$r[p]) else {
          j <- which.max(eg)
          sprintf("point %d: partial %d %.10g, reference %.10g", p, j, fx$grad[[p]][i[j]], rf$grad[[p]][j])
        }
      }
    }
    rows[[length(rows) + 1L]] <- data.frame(fn = sub("\\(.*", "", fx$sig[k]), sig = fx$sig[k], worst = worst, ex = ex)
  }
}
rng_rows <- list()
for (f in list.files(dir, "^rng_.*\\.rds$", full.names = TRUE)) {
  fx <- readRDS(f)
  sigs_r <- c(sigs_r, fx$sig)
  if (is.null(fx$Fref)) next
  for (k in which(!is.na(fx$Fref[[1]][, 1]))) {
    d <- vapply(1:3, function(p) max(abs(fx$F[[p]][k, ] - fx$Fref[[p]][k, ])), 0)
    p <- which.max(d)
    rng_rows[[length(rng_rows) + 1L]] <- data.frame(fn = sub("\\(.*", "", fx$sig[k]), sig = fx$sig[k], worst = d[p],
      ex = sprintf("point %d: the cdf of Stan's draws at its quantiles %s, exact %s (Stan shares one beta draw among the elements)", p,
                   paste(format(fx$F[[p]][k, ], digits = 2), collapse = " "), paste(format(fx$Fref[[p]][k, ], digits = 2), collapse = " ")))
  }
}
ev <- do.call(rbind, rows)
n_b <- length(unique(sigs_b)); n_r <- length(unique(sigs_r))
lines <- c(
  sprintf("Checked against Stan itself (`tools/stan221`, rstan 2.21's Stan): **%d of the %d signatures Stan 2.21 has (%.1f%%)**,",
          n_b + n_r, n_all, 100 * (n_b + n_r) / n_all),
  sprintf("%d by their values and gradients by every real argument at three points (to 1e-8 relative; 1e-7 for the", n_b),
  sprintf("eigensolvers), %d `_rng` functions by the distribution of their draws; `tests/testthat/test-stan221.R`", n_r),
  "runs them all. Where the two disagreed and Stan is the one that is wrong, a reference at 256 bits (Rmpfr;",
  "`tools/stan221/reference.R`) shows it, and the test compares with the reference:", "",
  "| function | signatures | Stan's largest error (relative; a partial's to the call's largest) | example |", "|---|---|---|---|")
if (!is.null(ev)) {
  for (fn in sort(unique(ev$fn))) {
    e <- ev[ev$fn == fn, ]
    w <- which.max(e$worst)
    lines <- c(lines, sprintf("| `%s` | %d | %s | `%s` %s |", fn, length(unique(e$sig)),
                              if (is.finite(e$worst[w])) format(signif(e$worst[w], 2)) else "NaN",
                              e$sig[w], e$ex[w]))
  }
}
if (length(rng_rows)) {
  er <- do.call(rbind, rng_rows)
  for (fn in sort(unique(er$fn))) {
    e <- er[er$fn == fn, ]; w <- which.max(e$worst)
    lines <- c(lines, sprintf("| `%s` | %d | %.2f (in the cdf) | `%s` %s |", fn, length(unique(e$sig)), e$worst[w], e$sig[w], e$ex[w]))
  }
}
# what is not in the fixtures, and why
nonrng <- vapply(Filter(function(x) !grepl("_rng$", x$name), all_sigs), sig_text, "")
rngs <- vapply(Filter(function(x) grepl("_rng$", x$name), all_sigs), sig_text, "")
uns <- utils::read.delim(file.path(here, "unsupported.tsv"), colClasses = "character")
ref_r <- if (file.exists(file.path(here, "refused-rng.tsv"))) utils::read.delim(file.path(here, "refused-rng.tsv"), colClasses = "character") else NULL
stan_refused <- setdiff(nonrng, c(sigs_b, uns$sig))
lines <- c(lines, "", sprintf(paste(
  "Not in the fixtures: %d signatures tapestry does not have (arrays of 9 dimensions: `%s`), %d that Stan 2.21's",
  "C++ does not compile with parameters as their arguments (`%s`: rstan's compiler error, recorded in",
  "`tools/stan221/refused.tsv` as the `invalid connection` its sink leaves), and %d `_rng` Stan 2.21",
  "cannot draw from at valid arguments (`%s`: it asks boost for the cdf below the support's least value and",
  "throws; tapestry's draws are checked against R's `dhyper` instead)."),
  length(unique(uns$sig)), paste(unique(sub("\\(.*", "", uns$sig)), collapse = "`, `"),
  length(stan_refused), paste(unique(sub("\\(.*", "", stan_refused)), collapse = "`, `"),
  length(setdiff(rngs, sigs_r)), paste(setdiff(rngs, sigs_r), collapse = "`, `")))
readme <- readLines("README.md")
a <- grep("<!-- stan221:start -->", readme, fixed = TRUE); b <- grep("<!-- stan221:end -->", readme, fixed = TRUE)
if (length(a) != 1 || length(b) != 1) stop("README.md has no stan221 markers")
writeLines(c(readme[seq_len(a)], lines, readme[b:length(readme)]), "README.md")
cat(n_b, "signatures by value and gradient,", n_r, "rng;", if (is.null(ev)) 0 else nrow(ev), "calls where Stan is wrong\n")
