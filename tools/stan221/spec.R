# tools/stan221/spec.R -- where each Stan 2.21 function is evaluated: one
# domain per argument (tables in gen.R), by the family a signature belongs
# to (a distribution's name for all its densities and cdfs).  A family is
# a character vector of domains, or a function of the signature's argument
# types that returns them (for sizes that must agree, or integer arguments
# that index).  `hard` adds further evaluations of a family's scalar
# signature at the hard places of its domain: extreme arguments of the
# special functions, near-singular and clustered matrices.

fixed <- function(tab) structure(tab, fixed = TRUE)
fx <- function(...) fixed(list(...))                # explicit values, one vector per point
iv <- function(...) list(int = TRUE, tab = fixed(lapply(list(...), as.integer)))   # ints, one per point
rv <- function(...) list(tab = fixed(lapply(list(...), as.numeric)))                # reals, one vector per point
with_shape <- function(d, shape = NULL, adims = NULL) {
  d <- dom(d); if (!is.null(shape)) d$shape <- as.integer(shape); if (!is.null(adims)) d$adims <- as.integer(adims); d
}
nd_of <- function(types, i) types[[i]]$nd
base_of <- function(types, i) types[[i]]$base
n_elems <- function(ty) {   # element count of a default-shaped value of type ty
  s <- default_shape(ty$base); a <- default_adims(ty$nd)
  prod(c(if (ty$base %in% c("int", "real")) 1L else s, a))
}

S <- list()
hard <- list()

# ---- elementwise functions of one real ----
unary_dom <- c(Phi = "any", Phi_approx = "any", acos = "pm1", acosh = "gt1", asin = "pm1",
  asinh = "any", atan = "any", atanh = "pm1", cbrt = "any", ceil = "any", cos = "any",
  cosh = "any", digamma = "any", erf = "any", erfc = "any", exp = "any", exp2 = "any",
  expm1 = "any", fabs = "any", floor = "any", inv = "any", inv_Phi = "unit",
  inv_cloglog = "any", inv_logit = "any", inv_sqrt = "pos", inv_square = "any",
  lgamma = "any", log = "pos", log10 = "pos", log1m = "lt1", log1m_exp = "neg",
  log1m_inv_logit = "any", log1p = "gtm1", log1p_exp = "any", log2 = "pos",
  log_inv_logit = "any", logit = "unit", round = "any", sin = "any", sinh = "any",
  sqrt = "pos", square = "any", tan = "any", tanh = "any", tgamma = "any",
  trigamma = "any", trunc = "any", abs = "any", int_step = "any", step = "any",
  is_inf = "any", is_nan = "any", minus = "any", logical_negation = "any")
# Integer arguments where the real domain's integers give finite values;
# logit and inv_Phi have none (0 and 1 give infinities), so their results
# are compared through inv_logit and Phi.
unary_int_dom <- c(lgamma = "i:pos", digamma = "i:pos", trigamma = "i:pos", tgamma = "i:pos",
  log = "i:pos", log2 = "i:pos", log10 = "i:pos", sqrt = "i:pos", inv_sqrt = "i:pos", inv = "i:pos",
  inv_square = "i:pos", acosh = "i:pos", log1p = "i:cnt", log1m = "i:nonpos", log1m_exp = "i:negi",
  acos = "i:pm1", asin = "i:pm1", atanh = "i:zero", logit = "i:bin", inv_Phi = "i:bin")
unary_int_wrap <- list(logit = list(fmt = "inv_logit(%s)"), inv_Phi = list(fmt = "Phi(%s)"))
for (f in names(unary_dom)) S[[f]] <- local({
  d <- unary_dom[[f]]; di <- unary_int_dom[f]; w <- unary_int_wrap[[f]]; if (is.na(di)) di <- "i:any"
  function(sig, types) {
    if (length(types) && types[[1]]$base == "int") {
      if (is.null(w)) list(di) else list(doms = list(di), wrap = w)
    } else list(d)
  }
})

