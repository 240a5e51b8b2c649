# The model object (tapestry_model) and the data context ($bind()): their
# methods, the shapes of constrained values, and the errors users meet.

es_file <- function() ext("eight_schools.stan")
es_data <- function() {
  list(J = 8L, y = c(28, 8, -3, 7, -1, 1, 18, 12),
       sigma = c(15, 10, 16, 11, 9, 11, 10, 18))
}
es_point <- function() {
  ref <- jsonlite::fromJSON(ext("eight_schools.reference.json"), simplifyVector = FALSE)
  as.numeric(unlist(ref$points[[1]]$upars))
}
normal_code <- "
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
"

test_that("a model from a file knows its code, file and name", {
  mod <- tapestry_model(es_file())
  expect_s3_class(mod, "TapestryModel")
  expect_identical(mod$code(), readLines(es_file()))
  expect_identical(mod$file(), normalizePath(es_file()))
  expect_identical(mod$model_name(), "eight_schools")
  expect_output(print(mod), "theta_tilde ~ std_normal();", fixed = TRUE)
  expect_output(mod$print(), "parameters {", fixed = TRUE)
})

test_that("a model from code", {
  mod <- tapestry_model(code = normal_code)
  expect_null(mod$file())
  expect_identical(mod$model_name(), "string")
  expect_identical(mod$code(), strsplit(normal_code, "\n")[[1]])
  # a character vector of lines is one program
  mod2 <- tapestry_model(code = strsplit(normal_code, "\n")[[1]])
  expect_identical(mod2$code(), mod$code())
})

test_that("check_syntax() says the program is correct and returns TRUE invisibly", {
  mod <- tapestry_model(es_file())
  expect_message(r <- withVisible(mod$check_syntax()), "Stan program is syntactically correct")
  expect_true(r$value)
  expect_false(r$visible)
  expect_silent(mod$check_syntax(quiet = TRUE))
})

test_that("tapestry_model() wants exactly one of file and code", {
  expect_snapshot(error = TRUE, {
    tapestry_model()
    tapestry_model(file = es_file(), code = normal_code)
    tapestry_model(file = "no/such/model.stan")
    tapestry_model(code = 42)
    tapestry_model(file = c("a.stan", "b.stan"))
  })
  expect_error(tapestry_model(), class = "tapestry_argument_error")
})

test_that("errors in the program are classed and located", {
  bad_syntax <- "parameters {\n  real y\n}\nmodel {\n  y ~ normal(0, 1);\n}\n"
  expect_error(tapestry_model(code = bad_syntax), class = "tapestry_syntax_error")
  expect_error(tapestry_model(code = bad_syntax), "^string:[23]:")
  undeclared <- "parameters {\n  real y;\n}\nmodel {\n  y ~ normal(mu, 1);\n}\n"
  expect_error(tapestry_model(code = undeclared), class = "tapestry_semantic_error")
  expect_error(tapestry_model(code = undeclared), "^string:5:")
  err <- tryCatch(tapestry_model(code = undeclared), error = identity)
  expect_s3_class(err, c("tapestry_semantic_error", "tapestry_error", "error", "condition"))
})

test_that("deprecated syntax gives a warning", {
  old <- "data {\n  int N;\n  real x[N];\n}\nparameters {\n  real y;\n}\nmodel {\n  y ~ normal(0, 1);\n}\n"
  expect_warning(tapestry_model(code = old), class = "tapestry_warning")
})

