# Skips a test of the ODE solvers (test-ode.R, test-old-syntax.R) where
# tapestry was built without SUNDIALS (CVODES and ARKODE).
skip_without_sundials <- function() {
  ok <- tryCatch({
    m <- tapestry_model(code = "functions { vector f(real t, vector y) { return -y; } }
      transformed data { array[1] vector[1] y = ode_rk45(f, [1.0]', 0, {1.0}); }")
    m$bind(list())
    TRUE
  }, error = function(e) !grepl("needs SUNDIALS", conditionMessage(e)))
  skip_if_not(ok, "tapestry was built without SUNDIALS")
}
