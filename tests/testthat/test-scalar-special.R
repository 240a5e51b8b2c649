# Special functions (src/math/scalar/tm_special_elem.c, tm_hyper.c): Bessel functions,
# owens_t, ldexp, inv_erfc, lambert_w0/wm1, the hypergeometric functions,
# inv_inc_beta; Stan's binary vectorization with int arrays; int results.

rel_ok3 <- function(x, y, tol = 1e-13) {
  x <- as.numeric(unlist(x)); y <- as.numeric(unlist(y))
  all(length(x) == length(y)) && all((is.na(x) & is.na(y)) | x == y | abs(x - y) <= tol * pmax(abs(y), 1e-300))
}

test_that("Bessel functions of an int order against R", {
  x <- c(0.1, 1, 2.5, 10, 40, 150)
  for (n in c(0L, 1L, 2L, 5L)) {
    expect_true(rel_ok3(tval("bessel_first_kind", list(n, x[1:5]), c("int", "vector")), besselJ(x[1:5], n), 1e-12))
    expect_true(rel_ok3(tval("bessel_second_kind", list(n, x), c("int", "vector")), besselY(x, n), 1e-11))
    expect_true(rel_ok3(tval("modified_bessel_first_kind", list(n, x), c("int", "vector")), besselI(x, n), 1e-12))
    expect_true(rel_ok3(tval("modified_bessel_second_kind", list(n, x), c("int", "vector")), besselK(x, n), 1e-12))
  }
  # negative orders and arguments: J_{-n} = (-1)^n J_n, I_n(-z) = (-1)^n I_n(z)
  expect_equal(tval("bessel_first_kind", list(-3L, 2.2), c("int", "real")), -besselJ(2.2, 3), tolerance = 1e-14)
  expect_equal(tval("modified_bessel_first_kind", list(3L, -2.2), c("int", "real")), -besselI(2.2, 3), tolerance = 1e-14)
  expect_equal(tval("modified_bessel_second_kind", list(30L, 700), c("int", "real")), besselK(700, 30), tolerance = 1e-12)
  expect_equal(tval("modified_bessel_second_kind", list(0L, 1e-8), c("int", "real")), besselK(1e-8, 0), tolerance = 1e-13)
  expect_error(tp_call("bessel_second_kind", list(1L, 0), c("int", "real")),
               "bessel_second_kind: second argument is 0, but must be positive!")
  expect_error(tp_call("modified_bessel_second_kind", list(1L, c(1, -2)), c("int", "vector")),
               "modified_bessel_second_kind: second argument\\[2\\] is -2, but must be positive!")
  for (fn in c("bessel_first_kind", "bessel_second_kind", "modified_bessel_first_kind", "modified_bessel_second_kind"))
    for (n in c(0L, 1L, 3L)) {
      r <- expect_gradient_fd(fn, list(n, c(0.3, 1.7, 6.2)), c("int", "vector"), ad = c(FALSE, TRUE), tol = 1e-6)
      expect_equal(r$nodes[1], 1)
    }
  expect_gradient_fd("bessel_first_kind", list(1L, 0), c("int", "real"), ad = c(FALSE, TRUE))
})

