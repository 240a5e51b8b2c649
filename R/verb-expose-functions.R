# $expose_functions(): each user-defined function becomes an R function of
# mod$functions.  A call binds its arguments as the data of a small program
# (the model's functions block and one generated quantity holding the call)
# and runs it on the interpreter: arguments are converted to the declared
# Stan types as data are, results back as generated quantities are.

TapestryModel$set("private", "functions_", NULL)

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
