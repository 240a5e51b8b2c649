# Stan 2.37's transform functions X_constrain, X_jacobian and X_unconstrain:
# values against closed forms and against the parameter transforms
# (tp_transform, a declared parameter), round trips, gradients against finite
# differences, the log Jacobian X_jacobian adds (only with jacobian = TRUE),
# the checker's rule, Stan's errors, and tree against plans.

tc <- function(fn, args, types, ad = rep(FALSE, length(args))) tp_call(fn, args, types, ad)
tv <- function(fn, args, types) tp_call(fn, args, types)$value
inv_logit <- function(x) 1 / (1 + exp(-x))
set.seed(20261126)

test_that("bounds: closed forms, vectorized over arrays, X_jacobian's value is X_constrain's", {
  x <- c(-1.5, 0.2, 2.5)
  expect_equal(tv("lower_bound_constrain", list(x, 1.5), c("vector", "real")), exp(x) + 1.5, tolerance = 1e-15)
  expect_equal(tv("upper_bound_constrain", list(x, -2), c("vector", "real")), -2 - exp(x), tolerance = 1e-15)
  expect_equal(tv("lower_upper_bound_constrain", list(x, -1, 3), c("vector", "real", "real")),
               -1 + 4 * inv_logit(x), tolerance = 1e-15)
  expect_equal(tv("offset_multiplier_constrain", list(x, 2, 0.5), c("vector", "real", "real")),
               2 + 0.5 * x, tolerance = 1e-15)
  lb <- c(0, 1, -3)
  expect_equal(tv("lower_bound_constrain", list(x, lb), c("vector", "vector")), exp(x) + lb, tolerance = 1e-15)
  expect_equal(tv("lower_bound_jacobian", list(x, lb), c("vector", "vector")),
               tv("lower_bound_constrain", list(x, lb), c("vector", "vector")))
  # arrays of matrices with a bound of the same shape, and scalars
  m1 <- matrix(rnorm(4), 2); m2 <- matrix(rnorm(4), 2)
  b1 <- matrix(runif(4), 2); b2 <- matrix(runif(4), 2)
  r <- tv("upper_bound_constrain", list(list(m1, m2), list(b1, b2)), c("array[] matrix", "array[] matrix"))
  expect_equal(r, list(b1 - exp(m1), b2 - exp(m2)), tolerance = 1e-15)
  expect_equal(tv("lower_bound_constrain", list(0.3, 2), c("real", "real")), exp(0.3) + 2)
  expect_equal(tv("lower_bound_constrain", list(1L, 0L), c("int", "int")), exp(1))
  # infinite bounds are the identity, as in Stan
  expect_equal(tv("lower_bound_constrain", list(x, -Inf), c("vector", "real")), x)
  expect_equal(tv("lower_upper_bound_constrain", list(x, -Inf, 1), c("vector", "real", "real")), 1 - exp(x))
  # unconstrain inverts
  for (f in list(list("lower_bound", list(1.5)), list("upper_bound", list(-2)),
                 list("lower_upper_bound", list(-1, 3)), list("offset_multiplier", list(2, 0.5)))) {
    types <- c("vector", rep("real", length(f[[2]])))
    y <- tv(paste0(f[[1]], "_constrain"), c(list(x), f[[2]]), types)
    expect_equal(tv(paste0(f[[1]], "_unconstrain"), c(list(y), f[[2]]), types), x, tolerance = 1e-12,
                 label = paste(f[[1]], "unconstrain(constrain(x))"))
    expect_equal(tv(paste0(f[[1]], "_constrain"), c(list(tv(paste0(f[[1]], "_unconstrain"),
                                                              c(list(y), f[[2]]), types)), f[[2]]), types),
                 y, tolerance = 1e-12, label = paste(f[[1]], "constrain(unconstrain(y))"))
  }
})

