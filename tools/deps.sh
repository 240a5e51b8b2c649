#!/usr/bin/env bash
# Installs what building, checking and running tapestry needs on a fresh
# Debian machine with R: the Imports (R6, posterior), the Suggests used by
# tests and the vignette (bayesplot, loo, jsonlite, knitr, rmarkdown, and brms,
# which brings rstan, for tapestry_brm()'s tests), and pandoc
# for the vignette, and the BLAS and LAPACK headers R links packages with
# (libblas-dev, liblapack-dev), and OpenMPI (libopenmpi-dev, openmpi-bin) for
# the MPI backend and its tests, SUNDIALS (libsundials-dev) for the ODE and
# algebraic solvers, and GSL (libgsl-dev) for integrate_1d; and for the
# portability checks of tools/test.sh, the mingw-w64 cross compiler
# (gcc-mingw-w64-x86-64, with winpthreads: tools/cross-windows.sh), clang
# and the arm64 C library headers (clang, libc6-dev-arm64-cross:
# tools/clang-check.sh), and what a complete R CMD check --as-cran runs:
# qpdf and checkbashisms (devscripts).  Skips apt when everything is
# present already.
set -euo pipefail
need=()
for p in r-cran-r6 r-cran-posterior r-cran-bayesplot r-cran-loo r-cran-testthat r-cran-jsonlite r-cran-knitr r-cran-rmarkdown r-cran-brms pandoc \
         libblas-dev liblapack-dev libopenmpi-dev openmpi-bin libsundials-dev libgsl-dev \
         gcc-mingw-w64-x86-64 clang libc6-dev-arm64-cross qpdf devscripts; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
# testthat may come from CRAN rather than Debian on some images.
if Rscript -e 'quit(status = !requireNamespace("testthat", quietly = TRUE))' >/dev/null 2>&1; then
  need=("${need[@]/r-cran-testthat}")
fi
need=($(printf '%s\n' "${need[@]}" | grep -v '^$' || true))
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
