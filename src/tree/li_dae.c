/*
** li_dae.c -- Stan's DAE solvers dae and dae_tol on SUNDIALS IDAS
** (variable-order BDF for F(t, yy, yp, ...) = 0).
**
** Gradients by forward sensitivities, as li_ode.c's coupled system: with M
** inputs that carry derivatives (yy0's elements, then the autodiff values
** among F's other arguments), IDAS solves for yy with its N x M
** sensitivities S, whose residual is F_yy S + F_yp S' + F_p = 0, with
** S(t0) = d yy0 / d p (an identity block for yy0).  IDACalcIC makes the
** start consistent before the first step: the algebraic components of yy
** and S and the derivatives of the differential ones (a component is
** differential when F depends on its derivative at t0).  The solution is
** then determined by yy0's differential components and F's arguments, so
** its derivative by yp0 is zero and yp0 gets no sensitivity columns.  F_yy, F_yp and F_p at (t, yy, yp) come from one recording of F on a
** scoped tape (li_nested_jacobian with yp among the autodiff inputs); IDAS's
** Newton iteration gets F_yy + cj F_yp from the same tape.  The result gets
** one node on the caller's tape holding S at each output time.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "li_int.h"
#include "li_sundials.h"

#ifdef TAPESTRY_SUNDIALS
#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#endif

typedef struct dae_sys {
  li_nested_fn fn;              /* F(t, yy, yp, x...) */
  double t;
  const char *name;
  int N, M, nfix;               /* states; sensitivity columns; of them yy0's and yp0's (no F_p term) */
  double *Jy, *Jp;              /* F_yy (N x N); F_yp then F_p (N x (N + P)) */
  li_sun_fail fail;             /* a failure inside F, or the solver's message */
  ad_stack *jac;
} dae_sys;

static int residual(dae_sys *s, double t, const double *z, const double *zp, double *r) {
  int N = s->N, M = s->M, rc;
  s->t = t;
  s->fn.args[1].val = (double *)z;
  s->fn.args[2].val = (double *)zp;
  if ((rc = li_nested_jacobian(&s->fn, s->jac, r, s->Jy, s->Jp))) return rc;
  for (int i = 0; i < N; i++)
    if (!isfinite(r[i]))
      return ad_fail(AD_EDOMAIN, "%s: the residual function returned a non-finite value (%g) at t = %g", s->name,
                     r[i], t);
  for (int m = 0; m < M; m++) {
    const double *Sm = z + N + (size_t)m * N, *Spm = zp + N + (size_t)m * N;
    for (int i = 0; i < N; i++) {
      double acc = 0;
      for (int k = 0; k < N; k++) acc += s->Jy[(size_t)k * N + i] * Sm[k] + s->Jp[(size_t)k * N + i] * Spm[k];
      if (m >= s->nfix) acc += s->Jp[(size_t)(N + m - s->nfix) * N + i];
      r[N + (size_t)m * N + i] = acc;
    }
  }
  return AD_OK;
}

#ifdef TAPESTRY_SUNDIALS

static int res_sundials(sunrealtype t, N_Vector z, N_Vector zp, N_Vector r, void *ud) {
  dae_sys *s = ud;
  int rc = residual(s, t, N_VGetArrayPointer(z), N_VGetArrayPointer(zp), N_VGetArrayPointer(r));
  if (rc) return li_sun_callback_failed(&s->fail, rc);
  return 0;
}

/* F_yy + cj F_yp on each diagonal block (one for yy, one per sensitivity
** column); the coupled system's blocks below the diagonal are left out, which
** changes only how fast Newton converges. */
static int jac_sundials(sunrealtype t, sunrealtype cj, N_Vector z, N_Vector zp, N_Vector rr, SUNMatrix J, void *ud,
                        N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)rr; (void)t2; (void)t3;
  dae_sys *s = ud;
  int N = s->N, nb = 1 + s->M;
  s->t = t;
  s->fn.args[1].val = N_VGetArrayPointer(z);
  s->fn.args[2].val = N_VGetArrayPointer(zp);
  int rc = li_nested_jacobian(&s->fn, s->jac, N_VGetArrayPointer(t1), s->Jy, s->Jp);
  if (rc) return li_sun_callback_failed(&s->fail, rc);
  SUNMatZero(J);
  for (int b = 0; b < nb; b++)
    for (int k = 0; k < N; k++) {
      double *col = SUNDenseMatrix_Column(J, (sunindextype)b * N + k) + (size_t)b * N;
      for (int i = 0; i < N; i++) col[i] = s->Jy[(size_t)k * N + i] + cj * s->Jp[(size_t)k * N + i];
    }
  return 0;
}

