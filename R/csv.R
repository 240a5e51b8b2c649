# CmdStan CSV output: one file per chain, written from a fit's draws, in the
# layout CmdStan 2.33 writes, so that cmdstanr's read_cmdstan_csv(),
# rstan's read_stan_csv() and plain read.csv() read the files back.

# The version of the Stan language tapestry follows. The CSV header's
# stan_version lines state it: readers use them to tell which language (and
# output layout) produced a file, and no CmdStan binary is involved.
stan_language_version <- c(major = 2L, minor = 33L, patch = 0L)

# "theta[1]" -> "theta.1", "L[2,1]" -> "L.2.1": CmdStan's column names.
cmdstan_names <- function(x) {
  x <- gsub("[][,]", ".", x)
  sub("\\.$", "", x)
}

# Numbers as text that read back to the same double: the shortest of 15,
# 16 or 17 significant digits that does, so that a value such as 0.1 is
# written "0.1" and not "0.10000000000000001". Infinities and NaN as R
# writes them ("Inf", "-Inf", "NaN"), which read.csv() and data.table read.
csv_numbers <- function(x) {
  x <- as.double(x)
  out <- sprintf("%.15g", x)
  redo <- which(is.finite(x) & as.double(out) != x)
  if (length(redo)) {
    out[redo] <- sprintf("%.16g", x[redo])
    redo <- redo[as.double(out[redo]) != x[redo]]
    if (length(redo)) out[redo] <- sprintf("%.17g", x[redo])
  }
  out
}

# One setting line of the header: "#     thin = 1 (Default)". Settings are
# nested by two spaces per level, as CmdStan prints its argument tree.
csv_setting <- function(level, key, value = NULL, default = NULL) {
  indent <- strrep("  ", level)
  if (is.null(value)) return(paste0("# ", indent, key))
  text <- setting_text(value)
  is_default <- !is.null(default) && identical(text, setting_text(default))
  paste0("# ", indent, key, " = ", text, if (is_default) " (Default)" else "")
}

setting_text <- function(x) {
  if (is.logical(x)) x <- as.integer(x)
  if (is.numeric(x)) csv_numbers(x) else as.character(x)
}

# The configuration block of one chain's file. `meta` is the fit's
# metadata(); `chain` one element of the raw result's chains.
csv_header <- function(meta, chain, file) {
  arg <- function(name, default) if (is.null(meta[[name]])) default else meta[[name]]
  per_chain <- function(x, i) if (length(x) > 1L) x[[i]] else x
  k <- match(chain$chain_id, meta$chain_ids)
  step_size <- per_chain(arg("step_size", 1), k)
  # CmdStan writes the radius or the path of the chain's init file; inits
  # given as R values have no file, and are described as "user".
  init <- meta$init
  init <- if (is.null(init)) {
    2
  } else if (is.numeric(init) && length(init) == 1L) {
    init
  } else if (is.character(init) && length(init) %in% c(1L, length(meta$chain_ids))) {
    per_chain(init, k)
  } else {
    "user"
  }
  data_file <- if (is.character(meta$data_file)) meta$data_file else ""
  c(
    csv_setting(0, "stan_version_major", stan_language_version[["major"]]),
    csv_setting(0, "stan_version_minor", stan_language_version[["minor"]]),
    csv_setting(0, "stan_version_patch", stan_language_version[["patch"]]),
    csv_setting(0, "model", paste0(meta$model_name, "_model")),
    csv_setting(0, "start_datetime", format(meta$start_datetime %||% Sys.time(),
                                             "%Y-%m-%d %H:%M:%S UTC", tz = "UTC")),
    csv_setting(0, "method", "sample", "sample"),
    csv_setting(1, "sample"),
    csv_setting(2, "num_samples", arg("iter_sampling", 1000), 1000),
    csv_setting(2, "num_warmup", arg("iter_warmup", 1000), 1000),
    csv_setting(2, "save_warmup", isTRUE(meta$save_warmup), 0),
    csv_setting(2, "thin", arg("thin", 1), 1),
    csv_setting(2, "adapt"),
    csv_setting(3, "engaged", !isFALSE(meta$adapt_engaged), 1),
    csv_setting(3, "gamma", arg("gamma", 0.05), 0.05),
    csv_setting(3, "delta", arg("adapt_delta", 0.8), 0.8),
    csv_setting(3, "kappa", arg("kappa", 0.75), 0.75),
    csv_setting(3, "t0", arg("t0", 10), 10),
    csv_setting(3, "init_buffer", arg("init_buffer", 75), 75),
    csv_setting(3, "term_buffer", arg("term_buffer", 50), 50),
    csv_setting(3, "window", arg("window", 25), 25),
    if (isTRUE(meta$fixed_param)) c(
      csv_setting(2, "algorithm", "fixed_param", "hmc"),
      csv_setting(3, "fixed_param")
    ) else c(
      csv_setting(2, "algorithm", "hmc", "hmc"),
      csv_setting(3, "hmc"),
      csv_setting(4, "engine", "nuts", "nuts"),
      csv_setting(5, "nuts"),
      csv_setting(6, "max_depth", arg("max_treedepth", 10), 10),
      csv_setting(4, "metric", arg("metric", "diag_e"), "diag_e"),
      csv_setting(4, "metric_file", "", ""),
      csv_setting(4, "stepsize", step_size, 1),
      csv_setting(4, "stepsize_jitter", arg("stepsize_jitter", 0), 0)
    ),
    csv_setting(2, "num_chains", 1, 1),
    csv_setting(0, "id", chain$chain_id, 1),
    csv_setting(0, "data"),
    csv_setting(1, "file", data_file, ""),
    csv_setting(0, "init", init, 2),
    csv_setting(0, "random"),
    csv_setting(1, "seed", meta$seed),
    csv_setting(0, "output"),
    csv_setting(1, "file", basename(file)),
    csv_setting(1, "diagnostic_file", "", ""),
    csv_setting(1, "refresh", arg("refresh", 100), 100),
    csv_setting(1, "sig_figs", meta$sig_figs %||% 17),
    csv_setting(1, "profile_file", "profile.csv", "profile.csv"),
    csv_setting(0, "num_threads", arg("threads_per_chain", 1), 1),
    csv_setting(0, "stanc_version", paste0("tapestry ", meta$tapestry_version)),
    "# stancflags = "
  )
}

