# The lexer and parser of the Stan language, through the tree dump of
# tp_parse(): structure, precedence, declarations, deprecations and the
# messages of syntax errors.

dump_of <- function(code) tp_parse(code)$dump

# Lines of a dump without the closing parentheses of enclosing forms.
dump_lines <- function(d) {
  lines <- trimws(strsplit(d, "\n", fixed = TRUE)[[1]])
  vapply(lines, function(l) {
    n <- function(ch) lengths(regmatches(l, gregexpr(ch, l, fixed = TRUE)))
    while (endsWith(l, ")") && n(")") > n("(")) l <- substr(l, 1, nchar(l) - 1)
    l
  }, "", USE.NAMES = FALSE)
}

# The tree of one expression, written as the right side of an assignment.
expr_tree <- function(e) {
  d <- dump_of(paste0("model { x = ", e, "; }"))
  sub("^.*\\(assign = \\(var x\\) (.*)\\)\\)\\)\n$", "\\1", d)
}

# The dump of the statements of a model block, one per element.
model_lines <- function(code) {
  dump_lines(dump_of(paste0("model {\n", code, "\n}")))[-(1:2)]
}

test_that("the bundled models parse without warnings", {
  models <- c("conjugate_normal", "eight_schools", "gp_profile", "hier_poisson",
              "hier_poisson_reduce", "lbeta_map", "logistic", "logistic_reduce",
              "map_rect_hier", "varying_slopes")
  for (m in models) {
    f <- system.file("extdata", paste0(m, ".stan"), package = "tapestry")
    expect_true(file.exists(f), info = m)
    r <- tp_parse(readLines(f), filename = basename(f))
    expect_match(r$dump, "^\\(program", info = m)
    expect_length(r$warnings, 0)
  }
  f <- system.file("extdata", "eight_schools.stan", package = "tapestry")
  d <- tp_parse(readLines(f))$dump
  expect_match(d, "(decl \"array[] real\" sigma (dims (var J)) (transform lower) (lower (int 0)))",
               fixed = TRUE)
  expect_match(d, "(tilde (var theta_tilde) std_normal)", fixed = TRUE)
})

test_that("binary operators associate and bind as in Stan", {
  expect_equal(expr_tree("a - b - c"), "(binop - (binop - (var a) (var b)) (var c))")
  expect_equal(expr_tree("a / b / c"), "(binop / (binop / (var a) (var b)) (var c))")
  expect_equal(expr_tree("a ^ b ^ c"), "(binop ^ (var a) (binop ^ (var b) (var c)))")
  expect_equal(expr_tree("a .^ b .^ c"), "(binop .^ (var a) (binop .^ (var b) (var c)))")
  expect_equal(expr_tree("1 + a * b"), "(binop + (int 1) (binop * (var a) (var b)))")
  expect_equal(expr_tree("(1 + a) * b"), "(binop * (binop + (int 1) (var a)) (var b))")
  expect_equal(expr_tree("a * b + c * d"),
               "(binop + (binop * (var a) (var b)) (binop * (var c) (var d)))")
  expect_equal(expr_tree("a .* b ./ c % d"),
               "(binop % (binop ./ (binop .* (var a) (var b)) (var c)) (var d))")
  # \ and %/% bind tighter than * (stanc3's parser)
  expect_equal(expr_tree("a * b \\ c"), "(binop * (var a) (binop \\ (var b) (var c)))")
  expect_equal(expr_tree("a %/% b * c"), "(binop * (binop %/% (var a) (var b)) (var c))")
  expect_equal(expr_tree("a < b == c > d"),
               "(binop == (binop < (var a) (var b)) (binop > (var c) (var d)))")
  expect_equal(expr_tree("a <= b != c >= d"),
               "(binop != (binop <= (var a) (var b)) (binop >= (var c) (var d)))")
  expect_equal(expr_tree("!a && b || c"),
               "(binop || (binop && (unop ! (var a)) (var b)) (var c))")
  expect_equal(expr_tree("a || b && c"), "(binop || (var a) (binop && (var b) (var c)))")
  expect_equal(expr_tree("a + b < c * d"),
               "(binop < (binop + (var a) (var b)) (binop * (var c) (var d)))")
})

