# Language features real programs use: densities of the variate alone,
# #include, dims, and errors that stop a chain.

test_that("densities of the variate alone need no bar, built in and user-defined", {
  code <- "
  functions {
    real foo_lpdf(vector x) { return -0.5 * dot_self(x); }
    real bar_lpdf(real x) { return std_normal_lupdf(x); }
  }
  parameters { vector[3] z; real w; }
  model {
    target += std_normal_lpdf(z);
    target += std_normal_lupdf(z[1]);
    target += std_normal_lpdf(z[2] |);
    target += foo_lpdf(z);
    target += foo_lupdf(z);
    target += bar_lpdf(w);
    target += bar_lupdf(w);
    z ~ foo();
    w ~ std_normal();
  }"
  ctx <- tapestry_model(code = code)$bind(list())
  z <- c(0.3, -1.2, 0.7); w <- 0.4
  c0 <- 0.5 * log(2 * pi)
  expected <- sum(dnorm(z, log = TRUE)) + (-0.5 * z[1]^2) + dnorm(z[2], log = TRUE) -
    sum(z^2) +
    dnorm(w, log = TRUE) +    # bar_lpdf: its _lupdf keeps the constant
    (-0.5 * w^2) +            # bar_lupdf: drops it
    (-0.5 * sum(z^2)) + (-0.5 * w^2)
  u <- c(z, w)
  expect_equal(ctx$log_prob(u), expected, tolerance = 1e-13)
  g <- ctx$grad_log_prob(u)
  expect_equal(as.vector(g), fd_grad(ctx, u), tolerance = 1e-7)
  # a density with more than the variate still needs its bar
  expect_error(tp_check("parameters { real y; } model { target += normal_lpdf(y, 0, 1); }"),
               "require a vertical bar", class = "tapestry_semantic_error")
})

