/*
** pp_mpi.c -- the MPI backend's transport (contract in pp_mpi.h).
**
** Why nonblocking collectives and a polling wait: a blocking MPI call on a
** rank whose peer died waits for ever.  Each call here starts the
** collective and tests it, spinning briefly then sleeping in growing steps
** (so an idle worker costs little CPU), and every 200 ms looks whether a
** peer on this host is still alive (its pid, learnt when MPI started).  A
** dead peer makes the call fail with a message naming the rank, and the
** backend refuses every later call (the job's collectives are out of step
** for good).
*/
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp_mpi.h"
#include "../ad/ad.h"

#ifdef TAPESTRY_MPI

#include <errno.h>
#include <pthread.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <unistd.h>
#endif
#include <mpi.h>

static int started, stopped, rank, size = 1;
static int broken;                       /* a peer died or a call failed */
static char broken_msg[256];
static _Atomic int session;              /* rank 0: a collective method runs */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic double bytes;

typedef struct peer { int pid; char host[64]; } peer;
static peer *peers;                      /* size of them */

int pp_mpi_built(void) { return 1; }
int pp_mpi_running(void) { return started && !stopped; }
int pp_mpi_rank(void) { return rank; }
int pp_mpi_size(void) { return size; }
double pp_mpi_bytes(void) { return atomic_load(&bytes); }

static void count(double n) {
  double old = atomic_load(&bytes);
  while (!atomic_compare_exchange_weak(&bytes, &old, old + n)) {}
}

static int under_mpirun(void) {
  static const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                                "MPI_LOCALNRANKS", "HYDRA_CONTROL_FD" };
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

/* The process and host a rank reports to the others, and whether a
** process on this host has ended: POSIX's getpid, gethostname and kill(pid,
** 0); Windows's process handles (MS-MPI). */
#ifdef _WIN32
static int own_pid(void) { return (int)GetCurrentProcessId(); }
static void own_host(char *buf, size_t n) {
  DWORD k = (DWORD)n;
  if (!GetComputerNameA(buf, &k)) buf[0] = '\0';
}
static int process_gone(int pid) {
  HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
  if (!h) return GetLastError() == ERROR_INVALID_PARAMETER;   /* no such process */
  DWORD code = 0;
  int gone = GetExitCodeProcess(h, &code) && code != STILL_ACTIVE;
  CloseHandle(h);
  return gone;
}
#else
static int own_pid(void) { return (int)getpid(); }
static void own_host(char *buf, size_t n) { gethostname(buf, n); }
static int process_gone(int pid) { return kill((pid_t)pid, 0) != 0 && errno == ESRCH; }
#endif

static int fail_mpi(int code, const char *what) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", code);
  broken = 1;
  snprintf(broken_msg, sizeof broken_msg, "MPI %s failed on rank %d: %.200s", what, rank, s);
  return ad_fail(AD_EFATAL, "%s", broken_msg);
}

int pp_mpi_start(void) {
  if (started || !under_mpirun()) return AD_OK;
  int inited = 0, provided = 0, rc;
  MPI_Initialized(&inited);
  if (!inited) {
    int argc = 0;
    char **argv = NULL;
    if ((rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided)) != MPI_SUCCESS)
      return ad_fail(AD_EINVALID, "MPI_Init_thread failed (error %d)", rc);
  } else {
    MPI_Query_thread(&provided);
  }
  started = 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_SERIALIZED) {
    broken = 1;
    snprintf(broken_msg, sizeof broken_msg, "this MPI gives thread level %d, below MPI_THREAD_SERIALIZED", provided);
    return ad_fail(AD_EINVALID, "%s", broken_msg);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peers = calloc((size_t)size, sizeof *peers);
  if (!peers) return ad_fail(AD_EMEMORY, "out of memory");
  peer me;
  memset(&me, 0, sizeof me);
  me.pid = own_pid();
  own_host(me.host, sizeof me.host - 1);
  if ((rc = MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, peers, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD)) != MPI_SUCCESS)
    return fail_mpi(rc, "start");
  return AD_OK;
}

