/*
** tm_pick.h -- results that are copies of argument elements, by index:
** diagonal, sub_col, reverse, sort_asc, append_array...  One node per call,
** whose reverse step adds each result adjoint into the element it came from.
** (tm_container.c's gathers do the same by strided runs; an index list
** suits permutations, which have no runs.)
*/
#ifndef TM_PICK_H
#define TM_PICK_H
#include "tm.h"

/* out->val[i] (or ->ival[i]) = element idx[i] of src, i < n; out must be
** allocated with n elements, with adjoints when src is autodiff.  idx must
** live in the arena (the node keeps it).  Marks out->dep from src. */
int tm_pick(tm_v *out, const tm_v *src, const size_t *idx, size_t n);

/* n indices in the arena, or NULL (out of memory) */
size_t *tm_pick_index(size_t n);

#endif
