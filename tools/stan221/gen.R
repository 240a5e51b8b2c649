# tools/stan221/gen.R -- turns Stan 2.21's signatures into Stan programs that
# evaluate each at three points of its domain, in two spellings: Stan 2.21's
# (old array syntax, deprecated names, commas in _cdf) for rstan, and current
# Stan for tapestry.  Sourced by tools/stan221/run.R, with spec.R.
#
# A batch program holds many calls.  Every call reads its real arguments from
# its own slice of one parameter vector `th` and its integer arguments from
# its own slice of a data array `ii`, and reduces its result to one real
# (a weighted sum over the elements, weights distinct by position) stored as
# a transformed parameter r[k]; the model adds sum(r) to the target.  So at a
# point (th, ii) one gradient of the target holds every call's gradient by
# every real argument (the slices are disjoint), and the transformed
# parameters hold every call's value.  A point is one (th, ii): the three
# points of a batch are three data sets of the same compiled program.

# ---- types ----

parse_type <- function(t) {
  t <- trimws(t)
  nd <- if (grepl("\\[", t)) nchar(gsub("[^,]", "", t)) + 1L else 0L
  list(base = sub("\\[.*$", "", t), nd = nd)
}
type_code <- function(ty) paste0(if (ty$nd) paste0("a", ty$nd), switch(ty$base,
  int = "i", real = "r", vector = "v", row_vector = "rv", matrix = "m"))

# ---- values ----

