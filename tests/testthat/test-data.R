# The data layer: CmdStan JSON files and R lists in one neutral form (dims and
# row-major values), binding one value to its declared shape, and bounds.

# Reads JSON text through a file named data.json in a fresh directory, so
# messages (which name the file) do not depend on the temporary path.
read_json_text <- function(text) {
  dir <- tempfile("json")
  dir.create(dir)
  old <- setwd(dir)
  on.exit({
    setwd(old)
    unlink(dir, recursive = TRUE)
  })
  writeBin(charToRaw(paste(text, collapse = "\n")), "data.json")
  tp_data_read("data.json")
}

bind_json <- function(text, ...) {
  dir <- tempfile("json")
  dir.create(dir)
  old <- setwd(dir)
  on.exit({
    setwd(old)
    unlink(dir, recursive = TRUE)
  })
  writeBin(charToRaw(text), "data.json")
  tp_data_bind("data.json", ...)
}

expect_var <- function(v, dims, values, all_int) {
  expect_identical(v$dims, as.integer(dims))
  expect_identical(v$values, as.numeric(values))
  expect_identical(v$all_int, all_int)
}

# Row-major values of an R object as jsonlite reads JSON (outer index first).
row_major <- function(x) {
  if (is.list(x)) return(unlist(lapply(x, row_major)))
  if (is.null(dim(x))) as.numeric(x) else as.numeric(aperm(x))
}

# tp_data_read's result back to an R data list.
as_r_data <- function(d) {
  lapply(d, function(v) {
    x <- if (length(v$dims) <= 1) v$values else aperm(array(v$values, rev(v$dims)))
    if (v$all_int) storage.mode(x) <- "integer"
    x
  })
}


# ---- JSON ----

test_that("JSON scalars: integers, reals, exponents", {
  d <- read_json_text('{"N": 3, "x": -2.5, "e": 1.5e3, "f": 2E-2, "z": -0, "big": 12345678901234567890}')
  expect_named(d, c("N", "x", "e", "f", "z", "big"))
  expect_var(d$N, integer(), 3, TRUE)
  expect_var(d$x, integer(), -2.5, FALSE)
  expect_var(d$e, integer(), 1500, FALSE)
  expect_var(d$f, integer(), 0.02, FALSE)
  expect_var(d$z, integer(), 0, TRUE)
  expect_identical(1 / d$z$values, -Inf)
  # (compared through printf: R's own parser need not round correctly)
  expect_identical(sprintf("%.0f", d$big$values), "12345678901234567168")
  expect_true(d$big$all_int)
})

test_that("JSON vectors, matrices, 3-D arrays and arrays of matrices are row-major", {
  d <- read_json_text(c(
    '{',
    '  "v": [1, 2, 3],',
    '  "m": [[1, 2, 3], [4, 5, 6]],',
    '  "a": [[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]],',
    '  "av": [[0.5, 1], [1.5, 2]],',
    '  "d4": [[[[1]], [[2]]]]',
    '}'))
  expect_var(d$v, 3, 1:3, TRUE)
  expect_var(d$m, c(2, 3), 1:6, TRUE)
  expect_var(d$a, c(3, 2, 2), 1:12, TRUE)
  expect_var(d$av, c(2, 2), c(0.5, 1, 1.5, 2), FALSE)
  expect_var(d$d4, c(1, 2, 1, 1), 1:2, TRUE)
})

test_that("JSON empty arrays keep the dimensions they spell", {
  d <- read_json_text('{"e": [], "e2": [[], []], "e3": [[]], "e4": [[[], []]]}')
  expect_var(d$e, 0, numeric(), TRUE)
  expect_var(d$e2, c(2, 0), numeric(), TRUE)
  expect_var(d$e3, c(1, 0), numeric(), TRUE)
  expect_var(d$e4, c(1, 2, 0), numeric(), TRUE)
})

