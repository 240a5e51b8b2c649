# Assignment where the left and the right side share storage: the table of
# forms.  Each form runs in six places: inline and inside a user function,
# on doubles (transformed data, generated quantities) and on the tape
# (transformed parameters, model block).  Its result is compared with the
# same computation in R, and the gradient of a log density built from the
# results with finite differences.
#
# | form              | statement(s)                                      |
# |-------------------|---------------------------------------------------|
# | symmetric fill    | K[j, i] = K[i, j]                                 |
# | shift right/left  | x[2:6] = x[1:5]; x[1:5] = x[2:6]                  |
# | array element     | a[1] = a[2]; a[3] = a[1] * a[3]                   |
# | matrix row        | m[1] = m[2]; m[3] = m[1] .* m[3]                  |
# | matrix column     | m[:, 1] = m[:, 2]; m[:, 3] = 2 * m[:, 1]          |
# | row slice         | m[2, 1:2] = m[1, 2:3]                             |
# | block             | m[1:2, 1:2] = m[2:3, 2:3]                         |
# | transpose         | m = m'                                            |
# | whole from kernel | m = diag_pre_multiply(to_vector(m[1]), m)         |
# | arrays of vectors | av[1] = av[2]; av[3][1] = av[1][2]; av[2, 2] = av[3, 1] |
# | nested slice      | av[2][1:2] = reverse(av[2])                       |
# | 2-d array         | b[1] = b[2]; b[2, 3] = b[1, 1]                    |
# | reverse           | v = reverse(v)                                    |
# | permutation       | v = v[{3, 1, 2, 5, 4}]                            |
# | multi-index left  | v[{2, 3, 1}] = v[1:3]                             |
# | self              | v = v                                             |
# | compound          | v += v; v[2:3] += v[1:2]; v[5] *= v[1]            |
# | recurrence        | x[t] = 0.5 * x[t - 1] + x[t]                      |
# | function of elem  | a[2] = sq(a[2]); a[3] = twice_first(a[2:4])       |
# | elem to function, | s = keep(a[2]); a[2] = 3 * a[4]                   |
# |   then written    |   (keep's kernels read x backwards)               |
# | vector to function| s = sum_sq(a); a[1] = 0                           |
# | function returns  | a = same(a)  (a view of the argument comes back)  |
# |   its argument    |                                                   |
# | int array         | k[2:5] = k[1:4]; k[1] = k[5]                      |
# | scalar locals     | real v = x[1]; ... x[1] = 3 * x[1]; v += w        |
# |   (x is the value |   (a local initialised by an autodiff expression  |
# |   of its init)    |   is that value until written)                    |
# | rebound scalars   | m += e; m *= m; m = m - a; m = x[3]; s /= 2       |
# |                   |   (a compound or operator assignment to a real    |
# |                   |   local makes it the new value, as Stan rebinds)  |

alias_functions <- "
  real sq(real x) { return x * x; }
  real twice_first(vector v) { return 2 * v[1]; }
  real keep(real x) { return log_sum_exp(x, 2 * x) * pow(x, 2) + exp(x); }
  real sum_sq(vector v) { return dot_self(v); }
  vector same(vector v) { return v; }
"

