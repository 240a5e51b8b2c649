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
** map_rect's Jacobians).  The result gets one node on the caller's tape
** holding S at each output time (and f there, for output times that are
** parameters).
**
** SUNDIALS allocates its own memory per solve and reports errors through
** the handler below, never by printing.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "li_int.h"

#ifdef TAPESTRY_SUNDIALS
#include <cvodes/cvodes.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>
#endif

enum { ODE_RK45, ODE_CKRK, ODE_ADAMS, ODE_BDF };

/* Element i of an int or real value, as a double. */
static double num(const tm_v *v, size_t i) {
  return v->base == TM_INT ? (double)v->ival[i] : v->val[i];
}

static int ends_with_tol(const char *name) {
  size_t n = strlen(name);
  return n > 4 && !strcmp(name + n - 4, "_tol");
}

typedef struct ode_in {         /* an input with derivatives */
  double *adj;
} ode_in;

typedef struct ode_sys {
  li_run *r;
  const ln_func *f;
  const char *name;
  int N, M, ny0;                /* states; sensitivity columns; of them y0's (0 or N) */
  int old;                      /* integrate_ode_*: f takes and returns arrays */
  int nx;                       /* f's arguments after t and y */
  tm_v *x;                      /* their values as given */
  int *xad;                     /* which of them carry derivatives */
  int status;                   /* a failure inside f */
  char msg[1024];
  ad_stack *jac;                /* the scoped tape of J_y, J_p */
} ode_sys;

/* f(t, y, x...) at the double values y: its N outputs into out, or a failure.
** Records nothing: the arguments are plain values. */
static int rhs_values(ode_sys *s, double t, const double *y, double *out) {
  li_run *r = s->r;
  ad_mark mark = ad_stack_mark(ad_active);
  tm_v a[LI_ODE_MAXARGS + 2], v;
  memset(a, 0, 2 * sizeof *a);
  double tv = t;
  a[0].val = &tv;
  a[0].base = TM_REAL;
  a[0].rows = a[0].cols = 1;
  a[1].val = (double *)y;
  if (s->old) {
    a[1].base = TM_REAL;
    a[1].narr = 1;
    a[1].dim[0] = s->N;
    a[1].rows = a[1].cols = 1;
  } else {
    a[1].base = TM_VECTOR;
    a[1].rows = s->N;
    a[1].cols = 1;
  }
  for (int k = 0; k < s->nx; k++) {
    a[k + 2] = s->x[k];
    a[k + 2].adj = NULL;
  }
  li_run sub;
  li_run_fork(r, &sub);
  sub.ad = 0;
  int rc = li_call_user(&sub, s->f, a, s->nx + 2, 0, &v);
  if (!rc && tm_numel(&v) != (size_t)s->N)
    rc = ad_fail(AD_EINVALID, "%s: the ODE function returned %zu values, but the state has %d", s->name,
                 tm_numel(&v), s->N);
  if (!rc) for (int i = 0; i < s->N; i++) out[i] = tm_get(&v, (size_t)i);
  if (!rc)
    for (int i = 0; i < s->N; i++)
      if (!isfinite(out[i])) {
        rc = ad_fail(AD_EDOMAIN, "%s: the ODE function returned a non-finite value (%g) at t = %g", s->name, out[i], t);
        break;
      }
  ad_stack_rewind(ad_active, &mark);
  return rc;
}

/* The coupled system's right-hand side: dy = f, dS = J_y S + J_p, with J
** from f recorded on the scoped tape s->jac. */
typedef struct jac_job {
  ode_sys *s;
  double t;
  const double *y, *S;
  double *dy, *dS;
} jac_job;

