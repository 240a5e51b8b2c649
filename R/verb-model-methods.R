# The rest of cmdstanr's CmdStanModel methods on a TapestryModel: compile
# and exe_file (nothing to compile), stan_file, diagnose (gradients against
# finite differences, as CmdStan's diagnose method), expose_functions (the
# program's functions callable from R) and their fields.

TapestryModel$set("private", "stan_file_", NULL)
TapestryModel$set("private", "functions_", NULL)

# Nothing to compile: the program is interpreted.  cmdstanr's arguments are
# accepted (and ignored); `pedantic = TRUE` shows the pedantic warnings.
TapestryModel$set("public", "compile", function(quiet = TRUE, dir = NULL, pedantic = FALSE,
                                                include_paths = NULL, user_header = NULL,
                                                cpp_options = list(), stanc_options = list(),
                                                force_recompile = FALSE,
                                                compile_model_methods = FALSE,
                                                compile_standalone = FALSE, dry_run = FALSE,
                                                ...) {
  check_flag(quiet, "quiet")
  if (isTRUE(pedantic)) self$check_syntax(pedantic = TRUE, quiet = TRUE)
  if (isTRUE(compile_standalone)) self$expose_functions()
  if (!quiet) {
    message("tapestry interprets the Stan program: there is nothing to compile, ",
            "and the compiler options are ignored.")
  }
  invisible(self)
})

# cmdstanr's $exe_info() reads the compiled executable's build settings:
# there is none.
TapestryModel$set("public", "exe_info", function(fallback = TRUE) {
  not_in_tapestry("$exe_info()",
                  "the program is interpreted: there is no executable to describe")
})

# There is no executable: NA (with a message), so that file.exists() and
# the like keep working in cmdstanr scripts.
TapestryModel$set("public", "exe_file", function(path = NULL) {
  if (!is.null(path)) {
    message("tapestry has no executable file: `path` is ignored.")
  } else {
    message("tapestry interprets the Stan program: there is no executable file.")
  }
  NA_character_
})

TapestryModel$set("public", "stan_file", function() {
  if (!is.null(private$file_)) return(private$file_)
  if (is.null(private$stan_file_) || !file.exists(private$stan_file_)) {
    f <- tempfile("model-", fileext = ".stan")
    writeLines(self$code(), f)
    private$stan_file_ <- f
  }
  private$stan_file_
})

TapestryModel$set("public", "has_stan_file", function() !is.null(private$file_))
TapestryModel$set("public", "include_paths", function() private$include_paths_)
TapestryModel$set("public", "cmdstan_version", function() {
  paste(stan_language_version, collapse = ".")
})
TapestryModel$set("public", "cpp_options", function() list())
TapestryModel$set("public", "hpp_file", function() {
  not_in_tapestry("$hpp_file()", "no C++ is generated: the program is interpreted")
})
TapestryModel$set("public", "save_hpp_file", function(dir = NULL) {
  not_in_tapestry("$save_hpp_file()", "no C++ is generated: the program is interpreted")
})
TapestryModel$set("public", "sample_mpi", function(...) {
  not_in_tapestry("$sample_mpi()", paste0(
    "MPI runs go through $sample(mpi = \"map_rect\") or $sample(mpi = \"chains\") ",
    "under mpirun"))
})