alias_forms <- list(
  symmetric_fill = list(
    init = "matrix[3, 3] K = to_matrix(th[1:9], 3, 3);",
    stmt = "for (i in 1:3) for (j in (i + 1):3) K[j, i] = K[i, j];",
    flat = "to_vector(K)", nout = 9,
    r = function(th) { K <- matrix(th[1:9], 3, 3); K[lower.tri(K)] <- t(K)[lower.tri(K)]; c(K) }),
  shift_right = list(
    init = "vector[6] x = th[1:6];", stmt = "x[2:6] = x[1:5];", flat = "x", nout = 6,
    r = function(th) { x <- th[1:6]; x[2:6] <- x[1:5]; x }),
  shift_left = list(
    init = "vector[6] x = th[1:6];", stmt = "x[1:5] = x[2:6];", flat = "x", nout = 6,
    r = function(th) { x <- th[1:6]; x[1:5] <- x[2:6]; x }),
  array_element = list(
    init = "array[3] real a = to_array_1d(th[1:3]);",
    stmt = "a[1] = a[2]; a[3] = a[1] * a[3];", flat = "to_vector(a)", nout = 3,
    r = function(th) { a <- th[1:3]; a[1] <- a[2]; a[3] <- a[1] * a[3]; a }),
  matrix_row = list(
    init = "matrix[3, 3] m = to_matrix(th[1:9], 3, 3);",
    stmt = "m[1] = m[2]; m[3] = m[1] .* m[3];", flat = "to_vector(m)", nout = 9,
    r = function(th) { m <- matrix(th[1:9], 3, 3); m[1, ] <- m[2, ]; m[3, ] <- m[1, ] * m[3, ]; c(m) }),
  matrix_column = list(
    init = "matrix[3, 3] m = to_matrix(th[1:9], 3, 3);",
    stmt = "m[:, 1] = m[:, 2]; m[:, 3] = 2 * m[:, 1];", flat = "to_vector(m)", nout = 9,
    r = function(th) { m <- matrix(th[1:9], 3, 3); m[, 1] <- m[, 2]; m[, 3] <- 2 * m[, 1]; c(m) }),
  row_slice = list(
    init = "matrix[3, 3] m = to_matrix(th[1:9], 3, 3);",
    stmt = "m[2, 1:2] = m[1, 2:3];", flat = "to_vector(m)", nout = 9,
    r = function(th) { m <- matrix(th[1:9], 3, 3); m[2, 1:2] <- m[1, 2:3]; c(m) }),
  block = list(
    init = "matrix[3, 3] m = to_matrix(th[1:9], 3, 3);",
    stmt = "m[1:2, 1:2] = m[2:3, 2:3];", flat = "to_vector(m)", nout = 9,
    r = function(th) { m <- matrix(th[1:9], 3, 3); m[1:2, 1:2] <- m[2:3, 2:3]; c(m) }),
  transpose = list(
    init = "matrix[3, 3] m = to_matrix(th[1:9], 3, 3);",
    stmt = "m = m';", flat = "to_vector(m)", nout = 9,
    r = function(th) c(t(matrix(th[1:9], 3, 3)))),
  whole_from_kernel = list(
    init = "matrix[3, 3] m = to_matrix(th[1:9], 3, 3);",
    stmt = "m = diag_pre_multiply(to_vector(m[1]), m);", flat = "to_vector(m)", nout = 9,
    r = function(th) { m <- matrix(th[1:9], 3, 3); c(diag(m[1, ]) %*% m) }),
  arrays_of_vectors = list(
    init = "array[3] vector[2] av; for (k in 1:3) av[k] = th[(2 * k - 1):(2 * k)];",
    stmt = "av[1] = av[2]; av[3][1] = av[1][2]; av[2, 2] = av[3, 1];",
    flat = "append_row(append_row(av[1], av[2]), av[3])", nout = 6,
    r = function(th) {
      av <- list(th[1:2], th[3:4], th[5:6])
      av[[1]] <- av[[2]]; av[[3]][1] <- av[[1]][2]; av[[2]][2] <- av[[3]][1]
      unlist(av)
    }),
  nested_slice = list(
    init = "array[2] vector[2] av; for (k in 1:2) av[k] = th[(2 * k - 1):(2 * k)];",
    stmt = "av[2][1:2] = reverse(av[2]); av[1][2:2] = av[1][1:1];",
    flat = "append_row(av[1], av[2])", nout = 4,
    r = function(th) c(th[1], th[1], th[4], th[3])),
  array_2d = list(
    init = "array[2, 3] real b; for (i in 1:2) for (j in 1:3) b[i, j] = th[3 * (i - 1) + j];",
    stmt = "b[1] = b[2]; b[2, 3] = b[1, 1];",
    flat = "to_vector(to_array_1d(b))", nout = 6,
    r = function(th) { b <- matrix(th[1:6], 2, 3, byrow = TRUE); b[1, ] <- b[2, ]; b[2, 3] <- b[1, 1]; c(t(b)) }),
  reverse = list(
    init = "vector[5] v = th[1:5];", stmt = "v = reverse(v);", flat = "v", nout = 5,
    r = function(th) rev(th[1:5])),
  permutation = list(
    init = "vector[5] v = th[1:5];", stmt = "v = v[{3, 1, 2, 5, 4}];", flat = "v", nout = 5,
    r = function(th) th[c(3, 1, 2, 5, 4)]),
  multi_index_left = list(
    init = "vector[5] v = th[1:5];", stmt = "v[{2, 3, 1}] = v[1:3];", flat = "v", nout = 5,
    r = function(th) { v <- th[1:5]; v[c(2, 3, 1)] <- v[1:3]; v }),
  self = list(
    init = "vector[5] v = th[1:5]; real s = th[6];", stmt = "v = v; s = s; v[2] = v[2];",
    flat = "append_row(v, s)", nout = 6,
    r = function(th) th[1:6]),
  compound = list(
    init = "vector[5] v = th[1:5];", stmt = "v += v; v[2:3] += v[1:2]; v[5] *= v[1];",
    flat = "v", nout = 5,
    r = function(th) { v <- th[1:5]; v <- v + v; v[2:3] <- v[2:3] + v[1:2]; v[5] <- v[5] * v[1]; v }),
  recurrence = list(
    init = "vector[6] x = th[1:6];", stmt = "for (t in 2:6) x[t] = 0.5 * x[t - 1] + x[t];",
    flat = "x", nout = 6,
    r = function(th) { x <- th[1:6]; for (t in 2:6) x[t] <- 0.5 * x[t - 1] + x[t]; x }),
  function_of_element = list(
    init = "vector[4] a = th[1:4];", stmt = "a[2] = sq(a[2]); a[3] = twice_first(a[2:4]);",
    flat = "a", nout = 4,
    r = function(th) { a <- th[1:4]; a[2] <- a[2]^2; a[3] <- 2 * a[2]; a }),
  element_to_function_then_written = list(
    init = "vector[4] a = th[1:4]; real s;",
    stmt = "s = keep(a[2]); a[2] = 3 * a[4]; s += a[2];",
    flat = "append_row(a, s)", nout = 5,
    r = function(th) {
      a <- th[1:4]; x <- a[2]
      s <- log(exp(x) + exp(2 * x)) * x^2 + exp(x)
      a[2] <- 3 * a[4]; c(a, s + a[2])
    }),
  vector_to_function_then_written = list(
    init = "vector[4] a = th[1:4]; real s;",
    stmt = "s = sum_sq(a); a[1] = 0; a[2] = s * a[3];",
    flat = "append_row(a, s)", nout = 5,
    r = function(th) { a <- th[1:4]; s <- sum(a^2); a[1] <- 0; a[2] <- s * a[3]; c(a, s) }),
  function_returns_argument = list(
    init = "vector[4] a = th[1:4];", stmt = "a = same(a); a[2:4] = same(a[1:3]);",
    flat = "a", nout = 4,
    r = function(th) c(th[1], th[1:3])),
  int_array = list(
    init = "array[5] int k = {1, 2, 3, 4, 5}; vector[5] x;",
    stmt = "k[2:5] = k[1:4]; k[1] = k[5]; x = th[1:5] .* to_vector(k);",
    flat = "x", nout = 5,
    r = function(th) th[1:5] * c(4, 1, 2, 3, 4)),
  scalar_locals = list(
    init = "vector[3] x = th[1:3]; real s = th[4];",
    stmt = paste("{ real lv = x[1]; real lw = lv * x[2]; real lq = s; s = 2 * s; x[1] = 3 * x[1]; lv += lw;",
                 "x[2] = lv + lq; real lz = x[3] * 2; lz = lz * lz; x[3] = lz + lv + s; }"),
    flat = "x", nout = 3,
    r = function(th) {
      x <- th[1:3]; s <- th[4]; v <- x[1]; w <- v * x[2]; q <- s; s <- 2 * s; x[1] <- 3 * x[1]
      v <- v + w; x[2] <- v + q; z <- x[3] * 2; z <- z * z; x[3] <- z + v + s; x
    }),
  rebound_scalars = list(
    init = "vector[3] x = th[1:3]; real s = th[4];",
    stmt = paste("{ real m = x[1]; real a = m; m += x[2] * s; real b = m; m *= m; m = m - a; x[1] = m;",
                 "m = x[3]; m += b; x[2] = m + a; x[3] = s; s += m; s /= 2; x[3] += s; }"),
    flat = "x", nout = 3,
    r = function(th) {
      x <- th[1:3]; s <- th[4]; m <- x[1]; a <- m; m <- m + x[2] * s; b <- m; m <- m * m
      m <- m - a; x[1] <- m; m <- x[3]; m <- m + b; x[2] <- m + a; x[3] <- s; s <- s + m
      s <- s / 2; x[3] <- x[3] + s; x
    }),
  # locals read from the parameter th (in the model and transformed
  # parameters blocks) are th's values themselves; writing them leaves th
  parameter_reads = list(
    init = "vector[3] x;",
    stmt = paste("{ real a = th[1]; real b = th[2]; a += b * th[3]; real c = th[1]; c *= a;",
                 "b = c - th[2]; real d = th[4]; d = 3; x[1] = a + d; x[2] = b; x[3] = c + th[1]; }"),
    flat = "x", nout = 3,
    r = function(th) {
      a <- th[1]; b <- th[2]; a <- a + b * th[3]; c <- th[1]; c <- c * a
      b <- c - th[2]; d <- 3; c(a + d, b, c + th[1])
    })
)