test_that("variables() lists the declared variables as cmdstanr does", {
  v <- tapestry_model(es_file())$variables()
  expect_named(v, c("data", "parameters", "transformed_parameters", "generated_quantities"))
  expect_named(v$data, c("J", "y", "sigma"))
  expect_identical(v$data$J, list(type = "int", dimensions = 0L, constraint = "lower"))
  expect_identical(v$data$y, list(type = "array[] real", dimensions = 1L, constraint = NA_character_))
  expect_named(v$parameters, c("mu", "tau", "theta_tilde"))
  expect_identical(v$parameters$tau$constraint, "lower")
  expect_identical(v$parameters$theta_tilde$type, "vector")
  expect_identical(v$parameters$theta_tilde$dimensions, 1L)
  expect_named(v$transformed_parameters, "theta")
  expect_length(v$generated_quantities, 0)

  vs <- tapestry_model(ext("varying_slopes.stan"))$variables()
  expect_identical(vs$parameters$L_Omega$constraint, "cholesky_factor_corr")
  expect_identical(vs$parameters$L_Omega$dimensions, 2L)
  expect_identical(vs$generated_quantities$Omega$constraint, "corr_matrix")
})

test_that("data from a list and from a JSON file give the same context", {
  mod <- tapestry_model(es_file())
  u <- es_point()
  a <- mod$bind(es_data())
  b <- mod$bind(ext("eight_schools.data.json"))
  expect_s3_class(a, "TapestryContext")
  expect_identical(a$log_prob(u), b$log_prob(u))
  expect_identical(a$grad_log_prob(u), b$grad_log_prob(u))
  expect_identical(a$model(), mod)
})

test_that("bind() reports data that do not fit the program", {
  mod <- tapestry_model(es_file())
  d <- es_data()
  expect_snapshot(error = TRUE, {
    mod$bind(d[c("y", "sigma")])
    mod$bind(replace(d, "y", list(d$y[1:7])))
    mod$bind(replace(d, "sigma", list(c(-1, d$sigma[-1]))))
    mod$bind(replace(d, "J", list(2.5)))
  })
  expect_error(mod$bind(d[c("y", "sigma")]), class = "tapestry_data_error")
  expect_error(mod$bind(replace(d, "J", list(2.5))), class = "tapestry_data_error")
})

test_that("bind() checks its arguments in R", {
  mod <- tapestry_model(es_file())
  expect_snapshot(error = TRUE, {
    mod$bind(42)
    mod$bind("no/such/data.json")
    mod$bind(list(8, 1:8))
    mod$bind(list(J = 1, J = 2))
    mod$bind(es_data(), seed = -1)
    mod$bind(es_data(), seed = 1.5)
  })
  expect_error(mod$bind(42), class = "tapestry_argument_error")
})

test_that("a program without data binds to no data", {
  ctx <- tapestry_model(code = normal_code)$bind()
  expect_identical(ctx$num_upars(), 1L)
  expect_equal(ctx$log_prob(2), -2)
  expect_equal(as.vector(ctx$grad_log_prob(2)), -2)
  expect_identical(tapestry_model(code = normal_code)$bind(list())$log_prob(2), -2)
})

test_that("log_prob() and grad_log_prob() return what rstan and cmdstanr return", {
  ctx <- tapestry_model(es_file())$bind(es_data())
  u <- es_point()
  lp <- ctx$log_prob(u)
  expect_type(lp, "double")
  expect_length(lp, 1)
  expect_null(attributes(lp))
  lpg <- ctx$log_prob(u, gradient = TRUE)
  expect_identical(as.vector(lpg), lp)
  g <- ctx$grad_log_prob(u)
  expect_identical(attr(g, "log_prob"), lp)
  expect_identical(attr(lpg, "gradient"), as.vector(g))
  expect_length(g, 10)
  # integer upars are numbers too
  expect_identical(ctx$log_prob(1:10), ctx$log_prob(as.numeric(1:10)))
})

test_that("upar_names() and variable_names() name the elements in Stan's order", {
  ctx <- tapestry_model(es_file())$bind(es_data())
  expect_identical(ctx$num_upars(), 10L)
  expect_identical(ctx$upar_names(), c("mu", "tau", paste0("theta_tilde[", 1:8, "]")))
  expect_identical(ctx$variable_names(),
                   c("mu", "tau", paste0("theta_tilde[", 1:8, "]"), paste0("theta[", 1:8, "]")))
  expect_identical(ctx$variable_names(transformed_parameters = FALSE), ctx$upar_names())
})