test_that("bounds: gradients in the value and the bounds, one node per call", {
  x <- c(-1.5, 0.2, 2.5)
  for (fn in c("lower_bound_constrain", "lower_bound_jacobian", "upper_bound_constrain")) {
    r <- expect_gradient_fd(fn, list(x, 0.7), c("vector", "real"), ad = c(TRUE, TRUE))
    expect_equal(r$nodes[1], 1)
    expect_gradient_fd(fn, list(x, c(0.1, -1, 2)), c("vector", "vector"), ad = c(TRUE, TRUE))
  }
  for (fn in c("lower_upper_bound_constrain", "offset_multiplier_constrain")) {
    expect_gradient_fd(fn, list(x, -1, 3), c("vector", "real", "real"), ad = c(TRUE, TRUE, TRUE))
    expect_gradient_fd(fn, list(x, c(-1, 0, 1), c(2, 3, 4)), c("vector", "vector", "vector"),
                       ad = c(TRUE, TRUE, TRUE))
  }
  # unconstrain: y inside the bounds
  expect_gradient_fd("lower_bound_unconstrain", list(c(1, 2.5, 4), c(0, 1, -1)), c("vector", "vector"),
                     ad = c(TRUE, TRUE))
  r <- expect_gradient_fd("upper_bound_unconstrain", list(c(-1, 0.5, 0.9), 1), c("vector", "real"), ad = c(TRUE, TRUE))
  expect_equal(r$nodes[1], 1)
  expect_gradient_fd("lower_upper_bound_unconstrain", list(c(-0.5, 0.5, 2.5), -1, 3),
                     c("vector", "real", "real"), ad = c(TRUE, TRUE, TRUE))
  expect_gradient_fd("lower_upper_bound_unconstrain", list(c(-0.5, 0.5, 2.5), c(-1, 0, -2), c(1, 3, 4)),
                     c("vector", "vector", "vector"), ad = c(TRUE, TRUE, TRUE))
  expect_gradient_fd("lower_upper_bound_unconstrain", list(c(-0.5, 0.5), -Inf, 3), c("vector", "real", "real"),
                     ad = c(TRUE, FALSE, TRUE))
  expect_gradient_fd("offset_multiplier_unconstrain", list(c(-0.5, 0.5, 2.5), 1, c(0.5, 2, 3)),
                     c("vector", "real", "vector"), ad = c(TRUE, TRUE, TRUE))
  expect_gradient_fd("lower_bound_unconstrain", list(list(c(1, 2), c(3, 4)), 0.5), c("array[] vector", "real"),
                     ad = c(TRUE, TRUE))
})

# The structured transforms: name of the functions, of the parameter
# transform, free values, declared shape, extra int arguments.
structured <- list(
  list("ordered", "ordered", c(-1, 0.3, -0.2), "vector[3]", list()),
  list("positive_ordered", "positive_ordered", c(-1, 0.3, -0.2), "vector[3]", list()),
  list("simplex", "simplex", c(-1, 0.3, -0.2), "vector[4]", list()),
  list("unit_vector", "unit_vector", c(-1, 0.3, -0.2), "vector[3]", list()),
  list("sum_to_zero", "sum_to_zero_vector", c(-1, 0.3, -0.2), "vector[4]", list()),
  list("cholesky_factor_corr", "cholesky_factor_corr", c(0.4, -0.3, 0.8), "matrix[3,3]", list(3L)),
  list("cholesky_factor_cov", "cholesky_factor_cov", c(0.4, -0.3, 0.8, 0.1, 1.2), "matrix[3,2]", list(3L, 2L)),
  list("corr_matrix", "corr_matrix", c(0.4, -0.3, 0.8), "matrix[3,3]", list(3L)),
  list("cov_matrix", "cov_matrix", c(0.4, -0.3, 0.8, 0.1, 1.2, -0.5), "matrix[3,3]", list(3L))
)