hard_unary <- list(
  lgamma = c(1e-8, 1e6, -2.5), digamma = c(1e-6, 3e5, -3.7), trigamma = c(1e-5, 2e4, -0.4),
  tgamma = c(1e-7, 150.5, -4.3), log1p_exp = c(-40, 40, 700), log1m_exp = c(-1e-10, -40, -1e-300),
  log_inv_logit = c(-40, 40, -800), log1m_inv_logit = c(40, -40, 800), inv_logit = c(-40, 35, -700),
  erfc = c(5.5, 26, -6), erf = c(1e-9, 5.9, -0.3), Phi = c(-37.5, 8.2, -10), inv_Phi = c(1e-10, 1 - 1e-12, 1e-300),
  log1p = c(-1 + 1e-9, 1e-12, 1e15), expm1 = c(1e-12, -40, 700), exp = c(-745, 709, 1e-15),
  log = c(1e-300, 1e300, 1 + 1e-12), logit = c(1e-12, 1 - 1e-9, 0.5), inv_cloglog = c(-40, 3.7, 1e-8),
  log1m = c(1 - 1e-10, -1e12, 1e-15), Phi_approx = c(-37, 9, 1e-8), atanh = c(0.999999, -1e-12, 0.9),
  acosh = c(1 + 1e-10, 1e150, 1.5), asinh = c(1e-12, -1e150, 2e7), inv_sqrt = c(1e-300, 1e300, 7),
  inv_square = c(1e-150, 1e150, -3e-5), tanh = c(20, -1e-12, 0.3), sinh = c(700, -1e-12, 5),
  cosh = c(-700, 1e-12, 5), square = c(1e150, -1e-150, 3))
for (f in names(hard_unary)) hard[[f]] <- list(list(doms = list(rv(hard_unary[[f]][1], hard_unary[[f]][2], hard_unary[[f]][3])),
                                                   args = "real"))

# ---- functions of two or more reals ----
S$atan2 <- c("any", "any"); S$fdim <- c("any", "any"); S$fmax <- c("any", "any"); S$fmin <- c("any", "any")
S$fmod <- c("any", "any"); S$hypot <- c("pos", "pos"); S$pow <- c("pos", "any")
S$lbeta <- c("pos", "pos"); S$lchoose <- c("big", "unit"); S$binomial_coefficient_log <- c("big", "unit")
S$lmultiply <- c("any", "pos"); S$multiply_log <- c("any", "pos")
S$log_diff_exp <- c("hi", "lo"); S$log_falling_factorial <- c("big", "unit")
S$log_rising_factorial <- c("pos", "pos"); S$owens_t <- c("any", "any")
S$gamma_p <- c("pos", "pos"); S$gamma_q <- c("pos", "pos")
S$inc_beta <- c("pos", "pos", "unit"); S$fma <- c("any", "any", "any")
S$binary_log_loss <- c("i:bin", "unit"); S$if_else <- c("i:bin", "any", "any")
S$lmgamma <- c("i:pos", "big"); S$choose <- c("i:big", "i:cnt")
S$falling_factorial <- function(sig, types) list(if (base_of(types, 1) == "int") "i:big" else "big", "i:cnt")
S$rising_factorial <- function(sig, types) list(if (base_of(types, 1) == "int") "i:pos" else "pos", "i:cnt")
for (f in c("bessel_first_kind", "modified_bessel_first_kind")) S[[f]] <- c("i:order", "any")
for (f in c("bessel_second_kind", "modified_bessel_second_kind")) S[[f]] <- c("i:order", "pos")
hard2 <- function(a, b, types = c("real", "real")) list(list(doms = list(a, b), args = types))
hard$lbeta <- c(hard2(rv(1e-8, 1e8, 0.5), rv(2.5, 1e-9, 1e10)), hard2(rv(1e5, 3e-300, 40), rv(2e5, 7, 1e-5)))
hard$lchoose <- hard2(rv(1e6, 50.5, 1e-3), rv(3.5, 49.25, 1e-4))
hard$gamma_p <- hard2(rv(1e-3, 150, 40), rv(1e-4, 155, 20))
hard$gamma_q <- hard$gamma_p
hard$inc_beta <- list(list(doms = list(rv(1e-3, 200, 0.5), rv(50, 300, 1e-3), rv(0.999, 0.4, 1e-8)), args = c("real", "real", "real")))
hard$log_diff_exp <- hard2(rv(1e-12, 700, -40), rv(0, 699.999, -40.0001))
hard$owens_t <- hard2(rv(10, -1e-8, 0.5), rv(1e4, 3, -1e-6))
hard$lmultiply <- hard2(rv(5, 1e-5, 0), rv(1e-300, 1e300, 2))
for (f in c("bessel_first_kind", "modified_bessel_first_kind"))
  hard[[f]] <- hard2(iv(10, 0, 4), rv(0.03, 120, -35), c("int", "real"))
