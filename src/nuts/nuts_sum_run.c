/*
** nuts_sum_run.c -- a summary over variables, in parallel on the pool.
**
** Variables are independent, so the threads take blocks of them from an
** atomic counter until none is left; each thread owns its scratch (sized
** once for the job) and writes only its variables' rows of the result, so
** the numbers do not depend on the threads.  The calling thread works too
** and then waits for the helpers it queued.
*/
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nuts_sum_int.h"
#include "../par/pp.h"

#define BLOCK 4                  /* variables a thread takes at a time (short chains) */
#define MAX_THREADS 256

size_t nuts_sum_ranked(int nchains, int niter) {
  if (niter <= 0 || nchains <= 0) return 0;
  if (niter == 1) return (size_t)nchains;
  return 2 * (size_t)(niter / 2) * (size_t)nchains;
}

int nsum_work_init(nsum_work *w, const nuts_sum_job *job, const int32_t *pos,
                   const int32_t *ppos) {
  memset(w, 0, sizeof *w);
  w->job = job;
  w->n = job->niter;
  w->m = job->nchains;
  w->N = (size_t)job->niter * (size_t)job->nchains;
  w->S = nuts_sum_ranked(job->nchains, job->niter);
  if (job->niter == 1) { w->sr = 1; w->sc = job->nchains; }
  else { w->sr = job->niter / 2; w->sc = 2 * job->nchains; }
  w->pos = pos;
  w->ppos = ppos;
  w->pr = w->sr;
  w->pc = w->sc;
  if (job->niter == 2 || job->niter == 3) { w->pr = job->nchains; w->pc = 2; }
  size_t N = w->N ? w->N : 1, S = w->S ? w->S : 1, c = (size_t)w->sc;
  size_t P = 1, rows = (size_t)(w->pr > w->sr ? w->pr : w->sr);
  while (P < 2 * rows) P <<= 1;
  w->x = malloc(N * sizeof(double));
  w->y = malloc(2 * N * sizeof(double));
  w->sorted = malloc(N * sizeof(double));
  w->order = malloc(N * sizeof(uint32_t));
  w->fsorted = malloc(N * sizeof(double));
  w->forder = malloc(N * sizeof(uint32_t));
  w->sp = malloc(S * sizeof(double));
  w->cm = malloc(7 * c * sizeof(double));
  w->ss.key = malloc(2 * N * sizeof(uint64_t));
  w->es.yc = malloc(S * sizeof(double));
  w->es.ac = malloc(S * sizeof(double));
  w->es.means = malloc(S * sizeof(double));
  w->es.rho = malloc(S * sizeof(double));
  w->es.colv = malloc(c * sizeof(double));
  w->es.cm = malloc(2 * c * sizeof(double));
  w->es.bits = malloc((rows / 64 + 1) * c * sizeof(uint64_t));
  w->es.fft = malloc(2 * P * sizeof(double));
  w->es.tw = malloc(P * sizeof(double));
  if (!w->x || !w->y || !w->sorted || !w->order || !w->fsorted || !w->forder || !w->sp ||
      !w->cm || !w->ss.key || !w->es.yc || !w->es.ac || !w->es.means ||
      !w->es.rho || !w->es.colv || !w->es.cm || !w->es.bits || !w->es.fft || !w->es.tw) {
    nsum_work_free(w);
    return ad_fail(AD_EMEMORY, "out of memory for the summaries of %zu draws", w->N);
  }
  w->cmean = w->cm + c;
  w->cvar = w->cm + 2 * c;
  w->cv = w->cm + 3 * c;
  w->bcm = w->cm + 4 * c;
  w->bmean = w->cm + 5 * c;
  w->bvar = w->cm + 6 * c;
  w->ss.key2 = w->ss.key + N;
  return AD_OK;
}

void nsum_work_free(nsum_work *w) {
  free(w->x); free(w->y); free(w->sorted); free(w->order); free(w->fsorted); free(w->forder);
  free(w->sp); free(w->cm); free(w->ss.key);
  free(w->es.yc); free(w->es.ac); free(w->es.means); free(w->es.rho); free(w->es.colv);
  free(w->es.cm); free(w->es.bits);
  free(w->es.fft); free(w->es.tw);
  memset(w, 0, sizeof *w);
}

