# Seeds: checking the user's, drawing one, and running R code on R's
# generator seeded without disturbing the caller's stream.

# bind()'s check: a whole number from 0 to 2^53, as a double.
check_seed <- function(seed) {
  if (!is.numeric(seed) || length(seed) != 1L || is.na(seed) || seed < 0 ||
      seed != floor(seed) || seed > 2^53) {
    abort_arg("`seed` must be a non-negative whole number.")
  }
  as.double(seed)
}

# A run's seed: the user's, or with NULL one drawn from R's generator (so
# set.seed() fixes the run).  $sample(), $variational(), $diagnose() and
# $generate_quantities() keep the user's whole number (up to 2^53) as a
# double.  The point methods ($optimize(), $laplace(), $pathfinder(),
# `integer = TRUE`) draw their random numbers from R's generator only, so
# they keep a seed set.seed() takes: an integer, the user's modulo
# .Machine$integer.max, checked as bind() checks it (so their message is
# bind()'s, without the value given).
arg_seed <- function(x, integer = FALSE) {
  if (is.null(x)) {
    s <- sample.int(.Machine$integer.max, 1L)
    return(if (integer) s else as.double(s))
  }
  if (integer) return(as.integer(check_seed(x) %% .Machine$integer.max))
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x < 0 ||
      x != round(x) || x > 2^53) {
    abort_arg(sprintf("`seed` must be a non-negative whole number, not %s.", show_value(x)))
  }
  as.double(x)
}

# Runs code with R's generator seeded by `seed`, leaving the caller's stream
# (.Random.seed, or its absence) as it was.  `seed` is one set.seed() takes:
# a seed of arg_seed() up to 2^53 is reduced modulo .Machine$integer.max by
# the caller.
with_r_seed <- function(seed, code) {
  env <- globalenv()
  had <- exists(".Random.seed", envir = env, inherits = FALSE)
  old <- if (had) get(".Random.seed", envir = env)
  on.exit(if (had) assign(".Random.seed", old, envir = env)
          else if (exists(".Random.seed", envir = env, inherits = FALSE))
            rm(".Random.seed", envir = env))
  set.seed(seed)
  code
}
