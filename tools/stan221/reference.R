# tools/stan221/reference.R -- high-precision references for the calls where
# tapestry and Stan 2.21 disagree: the call's value and its gradient by every
# real argument, computed with Rmpfr at `prec` bits (values by the closed
# forms or series below, gradients by central differences at h = 1e-30,
# whose error is far below double precision at that precision).
#
# Sourced by tools/stan221/refs.R, which decides, call by call, whether
# Stan's value or tapestry's is the wrong one, writes the reference into the
# fixture where Stan is wrong, and prints the evidence for the README.

suppressMessages(library(Rmpfr))
prec <- 256L
mp <- function(x) mpfr(x, prec)

# ---- rebuilding a call's arguments from the fixture ----

# A flat list of an argument's elements in Stan's order (arrays row-major,
# matrices column-major), as Stan's vectorized densities read them: th's
# elements (numbers or mpfr, th may be perturbed) or ii's integers.
arg_elements <- function(desc, th, ii) {
  if (!is.null(desc$st)) stop("structured arguments have no reference here")
  out <- list()
  for (i in seq_len(nrow(desc$reads))) {
    r <- desc$reads[i, ]
    for (j in r[2]:r[3]) out[[length(out) + 1L]] <- if (r[1] == 0L) th[j] else ii[j]
  }
  out
}

# ---- the vectorized frame of densities and cdfs ----
#
# A call sums f over the broadcast elements (lpdf, lcdf, lccdf) or
# multiplies exp(f) (cdf).  f and its partial derivatives are computed per
# distinct tuple of element values (memoized: the many container forms of a
# signature share them), the partials by central differences in mpfr.

memo <- new.env()
elem_eval <- function(fam, kind, f, vals, is_real, h = 1e-30) {
  key <- paste(fam, kind, paste(format(vals, digits = 17), collapse = ","))
  if (!is.null(memo[[key]])) return(memo[[key]])
  x <- lapply(seq_along(vals), function(i) if (is_real[i]) mp(vals[[i]]) else vals[[i]])
  v <- do.call(f, x)
  d <- lapply(seq_along(vals), function(i) {
    if (!is_real[i]) return(NULL)
    # relative to the element (an absolute step would cross zero at
    # inv_Phi(1e-300)); h itself at 0
    step <- mp(h) * (if (vals[[i]] == 0) 1 else abs(x[[i]]))
    xp <- x; xm <- x
    xp[[i]] <- x[[i]] + step; xm[[i]] <- x[[i]] - step
    (do.call(f, xp) - do.call(f, xm)) / (2 * step)
  })
  memo[[key]] <- list(v = v, d = d)
  memo[[key]]
}

# The weights of gen.R's reductions (red_v, red_rv, red_m and red_aN*) for
# each element of a container argument, in the order its reads list them:
# arrays by leading index (weight 1 + i/2 per index), vectors 1 + i/4,
# row vectors 1 + 3i/10, matrices column-major 1 + i/4 + j/16.
reduce_weights <- function(desc) {
  n <- sum(desc$reads[, 3] - desc$reads[, 2] + 1L)
  base <- sub("\\[.*", "", desc$type)
  adims <- desc$adims
  leaf <- switch(base, real = , int = 1L, vector = , row_vector = desc$shape[1], matrix = prod(desc$shape))
  vapply(seq_len(n) - 1L, function(e) {
    L <- e %/% leaf; within <- e %% leaf
    wa <- 1
    if (length(adims)) {
      idx <- integer(length(adims)); r <- L
      for (d in rev(seq_along(adims))) { idx[d] <- r %% adims[d] + 1L; r <- r %/% adims[d] }
      wa <- prod(1 + 0.5 * idx)
    }
    wl <- switch(base, real = , int = 1, vector = 1 + 0.25 * (within + 1), row_vector = 1 + 0.3 * (within + 1),
                 matrix = 1 + 0.25 * (within %% desc$shape[1] + 1) + 0.0625 * (within %/% desc$shape[1] + 1))
    wa * wl
  }, 0)
}

