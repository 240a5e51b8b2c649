# tools/stan221/rng.R -- Stan 2.21's _rng functions against tapestry's, by
# distribution: draws cannot agree (Stan's generator is boost's, tapestry's
# xoshiro256++), so each call's draws are compared where they can be.
# For every _rng signature at three points of its domain, Stan draws
# `n_draws` values of the call's reduced result (gen.R's weighted sum) with
# the fixed_param sampler; the fixture keeps, per call and point, Stan's
# quantiles q at probs and its empirical cdf F at them.  The test draws as
# many with tapestry and checks that tapestry's empirical cdf at each q is
# within 5 standard errors of Stan's (two samples of n_draws each).
#
# Usage, from the package root (rstan 2.21 installed; compiles a batch per
# family group, run by hand): Rscript tools/stan221/rng.R [jobs] [batch-regex]

args <- commandArgs(TRUE)
jobs <- if (length(args) >= 1) as.integer(args[1]) else 2L
only <- if (length(args) >= 2) args[2] else NULL      # a regex on batch names (r03_...)
here <- "tools/stan221"
source(file.path(here, "gen.R")); source(file.path(here, "spec.R"))
fixture_dir <- "tests/testthat/fixtures/stan221"
cache_dir <- file.path(here, "cache")
dir.create(cache_dir, showWarnings = FALSE)
n_draws <- 2000L
probs <- c(0.1, 0.3, 0.5, 0.7, 0.9)
batch_size <- 300L

sigs <- load_signatures(file.path(here, "signatures.tsv.gz"))
sigs <- Filter(function(s) grepl("_rng$", s$name), sigs)

# The domains of an _rng's arguments: its distribution's spec without the
# outcome (the spec is asked with the outcome's type in front), except
# where the _rng takes other arguments than the density.
rng_special <- list(
  lkj_corr = list(iv(3, 2, 4), "pos"), lkj_corr_cholesky = list(iv(3, 2, 4), "pos"),
  multinomial = list("simplex", iv(5, 12, 1)),
  pareto = list("pos", "pos"),   # y_min: the density's "unit" would give an int 0
  uniform = list("neg", "pos"))   # alpha < beta, as ints too (below)
int_of_real[["neg"]] <- "negi"
rng_doms <- function(sig) {
  fam <- family_of(sig$name)
  if (!is.null(rng_special[[fam]])) return(rng_special[[fam]])
  sp <- S[[fam]]
  if (is.null(sp)) stop("no spec for ", sig_text(sig))
  pseudo <- list(name = paste0(fam, "_lpdf"), ret = "real", args = c(sig$ret, sig$args))
  if (is.function(sp)) sp <- sp(pseudo, lapply(pseudo$args, parse_type))
  if (is.list(sp) && !is.null(names(sp)) && "doms" %in% names(sp)) sp <- sp$doms
  doms <- as.list(sp)[-1]
  if (length(doms) != length(sig$args)) stop("spec of ", fam, " does not fit ", sig_text(sig))
  doms
}

build_rng_batch <- function(sg) {
  b <- new_builder()
  calls <- lapply(sg, function(s) make_call(b, s, rng_doms(s)))
  prog <- function(old) {
    codes <- red_closure(unique(vapply(calls, `[[`, "", "code")))
    fns <- c(helper_fns(old), vapply(codes, red_fn, "", old = old))
    K <- length(calls)
    body <- vapply(seq_len(K), function(k) sprintf("  d[%d] = %s;", k, calls[[k]][[if (old) "old" else "cur"]]), "")
    paste0("functions {\n", paste0("  ", fns, collapse = "\n"), "\n}\n",
           "data {\n  int NI;\n", if (old) "  int ii[NI];\n" else "  array[NI] int ii;\n",
           "  int NT;\n  vector[NT] th;\n}\n",
           "generated quantities {\n", if (old) sprintf("  real d[%d];\n", K) else sprintf("  array[%d] real d;\n", K),
           paste(body, collapse = "\n"), "\n}\n")
  }
  list(old = prog(TRUE), cur = prog(FALSE), th = b$th, ii = b$ii,
       sig = vapply(sg, sig_text, ""), fam = vapply(sg, function(s) family_of(s$name), ""))
}