test_that("constrain_variables() gives values of the declared shapes", {
  ctx <- tapestry_model(es_file())$bind(es_data())
  u <- es_point()
  v <- ctx$constrain_variables(u)
  expect_named(v, c("mu", "tau", "theta_tilde", "theta"))
  expect_identical(v$mu, u[1])
  expect_equal(v$tau, exp(u[2]), tolerance = 1e-14)
  expect_identical(v$theta_tilde, u[3:10])
  expect_equal(v$theta, v$mu + v$tau * v$theta_tilde, tolerance = 1e-14)
  expect_named(ctx$constrain_variables(u, transformed_parameters = FALSE),
               c("mu", "tau", "theta_tilde"))
})

test_that("constrained values of arrays, matrices and ints have Stan's index order", {
  code <- "
parameters {
  real y;
}
model {
  y ~ normal(0, 1);
}
generated quantities {
  int k = 3;
  array[2] int a = {1, 2};
  array[2, 3] real r;
  array[2] vector[3] v;
  matrix[2, 3] m;
  row_vector[3] rv = [1, 2, 3];
  array[2] matrix[2, 3] am;
  for (i in 1:2) {
    for (j in 1:3) {
      r[i, j] = 10 * i + j;
      v[i, j] = 10 * i + j;
      m[i, j] = 10 * i + j;
      for (l in 1:2) am[l, i, j] = 100 * l + 10 * i + j;
    }
  }
}
"
  mod <- tapestry_model(code = code)
  expect_identical(mod$variables()$generated_quantities$am$dimensions, 3L)
  v <- tapestry_model(code = code)$bind()$constrain_variables(0.5)
  ij <- outer(1:2, 1:3, function(i, j) 10 * i + j)
  expect_identical(v$y, 0.5)
  expect_identical(v$k, 3L)
  expect_identical(v$a, 1:2)
  expect_identical(v$r, ij)
  expect_identical(v$v, ij)
  expect_identical(v$m, ij)
  expect_identical(v$rv, c(1, 2, 3))
  am <- array(0, c(2, 2, 3))
  for (l in 1:2) am[l, , ] <- 100 * l + ij
  expect_identical(v$am, am)
})

round_trip <- function(name, data) {
  ctx <- tapestry_model(ext(paste0(name, ".stan")))$bind(data)
  ref <- jsonlite::fromJSON(ext(paste0(name, ".reference.json")), simplifyVector = FALSE)
  for (p in ref$points) {
    u <- as.numeric(unlist(p$upars))
    v <- ctx$constrain_variables(u)
    expect_equal(ctx$unconstrain_variables(v), u, tolerance = 1e-10)
  }
  ctx
}

test_that("unconstrain_variables() inverts constrain_variables(): eight_schools", {
  round_trip("eight_schools", es_data())
})

test_that("unconstrain_variables() inverts constrain_variables(): varying_slopes", {
  data <- ext("varying_slopes.data.json")
  if (!nzchar(data)) skip("varying_slopes data are not bundled")
  ctx <- round_trip("varying_slopes", data)
  v <- ctx$constrain_variables(seq(-1, 1, length.out = ctx$num_upars()))
  expect_identical(dim(v$L_Omega), c(2L, 2L))
  expect_identical(dim(v$z), c(2L, 30L))
  expect_identical(dim(v$b), c(30L, 2L))
  expect_equal(v$Omega, v$L_Omega %*% t(v$L_Omega), tolerance = 1e-12)
  expect_equal(v$b, t(diag(v$tau) %*% v$L_Omega %*% v$z), tolerance = 1e-12)
  expect_identical(ctx$upar_names()[1:5], c("beta[1]", "beta[2]", "tau[1]", "tau[2]", "L_Omega[1]"))
})