# Value and gradient (over the call's slice of th) at point p.
reference <- function(fx, k, p, fns) {
  if (!is.null(fns$custom)) return(fns$custom(fx, k, p))
  name <- sub("\\(.*", "", fx$sig[k])
  kinds <- c(ccdf_log = "lccdf", cdf_log = "lcdf", lccdf = "lccdf", lcdf = "lcdf", lpdf = "lpdf",
             lpmf = "lpdf", cdf = "cdf", log = "lpdf")
  hit <- which(endsWith(name, paste0("_", names(kinds))))
  kind <- if (length(hit)) kinds[[hit[1]]] else "fn"     # "fn": a scalar function's value itself
  f <- fns[[if (kind == "cdf") "lcdf" else kind]]
  if (is.null(f)) stop("no reference for ", kind)
  th <- fx$th[[p]]; ii <- fx$ii[[p]]
  # each argument's elements: values and the th index each came from
  args <- lapply(fx$args[[k]], function(d) {
    if (!is.null(d$st)) stop("structured arguments have no reference here")
    v <- list(); at <- integer()
    for (i in seq_len(nrow(d$reads))) {
      r <- d$reads[i, ]
      for (j in r[2]:r[3]) { v[[length(v) + 1L]] <- if (r[1] == 0L) th[j] else ii[j]; at <- c(at, if (r[1] == 0L) j else NA) }
    }
    list(v = v, at = at)
  })
  is_real <- vapply(args, function(a) !is.na(a$at[1]), NA)
  n <- max(vapply(args, function(a) length(a$v), 1L))
  sl <- fx$slices[k, ]
  grad <- if (sl[2] >= sl[1]) lapply(sl[1]:sl[2], function(j) mp(0)) else list()
  # a vectorized function of one container returns a container of the same
  # shape, which the program reduces with gen.R's weights
  w <- if (kind == "fn" && length(args) == 1 && n > 1) reduce_weights(fx$args[[k]][[1]]) else rep(1, n)
  total <- mp(0)
  for (i in seq_len(n)) {
    pick <- function(a) if (length(a$v) == 1) 1L else i
    e <- elem_eval(fx$fam[k], kind, f, lapply(args, function(a) a$v[[pick(a)]]), is_real)
    total <- total + w[i] * e$v
    for (a in which(is_real)) {
      j <- args[[a]]$at[pick(args[[a]])] - sl[1] + 1L
      grad[[j]] <- grad[[j]] + w[i] * e$d[[a]]
    }
  }
  if (kind == "cdf") {            # the product of the cdfs: exp(sum), gradient exp(sum) * d sum
    total <- exp(total)
    grad <- lapply(grad, function(g) g * total)
  }
  list(r = as.numeric(total), grad = vapply(grad, as.numeric, 0))
}

# ---- special functions at high precision ----

lbeta_mp <- function(a, b) lgamma(a) + lgamma(b) - lgamma(a + b)

# Regularized incomplete beta I_x(a, b) by its continued fraction
# (Lentz), on the side of x where it converges quickly.
inc_beta_mp <- function(x, a, b, upper = FALSE, swapped = FALSE) {
  if (!swapped && x > (a + 1) / (a + b + 2)) return(inc_beta_mp(1 - x, b, a, !upper, TRUE))
  tiny <- mp(1e-300); eps <- mp(2)^(-prec + 8)
  f <- mp(1); C <- mp(1); D <- 1 - (a + b) * x / (a + 1)
  if (abs(D) < tiny) D <- tiny
  D <- 1 / D; f <- D
  for (m in 1:100000) {
    for (s in 1:2) {
      num <- if (s == 1) m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
             else -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
      D <- 1 + num * D; if (abs(D) < tiny) D <- tiny
      C <- 1 + num / C; if (abs(C) < tiny) C <- tiny
      D <- 1 / D
      f <- f * C * D
      if (s == 2 && abs(C * D - 1) < eps) break
    }
    if (abs(C * D - 1) < eps) break
  }
  front <- exp(a * log(x) + b * log1p(-x) - lbeta_mp(a, b)) / a
  I <- front * f
  if (upper) 1 - I else I
}
# log I_x(a, b) and log(1 - I_x(a, b)), each from the side that keeps digits
log_inc_beta_mp <- function(x, a, b, upper) {
  lower_side <- x < (a + 1) / (a + b + 2)
  if (upper == !lower_side) log(inc_beta_mp(x, a, b, upper)) else log(inc_beta_mp(x, a, b, upper))
}

