# Stan's tuples (src/front/lt_tuple.c lowers them to one variable per
# element before the checker): types, literals, indexing, assignment,
# promotion, functions, data (R lists and JSON), output names, the
# tuple-valued library functions, and both evaluation paths.

check_err <- function(code) {
  tryCatch({ tp_check(code); "" }, error = function(e) conditionMessage(e))
}

test_that("tuple types, literals and indexing parse", {
  d <- tp_parse("transformed data { tuple(real, array[2] tuple(int, vector[3])) x; real y = (1); real z = x.2[1].1; }")$dump
  expect_match(d, "(decl tuple x (elements (decl real ?) (decl \"array[] tuple\" ? (dims (int 2)) (elements (decl int ?) (decl vector ? (size (int 3)))))))", fixed = TRUE)
  # (a) stays a parenthesized expression, (a, b) is a tuple
  expect_match(d, "(decl real y (init (int 1)))", fixed = TRUE)
  expect_match(d, "(proj (index (proj (var x) 2) (single (int 1))) 1)", fixed = TRUE)
  d2 <- tp_parse("transformed data { tuple(real, int) t = (1.5, 2); }")$dump
  expect_match(d2, "(init (tuple (real 1.5) (int 2)))", fixed = TRUE)
  d3 <- tp_parse("functions { tuple(real, array[] vector) f(data tuple(int, tuple(real, matrix)) t) { return (1, {[1]'}); } }")$dump
  expect_match(d3, "(function tuple (elements (arg real ?) (arg \"array[] vector\" ?)) f ((arg data tuple t (elements (arg int ?) (arg tuple ? (elements (arg real ?) (arg matrix ?))))))",
               fixed = TRUE)
  # a tuple type needs two elements; 'tuple' is no longer refused
  expect_error(tp_parse("data { tuple(real) x; }"), "at least two elements", class = "tapestry_syntax_error")
  expect_error(tp_parse("functions { real f(tuple(real) x) { return 1; } }"), "at least two elements",
               class = "tapestry_syntax_error")
})

