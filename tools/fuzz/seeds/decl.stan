functions {
  real f(real x);
  real f(real x) { return x; }
  void g(data array[] real x, real[,] y) { }
}
data {
  int<lower=0> N;
  real y[N];
  vector<lower=0, upper=1>[N] v;
  matrix[N, N] m;
}
parameters {
  real<offset=1, multiplier=2> a;
  simplex[N] s;
  cholesky_factor_cov[N, 2] L;
  array[2, N] cov_matrix[3] S;
}
transformed parameters { real b = a * 2; real c, d = 1; }
generated quantities { corr_matrix[2] R; }