# ---- the families' references: functions of one element of each argument,
#      as mpfr numbers (ints as plain integers) ----

lchoose_mp <- function(n, k) lgamma(mp(n) + 1) - lgamma(mp(k) + 1) - lgamma(mp(n) - k + 1)
log_sum <- function(x) { m <- max(x); m + log(sum(exp(x - m))) }   # x: an mpfr vector
refs <- list()
refs$beta <- list(
  lpdf = function(y, a, b) (a - 1) * log(y) + (b - 1) * log1p(-y) - lbeta_mp(a, b),
  lcdf = function(y, a, b) log(inc_beta_mp(y, a, b)),
  lccdf = function(y, a, b) log(inc_beta_mp(y, a, b, upper = TRUE)))
refs$beta$cdf <- refs$beta$lcdf
refs$beta_proportion <- lapply(refs$beta, function(f) function(y, mu, kappa) f(y, mu * kappa, (1 - mu) * kappa))
bb_lpmf <- function(n, N, a, b) lchoose_mp(N, n) + lbeta_mp(n + a, N - n + b) - lbeta_mp(a, b)
refs$beta_binomial <- list(
  lpdf = bb_lpmf,
  lcdf = function(n, N, a, b) log_sum(do.call(c, lapply(0:n, function(k) bb_lpmf(k, N, a, b)))),
  lccdf = function(n, N, a, b) if (n >= N) mp(-Inf) else log_sum(do.call(c, lapply((n + 1):N, function(k) bb_lpmf(k, N, a, b)))))
refs$beta_binomial$cdf <- refs$beta_binomial$lcdf
refs$normal <- list(
  lpdf = function(y, mu, s) -0.5 * ((y - mu) / s)^2 - log(s) - 0.5 * log(2 * Const("pi", prec)),
  lcdf = function(y, mu, s) log(erfc(-(y - mu) / (s * sqrt(mp(2)))) / 2),
  lccdf = function(y, mu, s) log(erfc((y - mu) / (s * sqrt(mp(2)))) / 2))
refs$normal$cdf <- refs$normal$lcdf
# Regularized incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a): the series
# of P for x < a + 1, the continued fraction of Q (Lentz) beyond; all in
# mpfr (Rmpfr's igamma returns 53 bits), P = 1 - Q keeping its digits at 256.
Q_mp <- function(a, x) {
  eps <- mp(2)^(-prec + 8)
  if (x < a + 1) {
    term <- 1 / a; s <- term; n <- 0
    repeat { n <- n + 1; term <- term * x / (a + n); s <- s + term; if (abs(term) < abs(s) * eps) break }
    return(1 - s * exp(-x + a * log(x) - lgamma(a)))
  }
  tiny <- mp(1e-300)
  b <- x + 1 - a; C <- 1 / tiny; D <- 1 / b; h <- D
  for (i in 1:100000) {
    an <- -i * (i - a); b <- b + 2
    D <- an * D + b; if (abs(D) < tiny) D <- tiny
    C <- b + an / C; if (abs(C) < tiny) C <- tiny
    D <- 1 / D; del <- D * C; h <- h * del
    if (abs(del - 1) < eps) break
  }
  exp(-x + a * log(x) - lgamma(a)) * h
}
gamma_fns <- function(P) list(     # P(y, params): the cdf as an mpfr number
  lcdf = function(...) log(P(...)), lccdf = function(...) log(1 - P(...)))
refs$gamma <- c(list(lpdf = function(y, a, b) a * log(b) - lgamma(a) + (a - 1) * log(y) - b * y),
                gamma_fns(function(y, a, b) 1 - Q_mp(a, b * y)))
refs$inv_gamma <- c(list(lpdf = function(y, a, b) a * log(b) - lgamma(a) - (a + 1) * log(y) - b / y),
                    gamma_fns(function(y, a, b) Q_mp(a, b / y)))
