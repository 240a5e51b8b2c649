# Test fixtures of what brms writes: for every brms family and every kind of
# term, the Stan program and data brms 2.18 makes (make_stancode,
# make_standata: no compiler) for simulated data, and rstan 2.21's log
# density and gradient at three points, so that tests/testthat/test-brms.R
# checks tapestry against Stan with neither brms nor rstan installed.
#
# Run by hand from the repository root (needs brms, rstan, RcppEigen and an
# installed tapestry, whose model object tells each data variable's declared
# shape for the JSON):
#   Rscript tools/brms/make-fixtures.R [name-pattern]
# Each case is compiled by rstan (a minute or so each); a case whose
# fixture exists is skipped, so the script can be run again after a failure.
# Several families share one program where brms allows it (multivariate
# models with one family per response), to keep the number of compiles down.
suppressMessages({
  library(brms)
  library(rstan)
  library(tapestry)
})
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"))
out_dir <- "tests/testthat/fixtures/brms"
dir.create(out_dir, recursive = TRUE, showWarnings = FALSE)
only <- commandArgs(TRUE)[1]

set.seed(20261124)
N <- 40
d <- data.frame(x = rnorm(N), z = rnorm(N), g = factor(sample(1:5, N, TRUE)),
                h = factor(sample(1:3, N, TRUE)), loc = factor(rep(1:10, 4)), t = 1:N)
d$y <- 0.5 * d$x + rnorm(N)
d$y2 <- rt(N, 5) + d$z
d$y3 <- rnorm(N) + rexp(N)
d$cnt <- rpois(N, exp(0.5 + 0.3 * d$x))
d$cnt2 <- rnbinom(N, size = 3, mu = exp(1 + 0.2 * d$x))
d$bin <- rbinom(N, 1, plogis(0.4 * d$x))
d$trials <- 10L
d$succ <- rbinom(N, 10, plogis(0.3 * d$x))
d$pos <- rgamma(N, 3, 2)
d$pos2 <- rlnorm(N, 0.2 * d$x, 0.5)
d$pos3 <- rweibull(N, 2, 1.5)
d$prop <- rbeta(N, 2, 3)
d$zcnt <- ifelse(runif(N) < 0.3, 0L, d$cnt2)
d$zpos <- ifelse(runif(N) < 0.3, 0, d$pos)
d$zprop <- ifelse(runif(N) < 0.3, 0, d$prop)
d$p01 <- ifelse(runif(N) < 0.15, 0, ifelse(runif(N) < 0.15, 1, d$prop))
d$zsucc <- ifelse(runif(N) < 0.3, 0L, d$succ)
d$ang <- runif(N, -3, 3)
d$ord <- factor(sample(1:4, N, TRUE), ordered = TRUE)
d$ord2 <- factor(sample(1:3, N, TRUE), ordered = TRUE)
d$cat <- factor(sample(1:3, N, TRUE))
d$mo1 <- factor(sample(1:4, N, TRUE), ordered = TRUE)
d$xe <- d$x + rnorm(N, 0, 0.3)
d$sdx <- 0.3
d$se <- runif(N, 0.2, 0.6)
d$w <- runif(N, 0.5, 1.5)
d$cens <- sample(c(-1, 0, 1, 2), N, TRUE)
d$ub <- d$pos + 1
d$cens01 <- rbinom(N, 1, 0.2)
d$rt <- rgamma(N, 3, 6) + 0.3
d$dec <- rbinom(N, 1, 0.6)
d$ymis <- d$y; d$ymis[c(3, 7, 20)] <- NA
d$xmis <- d$x; d$xmis[c(2, 9)] <- NA
d$time <- rexp(N)
d$event <- rbinom(N, 1, 0.7)
d$Ymult <- t(rmultinom(N, 10, c(0.2, 0.3, 0.5))); colnames(d$Ymult) <- c("a", "b", "c")
d$size <- 10L
d$Ydir <- t(apply(matrix(rgamma(3 * N, 2), N), 1, function(r) r / sum(r))); colnames(d$Ydir) <- c("a", "b", "c")
# copies: a multivariate model uses each response once
d$cnt_b <- d$cnt; d$zcnt_b <- d$zcnt; d$zcnt_c <- d$zcnt; d$zcnt_d <- d$zcnt
d$zpos_b <- d$zpos; d$ord_b <- d$ord; d$ord_c <- d$ord; d$ord2_b <- d$ord2
W <- matrix(0, 10, 10); for (i in 1:9) { W[i, i + 1] <- 1; W[i + 1, i] <- 1 }; rownames(W) <- 1:10
Wn <- matrix(0, N, N); for (i in 1:(N - 1)) { Wn[i, i + 1] <- 1; Wn[i + 1, i] <- 1 }; Wn <- Wn / rowSums(Wn)
Mcor <- diag(N); for (i in 1:(N - 1)) { Mcor[i, i + 1] <- Mcor[i + 1, i] <- 0.3 }

