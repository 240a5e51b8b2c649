# The suite checks tapestry's own dense kernels (bits across threads and
# instruction sets) whatever BLAS this R was linked with; test-blas.R turns
# R's BLAS and LAPACK on where it tests them.
tapestry_blas(FALSE)
