# Derivatives along a linear parametrization vec(arg i) = D %*% theta.
# Symmetric matrix arguments (cholesky_decompose, multi_normal's Sigma) are
# checked for symmetry to 1e-8, so the finite-difference helper, which moves
# one element at a time, would leave the domain.  We move the free lower
# triangle instead: D duplicates theta into both triangles, and the chain rule
# says the autodiff Jacobian times D must equal the finite differences in
# theta.  That holds whether a kernel puts the gradient of a symmetric
# argument on the lower triangle only (cholesky_decompose, which reads only
# that triangle) or symmetrically (multi_normal), since both give the same
# derivative along symmetric directions -- the only ones a program can take.
dup_matrix <- function(k) {
  idx <- which(lower.tri(diag(k), diag = TRUE))
  D <- matrix(0, k * k, length(idx))
  for (p in seq_along(idx)) {
    r <- (idx[p] - 1) %% k + 1; cc <- (idx[p] - 1) %/% k + 1
    D[(cc - 1) * k + r, p] <- 1
    D[(r - 1) * k + cc, p] <- 1
  }
  D
}
lower_select <- function(k) {
  idx <- which(lower.tri(diag(k), diag = TRUE))
  D <- matrix(0, k * k, length(idx))
  D[cbind(idx, seq_along(idx))] <- 1
  D
}
expect_gradient_linear <- function(fn, args, types, i, D, ad = rep(FALSE, length(args)),
                                   propto = FALSE, tol = 1e-6, hscale = 1e-3) {
  ad[i] <- TRUE
  x0 <- as.numeric(unlist(args[[i]]))
  theta <- qr.solve(D, x0)   # least squares
  offset <- x0 - as.numeric(D %*% theta)   # nonzero for an affine parametrization (simplex)
  r <- tp_call(fn, args, types, ad, propto)
  Jad <- r$jacobian[[i]] %*% D
  f <- function(th) {
    a <- args
    a[[i]] <- rebuild(args[[i]], offset + as.numeric(D %*% th))
    unlist(tp_call(fn, a, types, rep(FALSE, length(a)), propto)$value)
  }
  Jfd <- fd_jac(f, theta, hscale * pmax(abs(theta), 1e-2))
  err <- abs(Jad - Jfd) / pmax(abs(Jfd), 1e-3)
  expect_true(all(err < tol), label = sprintf("%s: argument %d along D (max rel err %.3g)", fn, i, max(err)))
  invisible(r)
}