test_that("prefix, power and postfix operators", {
  expect_equal(expr_tree("-a ^ 2"), "(unop - (binop ^ (var a) (int 2)))")
  expect_equal(expr_tree("a ^ -b"), "(binop ^ (var a) (unop - (var b)))")
  expect_equal(expr_tree("-a * b"), "(binop * (unop - (var a)) (var b))")
  expect_equal(expr_tree("- -a"), "(unop - (unop - (var a)))")
  expect_equal(expr_tree("+a"), "(unop + (var a))")
  expect_equal(expr_tree("!a == b"), "(binop == (unop ! (var a)) (var b))")
  expect_equal(expr_tree("a * b'"), "(binop * (var a) (transpose (var b)))")
  expect_equal(expr_tree("a' * b"), "(binop * (transpose (var a)) (var b))")
  expect_equal(expr_tree("a'''"), "(transpose (transpose (transpose (var a))))")
  expect_equal(expr_tree("a ^ b'"), "(binop ^ (var a) (transpose (var b)))")
  expect_equal(expr_tree("(a + b)'"), "(transpose (binop + (var a) (var b)))")
  expect_equal(expr_tree("x[1]'"), "(transpose (index (var x) (single (int 1))))")
  expect_equal(expr_tree("x'[1]"), "(index (transpose (var x)) (single (int 1)))")
})

test_that("the conditional operator nests to the right", {
  expect_equal(expr_tree("a ? b : c"), "(cond (var a) (var b) (var c))")
  expect_equal(expr_tree("a ? b : c ? d : e"),
               "(cond (var a) (var b) (cond (var c) (var d) (var e)))")
  expect_equal(expr_tree("a ? b ? c : d : e"),
               "(cond (var a) (cond (var b) (var c) (var d)) (var e))")
  expect_equal(expr_tree("a || b ? c + 1 : d"),
               "(cond (binop || (var a) (var b)) (binop + (var c) (int 1)) (var d))")
})

test_that("indexes, slices and calls", {
  expect_equal(expr_tree("x[i]"), "(index (var x) (single (var i)))")
  expect_equal(expr_tree("x[i, j]"), "(index (var x) (single (var i)) (single (var j)))")
  expect_equal(expr_tree("x[i][j]"), "(index (index (var x) (single (var i))) (single (var j)))")
  expect_equal(expr_tree("x[a:b]"), "(index (var x) (range (var a) (var b)))")
  expect_equal(expr_tree("x[2:3, :, a:, :b, ]"),
               "(index (var x) (range (int 2) (int 3)) (all) (from (var a)) (to (var b)) (all))")
  expect_equal(expr_tree("x[]"), "(index (var x) (all))")
  expect_equal(expr_tree("x[a + 1:n - 1]"),
               "(index (var x) (range (binop + (var a) (int 1)) (binop - (var n) (int 1))))")
  expect_equal(expr_tree("x[c ? 1 : 2]"), "(index (var x) (single (cond (var c) (int 1) (int 2))))")
  expect_equal(expr_tree("f()"), "(call f)")
  expect_equal(expr_tree("f(a, g(b))"), "(call f (var a) (call g (var b)))")
  expect_equal(expr_tree("normal_lpdf(y | mu, sigma)"),
               "(call normal_lpdf (var y) | (var mu) (var sigma))")
  expect_equal(expr_tree("std_normal_lpdf(y |)"), "(call std_normal_lpdf (var y) |)")
  expect_equal(expr_tree("f(y | a)[2]"),
               "(index (call f (var y) | (var a)) (single (int 2)))")
  expect_equal(expr_tree("target()"), "(target)")
})

