# Hidden Markov models (src/math/prob/tm_hmm.c): hmm_marginal, hmm_hidden_state_prob,
# hmm_latent_rng against a plain forward-backward algorithm in R.

set.seed(41)
K <- 3; N <- 6
Gam <- matrix(runif(K * K), K); Gam <- Gam / rowSums(Gam)
rho <- c(0.2, 0.5, 0.3)
LO <- matrix(rnorm(K * N, -1, 1), K, N)
hmm_types <- c("matrix", "matrix", "vector")

# log p(y) by the forward algorithm (no simplex requirement: used for differences too)
r_forward <- function(LO, Gam, rho) {
  la <- log(rho) + LO[, 1]
  if (ncol(LO) > 1)
    for (n in 2:ncol(LO)) {
      m <- max(la)
      la <- log(as.numeric(exp(la - m) %*% Gam)) + m + LO[, n]
    }
  m <- max(la); m + log(sum(exp(la - m)))
}
r_marginals <- function(LO, Gam, rho) {
  N <- ncol(LO); K <- nrow(LO); om <- exp(LO)
  a <- matrix(0, K, N); b <- matrix(1, K, N)
  a[, 1] <- rho * om[, 1]
  for (n in seq_len(N)[-1]) a[, n] <- as.numeric(a[, n - 1] %*% Gam) * om[, n]
  for (n in rev(seq_len(N - 1))) b[, n] <- Gam %*% (om[, n + 1] * b[, n + 1])
  p <- a * b
  sweep(p, 2, colSums(p), "/")
}

test_that("hmm_marginal equals the forward algorithm, also far in the tails", {
  expect_equal(tval("hmm_marginal", list(LO, Gam, rho), hmm_types), r_forward(LO, Gam, rho), tolerance = 1e-13)
  expect_equal(tval("hmm_marginal", list(LO[, 1, drop = FALSE], Gam, rho), hmm_types),
               log(sum(rho * exp(LO[, 1]))), tolerance = 1e-14)
  expect_equal(tval("hmm_marginal", list(matrix(0, K, 0), Gam, rho), hmm_types), 0)
  # every log density of every observation near -1000: no underflow
  expect_equal(tval("hmm_marginal", list(LO - 1000, Gam, rho), hmm_types), r_forward(LO, Gam, rho) - 1000 * N,
               tolerance = 1e-13)
  # an impossible state sequence gives -Inf, and NaN propagates
  Gz <- diag(K); LOz <- LO; LOz[, 2] <- c(-Inf, 0, -Inf); rz <- c(1, 0, 0)
  expect_equal(tval("hmm_marginal", list(LOz, Gz, rz), hmm_types), -Inf)
  LOn <- LO; LOn[2, 3] <- NaN
  expect_true(is.nan(tval("hmm_marginal", list(LOn, Gam, rho), hmm_types)))
})

test_that("hmm_marginal gradients: log_omegas by finite differences, Gamma and rho by the unconstrained forward", {
  for (lo in list(LO, LO[, 1, drop = FALSE], LO[, 1:2])) {
    r <- expect_gradient_fd("hmm_marginal", list(lo, Gam, rho), hmm_types, c(TRUE, FALSE, FALSE))
    expect_equal(r$nodes[1], 1)
    r <- tp_call("hmm_marginal", list(lo, Gam, rho), hmm_types, c(TRUE, TRUE, TRUE))
    expect_equal(r$nodes[1], 1)
    gG <- fd_jac(function(x) r_forward(lo, matrix(x, K), rho), as.numeric(Gam))
    grho <- fd_jac(function(x) r_forward(lo, Gam, x), rho)
    expect_equal(as.numeric(r$jacobian[[2]]), as.numeric(gG), tolerance = 1e-8)
    expect_equal(as.numeric(r$jacobian[[3]]), as.numeric(grho), tolerance = 1e-8)
    # d/dlog_omega are the posterior marginals
    expect_equal(as.numeric(r$jacobian[[1]]), as.numeric(r_marginals(lo, Gam, rho)), tolerance = 1e-12)
  }
})

test_that("hmm_hidden_state_prob gives the posterior marginals", {
  P <- tval("hmm_hidden_state_prob", list(LO, Gam, rho), hmm_types)
  expect_equal(P, r_marginals(LO, Gam, rho), tolerance = 1e-13)
  expect_equal(colSums(P), rep(1, N), tolerance = 1e-15)
  expect_equal(tval("hmm_hidden_state_prob", list(LO - 800, Gam, rho), hmm_types), P, tolerance = 1e-12)
})