stan_draws <- function(bt) stan_child(bt, cache_dir, prefix = "rng_", extra = list(n = n_draws), per_point = '
        d <- list(NI = length(bt$ii[[p]]), ii = array(bt$ii[[p]], dim = length(bt$ii[[p]])),
                  NT = length(bt$th[[p]]), th = array(bt$th[[p]], dim = length(bt$th[[p]])))
        fit <- suppressWarnings(suppressMessages(sampling(sm, data = d, algorithm = "Fixed_param", chains = 1,
                 iter = x$n, warmup = 0, seed = 20261127 + p, refresh = 0)))
        D <- as.matrix(fit, pars = "d")
        # a call that throws in generated quantities ends the run with no draws
        if (!is.matrix(D) || nrow(D) == 0 || anyNA(D)) stop("Stan made no draws (or NaN ones) at point ", p)
        D')

# batches by family, split on failure down to single signatures
refused <- list()
evaluate <- function(sg, name) {
  bt <- build_rng_batch(sg)
  res <- stan_draws(bt)
  if (!inherits(res, "stan_error")) {
    summ <- lapply(res, function(D) {
      q <- t(apply(D, 2, stats::quantile, probs = probs, type = 1, names = FALSE))
      F <- vapply(seq_len(ncol(D)), function(k) vapply(q[k, ], function(v) mean(D[, k] <= v), 0), numeric(length(probs)))
      list(q = q, F = t(F))
    })
    saveRDS(list(program = bt$cur, sig = bt$sig, fam = bt$fam, th = bt$th, ii = bt$ii, n = n_draws, probs = probs,
                 q = lapply(summ, `[[`, "q"), F = lapply(summ, `[[`, "F")),
            file.path(fixture_dir, paste0("rng_", name, ".rds")), compress = "xz")
    return(invisible())
  }
  if (length(sg) == 1) {
    refused[[length(refused) + 1L]] <<- c(sig = bt$sig, msg = gsub("\\s+", " ", substr(res, 1, 300)))
    return(invisible())
  }
  # the families the message names first (boost's hypergeometric_distribution
  # names hypergeometric_rng's): one compile instead of a bisection
  hit <- vapply(sg, function(x) grepl(family_of(x$name), res, fixed = TRUE), NA)
  if (any(hit) && !all(hit)) {
    evaluate(sg[!hit], paste0(name, "n")); evaluate(sg[hit], paste0(name, "f"))
    return(invisible())
  }
  h <- length(sg) %/% 2
  evaluate(sg[seq_len(h)], paste0(name, "a")); evaluate(sg[-seq_len(h)], paste0(name, "b"))
}

fams <- vapply(sigs, function(s) family_of(s$name), "")
groups <- list(); cur <- list()
for (f in unique(fams)) {
  e <- sigs[fams == f]
  if (length(cur) + length(e) > batch_size && length(cur)) { groups[[length(groups) + 1L]] <- cur; cur <- list() }
  cur <- c(cur, e)
}
if (length(cur)) groups[[length(groups) + 1L]] <- cur
names(groups) <- sprintf("r%02d_%s", seq_along(groups), vapply(groups, function(g) family_of(g[[1]]$name), ""))
cat(length(sigs), "_rng signatures in", length(groups), "batches\n")
todo <- names(groups)
if (is.null(only)) unlink(list.files(fixture_dir, "^rng_", full.names = TRUE)) else {
  todo <- grep(only, todo, value = TRUE)
  unlink(file.path(fixture_dir, paste0("rng_", todo, "*.rds")))
}
res <- parallel::mclapply(todo, function(nm) {
  t0 <- Sys.time(); evaluate(groups[[nm]], nm)
  cat(sprintf("%s: %d signatures, %.0f s\n", nm, length(groups[[nm]]), as.numeric(difftime(Sys.time(), t0, units = "secs"))))
  refused
}, mc.cores = jobs, mc.preschedule = FALSE)
ref <- unique(do.call(rbind, unlist(res, recursive = FALSE)))
if (!is.null(ref)) utils::write.table(as.data.frame(ref), file.path(here, "refused-rng.tsv"), sep = "\t", row.names = FALSE, quote = FALSE)
cat("done\n")
