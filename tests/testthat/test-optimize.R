# $optimize(): Stan's L-BFGS, BFGS and Newton against rstan 2.21's
# optimizing() on the shared models, the closed-form mode of
# conjugate_normal, the fit's CmdStanMLE shape and the arguments' checks.

# rstan::optimizing(seed = 1, init = 0, as_vector = TRUE) on the models of
# inst/extdata in their Stan 2.21 form (/work/shared/models/stan221), run by
# hand once (tests cannot compile Stan): `default` with Stan's default
# tolerances (L-BFGS), `bfgs` the same with algorithm = "BFGS", `tight`
# L-BFGS with tol_obj = 1e-20, tol_rel_obj = 1, tol_grad = 1e-14,
# tol_rel_grad = 1e2, tol_param = 1e-14, iter = 20000; `lp` rstan's value at
# `tight`. eight_schools_logtau is eight_schools with log_tau as the
# parameter and `target += log_tau`: its mode is the mode of eight_schools'
# unconstrained density with the Jacobian (tapestry's jacobian = TRUE).
# hier_poisson keeps its first 12 values.
rstan_modes <- list(
  conjugate_normal = list(
    default = c(`mu` = 2.02115284176246),
    bfgs = c(`mu` = 2.02115284176246),
    tight = c(`mu` = 2.02115284176246),
    lp = -47.7209626560104
  ),
  logistic = list(
    default = c(`alpha` = 0.348422567196152, `beta[1]` = -0.0869907780944852, `beta[2]` = -0.444800590938348, `beta[3]` = -0.595830609113865, `beta[4]` = -0.095368189818814, `beta[5]` = -0.224958284636008, `beta[6]` = -0.66999481948394, `beta[7]` = -0.137770320105839, `beta[8]` = -0.596630202020539, `beta[9]` = -0.500579133979391, `beta[10]` = -0.265453829864244, `beta[11]` = -0.244475497956074, `beta[12]` = -0.4839730550219, `beta[13]` = 0.225014482895823, `beta[14]` = -0.019252947883153, `beta[15]` = -0.4587966007529, `beta[16]` = -0.57748784719893, `beta[17]` = 0.597134028160421, `beta[18]` = 0.486328351858866, `beta[19]` = 0.183868103152762, `beta[20]` = 0.0126611618658996),
    bfgs = c(`alpha` = 0.348429827566886, `beta[1]` = -0.0869808059663905, `beta[2]` = -0.444794112569432, `beta[3]` = -0.59588754956054, `beta[4]` = -0.0953960319128016, `beta[5]` = -0.224957633107634, `beta[6]` = -0.670023692829337, `beta[7]` = -0.137794232085027, `beta[8]` = -0.596672968143456, `beta[9]` = -0.500613007712685, `beta[10]` = -0.2654617827919, `beta[11]` = -0.244511921394741, `beta[12]` = -0.484011229517193, `beta[13]` = 0.225038337180892, `beta[14]` = -0.0192741901540483, `beta[15]` = -0.458807089901692, `beta[16]` = -0.577475138847829, `beta[17]` = 0.597170284281807, `beta[18]` = 0.486345088609309, `beta[19]` = 0.183894607918794, `beta[20]` = 0.0126114875635669),
    tight = c(`alpha` = 0.348422646590178, `beta[1]` = -0.0869846110293127, `beta[2]` = -0.444793719938353, `beta[3]` = -0.59585285196338, `beta[4]` = -0.0953819296645164, `beta[5]` = -0.224953813805298, `beta[6]` = -0.670007315694876, `beta[7]` = -0.1377799697815, `beta[8]` = -0.596645854426298, `beta[9]` = -0.500592883201095, `beta[10]` = -0.265456809532566, `beta[11]` = -0.244492197060423, `beta[12]` = -0.483992157351013, `beta[13]` = 0.225025953368001, `beta[14]` = -0.0192651526535572, `beta[15]` = -0.45879837255163, `beta[16]` = -0.577477481075043, `beta[17]` = 0.597149745764113, `beta[18]` = 0.486336338827378, `beta[19]` = 0.183880675001889, `beta[20]` = 0.0126403243532754),
    lp = -2415.7698712965
  ),
  hier_poisson = list(
    default = c(`mu` = 0.997242925410229, `tau` = 0.516735108889829, `log_lambda[1]` = 0.539873417105303, `log_lambda[2]` = 1.87239210473913, `log_lambda[3]` = 0.0906538687823191, `log_lambda[4]` = 1.70460793971128, `log_lambda[5]` = 1.47748498454856, `log_lambda[6]` = 0.913970190703387, `log_lambda[7]` = 0.711096802020593, `log_lambda[8]` = 0.457454812700889, `log_lambda[9]` = 0.455605553130953, `log_lambda[10]` = 0.91586183389946),
    bfgs = c(`mu` = 0.997365628192412, `tau` = 0.516740890428668, `log_lambda[1]` = 0.539841023245247, `log_lambda[2]` = 1.87242422811033, `log_lambda[3]` = 0.0906301150181602, `log_lambda[4]` = 1.70459971504094, `log_lambda[5]` = 1.47748248899049, `log_lambda[6]` = 0.913971857071612, `log_lambda[7]` = 0.711119462033922, `log_lambda[8]` = 0.457434578071805, `log_lambda[9]` = 0.455569851165552, `log_lambda[10]` = 0.915882757823991),
    tight = c(`mu` = 0.997334655762127, `tau` = 0.516771182653562, `log_lambda[1]` = 0.539834579741077, `log_lambda[2]` = 1.87240669015122, `log_lambda[3]` = 0.0906278940402647, `log_lambda[4]` = 1.70461765327471, `log_lambda[5]` = 1.47748571752088, `log_lambda[6]` = 0.913970328826996, `log_lambda[7]` = 0.71111741643634, `log_lambda[8]` = 0.457429825485507, `log_lambda[9]` = 0.455563095773249, `log_lambda[10]` = 0.915882383736179),
    lp = 17510.1302765435
  ),
  ar3_loop = list(
    default = c(`alpha` = 0.162332355188275, `beta[1]` = 0.527981965058218, `beta[2]` = -0.275940793879754, `beta[3]` = 0.0736112947048335, `sigma` = 0.675767284030274),
    bfgs = c(`alpha` = 0.162327330462172, `beta[1]` = 0.52798865095277, `beta[2]` = -0.275947544507274, `beta[3]` = 0.0736153894964773, `sigma` = 0.675768891300486),
    tight = c(`alpha` = 0.162324711774345, `beta[1]` = 0.52798983070873, `beta[2]` = -0.275945057389399, `beta[3]` = 0.0736152533438884, `sigma` = 0.6757690641532),
    lp = -54.9181208861767
  ),
  garch_loop = list(
    default = c(`mu` = 0.0857918653371358, `alpha0` = 0.0190114814888343, `alpha1` = 0.0911424493869272, `beta1` = 0.863707908067477),
    bfgs = c(`mu` = 0.0857902318957344, `alpha0` = 0.0190100009344941, `alpha1` = 0.0911394859626796, `beta1` = 0.863714788394686),
    tight = c(`mu` = 0.0857905245741276, `alpha0` = 0.0190100614096194, `alpha1` = 0.091137661516955, `beta1` = 0.863715963195102),
    lp = -11.0384941201266
  ),
  mixture_loop = list(
    default = c(`mu[1]` = -1.54464533177582, `mu[2]` = 2.00632631624137, `sigma[1]` = 0.684484492125282, `sigma[2]` = 1.17028326383026, `theta` = 0.374502615228678),
    bfgs = c(`mu[1]` = -1.54459998135635, `mu[2]` = 2.00635620030755, `sigma[1]` = 0.684526158693202, `sigma[2]` = 1.17026241187081, `theta` = 0.374513643531971),
    tight = c(`mu[1]` = -1.54460160247877, `mu[2]` = 2.00638527724563, `sigma[1]` = 0.684529978218582, `sigma[2]` = 1.17024897959442, `theta` = 0.374526768392701),
    lp = -1961.35667692428
  ),
  gp_loop = list(
    default = c(`rho` = 0.841406582745981, `alpha` = 0.935299170375109, `sigma` = 0.326831701879927),
    bfgs = c(`rho` = 0.841421330547097, `alpha` = 0.935299671931117, `sigma` = 0.326831972396904),
    tight = c(`rho` = 0.841419459008346, `alpha` = 0.935296216224057, `sigma` = 0.326832270610357),
    lp = 11.9180910323578
  ),
  eight_schools_logtau = list(
    default = c(`mu` = 1.43287437059003, `tau` = 28.9746366288182, `theta_tilde[1]` = 0.723112853433015, `theta_tilde[2]` = 0.202525164397858, `theta_tilde[3]` = -0.117240931029331, `theta_tilde[4]` = 0.16793362682373, `theta_tilde[5]` = -0.0765763029751596, `theta_tilde[6]` = -0.0130577465517243, `theta_tilde[7]` = 0.510920735072961, `theta_tilde[8]` = 0.263147876836071),
    bfgs = c(`mu` = 1.43292724623052, `tau` = 28.9746951052325, `theta_tilde[1]` = 0.723106231583473, `theta_tilde[2]` = 0.20252370923494, `theta_tilde[3]` = -0.117242467182471, `theta_tilde[4]` = 0.167930179344411, `theta_tilde[5]` = -0.0765788001405136, `theta_tilde[6]` = -0.0130604223704027, `theta_tilde[7]` = 0.510918243111574, `theta_tilde[8]` = 0.263144014072659),
    tight = c(`mu` = 1.43292586922872, `tau` = 28.9747619249405, `theta_tilde[1]` = 0.723107568697228, `theta_tilde[2]` = 0.202524679240464, `theta_tilde[3]` = -0.117242038933764, `theta_tilde[4]` = 0.167931765102447, `theta_tilde[5]` = -0.076578616339972, `theta_tilde[6]` = -0.0130592842445613, `theta_tilde[7]` = 0.510918794557151, `theta_tilde[8]` = 0.263144605693901),
    lp = -0.794883340474172
  )
)

