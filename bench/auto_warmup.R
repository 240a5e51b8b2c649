# iter_warmup = "auto", target_ess = 400 against the default 1000 + 1000
# run, on every shared model (/work/shared/models or TAPESTRY_MODELS), run
# by hand:
#   R_LIBS=<lib with tapestry> Rscript bench/auto_warmup.R [out.csv] [model ...]
# Per model and run: gradients (n_leapfrog__ summed over warmup and
# sampling of all chains, save_warmup = TRUE so the warmup draws count),
# wall time, warmup and sampling iterations, the smallest bulk/tail ESS and
# largest R-hat of the parameters, and the posterior against Stan's
# reference: the largest |mean - reference| in combined Monte Carlo
# standard errors (sqrt(mcse^2 + se_ref^2)) and the largest relative
# difference of the sds.  Rows are appended to the CSV as they finish.

suppressPackageStartupMessages(library(tapestry))
args <- commandArgs(TRUE)
out <- if (length(args)) args[1] else "auto_warmup.csv"
dir <- Sys.getenv("TAPESTRY_MODELS", "/work/shared/models")
models <- if (length(args) > 1) args[-1] else
  sub("\\.stan$", "", list.files(dir, pattern = "\\.stan$"))
chains <- 4
parallel <- as.integer(Sys.getenv("BENCH_PARALLEL", "4"))
seed <- 20261201

ref_summary <- function(name) {
  r <- jsonlite::fromJSON(file.path(dir, paste0(name, ".reference.json")), simplifyVector = FALSE)
  s <- r$summary
  s <- s[vapply(s, is.list, TRUE)]
  data.frame(variable = names(s), mean = vapply(s, function(v) as.double(v$mean), 0),
             sd = vapply(s, function(v) as.double(v$sd), 0),
             se = vapply(s, function(v) as.double(v$se_mean %||% NA), 0))
}
`%||%` <- function(a, b) if (is.null(a)) b else a

one <- function(name, auto) {
  mod <- tapestry_model(file.path(dir, paste0(name, ".stan")))
  data <- file.path(dir, paste0(name, ".data.json"))
  t0 <- Sys.time()
  fit <- suppressWarnings(mod$sample(
    data = data, chains = chains, parallel_chains = parallel, seed = seed, refresh = 0,
    show_messages = FALSE, save_warmup = TRUE,
    iter_warmup = if (auto) "auto" else 1000, target_ess = if (auto) 400 else NULL))
  wall <- as.double(difftime(Sys.time(), t0, units = "secs"))
  sd <- posterior::as_draws_df(fit$sampler_diagnostics(inc_warmup = TRUE))
  meta <- fit$metadata()
  pars <- .Call(tapestry:::C_tp_output_names, tapestry:::context_ptr(fit$.__enclos_env__$private$context_),
                FALSE, FALSE)
  s <- fit$summary(variables = pars, "mean", "sd", "rhat", "ess_bulk", "ess_tail", "mcse_mean")
  ref <- ref_summary(name)
  k <- match(s$variable, ref$variable)
  ok <- !is.na(k)
  s <- as.data.frame(lapply(s, function(v) if (is.numeric(v)) as.double(v) else v))
  z <- abs(s$mean[ok] - ref$mean[k[ok]]) / sqrt(s$mcse_mean[ok]^2 + ref$se[k[ok]]^2)
  rel_sd <- abs(s$sd[ok] / ref$sd[k[ok]] - 1)
  data.frame(model = name, run = if (auto) "auto" else "default",
             gradients = sum(sd$n_leapfrog__), wall = wall,
             iter_warmup = meta$iter_warmup, iter_sampling = meta$iter_sampling,
             agreed = if (auto) isTRUE(meta$warmup_agreed) else NA,
             ess_bulk_min = as.double(min(s$ess_bulk)), ess_tail_min = as.double(min(s$ess_tail)),
             rhat_max = as.double(max(s$rhat)), max_z = as.double(max(z, na.rm = TRUE)),
             max_rel_sd = as.double(max(rel_sd[is.finite(rel_sd)], na.rm = TRUE)))
}

for (name in models) {
  for (auto in c(FALSE, TRUE)) {
    row <- tryCatch(one(name, auto), error = function(e) {
      message(name, ": ", conditionMessage(e)); NULL })
    if (is.null(row)) next
    print(row, row.names = FALSE)
    write.table(row, out, sep = ",", row.names = FALSE, append = file.exists(out),
                col.names = !file.exists(out))
  }
}
res <- read.csv(out)
if (all(c("default", "auto") %in% res$run)) {
  d <- res[res$run == "default", ]
  a <- res[res$run == "auto", ]
  m <- merge(d, a, by = "model", suffixes = c("_default", "_auto"))
  m$ratio <- m$gradients_auto / m$gradients_default
  print(m[, c("model", "gradients_default", "gradients_auto", "ratio", "iter_warmup_auto",
              "iter_sampling_auto", "agreed_auto", "max_z_auto", "max_rel_sd_auto")], row.names = FALSE)
  cat(sprintf("median ratio %.2f, largest %.2f (%s)\n", median(m$ratio), max(m$ratio),
              m$model[which.max(m$ratio)]))
}