# name = list(formula, family (NULL inside bf()), prior, data2, threads)
cs <- function(formula, family = NULL, prior = NULL, data2 = NULL, threads = NULL)
  list(formula = formula, family = family, prior = prior, data2 = data2, threads = threads)
cases <- list(
  # families, several per program
  fam_real = cs(bf(y ~ x, family = gaussian()) + bf(y2 ~ x, family = student()) +
                bf(y3 ~ x, family = skew_normal()) + bf(z ~ x, family = exgaussian()) + set_rescor(FALSE)),
  fam_real2 = cs(bf(y ~ x, family = gen_extreme_value()) + bf(y2 ~ x, family = asym_laplace()) +
                 bf(ang ~ x, family = von_mises()) + set_rescor(FALSE)),
  fam_pos = cs(bf(pos ~ x, family = Gamma("log")) + bf(pos2 ~ x, family = lognormal()) +
               bf(pos3 ~ x, family = weibull()) + bf(rt ~ x, family = exponential()) + set_rescor(FALSE)),
  fam_pos2 = cs(bf(pos ~ x, family = frechet()) + bf(pos2 ~ x, family = inverse.gaussian()) +
                bf(pos3 ~ x, family = shifted_lognormal()) + bf(prop ~ x, family = Beta()) + set_rescor(FALSE)),
  fam_count = cs(bf(cnt ~ x, family = poisson()) + bf(cnt2 ~ x, family = negbinomial()) +
                 bf(cnt_b ~ z, family = geometric()) + bf(succ | trials(trials) ~ x, family = binomial()) +
                 bf(bin ~ x, family = bernoulli()) + set_rescor(FALSE)),
  fam_zero = cs(bf(zcnt ~ x, family = hurdle_poisson()) + bf(zcnt_b ~ z, family = hurdle_negbinomial()) +
                bf(zcnt_c ~ x + z, family = zero_inflated_poisson()) +
                bf(zcnt_d ~ 1, family = zero_inflated_negbinomial()) +
                bf(zsucc | trials(trials) ~ x, family = zero_inflated_binomial()) + set_rescor(FALSE)),
  fam_zero2 = cs(bf(zpos ~ x, family = hurdle_gamma()) + bf(zpos_b ~ z, family = hurdle_lognormal()) +
                 bf(zprop ~ x, family = zero_inflated_beta()) + bf(p01 ~ x, family = zero_one_inflated_beta()) +
                 set_rescor(FALSE)),
  fam_ordinal = cs(bf(ord ~ x, family = cumulative()) + bf(ord2 ~ x, family = cumulative("probit")) +
                   bf(ord_b ~ z, family = cratio()) + bf(ord2_b ~ cs(x), family = sratio()) +
                   bf(ord_c ~ x + z, family = acat()) + set_rescor(FALSE)),
  categorical = cs(cat ~ x + (1 | g), categorical()),
  multinomial = cs(Ymult | trials(size) ~ x, multinomial()),
  dirichlet = cs(Ydir ~ x, dirichlet()),
  wiener = cs(rt | dec(dec) ~ x, wiener()),
  cox = cs(time | cens(1 - event) ~ x, brmsfamily("cox")),
  mixture = cs(y ~ x, mixture(gaussian, gaussian)),
  mixture2 = cs(bf(y ~ x, theta2 ~ z), mixture(gaussian, student)),
  # the GLM functions brms writes for fixed effects alone
  glm_gaussian = cs(y ~ x + z, gaussian()),
  glm_bernoulli = cs(bin ~ x + z, bernoulli()),
  glm_poisson = cs(cnt ~ x + z, poisson()),
  glm_negbinomial = cs(cnt2 ~ x + z + (1 | g), negbinomial()),
  # kinds of terms
  group_terms = cs(y ~ x + (1 + x | g) + (1 + z || h) + (1 | g:h), gaussian()),
  group_shared = cs(bf(y ~ x + (1 + x | p | g)) + bf(cnt ~ z + (1 | p | g), family = poisson()) + set_rescor(FALSE)),
  splines = cs(y ~ s(x) + t2(x, z) + s(z, by = h) + h, gaussian()),
  gp = cs(y ~ gp(x) + gp(z, by = h), gaussian()),
  gp_approx = cs(y ~ gp(x, k = 6, c = 5/4) + gp(x, z, k = 4, c = 5/4), gaussian()),
  mo_me = cs(y ~ mo(mo1) + mo(ord):x + me(xe, sdx), gaussian()),
  mi = cs(bf(ymis | mi() ~ x + mi(xmis)) + bf(xmis | mi() ~ z) + set_rescor(FALSE), gaussian()),
  ar = cs(y ~ x + ar(p = 2), gaussian()),
  ma = cs(y ~ x + ma(gr = g), gaussian()),
  arma = cs(y ~ x + arma(p = 1, q = 1), gaussian()),
  ar_cov = cs(cnt ~ x + ar(gr = g, cov = TRUE), poisson()),
  cosy = cs(y ~ x + cosy(), gaussian()),
  car = cs(y ~ x + car(W, gr = loc), gaussian(), data2 = list(W = W)),
  car_icar = cs(cnt ~ x + car(W, gr = loc, type = "icar"), poisson(), data2 = list(W = W)),
  sar_lag = cs(y ~ x + sar(Wn, type = "lag"), gaussian(), data2 = list(Wn = Wn)),
  sar_error = cs(y ~ x + sar(Wn, type = "error"), student(), data2 = list(Wn = Wn)),
  fcor = cs(y ~ x + fcor(Mcor), gaussian(), data2 = list(Mcor = Mcor)),
  cens_trunc = cs(pos | cens(cens, ub) + trunc(lb = 0.01, ub = 30) ~ x, lognormal()),
  cens_gamma = cs(pos | cens(cens01) ~ x, Gamma("log")),
  trunc_count = cs(cnt | trunc(ub = 25) ~ x, poisson()),
  trunc_normal = cs(y | trunc(lb = -5) + weights(w) ~ x, gaussian()),
  offset = cs(cnt ~ x + offset(log(pos)), poisson()),
  se = cs(y | se(se, sigma = TRUE) ~ x, gaussian()),
  distributional = cs(bf(y ~ x + (1 | g), sigma ~ x + (1 | g)), gaussian()),
  mv_rescor = cs(mvbf(bf(y ~ x), bf(z ~ x), rescor = TRUE), gaussian()),
  mv_rescor_student = cs(mvbf(bf(y ~ x), bf(y3 ~ z), rescor = TRUE), student()),
  threading = cs(y ~ x + (1 | g), gaussian(), threads = threading(2)),
  threading_pois = cs(cnt ~ x + (1 | g), poisson(), threads = threading(3)),
  nl = cs(bf(pos ~ a * exp(b * x), a ~ 1 + (1 | g), b ~ 1, nl = TRUE), gaussian(),
          prior = c(prior(normal(1, 2), nlpar = "a"), prior(normal(0, 2), nlpar = "b"))),
  horseshoe = cs(y ~ x + z + xe, gaussian(), prior = set_prior(horseshoe(1), class = "b")),
  lasso = cs(y ~ x + z, gaussian(), prior = set_prior("lasso(1)", class = "b")),
  thres_gr = cs(ord | thres(gr = h) ~ x, cumulative()),
  exgaussian_cens_trunc = cs(y3 | cens(cens01) + trunc(lb = -5, ub = 15) ~ x, exgaussian()),
  skew_normal_cens_trunc = cs(y | cens(cens01) + trunc(lb = -6, ub = 6) ~ x, skew_normal())
)

