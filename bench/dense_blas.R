# R's BLAS and LAPACK against tapestry's own kernels (tapestry_blas()), by
# size: the gradient of a product of two parameter matrices, of a Cholesky
# factor, and of a triangular solve with many right-hand sides.  The ratio
# blas/own below 1 is where R's library wins; R/linalg.R's default sizes
# come from this run on OpenBLAS.
#   Rscript bench/dense_blas.R [reps] [from]
# from = "all" sends every size to the BLAS (to find where it starts to win);
# by default the package's sizes apply.
library(tapestry)
args <- commandArgs(TRUE)
reps <- if (length(args)) as.integer(args[1]) else 15L
sizes <- if (length(args) > 1 && args[2] == "all") c(gemm = 1, chol = 1, trsm = 1) else tapestry:::dense_sizes
cat("BLAS:  ", extSoftVersion()[["BLAS"]], "\nLAPACK:", La_library(), "\n")

progs <- list(
  gemm = "data { int n; } parameters { matrix[n, n] A; matrix[n, n] B; }
          model { target += sum(A * B); }",
  chol = "data { int n; matrix[n, n] S; } parameters { real<lower=0> s; }
          model { target += sum(cholesky_decompose(add_diag(S, s))); }",
  trsm = "data { int n; matrix[n, n] L; } parameters { matrix[n, n] B; }
          model { target += sum(mdivide_left_tri_low(L, B)); }"
)
time_one <- function(ctx, u, use) {
  tapestry_blas(use, sizes)
  ctx$grad_log_prob(u)
  t0 <- proc.time()[["elapsed"]]
  k <- 0L
  repeat {
    ctx$grad_log_prob(u); k <- k + 1L
    if (proc.time()[["elapsed"]] - t0 > 0.05) break
  }
  (proc.time()[["elapsed"]] - t0) / k
}
for (kind in names(progs)) {
  m <- tapestry_model(code = progs[[kind]])
  for (n in c(16, 24, 32, 48, 64, 96, 128, 192, 256, 384)) {
    set.seed(1)
    Z <- matrix(rnorm(n * n), n)
    S <- tcrossprod(Z) / n
    d <- list(n = n, S = S, L = t(chol(S + diag(n))))
    ctx <- m$bind(d)
    u <- rnorm(ctx$num_upars(), sd = 0.1)
    r <- replicate(reps, { a <- time_one(ctx, u, FALSE); b <- time_one(ctx, u, TRUE); b / a })
    cat(sprintf("%-5s n = %4d  blas/own %.3f\n", kind, n, median(r)))
  }
}
tapestry_blas()