# Value tables: for each domain, three points of eleven values (a prime, so
# a matrix's columns never repeat); an argument's
# elements take the table's values in turn, starting at a place that
# depends on the argument's position (so two arguments of one domain differ).
# Every table is valid in any combination with the others a spec names for
# the same function (uniform's lo < mid < hi, binomial's n <= N ...).
real_tables <- list(
  any  = list(c(0.37, -1.21, 2.05, -0.46, 0.88, 1.63, -0.29, 0.94, -1.77, 0.15, 1.32),
              c(-0.82, 0.55, -2.37, 1.29, -0.13, 3.1, 0.71, -0.26, 1.18, -1.45, 0.62),
              c(1.7, -3.4, 0.06, 4.2, -0.71, 2.6, -1.5, 0.33, 0.8, -2.2, 1.05)),
  pos  = list(c(0.73, 1.31, 2.24, 0.48, 3.05, 1.77, 0.92, 2.61, 1.14, 0.57, 4.4),
              c(3.12, 0.45, 1.08, 5.6, 0.91, 2.43, 1.66, 0.37, 7.2, 1.29, 0.78),
              c(0.12, 7.3, 0.66, 1.95, 10.4, 0.28, 3.3, 0.85, 14.5, 0.43, 2.05)),
  unit = list(c(0.21, 0.53, 0.86, 0.34, 0.67, 0.12, 0.45, 0.78, 0.29, 0.91, 0.6),
              c(0.45, 0.09, 0.72, 0.93, 0.28, 0.6, 0.17, 0.81, 0.36, 0.55, 0.66),
              c(0.03, 0.97, 0.5, 0.15, 0.81, 0.41, 0.62, 0.24, 0.88, 0.07, 0.33)),
  lt1  = list(c(0.37, -1.21, 0.95, -0.46, 0.88, -2.1, 0.61, -0.29, 0.12, -3.3, 0.74),
              c(-0.82, 0.55, -2.37, 0.29, -0.13, 0.71, -1.15, 0.48, -0.6, 0.93, -4.1),
              c(0.7, -3.4, 0.06, 0.99, -0.71, -6.2, 0.35, -1.9, 0.84, -0.05, 0.52)),
  gtm1 = list(c(0.37, -0.61, 2.05, -0.46, 0.88, 1.63, -0.29, 0.94, -0.77, 0.15, 1.32),
              c(-0.82, 0.55, -0.37, 1.29, -0.13, 3.1, 0.71, -0.26, 1.18, -0.45, 0.62),
              c(1.7, -0.94, 0.06, 4.2, -0.71, 2.6, -0.5, 0.33, 0.8, -0.2, 1.05)),
  # for functions of two ordered reals (log_diff_exp, uniform, pareto ...)
  lo   = list(c(-2.3, -1.9, -2.6, -1.7, -2.1, -2.9, -2.45, -1.8, -3.2, -2.05, -1.6),
              c(-1.6, -2.4, -1.8, -2.2, -3.1, -1.55, -2.7, -1.95, -2.15, -3.4, -1.75),
              c(-2.05, -1.65, -3.3, -1.75, -2.45, -1.85, -2.25, -2.95, -1.58, -2.6, -1.9)),
  mid  = list(c(0.37, -1.21, 1.05, -0.46, 0.88, 1.33, -0.29, 0.94, -1.37, 0.15, 1.22),
              c(-0.82, 0.55, -1.37, 1.29, -0.13, 1.1, 0.71, -0.26, 1.18, -1.45, 0.62),
              c(1.2, -1.4, 0.06, 1.45, -0.71, 0.6, -1.5, 0.33, 0.8, -1.2, 1.05)),
  small = list(c(0.11, 0.23, 0.07, 0.31, 0.18, 0.05, 0.27, 0.14, 0.38, 0.09, 0.21),
               c(0.29, 0.04, 0.15, 0.36, 0.09, 0.21, 0.12, 0.33, 0.06, 0.25, 0.17),
               c(0.02, 0.41, 0.13, 0.08, 0.33, 0.26, 0.19, 0.37, 0.11, 0.06, 0.29)),
  big  = list(c(4.3, 6.1, 5.2, 7.7, 4.9, 8.4, 5.6, 9.3, 6.8, 4.6, 7.1),
              c(9.2, 5.5, 12.1, 6.3, 7.1, 10.6, 4.4, 8.2, 5.9, 11.3, 6.6),
              c(15.5, 4.1, 6.6, 25.3, 5.8, 8.9, 12.7, 4.8, 19.4, 7.3, 10.1)),
  # strictly increasing: cutpoints
  ord  = list(c(-1.3, -0.2, 0.9, 1.6, 2.4, 3.1, 3.7, 4.5, 5.2, 6.0, 6.6),
              c(-2.1, -1.05, 0.35, 0.8, 1.9, 2.2, 3.05, 3.9, 4.4, 5.35, 6.1),
              c(-0.4, 0.15, 0.55, 1.1, 1.3, 2.8, 3.25, 4.1, 4.75, 5.5, 7.2))
)
# moderate values, where far tails underflow (Stan 2.21's cdfs take logs
# of cdfs, not log cdfs, for some distributions)
real_tables$anym <- lapply(real_tables$any, function(v) v / 2)
real_tables$posm <- lapply(real_tables$pos, function(v) 0.6 + v / 4)
real_tables$pm1 <- lapply(real_tables$unit, function(v) v * rep_len(c(1, -1), length(v)))   # (-1, 1)
real_tables$gt1 <- lapply(real_tables$pos, function(v) v + 1)
real_tables$neg <- lapply(real_tables$pos, function(v) -v)
real_tables$hi <- lapply(real_tables$lo, function(v) -v)
# matrices' free entries, scaled down so that products stay moderate
real_tables$free <- lapply(real_tables$any, function(v) 0.5 * v)

int_tables <- list(
  cnt  = list(c(0L, 3L, 1L, 5L, 2L, 4L), c(2L, 0L, 4L, 1L, 5L, 3L), c(5L, 1L, 2L, 0L, 3L, 4L)),
  pos  = list(c(1L, 3L, 2L, 4L, 2L, 1L), c(2L, 1L, 3L, 2L, 4L, 3L), c(3L, 2L, 1L, 3L, 1L, 4L)),
  bin  = list(c(0L, 1L, 1L, 0L, 1L, 0L), c(1L, 0L, 0L, 1L, 1L, 0L), c(1L, 1L, 0L, 0L, 0L, 1L)),
  big  = list(c(6L, 9L, 7L, 10L, 8L, 6L), c(7L, 10L, 6L, 8L, 9L, 7L), c(10L, 6L, 9L, 7L, 6L, 8L)),
  cat3 = list(c(1L, 3L, 2L, 2L, 1L, 3L), c(2L, 1L, 3L, 1L, 3L, 2L), c(3L, 2L, 1L, 3L, 2L, 1L)),
  any  = list(c(2L, -3L, 0L, 5L, -1L, 4L), c(-2L, 1L, 3L, -4L, 0L, 2L), c(4L, 0L, -5L, 1L, 3L, -2L)),
  ord  = list(c(0L, 1L, 2L, 3L, 4L, 5L), c(1L, 1L, 2L, 2L, 3L, 3L), c(0L, 0L, 1L, 1L, 2L, 2L)),
  nonpos = list(c(0L, -1L, -3L, -2L, 0L, -5L), c(-2L, 0L, -4L, -1L, -3L, 0L), c(-5L, -1L, 0L, -2L, -4L, -3L)),
  negi = list(c(-1L, -3L, -2L, -5L, -1L, -4L), c(-2L, -1L, -4L, -1L, -3L, -6L), c(-5L, -1L, -2L, -3L, -4L, -2L)),
  pm1  = list(c(0L, 1L, -1L, 1L, 0L, -1L), c(-1L, 0L, 1L, -1L, 1L, 0L), c(1L, -1L, 0L, 0L, -1L, 1L)),
  zero = list(rep(0L, 6), rep(0L, 6), rep(0L, 6)),
  order = list(c(0L, 1L, 2L, 3L, 1L, 2L), c(1L, 2L, 0L, 4L, 3L, 1L), c(2L, 0L, 1L, 2L, 4L, 3L))
)

