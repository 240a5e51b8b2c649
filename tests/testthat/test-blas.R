# Dense linear algebra on R's BLAS and LAPACK (tapestry_blas, src/r/r_linalg.c):
# the same values and gradients as tapestry's own kernels (to rounding), R's
# results, finite differences, the same failures, and sampling on the chains'
# threads.  sizes = 1 sends every product, factor and solve to the BLAS.

local_blas <- function(use, sizes = c(gemm = 1, chol = 1, trsm = 1), env = parent.frame()) {
  tapestry_blas(use, sizes)
  do.call(on.exit, list(quote(tapestry_blas(FALSE)), add = TRUE), envir = env)
}

blas_code <- "
  data { int n; matrix[n, n] S; matrix[n, 3] X; }
  parameters { matrix[n, 3] B; real<lower=0> r; }
  model {
    matrix[n, n] A = add_diag(S * r, 1);
    matrix[n, n] L = cholesky_decompose(A);
    matrix[n, 3] Z = mdivide_left_tri_low(L, B);
    matrix[3, 3] P = crossprod(B) + B' * X;
    target += -0.5 * sum(columns_dot_self(Z)) - sum(log(diagonal(L)));
    target += 0.01 * sum(P) + 0.001 * sum(A * B);
    target += normal_lpdf(to_vector(B) | 0, 2) + lognormal_lpdf(r | 0, 1);
  }"

blas_data <- function(n) {
  set.seed(41)
  M <- matrix(rnorm(n * n), n)
  S <- crossprod(M) / n
  list(n = n, S = (S + t(S)) / 2, X = matrix(rnorm(n * 3), n))
}

test_that("tapestry_blas reports its state and refuses bad arguments", {
  st <- tapestry_blas(FALSE)
  expect_false(st$using)
  expect_identical(names(st), c("using", "use", "blas", "lapack", "sizes"))
  expect_true(is.character(st$blas) && is.character(st$lapack))
  on <- tapestry_blas(TRUE)
  expect_true(on$using)
  expect_false(tapestry_blas(FALSE)$using)
  auto <- tapestry_blas("auto")
  expect_identical(auto$using, tapestry:::blas_is_optimized(c(auto$blas, auto$lapack)))
  tapestry_blas(FALSE)
  expect_true(tapestry:::blas_is_optimized("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"))
  expect_false(tapestry:::blas_is_optimized(c("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0",
                                             "/usr/lib/R/lib/libRblas.so")))
  expect_error(tapestry_blas("yes"), "`use` must be \"auto\", TRUE or FALSE")
  expect_error(tapestry_blas(TRUE, c(gemm = 0, chol = 1, trsm = 1)), "`sizes` must be numbers >= 1")
  expect_error(tapestry_blas(TRUE, c(gemm = 1)), "named gemm, chol and trsm")
})

test_that("products, Cholesky factors and solves on R's BLAS: own kernels' values and gradients, R's, finite differences", {
  for (n in c(7, 60, 110)) {
    d <- blas_data(n)
    ctx <- tapestry_model(code = blas_code)$bind(d)
    set.seed(n)
    u <- c(rnorm(n * 3, sd = 0.5), log(0.8))
    tapestry_blas(FALSE)
    own_lp <- ctx$log_prob(u)
    own_g <- ctx$grad_log_prob(u)
    local_blas(TRUE)
    lp <- ctx$log_prob(u)
    g <- ctx$grad_log_prob(u)
    expect_equal(lp, own_lp, tolerance = 1e-13)
    expect_equal(as.vector(g), as.vector(own_g), tolerance = 1e-11)
    # against R's own linear algebra
    B <- matrix(u[seq_len(n * 3)], n)
    A <- d$S * 0.8 + diag(n)
    L <- t(chol(A))
    Z <- forwardsolve(L, B)
    P <- crossprod(B) + t(B) %*% d$X
    want <- -0.5 * sum(Z^2) - sum(log(diag(L))) + 0.01 * sum(P) + 0.001 * sum(A %*% B) +
      sum(dnorm(as.vector(B), 0, 2, log = TRUE)) + dlnorm(0.8, 0, 1, log = TRUE) + log(0.8)
    expect_equal(lp, want, tolerance = 1e-12)
    if (n < 100) expect_equal(as.vector(g), fd_grad(ctx, u, 1e-6), tolerance = 1e-6)
    tapestry_blas(FALSE)
  }
})

test_that("on R's BLAS a matrix that is not positive definite is rejected as by the own kernels", {
  code <- "
    data { int n; matrix[n, n] S; }
    parameters { real r; }
    model { matrix[n, n] L = cholesky_decompose(S * r); target += sum(L); }"
  d <- blas_data(20)
  ctx <- tapestry_model(code = code)$bind(list(n = 20, S = d$S))
  own <- tryCatch(ctx$log_prob(-1), error = conditionMessage)
  local_blas(TRUE)
  expect_identical(tryCatch(ctx$log_prob(-1), error = conditionMessage), own)
  expect_match(own, "cholesky_decompose: Matrix m is not positive definite")
  Sinf <- d$S
  Sinf[5, 5] <- Inf
  ctx2 <- tapestry_model(code = code)$bind(list(n = 20, S = Sinf))
  expect_error(ctx2$log_prob(1), "not positive definite")
})

test_that("a model on R's BLAS samples on two chains' threads and matches its own gradients there", {
  n <- 40
  d <- blas_data(n)
  code <- "
    data { int n; matrix[n, n] S; matrix[n, 3] X; vector[n] y; }
    parameters { vector[3] b; real<lower=0> r; }
    model {
      matrix[n, n] K = add_diag(S * r, 1);
      y ~ multi_normal(X * b, K);
      b ~ normal(0, 1);
      r ~ lognormal(0, 0.5);
    }"
  set.seed(5)
  d$y <- as.vector(d$X %*% c(1, -1, 0.5) + t(chol(d$S + diag(n))) %*% rnorm(n))
  m <- tapestry_model(code = code)
  local_blas(TRUE)
  fit <- m$sample(data = d, chains = 2, parallel_chains = 2, iter_warmup = 150, iter_sampling = 100,
                  seed = 3, refresh = 0, show_messages = FALSE)
  s <- fit$summary("b")
  expect_true(all(is.finite(s$mean)))
  expect_true(all(abs(s$mean - c(1, -1, 0.5)) < 1))
})
