/*
** tm_gp.c -- the Gaussian-process covariance functions beside
** gp_exp_quad_cov (tm_matrix.c): gp_exponential_cov, gp_matern32_cov,
** gp_matern52_cov, gp_periodic_cov and gp_dot_prod_cov.
**
** The stationary ones are K_ij = sigma^2 k(d_ij) with d the Euclidean
** distance between points: one kernel runs a def giving k and its partials
** in d, the length scale and the period.  One node per call; its reverse
** step revisits the pairs (the distances are recomputed, K is kept).  At
** d = 0 the partials in the points are taken as 0 (the functions with a
** kink there have no derivative; the smooth ones have 0).
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"

#define AT(A, ld, i, j) ((A)[(size_t)(j) * (size_t)(ld) + (size_t)(i)])

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

/* k(d) / sigma^2 at distance d and its partials (dd, dl, dp) */
typedef double (*gp_fn)(double d, double l, double p, double *dd, double *dl, double *dp);

static double k_exponential(double d, double l, double p, double *dd, double *dl, double *dp) {
  (void)p;
  double k = exp(-d / l);
  *dd = -k / l;
  *dl = k * d / (l * l);
  *dp = 0;
  return k;
}

#define SQRT3 1.732050807568877293527446341506
#define SQRT5 2.236067977499789696409173668731

static double k_matern32(double d, double l, double p, double *dd, double *dl, double *dp) {
  (void)p;
  double r = SQRT3 * d / l, e = exp(-r), dr = -r * e;     /* d k / dr */
  *dd = dr * SQRT3 / l;
  *dl = -dr * r / l;
  *dp = 0;
  return (1 + r) * e;
}

static double k_matern52(double d, double l, double p, double *dd, double *dl, double *dp) {
  (void)p;
  double r = SQRT5 * d / l, e = exp(-r), dr = -r * (1 + r) / 3 * e;
  *dd = dr * SQRT5 / l;
  *dl = -dr * r / l;
  *dp = 0;
  return (1 + r + r * r / 3) * e;
}

/* exp(-2 sin^2(pi d / p) / l^2) */
static double k_periodic(double d, double l, double p, double *dd, double *dl, double *dp) {
  double u = 3.141592653589793238462643383280 * d / p, s = sin(u), k = exp(-2 * s * s / (l * l));
  double dk_du = -k * 4 * s * cos(u) / (l * l);
  *dd = dk_du * u / d;
  if (d == 0) *dd = 0;
  *dl = k * 4 * s * s / (l * l * l);
  *dp = -dk_du * u / p;
  return k;
}

typedef struct gp_def {
  gp_fn f;
  int nparams;                 /* after sigma: 1 (length scale) or 2 (and period) */
  const char *names[2];
} gp_def;

typedef struct {
  ad_node hdr;
  const gp_def *def;
  int n1, n2, dim, same;
  const double *x1, *x2;
  double *x1adj, *x2adj;       /* NULL for data */
  const double *K, *Kadj;
  double s, l, p, *sadj, *ladj, *padj;
} gp_node;

static double dist(const double *a, const double *b, int dim) {
  double s = 0;
  for (int c = 0; c < dim; c++) { double t = a[c] - b[c]; s += t * t; }
  return sqrt(s);
}

static void gp_chain(ad_node *self) {
  gp_node *q = (gp_node *)self;
  double gs = 0, gl = 0, gp = 0, s2 = q->s * q->s;
  for (int j = 0; j < q->n2; j++)
    for (int i = 0; i < q->n1; i++) {
      double g = AT(q->Kadj, q->n1, i, j);
      if (g == 0) continue;
      gs += g * AT(q->K, q->n1, i, j);
      if (!q->ladj && !q->padj && !q->x1adj && !q->x2adj) continue;
      const double *xi = q->x1 + (size_t)i * q->dim, *xj = q->x2 + (size_t)j * q->dim;
      double d = dist(xi, xj, q->dim), dd, dl, dp;
      q->def->f(d, q->l, q->p, &dd, &dl, &dp);
      gl += g * s2 * dl;
      gp += g * s2 * dp;
      if (d > 0 && (q->x1adj || q->x2adj))
        for (int c = 0; c < q->dim; c++) {
          double t = g * s2 * dd * (xi[c] - xj[c]) / d;
          if (q->x1adj) q->x1adj[(size_t)i * q->dim + c] += t;
          if (q->x2adj) q->x2adj[(size_t)j * q->dim + c] -= t;
        }
    }
  if (q->sadj) *q->sadj += 2 * gs / q->s;
  if (q->ladj) *q->ladj += gl;
  if (q->padj) *q->padj += gp;
}