# Fixed values, the same at every point and element: c(1, 2, 3) recycled,
# or a list of three vectors (one per point).
pick_values <- function(tab, p, n, shift) {
  if (isTRUE(attr(tab, "fixed"))) shift <- 0L   # explicit values stay where they are
  v <- if (is.list(tab)) tab[[p]] else tab
  v[((seq_len(n) - 1L + shift) %% length(v)) + 1L]
}

# ---- a domain: how one argument gets its values ----
#
# dom is a list: tab (a real or int table, or explicit values), st (a
# structure applied in the program to each leaf: spd_, chol_, corr_,
# cholcorr_, sym_, softmax, or NULL), shape (dims of a leaf vector or
# matrix: c(n) or c(r, c)), adims (array dims).  Strings in a spec are
# shorthands read by dom().
dom <- function(x) {
  if (is.list(x)) return(x)
  parts <- strsplit(x, ":", fixed = TRUE)[[1]]
  if (parts[1] == "i") return(list(int = TRUE, tab = int_tables[[parts[2]]] %||% stop("no int table ", x)))
  if (parts[1] %in% c("spd", "chol", "corr", "cholcorr", "sym"))
    return(list(tab = real_tables$free, st = paste0(parts[1], "_")))
  if (parts[1] == "simplex") return(list(tab = real_tables$any, st = "softmax"))
  list(tab = real_tables[[parts[1]]] %||% stop("no real table ", x), nm = parts[1])
}
`%||%` <- function(a, b) if (is.null(a)) b else a

# ---- building an argument ----

# A builder keeps the batch's running offsets and the values of every point.
new_builder <- function() {
  e <- new.env()
  e$nth <- 0L; e$nii <- 0L
  e$th <- list(numeric(), numeric(), numeric())
  e$ii <- list(integer(), integer(), integer())
  e
}

# Each take is logged (b$log): the ranges an argument reads, in order, so
# that tools/stan221/reference.R can rebuild the argument's values in R.
take_th <- function(b, vals) {     # vals: list of three numeric vectors
  n <- length(vals[[1]])
  b$log[[length(b$log) + 1L]] <- c(0L, b$nth + 1L, b$nth + n)
  for (p in 1:3) b$th[[p]] <- c(b$th[[p]], vals[[p]])
  a <- b$nth + 1L
  b$nth <- b$nth + n
  c(a, b$nth)
}
take_ii <- function(b, vals) {
  n <- length(vals[[1]])
  b$log[[length(b$log) + 1L]] <- c(1L, b$nii + 1L, b$nii + n)
  for (p in 1:3) b$ii[[p]] <- c(b$ii[[p]], as.integer(vals[[p]]))
  a <- b$nii + 1L
  b$nii <- b$nii + n
  c(a, b$nii)
}
rng_txt <- function(v, r) if (r[1] == r[2]) sprintf("%s[%d]", v, r[1]) else sprintf("%s[%d:%d]", v, r[1], r[2])

default_shape <- function(base) switch(base, vector = 3L, row_vector = 3L, matrix = c(3L, 3L), integer())
default_adims <- function(nd) if (nd == 0) integer() else if (nd == 1) 3L else c(2L, rep(1L, nd - 1L))

