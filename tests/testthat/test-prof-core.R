# The C core of profiling (src/prof and its hooks): Stan's own profile
# tests at the level of the registry, then profile blocks in programs
# through tp_profile_log_prob and through the sampler's raw result.

prof_test <- function(which) .Call(C_tp_prof_test, which)

prof_ctx <- function(code, data = list()) {
  context_ptr(tapestry_model(code = code)$bind(data))
}

profile_lp <- function(ptr, upars, n, trace_every = 0L) {
  .Call(C_tp_profile_log_prob, ptr, as.double(upars), n, trace_every)
}

row_of <- function(p, name, phase = "sampling") {
  i <- which(p$name == name & p$phase == phase)
  expect_length(i, 1L)
  lapply(p, `[[`, i)
}

# $sample()'s C side with the settings it needs and no printing.
sample_raw <- function(ptr, upars_n, chains = 1L, warmup = 100L, samples = 100L, seed = 11,
                       trace_every = 0L, threads_per_chain = 1L) {
  config <- list(num_warmup = as.integer(warmup), num_samples = as.integer(samples), thin = 1L,
                 save_warmup = 0L, adapt_engaged = 1L, delta = 0.8, gamma = 0.05,
                 kappa = 0.75, t0 = 10, init_buffer = 75L, term_buffer = 50L, window = 25L,
                 max_depth = 10L, metric = 1L, stepsize_jitter = 0,
                 stepsize = rep(1, chains), inv_metric = NULL,
                 threads_per_chain = as.integer(threads_per_chain),
                 profile_trace_every = as.integer(trace_every))
  inits <- rep(list(list(2, numeric(upars_n), logical(upars_n))), chains)
  .Call(C_tp_sample, ptr, config, inits, seq_len(chains), seed, as.integer(chains),
        as.integer(chains * threads_per_chain), 0L, FALSE, FALSE)
}

test_that("c = a + b inside a profile records one chain and two no-chain nodes", {
  r <- prof_test("c_equals_a_plus_b")
  expect_identical(r$status, 0L)
  p <- r$profiles
  expect_identical(p$name, "p")
  expect_identical(p$thread_id, 0L)
  expect_identical(p$phase, "sampling")
  expect_identical(p$parent, NA_character_)
  expect_identical(c(p$chain_stack, p$no_chain_stack), c(1, 2))
  expect_identical(c(p$autodiff_calls, p$no_autodiff_calls), c(1, 0))
  expect_gt(p$forward_time, 0)
  expect_gt(p$reverse_time, 0)
})

test_that("a loop of N entries counts N autodiff calls", {
  p <- prof_test("loop")$profiles
  expect_identical(c(p$autodiff_calls, p$no_autodiff_calls), c(7, 0))
  expect_identical(c(p$chain_stack, p$no_chain_stack), c(7, 0))
})

test_that("a block on doubles has no stack counts and no reverse time", {
  p <- prof_test("doubles")$profiles
  expect_identical(c(p$chain_stack, p$no_chain_stack, p$reverse_time), c(0, 0, 0))
  expect_identical(c(p$autodiff_calls, p$no_autodiff_calls), c(0, 1))
  expect_gt(p$forward_time, 0)
})

test_that("entering a name that is active on the thread fails, and enters nothing", {
  r <- prof_test("duplicate")
  expect_identical(r$status, 2L)   # AD_EINVALID
  expect_identical(r$message,
                   "profile 'p' is already active on this thread (entered again at line 2)")
  # the outer entry and the one after the failure; the failed one is not counted
  expect_identical(r$profiles$autodiff_calls, 2)
})

test_that("an entry and exit cost little (C loop of 1e5 around one node)", {
  skip_on_cran()
  o <- prof_test("overhead")$overhead
  # generous bounds for a noisy machine: the target is 100 ns, measured ~55
  expect_lt(o$ad, 400)
  expect_lt(o$double, 400)
})

nested_code <- "
parameters { real mu; real<lower=0> sigma; }
model {
  profile(\"outer\") {
    profile(\"inner\") {
      mu ~ normal(0, 1);
    }
    sigma ~ lognormal(0, 1);
  }
  profile(\"inner2\") {
    target += -0.5 * square(mu - 1);
  }
  profile(\"outer\") {
    target += 0;
  }
}"

