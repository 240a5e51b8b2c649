# tapestry_brm(): brms writes the Stan program and its data, tapestry samples,
# and the draws in memory become the stanfit a brmsfit holds (built as
# rstan's read_stan_csv() builds it from CmdStan CSV files, without the
# files), renamed by brms::rename_pars() as brm() does.  brms and rstan are
# Suggests: nothing here runs without them.

brm_need_packages <- function(pkgs = c("brms", "rstan")) {
  missing <- pkgs[!vapply(pkgs, requireNamespace, TRUE, quietly = TRUE)]
  if (length(missing)) {
    tapestry_raise(sprintf(paste0(
      "tapestry_brm() needs the %s package%s: brms writes the Stan program and ",
      "its data, rstan holds the draws as the stanfit a brmsfit keeps. Install %s ",
      "(install.packages(c(%s)), or Debian's r-cran-brms, which brings rstan)."),
      paste0("'", missing, "'", collapse = " and "), if (length(missing) > 1) "s" else "",
      if (length(missing) > 1) "them" else "it",
      paste0("\"", missing, "\"", collapse = ", ")), "tapestry_brm_error")
  }
}

# brms's data as $sample() takes it: plain vectors and arrays without
# dimnames or other attributes (a 1-d array stays a 1-d array).
brm_standata <- function(sdata) {
  lapply(unclass(sdata), function(e) {
    d <- dim(e)
    if (is.factor(e)) e <- as.integer(e)
    if (is.logical(e)) e <- as.integer(e)
    e <- as.vector(unclass(e))
    if (!is.null(d)) dim(e) <- d
    e
  })
}

# The stanfit without the parameters brm() does not keep (brms's
# exclude_pars(): z_1, L_1, ... unless save_pars(all = TRUE)), as rstan's
# sampling(pars = exclude, include = FALSE) leaves them out.
brm_drop_pars <- function(sf, exclude) {
  drop <- sf@model_pars %in% exclude
  if (!any(drop)) return(sf)
  pars <- sf@model_pars[!drop]
  fn <- sf@sim$fnames_oi
  keep <- sub("\\[.*$", "", fn) %in% pars
  sf@model_pars <- pars
  sf@par_dims <- sf@par_dims[pars]
  sf@sim$pars_oi <- sf@sim$pars_oi[sf@sim$pars_oi %in% pars]
  sf@sim$dims_oi <- sf@sim$dims_oi[sf@sim$pars_oi]
  sf@sim$fnames_oi <- fn[keep]
  sf@sim$n_flatnames <- sum(keep)
  # mean_pars has every flat name but lp__ (the last)
  keep_mean <- keep[fn != "lp__"]
  sf@sim$samples <- lapply(sf@sim$samples, function(s) {
    a <- attributes(s)
    out <- unclass(s)[keep]
    for (nm in setdiff(names(a), c("names", "row.names", "class"))) attr(out, nm) <- a[[nm]]
    if (!is.null(a$class)) class(out) <- a$class
    mp <- attr(out, "mean_pars")
    if (length(mp) == length(keep_mean)) attr(out, "mean_pars") <- mp[keep_mean]
    out
  })
  sf
}