# The expression of one leaf (a scalar, vector, row_vector or matrix) and its
# values, taking `count` values from the domain's table from `shift` on.
leaf_expr <- function(b, base, d, shape, shift) {
  n <- switch(base, int = 1L, real = 1L, vector = shape[1], row_vector = shape[1], matrix = shape[1] * shape[2])
  if (isTRUE(d$int)) {
    vals <- lapply(1:3, function(p) pick_values(d$tab, p, n, shift))
    r <- take_ii(b, vals)
    return(if (base == "int") rng_txt("ii", r) else stop("int table for a ", base))
  }
  vals <- lapply(1:3, function(p) pick_values(d$tab, p, n, shift))
  r <- take_th(b, vals)
  e <- switch(base,
    real = rng_txt("th", r),
    vector = sprintf("th[%d:%d]", r[1], r[2]),
    row_vector = sprintf("th[%d:%d]'", r[1], r[2]),
    matrix = sprintf("to_matrix(th[%d:%d], %d, %d)", r[1], r[2], shape[1], shape[2]),
    stop("no leaf for ", base))
  if (!is.null(d$st)) e <- if (base == "row_vector") sprintf("%s(th[%d:%d])'", d$st, r[1], r[2]) else sprintf("%s(%s)", d$st, e)
  e
}

# An argument of any type: arrays are array expressions of leaves, except
# 1-d arrays of reals and ints, which are slices (to_array_1d of a slice of
# th for reals).
# A real domain given for an int argument (Stan 2.21 takes beta_proportion's
# kappa as an int too) takes the int table of the same name, else "pos".
int_of_real <- c(any = "any", pos = "pos", gt1 = "pos", big = "big", unit = "bin")
arg_expr <- function(b, ty, d, shift) {
  d <- dom(d)
  if (ty$base == "int" && !isTRUE(d$int) && !isTRUE(attr(d$tab, "fixed")))
    d <- list(int = TRUE, tab = int_tables[[if (is.na(int_of_real[d$nm %||% ""])) "pos" else int_of_real[[d$nm]]]])
  shape <- d$shape %||% default_shape(ty$base)
  adims <- d$adims %||% default_adims(ty$nd)
  if (length(adims) != ty$nd) stop("array dims do not match the type")
  if (ty$nd == 1 && ty$base == "real" && identical(d$st, "softmax")) {   # a simplex as an array
    vals <- lapply(1:3, function(p) pick_values(d$tab, p, adims[1], shift))
    r <- take_th(b, vals)
    return(sprintf("to_array_1d(softmax(th[%d:%d]))", r[1], r[2]))
  }
  if (ty$nd == 1 && ty$base %in% c("int", "real") && is.null(d$st)) {
    n <- adims[1]
    vals <- lapply(1:3, function(p) pick_values(d$tab, p, n, shift))
    if (isTRUE(d$int) || ty$base == "int") {
      if (!isTRUE(d$int)) stop("an int array needs an int table")
      r <- take_ii(b, vals)
      return(sprintf("ii[%d:%d]", r[1], r[2]))
    }
    r <- take_th(b, vals)
    return(sprintf("to_array_1d(th[%d:%d])", r[1], r[2]))
  }
  k <- 0L
  build <- function(level) {
    if (level > ty$nd) {
      k <<- k + 1L
      return(leaf_expr(b, ty$base, d, shape, shift + 2L * (k - 1L)))
    }
    parts <- vapply(seq_len(adims[level]), function(i) build(level + 1L), "")
    paste0("{ ", paste(parts, collapse = ", "), " }")
  }
  build(1L)
}

# ---- reductions ----