tight_tol <- list(tol_obj = 1e-20, tol_rel_obj = 1, tol_grad = 1e-14, tol_rel_grad = 1e2,
                  tol_param = 1e-14, iter = 20000)

opt_model <- function(name) tapestry_model(ext(paste0(name, ".stan")))
opt_data <- function(name) ext(paste0(name, ".data.json"))
rel_diff <- function(x, ref) max(abs(x[names(ref)] - ref) / abs(ref))

test_that("L-BFGS and BFGS with Stan's defaults follow rstan's optimizing() to its mode", {
  for (m in c("conjugate_normal", "logistic", "hier_poisson", "ar3_loop", "garch_loop",
              "mixture_loop", "gp_loop")) {
    mod <- opt_model(m)
    ref <- rstan_modes[[m]]
    f <- mod$optimize(data = opt_data(m), seed = 1, init = 0, show_messages = FALSE)
    expect_equal(f$return_codes(), 0L)
    expect_lt(rel_diff(f$mle(), ref$default), 1e-6, label = paste(m, "lbfgs"))
    fb <- mod$optimize(data = opt_data(m), seed = 1, init = 0, algorithm = "bfgs",
                       show_messages = FALSE)
    expect_lt(rel_diff(fb$mle(), ref$bfgs), 1e-6, label = paste(m, "bfgs"))
  }
})

