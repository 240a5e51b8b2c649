# map_rect on the thread pool (src/tree/li_maprect.c): each job's values and
# Jacobian are computed eagerly by a participant of a parallel region, and
# the caller's tape gets one node.  Checked against Stan's reference values,
# against the same program written as a serial loop, and against finite
# differences, with 1 and 2 threads.

# Log density and gradient of ctx at u, on 1 or more threads.
lp_grad <- function(ctx, u, threads = 1L) {
  with_threads(threads, {
    g <- ctx$grad_log_prob(u)
    list(lp = ctx$log_prob(u), lpg = attr(g, "log_prob"), grad = as.vector(g))
  })
}

expect_same_model <- function(ctx, serial, u, threads, tol = 1e-12) {
  a <- lp_grad(ctx, u, threads)
  b <- lp_grad(serial, u, 1L)
  expect_equal(a$lp, b$lp, tolerance = tol)
  expect_equal(a$lpg, b$lpg, tolerance = tol)
  expect_equal(a$grad, b$grad, tolerance = tol)
}

test_that("map_rect_hier matches Stan and its serial loop with 1 and 2 threads", {
  stan <- ext("map_rect_hier.stan")
  code <- paste(readLines(stan), collapse = "\n")
  call <- "target += sum(map_rect(group_loglik, [mu, sigma]', theta, y, x_i));"
  loop <- "for (j in 1:J) target += sum(group_loglik([mu, sigma]', theta[j], y[j], x_i[j]));"
  expect_true(grepl(call, code, fixed = TRUE))
  data <- ext("map_rect_hier.data.json")
  ctx <- tapestry_model(stan)$bind(data)
  serial <- tapestry_model(code = sub(call, loop, code, fixed = TRUE))$bind(data)
  ref <- jsonlite::fromJSON(ext("map_rect_hier.reference.json"), simplifyVector = FALSE)
  for (p in ref$points) {
    u <- as.numeric(unlist(p$upars))
    for (threads in 1:2) {
      r <- lp_grad(ctx, u, threads)
      expect_equal(r$lp, p$log_prob, tolerance = 1e-8)
      expect_identical(r$lpg, r$lp)
      expect_equal(r$grad, as.numeric(unlist(p$gradient)), tolerance = 1e-8)
      expect_same_model(ctx, serial, u, threads)
    }
    # jobs do not share sums: the same bits whoever ran them
    expect_identical(lp_grad(ctx, u, 2L), lp_grad(ctx, u, 1L))
  }
})

# Jobs with 3, 0, 1, 4 and 2 outputs; the job with x_i[j, 2] = 1 returns
# its theta, the one with 2 returns phi (views of the copies f was given).
jobs_code <- "
functions {
  vector job(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    int n = x_i[1];
    vector[n] out;
    if (x_i[2] == 1) return theta;
    if (x_i[2] == 2) return phi;
    for (i in 1:n)
      out[i] = phi[1] * x_r[i] + exp(theta[1] * phi[2]) / i + sin(theta[2] * i) * phi[3];
    return out;
  }
}
data {
  int J;
  int N;
  array[J, 4] real xr;
  array[J, 2] int xi;
  vector[3] phi_d;
  array[J] vector[2] theta_d;
}
parameters {
  vector[3] phi;
  array[J] vector[2] theta;
}
model {
  vector[N] r = MAP;
  target += -0.5 * dot_self(r - 1) + 0.1 * sum(phi) - 0.2 * dot_self(phi);
  for (j in 1:J) target += -0.5 * dot_self(theta[j]);
}
"
jobs_serial <- "
  vector[N] r;
  {
    int pos = 1;
    for (j in 1:J) {
      int n = xi[j, 1];
      r[pos:(pos + n - 1)] = job(PHI, THETA[j], xr[j], xi[j]);
      pos += n;
    }
  }
"
jobs_data <- function() {
  list(J = 7L, N = 3L + 0L + 1L + 4L + 2L + 2L + 3L,
       xr = matrix(c(0.5, -1, 2, 0.3,  1, 1, 1, 1,  -0.7, 0.2, 0.9, 1.5,
                     1.2, -0.4, 0.8, -2,  0.1, 0.6, -0.3, 0.4,  0, 0, 0, 0,
                     0, 0, 0, 0), 7, 4, byrow = TRUE),
       xi = matrix(c(3L, 0L,  0L, 0L,  1L, 0L,  4L, 0L,  2L, 0L,  2L, 1L,  3L, 2L),
                   7, 2, byrow = TRUE),
       phi_d = c(0.4, -0.3, 0.8),
       theta_d = matrix(seq(-0.6, 0.7, length.out = 14), 7, 2))
}
# The program with map_rect(phi_arg, theta_arg), and the same as a loop.
jobs_models <- function(phi = "phi", theta = "theta") {
  call <- sprintf("map_rect(job, %s, %s, xr, xi)", phi, theta)
  par <- tapestry_model(code = sub("MAP", call, jobs_code, fixed = TRUE))
  loop <- sub("vector[N] r = MAP;",
              gsub("THETA", theta, gsub("PHI", phi, jobs_serial, fixed = TRUE), fixed = TRUE),
              jobs_code, fixed = TRUE)
  d <- jobs_data()
  list(par = par$bind(d), serial = tapestry_model(code = loop)$bind(d))
}

