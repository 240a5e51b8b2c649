/*
** li_maprect.c -- map_rect(f, phi, theta, x_r, x_i).
**
** Job j is f(phi, theta[j], x_r[j], x_i[j]), a vector of any length; the
** result is the jobs' vectors one after another.  The jobs run on the
** thread pool (src/par) with eager Jacobians: each participant copies phi
** onto its own tape once, then for each job copies theta[j], records f and
** computes the derivatives of the job's outputs with respect to phi and
** theta[j] at once, one reverse sweep per output.  The caller's tape gets
** one vector node whose reverse step multiplies the outputs' adjoints into
** these stored Jacobian rows, so the forward and reverse work of f both
** run in parallel and f's tape never outlives its job.
**
** Why a snapshot for several outputs: a sweep leaves adjoints all over the
** job's tape, and the next output's sweep must start from zeros.  Recording
** f again per output would cost a forward pass each; restoring the bytes
** the forward pass wrote (ad_stack_snapshot) costs one memcpy instead.
** phi's copy lies before the snapshot (it is shared by the slot's jobs), so
** its adjoints are read and zeroed by hand after each sweep.
**
** Why keep stacks: the number of outputs of a job is known only once f has
** run, so the opener cannot allocate their room beforehand, and a job's
** work tape is rewound as soon as it is done.  Values and Jacobian rows go
** to the slot's keep stack; the opener copies them onto its own tape after
** the region and before releasing the stacks.
**
** The result depends only on the jobs, not on who ran them: values and
** gradients are the same for any number of threads.
*/
#include <string.h>
#include "li_int.h"
#include "../par/pp.h"
#include "../par/pp_mpi.h"

typedef li_mr_job mr_job;

/* Per participant. */
typedef struct mr_slot {
  li_run run;
  tm_v phi;                 /* phi on this slot's tape */
  ad_mark mark;             /* after the copy of phi: where each job starts */
  char pad[64];             /* run is written at every statement by one thread:
                               keep the next slot's off its cache line */
} mr_slot;

typedef struct mr {
  li_run *caller;
  const ln_func *f;
  tm_v phi, theta, xr, xi;
  int J;
  size_t np, nt;            /* columns of a Jacobian row for phi, for theta[j] (0: data) */
  mr_job *job;
  mr_slot *slot;
} mr;

/* Row j of a data array, or an empty one when the array has no rows
** ("no data" for every job). */
static tm_v data_row(const tm_v *a, int j) {
  if (a->dim[0] > 0) return tm_elem(a, j);
  tm_v e = *a;
  e.narr = 1;
  e.dim[0] = 0;
  return e;
}

int li_mr_call(li_run *run, const ln_func *f, const tm_v *phi, const tm_v *theta_j, const tm_v *xr,
               const tm_v *xi, int j, tm_v *out) {
  tm_v a[4];
  a[0] = *phi;
  a[1] = *theta_j;
  a[2] = data_row(xr, j);
  a[3] = data_row(xi, j);
  int rc = li_call_user(run, f, a, 4, 0, out);
  return rc ? li_locate(run, rc) : AD_OK;
}

static int mr_begin(pp_region *g, int slot) {
  mr *w = g->ctx;
  mr_slot *sl = &w->slot[slot];
  li_run_fork(w->caller, &sl->run);
  int rc = li_leaf_copy(&w->phi, &sl->phi);
  if (rc) return rc;
  sl->mark = ad_stack_mark(ad_active);
  return AD_OK;
}

/* Jacobian rows of the job's outputs v, one sweep per output, into jac
** (m rows of np + nt). */
static int jacobian(mr *w, mr_slot *sl, const tm_v *v, const tm_v *th, int m, double *jac) {
  size_t wd = w->np + w->nt;
  if (!v->adj) {                /* f returned constants */
    memset(jac, 0, (size_t)m * wd * sizeof(double));
    return AD_OK;
  }
  ad_snapshot *snap = NULL;
  if (m > 1) {
    int rc = ad_stack_snapshot(ad_active, &sl->mark, &snap);
    if (rc) return rc;
  }
  for (int o = 0; o < m; o++) {
    /* right after the forward pass every adjoint is zero already */
    if (o > 0) ad_stack_restore(snap);
    v->adj[o] = 1.0;
    ad_sweep(ad_active);
    double *row = jac + (size_t)o * wd;
    if (w->np) {
      memcpy(row, sl->phi.adj, w->np * sizeof(double));
      memset(sl->phi.adj, 0, w->np * sizeof(double));
    }
    if (w->nt) memcpy(row + w->np, th->adj, w->nt * sizeof(double));
  }
  return AD_OK;
}

