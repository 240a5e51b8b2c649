/*
** li_mpi.c -- map_rect over MPI: rank 0 sends jobs, the other ranks run them.
**
** The jobs of a call are split evenly over the ranks, rank 0 first
** (pp_mpi_share).  Per call, rank 0 broadcasts a header and phi, scatters
** each worker's rows of theta, runs its own jobs on its threads, then
** gathers the workers' outputs with their Jacobian rows; a worker runs its
** jobs exactly as li_maprect.c runs them on threads (li_mr_local), so the
** bits are those of a one-process run.
**
** Why the data travel once: x_r and x_i can be any data-only expression,
** even a local variable of the model block, which a worker (not running the
** model block) cannot compute.  So rank 0 sends each worker its rows at the
** first call of a call site, and the worker keeps them with its context.
** Rank 0 keeps, per call site, the sizes and a hash of what it sent; a
** later call whose data differ is refused (a call site in a loop over
** different data cannot run over MPI), never answered from stale data.
**
** The payload of a worker: per job m, dep, the m values and m Jacobian
** rows, as doubles; or, after a failure, its status and message.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "li_int.h"
#include "../par/pp_mpi.h"

/* header fields (pp_mpi_hdr.v) of PP_MPI_MAPRECT */
enum { H_CMD, H_SITE, H_FN, H_J, H_NPHI, H_NTH, H_PHI_AD, H_TH_AD, H_NXR, H_NXI, H_DATA };
/* ... and of PP_MPI_DONE */
enum { H_NRES = 1, H_RC, H_MSG };

typedef struct site0 {        /* rank 0: a call site's data as sent */
  const void *key;
  int J, nxr, nxi;
  uint64_t hash;
} site0;

typedef struct site1 {        /* a worker: its rows of a call site's data */
  int lo, hi, nxr, nxi;
  double *xr;
  int *xi;
  void *plans;                /* its jobs' plans (li_mpi_set_plans' runner) */
} site1;

/* the runner of jobs on plans, set once when the package loads */
static li_mpi_jobs_fn plans_run;
static void (*plans_free)(void *cache);

void li_mpi_set_plans(li_mpi_jobs_fn run, void (*free_cache)(void *cache)) {
  plans_run = run;
  plans_free = free_cache;
}

static void site_plans_free(site1 *s) {
  if (s->plans && plans_free) plans_free(s->plans);
  s->plans = NULL;
}

typedef struct mpi_state {
  site0 *s0;
  site1 *s1;
  int n, cap;
} mpi_state;

void li_mpi_free(void *state) {
  mpi_state *st = state;
  if (!st) return;
  if (st->s1)
    for (int i = 0; i < st->n; i++) { free(st->s1[i].xr); free(st->s1[i].xi); site_plans_free(&st->s1[i]); }
  free(st->s0);
  free(st->s1);
  free(st);
}

static mpi_state *state_of(const li_ctx *c) {
  li_ctx *m = (li_ctx *)c;
  if (!m->mpi) m->mpi = calloc(1, sizeof(mpi_state));
  return m->mpi;
}

#define FNV_PRIME 1099511628211ULL

/* FNV-1a over 8-byte words (the data are doubles or pairs of ints) in four
** lanes, which the processor runs side by side (one lane waits on each
** multiply: 1.3 MB of x_r took 0.2 ms, a sixth of a map_rect gradient over
** two ranks), then the tail bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t lane[4] = { h, h ^ 1, h ^ 2, h ^ 3 }, w;
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      memcpy(&w, b + i + 8 * (size_t)k, 8);
      lane[k] = (lane[k] ^ w) * FNV_PRIME;
    }
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, b + i, 8);
    lane[0] = (lane[0] ^ w) * FNV_PRIME;
  }
  for (; i < n; i++) lane[0] = (lane[0] ^ b[i]) * FNV_PRIME;
  for (int k = 1; k < 4; k++) lane[0] = (lane[0] ^ lane[k]) * FNV_PRIME;
  return lane[0];
}

/* Per-job widths of x_r and x_i (0 when they have no rows). */
static int row_width(const tm_v *x, int J) {
  size_t n = tm_numel(x);
  return x->dim[0] == 0 || J == 0 ? 0 : (int)(n / (size_t)J);
}

