/*
** li_mpi.h -- map_rect over MPI ranks (li_mpi.c), for the tree's map_rect
** (li_maprect.c) and the plans' (src/plan's PL_MRECT), which both run the
** same exchange: send the other ranks' jobs, run their own, gather.
*/
#ifndef LI_MPI_H
#define LI_MPI_H

#include <stddef.h>
#include "li.h"

/* What a job gives: its outputs' values, then a Jacobian row of np + nt per
** output (the derivatives by phi, then by theta[j]). */
typedef struct li_mr_job {
  int m;                    /* outputs */
  unsigned char dep;        /* parameter-dependent (propto on doubles) */
  double *val;              /* m values, then m rows of the Jacobian */
} li_mr_job;

/* One map_rect call's exchange with the other ranks, rank 0's side. */
typedef struct li_mpi_call {
  int J, J0;                /* jobs; rank 0 runs 0..J0-1 */
  size_t wd;                /* Jacobian columns */
} li_mpi_call;

/* Rank 0, holding pp_mpi_trylock: checks that the call's data (x_r, x_i)
** are those the workers have (sending them at the site's first call), then
** sends phi and the workers' rows of theta.  site identifies the call in
** the program (its expression), f is its function.  data_hash: the data's
** li_mpi_data_hash when the caller holds it (a plan, whose copy of the
** data never changes), else NULL and it is computed here.  Nothing is sent
** when it fails (the failure does not name the line). */
int li_mpi_mr_begin(const li_ctx *c, const void *site, const ln_func *f, const tm_v *phi, const tm_v *theta,
                    const tm_v *xr, const tm_v *xi, const uint64_t *data_hash, size_t np, size_t nt,
                    li_mpi_call *call);
/* The hash by which rank 0 tells a call site's data from what it sent. */
uint64_t li_mpi_data_hash(const tm_v *xr, const tm_v *xi, int J);
/* Rank 0: the workers' results into jobs[J0..J-1] (on the active tape).
** Runs after rank 0's own jobs, whether they failed or not, so the ranks
** stay in step; a worker's failure comes back with its message. */
int li_mpi_mr_end(li_mpi_call *call, li_mr_job *jobs);
/* A worker: serves rank 0's commands for context c until rank 0 closes the
** session; then *res (n doubles on the active tape, n = -1 for none), and
** rank 0's status, with its message in err. */
/* A worker's jobs on plans (issue 32): src/plan installs a runner here
** (li_mpi_set_plans), as src/math's kernels get src/par's through
** tm_set_for, since the tree sits below the plans.  run(c, cache, trace, phi,
** theta, J, np, nt, jobs) gives jobs[0..J-1] as li_mr_local would (values,
** then Jacobian rows, on the active stack), keeping in *cache what it
** recorded for this call site (trace->run(ud, j, args, tracer, out) runs job
** j again under a tracer: phi and theta[j] as args[0] and args[1]); nonzero
** leaves the jobs to the tree, with nothing written that the tree needs.
** free_cache(cache) when the site's data change or the context goes. */
typedef int (*li_mpi_jobs_fn)(const li_ctx *c, void **cache, const li_map *trace, const tm_v *phi,
                              const tm_v *theta, int J, size_t np, size_t nt, li_mr_job *jobs);
void li_mpi_set_plans(li_mpi_jobs_fn run, void (*free_cache)(void *cache));

int li_mpi_serve(const li_ctx *c, double **res, int *n, int *rank0_rc, char *err, size_t errsize);
void li_mpi_free(void *state);

#endif