test_that("profile_log_prob: n evaluations give n autodiff calls per entry, with parents", {
  ptr <- prof_ctx(nested_code)
  r <- profile_lp(ptr, c(0.1, -0.2), 25L)
  p <- r$profiles
  expect_setequal(p$name, c("outer", "inner", "inner2"))
  expect_true(all(p$thread_id == 0L & p$phase == "sampling"))
  # "outer" is written twice: one entry, entered twice per evaluation
  expect_identical(row_of(p, "outer")$autodiff_calls, 50)
  expect_identical(row_of(p, "inner")$autodiff_calls, 25)
  expect_identical(row_of(p, "inner2")$autodiff_calls, 25)
  expect_identical(row_of(p, "inner")$parent, "outer")
  expect_identical(row_of(p, "outer")$parent, NA_character_)
  expect_identical(row_of(p, "inner2")$parent, NA_character_)
  expect_true(all(p$no_autodiff_calls == 0))
  # the inner block's nodes are inside the outer one
  expect_gt(row_of(p, "outer")$chain_stack, row_of(p, "inner")$chain_stack)
  expect_lte(row_of(p, "inner")$forward_time, row_of(p, "outer")$forward_time)
  expect_gt(row_of(p, "outer")$reverse_time, 0)
  expect_gt(r$seconds, 0)
  expect_null(r$trace)
})

test_that("profile_log_prob's trace has one event per interval of every k-th evaluation", {
  ptr <- prof_ctx(nested_code)
  r <- profile_lp(ptr, c(0.1, -0.2), 20L, 5L)
  tr <- r$trace
  expect_named(tr, c("name", "ts", "dur", "tid"))
  # 4 traced evaluations, 4 intervals each (outer twice, inner, inner2)
  expect_length(tr$name, 16L)
  expect_identical(as.vector(table(tr$name)[c("inner", "inner2", "outer")]), c(4L, 4L, 8L))
  expect_true(all(tr$tid == 0L))
  expect_true(all(tr$dur >= 0 & tr$ts >= 0))
  expect_identical(attr(tr, "dropped"), 0)
  # an inner interval lies within an outer one
  o <- tr$name == "outer"
  i <- which(tr$name == "inner")[1]
  expect_true(any(tr$ts[o] <= tr$ts[i] & tr$ts[o] + tr$dur[o] >= tr$ts[i] + tr$dur[i]))
})

