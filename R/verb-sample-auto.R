# $sample(iter_warmup = "auto") and $sample(target_ess = ): warmup that
# ends when the chains agree, and sampling that stops at the asked ESS.
# The chains run in pieces (src/nuts/nuts_run.c); between pieces R's main
# thread looks at every chain's draws (src/nuts/nuts_cross.c) and decides
# (src/r/r_sample.c's cross_step).  This file checks the arguments, picks
# the columns the target applies to, and turns the decisions into the
# fit's metadata and warnings.

#' Warmup that ends when the chains agree, sampling that stops at a target ESS
#'
#' @description
#' `$sample(iter_warmup = "auto")` runs warmup in windows and ends it when
#' the chains agree, at the latest after `iter_warmup_max` iterations
#' (default 1000). `$sample(target_ess = 400)` stops sampling once every
#' parameter (or every element of `target_variables`) has reached the
#' target effective sample size, `iter_sampling` being the most. The two
#' can be used together or apart; without them `$sample()` runs Stan's
#' fixed schedule and makes exactly the draws it made before they existed.
#'
#' @section The rule that ends warmup:
#' All chains run the same schedule, and every chain stops at the same
#' iteration for each check (chains are threads of one process; when
#' `parallel_chains` is less than `chains` they take turns, window by
#' window, so the checks always see every chain):
#'
#' 1. An initial buffer of `init_buffer` iterations (default 75) adapts
#'    the step size only, as Stan's does; its draws are not used.
#' 2. Then windows of 100 iterations. At the end of each window the
#'    draws of the last two windows of every chain (the window just ended
#'    and the one before it, 100 or 200 iterations per chain) are pooled.
#'    The first check, over one window whose metric came from the initial
#'    buffer, never ends warmup: with 100 draws a chain the scale of a
#'    heavy tail is not yet seen (gp_profile's sds came out 5-10% low).
#'    Warmup ends when
#'    * the rank-normalized split R-hat of `lp__` and of every
#'      unconstrained parameter is at most 1.05;
#'    * the bulk ESS of `lp__` and of every parameter must be at least 100;
#'    * the divergent transitions of the second half of the window (the
#'      first half follows a new metric and a restarted step size
#'      adaptation, whose first large steps diverge even on posteriors
#'      that are fine) must be at most 5% of its transitions. Divergences
#'      while the step size adapts do not tell a funnel from a posterior
#'      that is fine: the second halves of varying_slopes' windows diverge
#'      in 1.5-4% of transitions and its sampling then in none, the
#'      centered eight schools' in 0-6%; the ESS bound separates those.
#'      The bound catches a sampler that diverges on most steps;
#'    * the step sizes the chains' dual averaging has reached must be
#'      within a factor of 2 of each other (the step size settled: chains
#'      that adapt to different regions disagree here).
#'
#'    After every window, whatever the check says, the inverse metric is
#'    estimated from those pooled draws (their variance about the common
#'    mean, or covariance for `"dense_e"`, regularised as Stan's for the
#'    number of draws) and given to every chain, which re-runs Stan's step
#'    size heuristic and restarts dual averaging, as at the end of a Stan
#'    window.
#' 3. When every condition holds, a final buffer of `term_buffer`
#'    iterations (default 50) adapts each chain's step size to the pooled
#'    metric, and warmup ends. Each chain keeps its own step size, as in
#'    Stan.
#' 4. When the next window would not fit before `iter_warmup_max`, the last
#'    window is stretched to end `term_buffer` iterations before it, and
#'    warmup ends there whatever the check says: the fit then warns that
#'    the chains did not agree.
#'
#' The bounds are looser than the 1.01 asked of a final fit because a
#' window holds few draws: with 100-200 draws per chain the R-hat of a
#' well-mixing quantity is noisy by 0.005-0.01, and more for `lp__` of a
#' model with many group effects (brms_negbin_rs: 1.02-1.06 over windows
#' whose parameters all agreed), so a tighter bound would often be missed by
#' chance and warmup would run on for nothing. The ESS bound is what
#' separates a funnel from a posterior that mixes: on the centered eight
#' schools the smallest bulk ESS of a window stays between 10 and 85,
#' on the non-centered one it is 150-500 after the first window. Chains
#' stuck in different modes show R-hats far above either bound. The
#' sampling that follows is still held to R-hat 1.01 (`target_ess`, and
#' the warnings after every run).
#'
#' The rule follows Stan's cross-chain warmup prototypes (windows of 100
#' iterations after which the chains' R-hat and ESS of `lp__` are checked,
#' with a metric from all chains' draws), Bales' campfire (windowed warmup
#' that pools the last windows and stops on R-hat and ESS), and nutpie's
#' observation that a good metric needs a few hundred warmup draws rather
#' than Stan's 1,000.
#'
#' @section Sampling to a target ESS:
#' With `target_ess = N`, after every 100 sampling iterations the chains
#' pause and the bulk ESS, tail ESS and R-hat (posterior's definitions)
#' of every element of the parameters (or of `target_variables`: names of
#' any variables, `lp__` included, or of their elements such as
#' `"theta[1]"`) are computed over the draws of all chains so far.
#' Sampling stops when every ESS is at least `N` and every R-hat at most
#' 1.01; every chain then stops at the same iteration. `iter_sampling`
#' (default 1000) is the most it runs; when the target is not reached by
#' then, a warning says so.
#'
#' @section What the fit records:
#' `fit$metadata()` has `iter_warmup` (the warmup iterations made) and
#' `iter_sampling` (the sampling iterations made), `warmup_auto`,
#' `iter_warmup_max`, `warmup_agreed` (whether warmup ended on the rule
#' rather than at `iter_warmup_max`), `target_ess`, `target_variables`,
#' `target_reached`, and `decisions`: a data frame with one row per check
#' (phase, iteration, draws per chain looked at, R-hat of `lp__`, the
#' largest R-hat and its variable, the smallest ESS and its variable, the
#' divergences of the window, the ratio of the step sizes, whether it
#' passed and whether it ended the phase). Each decision is also printed
#' as a line with the progress when `show_messages = TRUE`.
#'
#' @section When to use it:
#' On posteriors that mix, it reaches the asked ESS with fewer gradients
#' than the default 1000 + 1000 run (see the package README for the
#' measured table). It needs several chains (4 is best): with one chain
#' the checks only compare its halves. It is not available with
#' `mpi = "chains"` under `mpirun` (each rank would see only its chains),
#' nor with `adapt_engaged = FALSE` or `fixed_param = TRUE`.
#'
#' @name sample_auto
#' @md
NULL