# red_<code>(x): one real from a value of any type, each element weighted
# by a number that depends on its position.
red_fn <- function(code, old) {
  arr <- function(t) if (old) "" else t
  if (code == "r") return("real red_r(real x) { return x; }")
  if (code == "i") return("real red_i(int x) { return x; }")
  if (code == "v") return("real red_v(vector x) { real s = 0; for (i in 1:rows(x)) s += x[i] * (1 + 0.25 * i); return s; }")
  if (code == "rv") return("real red_rv(row_vector x) { real s = 0; for (i in 1:cols(x)) s += x[i] * (1 + 0.3 * i); return s; }")
  if (code == "m") return("real red_m(matrix x) { real s = 0; for (j in 1:cols(x)) for (i in 1:rows(x)) s += x[i, j] * (1 + 0.25 * i + 0.0625 * j); return s; }")
  nd <- as.integer(sub("^a([0-9]+).*$", "\\1", code))
  inner <- sub("^a[0-9]+", "", code)
  inner_code <- if (nd > 1) paste0("a", nd - 1L, inner) else inner
  base <- switch(inner, i = "int", r = "real", v = "vector", rv = "row_vector", m = "matrix")
  decl <- if (old) sprintf("%s[%s] x", base, paste(rep(" ", nd), collapse = ",")) else
    sprintf("array[%s] %s x", paste(rep("", nd), collapse = ","), base)
  # Stan 2.21's size() stops short of 8 dimensions; dims() has them all
  sprintf("real red_%s(%s) { real s = 0; for (i in 1:%s) s += (1 + 0.5 * i) * red_%s(x[i]); return s; }",
          code, decl, if (old) "dims(x)[1]" else "size(x)", inner_code)
}
red_closure <- function(codes) {  # a reduction and the ones it calls
  out <- character()
  add <- function(code) {
    if (code %in% out) return()
    if (grepl("^a", code)) {
      nd <- as.integer(sub("^a([0-9]+).*$", "\\1", code))
      inner <- sub("^a[0-9]+", "", code)
      add(if (nd > 1) paste0("a", nd - 1L, inner) else inner)
    }
    out <<- c(out, code)
  }
  for (cd in codes) add(cd)
  out
}

# Structures applied to leaves, and signfix_ for eigenvectors.
helper_fns <- function(old) c(
  "matrix spd_(matrix M) { return M * M' + diag_matrix(rep_vector(0.5, rows(M))); }",
  "matrix sym_(matrix M) { return 0.5 * (M + M'); }",
  paste("matrix chol_(matrix M) { matrix[rows(M), cols(M)] L = M;",
        "for (i in 1:rows(M)) { for (j in (i + 1):cols(M)) L[i, j] = 0; if (i <= cols(M)) L[i, i] = exp(M[i, i]); }",
        "return L; }"),
  "matrix corr_(matrix M) { matrix[rows(M), rows(M)] S = spd_(M); return quad_form_diag(S, inv_sqrt(diagonal(S))); }",
  "matrix cholcorr_(matrix M) { matrix[rows(M), cols(M)] L = chol_(M); return diag_pre_multiply(inv_sqrt(rows_dot_self(L)), L); }",
  paste("matrix signfix_(matrix V) { matrix[rows(V), cols(V)] W = V;",
        "for (j in 1:cols(V)) { int b = 1; for (i in 2:rows(V)) if (", if (old) "fabs" else "abs",
        "(V[i, j]) >", if (old) "fabs" else "abs", "(V[b, j])) b = i;",
        "if (V[b, j] < 0) W[1:rows(V), j] = -col(V, j); } return W; }")
)

# ---- names and spellings ----

density_suffix <- "_(lpdf|lpmf|lcdf|lccdf|cdf|log|cdf_log|ccdf_log)$"
all_names <- NULL  # set by load_signatures(): every name Stan 2.21 has

# The family a signature's spec is filed under: a distribution's name for
# its densities and cdfs, the function's name otherwise.
family_of <- function(name) {
  if (name %in% c("multiply_log", "binomial_coefficient_log", "lmultiply")) return(name)
  if (grepl("_rng$", name)) return(sub("_rng$", "", name))
  if (grepl(density_suffix, name)) {
    base <- sub("_(cdf_log|ccdf_log)$", "", name)
    base <- sub("_(lpdf|lpmf|lcdf|lccdf|cdf|log)$", "", base)
    if (paste0(base, "_lpdf") %in% all_names || paste0(base, "_lpmf") %in% all_names ||
        paste0(base, "_log") %in% all_names) return(base)
  }
  name
}

# Current Stan's name for a Stan 2.21 name (deprecated ones replaced).
current_name <- function(name) {
  fixed <- c(binomial_coefficient_log = "lchoose", multiply_log = "lmultiply",
             get_lp = "target", fabs = "abs")
  if (name %in% names(fixed)) return(fixed[[name]])
  if (grepl("_ccdf_log$", name)) return(sub("_ccdf_log$", "_lccdf", name))
  if (grepl("_cdf_log$", name)) return(sub("_cdf_log$", "_lcdf", name))
  if (grepl("_log$", name) && family_of(name) != name) {
    base <- sub("_log$", "", name)
    return(if (paste0(base, "_lpmf") %in% all_names) paste0(base, "_lpmf") else paste0(base, "_lpdf"))
  }
  name
}