test_that("jobs of different lengths, including 0, have the serial value and gradient", {
  m <- jobs_models()
  u <- seq(-0.8, 0.9, length.out = 3 + 7 * 2)
  expect_equal(m$par$num_upars(), length(u))
  for (threads in 1:2) {
    expect_same_model(m$par, m$serial, u, threads)
    expect_equal(lp_grad(m$par, u, threads)$grad, fd_grad(m$par, u), tolerance = 1e-7)
  }
})

test_that("phi or theta as data get no adjoints, the others theirs", {
  u <- seq(-0.5, 0.7, length.out = 17)
  for (args in list(c("phi_d", "theta"), c("phi", "theta_d"), c("phi_d", "theta_d"))) {
    m <- jobs_models(args[1], args[2])
    for (threads in 1:2) {
      expect_same_model(m$par, m$serial, u, threads)
      expect_equal(lp_grad(m$par, u, threads)$grad, fd_grad(m$par, u), tolerance = 1e-7)
    }
  }
})

test_that("map_rect on data only, in transformed data and generated quantities", {
  code <- "
functions {
  vector f(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    return [phi[1] * theta[1] + x_r[1], x_i[1]]';
  }
}
transformed data {
  array[3] vector[1] th = {[1]', [2]', [3]'};
  vector[6] td = map_rect(f, [10]', th, {{0.5}, {0.25}, {0.125}}, {{1}, {2}, {3}});
  vector[0] none = map_rect(f, [10]', rep_array([1]', 0), rep_array(0.0, 0, 0), rep_array(0, 0, 0));
}
parameters {
  real mu;
}
model {
  mu ~ normal(sum(td), 1);
}
generated quantities {
  vector[6] gq = map_rect(f, [mu]', th, {{0.5}, {0.25}, {0.125}}, {{1}, {2}, {3}});
  int n0 = num_elements(none);
}
"
  ctx <- tapestry_model(code = code)$bind()
  for (threads in 1:2) {
    v <- with_threads(threads, ctx$constrain_variables(2))
    expect_equal(as.vector(v$gq), c(2.5, 1, 4.25, 2, 6.125, 3))
    expect_equal(v$n0, 0L)
    expect_equal(with_threads(threads, ctx$log_prob(2)), -0.5 * (2 - 66.875)^2, tolerance = 1e-14)
  }
})

test_that("x_r and x_i without rows stand for no data; other sizes must match", {
  code <- "
functions {
  vector f(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    return [phi[1] * theta[1] + size(x_r) + 10 * size(x_i)]';
  }
}
data {
  int nr;
  int ni;
  array[nr, 2] real xr;
  array[ni, 1] int xi;
}
parameters {
  vector[1] phi;
  array[3] vector[1] theta;
}
model {
  target += sum(map_rect(f, phi, theta, xr, xi));
}
"
  mod <- tapestry_model(code = code)
  bind <- function(nr, ni) {
    mod$bind(list(nr = nr, ni = ni, xr = array(0, c(nr, 2)), xi = array(1L, c(ni, 1))))
  }
  u <- c(2, 1, 2, 3)
  expect_equal(bind(0L, 0L)$log_prob(u), 2 * 6)
  expect_equal(bind(3L, 3L)$log_prob(u), 2 * 6 + 3 * 12)
  expect_equal(as.vector(bind(3L, 0L)$grad_log_prob(u)), c(6, 2, 2, 2))
  expect_snapshot(error = TRUE, {
    bind(2L, 3L)$log_prob(u)
    bind(3L, 4L)$grad_log_prob(u)
  })
  expect_error(bind(2L, 3L)$log_prob(u), class = "tapestry_error")
})

test_that("a job that rejects rejects the evaluation; the next one works", {
  code <- "
functions {
  vector f(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    if (theta[1] > phi[1]) reject(\"job \", x_i[1], \": theta \", theta[1], \" above \", phi[1]);
    return [normal_lpdf(theta[1] | phi[1], 1), theta[1] * x_r[1]]';
  }
}
parameters {
  vector[1] phi;
  array[40] vector[1] theta;
}
model {
  target += sum(map_rect(f, phi, theta, rep_array(0.5, 40, 1), {{1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10},
    {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28},
    {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}}));
}
"
  ctx <- tapestry_model(code = code)$bind()
  ok <- c(1, seq(-1, 0.9, length.out = 40))
  bad <- ok
  bad[1 + c(17, 30)] <- 2
  expected <- lp_grad(ctx, ok, 1L)
  expect_equal(expected$grad, fd_grad(ctx, ok), tolerance = 1e-7)
  for (threads in 1:2) {
    with_threads(threads, for (i in 1:20) {
      expect_error(ctx$grad_log_prob(bad), class = "tapestry_domain_error")
      expect_error(ctx$log_prob(bad), "job 17: theta 2 above 1 (in 'string', line 4", fixed = TRUE)
    })
    expect_identical(lp_grad(ctx, ok, threads), expected)
  }
  expect_snapshot(error = TRUE, ctx$log_prob(bad))
})

# map_rect inside map_rect and inside reduce_sum (two tests below)
nested_code <- "
functions {
  vector inner(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    return [phi[1] * theta[1], exp(phi[2] + theta[1] * x_r[1])]';
  }
  vector outer(vector phi, vector theta, data array[] real x_r, data array[] int x_i) {
    array[2] vector[1] th = {theta[1:1], theta[2:2]};
    vector[4] r = map_rect(inner, phi, th, {{x_r[1]}, {x_r[2]}}, {{1}, {2}});
    return append_row(r, sum(theta) * phi[1]);
  }
  real part(array[] real sl, int s, int e, vector phi, array[] vector theta) {
    return sum(map_rect(outer, phi, theta[s:e], rep_array(0.1, e - s + 1, 2), rep_array(7, e - s + 1, 1)));
  }
}
parameters {
  vector[2] phi;
  array[5] vector[2] theta;
}
model {
  target += -0.5 * dot_self(map_rect(outer, phi, theta, {{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}, {0.7, 0.8}, {0.9, 1.0}},
                                     {{1}, {2}, {3}, {4}, {5}}));
  target += reduce_sum(part, rep_array(0.0, 5), 1, phi, theta);
}
"

test_that("map_rect inside map_rect and inside reduce_sum", {
  code <- nested_code
  ctx <- tapestry_model(code = code)$bind()
  u <- seq(-0.5, 0.4, length.out = 12)
  one <- lp_grad(ctx, u, 1L)
  expect_equal(one$grad, fd_grad(ctx, u), tolerance = 1e-7)
  two <- lp_grad(ctx, u, 2L)
  expect_equal(two$lp, one$lp, tolerance = 1e-14)
  expect_equal(two$grad, one$grad, tolerance = 1e-14)
})

test_that("through recorded plans: each job from a plan of its own, the tree's bits", {
  set.seed(41)
  for (args in list(c("phi", "theta"), c("phi_d", "theta"), c("phi", "theta_d"))) {
    m <- jobs_models(args[1], args[2])
    pts <- points_for(m$par)
    for (threads in 1:2) {
      r <- with_threads(threads, both_paths(m$par, pts))
      expect_identical(r$plan, r$tree, label = paste(args, collapse = ","))
      expect_identical(r$stats$why, "")
      expect_gt(r$stats$replays, 5)
    }
  }
  # library calls in a job of several outputs: their nodes swept once per output
  code <- "
functions {
  vector job(vector phi, vector theta, array[] real x_r, array[] int x_i) {
    vector[3] s = softmax(append_row(theta, phi[1:1]));
    return cumulative_sum(s * phi[2]) + log_sum_exp(theta) * x_r[1];
  }
}
data { array[4, 1] real xr; array[4, 0] int xi; }
parameters { vector[2] phi; array[4] vector[2] theta; }
model {
  target += -0.5 * dot_self(map_rect(job, phi, theta, xr, xi)) - 0.5 * dot_self(phi);
  for (j in 1:4) theta[j] ~ normal(0, 1);
}"
  ctx <- tapestry_model(code = code)$bind(list(xr = matrix(c(0.5, 1, -1, 2), 4, 1), xi = matrix(integer(0), 4, 0)))
  pts <- points_for(ctx)
  r <- both_paths(ctx, pts)
  expect_identical(r$plan, r$tree)
  expect_gt(r$stats$replays, 5)
  expect_equal(as.vector(ctx$grad_log_prob(pts[[3]])), fd_grad(ctx, pts[[3]]), tolerance = 1e-7)
  # map_rect in map_rect and in reduce_sum: plans inside plans
  code <- nested_code
  ctx <- tapestry_model(code = code)$bind()
  r <- both_paths(ctx, points_for(ctx))
  expect_identical(r$plan, r$tree)
  expect_identical(r$stats$why, "")
  expect_gt(r$stats$replays, 5)
})