# The stanfit of a tapestry fit's chains, as rstan::read_stan_csv() makes it
# from the fit's CmdStan CSV files ($save_output_files()), from the draws
# in memory: the same samples (data frames of CmdStan's column names, the
# parameters then lp__, with the sampler's columns, the adaptation, the
# chain's arguments and times as attributes), the same sim list and
# stan_args (rstan parses the same comment lines the files would have).
# Written against rstan 2.21's read_stan_csv(); NULL when this rstan lacks
# the functions it reads files with, and the caller writes the files.
brm_stanfit <- function(tfit, model_name = "tapestry_brm") {
  get <- function(f) tryCatch(utils::getFromNamespace(f, "rstan"), error = function(e) NULL)
  fns <- lapply(c(parse = "parse_stancsv_comments", paridx = "paridx_fun", unique = "unique_par",
                  dims = "get_dims_from_fnames", sqr = "dotfnames_to_sqrfnames",
                  time = "get_time_from_csv"), get)
  if (any(vapply(fns, is.null, TRUE))) return(NULL)
  priv <- tfit$.__enclos_env__$private
  meta <- tfit$metadata()
  chains <- priv$chains_[priv$used_]
  ss_lst <- lapply(chains, function(ch) {
    d <- ch$draws
    # the names read.csv() gives CmdStan's columns
    df <- as.data.frame(d)
    names(df) <- make.names(cmdstan_names(colnames(d)), unique = TRUE)
    df
  })
  cs_lst2 <- lapply(chains, function(ch) {
    file <- paste0(model_name, "-", ch$chain_id, ".csv")
    adapted <- !isFALSE(meta$adapt_engaged) && (meta$iter_warmup %||% 1000) > 0 &&
      length(ch$step_size) == 1L && !is.na(ch$step_size)
    fns$parse(c(csv_header(meta, ch, file),
                if (adapted) csv_adaptation(ch, meta$metric %||% "diag_e"),
                csv_timing(ch$time)))
  })
  fnames <- names(ss_lst[[1]])
  n_save <- nrow(ss_lst[[1]])
  paridx <- fns$paridx(fnames)
  lp__idx <- attr(paridx, "meta")["lp__"]
  par_fnames <- c(fnames[paridx], "lp__")
  pars_oi <- fns$unique(par_fnames)
  dims_oi <- lapply(pars_oi, function(i) {
    pat <- paste("^", i, "(\\.\\d+)*$", sep = "")
    fns$dims(par_fnames[grepl(pat, par_fnames)], i)
  })
  names(dims_oi) <- pars_oi
  samples <- lapply(seq_along(ss_lst), function(i) {
    df <- ss_lst[[i]]
    ss <- df[c(paridx, lp__idx)]
    attr(ss, "sampler_params") <- df[setdiff(attr(paridx, "meta"), lp__idx)]
    attr(ss, "adaptation_info") <- cs_lst2[[i]]$adaptation_info
    attr(ss, "args") <- list(sampler_t = cs_lst2[[i]]$sampler_t, chain_id = cs_lst2[[i]]$chain_id)
    if (cs_lst2[[i]]$has_time) attr(ss, "elapsed_time") <- fns$time(cs_lst2[[i]]$time_info)
    ss
  })
  warmup <- vapply(cs_lst2, function(i) i$warmup, 0L)
  thin <- vapply(cs_lst2, function(i) i$thin, 0L)
  iter <- vapply(cs_lst2, function(i) i$iter, 0L)
  save_warmup <- vapply(cs_lst2, function(i) i$save_warmup, 0L)
  warmup2 <- if (max(save_warmup) == 1L) 1 + (warmup[1] - 1) %/% thin[1] else 0
  n_kept <- n_save - warmup2
  idx_kept <- if (warmup2 == 0) seq_len(n_kept) else -(1:warmup2)
  for (i in seq_along(samples)) {
    m <- vapply(samples[[i]], function(x) mean(x[idx_kept]), numeric(1))
    attr(samples[[i]], "mean_pars") <- m[-length(m)]
    attr(samples[[i]], "mean_lp__") <- m["lp__"]
  }
  nchains <- length(samples)
  # read_stan_csv's permutations, drawn from R's stream as it draws them
  perm_lst <- lapply(seq_len(nchains), function(id) sample.int(n_kept))
  sim <- list(samples = samples, iter = iter[1], thin = thin[1], warmup = warmup[1],
              chains = nchains, n_save = rep(n_save, nchains),
              warmup2 = rep(warmup2, nchains), permutation = perm_lst, pars_oi = pars_oi,
              dims_oi = dims_oi, fnames_oi = fns$sqr(par_fnames),
              n_flatnames = length(par_fnames))
  null_dso <- methods::new("cxxdso", sig = list(character(0)), dso_saved = FALSE,
                           dso_filename = character(0), modulename = character(0),
                           system = R.version$system, cxxflags = character(0),
                           .CXXDSOMISC = new.env(parent = emptyenv()))
  null_sm <- methods::new("stanmodel", model_name = model_name, model_code = character(0),
                          model_cpp = list(), dso = null_dso)
  methods::new("stanfit", model_name = model_name, model_pars = pars_oi, par_dims = dims_oi,
               mode = 0L, sim = sim, inits = list(), stan_args = cs_lst2, stanmodel = null_sm,
               date = format(Sys.time(), "%a %b %d %X %Y"),
               .MISC = new.env(parent = emptyenv()))
}

# brm()'s init as $sample() takes it
brm_init <- function(init) {
  if (is.null(init) || identical(init, "random")) return(NULL)
  if (identical(init, "0") || identical(init, 0) || identical(init, 0L)) return(0)
  init
}

