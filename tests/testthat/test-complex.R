# Complex numbers: types, literals, promotion, indexing, data and output,
# the elementwise functions and operators against R's complex arithmetic,
# gradients against finite differences of the log density.

cx_ctx <- function(code, data = NULL) tapestry_model(code = code)$bind(data = data)
cx_gq <- function(ctx, p = numeric(0)) ctx$constrain_variables(p, generated_quantities = TRUE)

# The gradient of the log density against central differences at p.
expect_grad_fd <- function(ctx, p, tol = 1e-6) {
  g <- ctx$grad_log_prob(p)
  expect_equal(as.numeric(g), fd_grad(ctx, p), tolerance = tol)
  expect_equal(attr(g, "log_prob"), ctx$log_prob(p), tolerance = 1e-14)
}

test_that("complex types are declared in every block, with literals and promotion", {
  code <- "
  functions {
    complex twice(complex z) { return 2 * z; }
    complex_vector shift(complex_vector v, complex s) { return v + s; }
    array[] complex pair(real a, complex b) { return {a, b}; }
  }
  data { complex zd; complex_vector[2] vd; complex_row_vector[2] rd; complex_matrix[2, 2] md;
         array[2] complex ad; }
  transformed data { complex t = 1.5i; complex_vector[2] tv = [1, 2]'; }
  parameters { real x; }
  transformed parameters { complex tp = to_complex(x, 2 * x); }
  model { x ~ normal(0, 1); }
  generated quantities {
    complex a = 2i;
    complex b = 3;           // int promotes
    complex c = 2.5;         // real promotes
    complex d = -1.5 + 0.5i;
    complex e = to_complex();
    complex f = to_complex(4);
    complex_vector[2] g = tv;
    complex_vector[2] h = shift(vd, 1i);
    complex k = twice(zd);
    array[2] complex p = pair(1, 2i);
    complex_matrix[2, 2] m = md;
    complex_row_vector[2] r = rd;
    array[2] complex q = ad;
    complex u = t;
    g[2] = 7;
    m[1, 2] = zd;
    r[1:2] = [3i, 4];
  }"
  zd <- 1 - 2i
  vd <- c(1 + 1i, -2 + 0.5i)
  rd <- c(3i, 1)
  md <- matrix(c(1 + 1i, 2, 3i, 4 - 1i), 2, 2)
  ad <- c(5 + 5i, -1i)
  ctx <- cx_ctx(code, list(zd = zd, vd = vd, rd = rd, md = md, ad = ad))
  g <- cx_gq(ctx, 0.25)
  expect_equal(g$tp, 0.25 + 0.5i)
  expect_equal(g$a, 2i)
  expect_equal(g$b, 3 + 0i)
  expect_equal(g$c, 2.5 + 0i)
  expect_equal(g$d, -1.5 + 0.5i)
  expect_equal(g$e, 0 + 0i)
  expect_equal(g$f, 4 + 0i)
  expect_equal(g$g, c(1, 7) + 0i)
  expect_equal(g$h, vd + 1i)
  expect_equal(g$k, 2 * zd)
  expect_equal(g$p, c(1, 2i))
  m <- md
  m[1, 2] <- zd
  expect_equal(g$m, m)
  expect_equal(g$r, c(3i, 4))
  expect_equal(g$q, ad)
  expect_equal(g$u, 1.5i)
  expect_true(is.complex(g$m) && identical(dim(g$m), c(2L, 2L)))
})

test_that("complex output columns follow CmdStan (z.real, z.imag as cmdstanr names them)", {
  code <- "
  parameters { real x; }
  model { x ~ normal(0, 1); }
  generated quantities {
    complex z = to_complex(x, -x);
    complex_vector[2] v = [x, 2i]';
    complex_matrix[2, 2] m = to_matrix([1, 2i, 3, 4i], 2, 2);
    array[2] complex a = {1i, x};
  }"
  ctx <- cx_ctx(code)
  expect_equal(ctx$variable_names(),
               c("x", "z[real]", "z[imag]", "v[1,real]", "v[1,imag]", "v[2,real]", "v[2,imag]",
                 "m[1,1,real]", "m[1,1,imag]", "m[2,1,real]", "m[2,1,imag]",
                 "m[1,2,real]", "m[1,2,imag]", "m[2,2,real]", "m[2,2,imag]",
                 "a[1,real]", "a[1,imag]", "a[2,real]", "a[2,imag]"))
  fit <- tapestry_model(code = code)$sample(chains = 1, iter_warmup = 50, iter_sampling = 20,
                                            seed = 3, refresh = 0, show_messages = FALSE)
  d <- posterior::as_draws_df(fit$draws())
  expect_equal(d[["z[real]"]], d$x)
  expect_equal(d[["z[imag]"]], -d$x)
  expect_equal(d[["m[1,2,real]"]], rep(3, 20))
  expect_equal(d[["m[2,1,imag]"]], rep(2, 20))
  expect_equal(d[["a[2,real]"]], d$x)
  sizes <- fit$metadata()$stan_variable_sizes
  expect_equal(sizes$z, 2)
  expect_equal(sizes$v, c(2, 2))
  expect_equal(sizes$m, c(2, 2, 2))
  dir <- tempfile()
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  csv <- readLines(fit$save_output_files(dir = dir)[1])
  header <- csv[startsWith(csv, "lp__")]
  expect_match(header, "x,z.real,z.imag,v.1.real,v.1.imag,v.2.real,v.2.imag,m.1.1.real,", fixed = TRUE)
})

test_that("complex data come from JSON as CmdStan writes them, and from R complex values", {
  code <- "
  data { complex z; complex_vector[2] v; complex_matrix[2, 3] m; array[2] complex a; }
  generated quantities { complex z2 = z; complex_vector[2] v2 = v; complex_matrix[2, 3] m2 = m;
                         array[2] complex a2 = a; }"
  json <- tempfile(fileext = ".json")
  writeLines('{"z": [1.5, -2], "v": [[1, 2], [3, 4]],
               "m": [[[1, 0], [2, 0], [3, 1]], [[4, 0], [5, 0], [6, -1]]],
               "a": [[0, 1], [2, 0]]}', json)
  m <- matrix(c(1, 4, 2, 5, 3 + 1i, 6 - 1i), 2, 3)
  g1 <- cx_gq(cx_ctx(code, json))
  expect_equal(g1$z2, 1.5 - 2i)
  expect_equal(g1$v2, c(1 + 2i, 3 + 4i))
  expect_equal(g1$m2, m)
  expect_equal(g1$a2, c(1i, 2))
  g2 <- cx_gq(cx_ctx(code, list(z = 1.5 - 2i, v = c(1 + 2i, 3 + 4i), m = m, a = c(1i, 2))))
  expect_equal(g2, g1)
  bad <- list(z = 1.5 - 2i, v = c(1 + 2i, 3 + 4i, 5i), m = m, a = c(1i, 2))
  expect_snapshot(cx_ctx(code, bad), error = TRUE)
  # arrays of complex vectors from an R matrix (a row per element) or a list
  code <- "data { array[2] complex_vector[3] a; array[2, 2] complex b; }
           generated quantities { array[2] complex_vector[3] a2 = a; array[2, 2] complex b2 = b; }"
  A <- matrix(complex(real = 1:6, imaginary = -(1:6)), 2, 3)
  B <- matrix(c(1i, 2, 3i, 4), 2, 2)
  g1 <- cx_gq(cx_ctx(code, list(a = A, b = B)))
  g2 <- cx_gq(cx_ctx(code, list(a = list(A[1, ], A[2, ]), b = list(B[1, ], B[2, ]))))
  expect_equal(g1$a2, A)
  expect_equal(g1$b2, B)
  expect_identical(g2, g1)
})

test_that("complex functions and operators give R's values", {
  code <- "
  data { complex z; complex w; }
  generated quantities {
    array[16] complex f = {exp(z), log(z), log10(z), sqrt(z), sin(z), cos(z), tan(z), asin(z),
                           acos(z), atan(z), sinh(z), cosh(z), tanh(z), asinh(z), acosh(z), atanh(z)};
    array[9] complex o = {z + w, z - w, z * w, z / w, -z, z ^ w, pow(z, 2), 2 ^ z, z * 2.5};
    array[4] real r = {abs(z), arg(z), norm(z), get_real(z) + get_imag(w)};
    array[3] complex c = {conj(z), proj(z), polar(2.0, 0.5)};
    array[4] int e = {z == w, z != w, z == z, 2 == to_complex(2)};
  }"
  # C99's (and C++'s, so Stan's) principal acosh: R's acosh differs left of -1
  cacosh <- function(z) log(z + sqrt(z + 1) * sqrt(z - 1))
  for (z in c(0.7 + 0.4i, -1.3 - 0.2i, 2i)) {
    w <- -0.3 + 1.2i
    g <- cx_gq(cx_ctx(code, list(z = z, w = w)))
    expect_equal(g$f, c(exp(z), log(z), log(z) / log(10), sqrt(z), sin(z), cos(z), tan(z), asin(z),
                        acos(z), atan(z), sinh(z), cosh(z), tanh(z), asinh(z), cacosh(z), atanh(z)),
                 tolerance = 1e-13)
    expect_equal(g$o, c(z + w, z - w, z * w, z / w, -z, z^w, z^2, 2^z, z * 2.5), tolerance = 1e-13)
    expect_equal(g$r, c(Mod(z), Arg(z), Mod(z)^2, Re(z) + Im(w)), tolerance = 1e-14)
    expect_equal(g$c, c(Conj(z), z, 2 * exp(0.5i)), tolerance = 1e-14)
    expect_equal(g$e, c(0L, 1L, 1L, 1L))
  }
})

test_that("gradients through complex scalar functions match finite differences", {
  fns <- c("exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
           "cosh", "tanh", "asinh", "acosh", "atanh", "conj", "proj", "minus")
  for (f in fns) {
    code <- sprintf("
    parameters { real x; real y; }
    model {
      complex z = to_complex(x, y);
      complex w = %s(z);
      target += get_real(w) + 0.3 * get_imag(w) + abs(w) - 0.5 * (x^2 + y^2);
    }", f)
    ctx <- cx_ctx(code)
    for (p in list(c(0.3, -0.7), c(-0.4, 0.2))) expect_grad_fd(ctx, p)
  }
  code <- "
  parameters { real x; real y; real u; real v; }
  model {
    complex z = to_complex(x, y);
    complex w = to_complex(u, v);
    complex s = z * w + z / w - w ^ z + pow(z, 2) + polar(u, v) + 3 * z - w + z ^ 1.5;
    target += get_real(s) + get_imag(s) + arg(z) + norm(w) + abs(z * w) - 0.5 * dot_self([x, y, u, v]);
  }"
  ctx <- cx_ctx(code)
  expect_grad_fd(ctx, c(0.3, -0.7, 1.1, 0.4))
  expect_grad_fd(ctx, c(-0.6, 0.5, 0.8, -1.2))
})

test_that("fft, inv_fft, fft2, inv_fft2 match R's fft with gradients", {
  code <- "
  data { int N; int R; int C; complex_vector[N] v; complex_matrix[R, C] m; }
  generated quantities {
    complex_vector[N] f = fft(v); complex_vector[N] fi = inv_fft(v);
    complex_matrix[R, C] f2 = fft2(m); complex_matrix[R, C] fi2 = inv_fft2(m);
    complex_vector[N] back = inv_fft(fft(v));
  }"
  set.seed(4)
  for (N in c(1, 5, 7, 8, 12, 30, 64, 97)) {
    v <- complex(real = rnorm(N), imaginary = rnorm(N))
    m <- matrix(complex(real = rnorm(6), imaginary = rnorm(6)), 2, 3)
    g <- cx_gq(cx_ctx(code, list(N = N, R = 2, C = 3, v = v, m = m)))
    expect_equal(g$f, fft(v), tolerance = 1e-12)
    expect_equal(g$fi, fft(v, inverse = TRUE) / N, tolerance = 1e-12)
    expect_equal(g$f2, fft(m), tolerance = 1e-12)
    expect_equal(g$fi2, fft(m, inverse = TRUE) / 6, tolerance = 1e-12)
    expect_equal(g$back, v, tolerance = 1e-12)
  }
  for (rc in list(c(4, 4), c(3, 5), c(6, 1))) {
    m <- matrix(complex(real = rnorm(prod(rc)), imaginary = rnorm(prod(rc))), rc[1], rc[2])
    g <- cx_gq(cx_ctx(code, list(N = 1, R = rc[1], C = rc[2], v = 1i, m = m)))
    expect_equal(g$f2, fft(m), tolerance = 1e-12)
    expect_equal(g$fi2, fft(m, inverse = TRUE) / prod(rc), tolerance = 1e-12)
  }
  code <- "
  data { int N; vector[N] w; }
  parameters { vector[N] x; vector[N] y; }
  model {
    complex_vector[N] z = to_complex(x, y);
    complex_vector[N] f = fft(z);
    complex_vector[N] g = inv_fft(z .* z);
    complex_matrix[2, N %/% 2] m = to_matrix(z, 2, N %/% 2);
    complex_matrix[2, N %/% 2] h = fft2(m) + inv_fft2(m);
    target += dot_product(w, get_real(f)) + sum(get_imag(g)) + sum(abs(f)) + get_real(sum(h))
              - 0.5 * (dot_self(x) + dot_self(y));
  }"
  for (N in c(6, 8, 10)) {
    ctx <- cx_ctx(code, list(N = N, w = seq_len(N) / N))
    expect_grad_fd(ctx, rnorm(2 * N))
  }
})

test_that("complex vector and matrix arithmetic and containers have R's values and gradients", {
  code <- "
  data { complex_vector[5] v; complex_matrix[2, 3] M; complex_matrix[3, 2] N; }
  generated quantities {
    complex_matrix[2, 2] MN = M * N;
    complex_vector[2] Mv = M * v[1:3];
    complex_row_vector[3] rM = v[1:2]' * M;
    complex_matrix[3, 2] Mt = M';
    complex s = sum(v); complex pr = prod(v); complex_vector[5] cs = cumulative_sum(v);
    complex dp = dot_product(v, v); complex tr = trace(MN);
    vector[5] re = get_real(v); vector[5] im = get_imag(v); vector[5] av = abs(v);
    complex_vector[5] rev = reverse(v); complex_vector[2] hd = head(v, 2);
    complex_vector[2] tl = tail(v, 2); complex_vector[3] sg = segment(v, 2, 3);
    complex_row_vector[3] rw = row(M, 2); complex_vector[2] cl = col(M, 3);
    complex_vector[2] dg = diagonal(M); complex_matrix[2, 2] bl = block(M, 1, 2, 2, 2);
    complex_matrix[2, 6] ac = append_col(M, M); complex_vector[10] ar = append_row(v, v);
    complex_vector[6] tv = to_vector(M); complex_matrix[3, 2] tm = to_matrix(M, 3, 2);
    complex_matrix[3, 2] tmr = to_matrix(M, 3, 2, 0);
    complex_vector[5] e1 = v .* v; complex_vector[5] e2 = v ./ (v + 1); complex_vector[5] e3 = v * 2;
    complex_vector[5] e4 = 2i * v; complex_vector[5] e5 = v / 2i; complex_vector[5] e6 = v - 1;
    complex_matrix[2, 3] ad = add_diag(M, 1i); complex_matrix[2, 2] dm = diag_matrix(v[1:2]);
    complex_matrix[2, 3] rm = rep_matrix(2i, 2, 3); complex_vector[3] rv = rep_vector(1i, 3);
    array[2, 3] complex ra = rep_array(1 + 1i, 2, 3);
    array[2, 3] complex a2 = to_array_2d(M); array[6] complex a1 = to_array_1d(M);
    complex_vector[5] cj = conj(v); complex_vector[5] pw = pow(v, 2);
    int sz = size(v); int ne = num_elements(M); array[2] int dms = dims(M); int nr = rows(M);
    complex_vector[2] tc1 = to_complex(1, [2, 3]'); complex_row_vector[2] tc2 = to_complex([2, 3], 1.5);
    array[2] complex tc3 = to_complex({1, 2}, {3.5, 4}); complex_matrix[2, 2] tc4 = to_complex(get_real(M[:, 1:2]), 0);
    array[2] real gr = get_real(tc3); array[2] real gi = get_imag(tc3); array[2] real ab = abs(tc3);
    array[2, 2] complex nest = {tc3, conj(tc3)}; array[2, 2] real nabs = abs(nest);
  }"
  set.seed(2)
  v <- complex(real = rnorm(5), imaginary = rnorm(5))
  M <- matrix(complex(real = rnorm(6), imaginary = rnorm(6)), 2, 3)
  N <- matrix(complex(real = rnorm(6), imaginary = rnorm(6)), 3, 2)
  g <- cx_gq(cx_ctx(code, list(v = v, M = M, N = N)))
  e <- 1e-13
  expect_equal(g$MN, M %*% N, tolerance = e)
  expect_equal(g$Mv, as.vector(M %*% v[1:3]), tolerance = e)
  expect_equal(g$rM, as.vector(t(v[1:2]) %*% M), tolerance = e)
  expect_equal(g$Mt, t(M))
  expect_equal(g$s, sum(v), tolerance = e)
  expect_equal(g$pr, prod(v), tolerance = e)
  expect_equal(g$cs, cumsum(v), tolerance = e)
  expect_equal(g$dp, sum(Conj(v) * v), tolerance = e)   # Eigen's dot conjugates the first vector
  expect_equal(g$tr, sum(diag(M %*% N)), tolerance = e)
  expect_equal(g$re, Re(v)); expect_equal(g$im, Im(v)); expect_equal(g$av, Mod(v))
  expect_equal(g$rev, rev(v)); expect_equal(g$hd, v[1:2]); expect_equal(g$tl, v[4:5])
  expect_equal(g$sg, v[2:4]); expect_equal(g$rw, M[2, ]); expect_equal(g$cl, M[, 3])
  expect_equal(g$dg, diag(M)); expect_equal(g$bl, M[1:2, 2:3])
  expect_equal(g$ac, cbind(M, M)); expect_equal(g$ar, c(v, v)); expect_equal(g$tv, as.vector(M))
  expect_equal(g$tm, matrix(M, 3, 2)); expect_equal(g$tmr, matrix(as.vector(M), 3, 2, byrow = TRUE))
  expect_equal(g$e1, v * v, tolerance = e); expect_equal(g$e2, v / (v + 1), tolerance = e)
  expect_equal(g$e3, v * 2); expect_equal(g$e4, 2i * v); expect_equal(g$e5, v / 2i, tolerance = e)
  expect_equal(g$e6, v - 1)
  ad <- M
  diag(ad) <- diag(ad) + 1i
  expect_equal(g$ad, ad)
  expect_equal(g$dm, diag(v[1:2]))
  expect_equal(g$rm, matrix(2i, 2, 3)); expect_equal(g$rv, rep(1i, 3))
  expect_equal(g$ra, matrix(1 + 1i, 2, 3))
  expect_equal(g$a2, M); expect_equal(g$a1, as.vector(M))
  expect_equal(g$cj, Conj(v)); expect_equal(g$pw, v^2, tolerance = e)
  expect_equal(c(g$sz, g$ne, g$dms, g$nr), c(5L, 6L, 2L, 3L, 2L))
  expect_equal(g$tc1, c(1 + 2i, 1 + 3i)); expect_equal(g$tc2, c(2 + 1.5i, 3 + 1.5i))
  expect_equal(g$tc3, c(1 + 3.5i, 2 + 4i)); expect_equal(g$tc4, Re(M[, 1:2]) + 0i)
  expect_equal(g$gr, c(1, 2)); expect_equal(g$gi, c(3.5, 4)); expect_equal(g$ab, Mod(c(1 + 3.5i, 2 + 4i)))
  expect_equal(g$nabs, Mod(rbind(c(1 + 3.5i, 2 + 4i), c(1 - 3.5i, 2 - 4i))))

  code <- "
  parameters { vector[6] x; vector[6] y; }
  model {
    complex_vector[6] z = to_complex(x, y);
    complex_matrix[2, 3] A = to_matrix(z, 2, 3);
    complex_matrix[3, 2] B = A';
    complex_matrix[2, 2] C = A * B + diag_matrix(head(z, 2));
    complex_vector[3] u = segment(z, 2, 3);
    complex_vector[2] Au = A * u;
    complex_row_vector[3] rA = row(A, 1) + to_row_vector(tail(z, 3));
    complex p = prod(u) + sum(cumulative_sum(reverse(z))) + dot_product(u, conj(u)) + trace(C);
    complex_matrix[2, 3] D = add_diag(A, 2i) .* A ./ (A + 3);
    target += get_real(p) + get_imag(sum(Au)) + sum(abs(rA)) + sum(get_real(to_vector(D)))
              + get_imag(sum(append_row(z, col(A, 2)))) + norm(sum(block(A, 1, 1, 2, 2)))
              - 0.5 * (dot_self(x) + dot_self(y));
  }"
  ctx <- cx_ctx(code)
  set.seed(5)
  expect_grad_fd(ctx, rnorm(12, sd = 0.5))
  expect_grad_fd(ctx, rnorm(12, sd = 0.5))
})

test_that("more complex containers: rep_array of arrays, diag_pre/post_multiply, symmetrize", {
  code <- "
  data { complex_vector[2] v; complex_matrix[2, 2] M; array[2] complex a; }
  generated quantities {
    array[3, 2] complex ra = rep_array(a, 3);
    array[2, 2, 2] complex rb = rep_array(a, 2, 2);
    complex_matrix[2, 2] pre = diag_pre_multiply(v, M);
    complex_matrix[2, 2] post = diag_post_multiply(M, v);
    complex_matrix[2, 2] sym = symmetrize_from_lower_tri(M);
    complex_row_vector[2] cdp = columns_dot_product(M, M'); complex_vector[2] rdp = rows_dot_product(M, M');
    complex_row_vector[2] cdv = columns_dot_product(v', v');
    complex ds = dot_self(v); complex_row_vector[2] cds = columns_dot_self(M); complex_vector[2] rds = rows_dot_self(M);
    complex_matrix[2, 3] rmv = rep_matrix(v, 3);
    complex_matrix[3, 2] rmr = rep_matrix(v', 3);
  }"
  v <- c(1 + 2i, -1i)
  M <- matrix(c(1 + 1i, 2 - 1i, 3i, 4), 2, 2)
  a <- c(5 + 1i, 6)
  g <- cx_gq(cx_ctx(code, list(v = v, M = M, a = a)))
  expect_equal(g$ra, matrix(a, 3, 2, byrow = TRUE))
  expect_equal(g$rb, array(rep(a, each = 4), c(2, 2, 2)))
  expect_equal(g$pre, diag(v) %*% M)
  expect_equal(g$post, M %*% diag(v))
  expect_equal(g$sym, matrix(c(M[1, 1], M[2, 1], M[2, 1], M[2, 2]), 2, 2))
  # Stan Math: cwiseProduct then sums, no conjugate
  expect_equal(g$cdp, colSums(M * t(M))); expect_equal(g$rdp, rowSums(M * t(M)))
  expect_equal(g$cdv, v * v)
  # squared norms (Eigen's squaredNorm; dot_product(v, v) conjugates v too)
  expect_equal(g$ds, sum(Mod(v)^2) + 0i); expect_equal(g$cds, colSums(Mod(M)^2) + 0i)
  expect_equal(g$rds, rowSums(Mod(M)^2) + 0i)
  expect_equal(g$rmv, matrix(v, 2, 3))
  expect_equal(g$rmr, matrix(v, 3, 2, byrow = TRUE))
  code <- "
  parameters { vector[4] x; vector[2] y; }
  model {
    complex_matrix[2, 2] M = to_matrix(to_complex(x, reverse(x)), 2, 2);
    complex_vector[2] v = to_complex(y, [1, -1]');
    complex_matrix[2, 2] P = diag_pre_multiply(v, M) + diag_post_multiply(M, v') + symmetrize_from_lower_tri(M);
    complex_row_vector[2] q = columns_dot_product(P, M) + rows_dot_product(M, P)';
    target += get_real(sum(P)) + get_imag(prod(to_vector(P))) + get_real(sum(q)) + get_imag(q[1])
              + get_real(dot_self(v) + sum(columns_dot_self(P)) * sum(rows_dot_self(M)))
              - 0.5 * (dot_self(x) + dot_self(y));
  }"
  expect_grad_fd(cx_ctx(code), c(0.3, -0.5, 0.8, 0.1, -0.7, 0.4))
})

test_that("mdivide_right of complex matrices (the / operator) with gradients", {
  code <- "
  data { complex_matrix[3, 3] A; complex_matrix[2, 3] B; }
  generated quantities {
    complex_matrix[2, 3] X = B / A; complex_row_vector[3] r = B[1] / A;
    complex_matrix[2, 3] Y = mdivide_right(B, A);
  }"
  set.seed(9)
  A <- matrix(complex(real = rnorm(9), imaginary = rnorm(9)), 3, 3)
  B <- matrix(complex(real = rnorm(6), imaginary = rnorm(6)), 2, 3)
  g <- cx_gq(cx_ctx(code, list(A = A, B = B)))
  expect_equal(g$X, B %*% solve(A), tolerance = 1e-12)
  expect_equal(g$Y, g$X)
  expect_equal(g$r, as.vector(B[1, ] %*% solve(A)), tolerance = 1e-12)
  code <- "
  parameters { vector[9] x; vector[6] y; }
  model {
    complex_matrix[3, 3] A = to_matrix(to_complex(x, reverse(x)), 3, 3) + diag_matrix(rep_vector(3, 3));
    complex_matrix[2, 3] B = to_matrix(to_complex(y, 1), 2, 3);
    complex_matrix[2, 3] X = B / A;
    target += get_real(sum(X)) + get_imag(prod(to_vector(X))) - 0.5 * (dot_self(x) + dot_self(y));
  }"
  expect_grad_fd(cx_ctx(code), rnorm(15, sd = 0.4))
})

test_that("eigenvalues, eigenvectors and the complex Schur decomposition of non-symmetric matrices", {
  code <- "
  data { int n; matrix[n, n] A; complex_matrix[n, n] B; }
  generated quantities {
    complex_vector[n] ev = eigenvalues(A); complex_matrix[n, n] V = eigenvectors(A);
    complex_vector[n] evb = eigenvalues(B); complex_matrix[n, n] Vb = eigenvectors(B);
    complex_matrix[n, n] T = complex_schur_decompose_t(B); complex_matrix[n, n] U = complex_schur_decompose_u(B);
    complex_matrix[n, n] TA = complex_schur_decompose_t(A); complex_matrix[n, n] UA = complex_schur_decompose_u(A);
  }"
  ord <- function(z) z[order(round(Re(z), 8), round(Im(z), 8))]
  set.seed(1)
  for (n in c(1, 2, 3, 6)) {
    A <- matrix(rnorm(n * n), n, n)
    B <- matrix(complex(real = rnorm(n * n), imaginary = rnorm(n * n)), n, n)
    g <- cx_gq(cx_ctx(code, list(n = n, A = A, B = B)))
    # the order of the eigenvalues is the iteration's (Eigen's may differ): compare as sets
    expect_equal(ord(g$ev), ord(eigen(A)$values + 0i), tolerance = 1e-12)
    expect_equal(ord(g$evb), ord(eigen(B)$values), tolerance = 1e-12)
    expect_equal(A %*% g$V, g$V %*% diag(g$ev, n), tolerance = 1e-12)
    expect_equal(B %*% g$Vb, g$Vb %*% diag(g$evb, n), tolerance = 1e-12)
    expect_equal(colSums(Mod(g$V)^2), rep(1, n), tolerance = 1e-12)
    expect_equal(g$U %*% g$T %*% Conj(t(g$U)), B, tolerance = 1e-12)
    expect_equal(Conj(t(g$U)) %*% g$U, diag(n) + 0i, tolerance = 1e-12)
    expect_true(all(g$T[lower.tri(g$T)] == 0))
    expect_equal(g$UA %*% g$TA %*% Conj(t(g$UA)), A + 0i, tolerance = 1e-12)
  }
  code <- "
  parameters { vector[9] x; }
  model {
    matrix[3, 3] A = to_matrix(x, 3, 3);
    complex_vector[3] e = eigenvalues(A);
    complex_vector[3] f = eigenvalues(to_complex(A, A'));
    target += sum(get_real(e)) + sum(abs(e)) + get_imag(sum(f .* f)) + sum(abs(f)) - 0.5 * dot_self(x);
  }"
  ctx <- cx_ctx(code)
  set.seed(7)
  expect_grad_fd(ctx, rnorm(9))
  code <- "
  data { int m; int n; complex_matrix[m, n] A; complex_matrix[m, m] H; }
  generated quantities {
    vector[min(m, n)] d = singular_values(A);
    complex_matrix[m, min(m, n)] U = svd_U(A); complex_matrix[n, min(m, n)] V = svd_V(A);
    complex_vector[m] hv = eigenvalues_sym(H); complex_matrix[m, m] HV = eigenvectors_sym(H);
  }"
  for (dims in list(c(3, 3), c(4, 2), c(2, 5))) {
    m <- dims[1]; n <- dims[2]
    A <- matrix(complex(real = rnorm(m * n), imaginary = rnorm(m * n)), m, n)
    H <- matrix(complex(real = rnorm(m * m), imaginary = rnorm(m * m)), m, m)
    H <- H + Conj(t(H))
    Hl <- H
    Hl[upper.tri(Hl)] <- 99   # only the lower triangle is read
    g <- cx_gq(cx_ctx(code, list(m = m, n = n, A = A, H = Hl)))
    expect_equal(g$d, svd(A)$d, tolerance = 1e-12)
    expect_equal(g$U %*% diag(g$d, length(g$d)) %*% Conj(t(g$V)), A, tolerance = 1e-12)
    expect_equal(Conj(t(g$U)) %*% g$U, diag(length(g$d)) + 0i, tolerance = 1e-12)
    expect_equal(g$hv, eigen(H)$values[m:1] + 0i, tolerance = 1e-12)
    expect_equal(H %*% g$HV, g$HV %*% diag(g$hv, m), tolerance = 1e-12)
  }
  code <- "
  parameters { vector[9] x; }
  model {
    complex_matrix[3, 3] H = to_matrix(to_complex(x, reverse(x)), 3, 3);
    complex_vector[3] e = eigenvalues_sym(H);   // the lower triangle, Hermitian
    target += get_real(e[1]) + 2 * get_real(e[3]) + sum(abs(e)) - 0.5 * dot_self(x);
  }"
  set.seed(8)
  expect_grad_fd(cx_ctx(code), rnorm(9))
  code <- "
  parameters { vector[6] x; }
  model {
    complex_matrix[2, 3] A = to_matrix(to_complex(x, reverse(x) + 1), 2, 3);
    vector[2] s = singular_values(A);
    vector[2] t = singular_values(A');
    target += s[1] + 3 * s[2] + t[2] - 0.5 * dot_self(x);
  }"
  expect_grad_fd(cx_ctx(code), rnorm(6))
  # eigenvectors_sym of a Hermitian matrix of parameters: each vector's
  # largest element real and positive, and that choice's derivative
  code <- "
  parameters { vector[9] x; }
  model {
    complex_matrix[3, 3] H = to_matrix(to_complex(x, reverse(x) .* [0.3, -1, 0.7, 1.1, 0.2, -0.4, 0.9, 0.5, -0.8]'), 3, 3);
    complex_matrix[3, 3] V = eigenvectors_sym(H);
    complex_vector[3] w = [1.5 - 0.5i, 2 + 1i, -1 + 0.25i]';
    target += get_real(sum(V * w)) + 0.7 * get_imag(V[2, 3]) - 0.3 * abs(V[1, 1]) - 0.5 * dot_self(x);
  }"
  ctx <- cx_ctx(code)
  for (i in 1:3) expect_grad_fd(ctx, rnorm(9))
  g <- cx_gq(cx_ctx("data { complex_matrix[3, 3] H; } generated quantities { complex_matrix[3, 3] V = eigenvectors_sym(H); }",
                    list(H = matrix(complex(real = c(2, 1, 0.5, 1, 3, -1, 0.5, -1, 1), imaginary = c(0, 1, -2, -1, 0, 0.5, 2, -0.5, 0)), 3))))
  big <- apply(Mod(g$V), 2, which.max)
  expect_equal(Im(g$V[cbind(big, 1:3)]), c(0, 0, 0))
  expect_true(all(Re(g$V[cbind(big, 1:3)]) > 0))
  # svd_U and svd_V of a complex matrix of parameters (square, tall, wide):
  # V's columns with their largest element real and positive, U's alike
  for (dims in list(c(3, 3), c(4, 2), c(2, 4))) {
    m <- dims[1]; n <- dims[2]
    code <- sprintf("
    parameters { vector[%d] x; }
    model {
      complex_matrix[%d, %d] A = to_matrix(to_complex(x, reverse(x) + 0.3), %d, %d);
      complex_matrix[%d, %d] U = svd_U(A);
      complex_matrix[%d, %d] V = svd_V(A);
      target += get_real(sum(U)) + 0.7 * get_imag(sum(V)) + 0.4 * abs(U[1, 2]) - 0.3 * get_imag(V[2, 1]) - 0.5 * dot_self(x);
    }", m * n, m, n, m, n, m, min(m, n), n, min(m, n))
    expect_grad_fd(cx_ctx(code), rnorm(m * n))
  }
  # eigenvectors of a general matrix of parameters, real and complex
  code <- "
  parameters { vector[9] x; }
  model {
    matrix[3, 3] A = to_matrix(x, 3, 3);
    complex_matrix[3, 3] V = eigenvectors(A);
    complex_matrix[3, 3] Vc = eigenvectors(to_complex(A, A' * 0.5));
    target += get_real(sum(V)) + 0.6 * get_imag(sum(V)) + 0.3 * abs(V[2, 3]) + get_real(Vc[1, 2])
              - 0.4 * get_imag(Vc[3, 1]) - 0.5 * dot_self(x);
  }"
  ctx <- cx_ctx(code)
  for (i in 1:3) expect_grad_fd(ctx, rnorm(9))
  bad <- cx_ctx("parameters { vector[4] x; } model { target += get_real(sum(complex_schur_decompose_t(to_matrix(x, 2, 2)))); }")
  expect_snapshot(bad$grad_log_prob(c(1, 2, 3, 4)), error = TRUE)
})

test_that("complex values on the tape: element reads, writes, promotion and loops", {
  code <- "
  functions {
    complex f(complex z, real a) { return z * a + 1i; }
  }
  parameters { vector[3] x; }
  model {
    complex_vector[3] v = to_complex(x, reverse(x));
    complex_vector[3] w;
    for (i in 1:3) w[i] = f(v[i], x[i]) * v[4 - i];
    w[2] = w[2] + x[1];          // a real element promoted on the tape
    complex_matrix[2, 2] m = [[v[1], x[2]], [w[3], 2]];
    array[2] complex a = {v[2], x[3]};
    target += get_real(sum(w)) + get_imag(m[2, 1] * m[1, 2]) + abs(a[1] - a[2]) - 0.5 * dot_self(x);
  }"
  ctx <- cx_ctx(code)
  expect_grad_fd(ctx, c(0.3, -0.8, 1.2))
  expect_grad_fd(ctx, c(-1.1, 0.4, 0.2))
})

test_that("compound assignment, ?:, print and slices of complex values", {
  code <- "
  parameters { real x; }
  model {
    complex z = x;
    z += 2i; z *= z; z /= 1 + 1i; z -= x;
    complex c = x > 0 ? x : 2i;
    complex_vector[2] v = [x, 1]';
    v[1:2] = v[{2, 1}];
    complex_matrix[2, 2] m = [[x, 1], [2i, x]];
    m[1] = m[2];
    m[:, 2] = m[:, 1] * x;
    print(z, \" \", v);
    for (e in m) target += get_imag(e) * x;     // foreach over a complex matrix: its elements, column-major
    target += get_real(z) + get_imag(c) + get_real(v[2] * x) + get_imag(sum(m)) - x^2;
  }"
  ctx <- cx_ctx(code)
  x <- 0.3
  z <- ((x + 2i)^2 / (1 + 1i)) - x
  m <- matrix(c(2i, 2i, 2i * x, 2i * x), 2, 2)
  out <- capture.output(lp <- ctx$log_prob(x))
  expect_equal(lp, Re(z) + 0 + x * x + Im(sum(m)) - x^2 + sum(Im(m)) * x)
  expect_equal(out, sprintf("(%g,%g) [(1,0),(%g,0)]", Re(z), Im(z), x))
  expect_grad_fd(ctx, 0.3)
  expect_grad_fd(ctx, -0.4)
})

test_that("plans refuse complex programs and the tree gives the gradients", {
  code <- "
  parameters { real x; real y; }
  model {
    complex z = to_complex(x, y) * (1 + 2i);
    target += get_real(exp(z)) - 0.5 * (x^2 + y^2);
  }"
  ctx <- cx_ctx(code)
  pts <- list(c(0.1, 0.2), c(-0.3, 0.5), c(0.7, -0.1))
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_equal(r$stats$replays, 0)
  # one program per group: fft, matrices and containers, eigenvalues, a user function
  progs <- c(
    "parameters { vector[4] x; } model { target += sum(abs(fft(to_complex(x, 1)))) - dot_self(x); }",
    "parameters { vector[4] x; } model { complex_matrix[2, 2] m = to_matrix(to_complex(x, reverse(x)), 2, 2);
       target += get_real(sum(m * m' + diag_matrix(col(m, 1)))) - dot_self(x); }",
    "parameters { vector[4] x; } model { target += sum(get_real(eigenvalues(to_matrix(x, 2, 2)))) - dot_self(x); }",
    "functions { complex f(complex z) { return z * z + 1i; } }
     parameters { vector[4] x; } model { target += get_imag(f(to_complex(x[1], x[2]))) - dot_self(x); }")
  for (code in progs) {
    r <- both_paths(cx_ctx(code), list(c(0.1, 0.2, -0.3, 0.4), c(0.5, -0.2, 0.3, 0.1)))
    expect_identical(r$plan, r$tree)
    expect_equal(r$stats$replays, 0)
  }
  # complex values only in generated quantities (off the tape): plans as usual
  code <- "
  parameters { real x; real y; }
  model { target += -0.5 * (x^2 + y^2); }
  generated quantities { complex z = to_complex(x, y) * 2i; }"
  ctx <- cx_ctx(code)
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 0)
  expect_equal(cx_gq(ctx, c(1, 2))$z, (1 + 2i) * 2i)
})

test_that("complex errors name the problem", {
  chk <- function(code) expect_snapshot(tp_check(code), error = TRUE)
  chk("parameters { complex z; }")
  chk("parameters { real x; } model { real y = to_complex(x, 1); }")
  chk("transformed data { complex<lower=0> z = 1; }")
  chk("transformed data { complex_vector[2] v; vector[2] w = v; }")
  chk("transformed data { complex_vector[2] v; complex_row_vector[2] w; complex_vector[2] u = v + w; }")
  chk("transformed data { complex z = 1; real x = z < 2; }")
  chk("parameters { real x; } model { target += to_complex(x, 1); }")
  chk("functions { real f(array[] real s, int a, int b, complex z) { return 1; } }
       parameters { real x; } model { target += reduce_sum(f, {x}, 1, 1i); }")
  chk("transformed data { complex z = 1; if (z) print(z); }")
  chk("transformed data { real x; complex z; x += z; }")
  ctx <- cx_ctx("data { int n; } generated quantities { complex_vector[2] v = rep_vector(1i, n); }",
                list(n = 3))
  expect_snapshot(cx_gq(ctx), error = TRUE)
  ctx <- cx_ctx("generated quantities { complex_vector[3] v = fft([1, 2]'); }")
  expect_snapshot(cx_gq(ctx), error = TRUE)
  ctx <- cx_ctx("generated quantities { complex_matrix[2, 3] m; complex_matrix[2, 2] k = m * m; }")
  expect_snapshot(cx_gq(ctx), error = TRUE)
  ctx <- cx_ctx("generated quantities { complex_vector[3] v = [1, 2, 3i]'; complex_vector[4] h = head(v, 4); }")
  expect_snapshot(cx_gq(ctx), error = TRUE)
  ctx <- cx_ctx("generated quantities { complex_matrix[0, 0] m; complex_vector[0] e = eigenvalues(m); }")
  expect_snapshot(cx_gq(ctx), error = TRUE)
  ctx <- cx_ctx("generated quantities { complex_vector[5] v; complex_matrix[2, 2] m = to_matrix(v, 2, 2); }")
  expect_snapshot(cx_gq(ctx), error = TRUE)
  ctx <- cx_ctx("generated quantities { complex_vector[2] v; complex_vector[3] w; complex_vector[2] u = v .* w; }")
  expect_snapshot(cx_gq(ctx), error = TRUE)
})

test_that("the tuple-valued decompositions: eigendecompose, complex_schur_decompose, svd of a complex matrix", {
  ctx <- cx_ctx("
    data { matrix[3, 3] A; complex_matrix[2, 2] C; }
    generated quantities {
      tuple(complex_matrix[3, 3], complex_vector[3]) e = eigendecompose(A);
      tuple(complex_matrix[3, 3], complex_matrix[3, 3]) s = complex_schur_decompose(A);
      tuple(complex_matrix[2, 2], vector[2], complex_matrix[2, 2]) d = svd(C);
      complex_matrix[3, 3] av = A * e.1 - e.1 * diag_matrix(e.2);
      complex_matrix[3, 3] ut = s.1 * s.2 * conj(s.1') - A;
      complex_matrix[2, 2] usv = d.1 * diag_matrix(d.2) * conj(d.3') - C;
    }", list(A = matrix(c(2, 1, 0, -1, 3, 1, 0.5, 0, 1), 3),
             C = matrix(c(1 + 1i, 2, -1i, 3 - 2i), 2)))
  v <- cx_gq(ctx)
  expect_lt(max(Mod(v$av)), 1e-10)
  expect_lt(max(Mod(v$ut)), 1e-10)
  expect_lt(max(Mod(v$usv)), 1e-10)
  expect_equal(sort(Mod(v[["e:2"]])), sort(Mod(eigen(matrix(c(2, 1, 0, -1, 3, 1, 0.5, 0, 1), 3))$values)),
               tolerance = 1e-10)
})