test_that("converged tightly, L-BFGS finds rstan's mode and log density", {
  for (m in c("conjugate_normal", "logistic", "hier_poisson", "ar3_loop", "garch_loop",
              "mixture_loop", "gp_loop")) {
    ref <- rstan_modes[[m]]
    f <- do.call(opt_model(m)$optimize,
                 c(list(data = opt_data(m), seed = 1, init = 0, show_messages = FALSE),
                   tight_tol))
    expect_lt(rel_diff(f$mle(), ref$tight), 1e-6, label = m)
    expect_equal(f$lp(), ref$lp, tolerance = 1e-10, label = m)
  }
})

test_that("jacobian = TRUE finds the mode of the unconstrained density (eight schools)", {
  mod <- opt_model("eight_schools")
  ref <- rstan_modes$eight_schools_logtau
  f <- do.call(mod$optimize, c(list(data = opt_data("eight_schools"), seed = 1, init = 0,
                                    jacobian = TRUE, show_messages = FALSE), tight_tol))
  expect_lt(rel_diff(f$mle(), ref$tight), 1e-6)
  expect_equal(f$lp(), ref$lp, tolerance = 1e-10)
  expect_equal(f$lp(), f$log_prob(drop(f$unconstrained_draws()), jacobian = TRUE))
  f0 <- mod$optimize(data = opt_data("eight_schools"), seed = 1, init = 0, jacobian = TRUE,
                     show_messages = FALSE)
  expect_lt(rel_diff(f0$mle(), ref$default), 1e-6)
  # with and without the Jacobian: a positive scale's mode moves
  m2 <- tapestry_model(code = "parameters { real<lower=0> s; } model { s ~ gamma(3, 2); }")
  g1 <- do.call(m2$optimize, c(list(seed = 1, show_messages = FALSE), tight_tol))
  g2 <- do.call(m2$optimize, c(list(seed = 1, jacobian = TRUE, show_messages = FALSE), tight_tol))
  expect_equal(g1$mle()[["s"]], 1, tolerance = 1e-8)
  expect_equal(g2$mle()[["s"]], 1.5, tolerance = 1e-7)
})