test_that("structured transforms: the parameter transform's values, round trips, arrays", {
  for (s in structured) {
    nm <- s[[1]]; x <- s[[3]]; ints <- s[[5]]
    types <- c("vector", rep("int", length(ints)))
    ref <- tp_transform(s[[2]], x, list(), s[[4]])
    y <- tv(paste0(nm, "_constrain"), c(list(x), ints), types)
    expect_equal(as.numeric(y), as.numeric(unlist(ref$value)), tolerance = 1e-15, label = paste(nm, "value"))
    expect_identical(tv(paste0(nm, "_jacobian"), c(list(x), ints), types), y)
    back <- tv(paste0(nm, "_unconstrain"), list(y), if (is.matrix(y)) "matrix" else "vector")
    # unit_vector's free values are the unit vector itself: x / |x| comes back
    if (nm == "unit_vector") x <- x / sqrt(sum(x^2))
    expect_equal(back, x, tolerance = 1e-12, label = paste(nm, "unconstrain(constrain(x))"))
    expect_equal(tv(paste0(nm, "_constrain"), c(list(back), ints), types), y, tolerance = 1e-12,
                 label = paste(nm, "constrain(unconstrain(y))"))
    # two-dimensional arrays of them
    x2 <- list(list(x, x), list(-x, x))
    at <- c("array[,] vector", rep("int", length(ints)))
    y2 <- tv(paste0(nm, "_constrain"), c(list(x2), ints), at)
    expect_equal(y2[[2]][[1]], tv(paste0(nm, "_constrain"), c(list(-x), ints), types))
    back2 <- tv(paste0(nm, "_unconstrain"), list(y2), if (is.matrix(y)) "array[,] matrix" else "array[,] vector")
    expect_equal(back2, x2, tolerance = 1e-12)
    # gradients of the constrained value against finite differences
    expect_gradient_fd(paste0(nm, "_constrain"), c(list(x), ints), types)
  }
})

stz_matrix_stan <- function(x) {
  # Stan Math's sum_to_zero_constrain of a matrix, transcribed
  N <- nrow(x); M <- ncol(x); Z <- matrix(0, N + 1, M + 1); beta <- numeric(N)
  for (j in (M - 1):0) {
    ax <- 0; aj <- 1 / sqrt((j + 1) * (j + 2)); bj <- (j + 1) * aj
    for (i in (N - 1):0) {
      ai <- 1 / sqrt((i + 1) * (i + 2)); bi <- (i + 1) * ai
      bix <- bi * x[i + 1, j + 1] - ax
      Z[i + 1, j + 1] <- bj * bix - beta[i + 1]
      beta[i + 1] <- beta[i + 1] + aj * bix
      Z[N + 1, j + 1] <- Z[N + 1, j + 1] - Z[i + 1, j + 1]
      Z[i + 1, M + 1] <- Z[i + 1, M + 1] - Z[i + 1, j + 1]
      ax <- ax + ai * x[i + 1, j + 1]
    }
    Z[N + 1, M + 1] <- Z[N + 1, M + 1] - Z[N + 1, j + 1]
  }
  Z
}

test_that("matrix transforms: sum_to_zero of a matrix, stochastic columns and rows", {
  x <- matrix(c(0.3, -1.2, 0.5, 0.8, -0.4, 1.1), 2, 3)
  z <- tv("sum_to_zero_constrain", list(x), "matrix")
  expect_equal(z, stz_matrix_stan(x), tolerance = 1e-14)
  expect_equal(tv("sum_to_zero_unconstrain", list(z), "matrix"), x, tolerance = 1e-14)
  expect_equal(dim(tv("sum_to_zero_constrain", list(matrix(0, 0, 2)), "matrix")), c(1L, 3L))
  sc <- tv("stochastic_column_constrain", list(x), "matrix")
  expect_equal(dim(sc), c(3L, 3L))
  for (j in 1:3) expect_equal(sc[, j], unlist(tp_transform("simplex", x[, j], list(), "vector[3]")$value))
  expect_equal(tv("stochastic_column_unconstrain", list(sc), "matrix"), x, tolerance = 1e-12)
  sr <- tv("stochastic_row_constrain", list(x), "matrix")
  expect_equal(dim(sr), c(2L, 4L))
  for (i in 1:2) expect_equal(sr[i, ], unlist(tp_transform("simplex", x[i, ], list(), "vector[4]")$value))
  expect_equal(tv("stochastic_row_unconstrain", list(sr), "matrix"), x, tolerance = 1e-12)
  for (f in c("sum_to_zero_constrain", "stochastic_column_constrain", "stochastic_row_jacobian")) {
    r <- expect_gradient_fd(f, list(x), "matrix")
    expect_equal(r$nodes[1], 1)
    expect_gradient_fd(f, list(list(x, 2 * x)), "array[] matrix")
  }
})

