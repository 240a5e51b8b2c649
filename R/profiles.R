# Profiles: what the program's profile("name") blocks recorded (src/prof),
# as data frames with cmdstanr's columns, a nested summary, CmdStan's
# profile CSV files and Chrome trace event JSON. The C side hands over plain
# columns (one row per name, thread and phase) and trace events; everything
# here is R.

# cmdstanr's columns in cmdstanr's order, then what Stan lacks.
profile_columns <- c("name", "thread_id", "total_time", "forward_time", "reverse_time",
                     "chain_stack", "no_chain_stack", "autodiff_calls", "no_autodiff_calls",
                     "phase", "parent")
profile_counts <- c("chain_stack", "no_chain_stack", "autodiff_calls", "no_autodiff_calls")
profile_phases <- c("warmup", "sampling")

# The data frame of one registry from the columns the C side returns (a
# chain's `profiles`, or profile_log_prob's); NULL (a fit made before
# profiling existed) is a frame of no rows. Rows are sorted by name, thread
# and phase, as CmdStan's map of profiles is by name and thread.
profile_frame <- function(p) {
  if (is.null(p) || length(p$name) == 0L) {
    return(data.frame(name = character(), thread_id = integer(), total_time = double(),
                      forward_time = double(), reverse_time = double(),
                      chain_stack = double(), no_chain_stack = double(),
                      autodiff_calls = double(), no_autodiff_calls = double(),
                      phase = character(), parent = character(), stringsAsFactors = FALSE))
  }
  fwd <- as.double(p$forward_time)
  rev <- as.double(p$reverse_time)
  df <- data.frame(name = as.character(p$name), thread_id = as.integer(p$thread_id),
                   total_time = fwd + rev, forward_time = fwd, reverse_time = rev,
                   chain_stack = as.double(p$chain_stack),
                   no_chain_stack = as.double(p$no_chain_stack),
                   autodiff_calls = as.double(p$autodiff_calls),
                   no_autodiff_calls = as.double(p$no_autodiff_calls),
                   phase = as.character(p$phase), parent = as.character(p$parent),
                   stringsAsFactors = FALSE)
  df <- df[order(df$name, df$thread_id, match(df$phase, profile_phases)), , drop = FALSE]
  row.names(df) <- NULL
  df
}

# The trace events of one registry as a data frame (name, ts, dur in
# microseconds, tid) with attribute "dropped", or NULL when none was kept.
trace_frame <- function(t) {
  if (is.null(t)) return(NULL)
  df <- data.frame(name = as.character(t$name), ts = as.double(t$ts),
                   dur = as.double(t$dur), tid = as.integer(t$tid),
                   stringsAsFactors = FALSE)
  attr(df, "dropped") <- as.double(attr(t, "dropped") %||% 0)
  df
}

# The result of $profile_log_prob(): n gradient evaluations at one point.
new_profile_run <- function(raw, n, trace_every) {
  structure(list(profiles = profile_frame(raw$profiles),
                 seconds = as.double(raw$seconds),
                 trace = trace_frame(raw$trace),
                 n = as.integer(n),
                 trace_every = as.integer(trace_every)),
            class = "tapestry_profile_run")
}

# The C entry, behind a function of its own so that the tests can stand in
# for it.
profile_log_prob_call <- function(ptr, upars, n, trace_every) {
  .Call(C_tp_profile_log_prob, ptr, upars, n, trace_every)
}

#' @export
print.tapestry_profile_run <- function(x, ...) {
  cat(sprintf("%d gradient evaluation%s in %s s (%s ms each); profiles in seconds, %s\n",
              x$n, if (x$n == 1L) "" else "s", format(signif(x$seconds, 3)),
              format(signif(1e3 * x$seconds / max(x$n, 1L), 3)),
              "summed over threads"))
  print(profiles_summary(x), header = FALSE)
  invisible(x)
}