test_that("all three algorithms find conjugate_normal's closed-form mode", {
  d <- jsonlite::fromJSON(opt_data("conjugate_normal"))
  prec <- 1 / d$tau0^2 + d$N / d$sigma^2
  mode <- (d$mu0 / d$tau0^2 + sum(d$y) / d$sigma^2) / prec
  mod <- opt_model("conjugate_normal")
  for (alg in c("lbfgs", "bfgs", "newton")) {
    f <- mod$optimize(data = d, seed = 3, algorithm = alg, show_messages = FALSE)
    expect_equal(f$mle()[["mu"]], mode, tolerance = 1e-8, label = alg)
    expect_equal(f$metadata()$algorithm, alg)
  }
  # Newton on a correlated model: rstan's tight mode to Newton's own stopping rule
  f <- opt_model("logistic")$optimize(data = opt_data("logistic"), seed = 1, init = 0,
                                      algorithm = "newton", show_messages = FALSE)
  expect_lt(rel_diff(f$mle(), rstan_modes$logistic$tight), 1e-5)
})

test_that("the fit has CmdStanMLE's shape", {
  mod <- opt_model("eight_schools")
  f <- mod$optimize(data = opt_data("eight_schools"), seed = 2, jacobian = TRUE,
                    show_messages = FALSE)
  d <- f$draws()
  expect_s3_class(d, "draws_matrix")
  expect_equal(posterior::ndraws(d), 1L)
  expect_equal(posterior::variables(d)[1], "lp__")
  expect_setequal(posterior::variables(d),
                  c("lp__", "mu", "tau", paste0("theta_tilde[", 1:8, "]"),
                    paste0("theta[", 1:8, "]")))
  expect_equal(names(f$mle()), posterior::variables(d)[-1])
  expect_equal(unname(f$mle("theta")), unname(f$mle()[paste0("theta[", 1:8, "]")]))
  expect_equal(f$mle()[["theta[3]"]],
               f$mle()[["mu"]] + f$mle()[["tau"]] * f$mle()[["theta_tilde[3]"]])
  expect_equal(f$lp(), as.vector(d[, "lp__"]))
  expect_s3_class(f$draws(format = "df"), "draws_df")
  s <- f$summary(c("mu", "tau"))
  expect_equal(s$variable, c("mu", "tau"))
  expect_equal(s$estimate, unname(f$mle()[c("mu", "tau")]))
  expect_equal(f$return_codes(), 0L)
  md <- f$metadata()
  expect_equal(md$seed, 2)
  expect_true(md$iterations > 0 && md$gradient_evaluations >= md$iterations)
  expect_equal(md$tol_rel_grad, 1e7)
  expect_equal(md$history_size, 5L)
  expect_match(md$return_message, "Convergence detected")
  i <- f$init()
  expect_named(i, c("mu", "tau", "theta_tilde"))
  expect_true(all(abs(i$theta_tilde) <= 2) && i$tau > exp(-2) && i$tau < exp(2))
  expect_output(f$output(), "Optimization terminated normally")
  expect_output(print(f), "theta_tilde")
  expect_error(f$draws("nope"), "Can't find")
  # the same seed, the same start and result
  f2 <- mod$optimize(data = opt_data("eight_schools"), seed = 2, jacobian = TRUE,
                     show_messages = FALSE)
  expect_identical(f2$mle(), f$mle())
  expect_message(mod$optimize(data = opt_data("eight_schools"), seed = 2, jacobian = TRUE),
                 "Optimization terminated normally")
})

