# tools/signatures.R -- which of Stan's library signatures tapestry supports.
#
# Usage (from the package root, with tapestry installed):
#   Rscript tools/signatures.R [stanc-dump] [lib]
#
# stanc-dump is the output of `stanc --dump-stan-math-signatures`, one
# signature per line ("name(args) => result"); without it the script
# downloads stanc3's own copy of that output (the expected output of its
# test test/integration/signatures/stan_math_signatures.t, at the commit
# below). lib is the library tapestry is installed in (default: .libPaths()).
#
# Each signature becomes a small program that declares the arguments and
# calls the function; the signature counts as supported when tapestry's
# checker accepts it both with every argument data and, where Stan allows
# autodiff arguments, with them declared as parameters (the checker only
# knows a signature when a kernel serves it; the kernels' values and
# gradients are tested in tests/testthat). Stan's variadic functions (ODEs,
# DAEs, solvers, reduce_sum, the embedded Laplace functions), which the dump
# leaves out, get one hand-written program each.
#
# It writes:
#   - README.md, between "<!-- signatures:start -->" and "<!-- signatures:end -->":
#     the counts and every function with unsupported signatures, with the reason;
#   - src/front/lc_stan_names.c: the names of Stan's library functions, so
#     the checker can say a name is Stan's but not supported by tapestry yet.

stanc3_commit <- "90c653249048b3aaa04bd488fcf20dceebeeda62"
stanc3_url <- paste0("https://raw.githubusercontent.com/stan-dev/stanc3/", stanc3_commit,
                     "/test/integration/signatures/stan_math_signatures.t")

argv <- commandArgs(TRUE)
dump_file <- if (length(argv) >= 1 && nzchar(argv[1])) argv[1] else {
  f <- tempfile(fileext = ".t")
  utils::download.file(stanc3_url, f, quiet = TRUE)
  f
}
lib <- if (length(argv) >= 2) argv[2] else NULL
suppressMessages(library(tapestry, lib.loc = lib))
check <- get("tp_check", asNamespace("tapestry"))

# Why a function is left out, by name (a regular expression on the name).
# Everything not named here that fails is simply not built yet.
reasons <- c(
  "^laplace_" = "the embedded Laplace approximation (Stan 2.37) is not built yet",
  "^generate_laplace_options$" = "the embedded Laplace approximation (Stan 2.37) is not built yet",
  "^integrate_1d_(gauss_kronrod|double_exponential)" = "the variadic integrate_1d forms (Stan 2.37) are not built yet",
  "^wiener_(lpdf|lcdf_unnorm|lccdf_unnorm)$" = "the seven-parameter forms (with sw and st0) need a two-dimensional numerical integral, not built yet"
)

# ---- reading the dump ----

lines <- readLines(dump_file, warn = FALSE)
lines <- trimws(lines[grepl("=>", lines) & !grepl("^\\s*\\$", lines)])

split_top <- function(s) { # split at the commas outside brackets
  ch <- strsplit(s, "")[[1]]
  depth <- cumsum((ch %in% c("(", "[")) - (ch %in% c(")", "]")))
  cut <- which(ch == "," & depth == 0)
  if (!length(ch)) return(character())
  trimws(substring(s, c(1, cut + 1), c(cut - 1, length(ch))))
}

parse_sig <- function(l) {
  name <- sub("\\(.*", "", l)
  ch <- strsplit(substring(l, nchar(name) + 2), "")[[1]]
  close <- which(cumsum((ch == "(") - (ch == ")")) == -1)[1]
  args <- paste(ch[seq_len(close - 1)], collapse = "")
  ret <- trimws(sub("^\\s*=>\\s*", "", paste(ch[-seq_len(close)], collapse = "")))
  list(name = name, args = if (nzchar(args)) split_top(args) else character(), ret = ret)
}

# ---- programs for a signature ----

strip_data <- function(t) sub("^data ", "", t)
arr_depth <- function(t) {
  t <- strip_data(t)
  if (!grepl("^array\\[", t)) return(0L)
  nchar(gsub("[^,]", "", sub("\\].*", "", t))) + 1L
}
base_of <- function(t) sub("^array\\[[,]*\\] ", "", strip_data(t))

