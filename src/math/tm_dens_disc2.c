/*
** tm_dens_disc2.c -- more discrete masses: beta_binomial, neg_binomial and
** discrete_range (elementwise, on tm_dens_disc.c's kernel, tm_dens_elem.h),
** ordered_logistic and ordered_probit (a cut-point vector per outcome or
** shared), multinomial and multinomial_logit.
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tm_tables.h"
#include "tm_special.h"
#include "tm_special_dist.h"
#include "tm_dens_elem.h"

/* digamma(x + n) - digamma(x): a finite sum for a modest count, exact where
** the difference of two digammas cancels (x large) */
static double digamma_diff(double x, double n) {
  if (n >= 0 && n <= 64 && n == floor(n)) {
    double s = 0;
    for (int k = 0; k < (int)n; k++) s += 1 / (x + k);
    return s;
  }
  return tm_digamma(x + n) - tm_digamma(x);
}

static void elem_name(char *buf, size_t size, const char *arg, const tm_v *v, size_t i) {
  if (tm_is_scalar(v)) snprintf(buf, size, "%s", arg);
  else snprintf(buf, size, "%s[%zu]", arg, i + 1);
}

/* ---- beta_binomial(n | N, alpha, beta) ---- */

static int beta_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Population size parameter", &D->a[1]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "First prior sample size parameter", &D->a[2]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Second prior sample size parameter", &D->a[3]);
}
static double beta_binomial_term(elem *e) {
  double n = e->x[0], N = e->x[1], a = e->x[2], b = e->x[3], lp = 0;
  e->d[2] = e->d[3] = 0;
  if (n < 0 || n > N) return -INFINITY;       /* Stan: LOG_ZERO */
  if (KEEP(e, 3u)) lp += tm_lchoose(N, n);
  if (KEEP(e, 12u)) lp += tm_lbeta(n + a, N - n + b) - tm_lbeta(a, b);
  if (e->need & 12u) {
    double dab = digamma_diff(a + b, N);      /* digamma(N + a + b) - digamma(a + b) */
    e->d[2] = digamma_diff(a, n) - dab;
    e->d[3] = digamma_diff(b, N - n) - dab;
  }
  return lp;
}
static const elem_def beta_binomial_def = {
  4, 3u, {"Successes variable", "Population size parameter", "First prior sample size parameter",
          "Second prior sample size parameter"}, beta_binomial_check, beta_binomial_term , NULL};

/* ---- neg_binomial(n | alpha, beta) ---- */

static int neg_binomial_check(const tm_dens *D) {
  int rc = tm_check_nonnegative(D->fn, "Failures variable", &D->a[0]);
  if (!rc) rc = tm_check_positive_finite(D->fn, "Shape parameter", &D->a[1]);
  return rc ? rc : tm_check_positive_finite(D->fn, "Inverse scale parameter", &D->a[2]);
}
static double neg_binomial_term(elem *e) {
  double n = e->x[0], a = e->x[1], b = e->x[2], lp = 0;
  double l1b = log1p(1 / b);                  /* -log(beta / (1 + beta)) */
  if (KEEP(e, 2u)) lp += tm_lchoose(n + a - 1, n);
  if (KEEP(e, 6u)) lp -= a * l1b;
  if (KEEP(e, 4u)) lp -= n * log1p(b);
  if (NEED(e, 1)) e->d[1] = digamma_diff(a, n) - l1b;
  if (NEED(e, 2)) e->d[2] = a / b - (a + n) / (1 + b);
  return lp;
}
static const elem_def neg_binomial_def = {
  3, 1u, {"Failures variable", "Shape parameter", "Inverse scale parameter"}, neg_binomial_check,
  neg_binomial_term , NULL};

/* ---- discrete_range(y | lower, upper) ---- */

