model {
  y ~ normal(0, 1) T[0, ];
  target += normal_lpdf(y | 0, 1);
  jacobian += 1;
  print("a", x);
  reject("r");
  fatal_error("f");
  f(x);
  ;
  while (1) break;
  for (x in v) continue;
  for (i in 1:N) { }
  if (a) x = 1; else if (b) x = 2; else { x = 3; }
  profile("p") { real z = target(); }
}