sized_type <- function(t) {
  d <- arr_depth(t)
  b <- base_of(t)
  if (grepl("^tuple\\(", b)) {
    parts <- vapply(split_top(sub("^tuple\\((.*)\\)$", "\\1", b)), sized_type, "")
    base <- paste0("tuple(", paste(parts, collapse = ", "), ")")
  } else {
    base <- switch(b, int = "int", real = "real", complex = "complex",
      vector = "vector[2]", row_vector = "row_vector[2]", matrix = "matrix[2, 2]",
      complex_vector = "complex_vector[2]", complex_row_vector = "complex_row_vector[2]",
      complex_matrix = "complex_matrix[2, 2]", stop("unknown type ", t))
  }
  if (d) paste0("array[", paste(rep("2", d), collapse = ", "), "] ", base) else base
}

zero_of <- function(t) {
  z <- switch(base_of(t), int = "0", real = "0.0", vector = "rep_vector(0, 1)",
    row_vector = "rep_row_vector(0, 1)", matrix = "rep_matrix(0, 1, 1)",
    stop("no zero for ", t))
  for (k in seq_len(arr_depth(t))) z <- sprintf("rep_array(%s, 1)", z)
  z
}

# Arguments of the higher-order functions that may be autodiff (by
# position, the function argument being 1); the others must be data.
hof_ad <- list(map_rect = 2:3, integrate_ode_rk45 = 2:5, integrate_ode_bdf = 2:5,
  integrate_ode_adams = 2:5, integrate_ode = 2:5, algebra_solver = 2:3,
  algebra_solver_newton = 2:3, integrate_1d = 2:4)

operators <- c(add = "%s + %s", subtract = "%s - %s", multiply = "%s * %s",
  divide = "%s / %s", mdivide_right = "%s / %s", mdivide_left = "%s \\ %s",
  modulus = "%s %% %s", elt_multiply = "%s .* %s", elt_divide = "%s ./ %s",
  logical_or = "%s || %s", logical_and = "%s && %s", logical_eq = "%s == %s",
  logical_neq = "%s != %s", logical_lt = "%s < %s", logical_lte = "%s <= %s",
  logical_gt = "%s > %s", logical_gte = "%s >= %s", minus = "-%s", plus = "+%s",
  logical_negation = "!%s", transpose = "%s'")

ad_able <- c("real", "vector", "row_vector", "matrix")

program <- function(s, ad, as_operator = FALSE) {
  funs <- decl_data <- decl_par <- args <- character()
  for (k in seq_along(s$args)) {
    a <- s$args[k]
    if (grepl("=>", a)) { # a function argument: a user function of that type
      inner_args <- split_top(sub("^\\((.*)\\)\\s*=>.*$", "\\1", a))
      inner_ret <- trimws(sub(".*=>", "", a))
      formals <- paste(paste0(inner_args, " x", seq_along(inner_args)), collapse = ", ")
      funs <- c(funs, sprintf("%s f%d(%s) { return %s; }", inner_ret, k, formals, zero_of(inner_ret)))
      args <- c(args, paste0("f", k))
      next
    }
    data_only <- grepl("^data ", a) || (!is.null(hof_ad[[s$name]]) && !(k %in% hof_ad[[s$name]]))
    if (ad && !data_only && base_of(a) %in% ad_able) {
      decl_par <- c(decl_par, sprintf("%s p%d;", sized_type(a), k))
      args <- c(args, paste0("p", k))
    } else {
      decl_data <- c(decl_data, sprintf("%s d%d;", sized_type(a), k))
      args <- c(args, paste0("d", k))
    }
  }
  density <- grepl("_(lpdf|lupdf|lpmf|lupmf|cdf|lcdf|lccdf)$", s$name) && length(args) > 1
  call <- if (as_operator) {
    do.call(sprintf, c(list(operators[[s$name]]), as.list(args)))
  } else if (density) {
    sprintf("%s(%s | %s)", s$name, args[1], paste(args[-1], collapse = ", "))
  } else sprintf("%s(%s)", s$name, paste(args, collapse = ", "))
  stmt <- if (s$ret == "void") paste0(call, ";") else sprintf("%s r = %s;", sized_type(s$ret), call)
  block <- if (grepl("_jacobian$", s$name)) "transformed parameters"
           else if (grepl("_rng$", s$name) || !ad) "generated quantities"
           else if (grepl("_lp$", s$name)) "model" else "model"
  paste0(if (length(funs)) paste0("functions {\n", paste(funs, collapse = "\n"), "\n}\n"),
         "data {\n", paste(decl_data, collapse = "\n"), "\n}\n",
         "parameters {\n", paste(decl_par, collapse = "\n"), "\n}\n",
         block, " {\n", stmt, "\n}\n")
}

accepts <- function(code) tryCatch({ check(code); "" }, error = function(e) conditionMessage(e))