# The profile data frames of x: a fit's chains, a profile run's one frame,
# or frames given directly.
profile_frames <- function(x) {
  if (inherits(x, "TapestryFit")) return(x$profiles())
  if (inherits(x, "tapestry_profile_run")) return(list(x$profiles))
  if (is.data.frame(x)) x <- list(x)
  frames <- is.list(x) && length(x) > 0L && all(vapply(x, is.data.frame, TRUE))
  lacking <- if (frames) setdiff(profile_columns, Reduce(intersect, lapply(x, names)))
  if (length(lacking)) {
    abort_arg(sprintf("`x` lacks the column%s %s of the data frames of `$profiles()`.",
                      if (length(lacking) > 1L) "s" else "",
                      paste0("'", lacking, "'", collapse = ", ")))
  }
  if (!frames) {
    abort_arg(sprintf(paste0("`x` must be a fit, the result of `$profile_log_prob()`, or ",
                             "profile data frames as `$profiles()` returns them, not %s."),
                      show_value(x)))
  }
  x
}

check_phase <- function(phase) {
  if (is.null(phase)) return(NULL)
  if (!is.character(phase) || length(phase) != 1L || is.na(phase) ||
      !phase %in% profile_phases) {
    abort_arg(sprintf("`phase` must be NULL (both), \"warmup\" or \"sampling\", not %s.",
                      show_value(phase)))
  }
  phase
}

#' Summarise the profiles of a run
#'
#' Adds up what the program's `profile("name") { ... }` blocks recorded over
#' the chains, the threads and (unless `phase` says otherwise) the warmup and
#' sampling phases, one row per profile name, and orders the rows as the
#' profiles nest: each profile is followed by those entered inside it, and
#' profiles at the same level are sorted by decreasing total time.
#'
#' A profile's parent is the profile that was active on the same thread when
#' it was first entered (the `parent` column of `$profiles()`). A name
#' entered under different parents on different threads (a profile inside a
#' `reduce_sum()` partial sum, entered at the top level of a helper thread)
#' takes the first parent recorded.
#'
#' @param x A fit ([TapestryFit]), the result of a model's or a data
#'   context's `$profile_log_prob()`, or one or a list of data frames as
#'   `$profiles()` returns them.
#' @param phase `NULL` for the whole run, `"warmup"` or `"sampling"` for one
#'   phase. Evaluations outside sampling (`$profile_log_prob()`) count as
#'   `"sampling"`.
#' @return A data frame of class `tapestry_profiles_summary`, one row per
#'   profile, with columns `name`, `parent` (`NA` at the top level),
#'   `depth` (0 at the top level), `total_time`, `forward_time`,
#'   `reverse_time` (seconds, summed), `share` (the total time as a
#'   fraction of that of all top-level profiles), `threads` (the most
#'   threads that recorded it in one chain), `chain_stack`, `no_chain_stack`,
#'   `autodiff_calls` and `no_autodiff_calls` (summed). Its `print()` method
#'   shows the nesting by indentation, the times, the shares as percentages
#'   and the calls with and without autodiff (and the threads, when a
#'   profile ran on more than one); its `plot()` method draws the forward and reverse time of each profile as
#'   a bar chart.
#' @seealso [TapestryFit] (`$profiles()`, `$save_profile_files()`,
#'   `$save_trace()`), [save_trace()].
#' @examples
#' file <- system.file("extdata", "gp_profile.stan", package = "tapestry")
#' data <- system.file("extdata", "gp_profile.data.json", package = "tapestry")
#' mod <- tapestry_model(file)
#' run <- mod$profile_log_prob(data, upars = c(0, 0, -1), n = 20)
#' s <- profiles_summary(run)
#' s
#' plot(s)
#' @md
#' @export
profiles_summary <- function(x, phase = NULL) {
  frames <- profile_frames(x)
  phase <- check_phase(phase)
  all <- do.call(rbind, lapply(seq_along(frames), function(i) {
    cbind(frames[[i]][profile_columns], frame_ = rep(i, nrow(frames[[i]])))
  }))
  if (!is.null(phase)) all <- all[all$phase == phase, , drop = FALSE]
  all <- all[order(all$thread_id), , drop = FALSE]
  if (nrow(all) == 0L) {
    out <- data.frame(name = character(), parent = character(), depth = integer(),
                      total_time = double(), forward_time = double(),
                      reverse_time = double(), share = double(), threads = integer(),
                      chain_stack = double(), no_chain_stack = double(),
                      autodiff_calls = double(), no_autodiff_calls = double(),
                      stringsAsFactors = FALSE)
    return(structure(out, class = c("tapestry_profiles_summary", "data.frame"),
                     phase = phase, chains = length(frames)))
  }
  names <- unique(all$name)
  cols <- c("total_time", "forward_time", "reverse_time", profile_counts)
  sums <- rowsum(as.matrix(all[cols]), factor(all$name, levels = names), reorder = TRUE)
  parent <- vapply(names, function(nm) {
    p <- all$parent[all$name == nm & !is.na(all$parent)]
    if (length(p)) p[1L] else NA_character_
  }, "", USE.NAMES = FALSE)
  # the chains ran on different threads: count the threads of one chain
  threads <- vapply(names, function(nm) {
    i <- all$name == nm
    max(tapply(all$thread_id[i], all$frame_[i], function(t) length(unique(t))))
  }, 0L, USE.NAMES = FALSE)
  out <- data.frame(name = names, parent = parent, depth = 0L,
                    total_time = sums[, "total_time"], forward_time = sums[, "forward_time"],
                    reverse_time = sums[, "reverse_time"], share = NA_real_,
                    threads = threads, stringsAsFactors = FALSE)
  for (k in profile_counts) out[[k]] <- unname(sums[, k])
  out <- nest_profiles(out)
  top <- sum(out$total_time[out$depth == 0L])
  if (top > 0) out$share <- out$total_time / top
  row.names(out) <- NULL
  structure(out, class = c("tapestry_profiles_summary", "data.frame"),
            phase = phase, chains = length(frames))
}