test_that("unconstrain's gradients: ordered and positive_ordered against finite differences", {
  expect_gradient_fd("ordered_unconstrain", list(c(-1, 0.5, 0.7)), "vector")
  expect_gradient_fd("positive_ordered_unconstrain", list(list(c(0.2, 0.5, 2), c(1, 2, 3))), "array[] vector")
})

# Models: the log density with X_jacobian in transformed parameters against
# the same parameter declared with its constraint.
lp_pair <- function(code_fn, code_decl, u, data = list()) {
  a <- tapestry_model(code = code_fn)$bind(data)
  b <- tapestry_model(code = code_decl)$bind(data)
  for (j in c(TRUE, FALSE)) {
    expect_equal(a$log_prob(u, jacobian = j), b$log_prob(u, jacobian = j), tolerance = 1e-13,
                 label = paste("log_prob, jacobian =", j))
    expect_equal(a$grad_log_prob(u, jacobian = j), b$grad_log_prob(u, jacobian = j), tolerance = 1e-13,
                 label = paste("gradient, jacobian =", j))
  }
  invisible(list(a, b))
}

test_that("X_jacobian adds the log Jacobian a declared parameter gets, and only with jacobian = TRUE", {
  decls <- list(
    list("simplex[4]", "simplex_jacobian(x)", 3, "s ~ dirichlet([1, 2, 3, 4]');"),
    list("ordered[3]", "ordered_jacobian(x)", 3, "s ~ normal(0, 2);"),
    list("positive_ordered[3]", "positive_ordered_jacobian(x)", 3, "s ~ exponential(1);"),
    list("unit_vector[3]", "unit_vector_jacobian(x)", 3, "target += 3 * s[1];"),
    list("sum_to_zero_vector[4]", "sum_to_zero_jacobian(x)", 3, "s ~ normal(0, 1);"),
    list("cholesky_factor_corr[3]", "cholesky_factor_corr_jacobian(x, 3)", 3, "s ~ lkj_corr_cholesky(2);"),
    list("cholesky_factor_cov[3, 2]", "cholesky_factor_cov_jacobian(x, 3, 2)", 5, "to_vector(s) ~ normal(0, 2);"),
    list("corr_matrix[3]", "corr_matrix_jacobian(x, 3)", 3, "s ~ lkj_corr(2);"),
    list("cov_matrix[3]", "cov_matrix_jacobian(x, 3)", 6, "target += -0.5 * trace(s) + log_determinant(s);"),
    list("real<lower=1.5>", "lower_bound_jacobian(x[1], 1.5)", 1, "s ~ normal(2, 1);"),
    list("real<upper=1.5>", "upper_bound_jacobian(x[1], 1.5)", 1, "s ~ normal(1, 1);"),
    list("real<lower=-1, upper=2>", "lower_upper_bound_jacobian(x[1], -1, 2)", 1, "s ~ normal(0, 1);"),
    list("real<offset=1, multiplier=3>", "offset_multiplier_jacobian(x[1], 1, 3)", 1, "s ~ normal(1, 3);")
  )
  for (d in decls) {
    n <- d[[3]]
    fn <- sprintf("parameters { vector[%d] x; }\ntransformed parameters { %s s = %s; }\nmodel { %s }",
                  n, sub("<.*>", "", d[[1]]), d[[2]], d[[4]])
    decl <- sprintf("parameters { %s s; }\nmodel { %s }", d[[1]], d[[4]])
    u <- rnorm(n, sd = 0.6)
    m <- lp_pair(fn, decl, u)[[1]]
    # every one but sum_to_zero (linear, no Jacobian) changes the density
    expect_identical(m$log_prob(u, jacobian = TRUE) != m$log_prob(u, jacobian = FALSE),
                     !grepl("sum_to_zero", d[[1]]), label = d[[1]])
  }
})