test_that("JSON infinities and NaN: CmdStan's strings and bare tokens", {
  d <- read_json_text(paste0(
    '{"a": "Infinity", "b": "-Infinity", "c": "inf", "d": "-inf", "e": "+inf", "f": "NaN", ',
    '"g": "nan", "h": ["INF", "-Inf", 1], "i": Infinity, "j": -Infinity, "k": [NaN, 2]}'))
  expect_identical(unname(vapply(d[c("a", "b", "c", "d", "e")], function(v) v$values, 0)),
                   c(Inf, -Inf, Inf, -Inf, Inf))
  expect_true(is.nan(d$f$values) && is.nan(d$g$values))
  expect_identical(d$h$values, c(Inf, -Inf, 1))
  expect_false(d$h$all_int)
  expect_identical(c(d$i$values, d$j$values), c(Inf, -Inf))
  expect_true(is.nan(d$k$values[1]))
  expect_identical(d$k$dims, 2L)
})

test_that("JSON: empty documents, white space, byte order mark, escapes in names", {
  expect_identical(read_json_text(""), setNames(list(), character()))
  expect_identical(read_json_text("{}"), setNames(list(), character()))
  expect_identical(read_json_text(" \n\t{ }\r\n"), setNames(list(), character()))
  d <- read_json_text(c("\ufeff{", '  "a\\u0062c" :', "  [ 1 ,", "    2 ]", "}", ""))
  expect_named(d, "abc")
  expect_identical(d$abc$values, c(1, 2))
  d <- read_json_text('{"caf\\u00e9": 1, "x\\"y": 2}')
  expect_identical(names(d), c("caf\u00e9", "x\"y"))
})

test_that("JSON numbers convert exactly (17 significant digits round-trip)", {
  set.seed(42)
  x <- c(rnorm(300) * 10^sample(-30:30, 300, TRUE), runif(100), .Machine$double.xmax,
         .Machine$double.xmin, 5e-324, 2^53 + 2, 0.1, 1 / 3)
  txt <- sprintf("%.17g", x)
  d <- read_json_text(paste0('{"x": [', paste(txt, collapse = ", "), "]}"))
  expect_identical(d$x$values, x)
  # Fewer digits: the value nearest to the decimal, as C's strtod gives it.
  d <- read_json_text('{"a": 0.1, "b": 1e23, "c": 9007199254740993, "d": 2.2250738585072011e-308}')
  expect_identical(sprintf("%.17g", d$a$values), "0.10000000000000001")
  expect_identical(sprintf("%.17g", d$b$values), "9.9999999999999992e+22")
  expect_identical(d$c$values, 2^53)
  expect_identical(d$d$values, .Machine$double.xmin - 2^-1074)
})

test_that("JSON numbers out of a double's range become infinities or zero", {
  d <- read_json_text('{"a": 1e400, "b": -1e400, "c": 1e-400, "d": 1e999999999999}')
  expect_identical(c(d$a$values, d$b$values, d$c$values, d$d$values), c(Inf, -Inf, 0, Inf))
})

test_that("JSON: a value nested as deep as allowed is read, one deeper is not", {
  deep <- function(k) paste0('{"a": ', strrep("[", k), "1", strrep("]", k), "}")
  expect_identical(read_json_text(deep(10))$a$dims, rep(1L, 10))
  expect_error(read_json_text(deep(11)), "nested more than 10 deep", class = "tapestry_invalid_argument")
  expect_error(read_json_text(deep(10000)), "nested more than 10 deep")
})

test_that("JSON errors name the problem with its line and column", {
  expect_snapshot(error = TRUE, {
    read_json_text('{"a": [[1, 2], [3]]}')
    read_json_text('{"a": [[1, 2], [3, 4, 5]]}')
    read_json_text('{"a": [1, [2]]}')
    read_json_text('{"a": [[1], 2]}')
    read_json_text('{"a": [[], [1]]}')
    read_json_text('{"a": [[[[[[[[[[[1]]]]]]]]]]]}')
    read_json_text('{"a": 1, "b": 2, "a": 3}')
    read_json_text('{"a": 1} x')
    read_json_text('{"a": 1}{}')
    read_json_text('{"a": 01}')
    read_json_text('{"a": 1.}')
    read_json_text('{"a": .5}')
    read_json_text('{"a": 1e+}')
    read_json_text('{"a": 1.2.3}')
    read_json_text('{"a": -}')
    read_json_text('{"a": +1}')
    read_json_text('{"a": "abc"}')
    read_json_text('{"a": true}')
    read_json_text('{"a": [null]}')
    read_json_text('{"a": {"b": 1}}')
    read_json_text('{"a": [1, 2')
    read_json_text('{"a": 1')
    read_json_text('{"a": ')
    read_json_text('{"a')
    read_json_text('{"a" 1}')
    read_json_text('{"a": 1,}')
    read_json_text('{"a": [1,]}')
    read_json_text('{"a": [1 2]}')
    read_json_text('[1, 2]')
    read_json_text('{a: 1}')
    read_json_text('{"a\\q": 1}')
    read_json_text('{"\\ud800": 1}')
    read_json_text(c('{', '  "N": 3,', '  "y": [1, 2,', '        x]', '}'))
  })
})

