/*
** li_integrate.c -- integrate_1d on the GNU Scientific Library's adaptive
** Gauss-Kronrod quadrature (QAGS on a finite range, QAGIU, QAGIL and QAGI
** on infinite ones).
**
** As Stan: xc is the distance to the nearest limit (a - x or b - x) on a
** finite range and NaN on an infinite one; the gradient by theta is the
** integral of f's gradient, each component integrated to the same relative
** tolerance (f recorded on a scoped tape at each point, one sweep), and by
** the limits -f(a) and f(b).
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
  li_nested_fn fn;              /* f(x, xc, theta, x_r, x_i) */
  double x, xc;                 /* fn's first two arguments */
  double a, b;
  int finite;
  int comp;                     /* -1: f itself; k: f's derivative by theta[k] */
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
    snprintf(s->msg, sizeof s->msg, "integrate_1d: the integrand is %g at x = %g", y, x);
  }
  return s->absolute ? fabs(y) : y;
}

#ifdef TAPESTRY_GSL

static int quad_once(q_sys *s, gsl_integration_workspace *w, size_t limit, double rtol, double *res, double *err) {
  gsl_function F = { integrand, s };
  if (isfinite(s->a) && isfinite(s->b)) return gsl_integration_qags(&F, s->a, s->b, 0, rtol, limit, w, res, err);
  if (isfinite(s->a)) return gsl_integration_qagiu(&F, s->a, 0, rtol, limit, w, res, err);
  if (isfinite(s->b)) return gsl_integration_qagil(&F, s->b, 0, rtol, limit, w, res, err);
  return gsl_integration_qagi(&F, 0, rtol, limit, w, res, err);
}

/* The integral to the relative tolerance; as Boost's quadrature that Stan
** uses, an error at most rtol times the integral of |f| also passes (an
** integral near 0, such as a gradient by a symmetric density's location,
** cannot meet a tolerance relative to itself). */
static int quad(q_sys *s, double rtol, double *out) {
  enum { LIMIT = 1000 };
  gsl_integration_workspace *w = gsl_integration_workspace_alloc(LIMIT);
  if (!w) return ad_fail(AD_EMEMORY, "out of memory");
  double res = 0, err = 0, l1 = 0, l1err = 0;
  int g = quad_once(s, w, LIMIT, rtol, &res, &err);
  if (g && !s->status) {
    s->absolute = 1;
    int g1 = quad_once(s, w, LIMIT, 1e-3, &l1, &l1err);
    s->absolute = 0;
    if (!g1 && err <= rtol * l1) g = 0;
  }
  gsl_integration_workspace_free(w);
  if (s->status) return ad_fail(s->status, "%s", s->msg);
  if (g)
    return ad_fail(AD_EDOMAIN, "integrate_1d: the integral did not reach the relative tolerance %g (%s; "
                   "estimate %g, error %g)", rtol, gsl_strerror(g), res, err);
  *out = res;
  return AD_OK;
}

#else

static int quad(q_sys *s, double rtol, double *out) {
  (void)s; (void)rtol; (void)out;
  (void)integrand;
  return ad_fail(AD_EINVALID, "integrate_1d needs the GNU Scientific Library, which this build of tapestry "
                 "was made without: install it (Debian/Ubuntu: apt-get install libgsl-dev) and reinstall tapestry");
}

#endif