operators <- c(add = "(%s + %s)", subtract = "(%s - %s)", multiply = "(%s * %s)",
  divide = "(%s / %s)", modulus = "(%s %% %s)", elt_multiply = "(%s .* %s)",
  elt_divide = "(%s ./ %s)", logical_or = "(%s || %s)", logical_and = "(%s && %s)",
  logical_eq = "(%s == %s)", logical_neq = "(%s != %s)", logical_lt = "(%s < %s)",
  logical_lte = "(%s <= %s)", logical_gt = "(%s > %s)", logical_gte = "(%s >= %s)",
  minus = "(-%s)", logical_negation = "(!%s)", transpose = "(%s)'")

# The call's text in one spelling, from its argument expressions.
call_text <- function(name, types, args, old) {
  if (name %in% names(operators)) {
    fmt <- operators[[name]]
    if (length(args) == 1 && name %in% c("add", "subtract"))   # unary plus and minus
      fmt <- if (name == "add") "(+%s)" else "(-%s)"
    # int / int is integer division: current Stan spells it %/%
    if (!old && name == "divide" && all(vapply(types, function(t) t$base == "int" && t$nd == 0, NA)))
      fmt <- "(%s %%/%% %s)"
    return(do.call(sprintf, c(list(fmt), as.list(args))))
  }
  if (name == "if_else") return(if (old) sprintf("if_else(%s, %s, %s)", args[1], args[2], args[3])
                                else sprintf("(%s ? %s : %s)", args[1], args[2], args[3]))
  nm <- if (old) name else current_name(name)
  bar <- length(args) > 1 && grepl("_(lpdf|lpmf|lcdf|lccdf)$", nm) || (!old && length(args) > 1 && grepl("_cdf$", nm))
  if (bar) sprintf("%s(%s | %s)", nm, args[1], paste(args[-1], collapse = ", "))
  else sprintf("%s(%s)", nm, paste(args, collapse = ", "))
}

# ---- one call ----

# sig: list(name, ret, args (type strings)); doms: one domain per argument.
# Returns the call's two spellings wrapped in its reduction, and the
# reduction's type code; the builder b receives the values.
make_call <- function(b, sig, doms, wrap = NULL) {
  types <- lapply(sig$args, parse_type)
  args <- character(length(types))
  desc <- vector("list", length(types))
  for (i in seq_along(types)) {
    b$log <- list()
    args[i] <- arg_expr(b, types[[i]], doms[[i]], shift = 2L * (i - 1L))
    d <- dom(doms[[i]])
    desc[[i]] <- list(type = sig$args[i], reads = do.call(rbind, b$log), st = d$st,
                      shape = d$shape %||% default_shape(types[[i]]$base),
                      adims = d$adims %||% default_adims(types[[i]]$nd))
  }
  rt <- parse_type(sig$ret)
  code <- type_code(rt)
  old <- call_text(sig$name, types, args, TRUE)
  cur <- call_text(sig$name, types, args, FALSE)
  if (!is.null(wrap)) { old <- sprintf(wrap$fmt, old); cur <- sprintf(wrap$fmt, cur); code <- wrap$code %||% code }
  list(old = sprintf("red_%s(%s)", code, old), cur = sprintf("red_%s(%s)", code, cur), code = code,
       desc = desc, wrap = wrap)
}

# ---- a batch program ----

# calls: list of make_call results (made on builder b, in order).
batch_program <- function(b, calls, old) {
  codes <- red_closure(unique(vapply(calls, `[[`, "", "code")))
  fns <- c(helper_fns(old), vapply(codes, red_fn, "", old = old))
  K <- length(calls)
  body <- vapply(seq_len(K), function(k) sprintf("  r[%d] = %s;", k, calls[[k]][[if (old) "old" else "cur"]]), "")
  paste0(
    "functions {\n", paste0("  ", fns, collapse = "\n"), "\n}\n",
    "data {\n  int NI;\n", if (old) "  int ii[NI];\n" else "  array[NI] int ii;\n", "}\n",
    "parameters {\n  vector[", max(b$nth, 1L), "] th;\n}\n",
    "transformed parameters {\n", if (old) sprintf("  real r[%d];\n", K) else sprintf("  array[%d] real r;\n", K),
    paste(body, collapse = "\n"), "\n}\n",
    "model {\n  target += sum(r);\n}\n")
}