test_that("JSON columns count characters, not bytes", {
  expect_error(read_json_text('{"\u00e9\u00e9": [1, foo]}'), "^data\\.json:1:12: ")
  expect_error(read_json_text('{"a": 1,\n "\u00e9": [1,\n\t "x"]}'), "^data\\.json:3:3: ")
})

test_that("a missing or unreadable file is an error naming it", {
  expect_error(tp_data_read(file.path(tempdir(), "no_such_file.json")),
               "cannot open data file .*no_such_file.json", class = "tapestry_invalid_argument")
  expect_error(tp_data_read(c("a.json", "b.json")), "named list or the path")
})

# ---- R lists ----

test_that("R scalars, vectors and logicals", {
  d <- tp_data_read(list(N = 3L, x = 2.5, v = c(1, 2, 3), b = c(TRUE, FALSE), i = 1:4,
                         e = numeric(0), ei = integer(0), nan = c(NaN, Inf, -Inf)))
  expect_named(d, c("N", "x", "v", "b", "i", "e", "ei", "nan"))
  expect_var(d$N, 1, 3, TRUE)
  expect_var(d$x, 1, 2.5, FALSE)
  expect_var(d$v, 3, 1:3, FALSE)
  expect_var(d$b, 2, c(1, 0), TRUE)
  expect_var(d$i, 4, 1:4, TRUE)
  expect_var(d$e, 0, numeric(), FALSE)
  expect_var(d$ei, 0, numeric(), TRUE)
  expect_identical(d$nan$values, c(NaN, Inf, -Inf))
})

test_that("R matrices and arrays become row-major", {
  m <- matrix(1:6, 2)
  a <- array(as.numeric(1:24), c(2, 3, 4))
  a4 <- array(1:120, 2:5)
  d <- tp_data_read(list(m = m, a = a, a1 = array(1:3), a4 = a4, m0 = matrix(0, 0, 3),
                         lm = matrix(c(TRUE, FALSE, TRUE, TRUE), 2)))
  expect_var(d$m, c(2, 3), t(m), TRUE)
  expect_var(d$a, c(2, 3, 4), aperm(a), FALSE)
  expect_var(d$a1, 3, 1:3, TRUE)
  expect_var(d$a4, 2:5, aperm(a4), TRUE)
  expect_var(d$m0, c(0, 3), numeric(), FALSE)
  expect_var(d$lm, c(2, 2), c(1, 1, 0, 1), TRUE)
})

test_that("R lists of vectors, matrices and lists are arrays", {
  m1 <- matrix(1:4, 2)
  m2 <- matrix(5:8, 2)
  d <- tp_data_read(list(
    lv = list(c(1, 2, 3), c(4, 5, 6)),
    lm = list(m1, m2),
    ll = list(list(c(1, 2), c(3, 4)), list(c(5, 6), c(7, 8))),
    ls = list(1, 2, 3),
    li = list(1L, 2L),
    la = list(array(1), array(2)),
    l0 = list(),
    ll0 = list(list(), list()),
    lmix = list(1L, 2.5)
  ))
  expect_var(d$lv, c(2, 3), 1:6, FALSE)
  expect_var(d$lm, c(2, 2, 2), c(t(m1), t(m2)), TRUE)
  expect_var(d$ll, c(2, 2, 2), 1:8, FALSE)
  expect_var(d$ls, 3, 1:3, FALSE)
  expect_var(d$li, 2, 1:2, TRUE)
  expect_var(d$la, c(2, 1), 1:2, FALSE)
  expect_var(d$l0, 0, numeric(), TRUE)
  expect_var(d$ll0, c(2, 0), numeric(), TRUE)
  expect_var(d$lmix, 2, c(1, 2.5), FALSE)
})

