/*
** pl_mpi.c -- a map_rect worker's jobs on plans.
**
** Under mpirun, rank 0 replays its share of a map_rect's jobs from the
** evaluation's plan (pl_replay.c's PL_MRECT); the other ranks receive their
** share (src/tree/li_mpi.c) and ran it on the tree, so a job function
** written as a loop ran at tree speed on every rank but the first.  Here a
** worker records a plan per job of a call site the first time it serves it,
** as pl_record.c records rank 0's jobs (the job's phi and theta as the
** inputs, its rows of x_r and x_i as constants), and replays them after:
** forward once, backward once per output for the Jacobian rows, as
** mrect_piece does.  A job that cannot be recorded leaves the site to the
** tree for good; a replay that fails (a guard: a branch on a parameter took
** the other way) runs that call on the tree.  The plans follow the site's
** data: li_mpi.c frees them when new rows arrive, and phi or theta when they
** are data are compared with the recorded ones at every call (a map_rect in
** a loop over data can send other ones to one site: the tree then runs the
** site).  Only gradients use plans, as on rank 0: in an evaluation on
** doubles (no autodiff phi or theta) a phi that depends on the parameters
** looks like data.
**
** li_mpi.c sits in src/tree, below the plans, so it gets this runner
** through li_mpi_set_plans when the package loads.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pl_int.h"

typedef struct job_plans {
  int J, failed;
  size_t np, nt;
  pl_plan **subs;
  unsigned char *dep;
  double *consts;             /* phi when data, then theta when data, as recorded */
  size_t nconsts;
} job_plans;

/* phi (when data) then theta (when data): what the plans hold as constants */
static size_t consts_of(const tm_v *phi, const tm_v *th, size_t np, size_t nt, double *to) {
  size_t n = 0;
  if (!np) {
    size_t k = tm_numel(phi);
    if (to) memcpy(to + n, phi->val, k * sizeof *to);
    n += k;
  }
  if (!nt) {
    size_t k = tm_numel(th);
    if (to) memcpy(to + n, th->val, k * sizeof *to);
    n += k;
  }
  return n;
}

static int same_consts(const job_plans *jp, const tm_v *phi, const tm_v *th) {
  size_t n = 0;
  if (!jp->np) {
    size_t k = tm_numel(phi);
    if (memcmp(jp->consts + n, phi->val, k * sizeof(double))) return 0;
    n += k;
  }
  if (!jp->nt) {
    size_t k = tm_numel(th);
    if (memcmp(jp->consts + n, th->val, k * sizeof(double))) return 0;
    n += k;
  }
  return n == jp->nconsts;
}

void pl_mpi_jobs_free(void *cache) {
  job_plans *jp = cache;
  if (!jp) return;
  if (jp->subs)
    for (int j = 0; j < jp->J; j++) pl_plan_free(jp->subs[j]);
  free(jp->subs);
  free(jp->dep);
  free(jp->consts);
  free(jp);
}

/* Job j's plan, with phi and theta[j] as its inputs (when autodiff). */
static pl_plan *record_one(const li_ctx *c, const li_map *trace, const tm_v *phi, const tm_v *th, int j,
                           size_t np, size_t nt, int *dep) {
  size_t nin = np + nt;
  ad_mark mark = ad_stack_mark(ad_active);
  double *uval, *uadj;
  if (ad_leaves(nin ? nin : 1, NULL, &uval, &uadj)) {
    ad_stack_rewind(ad_active, &mark);
    return NULL;
  }
  tm_v args[2];
  args[0] = *phi;
  args[1] = tm_elem(th, j);
  if (np) {
    memcpy(uval, phi->val, np * sizeof *uval);
    args[0].val = uval;
    args[0].adj = uadj;
  }
  if (nt) {
    memcpy(uval + np, args[1].val, nt * sizeof *uval);
    args[1].val = uval + np;
    args[1].adj = uadj + np;
  }
  char why[200];
  pl_plan *sub = pl_record_job(c, trace, j, args, uval, uadj, nin, dep, why, sizeof why);
  ad_stack_rewind(ad_active, &mark);
  return sub;
}

static job_plans *record_all(const li_ctx *c, const li_map *trace, const tm_v *phi, const tm_v *th, int J,
                             size_t np, size_t nt) {
  job_plans *jp = calloc(1, sizeof *jp);
  if (!jp) return NULL;
  jp->J = J;
  jp->np = np;
  jp->nt = nt;
  jp->subs = calloc((size_t)(J ? J : 1), sizeof *jp->subs);
  jp->dep = calloc((size_t)(J ? J : 1), 1);
  jp->nconsts = consts_of(phi, th, np, nt, NULL);
  jp->consts = malloc((jp->nconsts ? jp->nconsts : 1) * sizeof *jp->consts);
  if (!jp->subs || !jp->dep || !jp->consts) {
    pl_mpi_jobs_free(jp);
    return NULL;
  }
  consts_of(phi, th, np, nt, jp->consts);
  for (int j = 0; j < J; j++) {
    int dep = 0;
    if (!(jp->subs[j] = record_one(c, trace, phi, th, j, np, nt, &dep))) {
      /* the site stays on the tree: its plans are not kept */
      for (int k = 0; k < j; k++) pl_plan_free(jp->subs[k]);
      memset(jp->subs, 0, (size_t)J * sizeof *jp->subs);
      jp->failed = 1;
      ad_clear_error();
      break;
    }
    jp->dep[j] = (unsigned char)dep;
  }
  return jp;
}

int pl_mpi_jobs(const li_ctx *c, void **cache, const li_map *trace, const tm_v *phi, const tm_v *theta,
                int J, size_t np, size_t nt, li_mr_job *jobs) {
  if (!pl_enabled() || np + nt == 0) return 1;
  job_plans *jp = *cache;
  if (jp && (jp->J != J || jp->np != np || jp->nt != nt)) {
    /* another shape of call at this site: record again */
    pl_mpi_jobs_free(jp);
    *cache = jp = NULL;
  }
  if (!jp) {
    if (!(jp = record_all(c, trace, phi, theta, J, np, nt))) return 1;
    *cache = jp;
  }
  if (jp->failed) return 1;
  if (!same_consts(jp, phi, theta)) {
    /* other data at this site: the tree runs it from now on */
    for (int j = 0; j < jp->J; j++) pl_plan_free(jp->subs[j]);
    memset(jp->subs, 0, (size_t)jp->J * sizeof *jp->subs);
    jp->failed = 1;
    return 1;
  }
  size_t wd = np + nt, nin = wd ? wd : 1;
  double *u = ad_alloc_doubles(nin);
  if (!u) return 1;
  for (int j = 0; j < J; j++) {
    const pl_plan *s = jp->subs[j];
    size_t m = s->nres;
    if (np) memcpy(u, phi->val, np * sizeof *u);
    if (nt) memcpy(u + np, theta->val + (size_t)j * nt, nt * sizeof *u);
    double *out = ad_alloc_doubles(m + m * wd > 0 ? m + m * wd : 1);
    if (!out || pl_job_run(s, u, wd, out) != AD_OK) return 1;
    jobs[j].m = (int)m;
    jobs[j].dep = jp->dep[j];
    jobs[j].val = out;
  }
  return AD_OK;
}