check_sig <- function(s) {
  has_ad <- !grepl("_rng$", s$name) &&
    any(!grepl("^data ", s$args) & base_of(s$args) %in% ad_able & !grepl("=>", s$args))
  forms <- if (s$name %in% names(operators)) c(FALSE, TRUE) else FALSE
  msg <- ""
  for (op in forms) {
    msg <- tryCatch(accepts(program(s, FALSE, op)), error = function(e) conditionMessage(e))
    if (msg == "" && has_ad) msg <- tryCatch(accepts(program(s, TRUE, op)), error = function(e) conditionMessage(e))
    if (msg == "") break
  }
  msg
}

# ---- the variadic functions the dump leaves out ----

ode_rhs <- "vector rhs(real t, vector y, real k) { return -k * y; }"
variadic <- list(
  ode_rk45 = "ode_rk45(rhs, y0, 0, ts, k)",
  ode_ckrk = "ode_ckrk(rhs, y0, 0, ts, k)",
  ode_adams = "ode_adams(rhs, y0, 0, ts, k)",
  ode_bdf = "ode_bdf(rhs, y0, 0, ts, k)",
  ode_rk45_tol = "ode_rk45_tol(rhs, y0, 0, ts, 1e-6, 1e-6, 1000, k)",
  ode_ckrk_tol = "ode_ckrk_tol(rhs, y0, 0, ts, 1e-6, 1e-6, 1000, k)",
  ode_adams_tol = "ode_adams_tol(rhs, y0, 0, ts, 1e-6, 1e-6, 1000, k)",
  ode_bdf_tol = "ode_bdf_tol(rhs, y0, 0, ts, 1e-6, 1e-6, 1000, k)",
  ode_adjoint_tol_ctl = paste("ode_adjoint_tol_ctl(rhs, y0, 0, ts, 1e-6, rep_vector(1e-6, 2), 1e-6,",
                              "rep_vector(1e-6, 2), 1e-6, 1e-6, 1000, 150, 1, 2, 2, k)"),
  dae = "dae(res, y0, y0, 0, ts, k)",
  dae_tol = "dae_tol(res, y0, y0, 0, ts, 1e-6, 1e-6, 1000, k)",
  solve_newton = "solve_newton(alg, y0, k)",
  solve_powell = "solve_powell(alg, y0, k)",
  solve_newton_tol = "solve_newton_tol(alg, y0, 1e-10, 1e-6, 100, k)",
  solve_powell_tol = "solve_powell_tol(alg, y0, 1e-10, 1e-6, 100, k)",
  reduce_sum = "reduce_sum(part, xs, 1, k)",
  reduce_sum_static = "reduce_sum_static(part, xs, 1, k)",
  integrate_1d_gauss_kronrod = "integrate_1d_gauss_kronrod(integrand, 0, 1, k)",
  integrate_1d_gauss_kronrod_tol = "integrate_1d_gauss_kronrod_tol(integrand, 0, 1, 1e-8, 15, 100, k)",
  integrate_1d_double_exponential = "integrate_1d_double_exponential(integrand, 0, 1, k)",
  integrate_1d_double_exponential_tol = "integrate_1d_double_exponential_tol(integrand, 0, 1, 1e-8, 1e-8, 10, k)"
)
variadic_result <- c(solve_newton = "vector[2]", solve_powell = "vector[2]",
  solve_newton_tol = "vector[2]", solve_powell_tol = "vector[2]", reduce_sum = "real",
  reduce_sum_static = "real", integrate_1d_gauss_kronrod = "real",
  integrate_1d_gauss_kronrod_tol = "real", integrate_1d_double_exponential = "real",
  integrate_1d_double_exponential_tol = "real")
laplace_fns <- c("laplace_marginal", "laplace_marginal_tol", "laplace_latent_rng",
  "laplace_latent_tol_rng", "laplace_latent_solve", "laplace_latent_solve_tol",
  paste0("laplace_marginal_", c("", "tol_"), rep(c("bernoulli_logit", "neg_binomial_2_log", "poisson_log"), each = 2), "_lpmf"),
  paste0("laplace_latent_", c("", "tol_"), rep(c("bernoulli_logit", "neg_binomial_2_log", "poisson_log"), each = 2), "_rng"))

