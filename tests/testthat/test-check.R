# The semantic checker, through tp_check(): slots, types, resolution of
# calls and operators, dep (autodiff-typed), warnings, and the message of
# every class of semantic error.

# The checker's row for the expression e, printed in a model block after the
# declarations decls (the first row at e's position: the outermost node).
expr_row <- function(decls, e, block = "model") {
  code <- paste0(decls, "\n", block, " {\n  print(", e, ");\n}")
  r <- tp_check(code)
  x <- r$exprs
  line <- length(strsplit(code, "\n", fixed = TRUE)[[1]]) - 1L
  x[x$line == line & x$col == 9L, ][1, ]
}
etype <- function(decls, e, block = "model") expr_row(decls, e, block)$type
eres <- function(decls, e, block = "model") expr_row(decls, e, block)$resolved

D <- paste(
  "data { int n; real r; vector[3] v; row_vector[3] rv; matrix[3, 3] m;",
  "array[3] int ia; array[3] real ra; array[2] vector[3] av; array[2, 3] real ra2; }",
  "parameters { real mu; vector[3] th; }"
)

test_that("the bundled models check cleanly", {
  models <- c("conjugate_normal", "eight_schools", "gp_profile", "hier_poisson",
              "hier_poisson_reduce", "lbeta_map", "logistic", "logistic_reduce",
              "map_rect_hier", "varying_slopes")
  for (m in models) {
    f <- system.file("extdata", paste0(m, ".stan"), package = "tapestry")
    r <- tp_check(readLines(f), basename(f))
    expect_length(r$warnings, 0)
    # every call and operator is resolved to a function or a builtin
    ops <- r$exprs[r$exprs$kind %in% c("call", "binop") |
                     (r$exprs$kind == "unop" & r$exprs$name != "+"), ]
    expect_true(all(nzchar(ops$resolved)), label = m)
    expect_false(any(r$exprs$type == "ill-typed"), label = m)
    vars <- r$exprs[r$exprs$kind == "var", ]
    expect_true(all(grepl("^var:(global|local):[0-9]+$", vars$resolved)), label = m)
  }
})

test_that("the bundled models resolve as Stan would", {
  f <- function(m) tp_check(readLines(system.file("extdata", paste0(m, ".stan"), package = "tapestry")))
  r <- f("hier_poisson_reduce")
  rs <- r$exprs[r$exprs$name == "reduce_sum", ]
  expect_equal(rs$resolved, "ufn:partial_sum,bi:reduce_sum")
  expect_equal(rs$type, "real")
  expect_equal(rs$dep, 1L)
  expect_equal(r$exprs$resolved[r$exprs$kind == "funcref"], "funcref:partial_sum")
  r <- f("map_rect_hier")
  expect_equal(r$exprs$resolved[r$exprs$name == "map_rect"], "ufn:group_loglik,bi:map_rect")
  r <- f("lbeta_map")
  pm <- r$exprs[r$exprs$name == "parallel_map", ]
  expect_equal(c(pm$type, pm$resolved), c("vector", "ufn:lbeta_fn,bi:parallel_map"))
  r <- f("varying_slopes")
  expect_equal(r$stmts$fn, c("normal_lpdf", "exponential_lpdf", "lkj_corr_cholesky_lpdf",
                             "std_normal_lpdf", "exponential_lpdf", "normal_lpdf"))
  idx <- r$exprs[r$exprs$kind == "index", ]
  expect_equal(idx$type, c("real", "vector", "real", "vector"))   # beta[1], b[g, 1], ...
})

