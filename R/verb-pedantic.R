# stanc's pedantic mode: its warnings, with its wording, computed from the
# parser's tree (tp_parse()'s S-expression, read by sexp_read()) and the
# checker's tables (tp_check()).  The checks: unused parameters, parameters
# with no prior or several (stanc's factor-graph definition: a factor next to
# the parameter that reaches no data except through it), a parameter on the
# left of several `~`, hard and nonsensical bounds, uniform distributions
# whose bounds differ from the parameter's, lkj_corr, gamma/inv_gamma with
# equal arguments below 1, constants far from unit scale, parameters given to distributions whose support
# or argument needs a constraint they lack, control flow depending on
# parameters, non-linear left-hand sides of ~, variables read before they
# are assigned; integer division comes from the checker itself.

# Declarations of a block: name, type, transform, lower, upper (numbers or NA).
sx_decls <- function(block) {
  out <- list()
  for (d in block) {
    if (sx_head(d) != "decl") next
    name <- d[[3L]]
    info <- list(name = name, type = unquote(d[[2L]]), transform = NA_character_,
                 lower = NULL, upper = NULL, node = d)
    for (p in d[-(1:3)]) {
      h <- sx_head(p)
      if (h == "transform") info$transform <- p[[2L]]
      if (h %in% c("lower", "upper")) info[[h]] <- p[[2L]]
      if (h == "init") info$init <- p[[2L]]
    }
    out[[name]] <- info
  }
  out
}

# A literal number (int, real, with unary minus), or NA.
sx_number <- function(x) {
  if (!is.list(x)) return(NA_real_)
  h <- sx_head(x)
  if (h %in% c("int", "real")) return(as.numeric(x[[2L]]))
  if (h == "unop" && x[[2L]] == "-") return(-sx_number(x[[3L]]))
  NA_real_
}
sx_number_text <- function(x) {
  h <- sx_head(x)
  if (h %in% c("int", "real")) return(x[[2L]])
  if (h == "unop") return(paste0("-", sx_number_text(x[[3L]])))
  ""
}

# The distribution statements of the model block: (name, args, is_tilde),
# args[[1]] the variate.  `~` and target += NAME_lpdf(y | ...).
sx_distributions <- function(model) {
  out <- list()
  walk <- function(x) {
    if (!is.list(x)) return()
    h <- sx_head(x)
    if (h == "tilde") {
      args <- Filter(function(a) is.list(a) && sx_head(a) != "T", x[-c(1L, 3L)])
      out[[length(out) + 1L]] <<- list(name = x[[3L]], args = args, tilde = TRUE, node = x)
    } else if (h == "target+=" && sx_head(x[[2L]]) == "call") {
      fn <- x[[2L]][[2L]]
      m <- regmatches(fn, regexec("^(.*)_(lpdf|lpmf|lupdf|lupmf)$", fn))[[1L]]
      if (length(m)) {
        args <- Filter(function(a) is.list(a), x[[2L]][-(1:2)])
        out[[length(out) + 1L]] <<- list(name = m[2L], args = args, tilde = FALSE, node = x)
      }
    }
    for (y in x[-1L]) walk(y)
  }
  for (s in model) walk(s)
  out
}