test_that("generated quantities draw from the seed", {
  ctx <- tapestry_model(ext("conjugate_normal.stan"))$bind(ext("conjugate_normal.data.json"), seed = 7)
  a <- ctx$constrain_variables(0.3)$y_rep
  expect_identical(ctx$constrain_variables(0.3)$y_rep, a)
  expect_identical(ctx$constrain_variables(0.3, seed = 7)$y_rep, a)
  expect_false(identical(ctx$constrain_variables(0.3, seed = 8)$y_rep, a))
  expect_named(ctx$constrain_variables(0.3, generated_quantities = FALSE), "mu")
})

test_that("the context's methods check their arguments in R", {
  ctx <- tapestry_model(es_file())$bind(es_data())
  expect_snapshot(error = TRUE, {
    ctx$log_prob(c(1, 2, 3))
    ctx$log_prob("a")
    ctx$log_prob(rep(0, 10), jacobian = NA)
    ctx$grad_log_prob(list(1, 2))
    ctx$constrain_variables(1)
    ctx$constrain_variables(rep(0, 10), generated_quantities = "yes")
    ctx$unconstrain_variables(1:3)
    ctx$unconstrain_variables(list(1, 2))
  })
  expect_error(ctx$log_prob(c(1, 2, 3)), class = "tapestry_argument_error")
  expect_error(ctx$unconstrain_variables(list(mu = 1)), class = "tapestry_data_error")
  expect_error(ctx$unconstrain_variables(list(mu = 1, tau = -1, theta_tilde = rep(0, 8))),
               class = "tapestry_data_error")
})

test_that("a rejection is a domain error, and print() output is shown", {
  code <- "
parameters {
  real y;
}
model {
  print(\"y is \", y);
  if (y > 1) reject(\"y is too large: \", y);
  y ~ normal(0, 1);
}
"
  ctx <- tapestry_model(code = code)$bind()
  expect_output(ctx$log_prob(0.5), "y is 0.5")
  # the output comes before the error
  expect_output(expect_error(ctx$log_prob(2), class = "tapestry_domain_error"), "y is 2")
  expect_output(expect_error(ctx$log_prob(2), "y is too large: 2"))
})

test_that("$grad_log_prob() takes what it is given the long way, and says what is wrong", {
  ctx <- tapestry_model(es_file())$bind(es_data())
  u <- es_point()
  g <- ctx$grad_log_prob(u)
  expect_identical(ctx$grad_log_prob(setNames(u, paste0("u", seq_along(u)))), g)
  expect_error(ctx$grad_log_prob(u, jacobian = 1), "jacobian")
  expect_identical(ctx$grad_log_prob(u, jacobian = FALSE), ctx$grad_log_prob(u, FALSE))
  expect_false(identical(ctx$grad_log_prob(u, jacobian = FALSE), g))
  expect_error(ctx$grad_log_prob(u[-1]), class = "tapestry_argument_error")
  expect_error(ctx$grad_log_prob(u, jacobian = NA), "jacobian")
  expect_error(ctx$grad_log_prob("a"), class = "tapestry_argument_error")
})

test_that("print() of a context lists its variables with their sizes", {
  ctx <- tapestry_model(es_file())$bind(es_data())
  expect_snapshot(print(ctx))
})

test_that("models and contexts survive a save and load", {
  mod <- tapestry_model(es_file())
  ctx <- mod$bind(es_data())
  u <- es_point()
  lp <- ctx$log_prob(u)
  g <- ctx$grad_log_prob(u)
  ctx2 <- unserialize(serialize(ctx, NULL))
  expect_identical(ctx2$log_prob(u), lp)
  # $grad_log_prob on a loaded context binds its data again
  ctx3 <- unserialize(serialize(ctx, NULL))
  expect_identical(ctx3$grad_log_prob(u), g)
  mod2 <- unserialize(serialize(mod, NULL))
  expect_identical(mod2$bind(es_data())$log_prob(u), lp)
  expect_identical(mod2$variables(), mod$variables())
})
