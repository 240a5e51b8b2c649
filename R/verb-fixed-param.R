# $sample(fixed_param = TRUE): CmdStan's fixed_param sampler.  The chains
# run as NUTS chains do (src/nuts/nuts_run.c, fixed_param_run): initialised
# as Stan initialises, then every iteration keeps the initial point and
# writes its transformed parameters and generated quantities.  CmdStan's
# output has two sampler columns, lp__ and accept_stat__, both 0.

# The run's arguments for fixed_param: no warmup, nothing to adapt.
fixed_param_args <- function(a) {
  a$iter_warmup <- 0L
  a$save_warmup <- FALSE
  a$adapt_engaged <- FALSE
  a$inv_metric <- NULL
  a$metric <- "unit_e"
  a
}

fixed_param_columns <- c("lp__", "accept_stat__")

# The chains' results as CmdStan's fixed_param writes them: the NUTS
# columns it does not have dropped, no step size or metric.
fixed_param_raw <- function(raw) {
  raw$chains <- lapply(raw$chains, function(ch) {
    nm <- colnames(ch$draws)
    drop <- setdiff(c(sampler_diagnostic_names, "lp__"), fixed_param_columns)
    ch$draws <- ch$draws[, !nm %in% drop, drop = FALSE]
    ch$step_size <- NA_real_
    ch["inv_metric"] <- list(NULL)
    ch
  })
  raw
}
