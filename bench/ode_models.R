# ODE programs as a Stan user writes them (issue 16): a Lotka-Volterra
# predator-prey model, an SIR epidemic and a one-compartment pharmacokinetic
# model with first-order absorption, each fitted with 4 chains (2 at a time)
# to data simulated here from known parameters; prints the posterior summary
# of those parameters, whether the truth lies in each 90% interval, rhat and
# the time.  Run by hand from the repository root:
#   Rscript bench/ode_models.R [lv] [sir] [pk]
# The PK model orders ka > ke: with one compartment and first-order
# absorption the two rates are otherwise interchangeable (flip-flop
# kinetics), and chains split between the two modes.
suppressMessages({ library(tapestry); library(posterior) })
which <- commandArgs(TRUE)
if (!length(which)) which <- c("lv", "sir", "pk")

# RK4 with small steps, for simulating the data
rk4 <- function(f, y0, ts, h = 1e-3) {
  out <- matrix(NA, length(ts), length(y0))
  y <- y0; t <- 0
  for (i in seq_along(ts)) {
    while (t < ts[i] - 1e-12) {
      s <- min(h, ts[i] - t)
      k1 <- f(t, y); k2 <- f(t + s / 2, y + s / 2 * k1); k3 <- f(t + s / 2, y + s / 2 * k2); k4 <- f(t + s, y + s * k3)
      y <- y + s / 6 * (k1 + 2 * k2 + 2 * k3 + k4); t <- t + s
    }
    out[i, ] <- y
  }
  out
}

run <- function(name, code, data, truth) {
  t0 <- Sys.time()
  fit <- tapestry_model(code = code)$sample(data = data, chains = 4, parallel_chains = 2, seed = 1,
                                           refresh = 0, show_messages = FALSE)
  secs <- as.double(difftime(Sys.time(), t0, units = "secs"))
  s <- summarise_draws(fit$draws(names(truth)), "mean", "sd", ~quantile(.x, c(0.05, 0.95)), "rhat")
  s$truth <- unname(truth[s$variable])
  s$covered <- s$truth >= s$`5%` & s$truth <= s$`95%`
  cat(sprintf("\n== %s: %.1f s, %d divergent\n", name, secs, sum(fit$diagnostic_summary()$num_divergent)))
  print(as.data.frame(s), digits = 3, row.names = FALSE)
}

# Lotka-Volterra
lv_code <- "
functions {
  vector lv(real t, vector z, real alpha, real beta, real gamma, real delta) {
    return [(alpha - beta * z[2]) * z[1], (-gamma + delta * z[1]) * z[2]]';
  }
}
data { int T; array[T] real ts; array[T, 2] real y; }
parameters {
  real<lower=0> alpha; real<lower=0> beta; real<lower=0> gamma; real<lower=0> delta;
  vector<lower=0>[2] z0; real<lower=0> sigma;
}
model {
  array[T] vector[2] z = ode_rk45(lv, z0, 0, ts, alpha, beta, gamma, delta);
  alpha ~ normal(1, 0.5); gamma ~ normal(1, 0.5);
  beta ~ normal(0.05, 0.05); delta ~ normal(0.05, 0.05);
  z0 ~ lognormal(log(10), 1);
  sigma ~ lognormal(-1, 1);
  for (k in 1:2) y[, k] ~ lognormal(log(z[, k]), sigma);
}"
th <- c(alpha = 0.55, beta = 0.028, gamma = 0.8, delta = 0.024)
ts <- 1:20
z <- rk4(function(t, z) c((th[["alpha"]] - th[["beta"]] * z[2]) * z[1], (-th[["gamma"]] + th[["delta"]] * z[1]) * z[2]),
         c(33, 6), ts)
set.seed(11)
y <- z * exp(matrix(rnorm(40, 0, 0.15), 20, 2))
if ("lv" %in% which) run("Lotka-Volterra (ode_rk45)", lv_code, list(T = 20, ts = ts, y = y), c(th, sigma = 0.15))

# SIR
sir_code <- "
functions {
  vector sir(real t, vector y, real beta, real gamma, real N) {
    real inf = beta * y[1] * y[2] / N;
    return [-inf, inf - gamma * y[2], gamma * y[2]]';
  }
}
data { int T; array[T] real ts; real N; array[T] int cases; }
parameters { real<lower=0> beta; real<lower=0> gamma; real<lower=0> phi_inv; }
model {
  array[T] vector[3] y = ode_rk45(sir, [N - 1, 1, 0]', 0, ts, beta, gamma, N);
  beta ~ normal(2, 1); gamma ~ normal(0.4, 0.5); phi_inv ~ exponential(5);
  for (t in 1:T) cases[t] ~ neg_binomial_2(fmax(y[t, 2], 1e-6), 1 / phi_inv);
}"
ths <- c(beta = 1.6, gamma = 0.45)
ts <- 1:20
Np <- 763
yy <- rk4(function(t, y) { inf <- ths[["beta"]] * y[1] * y[2] / Np; c(-inf, inf - ths[["gamma"]] * y[2], ths[["gamma"]] * y[2]) },
          c(Np - 1, 1, 0), ts)
set.seed(12)
cases <- rnbinom(20, mu = yy[, 2], size = 10)
if ("sir" %in% which) run("SIR (ode_rk45)", sir_code, list(T = 20, ts = ts, N = Np, cases = cases), c(ths, phi_inv = 0.1))

# one-compartment pharmacokinetics, first-order absorption
pk_code <- "
functions {
  vector pk(real t, vector a, real ka, real ke) { return [-ka * a[1], ka * a[1] - ke * a[2]]'; }
}
data { int T; array[T] real ts; real dose; vector[T] conc; }
parameters { real<lower=0> ke; real<lower=ke> ka; real<lower=0> V; real<lower=0> sigma; }
model {
  array[T] vector[2] a = ode_bdf(pk, [dose, 0]', 0, ts, ka, ke);
  ka ~ lognormal(0, 1); ke ~ lognormal(-2, 1); V ~ lognormal(2, 1); sigma ~ normal(0, 0.5);
  for (t in 1:T) conc[t] ~ lognormal(log(a[t, 2] / V), sigma);
}"
thp <- c(ka = 1.2, ke = 0.15, V = 8)
ts <- c(0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24)
ap <- rk4(function(t, a) c(-thp[["ka"]] * a[1], thp[["ka"]] * a[1] - thp[["ke"]] * a[2]), c(100, 0), ts)
set.seed(13)
conc <- ap[, 2] / thp[["V"]] * exp(rnorm(length(ts), 0, 0.1))
if ("pk" %in% which) run("one-compartment PK (ode_bdf)", pk_code, list(T = length(ts), ts = ts, dose = 100, conc = conc), c(thp, sigma = 0.1))
