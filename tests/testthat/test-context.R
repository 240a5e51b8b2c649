# The bundled models (../shared/models) bound to their data: log density,
# log density without the Jacobian, and gradient at the points where Stan
# itself computed them (rstan 2.21), to a relative 1e-8.

models <- c("conjugate_normal", "eight_schools", "gp_profile", "hier_poisson",
            "hier_poisson_reduce", "lbeta_map", "logistic", "logistic_reduce",
            "map_rect_hier", "varying_slopes",
            # written as loops, the way people write them
            "ar3_loop", "county_loop", "irt_2pl", "mixture_loop", "hmm_forward",
            "garch_loop", "gp_loop",
            # written by brms 2.18
            "brms_negbin_rs")


# The data of a model: its bundled JSON file, or for logistic_reduce (whose
# data are logistic's plus a grainsize) a list built from logistic's.
model_data <- function(name) {
  f <- ext(paste0(name, ".data.json"))
  if (nzchar(f)) return(f)
  if (name == "logistic_reduce" && nzchar(ext("logistic.data.json"))) {
    d <- jsonlite::fromJSON(ext("logistic.data.json"))
    d$grainsize <- 1L
    return(d)
  }
  NULL
}

bind_model <- function(name) {
  stan <- ext(paste0(name, ".stan"))
  data <- model_data(name)
  if (!nzchar(stan) || is.null(data)) skip(paste(name, "is not bundled"))
  # brms_negbin_rs, as brms 2.18 wrote it, uses the old array syntax: its
  # deprecation warnings are expected here (test-parse tests them)
  mod <- withCallingHandlers(tapestry_model(stan), tapestry_warning = function(w) {
    if (grepl("is deprecated", conditionMessage(w))) invokeRestart("muffleWarning")
  })
  mod$bind(data)
}

reference_points <- function(name) {
  ref <- jsonlite::fromJSON(ext(paste0(name, ".reference.json")), simplifyVector = FALSE)
  lapply(ref$points, function(p) {
    list(upars = as.numeric(unlist(p$upars)), log_prob = p$log_prob,
         log_prob_nojac = p$log_prob_nojac, gradient = as.numeric(unlist(p$gradient)))
  })
}

# reduce_sum may add its partial sums in another order from one evaluation
# to the next (DESIGN.md, Reproducibility): equal to the last bits only.
exact <- function(name) !grepl("_reduce$", name)

expect_same <- function(object, expected, name) {
  if (exact(name)) expect_identical(object, expected)
  else expect_equal(object, expected, tolerance = 1e-13)
}

for (name in models) {
  test_that(paste(name, "matches Stan's log density and gradient"), {
    ctx <- bind_model(name)
    for (p in reference_points(name)) {
      expect_equal(ctx$num_upars(), length(p$upars))
      lp <- ctx$log_prob(p$upars)
      expect_equal(lp, p$log_prob, tolerance = 1e-8)
      expect_equal(ctx$log_prob(p$upars, jacobian = FALSE), p$log_prob_nojac, tolerance = 1e-8)
      g <- ctx$grad_log_prob(p$upars)
      expect_equal(as.vector(g), p$gradient, tolerance = 1e-8)
      # On doubles and on the tape the value is the same.
      expect_same(attr(g, "log_prob"), lp, name)
      lpg <- ctx$log_prob(p$upars, gradient = TRUE)
      expect_same(as.vector(lpg), lp, name)
      expect_same(attr(lpg, "gradient"), as.vector(g), name)
      # An evaluation leaves nothing behind that changes the next.
      expect_same(ctx$log_prob(p$upars), lp, name)
      expect_same(ctx$grad_log_prob(p$upars), g, name)
    }
  })

  test_that(paste(name, "gradient agrees with finite differences"), {
    ctx <- bind_model(name)
    u <- reference_points(name)[[1]]$upars
    g <- as.vector(ctx$grad_log_prob(u))
    fd <- fd_grad(ctx, u, h = 1e-6 * pmax(1, abs(u)))
    expect_equal(fd, g, tolerance = 1e-5)
  })
}
