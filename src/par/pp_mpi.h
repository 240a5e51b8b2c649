/*
** pp_mpi.h -- the MPI backend's transport: one job of ranks running the
** same R script, rank 0 evaluating and the others serving its map_rect jobs.
**
** Built with MPI when configure finds it (TAPESTRY_MPI); otherwise every
** function here is a stub that says so, and the process is rank 0 of 1.
** MPI starts when the package loads under mpirun (pp_mpi_start), at the
** MPI_THREAD_SERIALIZED level: any thread may make MPI calls, one at a time,
** which pp_mpi_lock guarantees on rank 0 (a chain's thread sends its
** map_rect's jobs, the main thread opens and closes sessions when no chain
** runs); the other ranks make them on their main thread only.
**
** A session is one collective method call (log_prob, grad_log_prob,
** sample): rank 0 opens it, the other ranks serve commands until rank 0
** closes it.  Every call is counted in bytes (sent plus received, by rank 0
** or by this worker), so tests can see what an evaluation moves.
**
** Failures come back as AD_EFATAL with a message (ad_errmsg): they stop
** the run, as a chain cannot go on with ranks out of step; nothing here
** aborts.  A rank that dies is noticed by the waits below within
** seconds when it ran on this host (its process is gone) and by mpirun
** otherwise (which then stops the job).
*/
#ifndef PP_MPI_H
#define PP_MPI_H

#include <stddef.h>

/* 1 when the package was built with MPI. */
int  pp_mpi_built(void);
/* Starts MPI when the environment says this process runs under mpirun
** (OpenMPI, MPICH, PMI or PMIx variables); a no-op otherwise or when MPI
** runs already.  AD_OK or a failure. */
int  pp_mpi_start(void);
/* Ends MPI (once; the package's unload and R's exit). */
void pp_mpi_stop(void);
/* 1 when MPI was started (and must be ended by pp_mpi_stop), even as one rank. */
int  pp_mpi_running(void);
int  pp_mpi_rank(void);           /* 0 when MPI does not run */
int  pp_mpi_size(void);           /* 1 when MPI does not run */

/* Bytes this process sent and received through the backend. */
double pp_mpi_bytes(void);

/* Rank 0: the session of one collective method.  Between open and close,
** evaluations may send map_rect jobs to the other ranks. */
void pp_mpi_session_open(void);
int  pp_mpi_session_active(void);
/* Rank 0: ends the session: the workers return with the n doubles of
** result (n < 0: none), and rank 0's status rc with its message msg (so a
** worker fails where rank 0 failed).  AD_OK or a failure. */
int  pp_mpi_session_close(const double *result, int n, int rc, const char *msg);

/* Rank 0: the right to send one map_rect's jobs (only inside a session,
** only when no other thread holds it: a map_rect that cannot have it runs
** on threads).  1 when taken, 0 when not, -1 (with an AD_EFATAL failure
** set) when MPI broke in this session: the evaluation must fail, not go
** on without the other ranks. */
int  pp_mpi_trylock(void);
void pp_mpi_unlock(void);

/* Commands from rank 0 to the workers (pp_mpi_hdr.cmd). */
enum { PP_MPI_DONE = 1, PP_MPI_MAPRECT = 2 };

/* The header of a command, broadcast from rank 0. */
#define PP_MPI_HDR_INTS 12
typedef struct pp_mpi_hdr {
  int v[PP_MPI_HDR_INTS];
} pp_mpi_hdr;

/* Collectives on the world communicator; rank 0 is the root.  The buffer
** arguments follow MPI's (counts and displacements per rank, in elements).
** Each returns AD_OK or a failure. */
int pp_mpi_bcast_hdr(pp_mpi_hdr *h);
int pp_mpi_bcast_doubles(double *x, int n);
int pp_mpi_scatterv_doubles(const double *send, const int *counts, const int *displs, double *recv, int nrecv);
int pp_mpi_scatterv_ints(const int *send, const int *counts, const int *displs, int *recv, int nrecv);
/* Every rank's int[2] to rank 0 (all[2 * size]); ignored elsewhere. */
int pp_mpi_gather_ints2(const int *mine, int *all);
int pp_mpi_gatherv_bytes(const void *send, int n, void *recv, const int *counts, const int *displs);

/* The jobs of J that rank r owns: lo .. hi - 1, split evenly, rank 0 first. */
static inline void pp_mpi_share(int J, int size, int r, int *lo, int *hi) {
  *lo = (int)((long long)J * r / size);
  *hi = (int)((long long)J * (r + 1) / size);
}

#endif
