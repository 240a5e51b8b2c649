/*
** li_solve.c -- algebraic equations: solve_newton and solve_powell (and
** their _tol forms), algebra_solver_newton and algebra_solver, on SUNDIALS
** KINSOL (Newton's method with a line search, the Jacobian from the tape).
**
** Why KINSOL for Powell's forms too: Stan runs solve_powell on Eigen's
** dogleg solver, which is not a C library; KINSOL's globalized Newton finds
** the same roots (the result is a root to the tolerances, whichever method
** found it), and the gradient does not depend on the method.
**
** Gradients by the implicit function theorem: at the root y* of f(y, p) =
** 0, the derivative of y* by p is -J_y^-1 J_p, both Jacobians from one recording of f on a
** scoped tape (one sweep per equation).  The result gets one node holding
** that N x P matrix (li_rows_node).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "li_int.h"
#include "li_sundials.h"
#include "../math/tm_linalg.h"

#ifdef TAPESTRY_SUNDIALS
#include <kinsol/kinsol.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#endif

typedef struct alg_sys {
  li_nested_fn fn;              /* f(y, x...): args[0] y */
  const char *name;
  int N;
  ad_stack *jac;                /* the scoped tape of J_y */
  li_sun_fail fail;             /* a failure inside f, or the solver's message */
} alg_sys;

/* f at y into out. */
static int f_values(alg_sys *s, const double *y, double *out) {
  s->fn.args[0].val = (double *)y;
  return li_nested_values(&s->fn, out);
}

/* J_y (and, with Jp, J_p) at y, column-major; fy gets f(y). */
static int jacobians(alg_sys *s, const double *y, double *fy, double *Jy, double *Jp) {
  s->fn.args[0].val = (double *)y;
  return li_nested_jacobian(&s->fn, s->jac, fy, Jy, Jp);
}

#ifdef TAPESTRY_SUNDIALS

static int kin_func(N_Vector u, N_Vector fu, void *ud) {
  alg_sys *s = ud;
  int rc = f_values(s, N_VGetArrayPointer(u), N_VGetArrayPointer(fu));
  if (rc) return li_sun_callback_failed(&s->fail, rc);
  return 0;
}

/* t1 is KINSOL's scratch vector: f(u) lands there and is not used */
static int kin_jac(N_Vector u, N_Vector fu, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2) {
  (void)fu; (void)t2;
  alg_sys *s = ud;
  int rc = jacobians(s, N_VGetArrayPointer(u), N_VGetArrayPointer(t1), SUNDenseMatrix_Data(J), NULL);
  if (rc) return li_sun_callback_failed(&s->fail, rc);
  return 0;
}