# The JSON CmdStan reads: a value of every declared data variable, arrays
# kept as arrays even when of length one, matrices as arrays of rows.
write_data_json <- function(sd, mod, path) {
  decl <- mod$variables()$data
  out <- list()
  for (nm in names(decl)) {
    v <- sd[[nm]]
    if (is.null(v)) stop("brms gave no value for data variable ", nm)
    v <- unclass(v)
    attr(v, "dimnames") <- NULL
    if (decl[[nm]]$dimensions == 0) {
      out[[nm]] <- as.vector(v)[1]
    } else if (is.null(dim(v))) {
      out[[nm]] <- I(as.vector(v))
    } else {
      out[[nm]] <- v
    }
  }
  writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA, matrix = "rowmajor"), path)
}

for (nm in names(cases)) {
  if (!is.na(only) && !grepl(only, nm)) next
  ref_path <- file.path(out_dir, paste0(nm, ".reference.json"))
  if (file.exists(ref_path)) next
  k <- cases[[nm]]
  args <- list(k$formula, data = d)
  if (!is.null(k$family)) args$family <- k$family
  if (!is.null(k$prior)) args$prior <- k$prior
  if (!is.null(k$data2)) args$data2 <- k$data2
  if (!is.null(k$threads)) args$threads <- k$threads
  cat(sprintf("[%s] %s\n", format(Sys.time(), "%H:%M:%S"), nm))
  res <- tryCatch({
    code <- do.call(make_stancode, args)
    sd <- do.call(make_standata, args)
    stan_path <- file.path(out_dir, paste0(nm, ".stan"))
    writeLines(code, stan_path)
    mod <- suppressWarnings(tapestry_model(stan_path))
    write_data_json(sd, mod, file.path(out_dir, paste0(nm, ".data.json")))
    # Stan 2.21 has no reduce_sum: a threaded program's reference values come
    # from the same model written without threading (same parameters, same
    # order, the same log density)
    ref_code <- code
    ref_data <- sd
    if (!is.null(k$threads)) {
      args$threads <- NULL
      ref_code <- do.call(make_stancode, args)
      ref_data <- do.call(make_standata, args)
    }
    sm <- stan_model(model_code = ref_code, model_name = nm)
    fit <- sampling(sm, data = unclass(ref_data), chains = 1, iter = 1, algorithm = "Fixed_param",
                    init = "0", refresh = 0)
    npar <- get_num_upars(fit)
    points <- list()
    tries <- 0
    while (length(points) < 3 && tries < 200) {
      tries <- tries + 1
      u <- round(runif(npar, -1, 1) * (if (tries > 50) 0.3 else 1), 6)
      lp <- tryCatch(log_prob(fit, u), error = function(e) NA)
      if (!is.finite(lp)) next
      lp0 <- log_prob(fit, u, adjust_transform = FALSE)
      g <- grad_log_prob(fit, u)
      cons <- constrain_pars(fit, u)
      points[[length(points) + 1]] <- list(upars = u, log_prob = lp, log_prob_nojac = lp0,
                                           gradient = as.vector(g), constrained = cons)
    }
    if (length(points) < 3) stop("no three points with a finite log density")
    simplex <- grepl("\\bsimplex\\b", code)
    ref <- list(name = nm, brms = as.character(packageVersion("brms")),
                rstan = as.character(packageVersion("rstan")), num_upars = npar,
                simplex = simplex, points = points)
    writeLines(jsonlite::toJSON(ref, auto_unbox = TRUE, digits = NA), ref_path)
    "ok"
  }, error = function(e) paste("FAILED:", conditionMessage(e)))
  cat(sprintf("  %s\n", res))
}
