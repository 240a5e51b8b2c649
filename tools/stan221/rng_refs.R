# tools/stan221/rng_refs.R -- where Stan 2.21's _rng draws are wrong, the
# exact distribution instead.  Stan 2.21's beta_binomial_rng with an array N
# and scalar alpha, beta draws one p ~ beta(alpha, beta) and shares it among
# all the elements (stan/math/prim/scal/prob/beta_binomial_rng.hpp:
# `auto p = beta_rng(alpha, beta, rng); return binomial_rng(N, p, rng);`),
# so its elements are dependent; a vectorized _rng draws every element
# independently.  For such calls the fixture gets `Fref`: the exact cdf of
# the reduced result (red_a1i: sum of (1 + i/2) x_i over independent
# beta-binomial x_i, by convolution of their exact pmfs) at Stan's
# quantiles, which test-stan221.R compares tapestry's draws with.
# Usage, from the package root: Rscript tools/stan221/rng_refs.R
dir <- "tests/testthat/fixtures/stan221"
bb_pmf <- function(N, a, b) {
  k <- 0:N
  exp(lchoose(N, k) + lbeta(k + a, N - k + b) - lbeta(a, b))
}
# exact cdf of sum_i w_i X_i at the points q (support keys rounded to 1e-9)
weighted_sum_cdf <- function(pmfs, w, q) {
  vals <- 0; prob <- 1
  for (i in seq_along(pmfs)) {
    v <- outer(vals, w[i] * (seq_along(pmfs[[i]]) - 1), `+`)
    p <- outer(prob, pmfs[[i]])
    key <- round(as.vector(v), 9)
    agg <- tapply(as.vector(p), key, sum)
    vals <- as.numeric(names(agg)); prob <- as.numeric(agg)
  }
  vapply(q, function(x) sum(prob[vals <= x + 1e-9]), 0)
}
scalar_arg <- function(s, th, ii) {
  m <- regmatches(s, regexec("^(th|ii)\\[([0-9]+)\\]$", s))[[1]]
  if (!length(m)) return(NULL)
  if (m[2] == "th") th[as.integer(m[3])] else ii[as.integer(m[3])]
}
for (f in list.files(dir, "^rng_.*\\.rds$", full.names = TRUE)) {
  fx <- readRDS(f)
  pr <- strsplit(fx$program, "\n")[[1]]
  fx$Fref <- lapply(1:3, function(p) matrix(NA_real_, length(fx$sig), length(fx$probs)))
  n_ref <- 0
  for (k in seq_along(fx$sig)) {
    line <- grep(sprintf("^  d\\[%d\\] = ", k), pr, value = TRUE)
    m <- regmatches(line, regexec("red_a1i\\(beta_binomial_rng\\(ii\\[([0-9]+):([0-9]+)\\], ([a-z]+\\[[0-9]+\\]), ([a-z]+\\[[0-9]+\\])\\)\\)", line))[[1]]
    if (!length(m)) next
    for (p in 1:3) {
      th <- fx$th[[p]]; ii <- fx$ii[[p]]
      N <- ii[as.integer(m[2]):as.integer(m[3])]
      a <- scalar_arg(m[4], th, ii); b <- scalar_arg(m[5], th, ii)
      w <- 1 + 0.5 * seq_along(N)
      fx$Fref[[p]][k, ] <- weighted_sum_cdf(lapply(N, bb_pmf, a = a, b = b), w, fx$q[[p]][k, ])
      cat(sprintf("%s point %d: exact cdf %s, Stan's draws %s\n", fx$sig[k], p,
                  paste(format(fx$Fref[[p]][k, ], digits = 3), collapse = " "),
                  paste(format(fx$F[[p]][k, ], digits = 3), collapse = " ")))
    }
    n_ref <- n_ref + 1
  }
  if (n_ref == 0) fx$Fref <- NULL
  saveRDS(fx, f, compress = "xz")
  cat(basename(f), ":", n_ref, "calls with the exact distribution\n")
}
