# tools/stan221/run.R -- the differential test against Stan itself: every
# signature of rstan 2.21's Stan evaluated by Stan at three points, Stan's
# values and gradients recorded as fixtures for tests/testthat/test-stan221.R.
#
# Usage, from the package root (rstan 2.21, StanHeaders and RcppEigen
# installed; hours of compiling, run by hand):
#   Rscript tools/stan221/run.R [jobs] [only]
# jobs: batches compiled at once (default 2); only: a regular expression on
# family names, to redo some (the others' fixtures are kept), or
# "batch:REGEX" on batch names (b068_cov_exp_quad).
#
# Steps: signatures.tsv.gz (Stan 2.21's own table, see signatures.sh) ->
# calls (spec.R: the domain of every argument) -> batch programs of about
# `batch_size` calls, grouped by family (gen.R) -> rstan compiles each batch
# (cached by the program's text in tools/stan221/cache) and evaluates it at
# the three points -> tests/testthat/fixtures/stan221/<batch>.rds.
# A batch Stan cannot compile or evaluate is split in halves until the calls
# at fault stand alone; those are recorded in tools/stan221/refused.tsv with
# Stan's message (a signature Stan 2.21 itself cannot run with these
# arguments, e.g. one its C++ does not instantiate for autodiff).
# The _rng functions are in rng.R: their draws are compared by distribution.

args <- commandArgs(TRUE)
jobs <- if (length(args) >= 1) as.integer(args[1]) else 2L
only <- if (length(args) >= 2) args[2] else NULL
here <- "tools/stan221"
source(file.path(here, "gen.R")); source(file.path(here, "spec.R"))
fixture_dir <- "tests/testthat/fixtures/stan221"
cache_dir <- file.path(here, "cache")
dir.create(fixture_dir, recursive = TRUE, showWarnings = FALSE)
dir.create(cache_dir, showWarnings = FALSE)
batch_size <- 400L

sigs <- load_signatures(file.path(here, "signatures.tsv.gz"))
sigs <- Filter(function(s) !grepl("_rng$", s$name), sigs)

# ---- calls, grouped by family ----
entries <- list()
for (s in sigs) {
  vs <- variants_for(s)
  if (is.null(vs)) stop("no spec for ", sig_text(s))
  for (v in vs) entries[[length(entries) + 1L]] <- list(sig = s, v = v, fam = family_of(s$name))
}
# ---- one batch: programs and points ----
build_batch <- function(ents) {
  b <- new_builder()
  calls <- vector("list", length(ents))
  slices <- matrix(0L, length(ents), 2)
  for (k in seq_along(ents)) {
    a <- b$nth
    calls[[k]] <- make_call(b, ents[[k]]$sig, ents[[k]]$v$doms, ents[[k]]$v$wrap)
    slices[k, ] <- c(a + 1L, b$nth)
  }
  list(old = batch_program(b, calls, TRUE), cur = batch_program(b, calls, FALSE),
       th = b$th, ii = b$ii, slices = slices, args = lapply(calls, `[[`, "desc"),
       sig = vapply(ents, function(e) sig_text(e$sig), ""),
       tag = vapply(ents, function(e) e$v$tag, ""),
       fam = vapply(ents, `[[`, "", "fam"))
}

# ---- tapestry first: every call alone, to set apart those it refuses ----
# (Stan refusing a call fails its whole batch; tapestry finds such calls in
# seconds where bisecting Stan's batches takes a compile per step.)
suppressMessages(library(tapestry))
tap_alone <- function(e) {
  bt <- build_batch(list(e))
  tryCatch({
    m <- tapestry_model(code = bt$cur)
    for (p in 1:3) {
      ctx <- m$bind(list(NI = length(bt$ii[[p]]), ii = bt$ii[[p]]))
      th <- bt$th[[p]]; if (!length(th)) th <- 0
      g <- ctx$grad_log_prob(th, jacobian = FALSE)
      if (!is.finite(attr(g, "log_prob"))) stop("log density ", attr(g, "log_prob"), " at point ", p)
    }
    ""
  }, error = function(err) conditionMessage(err))
}

work <- file.path(here, "work")
dir.create(work, showWarnings = FALSE)
screen_file <- file.path(work, "screen.rds")
# keyed by the single call's program: a change of its values screens it again
keys <- vapply(entries, function(e) build_batch(list(e))$cur, "")
screen <- if (file.exists(screen_file)) readRDS(screen_file) else character()
new <- setdiff(unique(keys), names(screen))
if (length(new)) {
  cat("tapestry alone on", length(new), "calls\n")
  msg <- vapply(entries[match(new, keys)], tap_alone, "")
  screen <- c(screen, stats::setNames(msg, new))
  saveRDS(screen, screen_file)
}
# a stanc check of single calls, for calls in batches stanc refuses
stanc_ok <- function(code) {
  r <- tryCatch({ utils::capture.output(x <- suppressMessages(rstan::stanc(model_code = code, verbose = FALSE))); x },
                error = function(e) e)
  if (inherits(r, "error")) gsub("\\s+", " ", substr(conditionMessage(r), 1, 300)) else ""
}
suppressMessages(library(rstan))

