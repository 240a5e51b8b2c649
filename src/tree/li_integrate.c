/*
** li_integrate.c -- integrate_1d, integrate_1d_gauss_kronrod and
** integrate_1d_double_exponential (and their _tol forms) on the GNU
** Scientific Library's adaptive Gauss-Kronrod quadrature (QAGS on a finite
** range, QAGIU, QAGIL and QAGI on infinite ones).
**
** As Stan: xc is the distance to the nearest limit (a - x or b - x) on a
** finite range and NaN on an infinite one, and always NaN for
** integrate_1d_gauss_kronrod; the gradient by each autodiff input of f is
** the integral of f's derivative by it, integrated to the same tolerances
** (f recorded on a scoped tape at each point, one sweep), and by the limits
** -f(a) and f(b).  Stan runs integrate_1d and the double-exponential forms
** on Boost's tanh-sinh family; GSL has none, so they run on the same
** Gauss-Kronrod quadrature here: the integral agrees to the tolerance.
**
** GSL's error handler is turned off once when the package loads
** (li_integrate_init): failures come back as codes, never as an abort.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "li_int.h"

#ifdef TAPESTRY_GSL
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#endif

void li_integrate_init(void) {
#ifdef TAPESTRY_GSL
  gsl_set_error_handler_off();
#endif
}

typedef struct q_sys {
  li_nested_fn fn;              /* f(x, xc, theta, x_r, x_i), or f(x, xc, ...) */
  const char *name;             /* the Stan function, for messages */
  double x, xc;                 /* fn's first two arguments */
  double a, b;
  int finite;                   /* xc is the distance to a limit (else NaN) */
  int comp;                     /* -1: f itself; k: f's derivative by its k-th autodiff input */
  double atol;                  /* the error test's absolute floor */
  size_t limit;                 /* subintervals GSL may use */
  int absolute;                 /* integrate |f| (the L1 norm of the error test) */
  double *grad;                 /* f's gradient by theta at a point */
  int status;
  char msg[1024];
  ad_stack *st;
} q_sys;

/* f (comp < 0) or its derivative by theta[comp] at x; NaN after a failure. */
static double integrand(double x, void *ud) {
  q_sys *s = ud;
  if (s->status) return NAN;
  double y = NAN;
  s->x = x;
  /* xc: the distance to the nearest limit on a finite range */
  s->xc = !s->finite ? NAN : x - s->a < s->b - x ? s->a - x : s->b - x;
  int rc = s->comp < 0 ? li_nested_values(&s->fn, &y) : li_nested_jacobian(&s->fn, s->st, &y, NULL, s->grad);
  if (!rc && s->comp >= 0) y = s->grad[s->comp];
  if (rc) {
    s->status = rc;
    snprintf(s->msg, sizeof s->msg, "%s", ad_errmsg());
    return NAN;
  }
  if (!isfinite(y) && !s->status) {
    s->status = AD_EDOMAIN;
    snprintf(s->msg, sizeof s->msg, "%s: the integrand is %g at x = %g", s->name, y, x);
  }
  return s->absolute ? fabs(y) : y;
}

#ifdef TAPESTRY_GSL

static int quad_once(q_sys *s, gsl_integration_workspace *w, size_t limit, double atol, double rtol, double *res,
                     double *err) {
  gsl_function F = { integrand, s };
  if (isfinite(s->a) && isfinite(s->b)) return gsl_integration_qags(&F, s->a, s->b, atol, rtol, limit, w, res, err);
  if (isfinite(s->a)) return gsl_integration_qagiu(&F, s->a, atol, rtol, limit, w, res, err);
  if (isfinite(s->b)) return gsl_integration_qagil(&F, s->b, atol, rtol, limit, w, res, err);
  return gsl_integration_qagi(&F, atol, rtol, limit, w, res, err);
}