/* Job j is chunk j.  Several jobs per chunk measured no faster on
** map_rect_hier (40 jobs of about 0.8 microseconds), and single jobs
** balance best when there are few. */
static int mr_chunk(pp_region *g, int slot, int j) {
  mr *w = g->ctx;
  mr_slot *sl = &w->slot[slot];
  tm_v a[2], v;
  int rc;
  a[0] = sl->phi;
  tm_v th = tm_elem(&w->theta, j);
  if ((rc = li_leaf_copy(&th, &a[1]))) return rc;
  if ((rc = li_mr_call(&sl->run, w->f, &a[0], &a[1], &w->xr, &w->xi, j, &v))) return rc;
  size_t m = tm_numel(&v), wd = w->np + w->nt;   /* a vector's size is an int */
  mr_job *jb = &w->job[j];
  jb->m = (int)m;
  jb->dep = (unsigned char)li_nonconst(&v);
  jb->val = ad_arena_alloc(&g->keep[slot]->arena, (m + m * wd > 0 ? m + m * wd : 1) * sizeof(double));
  if (!jb->val) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t o = 0; o < m; o++) jb->val[o] = tm_get(&v, o);
  if (wd && (rc = jacobian(w, sl, &v, &a[1], (int)m, jb->val + m))) return rc;
  ad_stack_rewind(ad_active, &sl->mark);
  return AD_OK;
}

/* LI_EV_MAPRECT's run: job j again, on the caller's thread and tape, with
** the phi and theta[j] the recorder gives (its own copies). */
static int mr_trace(const void *ud, int j, const tm_v *args, const li_tracer *tr, tm_v *out) {
  const mr *w = ud;
  li_run sub;
  li_run_fork(w->caller, &sub);
  sub.tr = tr;
  sub.prof = NULL;   /* the piece ran (and was profiled) already */
  return li_mr_call(&sub, w->f, &args[0], &args[1], &w->xr, &w->xi, j, out);
}

/* The caller's node: output values and adjoints, the jobs' Jacobians. */
typedef struct mr_node {
  ad_node hdr;
  int J;
  size_t np, nt;
  double *adj;              /* of the outputs */
  const double *jac;        /* a row of np + nt per output */
  const size_t *off;        /* job j's outputs are off[j] .. off[j + 1] - 1 */
  double *phi_adj;          /* NULL when phi is data */
  double *theta_adj;        /* J blocks of nt; NULL when theta is data */
} mr_node;

static void mr_chain(ad_node *self) {
  mr_node *n = (mr_node *)self;
  size_t wd = n->np + n->nt;
  for (int j = 0; j < n->J; j++) {
    double *ta = n->theta_adj ? n->theta_adj + (size_t)j * n->nt : NULL;
    for (size_t o = n->off[j]; o < n->off[j + 1]; o++) {
      double a = n->adj[o];
      const double *row = n->jac + o * wd;
      for (size_t k = 0; k < n->np; k++) n->phi_adj[k] += a * row[k];
      if (ta)
        for (size_t k = 0; k < n->nt; k++) ta[k] += a * row[n->np + k];
    }
  }
}

/* Jobs 0..J-1 of theta (and of x_r, x_i when they have rows) on this
** process's threads: each job's outputs and Jacobian rows in jobs[j] (on
** the region's keep stacks: the caller copies them, then releases g). */
int li_mr_local(li_run *caller, const ln_func *f, const tm_v *phi, const tm_v *theta, const tm_v *xr,
                const tm_v *xi, int J, size_t np, size_t nt, li_mr_job *jobs, pp_region *g) {
  memset(g, 0, sizeof *g);
  if (J <= 0) return AD_OK;
  mr w;
  memset(&w, 0, sizeof w);
  w.caller = caller;
  w.f = f;
  w.phi = *phi;
  w.theta = *theta;
  w.xr = *xr;
  w.xi = *xi;
  w.J = J;
  w.np = np;
  w.nt = nt;
  w.job = jobs;
  /* what the participants write at disjoint places: on the caller's tape */
  int threads = pp_threads() < PP_MAX_SLOTS ? pp_threads() : PP_MAX_SLOTS;
  w.slot = ad_alloc((size_t)threads * sizeof *w.slot);
  if (!w.slot) return ad_fail(AD_EMEMORY, "out of memory");
  g->nchunks = J;
  g->nthreads = threads;
  g->keep_stacks = 1;
  g->begin = mr_begin;
  g->chunk = mr_chunk;
  g->ctx = &w;
  int rc = pp_region_run(g);
  if (rc) caller->located = 1;      /* the participant's message names its line */
  g->ctx = NULL;
  return rc;
}

