/*
** tm_student_t.c -- Student's t distribution, with its quantile function:
** student_t_lpdf, student_t_cdf, _lcdf, _lccdf, student_t_rng, student_t_qf.
**
** student_t_qf(p, nu, mu, sigma), the quantile function of the
** student_t distribution, vectorized as Stan's (a real when every argument
** is one, else a vector over the broadcast).
**
** The standard quantile solves F(t) = min(p, 1 - p) for t <= 0, with
** F(t) = I_x(nu / 2, 1 / 2) / 2, x = nu / (nu + t^2), by Newton's method on
** log F, kept inside a bracket (bisection when a step leaves it), and is
** reflected for p > 1/2.  Partials by the implicit function theorem:
** dt/dp = 1 / f(t), dt/dnu = -(dF/dnu) / f(t); one node per call.
*/
#include "../tm_scalar.h"
#include "tm_cont_family.h"

static double student_nu_term(double nu) {
  return tm_lgamma(0.5 * nu + 0.5) - tm_lgamma(0.5 * nu) - 0.5 * log(nu);
}

static double student_nu_deriv(double nu) {
  return 0.5 * (tm_digamma(0.5 * nu + 0.5) - tm_digamma(0.5 * nu));
}

/* student_t(y | nu, mu, sigma) */
static int student_t_body(tm_dens *D, double *logp) {
  double lp = 0, *dg = NULL;
  if (ad(D, 1) && !(dg = per_elem(D, 1, student_nu_deriv))) return AD_EMEMORY;
  for (size_t j = 0; j < D->n; j++) {
    double y = at(D, 0, j), nu = at(D, 1, j), mu = at(D, 2, j), s = at(D, 3, j);
    double r = (y - mu) / s;
    double q = r * r / nu;
    double l = log1p(q);
    lp -= (0.5 * nu + 0.5) * l;
    if (ad(D, 0) || ad(D, 2)) {
      double d = (nu + 1) * (y - mu) / ((1 + q) * s * s * nu);
      tm_dens_add(D, 0, j, -d);
      tm_dens_add(D, 2, j, d);
    }
    if (ad(D, 1) || ad(D, 3)) {
      double rd = (nu + 1) * q / (1 + q) - 1;
      if (ad(D, 1)) tm_dens_add(D, 1, j, dg[idx(D, 1, j)] + 0.5 * (rd / nu - l));
      tm_dens_add(D, 3, j, rd / s);
    }
  }
  if (tm_dens_keep(D, 0)) lp -= 0.5 * TM_LOG_PI * (double)D->n;
  if (tm_dens_keep(D, B(1))) add_unary(D, 1, student_nu_term, &lp);
  if (tm_dens_keep(D, B(3))) add_unary(D, 3, neg_log, &lp);
  *logp = lp;
  return AD_OK;
}

static const tm_dens_def dens_student_t = {4, {Y, "Degrees of freedom parameter", LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_FINITE}, {3, CK_POS_FINITE}}, 0, student_t_body, 0};

/* student_t(y | nu, mu, sigma): the tail J = P(T < -|z|) = I_x(nu / 2, 1 / 2) / 2,
** x = nu / (nu + z^2), whose complement 1 - x = z^2 / (nu + z^2) is formed
** directly so the centre keeps its digits; the partial in z is the density
** over the returned probability. */
static double student_t_e(const double *x, int upper, double *d) {
  double nu = x[1], s = x[3], z = (x[0] - x[2]) / s;
  if (isinf(z)) return (z < 0) == !upper ? -INFINITY : 0;
  double z2 = z * z, den = nu + z2, li, lj, g[6];
  tm_log_inc_beta_grad(0.5 * nu, 0.5, nu / den, z2 / den, &li, &lj, g);
  double L = li - TM_LOG_2, Lc = tm_log1m_exp(L);
  double dL = 0.5 * g[0] + (z2 == 0 ? 0 : g[4] * z2 / (den * den));    /* d L / d nu */
  int use_j = upper ? z >= 0 : z < 0;
  double v = use_j ? L : Lc;
  d[1] = use_j ? dL : -exp(L - Lc) * dL;
  double lf = tm_lgamma(0.5 * (nu + 1)) - tm_lgamma(0.5 * nu) - 0.5 * log(nu * TM_PI)
              - 0.5 * (nu + 1) * log1p(z2 / nu);
  double gz = (upper ? -1 : 1) * exp(lf - v);
  d[0] = gz / s;
  d[2] = -gz / s;
  d[3] = -gz * z / s;
  return v;
}