test_that("R data frames are matrices; long vectors and ALTREP sequences are read whole", {
  df <- data.frame(a = 1:3, b = c(0.5, 1.5, 2.5), c = c(TRUE, FALSE, TRUE))
  d <- tp_data_read(list(df = df, s = 1:5000, big = seq(0, 1, length.out = 3001)))
  expect_var(d$df, c(3, 3), t(as.matrix(df)), FALSE)
  expect_var(d$s, 5000, 1:5000, TRUE)
  expect_identical(d$big$values, seq(0, 1, length.out = 3001))
  a <- array(as.numeric(1:(7 * 300 * 3)), c(7, 300, 3))
  expect_identical(tp_data_read(list(a = a))$a$values, as.numeric(aperm(a)))
})

test_that("R errors name the variable and what was given", {
  expect_snapshot(error = TRUE, {
    tp_data_read(list(y = c(1, NA)))
    tp_data_read(list(y = c(1L, NA_integer_)))
    tp_data_read(list(y = NA))
    tp_data_read(list(y = matrix(c(1, 2, NA, 4), 2)))
    tp_data_read(list(y = list(c(1, 2), c(3, NA))))
    tp_data_read(list(y = "a"))
    tp_data_read(list(y = factor(c("a", "b"))))
    tp_data_read(list(y = NULL))
    tp_data_read(list(y = mean))
    tp_data_read(list(y = 1i))
    tp_data_read(list(y = list(1, "a")))
    tp_data_read(list(y = list(c(1, 2), c(3, 4, 5))))
    tp_data_read(list(y = list(c(1, 2), 3)))
    tp_data_read(list(y = list(matrix(1:4, 2), matrix(1:6, 2))))
    tp_data_read(list(y = list(list(1, 2), list(1))))
    tp_data_read(list(y = data.frame(a = 1:2, b = c("x", "y"))))
    tp_data_read(list(1, 2))
    tp_data_read(list(a = 1, 2))
    tp_data_read(list(a = 1, a = 2))
    tp_data_read(1:3)
  })
})

test_that("R: nesting deeper than ten dimensions is refused", {
  x <- 1
  for (i in 1:10) x <- list(x, x)
  expect_identical(tp_data_read(list(y = x))$y$dims, rep(2L, 10))
  x <- list(x)
  expect_error(tp_data_read(list(y = x)), "more than 10 dimensions", class = "tapestry_invalid_argument")
  expect_error(tp_data_read(list(y = list(array(1, rep(1, 10))))), "more than 10 dimensions")
  expect_identical(tp_data_read(list(y = array(1, rep(1, 10))))$y$dims, rep(1L, 10))
})

# ---- binding ----

test_that("binding scalars: JSON scalars and R length-1 vectors", {
  expect_identical(tp_data_bind(list(N = 3L), "N", "int", "int"), 3L)
  expect_identical(tp_data_bind(list(N = 3), "N", "int", "int"), 3L)
  expect_identical(tp_data_bind(list(x = 2L), "x", "real", "real"), 2)
  expect_identical(bind_json('{"x": 2.5}', "x", "real", "real"), 2.5)
  expect_identical(bind_json('{"x": [[2.5]]}', "x", "real", "real"), 2.5)
  expect_identical(tp_data_bind(list(x = matrix(7, 1, 1)), "x", "real", "real"), 7)
  expect_identical(bind_json('{"N": -2147483647}', "N", "int", "int"), -2147483647L)
  expect_identical(bind_json('{"N": 2147483647}', "N", "int", "int"), 2147483647L)
  expect_identical(bind_json('{"N": 4.0}', "N", "int", "int"), 4L)
})