test_that("the checker types tuple elements, promotes, and locates errors", {
  ok <- "
    functions { real g(tuple(real, real) t) { return t.1 + t.2; } }
    transformed data {
      tuple(int, real) a = (1, 2.5);
      tuple(real, real) b = a;              // int -> real element-wise
      array[2] tuple(int, array[2] real) c;
      c[1] = (1, {2.0, 3.0});
      c[2].1 = 4;
      c[2].2[1] = 1.5;
      c[2].2[2] = g((1, 2));                // a literal of ints to tuple(real, real)
      tuple(real, tuple(int, vector[2])) n = (1, (2, [1, 2]'));
      real s = n.2.2[2] + c[2].2[1] + b.1;
      array[2] tuple(int, real) arr = {(1, 2.0), (3, 4.0)};
      tuple(int, real) pick = 1 > 0 ? (1, 2.0) : (3, 4.0);
    }"
  expect_equal(check_err(ok), "")
  e <- check_err("transformed data {\n  tuple(real, vector[3]) x = (1, 2);\n}")
  expect_match(e, "string:2:34: error: 'x:2' is declared vector but its initial value has type int", fixed = TRUE)
  e <- check_err("transformed data {\n  tuple(real, real) x = (1, 2);\n  real y = x.3;\n}")
  expect_match(e, "string:3:12: error: tuple index 3 is out of range: the tuple has 2 elements", fixed = TRUE)
  e <- check_err("transformed data { tuple(int, int) z = (1, 2.5); }")
  expect_match(e, "string:1:44: error: 'z:2' is declared int but its initial value has type real", fixed = TRUE)
  e <- check_err("transformed data { tuple(real, real) x = (1, 2, 3); }")
  expect_match(e, "1:42: error: cannot assign this value to 'x' of type tuple(real, real): a tuple of 2 elements and a tuple of 3",
               fixed = TRUE)
  expect_match(check_err("transformed data { real x = 1; real y = x.1; }"), "1:41: error: '.1' indexes a tuple, but this expression is not a tuple",
               fixed = TRUE)
  expect_match(check_err("transformed data { tuple(real, real) x = (1, 2); real y = x + 1; }"), "a tuple cannot be used here",
               fixed = TRUE)
  expect_match(check_err("transformed data { array[2] tuple(real, real) x; real y = x.1; }"), "index the array first",
               fixed = TRUE)
  expect_match(check_err("transformed data { tuple(real, tuple(real, real)) x = (1, (2, 3)); x.2 = (x.2.2, x.2.1); }"),
               "a value computed from 'x' itself", fixed = TRUE)
  expect_match(check_err("transformed data { tuple(real, real) x = (1, 2); real y = x[1]; }"),
               "1:59: error: a tuple cannot be indexed with [...]", fixed = TRUE)
  expect_match(check_err("functions { tuple(real, real) f_rng() { return (1, 2); } }"), "_rng, _lp or _jacobian",
               fixed = TRUE)
  deep <- "real"
  for (i in 1:10) deep <- sprintf("tuple(real, %s)", deep)
  expect_match(check_err(sprintf("functions { %s f() { reject(1); } }", deep)), "tuples nest too deeply", fixed = TRUE)
  expect_match(check_err(sprintf("transformed data { %s x; }", deep)), "tuples nest too deeply", fixed = TRUE)
  expect_error(tp_check("transformed data { tuple(real, real) x = (1, 2); x.1 = [1]; }"),
               class = "tapestry_semantic_error")
})

test_that("values and gradients flow through tuple locals and user functions", {
  code <- "
    functions {
      tuple(real, vector) scale2(tuple(real, vector) t, real s) {
        return (t.1 * s, t.2 * s);
      }
      real h(tuple(int, real) t) { return t.1 + t.2; }
    }
    data { int N; }
    parameters { real mu; vector[2] v; }
    transformed parameters {
      tuple(real, vector[2]) tp = scale2((mu, v), 2.0);
    }
    model {
      tuple(real, real) loc = (mu, 2);
      target += normal_lpdf(v | tp.1, 1) + h((1, mu));
      target += normal_lpdf(mu | loc.1 * 0.5, loc.2);
      target += -0.5 * dot_self(tp.2);
    }
  "
  ctx <- tapestry_model(code = code)$bind(list(N = 2L))
  u <- c(0.3, 0.1, -0.2)
  mu <- u[1]; v <- u[2:3]
  want <- sum(dnorm(v, 2 * mu, 1, log = TRUE)) + 1 + mu + dnorm(mu, mu / 2, 2, log = TRUE) - 0.5 * sum((2 * v)^2)
  expect_equal(ctx$log_prob(u), want, tolerance = 1e-12)
  for (x in list(u, c(-1, 0.5, 2))) {
    g <- ctx$grad_log_prob(x)
    expect_equal(as.numeric(g), fd_grad(ctx, x), tolerance = 1e-6)
  }
})

test_that("tuple parameters take their elements' constraints; output names", {
  code <- "
    parameters {
      tuple(real<lower=0>, simplex[3]) p;
      array[2] tuple(real, vector[2]) q;
    }
    transformed parameters { tuple(real, vector[3]) tp = (2 * p.1, p.2); }
    model {
      p.1 ~ exponential(1);
      tp.2 ~ normal(0.5, 1);
      for (i in 1:2) { q[i].1 ~ normal(0, 1); q[i].2 ~ normal(q[i].1, 1); }
    }
    generated quantities {
      tuple(real, array[2] tuple(int, vector[2])) g;
      g.1 = p.1;
      g.2[1] = (1, q[1].2);
      g.2[2] = (2, q[2].2);
    }
  "
  ctx <- tapestry_model(code = code)$bind(list())
  expect_equal(ctx$num_upars(), 1 + 2 + 2 * 3)
  expect_equal(ctx$upar_names(), c("p:1", "p:2[1]", "p:2[2]", "q[1]:1", "q[2]:1", "q[1]:2[1]", "q[1]:2[2]",
                                   "q[2]:2[1]", "q[2]:2[2]"))
  # CmdStan's order: an array of tuples entry by entry, each entry's elements together
  expect_equal(ctx$variable_names(),
               c("p:1", "p:2[1]", "p:2[2]", "p:2[3]", "q[1]:1", "q[1]:2[1]", "q[1]:2[2]", "q[2]:1", "q[2]:2[1]",
                 "q[2]:2[2]", "tp:1", "tp:2[1]", "tp:2[2]", "tp:2[3]", "g:1", "g:2[1]:1", "g:2[1]:2[1]",
                 "g:2[1]:2[2]", "g:2[2]:1", "g:2[2]:2[1]", "g:2[2]:2[2]"))
  u <- c(0.2, 0.3, -0.4, 1, -1, 0.5, 0.6, -0.7, 0.8)
  w <- ctx$constrain_variables(u, generated_quantities = TRUE)
  expect_equal(w[["p:1"]], exp(0.2))
  expect_equal(sum(w[["p:2"]]), 1)
  expect_equal(w[["tp:1"]], 2 * exp(0.2))
  expect_equal(w[["g:2:1"]], 1:2)
  expect_equal(w[["g:2:2"]], w[["q:2"]])
  # parameters given back as tuples (R lists) unconstrain to the same point
  back <- ctx$unconstrain_variables(list(p = list(w[["p:1"]], w[["p:2"]]),
                                         q = list(list(1, c(0.5, 0.6)), list(-1, c(-0.7, 0.8)))))
  expect_equal(back, u, tolerance = 1e-12)
  expect_equal(as.numeric(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
  fit <- tapestry_model(code = code)$sample(chains = 1, iter_warmup = 30, iter_sampling = 20, seed = 3,
                                            refresh = 0, show_messages = FALSE)
  dr <- fit$draws()
  expect_equal(posterior::variables(dr), c("lp__", ctx$variable_names()))
  # each column holds its element: the draws agree with constrain_variables at
  # the unconstrained point of the draw
  ud <- fit$unconstrain_draws()
  x <- unclass(posterior::as_draws_array(dr))
  for (i in c(1, 20)) {
    w <- ctx$constrain_variables(as.numeric(unclass(ud)[i, 1, ]), generated_quantities = FALSE)
    expect_equal(x[i, 1, "q[2]:2[1]"], w[["q:2"]][2, 1], tolerance = 1e-12)
    expect_equal(x[i, 1, "q[1]:2[2]"], w[["q:2"]][1, 2], tolerance = 1e-12)
    expect_equal(x[i, 1, "q[2]:1"], w[["q:1"]][2], tolerance = 1e-12)
    expect_equal(x[i, 1, "tp:2[3]"], w[["tp:2"]][3], tolerance = 1e-12)
    expect_equal(x[i, 1, "g:2[2]:2[1]"], w[["q:2"]][2, 1], tolerance = 1e-12)
  }
})

test_that("inits of tuple parameters as R lists and JSON", {
  m <- tapestry_model(code = "parameters { tuple(real<lower=0>, vector[2]) p; }
                               model { p.1 ~ exponential(1); p.2 ~ normal(0, 1); }")
  first <- function(init) {
    fit <- m$sample(chains = 1, iter_warmup = 0, iter_sampling = 1, init = init, seed = 1, refresh = 0,
                    show_messages = FALSE, adapt_engaged = FALSE)
    as.numeric(unclass(fit$draws(format = "draws_matrix"))[1, ])
  }
  f <- tempfile(fileext = ".json")
  writeLines('{"p": {"1": 0.5, "2": [0.1, 0.2]}}', f)
  ref <- first(list(list(`p:1` = 0.5, `p:2` = c(0.1, 0.2))))
  expect_identical(first(f), ref)
  expect_identical(first(list(list(p = list(0.5, c(0.1, 0.2))))), ref)
  expect_false(identical(first(list(list(p = list(0.3, c(0.1, 0.2))))), ref))
  expect_error(first(list(list(p = list(0.5)))), "parameter 'p': declared a tuple of 2 elements", fixed = TRUE,
               class = "tapestry_data_error")
})

test_that("tuple data from R lists and JSON, with size and type errors", {
  code <- "
    data {
      tuple(int, vector[2]) x;
      int N;
      array[N] tuple(real, array[2] int) a;
      tuple(real, tuple(int, real)) n;
    }
    parameters { real mu; }
    model { mu ~ normal(0, 1); }
    generated quantities { real s = x.1 + sum(x.2) + a[2].1 + a[1].2[2] + n.2.2 + n.2.1; }
  "
  m <- tapestry_model(code = code)
  d <- list(x = list(3L, c(1.5, 2)), N = 2L,
            a = list(list(0.5, c(1L, 2L)), list(`1` = 1.5, `2` = c(3L, 4L))),
            n = list(1, list(2L, 0.25)))
  want <- 3 + 3.5 + 1.5 + 2 + 0.25 + 2
  ctx <- m$bind(d)
  expect_equal(ctx$constrain_variables(0, generated_quantities = TRUE)$s, want)
  f <- tempfile(fileext = ".json")
  writeLines('{"x": {"1": 3, "2": [1.5, 2]}, "N": 2,
               "a": [{"1": 0.5, "2": [1, 2]}, {"1": 1.5, "2": [3, 4]}],
               "n": {"2": {"1": 2, "2": 0.25}, "1": 1}}', f)
  expect_equal(m$bind(f)$constrain_variables(0, generated_quantities = TRUE)$s, want)
  # errors name the variable (its element), the declared type and what was given
  bad <- d; bad$x <- list(3L, c(1.5, 2, 3))
  expect_error(m$bind(bad), "variable 'x:2': declared vector[2], given dimensions [3]", fixed = TRUE,
               class = "tapestry_data_error")
  bad <- d; bad$x <- list(3L)
  expect_error(m$bind(bad), "variable 'x': declared a tuple of 2 elements, given a list of length 1", fixed = TRUE,
               class = "tapestry_data_error")
  bad <- d; bad$x <- list(1.5, c(1.5, 2))
  expect_error(m$bind(bad), "variable 'x:1': x:1 is 1.5, but must be an integer", fixed = TRUE,
               class = "tapestry_data_error")
  bad <- d; bad$a <- list(list(0.5, c(1L, 2L)))
  expect_error(m$bind(bad), "variable 'a:1': declared array[2] real, given dimensions [1]", fixed = TRUE,
               class = "tapestry_data_error")
  bad <- d; bad$n <- NULL
  expect_error(m$bind(bad), "variable 'n' (a tuple whose element 'n:1' is declared real) not found in the data",
               fixed = TRUE, class = "tapestry_data_error")
  bad <- d; bad$x <- list(a = 3L, b = c(1.5, 2))
  expect_error(m$bind(bad), "unnamed or named \"1\", \"2\"", fixed = TRUE, class = "tapestry_data_error")
  writeLines('{"x": {"1": 3, "3": [1.5, 2]}, "N": 0, "a": [], "n": {"1": 1, "2": {"1": 2, "2": 0.25}}}', f)
  expect_error(m$bind(f), "1:21: variable 'x': an object in the data is a tuple, whose elements are named \"1\", \"2\", ... \"2\"; found \"3\"",
               fixed = TRUE)
  writeLines('{"x": {"1": 3, "2": [1.5, 2]}, "N": 2, "a": [{"1": 0.5, "2": [1, 2]}, {"1": 1.5, "2": [3]}],
               "n": {"1": 1, "2": {"1": 2, "2": 0.25}}}', f)
  expect_error(m$bind(f), "variable 'a': ragged array", fixed = TRUE)
  # an empty array of tuples
  writeLines('{"x": {"1": 3, "2": [1.5, 2]}, "N": 0, "a": [], "n": {"1": 1, "2": {"1": 2, "2": 0.25}}}', f)
  expect_equal(m$bind(f)$num_upars(), 1)
  # JSON as the reader sees it
  writeLines('{"t": [[{"1": 1, "2": [1, 2]}], [{"1": 2, "2": [3, 4]}]]}', f)
  r <- tp_data_read(f)
  expect_equal(names(r), c("t:1", "t:2"))
  expect_equal(r[["t:1"]]$dims, c(2L, 1L))
  expect_equal(r[["t:2"]]$dims, c(2L, 1L, 2L))
  expect_equal(r[["t:2"]]$values, c(1, 2, 3, 4))
})

test_that("assigning a tuple a value computed from itself goes through temporaries", {
  code <- "
    functions { tuple(real, vector) step(tuple(real, vector) s) { return (s.1 + sum(s.2), s.2 * s.1); } }
    transformed data {
      tuple(real, real) x = (1, 2);
      x = (x.2, x.1);
      tuple(real, vector[2]) st = (2, [1, 3]');
      st = step(st);
      array[2] tuple(int, int) a = {(1, 2), (3, 4)};
      a[2] = (a[2].2, a[2].1);
      print(x, \" \", st, \" \", a[1], a[2]);
    }
    parameters { real mu; }
    model { mu ~ normal(0, 1); }
    generated quantities {
      tuple(real, real) g = (mu, 2 * mu);
      g = (g.2, g.1);
    }
  "
  out <- capture.output(ctx <- tapestry_model(code = code)$bind(list()))
  expect_equal(out, "(2, 1) (6, [2,6]) (1, 2)(4, 3)")
  expect_equal(ctx$variable_names(), c("mu", "g:1", "g:2"))   # the temporaries are locals
  w <- ctx$constrain_variables(0.5, generated_quantities = TRUE)
  expect_equal(c(w[["g:1"]], w[["g:2"]]), c(1, 0.5))
})

test_that("foreach over an array of tuples, print of a tuple", {
  code <- "
    transformed data {
      array[3] tuple(int, vector[2]) a;
      real s = 0;
      for (i in 1:3) a[i] = (i, [i, 2 * i]');
      for (t in a) s += t.1 + sum(t.2);
      print(a[2], \" \", s);
    }
    parameters { real mu; }
    model { mu ~ normal(s, 1); }
  "
  out <- capture.output(ctx <- tapestry_model(code = code)$bind(list()))
  expect_match(paste(out, collapse = "\n"), "(2, [2,4]) 24", fixed = TRUE)
  expect_equal(ctx$log_prob(24), 0)
})

test_that("eigendecompose_sym is the tuple (eigenvectors_sym, eigenvalues_sym), as Stan's", {
  code <- "
    data { int K; matrix[K, K] S; }
    parameters { real<lower=0> s; }
    model {
      tuple(matrix[K, K], vector[K]) ev = eigendecompose_sym(S * s);
      target += sum(ev.2) - ev.2[K]^2 + ev.1[1, 1]^2;
    }
    generated quantities { tuple(matrix[K, K], vector[K]) e = eigendecompose_sym(S); }
  "
  S <- matrix(c(2, 0.5, 0.1, 0.5, 3, 0.2, 0.1, 0.2, 1), 3)
  ctx <- tapestry_model(code = code)$bind(list(K = 3L, S = S))
  w <- ctx$constrain_variables(0.1, generated_quantities = TRUE)
  ref <- eigen(S, symmetric = TRUE)
  expect_equal(w[["e:2"]], rev(ref$values), tolerance = 1e-10)   # ascending, as Stan
  V <- w[["e:1"]]
  expect_equal(abs(V), abs(ref$vectors[, 3:1]), tolerance = 1e-8)
  expect_equal(S %*% V, V %*% diag(w[["e:2"]]), tolerance = 1e-10)
  for (x in c(-0.3, 0.4)) expect_equal(as.numeric(ctx$grad_log_prob(x)), fd_grad(ctx, x), tolerance = 1e-5)
  r <- both_paths(ctx, list(-0.3, 0.4, 0.1))
  expect_identical(r$plan, r$tree)
  # the element types are checked: the first is the matrix
  expect_match(check_err("transformed data { matrix[2, 2] A; tuple(vector[2], matrix[2, 2]) e = eigendecompose_sym(A); }"),
               "'e:1' is declared vector but its initial value has type matrix", fixed = TRUE)
})

test_that("library tuple functions whose components tapestry lacks are refused by name", {
  expect_match(check_err("transformed data { tuple(vector[2], real, int, int, int, int) r = generate_laplace_options(2); }"),
               "'generate_laplace_options' is a Stan function that is not supported by tapestry yet", fixed = TRUE)
  for (f in c("qr", "qr_thin", "svd", "csr_extract")) {
    parts <- switch(f, qr = c("qr_Q", "qr_R"), qr_thin = c("qr_thin_Q", "qr_thin_R"),
                    svd = c("svd_U", "singular_values", "svd_V"),
                    csr_extract = c("csr_extract_w", "csr_extract_v", "csr_extract_u"))
    have <- vapply(parts, function(p) p %in% tp_functions()$name, logical(1))
    code <- sprintf("transformed data { matrix[3, 2] A = [[1, 2], [3, 4], [5, 7]]; print(%s(A)); }", f)
    if (all(have)) {
      expect_equal(check_err(code), "")
    } else {
      expect_match(check_err(code), sprintf("'%s' is a Stan function that is not supported by tapestry yet", f),
                   fixed = TRUE)
    }
  }
})

test_that("qr, qr_thin, svd and csr_extract reconstruct their matrix when the library has their components", {
  # Each is lowered to the tuple of its component functions (qr_Q, qr_R...),
  # which another part of tapestry provides; the block runs once they exist.
  parts <- c("qr_Q", "qr_R", "qr_thin_Q", "qr_thin_R", "svd_U", "singular_values", "svd_V",
             "csr_extract_w", "csr_extract_v", "csr_extract_u")
  have <- parts %in% tp_functions()$name
  names(have) <- parts
  A <- matrix(c(1, 3, 5, 2, 0, 7), 3)
  run <- function(decl) {
    code <- sprintf("data { matrix[3, 2] A; } generated quantities { %s }", decl)
    tapestry_model(code = code)$bind(list(A = A))$constrain_variables(numeric(), generated_quantities = TRUE)
  }
  if (all(have[c("qr_Q", "qr_R")])) {
    w <- run("tuple(matrix[3, 3], matrix[3, 2]) f = qr(A);")
    expect_equal(w[["f:1"]] %*% w[["f:2"]], A, tolerance = 1e-10)
    expect_equal(crossprod(w[["f:1"]]), diag(3), tolerance = 1e-10)
  }
  if (all(have[c("qr_thin_Q", "qr_thin_R")])) {
    w <- run("tuple(matrix[3, 2], matrix[2, 2]) f = qr_thin(A);")
    expect_equal(w[["f:1"]] %*% w[["f:2"]], A, tolerance = 1e-10)
    expect_equal(abs(w[["f:2"]]), abs(qr.R(qr(A))), tolerance = 1e-10)
  }
  if (all(have[c("svd_U", "singular_values", "svd_V")])) {
    w <- run("tuple(matrix[3, 2], vector[2], matrix[2, 2]) f = svd(A);")
    expect_equal(w[["f:2"]], svd(A)$d, tolerance = 1e-10)
    expect_equal(w[["f:1"]] %*% diag(w[["f:2"]]) %*% t(w[["f:3"]]), A, tolerance = 1e-10)
  }
  if (all(have[c("csr_extract_w", "csr_extract_v", "csr_extract_u")])) {
    w <- run("tuple(vector[5], array[5] int, array[4] int) f = csr_extract(A);")
    B <- matrix(0, 3, 2)
    for (i in 1:3) for (k in seq_len(w[["f:3"]][i + 1] - w[["f:3"]][i])) {
      j <- w[["f:3"]][i] + k - 1
      B[i, w[["f:2"]][j]] <- w[["f:1"]][j]
    }
    expect_equal(B, A)
  }
  # eigendecompose_sym's components are there: the block above is not all that runs
  expect_true(all(c("eigenvalues_sym", "eigenvectors_sym") %in% tp_functions()$name))
})

test_that("programs with tuples give the same results on the tree and through plans", {
  code <- "
    functions {
      tuple(real, vector) f(tuple(real, vector) t) { return (exp(t.1), t.2 * t.1); }
    }
    parameters { real a; vector[3] b; array[2] tuple(real, vector[2]) q; }
    transformed parameters { tuple(real, vector[3]) t = f((a, b)); }
    model {
      tuple(real, vector[3]) loc = (t.1, t.2);
      loc = (loc.1 * 0.5, loc.2 + loc.1);   // through temporaries
      a ~ normal(0, 1);
      b ~ normal(loc.2, 1 + loc.1);
      for (i in 1:2) q[i].2 ~ normal(q[i].1, 1);
      for (x in q) x.1 ~ normal(0, 2);
    }
  "
  ctx <- tapestry_model(code = code)$bind(list())
  set.seed(7)
  pts <- points_for(ctx)
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 5)
  u <- pts[[3]]
  expect_equal(as.numeric(ctx$grad_log_prob(u)), fd_grad(ctx, u), tolerance = 1e-6)
})