test_that("a nested block of an active name is an error with the name and the line", {
  ptr <- prof_ctx("
parameters { real x; }
model {
  profile(\"a\") {
    x ~ normal(0, 1);
    profile(\"a\") {
      x ~ normal(0, 1);
    }
  }
}")
  expect_snapshot(profile_lp(ptr, 0.5, 3L), error = TRUE)
})

test_that("a return inside a profile in a function leaves the block", {
  ptr <- prof_ctx("
functions {
  real twice(real x) {
    profile(\"fn\") {
      return 2 * x;
    }
  }
  real half(data real x) {
    profile(\"dfn\") {
      return x / 2;
    }
  }
}
parameters { real x; }
model {
  target += -square(twice(x)) - square(twice(x + 1)) - half(3.0);
}")
  p <- profile_lp(ptr, 0.3, 4L)$profiles
  expect_identical(row_of(p, "fn")$autodiff_calls, 8)
  # a function called with data only runs on doubles
  expect_identical(c(row_of(p, "dfn")$autodiff_calls, row_of(p, "dfn")$no_autodiff_calls),
                   c(0, 4))
})

test_that("a profile inside reduce_sum's partial sum records under the threads that ran it", {
  code <- "
functions {
  real partial(array[] real ys, int start, int end, real mu) {
    real s = 0;
    profile(\"partial\") {
      for (k in 1:20) s += normal_lpdf(ys | mu + k * 1e-3, 1);
    }
    return s;
  }
}
data { int N; int grain; array[N] real y; }
parameters { real mu; }
model {
  profile(\"sum\") {
    target += reduce_sum_static(partial, y, grain, mu);
  }
}"
  set.seed(3)
  ptr <- prof_ctx(code, list(N = 4000L, grain = 100L, y = rnorm(4000)))
  n <- 10L
  p <- with_threads(2, profile_lp(ptr, 0.2, n))$profiles
  part <- p$name == "partial"
  expect_gte(sum(part), 1L)
  # every chunk call counted once, whichever thread ran it
  expect_identical(sum(p$autodiff_calls[part]), 40 * n)
  expect_identical(anyDuplicated(p$thread_id[part]), 0L)
  expect_identical(row_of(p, "sum")$autodiff_calls, as.double(n))
  # the chunks run their own reverse sweep: reverse time on the threads' rows
  expect_true(all(p$reverse_time[part] > 0))
  # on every thread, the parent is the profile the opener was in
  expect_true(all(p$parent[part] == "sum"))
  if (sum(part) > 1L) {
    expect_true(all(p$thread_id[part] >= 0L))
  }
})

sampled_code <- function(with_profiles) {
  pr <- function(name, body) {
    if (with_profiles) sprintf("profile(\"%s\") { %s }", name, body) else sprintf("{ %s }", body)
  }
  paste0("
data { int N; vector[N] y; }
parameters { real mu; real<lower=0> sigma; }
transformed parameters { real s2; ", pr("tp", "s2 = square(sigma);"), " }
model {
  ", pr("priors", "mu ~ normal(0, 5); sigma ~ lognormal(0, 1);"), "
  ", pr("lik", paste("y ~ normal(mu, sigma);", pr("rej", "if (mu > 1.5) reject(\"mu too large: \", mu);"))), "
}
generated quantities { real m; ", pr("gq", "m = mu + 1;"), " }")
}

test_that("sampling: per chain and phase, calls equal the gradients; profiles change no draw", {
  set.seed(5)
  data <- list(N = 20L, y = rnorm(20, 1, 2))
  ptr <- prof_ctx(sampled_code(TRUE), data)
  raw <- sample_raw(ptr, 2L, chains = 2L, warmup = 150L, samples = 100L, trace_every = 10L)
  for (ch in raw$chains) {
    expect_identical(ch$return_code, 0L)
    p <- ch$profiles
    expect_named(p, c("name", "thread_id", "phase", "parent", "forward_time", "reverse_time",
                      "chain_stack", "no_chain_stack", "autodiff_calls", "no_autodiff_calls"))
    for (nm in c("tp", "priors", "lik")) {
      w <- row_of(p, nm, "warmup")
      s <- row_of(p, nm, "sampling")
      expect_identical(w$autodiff_calls + s$autodiff_calls, ch$n_grad)
      expect_gt(w$autodiff_calls, 0)
      expect_gt(s$autodiff_calls, 0)
    }
    expect_identical(row_of(p, "rej", "sampling")$parent, "lik")
    # the rejected proposals counted too: every evaluation entered "rej"
    rej <- p$autodiff_calls[p$name == "rej"]
    expect_identical(sum(rej), ch$n_grad)
    expect_true(any(grepl("mu too large", ch$messages, fixed = TRUE)))
    # generated quantities and the transformed parameters written with each
    # saved draw run on doubles, in sampling only (warmup draws are not saved)
    expect_identical(row_of(p, "gq")$no_autodiff_calls, 100)
    expect_false(any(p$name == "gq" & p$phase == "warmup"))
    expect_identical(row_of(p, "tp")$no_autodiff_calls, 100)
    # trace: one event per interval of every 10th gradient, plus the blocks
    # on doubles run while such an evaluation was the last
    tr <- ch$trace
    expect_identical(as.double(sum(tr$name == "priors")), floor(ch$n_grad / 10))
    expect_true(all(tr$tid == tr$tid[1]))
  }
  plain <- sample_raw(prof_ctx(sampled_code(FALSE), data), 2L, chains = 2L, warmup = 150L,
                      samples = 100L)
  for (k in 1:2) {
    expect_identical(raw$chains[[k]]$draws, plain$chains[[k]]$draws)
    expect_identical(plain$chains[[k]]$profiles$name, character(0))
    expect_null(plain$chains[[k]]$trace)
  }
})

test_that("gp_profile: the four profiles, cholesky inside gp, calls follow the gradients", {
  skip_on_cran()
  dir <- system.file("extdata", package = "tapestry")
  skip_if_not(file.exists(file.path(dir, "gp_profile.stan")))
  ctx <- tapestry_model(file.path(dir, "gp_profile.stan"))$bind(file.path(dir, "gp_profile.data.json"))
  raw <- sample_raw(context_ptr(ctx), 3L, warmup = 100L, samples = 100L)
  ch <- raw$chains[[1]]
  p <- ch$profiles
  expect_setequal(unique(p$name), c("gp", "cholesky", "priors", "likelihood"))
  expect_true(all(p$parent[p$name == "cholesky"] == "gp"))
  calls <- function(nm) sum(p$autodiff_calls[p$name == nm])
  # every evaluation enters gp and cholesky; one that the Cholesky factor
  # rejects (a matrix not positive definite early in warmup) stops there
  expect_identical(calls("gp"), ch$n_grad)
  expect_identical(calls("cholesky"), ch$n_grad)
  for (nm in c("priors", "likelihood")) {
    expect_lte(calls(nm), ch$n_grad)
    expect_gt(calls(nm), 0.9 * ch$n_grad)
  }
  tot <- function(nm) sum(p$forward_time[p$name == nm] + p$reverse_time[p$name == nm])
  expect_lt(tot("cholesky"), tot("gp"))
})