test_that("binding containers of one element from a scalar", {
  expect_identical(bind_json('{"v": 5}', "v", "vector[1]", "vector", rows = 1), 5)
  expect_identical(bind_json('{"v": 5}', "v", "array[1] int", "int", dims = 1), 5L)
  expect_identical(bind_json('{"v": 5}', "v", "matrix[1, 1]", "matrix", rows = 1, cols = 1),
                   matrix(5, 1, 1))
  expect_identical(tp_data_bind(list(v = 5), "v", "vector[1]", "vector", rows = 1), 5)
  expect_identical(tp_data_bind(list(v = 5L), "v", "array[1] int", "int", dims = 1), 5L)
  expect_identical(tp_data_bind(list(v = 5), "v", "matrix[1, 1]", "matrix", rows = 1, cols = 1),
                   matrix(5, 1, 1))
  expect_identical(tp_data_bind(list(v = 5), "v", "array[1] vector[1]", "vector", dims = 1, rows = 1),
                   list(5))
  expect_identical(bind_json('{"v": [[5]]}', "v", "array[1] row_vector[1]", "row_vector", dims = 1,
                             cols = 1), list(5))
  expect_identical(bind_json('{"v": [[[5]]]}', "v", "array[1, 1] int", "int", dims = c(1, 1)), list(5L))
  expect_error(bind_json('{"v": [5, 6]}', "v", "real", "real"), "given dimensions \\[2\\]")
})

test_that("binding vectors, row vectors, matrices and arrays", {
  expect_identical(tp_data_bind(list(v = 1:3), "v", "vector[3]", "vector", rows = 3), c(1, 2, 3))
  expect_identical(tp_data_bind(list(v = c(1, 2)), "v", "row_vector[2]", "row_vector", cols = 2),
                   c(1, 2))
  m <- matrix(c(1.5, 2, 3, 4, 5, 6), 2)
  expect_identical(tp_data_bind(list(m = m), "m", "matrix[2, 3]", "matrix", rows = 2, cols = 3), m)
  expect_identical(bind_json('{"m": [[1, 2, 3], [4, 5, 6]]}', "m", "matrix[2, 3]", "matrix",
                             rows = 2, cols = 3),
                   matrix(c(1, 4, 2, 5, 3, 6), 2))
  expect_identical(tp_data_bind(list(y = c(3, 1, 2)), "y", "array[3] int", "int", dims = 3), c(3L, 1L, 2L))
  expect_identical(tp_data_bind(list(y = matrix(1:6, 2)), "y", "array[2, 3] int", "int", dims = c(2, 3)),
                   list(c(1L, 3L, 5L), c(2L, 4L, 6L)))
  av <- tp_data_bind(list(a = list(c(1, 2), c(3, 4), c(5, 6))), "a", "array[3] vector[2]", "vector",
                     dims = 3, rows = 2)
  expect_identical(av, list(c(1, 2), c(3, 4), c(5, 6)))
  am <- tp_data_bind(list(a = list(m, 2 * m)), "a", "array[2] matrix[2, 3]", "matrix", dims = 2,
                     rows = 2, cols = 3)
  expect_identical(am, list(m, 2 * m))
  a3 <- array(as.numeric(1:24), c(2, 3, 4))
  r <- tp_data_bind(list(a = a3), "a", "array[2, 3, 4] real", "real", dims = c(2, 3, 4))
  expect_identical(r[[2]][[3]], a3[2, 3, ])
  expect_identical(r[[1]][[2]][4], a3[1, 2, 4])
  # an array of matrices from an R array: a[i, , ] is matrix i
  a <- array(as.numeric(1:12), c(2, 2, 3))
  r <- tp_data_bind(list(a = a), "a", "array[2] matrix[2, 3]", "matrix", dims = 2, rows = 2, cols = 3)
  expect_identical(r, list(a[1, , ], a[2, , ]))
})