test_that("globals take slots in program order, locals per frame", {
  r <- tp_check(c(
    "functions { real f(real x) { real y = x; for (i in 1:2) y += i; return y; }",
    "  real g(vector v); real g(vector v) { return sum(v); } }",
    "data { int N; }",
    "transformed data { int M = N; for (i in 1:N) { int k = i; } }",
    "parameters { real mu; }",
    "transformed parameters { real t = mu; }",
    "model { vector[2] w; for (x in w) { real q = x; } }",
    "generated quantities { real g1 = f(mu); }"))
  d <- r$decls
  glob <- d[d$scope == "global", ]
  expect_equal(glob$name, c("N", "M", "mu", "t", "g1"))
  expect_equal(glob$slot, 0:4)
  expect_equal(r$program$nglobals, 5L)
  expect_equal(unname(r$program$nlocals), c(0L, 2L, 0L, 0L, 3L, 0L))
  loc <- d[d$block == "model", ]
  expect_equal(loc$name, c("w", "x", "q"))
  expect_equal(loc$slot, 0:2)
  expect_equal(d$slot[d$block == "functions" & d$name %in% c("x", "y", "i")], 0:2)
  expect_equal(r$funcs$nslots, c(3L, 1L, 1L))
  expect_equal(r$funcs$defined_at, c(1L, 2L, 2L))   # the declaration points at its definition
  # variables refer to their slots
  x <- r$exprs[r$exprs$kind == "var" & r$exprs$name == "mu", ]
  expect_true(all(x$resolved == "var:global:2"))
})

test_that("dep follows Stan's autodiff types", {
  r <- tp_check(c(
    "functions { real f_rng(real m) { return normal_rng(m, 1) + m; } }",
    "data { real y; }",
    "parameters { real mu; }",
    "transformed parameters { real t = mu * 2; }",
    "model { real z = y; int k = 1; vector[2] w; }",
    "generated quantities { real g = mu + 1; }"))
  d <- r$decls
  expect_equal(setNames(d$dep, d$name), c(m = 1L, y = 0L, mu = 1L, t = 1L, z = 1L, k = 0L, w = 1L, g = 0L))
  e <- r$exprs
  expect_equal(e$dep[e$kind == "binop" & e$line == 4], 1L)
  expect_equal(e$dep[e$kind == "call" & e$name == "normal_rng"], 0L)   # a draw is not autodiff
  expect_equal(e$dep[e$kind == "binop" & e$line == 1], 1L)
  expect_equal(e$dep[e$kind == "binop" & e$line == 6], 0L)   # generated quantities run on doubles
  expect_equal(expr_row(D, "mu + 1")$dep, 1L)
  expect_equal(expr_row(D, "r + 1")$dep, 0L)
  expect_equal(expr_row(D, "size(th)")$dep, 0L)
  expect_equal(expr_row(D, "th[1] < 2")$dep, 0L)
})

test_that("indexing removes single-indexed dimensions", {
  expect_equal(etype(D, "m[1]"), "row_vector")
  expect_equal(etype(D, "m[1, 2]"), "real")
  expect_equal(etype(D, "m[:, 2]"), "vector")
  expect_equal(etype(D, "m[ia, 2]"), "vector")
  expect_equal(etype(D, "m[2, ia]"), "row_vector")
  expect_equal(etype(D, "m[ia]"), "matrix")
  expect_equal(etype(D, "m[2:3, 1:2]"), "matrix")
  expect_equal(etype(D, "v[2]"), "real")
  expect_equal(etype(D, "v[ia]"), "vector")
  expect_equal(etype(D, "rv[2:]"), "row_vector")
  expect_equal(etype(D, "av[1]"), "vector")
  expect_equal(etype(D, "av[1, 2]"), "real")
  expect_equal(etype(D, "av[:, 2]"), "array[] real")
  expect_equal(etype(D, "av[2:3]"), "array[] vector")
  expect_equal(etype(D, "ra2[1]"), "array[] real")
  expect_equal(etype(D, "ra2[ia, 1]"), "array[] real")
  expect_equal(etype(D, "ia[ia]"), "array[] int")
  # an array[] int in a single index becomes a multi-index
  r <- tp_check(paste(D, "model { print(v[ia]); }"))
  expect_match(r$dump, "(index (var v) (multi (var ia)))", fixed = TRUE)
})

test_that("literals and the conditional operator take a common type", {
  expect_equal(etype(D, "{1, 2}"), "array[] int")
  expect_equal(etype(D, "{1, 2.5}"), "array[] real")
  expect_equal(etype(D, "{{1, 2}, {3.5, 4}}"), "array[,] real")
  expect_equal(etype(D, "{v, v}"), "array[] vector")
  expect_equal(etype(D, "[1, 2.5]"), "row_vector")
  expect_equal(etype(D, "[rv, rv]"), "matrix")
  expect_equal(etype(D, "[1, 2]'"), "vector")
  expect_equal(etype(D, "n > 0 ? 1 : 2.5"), "real")
  expect_equal(etype(D, "n > 0 ? ia : ra"), "array[] real")
  expect_equal(etype(D, "target()"), "real")
})

