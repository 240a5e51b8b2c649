/*
** tm_ordered.c -- the ordered family: ordered_logistic_lpmf and
** ordered_probit_lpmf (a cut-point vector per outcome or shared),
** ordered_logistic_rng and ordered_probit_rng.  ordered_logistic_glm is with
** the GLMs (tm_glm.c).
**
** As everywhere: one node per call, terms dropped under propto exactly when
** every argument they depend on is constant (ints always are).
*/
#include <math.h>
#include <stdio.h>
#include "../tm_tables.h"
#include "../tm_special.h"
#include "../tm_special_dist.h"
#include "tm_dens_elem.h"
#include "tm_rng_def.h"
#include "tm_rng_dist.h"

#define ORD_SIG "real(int, real, vector); real(array[] int, real, vector); real(array[] int, vector, vector); " \
  "real(array[] int, vector, array[] vector)"

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
      tm_dens_elem_name(nm, sizeof nm, "Random variable", y, i);
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
  ad_operand ops[2];
  int nops = 0;
  if (de) ops[nops++] = (ad_operand){eta->adj, de, tm_numel(eta)};
  if (dc) ops[nops++] = (ad_operand){cut->adj, dc, tm_numel(cut)};
  return tm_set_operands(out, nops, ops, lp, eta->dep || cut->dep);
}

static const ordered_fn f_ordered_logistic = ordered_logistic_k, f_ordered_probit = ordered_probit_k;

/* ---- ordered_logistic_rng, ordered_probit_rng: inversion on the cumulative
** probabilities F(k) = P(y <= k), logistic or normal at c_k - eta ---- */

static int k_ordered_rng(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  int probit = c->fn->data != NULL, rc;
  const char *fn = probit ? "ordered_probit_rng" : "ordered_logistic_rng";
  if ((rc = tm_rng_begin(c, fn, nargs, 2))) return rc;
  if (!tm_is_scalar(&a[0]) || a[1].base != TM_VECTOR || a[1].narr)
    return ad_fail(AD_EINVALID, "%s: expects (real, vector)", fn);
  double eta = tm_get(&a[0], 0);
  int Km1 = a[1].rows;
  if ((rc = tm_check_finite(fn, "Location parameter", &a[0])) || (rc = check_ordered(fn, "Cut-points", a[1].val, Km1, 0, 0)))
    return rc;
  if ((rc = tm_new_int(out))) return ad_fail(AD_EMEMORY, "out of memory");
  double u = tm_rng_uniform(c->rng);
  int k = 1;
  for (; k <= Km1; k++) {
    double z = a[1].val[k - 1] - eta, F = probit ? tm_Phi(z) : tm_inv_logit(z);
    if (u <= F) break;
  }
  out->ival[0] = k;
  return AD_OK;
}

const tm_fn tm_fns_ordered[] = {
  {"ordered_logistic_lpmf", ORD_SIG, k_ordered, &f_ordered_logistic},
  {"ordered_probit_lpmf", ORD_SIG "; real(array[] int, real, array[] vector)", k_ordered, &f_ordered_probit},
  {"ordered_logistic_rng", "int(real, vector)", k_ordered_rng, NULL},
  {"ordered_probit_rng", "int(real, vector)", k_ordered_rng, "probit"},
  {NULL, NULL, NULL, NULL}
};