# CmdStan's diagnose method: the gradient of the log density (with the
# Jacobian, constants of `~` dropped) at the initial point against central
# finite differences.
TapestryModel$set("public", "diagnose", function(data = NULL, seed = NULL, init = NULL,
                                                 output_dir = getOption("cmdstanr_output_dir"),
                                                 output_basename = NULL, epsilon = NULL,
                                                 error = NULL) {
  epsilon <- epsilon %||% 1e-6
  error <- error %||% 1e-6
  for (a in c("epsilon", "error")) {
    v <- get(a)
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v <= 0) {
      abort_arg(sprintf("`%s` must be a positive number, not %s.", a, show_value(v)))
    }
  }
  seed <- arg_seed(seed)
  data <- check_data(data)
  context <- self$bind(data, seed)
  inits <- process_init(init, 1L, 1L, context)
  u <- diagnose_start(context, inits[[1L]], seed)
  n <- length(u)
  gr <- context$grad_log_prob(u, jacobian = TRUE)
  lp <- attr(gr, "log_prob")
  fd <- vapply(seq_len(n), function(k) {
    up <- u
    up[k] <- u[k] + epsilon
    dn <- u
    dn[k] <- u[k] - epsilon
    (context$log_prob(up, jacobian = TRUE) - context$log_prob(dn, jacobian = TRUE)) /
      (2 * epsilon)
  }, 0)
  grads <- data.frame(param_idx = seq_len(n) - 1L, value = u, model = as.vector(gr),
                      finite_diff = fd, error = as.vector(gr) - fd)
  bad <- abs(grads$error) > error
  if (any(bad)) {
    message(sprintf("%d of %d gradient%s differ from the finite differences by more than %g.",
                    sum(bad), n, if (n == 1L) "" else "s", error))
  }
  out <- list(gradients = grads, lp = as.double(lp), init = context$constrain_variables(
    u, transformed_parameters = FALSE, generated_quantities = FALSE),
    data_file = if (is.character(data)) data else attr(data, "data_file"),
    epsilon = epsilon, error = error)
  TapestryDiagnose$new(out)
})

# The initial unconstrained point: given values, else uniform(-r, r) drawn
# from a generator seeded by `seed` (R's stream is left alone).
diagnose_start <- function(context, init, seed) {
  n <- context$num_upars()
  u <- init$values %||% rep(0, n)
  given <- init$given %||% rep(FALSE, n)
  r <- init$radius %||% 2
  if (any(!given) && r > 0) {
    u[!given] <- with_r_seed(seed %% .Machine$integer.max, stats::runif(sum(!given), -r, r))
  }
  u
}

TapestryDiagnose <- R6::R6Class("TapestryDiagnose", cloneable = FALSE,
  public = list(
    initialize = function(x) private$x_ <- x,
    gradients = function() private$x_$gradients,
    lp = function() private$x_$lp,
    init = function() private$x_$init,
    data_file = function() private$x_$data_file,
    output_files = function(...) NULL,
    save_output_files = function(...) {
      not_in_tapestry("$save_output_files() of a diagnose run",
                      "its result is held in R: see $gradients() and $lp()")
    },
    print = function(...) {
      cat("Log probability=", format(private$x_$lp, digits = 6), "\n\n", sep = "")
      g <- private$x_$gradients
      base::print(g, row.names = FALSE)
      invisible(self)
    }
  ),
  private = list(x_ = NULL)
)

# ---------------------------------------------------------------------------
# expose_functions(): each user-defined function becomes an R function of
# mod$functions.  A call binds its arguments as the data of a small program
# (the model's functions block and one generated quantity holding the call)
# and runs it on the interpreter: arguments are converted to the declared
# Stan types as data are, results back as generated quantities are.

TapestryModel$set("active", "functions", function(value) {
  if (!missing(value)) abort_arg("`functions` is read-only.")
  if (is.null(private$functions_)) private$functions_ <- new.env(parent = emptyenv())
  private$functions_
})

TapestryModel$set("public", "expose_functions", function(global = FALSE, verbose = FALSE) {
  check_flag(global, "global")
  check_flag(verbose, "verbose")
  sigs <- user_function_signatures(private$program_dump())
  if (length(sigs) == 0L) {
    abort_arg("The program has no user-defined functions to expose.")
  }
  block <- functions_block_text(private$code_)
  env <- self$functions
  for (s in sigs) {
    f <- make_exposed_function(s, block, private$include_paths_)
    assign(s$name, f, envir = env)
    if (verbose) message("Exposed ", s$name, "()")
  }
  # global = TRUE is the user asking for the functions in their workspace,
  # as cmdstanr puts them there: copied in one list2env(), the package
  # itself assigning nothing to the global environment
  if (global) list2env(mget(names(sigs), envir = env), envir = globalenv())
  invisible(self)
})

TapestryModel$set("private", "program_dump", function() {
  tp_parse(private$code_, private$name_)$dump
})