# Rows of a draws matrix as CSV lines.
csv_rows <- function(m) {
  if (nrow(m) == 0L) return(character())
  cols <- lapply(seq_len(ncol(m)), function(j) csv_numbers(m[, j]))
  do.call(paste, c(cols, sep = ","))
}

# The adaptation block CmdStan writes between the warmup and the sampling
# draws: the adapted step size and inverse metric (none for unit_e).
csv_adaptation <- function(chain, metric) {
  out <- c("# Adaptation terminated",
           paste0("# Step size = ", csv_numbers(chain$step_size)))
  m <- chain$inv_metric
  if (metric == "unit_e" || is.null(m)) {
    return(c(out, "# No free parameters for unit metric"))
  }
  if (is.matrix(m)) {
    rows <- vapply(seq_len(nrow(m)), function(i) paste(csv_numbers(m[i, ]), collapse = ", "), "")
    c(out, "# Elements of inverse mass matrix:", paste0("# ", rows))
  } else {
    c(out, "# Diagonal elements of inverse mass matrix:",
      paste0("# ", paste(csv_numbers(m), collapse = ", ")))
  }
}

# The elapsed time block that ends a CmdStan file.
csv_timing <- function(time) {
  num <- function(x) if (is.na(x)) "0" else format(signif(x, 6), scientific = FALSE)
  pad <- strrep(" ", nchar(" Elapsed Time: "))
  c("# ",
    paste0("#  Elapsed Time: ", num(time[["warmup"]]), " seconds (Warm-up)"),
    paste0("# ", pad, num(time[["sampling"]]), " seconds (Sampling)"),
    paste0("# ", pad, num(time[["total"]]), " seconds (Total)"),
    "# ")
}

# Writes one chain's CSV file. The draws are written as the chain made them
# (not cut to a common length); the adaptation block appears when warmup
# adapted the sampler and ran to its end, as in CmdStan.
write_cmdstan_csv <- function(file, meta, chain) {
  d <- chain$draws
  nw <- chain$num_warmup_draws
  adapted <- !isFALSE(meta$adapt_engaged) && (meta$iter_warmup %||% 1000) > 0 &&
    length(chain$step_size) == 1L && !is.na(chain$step_size)
  warm <- seq_len(nw)
  lines <- c(
    csv_header(meta, chain, file),
    paste(cmdstan_names(colnames(d)), collapse = ","),
    csv_rows(d[warm, , drop = FALSE]),
    if (adapted) csv_adaptation(chain, meta$metric %||% "diag_e"),
    csv_rows(d[setdiff(seq_len(nrow(d)), warm), , drop = FALSE]),
    csv_timing(chain$time)
  )
  con <- file(file, open = "w")
  on.exit(close(con))
  writeLines(lines, con)
  invisible(file)
}

# File names as cmdstanr makes them: model-202401311230-1-a3f9c2.csv. The
# random part comes from tempfile(), so that writing files leaves the
# user's random number stream alone.
csv_file_names <- function(dir, basename, ids, timestamp, random) {
  name <- basename
  if (timestamp) name <- paste0(name, "-", format(Sys.time(), "%Y%m%d%H%M"))
  name <- paste0(name, "-", ids)
  if (random) {
    tag <- substr(gsub("[^0-9a-f]", "", basename(tempfile(""))), 1L, 6L)
    name <- paste0(name, "-", tag)
  }
  file.path(dir, paste0(name, ".csv"))
}

`%||%` <- function(x, y) if (is.null(x)) y else x