test_that("literals and container expressions", {
  expect_equal(expr_tree("0"), "(int 0)")
  expect_equal(expr_tree("2147483647"), "(int 2147483647)")
  expect_equal(expr_tree("1_000"), "(int 1000)")
  expect_equal(expr_tree("1.5"), "(real 1.5)")
  expect_equal(expr_tree("1e-3"), "(real 1e-3)")
  expect_equal(expr_tree(".5"), "(real .5)")
  expect_equal(expr_tree("2."), "(real 2.)")
  expect_equal(expr_tree("1E5"), "(real 1E5)")
  expect_equal(expr_tree("2.5e+10"), "(real 2.5e+10)")
  # longest match, as stanc3's lexer: "2.*x" is the real 2. times x
  expect_equal(expr_tree("2.*x"), "(binop * (real 2.) (var x))")
  expect_equal(expr_tree("{1, 2, 3}"), "(array (int 1) (int 2) (int 3))")
  expect_equal(expr_tree("{{1, 2}, {3, 4}}"),
               "(array (array (int 1) (int 2)) (array (int 3) (int 4)))")
  expect_equal(expr_tree("[1, 2]"), "(rowvec (int 1) (int 2))")
  expect_equal(expr_tree("[1, 2]'"), "(transpose (rowvec (int 1) (int 2)))")
  expect_equal(expr_tree("[[1, 2], [3, 4]]"),
               "(rowvec (rowvec (int 1) (int 2)) (rowvec (int 3) (int 4)))")
  expect_equal(expr_tree("[]"), "(rowvec)")
})

test_that("every statement form", {
  s <- model_lines(paste(
    "x = 1;", "x[i] += 1;", "x[i, j] -= 2;", "x[i][j] *= 3;", "x[2:3] /= 4;",
    "x .*= y;", "x ./= y;",
    "y ~ normal(mu, sigma);", "y ~ std_normal();",
    "target += f(y);", "jacobian += log(x);",
    "print(\"x = \", x, \"!\");", "reject(\"bad: \", x);", "fatal_error(\"stop\");",
    "f(x);", ";", "break;", "continue;", "return;", "return x + 1;",
    sep = "\n"))
  expect_equal(s[1:20], c(
    "(assign = (var x) (int 1))",
    "(assign += (index (var x) (single (var i))) (int 1))",
    "(assign -= (index (var x) (single (var i)) (single (var j))) (int 2))",
    "(assign *= (index (index (var x) (single (var i))) (single (var j))) (int 3))",
    "(assign /= (index (var x) (range (int 2) (int 3))) (int 4))",
    "(assign .*= (var x) (var y))",
    "(assign ./= (var x) (var y))",
    "(tilde (var y) normal (var mu) (var sigma))",
    "(tilde (var y) std_normal)",
    "(target+= (call f (var y)))",
    "(jacobian+= (call log (var x)))",
    "(print (string \"x = \") (var x) (string \"!\"))",
    "(reject (string \"bad: \") (var x))",
    "(fatal_error (string \"stop\"))",
    "(call-stmt (call f (var x)))",
    "(empty)", "(break)", "(continue)", "(return)",
    "(return (binop + (var x) (int 1)))"))
})

test_that("truncation", {
  s <- model_lines(paste("y ~ normal(0, 1) T[0, ];", "y ~ normal(0, 1) T[, 1];",
                         "y ~ poisson(l) T[a, b];", "y ~ normal(0, 1) T[,];", sep = "\n"))
  expect_equal(s[1:4], c(
    "(tilde (var y) normal (int 0) (int 1) (T (int 0) _))",
    "(tilde (var y) normal (int 0) (int 1) (T _ (int 1)))",
    "(tilde (var y) poisson (var l) (T (var a) (var b)))",
    "(tilde (var y) normal (int 0) (int 1))"))
  # T is still an ordinary name elsewhere
  expect_equal(expr_tree("T[1]"), "(index (var T) (single (int 1)))")
})

