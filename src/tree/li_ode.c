/*
** li_ode.c -- the ODE solvers: ode_rk45 and ode_ckrk (SUNDIALS ARKODE's
** explicit Dormand-Prince 5(4) and Cash-Karp 5(4) tables), ode_adams and
** ode_bdf (SUNDIALS CVODES), their _tol forms, and the older
** integrate_ode_rk45, _adams and _bdf.
**
** Gradients by forward sensitivities, as Stan's coupled system: with M
** inputs that carry derivatives (y0's elements, then the autodiff values
** among f's other arguments), the solver integrates y with its N x M
** sensitivities S, dS/dt = J_y S + J_p.  J_y and J_p at (t, y) come from
** one recording of f on a scoped tape of their own, one reverse sweep per
** output (a snapshot restores the zero adjoints between sweeps, as
** map_rect's Jacobians); CVODES's Newton iteration gets J_y from the same
** tape (jac_sundials), not from difference quotients.  The result gets one
** node on the caller's tape
** holding S at each output time (li_rows_node), and one holding f there
** for output times that are parameters.
**
** SUNDIALS allocates its own memory per solve and reports errors through
** the handler below, never by printing.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "li_int.h"
#include "li_sundials.h"

#ifdef TAPESTRY_SUNDIALS
#include <cvodes/cvodes.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#endif

enum { ODE_RK45, ODE_CKRK, ODE_ADAMS, ODE_BDF };

typedef struct ode_sys {
  li_nested_fn fn;              /* f(t, y, x...): args[0] t, args[1] y */
  double t;                     /* args[0]'s value */
  const char *name;
  int N, M, ny0;                /* states; sensitivity columns; of them y0's (0 or N) */
  double *Jy, *Jp;              /* f's Jacobians at the current point (N x N, N x (M - ny0)) */
  li_sun_fail fail;             /* a failure inside f, or the solver's message */
  ad_stack *jac;                /* the scoped tape of J_y, J_p */
} ode_sys;

/* f(t, y, x...) at the double values y: its N outputs into out. */
static int rhs_values(ode_sys *s, double t, const double *y, double *out) {
  s->t = t;
  s->fn.args[1].val = (double *)y;
  int rc = li_nested_values(&s->fn, out);
  for (int i = 0; !rc && i < s->N; i++)
    if (!isfinite(out[i]))
      rc = ad_fail(AD_EDOMAIN, "%s: the ODE function returned a non-finite value (%g) at t = %g", s->name, out[i], t);
  return rc;
}

/* The coupled system's right-hand side: dy = f, dS = J_y S + J_p (J_p's
** columns are S's after y0's). */
static int rhs_coupled(ode_sys *s, double t, const double *z, double *dz) {
  int N = s->N, M = s->M, rc;
  s->t = t;
  s->fn.args[1].val = (double *)z;
  if ((rc = li_nested_jacobian(&s->fn, s->jac, dz, s->Jy, M > s->ny0 ? s->Jp : NULL))) return rc;
  for (int i = 0; i < N; i++)
    if (!isfinite(dz[i]))
      return ad_fail(AD_EDOMAIN, "%s: the ODE function returned a non-finite value (%g) at t = %g", s->name, dz[i], t);
  const double *S = z + N;
  double *dS = dz + N;
  for (int m = 0; m < M; m++) {
    const double *Sm = S + (size_t)m * N;
    for (int i = 0; i < N; i++) {
      double acc = 0;
      for (int k = 0; k < N; k++) acc += s->Jy[(size_t)k * N + i] * Sm[k];
      if (m >= s->ny0) acc += s->Jp[(size_t)(m - s->ny0) * N + i];
      dS[(size_t)m * N + i] = acc;
    }
  }
  return AD_OK;
}

#ifdef TAPESTRY_SUNDIALS

static int rhs_sundials(sunrealtype t, N_Vector z, N_Vector dz, void *ud) {
  ode_sys *s = ud;
  const double *zv = N_VGetArrayPointer(z);
  double *dv = N_VGetArrayPointer(dz);
  int rc = s->M ? rhs_coupled(s, t, zv, dv) : rhs_values(s, t, zv, dv);
  if (rc) return li_sun_callback_failed(&s->fail, rc);   /* unrecoverable: the solver stops */
  return 0;
}

