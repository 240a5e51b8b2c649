# tools/stan221/programs.R -- whole programs' log densities and gradients
# from rstan 2.21, for tests/testthat/test-stan221.R: the programs in
# tools/stan221/programs/ (written so that Stan 2.21 and current Stan read
# them alike), each with its data sets and points below.
# Usage, from the package root: Rscript tools/stan221/programs.R
suppressMessages(library(rstan))
rstan_options(boost_lib = "/usr/include", eigen_lib = system.file("include", package = "RcppEigen"))
here <- "tools/stan221"
out_dir <- "tests/testthat/fixtures/stan221"

gp_data <- function(n) { set.seed(5); list(n = n, x = seq(0, 1, length.out = n), y = rnorm(n)) }
cases <- list(
  gp_eigen = list(data = lapply(c(6, 10, 14, 20), gp_data),
                  points = list(c(-0.3, 0.4), c(0.5, -1), c(-2, 1.2)))
)
for (nm in names(cases)) {
  file <- file.path(here, "programs", paste0(nm, ".stan"))
  sm <- stan_model(file)
  res <- lapply(cases[[nm]]$data, function(d) {
    fit <- suppressWarnings(sampling(sm, data = d, chains = 0))
    lapply(cases[[nm]]$points, function(u) {
      g <- grad_log_prob(fit, u)
      list(u = u, lp = attr(g, "log_prob"), grad = as.numeric(g))
    })
  })
  saveRDS(list(program = paste(readLines(file), collapse = "\n"), data = cases[[nm]]$data, results = res),
          file.path(out_dir, paste0("prog_", nm, ".rds")))
  cat(nm, "done\n")
}
