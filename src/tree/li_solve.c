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
** that N x P matrix.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "li_int.h"

#ifdef TAPESTRY_SUNDIALS
#include <kinsol/kinsol.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#endif

typedef struct alg_sys {
  li_run *r;
  const ln_func *f;
  const char *name;
  int N, nx;
  tm_v *x;                      /* f's arguments after y */
  int *xad;                     /* which of them carry derivatives (for the gradient) */
  int P;                        /* their values */
  int status;
  char msg[1024];
} alg_sys;

static tm_v vec_view(double *v, double *adj, int n) {
  tm_v y;
  memset(&y, 0, sizeof y);
  y.val = v;
  y.adj = adj;
  y.base = TM_VECTOR;
  y.rows = n;
  y.cols = 1;
  return y;
}

static int check_size(alg_sys *s, const tm_v *v) {
  if (tm_numel(v) != (size_t)s->N)
    return ad_fail(AD_EINVALID, "%s: the algebraic system returned %zu values, but the guess has %d", s->name,
                   tm_numel(v), s->N);
  return AD_OK;
}

/* f(y, x...) on doubles into out. */
static int f_values(alg_sys *s, const double *y, double *out) {
  ad_mark mark = ad_stack_mark(ad_active);
  tm_v a[LI_ODE_MAXARGS + 1], v;
  a[0] = vec_view((double *)y, NULL, s->N);
  for (int k = 0; k < s->nx; k++) {
    a[k + 1] = s->x[k];
    a[k + 1].adj = NULL;
  }
  li_run sub;
  li_run_fork(s->r, &sub);
  sub.ad = 0;
  int rc = li_call_user(&sub, s->f, a, s->nx + 1, 0, &v);
  if (!rc) rc = check_size(s, &v);
  if (!rc) for (int i = 0; i < s->N; i++) out[i] = tm_get(&v, (size_t)i);
  ad_stack_rewind(ad_active, &mark);
  return rc;
}

/* J_y (N x N, column-major) and, with params, J_p (N x P) at y. */
typedef struct jac_job {
  alg_sys *s;
  const double *y;
  double *Jy, *Jp;
} jac_job;

static int jac_run(void *data) {
  jac_job *j = data;
  alg_sys *s = j->s;
  int N = s->N, rc;
  ad_mark m0 = ad_stack_mark(ad_active);
  double *yv, *ya;
  if ((rc = ad_leaves((size_t)N, j->y, &yv, &ya))) return rc;
  tm_v a[LI_ODE_MAXARGS + 1], v;
  a[0] = vec_view(yv, ya, N);
  for (int k = 0; k < s->nx; k++) {
    if (j->Jp && s->xad[k]) {
      if ((rc = li_leaf_copy(&s->x[k], &a[k + 1]))) return rc;
    } else {
      a[k + 1] = s->x[k];
      a[k + 1].adj = NULL;
    }
  }
  li_run sub;
  li_run_fork(s->r, &sub);
  sub.ad = 1;
  sub.tr = NULL;
  if ((rc = li_call_user(&sub, s->f, a, s->nx + 1, 0, &v)) || (rc = check_size(s, &v))) return rc;
  memset(j->Jy, 0, (size_t)N * N * sizeof(double));
  if (j->Jp) memset(j->Jp, 0, (size_t)N * (s->P ? s->P : 1) * sizeof(double));
  if (!v.adj) return AD_OK;
  ad_snapshot *snap = NULL;
  if (N > 1 && (rc = ad_stack_snapshot(ad_active, &m0, &snap))) return rc;
  for (int i = 0; i < N; i++) {
    if (i > 0) ad_stack_restore(snap);
    v.adj[i] = 1.0;
    ad_sweep(ad_active);
    for (int k = 0; k < N; k++) j->Jy[(size_t)k * N + i] = ya[k];
    if (!j->Jp) continue;
    int col = 0;
    for (int k = 0; k < s->nx; k++) {
      if (!s->xad[k]) continue;
      size_t n = tm_numel(&a[k + 1]);
      for (size_t e = 0; e < n; e++) j->Jp[(size_t)(col + (int)e) * N + i] = a[k + 1].adj[e];
      col += (int)n;
    }
  }
  return AD_OK;
}

static int jacobians(alg_sys *s, const double *y, double *Jy, double *Jp) {
  ad_stack *st = ad_scoped_new();
  if (!st) return ad_fail(AD_EMEMORY, "out of memory");
  jac_job j = { s, y, Jy, Jp };
  int rc = ad_scoped_execute(st, jac_run, &j);
  ad_stack_free(st);
  return rc;
}