test_that("binding empty values", {
  expect_identical(bind_json('{"v": []}', "v", "vector[0]", "vector", rows = 0), numeric())
  expect_identical(bind_json('{"v": []}', "v", "array[0] vector[3]", "vector", dims = 0, rows = 3),
                   list())
  expect_identical(bind_json('{"v": []}', "v", "array[0] int", "int", dims = 0), integer())
  expect_identical(bind_json('{"v": [[], []]}', "v", "array[2, 0] real", "real", dims = c(2, 0)),
                   list(numeric(), numeric()))
  expect_identical(tp_data_bind(list(v = numeric(0)), "v", "array[0] real", "real", dims = 0), numeric())
  expect_identical(tp_data_bind(list(m = matrix(0, 0, 3)), "m", "matrix[0, 3]", "matrix", rows = 0,
                                cols = 3), matrix(0, 0, 3))
})

test_that("binding keeps infinities and NaN for reals", {
  r <- bind_json('{"v": ["-inf", "NaN", 1]}', "v", "vector[3]", "vector", rows = 3)
  expect_identical(r, c(-Inf, NaN, 1))
})

test_that("binding errors: shapes, integers, the range of int", {
  expect_snapshot(error = TRUE, {
    tp_data_bind(list(y = matrix(1, 3, 4)), "y", "array[3] vector[2]", "vector", dims = 3, rows = 2)
    tp_data_bind(list(y = c(1, 2)), "y", "real", "real")
    tp_data_bind(list(y = c(1, 2)), "y", "vector[3]", "vector", rows = 3)
    tp_data_bind(list(y = 1:6), "y", "matrix[2, 3]", "matrix", rows = 2, cols = 3)
    tp_data_bind(list(y = matrix(1:6, 3)), "y", "matrix[2, 3]", "matrix", rows = 2, cols = 3)
    bind_json('{"y": 1}', "y", "vector[3]", "vector", rows = 3)
    bind_json('{"y": []}', "y", "array[2] vector[3]", "vector", dims = 2, rows = 3)
    bind_json('{"y": [[1, 2]]}', "y", "array[2] real", "real", dims = 2)
    tp_data_bind(list(y = c(1, 2.5, 3)), "y", "array[3] int", "int", dims = 3)
    tp_data_bind(list(N = 2.5), "N", "int", "int")
    tp_data_bind(list(y = matrix(c(1, 2, 3, 0.5), 2)), "y", "array[2, 2] int", "int", dims = c(2, 2))
    tp_data_bind(list(y = c(1, 3e9)), "y", "array[2] int", "int", dims = 2)
    tp_data_bind(list(y = -2147483649), "y", "int", "int")
    tp_data_bind(list(y = Inf), "y", "int", "int")
    tp_data_bind(list(y = NaN), "y", "int", "int")
    tp_data_bind(list(y = 1 + 2^-40), "y", "int", "int")
    tp_data_bind(list(x = 1), "y", "int", "int")
  })
})

test_that("bounds: every element checked, with Stan's indices", {
  expect_identical(tp_data_bind(list(y = c(0, 5)), "y", "vector[2]", "vector", rows = 2,
                                lower = 0, upper = 5), c(0, 5))
  expect_identical(tp_data_bind(list(y = c(1L, 2L)), "y", "array[2] int", "int", dims = 2,
                                lower = c(1L, 2L), upper = 2L), c(1L, 2L))
  expect_identical(tp_data_bind(list(y = c(Inf, 1)), "y", "vector[2]", "vector", rows = 2, lower = 0),
                   c(Inf, 1))
  expect_snapshot(error = TRUE, {
    tp_data_bind(list(N = -1L), "N", "int<lower=0>", "int", lower = 0L)
    tp_data_bind(list(s = 6.5), "s", "real<upper=5>", "real", upper = 5)
    tp_data_bind(list(y = c(1, 2, -1)), "y", "vector<lower=0>[3]", "vector", rows = 3, lower = 0)
    tp_data_bind(list(y = c(1, 2, -1)), "y", "array[3] int<lower=0>", "int", dims = 3, lower = 0)
    tp_data_bind(list(y = c(1, 2, 9)), "y", "row_vector<lower=0, upper=5>[3]", "row_vector", cols = 3,
                 lower = 0, upper = 5)
    tp_data_bind(list(y = c(-1, 9)), "y", "vector<lower=0, upper=5>[2]", "vector", rows = 2,
                 lower = 0, upper = 5)
    tp_data_bind(list(m = matrix(c(1, 2, 3, -4), 2)), "m", "matrix<lower=0>[2, 2]", "matrix",
                 rows = 2, cols = 2, lower = 0)
    tp_data_bind(list(a = list(c(1, 2), c(3, 40))), "a", "array[2] vector<upper=10>[2]", "vector",
                 dims = 2, rows = 2, upper = 10)
    tp_data_bind(list(a = list(matrix(1, 2, 2), matrix(c(1, 1, -1, 1), 2))), "a",
                 "array[2] matrix<lower=0>[2, 2]", "matrix", dims = 2, rows = 2, cols = 2, lower = 0)
    tp_data_bind(list(y = matrix(c(1, 2, 3, 0), 2)), "y", "array[2, 2] int<lower=1>", "int",
                 dims = c(2, 2), lower = 1L)
    tp_data_bind(list(y = c(1, NaN)), "y", "vector<lower=0>[2]", "vector", rows = 2, lower = 0)
    tp_data_bind(list(y = c(0.5, 0.25)), "y", "vector<lower=L>[2]", "vector", rows = 2,
                 lower = c(0, 0.3))
    tp_data_bind(list(y = 0.1 + 0.2), "y", "real<upper=0.3>", "real", upper = 0.3)
  })
})

