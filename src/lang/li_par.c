/*
** li_par.c -- what reduce_sum, map_rect and parallel_map share when they run
** on the thread pool (src/par): a participant's run state, copies of
** autodiff operands onto a participant's tape, slices of arrays.
**
** A participant evaluates a user function on its own tape with the
** interpreter.  User functions see only their arguments (no model
** variables), may not change target or draw random numbers (the checker
** refuses _lp and _rng functions here), and their arguments are read-only,
** so the caller's values can be read by every participant at once.
*/
#include <pthread.h>
#include <string.h>
#include "li_int.h"

void li_run_fork(const li_run *r, li_run *out) {
  *out = *r;
  out->locals = NULL;
  out->terms = NULL;
  out->nterms = out->capterms = 0;
  out->rng = NULL;
  out->flow = LI_FLOW_NONE;
  out->located = 0;
  out->parallel = 1;
}

int li_leaf_copy(const tm_v *v, tm_v *out) {
  *out = *v;
  if (!v->adj) return AD_OK;
  size_t n = tm_numel(v);
  int rc = ad_leaves(n, v->val, &out->val, &out->adj);
  return rc ? ad_fail(AD_EMEMORY, "out of memory") : AD_OK;
}

size_t li_elem_numel(const tm_v *v) {
  size_t n = (size_t)v->rows * (size_t)v->cols;
  for (int i = 1; i < v->narr; i++) n *= (size_t)v->dim[i];
  return n;
}

tm_v li_slice(const tm_v *v, int from, int to) {
  tm_v s = *v;
  size_t es = li_elem_numel(v), off = (size_t)from * es;
  s.dim[0] = to - from;
  if (v->base == TM_INT) s.ival = v->ival + off;
  else {
    s.val = v->val + off;
    if (v->adj) s.adj = v->adj + off;
  }
  return s;
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
void li_print_lock(void) { pthread_mutex_lock(&print_lock); }
void li_print_unlock(void) { pthread_mutex_unlock(&print_lock); }

/* The values of parts, one after another, as one vector (one node on the
** tape).  The serial map_rect and parallel_map use it. */
int li_concat(li_run *r, const tm_v *parts, int n, tm_v *out) {
  size_t total = 0;
  int ad = 0, dep = 0, rc;
  for (int i = 0; i < n; i++) {
    total += tm_numel(&parts[i]);
    if (r->ad && parts[i].adj) ad = 1;
    if (li_nonconst(&parts[i])) dep = 1;
  }
  if (total > (size_t)0x7fffffff) return ad_fail(AD_EINVALID, "result too large");
  if ((rc = tm_new_vector(out, (int)total, ad))) return rc;
  out->dep = (unsigned char)dep;
  double **sadj = NULL;
  if (ad && !(sadj = ad_alloc((total ? total : 1) * sizeof *sadj))) return ad_fail(AD_EMEMORY, "out of memory");
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    size_t m = tm_numel(&parts[i]);
    for (size_t j = 0; j < m; j++, k++) {
      out->val[k] = tm_get(&parts[i], j);
      if (sadj) sadj[k] = parts[i].adj ? parts[i].adj + j : NULL;
    }
  }
  return ad ? li_record_pack(total, out->adj, sadj) : AD_OK;
}