refs$chi_square <- c(list(lpdf = function(y, nu) -(nu / 2) * log(mp(2)) - lgamma(nu / 2) + (nu / 2 - 1) * log(y) - y / 2),
                     gamma_fns(function(y, nu) 1 - Q_mp(nu / 2, y / 2)))
refs$inv_chi_square <- c(list(lpdf = function(y, nu) -(nu / 2) * log(mp(2)) - lgamma(nu / 2) - (nu / 2 + 1) * log(y) - 1 / (2 * y)),
                         gamma_fns(function(y, nu) Q_mp(nu / 2, 1 / (2 * y))))
refs$scaled_inv_chi_square <- c(list(lpdf = function(y, nu, s) (nu / 2) * log(nu / 2) - lgamma(nu / 2) + nu * log(s) -
                                       (nu / 2 + 1) * log(y) - nu * s^2 / (2 * y)),
                                gamma_fns(function(y, nu, s) Q_mp(nu / 2, nu * s^2 / (2 * y))))
refs$gumbel <- list(lpdf = function(y, mu, b) -log(b) - (y - mu) / b - exp(-(y - mu) / b),
                    lcdf = function(y, mu, b) -exp(-(y - mu) / b),
                    lccdf = function(y, mu, b) log(1 - exp(-exp(-(y - mu) / b))))
refs$gamma_q <- list(fn = function(a, x) Q_mp(a, x))
refs$gamma_p <- list(fn = function(a, x) 1 - Q_mp(a, x))

# ---- more distributions, by their closed forms ----
pi_mp <- function() Const("pi", prec)
Phi_mp <- function(z) erfc(-z / sqrt(mp(2))) / 2
lPhi_mp <- function(z) log(Phi_mp(z))
with_cdf <- function(lpdf, cdf, ccdf = function(...) 1 - cdf(...))
  list(lpdf = lpdf, lcdf = function(...) log(cdf(...)), lccdf = function(...) log(ccdf(...)))
refs$normal <- with_cdf(function(y, mu, s) -0.5 * ((y - mu) / s)^2 - log(s) - 0.5 * log(2 * pi_mp()),
                        function(y, mu, s) Phi_mp((y - mu) / s), function(y, mu, s) Phi_mp(-(y - mu) / s))
refs$std_normal <- list(lpdf = function(y) -0.5 * y^2 - 0.5 * log(2 * pi_mp()))
refs$cauchy <- with_cdf(function(y, mu, s) -log(pi_mp()) - log(s) - log1p(((y - mu) / s)^2),
                        function(y, mu, s) 0.5 + atan((y - mu) / s) / pi_mp(),
                        function(y, mu, s) 0.5 - atan((y - mu) / s) / pi_mp())
refs$logistic <- with_cdf(function(y, mu, s) { z <- (y - mu) / s; -z - log(s) - 2 * log1p(exp(-z)) },
                          function(y, mu, s) 1 / (1 + exp(-(y - mu) / s)), function(y, mu, s) 1 / (1 + exp((y - mu) / s)))
refs$double_exponential <- with_cdf(function(y, mu, s) -log(2 * s) - abs(y - mu) / s,
  function(y, mu, s) { z <- (y - mu) / s; if (z < 0) exp(z) / 2 else 1 - exp(-z) / 2 },
  function(y, mu, s) { z <- (y - mu) / s; if (z < 0) 1 - exp(z) / 2 else exp(-z) / 2 })
refs$lognormal <- with_cdf(function(y, mu, s) -0.5 * ((log(y) - mu) / s)^2 - log(s) - log(y) - 0.5 * log(2 * pi_mp()),
                           function(y, mu, s) Phi_mp((log(y) - mu) / s), function(y, mu, s) Phi_mp(-(log(y) - mu) / s))
refs$exponential <- with_cdf(function(y, b) log(b) - b * y, function(y, b) 1 - exp(-b * y), function(y, b) exp(-b * y))
refs$weibull <- with_cdf(function(y, a, s) log(a) - log(s) + (a - 1) * log(y / s) - (y / s)^a,
                         function(y, a, s) 1 - exp(-(y / s)^a), function(y, a, s) exp(-(y / s)^a))
refs$frechet <- with_cdf(function(y, a, s) log(a) - log(s) - (1 + a) * log(y / s) - (y / s)^(-a),
                         function(y, a, s) exp(-(y / s)^(-a)), function(y, a, s) 1 - exp(-(y / s)^(-a)))