test_that("an index out of range is an error in the program: the chain stops at once, with the line", {
  mod <- tapestry_model(code = "data { int K; }
    parameters { real x; }
    model { vector[2] v = [x, x]'; x ~ normal(0, 1); target += v[K]; }")
  ctx <- mod$bind(list(K = 3))
  expect_error(ctx$log_prob(0), "index 3 out of range for 'v': dimension 1 has size 2 \\(in 'string', line 3",
               class = "tapestry_error")
  # not a rejection: initialisation is not retried
  expect_false(inherits(tryCatch(ctx$log_prob(0), error = identity), "tapestry_domain_error"))
  msgs <- character()
  err <- tryCatch(withCallingHandlers(
    mod$sample(data = list(K = 3), chains = 1, refresh = 0),
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") },
    warning = function(w) invokeRestart("muffleWarning")), error = identity)
  expect_match(conditionMessage(err), "index 3 out of range for 'v'")
  expect_false(any(grepl("Rejecting initial value", msgs)))
  # in the middle of a run: the chain stops there
  mid <- tapestry_model(code = "parameters { real x; }
    model { array[2] real v = {x, x}; int k = x > 1.5 ? 3 : 1; x ~ normal(0, 1); target += v[k]; }")
  expect_warning(fit <- tryCatch(mid$sample(chains = 1, refresh = 0, init = 0, seed = 3,
                                            iter_warmup = 300, iter_sampling = 300),
                                 error = identity),
                 "index 3 out of range for 'v'", class = "tapestry_warning")
})

test_that("#include: files found in the include paths, in order, nested, with their own lines in messages", {
  d <- withr_tempdir()
  dir.create(file.path(d, "a")); dir.create(file.path(d, "b"))
  writeLines(c("real twice(real x) {", "  return 2 * x;", "}", "#include <more.stan>"),
             file.path(d, "a", "fns.stan"))
  writeLines("real thrice(real x) { return 3 * x; }", file.path(d, "b", "more.stan"))
  # the same name in a later path is not read
  writeLines("this is not Stan", file.path(d, "b", "fns.stan"))
  writeLines(c("functions {", "  #include \"fns.stan\"  // helpers", "}",
               "/* a directive in a block comment is text:", "#include nothing.stan", "*/",
               "parameters { real y; }", "model {", "#include model_body.stan", "}"),
             file.path(d, "m.stan"))
  writeLines("  y ~ normal(twice(1) + thrice(0), 1);", file.path(d, "model_body.stan"))
  mod <- tapestry_model(file.path(d, "m.stan"), include_paths = c(file.path(d, "a"), file.path(d, "b")))
  expect_equal(mod$bind(list())$log_prob(0.5), dnorm(0.5, 2, 1, log = TRUE) + 0.5 * log(2 * pi),
               tolerance = 1e-14)
  # an error in an included file names that file and its line
  writeLines("real thrice(real x) { return 3 * xx; }", file.path(d, "b", "more.stan"))
  expect_snapshot(error = TRUE,
    tapestry_model(file.path(d, "m.stan"), include_paths = c(file.path(d, "a"), file.path(d, "b"))))
  # so does an error at run time
  writeLines("real thrice(real x) { reject(\"thrice of \", x); }", file.path(d, "b", "more.stan"))
  mod <- tapestry_model(file.path(d, "m.stan"), include_paths = c(file.path(d, "a"), file.path(d, "b")))
  expect_error(mod$bind(list())$log_prob(0.5), "thrice of 0 \\(in 'more.stan', line 1, column 23\\)")
  # not found, self-inclusion, bad paths
  expect_snapshot(error = TRUE, tapestry_model(file.path(d, "m.stan")))
  writeLines("#include fns.stan", file.path(d, "b", "more.stan"))
  expect_error(tapestry_model(file.path(d, "m.stan"), include_paths = c(file.path(d, "a"), file.path(d, "b"))),
               "file 'fns.stan' includes itself", class = "tapestry_syntax_error")
  expect_error(tapestry_model(file.path(d, "m.stan"), include_paths = file.path(d, "nope")),
               "is not a folder", class = "tapestry_argument_error")
  expect_error(tapestry_model(code = "#include x.stan\nparameters { real y; }"),
               "could not find include file 'x.stan': no include paths were given", class = "tapestry_syntax_error")
  expect_error(tapestry_model(code = "parameters { real y; } #include x.stan"),
               "'#include' must be the first thing on its line", class = "tapestry_syntax_error")
  # the folder of the file is searched last, so a program beside its includes needs no paths
  writeLines("real thrice(real x) { return 3 * x; }", file.path(d, "more.stan"))
  file.copy(file.path(d, "a", "fns.stan"), file.path(d, "fns.stan"))
  expect_s3_class(tapestry_model(file.path(d, "m.stan")), "TapestryModel")
})

test_that("dims gives the array dimensions, then the rows and columns of a vector, row vector or matrix", {
  mod <- tapestry_model(code = "
    data { int N; }
    transformed data { array[2, 3] vector[N] a; matrix[2, 5] m; real s; array[4] int k; row_vector[N] r; }
    parameters { real y; }
    model { y ~ std_normal(); }
    generated quantities {
      array[4] int da = dims(a);
      array[2] int dm = dims(m);
      int ns = size(dims(s));
      array[1] int dk = dims(k);
      array[2] int dr = dims(r);
      array[3] int dy = dims(rep_array(y, 1, 2, 3));
    }")
  fit <- mod$sample(data = list(N = 7), chains = 1, iter_warmup = 10, iter_sampling = 2, refresh = 0, seed = 1)
  d <- posterior::as_draws_matrix(fit$draws(c("da", "dm", "ns", "dk", "dr", "dy")))
  # as Stan Math's dims: a vector[N] is N x 1, a row_vector[N] 1 x N
  expect_equal(as.vector(unclass(d)[1, ]), c(2, 3, 7, 1, 2, 5, 0, 4, 1, 7, 1, 2, 3))
})

test_that("a size that cannot be held is an error naming the variable; the session carries on", {
  old <- tapestry_memory_limit()[["limit"]]
  on.exit(tapestry_memory_limit(old))
  expect_true(old > 0)
  # a local of the model block
  mod <- tapestry_model(code = "data { int N; } parameters { real y; } model { vector[N] z; y ~ std_normal(); }")
  ctx <- mod$bind(list(N = 2e9))
  expect_error(ctx$log_prob(0), "'z' declared as vector\\[2000000000\\] would need 14.9 GB, over the memory limit",
               class = "tapestry_memory_error")
  # transformed data and parameters, at binding
  mod <- tapestry_model(code = "data { int N; } transformed data { matrix[N, N] z; } parameters { real y; } model { y ~ std_normal(); }")
  expect_error(mod$bind(list(N = 1e6)), "'z' declared as matrix\\[1000000, 1000000\\] would need 7.3 TB",
               class = "tapestry_memory_error")
  mod <- tapestry_model(code = "data { int N; } parameters { vector[N] y; } model { y ~ std_normal(); }")
  expect_error(mod$bind(list(N = 2e9)), "'y' declared as vector\\[2000000000\\]", class = "tapestry_memory_error")
  # sizes whose product overflows
  mod <- tapestry_model(code = "data { int N; } transformed data { array[N, N, N] real z; } parameters { real y; } model { y ~ std_normal(); }")
  expect_error(mod$bind(list(N = 2e9)), "more than can be addressed", class = "tapestry_memory_error")
  # the total of an evaluation's memory, under a limit the user sets
  tapestry_memory_limit("64MB")
  expect_equal(tapestry_memory_limit()[["limit"]], 64 * 1024^2)
  mod <- tapestry_model(code = "data { int N; } parameters { real y; } model { vector[N] z = rep_vector(y, N); target += -0.5 * dot_self(z) / N; }")
  ctx <- mod$bind(list(N = 5e6))
  expect_error(ctx$grad_log_prob(0.1), "over the memory limit of 64.0 MB.*tapestry_memory_limit\\(\\) sets the limit",
               class = "tapestry_memory_error")
  # the draws of a run
  big <- tapestry_model(code = "parameters { real y; } model { y ~ std_normal(); } generated quantities { vector[20000] z = rep_vector(y, 20000); }")
  expect_error(big$sample(chains = 1, iter_warmup = 10, iter_sampling = 1000, refresh = 0),
               "can't fit in memory: 1 chain of 1,000 saved draws, each of 20,009 numbers, need 152\\.[67] Mb",
               class = "tapestry_memory_error")
  tapestry_memory_limit(old)
  g <- ctx$grad_log_prob(0.1)
  expect_equal(attr(g, "log_prob"), -0.005, tolerance = 1e-9)
  expect_error(tapestry_memory_limit("lots"), "must be a positive number of bytes", class = "tapestry_argument_error")
  expect_error(tapestry_memory_limit(-1), "must be a positive number of bytes", class = "tapestry_argument_error")
})