/* Points of an array[] real or array[] vector argument. */
static int points(const tm_call *c, const tm_v *x, const char *name, int *n, int *dim) {
  if (x->narr != 1 || x->base == TM_MATRIX || x->base == TM_INT)
    return ad_fail(AD_EINVALID, "%s: %s must be an array of reals or vectors", c->fn->name, name);
  *n = x->dim[0];
  *dim = x->rows * x->cols;
  return tm_check_not_nan(c->fn->name, name, x);
}


static const gp_def d_exponential, d_matern32, d_matern52;

/* (x, sigma, l[, p]) or (x1, x2, sigma, l[, p]) */
static int k_gp(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const gp_def *def = c->fn->data;
  const char *fn = c->fn->name;
  if (def->nparams == 1 && (nargs == 3 || nargs == 4) && a[nargs - 1].narr == 1)   /* one length scale per dimension */
    return tm_gp_ard(c, a, nargs, out, def == &d_exponential ? TM_GP_EXPONENTIAL :
                     def == &d_matern32 ? TM_GP_MATERN32 : TM_GP_MATERN52);
  int np = 1 + def->nparams, two = nargs == np + 2, rc;
  if (nargs != np + 1 && !two) return ad_fail(AD_EINVALID, "%s: expected %d or %d arguments, got %d", fn, np + 1, np + 2, nargs);
  const tm_v *x1 = &a[0], *x2 = two ? &a[1] : &a[0], *par = &a[two ? 2 : 1];
  for (int k = 0; k < np; k++)
    if (!tm_is_scalar(&par[k])) return ad_fail(AD_EINVALID, "%s: sigma and the scales must be reals", fn);
  int n1, n2, d1, d2;
  if ((rc = points(c, x1, two ? "x1" : "x", &n1, &d1)) || (rc = points(c, x2, "x2", &n2, &d2))) return rc;
  if ((x1->base <= TM_REAL) != (x2->base <= TM_REAL))
    return ad_fail(AD_EINVALID, "%s: x1 and x2 must both be arrays of reals or of vectors", fn);
  if (d1 != d2 && n1 > 0 && n2 > 0)
    return ad_fail(AD_EINVALID, "%s: dimension of x1 (%d) and dimension of x2 (%d) must match in size", fn, d1, d2);
  if ((rc = tm_check_positive(fn, "magnitude", &par[0]))) return rc;
  for (int k = 0; k < def->nparams; k++)
    if ((rc = tm_check_positive(fn, def->names[k], &par[k + 1]))) return rc;
  double s = tm_get(&par[0], 0), l = tm_get(&par[1], 0), p = def->nparams > 1 ? tm_get(&par[2], 0) : 0;
  int ad = x1->adj || x2->adj || tm_any_ad(par, np);
  if (tm_new_matrix(out, n1, n2, ad)) return nomem(c);
  double *p1 = tm_copy_vals(x1), *p2 = two ? tm_copy_vals(x2) : p1;
  if (!p1 || !p2) return nomem(c);
  double s2 = s * s;
  for (int j = 0; j < n2; j++)
    for (int i = 0; i < n1 && (two || i <= j); i++) {
      double dd, dl, dp;
      AT(out->val, n1, i, j) = s2 * def->f(dist(p1 + (size_t)i * d1, p2 + (size_t)j * d1, d1), l, p, &dd, &dl, &dp);
    }
  if (!two)                    /* K(x, x) exactly symmetric */
    for (int j = 0; j < n2; j++)
      for (int i = j + 1; i < n1; i++) AT(out->val, n1, i, j) = AT(out->val, n1, j, i);
  if (!ad) {
    for (int i = 0; i < nargs; i++) if (a[i].dep) out->dep = 1;
    return AD_OK;
  }
  gp_node *q = ad_node_new(sizeof *q, gp_chain);
  if (!q) return nomem(c);
  q->def = def;
  q->n1 = n1; q->n2 = n2; q->dim = d1; q->same = !two;
  q->x1 = p1; q->x2 = p2;
  q->x1adj = x1->adj; q->x2adj = two ? x2->adj : x1->adj;
  q->Kadj = out->adj;
  q->s = s; q->l = l; q->p = p;
  q->sadj = par[0].adj; q->ladj = par[1].adj; q->padj = def->nparams > 1 ? par[2].adj : NULL;
  if (!(q->K = tm_copy_vals(out))) return nomem(c);   /* the n1 x n2 values of K */
  return AD_OK;
}

/* ---- gp_dot_prod_cov: K_ij = sigma^2 + x1_i . x2_j ---- */

typedef struct {
  ad_node hdr;
  int n1, n2, dim;
  const double *x1, *x2;
  double *x1adj, *x2adj, s, *sadj;
  const double *Kadj;
} dot_node;