for (f in c("bessel_second_kind", "modified_bessel_second_kind"))
  hard[[f]] <- hard2(iv(8, 0, 3), rv(0.02, 120, 35), c("int", "real"))
hard$lmgamma <- hard2(iv(1, 6, 3), rv(1e-6, 300, 1.0001), c("int", "real"))
hard$log_falling_factorial <- hard2(rv(1e5, 40, 3), rv(3.5, 39.99, 1e-8))
hard$log_rising_factorial <- hard2(rv(1e-8, 1e5, 200), rv(1e5, 0.5, 1e-8))

# ---- operators, logic, arithmetic on containers ----
for (f in c("add", "subtract", "multiply", "elt_multiply", "elt_divide", "divide", "max", "min",
            "logical_or", "logical_and", "logical_eq", "logical_neq", "logical_lt", "logical_lte",
            "logical_gt", "logical_gte"))
  S[[f]] <- function(sig, types) lapply(types, function(t) if (t$base == "int") "i:any" else "any")
S$divide <- function(sig, types) lapply(seq_along(types), function(i)
  if (types[[i]]$base == "int") (if (i == 2) "i:pos" else "i:any") else "any")
S$modulus <- c("i:any", "i:pos")
S$transpose <- "any"

# ---- reductions and other container functions of one argument ----
for (f in c("sum", "prod", "mean", "sd", "variance", "log_sum_exp", "cumulative_sum", "softmax",
            "log_softmax", "sort_asc", "sort_desc", "sort_indices_asc", "sort_indices_desc",
            "to_vector", "to_row_vector", "to_array_1d", "to_array_2d", "num_elements", "size", "dims",
            "rows", "cols", "diagonal", "diag_matrix", "trace", "dot_self", "columns_dot_self",
            "rows_dot_self", "crossprod", "tcrossprod", "determinant", "log_determinant", "inverse",
            "singular_values", "qr_Q", "qr_R", "qr_thin_Q", "qr_thin_R", "matrix_exp",
            "multiply_lower_tri_self_transpose", "log_mix", "to_matrix"))
  S[[f]] <- function(sig, types) lapply(types, function(t) if (t$base == "int") "i:any" else "any")
S$log_sum_exp <- function(sig, types) lapply(types, function(t) "any")
S$log_mix <- function(sig, types) {
  if (length(types) == 3) return(list("unit", "any", "any"))
  list(list(tab = real_tables$any, st = "softmax"), "any")
}
# square matrices' functions on their structures
S$inverse_spd <- "spd"; S$cholesky_decompose <- "spd"
S$eigenvalues_sym <- "sym"
# eigenvectors' signs are a convention (Stan's come from Eigen's solver):
# both sides compare them with each column's largest element made positive
signfix <- list(fmt = "signfix_(%s)", code = "m")
S$eigenvectors_sym <- list(doms = list("sym"), wrap = signfix)
# the matrix_exp of a 3 x 3 matrix of moderate norm
S$matrix_exp_multiply <- c("any", "any"); S$scale_matrix_exp_multiply <- c("any", "any", "any")

# Hard matrices, as the program text that builds them from th (3 x 3 unless said).
hard$cholesky_decompose <- list(list(args = "matrix", doms = list(list(tab = fx(
  c(1, 0.999999, 0.5, 0.999999, 1, 0.5000005, 0.5, 0.5000005, 1 + 1e-6),
  c(1e4, 1, 0, 1, 2e-4, 0, 0, 0, 1),
  c(2, 1, 1, 1, 2, 1, 1, 1, 2)), st = "sym_", shape = c(3, 3)))))