test_that("log_modified_bessel_first_kind: values, both gradients, Stan's checks", {
  # near 0, log I_0(z) = log1p(q + q^2 / 4 + q^3 / 36 + ...), q = z^2 / 4 (R's log(besselI) loses digits there)
  q <- 1e-6 / 4
  expect_equal(tval("log_modified_bessel_first_kind", list(0, 1e-3), c("real", "real")),
               log1p(q + q^2 / 4 + q^3 / 36), tolerance = 1e-15)
  z <- c(0.5, 3, 20, 99, 150, 1e3, 1e5)
  for (v in c(-0.5, 0, 0.7, 1, 2.5, 10)) {
    got <- tval("log_modified_bessel_first_kind", list(v, z), c("real", "vector"))
    ref <- ifelse(z < 500, log(besselI(z, v)), log(besselI(z, v, TRUE)) + z)
    expect_true(rel_ok3(got, ref, 1e-12), label = paste("log I order", v))
  }
  expect_equal(tval("log_modified_bessel_first_kind", list(-1, 3), c("real", "real")), log(besselI(3, 1)), tolerance = 1e-14)
  expect_identical(tval("log_modified_bessel_first_kind", list(0, 0), c("real", "real")), 0)
  expect_identical(tval("log_modified_bessel_first_kind", list(2, 0), c("real", "real")), -Inf)
  for (v in c(-0.5, 0.7, 2.5)) for (zz in c(0.4, 5, 60, 200))
    expect_gradient_fd("log_modified_bessel_first_kind", list(v, zz), c("real", "real"), tol = 1e-6)
  expect_gradient_fd("log_modified_bessel_first_kind", list(c(0.3, 1.5), c(2, 7)), c("vector", "vector"))
  # the asymptotic expansion (z large against v^2) and its derivatives: d/dv is near -v / z, small
  # against a value near z, so finite differences keep only a few digits of it (hence the tolerance)
  r <- expect_gradient_fd("log_modified_bessel_first_kind", list(0.7, 2e5), c("real", "real"), tol = 1e-4)
  expect_equal(r$jacobian[[1]][1, 1], -0.7 / 2e5, tolerance = 1e-4)
  r <- tp_call("log_modified_bessel_first_kind", list(3.5, 5e6), c("real", "real"), c(TRUE, TRUE))
  expect_equal(r$jacobian[[1]][1, 1], -3.5 / 5e6, tolerance = 1e-5)
  expect_equal(r$jacobian[[2]][1, 1], 1 - 0.5 / 5e6 + (4 * 3.5^2 - 1) / (8 * 5e6^2), tolerance = 1e-14)
  expect_error(tp_call("log_modified_bessel_first_kind", list(-2, 1), c("real", "real")),
               "log_modified_bessel_first_kind: first argument (order) is -2, but must be greater than or equal to -1",
               fixed = TRUE)
  expect_error(tp_call("log_modified_bessel_first_kind", list(1, -1), c("real", "real")),
               "log_modified_bessel_first_kind: second argument (variable) is -1, but must be nonnegative!", fixed = TRUE)
  expect_error(tp_call("log_modified_bessel_first_kind", list(NaN, 1), c("real", "real")),
               "first argument (order) is nan, but must not be nan!", fixed = TRUE)
})

test_that("owens_t, ldexp, inv_erfc, lambert_w0, lambert_wm1", {
  # T(h, a) by quadrature of its definition
  owt <- function(h, a) integrate(function(x) exp(-0.5 * h^2 * (1 + x^2)) / (1 + x^2), 0, a,
                                  rel.tol = 1e-13)$value / (2 * pi)
  for (h in c(-1.3, 0, 0.4, 2)) for (a in c(-2, 0.3, 1, 5))
    expect_equal(tval("owens_t", list(h, a), c("real", "real")), owt(h, a), tolerance = 1e-12)
  expect_gradient_fd("owens_t", list(c(0.4, -1.2, 2), c(0.5, 3, -0.7)), c("vector", "vector"))
  expect_gradient_fd("owens_t", list(0.7, c(0.5, 3)), c("real", "row_vector"))

  expect_identical(tval("ldexp", list(c(1.5, -3), c(3L, -2L)), c("vector", "array[] int")), c(12, -0.75))
  expect_identical(tval("ldexp", list(1, 1100L), c("real", "int")), Inf)
  expect_gradient_fd("ldexp", list(c(0.3, 2), 3L), c("vector", "int"))

  p <- c(1e-300, 1e-10, 0.3, 1, 1.5, 2 - 1e-10, 0, 2)
  expect_true(rel_ok3(tval("inv_erfc", list(p), "vector"), qnorm(p / 2, lower.tail = FALSE) / sqrt(2), 1e-13))
  expect_gradient_fd("inv_erfc", list(c(0.01, 0.7, 1.2, 1.9)), "vector")
  expect_error(tp_call("inv_erfc", list(2.5), "real"), "inv_erfc: x is 2.5, but must be in the interval \\[0, 2\\]")

  x <- c(-exp(-1), -0.36, -0.3, -0.1, 0, 1e-10, 0.5, 1, 10, 1e10, 1e300)
  w <- tval("lambert_w0", list(x), "vector")
  expect_true(rel_ok3(w * exp(w), x, 1e-14))
  expect_equal(w[1], -1)
  expect_true(all(w >= -1))
  xm <- c(-exp(-1), -0.36, -0.3, -0.1, -1e-5, -1e-300)
  wm <- tval("lambert_wm1", list(xm), "vector")
  expect_true(rel_ok3(wm * exp(wm), xm, 1e-13))
  expect_true(all(wm <= -1))
  expect_identical(tval("lambert_wm1", list(0), "real"), -Inf)
  expect_gradient_fd("lambert_w0", list(c(-0.3, 0, 0.5, 20)), "vector")
  expect_gradient_fd("lambert_wm1", list(c(-0.3, -0.1, -1e-3)), "vector")
  expect_error(tp_call("lambert_w0", list(-0.5), "real"), "lambert_w0: x is -0.5, but must be greater than or equal to -1/e")
  expect_error(tp_call("lambert_wm1", list(0.5), "real"), "lambert_wm1: x is 0.5, but must be in the interval \\[-1/e, 0\\]")
})