static int rhs_coupled_run(void *data) {
  jac_job *j = data;
  ode_sys *s = j->s;
  int N = s->N, M = s->M, rc;
  ad_mark m0 = ad_stack_mark(ad_active);
  double *yv, *ya;
  if ((rc = ad_leaves((size_t)N, j->y, &yv, &ya))) return rc;
  tm_v a[LI_ODE_MAXARGS + 2], v;
  memset(a, 0, 2 * sizeof *a);
  double tv = j->t;
  a[0].val = &tv;
  a[0].base = TM_REAL;
  a[0].rows = a[0].cols = 1;
  a[1].val = yv;
  a[1].adj = ya;
  if (s->old) {
    a[1].base = TM_REAL;
    a[1].narr = 1;
    a[1].dim[0] = N;
    a[1].rows = a[1].cols = 1;
  } else {
    a[1].base = TM_VECTOR;
    a[1].rows = N;
    a[1].cols = 1;
  }
  for (int k = 0; k < s->nx; k++) {
    if (s->xad[k]) {
      if ((rc = li_leaf_copy(&s->x[k], &a[k + 2]))) return rc;
    } else {
      a[k + 2] = s->x[k];
    }
  }
  li_run sub;
  li_run_fork(s->r, &sub);
  sub.ad = 1;
  sub.tr = NULL;
  if ((rc = li_call_user(&sub, s->f, a, s->nx + 2, 0, &v))) return rc;
  if (tm_numel(&v) != (size_t)N)
    return ad_fail(AD_EINVALID, "%s: the ODE function returned %zu values, but the state has %d", s->name,
                   tm_numel(&v), N);
  for (int i = 0; i < N; i++) {
    j->dy[i] = tm_get(&v, (size_t)i);
    if (!isfinite(j->dy[i]))
      return ad_fail(AD_EDOMAIN, "%s: the ODE function returned a non-finite value (%g) at t = %g", s->name,
                     j->dy[i], j->t);
  }
  memset(j->dS, 0, (size_t)N * M * sizeof(double));
  if (!v.adj) return AD_OK;     /* f does not depend on y nor on the parameters */
  ad_snapshot *snap = NULL;
  if (N > 1 && (rc = ad_stack_snapshot(ad_active, &m0, &snap))) return rc;
  for (int i = 0; i < N; i++) {
    if (i > 0) ad_stack_restore(snap);
    v.adj[i] = 1.0;
    ad_sweep(ad_active);
    /* row i: dS[i, m] = sum_k J_y[i, k] S[k, m] + J_p[i, m - ny0] */
    for (int m = 0; m < M; m++) {
      const double *Sm = j->S + (size_t)m * N;
      double acc = 0;
      for (int k = 0; k < N; k++) acc += ya[k] * Sm[k];
      j->dS[(size_t)m * N + i] = acc;
    }
    int col = s->ny0;
    for (int k = 0; k < s->nx; k++) {
      if (!s->xad[k]) continue;
      size_t n = tm_numel(&a[k + 2]);
      for (size_t e = 0; e < n; e++) j->dS[(size_t)(col + (int)e) * N + i] += a[k + 2].adj[e];
      col += (int)n;
    }
  }
  return AD_OK;
}

static int rhs_coupled(ode_sys *s, double t, const double *z, double *dz) {
  jac_job j = { s, t, z, z + s->N, dz, dz + s->N };
  int rc = ad_scoped_execute(s->jac, rhs_coupled_run, &j);
  ad_stack_recover(s->jac);
  return rc;
}

#ifdef TAPESTRY_SUNDIALS

static int rhs_sundials(sunrealtype t, N_Vector z, N_Vector dz, void *ud) {
  ode_sys *s = ud;
  const double *zv = N_VGetArrayPointer(z);
  double *dv = N_VGetArrayPointer(dz);
  int rc = s->M ? rhs_coupled(s, t, zv, dv) : rhs_values(s, t, zv, dv);
  if (rc) {
    if (!s->status) {
      s->status = rc;
      snprintf(s->msg, sizeof s->msg, "%s", ad_errmsg());
    }
    return -1;                  /* unrecoverable: the solver stops */
  }
  return 0;
}

static void cv_err(int code, const char *module, const char *function, char *msg, void *ud) {
  (void)code; (void)module; (void)function;
  ode_sys *s = ud;
  if (!s->status) snprintf(s->msg, sizeof s->msg, "%s", msg);
}

static void ark_err(int code, const char *module, const char *function, char *msg, void *ud) {
  cv_err(code, module, function, msg, ud);
}