/* Solve A X = B in place (A n x n destroyed, B n x m), partial pivoting.
** AD_EDOMAIN when A is singular. */
static int lu_solve(alg_sys *s, int n, double *A, double *B, int m) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(A[(size_t)c * n + i]) > fabs(A[(size_t)c * n + p])) p = i;
    if (!(fabs(A[(size_t)c * n + p]) > 0))
      return ad_fail(AD_EDOMAIN, "%s: the Jacobian of the algebraic system is singular at the solution", s->name);
    if (p != c) {
      for (int k = 0; k < n; k++) { double t = A[(size_t)k * n + c]; A[(size_t)k * n + c] = A[(size_t)k * n + p]; A[(size_t)k * n + p] = t; }
      for (int k = 0; k < m; k++) { double t = B[(size_t)k * n + c]; B[(size_t)k * n + c] = B[(size_t)k * n + p]; B[(size_t)k * n + p] = t; }
    }
    double d = A[(size_t)c * n + c];
    for (int i = c + 1; i < n; i++) {
      double l = A[(size_t)c * n + i] / d;
      if (l == 0) continue;
      for (int k = c + 1; k < n; k++) A[(size_t)k * n + i] -= l * A[(size_t)k * n + c];
      for (int k = 0; k < m; k++) B[(size_t)k * n + i] -= l * B[(size_t)k * n + c];
    }
  }
  for (int k = 0; k < m; k++) {
    double *b = B + (size_t)k * n;
    for (int i = n - 1; i >= 0; i--) {
      double acc = b[i];
      for (int q = i + 1; q < n; q++) acc -= A[(size_t)q * n + i] * b[q];
      b[i] = acc / A[(size_t)i * n + i];
    }
  }
  return AD_OK;
}

#ifdef TAPESTRY_SUNDIALS

static int kin_func(N_Vector u, N_Vector fu, void *ud) {
  alg_sys *s = ud;
  int rc = f_values(s, N_VGetArrayPointer(u), N_VGetArrayPointer(fu));
  if (rc) {
    if (!s->status) { s->status = rc; snprintf(s->msg, sizeof s->msg, "%s", ad_errmsg()); }
    return -1;
  }
  return 0;
}

static int kin_jac(N_Vector u, N_Vector fu, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2) {
  (void)fu; (void)t1; (void)t2;
  alg_sys *s = ud;
  int rc = jacobians(s, N_VGetArrayPointer(u), SUNDenseMatrix_Data(J), NULL);
  if (rc) {
    if (!s->status) { s->status = rc; snprintf(s->msg, sizeof s->msg, "%s", ad_errmsg()); }
    return -1;
  }
  return 0;
}

static void kin_err(int code, const char *module, const char *function, char *msg, void *ud) {
  (void)code; (void)module; (void)function;
  alg_sys *s = ud;
  if (!s->status) snprintf(s->msg, sizeof s->msg, "%s", msg);
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
  s->msg[0] = '\0';
  if (!u || !scale || !J || !LS || !mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  memcpy(N_VGetArrayPointer(u), y, (size_t)n * sizeof(double));
  N_VConst(1.0, scale);
  KINSetErrHandlerFn(mem, kin_err, s);
  if (KINInit(mem, kin_func, u) || KINSetUserData(mem, s) || KINSetLinearSolver(mem, LS, J) ||
      KINSetJacFn(mem, kin_jac) || KINSetFuncNormTol(mem, f_tol) || KINSetScaledStepTol(mem, step_tol) ||
      KINSetNumMaxIters(mem, max_steps)) {
    rc = ad_fail(AD_EINVALID, "%s: the solver could not be set up: %s", s->name, s->msg);
    goto out;
  }
  int flag = KINSol(mem, u, KIN_LINESEARCH, scale, scale);
  if (flag < 0) {
    if (s->status) rc = ad_fail(s->status, "%s", s->msg);
    else if (flag == KIN_MAXITER_REACHED)
      rc = ad_fail(AD_EDOMAIN, "%s: max number of iterations: %ld exceeded", s->name, max_steps);
    else
      rc = ad_fail(AD_EDOMAIN, "%s: the solver failed: %s", s->name, s->msg[0] ? s->msg : "no root found");
    goto out;
  }
  memcpy(y, N_VGetArrayPointer(u), (size_t)n * sizeof(double));
out:
  if (mem) KINFree(&mem);
  if (LS) SUNLinSolFree(LS);
  if (J) SUNMatDestroy(J);
  if (u) N_VDestroy(u);
  if (scale) N_VDestroy(scale);
  SUNContext_Free(&ctx);
  return rc;
}

#else

static int find_root(alg_sys *s, double *y, double step_tol, double f_tol, long max_steps) {
  (void)y; (void)step_tol; (void)f_tol; (void)max_steps;
  return ad_fail(AD_EINVALID, "%s needs SUNDIALS, which this build of tapestry was made without: install it "
                 "(Debian/Ubuntu: apt-get install libsundials-dev) and reinstall tapestry", s->name);
}

#endif

typedef struct alg_node {
  ad_node hdr;
  int N, P;
  double *adj;
  const double *G;              /* N x P: d root / d input, column-major */
  double **in;
} alg_node;

static void alg_chain(ad_node *self) {
  alg_node *p = (alg_node *)self;
  for (int m = 0; m < p->P; m++) {
    const double *g = p->G + (size_t)m * p->N;
    double acc = 0;
    for (int i = 0; i < p->N; i++) acc += p->adj[i] * g[i];
    *p->in[m] += acc;
  }
}

static int check_finite(li_run *r, const char *fn, const char *what, const tm_v *v) {
  if (v->base == TM_INT) return AD_OK;
  size_t n = tm_numel(v);
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v->val[i]))
      return li_fail_at(r, AD_EDOMAIN, "%s: %s[%zu] is %g, but must be finite", fn, what, i + 1, v->val[i]);
  return AD_OK;
}

