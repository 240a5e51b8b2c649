/*
** li.h -- the interpreter and the data context.
**
** A data context (li_ctx) is a checked program bound to its data: the data
** values converted and validated, transformed data evaluated once, the sizes
** of every parameter, transformed parameter and generated quantity, and the
** layout of the unconstrained parameter vector.  It is immutable once made,
** so every chain and thread reads the same one; all that an evaluation writes
** lives in the evaluation's own memory (the active tape's arena).
**
** Nothing here calls R.  An evaluation may run on any thread with an autodiff
** stack (ad_thread_init); it rewinds that stack when it returns, so call it
** at the top level of the thread's stack (not inside an outer recording).
*/
#ifndef LI_H
#define LI_H

#include <stdint.h>
#include "../front/ln.h"
#include "../data/ld.h"

typedef struct li_ctx li_ctx;

/* One variable of the output (parameters, transformed parameters, generated
** quantities), in declaration order. */
typedef struct li_var {
  const ln_decl *decl;
  const char *name;
  int block;               /* LN_BLK_PARAMS, LN_BLK_TPARAMS or LN_BLK_GQ */
  tm_v shape;              /* base, narr, dim[], rows, cols of the value (no storage) */
  size_t numel;            /* constrained values */
  size_t nfree;            /* parameters: unconstrained values */
  size_t offset;           /* parameters: first index in the unconstrained vector */
} li_var;

/* Messages of print() statements during an evaluation: the caller gives a
** buffer, the interpreter appends (truncating, NUL-terminated). */
typedef struct li_print {
  char *buf;
  size_t size, len;
} li_print;

/* Bind data to a checked program.  The context keeps a pointer to p (the
** caller keeps p alive until li_ctx_free).  Transformed data draws random
** numbers from the generator seeded with (seed, 0).  AD_OK, or a status with
** the message in err: a missing or mis-shaped variable, a bound violated, an
** error in transformed data (with its line). */
int  li_ctx_new(const ln_program *p, const ld_set *data, uint64_t seed, li_ctx **out,
                li_print *print, char *err, size_t errsize);
void li_ctx_free(li_ctx *c);

const ln_program *li_ctx_program(const li_ctx *c);
size_t            li_num_upars(const li_ctx *c);
int               li_num_vars(const li_ctx *c);
const li_var     *li_var_at(const li_ctx *c, int i);
/* Total constrained values written by li_write_array for these blocks. */
size_t            li_num_outputs(const li_ctx *c, int tparams, int gqs);

/* The log density at the unconstrained point upars (li_num_upars values):
** `~` drops constant terms (as Stan's log_prob), jacobian adds the log
** Jacobians of the constraint transforms.  With grad != NULL the evaluation
** records on the tape and writes the gradient.  Values on doubles and on the
** tape are identical.  AD_EDOMAIN for a rejection (the message says why and
** at which line), other statuses for errors. */
int li_log_prob(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                li_print *print, char *err, size_t errsize);

/* The log density on doubles with every constant kept, `~` included: Stan's
** log_prob<propto = false, jacobian> (what ADVI's ELBO and log_p__ use). */
int li_log_prob_full(const li_ctx *c, const double *upars, int jacobian, double *lp,
                     li_print *print, char *err, size_t errsize);

/* Constrained values of the parameters, then (when asked) the transformed
** parameters and generated quantities, each variable flattened in Stan's
** output order (column-major over all its dimensions: the first index
** fastest), in declaration order.  Generated quantities draw from rng. */
int li_write_array(const li_ctx *c, const double *upars, int tparams, int gqs, tm_rng *rng,
                   double *out, li_print *print, char *err, size_t errsize);

/* The unconstrained vector of constrained parameter values given by name in
** vals (an ld_set, as data are given; names that are not parameters are
** ignored).  With given == NULL every parameter must be present.  Otherwise
** (user inits, where the rest is drawn at random) missing parameters are
** skipped: given (li_num_upars bytes) gets 1 exactly at the elements
** filled, and the others are 0 in upars and given.  A given parameter whose
** bounds read a parameter that is missing is an error naming both. */
int li_unconstrain(const li_ctx *c, const ld_set *vals, double *upars, unsigned char *given,
                   char *err, size_t errsize);