# the deprecation warning for brms 2.18's array syntax (`int Y[N]`) is
# brms's business, not the user's
brm_model <- function(code) {
  withCallingHandlers(tapestry_model(code = code),
                      warning = function(w) {
                        if (grepl("deprecated|array syntax", conditionMessage(w))) {
                          invokeRestart("muffleWarning")
                        }
                      })
}

#' brms models sampled by tapestry: a brmsfit with no compile step
#'
#' `tapestry_brm()` takes `brms::brm()`'s arguments. 'brms' writes the Stan
#' program and its data (`brm(..., empty = TRUE)`, `standata()`), tapestry
#' samples it (`tapestry_model(code =)$sample()`), and the draws in memory
#' become the fit's `stanfit` (built as `rstan::read_stan_csv()` builds it
#' from 'CmdStan' CSV files, without writing any) and are renamed by brms's
#' `rename_pars()`, as brm() assembles its own. The result is a
#' `brmsfit` on which brms's post-processing works: `summary()`, `fixef()`,
#' `ranef()`, `conditional_effects()`, `posterior_predict()`,
#' `posterior_epred()`, `pp_check()`, `loo()`, `bayes_R2()`, `hypothesis()`,
#' `as_draws_df()` and the rest.
#'
#' The result has class `c("tapestry_brmsfit", "brmsfit")`. Its `update()`
#' method (`update(fit, newdata =, formula. =, ...)`, brms's arguments)
#' merges the new arguments with the fit's as brms's `update.brmsfit()`
#' does (the formula updated with `formula.`, the data, the priors the user
#' set with the new ones, `sample_prior`, `data2`, `stanvars`, `save_pars`,
#' `iter`, `warmup`, `chains`, `thin`, `cores`, `init`, `control`, `silent`,
#' `refresh` and the `$sample()` arguments given in `...`, kept in the fit's
#' element `tapestry_args`; not `seed`, which brms's update() does not keep
#' either) and calls `tapestry_brm()` again: a changed model is written by
#' brms and sampled with nothing to compile. `brms::update.brmsfit()` itself
#' cannot be used on it, since it would call `brm()`, which compiles.
#' `brms::kfold()`, which refits through `update()`, re-samples through
#' tapestry too.
#'
#' Tested with 'brms' 2.18.0 and 'rstan' 2.21.7 (Debian's r-cran-brms).
#' brms 2.18 writes Stan's old array syntax, which tapestry reads; newer brms
#' writes the new syntax.
#'
#' @param formula,data,family,prior,autocor,data2,cov_ranef,sample_prior,sparse,knots,drop_unused_levels,stanvars,stan_funs,save_pars,normalize,save_model
#'   As for `brms::brm()`: they are passed to brms, which writes the program
#'   and its data.
#' @param chains Number of chains.
#' @param cores Number of chains run at once (`$sample()`'s
#'   `parallel_chains`); by default `getOption("mc.cores", 1)`, as brm().
#' @param threads `brms::threading()` (or a number of threads): brms writes
#'   `reduce_sum()` into the program and tapestry runs each chain's
#'   partial sums on that many threads (`threads_per_chain`).
#' @param iter Iterations per chain, warmup included.
#' @param warmup Warmup iterations per chain; `floor(iter / 2)` by default.
#' @param thin Thinning of the saved draws.
#' @param seed Seed; `NA` (brm()'s default) for a random one.
#' @param init `NULL` or `"random"` (random inits in (-2, 2) on the
#'   unconstrained scale), `0` or `"0"` (all zero), a number (the radius of
#'   the random inits), a list with a list per chain, or a function, as
#'   `$sample()` takes them.
#' @param inits The old name of `init`, as brm() still takes it.
#' @param control A list with `adapt_delta` (0.8) and `max_treedepth` (10);
#'   the names of `$sample()`'s other arguments (`step_size`, `metric`,
#'   `init_buffer`, `term_buffer`, `window`) are passed on too.
#' @param silent 0, 1 (default) or 2: 2 shows no progress and no
#'   messages from the sampler.
#' @param refresh Progress every `refresh` iterations (0 for none).
#' @param empty Return the brmsfit without draws, as brm(empty = TRUE).
#' @param rename Rename the parameters as brm() does.
#' @param file A path: the fit is saved there (with `.rds` added if
#'   missing), and, as brm(), a fit saved there before is returned instead
#'   of sampling again, as `file_refit` says.
#' @param file_refit `"never"` (default: the saved fit is returned),
#'   `"always"` (sample again), or `"on_change"` (sample again when the
#'   program or the data brms writes differ from the saved fit's).
#' @param algorithm Only `"sampling"` (NUTS).
#' @param backend Ignored: tapestry is the backend (a message says so when
#'   another one is asked for).
#' @param stan_model_args Ignored: there is nothing to compile.
#' @param opencl,future Not available with tapestry: an error says so.
#' @param fit Not available: use `update()` on a tapestry_brmsfit.
#' @param ... Other arguments of `$sample()` (e.g. `save_warmup`,
#'   `output_dir`: then the CSV files are written there, and the stanfit is
#'   read from them).
#' @return A `brmsfit` of class `c("tapestry_brmsfit", "brmsfit")`.
#' @md
#' @examples
#' \dontrun{
#' d <- data.frame(x = rnorm(200), g = gl(10, 20))
#' d$y <- rpois(200, exp(0.5 + 0.3 * d$x))
#' fit <- tapestry_brm(y ~ x + (1 + x | g), data = d, family = poisson(),
#'                     chains = 2, cores = 2)
#' summary(fit)
#' fit2 <- update(fit, newdata = d[1:100, ])
#' }
#' @export
tapestry_brm <- function(formula, data, family = stats::gaussian(), prior = NULL, autocor = NULL,
                         data2 = NULL, cov_ranef = NULL, sample_prior = "no", sparse = NULL,
                         knots = NULL, drop_unused_levels = TRUE, stanvars = NULL,
                         stan_funs = NULL, save_pars = NULL, normalize = TRUE,
                         save_model = NULL, chains = 4, cores = getOption("mc.cores", 1),
                         threads = NULL, iter = 2000, warmup = floor(iter / 2), thin = 1,
                         seed = NA, init = NULL, control = NULL, silent = 1, refresh = NULL,
                         empty = FALSE, rename = TRUE, file = NULL,
                         file_refit = getOption("brms.file_refit", "never"), algorithm = "sampling",
                         backend = NULL, stan_model_args = list(), opencl = NULL,
                         future = FALSE, fit = NA, inits = NULL, ...) {
  brm_need_packages()
  if (!is.null(inits) && is.null(init)) init <- inits
  if (!identical(algorithm, "sampling")) {
    abort_arg(sprintf(paste0("tapestry_brm() samples with NUTS only (algorithm = \"sampling\"), ",
                             "not algorithm = \"%s\"."), paste(algorithm, collapse = " ")))
  }
  if (!is.null(opencl)) abort_arg("`opencl` is not available with tapestry: it has no OpenCL.")
  if (isTRUE(future)) {
    abort_arg("`future` is not available with tapestry: use `cores` to run chains in parallel.")
  }
  if (!(length(fit) == 1 && is.na(fit))) {
    abort_arg("`fit` is not available: use update() on the fit tapestry_brm() returned.")
  }
  if (!is.null(backend) && !identical(backend, "tapestry") && silent < 2) {
    message(sprintf("`backend = \"%s\"` is ignored: tapestry samples the model.", backend))
  }
  if (length(stan_model_args) && silent < 2) {
    message("`stan_model_args` is ignored: there is nothing to compile.")
  }
  file_refit <- match.arg(file_refit, c("never", "always", "on_change"))
  if (!is.null(file)) {
    if (!grepl("\\.rds$", file)) file <- paste0(file, ".rds")
    if (file_refit == "never" && file.exists(file)) return(readRDS(file))
  }
  if (is.numeric(threads)) threads <- brms::threading(threads)
  data_name <- attr(data, "data_name")
  if (is.null(data_name)) data_name <- paste(deparse(substitute(data)), collapse = " ")
  iter <- as.integer(iter)
  warmup <- as.integer(warmup)
  if (length(warmup) != 1 || is.na(warmup) || warmup < 0 || warmup >= iter) {
    abort_arg("`warmup` must be a number of iterations from 0 to `iter` - 1.")
  }
  control <- as.list(control)
  ctl_known <- c("adapt_delta", "max_treedepth", "step_size", "metric", "inv_metric",
                 "init_buffer", "term_buffer", "window", "adapt_engaged")
  unknown <- setdiff(names(control), c(ctl_known, "stepsize", "adapt_gamma", "adapt_kappa",
                                       "adapt_t0", "adapt_init_buffer", "adapt_term_buffer",
                                       "adapt_window"))
  if (length(unknown)) {
    abort_arg(sprintf("`control` has %s, which tapestry's sampler does not take.",
                      paste0("'", unknown, "'", collapse = ", ")))
  }
  if (any(c("adapt_gamma", "adapt_kappa", "adapt_t0") %in% names(control))) {
    abort_arg("tapestry's sampler uses Stan's adaptation constants gamma, kappa and t0 as they are.")
  }
  # brms checks the formula, family, priors and data and writes the program
  args <- list(formula = formula, data = data, family = family, prior = prior,
               data2 = data2, sample_prior = sample_prior, knots = knots,
               drop_unused_levels = drop_unused_levels, stanvars = stanvars,
               save_pars = save_pars, normalize = normalize, save_model = save_model,
               threads = threads, init = init, control = if (length(control)) control, silent = silent,
               chains = chains, iter = iter, warmup = warmup, thin = thin, empty = TRUE)
  if (!is.null(autocor)) args$autocor <- autocor
  if (!is.null(cov_ranef)) args$cov_ranef <- cov_ranef
  if (!is.null(sparse)) args$sparse <- sparse
  if (!is.null(stan_funs)) args$stan_funs <- stan_funs
  x <- do.call(brms::brm, args)
  attr(x$data, "data_name") <- data_name
  x$tapestry_args <- list(chains = chains, cores = cores, iter = iter, warmup = warmup,
                          thin = thin, seed = seed, init = init, control = control,
                          silent = silent, refresh = refresh, dots = list(...))
  class(x) <- c("tapestry_brmsfit", setdiff(class(x), "tapestry_brmsfit"))
  if (isTRUE(empty)) return(x)

  sdata <- brm_standata(brms::standata(x))
  if (!is.null(file) && file_refit == "on_change" && file.exists(file)) {
    old <- readRDS(file)
    if (inherits(old, "brmsfit") && !is.null(old$fit) &&
        identical(brms::stancode(old), brms::stancode(x)) &&
        identical(brm_standata(brms::standata(old)), sdata)) {
      return(old)
    }
  }
  model <- brm_model(brms::stancode(x))
  sargs <- list(data = sdata, chains = as.integer(chains),
                parallel_chains = as.integer(max(1, min(cores, chains))),
                iter_warmup = warmup, iter_sampling = iter - warmup, thin = as.integer(thin),
                seed = if (length(seed) == 1 && !is.na(seed)) seed else NULL,
                init = brm_init(init), show_messages = silent < 2)
  if (!is.null(refresh)) {
    sargs$refresh <- refresh
  } else if (silent >= 2) {
    sargs$refresh <- 0
  }
  if (!is.null(threads) && isTRUE(threads$threads > 1)) {
    sargs$threads_per_chain <- as.integer(threads$threads)
  }
  if (!is.null(control$stepsize)) sargs$step_size <- control$stepsize
  for (nm in c("adapt_init_buffer", "adapt_term_buffer", "adapt_window")) {
    if (!is.null(control[[nm]])) sargs[[sub("adapt_", "", nm)]] <- control[[nm]]
  }
  for (nm in intersect(names(control), ctl_known)) sargs[[nm]] <- control[[nm]]
  dots <- list(...)
  sargs[names(dots)] <- dots
  out_dir <- sargs$output_dir
  sargs$output_dir <- NULL
  tfit <- do.call(model$sample, sargs)
  # the stanfit from the draws in memory; CSV files only when asked for
  # (output_dir), or when this rstan cannot be given the draws directly
  sf <- if (is.null(out_dir)) brm_stanfit(tfit)
  if (is.null(sf)) {
    if (is.null(out_dir)) {
      out_dir <- tempfile("tapestry_brm")
      dir.create(out_dir)
      on.exit(unlink(out_dir, recursive = TRUE), add = TRUE)
    }
    files <- tfit$save_output_files(out_dir, basename = "tapestry_brm")
    sf <- suppressMessages(rstan::read_stan_csv(files))
  }
  sf <- brm_control(sf, tfit$metadata())
  sf <- brm_drop_pars(sf, brms_exclude_pars(x))
  x$fit <- sf
  # the chains' own wall time, for the benchmarks (bench/time_to_answer.R)
  x$tapestry_args$chains_time <- tfit$.__enclos_env__$private$chains_time_
  if (isTRUE(rename)) x <- brms::rename_pars(x)
  if (!is.null(file)) saveRDS(x, file)
  x
}