test_that("calls and operators resolve to one signature with Stan's promotions", {
  expect_equal(expr_row(D, "exp(n)")[c("type", "resolved")],
               data.frame(type = "real", resolved = "fn:exp"), ignore_attr = TRUE)
  expect_equal(etype(D, "exp(v)"), "vector")
  expect_equal(etype(D, "exp(ia)"), "array[] real")
  expect_equal(etype(D, "abs(n)"), "int")
  expect_equal(etype(D, "abs(r)"), "real")
  expect_equal(etype(D, "fmax(n, n)"), "real")
  expect_equal(etype(D, "pow(v, 2)"), "vector")
  expect_equal(etype(D, "n + n"), "int")
  expect_equal(etype(D, "n + r"), "real")
  expect_equal(eres(D, "v + 1"), "fn:add")
  expect_equal(etype(D, "v + 1"), "vector")
  expect_equal(eres(D, "m * v"), "fn:multiply")
  expect_equal(etype(D, "m * v"), "vector")
  expect_equal(etype(D, "rv * v"), "real")
  expect_equal(etype(D, "v * rv"), "matrix")
  expect_equal(eres(D, "v'"), "fn:transpose")
  expect_equal(eres(D, "-v"), "fn:minus")
  expect_equal(eres(D, "v .* v"), "fn:elt_multiply")
  expect_equal(eres(D, "v ./ 2"), "fn:elt_divide")
  expect_equal(eres(D, "r ^ 2"), "fn:pow")
  expect_equal(eres(D, "v .^ 2"), "fn:pow")
  expect_equal(eres(D, "n % 2"), "fn:modulus")
  expect_equal(eres(D, "m \\ v"), "fn:mdivide_left")
  expect_equal(eres(D, "rv / m"), "fn:mdivide_right")
  expect_equal(eres(D, "m / 2"), "fn:divide")
  expect_equal(eres(D, "+v"), "")
  expect_equal(etype(D, "+v"), "vector")
  expect_equal(eres(D, "n %/% 2"), "bi:idiv")
  expect_equal(eres(D, "r < n"), "bi:cmp")
  expect_equal(etype(D, "r < n"), "int")
  expect_equal(eres(D, "r && n"), "bi:logic")
  expect_equal(eres(D, "!n"), "bi:logic")
  expect_equal(eres(D, "n / 2"), "fn:divide,bi:int_div_int")
  expect_equal(etype(D, "n / 2"), "int")
  expect_equal(etype(D, "n / 2.0"), "real")
  expect_equal(etype(D, "normal_lpdf(v | 0, 1)"), "real")
  expect_equal(etype(D, "normal_lpdf(ia | ra, 1)"), "real")
  expect_equal(etype(D, "poisson_lpmf(ia | 3)"), "real")
  expect_equal(etype(D, "std_normal_lpdf(v |)"), "real")
  expect_equal(etype(D, "rep_array(v, 2, 3)"), "array[,] vector")
  expect_equal(etype(D, "normal_rng(0, 1)", "generated quantities"), "real")
  expect_equal(etype(D, "normal_rng(v, 1)", "generated quantities"), "array[] real")
})

test_that("user functions come before library functions and overload", {
  F <- paste("functions { real twice(real x) { return 2 * x; } vector twice(vector x) { return 2 * x; }",
             "int twice(int x) { return 2 * x; } real foo_lpdf(real y, real m) { return -square(y - m); }",
             "real exp(real x, real y) { return 0; } }", D)
  expect_equal(expr_row(F, "twice(r)")[c("type", "resolved")],
               data.frame(type = "real", resolved = "ufn:twice"), ignore_attr = TRUE)
  expect_equal(etype(F, "twice(v)"), "vector")
  expect_equal(etype(F, "twice(n)"), "int")
  expect_equal(etype(F, "twice(ia[1] * 1.5)"), "real")
  expect_equal(eres(F, "exp(r, 1)"), "ufn:exp")     # an overload of a library function
  expect_equal(eres(F, "exp(v)"), "fn:exp")
  expect_equal(eres(F, "foo_lupdf(mu | 1)"), "ufn:foo_lpdf,propto")
  expect_equal(eres(F, "normal_lupdf(mu | 0, 1)"), "fn:normal_lpdf,propto")
  r <- tp_check(paste(F, "model { mu ~ foo(1); ia ~ poisson(3); mu ~ normal(0, 1) T[0, ]; }"))
  expect_equal(r$stmts$ufn, c("foo_lpdf", "", ""))
  expect_equal(r$stmts$fn, c("", "poisson_lpmf", "normal_lpdf"))
  expect_equal(r$stmts$discrete, c(0L, 1L, 0L))
  expect_equal(r$stmts$cdf, c("", "", "normal_lcdf"))
  expect_equal(r$stmts$ccdf, c("", "", "normal_lccdf"))
})