/* y: the guess in, the root out. */
static int find_root(alg_sys *s, double *y, double step_tol, double f_tol, long max_steps) {
  SUNContext ctx = NULL;
  if (SUNContext_Create(NULL, &ctx)) return ad_fail(AD_EMEMORY, "%s: SUNDIALS could not start", s->name);
  int n = s->N, rc = AD_OK;
  N_Vector u = N_VNew_Serial(n, ctx), scale = N_VNew_Serial(n, ctx);
  SUNMatrix J = SUNDenseMatrix(n, n, ctx);
  SUNLinearSolver LS = u && J ? SUNLinSol_Dense(u, J, ctx) : NULL;
  void *mem = KINCreate(ctx);
  s->fail.msg[0] = '\0';
  if (!u || !scale || !J || !LS || !mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  memcpy(N_VGetArrayPointer(u), y, (size_t)n * sizeof(double));
  N_VConst(1.0, scale);
  KINSetErrHandlerFn(mem, li_sun_err_handler, &s->fail);
  if (KINInit(mem, kin_func, u) || KINSetUserData(mem, s) || KINSetLinearSolver(mem, LS, J) ||
      KINSetJacFn(mem, kin_jac) || KINSetFuncNormTol(mem, f_tol) || KINSetScaledStepTol(mem, step_tol) ||
      KINSetNumMaxIters(mem, max_steps)) {
    rc = li_sun_setup_failed(s->name, &s->fail);
    goto out;
  }
  int flag = KINSol(mem, u, KIN_LINESEARCH, scale, scale);
  if (flag < 0) {
    if (s->fail.status) rc = ad_fail(s->fail.status, "%s", s->fail.msg);
    else if (flag == KIN_MAXITER_REACHED)
      rc = ad_fail(AD_EDOMAIN, "%s: max number of iterations: %ld exceeded", s->name, max_steps);
    else
      rc = ad_fail(AD_EDOMAIN, "%s: the solver failed: %s", s->name, s->fail.msg[0] ? s->fail.msg : "no root found");
    goto out;
  }
  memcpy(y, N_VGetArrayPointer(u), (size_t)n * sizeof(double));
out:
  if (mem) KINFree(&mem);
  li_sun_free(LS, J, (N_Vector[]){u, scale}, 2, &ctx);
  return rc;
}

#else

static int find_root(alg_sys *s, double *y, double step_tol, double f_tol, long max_steps) {
  (void)y; (void)step_tol; (void)f_tol; (void)max_steps;
  return li_sun_missing(s->name);
}

#endif

int li_solve(li_run *r, const ln_expr *e, tm_v *out) { return li_hof_run(r, e, out, li_solve_core); }

int li_solve_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out) {
  const char *fn = e->name;
  int old = e->builtin == LN_BI_SOLVE_OLD, rc;
  int tol = old ? e->nargs == 8 : li_is_tol_form(fn);
  int newton = strstr(fn, "newton") != NULL;
  int nx = old ? 3 : e->nargs - (tol ? 5 : 2);
  if (nx + 1 > LI_NESTED_MAXARGS) return li_fail_at(r, AD_EINVALID, "%s: too many arguments", fn);
  const tm_v *guess = &a[0];
  tm_v *x = old ? &a[1] : &a[tol ? 4 : 1];
  /* Stan's defaults: Newton's scaling step 1e-3, Powell's relative tolerance
     1e-10; function tolerance 1e-6; 200 steps */
  double t1 = newton ? 1e-3 : 1e-10, ftol = 1e-6;
  long steps = 200;
  if (tol) {
    const tm_v *tv = old ? &a[4] : &a[1];
    t1 = tm_get(&tv[0], 0);
    ftol = tm_get(&tv[1], 0);
    steps = li_max_steps_arg(&tv[2], old);
    if (!(t1 >= 0) || !isfinite(t1))
      return li_fail_at(r, AD_EDOMAIN, "%s: %s is %g, but must be non-negative and finite", fn,
                        newton ? "scaling_step_size" : "relative_tolerance", t1);
    if (!(ftol >= 0) || !isfinite(ftol))
      return li_fail_at(r, AD_EDOMAIN, "%s: function_tolerance is %g, but must be non-negative and finite", fn, ftol);
    if (steps <= 0) return li_fail_at(r, AD_EDOMAIN, "%s: max_num_steps is %ld, but must be positive", fn, steps);
  }
  int N = (int)tm_numel(guess);
  if (N == 0) return li_fail_at(r, AD_EINVALID, "%s: initial guess has size 0, but must have a non-zero size", fn);
  if ((rc = li_check_finite(r, fn, "initial guess", guess))) return rc;
  for (int k = 0; k < nx; k++)
    if ((rc = li_check_finite(r, fn, "parameter vector", &x[k]))) return rc;

  /* f's arguments: y (pointed at each point's values), x...; the inputs
     with derivatives among x */
  alg_sys s = { .name = fn, .N = N };
  tm_v fargs[LI_NESTED_MAXARGS];
  int fad[LI_NESTED_MAXARGS] = { 0 }, *xad = fad + 1;
  fargs[0] = tm_vector_view(NULL, NULL, N);
  int P = li_nested_inputs(r, fargs, fad, 1, x, nx);
  s.fn = (li_nested_fn){ r, e->args[0]->ufn, fargs, nx + 1, 0, N, fad, fn, "the algebraic system", "the guess", NULL };
  double *y = ad_alloc_doubles((size_t)N), *fy = ad_alloc_doubles((size_t)N);
  if (!y || !fy || !(s.jac = ad_scoped_new())) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < N; i++) y[i] = tm_get(guess, (size_t)i);
  s.fn.eng = r->hof_eng;
  fargs[0].val = y;           /* f's arguments at the guess, for a plan of f */
  li_hof_note(r, &s.fn, 1);
  rc = find_root(&s, y, t1, ftol, steps);
  /* Stan's last check: the norm of f at the root */
  if (!rc) rc = f_values(&s, y, fy);
  double norm = 0;
  for (int i = 0; !rc && i < N; i++) norm += fy[i] * fy[i];
  norm = sqrt(norm);
  if (!rc && !(norm <= ftol))
    rc = ad_fail(AD_EDOMAIN, "%s: the norm of the algebraic function is %g but should be lower than the "
                 "function tolerance: %g. Consider decreasing the relative tolerance and increasing "
                 "max_num_steps.", fn, norm, ftol);

  /* the gradient: G = -J_y^-1 J_p at the root (N x P), then its rows */
  double *Jy = NULL, *G = NULL, *rows = NULL, **in = NULL, *adj = NULL;
  int *piv = NULL;
  if (!rc && P) {
    Jy = ad_alloc_doubles((size_t)N * N);
    G = ad_alloc_doubles((size_t)N * P);
    rows = ad_alloc_doubles((size_t)N * P);
    in = ad_alloc((size_t)P * sizeof *in);
    adj = ad_alloc_zeros((size_t)N);
    piv = ad_alloc((size_t)N * sizeof *piv);
    if (!Jy || !G || !rows || !in || !adj || !piv) rc = ad_fail(AD_EMEMORY, "out of memory");
    if (!rc) rc = jacobians(&s, y, fy, Jy, G);
    if (!rc) {
      tm_la_lu_factor(N, Jy, piv);
      for (int i = 0; i < N && !rc; i++)
        if (!(fabs(TM_AT(Jy, N, i, i)) > 0))
          rc = ad_fail(AD_EDOMAIN, "%s: the Jacobian of the algebraic system is singular at the solution", fn);
    }
    if (!rc) {
      tm_la_lu_solve(N, Jy, piv, P, G);
      for (int i = 0; i < N; i++)
        for (int m = 0; m < P; m++) rows[(size_t)i * P + m] = -G[(size_t)m * N + i];
      li_collect_adjoints(x, xad, nx, in);
    }
  }
  ad_stack_free(s.jac);
  if (rc) return li_locate(r, rc);

  *out = tm_vector_view(y, adj, N);
  out->dep = 0;
  for (int k = 0; k < nx; k++) out->dep |= (unsigned char)li_nonconst(&x[k]);
  if (!P) return AD_OK;
  out->dep = 1;
  return li_rows_node((size_t)N, P, adj, rows, in);
}
