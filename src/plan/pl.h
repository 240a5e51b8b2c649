/*
** pl.h -- recorded plans: the gradient of the log density without the tree.
**
** The first gradient evaluation of a context runs on the tree interpreter
** with a tracer (li.h) that writes down every operation on autodiff values
** and every decision taken on them.  The result, a plan, is a flat list of
** instructions over numbered cells: V holds values, A adjoints, P partials,
** each an array of doubles the evaluation allocates at once.  Later
** evaluations replay it: one forward loop, one reverse loop.  Library
** functions without an instruction of their own are called again on views
** of the cells (a CALL), and their nodes swept in place on the way back.
** A loop whose iterations repeat one body stays a loop (PL_LOOP), run lane
** by lane: each body instruction over every iteration.
**
** Bits: every instruction does the same floating-point operations in the
** same order as the tree's node, so a replay gives the tree's log density
** and gradient bit for bit.  Decisions: a comparison or condition on a
** parameter-dependent value, a library function that turns such values into
** plain ones, and a checked constraint become guards; when a guard fails,
** the evaluation tries the context's other plans (variants recorded for
** other decisions), then runs on the tree and records one more (at most
** PL_MAX_RECORDS per context and Jacobian setting; when evaluations keep
** missing all of them, the tree for good).  What the tracer cannot follow
** (parallel_map over ints or large shared operands, print, truncation at
** parameter bounds) leaves the context
** on the tree; pl_stats says why.
**
** A plan is read-only once published and shared by every chain and thread
** of the context; each evaluation owns its V, A and P (from its tape's
** arena, so replay performs no malloc).
*/
#ifndef PL_H
#define PL_H

#include "../tree/li.h"
#include "../tree/li_mpi.h"   /* li_mr_job: a map_rect worker's jobs (pl_mpi.c) */

#define PL_MAX_RECORDS 4

/* The log density and gradient through the context's plan when it has one
** (recording it first when it does not), with the arguments and results of
** li_log_prob.  grad == NULL: li_log_prob on doubles. */
int pl_log_prob(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                li_print *print, char *err, size_t errsize);

/* Counters of a context (for tests and verbose output). */
typedef struct pl_stats {
  long replays;        /* evaluations that ran from a plan */
  long records;        /* plans recorded */
  long fallbacks;      /* replays abandoned for the tree (guard, error) */
  long tree;           /* evaluations on the tree without recording */
  long evaluations;    /* gradient evaluations asked for, whichever path ran */
  int instructions;    /* of the newest plan (Jacobian on), 0 when none */
  int loops;           /* loops that plan keeps as loops (run lane by lane) */
  int map_lanes;       /* parallel_maps of that plan whose elements run as lanes */
  int direct;          /* its calls the replay runs itself, without their nodes (pl_call.direct) */
  char why[200];       /* why the context runs on the tree, "" when it does not */
} pl_stats;
void pl_get_stats(const li_ctx *c, pl_stats *out);

/* One for statement of the program (bounds from data) as the context's
** first plan (Jacobian on, else off) runs it: vectorized, lane by lane, or
** not and why.  Strings live as long as the context. */
typedef struct pl_loopinfo {
  int line, col;
  const char *var;             /* the loop variable */
  const char *where;           /* "model" (the program), "reduce_sum", "parallel_map", "map_rect" */
  int why;                     /* a PL_WHY_ code (pl_int.h): see pl_why_text */
  const char *detail;          /* the function, when why says a function; else NULL */
  long runs, lanes;            /* times one evaluation met it; times it ran lane by lane */
  double iters;                /* its iterations over all runs */
} pl_loopinfo;
/* The loops into out[0 .. max), in the order first met; returns how many
** it wrote.  out NULL: a bound on their number (max ignored).  0 when no
** plan. */
size_t pl_loop_report(const li_ctx *c, pl_loopinfo *out, size_t max);
const char *pl_why_text(int why);

/* A map_rect worker's jobs on plans (pl_mpi.c): the runner and the freeing
** of its per-site cache that li_mpi_set_plans takes (src/tree/li_mpi.h). */
int  pl_mpi_jobs(const li_ctx *c, void **cache, const li_map *trace, const tm_v *phi, const tm_v *theta,
                 int J, size_t np, size_t nt, li_mr_job *jobs);
void pl_mpi_jobs_free(void *cache);

/* Process-wide switch (tests compare the two paths): 0 turns plans off. */
void pl_set_enabled(int on);
int  pl_enabled(void);
/* Process-wide switch for loops kept as loops (pl_reroll.c) in the plans
** recorded from now on; 0: plans stay unrolled traces. */
void pl_set_lanes(int on);
int  pl_lanes_enabled(void);

#endif
