# Benchmarks of the foundation issue, run by hand:  Rscript bench/run.R
# Prints nanoseconds per element / operation (best of several repetitions)
# and the ratios to the targets, all measured in this one run.
library(tapestry)

vec <- tapestry:::tp_bench("normal_vec", 1e6, reps = 10)
vec_small <- tapestry:::tp_bench("normal_vec", 1e4, reps = 200)
tape <- tapestry:::tp_bench("chain_tape", 1e6, reps = 10)
kern <- tapestry:::tp_bench("chain_kernels", 1e6, reps = 10)

fmt <- function(label, ns, target) {
  cat(sprintf("%-62s %7.2f ns   target %5.1f ns   ratio %.2f\n", label, ns, target, ns / target))
}
fmt("gradient of normal_lpdf, 10^6 autodiff elements, per element", vec[["ns_per_unit"]], 5)
fmt("  the same over 10^4 elements (in cache), per element", vec_small[["ns_per_unit"]], 5)
fmt("10^6 scalar ops (add, mul, exp, log) on the tape, per op", tape[["ns_per_unit"]], 15)
fmt("10^6 scalar ops through the library's kernels, per op", kern[["ns_per_unit"]], 15)