test_that("binding reads JSON files and R lists alike", {
  f <- ext("eight_schools.data.json")
  expect_identical(tp_data_bind(f, "J", "int", "int"), 8L)
  expect_identical(tp_data_bind(f, "sigma", "array[8] real", "real", dims = 8, lower = 0),
                   c(15, 10, 16, 11, 9, 11, 10, 18))
  expect_identical(tp_data_bind(f, "y", "array[8] int", "int", dims = 8),
                   tp_data_bind(list(y = c(28, 8, -3, 7, -1, 1, 18, 12)), "y", "array[8] int", "int",
                                dims = 8))
})

# ---- the shared models' data files ----

test_that("every model data file reads as jsonlite reads it", {
  skip_if_not_installed("jsonlite")
  files <- ext_files("\\.data\\.json$")
  expect_true(length(files) >= 9)
  for (f in files) {
    d <- tp_data_read(f)
    j <- jsonlite::fromJSON(f)
    expect_identical(names(d), names(j), label = basename(f))
    for (nm in names(j)) {
      x <- j[[nm]]
      lab <- paste(basename(f), nm)
      expect_equal(d[[nm]]$values, row_major(x), tolerance = 0, label = lab)
      if (!is.null(dim(x))) expect_identical(d[[nm]]$dims, dim(x), label = lab)
      if (is.null(dim(x)) && length(d[[nm]]$dims) == 1) expect_identical(d[[nm]]$dims, length(x), label = lab)
      expect_identical(d[[nm]]$all_int, is.integer(x), label = lab)
    }
  }
})

test_that("model data bind to their declared shapes", {
  f <- ext("logistic.data.json")
  d <- tp_data_read(f)
  X <- tp_data_bind(f, "X", "matrix[N, K]", "matrix", rows = 5000, cols = 20)
  expect_identical(dim(X), c(5000L, 20L))
  expect_identical(as.numeric(t(X)), d$X$values)
  y <- tp_data_bind(f, "y", "array[N] int<lower=0, upper=1>", "int", dims = 5000, lower = 0L, upper = 1L)
  expect_identical(y, as.integer(d$y$values))
  # logistic_reduce's data: logistic's plus a grainsize
  lr <- c(as_r_data(d), list(grainsize = 100L))
  expect_identical(tp_data_bind(lr, "grainsize", "int<lower=1>", "int", lower = 1L), 100L)
  expect_identical(tp_data_bind(lr, "X", "matrix[N, K]", "matrix", rows = 5000, cols = 20), X)
  g <- ext("map_rect_hier.data.json")
  dg <- tp_data_read(g)
  yy <- tp_data_bind(g, "y", "array[J, n_per] real", "real", dims = dg$y$dims)
  expect_length(yy, 40)
  expect_identical(yy[[3]], dg$y$values[101:150])
  # an R list built from the file binds to the same value
  expect_identical(tp_data_bind(as_r_data(dg), "y", "array[J, n_per] real", "real", dims = dg$y$dims), yy)
})
