# GLM kernels side by side with rstan 2.21: gradient time of one log density
# with N = 5000 outcomes and K = 24 predictors (data x), tapestry / rstan,
# interleaved repetitions in one R process, medians.  Run by hand from the
# repository root after installing tapestry:  Rscript bench/glm.R
# Needs rstan (Debian r-cran-rstan) and RcppEigen; compiles six programs.
suppressMessages({ library(rstan); library(tapestry) })
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"))
N <- as.integer(Sys.getenv("GLM_N", "5000")); K <- as.integer(Sys.getenv("GLM_K", "24"))
reps <- as.integer(Sys.getenv("GLM_REPS", "40"))
set.seed(1)
x <- matrix(rnorm(N * K), N, K)
eta <- as.vector(0.3 + x %*% rnorm(K, 0, 0.2))
data <- list(N = N, K = K, x = x,
             yn = rnorm(N, eta), yb = rbinom(N, 1, plogis(eta)), yp = rpois(N, exp(eta)),
             yo = as.integer(cut(eta + rlogis(N), c(-Inf, -1, 0, 1, Inf))),
             yc = sample(1:3, N, TRUE))
# Stan 2.21's old array syntax and tapestry's current syntax, one template
prog <- function(ydecl, pars, lik, old) {
  ydecl <- if (old) sub("array\\[N\\] int (\\w+)", "int \\1[N]", ydecl) else ydecl
  sprintf("data { int N; int K; matrix[N, K] x; %s; }
  parameters { %s }
  model { %s }", ydecl, pars, lik)
}
cases <- list(
  normal_id_glm = c("vector[N] yn", "real alpha; vector[K] beta; real<lower=0> sigma;",
    "beta ~ normal(0, 1); alpha ~ normal(0, 1); sigma ~ exponential(1); yn ~ normal_id_glm(x, alpha, beta, sigma);"),
  bernoulli_logit_glm = c("array[N] int yb", "real alpha; vector[K] beta;",
    "beta ~ normal(0, 1); alpha ~ normal(0, 1); yb ~ bernoulli_logit_glm(x, alpha, beta);"),
  poisson_log_glm = c("array[N] int yp", "real alpha; vector[K] beta;",
    "beta ~ normal(0, 1); alpha ~ normal(0, 1); yp ~ poisson_log_glm(x, alpha, beta);"),
  neg_binomial_2_log_glm = c("array[N] int yp", "real alpha; vector[K] beta; real<lower=0> phi;",
    "beta ~ normal(0, 1); alpha ~ normal(0, 1); phi ~ exponential(1); yp ~ neg_binomial_2_log_glm(x, alpha, beta, phi);"),
  ordered_logistic_glm = c("array[N] int yo", "vector[K] beta; ordered[3] cuts;",
    "beta ~ normal(0, 1); yo ~ ordered_logistic_glm(x, beta, cuts);"),
  categorical_logit_glm = c("array[N] int yc", "vector[3] alpha; matrix[K, 3] beta;",
    "to_vector(beta) ~ normal(0, 1); yc ~ categorical_logit_glm(x, alpha, beta);")
)
only <- Sys.getenv("GLM_ONLY", "")
res <- NULL
for (nm in names(cases)) {
  if (nzchar(only) && !grepl(only, nm)) next
  cs <- cases[[nm]]
  sm <- tryCatch(stan_model(model_code = prog(cs[1], cs[2], cs[3], TRUE), model_name = nm),
                 error = function(e) NULL)
  if (is.null(sm)) {   # ordered_logistic_glm and categorical_logit_glm came after Stan 2.21
    cat(nm, ": not in Stan 2.21's language, no comparison\n")
    next
  }
  fit <- sampling(sm, data = data, chains = 1, iter = 1, algorithm = "Fixed_param", refresh = 0,
                  init = function() list(sigma = 1, phi = 1, cuts = c(-1, 0, 1)))
  ctx <- tapestry_model(code = prog(cs[1], cs[2], cs[3], FALSE))$bind(data)
  n <- ctx$num_upars()
  set.seed(2); u <- runif(n, -0.3, 0.3)
  ga <- grad_log_prob(fit, u); gb <- ctx$grad_log_prob(u)
  stopifnot(isTRUE(all.equal(as.vector(ga), as.vector(gb), tolerance = 1e-8)))
  ta <- tb <- numeric(reps)
  for (r in seq_len(reps)) {
    t0 <- Sys.time(); for (i in 1:100) grad_log_prob(fit, u); ta[r] <- as.double(Sys.time() - t0, units = "secs")
    t0 <- Sys.time(); for (i in 1:100) ctx$grad_log_prob(u); tb[r] <- as.double(Sys.time() - t0, units = "secs")
  }
  ta <- ta / 100; tb <- tb / 100
  row <- data.frame(glm = nm, rstan_us = 1e6 * median(ta), tapestry_us = 1e6 * median(tb),
                    ratio = median(tb) / median(ta))
  print(row, row.names = FALSE)
  res <- rbind(res, row)
}
cat(sprintf("\nN = %d, K = %d; gradient time, median of %d interleaved repetitions of 100 calls\n", N, K, reps))
print(res, row.names = FALSE, digits = 3)