static void dot_chain(ad_node *self) {
  dot_node *q = (dot_node *)self;
  double gs = 0;
  for (int j = 0; j < q->n2; j++)
    for (int i = 0; i < q->n1; i++) {
      double g = AT(q->Kadj, q->n1, i, j);
      gs += g;
      for (int c = 0; c < q->dim; c++) {
        if (q->x1adj) q->x1adj[(size_t)i * q->dim + c] += g * q->x2[(size_t)j * q->dim + c];
        if (q->x2adj) q->x2adj[(size_t)j * q->dim + c] += g * q->x1[(size_t)i * q->dim + c];
      }
    }
  if (q->sadj) *q->sadj += 2 * q->s * gs;
}

static int k_gp_dot(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  const char *fn = c->fn->name;
  int two = nargs == 3, rc;
  if (nargs != 2 && nargs != 3) return ad_fail(AD_EINVALID, "%s: expected 2 or 3 arguments, got %d", fn, nargs);
  const tm_v *x1 = &a[0], *x2 = two ? &a[1] : &a[0], *sg = &a[nargs - 1];
  if (!tm_is_scalar(sg)) return ad_fail(AD_EINVALID, "%s: sigma must be a real", fn);
  int n1, n2, d1, d2;
  if ((rc = points(c, x1, two ? "x1" : "x", &n1, &d1)) || (rc = points(c, x2, "x2", &n2, &d2))) return rc;
  if ((x1->base <= TM_REAL) != (x2->base <= TM_REAL) || (d1 != d2 && n1 > 0 && n2 > 0))
    return ad_fail(AD_EINVALID, "%s: x1 and x2 must have points of one dimension", fn);
  if ((rc = tm_check_nonnegative(fn, "sigma", sg)) || (rc = tm_check_finite(fn, "sigma", sg))) return rc;
  double s = tm_get(sg, 0);
  int ad = x1->adj || x2->adj || sg->adj;
  if (tm_new_matrix(out, n1, n2, ad)) return nomem(c);
  double *p1 = tm_copy_vals(x1), *p2 = two ? tm_copy_vals(x2) : p1;
  if (!p1 || !p2) return nomem(c);
  for (int j = 0; j < n2; j++)
    for (int i = 0; i < n1; i++) {
      double t = s * s;
      for (int k = 0; k < d1; k++) t += p1[(size_t)i * d1 + k] * p2[(size_t)j * d1 + k];
      AT(out->val, n1, i, j) = t;
    }
  if (!ad) {
    for (int i = 0; i < nargs; i++) if (a[i].dep) out->dep = 1;
    return AD_OK;
  }
  dot_node *q = ad_node_new(sizeof *q, dot_chain);
  if (!q) return nomem(c);
  q->n1 = n1; q->n2 = n2; q->dim = d1;
  q->x1 = p1; q->x2 = p2;
  q->x1adj = x1->adj; q->x2adj = two ? x2->adj : x1->adj;
  q->s = s; q->sadj = sg->adj; q->Kadj = out->adj;
  return AD_OK;
}

static const gp_def d_exponential = {k_exponential, 1, {"length scale", NULL}},
  d_matern32 = {k_matern32, 1, {"length scale", NULL}},
  d_matern52 = {k_matern52, 1, {"length scale", NULL}},
  d_periodic = {k_periodic, 2, {"length-scale", "period"}};

#define GP_SIG "matrix(array[] real, real, real); matrix(array[] vector, real, real); " \
  "matrix(array[] real, array[] real, real, real); matrix(array[] vector, array[] vector, real, real)"
#define GP_ARD_SIG "matrix(array[] vector, real, array[] real); matrix(array[] vector, array[] vector, real, array[] real)"
#define GP_PER_SIG "matrix(array[] real, real, real, real); matrix(array[] vector, real, real, real); " \
  "matrix(array[] real, array[] real, real, real, real); matrix(array[] vector, array[] vector, real, real, real)"
#define GP_DOT_SIG "matrix(array[] real, real); matrix(array[] vector, real); " \
  "matrix(array[] real, array[] real, real); matrix(array[] vector, array[] vector, real)"

const tm_fn tm_fns_gp[] = {
  {"gp_exponential_cov", GP_SIG "; " GP_ARD_SIG, k_gp, &d_exponential},
  {"gp_matern32_cov", GP_SIG "; " GP_ARD_SIG, k_gp, &d_matern32},
  {"gp_matern52_cov", GP_SIG "; " GP_ARD_SIG, k_gp, &d_matern52},
  {"gp_periodic_cov", GP_PER_SIG, k_gp, &d_periodic},
  {"gp_dot_prod_cov", GP_DOT_SIG, k_gp_dot, NULL},
  {NULL, NULL, NULL, NULL}
};