/* Name of output element k of variable v in Stan's style: "theta[2]",
** "L[2,1]"; for the unconstrained vector (free = 1) the element index counts
** the variable's free values. */
char *li_elem_name(const li_var *v, size_t k, int free, char *buf, size_t size);

/* ---- tracing: what a recording of the evaluation sees (src/plan) ----
** A traced gradient evaluation tells its tracer every operation that makes
** or moves autodiff values and every decision taken on them, in the order
** they happen, right after each one (its values already computed).  With
** these a plan can redo the evaluation without the tree.  `chain0` is the
** length of the tape's chain stack before the operation, so the tracer can
** tell that no node was recorded behind its back. */
typedef struct li_tracer_s li_tracer;

enum {
  LI_EV_PARAMS = 1,   /* out: the unconstrained leaves (vector) */
  LI_EV_ALLOC,        /* out: fresh storage with adjoints (values NaN, adjoints 0) */
  LI_EV_READ,         /* out: a scalar's value copied (out.val fresh, out.adj the element's) */
  LI_EV_ARITH,        /* op (LN_OP_ADD, SUB, MUL, DIV), args[0..1] -> out: one scalar node */
  LI_EV_INVOKE,       /* fn, propto, args[nargs] -> out: a library function */
  LI_EV_TRANSFORM,    /* transform, args[0] x, args[1..] bounds -> out y, out2 log Jacobian (or NULL) */
  LI_EV_COPY,         /* args[0] -> out, element for element (src.adj += out.adj) */
  LI_EV_GATHER,       /* args[0][offs[k]] -> out[k] */
  LI_EV_STORE,        /* args[0] (n values) -> out at offs (NULL: 0..n-1), adjoints handed over */
  LI_EV_PACK,         /* out[k] from *sval[k], adjoint to *sadj[k] (NULL: none) */
  LI_EV_SUM,          /* args[nargs] (target's terms) -> out */
  LI_EV_CMP,          /* op on args[0], args[1] gave result */
  LI_EV_TRUTH,        /* args[0] != 0 gave result */
  LI_EV_CHECK,        /* decl's constraint held for args[0], bounds args[1..] */
  LI_EV_RESULT,       /* out: the log density */
  LI_EV_UNSUPPORTED,  /* why: nothing a plan can redo (the evaluation itself goes on) */
  LI_EV_MAP,          /* parallel_map with eager local gradients ran: out its n results;
                         args[nargs] element 0's operands, mask[k] 1 when operand k is
                         indexed (element i at i * offs[k] reals), map->run computes one
                         element again on the caller's tape with a tracer of its own */
  LI_EV_REDUCE,       /* reduce_sum (op 0) or reduce_sum_static (op 1) ran: out the sum
                         (one node of partials); args[0] x, an array of n elements cut in
                         chunks of result elements, args[1 .. nargs) the shared operands;
                         map->run computes chunk `piece` again (args: its slice of x, then
                         the shared operands) */
  LI_EV_MAPRECT,      /* map_rect ran with derivatives: out the n jobs' outputs (one node of
                         Jacobians); args[0] phi, args[1] theta (n rows); map->run computes
                         job `piece` again (args: phi, theta's row) */
  LI_EV_PROFILE,      /* a profile block entered (op 1) or left (op 0): why its name, fn the
                         profile around it (const char *, or NULL), result its line, n 1 when
                         it runs on the tape; entering records a node when profiling */
  LI_EV_LOOP,         /* a for loop (bounds from data) begins (op LI_LOOP_BEGIN: result its
                         line, n its column, why its variable), starts an iteration
                         (LI_LOOP_ITER) or ends (LI_LOOP_END, also after break) */
  LI_EV_HOF           /* an ODE, algebraic solver or integrate_1d call ran: site the call's
                         expression, args[nargs] its evaluated arguments after the function,
                         out its result (li_hof_apply does it again); fargs[nfargs] the user
                         function's arguments at a point of the solve, mask[k] 1 for those
                         that change from call to call or carry derivatives (a plan of the
                         function takes them as inputs), map->run calls the function */
};

