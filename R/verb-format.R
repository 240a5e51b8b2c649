# $format(): the program printed back from the parser's tree (tp_parse()'s
# S-expression, read by sexp_read() in R/utils-sexp.R), in canonical
# form: new array syntax, two-space indentation, parentheses only where the
# operators' precedence needs them.  Comments are not in the tree.

block_titles <- c(functions = "functions", data = "data",
                  transformed_data = "transformed data", parameters = "parameters",
                  transformed_parameters = "transformed parameters", model = "model",
                  generated_quantities = "generated quantities")

format_stan_tree <- function(prog, braces = FALSE) {
  out <- character()
  emit <- function(depth, text) out <<- c(out, paste0(strrep("  ", depth), text))
  stmt <- function(s, depth) format_stmt(s, depth, emit, braces)
  first <- TRUE
  for (b in prog[-1L]) {
    h <- sx_head(b)
    if (!first) out <- c(out, "")
    first <- FALSE
    emit(0L, paste0(block_titles[[h]], " {"))
    for (s in b[-1L]) {
      if (h == "functions") format_function(s, emit) else stmt(s, 1L)
    }
    emit(0L, "}")
  }
  out
}

format_function <- function(f, emit) {
  rt <- unquote(f[[2L]])
  name <- f[[3L]]
  args <- vapply(f[[4L]], function(a) {
    data <- identical(a[[2L]], "data")
    rest <- if (data) a[-(1:2)] else a[-1L]
    ty <- if (identical(rest[[1L]], "tuple")) format_tuple_type(rest) else unquote(rest[[1L]])
    paste0(if (data) "data " else "", ty, " ", rest[[2L]])
  }, "")
  sig <- sprintf("%s %s(%s)", rt, name, paste(args, collapse = ", "))
  if (length(f) >= 5L && identical(f[[5L]], "forward")) {
    emit(1L, paste0(sig, ";"))
    return()
  }
  body <- f[[5L]]
  emit(1L, paste0(sig, " {"))
  for (s in body[-1L]) format_stmt(s, 2L, emit, FALSE)
  emit(1L, "}")
}

format_tuple_type <- function(x) {
  el <- NULL
  for (p in x) if (is.list(p) && sx_head(p) == "elements") el <- p[-1L]
  parts <- vapply(el, function(e) {
    if (identical(e[[2L]], "tuple")) format_tuple_type(e[-1L]) else format_decl_type(e)
  }, "")
  paste0("tuple(", paste(parts, collapse = ", "), ")")
}

# The type of a declaration with its sizes and constraints.
format_decl_type <- function(d) {
  type <- unquote(d[[2L]])
  parts <- list()
  for (p in d[-(1:3)]) if (is.list(p)) parts[[sx_head(p)]] <- p[-1L]
  if (type == "tuple") return(format_tuple_type(d))
  is_arr <- startsWith(type, "array[")
  base <- sub("^array\\[[,]*\\] ", "", type)
  tr <- if (!is.null(parts$transform)) parts$transform[[1L]] else NA
  bounds <- character()
  for (k in c("lower", "upper", "offset", "multiplier")) {
    if (!is.null(parts[[k]])) bounds <- c(bounds, paste0(k, "=", format_expr(parts[[k]][[1L]])))
  }
  named <- !is.na(tr) && !tr %in% c("lower", "upper", "lower_upper", "offset", "multiplier",
                                     "offset_multiplier")
  base_txt <- if (named) tr else base
  if (length(bounds)) base_txt <- paste0(base_txt, "<", paste(bounds, collapse = ", "), ">")
  if (!is.null(parts$size)) {
    base_txt <- paste0(base_txt, "[", paste(vapply(parts$size, format_expr, ""), collapse = ", "), "]")
  }
  if (is_arr) {
    dims <- if (!is.null(parts$dims)) paste(vapply(parts$dims, format_expr, ""), collapse = ", ") else
      strrep(",", nchar(gsub("[^,]", "", sub("\\].*$", "", type))))
    base_txt <- paste0("array[", dims, "] ", base_txt)
  }
  base_txt
}

