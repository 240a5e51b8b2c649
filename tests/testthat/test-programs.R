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