# ---- batches: whole families packed up to batch_size calls; the calls
#      tapestry refuses alone in batches of 8 ----
pack <- function(ents, size) {
  fams <- unique(vapply(ents, `[[`, "", "fam"))
  by_fam <- split(ents, factor(vapply(ents, `[[`, "", "fam"), levels = fams))
  out <- list(); cur <- list()
  for (f in fams) {
    e <- by_fam[[f]]
    if (length(cur) + length(e) > size && length(cur)) { out[[length(out) + 1L]] <- cur; cur <- list() }
    while (length(e) > size) { out[[length(out) + 1L]] <- e[seq_len(size)]; e <- e[-seq_len(size)] }
    cur <- c(cur, e)
  }
  if (length(cur)) out[[length(out) + 1L]] <- cur
  out
}
ok <- screen[keys] == ""
# The calls tapestry refused at their first screening are screened again
# (tapestry may have learnt them since): those it still refuses cannot be
# checked and are listed in unsupported.tsv; the others are checked in
# batches of 8 after the rest (the first screening fixes the packing, so
# that a fix in tapestry does not change every family's batches).
again <- vapply(entries[!ok], tap_alone, "")
still <- rep(FALSE, length(entries)); still[!ok] <- nzchar(again)
utils::write.table(data.frame(sig = vapply(entries[still], function(e) sig_text(e$sig), ""),
                              tag = vapply(entries[still], function(e) e$v$tag, ""),
                              msg = gsub("\\s+", " ", substr(again[nzchar(again)], 1, 200))),
                   file.path(here, "unsupported.tsv"), sep = "\t", row.names = FALSE, quote = FALSE)
batches <- c(pack(entries[ok], batch_size), pack(entries[!ok & !still], 8L))
names(batches) <- sprintf("b%03d_%s", seq_along(batches), vapply(batches, function(b) b[[1]]$fam, ""))
cat(length(entries), "calls of", length(sigs), "signatures in", length(batches), "batches;",
    sum(!ok), "calls tapestry refused alone at first,", sum(still), "still (unsupported.tsv)\n")

# ---- Stan's side: gen.R's stan_child ----
stan_eval <- function(bt) stan_child(bt, cache_dir, '
        fit <- suppressWarnings(suppressMessages(sampling(sm, data = list(NI = length(bt$ii[[p]]), ii = array(bt$ii[[p]], dim = length(bt$ii[[p]]))),
                        chains = 0, refresh = 0)))
        th <- bt$th[[p]]; if (!length(th)) th <- 0
        g <- grad_log_prob(fit, th, adjust_transform = FALSE)
        r <- constrain_pars(fit, th)$r
        list(lp = attr(g, "log_prob"), grad = as.numeric(g), r = as.numeric(r))')

# Evaluate entries; split on failure down to single calls.
refused <- list()
evaluate <- function(ents, name) {
  bt <- build_batch(ents)
  sc <- stanc_ok(bt$old)
  if (nzchar(sc) && length(ents) > 1) {   # drop the calls stanc refuses alone
    single <- vapply(ents, function(e) stanc_ok(build_batch(list(e))$old), "")
    for (k in which(nzchar(single)))
      refused[[length(refused) + 1L]] <<- c(sig = sig_text(ents[[k]]$sig), tag = ents[[k]]$v$tag, msg = paste("stanc:", single[k]))
    ents <- ents[!nzchar(single)]
    if (!length(ents)) return(list())
    bt <- build_batch(ents)
  }
  res <- stan_eval(bt)
  if (!inherits(res, "stan_error")) return(list(list(bt = bt, res = res, name = name)))
  if (length(ents) == 1) {
    refused[[length(refused) + 1L]] <<- c(sig = bt$sig, tag = bt$tag, msg = gsub("\\s+", " ", substr(res, 1, 300)))
    return(list())
  }
  h <- length(ents) %/% 2
  c(evaluate(ents[seq_len(h)], paste0(name, "a")), evaluate(ents[-seq_len(h)], paste0(name, "b")))
}

todo <- names(batches)
if (!is.null(only)) todo <- if (startsWith(only, "batch:")) grep(sub("^batch:", "", only), todo, value = TRUE) else
  todo[vapply(batches[todo], function(b) any(grepl(only, vapply(b, `[[`, "", "fam"))), NA)]
run_one <- function(nm) {
  t0 <- Sys.time()
  parts <- evaluate(batches[[nm]], nm)
  for (pt in parts) {
    saveRDS(list(program = pt$bt$cur, sig = pt$bt$sig, tag = pt$bt$tag, fam = pt$bt$fam,
                 slices = pt$bt$slices, th = pt$bt$th, ii = pt$bt$ii, args = pt$bt$args,
                 lp = vapply(pt$res, `[[`, 0, "lp"),
                 grad = lapply(pt$res, `[[`, "grad"), r = lapply(pt$res, `[[`, "r")),
            file.path(fixture_dir, paste0(pt$name, ".rds")), compress = "xz")
  }
  cat(sprintf("%s: %d calls, %d parts, %.0f s\n", nm, length(batches[[nm]]), length(parts),
              as.numeric(difftime(Sys.time(), t0, units = "secs"))))
  refused
}
if (is.null(only)) unlink(list.files(fixture_dir, full.names = TRUE)) else
  unlink(file.path(fixture_dir, paste0(todo, "*.rds")))
res <- parallel::mclapply(todo, run_one, mc.cores = jobs, mc.preschedule = FALSE)
ref <- do.call(rbind, unlist(res, recursive = FALSE))
if (!is.null(ref)) {
  ref <- unique(as.data.frame(ref))
  old <- file.path(here, "refused.tsv")
  if (!is.null(only) && file.exists(old)) {
    prev <- utils::read.delim(old, colClasses = "character")
    ref <- rbind(prev[!vapply(prev$sig, function(s) any(grepl(only, family_of(sub("\\(.*", "", s)))), NA), ], ref)
    ref <- unique(ref)
  }
  utils::write.table(ref, old, sep = "\t", row.names = FALSE, quote = FALSE)
}
cat("done\n")