refs$rayleigh <- with_cdf(function(y, s) log(y) - 2 * log(s) - y^2 / (2 * s^2),
                          function(y, s) 1 - exp(-y^2 / (2 * s^2)), function(y, s) exp(-y^2 / (2 * s^2)))
refs$pareto <- with_cdf(function(y, ym, a) log(a) + a * log(ym) - (a + 1) * log(y),
                        function(y, ym, a) 1 - (ym / y)^a, function(y, ym, a) (ym / y)^a)
refs$pareto_type_2 <- with_cdf(function(y, mu, l, a) log(a) - log(l) - (a + 1) * log1p((y - mu) / l),
                               function(y, mu, l, a) 1 - (1 + (y - mu) / l)^(-a), function(y, mu, l, a) (1 + (y - mu) / l)^(-a))
refs$uniform <- with_cdf(function(y, a, b) -log(b - a), function(y, a, b) (y - a) / (b - a), function(y, a, b) (b - y) / (b - a))
st_cdf <- function(y, nu, mu, s) {           # by the incomplete beta function
  t <- (y - mu) / s; x <- nu / (nu + t^2)
  tail <- inc_beta_mp(x, nu / 2, mp(0.5)) / 2
  if (t > 0) 1 - tail else tail
}
refs$student_t <- with_cdf(function(y, nu, mu, s) lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * pi_mp()) - log(s) -
                             (nu + 1) / 2 * log1p(((y - mu) / s)^2 / nu),
                           st_cdf, function(y, nu, mu, s) st_cdf(2 * mu - y, nu, mu, s))
# Owen's T by Gauss-Legendre on [0, a] is not needed: skew_normal's cdf
# Phi(z) - 2 T(z, alpha) is integrated directly in mpfr.
owens_t_mp <- function(h, a) {
  f <- function(x) exp(-h^2 * (1 + x^2) / 2) / (1 + x^2)
  integrateR(f, mp(0), a, ord = 14, rel.tol = 1e-30, verbose = FALSE)$value / (2 * pi_mp())
}
refs$skew_normal <- with_cdf(function(y, xi, om, al) { z <- (y - xi) / om; log(mp(2)) - log(om) - z^2 / 2 - 0.5 * log(2 * pi_mp()) + lPhi_mp(al * z) },
                             function(y, xi, om, al) { z <- (y - xi) / om; Phi_mp(z) - 2 * owens_t_mp(z, al) })
refs$exp_mod_normal <- with_cdf(
  function(y, mu, s, l) log(l) + l * (mu + l * s^2 / 2 - y) + lPhi_mp((y - mu) / s - l * s),
  function(y, mu, s, l) Phi_mp((y - mu) / s) - exp(-l * (y - mu) + l^2 * s^2 / 2) * Phi_mp((y - mu) / s - l * s))
refs$gumbel <- with_cdf(function(y, mu, b) -log(b) - (y - mu) / b - exp(-(y - mu) / b),
                        function(y, mu, b) exp(-exp(-(y - mu) / b)))
I0_mp <- function(k) { s <- mp(0); t <- mp(1); for (j in 0:2000) { s <- s + t; t <- t * (k / 2)^2 / ((j + 1)^2); if (t < s * mp(2)^(-prec)) break }; s }
refs$von_mises <- list(lpdf = function(y, mu, k) k * cos(y - mu) - log(2 * pi_mp() * I0_mp(k)))
# discrete
refs$poisson <- list(lpdf = function(n, l) n * log(l) - l - lgamma(mp(n) + 1),
                     lcdf = function(n, l) log(Q_mp(mp(n) + 1, l)), lccdf = function(n, l) log(1 - Q_mp(mp(n) + 1, l)))