format_stmt <- function(s, depth, emit, braces) {
  h <- sx_head(s)
  body <- function(b, d) {
    if (sx_head(b) == "block") {
      for (x in b[-1L]) format_stmt(x, d, emit, braces)
    } else {
      format_stmt(b, d, emit, braces)
    }
  }
  open_body <- function(head, b) {
    if (sx_head(b) == "block" || braces) {
      emit(depth, paste0(head, " {"))
      body(b, depth + 1L)
      emit(depth, "}")
    } else {
      emit(depth, head)
      format_stmt(b, depth + 1L, emit, braces)
    }
  }
  args_txt <- function(xs) paste(vapply(xs, format_expr, ""), collapse = ", ")
  switch(h,
    decl = {
      init <- NULL
      for (p in s[-(1:3)]) if (is.list(p) && sx_head(p) == "init") init <- p[[2L]]
      emit(depth, paste0(format_decl_type(s), " ", s[[3L]],
                         if (!is.null(init)) paste0(" = ", format_expr(init)), ";"))
    },
    assign = emit(depth, sprintf("%s %s %s;", format_expr(s[[3L]]), s[[2L]], format_expr(s[[4L]]))),
    tilde = {
      tr <- NULL
      args <- list()
      for (a in s[-(1:3)]) if (sx_head(a) == "T") tr <- a else args[[length(args) + 1L]] <- a
      t_txt <- if (!is.null(tr)) {
        b <- vapply(tr[-1L], function(x) if (is.list(x) && sx_head(x) != "none") format_expr(x) else "", "")
        paste0(" T[", paste(b, collapse = ", "), "]")
      } else ""
      emit(depth, sprintf("%s ~ %s(%s)%s;", format_expr(s[[2L]]), s[[3L]], args_txt(args), t_txt))
    },
    "target+=" = emit(depth, sprintf("target += %s;", format_expr(s[[2L]]))),
    "jacobian+=" = emit(depth, sprintf("jacobian += %s;", format_expr(s[[2L]]))),
    "call-stmt" = emit(depth, paste0(format_expr(s[[2L]]), ";")),
    print = , reject = , fatal_error = emit(depth, sprintf("%s(%s);", h, args_txt(s[-1L]))),
    "return" = emit(depth, if (length(s) > 1L) sprintf("return %s;", format_expr(s[[2L]])) else "return;"),
    "break" = , "continue" = emit(depth, paste0(h, ";")),
    block = {
      emit(depth, "{")
      body(s, depth + 1L)
      emit(depth, "}")
    },
    "for" = open_body(sprintf("for (%s in %s:%s)", s[[2L]], format_expr(s[[3L]]),
                              format_expr(s[[4L]])), s[[5L]]),
    foreach = open_body(sprintf("for (%s in %s)", s[[2L]], format_expr(s[[3L]])), s[[4L]]),
    "while" = open_body(sprintf("while (%s)", format_expr(s[[2L]])), s[[3L]]),
    profile = {
      emit(depth, sprintf("profile(%s) {", s[[2L]]))
      for (x in s[-(1:2)]) body(x, depth + 1L)
      emit(depth, "}")
    },
    "if" = format_if(s, depth, emit, braces, prefix = ""),
    tapestry_raise(sprintf("$format() can't print a '%s' statement yet.", h), "tapestry_unsupported")
  )
}

format_if <- function(s, depth, emit, braces, prefix) {
  then <- s[[3L]]
  els <- if (length(s) >= 4L) s[[4L]][[2L]] else NULL
  head <- sprintf("%sif (%s)", prefix, format_expr(s[[2L]]))
  as_block <- function(x) sx_head(x) == "block" || braces
  stmts <- function(x) if (sx_head(x) == "block") x[-1L] else list(x)
  if (as_block(then)) {
    emit(depth, paste0(head, " {"))
    for (x in stmts(then)) format_stmt(x, depth + 1L, emit, braces)
    close <- "} "
  } else {
    emit(depth, head)
    format_stmt(then, depth + 1L, emit, braces)
    close <- ""
  }
  if (is.null(els)) {
    if (nzchar(close)) emit(depth, "}")
  } else if (sx_head(els) == "if") {
    format_if(els, depth, emit, braces, prefix = paste0(close, "else "))
  } else if (as_block(els)) {
    emit(depth, paste0(close, "else {"))
    for (x in stmts(els)) format_stmt(x, depth + 1L, emit, braces)
    emit(depth, "}")
  } else {
    emit(depth, paste0(close, "else"))
    format_stmt(els, depth + 1L, emit, braces)
  }
}

# Stan's operator precedence: larger binds looser.
stan_prec <- c("?:" = 10, "||" = 9, "&&" = 8, "==" = 7, "!=" = 7, "<" = 6, "<=" = 6, ">" = 6,
               ">=" = 6, "+" = 5, "-" = 5, "*" = 4, "/" = 4, "%" = 4, "\\" = 4, ".*" = 4,
               "./" = 4, "%/%" = 4, unary = 3, "^" = 2, ".^" = 2, postfix = 1, atom = 0)

expr_prec <- function(e) {
  switch(sx_head(e), binop = stan_prec[[e[[2L]]]], unop = stan_prec[["unary"]],
         cond = stan_prec[["?:"]], transpose = , index = , proj = stan_prec[["postfix"]],
         call = if (is_imag_literal(e)) 0 else 0, 0)
}

is_imag_literal <- function(e) {
  sx_head(e) == "call" && identical(e[[2L]], "to_complex") && length(e) == 4L &&
    identical(e[[3L]], list("int", "0")) && sx_head(e[[4L]]) %in% c("real", "int") &&
    grepl("i$", e[[4L]][[2L]])
}

