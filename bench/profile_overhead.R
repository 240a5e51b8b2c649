# What profile blocks cost (run by hand from the repository root:
# Rscript bench/profile_overhead.R [lib]).
#
# 1. Sampling gp_profile (inst/extdata) with its four profile blocks against
#    the same program with `profile("name") {` turned into a plain `{`
#    (same scopes, same arithmetic): one chain, same seed, so both runs make
#    the same draws (checked). The two take turns, in a shuffled order, over
#    TAPESTRY_REPS repetitions (default 15); the ratio is the median of the
#    per-repetition ratios of the chains' own run times. Target <= 1.02.
# 2. The cost of entering and leaving one profile around a single scalar
#    statement, in a Stan program whose model block loops 10^5 times:
#    (time with the profile - time without) / 10^5 for the gradient
#    (autodiff: the forward pass plus the reverse callbacks), medians over
#    interleaved repetitions: with profiling on ($profile_log_prob(), which
#    records into a registry as a chain of $sample() does; target <= 100 ns)
#    and, for the record, off ($grad_log_prob() and $log_prob(), where a
#    block only checks that nothing records). The same measured in C without the interpreter
#    (tp_prof_test("overhead"): best of 5) is shown beside it.
args <- commandArgs(TRUE)
lib <- if (length(args) && dir.exists(args[1])) args[1] else NULL
suppressMessages(library(tapestry, lib.loc = lib))
reps <- as.integer(Sys.getenv("TAPESTRY_REPS", "15"))
set.seed(2026)

load_avg <- function() {
  paste(tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3],
                 error = function(e) "?"), collapse = " ")
}
cat(sprintf("tapestry %s, %d cores, load average %s, %d repetitions\n\n",
            as.character(packageVersion("tapestry", lib.loc = lib)),
            .Call(tapestry:::C_tp_cores), load_avg(), reps))

# Runs the named functions (each returning seconds) in turns: `reps`
# repetitions, each calling every function once in a shuffled order.
# Returns a matrix repetitions x functions.
race <- function(fns, reps) {
  t <- matrix(NA_real_, reps, length(fns), dimnames = list(NULL, names(fns)))
  for (r in seq_len(reps)) {
    for (j in sample(length(fns))) t[r, j] <- fns[[j]]()
  }
  t
}

# ---- 1. sampling gp_profile with and without its profiles ----

stan_file <- system.file("extdata", "gp_profile.stan", package = "tapestry", lib.loc = lib)
data_file <- system.file("extdata", "gp_profile.data.json", package = "tapestry",
                         lib.loc = lib)
code <- paste(readLines(stan_file), collapse = "\n")
plain_code <- gsub("profile\\(\"[^\"]*\"\\)\\s*\\{", "{", code)
stopifnot(!grepl("profile(", plain_code, fixed = TRUE),
          lengths(regmatches(code, gregexpr("profile(", code, fixed = TRUE))) == 4L)
with_prof <- tapestry_model(stan_file)
without <- tapestry_model(code = plain_code)

iter <- as.integer(Sys.getenv("TAPESTRY_ITER", "300"))
run <- function(mod) {
  mod$sample(data = data_file, seed = 42, chains = 1, iter_warmup = iter,
             iter_sampling = iter, refresh = 0, show_messages = FALSE)
}
chain_seconds <- function(fit) fit$time()$chains$total
a <- run(with_prof)
b <- run(without)
same_draws <- identical(unclass(a$draws()), unclass(b$draws()))
t1 <- race(list(profiled = function() chain_seconds(run(with_prof)),
                plain = function() chain_seconds(run(without))), reps)
ratio <- stats::median(t1[, "profiled"] / t1[, "plain"])
n_grad <- sum(a$profiles()[[1]]$autodiff_calls[a$profiles()[[1]]$name == "gp"])

cat(sprintf("1. gp_profile, 1 chain, %d + %d iterations, %d gradients per run\n",
            iter, iter, as.integer(n_grad)))