test_that("compound assignments resolve the operator's function", {
  r <- tp_check(paste(D, "model { real z = 1; vector[3] w = v; z += mu; z *= 2; w -= th; w .*= v; w /= 2; }"))
  expect_equal(r$stmts$fn, c("add", "multiply", "subtract", "elt_multiply", "divide"))
})

test_that("loops, functions and blocks accept what Stan accepts", {
  ok <- function(code) expect_type(tp_check(code), "list")
  ok("functions { real f(real x) { while (1) { if (x > 0) return x; } } } model {}")
  ok("functions { real f(real x) { if (x > 0) return 1; else reject(\"negative\"); } } model {}")
  ok("functions { real f(real x) { for (i in 1:3) { return x; } } } model {}")   # as stanc
  ok("functions { real f(real x) { while (x > 0) { return 1; } } } model {}")
  ok("functions { real f(real x); real g(real x) { return f(x); } real f(real x) { return g(x); } } model {}")
  ok("functions { void p_lp(real x) { target += x; x ~ normal(0, 1); } } parameters { real mu; } model { p_lp(mu); }")
  ok("functions { real r_rng() { return normal_rng(0, 1); } } generated quantities { real z = r_rng(); }")
  ok("data { int N; } transformed data { array[N] real x; for (i in 1:N) x[i] = normal_rng(0, 1); }")
  ok("transformed data { array[2] vector[2] a; for (x in a) { print(x); } for (r in a[1]) print(r); }")
  ok("parameters { real mu; } model { real exp = 1; mu ~ normal(exp(exp), 1); }")
  ok("transformed data { matrix[2, 2] m; m[1] = [1, 2]; m[:, 1] = [1, 2]'; m[1, 2] = 3; }")
  ok("transformed data { real x; x = 1; } generated quantities { real y = x; }")
  ok("parameters { real mu; } model { profile(\"a\") { real z = mu; target += z; } }")
})

test_that("int division is a warning", {
  expect_snapshot(tp_check("transformed data { int n = 7 / 2; real x = 7 / 2.0; }")$warnings)
  expect_snapshot(tp_check("transformed data { matrix[2, 2] m; matrix[2, 2] q = m ^ 2; }")$warnings)
  # one warning per division, also when declarations share their sizes
  expect_length(tp_check("transformed data { vector[7 / 2] a, b; int n = (1 + 2) / 3 / 1; }")$warnings, 3)
})

test_that("semantic errors are classed and point at the problem", {
  expect_error(tp_check("model { y ~ normal(0, 1); }"), class = "tapestry_semantic_error")
  expect_error(tp_check("model { y ~ normal(0, 1); }"), class = "tapestry_error")
  expect_error(tp_check("model { y ~ ; }"), class = "tapestry_syntax_error")
})

test_that("names: scope, use and declaration", {
  expect_snapshot(error = TRUE, {
    tp_check("parameters { real mu; real<lower=0> sigma; } model { mu ~ normal(0, sigmaa); }")
    tp_check("data { real x; real x; } model {}")
    tp_check("transformed data { real x; { real x; } }")
    tp_check("transformed data { real y = foo(1); }")
    tp_check("data { real z; } transformed data { real y = z(1); }")
    tp_check("transformed data { real y = exp; }")
    tp_check("functions { real f(real x) { return x; } } transformed data { real y = f; }")
    tp_check("transformed data { real y = normal_lpmf(1 | 0, 1); }")
  })
})