static const cdf_def d_student_t = {4, 0, {Y, DOF, LOC, SCALE},
  {{0, CK_NOT_NAN}, {1, CK_POS_FINITE}, {2, CK_FINITE}, {3, CK_POS_FINITE}}, student_t_e, NULL};
MODES(student_t)

static int draw_student_t(tm_rng *r, const double *p, double *x) { *x = p[1] + p[2] * tm_rd_student_t(r, p[0]); return 0; }

static const rng_def D_student_t = {"student_t_rng", 3, 0, draw_student_t,
  {"Degrees of freedom parameter", LOC, SCALE}, {CK_POS_FINITE, CK_FINITE, CK_POS_FINITE}};

/* ---- student_t_qf ---- */

/* log F(t) of the standard t for t <= 0, its partial in nu, and log f(t);
** t^2 is never formed when it could overflow */
static double t_lower(double t, double nu, double *dnu, double *logf) {
  double x, y, l1, li, lj, g[6];
  double lr = log(nu) - 2 * log(-t);
  if (lr < -600) {
    /* x = nu / (nu + t^2) below the doubles' range: I_x(a, 1/2) = x^a / (a B(a, 1/2)) (1 + O(x)) */
    double a = 0.5 * nu, l = a * lr - log(a) - tm_lbeta(a, 0.5);
    if (dnu) *dnu = 0.5 * (lr - 1 / a - tm_digamma(a) + tm_digamma(a + 0.5)) + 0.5;
    *logf = tm_lgamma(0.5 * (nu + 1)) - tm_lgamma(0.5 * nu) - 0.5 * log(nu * TM_PI) + 0.5 * (nu + 1) * lr;
    return l - TM_LOG_2;
  }
  if (t * t > nu || isinf(t)) {           /* r = nu / t^2 < 1 */
    double r = exp(log(nu) - 2 * log(-t));
    x = r / (1 + r); y = 1 / (1 + r);
    l1 = 2 * log(-t) - log(nu) + log1p(r);
  } else {
    double s = t * t / nu;
    x = 1 / (1 + s); y = s / (1 + s);
    l1 = log1p(s);
  }
  tm_log_inc_beta_grad(0.5 * nu, 0.5, x, y, &li, &lj, g);
  if (dnu) *dnu = 0.5 * g[0] + g[4] * x * y / nu;     /* dx/dnu = t^2 / (nu + t^2)^2 = x y / nu */
  *logf = tm_lgamma(0.5 * (nu + 1)) - tm_lgamma(0.5 * nu) - 0.5 * log(nu * TM_PI) - 0.5 * (nu + 1) * l1;
  return li - TM_LOG_2;
}

/* t < 0 with F(t) = q, 0 < q < 1/2: Newton's method in u = log(-t), where
** log F is close to linear in both tails, inside a bracket [ua, ub] with
** F above q at ua and below at ub; -inf when t is beyond the doubles */
static double t_solve(double q, double nu) {
  double lq = log(q), lf, z = tm_inv_Phi(q);
  double u = log(z < -1e-300 ? -z : 1e-300), ua = u, ub = u;
  while (t_lower(-exp(ua), nu, NULL, &lf) < lq) { ua -= 2; if (ua < -750) return -exp(ua); }
  while (t_lower(-exp(ub), nu, NULL, &lf) > lq) { ub += 2; if (ub > 709) return -INFINITY; }
  for (int it = 0; it < 200; it++) {
    double t = -exp(u), v = t_lower(t, nu, NULL, &lf), gx = v - lq;
    if (gx == 0) break;
    if (gx > 0) ua = u; else ub = u;
    double un = u - gx / (exp(lf - v) * t);
    if (!(un > ua && un < ub)) un = 0.5 * (ua + ub);
    double du = fabs(un - u);
    u = un;
    if (du <= 1e-15 || ub - ua <= 1e-15) break;
  }
  return -exp(u);
}