/* Integrates s from t0, z0 (n values) to each of the T times, writing the
** state at ts[i] to zs + i * n. */
static int solve(ode_sys *s, int method, double t0, const double *z0, int n, const double *ts, int T,
                 double rtol, double atol, long max_steps, double *zs) {
  SUNContext ctx = NULL;
  if (SUNContext_Create(NULL, &ctx)) return ad_fail(AD_EMEMORY, "%s: SUNDIALS could not start", s->name);
  N_Vector z = N_VNew_Serial(n, ctx);
  void *mem = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  int rc = AD_OK, flag = 0;
  s->msg[0] = '\0';
  if (!z) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
  memcpy(N_VGetArrayPointer(z), z0, (size_t)n * sizeof(double));
  if (method == ODE_ADAMS || method == ODE_BDF) {
    mem = CVodeCreate(method == ODE_BDF ? CV_BDF : CV_ADAMS, ctx);
    if (!mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
    CVodeSetErrHandlerFn(mem, cv_err, s);
    A = SUNDenseMatrix(n, n, ctx);
    LS = A ? SUNLinSol_Dense(z, A, ctx) : NULL;
    if (!LS || CVodeInit(mem, rhs_sundials, t0, z) || CVodeSetUserData(mem, s) ||
        CVodeSStolerances(mem, rtol, atol) || CVodeSetLinearSolver(mem, LS, A) ||
        CVodeSetMaxNumSteps(mem, max_steps)) {
      rc = ad_fail(AD_EINVALID, "%s: the solver could not be set up: %s", s->name, s->msg);
      goto out;
    }
  } else {
    mem = ERKStepCreate(rhs_sundials, t0, z, ctx);
    if (!mem) { rc = ad_fail(AD_EMEMORY, "out of memory"); goto out; }
    ERKStepSetErrHandlerFn(mem, ark_err, s);
    if (ERKStepSetTableNum(mem, method == ODE_RK45 ? ARKODE_DORMAND_PRINCE_7_4_5 : ARKODE_CASH_KARP_6_4_5) ||
        ERKStepSetUserData(mem, s) || ERKStepSStolerances(mem, rtol, atol) ||
        ERKStepSetMaxNumSteps(mem, max_steps)) {
      rc = ad_fail(AD_EINVALID, "%s: the solver could not be set up: %s", s->name, s->msg);
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
      if (s->status) rc = ad_fail(s->status, "%s", s->msg);
      else if (flag == CV_TOO_MUCH_WORK || flag == ARK_TOO_MUCH_WORK)
        rc = ad_fail(AD_EDOMAIN, "%s: Failed to integrate to next output time (%g) in less than max_num_steps "
                     "steps", s->name, ts[i]);
      else
        rc = ad_fail(AD_EDOMAIN, "%s: the solver failed at t = %g: %s", s->name, t, s->msg[0] ? s->msg : "error");
      goto out;
    }
    memcpy(zs + (size_t)i * n, N_VGetArrayPointer(z), (size_t)n * sizeof(double));
  }
out:
  if (mem) {
    if (method == ODE_ADAMS || method == ODE_BDF) CVodeFree(&mem);
    else ERKStepFree(&mem);
  }
  if (LS) SUNLinSolFree(LS);
  if (A) SUNMatDestroy(A);
  if (z) N_VDestroy(z);
  SUNContext_Free(&ctx);
  return rc;
}

#else

static int solve(ode_sys *s, int method, double t0, const double *z0, int n, const double *ts, int T,
                 double rtol, double atol, long max_steps, double *zs) {
  (void)method; (void)t0; (void)z0; (void)n; (void)ts; (void)T; (void)rtol; (void)atol; (void)max_steps; (void)zs;
  (void)rhs_coupled;
  return ad_fail(AD_EINVALID, "%s needs SUNDIALS, which this build of tapestry was made without: install it "
                 "(Debian/Ubuntu: apt-get install libsundials-dev) and reinstall tapestry", s->name);
}

#endif

/* ---- the call ---- */

typedef struct ode_node {
  ad_node hdr;
  size_t n;                     /* outputs: T x N */
  int M, N;
  double *adj;                  /* the outputs' adjoints */
  const double *G;              /* n rows of M: d output / d input */
  double **in;                  /* M adjoints of the inputs */
  const double *F;              /* f at the output times (NULL: ts are data) */
  double *ts_adj;
} ode_node;

static void ode_chain(ad_node *self) {
  ode_node *p = (ode_node *)self;
  for (size_t o = 0; o < p->n; o++) {
    double a = p->adj[o];
    if (a == 0) continue;
    const double *g = p->G + o * (size_t)p->M;
    for (int m = 0; m < p->M; m++) *p->in[m] += a * g[m];
    if (p->ts_adj) p->ts_adj[o / (size_t)p->N] += a * p->F[o];
  }
}

static int method_of(const char *name) {
  if (strstr(name, "rk45")) return ODE_RK45;
  if (strstr(name, "ckrk")) return ODE_CKRK;
  if (strstr(name, "adams")) return ODE_ADAMS;
  return ODE_BDF;
}

static int check_finite(li_run *r, const char *fn, const char *what, const tm_v *v) {
  size_t n = tm_numel(v);
  for (size_t i = 0; i < n; i++) {
    double x = num(v, i);
    if (!isfinite(x))
      return li_fail_at(r, AD_EDOMAIN, "%s: %s[%zu] is %g, but must be finite", fn, what, i + 1, x);
  }
  return AD_OK;
}

int li_ode(li_run *r, const ln_expr *e, tm_v *out) {
  const char *fn = e->name;
  int old = e->builtin == LN_BI_ODE_OLD, tol = old ? e->nargs == 10 : ends_with_tol(fn);
  int nx = old ? 3 : e->nargs - (tol ? 7 : 4), rc;
  if (nx > LI_ODE_MAXARGS) return li_fail_at(r, AD_EINVALID, "%s: too many arguments", fn);
  tm_v a[LI_ODE_MAXARGS + 8];
  if (r->tr) li_emit_unsupported(r, "ODE solvers (their plan is to come)");
  if ((rc = li_eval_args(r, e->args + 1, e->nargs - 1, a))) return rc;
  const tm_v *y0 = &a[0], *t0 = &a[1], *ts = &a[2];
  tm_v *x = old ? &a[3] : &a[tol ? 6 : 3];
  /* Stan's defaults: 1e-6, 1e-6, 1e6 steps; integrate_ode_adams and _bdf 1e-10, 1e-10, 1e8 */
  double rtol = 1e-6, atol = 1e-6;
  long steps = 1000000;
  if (old && !strstr(fn, "rk45")) { rtol = 1e-10; atol = 1e-10; steps = 100000000; }
  if (tol) {
    const tm_v *tv = old ? &a[6] : &a[3];
    rtol = num(&tv[0], 0);
    atol = num(&tv[1], 0);
    steps = tv[2].ival[0];
    if (!(rtol > 0) || !isfinite(rtol)) return li_fail_at(r, AD_EDOMAIN, "%s: relative_tolerance is %g, but must be positive and finite", fn, rtol);
    if (!(atol > 0) || !isfinite(atol)) return li_fail_at(r, AD_EDOMAIN, "%s: absolute_tolerance is %g, but must be positive and finite", fn, atol);
    if (steps <= 0) return li_fail_at(r, AD_EDOMAIN, "%s: max_num_steps is %ld, but must be positive", fn, steps);
  }
  int N = (int)tm_numel(y0), T = (int)tm_numel(ts);
  if (N == 0) return li_fail_at(r, AD_EDOMAIN, "%s: initial state has size 0, but must have a non-zero size", fn);
  if (T == 0) return li_fail_at(r, AD_EDOMAIN, "%s: times has size 0, but must have a non-zero size", fn);
  if ((rc = check_finite(r, fn, "initial state", y0)) || (rc = check_finite(r, fn, "initial time", t0)) ||
      (rc = check_finite(r, fn, "times", ts)))
    return rc;
  double t0v = num(t0, 0);
  double *tsv = ad_alloc_doubles((size_t)T);
  if (!tsv) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < T; i++) {
    tsv[i] = num(ts, (size_t)i);
    if (i > 0 && tsv[i] < tsv[i - 1])
      return li_fail_at(r, AD_EDOMAIN, "%s: times is not a valid sorted vector. The element at %d is %g, but should "
                        "be greater than or equal to the previous element, %g", fn, i + 1, tsv[i], tsv[i - 1]);
  }
  if (!(tsv[0] > t0v))
    return li_fail_at(r, AD_EDOMAIN, "%s: initial time is %g, but must be less than %g", fn, t0v, tsv[0]);
  for (int k = 0; k < nx; k++)
    if (x[k].base != TM_INT && (rc = check_finite(r, fn, "ode parameters and data", &x[k]))) return rc;

  /* the inputs with derivatives */
  ode_sys s;
  memset(&s, 0, sizeof s);
  s.r = r;
  s.f = e->args[0]->ufn;
  s.name = fn;
  s.N = N;
  s.old = old;
  s.nx = nx;
  s.x = x;
  int xad[LI_ODE_MAXARGS + 1];
  s.xad = xad;
  int ad = r->ad;
  /* an initial time with derivatives needs y0's sensitivities too:
     d y(t) / d t0 = -S_y0(t) f(t0, y0) */
  int y0_ad = ad && y0->adj != NULL, t0_ad = ad && t0->adj != NULL;
  s.ny0 = y0_ad || t0_ad ? N : 0;
  int P = 0;
  for (int k = 0; k < nx; k++) {
    xad[k] = ad && x[k].adj != NULL;
    if (xad[k]) P += (int)tm_numel(&x[k]);
  }
  s.M = s.ny0 + P;
  int ts_ad = ad && ts->adj != NULL;
  if ((size_t)N * (size_t)(1 + s.M) > 0x7fffffff) return li_fail_at(r, AD_EINVALID, "%s: too many sensitivities", fn);
  int n = N * (1 + s.M);
  double *z0 = ad_alloc_zeros((size_t)n), *zs = ad_alloc_doubles((size_t)n * T);
  if (!z0 || !zs) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < N; i++) {
    z0[i] = num(y0, (size_t)i);
    if (s.ny0) z0[N + (size_t)i * N + i] = 1.0;      /* dy0 / dy0 = I */
  }
  if (s.M && !(s.jac = ad_scoped_new())) return ad_fail(AD_EMEMORY, "out of memory");
  rc = solve(&s, method_of(fn), t0v, z0, n, tsv, T, rtol, atol, steps, zs);
  if (s.jac) ad_stack_free(s.jac);
  if (rc) return li_locate(r, rc);

  /* the result: array[] vector (ode_*) or array[,] real (integrate_ode_*) */
  size_t nout = (size_t)T * N;
  int outad = s.M > 0 || ts_ad;
  double *val = ad_alloc_doubles(nout), *adj = outad ? ad_alloc_zeros(nout) : NULL;
  if (!val || (outad && !adj)) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < T; i++) memcpy(val + (size_t)i * N, zs + (size_t)i * n, (size_t)N * sizeof(double));
  memset(out, 0, sizeof *out);
  out->val = val;
  out->adj = adj;
  if (old) {
    out->base = TM_REAL;
    out->narr = 2;
    out->dim[0] = T;
    out->dim[1] = N;
    out->rows = out->cols = 1;
  } else {
    out->base = TM_VECTOR;
    out->narr = 1;
    out->dim[0] = T;
    out->rows = N;
    out->cols = 1;
  }
  out->dep = (unsigned char)(li_nonconst(y0) || li_nonconst(ts) || li_nonconst(t0));
  for (int k = 0; k < nx; k++) out->dep |= (unsigned char)li_nonconst(&x[k]);
  if (!outad) return AD_OK;

  /* the node's inputs: y0 (when it has derivatives), the parameters, t0 */
  int first = y0_ad ? 0 : s.ny0, Mo = s.M - first + t0_ad;
  ode_node *p = ad_node_new(sizeof *p, ode_chain);
  double *G = ad_alloc_doubles(nout * (size_t)(Mo ? Mo : 1));
  double **in = ad_alloc((size_t)(Mo ? Mo : 1) * sizeof *in);
  double *f0 = t0_ad ? ad_alloc_doubles((size_t)N) : NULL;
  if (!p || !G || !in || (t0_ad && !f0)) return ad_fail(AD_EMEMORY, "out of memory");
  if (t0_ad) {
    int M = s.M;
    s.M = 0;
    rc = rhs_values(&s, t0v, z0, f0);
    s.M = M;
    if (rc) return li_locate(r, rc);
  }
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
  for (int k = 0; k < nx; k++) {
    if (!xad[k]) continue;
    size_t c = tm_numel(&x[k]);
    for (size_t e2 = 0; e2 < c; e2++) in[col++] = &x[k].adj[e2];
  }
  if (t0_ad) in[col++] = t0->adj;
  p->n = nout;
  p->M = Mo;
  p->N = N;
  p->adj = adj;
  p->G = G;
  p->in = in;
  p->F = NULL;
  p->ts_adj = NULL;
  if (ts_ad) {
    double *F = ad_alloc_doubles(nout);
    if (!F) return ad_fail(AD_EMEMORY, "out of memory");
    s.M = 0;
    for (int i = 0; i < T; i++)
      if ((rc = rhs_values(&s, tsv[i], val + (size_t)i * N, F + (size_t)i * N))) return li_locate(r, rc);
    p->F = F;
    p->ts_adj = ts->adj;
  }
  return AD_OK;
}
