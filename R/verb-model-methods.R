# The rest of cmdstanr's CmdStanModel methods on a TapestryModel: compile
# and exe_file (nothing to compile), stan_file and their fields; $diagnose()
# is in R/verb-diagnose.R, $expose_functions() in R/verb-expose-functions.R.

TapestryModel$set("private", "stan_file_", NULL)

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