/* The Newton iteration's Jacobian for CVODES, from the tape instead of
** difference quotients: J_y at (t, y) on each diagonal block, one for y and
** one per sensitivity column.  The coupled system's exact Jacobian also has
** d(J_y S)/dy below the diagonal; leaving it out, as CVODES's simultaneous
** corrector does, changes only how fast Newton converges, not the solution. */
static int jac_sundials(sunrealtype t, N_Vector z, N_Vector fz, SUNMatrix J, void *ud, N_Vector t1, N_Vector t2,
                        N_Vector t3) {
  (void)fz; (void)t2; (void)t3;
  ode_sys *s = ud;
  int N = s->N, nb = 1 + s->M;
  s->t = t;
  s->fn.args[1].val = N_VGetArrayPointer(z);
  int rc = li_nested_jacobian(&s->fn, s->jac, N_VGetArrayPointer(t1), s->Jy, NULL);
  if (rc) return li_sun_callback_failed(&s->fail, rc);
  SUNMatZero(J);
  for (int b = 0; b < nb; b++)
    for (int k = 0; k < N; k++) {
      double *col = SUNDenseMatrix_Column(J, (sunindextype)b * N + k) + (size_t)b * N;
      for (int i = 0; i < N; i++) col[i] = s->Jy[(size_t)k * N + i];
    }
  return 0;
}