pedantic_warnings <- function(code, name = "string") {
  prog <- sexp_read(tp_parse(code, name)$dump)
  chk <- tp_check(code, name)
  params <- sx_decls(sx_block(prog, "parameters"))
  if (!length(params) && !length(sx_block(prog, "model"))) {
    return(character())
  }
  data <- c(sx_decls(sx_block(prog, "data")), sx_decls(sx_block(prog, "transformed_data")))
  tparams <- sx_decls(sx_block(prog, "transformed_parameters"))
  model <- sx_block(prog, "model")
  pnames <- names(params)
  dnames <- names(data)
  # data that are likely sizes (ints) are not data for the priors' graph
  dreal <- dnames[!vapply(data, function(d) grepl("int$", d$type), TRUE)]
  # what each transformed parameter depends on (params and data), in order
  tp_deps <- list()
  expand <- function(vars) {
    out <- character()
    for (v in vars) out <- c(out, if (!is.null(tp_deps[[v]])) tp_deps[[v]] else v)
    unique(out)
  }
  tp_block <- sx_block(prog, "transformed_parameters")
  for (nm in names(tparams)) tp_deps[[nm]] <- character()
  # assignments in the block: lhs variable gets the rhs variables
  for (s in sx_find(c(list("block"), tp_block), function(x) sx_head(x) %in% c("decl", "assign"))) {
    if (sx_head(s) == "decl") {
      nm <- s[[3L]]
      if (!nm %in% names(tparams)) next
      tp_deps[[nm]] <- unique(c(tp_deps[[nm]], expand(sx_vars(s[-(1:3)]))))
    } else {
      lhs <- sx_vars(s[[3L]])[1L]
      if (!is.na(lhs) && lhs %in% names(tparams)) {
        tp_deps[[lhs]] <- unique(c(tp_deps[[lhs]], expand(sx_vars(s[-(1:3)]))))
      }
    }
  }
  # local variables of the model block: what they depend on
  loc_deps <- list()
  for (s in sx_find(c(list("block"), model), function(x) sx_head(x) %in% c("decl", "assign", "for", "foreach"))) {
    h <- sx_head(s)
    if (h == "decl") {
      loc_deps[[s[[3L]]]] <- unique(c(loc_deps[[s[[3L]]]], expand(sx_vars(s[-(1:3)]))))
    } else if (h == "assign") {
      lhs <- sx_vars(s[[3L]])[1L]
      if (!is.na(lhs) && !lhs %in% c(pnames, names(tparams))) {
        loc_deps[[lhs]] <- unique(c(loc_deps[[lhs]], expand(sx_vars(s[-(1:3)]))))
      }
    }
  }
  full <- function(vars) {
    v <- expand(vars)
    for (k in 1:3) {
      v <- unique(c(v, unlist(lapply(v, function(x) loc_deps[[x]]), use.names = FALSE)))
      v <- expand(v)
    }
    intersect(v, c(pnames, dreal))
  }
  # factors: each ~ and target += statement of the model block
  factors <- lapply(sx_find(c(list("block"), model), function(x) sx_head(x) %in% c("tilde", "target+=")),
                    function(f) full(sx_vars(f)))
  msgs <- character()
  where <- character()
  add <- function(msg, at = NA_character_) {
    msgs <<- c(msgs, msg)
    where <<- c(where, at)
  }
  decl_at <- function(nm) {
    r <- chk$decls[chk$decls$name == nm & chk$decls$block == "parameters", ]
    if (nrow(r)) sprintf("line %d, column %d", r$line[1L], r$col[1L]) else NA
  }
  # unused parameters: in no factor
  used <- unique(unlist(factors, use.names = FALSE))
  for (p in setdiff(pnames, used)) {
    add(sprintf("The parameter %s was declared but was not used in the density calculation.", p),
        decl_at(p))
  }
  # priors: neighbours of p that reach no data once p is removed
  reaches_data <- function(start_vars, removed) {
    frontier <- setdiff(start_vars, removed)
    seen <- character()
    while (length(frontier)) {
      v <- frontier[1L]
      frontier <- frontier[-1L]
      if (v %in% seen) next
      seen <- c(seen, v)
      if (v %in% dreal) return(TRUE)
      for (f in factors) if (v %in% f) frontier <- c(frontier, setdiff(f, c(removed, seen)))
    }
    FALSE
  }
  for (p in intersect(pnames, used)) {
    n <- sum(vapply(factors, function(f) p %in% f && !reaches_data(setdiff(f, p), p), TRUE))
    if (n == 0L) {
      add(sprintf(paste0("The parameter %s has no priors. This means either no prior is ",
                         "provided, or the prior(s) depend on data variables. In the later ",
                         "case, this may be a false positive."), p), decl_at(p))
    } else if (n > 1L) {
      add(sprintf("The parameter %s has %d priors.", p, n), decl_at(p))
    }
  }
  dists <- sx_distributions(model)
  # several ~ with the same parameter on the left
  lhs <- vapply(dists, function(d) {
    a <- d$args[[1L]]
    if (sx_head(a) == "var") a[[2L]] else ""
  }, "")
  for (v in unique(lhs[lhs %in% pnames & duplicated(lhs)])) {
    add(sprintf("The parameter %s is on the left-hand side of more than one tilde statement.", v))
  }
  # bounds
  for (p in params) {
    lo <- if (!is.null(p$lower)) sx_number(p$lower) else NA
    up <- if (!is.null(p$upper)) sx_number(p$upper) else NA
    if (is.na(lo) || is.na(up)) next
    if (lo >= up) {
      add(sprintf(paste0("Parameter %s has constraints that don't make sense. The lower bound ",
                         "should be strictly less than the upper bound."), p$name), decl_at(p$name))
    } else if (!((lo == 0 && up == 1) || (lo == -1 && up == 1))) {
      add(sprintf(paste0(
        "Your Stan program has a parameter %s with a lower and upper bound in its declaration. ",
        "These hard constraints are not recommended, for two reasons: (a) Except when there ",
        "are logical or physical constraints, it is very unusual for you to be sure that a ",
        "parameter will fall inside a specified range, and (b) The infinite gradient induced ",
        "by a hard constraint can cause difficulties for Stan's sampling algorithm. As a ",
        "consequence, we recommend soft constraints rather than hard constraints; for ",
        "example, instead of constraining an elasticity parameter to fall between 0, and 1, ",
        "leave it unconstrained and give it a normal(0.5,0.5) prior distribution."), p$name),
        decl_at(p$name))
    }
  }
  for (d in dists) for (m in pedantic_dist_warnings(d, params)) add(m)
  # a non-linear transform on the left of a distribution (stanc's linearity test)
  for (d in dists) {
    if (!sx_is_linear(d$args[[1L]], TRUE)) {
      add(paste0("Left-hand side of distribution statement (~) may contain a non-linear ",
                 "transform of a parameter or local variable. If it does, you need to include ",
                 "a target += statement with the log absolute determinant of the Jacobian of ",
                 "the transform. You could also consider defining a transformed parameter and ",
                 "using jacobian += in the transformed parameters block."))
    }
  }
  # variables read before any assignment (straight-line order of a block)
  for (b in c("transformed_data", "transformed_parameters", "model", "generated_quantities")) {
    for (v in sx_uninitialized(sx_block(prog, b))) {
      add(sprintf("The variable %s may not have been assigned a value before its first use.", v))
    }
  }
  # constants far from unit scale given to distributions
  for (d in dists) {
    for (a in d$args) {
      v <- sx_number(a)
      if (!is.na(v) && v != 0 && (abs(v) < 0.1 || abs(v) > 10)) {
        add(sprintf(paste0("Argument %s suggests there may be parameters that are not unit ",
                           "scale; consider rescaling with a multiplier, see: ",
                           "https://mc-stan.org/docs/stan-users-guide/efficiency-tuning.html",
                           "#standardizing-predictors"), sx_number_text(a)))
      }
    }
  }
  # control flow on parameters (model block, transformed parameters)
  cf <- sx_find(c(list("block"), tp_block, model), function(x) sx_head(x) %in% c("if", "while", "for", "foreach"))
  for (s in cf) {
    h <- sx_head(s)
    cond <- switch(h, "if" = , "while" = list(s[[2L]]), "for" = list(s[[3L]], s[[4L]]),
                   foreach = list(s[[3L]]))
    deps <- intersect(full(sx_vars(cond)), c(pnames))
    tdeps <- intersect(sx_vars(cond), names(tparams))
    deps <- sort(unique(c(deps, intersect(unlist(lapply(tdeps, function(v) tp_deps[[v]])), pnames))))
    if (length(deps)) {
      add(sprintf("A control flow statement depends on parameter(s): %s.",
                  paste(deps, collapse = ", ")))
    }
  }
  pedantic_format(msgs, where, name, chk)
}

