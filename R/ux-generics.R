# Methods of the ecosystem's generics for a fit: posterior's as_draws()
# family, and bayesplot's nuts_params(), log_posterior(), rhat() and
# neff_ratio() as bayesplot defines them for cmdstanr's CmdStanMCMC.  They
# are registered in NAMESPACE as S3method(pkg::generic, TapestryFit):
# R registers the bayesplot ones when bayesplot is loaded, so bayesplot
# stays a suggested package.

#' Methods of 'posterior' and 'bayesplot' generics for a fit
#'
#' A [TapestryFit] works with the generics of 'posterior' and 'bayesplot'
#' as 'cmdstanr''s fits do. `as_draws()` and the `as_draws_*()` functions
#' of 'posterior' return the fit's `$draws()` in their format.
#' `nuts_params()`, `log_posterior()`, `rhat()` and `neff_ratio()` of
#' 'bayesplot' (used by its `mcmc_nuts_*()`, `mcmc_rhat()` and
#' `mcmc_neff()` plots) give the sampler's diagnostics, `lp__`, the R-hat
#' and the ratio of effective sample size to the number of draws of each
#' variable (`lp__` left out), as 'bayesplot''s methods for 'cmdstanr''s
#' fits give them. The 'bayesplot' methods are registered when 'bayesplot'
#' is loaded; it is not needed otherwise.
#'
#' @param x,object A [TapestryFit].
#' @param variables,inc_warmup As for the fit's `$draws()`.
#' @param pars Names of variables (for `nuts_params()`, of sampler
#'   diagnostics such as `"divergent__"`), or `NULL` for all.
#' @param ... For `as_draws()`, arguments of the fit's `$draws()`
#'   (`variables`, `inc_warmup`, `format`); otherwise not used.
#' @return `as_draws()`: a draws object (a [posterior::draws_array] unless
#'   `format` says otherwise); `as_draws_array()` and the others: a draws
#'   object of their format. `nuts_params()`: a data frame with columns
#'   `Iteration`, `Chain` (integers), `Parameter` (a factor) and `Value`;
#'   `log_posterior()`: a data frame with columns `Iteration`, `Chain` and
#'   `Value`; `rhat()` and `neff_ratio()`: named numeric vectors.
#' @name tapestry-generics
#' @aliases as_draws.TapestryFit
#' @md
#' @examples
#' mod <- tapestry_model(code = "
#'   parameters { real mu; }
#'   model { mu ~ normal(0, 1); }
#' ")
#' fit <- mod$sample(chains = 2, iter_warmup = 200, iter_sampling = 200,
#'                   seed = 1, refresh = 0)
#' posterior::as_draws_df(fit)
#' if (requireNamespace("bayesplot", quietly = TRUE)) {
#'   head(bayesplot::nuts_params(fit))
#'   bayesplot::rhat(fit)
#' }
NULL

#' @rdname tapestry-generics
#' @exportS3Method posterior::as_draws
as_draws.TapestryFit <- function(x, ...) {
  x$draws(...)
}

#' @rdname tapestry-generics
#' @exportS3Method posterior::as_draws_array
as_draws_array.TapestryFit <- function(x, variables = NULL, inc_warmup = FALSE, ...) {
  x$draws(variables, inc_warmup, format = "draws_array")
}

#' @rdname tapestry-generics
#' @exportS3Method posterior::as_draws_df
as_draws_df.TapestryFit <- function(x, variables = NULL, inc_warmup = FALSE, ...) {
  x$draws(variables, inc_warmup, format = "draws_df")
}

#' @rdname tapestry-generics
#' @exportS3Method posterior::as_draws_list
as_draws_list.TapestryFit <- function(x, variables = NULL, inc_warmup = FALSE, ...) {
  x$draws(variables, inc_warmup, format = "draws_list")
}

#' @rdname tapestry-generics
#' @exportS3Method posterior::as_draws_matrix
as_draws_matrix.TapestryFit <- function(x, variables = NULL, inc_warmup = FALSE, ...) {
  x$draws(variables, inc_warmup, format = "draws_matrix")
}

#' @rdname tapestry-generics
#' @exportS3Method posterior::as_draws_rvars
as_draws_rvars.TapestryFit <- function(x, variables = NULL, inc_warmup = FALSE, ...) {
  x$draws(variables, inc_warmup, format = "draws_rvars")
}

# A draws_array as a long data frame: Iteration, Chain, Parameter, Value,
# the iterations fastest (as reshape2::melt() gives it to bayesplot).
long_draws <- function(arr) {
  a <- unclass(arr)
  d <- dim(a)
  vars <- dimnames(a)[[3L]]
  data.frame(
    Iteration = rep(seq_len(d[1L]), times = d[2L] * d[3L]),
    Chain = rep(rep(seq_len(d[2L]), each = d[1L]), times = d[3L]),
    Parameter = factor(rep(vars, each = d[1L] * d[2L]), levels = vars),
    Value = as.double(a),
    stringsAsFactors = FALSE)
}

#' @rdname tapestry-generics
#' @exportS3Method bayesplot::nuts_params
nuts_params.TapestryFit <- function(object, pars = NULL, ...) {
  arr <- object$sampler_diagnostics()
  if (!is.null(pars)) arr <- posterior::subset_draws(arr, variable = pars)
  long_draws(arr)
}

#' @rdname tapestry-generics
#' @exportS3Method bayesplot::log_posterior
log_posterior.TapestryFit <- function(object, inc_warmup = FALSE, ...) {
  out <- long_draws(object$draws("lp__", inc_warmup = inc_warmup))
  out$Parameter <- NULL
  out
}

#' @rdname tapestry-generics
#' @exportS3Method bayesplot::rhat
rhat.TapestryFit <- function(object, pars = NULL, ...) {
  s <- object$summary(pars, rhat = posterior::rhat)
  r <- as.double(s$rhat)
  names(r) <- s$variable
  r[names(r) != "lp__"]
}

#' @rdname tapestry-generics
#' @exportS3Method bayesplot::neff_ratio
neff_ratio.TapestryFit <- function(object, pars = NULL, ...) {
  s <- object$summary(pars, n_eff = posterior::ess_basic)
  ess <- as.double(s$n_eff)
  names(ess) <- s$variable
  ratio <- ess / posterior::ndraws(object$draws("lp__"))
  ratio[names(ratio) != "lp__"]
}