test_that("hypergeometric functions: values, series gradients, convergence errors", {
  h2f1 <- function(a, b, c, z) { s <- 1; t <- 1; for (k in 0:20000) { t <- t * (a + k) * (b + k) / (c + k) * z / (k + 1); s <- s + t }; s }
  expect_equal(tval("hypergeometric_2F1", list(1.5, 0.7, 2.3, 0.4), rep("real", 4)), h2f1(1.5, 0.7, 2.3, 0.4), tolerance = 1e-14)
  # closed forms: 2F1(1, 1; 2; z) = -log(1 - z) / z (Euler's transformation for z < -1), Gauss at z = 1
  for (z in c(-0.5, -3, -50)) expect_equal(tval("hypergeometric_2F1", list(1, 1, 2, z), rep("real", 4)),
                                          -log1p(-z) / z, tolerance = 1e-13)
  expect_equal(tval("hypergeometric_2F1", list(1, 1, 2.5, 1), rep("real", 4)),
               gamma(2.5) * gamma(0.5) / gamma(1.5)^2, tolerance = 1e-13)
  # a polynomial: 2F1(-2, b; c; z) = 1 - 2 b z / c + b (b + 1) z^2 / (c (c + 1))
  expect_equal(tval("hypergeometric_2F1", list(-2, 1.5, 3, 4), rep("real", 4)),
               1 - 2 * 1.5 * 4 / 3 + 1.5 * 2.5 * 16 / 12, tolerance = 1e-14)
  for (z in c(0.4, -0.8, -3)) expect_gradient_fd("hypergeometric_2F1", list(1.5, 0.7, 2.3, z), rep("real", 4), tol = 1e-6)
  expect_gradient_fd("hypergeometric_2F1", list(1.2, 0.5, 3.5, 1), rep("real", 4), ad = c(TRUE, TRUE, TRUE, FALSE),
                     tol = 1e-5)
  expect_gradient_fd("hypergeometric_2F1", list(1.2, 0.5, 3.5, -1), rep("real", 4))
  expect_error(tp_call("hypergeometric_2F1", list(1, 1, 2, 1.5), rep("real", 4)),
               "hypergeometric_2F1: hypergeometric function 2F1 does not meet convergence conditions")
  expect_error(tp_call("hypergeometric_2F1", list(Inf, 1, 2, 0.5), rep("real", 4)), "hypergeometric_2F1: a1 is inf")

  # 3F2(1, 1, 1; 2, 2; z) = sum z^k / (k + 1)^2
  expect_equal(tval("hypergeometric_3F2", list(c(1, 1, 1), c(2, 2), 0.5), c("vector", "vector", "real")),
               sum(0.5^(0:300) / (1:301)^2), tolerance = 1e-14)
  expect_gradient_fd("hypergeometric_3F2", list(c(1.1, 0.6, 2), c(2.5, 3.1), -0.7), c("vector", "row_vector", "real"))
  expect_error(tp_call("hypergeometric_3F2", list(c(1, 1), c(2, 2), 0.5), c("vector", "vector", "real")),
               "hypergeometric_3F2: size of a (2) must be 3", fixed = TRUE)
  # pFq: 1F1(a; b; z) against R's series; 0F1 as a Bessel function
  f11 <- function(a, b, z) { s <- 1; t <- 1; for (k in 0:400) { t <- t * (a + k) / (b + k) * z / (k + 1); s <- s + t }; s }
  expect_equal(tval("hypergeometric_pFq", list(1.5, 2.5, 3), c("array[] real", "array[] real", "real")),
               f11(1.5, 2.5, 3), tolerance = 1e-14)
  # 0F1(; v + 1; z^2 / 4) = Gamma(v + 1) (z / 2)^-v I_v(z)
  expect_equal(tval("hypergeometric_pFq", list(numeric(0), 2.5, 9 / 4), c("vector", "vector", "real")),
               gamma(2.5) * 1.5^-1.5 * besselI(3, 1.5), tolerance = 1e-13)
  expect_gradient_fd("hypergeometric_pFq", list(c(1.5, 0.3), c(2.5, 1.2, 4), 2), c("vector", "vector", "real"))
  # 1F1(1; 2; z) = expm1(z) / z: at z = -60 the series' terms reach 1e24 around a sum of 1/60, refused
  expect_equal(tval("hypergeometric_pFq", list(1, 2, -10), c("vector", "vector", "real")), expm1(-10) / -10,
               tolerance = 1e-9)
  expect_error(tp_call("hypergeometric_pFq", list(1, 2, -60), c("vector", "vector", "real")),
               "hypergeometric_pFq: the series at z = -60 loses its digits to cancellation")
  expect_error(tp_call("hypergeometric_pFq", list(c(1, 1, 1), 2, 0.5), c("vector", "vector", "real")),
               "does not meet convergence conditions")
  expect_error(tp_call("hypergeometric_pFq", list(c(1, 1), 2, 1.5), c("vector", "vector", "real")),
               "does not meet convergence conditions")

  expect_equal(tval("hypergeometric_1F0", list(2.5, -0.5), c("real", "real")), 1.5^-2.5, tolerance = 1e-15)
  expect_gradient_fd("hypergeometric_1F0", list(2.5, 0.3), c("real", "real"))
  expect_error(tp_call("hypergeometric_1F0", list(1, 1), c("real", "real")),
               "hypergeometric_1F0: abs(z) is 1, but must be less than 1", fixed = TRUE)
})