# ---- signatures and their evaluations ----

load_signatures <- function(file) {
  x <- utils::read.delim(gzfile(file), header = FALSE, col.names = c("name", "ret", "args"),
                         colClasses = "character", quote = "", na.strings = character())
  all_names <<- unique(x$name)
  lapply(seq_len(nrow(x)), function(i) list(name = x$name[i], ret = x$ret[i],
    args = if (nzchar(x$args[i])) strsplit(x$args[i], ";", fixed = TRUE)[[1]] else character()))
}
sig_text <- function(sig) sprintf("%s(%s) => %s", sig$name, paste(sig$args, collapse = ","), sig$ret)

# The evaluations of one signature: list(doms, wrap, tag) each.
variants_for <- function(sig) {
  fam <- family_of(sig$name)
  sp <- S[[fam]]
  if (is.null(sp) && !fam %in% names(S)) return(NULL)
  types <- lapply(sig$args, parse_type)
  if (is.function(sp)) sp <- sp(sig, types)
  wrap <- NULL
  if (is.list(sp) && !is.null(names(sp)) && any(names(sp) %in% c("doms", "wrap"))) {
    wrap <- sp$wrap; sp <- sp$doms %||% list()
  }
  doms <- as.list(sp)
  if (length(doms) != length(types)) stop("spec of ", fam, " has ", length(doms), " domains for ", sig_text(sig))
  out <- list(list(doms = doms, wrap = wrap, tag = "std"))
  for (h in hard[[fam]]) if (identical(h$args, sig$args) && !grepl(density_suffix, sig$name))
    out[[length(out) + 1L]] <- list(doms = h$doms, wrap = h$wrap, tag = "hard")
  out
}

# ---- Stan 2.21 in a child R process (run.R, rng.R) ----
#
# rstan compiles bt$old (at -O0: four times quicker to build, the same values,
# seen bit for bit against -O2 on a batch of 580 calls; the programs run
# once), cached as <cache_dir>/<prefix><md5 of the program>.rds, and
# `per_point` -- R code in a string, with `sm` (the model), `bt`, `x` (bt and
# `extra`) and the point `p` in scope -- runs at each of the three points.
# A child process per batch: a crash loses one batch.  A crash, an error or a
# hang (past `timeout` seconds: a function looping at some argument) comes
# back as a "stan_error", which the callers split like any failure.
digest_text <- function(s) {
  f <- tempfile(); writeLines(s, f); on.exit(unlink(f))
  unname(tools::md5sum(f))
}
stan_child <- function(bt, cache_dir, per_point, prefix = "", extra = list(), timeout = 2400) {
  so <- file.path(cache_dir, paste0(prefix, digest_text(bt$old), ".rds"))
  in_file <- tempfile(fileext = ".rds"); res_file <- tempfile(fileext = ".rds")
  makevars <- file.path(tempdir(), "Makevars")
  writeLines(c("CXXFLAGS = -O0 -w", "CXX11FLAGS = -O0 -w", "CXX14FLAGS = -O0 -w", "CXX17FLAGS = -O0 -w"), makevars)
  saveRDS(c(list(bt = bt, so = so), extra), in_file)
  code <- paste0(sprintf('
    Sys.setenv(R_MAKEVARS_USER = "%s")
    suppressMessages(library(rstan))
    rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"))
    x <- readRDS("%s"); bt <- x$bt
    out <- tryCatch({
      sm <- if (file.exists(x$so)) readRDS(x$so) else {
        m <- stan_model(model_code = bt$old, auto_write = FALSE); saveRDS(m, x$so); m }
      lapply(1:3, function(p) {', makevars, in_file), per_point, sprintf('
      })
    }, error = function(e) structure(conditionMessage(e), class = "stan_error"))
    saveRDS(out, "%s")', res_file))
  f <- tempfile(fileext = ".R"); writeLines(code, f)
  system2(file.path(R.home("bin"), "Rscript"), f, stdout = FALSE, stderr = FALSE, timeout = timeout)
  if (!file.exists(res_file)) return(structure("the R process running Stan crashed", class = "stan_error"))
  readRDS(res_file)
}