test_that("X_jacobian of the matrix transforms adds the simplexes' log Jacobians, tree and plan alike", {
  x <- matrix(c(0.3, -1.2, 0.5, 0.8, -0.4, 1.1), 2, 3)
  code <- "
    parameters { matrix[2, 3] x; }
    transformed parameters {
      matrix[3, 3] c = stochastic_column_jacobian(x);
      matrix[2, 4] r = stochastic_row_jacobian(x);
      matrix[3, 4] z = sum_to_zero_jacobian(x);
    }
    model { target += sum(log(c)) + 0.5 * sum(log(r)) + dot_self(to_vector(z)); }"
  m <- tapestry_model(code = code)$bind()
  u <- as.vector(x)
  lj <- sum(sapply(1:3, function(j) tp_transform("simplex", x[, j], list(), "vector[3]")$lp)) +
    sum(sapply(1:2, function(i) tp_transform("simplex", x[i, ], list(), "vector[4]")$lp))
  expect_equal(m$log_prob(u, jacobian = TRUE) - m$log_prob(u, jacobian = FALSE), lj, tolerance = 1e-12)
  expect_equal(as.vector(m$grad_log_prob(u)), fd_grad(m, u, 1e-6), tolerance = 1e-7)
  v <- m$constrain_variables(u)
  expect_equal(v$c, tv("stochastic_column_constrain", list(x), "matrix"))
  expect_equal(v$z, tv("sum_to_zero_constrain", list(x), "matrix"))
  r <- both_paths(m, list(u, u / 2, -u))
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 0)
  r <- both_paths(m, list(u, u / 2, -u), jacobian = FALSE)
  expect_identical(r$plan, r$tree)
})

test_that("unconstrain's gradients through the constraint: d unconstrain(constrain(x)) / dx is the identity", {
  # target += w' unconstrain(constrain(x)): the gradient in x is w, through both
  # nodes (the free maps' derivatives on the constraint's tangent space)
  cases <- list(
    list("vector[3] x;", "simplex_unconstrain(simplex_constrain(x))", 3),
    list("vector[3] x;", "sum_to_zero_unconstrain(sum_to_zero_constrain(x))", 3),
    list("vector[3] x;", "unit_vector_unconstrain(unit_vector_constrain(x))", 3),
    list("vector[3] x;", "ordered_unconstrain(ordered_jacobian(x))", 3),
    list("vector[3] x;", "positive_ordered_unconstrain(positive_ordered_constrain(x))", 3),
    list("vector[5] x;", "cholesky_factor_cov_unconstrain(cholesky_factor_cov_constrain(x, 3, 2))", 5),
    list("vector[3] x;", "cholesky_factor_corr_unconstrain(cholesky_factor_corr_constrain(x, 3))", 3),
    list("vector[6] x;", "corr_matrix_unconstrain(corr_matrix_constrain(x, 4))", 6),
    list("vector[6] x;", "cov_matrix_unconstrain(cov_matrix_constrain(x, 3))", 6),
    list("matrix[2, 3] x;", "to_vector(sum_to_zero_unconstrain(sum_to_zero_constrain(x)))", 6),
    list("matrix[2, 3] x;", "to_vector(stochastic_column_unconstrain(stochastic_column_constrain(x)))", 6),
    list("matrix[2, 3] x;", "to_vector(stochastic_row_unconstrain(stochastic_row_constrain(x)))", 6),
    list("vector[3] x;", "lower_upper_bound_unconstrain(lower_upper_bound_constrain(x, -1, 2), -1, 2)", 3),
    list("vector[3] x;", "offset_multiplier_unconstrain(offset_multiplier_constrain(x, 1, 2), 1, 2)", 3)
  )
  for (cs in cases) {
    n <- cs[[3]]
    code <- sprintf("data { vector[%d] w; }\nparameters { %s }\ntransformed parameters { vector[%d] u = %s; }\nmodel { target += dot_product(w, u); }",
                    n, cs[[1]], n, cs[[2]])
    w <- rnorm(n)
    m <- tapestry_model(code = code)$bind(list(w = w))
    u <- rnorm(n, sd = 0.5)
    if (grepl("unit_vector", cs[[2]])) u <- u * sqrt(3) / sqrt(sum(u^2))   # unit_vector_unconstrain returns the unit vector
    g <- as.vector(m$grad_log_prob(u, jacobian = FALSE))
    if (grepl("unit_vector", cs[[2]])) {
      yv <- u / sqrt(sum(u^2))
      expect_equal(g, as.vector((w - yv * sum(yv * w)) / sqrt(sum(u^2))), tolerance = 1e-12, label = cs[[2]])
    } else {
      expect_equal(m$constrain_variables(u)$u, u, tolerance = 1e-12, label = cs[[2]])
      expect_equal(g, w, tolerance = 1e-12, label = cs[[2]])
    }
    r <- both_paths(m, list(u, u / 2))
    expect_identical(r$plan, r$tree)
  }
})