# Signatures of the defined functions: name, return type, argument types
# and names, from the parser's tree.
user_function_signatures <- function(dump) {
  lines <- strsplit(dump, "\n", fixed = TRUE)[[1L]]
  fl <- grep("^    \\(function ", lines, value = TRUE)
  out <- list()
  for (l in fl) {
    toks <- sexp_tokens(sub("^    \\(function ", "", l))
    rt <- toks[1L]
    name <- toks[2L]
    args_txt <- sub("^[^(]*\\(", "", sub("^\\s*(\"[^\"]*\"|\\S+)\\s+\\S+\\s+", "", sub("^    \\(function ", "", l)))
    arg_items <- regmatches(args_txt, gregexpr("\\(arg (data )?(\"[^\"]*\"|[a-z_]+) [A-Za-z0-9_?]+", args_txt))[[1L]]
    types <- sub("^\\(arg (data )?", "", arg_items)
    anames <- sub("^.* ", "", types)
    types <- gsub("\"", "", sub(" [A-Za-z0-9_?]+$", "", types))
    if (!is.null(out[[name]])) {
      out[[name]]$overloaded <- TRUE
      next
    }
    out[[name]] <- list(name = name, return = gsub("\"", "", rt), types = types,
                        args = anames, overloaded = FALSE)
  }
  out
}

sexp_tokens <- function(s) {
  regmatches(s, gregexpr("\"[^\"]*\"|[^ ()]+", s))[[1L]]
}

# The text of the functions block, from the program's source (comments and
# strings skipped while matching braces).
functions_block_text <- function(code) {
  m <- regexpr("(^|[^A-Za-z0-9_])functions\\s*\\{", code)
  if (m < 0) return("")
  start <- m + attr(m, "match.length") - 1L
  chars <- strsplit(substring(code, start), "")[[1L]]
  depth <- 0L
  i <- 1L
  n <- length(chars)
  while (i <= n) {
    ch <- chars[i]
    nx <- if (i < n) chars[i + 1L] else ""
    if (ch == "/" && nx == "/" || ch == "#" && !identical(paste(chars[i:min(n, i + 7L)], collapse = ""), "#include")) {
      while (i <= n && chars[i] != "\n") i <- i + 1L
    } else if (ch == "/" && nx == "*") {
      i <- i + 2L
      while (i < n && !(chars[i] == "*" && chars[i + 1L] == "/")) i <- i + 1L
      i <- i + 1L
    } else if (ch == "\"") {
      i <- i + 1L
      while (i <= n && chars[i] != "\"") i <- i + 1L
    } else if (ch == "{") {
      depth <- depth + 1L
    } else if (ch == "}") {
      depth <- depth - 1L
      if (depth == 0L) return(paste0("functions ", paste(chars[1:i], collapse = "")))
    }
    i <- i + 1L
  }
  ""
}

# A data declaration for an argument of Stan type `type` holding R value x.
exposed_arg_decl <- function(type, name, x) {
  is_arr <- startsWith(type, "array[")
  base <- sub("^array\\[[,]*\\] ", "", type)
  ndim <- if (is_arr) nchar(gsub("[^,]", "", sub("\\].*$", "", type))) + 1L else 0L
  if (is.list(x) && !is.data.frame(x)) {
    inner <- dim_of(x[[1L]])
    d <- c(length(x), inner)
  } else {
    d <- dim_of(x)
  }
  esz <- switch(base, vector = , row_vector = 1L, matrix = 2L, 0L)
  need <- ndim + esz
  if (length(d) < need) d <- c(d, rep(1L, need - length(d)))
  if (need == 0L) d <- integer()
  if (length(d) > need) {
    abort_arg(sprintf("Argument `%s` must be %s, but has dimensions %s.", name, type,
                      paste(d, collapse = " x ")))
  }
  ad <- d[seq_len(ndim)]
  ed <- d[ndim + seq_len(esz)]
  el <- switch(base, vector = sprintf("vector[%d]", ed), row_vector = sprintf("row_vector[%d]", ed),
               matrix = sprintf("matrix[%d, %d]", ed[1L], ed[2L]),
               int = "int", real = "real",
               abort_arg(sprintf("Exposed functions can't take arguments of type %s yet.", type)))
  if (ndim) sprintf("array[%s] %s %s;", paste(ad, collapse = ", "), el, name) else
    sprintf("%s %s;", el, name)
}

