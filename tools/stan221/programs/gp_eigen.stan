// The program of issue 29: a GP's log density through the eigendecomposition
// of its kernel matrix, whose eigenvalues cluster at the jitter.
data { int n; vector[n] x; vector[n] y; }
transformed data {
  matrix[n, n] xd;
  for (i in 1:n) { xd[i, i] = 0; for (j in (i + 1):n) { xd[i, j] = -((x[i] - x[j])^2); xd[j, i] = xd[i, j]; } }
}
parameters { real<lower=0> v; real<lower=0> bw; }
model {
  matrix[n, n] S = v * exp(xd * bw);
  for (i in 1:n) S[i, i] += 1e-5;
  {
    matrix[n, n] Q = eigenvectors_sym(S);
    vector[n] R = eigenvalues_sym(S);
    target += -0.5 * dot_product(Q' * y, (Q' * y) ./ R) - 0.5 * sum(log(R));
  }
}