# The sampler's settings where rstan's sampling() leaves them and brms's
# control_params() reads them (each chain's "args"): read_stan_csv() keeps
# none, and brms's summary() then said "Increasing adapt_delta above  may
# help" with the value missing.
brm_control <- function(sf, meta) {
  control <- list(adapt_engaged = isTRUE(meta$adapt_engaged), adapt_gamma = meta$gamma,
                  adapt_delta = meta$adapt_delta, adapt_kappa = meta$kappa,
                  adapt_t0 = meta$t0, adapt_init_buffer = meta$init_buffer,
                  adapt_term_buffer = meta$term_buffer, adapt_window = meta$window,
                  max_treedepth = meta$max_treedepth, metric = meta$metric,
                  stepsize_jitter = meta$stepsize_jitter)
  for (i in seq_along(sf@sim$samples)) {
    args <- attr(sf@sim$samples[[i]], "args") %||% list()
    args$control <- utils::modifyList(args$control %||% list(), control)
    args$control$stepsize <- meta$step_size[min(i, length(meta$step_size))]
    attr(sf@sim$samples[[i]], "args") <- args
  }
  sf
}

# brms's list of the parameters brm() does not keep (not exported by brms)
# (if a brms version lacks it, the fit keeps them: nothing else changes)
brms_exclude_pars <- function(x) {
  f <- tryCatch(utils::getFromNamespace("exclude_pars", "brms"), error = function(e) NULL)
  if (is.null(f)) return(character(0))
  tryCatch(f(x), error = function(e) character(0))
}