refs$poisson_log <- lapply(refs$poisson, function(f) function(n, a) f(n, exp(a)))
nb2 <- function(n, mu, phi) lchoose_mp(n + phi - 1, n) + phi * log(phi / (mu + phi)) + n * log(mu / (mu + phi))
nb2_cdf <- function(n, mu, phi) inc_beta_mp(phi / (mu + phi), phi, mp(n) + 1)
refs$neg_binomial_2 <- list(lpdf = function(n, mu, phi) lgamma(n + phi) - lgamma(mp(n) + 1) - lgamma(phi) +
                              phi * log(phi / (mu + phi)) + n * log(mu / (mu + phi)),
                            lcdf = function(n, mu, phi) log(nb2_cdf(n, mu, phi)),
                            lccdf = function(n, mu, phi) log(1 - nb2_cdf(n, mu, phi)))
refs$neg_binomial_2_log <- lapply(refs$neg_binomial_2, function(f) function(n, eta, phi) f(n, exp(eta), phi))
refs$neg_binomial <- lapply(refs$neg_binomial_2, function(f) function(n, a, b) f(n, a / b, a))
bin_lpmf <- function(n, N, th) lchoose_mp(N, n) + n * log(th) + (N - n) * log1p(-th)
refs$binomial <- list(lpdf = bin_lpmf,
  lcdf = function(n, N, th) log_sum(do.call(c, lapply(0:n, function(k) bin_lpmf(k, N, th)))),
  lccdf = function(n, N, th) if (n >= N) mp(-Inf) else log_sum(do.call(c, lapply((n + 1):N, function(k) bin_lpmf(k, N, th)))))
refs$binomial_logit <- list(lpdf = function(n, N, a) bin_lpmf(n, N, 1 / (1 + exp(-a))))
refs$bernoulli <- list(lpdf = function(n, th) if (n == 1) log(th) else log1p(-th),
                       lcdf = function(n, th) if (n >= 1) mp(0) else log1p(-th), lccdf = function(n, th) if (n >= 1) mp(-Inf) else log(th))
refs$bernoulli_logit <- list(lpdf = function(n, a) if (n == 1) -log1p(exp(-a)) else -log1p(exp(a)))
# scalar functions
refs$lbeta <- list(fn = lbeta_mp)
refs$lgamma <- list(fn = function(x) lgamma(x))
refs$digamma <- list(fn = function(x) digamma(x))
refs$inc_beta <- list(fn = function(a, b, x) inc_beta_mp(x, a, b))
refs$owens_t <- list(fn = owens_t_mp)
refs$Phi <- list(fn = Phi_mp)
refs$log1p_exp <- list(fn = function(x) log1p(exp(x)))
refs$log1m_exp <- list(fn = function(x) log(-expm1(x)))
refs$log_diff_exp <- list(fn = function(a, b) a + log(-expm1(b - a)))
refs$lchoose <- list(fn = function(n, k) lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1))
refs$binomial_coefficient_log <- refs$lchoose
refs$log_falling_factorial <- list(fn = function(x, n) lgamma(x + 1) - lgamma(x - n + 1))
refs$log_rising_factorial <- list(fn = function(x, n) lgamma(x + n) - lgamma(x))
refs$lmgamma <- list(fn = function(k, x) k * (k - 1) / 4 * log(pi_mp()) + Reduce(`+`, lapply(1:k, function(j) lgamma(x + (1 - j) / 2))))
# gumbel's log cdf directly: its cdf underflows even mpfr's exponent range in the far left tail
refs$gumbel$lcdf <- function(y, mu, b) -exp(-(y - mu) / b)
refs$gumbel$lccdf <- function(y, mu, b) log(-expm1(-exp(-(y - mu) / b)))
# inv_Phi: Newton's iterations on Phi_mp from R's double quantile (each
# doubles the digits: four reach 256 bits)
inv_Phi_mp <- function(p) {
  x <- mp(stats::qnorm(as.numeric(p)))
  for (i in 1:6) x <- x - (Phi_mp(x) - p) / (exp(-x^2 / 2) / sqrt(2 * pi_mp()))
  x
}
refs$inv_Phi <- list(fn = inv_Phi_mp)

