#' Dense linear algebra on R's BLAS and LAPACK
#'
#' Matrix products (`multiply`, and the products inside the gradients of
#' products, `quad_form` and eigendecompositions), `cholesky_decompose` with
#' its gradient, and triangular solves (`mdivide_left_tri_low`, the
#' multivariate normal densities) can run on the BLAS and LAPACK that R was
#' linked with, from a size on. A user whose R uses OpenBLAS, MKL, BLIS or
#' Accelerate then gets their speed, on the threads that library runs.
#'
#' Below those sizes, and when R's BLAS is the reference one (Debian's and
#' R's own default), tapestry's own kernels are faster and run instead. Which
#' one runs depends on the sizes alone, so results are reproducible for a
#' given R installation; they can differ in the last bits between
#' installations with different BLAS libraries, and between `use = TRUE`
#' and `use = FALSE`.
#'
#' @param use `"auto"` (the default, or option `tapestry.blas`): R's BLAS
#'   and LAPACK when they are an optimized library (OpenBLAS, MKL, BLIS,
#'   ATLAS, Accelerate/vecLib, FlexiBLAS, Arm PL), else tapestry's own
#'   kernels. `TRUE`: always R's (from the sizes below). `FALSE`: never.
#' @param sizes Named numbers: `gemm`, the multiply-adds (m n k) from which
#'   a product goes to `dgemm`; `chol`, the order from which a Cholesky factor
#'   and its gradient go to `dpotrf`, `dgemm` and `dtrsm`; `trsm`, the
#'   multiply-adds (n n nrhs) from which a triangular solve goes to `dtrsm`.
#'   The defaults are where OpenBLAS overtook tapestry's kernels on one core
#'   (bench/dense_blas.R).
#' @return Invisibly, a list: `using` (whether R's BLAS and LAPACK are in
#'   use), `use`, `blas` and `lapack` (the libraries' paths) and `sizes`.
#' @examples
#' tapestry_blas()$using
#' @export
tapestry_blas <- function(use = getOption("tapestry.blas", "auto"), sizes = dense_sizes) {
  if (!(identical(use, "auto") || isTRUE(use) || isFALSE(use)))
    stop("`use` must be \"auto\", TRUE or FALSE, not ", deparse(use)[1L], call. = FALSE)
  sizes <- check_dense_sizes(sizes)
  libs <- dense_libraries()
  on <- if (identical(use, "auto")) blas_is_optimized(libs) else use
  using <- .Call(C_tp_dense_set, on, sizes[["gemm"]], as.integer(sizes[["chol"]]), sizes[["trsm"]])
  invisible(list(using = using, use = use, blas = libs[["blas"]], lapack = libs[["lapack"]], sizes = sizes))
}

dense_sizes <- c(gemm = 16^3, chol = 96, trsm = 16^3)

check_dense_sizes <- function(sizes) {
  ok <- is.numeric(sizes) && all(c("gemm", "chol", "trsm") %in% names(sizes)) &&
    all(is.finite(sizes[c("gemm", "chol", "trsm")])) && all(sizes[c("gemm", "chol", "trsm")] >= 1)
  if (!ok) stop("`sizes` must be numbers >= 1 named gemm, chol and trsm", call. = FALSE)
  if (sizes[["chol"]] > .Machine$integer.max) stop("`sizes[\"chol\"]` is too large", call. = FALSE)
  sizes[c("gemm", "chol", "trsm")]
}

dense_libraries <- function() {
  blas <- tryCatch(extSoftVersion()[["BLAS"]], error = function(e) "")
  lapack <- tryCatch(La_library(), error = function(e) "")
  c(blas = resolve_library(blas), lapack = resolve_library(lapack))
}

# The file a library path names, links followed: on macOS CRAN's R runs
# Accelerate when libRblas.dylib links to libRblas.vecLib.dylib, and R
# reports the link.
resolve_library <- function(p) if (nzchar(p)) normalizePath(p, mustWork = FALSE) else p

# An optimized BLAS by its file's name: OpenBLAS, MKL, BLIS, ATLAS, Apple's
# Accelerate (its vecLib, or R's libRblas.vecLib.dylib), FlexiBLAS, Arm PL.
blas_is_optimized <- function(libs) {
  any(grepl("openblas|mkl|blis|atlas|accelerate|veclib|flexiblas|armpl", libs, ignore.case = TRUE))
}