static int discrete_range_check(const tm_dens *D) {
  for (size_t j = 0; j < D->n; j++) {
    int lo = tm_geti(&D->a[1], j), hi = tm_geti(&D->a[2], j);
    if (hi < lo) {
      char name[64];
      elem_name(name, sizeof name, "Upper bound parameter", &D->a[2], j);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be greater than or equal to %d", D->fn, name, hi, lo);
    }
  }
  return AD_OK;
}
static double discrete_range_term(elem *e) {
  double y = e->x[0], lo = e->x[1], hi = e->x[2];
  if (y < lo || y > hi) return -INFINITY;
  return -log(hi - lo + 1);
}
static const elem_def discrete_range_def = {
  3, 7u, {"Random variable", "Lower bound parameter", "Upper bound parameter"}, discrete_range_check,
  discrete_range_term , NULL};

/* ---- ordered_logistic, ordered_probit ---- */

/* log P(y = k) for cut-points c[0..K-2] and location eta, with the partials
** in eta (*de) and in the two cut-points that bound category k (*dlo for
** c[k-2], *dhi for c[k-1]; 0 when absent). */
typedef double (*ordered_fn)(int k, int K, double eta, const double *c, double *de, double *dlo, double *dhi);

static double ordered_logistic_k(int k, int K, double eta, const double *c, double *de, double *dlo, double *dhi) {
  *dlo = *dhi = 0;
  if (K == 1) { *de = 0; return 0; }
  if (k == 1) {                /* log(1 - inv_logit(eta - c_1)) */
    double x = eta - c[0], s = tm_inv_logit(x);
    *de = -s; *dhi = s;
    return tm_log1m_inv_logit(x);
  }
  if (k == K) {                /* log inv_logit(eta - c_{K-1}) */
    double x = eta - c[K - 2], s = tm_inv_logit(-x);
    *de = s; *dlo = -s;
    return tm_log_inv_logit(x);
  }
  /* log(inv_logit(a) - inv_logit(b)), a = eta - c_{k-1} > b = eta - c_k */
  double a = eta - c[k - 2], b = eta - c[k - 1];
  double da = -1 / expm1(b - a) - tm_inv_logit(a), db = -1 / expm1(a - b) - tm_inv_logit(b);
  *de = da + db; *dlo = -da; *dhi = -db;
  return a - tm_log1p_exp(a) + tm_log1m_exp(b - a) - tm_log1p_exp(b);
}

static double log_phi(double x) { return -0.5 * x * x - TM_LOG_SQRT_2PI; }

static double ordered_probit_k(int k, int K, double eta, const double *c, double *de, double *dlo, double *dhi) {
  *dlo = *dhi = 0;
  if (K == 1) { *de = 0; return 0; }
  if (k == 1) {                /* Phi(c_1 - eta) */
    double u = c[0] - eta, g = tm_dlog_Phi(u);
    *dhi = g; *de = -g;
    return tm_log_Phi(u);
  }
  if (k == K) {                /* Phi(eta - c_{K-1}) */
    double l = eta - c[K - 2], g = tm_dlog_Phi(l);
    *de = g; *dlo = -g;
    return tm_log_Phi(l);
  }
  /* Phi(u) - Phi(l), u = c_k - eta > l = c_{k-1} - eta, from the tail both are in */
  double u = c[k - 1] - eta, l = c[k - 2] - eta, lp;
  if (l > 0) lp = tm_log_diff_exp(tm_log_Phi(-l), tm_log_Phi(-u));
  else lp = tm_log_diff_exp(tm_log_Phi(u), tm_log_Phi(l));
  double gu = exp(log_phi(u) - lp), gl = -exp(log_phi(l) - lp);
  *dhi = gu; *dlo = gl; *de = -(gu + gl);
  return lp;
}

