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
#include "ln.h"
#include "ld.h"

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

#endif