# Depth-first order: each profile followed by its children, siblings by
# decreasing total time (then name). A parent that is not a profile of the
# table, or that would close a cycle (names nested differently on
# different threads), makes a profile a top-level one for the ordering.
nest_profiles <- function(d) {
  n <- nrow(d)
  if (n == 0L) return(d)
  up <- match(d$parent, d$name)
  for (i in seq_len(n)) {
    seen <- i
    j <- up[i]
    while (!is.na(j)) {
      if (j %in% seen) {
        up[i] <- NA_integer_
        break
      }
      seen <- c(seen, j)
      j <- up[j]
    }
  }
  ord <- integer()
  depth <- integer(n)
  visit <- function(p, level) {
    kids <- which(if (is.na(p)) is.na(up) else (!is.na(up) & up == p))
    kids <- kids[order(-d$total_time[kids], d$name[kids])]
    for (k in kids) {
      ord <<- c(ord, k)
      depth[k] <<- level
      visit(k, level + 1L)
    }
  }
  visit(NA_integer_, 0L)
  d$depth <- depth
  d[ord, , drop = FALSE]
}

#' @rdname profiles_summary
#' @param digits Significant digits of the times.
#' @param header Print the line that says what was added up.
#' @param ... Ignored by `print()`; passed to [graphics::barplot()] by
#'   `plot()`.
#' @export
print.tapestry_profiles_summary <- function(x, digits = 3, header = TRUE, ...) {
  phase <- attr(x, "phase")
  chains <- attr(x, "chains") %||% 1L
  if (nrow(x) == 0L) {
    if (is.null(phase)) {
      cat("No profiles were recorded: the program has no profile(\"name\") { ... } blocks.\n")
    } else {
      cat(sprintf("No profiles were recorded during %s.\n", phase))
    }
    return(invisible(x))
  }
  if (header) {
    cat(sprintf("Profiles (%s%s): seconds summed over %s\n",
                if (is.null(phase)) "warmup and sampling" else phase,
                if (chains > 1L) sprintf(", %d chains", chains) else "",
                if (chains > 1L) "chains and threads" else "threads"))
  }
  num <- function(v) seconds_text(v, digits)
  share <- ifelse(is.na(x$share), "-", sprintf("%.1f%%", 100 * x$share))
  tab <- data.frame(
    profile = format(paste0(strrep("  ", x$depth), x$name), justify = "left"),
    total = num(x$total_time), forward = num(x$forward_time),
    reverse = num(x$reverse_time), share = share,
    autodiff = format(x$autodiff_calls, scientific = FALSE),
    no_autodiff = format(x$no_autodiff_calls, scientific = FALSE),
    stringsAsFactors = FALSE)
  if (any(x$threads > 1L)) tab$threads <- x$threads
  names(tab)[1L] <- format("profile", width = nchar(tab$profile[1L]))
  base::print(tab, row.names = FALSE, right = TRUE)
  invisible(x)
}