/* Stan's check_ordered */
static int check_ordered(const char *fn, const char *name, const double *c, int n, int which, int many) {
  char nm[64];
  if (many) snprintf(nm, sizeof nm, "%s[%d]", name, which + 1);
  else snprintf(nm, sizeof nm, "%s", name);
  for (int i = 0; i < n; i++) {
    if (!isfinite(c[i]))
      return ad_fail(AD_EDOMAIN, "%s: %s[%d] is %.17g, but must be finite!", fn, nm, i + 1, c[i]);
    if (i > 0 && !(c[i] > c[i - 1]))
      return ad_fail(AD_EDOMAIN, "%s: %s is not a valid ordered vector. The element at %d is %.17g, but should "
                     "be greater than the previous element, %.17g", fn, nm, i + 1, c[i], c[i - 1]);
  }
  return AD_OK;
}

static int k_ordered(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  ordered_fn f = *(const ordered_fn *)c->fn->data;
  const char *fn = c->fn->name;
  if (nargs != 3) return ad_fail(AD_EINVALID, "%s: expected 3 arguments, got %d", fn, nargs);
  const tm_v *y = &a[0], *eta = &a[1], *cut = &a[2];
  if (y->base != TM_INT || y->narr > 1)
    return ad_fail(AD_EINVALID, "%s: Random variable must be an int or an array of ints", fn);
  int eta_ok = tm_is_scalar(eta) || (eta->narr == 0 && eta->base == TM_VECTOR);
  int cut_ok = cut->base == TM_VECTOR && cut->narr <= 1;
  if (!eta_ok || !cut_ok)
    return ad_fail(AD_EINVALID, "%s: expects (int or array[] int, real or vector, vector or array[] vector)", fn);
  size_t N = tm_is_scalar(y) ? 1 : tm_numel(y);
  int many = cut->narr == 1, Km1 = cut->rows, rc;
  if (!tm_is_scalar(eta) && (rc = tm_check_size_match(fn, "Integers", N, "Locations", tm_numel(eta)))) return rc;
  if (many && (rc = tm_check_size_match(fn, "Length of location variables", N, "Number of cutpoint vectors",
                                        (size_t)cut->dim[0])))
    return rc;
  int K = Km1 + 1;
  for (size_t i = 0; i < N; i++) {
    int k = tm_geti(y, i);
    if (k < 1 || k > K) {
      char nm[64];
      elem_name(nm, sizeof nm, "Random variable", y, i);
      return ad_fail(AD_EDOMAIN, "%s: %s is %d, but must be in the interval [1, %d]", fn, nm, k, K);
    }
  }
  if ((rc = tm_check_finite(fn, "Location parameter", eta))) return rc;
  int ncut = many ? cut->dim[0] : 1;
  for (int m = 0; m < ncut; m++)
    if ((rc = check_ordered(fn, "Cut-points", cut->val + (size_t)m * Km1, Km1, m, many))) return rc;
  double *de = NULL, *dc = NULL;
  if (eta->adj && !(de = ad_alloc_zeros(tm_numel(eta) + 1))) return AD_EMEMORY;
  if (cut->adj && !(dc = ad_alloc_zeros(tm_numel(cut) + 1))) return AD_EMEMORY;
  double lp = 0;
  if (!c->propto || !tm_is_const(eta) || !tm_is_const(cut))
    for (size_t i = 0; i < N; i++) {
      const double *ci = cut->val + (many ? i * (size_t)Km1 : 0);
      double g, glo, ghi, e = tm_get(eta, tm_is_scalar(eta) ? 0 : i);
      int k = tm_geti(y, i);
      lp += f(k, K, e, ci, &g, &glo, &ghi);
      if (de) de[tm_is_scalar(eta) ? 0 : i] += g;
      if (dc) {
        double *dci = dc + (many ? i * (size_t)Km1 : 0);
        if (k >= 2) dci[k - 2] += glo;
        if (k <= Km1) dci[k - 1] += ghi;
      }
    }
  if (!de && !dc) {
    int r = tm_set_real(out, lp);
    out->dep = (unsigned char)(eta->dep || cut->dep);
    return r;
  }
  ad_operand ops[2];
  int nops = 0;
  if (de) ops[nops++] = (ad_operand){eta->adj, de, tm_numel(eta)};
  if (dc) ops[nops++] = (ad_operand){cut->adj, dc, tm_numel(cut)};
  ad_var r;
  if ((rc = ad_operands_node(nops, ops, lp, &r))) return rc;
  return tm_set_var(out, r);
}