test_that("unconstrain of covariance matrices: the derivative along symmetric changes", {
  # cov_matrix_unconstrain(S + t D) for a symmetric D: finite differences in t
  # against the autodiff Jacobian applied to D
  S <- tv("cov_matrix_constrain", list(c(0.3, -0.2, 0.5, 0.1, 0.4, -0.3), 3L), c("vector", "int"))
  D <- matrix(c(0.3, 0.1, -0.2, 0.1, -0.4, 0.25, -0.2, 0.25, 0.2), 3)
  r <- tc("cov_matrix_unconstrain", list(S), "matrix", TRUE)
  J <- r$jacobian[[1]]
  fd <- fd_jac(function(t) tv("cov_matrix_unconstrain", list(S + t * D), "matrix"), 0)
  expect_equal(as.vector(J %*% as.vector(D)), as.vector(fd), tolerance = 1e-8)
  expect_equal(r$nodes[1], 1)
  # a correlation matrix moved along a symmetric change with zero diagonal
  C <- tv("corr_matrix_constrain", list(c(0.3, -0.2, 0.5), 3L), c("vector", "int"))
  D0 <- D; diag(D0) <- 0
  J <- tc("corr_matrix_unconstrain", list(C), "matrix", TRUE)$jacobian[[1]]
  fd <- fd_jac(function(t) tv("corr_matrix_unconstrain", list(C + t * D0), "matrix"), 0)
  expect_equal(as.vector(J %*% as.vector(D0)), as.vector(fd), tolerance = 1e-8)
  # a Cholesky factor of a correlation matrix: rows kept at unit length
  L <- tv("cholesky_factor_corr_constrain", list(c(0.3, -0.2, 0.5), 3L), c("vector", "int"))
  J <- tc("cholesky_factor_corr_unconstrain", list(L), "matrix", TRUE)$jacobian[[1]]
  path <- function(t) {
    M <- L + t * matrix(c(0, 0.2, -0.3, 0, 0.1, 0.4, 0, 0, 0), 3)
    M / sqrt(rowSums(M^2))
  }
  dL <- as.vector(fd_jac(function(t) as.vector(path(t)), 0))
  fd <- fd_jac(function(t) tv("cholesky_factor_corr_unconstrain", list(path(t)), "matrix"), 0)
  expect_equal(as.vector(J %*% dL), as.vector(fd), tolerance = 1e-8)
})

test_that("user functions ending in _jacobian pass the log Jacobian on; write_array gets the values", {
  code <- "
    functions {
      vector pos_jacobian(vector v, real lb) { return lower_bound_jacobian(v, lb); }
    }
    parameters { vector[2] x; real<lower=0> sigma; }
    transformed parameters { vector[2] y = pos_jacobian(x, sigma); }
    model { y ~ normal(3, 1); sigma ~ exponential(1); }"
  m <- tapestry_model(code = code)$bind()
  u <- c(0.2, -0.4, 0.3)
  d <- m$log_prob(u, jacobian = TRUE) - m$log_prob(u, jacobian = FALSE)
  expect_equal(d, sum(u[1:2]) + u[3], tolerance = 1e-13)   # log J of y and of sigma's own transform
  expect_equal(m$constrain_variables(u)$y, exp(u[1:2]) + exp(u[3]), tolerance = 1e-14)
  expect_equal(as.vector(m$grad_log_prob(u)), fd_grad(m, u, 1e-6), tolerance = 1e-7)
  r <- both_paths(m, list(u, -u, 2 * u))
  expect_identical(r$plan, r$tree)
})