test_that("loops, conditionals, blocks and profiles nest", {
  d <- dump_of("model {
    for (i in 1:N) { x[i] = i; }
    for (v in xs) continue;
    while (k < 10) k += 1;
    if (a) x = 1; else if (b) x = 2; else { x = 3; }
    { real z; z = 1; }
    profile(\"lik\") { y ~ normal(0, 1); }
  }")
  expect_match(d, "(for i (int 1) (var N)\n      (block\n        (assign = (index (var x) (single (var i))) (var i))))",
               fixed = TRUE)
  expect_match(d, "(foreach v (var xs)\n      (continue))", fixed = TRUE)
  expect_match(d, "(while (binop < (var k) (int 10))\n      (assign += (var k) (int 1)))", fixed = TRUE)
  expect_match(d, paste0("(if (var a)\n      (assign = (var x) (int 1))\n      (else\n",
                         "        (if (var b)\n          (assign = (var x) (int 2))\n",
                         "          (else\n            (block\n",
                         "              (assign = (var x) (int 3)))))))"), fixed = TRUE)
  expect_match(d, "(block\n      (decl real z)\n      (assign = (var z) (int 1)))", fixed = TRUE)
  expect_match(d, "(profile \"lik\"\n      (tilde (var y) normal (int 0) (int 1)))", fixed = TRUE)
})

test_that("declarations: types, sizes, constraints and values", {
  d <- dump_of("data {
    int N;
    int<lower=0> K;
    int<lower=1, upper=N> k;
    real<upper=1> u;
    real<lower=-1, upper=1> r;
    real<upper=b, lower=a> r2;
    vector[N] v;
    vector<lower=0>[N] vp;
    row_vector[3] rv;
    matrix[N, K] X;
    matrix<lower=0, upper=1>[2, 3] m;
    array[N] int y;
    array[N, K] vector[3] z;
  }
  parameters {
    real<offset=mu> a1;
    real<multiplier=s> a2;
    real<offset=mu, multiplier=s> a3;
    vector<multiplier=s, offset=mu>[K] a4;
  }
  transformed parameters {
    real t = a1 + 1;
    real t2, t3 = 2;
  }")
  lines <- dump_lines(d)
  expect_equal(lines[3:15], c(
    "(decl int N)",
    "(decl int K (transform lower) (lower (int 0)))",
    "(decl int k (transform lower_upper) (lower (int 1)) (upper (var N)))",
    "(decl real u (transform upper) (upper (int 1)))",
    "(decl real r (transform lower_upper) (lower (unop - (int 1))) (upper (int 1)))",
    "(decl real r2 (transform lower_upper) (lower (var a)) (upper (var b)))",
    "(decl vector v (size (var N)))",
    "(decl vector vp (size (var N)) (transform lower) (lower (int 0)))",
    "(decl row_vector rv (size (int 3)))",
    "(decl matrix X (size (var N) (var K)))",
    "(decl matrix m (size (int 2) (int 3)) (transform lower_upper) (lower (int 0)) (upper (int 1)))",
    "(decl \"array[] int\" y (dims (var N)))",
    "(decl \"array[,] vector\" z (dims (var N) (var K)) (size (int 3)))"))
  expect_equal(lines[17:20], c(
    "(decl real a1 (transform offset_multiplier) (offset (var mu)))",
    "(decl real a2 (transform offset_multiplier) (multiplier (var s)))",
    "(decl real a3 (transform offset_multiplier) (offset (var mu)) (multiplier (var s)))",
    "(decl vector a4 (size (var K)) (transform offset_multiplier) (offset (var mu)) (multiplier (var s)))"))
  expect_equal(lines[22:24], c(
    "(decl real t (init (binop + (var a1) (int 1))))",
    "(decl real t2)",
    "(decl real t3 (init (int 2)))"))
})

test_that("bounds are arithmetic expressions", {
  d <- dump_of("data { real<lower=a * 2 + f(b)[1], upper=x'> y; }")
  expect_match(d, paste0("(lower (binop + (binop * (var a) (int 2)) ",
                         "(index (call f (var b)) (single (int 1))))) (upper (transpose (var x)))"),
               fixed = TRUE)
  d <- dump_of("data { real<lower=(a > b ? 1 : 0)> y; }")
  expect_match(d, "(lower (cond (binop > (var a) (var b)) (int 1) (int 0)))", fixed = TRUE)
})

test_that("constrained types", {
  d <- dump_of("parameters {
    simplex[K] s;
    ordered[K] o;
    positive_ordered[K] po;
    unit_vector[K] u;
    sum_to_zero_vector[K] sz;
    cholesky_factor_corr[K] lc;
    cholesky_factor_cov[M] lv;
    cholesky_factor_cov[M, N] lv2;
    corr_matrix[K] cr;
    cov_matrix[K] cv;
    array[2] simplex[K] as;
  }")
  lines <- dump_lines(d)
  expect_equal(lines[3:13], c(
    "(decl vector s (size (var K)) (transform simplex))",
    "(decl vector o (size (var K)) (transform ordered))",
    "(decl vector po (size (var K)) (transform positive_ordered))",
    "(decl vector u (size (var K)) (transform unit_vector))",
    "(decl vector sz (size (var K)) (transform sum_to_zero_vector))",
    "(decl matrix lc (size (var K)) (transform cholesky_factor_corr))",
    "(decl matrix lv (size (var M)) (transform cholesky_factor_cov))",
    "(decl matrix lv2 (size (var M) (var N)) (transform cholesky_factor_cov))",
    "(decl matrix cr (size (var K)) (transform corr_matrix))",
    "(decl matrix cv (size (var K)) (transform cov_matrix))",
    "(decl \"array[] vector\" as (dims (int 2)) (size (var K)) (transform simplex))"))
})

test_that("old array syntax gives the same tree with a warning", {
  r <- tp_parse("data { real y[N]; vector<lower=0>[K] z[J, 2]; }", filename = "m.stan")
  lines <- dump_lines(r$dump)
  expect_equal(lines[3:4], c(
    "(decl \"array[] real\" y (dims (var N)) old-syntax)",
    "(decl \"array[,] vector\" z (dims (var J) (int 2)) (size (var K)) (transform lower) (lower (int 0)) old-syntax)"))
  expect_equal(r$warnings, c(
    "m.stan:1:13: warning: declaring arrays as 'real y[N]' is deprecated; write 'array[N] real y'",
    paste0("m.stan:1:38: warning: declaring arrays as 'vector<lower=0>[K] z[J, 2]' is deprecated; ",
           "write 'array[J, 2] vector<lower=0>[K] z'")))
  new <- tp_parse("data { array[N] real y; }")
  expect_equal(new$dump, "(program\n  (data\n    (decl \"array[] real\" y (dims (var N)))))\n")
  expect_length(new$warnings, 0)
})

test_that("function definitions and forward declarations", {
  r <- tp_parse("functions {
    real f(real x);
    real f(real x) { return x ^ 2; }
    void g(data array[] real x, array[,] int n, vector v, row_vector r, matrix m) { }
    array[] vector h(real[] x) { return {[1]'}; }
    real foo_lpdf(real y, real mu) { return -square(y - mu); }
  }
  model { y ~ foo(mu); }")
  lines <- dump_lines(r$dump)
  expect_equal(lines[3:11], c(
    "(function real f ((arg real x)) forward)",
    "(function real f ((arg real x))",
    "(block",
    "(return (binop ^ (var x) (int 2)))",
    paste0("(function void g ((arg data \"array[] real\" x) (arg \"array[,] int\" n) ",
           "(arg vector v) (arg row_vector r) (arg matrix m))"),
    "(block)",
    "(function \"array[] vector\" h ((arg \"array[] real\" x))",
    "(block",
    "(return (array (transpose (rowvec (int 1)))))"))
  expect_equal(r$warnings,
               "string:5:22: warning: the type 'real[]' is deprecated; write 'array[] real'")
})

test_that("comments", {
  r <- tp_parse(c("// line comment", "/* block", " comment */ model {",
                  "  x = 1; // trailing", "  /* inline */ y = 2;", "}"))
  expect_equal(model_lines("x = 1; // c\n/* d */ y = 2;")[1:2],
               c("(assign = (var x) (int 1))", "(assign = (var y) (int 2))"))
  expect_length(r$warnings, 0)
  r <- tp_parse(c("# old comment", "model { }"))
  expect_equal(r$warnings,
               "string:1:1: warning: comments beginning with '#' are deprecated; use '//' instead")
})

test_that("block structure", {
  expect_equal(dump_of(""), "(program)\n")
  d <- dump_of(paste("functions { } data { } transformed data { } parameters { }",
                     "transformed parameters { } model { } generated quantities { }"))
  expect_equal(d, paste0("(program\n  (functions)\n  (data)\n  (transformed_data)\n  (parameters)\n",
                         "  (transformed_parameters)\n  (model)\n  (generated_quantities))\n"))
  # declarations and statements may mix at the top level of a block
  d <- dump_of("transformed data { real a = 1; a = 2; real b = a; }")
  expect_match(d, "(decl real a (init (int 1)))\n    (assign = (var a) (int 2))\n    (decl real b",
               fixed = TRUE)
})

test_that("the parser survives hostile input", {
  deep <- paste0(strrep("(", 5000), "1", strrep(")", 5000))
  expect_error(tp_parse(paste0("model { x = ", deep, "; }")), "nested too deeply",
               class = "tapestry_syntax_error")
  long <- paste(rep("a", 3000), collapse = " + ")
  expect_error(tp_parse(paste0("model { x = ", long, "; }")), "nested too deeply")
  ok <- paste(rep("a", 500), collapse = " + ")
  expect_match(dump_of(paste0("model { x = ", ok, "; }")), "binop")
  blocks <- paste0("model { ", strrep("{ ", 3000), strrep("} ", 3000), "}")
  expect_error(tp_parse(blocks), "nested too deeply")
  neg <- paste0("model { x = ", strrep("-", 5000), "1; }")
  expect_error(tp_parse(neg), "nested too deeply")
  elses <- paste0("model { ", paste(rep("if (a) x = 1; else", 2000), collapse = " "), " x = 2; }")
  expect_error(tp_parse(elses), "nested too deeply")
  bad <- rawToChar(as.raw(c(0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x20, 0x7b, 0x20, 0xff, 0x20, 0x7d)))
  expect_error(tp_parse(bad), "unexpected character '\\\\xFF'")
  expect_error(tp_parse("model { x = 1; \001 }"), "unexpected character '\\\\x01'")
  for (code in c("model", "model {", "model { x", "model { x =", "model { x[", "model { f(",
                 "data { real<", "data { real<lower", "functions { real f(", "}", "{", "/*",
                 "\"", "model { print(\"abc", "model { y ~ ", "model { if (", "model { for (i in"))
    expect_error(tp_parse(code), class = "tapestry_syntax_error")
})

test_that("syntax errors point at the problem", {
  expect_snapshot(error = TRUE, tp_parse("model {\n  y ~ normal(0, 1)\n  x = 2;\n}", "m.stan"))
  expect_snapshot(error = TRUE, tp_parse("model { } }"))
  expect_snapshot(error = TRUE, tp_parse("modle { }"))
  expect_snapshot(error = TRUE, tp_parse("model { x = ); }"))
  expect_snapshot(error = TRUE, tp_parse("model {\n  /* comment\n}"))
  expect_snapshot(error = TRUE, tp_parse("data {\n  real print;\n}"))
  expect_snapshot(error = TRUE, tp_parse("data { real sigma__; }"))
  expect_snapshot(error = TRUE, tp_parse("data { real x = 3; }"))
  expect_snapshot(error = TRUE, tp_parse("data { x = 3; }"))
  expect_snapshot(error = TRUE, tp_parse("model { real<lower=0> x; }"))
  expect_snapshot(error = TRUE, tp_parse("model { simplex[3] x; }"))
  expect_snapshot(error = TRUE, tp_parse("model { x = 99999999999; }"))
  expect_snapshot(error = TRUE, tp_parse("model { vectr[N] y; }"))
  expect_snapshot(error = TRUE, tp_parse("model { x + 1; }"))
  expect_snapshot(error = TRUE, tp_parse("model { y ~ normal_lpdf(0, 1); }"))
  expect_snapshot(error = TRUE, tp_parse("parameters { real x; }\ndata { int N; }"))
  expect_snapshot(error = TRUE, tp_parse("model { x = 1 & 2; }"))
  expect_snapshot(error = TRUE, tp_parse("model { if (x) real y; }"))
  expect_snapshot(error = TRUE, tp_parse("functions { real f(vector[N] x); }"))
  expect_snapshot(error = TRUE, tp_parse("transformed data { real<lower=a < b> y; }"))
  expect_snapshot(error = TRUE, tp_parse("model {\n  x = 1;\n"))
  expect_snapshot(error = TRUE, tp_parse("model { for (i in 1:N }"))
  expect_snapshot(error = TRUE, tp_parse("model { x = \"abc\"; }"))
  expect_snapshot(error = TRUE, tp_parse("#include \"other.stan\"\nmodel { }"))
})