test_that("assignments: read-only variables and types", {
  expect_snapshot(error = TRUE, {
    tp_check("data { real y; } model { y = 3; }")
    tp_check("data { real y; } transformed data { real z = 1; } parameters { real mu; } model { z = 2; }")
    tp_check("parameters { real mu; } model { mu = 2; }")
    tp_check("parameters { real mu; } transformed parameters { real t = 1; } model { t = 2; }")
    tp_check("transformed data { for (i in 1:3) i = 2; }")
    tp_check("functions { real f(real x) { x = 1; return x; } } model {}")
    tp_check("transformed data { real x; x = [1, 2]; }")
    tp_check("transformed data { int x = 2.5; }")
    tp_check("transformed data { int x; x = 2.5; }")
    tp_check("transformed data { real x; x += [1, 2]; }")
    tp_check("transformed data { int x; x += 1.5; }")
    tp_check("transformed data { array[3] real x; x[1:2][1] = 1; }")
  })
})

test_that("types: indexes, conditions, literals and operators", {
  expect_snapshot(error = TRUE, {
    tp_check("transformed data { array[3] real y = {1, 2, 3}; real z = y[1.5]; }")
    tp_check("transformed data { array[2] vector[2] a; real z = a[1, 2, 3]; }")
    tp_check("transformed data { real x = 1; real z = x[1]; }")
    tp_check("transformed data { vector[3] v; if (v) {} }")
    tp_check("transformed data { vector[3] v; while (v) {} }")
    tp_check("transformed data { for (i in 1:2.5) {} }")
    tp_check("transformed data { real x; for (i in x) {} }")
    tp_check("transformed data { array[2] real x = {1, [1, 2]}; }")
    tp_check("transformed data { row_vector[2] x = [1, [1, 2]]; }")
    tp_check("transformed data { vector[2] v; real x = 1 ? v : 2; }")
    tp_check("transformed data { vector[2] a; vector[2] b = a * a; }")
    tp_check("transformed data { int a = 1 %/% 2.0; }")
    tp_check("transformed data { vector[2] a; int b = a < 1; }")
  })
})

test_that("calls: signatures, suffixes and where functions may run", {
  expect_snapshot(error = TRUE, {
    tp_check("data { vector[3] v; array[3] real k; } parameters { real mu; } model { target += normal_lpdf(v | mu, mu, mu); }")
    tp_check("data { array[3] real y; } parameters { real mu; } model { y ~ poisson(mu); }")
    tp_check("transformed data { real x = poisson_rng(2.5) + bernoulli_rng(0.5, 1); }")
    tp_check("parameters { real mu; } model { real z = normal_rng(0, 1); }")
    tp_check("transformed data { int N = 3; } parameters { vector[poisson_rng(3)] v; }")
    tp_check("functions { real f(real x) { return normal_rng(x, 1); } } model {}")
    tp_check("parameters { real y; } model { target += normal_lpdf(y, 0, 1); }")
    tp_check("parameters { real y; } model { target += exp(y | 1); }")
    tp_check("parameters { real y; } generated quantities { real z = normal_lupdf(y | 0, 1); }")
    tp_check("functions { void p_lp(real x) { target += x; } } parameters { real mu; } generated quantities { p_lp(mu); }")
    tp_check("functions { real f(data real x) { return x; } } parameters { real mu; } model { target += f(mu); }")
    tp_check("functions { void f(real x) { } } transformed data { real y = f(1); }")
    tp_check("functions { real f(real x) { return x; } } transformed data { f(1); }")
    tp_check("transformed data { real x = sqrt(1, 2); }")
  })
})

test_that("~, target and truncation", {
  expect_snapshot(error = TRUE, {
    tp_check("parameters { real mu; } transformed parameters { real z = mu; target += z; }")
    tp_check("generated quantities { real x; target += 1; }")
    tp_check("transformed data { real x = target(); }")
    tp_check("parameters { real y; } transformed parameters { real z = y; z ~ normal(0, 1); }")
    tp_check("parameters { real y; } model { y ~ foo(0, 1); }")
    tp_check("parameters { real y; } model { y ~ normal(0, [[1, 2]]); }")
    tp_check("parameters { cholesky_factor_corr[2] L; } model { L ~ lkj_corr_cholesky(2) T[0, ]; }")
    tp_check("functions { real foo_lpdf(real y) { return -y; } } parameters { real y; } model { y ~ foo() T[0, ]; }")
    tp_check("parameters { real y; } model { y ~ normal(0, 1) T[[1], ]; }")
  })
})

