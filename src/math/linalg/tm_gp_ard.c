/*
** tm_gp_ard.c -- the automatic-relevance-determination forms of the
** stationary covariance functions: gp_exp_quad_cov, gp_exponential_cov,
** gp_matern32_cov and gp_matern52_cov with array[] vector points and one
** length scale per dimension (array[] real), as Stan: each coordinate is
** divided by its length scale, then the function of the Euclidean distance
** r with length scale 1.  Reached from the kernels of tm_matrix.c and
** tm_gp.c when the last argument is an array.
**
** With q = r^2 = sum_c (x1_c - x2_c)^2 / l_c^2, K = sigma^2 k(r) and
** dK/dq = sigma^2 k'(r) / (2 r), finite at r = 0 for all but the
** exponential kernel (whose partials there are taken as 0, as the
** isotropic kernels do).  One node per call; its reverse step revisits the
** pairs.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"

#define AT(A, ld, i, j) ((A)[(size_t)(j) * (size_t)(ld) + (size_t)(i)])
#define SQRT3 1.732050807568877293527446341506
#define SQRT5 2.236067977499789696409173668731

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

/* k(r) and k'(r) / r at q = r^2 */
static double kfun(int kind, double q, double *g) {
  double r = sqrt(q), e;
  switch (kind) {
  case TM_GP_EXP_QUAD:
    e = exp(-0.5 * q);
    *g = -e;
    return e;
  case TM_GP_EXPONENTIAL:
    e = exp(-r);
    *g = r > 0 ? -e / r : 0;
    return e;
  case TM_GP_MATERN32:
    e = exp(-SQRT3 * r);
    *g = -3 * e;
    return (1 + SQRT3 * r) * e;
  default:
    e = exp(-SQRT5 * r);
    *g = -5.0 / 3.0 * (1 + SQRT5 * r) * e;
    return (1 + SQRT5 * r + 5.0 / 3.0 * q) * e;
  }
}

typedef struct {
  ad_node hdr;
  int kind, n1, n2, d;
  const double *x1, *x2, *l, *K, *Kadj;
  double *x1adj, *x2adj, *ladj, s, *sadj;
} ard_node;

static double sq(const double *a, const double *b, const double *l, int d) {
  double q = 0;
  for (int c = 0; c < d; c++) { double t = (a[c] - b[c]) / l[c]; q += t * t; }
  return q;
}

static void ard_chain(ad_node *self) {
  ard_node *p = (ard_node *)self;
  int d = p->d;
  double gs = 0, s2 = p->s * p->s;
  for (int j = 0; j < p->n2; j++)
    for (int i = 0; i < p->n1; i++) {
      double G = AT(p->Kadj, p->n1, i, j);
      if (G == 0) continue;
      gs += G * AT(p->K, p->n1, i, j);
      if (!p->x1adj && !p->x2adj && !p->ladj) continue;
      const double *a = p->x1 + (size_t)i * d, *b = p->x2 + (size_t)j * d;
      double g;
      kfun(p->kind, sq(a, b, p->l, d), &g);
      double dq = G * s2 * g / 2;          /* dK/dq times the adjoint */
      for (int c = 0; c < d; c++) {
        double del = a[c] - b[c], l2 = p->l[c] * p->l[c];
        if (p->x1adj) p->x1adj[(size_t)i * d + c] += dq * 2 * del / l2;
        if (p->x2adj) p->x2adj[(size_t)j * d + c] -= dq * 2 * del / l2;
        if (p->ladj) p->ladj[c] -= dq * 2 * del * del / (l2 * p->l[c]);
      }
    }
  if (p->sadj) *p->sadj += 2 * gs / p->s;
}

int tm_gp_ard(const tm_call *c, const tm_v *a, int nargs, tm_v *out, int kind) {
  const char *fn = c->fn->name;
  int two = nargs == 4, rc;
  if (nargs != 3 && nargs != 4) return tm_no_overload(c, a, nargs);
  const tm_v *x1 = &a[0], *x2 = two ? &a[1] : &a[0], *s = &a[nargs - 2], *l = &a[nargs - 1];
  if (x1->narr != 1 || x1->base != TM_VECTOR || x2->narr != 1 || x2->base != TM_VECTOR || !tm_is_scalar(s) ||
      l->narr != 1 || l->base != TM_REAL)
    return tm_no_overload(c, a, nargs);
  const char *sname = kind == TM_GP_EXP_QUAD ? "marginal standard deviation" : "magnitude";
  int n1 = x1->dim[0], n2 = x2->dim[0], d = x1->rows, nl = l->dim[0];
  if ((rc = tm_check_not_nan(fn, two ? "x1" : "x", x1)) || (two && (rc = tm_check_not_nan(fn, "x2", x2))))
    return rc;
  if ((rc = tm_check_positive_finite(fn, sname, s)) || (rc = tm_check_positive_finite(fn, "length scale", l)))
    return rc;
  if (n1 > 0 && n2 > 0) {
    if ((rc = tm_check_size_match(fn, "x dimension", (size_t)d, "number of length scales", (size_t)nl))) return rc;
    if (two && (rc = tm_check_size_match(fn, "x dimension", (size_t)x2->rows, "number of length scales", (size_t)nl)))
      return rc;
  }
  int ad = x1->adj || x2->adj || s->adj || l->adj;
  if (tm_new_matrix(out, n1, n2, ad)) return nomem(c);
  double *p1 = tm_copy_vals(x1), *p2 = two ? tm_copy_vals(x2) : p1, *lc = tm_copy_vals(l);
  if (!p1 || !p2 || !lc) return nomem(c);
  double sv = tm_get(s, 0), s2 = sv * sv, g;
  for (int j = 0; j < n2; j++)
    for (int i = 0; i < n1 && (two || i <= j); i++)
      AT(out->val, n1, i, j) = s2 * kfun(kind, sq(p1 + (size_t)i * d, p2 + (size_t)j * d, lc, d), &g);
  if (!two)                  /* K(x, x) exactly symmetric */
    for (int j = 0; j < n2; j++)
      for (int i = j + 1; i < n1; i++) AT(out->val, n1, i, j) = AT(out->val, n1, j, i);
  if (!ad) { out->dep = (unsigned char)tm_any_dep(a, nargs); return AD_OK; }
  ard_node *p = ad_node_new(sizeof *p, ard_chain);
  if (!p) return nomem(c);
  p->kind = kind; p->n1 = n1; p->n2 = n2; p->d = d;
  p->x1 = p1; p->x2 = p2; p->l = lc;
  p->x1adj = x1->adj; p->x2adj = two ? x2->adj : x1->adj;     /* same points: both ends of each pair move */
  p->ladj = l->adj;
  p->s = sv; p->sadj = s->adj; p->Kadj = out->adj;
  if (!(p->K = tm_copy_vals(out))) return nomem(c);   /* the n1 x n2 values of K */
  return AD_OK;
}