test_that("X_jacobian in loops, on elements, with data arguments: tree and plan agree", {
  code <- "
    data { int N; vector[N] lo; vector[3] z; }
    parameters { vector[N] a; vector[3] c; vector[6] v; real<lower=0> s; }
    transformed parameters {
      vector[N] b;
      for (n in 1:N) b[n] = lower_upper_bound_jacobian(a[n], lo[n], lo[n] + s);
      cholesky_factor_corr[3] L = cholesky_factor_corr_jacobian(c, 3);
      cov_matrix[3] S = cov_matrix_jacobian(v, 3);
      real d = lower_bound_jacobian(z[1], 0) + offset_multiplier_jacobian(z[2], 1, s);
    }
    model {
      b ~ normal(0, 2);
      L ~ lkj_corr_cholesky(1.5);
      target += -0.5 * trace(S) + d;
      s ~ exponential(1);
    }"
  N <- 4
  d <- list(N = N, lo = c(-1, 0, 1, 2), z = c(0.3, -0.5, 1))
  m <- tapestry_model(code = code)$bind(d)
  n <- m$num_upars()
  pts <- lapply(1:4, function(i) rnorm(n, sd = 0.5))
  u <- pts[[1]]
  s <- exp(u[n])
  # the data-only calls add their constant log Jacobians too (z[1] and log(s) for the multiplier)
  a <- u[1:N]
  lj <- sum(log(s) - abs(a) - 2 * log1p(exp(-abs(a)))) +
    tp_transform("cholesky_factor_corr", u[N + 1:3], list(), "matrix[3,3]")$lp +
    tp_transform("cov_matrix", u[N + 3 + 1:6], list(), "matrix[3,3]")$lp + 0.3 + log(s) + u[n]
  expect_equal(m$log_prob(u, jacobian = TRUE) - m$log_prob(u, jacobian = FALSE), lj, tolerance = 1e-12)
  expect_equal(as.vector(m$grad_log_prob(u)), fd_grad(m, u, 1e-6), tolerance = 1e-6)
  for (j in c(TRUE, FALSE)) {
    r <- both_paths(m, pts, jacobian = j)
    expect_identical(r$plan, r$tree)
    expect_gt(r$stats$replays, 0)
  }
})