/* What the threads of one job share. */
typedef struct shared {
  nuts_sum_job *job;
  const int32_t *pos, *ppos;
  atomic_int next;               /* the next block of variables */
  int block;                     /* variables per block */
  atomic_int status;             /* the first failure */
  char msg[256];
  pthread_mutex_t lock;
} shared;

static void work(void *arg) {
  shared *sh = arg;
  nsum_work w;
  if (nsum_work_init(&w, sh->job, sh->pos, sh->ppos) != AD_OK) {
    int ok = AD_OK;
    pthread_mutex_lock(&sh->lock);
    if (atomic_compare_exchange_strong(&sh->status, &ok, AD_EMEMORY))
      snprintf(sh->msg, sizeof sh->msg, "%s", ad_errmsg());
    pthread_mutex_unlock(&sh->lock);
    return;
  }
  for (;;) {
    int v0 = atomic_fetch_add(&sh->next, sh->block);
    if (v0 >= sh->job->nvars) break;
    int v1 = v0 + sh->block < sh->job->nvars ? v0 + sh->block : sh->job->nvars;
    for (int v = v0; v < v1; v++) nsum_variable(&w, v);
  }
  nsum_work_free(&w);
}

int nuts_sum_run(nuts_sum_job *job, int nthreads) {
  if (job->nvars <= 0 || job->nops <= 0) return AD_OK;
  size_t N = (size_t)job->niter * (size_t)job->nchains;
  if (job->niter <= 0 || job->nchains <= 0 || N > UINT32_MAX)
    return ad_fail(AD_EINVALID, "summaries need between 1 and 2^32 draws");
  /* where each draw goes in posterior's .split_chains() of the draws: the
     first floor(n/2) iterations of chain j become column j, the last
     floor(n/2) column m + j.  posterior's draws keep their class there,
     so x[1:1, ] stays a matrix and two or three iterations make one row.
     The indicators of .ess_quantile() are a plain matrix, whose x[1:1, ]
     drops to a vector: cbind() then makes the first and last iterations
     two columns with a row per chain (ppos). */
  int32_t *pos = malloc(2 * N * sizeof *pos), *ppos = pos + N;
  if (!pos) return ad_fail(AD_EMEMORY, "out of memory for the summaries of %zu draws", N);
  int n = job->niter, m = job->nchains, n2 = n / 2;
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < n; i++) {
      int32_t p;
      if (n == 1) p = j;
      else if (i < n2) p = j * n2 + i;
      else if (i >= n - n2) p = (m + j) * n2 + (i - (n - n2));
      else p = -1;                 /* the middle iteration of an odd chain */
      pos[(size_t)j * (size_t)n + (size_t)i] = p;
      if (n2 == 1) p = i == 0 ? j : i == n - 1 ? m + j : -1;
      ppos[(size_t)j * (size_t)n + (size_t)i] = p;
    }
  }
  shared sh;
  memset(&sh, 0, sizeof sh);
  sh.job = job;
  sh.pos = pos;
  sh.ppos = ppos;
  atomic_init(&sh.next, 0);
  atomic_init(&sh.status, AD_OK);
  pthread_mutex_init(&sh.lock, NULL);
  /* a variable of a thousand draws or more is a tenth of a millisecond or
     more: one at a time, so a few variables still spread evenly (eight
     schools' 19 in blocks of 4 left one thread with 3 blocks of 5) */
  sh.block = N >= 1024 ? 1 : BLOCK;
  int helpers = nthreads - 1;
  int blocks = (job->nvars + sh.block - 1) / sh.block;
  if (helpers > blocks - 1) helpers = blocks - 1;
  if (helpers > MAX_THREADS) helpers = MAX_THREADS;
  if (helpers > pp_pool_size()) helpers = pp_pool_size();
  pp_group g;
  int have_group = helpers > 0 && pp_group_init(&g) == AD_OK;
  int queued = 0;
  for (int k = 0; have_group && k < helpers; k++)
    if (pp_submit(&g, work, &sh) == AD_OK) queued++;
  work(&sh);
  if (have_group) {
    /* helpers that no worker has started find nothing left: take them back */
    pp_cancel(&g);
    while (pp_group_wait(&g, 1.0) > 0) {}
    pp_group_destroy(&g);
  }
  pthread_mutex_destroy(&sh.lock);
  free(pos);
  int st = atomic_load(&sh.status);
  if (st != AD_OK) return ad_fail(st, "%s", sh.msg);
  return AD_OK;
}