enum { LI_LOOP_END = 0, LI_LOOP_BEGIN, LI_LOOP_ITER };

/* LI_EV_MAP's and LI_EV_REDUCE's way back into the tree: f applied to args
** (autodiff or not), traced by tr, on the active tape. */
typedef struct li_map {
  int (*run)(const void *ud, int piece, const tm_v *args, const li_tracer *tr, tm_v *out);
  const void *ud;
} li_map;

typedef struct li_event {
  int kind;
  int op, propto, result;
  const void *fn;              /* INVOKE: the tm_fn; TRANSFORM: the tm_transform; CHECK: the ln_decl */
  const tm_v *args;
  int nargs;
  const tm_v *out, *out2;
  const size_t *offs;
  size_t n;
  double **sval, **sadj;
  size_t chain0;
  const char *why;
  const unsigned char *mask;   /* MAP */
  const li_map *map;           /* MAP */
  const void *site;            /* MAPRECT: the call's expression (args[2], args[3] are x_r, x_i) */
  const tm_v *fargs;           /* HOF: the user function's arguments */
  int nfargs;
  int grain;                   /* REDUCE: the grainsize (result: the chunk size it gave) */
} li_event;

struct li_tracer_s {
  void (*event)(void *ud, const li_event *ev);
  void *ud;
};

/* Another way to evaluate a solver's user function (a plan of it, src/plan):
** f at args (nargs of them) into out[n]; with Jy or Jp, also its Jacobians
** as li_nested_jacobian gives them (by args[yi]; by the args with ad[k], in
** order).  LI_ENGINE_MISS: it cannot (a guard failed), the tree evaluates. */
#define LI_ENGINE_MISS 120
typedef struct li_fn_engine li_fn_engine;
struct li_fn_engine {
  int (*eval)(const li_fn_engine *g, const tm_v *args, int nargs, int yi, const int *ad, int n, double *out,
              double *Jy, double *Jp);
  void *ud;
};

/* An ODE, algebraic solver or integrate_1d call (site: the call's
** expression, as LI_EV_HOF gives it) on args, its arguments after the
** function, with derivatives on the active tape: the same code and bits as
** the tree's call.  For plans' replay: eng (or NULL) evaluates the user
** function, else the tree. */
int li_hof_apply(const li_ctx *c, const void *site, tm_v *args, int nargs, const li_fn_engine *eng, tm_v *out);

/* rows[0] = the sum of nrows rows of width m, in a fixed pairwise tree
** (li_reduce.c): reduce_sum_static's sum of its chunks, so that its bits
** do not depend on the threads; plans' replay sums its chunks the same. */
void li_tree_sum(double *rows, int nrows, size_t m);
/* The elements per chunk of a reduce_sum over n elements with this
** grainsize on the evaluation's threads now (reduce_sum_static: grain):
** plans (src/plan) record one plan per chunk, and replay them only while
** the threads would cut the same chunks. */
int li_reduce_chunk_size(int n, int grain, int is_static);

/* li_log_prob with a tracer (grad must not be NULL). */
int li_log_prob_traced(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                       li_print *print, char *err, size_t errsize, const li_tracer *tr);

/* The check of a declared constraint on plain values (no adjoints): AD_OK,
** or AD_EDOMAIN with a message (without the line). */
int li_check_values(const void *decl, const tm_v *v, const tm_v *bounds, int nbounds);

/* A slot per context for the layer above (plans): set once, atomically;
** freed with the context by `release`.  Returns the value now held. */
void *li_ctx_attachment(const li_ctx *c);
/* 1 when p is memory of the context (data, transformed data): it lives as long as c. */
int   li_ctx_owns(const li_ctx *c, const void *p);
void *li_ctx_attach(const li_ctx *c, void *ptr, void (*release)(void *));

/* Once, when the package loads: the quadrature library's global settings
** (li_integrate.c). */
void li_integrate_init(void);

#endif
