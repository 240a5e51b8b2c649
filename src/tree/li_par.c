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
  out->tr = NULL;   /* the caller tells its tracer the region is not traceable */
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