test_that("inv_inc_beta: qbeta's values, implicit partials, Stan's checks", {
  for (a in c(0.1, 0.5, 2, 30)) for (b in c(0.3, 1, 5)) for (p in c(1e-8, 0.01, 0.3, 0.5, 0.9, 0.999))
    expect_equal(tval("inv_inc_beta", list(a, b, p), rep("real", 3)), qbeta(p, a, b), tolerance = 1e-11,
                 label = sprintf("inv_inc_beta(%g, %g, %g)", a, b, p))
  expect_identical(tval("inv_inc_beta", list(2, 3, 0), rep("real", 3)), 0)
  expect_identical(tval("inv_inc_beta", list(2, 3, 1), rep("real", 3)), 1)
  for (args in list(c(2, 3, 0.3), c(0.5, 0.8, 0.6), c(10, 2, 0.05)))
    expect_gradient_fd("inv_inc_beta", as.list(args), rep("real", 3), tol = 1e-6)
  expect_error(tp_call("inv_inc_beta", list(-1, 3, 0.3), rep("real", 3)), "inv_inc_beta: a is -1, but must be positive!")
  expect_error(tp_call("inv_inc_beta", list(1, 3, 1.3), rep("real", 3)),
               "inv_inc_beta: p is 1.3, but must be in the interval \\[0, 1\\]")
})

