# Fits made without the sampler: "raw" results (the sampler's contract with
# the fit object) whose draws are random points of a real model, with lp__
# and the outputs computed by the model's data context, so that the fit's
# methods can be checked against known values.

fit_code <- "
parameters {
  real mu;
  vector[2] theta;
  real<lower=0> sigma;
  matrix[2, 2] M;
}
model {
  mu ~ normal(0, 1);
  theta ~ normal(mu, sigma);
  sigma ~ lognormal(0, 1);
  to_vector(M) ~ normal(0, 1);
}
generated quantities {
  real y = mu + 1;
  int k = 3;
}
"

# Runs code with R's generator seeded, leaving the caller's stream as it was.
with_seed <- function(seed, code) {
  env <- globalenv()
  old <- if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = env) else assign(".Random.seed", old, envir = env))
  set.seed(seed)
  code
}

# One chain of the raw result. The unconstrained points are kept in `upars_`
# (the fit ignores it) for the tests of unconstrain_draws().
fake_chain <- function(ctx, id, n_warmup = 20L, n_sampling = 30L, save_warmup = FALSE,
                       metric = "diag_e", return_code = 0L, message = "",
                       n_divergent = 0L, n_max_depth = 0L, max_depth = 10L) {
  np <- ctx$num_upars()
  nw <- if (save_warmup) n_warmup else 0L
  n <- nw + n_sampling
  # an AR(1) series, so that the effective sample sizes are those of a
  # Markov chain (posterior caps and warns about those of independent draws)
  e <- matrix(rnorm(n * np, sd = 0.5), n, np)
  u <- e
  for (i in seq_len(n)[-1]) u[i, ] <- 0.6 * u[i - 1, ] + 0.8 * e[i, ]
  outs <- ctx$variable_names()
  vals <- matrix(0, n, length(outs))
  lp <- numeric(n)
  for (i in seq_len(n)) {
    vals[i, ] <- unlist(ctx$constrain_variables(u[i, ]), use.names = FALSE)
    lp[i] <- ctx$log_prob(u[i, ])
  }
  step <- 0.5 + id / 10
  depth <- sample(1:3, n, replace = TRUE)
  div <- rep(0, n)
  samp <- nw + seq_len(n_sampling)
  div[samp[seq_len(n_divergent)]] <- 1
  depth[samp[n_sampling + 1L - seq_len(n_max_depth)]] <- max_depth
  draws <- cbind(lp, runif(n), step, depth, 2^depth - 1, div,
                 -lp + rchisq(n, np) / 2, vals)
  colnames(draws) <- c("lp__", "accept_stat__", "stepsize__", "treedepth__",
                       "n_leapfrog__", "divergent__", "energy__", outs)
  inv_metric <- switch(metric,
                       diag_e = runif(np, 0.5, 2),
                       unit_e = rep(1, np),
                       dense_e = {
                         a <- matrix(rnorm(np * np), np)
                         crossprod(a) + diag(np)
                       })
  list(chain_id = as.integer(id), draws = draws, num_warmup_draws = as.integer(nw),
       init = rnorm(np), step_size = step, inv_metric = inv_metric,
       time = c(warmup = 0.25 * id, sampling = 0.5, total = 0.25 * id + 0.5),
       return_code = as.integer(return_code), message = message, n_grad = 1000,
       messages = character(), upars_ = u)
}

fake_args <- function(chains, ...) {
  args <- list(data = list(), seed = 123, chains = chains, chain_ids = seq_len(chains),
               parallel_chains = chains, threads_per_chain = 1L, iter_warmup = 20L,
               iter_sampling = 30L, save_warmup = FALSE, thin = 1L, refresh = 100L,
               init = 2, adapt_delta = 0.8, max_treedepth = 10L, metric = "diag_e",
               inv_metric = NULL, step_size = 1, adapt_engaged = TRUE,
               show_messages = TRUE, init_buffer = 75L, term_buffer = 50L, window = 25L,
               stan_variables = c("mu", "theta", "sigma", "M", "y", "k"),
               model_name = "fitmodel", time_total = 1.5)
  over <- list(...)
  args[names(over)] <- over
  args
}

fit_model <- function() tapestry_model(code = fit_code)

# A fit of `chains` fake chains; `chain_args` is a list (one element per
# chain) of further arguments of fake_chain(), `...` overrides fake_args().
fake_fit <- function(chains = 2L, seed = 1, chain_args = list(), interrupted = FALSE,
                     n_warmup = 20L, n_sampling = 30L, save_warmup = FALSE,
                     metric = "diag_e", ...) {
  mod <- fit_model()
  ctx <- mod$bind(list(), seed = 123)
  raw <- with_seed(seed, {
    list(chains = lapply(seq_len(chains), function(k) {
      a <- c(list(ctx, k, n_warmup = n_warmup, n_sampling = n_sampling,
                  save_warmup = save_warmup, metric = metric),
             if (length(chain_args) >= k) chain_args[[k]])
      do.call(fake_chain, a)
    }), interrupted = interrupted)
  })
  args <- fake_args(chains, iter_warmup = n_warmup, iter_sampling = n_sampling,
                    save_warmup = save_warmup, metric = metric, ...)
  fit <- TapestryFit$new(raw, mod, ctx, args)
  list(fit = fit, raw = raw, ctx = ctx, model = mod)
}

# A new empty directory, removed when the calling test (or function) ends.
local_dir <- function(env = parent.frame()) {
  d <- tempfile("fit")
  dir.create(d)
  do.call(on.exit, list(substitute(unlink(d, recursive = TRUE), list(d = d)), add = TRUE),
          envir = env)
  d
}

# The raw result of a run of ff's chains where Ctrl-C stopped chains 3 and
# 4 (after 12 and 5 saved rows) while 1 and 2 had finished.
interrupted_raw <- function(ff) {
  ch <- ff$raw$chains
  ch[[3]]$draws <- ch[[3]]$draws[1:12, ]
  ch[[4]]$draws <- ch[[4]]$draws[1:5, ]
  ch[[3]]$return_code <- ch[[4]]$return_code <- 2L
  list(chains = ch, interrupted = TRUE)
}