# Seconds with `digits` significant digits each, in fixed notation down to
# the microsecond: 6.00, 0.928, 0.00653.
seconds_text <- function(v, digits) {
  mag <- ifelse(is.finite(v) & v != 0, floor(log10(abs(v))), 0)
  dec <- pmin(pmax(digits - 1 - mag, 0), 6)
  sprintf("%.*f", as.integer(dec), v)
}

#' @rdname profiles_summary
#' @param y Ignored.
#' @export
plot.tapestry_profiles_summary <- function(x, y, ...) {
  if (nrow(x) == 0L) {
    tapestry_raise("There is nothing to plot: no profiles were recorded.",
                   "tapestry_argument_error")
  }
  # nested profiles are labelled with their path ("gp > cholesky"):
  # indentation does not survive right-aligned axis labels
  path <- x$name
  for (i in seq_len(nrow(x))) {
    p <- match(x$parent[i], x$name)
    if (x$depth[i] > 0L && !is.na(p)) path[i] <- paste(path[p], ">", x$name[i])
  }
  m <- rbind(forward = x$forward_time, reverse = x$reverse_time)
  colnames(m) <- path
  m <- m[, rev(seq_len(ncol(m))), drop = FALSE]        # the first row at the top
  width <- max(strwidth_guess(path), 4)
  op <- graphics::par(mar = c(4.5, width + 1, 2.5, 1))
  on.exit(graphics::par(op), add = TRUE)
  # the legend above the bars, in the margin, where no bar can hide it
  graphics::barplot(m, horiz = TRUE, las = 1, col = c("#4477AA", "#EE7733"),
                    border = NA, xlab = "seconds",
                    legend.text = c("forward pass", "reverse pass"),
                    args.legend = list(x = "top", horiz = TRUE, bty = "n", xpd = TRUE,
                                       inset = c(0, -0.12)), ...)
  invisible(x)
}

# Margin lines a label takes, roughly (0.6 line per character at cex 1).
strwidth_guess <- function(s) 0.6 * max(nchar(s))

#' Write a trace of profiled intervals
#'
#' Writes the trace a run recorded (`profile_trace_every` of a model's
#' `$sample()`, `trace_every` of `$profile_log_prob()`) as a file in the
#' Chrome trace event format, which the Perfetto UI
#' (<https://ui.perfetto.dev>) and `chrome://tracing` open: one complete
#' event (`"ph": "X"`) per profiled interval of every recorded evaluation,
#' with its start `ts` and duration `dur` in microseconds, the chain as the
#' process (`pid`, the chain id, named "chain k") and the thread as `tid`.
#' Time starts at 0 when each chain (or the `$profile_log_prob()` call)
#' starts.
#'
#' At most 100000 events are kept per thread; if more were recorded, a
#' warning says how many were dropped (the file's `otherData` holds the
#' count): record every k-th evaluation with a larger k.
#'
#' @param x A fit ([TapestryFit]) or the result of `$profile_log_prob()`.
#' @param file Path of the file to write (by convention ending in `.json`).
#' @return The normalized path of the file, invisibly.
#' @seealso [profiles_summary()]
#' @examples
#' file <- system.file("extdata", "gp_profile.stan", package = "tapestry")
#' data <- system.file("extdata", "gp_profile.data.json", package = "tapestry")
#' run <- tapestry_model(file)$profile_log_prob(data, upars = c(0, 0, -1), n = 10,
#'                                              trace_every = 1)
#' path <- save_trace(run, tempfile(fileext = ".json"))
#' if (requireNamespace("jsonlite", quietly = TRUE)) {
#'   str(jsonlite::read_json(path)$traceEvents[[3]])
#' }
#' @md
#' @export
save_trace <- function(x, file) {
  if (inherits(x, "TapestryFit")) return(x$save_trace(file))
  if (!inherits(x, "tapestry_profile_run")) {
    abort_arg(sprintf(paste0("`x` must be a fit or the result of `$profile_log_prob()`, ",
                             "not %s."), show_value(x)))
  }
  check_string(file, "file")
  if (is.null(x$trace)) {
    tapestry_raise(paste0("The run recorded no trace: call `$profile_log_prob()` with ",
                          "`trace_every` = k to record every k-th evaluation."),
                   "tapestry_argument_error")
  }
  write_trace(list(list(pid = 1L, label = "profile_log_prob", trace = x$trace)), file)
}