uint64_t li_mpi_data_hash(const tm_v *xr, const tm_v *xi, int J) {
  int nxr = row_width(xr, J), nxi = row_width(xi, J);
  uint64_t h = 1469598103934665603ULL;
  if (nxr) h = fnv(h, xr->val, (size_t)J * (size_t)nxr * sizeof(double));
  if (nxi) h = fnv(h, xi->ival, (size_t)J * (size_t)nxi * sizeof(int));
  return h;
}

static int fn_index(const ln_program *p, const ln_func *f) {
  for (int i = 0; i < p->nfuncs; i++)
    if (p->funcs[i] == f) return i;
  return -1;
}

/* ---- rank 0 ---- */

int li_mpi_mr_begin(const li_ctx *c, const void *site, const ln_func *f, const tm_v *phi, const tm_v *theta,
                    const tm_v *xr, const tm_v *xi, const uint64_t *data_hash, size_t np, size_t nt,
                    li_mpi_call *call) {
  int size = pp_mpi_size(), J = theta->dim[0], rc;
  int nxr = row_width(xr, J), nxi = row_width(xi, J);
  mpi_state *st = state_of(c);
  int fi = fn_index(li_ctx_program(c), f);
  if (!st || fi < 0) return ad_fail(AD_EMEMORY, "out of memory");
  uint64_t h = data_hash ? *data_hash : li_mpi_data_hash(xr, xi, J);
  int k = 0;
  while (k < st->n && st->s0[k].key != site) k++;
  int send_data = k == st->n;
  if (send_data) {
    if (ad_grow(&st->s0, st->n, &st->cap, sizeof *st->s0, 8)) return ad_fail(AD_EMEMORY, "out of memory");
  } else {
    const site0 *s = &st->s0[k];
    if (s->J != J || s->nxr != nxr || s->nxi != nxi)
      return ad_fail(AD_EINVALID,
                        "map_rect over MPI: this call's data changed size since its first evaluation "
                        "(%d jobs with %d reals and %d ints each, now %d with %d and %d); the workers get "
                        "a call's x_r and x_i once, so they must stay the same", s->J, s->nxr, s->nxi, J, nxr, nxi);
    if (s->hash != h)
      return ad_fail(AD_EINVALID,
                        "map_rect over MPI: this call's x_r or x_i changed since its first evaluation; the "
                        "workers get a call's data once, so they must stay the same");
  }
  size_t nphi = tm_numel(phi), nth = J ? tm_numel(theta) / (size_t)J : 0;
  if (nphi > 0x7fffffff || nth * (size_t)J > 0x7fffffff || (size_t)nxr * J > 0x7fffffff ||
      (size_t)nxi * J > 0x7fffffff)
    return ad_fail(AD_EINVALID, "map_rect over MPI: the call's arguments are too large to send");

  int *cnt = ad_alloc(4 * (size_t)size * sizeof(int));
  if (!cnt) return ad_fail(AD_EMEMORY, "out of memory");
  int *dsp = cnt + size, *cnt2 = dsp + size, *dsp2 = cnt2 + size;
  pp_mpi_hdr hd;
  memset(&hd, 0, sizeof hd);
  hd.v[H_CMD] = PP_MPI_MAPRECT;
  hd.v[H_SITE] = k;
  hd.v[H_FN] = fi;
  hd.v[H_J] = J;
  hd.v[H_NPHI] = (int)nphi;
  hd.v[H_NTH] = (int)nth;
  hd.v[H_PHI_AD] = np > 0;
  hd.v[H_TH_AD] = nt > 0;
  hd.v[H_NXR] = nxr;
  hd.v[H_NXI] = nxi;
  hd.v[H_DATA] = send_data;
  if ((rc = pp_mpi_bcast_hdr(&hd))) return rc;
  if ((rc = pp_mpi_bcast_doubles(phi->val, (int)nphi))) return rc;
  for (int q = 0; q < size; q++) {
    int lo, hi;
    pp_mpi_share(J, size, q, &lo, &hi);
    cnt[q] = q ? (hi - lo) * (int)nth : 0;
    dsp[q] = lo * (int)nth;
  }
  if ((rc = pp_mpi_scatterv_doubles(theta->val, cnt, dsp, NULL, 0))) return rc;
  if (send_data) {
    for (int q = 0; q < size; q++) {
      int lo, hi;
      pp_mpi_share(J, size, q, &lo, &hi);
      cnt[q] = q ? (hi - lo) * nxr : 0;
      dsp[q] = lo * nxr;
      cnt2[q] = q ? (hi - lo) * nxi : 0;
      dsp2[q] = lo * nxi;
    }
    if ((rc = pp_mpi_scatterv_doubles(nxr ? xr->val : NULL, cnt, dsp, NULL, 0))) return rc;
    if ((rc = pp_mpi_scatterv_ints(nxi ? xi->ival : NULL, cnt2, dsp2, NULL, 0))) return rc;
    site0 *s = &st->s0[st->n++];
    s->key = site;
    s->J = J;
    s->nxr = nxr;
    s->nxi = nxi;
    s->hash = h;
  }
  int lo, hi;
  pp_mpi_share(J, size, 0, &lo, &hi);
  call->J = J;
  call->J0 = hi;
  call->wd = np + nt;
  return AD_OK;
}