test_that("init: values, and a fit of $optimize()", {
  mod <- opt_model("logistic")
  f <- mod$optimize(data = opt_data("logistic"), seed = 1, init = 0, show_messages = FALSE)
  expect_equal(unname(f$init()$alpha), 0)
  f2 <- mod$optimize(data = opt_data("logistic"), seed = 1, init = f, show_messages = FALSE)
  expect_lt(f2$metadata()$iterations, 3)
  expect_equal(unname(f2$init()$alpha), f$mle()[["alpha"]])
  expect_equal(f2$lp(), f$lp(), tolerance = 1e-8)
  f3 <- mod$optimize(data = opt_data("logistic"), seed = 1,
                     init = list(alpha = 0.3, beta = rep(0, 20)), show_messages = FALSE)
  expect_equal(f3$init()$alpha, 0.3)
  expect_equal(f3$lp(), rstan_modes$logistic$lp, tolerance = 1e-8)
})

test_that("failures are reported, not hidden", {
  mod <- tapestry_model(code = "parameters { real x; } model { target += x; }")
  expect_warning(f <- mod$optimize(seed = 1, show_messages = FALSE), "Line search failed")
  expect_equal(f$return_codes(), 1L)
  bad <- tapestry_model(code = "parameters { real x; } model { reject(\"no\"); }")
  expect_error(bad$optimize(seed = 1, show_messages = FALSE), "Initialization of optimization failed")
})

test_that("arguments are checked, and cmdstanr's that cannot apply say so", {
  mod <- opt_model("conjugate_normal")
  d <- opt_data("conjugate_normal")
  expect_error(mod$optimize(data = d, algorithm = "sgd"), "lbfgs")
  expect_error(mod$optimize(data = d, algorithm = "newton", history_size = 3),
               "applies to algorithm")
  expect_error(mod$optimize(data = d, algorithm = "bfgs", history_size = 3),
               "applies to algorithm \"lbfgs\"")
  expect_error(mod$optimize(data = d, iter = 0), "`iter`")
  expect_error(mod$optimize(data = d, tol_grad = -1), "`tol_grad`")
  expect_error(mod$optimize(data = d, jacobian = NA), "jacobian")
  expect_error(mod$optimize(data = d, bogus = 1), "has no argument `bogus`")
  expect_message(mod$optimize(data = d, seed = 1, output_dir = tempdir(), show_messages = FALSE),
                 "`output_dir` is ignored")
  expect_message(mod$optimize(data = d, seed = 1, sig_figs = 10, show_messages = FALSE),
                 "`sig_figs` is ignored")
  f <- mod$optimize(data = d, seed = 1, iter = 1, init = 1, show_messages = FALSE)
  expect_equal(f$metadata()$iterations, 1L)
})

test_that("mle() of one variable is that variable's named value, as cmdstanr's", {
  mod <- tapestry_model(code = "
    data { int N; array[N] int<lower=0, upper=1> y; }
    parameters { real<lower=0, upper=1> theta; }
    model { theta ~ beta(1, 1); y ~ bernoulli(theta); }")
  f <- mod$optimize(data = list(N = 10, y = c(0, 1, 0, 0, 0, 0, 0, 0, 0, 1)), seed = 123)
  expect_equal(f$mle("theta"), c(theta = 0.2), tolerance = 1e-6)
  expect_equal(f$mle(), c(theta = 0.2), tolerance = 1e-6)
})

test_that("summary() and print() show one estimate per variable, as cmdstanr's CmdStanMLE", {
  mod <- tapestry_model(code = "
    parameters { real<lower=0, upper=1> theta; }
    model { theta ~ beta(3, 9); }")
  f <- mod$optimize(seed = 1)
  s <- f$summary()
  expect_named(s, c("variable", "estimate"))
  expect_equal(s$estimate[s$variable == "theta"], 2 / 10, tolerance = 1e-4)
  expect_output(f$print(), "theta +0\\.20")
  expect_true("mean" %in% names(f$summary(NULL, "mean")))
})