format_expr <- function(e, parent = 99, right = FALSE) {
  if (!is.list(e)) return(e)
  h <- sx_head(e)
  wrap <- function(txt, p) if (p > parent || (p == parent && right)) paste0("(", txt, ")") else txt
  sub <- function(x, p, r = FALSE) format_expr(x, p, r)
  switch(h,
    var = e[[2L]], int = e[[2L]], real = e[[2L]], string = e[[2L]],
    binop = {
      op <- e[[2L]]
      p <- stan_prec[[op]]
      right_assoc <- op %in% c("^", ".^")
      l <- format_expr(e[[3L]], p, right_assoc)
      r <- format_expr(e[[4L]], p, !right_assoc)
      wrap(paste(l, op, r), p)
    },
    unop = wrap(paste0(e[[2L]], format_expr(e[[3L]], stan_prec[["unary"]])), stan_prec[["unary"]]),
    cond = wrap(sprintf("%s ? %s : %s", format_expr(e[[2L]], 9), format_expr(e[[3L]], 9),
                        format_expr(e[[4L]], 10)), 10),
    transpose = paste0(format_expr(e[[2L]], 1), "'"),
    proj = paste0(format_expr(e[[2L]], 1), ".", e[[3L]]),
    call = {
      if (is_imag_literal(e)) return(e[[4L]][[2L]])
      args <- e[-(1:2)]
      bar <- which(vapply(args, identical, TRUE, "|"))
      txt <- vapply(args[!vapply(args, identical, TRUE, "|")], format_expr, "")
      inner <- if (length(bar)) {
        paste0(txt[1L], " | ", paste(txt[-1L], collapse = ", "))
      } else {
        paste(txt, collapse = ", ")
      }
      paste0(e[[2L]], "(", inner, ")")
    },
    index = {
      idx <- vapply(e[-(1:2)], function(i) {
        switch(sx_head(i),
               single = format_expr(i[[2L]]),
               range = paste0(format_expr(i[[2L]]), ":", format_expr(i[[3L]])),
               from = paste0(format_expr(i[[2L]]), ":"),
               to = paste0(":", format_expr(i[[2L]])),
               all = ":",
               format_expr(i))
      }, "")
      paste0(format_expr(e[[2L]], 1), "[", paste(idx, collapse = ", "), "]")
    },
    array = paste0("{", paste(vapply(e[-1L], format_expr, ""), collapse = ", "), "}"),
    rowvec = paste0("[", paste(vapply(e[-1L], format_expr, ""), collapse = ", "), "]"),
    tuple = paste0("(", paste(vapply(e[-1L], format_expr, ""), collapse = ", "), ")"),
    tapestry_raise(sprintf("$format() can't print a '%s' expression yet.", h), "tapestry_unsupported")
  )
}

has_stan_comments <- function(code) {
  # strip strings, then look for // /* or a # line that is not #include
  s <- gsub("\"[^\"\n]*\"", "\"\"", code)
  grepl("//|/\\*", s) || any(grepl("^\\s*#(?!include)", strsplit(s, "\n")[[1L]], perl = TRUE))
}

TapestryModel$set("public", "format", function(overwrite_file = FALSE, canonicalize = FALSE,
                                               backup = TRUE, max_line_length = NULL,
                                               quiet = FALSE) {
  check_flag(overwrite_file, "overwrite_file")
  check_flag(backup, "backup")
  check_flag(quiet, "quiet")
  known <- c("deprecations", "parentheses", "braces", "includes", "strip-comments")
  if (isTRUE(canonicalize)) canonicalize <- known
  if (isFALSE(canonicalize)) canonicalize <- character()
  if (!is.character(canonicalize) || !all(canonicalize %in% known)) {
    abort_arg(sprintf("`canonicalize` must be TRUE, FALSE or some of %s, not %s.",
                      paste0("\"", known, "\"", collapse = ", "), show_value(canonicalize)))
  }
  if (!is.null(max_line_length)) {
    if (!is.numeric(max_line_length) || length(max_line_length) != 1L || max_line_length < 1) {
      abort_arg(sprintf("`max_line_length` must be a positive whole number, not %s.",
                        show_value(max_line_length)))
    }
  }
  prog <- sexp_read(tp_parse(private$code_, private$name_)$dump)
  lines <- format_stan_tree(prog, braces = "braces" %in% canonicalize)
  if (overwrite_file) {
    if (is.null(private$file_)) {
      abort_arg("`overwrite_file = TRUE` needs a model made from a file; this one was given as code.")
    }
    if (has_stan_comments(private$code_) && !"strip-comments" %in% canonicalize) {
      abort_arg(paste0("The program has comments, which tapestry's $format() does not keep: ",
                       "the file is not overwritten. Give `canonicalize = \"strip-comments\"` ",
                       "(with `backup = TRUE`) to overwrite it anyway."))
    }
    if (backup) {
      bak <- paste0(private$file_, ".bak-", format(Sys.time(), "%Y%m%d%H%M%S"))
      file.copy(private$file_, bak)
    }
    writeLines(lines, private$file_)
    private$code_ <- read_program(private$file_)
    private$ptr_ <- private$parse(warn = FALSE)
  } else if (!quiet) {
    cat(lines, sep = "\n")
  }
  invisible(TRUE)
})