#' @rdname tapestry_brm
#' @param object A fit from `tapestry_brm()`.
#' @param formula. Changes to the formula, as for `stats::update()` (or a
#'   new `brms::brmsformula()`).
#' @param newdata New data to fit the model to.
#' @param recompile Ignored: nothing is compiled.
#' @md
#' @exportS3Method stats::update tapestry_brmsfit
update.tapestry_brmsfit <- function(object, formula., newdata = NULL, recompile = NULL, ...) {
  brm_need_packages()
  dots <- list(...)
  if ("data" %in% names(dots)) abort_arg("Please use argument `newdata` to update the data.")
  old <- object$tapestry_args
  if (!is.null(newdata)) {
    dots$data <- newdata
    attr(dots$data, "data_name") <- paste(deparse(substitute(newdata)), collapse = " ")
  } else {
    dots$data <- object$data
  }
  if (missing(formula.) || is.null(formula.)) {
    f <- object$formula
    if (!is.null(dots$family)) f <- brms::bf(f, family = dots$family)
    dots$formula <- f
  } else {
    family <- if (!is.null(dots$family)) dots$family else object$family
    if (inherits(formula., "brmsformula")) {
      dots$formula <- brms::bf(formula., family = family)
    } else {
      dots$formula <- stats::update(stats::formula(object), brms::bf(formula., family = family))
    }
  }
  dots$family <- NULL
  # the priors the user set, the new ones first
  user <- object$prior
  if (!is.null(user) && "source" %in% names(user)) user <- user[user$source == "user", ]
  if (!is.null(user) && nrow(user) == 0) user <- NULL
  if (!is.null(dots$prior)) {
    if (!is.null(user)) {
      p <- rbind(dots$prior, user)
      cols <- intersect(c("class", "coef", "group", "resp", "dpar", "nlpar"), names(p))
      dots$prior <- p[!duplicated(as.data.frame(p)[, cols, drop = FALSE]), ]
    }
  } else {
    dots$prior <- user
  }
  if (!"sample_prior" %in% names(dots)) {
    sp <- attr(object$prior, "sample_prior")
    dots$sample_prior <- if (is.null(sp)) "no" else sp
  }
  keep <- list(data2 = object$data2, stanvars = object$stanvars, save_pars = object$save_pars,
               threads = object$threads)
  for (nm in names(keep)) if (!nm %in% names(dots)) dots[nm] <- list(keep[[nm]])
  if (!is.null(dots$threads) && is.null(dots$threads$threads)) dots$threads <- NULL
  if (is.null(dots$iter) && is.null(dots$warmup)) dots$warmup <- old$warmup
  # (not the seed, as brms's update(): a new run draws a new one)
  for (nm in c("iter", "chains", "thin", "cores", "init", "silent", "refresh")) {
    if (!nm %in% names(dots)) dots[nm] <- list(old[[nm]])
  }
  if (!is.null(old$control)) {
    ctl <- as.list(old$control)
    ctl[names(dots$control)] <- dots$control
    dots$control <- ctl
  }
  for (nm in setdiff(names(old$dots), names(dots))) dots[nm] <- list(old$dots[[nm]])
  do.call(tapestry_brm, dots)
}