clustered <- function(e, Q = qr.Q(qr(matrix(c(0.3, -1.2, 0.7, 0.9, 0.4, -0.5, 1.1, 0.2, 0.6), 3)))) {
  M <- Q %*% diag(e) %*% t(Q); as.numeric(M)
}
# Clustered spectra.  One eigenvalue's derivative inside a cluster of gap g
# is determined only to eps |A| / g in double precision (its eigenvector
# turns within the cluster), so the clusters here keep g >= 1e-6 for single
# eigenvalues and vectors; an exactly repeated eigenvalue is checked through
# a function the cluster's basis does not change (log_sum_exp of the
# eigenvalues), as a program would use one (the GP of prog_gp_eigen.rds
# checks eigenvalues bunched at its jitter the same way).
hard$eigenvalues_sym <- list(
  list(args = "matrix", doms = list(list(tab = fx(
    clustered(c(1, 1 + 1e-6, 3)), clustered(c(1e-5, 1.001e-5, 2)), clustered(c(-1, 2, 2 + 1e-6))),
    st = "sym_", shape = c(3, 3)))),
  list(args = "matrix", wrap = list(fmt = "log_sum_exp(%s)", code = "r"), doms = list(list(tab = fx(
    clustered(c(1, 1, 3)), clustered(c(2, 2, 2)), clustered(c(-1, 0.5, 0.5))),
    st = "sym_", shape = c(3, 3)))))
hard$eigenvectors_sym <- list(list(args = "matrix", wrap = signfix, doms = list(list(tab = fx(
  clustered(c(1, 1 + 1e-5, 3)), clustered(c(1e-5, 2e-5, 2)), clustered(c(-1, 2, 2 + 1e-4))),
  st = "sym_", shape = c(3, 3)))))
hard$inverse_spd <- list(list(args = "matrix", doms = list(list(tab = fx(
  clustered(c(1e-6, 1, 2)), clustered(c(1e-3, 1e-3 + 1e-9, 5)), clustered(c(1, 1e3, 1e-3))),
  st = "sym_", shape = c(3, 3)))))
hard$log_determinant <- list(list(args = "matrix", doms = list(list(tab = fx(
  clustered(c(1e-6, 1, 2)), clustered(c(-1e-3, 1e3, 5)), c(1, 2, 3, 4, 5, 6, 7, 8, 9.000001)), shape = c(3, 3)))))
hard$singular_values <- list(list(args = "matrix", doms = list(list(tab = fx(
  clustered(c(1, 1 + 1e-6, 3)), clustered(c(1e-7, 1, 2)), c(1, 2, 3, 4, 5, 6, 7, 8, 9.000001)), shape = c(3, 3)))))
hard$matrix_exp <- list(list(args = "matrix", doms = list(list(tab = fx(
  c(-20, 1, 0, 0, -20, 1, 0, 0, -20), c(3, 2, 1, 0.5, 4, 1, 0.1, 0.2, 5), clustered(c(1e-8, 2, 2 + 1e-10))), shape = c(3, 3)))))

# ---- two-argument matrix functions (default 3 x 3 and length 3 agree) ----
for (f in c("columns_dot_product", "rows_dot_product", "dot_product", "distance", "squared_distance",
            "quad_form", "quad_form_diag", "trace_quad_form", "trace_gen_quad_form", "diag_pre_multiply",
            "diag_post_multiply", "add_diag", "append_col", "append_row", "mdivide_left", "mdivide_right"))
  S[[f]] <- function(sig, types) lapply(types, function(t) if (t$base == "int") "i:any" else "any")
S$append_array <- function(sig, types) lapply(types, function(t) if (t$base == "int") "i:any" else "any")
S$quad_form_sym <- function(sig, types) list("sym", "any")
S$mdivide_left_spd <- function(sig, types) list("spd", "any")
S$mdivide_right_spd <- function(sig, types) list("any", "spd")
S$mdivide_left_tri_low <- function(sig, types) list("chol", "any")
S$mdivide_right_tri_low <- function(sig, types) list("any", "chol")

# ---- indexing, slicing, building ----
S$col <- list("any", iv(1, 2, 3)); S$row <- list("any", iv(3, 1, 2))
S$block <- list("any", iv(1, 2, 1), iv(1, 1, 2), iv(2, 2, 2), iv(2, 3, 1))
S$sub_col <- list("any", iv(1, 2, 1), iv(1, 2, 3), iv(3, 2, 1))
S$sub_row <- list("any", iv(1, 2, 3), iv(1, 2, 1), iv(3, 2, 2))
for (f in c("head", "tail")) S[[f]] <- function(sig, types)
  list(if (base_of(types, 1) == "int") "i:any" else "any", iv(1, 2, 2))
S$segment <- function(sig, types) list(if (base_of(types, 1) == "int") "i:any" else "any", iv(1, 2, 1), iv(2, 1, 1))
S$rank <- function(sig, types) list(if (base_of(types, 1) == "int") "i:any" else "any", iv(1, 2, 3))
S$rep_array <- function(sig, types) c(list(if (base_of(types, 1) == "int") "i:any" else "any"),
                                     lapply(types[-1], function(t) iv(2, 1, 3)))