/* Integrates s from t0, z0 (n values) to each of the T times, writing the
** state at ts[i] to zs + i * n. */
static int solve(ode_sys *s, int method, double t0, const double *z0, int n, const double *ts, int T,
                 double rtol, double atol, const double *atolv, long max_steps, double *zs) {
  SUNContext ctx = NULL;
  if (SUNContext_Create(NULL, &ctx)) return ad_fail(AD_EMEMORY, "%s: SUNDIALS could not start", s->name);
  N_Vector z = N_VNew_Serial(n, ctx), av = NULL;
  void *mem = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  int rc = AD_OK, flag = 0;
  s->fail.msg[0] = '\0';
  if (!z) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  memcpy(N_VGetArrayPointer(z), z0, (size_t)n * sizeof(double));
  if (atolv) {   /* per state: state k's sensitivities get state k's tolerance */
    if (!(av = N_VNew_Serial(n, ctx))) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
    for (int j = 0; j < n; j++) N_VGetArrayPointer(av)[j] = atolv[j % s->N];
  }
  if (method == ODE_ADAMS || method == ODE_BDF) {
    mem = CVodeCreate(method == ODE_BDF ? CV_BDF : CV_ADAMS, ctx);
    if (!mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
    CVodeSetErrHandlerFn(mem, li_sun_err_handler, &s->fail);
    A = SUNDenseMatrix(n, n, ctx);
    LS = A ? SUNLinSol_Dense(z, A, ctx) : NULL;
    if (!LS || CVodeInit(mem, rhs_sundials, t0, z) || CVodeSetUserData(mem, s) ||
        (av ? CVodeSVtolerances(mem, rtol, av) : CVodeSStolerances(mem, rtol, atol)) ||
        CVodeSetLinearSolver(mem, LS, A) || CVodeSetJacFn(mem, jac_sundials) ||
        CVodeSetMaxNumSteps(mem, max_steps)) {
      rc = li_sun_setup_failed(s->name, &s->fail);
      goto out;
    }
  } else {
    mem = ERKStepCreate(rhs_sundials, t0, z, ctx);
    if (!mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
    ERKStepSetErrHandlerFn(mem, li_sun_err_handler, &s->fail);
    if (ERKStepSetTableNum(mem, method == ODE_RK45 ? ARKODE_DORMAND_PRINCE_7_4_5 : ARKODE_CASH_KARP_6_4_5) ||
        ERKStepSetUserData(mem, s) || ERKStepSStolerances(mem, rtol, atol) ||
        ERKStepSetMaxNumSteps(mem, max_steps)) {
      rc = li_sun_setup_failed(s->name, &s->fail);
      goto out;
    }
  }
  double t = t0;
  for (int i = 0; i < T; i++) {
    if (ts[i] == t) {           /* a repeated output time: the same state */
      memcpy(zs + (size_t)i * n, N_VGetArrayPointer(z), (size_t)n * sizeof(double));
      continue;
    }
    flag = (method == ODE_ADAMS || method == ODE_BDF) ? CVode(mem, ts[i], z, &t, CV_NORMAL)
                                                      : ERKStepEvolve(mem, ts[i], z, &t, ARK_NORMAL);
    if (flag < 0) {
      rc = li_sun_step_failed(&s->fail, s->name, flag == CV_TOO_MUCH_WORK || flag == ARK_TOO_MUCH_WORK, ts[i], t);
      goto out;
    }
    memcpy(zs + (size_t)i * n, N_VGetArrayPointer(z), (size_t)n * sizeof(double));
  }
out:
  if (mem) {
    if (method == ODE_ADAMS || method == ODE_BDF) CVodeFree(&mem);
    else ERKStepFree(&mem);
  }
  li_sun_free(LS, A, (N_Vector[]){z, av}, 2, &ctx);
  return rc;
}

#else

static int solve(ode_sys *s, int method, double t0, const double *z0, int n, const double *ts, int T,
                 double rtol, double atol, const double *atolv, long max_steps, double *zs) {
  (void)method; (void)t0; (void)z0; (void)n; (void)ts; (void)T; (void)rtol; (void)atol; (void)atolv;
  (void)max_steps; (void)zs;
  (void)rhs_coupled;
  return li_sun_missing(s->name);
}

#endif

/* ---- the call ---- */

/* The outputs' derivatives by output times that are parameters: f there. */
typedef struct ts_node {
  ad_node hdr;
  size_t n;                     /* outputs: T x N */
  int N;
  const double *adj, *F;        /* the outputs' adjoints; f at the output times */
  double *ts_adj;
} ts_node;

static void ts_chain(ad_node *self) {
  ts_node *p = (ts_node *)self;
  for (size_t o = 0; o < p->n; o++) p->ts_adj[o / (size_t)p->N] += p->adj[o] * p->F[o];
}

/* ode_adjoint_tol_ctl's controls (a[3..13]) with Stan's checks.  The
** forward tolerances, the step limit and the forward method (1 Adams, 2 BDF)
** drive the solve; the gradients come from the same forward sensitivities as
** ode_bdf's, so the backward and quadrature controls are checked and
** otherwise unused. */
static int adjoint_controls(li_run *r, const char *fn, const tm_v *a, int N, double *rtol, const double **atolv,
                            long *steps, int *method) {
  static const char *const rel[3] = { "relative_tolerance_forward", "relative_tolerance_backward",
                                      "relative_tolerance_quadrature" };
  const tm_v *rv[3] = { &a[3], &a[5], &a[7] }, *av[2] = { &a[4], &a[6] };
  static const char *const abs_name[2] = { "absolute_tolerance_forward", "absolute_tolerance_backward" };
  for (int k = 0; k < 3; k++) {
    double v = tm_get(rv[k], 0);
    if (!(v > 0) || !isfinite(v))
      return li_fail_at(r, AD_EDOMAIN, "%s: %s is %g, but must be positive and finite", fn, rel[k], v);
  }
  for (int k = 0; k < 2; k++) {
    if ((int)tm_numel(av[k]) != N)
      return li_fail_at(r, AD_EINVALID, "%s: size of %s (%d) and size of initial state (%d) must match in size", fn,
                        abs_name[k], (int)tm_numel(av[k]), N);
    for (int i = 0; i < N; i++) {
      double v = tm_get(av[k], (size_t)i);
      if (!(v > 0) || !isfinite(v))
        return li_fail_at(r, AD_EDOMAIN, "%s: %s[%d] is %g, but must be positive and finite", fn, abs_name[k], i + 1, v);
    }
  }
  double q = tm_get(&a[8], 0);
  if (!(q > 0) || !isfinite(q))
    return li_fail_at(r, AD_EDOMAIN, "%s: absolute_tolerance_quadrature is %g, but must be positive and finite", fn, q);
  static const char *const ints[5] = { "max_num_steps", "num_steps_between_checkpoints", "interpolation_polynomial",
                                       "solver_forward", "solver_backward" };
  for (int k = 0; k < 5; k++) {
    int v = a[9 + k].ival[0];
    if (k < 2 && v <= 0) return li_fail_at(r, AD_EDOMAIN, "%s: %s is %d, but must be positive", fn, ints[k], v);
    if (k >= 2 && (v < 1 || v > 2))
      return li_fail_at(r, AD_EDOMAIN, "%s: %s is %d, but must be in the interval [1, 2]", fn, ints[k], v);
  }
  *rtol = tm_get(&a[3], 0);
  *atolv = a[4].val;
  *steps = a[9].ival[0];
  *method = a[12].ival[0] == 1 ? ODE_ADAMS : ODE_BDF;
  return AD_OK;
}

static int method_of(const char *name) {
  if (strstr(name, "rk45")) return ODE_RK45;
  if (strstr(name, "ckrk")) return ODE_CKRK;
  if (strstr(name, "adams")) return ODE_ADAMS;
  return ODE_BDF;
}

int li_ode(li_run *r, const ln_expr *e, tm_v *out) { return li_hof_run(r, e, out, li_ode_core); }

int li_ode_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out) {
  const char *fn = e->name;
  int old = e->builtin == LN_BI_ODE_OLD, tol = old ? e->nargs == 10 : li_is_tol_form(fn);
  int adjoint = !strcmp(fn, "ode_adjoint_tol_ctl");
  int nx = old ? 3 : e->nargs - (adjoint ? 15 : tol ? 7 : 4), rc;
  if (nx + 2 > LI_NESTED_MAXARGS) return li_fail_at(r, AD_EINVALID, "%s: too many arguments", fn);
  const tm_v *y0 = &a[0], *t0 = &a[1], *ts = &a[2];
  tm_v *x = old ? &a[3] : &a[adjoint ? 14 : tol ? 6 : 3];
  int method = method_of(fn);
  const double *atolv = NULL;
  /* Stan's defaults: 1e-6, 1e-6, 1e6 steps; integrate_ode_adams and _bdf 1e-10, 1e-10, 1e8 */
  double rtol = 1e-6, atol = 1e-6;
  long steps = 1000000;
  if (old && !strstr(fn, "rk45")) { rtol = 1e-10; atol = 1e-10; steps = 100000000; }
  if (adjoint && (rc = adjoint_controls(r, fn, a, (int)tm_numel(y0), &rtol, &atolv, &steps, &method)))
    return rc;
  if (tol && !adjoint) {
    const tm_v *tv = old ? &a[6] : &a[3];
    rtol = tm_get(&tv[0], 0);
    atol = tm_get(&tv[1], 0);
    steps = li_max_steps_arg(&tv[2], old);
    if ((rc = li_check_controls(r, fn, rtol, atol, steps))) return rc;
  }
  int N = (int)tm_numel(y0), T = (int)tm_numel(ts);
  if (N == 0) return li_fail_at(r, AD_EDOMAIN, "%s: initial state has size 0, but must have a non-zero size", fn);
  if (T == 0) return li_fail_at(r, AD_EDOMAIN, "%s: times has size 0, but must have a non-zero size", fn);
  if ((rc = li_check_finite(r, fn, "initial state", y0)) || (rc = li_check_finite(r, fn, "initial time", t0)) ||
      (rc = li_check_finite(r, fn, "times", ts)))
    return rc;
  double t0v, *tsv;
  if ((rc = li_check_times(r, fn, t0, ts, &t0v, &tsv))) return rc;
  for (int k = 0; k < nx; k++)
    if ((rc = li_check_finite(r, fn, "ode parameters and data", &x[k]))) return rc;

  /* f's arguments: t, y (pointed at each point's values), x...; the
     inputs with derivatives among x */
  ode_sys s = { .name = fn, .N = N };
  tm_v fargs[LI_NESTED_MAXARGS];
  int fad[LI_NESTED_MAXARGS] = { 0 }, *xad = fad + 2;
  fargs[0] = tm_real_view(&s.t, NULL);
  fargs[1] = old ? li_array_view(tm_real_view(NULL, NULL), 1, N, 0) : tm_vector_view(NULL, NULL, N);
  int P = li_nested_inputs(r, fargs, fad, 2, x, nx);
  s.fn = (li_nested_fn){ r, e->args[0]->ufn, fargs, nx + 2, 1, N, fad, fn, "the ODE function", "the state", NULL };
  int ad = r->ad;
  /* an initial time with derivatives needs y0's sensitivities too:
     d y(t) / d t0 = -S_y0(t) f(t0, y0) */
  int y0_ad = ad && y0->adj != NULL, t0_ad = ad && t0->adj != NULL;
  s.ny0 = y0_ad || t0_ad ? N : 0;
  s.M = s.ny0 + P;
  int ts_ad = ad && ts->adj != NULL;
  if ((size_t)N * (size_t)(1 + s.M) > 0x7fffffff) return li_fail_at(r, AD_EINVALID, "%s: too many sensitivities", fn);
  int n = N * (1 + s.M);
  double *z0 = ad_alloc_zeros((size_t)n), *zs = ad_alloc_doubles((size_t)n * T);
  if (!z0 || !zs) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < N; i++) {
    z0[i] = tm_get(y0, (size_t)i);
    if (s.ny0) z0[N + (size_t)i * N + i] = 1.0;      /* dy0 / dy0 = I */
  }
  int implicit = method == ODE_ADAMS || method == ODE_BDF;   /* their Newton needs J_y */
  if (s.M || implicit) {
    s.Jy = ad_alloc_doubles((size_t)N * N);
    s.Jp = ad_alloc_doubles((size_t)N * (P ? P : 1));
    if (!s.Jy || !s.Jp || !(s.jac = ad_scoped_new())) return ad_fail(AD_EMEMORY, "out of memory");
  }
  s.fn.eng = r->hof_eng;
  s.t = t0v;
  fargs[1].val = z0;          /* f's arguments at (t0, y0), for a plan of f */
  li_hof_note(r, &s.fn, 2);
  rc = solve(&s, method, t0v, z0, n, tsv, T, rtol, atol, atolv, steps, zs);
  if (s.jac) ad_stack_free(s.jac);
  if (rc) return li_locate(r, rc);

  /* the result: array[] vector (ode_*) or array[,] real (integrate_ode_*) */
  size_t nout = (size_t)T * N;
  int outad = s.M > 0 || ts_ad;
  double *val = ad_alloc_doubles(nout), *adj = outad ? ad_alloc_zeros(nout) : NULL;
  if (!val || (outad && !adj)) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < T; i++) memcpy(val + (size_t)i * N, zs + (size_t)i * n, (size_t)N * sizeof(double));
  *out = old ? li_array_view(tm_real_view(val, adj), 2, T, N) : li_array_view(tm_vector_view(val, adj, N), 1, T, 0);
  out->dep = (unsigned char)(li_nonconst(y0) || li_nonconst(ts) || li_nonconst(t0));
  for (int k = 0; k < nx; k++) out->dep |= (unsigned char)li_nonconst(&x[k]);
  if (!outad) return AD_OK;

  /* the inputs with sensitivities: y0 (when it has derivatives), the
     parameters, t0; their rows by li_rows_node */
  int first = y0_ad ? 0 : s.ny0, Mo = s.M - first + t0_ad;
  if (Mo) {
    double *G = ad_alloc_doubles(nout * (size_t)Mo);
    double **in = ad_alloc((size_t)Mo * sizeof *in);
    double *f0 = t0_ad ? ad_alloc_doubles((size_t)N) : NULL;
    if (!G || !in || (t0_ad && !f0)) return ad_fail(AD_EMEMORY, "out of memory");
    if (t0_ad && (rc = rhs_values(&s, t0v, z0, f0))) return li_locate(r, rc);
    /* G[(i, k), m] = S_i[k, first + m]; the t0 column -S_y0,i[k, ] f0 */
    for (int i = 0; i < T; i++)
      for (int k = 0; k < N; k++) {
        const double *S = zs + (size_t)i * n + N;
        double *g = G + ((size_t)i * N + k) * Mo;
        for (int m = first; m < s.M; m++) g[m - first] = S[(size_t)m * N + k];
        if (t0_ad) {
          double acc = 0;
          for (int j = 0; j < N; j++) acc += S[(size_t)j * N + k] * f0[j];
          g[Mo - 1] = -acc;
        }
      }
    int col = 0;
    if (y0_ad) for (int k = 0; k < N; k++) in[col++] = &y0->adj[k];
    col += (int)li_collect_adjoints(x, xad, nx, in + col);
    if (t0_ad) in[col++] = t0->adj;
    if ((rc = li_rows_node(nout, Mo, adj, G, in))) return rc;
  }
  if (ts_ad) {
    double *F = ad_alloc_doubles(nout);
    ts_node *p = ad_node_new(sizeof *p, ts_chain);
    if (!F || !p) return ad_fail(AD_EMEMORY, "out of memory");
    for (int i = 0; i < T; i++)
      if ((rc = rhs_values(&s, tsv[i], val + (size_t)i * N, F + (size_t)i * N))) return li_locate(r, rc);
    p->n = nout;
    p->N = N;
    p->adj = adj;
    p->F = F;
    p->ts_adj = ts->adj;
  }
  return AD_OK;
}