int li_map_rect(li_run *r, const ln_expr *e, tm_v *out) {
  mr w;
  memset(&w, 0, sizeof w);
  tm_v a[4];
  int rc;
  if ((rc = li_eval_args(r, e->args + 1, 4, a))) return rc;
  w.caller = r;
  w.f = e->args[0]->ufn;
  w.phi = a[0];
  w.theta = a[1];
  w.xr = a[2];
  w.xi = a[3];
  int J = w.J = a[1].dim[0];
  if (a[2].dim[0] != J && !(a[2].dim[0] == 0 && tm_numel(&a[2]) == 0))
    return li_fail_at(r, AD_EINVALID, "map_rect: x_r has %d rows, but job_params (theta) has %d jobs; "
                      "x_r needs one row per job, or none", a[2].dim[0], J);
  if (a[3].dim[0] != J && !(a[3].dim[0] == 0 && tm_numel(&a[3]) == 0))
    return li_fail_at(r, AD_EINVALID, "map_rect: x_i has %d rows, but job_params (theta) has %d jobs; "
                      "x_i needs one row per job, or none", a[3].dim[0], J);
  int dep = li_nonconst(&a[0]) || li_nonconst(&a[1]);
  if (J == 0) {
    if ((rc = tm_new_vector(out, 0, 0))) return ad_fail(AD_EMEMORY, "out of memory");
    out->dep = (unsigned char)dep;
    return AD_OK;
  }
  w.np = r->ad && a[0].adj ? tm_numel(&a[0]) : 0;
  w.nt = r->ad && a[1].adj ? li_elem_numel(&a[1]) : 0;

  /* over MPI (a session is open and no other map_rect holds the ranks):
     the other ranks' jobs go out first, then this rank runs jobs 0..J0-1 */
  int J0 = J, mpi = pp_mpi_trylock();
  if (mpi < 0) return li_locate(r, AD_EFATAL);
  li_mpi_call call;
  if (mpi && (rc = li_mpi_mr_begin(r->ctx, e, w.f, &a[0], &a[1], &a[2], &a[3], NULL, w.np, w.nt, &call))) {
    pp_mpi_unlock();
    return li_locate(r, rc);
  }
  if (mpi) J0 = call.J0;
  w.job = ad_alloc((size_t)J * sizeof *w.job);
  if (!w.job) rc = ad_fail(AD_EMEMORY, "out of memory");
  size_t chain0 = li_chain_len();
  pp_region g;
  memset(&g, 0, sizeof g);
  if (!rc) rc = li_mr_local(r, w.f, &w.phi, &w.theta, &w.xr, &w.xi, J0, w.np, w.nt, w.job, &g);
  if (mpi) {
    /* the other ranks' results are gathered even after a failure here,
       so the ranks stay in step */
    int rc2 = li_mpi_mr_end(&call, w.job);
    pp_mpi_unlock();
    if (!rc && rc2) {
      pp_region_release(&g);
      r->located = 1;
      return rc2;
    }
  }
  if (rc) return rc;

  /* the jobs' results, from the keep stacks onto the caller's tape */
  size_t M = 0, wd = w.np + w.nt;
  for (int j = 0; j < J; j++) {
    M += (size_t)w.job[j].m;
    dep |= w.job[j].dep;
  }
  if (M > (size_t)0x7fffffff) {
    pp_region_release(&g);
    return li_fail_at(r, AD_EINVALID, "map_rect: the result has %zu elements, too many", M);
  }
  int ad = wd > 0;
  double *val = ad_alloc_doubles(M ? M : 1);
  double *jac = ad ? ad_alloc_doubles(M * wd > 0 ? M * wd : 1) : NULL;
  size_t *off = ad ? ad_alloc((size_t)(J + 1) * sizeof *off) : NULL;
  if (!val || (ad && (!jac || !off))) {
    pp_region_release(&g);
    return ad_fail(AD_EMEMORY, "out of memory");
  }
  size_t k = 0;
  for (int j = 0; j < J; j++) {
    size_t m = (size_t)w.job[j].m;
    memcpy(val + k, w.job[j].val, m * sizeof(double));
    if (ad) {
      off[j] = k;
      memcpy(jac + k * wd, w.job[j].val + m, m * wd * sizeof(double));
    }
    k += m;
  }
  pp_region_release(&g);
  if (!ad) {
    *out = tm_vector_view(val, NULL, (int)M);
    out->dep = (unsigned char)dep;
    return AD_OK;
  }
  off[J] = M;
  mr_node *n = ad_node_new(sizeof *n, mr_chain);
  double *adj = ad_alloc_zeros(M ? M : 1);
  if (!n || !adj) return ad_fail(AD_EMEMORY, "out of memory");
  n->J = J;
  n->np = w.np;
  n->nt = w.nt;
  n->adj = adj;
  n->jac = jac;
  n->off = off;
  n->phi_adj = w.np ? a[0].adj : NULL;
  n->theta_adj = w.nt ? a[1].adj : NULL;
  *out = tm_vector_view(val, adj, (int)M);
  out->dep = 1;
  if (r->tr) {
    /* a recording: each job becomes a plan of its own */
    li_map mp = { mr_trace, &w };
    li_event ev = {
      .kind = LI_EV_MAPRECT,
      .args = a, /* phi, theta; then x_r and x_i, which stay data */
      .nargs = 2,
      .fn = w.f,
      .site = e,
      .n = (size_t)J,
      .out = out,
      .map = &mp,
      .chain0 = chain0,
    };
    li_emit(r, &ev);
  }
  return AD_OK;
}