# The decisions' fixed settings (src/r/r_sample.c reads them from config).
auto_window <- 100L
auto_check_every <- 100L

# The 0-based columns of the draws the target applies to: every element of
# the parameters, or of target_variables (whole variables or elements).
target_columns <- function(context, target_variables) {
  cols <- c("lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
            "divergent__", "energy__",
            .Call(C_tp_output_names, context_ptr(context), TRUE, TRUE))
  if (is.null(target_variables)) {
    pars <- .Call(C_tp_output_names, context_ptr(context), FALSE, FALSE)
    return(as.integer(match(pars, cols) - 1L))
  }
  base <- sub("\\[.*$", "", cols)
  idx <- integer()
  for (v in target_variables) {
    hit <- which(cols == v | base == v)
    if (!length(hit)) {
      abort_arg(sprintf("`target_variables`: the model has no variable %s.", show_value(v)))
    }
    idx <- c(idx, hit)
  }
  as.integer(unique(idx) - 1L)
}

# After the run: the metadata of the decisions, and warnings.
apply_cross <- function(a, raw) {
  x <- raw$cross
  if (is.null(x)) return(a)
  d <- x$decisions
  a$decisions <- data.frame(d, stringsAsFactors = FALSE)
  if (isTRUE(a$warmup_auto)) {
    a$iter_warmup_max <- a$iter_warmup
    if (!is.na(x$iter_warmup)) a$iter_warmup <- x$iter_warmup
    a$warmup_agreed <- isTRUE(x$warmup_agreed)
  }
  a$target_reached <- isTRUE(x$target_reached)
  if (!is.na(x$iter_sampling)) a$iter_sampling <- x$iter_sampling
  if (isTRUE(raw$interrupted)) return(a)
  w <- a$decisions[a$decisions$phase == "warmup", , drop = FALSE]
  if (isTRUE(a$warmup_auto) && !is.na(x$iter_warmup) && !a$warmup_agreed && nrow(w)) {
    last <- w[nrow(w), ]
    tapestry_warn(sprintf(paste0(
      "Warmup ran to iter_warmup_max (%d) without the chains agreeing: at the last check ",
      "R-hat of lp__ was %.3f, the largest R-hat %.3f (%s), the smallest bulk ESS %.0f (%s), ",
      "with %d divergent transition%s in the window. The chains may not have found the same ",
      "posterior: look at the R-hats and divergences, and consider reparameterizing the model ",
      "or raising adapt_delta."),
      a$iter_warmup_max, last$rhat_lp, last$rhat_max, last$rhat_variable, last$ess_min,
      last$ess_variable, as.integer(last$divergent), if (last$divergent == 1) "" else "s"))
  }
  s <- a$decisions[a$decisions$phase == "sampling", , drop = FALSE]
  if (!is.null(a$target_ess) && !a$target_reached) {
    last <- if (nrow(s)) s[nrow(s), ] else NULL
    tapestry_warn(sprintf(paste0(
      "The target ESS (%g) was not reached within iter_sampling (%d)%s."),
      a$target_ess, a$iter_sampling,
      if (is.null(last)) "" else sprintf(
        ": at the last check the smallest ESS was %.0f bulk, %.0f tail (%s), the largest R-hat %.3f (%s)",
        last$ess_min, last$ess_tail_min, last$ess_variable, last$rhat_max, last$rhat_variable)))
  }
  a
}