static int solve(dae_sys *s, double t0, const double *z0, const double *zp0, int n, const double *ts, int T,
                 double rtol, double atol, long max_steps, double *zs) {
  SUNContext ctx = NULL;
  if (SUNContext_Create(NULL, &ctx)) return ad_fail(AD_EMEMORY, "%s: SUNDIALS could not start", s->name);
  N_Vector z = N_VNew_Serial(n, ctx), zp = N_VNew_Serial(n, ctx), id = NULL;
  void *mem = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  int rc = AD_OK, flag;
  s->fail.msg[0] = '\0';
  if (!z || !zp) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  memcpy(N_VGetArrayPointer(z), z0, (size_t)n * sizeof(double));
  memcpy(N_VGetArrayPointer(zp), zp0, (size_t)n * sizeof(double));
  mem = IDACreate(ctx);
  if (!mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  IDASetErrHandlerFn(mem, li_sun_err_handler, &s->fail);
  A = SUNDenseMatrix(n, n, ctx);
  LS = A ? SUNLinSol_Dense(z, A, ctx) : NULL;
  if (!LS || IDAInit(mem, res_sundials, t0, z, zp) || IDASetUserData(mem, s) || IDASStolerances(mem, rtol, atol) ||
      IDASetLinearSolver(mem, LS, A) || IDASetJacFn(mem, jac_sundials) || IDASetMaxNumSteps(mem, max_steps)) {
    rc = li_sun_setup_failed(s->name, &s->fail);
    goto out;
  }
  /* consistent initial conditions: the algebraic components of yy (and of
     the sensitivities) and the derivatives of the differential ones, as
     IDACalcIC gives them; a component is differential when F depends on its
     derivative at t0 */
  if (!(id = N_VNew_Serial(n, ctx))) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  s->t = t0;
  s->fn.args[1].val = N_VGetArrayPointer(z);
  s->fn.args[2].val = N_VGetArrayPointer(zp);
  if ((rc = li_nested_jacobian(&s->fn, s->jac, N_VGetArrayPointer(id), s->Jy, s->Jp))) goto out;
  for (int k = 0; k < s->N; k++) {
    double d = 0;
    for (int i = 0; i < s->N; i++) d = d || s->Jp[(size_t)k * s->N + i] != 0;
    for (int b = 0; b <= s->M; b++) N_VGetArrayPointer(id)[(size_t)b * s->N + k] = d;
  }
  if (IDASetId(mem, id)) { rc = li_sun_setup_failed(s->name, &s->fail); goto out; }
  flag = IDACalcIC(mem, IDA_YA_YDP_INIT, ts[0]);
  if (flag < 0) {
    rc = s->fail.status ? ad_fail(s->fail.status, "%s", s->fail.msg)
       : ad_fail(AD_EDOMAIN, "%s: no consistent initial conditions found: %s", s->name, s->fail.msg[0] ? s->fail.msg : "error");
    goto out;
  }
  if (IDAGetConsistentIC(mem, z, zp)) { rc = ad_fail(AD_EINVALID, "%s: the solver failed", s->name); goto out; }
  double t = t0;
  for (int i = 0; i < T; i++) {
    if (ts[i] == t) {
      memcpy(zs + (size_t)i * n, N_VGetArrayPointer(z), (size_t)n * sizeof(double));
      continue;
    }
    flag = IDASolve(mem, ts[i], &t, z, zp, IDA_NORMAL);
    if (flag < 0) {
      rc = li_sun_step_failed(&s->fail, s->name, flag == IDA_TOO_MUCH_WORK, ts[i], t);
      goto out;
    }
    memcpy(zs + (size_t)i * n, N_VGetArrayPointer(z), (size_t)n * sizeof(double));
  }
out:
  if (mem) IDAFree(&mem);
  li_sun_free(LS, A, (N_Vector[]){z, zp, id}, 3, &ctx);
  return rc;
}

#else

static int solve(dae_sys *s, double t0, const double *z0, const double *zp0, int n, const double *ts, int T,
                 double rtol, double atol, long max_steps, double *zs) {
  (void)t0; (void)z0; (void)zp0; (void)n; (void)ts; (void)T; (void)rtol; (void)atol; (void)max_steps; (void)zs;
  (void)residual;
  return li_sun_missing(s->name);
}

#endif

int li_dae(li_run *r, const ln_expr *e, tm_v *out) { return li_hof_run(r, e, out, li_dae_core); }

int li_dae_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out) {
  const char *fn = e->name;
  int tol = li_is_tol_form(fn), nx = e->nargs - (tol ? 8 : 5), rc;
  if (nx + 3 > LI_NESTED_MAXARGS) return li_fail_at(r, AD_EINVALID, "%s: too many arguments", fn);
  const tm_v *yy0 = &a[0], *yp0 = &a[1], *t0 = &a[2], *ts = &a[3];
  tm_v *x = &a[tol ? 7 : 4];
  /* Stan's defaults: 1e-10, 1e-10, 1e8 steps */
  double rtol = 1e-10, atol = 1e-10;
  long steps = 100000000;
  if (tol) {
    rtol = tm_get(&a[4], 0);
    atol = tm_get(&a[5], 0);
    steps = a[6].ival[0];
    if ((rc = li_check_controls(r, fn, rtol, atol, steps))) return rc;
  }
  int N = (int)tm_numel(yy0), T = (int)tm_numel(ts);
  if (N == 0) return li_fail_at(r, AD_EDOMAIN, "%s: initial state has size 0, but must have a non-zero size", fn);
  if ((int)tm_numel(yp0) != N)
    return li_fail_at(r, AD_EINVALID, "%s: size of initial state derivative (%d) and size of initial state (%d) must "
                      "match in size", fn, (int)tm_numel(yp0), N);
  if (T == 0) return li_fail_at(r, AD_EDOMAIN, "%s: times has size 0, but must have a non-zero size", fn);
  if ((rc = li_check_finite(r, fn, "initial state", yy0)) ||
      (rc = li_check_finite(r, fn, "initial state derivative", yp0)) ||
      (rc = li_check_finite(r, fn, "initial time", t0)) || (rc = li_check_finite(r, fn, "times", ts)))
    return rc;
  double t0v, *tsv;
  if ((rc = li_check_times(r, fn, t0, ts, &t0v, &tsv))) return rc;
  for (int k = 0; k < nx; k++)
    if ((rc = li_check_finite(r, fn, "DAE parameters and data", &x[k]))) return rc;

  dae_sys s = { .name = fn, .N = N };
  tm_v fargs[LI_NESTED_MAXARGS];
  int fad[LI_NESTED_MAXARGS] = { 0 }, *xad = fad + 3;
  fargs[0] = tm_real_view(&s.t, NULL);
  fargs[1] = tm_vector_view(NULL, NULL, N);
  /* yp: F_yp comes with the autodiff inputs' Jacobian (an adjoint buffer
     marks it as one for li_nested_jacobian, which records it as a leaf) */
  double *yp_mark = ad_alloc_zeros((size_t)N);
  if (!yp_mark) return ad_fail(AD_EMEMORY, "out of memory");
  fargs[2] = tm_vector_view(NULL, yp_mark, N);
  fad[2] = 1;
  int P = li_nested_inputs(r, fargs, fad, 3, x, nx);
  s.fn = (li_nested_fn){ r, e->args[0]->ufn, fargs, nx + 3, 1, N, fad, fn, "the residual function", "the state", NULL };
  int ad = r->ad;
  int yy_ad = ad && yy0->adj != NULL;
  /* y(t) is determined by yy0's differential components: consistent
     initial conditions make d y(t) / d yp0 zero, and yp0 gets no columns */
  s.nfix = yy_ad ? N : 0;
  s.M = s.nfix + P;
  if ((size_t)N * (size_t)(1 + s.M) > 0x7fffffff) return li_fail_at(r, AD_EINVALID, "%s: too many sensitivities", fn);
  int n = N * (1 + s.M);
  double *z0 = ad_alloc_zeros((size_t)n), *zp0 = ad_alloc_zeros((size_t)n), *zs = ad_alloc_doubles((size_t)n * T);
  s.Jy = ad_alloc_doubles((size_t)N * N);
  s.Jp = ad_alloc_doubles((size_t)N * (N + P));
  if (!z0 || !zp0 || !zs || !s.Jy || !s.Jp || !(s.jac = ad_scoped_new())) {
    if (s.jac) ad_stack_free(s.jac);
    return ad_fail(AD_EMEMORY, "out of memory");
  }
  for (int i = 0; i < N; i++) {
    z0[i] = tm_get(yy0, (size_t)i);
    zp0[i] = tm_get(yp0, (size_t)i);
    if (yy_ad) z0[N + (size_t)i * N + i] = 1.0;                             /* d yy0 / d yy0 = I */
  }
  s.fn.eng = r->hof_eng;
  s.t = t0v;
  fargs[1].val = z0;
  fargs[2].val = zp0;
  li_hof_note(r, &s.fn, 3);
  rc = solve(&s, t0v, z0, zp0, n, tsv, T, rtol, atol, steps, zs);
  ad_stack_free(s.jac);
  if (rc) return li_locate(r, rc);

  size_t nout = (size_t)T * N;
  int outad = s.M > 0;
  double *val = ad_alloc_doubles(nout), *adj = outad ? ad_alloc_zeros(nout) : NULL;
  if (!val || (outad && !adj)) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < T; i++) memcpy(val + (size_t)i * N, zs + (size_t)i * n, (size_t)N * sizeof(double));
  *out = li_array_view(tm_vector_view(val, adj, N), 1, T, 0);
  out->dep = (unsigned char)(li_nonconst(yy0) || li_nonconst(yp0) || li_nonconst(ts) || li_nonconst(t0));
  for (int k = 0; k < nx; k++) out->dep |= (unsigned char)li_nonconst(&x[k]);
  if (!outad) return AD_OK;

  int M = s.M;
  double *G = ad_alloc_doubles(nout * (size_t)M);
  double **in = ad_alloc((size_t)M * sizeof *in);
  if (!G || !in) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < T; i++)
    for (int k = 0; k < N; k++) {
      const double *S = zs + (size_t)i * n + N;
      double *g = G + ((size_t)i * N + k) * M;
      for (int m = 0; m < M; m++) g[m] = S[(size_t)m * N + k];
    }
  int col = 0;
  if (yy_ad) for (int k = 0; k < N; k++) in[col++] = &yy0->adj[k];
  li_collect_adjoints(x, xad, nx, in + col);
  return li_rows_node(nout, M, adj, G, in);
}