pedantic_format <- function(msgs, where, name, chk) {
  w <- ifelse(is.na(where), sprintf("Warning: %s", msgs),
              sprintf("Warning in '%s', %s: %s", name, where, msgs))
  # the checker's own warnings (integer division, deprecations) are shown
  # by the parse itself, as without pedantic mode
  w
}

# stanc's distribution-specific warnings for one distribution statement.
pedantic_dist_warnings <- function(d, params) {
  out <- character()
  name <- d$name
  positive <- "strictly positive"
  nonneg <- "non-negative"
  unit <- "[0,1]"
  open_unit <- "(0,1)"
  scale <- "a scale parameter"
  table <- list(
    normal = list(c(2, positive, scale)),
    cauchy = list(c(2, positive, scale)),
    student_t = list(c(1, positive, "degrees of freedom"), c(3, positive, scale)),
    double_exponential = list(c(2, positive, scale)),
    logistic = list(c(2, positive, scale)),
    gumbel = list(c(2, positive, scale)),
    lognormal = list(c(0, positive), c(2, positive, scale)),
    chi_square = list(c(0, positive), c(1, positive, "degrees of freedom")),
    inv_chi_square = list(c(0, positive), c(1, positive, "degrees of freedom")),
    exponential = list(c(0, positive), c(1, positive, scale)),
    gamma = list(c(0, positive), c(1, positive, "a shape parameter"),
                 c(2, positive, "an inverse scale parameter")),
    inv_gamma = list(c(0, positive), c(1, positive, "a shape parameter"), c(2, positive, scale)),
    weibull = list(c(0, nonneg), c(1, positive, "a shape parameter"), c(2, positive, scale)),
    frechet = list(c(0, positive), c(1, positive, "a shape parameter"), c(2, positive, scale)),
    rayleigh = list(c(0, nonneg), c(1, positive, scale)),
    beta = list(c(0, open_unit), c(1, positive, "a count parameter"),
                c(2, positive, "a count parameter")),
    bernoulli = list(c(1, unit, "chance of success")),
    binomial = list(c(2, unit, "chance of success")),
    poisson = list(c(1, positive, "a rate parameter")),
    von_mises = list(c(2, positive, scale))
  )
  satisfied <- function(p, constr) {
    lo <- if (!is.null(p$lower)) sx_number(p$lower) else NA
    up <- if (!is.null(p$upper)) sx_number(p$upper) else NA
    t <- p$transform
    if (!is.na(t) && t %in% c("positive_ordered", "simplex")) lo <- 0
    switch(constr,
           "strictly positive" = , "non-negative" = !is.na(lo) && lo >= 0,
           "[0,1]" = , "(0,1)" = !is.na(lo) && lo >= 0 && !is.na(up) && up <= 1,
           TRUE)
  }
  literal_bad <- function(v, constr) {
    switch(constr, "strictly positive" = v <= 0, "non-negative" = v < 0,
           "[0,1]" = v < 0 || v > 1, "(0,1)" = v <= 0 || v >= 1, FALSE)
  }
  for (rule in table[[name]] %||% list()) {
    k <- as.integer(rule[1L])
    if (k + 1L > length(d$args)) next
    a <- d$args[[k + 1L]]
    constr <- rule[2L]
    if (sx_head(a) == "var" && !is.null(params[[a[[2L]]]])) {
      p <- a[[2L]]
      if (!satisfied(params[[p]], constr)) {
        out <- c(out, if (k == 0L) {
          sprintf(paste0("Parameter %s is given a %s distribution, which has %s support, but %s ",
                         "was not constrained to be %s."), p, name, constr, p, constr)
        } else {
          sprintf(paste0("A %s distribution is given parameter %s as %s (argument %d), but %s ",
                         "was not constrained to be %s."), name, p, rule[3L], k, p, constr)
        })
      }
    } else if (k > 0L && !is.na(v <- sx_number(a)) && literal_bad(v, constr)) {
      out <- c(out, sprintf(paste0("A %s distribution is given value %s as %s (argument %d), but ",
                                   "%s is not %s."), name, sx_number_text(a), rule[3L], k,
                            rule[3L], constr))
    }
  }
  if (name == "uniform" && length(d$args) >= 3L && sx_head(d$args[[1L]]) == "var" &&
      !is.null(params[[d$args[[1L]][[2L]]]])) {
    p <- params[[d$args[[1L]][[2L]]]]
    lo <- if (!is.null(p$lower)) sx_number(p$lower) else NA
    up <- if (!is.null(p$upper)) sx_number(p$upper) else NA
    a1 <- sx_number(d$args[[2L]])
    a2 <- sx_number(d$args[[3L]])
    warn <- is.null(p$lower) || is.null(p$upper) ||
      (!is.na(a1) && !is.na(lo) && a1 != lo) || (!is.na(a2) && !is.na(up) && a2 != up)
    if (warn) {
      out <- c(out, sprintf(paste0(
        "Parameter %s is given a uniform distribution. The uniform distribution is not ",
        "recommended, for two reasons: (a) Except when there are logical or physical ",
        "constraints, it is very unusual for you to be sure that a parameter will fall inside ",
        "a specified range, and (b) The infinite gradient induced by a uniform density can ",
        "cause difficulties for Stan's sampling algorithm. As a consequence, we recommend soft ",
        "constraints rather than hard constraints; for example, instead of giving an ",
        "elasticity parameter a uniform(0,1) distribution, try normal(0.5,0.5)."), p$name))
    }
  }
  if (name == "lkj_corr") {
    out <- c(out, paste0(
      "It is suggested to reparameterize your model to replace lkj_corr with ",
      "lkj_corr_cholesky, the Cholesky factor variant. lkj_corr tends to run slower, consume ",
      "more memory, and has higher risk of numerical errors."))
  }
  if (name %in% c("gamma", "inv_gamma") && length(d$args) == 3L) {
    a <- sx_number(d$args[[2L]])
    b <- sx_number(d$args[[3L]])
    if (!is.na(a) && !is.na(b) && a == b && a < 1) {
      out <- c(out, paste0(
        "There is a gamma or inverse-gamma distribution with parameters that are equal to ",
        "each other and set to values less than 1. This is mathematically acceptable and can ",
        "make sense in some problems, but typically we see this model used as an attempt to ",
        "assign a noninformative prior distribution. In fact, priors such as ",
        "inverse-gamma(.001,.001) can be very strong, as explained by Gelman (2006). Instead ",
        "we recommend something like a normal(0,1) or student_t(4,0,1), with parameter ",
        "constrained to be positive."))
    }
  }
  out
}