int li_integrate_1d(li_run *r, const ln_expr *e, tm_v *out) {
  tm_v a[6];
  int rc;
  if (r->tr) li_emit_unsupported(r, "integrate_1d (its plan is to come)");
  if ((rc = li_eval_args(r, e->args + 1, e->nargs - 1, a))) return rc;
  q_sys s;
  memset(&s, 0, sizeof s);
  s.a = tm_get(&a[0], 0);
  s.b = tm_get(&a[1], 0);
  s.comp = -1;
  const tm_v *theta = &a[2];
  tm_v fargs[5] = { tm_real_view(&s.x, NULL), tm_real_view(&s.xc, NULL), a[2], a[3], a[4] };
  static const int theta_ad[5] = { 0, 0, 1, 0, 0 };
  s.fn = (li_nested_fn){ r, e->args[0]->ufn, fargs, 5, -1, 1, theta_ad, "integrate_1d", "the integrand", "a real" };
  double rtol = e->nargs == 7 ? tm_get(&a[5], 0) : sqrt(2.220446049250313e-16);
  if (isnan(s.a) || isnan(s.b))
    return li_fail_at(r, AD_EDOMAIN, "integrate_1d: the limits of integration are %g and %g, but must not be NaN", s.a, s.b);
  if (!(rtol > 0) || !isfinite(rtol))
    return li_fail_at(r, AD_EDOMAIN, "integrate_1d: relative_tolerance is %g, but must be positive and finite", rtol);
  if (s.b < s.a)
    return li_fail_at(r, AD_EDOMAIN, "integrate_1d: lower limit %g is greater than the upper limit %g", s.a, s.b);
  s.finite = isfinite(s.a) && isfinite(s.b);
  size_t P = tm_numel(theta);
  if ((rc = li_check_finite(r, "integrate_1d", "theta", theta))) return rc;
  double val = 0;
  if (s.a == s.b) val = 0;
  else if ((rc = quad(&s, rtol, &val))) return li_locate(r, rc);

  int ad_th = r->ad && theta->adj != NULL, ad_a = r->ad && a[0].adj != NULL, ad_b = r->ad && a[1].adj != NULL;
  int dep = li_nonconst(&a[0]) || li_nonconst(&a[1]) || li_nonconst(theta);
  if (!ad_th && !ad_a && !ad_b) {
    double *v = ad_alloc_doubles(1);
    if (!v) return ad_fail(AD_EMEMORY, "out of memory");
    *v = val;
    *out = tm_vector_view(v, NULL, 1);
    out->base = TM_REAL;
    out->rows = out->cols = 1;
    out->dep = (unsigned char)dep;
    return AD_OK;
  }
  /* partials: by each theta, by a, by b */
  size_t k = (ad_th ? P : 0) + (size_t)ad_a + (size_t)ad_b, n = 0;
  ad_var *x = ad_alloc((k ? k : 1) * sizeof *x);
  double *d = ad_alloc_doubles(k ? k : 1);
  if (!x || !d) return ad_fail(AD_EMEMORY, "out of memory");
  if (ad_th && P) {
    if (!(s.grad = ad_alloc_doubles(P)) || !(s.st = ad_scoped_new())) return ad_fail(AD_EMEMORY, "out of memory");
    for (size_t i = 0; i < P && !rc; i++) {
      s.comp = (int)i;
      if (s.a != s.b) rc = quad(&s, rtol, &d[n]);
      else d[n] = 0;
      x[n].val = &theta->val[i];
      x[n].adj = &theta->adj[i];
      n++;
    }
    ad_stack_free(s.st);
    s.st = NULL;
    if (rc) return li_locate(r, rc);
  }
  s.comp = -1;
  if (ad_a) {
    d[n] = isfinite(s.a) ? -integrand(s.a, &s) : 0;
    x[n].val = a[0].val;
    x[n].adj = a[0].adj;
    n++;
  }
  if (ad_b) {
    d[n] = isfinite(s.b) ? integrand(s.b, &s) : 0;
    x[n].val = a[1].val;
    x[n].adj = a[1].adj;
    n++;
  }
  if (s.status) return li_locate(r, ad_fail(s.status, "%s", s.msg));
  ad_var y;
  if ((rc = ad_nary((int)n, x, val, d, &y))) return rc;
  memset(out, 0, sizeof *out);
  out->val = y.val;
  out->adj = y.adj;
  out->base = TM_REAL;
  out->rows = out->cols = 1;
  out->dep = 1;
  return AD_OK;
}