alias_program <- function(f) {
  block <- function(pre = "") paste("{", pre, f$init, f$stmt)
  sub_n <- function(s) gsub("NOUT", f$nout, s, fixed = TRUE)
  sub_n(paste0(
    "functions {", alias_functions,
    "  vector run(vector th) {", f$init, f$stmt, "return ", f$flat, "; }\n}\n",
    "data { vector[12] th_data; vector[NOUT] w; }\n",
    "transformed data {\n  vector[NOUT] td_inline;\n  vector[NOUT] td_fn = run(th_data);\n",
    "  ", block("vector[12] th = th_data;"), " td_inline = ", f$flat, "; }\n}\n",
    "parameters { vector[12] th; }\n",
    "transformed parameters {\n  vector[NOUT] tp_inline;\n  vector[NOUT] tp_fn = run(th);\n",
    "  ", block(), " tp_inline = ", f$flat, "; }\n}\n",
    "model {\n  vector[NOUT] m_inline;\n  ", block(), " m_inline = ", f$flat, "; }\n",
    "  target += dot_product(w, tp_inline) + dot_product(w, tp_fn) + dot_product(w, m_inline);\n",
    "  target += normal_lpdf(th | 0, 1);\n}\n",
    "generated quantities {\n  vector[NOUT] out_td_inline = td_inline;\n",
    "  vector[NOUT] out_td_fn = td_fn;\n  vector[NOUT] gq_inline;\n",
    "  ", block(), " gq_inline = ", f$flat, "; }\n}\n"))
}