test_that("hmm_latent_rng draws follow the posterior (marginals and consecutive pairs)", {
  nd <- 20000
  x <- do.call(rbind, tp_rng("hmm_latent_rng", list(LO, Gam, rho), hmm_types, nd, seed = 5))
  expect_equal(dim(x), c(nd, N))
  expect_true(all(x %in% 1:K))
  P <- r_marginals(LO, Gam, rho)
  for (n in 1:N) {
    f <- tabulate(x[, n], K) / nd
    expect_true(all(abs(f - P[, n]) < 4.5 * sqrt(P[, n] * (1 - P[, n]) / nd) + 1e-12),
                label = paste("frequencies at", n, ":", paste(round(f, 4), collapse = " "),
                              "vs", paste(round(P[, n], 4), collapse = " ")))
  }
  # p(x_2 = j, x_3 = k | y) = alpha_2(j) Gamma[j, k] omega_3(k) beta_3(k) / p(y)
  om <- exp(LO); a <- rho * om[, 1]; a <- as.numeric(a %*% Gam) * om[, 2]
  b <- rep(1, K); for (n in N:4) b <- as.numeric(Gam %*% (om[, n] * b))
  J <- outer(a, om[, 3] * b) * Gam; J <- J / sum(J)
  f2 <- table(factor(x[, 2], 1:K), factor(x[, 3], 1:K)) / nd
  expect_true(all(abs(f2 - J) < 4.5 * sqrt(J * (1 - J) / nd) + 1e-12))
  # deterministic chains give the only possible path
  Gd <- matrix(c(0, 0, 1, 1, 0, 0, 0, 1, 0), 3)   # 1 -> 2 -> 3 -> 1
  y <- tp_rng("hmm_latent_rng", list(LO, Gd, c(0, 1, 0)), hmm_types, 3, seed = 2)
  for (d in y) expect_equal(d, c(2L, 3L, 1L, 2L, 3L, 1L))
})

test_that("the HMM functions check their arguments as Stan does", {
  for (fn in c("hmm_marginal", "hmm_hidden_state_prob")) {
    expect_error(tp_call(fn, list(LO, Gam, c(0.5, 0.5)), hmm_types),
                 paste0(fn, ": rho has dimension = 2, expecting dimension = 3"))
    expect_error(tp_call(fn, list(LO, Gam[, 1:2], rho), hmm_types), paste0(fn, ": Expecting a square matrix"))
    expect_error(tp_call(fn, list(LO, Gam, c(0.2, 0.5, 0.4)), hmm_types), paste0(fn, ": rho is not a valid simplex"))
    G2 <- Gam; G2[2, 1] <- G2[2, 1] + 0.1
    expect_error(tp_call(fn, list(LO, G2, rho), hmm_types), paste0(fn, ": Gamma\\[i, \\] is not a valid simplex"))
  }
  expect_error(tp_rng("hmm_latent_rng", list(LO[1:2, ], Gam, rho[1:2] / sum(rho[1:2])), hmm_types, 1),
               "Columns of Gamma \\(3\\) and Rows of log_omegas \\(2\\) must match in size")
})

test_that("an HMM program: tree and plan agree, gradients match finite differences", {
  code <- "
    data { int N; vector[N] y; }
    parameters {
      ordered[2] mu; real<lower=0> sigma;
      array[2] simplex[2] g; simplex[2] rho;
    }
    model {
      matrix[2, N] lo;
      matrix[2, 2] Gamma;
      for (k in 1:2) {
        Gamma[k] = g[k]';
        for (n in 1:N) lo[k, n] = normal_lpdf(y[n] | mu[k], sigma);
      }
      mu ~ normal(0, 3); sigma ~ lognormal(0, 1);
      target += hmm_marginal(lo, Gamma, rho);
    }
    generated quantities {
      array[N] int z;
      matrix[2, N] p;
      {
        matrix[2, N] lo; matrix[2, 2] Gamma;
        for (k in 1:2) { Gamma[k] = g[k]'; for (n in 1:N) lo[k, n] = normal_lpdf(y[n] | mu[k], sigma); }
        z = hmm_latent_rng(lo, Gamma, rho);
        p = hmm_hidden_state_prob(lo, Gamma, rho);
      }
    }"
  m <- tapestry_model(code = code)
  y <- c(-1.2, -0.8, -1.1, 1.3, 0.9, 1.2, 1.1, -0.9)
  ctx <- m$bind(list(N = length(y), y = y))
  pts <- list(c(-0.5, 0.3, 0.1, 0.4, -0.3, 0.2), c(0.2, -0.1, -0.4, -0.2, 0.5, -0.6))
  expect_paths_and_fd(ctx, pts)
  # sampling: the latent draws of generated quantities agree with the state probabilities
  fit <- m$sample(data = list(N = length(y), y = y), seed = 3, chains = 2, parallel_chains = 1,
                  iter_warmup = 300, iter_sampling = 400, refresh = 0, show_messages = FALSE)
  z <- posterior::as_draws_matrix(fit$draws("z"))
  p <- posterior::as_draws_matrix(fit$draws("p"))
  expect_true(all(z %in% 1:2))
  for (n in seq_along(y)) {
    f1 <- mean(z[, n] == 1); p1 <- mean(p[, paste0("p[1,", n, "]")])
    expect_lt(abs(f1 - p1), 4 * sqrt(p1 * (1 - p1) / nrow(z)) + 1e-3)
  }
  expect_gt(mean(p[, "p[1,1]"]), 0.8)     # the first observations are in the low state
  expect_lt(mean(p[, "p[1,4]"]), 0.2)
})