test_that("int arrays pair with real containers of their layout (Stan's binary vectorization)", {
  # array[,] int with a matrix: element [i][j] with (i, j)
  n <- list(c(1L, 2L, 0L), c(3L, 4L, 1L))
  m <- matrix(c(1, 2, 3, 4, 5, 6), 2)
  got <- tval("bessel_first_kind", list(n, m), c("array[,] int", "matrix"))
  expect_equal(got, besselJ(m, matrix(unlist(n), 2, byrow = TRUE)), tolerance = 1e-14)
  expect_equal(dim(got), c(2L, 3L))
  # array[] int with a vector, array[,] int with array[] row_vector
  expect_equal(tval("modified_bessel_first_kind", list(c(0L, 2L), c(1.5, 2.5)), c("array[] int", "vector")),
               besselI(c(1.5, 2.5), c(0, 2)), tolerance = 1e-14)
  got <- tval("lmgamma", list(list(c(1L, 2L), c(3L, 1L)), list(c(2.5, 3), c(4, 5))), c("array[,] int", "array[] row_vector"))
  lmg <- function(k, x) k * (k - 1) / 4 * log(pi) + sum(lgamma(x + (1 - seq_len(k)) / 2))
  expect_equal(unlist(got), c(lmg(1, 2.5), lmg(2, 3), lmg(3, 4), lmg(1, 5)), tolerance = 1e-14)
  # the int on the right: ldexp(matrix, array[,] int), falling_factorial(vector, array[] int)
  expect_identical(tval("ldexp", list(m, list(c(1L, 2L, 3L), c(0L, 0L, -1L))), c("matrix", "array[,] int")),
                   m * matrix(2^c(1, 0, 2, 0, 3, -1), 2))
  expect_equal(tval("falling_factorial", list(c(5.5, 3), c(2L, 3L)), c("vector", "array[] int")),
               c(5.5 * 4.5, 3 * 2 * 1), tolerance = 1e-14)
  r <- expect_gradient_fd("binary_log_loss", list(list(c(1L, 0L), c(0L, 1L)), matrix(c(0.2, 0.4, 0.7, 0.9), 2)),
                          c("array[,] int", "matrix"), ad = c(FALSE, TRUE))
  expect_equal(r$value, -log(matrix(c(0.2, 0.6, 0.3, 0.9), 2)), tolerance = 1e-14)
  expect_error(tp_call("bessel_first_kind", list(c(1L, 2L, 3L), c(1, 2)), c("array[] int", "vector")),
               "bessel_first_kind: Size of x \\(3\\) and size of y \\(2\\) must match in size")
})

