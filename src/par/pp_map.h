/*
** pp_map.h -- parallel map: out[i] = apply(the operands element i reads),
** i = 0 .. n-1, on the thread pool (pp.h), the forward and the reverse
** pass in parallel.
**
** The caller describes element i with two functions:
**   index(ctx, i, ops)   fills ops with views of the caller's values that
**                        element i reads (data or autodiff), and marks
**                        those that are the same view for every element
**                        (broadcast operands: ops->shared[k] = 1);
**   apply(ctx, slot, i, args, nargs, out)
**                        computes the real *out from args, recording on
**                        the active stack (the participant's tape).  args
**                        are the operands, or copies of them (below); slot
**                        names the participant, for per-participant state
**                        (0 .. the region's threads - 1).
** Both may run on several threads at once: they read ctx and write only
** per-slot state.  A failure is a status with ad_fail's message; the map
** then fails with the status and message of the lowest failing chunk.
**
** Every element must read the same layout: the same number of operands,
** each of the same size and autodiff or not as element 0's (a map over
** vectors, arrays or matrices and broadcast values has it).  A different
** layout is AD_EINVALID.
**
** Strategies, chosen per call (TM_PM_AUTO) from element 0's layout:
**   eager   each element copies its autodiff operands onto the
**           participant's tape (broadcast ones once per participant),
**           runs apply, sweeps at once and stores its value and partials;
**           the caller's tape gets one vector node that scatters the
**           partials.  Data are read in place.  Memory: n times the reals
**           of an element's autodiff operands.
**   append  when the broadcast autodiff operands hold more than
**           append_above reals (a large shared vector of which each
**           element may read a little), storing n rows of their partials
**           would cost more than the work: apply records on the
**           participants' tapes with the caller's operands themselves, the
**           tapes are appended to the caller's (in slot order) and one
**           node hands the outputs' adjoints back.  Memory: the tapes of
**           the work; the reverse pass is the caller's sweep (serial).
**   values  no operand of element 0 is autodiff: values only, in
**           parallel; out->dep is set when a result is marked dep.
** Values do not depend on the number of threads, bit for bit (elements are
** computed independently), nor do eager gradients (the caller's node adds
** the partials in element order); append gradients add the elements'
** shares of a broadcast operand in the order the slots recorded them.
*/
#ifndef PP_MAP_H
#define PP_MAP_H

#include "../math/tm.h"
#include "pp.h"

#define TM_PM_MAXOPS 64

/* What element i reads; filled by index. */
typedef struct tm_pm_ops {
  int n;                                 /* operands, <= TM_PM_MAXOPS */
  tm_v v[TM_PM_MAXOPS];                  /* views of the caller's values */
  unsigned char shared[TM_PM_MAXOPS];    /* 1: the same view for every element */
} tm_pm_ops;

typedef int (*tm_pm_index_fn)(void *ctx, int i, tm_pm_ops *ops);
typedef int (*tm_pm_apply_fn)(void *ctx, int slot, int i, const tm_v *args, int nargs, tm_v *out);

/* Broadcast autodiff reals per element above which TM_PM_AUTO appends.
** bench/parallel_map_threshold.R: N = 2000 elements, f reads x[i] and one
** entry (or all) of a broadcast parameter vector of M reals; gradient time
** in us and peak memory growth in MB (2-core machine shared with other
** jobs, so the 2-thread times are rough):
**                 reads one entry              reads all of it
**      M     eager    append   MB e/a       eager   append   MB e/a
**   1 thread
**     16      230      166    2.9/3.6        301      270    2.9/4.7
**     64      258      191    3.6/3.6        492      383    3.6/4.7
**    128      367      238    4.6/3.6        891      539    4.7/6.7
**    256      758      242    6.6/3.6       1344      984    6.5/10.7
**   1024     1266      184   18.4/3.7       4500     4000   18.4/34.7
**   4096    10875      227   65.5/3.9      18500    16000   65.5/66.8
**   2 threads
**     16      160      242                   340      367
**     64      414      242                   320      508
**    128      492      242                   438      711
**    256      625      246                  1188     1250
** Eager stores M partials per element whether f reads one entry or all:
** past 64 reals its memory passes the tapes append keeps (flat at 3.6 MB
** when f reads one entry) and its time grows with M while append's does
** not.  Up to 64 eager uses less memory, costs 10-40% more time on one
** thread (its copies, layout checks and rewinds on elements this small),
** and on two, where its reverse pass runs in parallel too, it was the
** faster in three of the four cells up to 64. */
#define TM_PM_APPEND_ABOVE 64
/* Sets the threshold specs with append_above < 0 use (< 0: back to
** TM_PM_APPEND_ABOVE); returns the previous setting.  For benchmarks and
** tests (R: tp_pmap_threshold). */
long tm_parallel_map_threshold(long above);

enum { TM_PM_AUTO = 0, TM_PM_EAGER, TM_PM_APPEND, TM_PM_VALUES };

typedef struct tm_pm_spec {
  int n;                        /* elements (>= 0) */
  int grainsize;                /* at least this many elements per chunk (>= 1) */
  /* Optional two-index form: rows > 0 makes out a rows x (n / rows)
  ** matrix, element i being (i % rows, i / rows); with grain_rows and
  ** grain_cols > 0 the chunks are tiles of that many rows and columns
  ** (grainsize is then unused). */
  int rows, grain_rows, grain_cols;
  tm_pm_index_fn index;
  tm_pm_apply_fn apply;
  int (*begin)(void *ctx, int slot);     /* optional: before a slot's first element */
  void *ctx;
  int strategy;                 /* TM_PM_AUTO, TM_PM_EAGER or TM_PM_APPEND */
  long append_above;            /* TM_PM_AUTO's threshold; < 0: TM_PM_APPEND_ABOVE */
  int nthreads;                 /* participants at most; <= 0: pp_threads() */
  int used;                     /* set: the strategy that ran (TM_PM_VALUES when no autodiff) */
} tm_pm_spec;

/* Runs the map s describes.  out: a vector of n reals (or a rows x cols
** matrix in the two-index form), on the active stack; autodiff when an
** operand of element 0 is.  AD_OK, AD_EINVALID for bad arguments, or the
** failure of index or apply. */
int tm_parallel_map_spec(tm_pm_spec *s, tm_v *out);

/* The most participants a map may have: what per-slot state needs. */
int tm_parallel_map_slots(const tm_pm_spec *s);

#endif
