# $sample()'s progress display.  src/r/r_sample.c hands the state of every
# chain to the function progress_display() makes (every 50 ms and once at
# the end); the formatting is done by the pure functions below, which the
# tests call directly.
#
# Interactive sessions: one line for all chains, redrawn in place with
# "\r" and never wider than getOption("width") - 1, so that a redraw never
# wraps into a new line of scrollback.  Otherwise (knitr, Rscript, CI):
# CmdStan's lines, "Chain 1 Iteration:  100 / 2000 [  5%]  (Warmup)", at
# iteration 1, every `refresh`-th, the first of sampling and the last, and
# "Chain 1 finished in 1.2 seconds." when a chain is done.

# Phases as r_sample.c reports them.
progress_phases <- c("waiting", "warmup", "sampling", "done", "stopped")

# CmdStan's progress line of chain `id` at iteration `it`.
progress_cmdstan_line <- function(id, it, total, num_warmup) {
  w <- nchar(as.character(total))
  pct <- if (total > 0) floor(100 * it / total) else 100
  sprintf("Chain %d Iteration: %*d / %d [%3d%%]  (%s)", id, w, it, total, as.integer(pct),
          if (it <= num_warmup) "Warmup" else "Sampling")
}

# The iterations in (from, to] at which CmdStan prints a line.
progress_marks <- function(from, to, refresh, total, num_warmup) {
  if (to <= from || refresh <= 0) return(integer())
  m <- seq.int(from + 1L, to)
  m[m == 1L | m %% refresh == 0L | m == num_warmup + 1L | m == total]
}

# The one-line display of every chain, at most `width` characters: the
# widest of four layouts that fits, cut at `width` if none does; or the
# layout given (1 full, 2 medium, 3 compact, 4 overall), cut at `width`.
# iteration, phase (0-4 as progress_phases), elapsed: one per chain.
progress_status_line <- function(ids, iteration, phase, elapsed, total, width, layout = NULL) {
  width <- max(as.integer(width), 10L)
  pct <- ifelse(phase >= 3L, 100, if (total > 0) floor(100 * iteration / total) else 100)
  pct[phase == 4L] <- if (total > 0) floor(100 * iteration[phase == 4L] / total) else 100
  shown <- phase > 0L
  waiting <- sum(phase == 0L)
  wait_note <- if (waiting) sprintf("%d waiting", waiting) else NULL
  word <- c("Warmup", "Sampling", "done", "stopped")
  full <- paste(c(
    sprintf("Chain %d %3d%% %s %.1fs", ids[shown], as.integer(pct[shown]),
            word[phase[shown]], elapsed[shown]),
    wait_note), collapse = " | ")
  # each shown chain as `ended` (id, word) once done or stopped, else as
  # `running` (id, percentage, word)
  marks <- function(ended, running, words) {
    ifelse(phase[shown] >= 3L,
           sprintf(ended, ids[shown], words[phase[shown]]),
           sprintf(running, ids[shown], as.integer(pct[shown]), words[phase[shown]]))
  }
  medium <- paste(c(marks("#%d %s", "#%d %d%% %s", c("warmup", "sampling", "done", "stopped")),
                    wait_note), collapse = " | ")
  compact <- paste(c(marks("%d:%s", "%d:%d%%%s", c("W", "S", "done", "stop")),
                     if (waiting) sprintf("%d wait", waiting)), collapse = " ")
  counts <- c(done = sum(phase == 3L), running = sum(phase %in% 1:2), waiting = waiting,
              stopped = sum(phase == 4L))
  counts <- counts[counts > 0L]
  overall <- sprintf("MCMC %d%%: %s, %.0fs", as.integer(floor(mean(pct))),
                     paste(counts, names(counts), collapse = ", "),
                     max(c(0, elapsed)))
  lines <- c(full, medium, compact, overall)
  if (!is.null(layout)) return(substr(lines[layout], 1L, width))
  for (line in lines) if (nchar(line) <= width) return(line)
  substr(overall, 1L, width)
}

# The layout a run's display keeps from start to end: the widest whose
# longest line fits, every chain shown at 100% in its longest phase word
# with three digits of seconds and chains waiting.  Choosing per redraw
# made the line jump between layouts as chains started and times grew.
progress_layout <- function(ids, total, width) {
  n <- length(ids)
  # the longest states: every chain sampling (its longest word), or all
  # but one shown and one waiting (the "1 waiting" note)
  for (layout in 1:4) {
    lines <- c(substr_layout(ids, total, 2L, layout),
               if (n > 1L) substr_layout(ids, total, c(rep(2L, n - 1L), 0L), layout))
    if (all(nchar(lines) <= width)) return(layout)
  }
  4L
}

substr_layout <- function(ids, total, ph, layout) {
  n <- length(ids)
  ph <- rep_len(as.integer(ph), n)
  progress_status_line(ids, ifelse(ph == 0L, 0L, as.integer(total)), ph, rep(999.9, n), total,
                       100000L, layout)
}

# The function r_sample.c calls: prints the progress of chains `ids` and
# keeps what it needs between calls (lines printed, chains reported).
# `out` writes text (cat by default; the tests collect it).
progress_display <- function(ids, num_warmup, num_samples, refresh, interactive,
                             width = getOption("width", 80L), out = function(x) cat(x)) {
  total <- as.integer(num_warmup + num_samples)
  width <- max(as.integer(width) - 1L, 10L)   # a line of exactly `width` wraps on some consoles
  last <- integer(length(ids))
  reported <- logical(length(ids))
  drawn <- 0L
  layout <- if (interactive) progress_layout(ids, total, width)
  function(iteration, phase, elapsed, final) {
    tryCatch({
      if (interactive) {
        if (is.na(final)) {
          # messages follow: clear the line
          if (drawn > 0L) out(paste0("\r", strrep(" ", drawn), "\r"))
          drawn <<- 0L
          return(invisible(NULL))
        }
        line <- progress_status_line(ids, iteration, phase, elapsed, total, width, layout)
        n <- nchar(line)
        out(paste0("\r", line, strrep(" ", max(0L, drawn - n))))
        drawn <<- n
        if (isTRUE(final)) {
          out("\n")
          drawn <<- 0L
        }
      } else {
        if (is.na(final)) return(invisible(NULL))
        text <- character()
        for (k in seq_along(ids)) {
          if (phase[k] == 0L) next
          for (m in progress_marks(last[k], iteration[k], refresh, total, num_warmup)) {
            text <- c(text, progress_cmdstan_line(ids[k], m, total, num_warmup))
          }
          last[k] <<- max(last[k], iteration[k])
          if (phase[k] == 3L && !reported[k]) {
            text <- c(text, sprintf("Chain %d finished in %.1f seconds.", ids[k], elapsed[k]))
            reported[k] <<- TRUE
          }
        }
        if (length(text)) {
          out(paste0(text, "\n", collapse = ""))   # r_sample.c flushes the console after
        }
      }
    }, error = function(e) NULL)
    invisible(NULL)
  }
}