int li_mpi_mr_end(li_mpi_call *call, li_mr_job *jobs) {
  int size = pp_mpi_size(), rc;
  int mine[2] = { 0, 0 };
  int *all = ad_alloc(4 * (size_t)size * sizeof(int));
  if (!all) return ad_fail(AD_EMEMORY, "out of memory");
  int *cnt = all + 2 * size, *dsp = cnt + size;
  if ((rc = pp_mpi_gather_ints2(mine, all))) return rc;
  size_t total = 0;
  for (int q = 0; q < size; q++) {
    cnt[q] = q ? all[2 * q + 1] : 0;
    dsp[q] = (int)total;
    total += (size_t)cnt[q];
    /* payloads are doubles: keep every rank's part aligned */
    if (total % sizeof(double)) return ad_fail(AD_EINVALID, "map_rect over MPI: a malformed reply from rank %d", q);
  }
  if (total > 0x7fffffff) return ad_fail(AD_EINVALID, "map_rect over MPI: the replies are too large");
  char *buf = ad_alloc(total ? total : 1);
  if (!buf) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = pp_mpi_gatherv_bytes(NULL, 0, buf, cnt, dsp))) return rc;
  /* a failure: the first rank's that failed (rank 0's own comes first) */
  for (int q = 1; q < size; q++)
    if (all[2 * q]) {
      const char *msg = buf + dsp[q];
      int n = cnt[q];
      return ad_fail(all[2 * q], "%.*s", n > 0 ? n - 1 : 0, msg);
    }
  for (int q = 1; q < size; q++) {
    int lo, hi;
    pp_mpi_share(call->J, size, q, &lo, &hi);
    double *p = (double *)(buf + dsp[q]), *end = (double *)(buf + dsp[q] + cnt[q]);
    for (int j = lo; j < hi; j++) {
      if (end - p < 2) return ad_fail(AD_EINVALID, "map_rect over MPI: a short reply from rank %d", q);
      size_t m = (size_t)p[0];
      if ((size_t)(end - p - 2) < m + m * call->wd)
        return ad_fail(AD_EINVALID, "map_rect over MPI: a short reply from rank %d", q);
      jobs[j].m = (int)m;
      jobs[j].dep = (unsigned char)(p[1] != 0);
      jobs[j].val = p + 2;
      p += 2 + m + m * call->wd;
    }
  }
  return AD_OK;
}

/* ---- a worker ---- */

static site1 *worker_site(mpi_state *st, int k) {
  if (k < st->n) return &st->s1[k];
  if (k != st->n) return NULL;      /* sites arrive in order */
  if (ad_grow(&st->s1, st->n, &st->cap, sizeof *st->s1, 8)) return NULL;
  site1 *s = &st->s1[st->n++];
  memset(s, 0, sizeof *s);
  return s;
}

/* A worker's job j again under a tracer (the plans' runner records it):
** phi and theta[j] as the recorder gives them, this rank's data rows. */
typedef struct wtrace { const li_ctx *c; const ln_func *f; tm_v xr, xi; } wtrace;

static int worker_trace(const void *ud, int j, const tm_v *args, const li_tracer *tr, tm_v *out) {
  const wtrace *w = ud;
  li_run run;
  char pbuf[256];
  li_print pr = { pbuf, sizeof pbuf, 0 };     /* print() in a job on a worker is not shown */
  int rc = li_run_init(&run, w->c, 1, NULL, &pr);
  if (rc) return rc;
  run.tr = tr;
  run.prof = NULL;
  return li_mr_call(&run, w->f, &args[0], &args[1], &w->xr, &w->xi, j, out);
}