test_that("int results where Stan returns int: factorials, choose, abs, minus, elt_divide, to_int", {
  expect_identical(tval("falling_factorial", list(5L, 2L), c("int", "int")), 20L)
  expect_identical(tval("falling_factorial", list(3L, 5L), c("int", "int")), 0L)
  expect_identical(tval("rising_factorial", list(c(2L, 3L, -4L, 0L), 3L), c("array[] int", "int")), c(24L, 60L, -24L, 0L))
  expect_identical(tval("falling_factorial", list(7L, list(c(0L, 1L), c(2L, 3L))), c("int", "array[,] int")),
                   list(c(1L, 7L), c(42L, 210L)))
  expect_error(tp_call("falling_factorial", list(5L, -1L), c("int", "int")),
               "falling_factorial: second argument is -1, but must be nonnegative!")
  expect_error(tp_call("rising_factorial", list(100L, 10L), c("int", "int")), "rising_factorial: the result")
  expect_identical(tval("choose", list(c(5L, 6L, 7L), c(2L, 3L, 0L)), c("array[] int", "array[] int")), c(10L, 20L, 1L))
  expect_identical(tval("choose", list(6L, list(c(1L, 2L))), c("int", "array[,] int")), list(c(6L, 15L)))
  expect_error(tp_call("choose", list(c(5L, -6L), 2L), c("array[] int", "int")),
               "choose: first argument is -6, but must be nonnegative!")
  expect_identical(tval("abs", list(list(c(-5L, 6L), c(0L, -1L))), "array[,] int"), list(c(5L, 6L), c(0L, 1L)))
  expect_identical(tval("minus", list(c(-5L, 6L)), "array[] int"), c(5L, -6L))
  expect_equal(tval("minus", list(list(c(1.5, 2))), "array[,] real"), list(c(-1.5, -2)))
  expect_identical(tval("elt_divide", list(7L, 2L), c("int", "int")), 3L)
  expect_identical(tval("to_int", list(list(c(1.7, -2.2), c(3, 4))), "array[,] real"), list(c(1L, -2L), c(3L, 4L)))
  expect_error(tp_call("to_int", list(list(c(1.7, 1e10))), "array[,] real"), "to_int: x\\[\\] is 10000000000, but must be in the interval")
  # log_sum_exp(x, y) vectorized
  expect_equal(tval("log_sum_exp", list(c(1, 2), 3), c("vector", "real")), log(exp(c(1, 2)) + exp(3)), tolerance = 1e-15)
  expect_gradient_fd("log_sum_exp", list(matrix(c(1, -2, 0.5, 3), 2), matrix(c(0, 1, 2, -1), 2)), c("matrix", "matrix"))
})

test_that("the checker gives Stan's result types to these signatures", {
  code <- "
    data { array[2] int n; array[2, 2] int k; matrix[2, 2] m; }
    transformed data {
      int a = falling_factorial(5, 2);
      array[2] int b = choose(n, 1);
      array[2, 2] int c = abs(k);
      int d = elt_divide(7, 2);
      array[2] int e = minus(n);
      matrix[2, 2] f = bessel_first_kind(k, m);
      array[2] real g = lambert_w0(to_array_1d(m)[1:2]);
    }
    parameters { real y; }
    model { y ~ normal(0, 1); }"
  expect_no_error(tapestry_model(code = code))
  bad <- "
    data { array[2] real x; }
    transformed data { array[2] real b = bessel_first_kind(x, x); }
    parameters { real y; } model { y ~ normal(0, 1); }"
  expect_error(tapestry_model(code = bad), "bessel_first_kind")
})

test_that("a model of the special functions: tree and plan gradients agree", {
  code <- "
    data { int N; vector[N] x; array[N] int k; }
    parameters { real<lower=0.5> v; real<lower=0> s; vector<lower=0, upper=1>[2] p; real<lower=-0.3, upper=0.3> w; }
    model {
      target += sum(log_modified_bessel_first_kind(v, s * x));
      target += sum(modified_bessel_second_kind(k, s + x));
      target += sum(bessel_first_kind(k, s * x));
      target += owens_t(s, v) + lambert_w0(w) + inv_erfc(p[1] + 0.1);
      target += inv_inc_beta(v, 2, p[2]) + hypergeometric_2F1(v, 0.5, 3, -s);
      target += hypergeometric_3F2([v, 1, 0.5]', [2, s + 1]', 0.3) + log_sum_exp(x, s)[1];
      target += sum(ldexp(x, k)) * s + lmgamma(2, s + 2) + binary_log_loss(1, p[1]);
      s ~ gamma(2, 2); v ~ gamma(2, 1);
    }"
  d <- list(N = 3, x = c(0.5, 1.3, 2.2), k = c(0L, 1L, 2L))
  ctx <- tapestry_model(code = code)$bind(d)
  set.seed(7)
  pts <- c(list(rep(0, 5)), lapply(1:3, function(i) rnorm(5, sd = 0.5)))
  expect_paths_and_fd(ctx, pts)
})
