/*
** tm_sort.c -- sort_asc, sort_desc, sort_indices_asc, sort_indices_desc and
** rank.
**
** One stable merge sort of indices serves them all, so ties keep their
** order (Stan's std::sort leaves it unspecified; a fixed order makes runs
** reproducible).  A sorted autodiff container is a permutation of its
** argument: one pick node (tm_pick.h) whose reverse step sends each adjoint
** back to the element it came from.
*/
#include <math.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_pick.h"

static int nomem(const tm_call *c) { return ad_fail(AD_EMEMORY, "%s: out of memory", c->fn->name); }

static int is_1d(const tm_v *v) {
  return (v->narr == 1 && v->base <= TM_REAL) ||
         (v->narr == 0 && (v->base == TM_VECTOR || v->base == TM_ROW_VECTOR));
}

static int bad_args(const tm_call *c, const tm_v *a, int nargs) {
  char t[64];
  return ad_fail(AD_EINVALID, "%s: no signature accepts %d argument%s starting with %s", c->fn->name, nargs,
                 nargs == 1 ? "" : "s", nargs ? tm_type_name(&a[0], t, sizeof t) : "nothing");
}

/* Stable merge sort of idx[0..n) by x[idx[i]], descending when desc. */
static void merge_sort(size_t *idx, size_t *tmp, size_t n, const tm_v *x, int desc) {
  if (n < 2) return;
  size_t h = n / 2;
  merge_sort(idx, tmp, h, x, desc);
  merge_sort(idx + h, tmp, n - h, x, desc);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) {
    double a = tm_get(x, idx[i]), b = tm_get(x, idx[j]);
    /* take from the right only when strictly before: stability */
    if (desc ? b > a : b < a) tmp[k++] = idx[j++];
    else tmp[k++] = idx[i++];
  }
  while (i < h) tmp[k++] = idx[i++];
  while (j < n) tmp[k++] = idx[j++];
  memcpy(idx, tmp, n * sizeof *idx);
}

/* The sorting permutation of x, after Stan's NaN check. */
static int sorted_index(const tm_call *c, const tm_v *x, int desc, size_t **out) {
  size_t n = tm_numel(x);
  int rc = tm_check_not_nan(c->fn->name, "container argument", x);
  if (rc) return rc;
  size_t *idx = tm_pick_index(n), *tmp = tm_pick_index(n);
  if (!idx || !tmp) return nomem(c);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  merge_sort(idx, tmp, n, x, desc);
  *out = idx;
  return AD_OK;
}

/* sort_asc, sort_desc (data: non-NULL for descending) */
static int k_sort(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_1d(&a[0])) return bad_args(c, a, nargs);
  const tm_v *x = &a[0];
  size_t n = tm_numel(x), *idx;
  int rc;
  if ((rc = sorted_index(c, x, c->fn->data != NULL, &idx))) return rc;
  *out = *x;
  out->dep = 0;
  out->adj = NULL;
  if (x->base == TM_INT) {
    if (!(out->ival = ad_alloc((n ? n : 1) * sizeof(int)))) return nomem(c);
  } else {
    if (!(out->val = ad_alloc_doubles(n ? n : 1))) return nomem(c);
    if (x->adj && !(out->adj = ad_alloc_zeros(n ? n : 1))) return nomem(c);
  }
  return tm_pick(out, x, idx, n);
}

/* sort_indices_asc, sort_indices_desc: 1-based, as array[] int */
static int k_sort_indices(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1 || !is_1d(&a[0])) return bad_args(c, a, nargs);
  size_t n = tm_numel(&a[0]), *idx;
  int rc;
  if ((rc = sorted_index(c, &a[0], c->fn->data != NULL, &idx))) return rc;
  if (tm_new_int_array(out, (int)n)) return nomem(c);
  for (size_t i = 0; i < n; i++) out->ival[i] = (int)idx[i] + 1;
  return AD_OK;
}

/* rank(v, s): the number of elements of v less than v[s] */
static int k_rank(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2 || !is_1d(&a[0]) || !tm_is_scalar(&a[1]) || a[1].base != TM_INT) return bad_args(c, a, nargs);
  size_t n = tm_numel(&a[0]);
  int s = a[1].ival[0];
  if (s < 1 || (size_t)s > n)
    return ad_fail(AD_EINVALID, "%s: index %d out of range; expecting index to be between 1 and %zu",
                   c->fn->name, s, n);
  double v = tm_get(&a[0], (size_t)s - 1);
  int r = 0;
  for (size_t i = 0; i < n; i++) r += tm_get(&a[0], i) < v;
  return tm_set_int(out, r);
}

#define SORT_SIG "vector(vector); row_vector(row_vector); array[] real(array[] real); array[] int(array[] int)"
#define IDX_SIG "array[] int(vector); array[] int(row_vector); array[] int(array[] real); array[] int(array[] int)"
#define RANK_SIG "int(vector, int); int(row_vector, int); int(array[] real, int); int(array[] int, int)"

const tm_fn tm_fns_sort[] = {
  {"sort_asc", SORT_SIG, k_sort, NULL},
  {"sort_desc", SORT_SIG, k_sort, "desc"},
  {"sort_indices_asc", IDX_SIG, k_sort_indices, NULL},
  {"sort_indices_desc", IDX_SIG, k_sort_indices, "desc"},
  {"rank", RANK_SIG, k_rank, NULL},
  {NULL, NULL, NULL, NULL}
};