/* One PP_MPI_MAPRECT: receive, run this rank's jobs, reply.  A failure
** before the reply still replies (with the failure), so rank 0's gather
** completes; only a failure of MPI itself returns early. */
static int serve_maprect(const li_ctx *c, const pp_mpi_hdr *hd) {
  const ln_program *p = li_ctx_program(c);
  int size = pp_mpi_size(), me = pp_mpi_rank(), rc = AD_OK, lo, hi;
  int J = hd->v[H_J], nphi = hd->v[H_NPHI], nth = hd->v[H_NTH], nxr = hd->v[H_NXR], nxi = hd->v[H_NXI];
  pp_mpi_share(J, size, me, &lo, &hi);
  int Jl = hi - lo;
  ad_mark mark = ad_stack_mark(ad_active);
  double *phi = ad_alloc_doubles(nphi ? (size_t)nphi : 1);
  double *th = ad_alloc_doubles(Jl * nth != 0 ? (size_t)Jl * nth : 1);
  if (!phi || !th) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = pp_mpi_bcast_doubles(phi, nphi))) return rc;
  if ((rc = pp_mpi_scatterv_doubles(NULL, NULL, NULL, th, Jl * nth))) return rc;
  mpi_state *st = state_of(c);
  site1 *s = st ? worker_site(st, hd->v[H_SITE]) : NULL;
  if (hd->v[H_DATA]) {
    double *xr = malloc((size_t)(Jl * nxr != 0 ? Jl * nxr : 1) * sizeof(double));
    int *xi = malloc((size_t)(Jl * nxi != 0 ? Jl * nxi : 1) * sizeof(int));
    int rc1 = pp_mpi_scatterv_doubles(NULL, NULL, NULL, xr, Jl * nxr);
    int rc2 = rc1 ? rc1 : pp_mpi_scatterv_ints(NULL, NULL, NULL, xi, Jl * nxi);
    if (rc2 || !s || !xr || !xi) { free(xr); free(xi); }
    if (rc2) return rc2;
    if (s && xr && xi) {
      free(s->xr);
      free(s->xi);
      site_plans_free(s);          /* recorded with the old rows */
      s->xr = xr;
      s->xi = xi;
      s->lo = lo;
      s->hi = hi;
      s->nxr = nxr;
      s->nxi = nxi;
    }
  }
  if (!s || !s->xr) rc = ad_fail(AD_EMEMORY, "map_rect over MPI: rank %d has no data for this call (out of memory)", me);
  else if (s->lo != lo || s->hi != hi || s->nxr != nxr || s->nxi != nxi)
    rc = ad_fail(AD_EINVALID, "map_rect over MPI: rank %d holds other data for this call", me);
  int fi = hd->v[H_FN];
  if (!rc && (fi < 0 || fi >= p->nfuncs))
    rc = ad_fail(AD_EINVALID, "map_rect over MPI: rank %d has no function %d: do all ranks run the same program?", me, fi);

  /* the arguments as li_maprect.c sees them */
  size_t np = hd->v[H_PHI_AD] ? (size_t)nphi : 0, nt = hd->v[H_TH_AD] ? (size_t)nth : 0;
  int ad = np + nt > 0;
  li_mr_job *jobs = ad_alloc((size_t)(Jl ? Jl : 1) * sizeof *jobs);
  double *zeros = ad_alloc_zeros((size_t)(nphi + Jl * nth) + 1);
  if (!rc && (!jobs || !zeros)) rc = ad_fail(AD_EMEMORY, "out of memory");
  pp_region g;
  memset(&g, 0, sizeof g);
  li_run run;
  char pbuf[256];
  li_print pr = { pbuf, sizeof pbuf, 0 };     /* print() in a job on a worker is not shown */
  if (!rc) rc = li_run_init(&run, c, ad, NULL, &pr);
  if (!rc) {
    /* phi a vector, theta an array of vectors, x_r and x_i 2-d arrays */
    tm_v vphi = tm_vector_view(phi, np ? zeros : NULL, nphi);
    tm_v vth = li_array_view(tm_vector_view(th, nt ? zeros + nphi : NULL, nth), 1, Jl, 0);
    tm_v vxr = li_array_view(tm_real_view(s->xr, NULL), 2, Jl, nxr);
    tm_v vxi = li_array_view(tm_int_view(s->xi), 2, Jl, nxi);
    /* the jobs on plans when the runner has them (it records them the
       first time), else on the tree */
    wtrace wt = { c, p->funcs[fi], vxr, vxi };
    li_map trace = { worker_trace, &wt };
    if (!plans_run || plans_run(c, &s->plans, &trace, &vphi, &vth, Jl, np, nt, jobs) != AD_OK) {
      ad_clear_error();
      rc = li_mr_local(&run, p->funcs[fi], &vphi, &vth, &vxr, &vxi, Jl, np, nt, jobs, &g);
    }
  }

  /* the reply */
  int mine[2] = { rc, 0 };
  char *out = NULL;
  size_t n = 0, wd = np + nt;
  if (!rc) {
    for (int j = 0; j < Jl; j++) n += 2 + (size_t)jobs[j].m * (1 + wd);
    n *= sizeof(double);
    double *q = ad_alloc_doubles(n ? n / sizeof(double) : 1);
    if (!q || n > 0x7fffffff) {
      rc = mine[0] = q ? ad_fail(AD_EINVALID, "map_rect over MPI: rank %d's results are too large to send", me)
                       : ad_fail(AD_EMEMORY, "out of memory");
    } else {
      out = (char *)q;
      for (int j = 0; j < Jl; j++) {
        size_t m = (size_t)jobs[j].m;
        *q++ = (double)m;
        *q++ = jobs[j].dep;
        memcpy(q, jobs[j].val, m * (1 + wd) * sizeof(double));
        q += m * (1 + wd);
      }
    }
  }
  if (rc) {
    const char *msg = ad_errmsg();
    n = strlen(msg) + 1;
    n = (n + sizeof(double) - 1) / sizeof(double) * sizeof(double);
    out = ad_alloc(n);
    if (out) { memset(out, 0, n); memcpy(out, msg, strlen(msg)); }
    else n = 0;
  }
  mine[1] = (int)n;
  int rc3 = pp_mpi_gather_ints2(mine, NULL);
  if (!rc3) rc3 = pp_mpi_gatherv_bytes(out, (int)n, NULL, NULL, NULL);
  pp_region_release(&g);
  ad_stack_rewind(ad_active, &mark);
  return rc3;
}

