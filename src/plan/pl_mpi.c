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
} job_plans;

/* phi (when data) then theta (when data), what the plans hold as
** constants: copied to buf (check 0), or compared with it (check 1: 0 when
** they differ).  Returns how many doubles, or 0 on a difference. */
static size_t consts(const tm_v *phi, const tm_v *th, size_t np, size_t nt, double *buf, int check) {
  const tm_v *part[2] = { np ? NULL : phi, nt ? NULL : th };
  size_t n = 0;
  for (int k = 0; k < 2; k++) {
    if (!part[k]) continue;
    size_t m = tm_numel(part[k]);
    if (check && memcmp(buf + n, part[k]->val, m * sizeof *buf)) return 0;
    if (!check) memcpy(buf + n, part[k]->val, m * sizeof *buf);
    n += m;
  }
  return n ? n : 1;   /* nonzero: none to compare is the same */
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

/* The site goes to the tree for good: its plans are not kept. */
static void give_up(job_plans *jp) {
  for (int j = 0; j < jp->J; j++) pl_plan_free(jp->subs[j]);
  memset(jp->subs, 0, (size_t)jp->J * sizeof *jp->subs);
  jp->failed = 1;
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
  jp->consts = malloc((tm_numel(phi) + tm_numel(th) + 1) * sizeof *jp->consts);
  if (!jp->subs || !jp->dep || !jp->consts) {
    pl_mpi_jobs_free(jp);
    return NULL;
  }
  consts(phi, th, np, nt, jp->consts, 0);
  for (int j = 0; j < J; j++) {
    int dep = 0;
    pl_plan *s = pl_record_job(c, trace, phi, th, j, np, nt, &dep);
    if (s && pl_prepare(s)) {
      pl_plan_free(s);
      s = NULL;
    }
    if (!(jp->subs[j] = s)) {
      give_up(jp);
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
  if (!consts(phi, theta, np, nt, jp->consts, 1)) {
    give_up(jp);      /* other data at this site */
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