static const ordered_fn f_ordered_logistic = ordered_logistic_k, f_ordered_probit = ordered_probit_k;

/* ---- multinomial, multinomial_logit ---- */

static int k_multinomial(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int logit = c->fn->data != NULL, rc;
  const char *fn = c->fn->name;
  if (nargs != 2 || a[0].base != TM_INT || a[0].narr != 1 || a[1].base != TM_VECTOR || a[1].narr)
    return ad_fail(AD_EINVALID, "%s: expects (array[] int, vector)", fn);
  const tm_v *y = &a[0], *th = &a[1];
  size_t K = tm_numel(y);
  if ((rc = tm_check_size_match(fn, "number of trials variable", K, "probabilities parameter",
                                tm_numel(th))))
    return rc;
  if ((rc = tm_check_nonnegative(fn, "Number of trials variable", y))) return rc;
  if (logit) rc = tm_check_finite(fn, "log-probabilities parameter", th);
  else rc = tm_dens_check_simplex(fn, "Probabilities parameter", th);
  if (rc) return rc;
  double lp = 0, N = 0;
  for (size_t i = 0; i < K; i++) N += y->ival[i];
  if (!c->propto) {
    lp += tm_lgamma(N + 1);
    for (size_t i = 0; i < K; i++) lp -= tm_lgamma(y->ival[i] + 1.0);
  }
  double *d = NULL;
  if (th->adj && !(d = ad_alloc_zeros(K + 1))) return AD_EMEMORY;
  if (!c->propto || !tm_is_const(th)) {
    if (logit) {
      double m = -INFINITY, s = 0;
      for (size_t i = 0; i < K; i++) if (th->val[i] > m) m = th->val[i];
      for (size_t i = 0; i < K; i++) s += exp(th->val[i] - m);
      double lse = m + log(s);
      for (size_t i = 0; i < K; i++) {
        lp += y->ival[i] * (th->val[i] - lse);
        if (d) d[i] = y->ival[i] - N * exp(th->val[i] - lse);
      }
    } else {
      for (size_t i = 0; i < K; i++) {
        int n = y->ival[i];
        if (n == 0) continue;             /* 0 log 0 = 0 */
        lp += n * log(th->val[i]);
        if (d) d[i] = n / th->val[i];
      }
    }
  }
  if (!d) {
    rc = tm_set_real(out, lp);
    out->dep = th->dep;
    return rc;
  }
  ad_operand o = {th->adj, d, K};
  ad_var r;
  if ((rc = ad_operands_node(1, &o, lp, &r))) return rc;
  return tm_set_var(out, r);
}

#define ORD_SIG "real(int, real, vector); real(array[] int, real, vector); real(array[] int, vector, vector); " \
  "real(array[] int, vector, array[] vector)"

const tm_fn tm_fns_dens_disc2[] = {
  {"beta_binomial_lpmf", "real(ints, ints, reals, reals)", tm_dens_elem_kernel, &beta_binomial_def},
  {"neg_binomial_lpmf", "real(ints, reals, reals)", tm_dens_elem_kernel, &neg_binomial_def},
  {"discrete_range_lpmf", "real(ints, ints, ints)", tm_dens_elem_kernel, &discrete_range_def},
  {"ordered_logistic_lpmf", ORD_SIG, k_ordered, &f_ordered_logistic},
  {"ordered_probit_lpmf", ORD_SIG "; real(array[] int, real, array[] vector)", k_ordered, &f_ordered_probit},
  {"multinomial_lpmf", "real(array[] int, vector)", k_multinomial, NULL},
  {"multinomial_logit_lpmf", "real(array[] int, vector)", k_multinomial, "logit"},
  {NULL, NULL, NULL, NULL}
};