cat(sprintf("   same draws with and without the profiles: %s\n", same_draws))
cat(sprintf("   chain time: profiled %.3f s, plain %.3f s (medians)\n",
            stats::median(t1[, "profiled"]), stats::median(t1[, "plain"])))
cat(sprintf("   ratio profiled / plain: %.4f (median of %d; quartiles %.4f .. %.4f); target <= 1.02\n\n",
            ratio, reps, stats::quantile(t1[, "profiled"] / t1[, "plain"], 0.25),
            stats::quantile(t1[, "profiled"] / t1[, "plain"], 0.75)))
print(profiles_summary(a))
cat("\n")

# ---- 2. one profile around one scalar statement, 10^5 times ----

loop_code <- function(profiled) {
  body <- "acc += x * 1e-6;"
  stmt <- if (profiled) sprintf("profile(\"s\") { %s }", body) else sprintf("{ %s }", body)
  sprintf("parameters { real x; }
model {
  real acc = 0;
  for (i in 1:100000) {
    %s
  }
  target += -0.5 * square(x) + acc;
}", stmt)
}
N <- 1e5
ctx_p <- tapestry_model(code = loop_code(TRUE))$bind()
ctx_n <- tapestry_model(code = loop_code(FALSE))$bind()
u <- 0.3
stopifnot(all.equal(ctx_p$grad_log_prob(u), ctx_n$grad_log_prob(u)))
timed <- function(f) {
  t0 <- proc.time()[[3L]]
  f()
  proc.time()[[3L]] - t0
}
batch <- 5L
# profile blocks record only into a registry: $profile_log_prob() makes one
# (as each chain of $sample() has); $grad_log_prob() and $log_prob() have
# none, so there a block costs only the check that no profiling is on
fns <- list(
  reg_prof = function() ctx_p$profile_log_prob(u, n = batch)$seconds,
  reg_plain = function() ctx_n$profile_log_prob(u, n = batch)$seconds,
  grad_prof = function() timed(function() for (i in seq_len(batch)) ctx_p$grad_log_prob(u)),
  grad_plain = function() timed(function() for (i in seq_len(batch)) ctx_n$grad_log_prob(u)),
  lp_prof = function() timed(function() for (i in seq_len(batch)) ctx_p$log_prob(u)),
  lp_plain = function() timed(function() for (i in seq_len(batch)) ctx_n$log_prob(u)))
for (f in fns) f()                                   # warm up the tapes
t2 <- race(fns, max(reps, 11L))
per <- function(a, b) 1e9 * stats::median(t2[, a] - t2[, b]) / (batch * N)
per_iter <- function(a) 1e9 * stats::median(t2[, a]) / (batch * N)

cat("2. profile(\"s\") { acc += x * 1e-6; } in a loop of 10^5 iterations\n")
row <- function(label, a, b) {
  cat(sprintf("   %-44s %6.1f ns per iteration without, %6.1f with: %6.1f ns per entry + exit\n",
              label, per_iter(b), per_iter(a), per(a, b)))
}
row("gradient, profiling on ($profile_log_prob):", "reg_prof", "reg_plain")
row("gradient, profiling off ($grad_log_prob):", "grad_prof", "grad_plain")
row("log density, profiling off ($log_prob):", "lp_prof", "lp_plain")
cat("   target <= 100 ns (profiling on)\n")
chk <- ctx_p$profile_log_prob(u, n = 2)$profiles
stopifnot(identical(chk$autodiff_calls, 2 * N))
if (exists("C_tp_prof_test", envir = asNamespace("tapestry"))) {
  o <- .Call(tapestry:::C_tp_prof_test, "overhead")$overhead
  cat(sprintf("   in C, without the interpreter (best of 5): %.1f ns on the tape, %.1f ns on doubles\n",
              o$ad, o$double))
}
cat(sprintf("\nload average at the end: %s\n", load_avg()))