int li_solve(li_run *r, const ln_expr *e, tm_v *out) {
  const char *fn = e->name;
  int old = e->builtin == LN_BI_SOLVE_OLD, rc;
  size_t nl = strlen(fn);
  int tol = old ? e->nargs == 8 : nl > 4 && !strcmp(fn + nl - 4, "_tol");
  int newton = strstr(fn, "newton") != NULL;
  int nx = old ? 3 : e->nargs - (tol ? 5 : 2);
  if (nx > LI_ODE_MAXARGS) return li_fail_at(r, AD_EINVALID, "%s: too many arguments", fn);
  tm_v a[LI_ODE_MAXARGS + 8];
  if (r->tr) li_emit_unsupported(r, "algebraic solvers (their plan is to come)");
  if ((rc = li_eval_args(r, e->args + 1, e->nargs - 1, a))) return rc;
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
    steps = tv[2].ival[0];
    if (!(t1 >= 0) || !isfinite(t1))
      return li_fail_at(r, AD_EDOMAIN, "%s: %s is %g, but must be non-negative and finite", fn,
                        newton ? "scaling_step_size" : "relative_tolerance", t1);
    if (!(ftol >= 0) || !isfinite(ftol))
      return li_fail_at(r, AD_EDOMAIN, "%s: function_tolerance is %g, but must be non-negative and finite", fn, ftol);
    if (steps <= 0) return li_fail_at(r, AD_EDOMAIN, "%s: max_num_steps is %ld, but must be positive", fn, steps);
  }
  int N = (int)tm_numel(guess);
  if (N == 0) return li_fail_at(r, AD_EINVALID, "%s: initial guess has size 0, but must have a non-zero size", fn);
  if ((rc = check_finite(r, fn, "initial guess", guess))) return rc;
  for (int k = 0; k < nx; k++)
    if ((rc = check_finite(r, fn, "parameter vector", &x[k]))) return rc;

  alg_sys s;
  memset(&s, 0, sizeof s);
  s.r = r;
  s.f = e->args[0]->ufn;
  s.name = fn;
  s.N = N;
  s.nx = nx;
  s.x = x;
  int xad[LI_ODE_MAXARGS + 1];
  s.xad = xad;
  for (int k = 0; k < nx; k++) {
    xad[k] = r->ad && x[k].adj != NULL;
    if (xad[k]) s.P += (int)tm_numel(&x[k]);
  }
  double *y = ad_alloc_doubles((size_t)N), *fy = ad_alloc_doubles((size_t)N);
  if (!y || !fy) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < N; i++) y[i] = tm_get(guess, (size_t)i);
  if ((rc = find_root(&s, y, t1, ftol, steps))) return li_locate(r, rc);
  /* Stan's last check: the norm of f at the root */
  if ((rc = f_values(&s, y, fy))) return li_locate(r, rc);
  double norm = 0;
  for (int i = 0; i < N; i++) norm += fy[i] * fy[i];
  norm = sqrt(norm);
  if (!(norm <= ftol))
    return li_fail_at(r, AD_EDOMAIN, "%s: the norm of the algebraic function is %g but should be lower than the "
                      "function tolerance: %g. Consider decreasing the relative tolerance and increasing "
                      "max_num_steps.", fn, norm, ftol);

  memset(out, 0, sizeof *out);
  *out = vec_view(y, NULL, N);
  out->dep = 0;
  for (int k = 0; k < nx; k++) out->dep |= (unsigned char)li_nonconst(&x[k]);
  if (!s.P) return AD_OK;
  double *Jy = ad_alloc_doubles((size_t)N * N), *G = ad_alloc_doubles((size_t)N * s.P);
  double **in = ad_alloc((size_t)s.P * sizeof *in), *adj = ad_alloc_zeros((size_t)N);
  alg_node *p = ad_node_new(sizeof *p, alg_chain);
  if (!Jy || !G || !in || !adj || !p) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = jacobians(&s, y, Jy, G))) return li_locate(r, rc);
  /* G = -J_y^-1 J_p */
  if ((rc = lu_solve(&s, N, Jy, G, s.P))) return li_locate(r, rc);
  for (size_t i = 0; i < (size_t)N * s.P; i++) G[i] = -G[i];
  int col = 0;
  for (int k = 0; k < nx; k++) {
    if (!xad[k]) continue;
    size_t c = tm_numel(&x[k]);
    for (size_t e2 = 0; e2 < c; e2++) in[col++] = &x[k].adj[e2];
  }
  p->N = N;
  p->P = s.P;
  p->adj = adj;
  p->G = G;
  p->in = in;
  out->adj = adj;
  out->dep = 1;
  return AD_OK;
}