test_that("the checker allows X_jacobian only in transformed parameters and _jacobian functions", {
  expect_error(tapestry_model(code = "parameters { vector[2] x; } model { vector[2] y = lower_bound_jacobian(x, 0); y ~ normal(0, 1); }"),
               "functions ending in _jacobian are only allowed in the transformed parameters block")
  expect_error(tapestry_model(code = "parameters { real x; } generated quantities { real y = lower_bound_jacobian(x, 0); }"),
               "only allowed in the transformed parameters block")
  expect_error(tapestry_model(code = "functions { real f(real x) { return simplex_jacobian([x]')[1]; } } parameters { real x; } model { }"),
               "only allowed in the transformed parameters block")
  # X_constrain and X_unconstrain are allowed anywhere
  expect_silent(tapestry_model(code = "parameters { vector[2] x; } model { target += sum(simplex_constrain(x)); }
                                       generated quantities { vector[2] u = simplex_unconstrain(simplex_constrain(x)); }"))
})

test_that("Stan's errors: values outside the constraint, sizes, bounds", {
  expect_error(tv("simplex_unconstrain", list(c(0.5, 0.6)), "vector"), "simplex_free: Simplex variable is not a valid simplex")
  expect_error(tv("simplex_unconstrain", list(c(-0.5, 1.5)), "vector"), "should be greater than or equal to 0")
  expect_error(tv("ordered_unconstrain", list(c(1, 0)), "vector"), "is not a valid ordered vector")
  expect_error(tv("unit_vector_unconstrain", list(c(1, 1)), "vector"), "is not a valid unit vector")
  expect_error(tv("sum_to_zero_unconstrain", list(matrix(1, 2, 2)), "matrix"), "does not sum to zero")
  expect_error(tv("stochastic_row_unconstrain", list(matrix(0.2, 2, 2)), "matrix"), "is not a valid simplex")
  expect_error(tv("cov_matrix_unconstrain", list(matrix(c(1, 2, 3, 1), 2)), "matrix"), "symmetric")
  expect_error(tv("lower_bound_unconstrain", list(c(1, -1), 0), c("vector", "real")),
               "lb_free: Lower bounded variable\\[2\\] is -1, but must be greater than or equal to 0")
  expect_error(tv("lower_upper_bound_constrain", list(1, 2, 1), c("real", "real", "real")),
               "lub_constrain: lb is 2, but must be less than 1")
  expect_error(tv("offset_multiplier_constrain", list(1, 0, -1), c("real", "real", "real")),
               "multiplier is -1, but must be positive finite")
  expect_error(tv("lower_bound_constrain", list(c(1, 2), c(1, 2, 3)), c("vector", "vector")), "must match in size")
  expect_error(tv("cholesky_factor_corr_constrain", list(c(1, 2), 3L), c("vector", "int")),
               "cholesky_corr_constrain: Size of y.size\\(\\) \\(2\\) and size of k_choose_2 \\(3\\) must match")
  expect_error(tv("cov_matrix_constrain", list(c(1, 2), 3L), c("vector", "int")), "K \\+ \\(K choose 2\\)")
  expect_error(tv("cholesky_factor_cov_constrain", list(c(1, 2, 3), 2L, 3L), c("vector", "int", "int")),
               "num rows \\(must be greater or equal to num cols\\) is 2")
  expect_error(tv("unit_vector_constrain", list(numeric(0)), "vector"), "unit_vector")
})

test_that("the declared N x M types: column_stochastic_matrix, row_stochastic_matrix, sum_to_zero_matrix", {
  code <- "
    data { int N; int M; column_stochastic_matrix[N, M] D; }
    parameters { column_stochastic_matrix[N, M] C; row_stochastic_matrix[N, M] R; sum_to_zero_matrix[N, M] Z; }
    model {
      for (j in 1:M) C[, j] ~ dirichlet(rep_vector(2, N));
      for (i in 1:N) R[i] ~ dirichlet(rep_vector(3, M));
      to_vector(Z) ~ normal(0, 1);
    }"
  # the same density through the transform functions on free parameters
  code_fns <- "
    data { int N; int M; }
    parameters { matrix[N - 1, M] c; matrix[N, M - 1] r; matrix[N - 1, M - 1] z; }
    transformed parameters {
      matrix[N, M] C = stochastic_column_jacobian(c);
      matrix[N, M] R = stochastic_row_jacobian(r);
      matrix[N, M] Z = sum_to_zero_jacobian(z);
    }
    model {
      for (j in 1:M) C[, j] ~ dirichlet(rep_vector(2, N));
      for (i in 1:N) R[i] ~ dirichlet(rep_vector(3, M));
      to_vector(Z) ~ normal(0, 1);
    }"
  D <- matrix(c(0.2, 0.3, 0.5, 0.1, 0.1, 0.8), 3)
  ctx <- tapestry_model(code = code)$bind(list(N = 3, M = 2, D = D))
  expect_equal(ctx$num_upars(), 9)
  set.seed(3)
  u <- rnorm(9)
  v <- ctx$constrain_variables(u)
  expect_equal(colSums(v$C), c(1, 1), tolerance = 1e-14)
  expect_equal(rowSums(v$R), c(1, 1, 1), tolerance = 1e-14)
  expect_equal(c(rowSums(v$Z), colSums(v$Z)), numeric(5), tolerance = 1e-14)
  expect_true(all(v$C > 0) && all(v$R > 0))
  expect_equal(as.vector(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  r <- both_paths(ctx, list(u, u / 2))
  expect_identical(r$plan, r$tree)
  # the declared types are the transform functions on the same free values
  fns <- tapestry_model(code = code_fns)$bind(list(N = 3, M = 2))
  for (j in c(TRUE, FALSE))
    expect_equal(ctx$log_prob(u, jacobian = j), fns$log_prob(u, jacobian = j), tolerance = 1e-13)
  # the signature of the types' shape
  expect_equal(dim(v$C), c(3, 2))
  expect_equal(dim(v$Z), c(3, 2))
  # a data matrix that is not column stochastic is refused, naming the variable
  D2 <- D
  D2[3, 1] <- 0.6
  expect_error(tapestry_model(code = code)$bind(list(N = 3, M = 2, D = D2)), "'D' is not a valid column_stochastic_matrix")
  expect_error(tapestry_model(code = "parameters { sum_to_zero_matrix[3] Z; }"), "number of columns")
})