linear_fnames <- c("add", "append_block", "append_row", "append_col", "block", "col", "cols",
                   "row", "rows", "diagonal", "head", "tail", "minus", "negative_infinity",
                   "not_a_number", "rep_matrix", "rep_vector", "rep_row_vector",
                   "positive_infinity", "segment", "subtract", "sum", "to_vector",
                   "to_row_vector", "to_matrix", "to_array_1d", "to_array_2d", "transpose")

# stanc's test that an expression is linear in its variables (allow_var:
# a variable may appear here; in a*b at most one side holds variables).
sx_is_linear <- function(e, allow_var) {
  if (!is.list(e)) return(TRUE)
  all_lin <- function(args, allow) all(vapply(args, sx_is_linear, TRUE, allow_var = allow))
  switch(sx_head(e),
    var = allow_var,
    int = , real = , string = TRUE,
    index = sx_is_linear(e[[2L]], allow_var),
    cond = all_lin(e[2:4], allow_var),
    transpose = sx_is_linear(e[[2L]], allow_var),
    array = , rowvec = all_lin(e[-1L], allow_var),
    unop = sx_is_linear(e[[3L]], allow_var),
    binop = {
      op <- e[[2L]]
      a <- e[[3L]]
      b <- e[[4L]]
      if (op %in% c("+", "-")) {
        all_lin(list(a, b), allow_var)
      } else if (all_lin(list(a, b), FALSE)) {
        TRUE
      } else if (op %in% c("*", "/", "%/%")) {
        (sx_is_linear(a, allow_var) && sx_is_linear(b, FALSE)) ||
          (sx_is_linear(a, FALSE) && sx_is_linear(b, allow_var))
      } else {
        FALSE
      }
    },
    call = {
      args <- Filter(is.list, e[-(1:2)])
      if (e[[2L]] %in% linear_fnames) all_lin(args, allow_var) else all_lin(args, FALSE)
    },
    FALSE)
}