S$rep_vector <- list("any", iv(2, 1, 3)); S$rep_row_vector <- list("any", iv(3, 2, 1))
S$rep_matrix <- function(sig, types) if (length(types) == 3) list("any", iv(2, 1, 3), iv(1, 3, 2)) else list("any", iv(2, 1, 3))
S$to_matrix <- function(sig, types) {
  first <- if (base_of(types, 1) == "int") "i:any" else "any"
  if (length(types) == 1) return(list(first))
  n <- n_elems(types[[1]])
  # m x n = the number of elements: 3 x 3 = 9 or 3 = 1 x 3
  mn <- if (n == 9) list(iv(3, 9, 1), iv(3, 1, 9)) else list(iv(1, 3, 1), iv(3, 1, 3))
  c(list(first), mn, if (length(types) == 4) list(iv(1, 0, 1)))
}
S$csr_extract_w <- S$csr_extract_v <- S$csr_extract_u <- list(list(tab = fx(
  c(0.5, 0, -1.2, 0, 0, 2.1, 0.7, 0, 0), c(0, 1.3, 0, 0.4, 0, 0, 0, -0.9, 2.2), c(3.1, 0, 0, 0, -0.6, 0, 0, 0, 1.7))))
# a 2 x 3 matrix in compressed row storage: w its 4 nonzeros, v their
# columns, u where each row starts in w
S$csr_to_dense_matrix <- list(iv(2, 2, 2), iv(3, 3, 3), with_shape("any", 4),
  list(int = TRUE, adims = 4L, tab = fx(c(1L, 3L, 2L, 3L), c(2L, 1L, 2L, 3L), c(1L, 2L, 3L, 2L))),
  list(int = TRUE, tab = fx(c(1L, 3L, 5L), c(1L, 2L, 5L), c(1L, 4L, 5L))))
S$csr_matrix_times_vector <- c(S$csr_to_dense_matrix, list("any"))

# ---- gaussian processes ----
# the inputs are the leading arrays (x, or x1 and x2); the rest are
# positive (an array of length scales last, one per input dimension)
for (f in c("cov_exp_quad", "gp_exp_quad_cov", "gp_exponential_cov", "gp_matern32_cov", "gp_matern52_cov"))
  S[[f]] <- function(sig, types) {
    k <- 0L
    for (i in seq_len(length(types) - 1L)) if (types[[i]]$nd == 1) k <- i else break
    # x2 from another table: a point of x1 equal to one of x2 is where the
    # exponential kernel has no derivative (and Stan's matern kernels give NaN)
    c(list("any", "lo")[seq_len(k)], rep(list("pos"), length(types) - k))
  }
S$gp_dot_prod_cov <- function(sig, types) c(list("any", "lo")[seq_len(length(types) - 1)], list("pos"))
S$gp_periodic_cov <- function(sig, types) c(list("any", "lo")[seq_len(length(types) - 3)], list("pos", "pos", "pos"))

# ---- constants: their value is checked, and a few are wrapped so the
#      transformed parameter is finite ----
for (f in c("e", "pi", "sqrt2", "machine_precision", "get_lp", "target")) S[[f]] <- character()
for (f in c("log2", "log10")) S[[f]] <- local({   # log2() and log10() are constants too
  d <- unary_dom[[f]]
  function(sig, types) if (!length(types)) list() else list(if (types[[1]]$base == "int") "i:pos" else d)
})
S$not_a_number <- list(wrap = list(fmt = "is_nan(%s)", code = "i"))
S$positive_infinity <- list(wrap = list(fmt = "(%s > 1e308)", code = "i"))
S$negative_infinity <- list(wrap = list(fmt = "(%s < -1e308)", code = "i"))