void pp_mpi_stop(void) {
  if (!started || stopped) return;
  stopped = 1;
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return;
  if (!broken) {
    MPI_Finalize();
    return;
  }
  /* A peer died: finalizing would wait for it for ever.  Exit without;
     mpirun then stops the job.  A worker first gives rank 0 the time to
     notice the death itself and say so (its waits look every 200 ms). */
  if (rank > 0) {
    struct timespec ts = { 3, 0 };
    nanosleep(&ts, NULL);
  }
}

/* A peer on this host whose process is gone, or -1. */
static int dead_peer(void) {
  for (int r = 0; r < size; r++) {
    if (r == rank || strcmp(peers[r].host, peers[rank].host) != 0) continue;
    if (process_gone(peers[r].pid)) return r;
  }
  return -1;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int wait_req(MPI_Request *rq, const char *what) {
  double last = now();
  long nap = 0;
  for (unsigned spins = 0;; spins++) {
    int done = 0, rc = MPI_Test(rq, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return fail_mpi(rc, what);
    if (done) return AD_OK;
    if (spins < 20000) continue;
    nap = nap < 1000000 ? nap + 2000 : nap;    /* up to 1 ms */
    struct timespec ts = { 0, nap };
    nanosleep(&ts, NULL);
    double t = now();
    if (t - last > 0.2) {
      last = t;
      int d = dead_peer();
      if (d >= 0) {
        broken = 1;
        snprintf(broken_msg, sizeof broken_msg, "MPI rank %d (process %d on %s) has died", d, peers[d].pid,
                 peers[d].host);
        return ad_fail(AD_EFATAL, "%s", broken_msg);
      }
    }
  }
}

static int ready(void) {
  if (!started || size < 2) return ad_fail(AD_EINVALID, "MPI does not run in this process");
  if (broken) return ad_fail(AD_EFATAL, "%s", broken_msg);
  return AD_OK;
}

void pp_mpi_session_open(void) { if (started && size > 1 && rank == 0 && !broken) atomic_store(&session, 1); }
int pp_mpi_session_active(void) { return atomic_load(&session); }

int pp_mpi_session_close(const double *result, int n, int status, const char *msg) {
  if (!atomic_load(&session)) return AD_OK;
  atomic_store(&session, 0);
  pp_mpi_hdr h;
  memset(&h, 0, sizeof h);
  int nm = status && msg ? (int)strlen(msg) + 1 : 0;
  h.v[0] = PP_MPI_DONE;
  h.v[1] = result ? n : -1;
  h.v[2] = status;
  h.v[3] = nm;
  int rc = pp_mpi_bcast_hdr(&h);
  if (!rc && result && n > 0) rc = pp_mpi_bcast_doubles((double *)result, n);
  if (!rc && nm > 0) {
    int nd = (nm + 7) / 8;
    double *m = calloc((size_t)nd, sizeof(double));
    if (!m) return ad_fail(AD_EMEMORY, "out of memory");
    memcpy(m, msg, (size_t)nm);
    rc = pp_mpi_bcast_doubles(m, nd);
    free(m);
  }
  return rc;
}

int pp_mpi_trylock(void) {
  if (!atomic_load(&session)) return 0;
  if (broken) {
    ad_fail(AD_EFATAL, "%s", broken_msg);
    return -1;
  }
  return pthread_mutex_trylock(&lock) == 0;
}

void pp_mpi_unlock(void) { pthread_mutex_unlock(&lock); }

int pp_mpi_bcast_hdr(pp_mpi_hdr *h) {
  int rc = ready();
  if (rc) return rc;
  MPI_Request rq;
  if ((rc = MPI_Ibcast(h->v, PP_MPI_HDR_INTS, MPI_INT, 0, MPI_COMM_WORLD, &rq)) != MPI_SUCCESS)
    return fail_mpi(rc, "broadcast");
  count(rank == 0 ? (double)(size - 1) * sizeof h->v : sizeof h->v);
  return wait_req(&rq, "broadcast");
}

int pp_mpi_bcast_doubles(double *x, int n) {
  int rc = ready();
  if (rc) return rc;
  if (n <= 0) return AD_OK;
  MPI_Request rq;
  if ((rc = MPI_Ibcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq)) != MPI_SUCCESS) return fail_mpi(rc, "broadcast");
  count((rank == 0 ? (double)(size - 1) : 1.0) * n * sizeof(double));
  return wait_req(&rq, "broadcast");
}

static double sum_counts(const int *counts) {
  double s = 0;
  for (int r = 1; r < size; r++) s += counts[r];
  return s;
}

static int scatterv(const void *send, const int *counts, const int *displs, void *recv, int nrecv, MPI_Datatype t,
                    size_t size1) {
  int rc = ready();
  if (rc) return rc;
  MPI_Request rq;
  if ((rc = MPI_Iscatterv(send, counts, displs, t, recv, nrecv, t, 0, MPI_COMM_WORLD, &rq)) != MPI_SUCCESS)
    return fail_mpi(rc, "scatter");
  count((rank == 0 ? sum_counts(counts) : (double)nrecv) * (double)size1);
  return wait_req(&rq, "scatter");
}

int pp_mpi_scatterv_doubles(const double *send, const int *counts, const int *displs, double *recv, int nrecv) {
  return scatterv(send, counts, displs, recv, nrecv, MPI_DOUBLE, sizeof(double));
}

int pp_mpi_scatterv_ints(const int *send, const int *counts, const int *displs, int *recv, int nrecv) {
  return scatterv(send, counts, displs, recv, nrecv, MPI_INT, sizeof(int));
}

int pp_mpi_gather_ints2(const int *mine, int *all) {
  int rc = ready();
  if (rc) return rc;
  MPI_Request rq;
  if ((rc = MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &rq)) != MPI_SUCCESS)
    return fail_mpi(rc, "gather");
  count((rank == 0 ? (double)(size - 1) : 1.0) * 2 * sizeof(int));
  return wait_req(&rq, "gather");
}