# Microseconds with nanosecond resolution; JSON has no infinities.
json_micros <- function(x) {
  out <- sprintf("%.3f", x)
  out[!is.finite(x)] <- "0"
  out
}

# Writes parts (lists of pid, label and a trace frame) as one Chrome trace:
# process and thread names as metadata events ("ph": "M", which carry ts
# and dur 0 so that every event has the same fields), then the complete
# events.
write_trace <- function(parts, file) {
  events <- character()
  dropped <- 0
  for (p in parts) {
    t <- p$trace
    dropped <- dropped + (attr(t, "dropped") %||% 0)
    events <- c(events, sprintf(
      "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"dur\":0,\"pid\":%d,\"tid\":0,\"args\":{\"name\":%s}}",
      p$pid, json_string(p$label)))
    for (tid in sort(unique(t$tid))) {
      events <- c(events, sprintf(
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"dur\":0,\"pid\":%d,\"tid\":%d,\"args\":{\"name\":%s}}",
        p$pid, tid, json_string(sprintf("thread %d", tid))))
    }
    if (nrow(t)) {
      # a trace repeats a few names many times: escape each once
      u <- unique(t$name)
      names_json <- json_string(u)[match(t$name, u)]
      events <- c(events, sprintf(
        "{\"name\":%s,\"ph\":\"X\",\"ts\":%s,\"dur\":%s,\"pid\":%d,\"tid\":%d}",
        names_json, json_micros(t$ts), json_micros(t$dur), p$pid, t$tid))
    }
  }
  if (dropped > 0) {
    warning(warningCondition(sprintf(paste0(
      "%s trace events were dropped (at most 100000 are kept per thread): record every ",
      "k-th evaluation with a larger k."), format(dropped, scientific = FALSE)),
      class = "tapestry_warning"))
  }
  text <- c("{\"traceEvents\":[", paste0(events, c(rep(",", length(events) - 1L), "")),
            sprintf("],\"displayTimeUnit\":\"ms\",\"otherData\":{\"dropped_events\":%s}}",
                    format(dropped, scientific = FALSE)))
  con <- file(file, open = "wb")
  on.exit(close(con), add = TRUE)
  writeLines(enc2utf8(text), con, useBytes = TRUE)
  invisible(normalizePath(file))
}

# CmdStan's profile CSV of one chain: a row per name and thread (the two
# phases added), names as CmdStan writes them (bare; quoted only when a
# comma, quote or line break would otherwise break the row).
write_profile_csv <- function(path, d) {
  key <- paste(d$name, d$thread_id, sep = "\r")
  keys <- unique(key)
  cols <- c("total_time", "forward_time", "reverse_time", profile_counts)
  sums <- rowsum(as.matrix(d[cols]), factor(key, levels = keys), reorder = TRUE)
  first <- match(keys, key)
  name <- d$name[first]
  quote <- grepl("[,\"\r\n]", name)
  name[quote] <- paste0("\"", gsub("\"", "\"\"", name[quote], fixed = TRUE), "\"")
  body <- if (length(keys)) {
    do.call(paste, c(list(name, d$thread_id[first]),
                     lapply(cols, function(k) csv_numbers(sums[, k])), sep = ","))
  }
  con <- file(path, open = "wb")
  on.exit(close(con), add = TRUE)
  writeLines(enc2utf8(c(paste(profile_columns[1:9], collapse = ","), body)), con,
             useBytes = TRUE)
}
