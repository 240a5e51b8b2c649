# $diagnose(): CmdStan's diagnose method on a TapestryModel, the gradient
# at the initial point against finite differences, and its result
# (TapestryDiagnose).

# CmdStan's diagnose method: the gradient of the log density (with the
# Jacobian, constants of `~` dropped) at the initial point against central
# finite differences.
TapestryModel$set("public", "diagnose", function(data = NULL, seed = NULL, init = NULL,
                                                 output_dir = getOption("cmdstanr_output_dir"),
                                                 output_basename = NULL, epsilon = NULL,
                                                 error = NULL) {
  epsilon <- epsilon %||% 1e-6
  error <- error %||% 1e-6
  for (a in c("epsilon", "error")) {
    v <- get(a)
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v <= 0) {
      abort_arg(sprintf("`%s` must be a positive number, not %s.", a, show_value(v)))
    }
  }
  seed <- arg_seed(seed)
  data <- check_data(data)
  context <- self$bind(data, seed)
  inits <- process_init(init, 1L, 1L, context)
  u <- diagnose_start(context, inits[[1L]], seed)
  n <- length(u)
  gr <- context$grad_log_prob(u, jacobian = TRUE)
  lp <- attr(gr, "log_prob")
  fd <- vapply(seq_len(n), function(k) {
    up <- u
    up[k] <- u[k] + epsilon
    dn <- u
    dn[k] <- u[k] - epsilon
    (context$log_prob(up, jacobian = TRUE) - context$log_prob(dn, jacobian = TRUE)) /
      (2 * epsilon)
  }, 0)
  grads <- data.frame(param_idx = seq_len(n) - 1L, value = u, model = as.vector(gr),
                      finite_diff = fd, error = as.vector(gr) - fd)
  bad <- abs(grads$error) > error
  if (any(bad)) {
    message(sprintf("%d of %d gradient%s differ from the finite differences by more than %g.",
                    sum(bad), n, if (n == 1L) "" else "s", error))
  }
  out <- list(gradients = grads, lp = as.double(lp), init = context$constrain_variables(
    u, transformed_parameters = FALSE, generated_quantities = FALSE),
    data_file = if (is.character(data)) data else attr(data, "data_file"),
    epsilon = epsilon, error = error)
  TapestryDiagnose$new(out)
})

# The initial unconstrained point: given values, else uniform(-r, r) drawn
# from a generator seeded by `seed` (R's stream is left alone).
diagnose_start <- function(context, init, seed) {
  n <- context$num_upars()
  u <- init$values %||% rep(0, n)
  given <- init$given %||% rep(FALSE, n)
  r <- init$radius %||% 2
  if (any(!given) && r > 0) {
    u[!given] <- with_r_seed(seed %% .Machine$integer.max, stats::runif(sum(!given), -r, r))
  }
  u
}

TapestryDiagnose <- R6::R6Class("TapestryDiagnose", cloneable = FALSE,
  public = list(
    initialize = function(x) private$x_ <- x,
    gradients = function() private$x_$gradients,
    lp = function() private$x_$lp,
    init = function() private$x_$init,
    data_file = function() private$x_$data_file,
    output_files = function(...) NULL,
    save_output_files = function(...) {
      not_in_tapestry("$save_output_files() of a diagnose run",
                      "its result is held in R: see $gradients() and $lp()")
    },
    print = function(...) {
      cat("Log probability=", format(private$x_$lp, digits = 6), "\n\n", sep = "")
      g <- private$x_$gradients
      base::print(g, row.names = FALSE)
      invisible(self)
    }
  ),
  private = list(x_ = NULL)
)