int pp_mpi_gatherv_bytes(const void *send, int n, void *recv, const int *counts, const int *displs) {
  int rc = ready();
  if (rc) return rc;
  MPI_Request rq;
  if ((rc = MPI_Igatherv(send, n, MPI_BYTE, recv, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD, &rq)) != MPI_SUCCESS)
    return fail_mpi(rc, "gather");
  count(rank == 0 ? sum_counts(counts) : (double)n);
  return wait_req(&rq, "gather");
}

#else  /* no MPI: one process, rank 0 of 1 */

static int no_mpi(void) { return ad_fail(AD_EINVALID, "tapestry was built without MPI"); }
int pp_mpi_built(void) { return 0; }
int pp_mpi_running(void) { return 0; }
int pp_mpi_start(void) { return AD_OK; }
void pp_mpi_stop(void) {}
int pp_mpi_rank(void) { return 0; }
int pp_mpi_size(void) { return 1; }
double pp_mpi_bytes(void) { return 0; }
void pp_mpi_session_open(void) {}
int pp_mpi_session_active(void) { return 0; }
int pp_mpi_session_close(const double *result, int n, int rc, const char *msg) {
  (void)result; (void)n; (void)rc; (void)msg;
  return AD_OK;
}
int pp_mpi_trylock(void) { return 0; }
void pp_mpi_unlock(void) {}
int pp_mpi_bcast_hdr(pp_mpi_hdr *h) { (void)h; return no_mpi(); }
int pp_mpi_bcast_doubles(double *x, int n) { (void)x; (void)n; return no_mpi(); }
int pp_mpi_scatterv_doubles(const double *send, const int *counts, const int *displs, double *recv, int nrecv) {
  (void)send; (void)counts; (void)displs; (void)recv; (void)nrecv;
  return no_mpi();
}
int pp_mpi_scatterv_ints(const int *send, const int *counts, const int *displs, int *recv, int nrecv) {
  (void)send; (void)counts; (void)displs; (void)recv; (void)nrecv;
  return no_mpi();
}
int pp_mpi_gather_ints2(const int *mine, int *all) { (void)mine; (void)all; return no_mpi(); }
int pp_mpi_gatherv_bytes(const void *send, int n, void *recv, const int *counts, const int *displs) {
  (void)send; (void)n; (void)recv; (void)counts; (void)displs;
  return no_mpi();
}

#endif