variadic_program <- function(name) {
  call <- variadic[[name]]
  result <- if (is.null(variadic_result[name]) || is.na(variadic_result[name])) "array[3] vector[2]" else variadic_result[[name]]
  paste0("functions {\n", ode_rhs, "\n",
         "vector res(real t, vector y, vector yp, real k) { return yp + k * y; }\n",
         "vector alg(vector y, real k) { return y - k; }\n",
         "real part(array[] real xs, int s, int e, real k) { return k * sum(xs); }\n",
         "real integrand(real x, real xc, real k) { return k * x; }\n}\n",
         "data {\n vector[2] y0;\n array[3] real ts;\n array[4] real xs;\n}\n",
         "parameters {\n real<lower=0> k;\n}\n",
         "model {\n ", result, " r = ", call, ";\n}\n")
}

# ---- run ----

sigs <- lapply(lines, parse_sig)
names_all <- vapply(sigs, `[[`, "", "name")
msg <- vapply(sigs, check_sig, "")
for (v in names(variadic)) {
  names_all <- c(names_all, v)
  lines <- c(lines, paste0(v, "(...)"))
  msg <- c(msg, accepts(variadic_program(v)))
}
for (v in laplace_fns) { # one entry each: tapestry has none of them
  names_all <- c(names_all, v)
  lines <- c(lines, paste0(v, "(...)"))
  m <- accepts(sprintf("parameters {\n real k;\n}\nmodel {\n %s();\n}\n", v))
  msg <- c(msg, if (grepl("unknown function|not support", m)) m else "")
}
ok <- msg == ""
total <- length(ok)
cat(sprintf("%d of %d signatures supported (%.2f%%)\n", sum(ok), total, 100 * mean(ok)))

per_fn <- aggregate(ok, list(name = names_all), function(x) c(sum(x), length(x)))
per_fn <- data.frame(name = per_fn$name, supported = per_fn$x[, 1], total = per_fn$x[, 2])
missing <- per_fn[per_fn$supported < per_fn$total, ]
reason_for <- function(n) {
  hit <- names(reasons)[vapply(names(reasons), function(p) grepl(p, n), TRUE)]
  if (length(hit)) reasons[[hit[1]]] else {
    m <- msg[names_all == n & !ok]
    bad <- lines[names_all == n & !ok]
    if (all(grepl("array\\[,,,,,,,,\\]", bad))) "arrays of 9 dimensions (tapestry's arrays have at most 8)"
    else if (any(grepl("complex", lines[names_all == n & !ok]))) "complex arguments are not built yet"
    else if (any(grepl("tuple", lines[names_all == n & !ok]))) "tuples are not built yet"
    else "not built yet"
  }
}
missing$reason <- vapply(missing$name, reason_for, "")

# ---- README ----

table_md <- c(
  "<!-- signatures:start -->",
  sprintf("Written by `tools/signatures.R` from stanc3's signature list (commit %s) on %s:",
          substr(stanc3_commit, 1, 7), format(Sys.Date())),
  sprintf("**%d of %d signatures supported (%.1f%%)**, counting every overload of Stan's", sum(ok), total, 100 * mean(ok)),
  "library (vectorized forms and array depths included) and each variadic function once.",
  "",
  "| function | supported | of | what is missing |",
  "|---|---|---|---|",
  sprintf("| `%s` | %d | %d | %s |", missing$name, missing$supported, missing$total, missing$reason),
  "<!-- signatures:end -->")
readme <- readLines("README.md")
a <- grep("<!-- signatures:start -->", readme, fixed = TRUE)
b <- grep("<!-- signatures:end -->", readme, fixed = TRUE)
if (length(a) != 1 || length(b) != 1) stop("README.md needs one signatures:start and one signatures:end marker")
writeLines(c(readme[seq_len(a - 1)], table_md, readme[-seq_len(b)]), "README.md")

# ---- the checker's list of Stan names ----

stan_names <- sort(method = "radix", unique(c(names_all, sub("_lpdf$", "_lupdf", grep("_lpdf$", names_all, value = TRUE)),
                            sub("_lpmf$", "_lupmf", grep("_lpmf$", names_all, value = TRUE)))))
writeLines(c(
  "/* lc_stan_names.c -- the names of Stan's library functions (written by",
  "** tools/signatures.R from stanc3's signature list; do not edit), so that",
  "** the checker can tell a Stan function tapestry lacks from a misspelt name. */",
  "#include \"lc.h\"",
  "",
  "const char *const lc_stan_names[] = {",
  paste0("  \"", stan_names, "\","),
  "};",
  sprintf("const int lc_n_stan_names = %d;", length(stan_names))),
  "src/front/lc_stan_names.c")
cat(sprintf("README.md: %d functions with unsupported signatures; src/front/lc_stan_names.c: %d names\n",
            nrow(missing), length(stan_names)))