# log_sum_exp(eigenvalues_sym(A)) = log tr exp(A), a symmetric function of the
# eigenvalues and so smooth where they repeat: its gradient is
# exp(A) / tr exp(A) (A symmetric), exp(A) by its Taylor series in mpfr.
# The hard case of a repeated spectrum (A = 2 I) has no other reference.
expm_mp <- function(A, terms = 120) {
  n <- nrow(A); E <- mpfr(diag(n), prec); T <- E
  for (j in 1:terms) { T <- (T %*% A) / mpfr(j, prec); E <- E + T }   # (an int divisor drops the dims)
  E
}
refs$eigenvalues_sym <- list(custom = function(fx, k, p) {
  line <- grep(sprintf("^  r\\[%d\\] = ", k), strsplit(fx$program, "\n")[[1]], value = TRUE)
  m <- regmatches(line, regexec("red_r\\(log_sum_exp\\(eigenvalues_sym\\(sym_\\(to_matrix\\(th\\[([0-9]+):([0-9]+)\\], ([0-9]+), ([0-9]+)\\)\\)\\)\\)\\)", line))[[1]]
  if (!length(m)) stop("no reference for this use of eigenvalues_sym")
  a <- as.integer(m[2]); b <- as.integer(m[3]); n <- as.integer(m[4])
  M <- mpfr(matrix(fx$th[[p]][a:b], n, n), prec)
  A <- (M + t(M)) / 2
  E <- expm_mp(A)
  tr <- Reduce(`+`, lapply(1:n, function(i) E[i, i]))
  G <- E / tr
  list(r = as.numeric(log(tr)), grad = as.numeric(G))
})

# Eigenvalues of a small symmetric matrix in mpfr: the roots of its
# characteristic polynomial (Faddeev-LeVerrier), each polished by Newton's
# iterations from R's double eigenvalue (far closer to its root than the
# hard cases' gaps of 1e-6).  Singular values are the square roots of
# those of A'A.
eig_sym_mp <- function(S) {
  n <- nrow(S)
  cf <- vector("list", n + 1L); cf[[n + 1L]] <- mp(1)       # cf[[i + 1]]: coefficient of x^i
  Mk <- mpfr(matrix(0, n, n), prec); I <- mpfr(diag(n), prec)
  for (k in 1:n) {
    Mk <- S %*% Mk + I * cf[[n - k + 2L]]
    SM <- S %*% Mk
    cf[[n - k + 1L]] <- -Reduce(`+`, lapply(1:n, function(i) SM[i, i])) / mpfr(k, prec)
  }
  p <- function(x) Reduce(function(acc, i) acc * x + cf[[i]], (n + 1L):1, mp(0))
  dp <- function(x) Reduce(function(acc, i) acc * x + cf[[i]] * (i - 1), (n + 1L):2, mp(0))
  lam <- sort(eigen(asNumeric(S), symmetric = TRUE, only.values = TRUE)$values)
  lapply(lam, function(l0) { x <- mp(l0); for (it in 1:30) x <- x - p(x) / dp(x); x })
}
small_matrix_call <- function(fx, k, pattern) {
  line <- grep(sprintf("^  r\\[%d\\] = ", k), strsplit(fx$program, "\n")[[1]], value = TRUE)
  m <- regmatches(line, regexec(pattern, line))[[1]]
  if (!length(m)) stop("no reference for this call: ", line)
  as.integer(m[-1])
}
# red_v's weights (gen.R): x[i] * (1 + 0.25 i)
red_v_mp <- function(v) Reduce(`+`, lapply(seq_along(v), function(i) v[[i]] * (1 + 0.25 * i)))
grad_mp <- function(f, x, h = 1e-30) {
  vapply(seq_along(x), function(j) {
    xp <- x; xm <- x; xp[j] <- x[j] + mp(h); xm[j] <- x[j] - mp(h)
    as.numeric((f(xp) - f(xm)) / (2 * mp(h)))
  }, 0)
}
refs$singular_values <- list(custom = function(fx, k, p) {
  a <- small_matrix_call(fx, k, "red_v\\(singular_values\\(to_matrix\\(th\\[([0-9]+):([0-9]+)\\], ([0-9]+), ([0-9]+)\\)\\)\\)")
  f <- function(x) {
    A <- mpfr(matrix(0, a[3], a[4]), prec); A[] <- x
    s <- rev(lapply(eig_sym_mp(t(A) %*% A), sqrt))     # descending, as Stan's
    red_v_mp(s)
  }
  x <- mp(fx$th[[p]][a[1]:a[2]])
  list(r = as.numeric(f(x)), grad = grad_mp(f, x))
})
local({
  lse <- refs$eigenvalues_sym$custom
  refs$eigenvalues_sym$custom <<- function(fx, k, p) {
    a <- tryCatch(small_matrix_call(fx, k, "red_v\\(eigenvalues_sym\\(sym_\\(to_matrix\\(th\\[([0-9]+):([0-9]+)\\], ([0-9]+), ([0-9]+)\\)\\)\\)\\)"),
                  error = function(e) NULL)
    if (is.null(a)) return(lse(fx, k, p))
    f <- function(x) {
      M <- mpfr(matrix(0, a[3], a[4]), prec); M[] <- x
      red_v_mp(eig_sym_mp((M + t(M)) / 2))               # ascending, as Stan's
    }
    x <- mp(fx$th[[p]][a[1]:a[2]])
    list(r = as.numeric(f(x)), grad = grad_mp(f, x))
  }
})