/* The integral to the relative tolerance; as Boost's quadrature that Stan
** uses, an error at most rtol times the integral of |f| also passes (an
** integral near 0, such as a gradient by a symmetric density's location,
** cannot meet a tolerance relative to itself); so does an error at most the
** absolute tolerance of the _tol forms. */
static int quad(q_sys *s, double rtol, double *out) {
  gsl_integration_workspace *w = gsl_integration_workspace_alloc(s->limit);
  if (!w) return ad_fail(AD_EMEMORY, "out of memory");
  double res = 0, err = 0, l1 = 0, l1err = 0;
  int g = quad_once(s, w, s->limit, s->atol, rtol, &res, &err);
  if (g && !s->status) {
    s->absolute = 1;
    int g1 = quad_once(s, w, s->limit, 0, 1e-3, &l1, &l1err);
    s->absolute = 0;
    if (!g1 && err <= fmax(rtol * l1, s->atol)) g = 0;
  }
  gsl_integration_workspace_free(w);
  if (s->status) return ad_fail(s->status, "%s", s->msg);
  if (g)
    return ad_fail(AD_EDOMAIN, "%s: the integral did not reach the relative tolerance %g (%s; "
                   "estimate %g, error %g)", s->name, rtol, gsl_strerror(g), res, err);
  *out = res;
  return AD_OK;
}

#else

static int quad(q_sys *s, double rtol, double *out) {
  (void)s; (void)rtol; (void)out;
  (void)integrand;
  return ad_fail(AD_EINVALID, "%s needs the GNU Scientific Library, which this build of tapestry "
                 "was made without: install it (Debian/Ubuntu: apt-get install libgsl-dev) and reinstall tapestry",
                 s->name);
}

#endif

int li_integrate_1d(li_run *r, const ln_expr *e, tm_v *out) { return li_hof_run(r, e, out, li_integrate_core); }