# ---- distributions: the domains of (outcome | parameters) ----
S$normal <- c("any", "any", "pos"); S$cauchy <- c("any", "any", "pos")
S$logistic <- c("any", "any", "pos"); S$double_exponential <- c("any", "any", "pos")
S$gumbel <- c("any", "any", "pos"); S$skew_normal <- c("anym", "anym", "posm", "anym")
S$student_t <- c("any", "pos", "any", "pos"); S$exp_mod_normal <- c("anym", "anym", "posm", "posm")
S$lognormal <- c("pos", "any", "pos"); S$chi_square <- c("pos", "pos"); S$inv_chi_square <- c("pos", "pos")
S$scaled_inv_chi_square <- c("pos", "pos", "pos"); S$exponential <- c("pos", "pos")
S$gamma <- c("pos", "pos", "pos"); S$inv_gamma <- c("pos", "pos", "pos"); S$weibull <- c("pos", "pos", "pos")
S$frechet <- c("pos", "pos", "pos"); S$rayleigh <- c("pos", "pos"); S$pareto <- c("gt1", "unit", "pos")
S$pareto_type_2 <- c("pos", "neg", "pos", "pos"); S$beta <- c("unit", "pos", "pos")
S$beta_proportion <- c("unit", "unit", "pos"); S$von_mises <- c("pm1", "pm1", "pos")
S$uniform <- c("mid", "lo", "hi"); S$std_normal <- "any"
S$wiener <- c("gt1", "pos", "small", "unit", "any")
# P(Y > 1) = 0: a Bernoulli's ccdf is evaluated at 0
S$bernoulli <- function(sig, types) list(if (grepl("ccdf", sig$name)) "i:zero" else "i:bin", "unit"); S$bernoulli_logit <- c("i:bin", "any")
S$binomial <- c("i:cnt", "i:big", "unit"); S$binomial_logit <- c("i:cnt", "i:big", "any")
S$beta_binomial <- c("i:cnt", "i:big", "pos", "pos")
S$poisson <- c("i:cnt", "pos"); S$poisson_log <- c("i:cnt", "any")
S$neg_binomial <- c("i:cnt", "pos", "pos"); S$neg_binomial_2 <- c("i:cnt", "pos", "pos")
S$neg_binomial_2_log <- c("i:cnt", "any", "pos")
S$categorical <- function(sig, types) list("i:cat3", "simplex")
S$categorical_logit <- function(sig, types) list("i:cat3", "any")
S$multinomial <- list("i:cnt", "simplex")
S$dirichlet <- c("simplex", "pos")
S$hypergeometric <- list(iv(2, 1, 3), iv(4, 3, 5), iv(3, 4, 3), iv(5, 2, 4))
for (f in c("ordered_logistic", "ordered_probit")) S[[f]] <- function(sig, types)
  list(with_shape("i:cat3", adims = if (types[[1]]$nd) 2L), with_shape("any", 2L, adims = if (types[[2]]$nd) 2L),
       with_shape("ord", 2L, adims = if (types[[3]]$nd) 2L))
# GLMs: n = 3 observations, k = 2 predictors
glm_x <- function() with_shape("free", c(3, 2))
S$bernoulli_logit_glm <- function(sig, types) list("i:bin", glm_x(), "any", with_shape("any", 2))
S$poisson_log_glm <- function(sig, types) list("i:cnt", glm_x(), "small", with_shape("small", 2))
S$neg_binomial_2_log_glm <- function(sig, types) list("i:cnt", glm_x(), "small", with_shape("small", 2), "pos")
S$normal_id_glm <- function(sig, types) list("any", glm_x(), "any", with_shape("any", 2), "pos")
# multivariate: K = 3
S$multi_normal <- function(sig, types) list("any", "any", "spd")
S$multi_normal_prec <- S$multi_normal
S$multi_normal_cholesky <- function(sig, types) list("any", "any", "chol")
S$multi_student_t <- function(sig, types) list("any", "pos", "any", "spd")
S$multi_gp <- function(sig, types) list("any", "spd", "pos")           # y: K x N = 3 x 3, w: K
S$multi_gp_cholesky <- function(sig, types) list("any", "chol", "pos")
S$lkj_corr <- c("corr", "pos"); S$lkj_corr_cholesky <- c("cholcorr", "pos")
S$lkj_cov <- function(sig, types) list("spd", "any", "pos", "pos")
S$wishart <- list("spd", rv(3.5, 4.2, 7.1), "spd"); S$inv_wishart <- S$wishart
S$gaussian_dlm_obs <- function(sig, types) list(with_shape("any", c(2, 4)), with_shape("free", c(3, 2)),
  with_shape("free", c(3, 3)), if (types[[4]]$base == "vector") with_shape("pos", 2) else with_shape("spd", c(2, 2)),
  with_shape("spd", c(3, 3)), with_shape("any", 3), with_shape("spd", c(3, 3)))