dim_of <- function(x) {
  d <- dim(x)
  if (!is.null(d)) return(as.integer(d))
  if (length(x) == 1L) integer() else length(x)
}

# The generated quantity holding the call's value, sized by the call.
exposed_result_decl <- function(type, call) {
  switch(type,
         real = sprintf("real out_value_ = %s;", call),
         int = sprintf("int out_value_ = %s;", call),
         vector = sprintf("vector[rows(%s)] out_value_ = %s;", call, call),
         row_vector = sprintf("row_vector[cols(%s)] out_value_ = %s;", call, call),
         matrix = sprintf("matrix[rows(%s), cols(%s)] out_value_ = %s;", call, call, call),
         "array[] real" = sprintf("array[size(%s)] real out_value_ = %s;", call, call),
         "array[] int" = sprintf("array[size(%s)] int out_value_ = %s;", call, call),
         "array[] vector" = sprintf("array[size(%s)] vector[rows(%s[1])] out_value_ = %s;", call, call, call),
         "array[,] real" = sprintf("array[size(%s), size(%s[1])] real out_value_ = %s;", call, call, call),
         "array[,] int" = sprintf("array[size(%s), size(%s[1])] int out_value_ = %s;", call, call, call),
         abort_arg(sprintf("Exposed functions can't return %s yet.", type)))
}

make_exposed_function <- function(sig, block, include_paths) {
  name <- sig$name
  types <- sig$types
  anames <- sig$args
  is_rng <- endsWith(name, "_rng")
  is_lp <- endsWith(name, "_lp")
  density <- grepl("_(lpdf|lpmf|lcdf|lccdf|lupdf|lupmf)$", name)
  cache <- new.env(parent = emptyenv())
  inner <- function(...) {
    args <- list(...)
    seed <- 0
    if (is_rng && "seed" %in% names(args)) {
      seed <- args$seed
      args$seed <- NULL
    }
    if (is_lp) {
      not_in_tapestry(sprintf("Calling %s() from R", name),
                      "functions ending in _lp add to the target and need a model block")
    }
    if (sig$overloaded) {
      not_in_tapestry(sprintf("Calling the overloaded function %s() from R", name),
                      "R has one function per name: the overloads can't be told apart")
    }
    if (length(args) != length(types)) {
      abort_arg(sprintf("%s() takes %d argument%s (%s), not %d.", name, length(types),
                        if (length(types) == 1L) "" else "s",
                        paste(anames, collapse = ", "), length(args)))
    }
    dn <- paste0("arg_", seq_along(args), "_")
    decls <- vapply(seq_along(args), function(i) {
      exposed_arg_decl(types[i], dn[i], args[[i]])
    }, "")
    call <- if (density && length(dn) > 1L) {
      sprintf("%s(%s | %s)", name, dn[1L], paste(dn[-1L], collapse = ", "))
    } else {
      sprintf("%s(%s)", name, paste(dn, collapse = ", "))
    }
    gq <- if (sig$return == "void") sprintf("%s;", call) else exposed_result_decl(sig$return, call)
    code <- paste0(block, "\ndata {\n", paste0("  ", decls, collapse = "\n"),
                   "\n}\ngenerated quantities {\n  ", gq, "\n}\n")
    mod <- cache[[code]]
    if (is.null(mod)) {
      mod <- suppressWarnings(TapestryModel$new(NULL, code, include_paths))
      cache[[code]] <- mod
    }
    data <- stats::setNames(lapply(args, function(x) if (is.list(x)) x else x), dn)
    ctx <- mod$bind(data, seed = check_seed(seed))
    out <- ctx$constrain_variables(numeric(0))
    if (sig$return == "void") invisible(NULL) else out$out_value_
  }
  f <- function() NULL
  formals(f) <- c(stats::setNames(rep(list(quote(expr = )), length(anames)), anames),
                  if (is_rng) list(seed = 0))
  body(f) <- substitute({
    args <- ARGS
    do.call(INNER, args)
  }, list(ARGS = as.call(c(as.name("list"), stats::setNames(lapply(c(anames, if (is_rng) "seed"), as.name), c(anames, if (is_rng) "seed")))),
          INNER = inner))
  environment(f) <- environment()
  f
}