# Local variables declared without a value whose first mention, in the
# statements' order, is not the left-hand side of an assignment.
sx_uninitialized <- function(stmts) {
  out <- character()
  pending <- character()
  first_use <- function(x) {
    # preorder walk recording reads and writes of pending variables
    if (!is.list(x)) return()
    h <- sx_head(x)
    if (h == "decl") {
      has_init <- any(vapply(x[-(1:3)], function(p) is.list(p) && sx_head(p) == "init", TRUE))
      for (p in x[-(1:3)]) if (is.list(p) && sx_head(p) != "init") first_use(p)
      for (p in x[-(1:3)]) if (is.list(p) && sx_head(p) == "init") first_use(p)
      if (!has_init && !grepl("tuple", x[[2L]])) pending <<- c(pending, x[[3L]])
      return()
    }
    if (h == "assign") {
      lhs <- x[[3L]]
      base <- lhs
      while (sx_head(base) %in% c("index", "proj")) {
        for (i in base[-(1:2)]) first_use(i)
        base <- base[[2L]]
      }
      if (x[[2L]] != "=") first_use(base)
      first_use(x[[4L]])
      if (sx_head(base) == "var") pending <<- setdiff(pending, base[[2L]])
      return()
    }
    if (h == "var") {
      v <- x[[2L]]
      if (v %in% pending) {
        out <<- c(out, v)
        pending <<- setdiff(pending, v)
      }
      return()
    }
    for (y in x[-1L]) first_use(y)
  }
  for (s in stmts) first_use(s)
  unique(out)
}