int li_integrate_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out) {
  const char *fn = e->name;
  int old = e->builtin == LN_BI_INTEGRATE, tol = !old && li_is_tol_form(fn), rc;
  int nfix = old ? 2 : tol ? 5 : 2;                   /* a, b[, rel_tol, abs_tol, max_depth] */
  int nx = old ? 3 : e->nargs - 1 - nfix;             /* f's arguments after x and xc */
  if (nx + 2 > LI_NESTED_MAXARGS) return li_fail_at(r, AD_EINVALID, "%s: too many arguments", fn);
  q_sys s;
  memset(&s, 0, sizeof s);
  s.name = fn;
  s.a = tm_get(&a[0], 0);
  s.b = tm_get(&a[1], 0);
  s.comp = -1;
  s.limit = 1000;
  /* f's arguments: x, xc, then theta, x_r, x_i (integrate_1d) or the rest */
  tm_v *x = old ? &a[2] : &a[nfix];
  tm_v fargs[LI_NESTED_MAXARGS];
  int fad[LI_NESTED_MAXARGS] = { 0 };
  fargs[0] = tm_real_view(&s.x, NULL);
  fargs[1] = tm_real_view(&s.xc, NULL);
  for (int k = 0; k < nx; k++) {
    fargs[k + 2] = x[k];
    fad[k + 2] = r->ad && x[k].adj != NULL && (!old || k == 0);
  }
  s.fn = (li_nested_fn){ r, e->args[0]->ufn, fargs, nx + 2, -1, 1, fad, fn, "the integrand", "a real", NULL };
  double rtol = sqrt(2.220446049250313e-16);
  if (old && e->nargs == 7) rtol = tm_get(&a[5], 0);
  if (tol) {
    rtol = tm_get(&a[2], 0);
    s.atol = tm_get(&a[3], 0);
    int depth = a[4].ival[0];
    if (depth < 0) return li_fail_at(r, AD_EDOMAIN, "%s: max_depth is %d, but must be non-negative", fn, depth);
    if (!(s.atol >= 0) || !isfinite(s.atol))
      return li_fail_at(r, AD_EDOMAIN, "%s: absolute_tolerance is %g, but must be non-negative and finite", fn, s.atol);
    /* Boost bisects at most max_depth times; GSL counts subintervals */
    s.limit = depth >= 10 ? 1000 : (size_t)1 << depth;
  }
  if (isnan(s.a) || isnan(s.b))
    return li_fail_at(r, AD_EDOMAIN, "%s: the limits of integration are %g and %g, but must not be NaN", fn, s.a, s.b);
  if (!(rtol > 0) || !isfinite(rtol))
    return li_fail_at(r, AD_EDOMAIN, "%s: relative_tolerance is %g, but must be positive and finite", fn, rtol);
  if (s.b < s.a)
    return li_fail_at(r, AD_EDOMAIN, "%s: lower limit %g is greater than the upper limit %g", fn, s.a, s.b);
  s.finite = isfinite(s.a) && isfinite(s.b) && !strstr(fn, "gauss_kronrod");
  if (old && (rc = li_check_finite(r, fn, "theta", &x[0]))) return rc;
  s.fn.eng = r->hof_eng;
  /* f's arguments at a point inside the range, for a plan of f */
  s.x = isfinite(s.a) && isfinite(s.b) ? s.a + (s.b - s.a) / 2 : isfinite(s.a) ? s.a + 1 : isfinite(s.b) ? s.b - 1 : 0;
  s.xc = !s.finite ? NAN : s.x - s.a < s.b - s.x ? s.a - s.x : s.b - s.x;
  li_hof_note(r, &s.fn, 2);
  double val = 0;
  if (s.a == s.b) val = 0;
  else if ((rc = quad(&s, rtol, &val))) return li_locate(r, rc);

  size_t P = li_collect_adjoints(fargs, fad, nx + 2, NULL);
  int ad_a = r->ad && a[0].adj != NULL, ad_b = r->ad && a[1].adj != NULL;
  int dep = li_nonconst(&a[0]) || li_nonconst(&a[1]);
  for (int k = 0; k < nx; k++) dep = dep || li_nonconst(&x[k]);
  if (!P && !ad_a && !ad_b) {
    double *v = ad_alloc_doubles(1);
    if (!v) return ad_fail(AD_EMEMORY, "out of memory");
    *v = val;
    *out = tm_vector_view(v, NULL, 1);
    out->base = TM_REAL;
    out->rows = out->cols = 1;
    out->dep = (unsigned char)dep;
    return AD_OK;
  }
  /* partials: by each autodiff input of f, by a, by b */
  size_t k = P + (size_t)ad_a + (size_t)ad_b, n = 0;
  ad_var *v = ad_alloc((k ? k : 1) * sizeof *v);
  double *d = ad_alloc_doubles(k ? k : 1);
  if (!v || !d) return ad_fail(AD_EMEMORY, "out of memory");
  for (int j = 0; j < nx + 2; j++)
    if (fad[j])
      for (size_t i = 0; i < tm_numel(&fargs[j]); i++) {
        v[n].val = &fargs[j].val[i];
        v[n].adj = &fargs[j].adj[i];
        n++;
      }
  if (P) {
    if (!(s.grad = ad_alloc_doubles(P)) || !(s.st = ad_scoped_new())) return ad_fail(AD_EMEMORY, "out of memory");
    for (size_t i = 0; i < P && !rc; i++) {
      s.comp = (int)i;
      if (s.a != s.b) rc = quad(&s, rtol, &d[i]);
      else d[i] = 0;
    }
    ad_stack_free(s.st);
    s.st = NULL;
    if (rc) return li_locate(r, rc);
  }
  s.comp = -1;
  if (ad_a) {
    d[n] = isfinite(s.a) ? -integrand(s.a, &s) : 0;
    v[n].val = a[0].val;
    v[n].adj = a[0].adj;
    n++;
  }
  if (ad_b) {
    d[n] = isfinite(s.b) ? integrand(s.b, &s) : 0;
    v[n].val = a[1].val;
    v[n].adj = a[1].adj;
    n++;
  }
  if (s.status) return li_locate(r, ad_fail(s.status, "%s", s.msg));
  ad_var y;
  if ((rc = ad_nary((int)n, v, val, d, &y))) return rc;
  memset(out, 0, sizeof *out);
  out->val = y.val;
  out->adj = y.adj;
  out->base = TM_REAL;
  out->rows = out->cols = 1;
  out->dep = 1;
  return AD_OK;
}