# gp_matern32_cov(array[] vector x, real sigma, array[] real l): the ARD
# kernel sigma^2 (1 + sqrt(3) d) exp(-sqrt(3) d), d the distance scaled by l,
# reduced by red_m's weights (1 + i/4 + j/16); partials by differences in
# mpfr over the call's slice of th.  On the diagonal (d = 0) the kernel is
# constant (Stan 2.21's gradient is NaN there: the derivative of d at 0).
red_m_mp <- function(K) {
  s <- mp(0)
  for (j in seq_len(ncol(K))) for (i in seq_len(nrow(K))) s <- s + K[i, j] * (1 + 0.25 * i + 0.0625 * j)
  s
}
refs$gp_matern32_cov <- list(custom = function(fx, k, p) {
  a <- fx$args[[k]]
  if (length(a) != 3 || a[[1]]$type != "vector[ ]" || a[[3]]$type != "real[ ]") stop("no reference for ", fx$sig[k])
  sl <- fx$slices[k, ]
  f <- function(x) {                       # x: the call's slice of th, in mpfr
    at <- function(j) x[[j - sl[1] + 1L]]
    pts <- lapply(seq_len(nrow(a[[1]]$reads)), function(r) lapply(a[[1]]$reads[r, 2]:a[[1]]$reads[r, 3], at))
    sigma <- at(a[[2]]$reads[1, 2]); l <- lapply(a[[3]]$reads[1, 2]:a[[3]]$reads[1, 3], at)
    n <- length(pts); K <- mpfr(matrix(0, n, n), prec)
    for (i in 1:n) for (j in 1:n) {
      d2 <- Reduce(`+`, lapply(seq_along(l), function(q) ((pts[[i]][[q]] - pts[[j]][[q]]) / l[[q]])^2))
      r <- sqrt(3 * d2)                    # 0 on the diagonal, whatever the perturbation
      K[i, j] <- sigma^2 * (1 + r) * exp(-r)
    }
    red_m_mp(K)
  }
  x <- mp(fx$th[[p]][sl[1]:sl[2]])
  list(r = as.numeric(f(x)), grad = grad_mp(function(v) f(lapply(seq_along(v), function(j) v[j])), x))
})

# trigamma in mpfr: the recurrence psi1(x) = psi1(x + 1) + 1 / x^2 up to
# x + N >= 80, then the asymptotic series 1/z + 1/(2 z^2) + sum B_2k / z^(2k+1)
# (40 terms: at z = 80 the terms fall far below 2^-256).  Negative x by
# reflection: psi1(1 - x) + psi1(x) = pi^2 / sin(pi x)^2.
trigamma_mp <- function(x) {
  if (x < 0.5) return(pi_mp()^2 / sin(pi_mp() * x)^2 - trigamma_mp(1 - x))
  s <- mp(0)
  while (x < 80) { s <- s + 1 / x^2; x <- x + 1 }
  B <- Bernoulli(seq(2, 80, by = 2), precBits = prec)
  t <- 1 / x + 1 / (2 * x^2)
  for (k in 1:40) t <- t + B[k] / x^(2 * k + 1)
  s + t
}
refs$trigamma <- list(fn = trigamma_mp)