int li_mpi_serve(const li_ctx *c, double **res, int *n, int *rank0_rc, char *err, size_t errsize) {
  *res = NULL;
  *n = -1;
  *rank0_rc = AD_OK;
  if (err && errsize) err[0] = '\0';
  for (;;) {
    pp_mpi_hdr hd;
    memset(&hd, 0, sizeof hd);
    int rc = pp_mpi_bcast_hdr(&hd);
    if (!rc && hd.v[H_CMD] == PP_MPI_MAPRECT) rc = serve_maprect(c, &hd);
    else if (!rc && hd.v[H_CMD] == PP_MPI_DONE) {
      int nr = hd.v[H_NRES], nm = hd.v[H_MSG];
      *rank0_rc = hd.v[H_RC];
      if (nr > 0) {
        if (!(*res = ad_alloc_doubles((size_t)nr))) return ad_fail(AD_EMEMORY, "out of memory");
        if ((rc = pp_mpi_bcast_doubles(*res, nr))) return rc;
      }
      *n = nr;
      if (nm > 0) {
        double *m = ad_alloc_doubles((size_t)(nm + 7) / 8);
        if (!m) return ad_fail(AD_EMEMORY, "out of memory");
        if ((rc = pp_mpi_bcast_doubles(m, (nm + 7) / 8))) return rc;
        if (err && errsize) snprintf(err, errsize, "%.*s", nm, (const char *)m);
      }
      return AD_OK;
    } else if (!rc) {
      rc = ad_fail(AD_EINVALID, "MPI: rank %d got an unknown command %d from rank 0", pp_mpi_rank(), hd.v[H_CMD]);
    }
    if (rc) {
      if (err && errsize) snprintf(err, errsize, "%s", ad_errmsg());
      return rc;
    }
  }
}