/* the standard quantile at p and its partials in p and nu */
static double t_qf(double p, double nu, double *dp, double *dnu) {
  *dp = *dnu = 0;
  if (p == 0) return -INFINITY;
  if (p == 1) return INFINITY;
  if (nu == 0) return p < 0.5 ? -INFINITY : p > 0.5 ? INFINITY : 0;
  if (isinf(nu)) {                       /* the normal quantile */
    double z = tm_inv_Phi(p);
    *dp = exp(0.5 * z * z) * TM_SQRT_2PI;
    return z;
  }
  double lf, dl;
  if (p == 0.5) {
    t_lower(0, nu, NULL, &lf);
    *dp = exp(-lf);
    return 0;
  }
  double q = p < 0.5 ? p : 1 - p, tt = t_solve(q, nu);
  if (!isfinite(tt)) return p < 0.5 ? tt : -tt;
  double v = t_lower(tt, nu, &dl, &lf);
  *dp = exp(-lf);
  double dtt = -dl * exp(v - lf);      /* -(dlogF/dnu) F / f */
  *dnu = p < 0.5 ? dtt : -dtt;
  return p < 0.5 ? tt : -tt;
}

static int k_student_t_qf(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  static const char *const names[4] = {"Probability parameter", "Degrees of freedom parameter",
                                       "Location parameter", "Scale parameter"};
  if (nargs != 4) return tm_no_overload(c, a, nargs);
  size_t n = 1;
  int first = -1, rc;
  for (int i = 0; i < 4; i++) {
    const tm_v *v = &a[i];
    if (!(v->base <= TM_REAL ? v->narr <= 1 : (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR) && !v->narr))
      return tm_no_overload(c, a, nargs);
    if (tm_is_scalar(v)) continue;
    if (first < 0) { first = i; n = tm_numel(v); }
    else if ((rc = tm_check_size_match(fn, names[first], n, names[i], tm_numel(v)))) return rc;
  }
  if ((rc = tm_check_nonnegative(fn, names[1], &a[1])) || (rc = tm_check_positive(fn, names[3], &a[3])) ||
      (rc = tm_check_bounded(fn, names[0], &a[0], 0, 1)))
    return rc;
  int ad = tm_any_ad(a, 4);
  double *d[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4; i++)
    if (a[i].adj && !(d[i] = ad_alloc_doubles(n ? n : 1))) return AD_EMEMORY;
  double *val;
  if (first < 0) {
    if (!(val = ad_alloc_doubles(1))) return AD_EMEMORY;
  } else {
    if ((rc = tm_new_vector(out, (int)n, ad))) return rc;
    val = out->val;
  }
  for (size_t j = 0; j < n; j++) {
    double p = tm_get(&a[0], j), nu = tm_get(&a[1], j), mu = tm_get(&a[2], j), s = tm_get(&a[3], j), dp, dn;
    double t = t_qf(p, nu, &dp, &dn);
    val[j] = p == 0.5 ? mu : mu + s * t;
    if (d[0]) d[0][j] = s * dp;
    if (d[1]) d[1][j] = s * dn;
    if (d[2]) d[2][j] = 1;
    if (d[3]) d[3][j] = isfinite(t) ? t : 0;
  }
  if (first < 0) {
    if (!ad) {
      rc = tm_set_real(out, val[0]);
      out->dep = (unsigned char)tm_any_dep(a, 4);
      return rc;
    }
    return tm_set_partials(out, a, d, 4, val[0]);
  }
  if (!ad) {
    out->dep = (unsigned char)tm_any_dep(a, 4);
    return AD_OK;
  }
  tm_ew_node *e = tm_ew_node_new(n, out->adj);
  if (!e) return AD_EMEMORY;
  for (int i = 0; i < 4; i++)
    if (a[i].adj) tm_ew_node_add(e, a[i].adj, d[i], tm_is_scalar(&a[i]));
  return AD_OK;
}

const tm_fn tm_fns_student_t[] = {
  {"student_t_lpdf",          SIG4, tm_dens_def_kernel, &dens_student_t},
  ENTRIES(student_t, "real(reals, reals, reals, reals)"),
  {"student_t_rng", R3, tm_rng_kernel, &D_student_t},
  {"student_t_qf", "real(real, real, real, real); vector(reals, reals, reals, reals)", k_student_t_qf, NULL},
  {NULL, NULL, NULL, NULL}
};