th0 <- 0.6 + 0.8 * sin(1:12)

for (name in names(alias_forms)) {
  test_that(paste("aliasing form", name, "gives R's values and exact gradients"), {
    f <- alias_forms[[name]]
    w <- cos(seq_len(f$nout))
    ctx <- tapestry_model(code = alias_program(f))$bind(list(th_data = th0, w = w))
    expected <- f$r(th0)
    # doubles: transformed data, transformed parameters and generated
    # quantities as write_array computes them, inline and in the function
    v <- ctx$constrain_variables(th0)
    for (out in c("out_td_inline", "out_td_fn", "tp_inline", "tp_fn", "gq_inline"))
      expect_equal(as.vector(v[[out]]), expected, tolerance = 1e-14, info = out)
    # the tape: the same value, and the gradient of
    # 3 w'result + sum(log N(th | 0, 1)) by finite differences
    g <- ctx$grad_log_prob(th0)
    lp <- 3 * sum(w * expected) + sum(dnorm(th0, log = TRUE))
    expect_equal(attr(g, "log_prob"), lp, tolerance = 1e-13)
    expect_identical(attr(g, "log_prob"), ctx$log_prob(th0))
    expect_equal(as.vector(g), fd_grad(ctx, th0, h = 1e-6), tolerance = 1e-7)
    # a recorded plan (src/plan) replays the same bits as the tree
    r <- both_paths(ctx, list(th0, 0.5 * th0, -th0, th0 + 0.3))
    expect_identical(r$plan, r$tree)
    expect_gt(r$stats$replays, 0)
  })
}

test_that("the three-line symmetric fill prints no NaN (on doubles and on the tape)", {
  code <- "
  transformed data {
    matrix[3, 3] K;
    for (i in 1:3) { K[i, i] = 1; for (j in (i + 1):3) { K[i, j] = i + j; K[j, i] = K[i, j]; } }
    print(K);
  }
  parameters { real x; }
  model {
    matrix[2, 2] M;
    M[1, 1] = x; M[1, 2] = 2 * x; M[2, 1] = M[1, 2]; M[2, 2] = 1;
    print(M);
    x ~ normal(0, 1);
  }"
  expect_output(ctx <- tapestry_model(code = code)$bind(list()), "[[1,3,4],[3,1,5],[4,5,1]]", fixed = TRUE)
  expect_output(ctx$grad_log_prob(0.5), "[[0.5,1],[1,1]]", fixed = TRUE)
  expect_output(ctx$log_prob(0.5), "[[0.5,1],[1,1]]", fixed = TRUE)
})