test_that("functions: returns, definitions and signatures", {
  expect_snapshot(error = TRUE, {
    tp_check("functions { real f(real x) { if (x > 0) return 1; } } model {}")
    tp_check("functions { real f(real x) { return [x]; } } model {}")
    tp_check("functions { real f(real x) { return; } } model {}")
    tp_check("functions { void f(real x) { return x; } } model {}")
    tp_check("model { return 1; }")
    tp_check("transformed data { break; }")
    tp_check("model { continue; }")
    tp_check("functions { real f(real x); } model {}")
    tp_check("functions { real f(real x); real f(real x); real f(real x) { return x; } } model {}")
    tp_check("functions { real f(real x) { return x; } real f(real y) { return y; } } model {}")
    tp_check("functions { real f(real x) { return x; } int f(real y) { return 1; } } model {}")
    tp_check("functions { real normal_lpdf(real y, real mu, real s) { return 0; } } model {}")
    tp_check("functions { real f(real x, real x) { return x; } } model {}")
    tp_check("functions { real foo_lupdf(real y) { return y; } } model {}")
    tp_check("functions { vector foo_lpdf(real y) { return [y]'; } } model {}")
    tp_check("functions { real foo_lpmf(real y) { return y; } } model {}")
    tp_check("functions { real foo_lpdf(int y) { return y; } } model {}")
    tp_check("functions { real reduce_sum(real y) { return y; } } model {}")
  })
})

test_that("declarations: blocks, sizes, bounds and constraints", {
  expect_snapshot(error = TRUE, {
    tp_check("parameters { int n; } model {}")
    tp_check("parameters { real x; } transformed parameters { int n = 1; } model {}")
    tp_check("parameters { real mu; vector[3] v; } transformed parameters { vector[size(v)] w; }")
    tp_check("data { int N; } generated quantities { int K = N; vector[K] b; }")
    tp_check("transformed data { vector[2.5] v; }")
    tp_check("data { int<lower=0.5> N; } model {}")
    tp_check("data { real<lower=[1, 2]> x; } model {}")
    tp_check("data { vector<lower={1, 2}>[2] x; } model {}")
    tp_check("data { array[2] real<upper=[1, 2]> x; } model {}")
  })
})

test_that("higher-order builtins name the argument that does not fit", {
  P <- "functions { real p(array[] real x, int s, int e, vector b) { return 0; } } data { array[3] int y; array[3] real z; vector[3] b; } parameters { real mu; }"
  expect_type(tp_check(paste(P, "model { target += reduce_sum(p, z, 1, b) + reduce_sum_static(p, y, 1, b); }")), "list")
  expect_snapshot(error = TRUE, {
    tp_check(paste(P, "model { target += reduce_sum(p, y, 1, mu); }"))
    tp_check(paste(P, "model { target += reduce_sum(p, y, 1); }"))
    tp_check(paste(P, "model { target += reduce_sum(p, b, 1, b); }"))
    tp_check(paste(P, "model { target += reduce_sum(p, y, 1.5, b); }"))
    tp_check(paste(P, "model { target += reduce_sum(mu, y, 1, b); }"))
    tp_check("functions { int p(array[] real x, int s, int e) { return 0; } } data { array[3] real y; } model { target += reduce_sum(p, y, 1); }")
    tp_check("functions { vector f(vector a, vector b, array[] real x, array[] int i) { return a; } } parameters { vector[2] phi; array[3] vector[2] th; } model { target += sum(map_rect(f, phi, th, {{1.0}}, {{1}})); target += sum(map_rect(f, phi, th, {{phi[1]}}, {{1}})); }")
    tp_check("functions { real f(real x, real y) { return x; } } parameters { real a; } model { vector[2] m = parallel_map(f, 1, a, a); }")
    tp_check("functions { real f(real x, vector y) { return x; } } data { matrix[2, 2] v; } model { matrix[2, 2] m = parallel_map(f, 1, v, v); }")
  })
})
